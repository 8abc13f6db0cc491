//===- PerformanceModelTest.cpp - regression trees and conv2d-gw8's model -===//

#include "Targets.h"
#include "spio/Kernels/Conv2dGw8.h"
#include "spio/Kernels/TreeEnsemble.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <iterator>
#include <string>

using namespace spio::kernels;

namespace generated {
using spio::kernels::ModelTarget;
using spio::kernels::TreeNode;
#include "Conv2dGw8Model.inc"
} // namespace generated

namespace {

TEST(TreeEnsemble, PredictsTheBasePlusEachTreesLeaf) {
  // Tree 0 splits feature 1 at 2.5 (below: 1, else 2); tree 1 is one leaf.
  static const TreeNode nodes[] = {
      {1, 2.5f, 1, 2, 0}, {-1, 0, 0, 0, 10}, {-1, 0, 0, 0, 20}, {-1, 0, 0, 0, 0.25f}};
  static const int32_t roots[] = {0, 3};
  static const char *const names[] = {"a", "b"};
  TreeEnsemble model = {nodes, roots, 2, names, 2, 0.5f};
  EXPECT_DOUBLE_EQ(predict(model, {0, 2.0}), 0.5 + 10 + 0.25);
  // A value equal to the threshold goes above, as xgboost's `<` sends it.
  EXPECT_DOUBLE_EQ(predict(model, {0, 2.5}), 0.5 + 20 + 0.25);
  // Features are compared as float: 2.5 + 1e-9 rounds to 2.5.
  EXPECT_DOUBLE_EQ(predict(model, {0, 2.5 - 1e-9}), 0.5 + 20 + 0.25);
}

TEST(Conv2dGw8Model, ReadsTheFeaturesTheLibraryComputes) {
  const TreeEnsemble &model = conv2dGw8Model();
  std::vector<std::string> names(model.featureNames, model.featureNames + model.features);
  EXPECT_EQ(names, conv2dGw8FeatureNames());
  EXPECT_EQ(conv2dGw8Features(Conv2dGw8Problem(), chooseConv2dGw8Config(Conv2dGw8Problem())).size(),
            model.features);
}

TEST(Conv2dGw8Model, PredictsWhatXgboostPredicted) {
  // train.py wrote rows of its training data and xgboost's predictions of
  // them beside the trees: the C++ walk of the tables must agree.
  const TreeEnsemble &model = conv2dGw8Model();
  ASSERT_EQ(std::size(generated::kModelCheckFeatures),
            std::size(generated::kModelCheckPredictions));
  for (size_t row = 0; row < std::size(generated::kModelCheckFeatures); ++row) {
    std::vector<double> features(std::begin(generated::kModelCheckFeatures[row]),
                                 std::end(generated::kModelCheckFeatures[row]));
    EXPECT_NEAR(predict(model, features), generated::kModelCheckPredictions[row], 1e-4) << row;
  }
}

Conv2dGw8Problem problem(ConvPass pass, int64_t n, int64_t c, int64_t hw, int64_t rs,
                         int64_t stride) {
  Conv2dGw8Problem p;
  p.target = hopper();
  p.pass = pass;
  p.n = n;
  p.c = c;
  p.h = p.w = hw;
  p.r = p.s = rs;
  p.padH = p.padW = rs / 2;
  p.stride = stride;
  return p;
}

std::string describe(const Conv2dGw8Config &c) {
  return std::to_string(c.warpsQ) + "x" + std::to_string(c.warpsG) + " rows " +
         std::to_string(c.rowsP) + " chunks " + std::to_string(c.chunks) + " copy " +
         std::to_string(c.copyWarps) + " stages " + std::to_string(c.stages) +
         (c.rowRing ? " ring" : "") + " reduce " + std::to_string(c.reduceLaneElements);
}

TEST(Conv2dGw8Model, ChoosesTheCandidateItPredictsFastest) {
  for (const Conv2dGw8Problem &p :
       {problem(ConvPass::Fprop, 128, 192, 72, 3, 1), problem(ConvPass::Dgrad, 64, 640, 8, 3, 1),
        problem(ConvPass::Fprop, 32, 384, 56, 5, 2), problem(ConvPass::Wgrad, 128, 320, 14, 5, 1),
        problem(ConvPass::Fprop, 1, 32, 7, 3, 1)}) {
    std::vector<Conv2dGw8Config> rules = conv2dGw8RuleCandidates(p);
    std::vector<Conv2dGw8Config> candidates = conv2dGw8Candidates(p);
    Conv2dGw8Config chosen = chooseConv2dGw8Config(p);
    std::vector<std::string> ruleNames, names;
    for (const Conv2dGw8Config &c : rules)
      ruleNames.push_back(describe(c));
    for (const Conv2dGw8Config &c : candidates)
      names.push_back(describe(c));
    ASSERT_FALSE(names.empty());
    EXPECT_EQ(names.front(), describe(chosen));
    // The same configurations, the pick moved to the front.
    std::vector<std::string> sortedRules = ruleNames, sortedNames = names;
    std::sort(sortedRules.begin(), sortedRules.end());
    std::sort(sortedNames.begin(), sortedNames.end());
    EXPECT_EQ(sortedNames, sortedRules);
    EXPECT_EQ(checkConv2dGw8(p, chosen), "") << describe(chosen);
    double chosenTime = predict(conv2dGw8Model(), conv2dGw8Features(p, chosen));
    for (const Conv2dGw8Config &c : rules)
      EXPECT_LE(chosenTime, predict(conv2dGw8Model(), conv2dGw8Features(p, c))) << describe(c);
  }
}

TEST(Conv2dGw8Model, TheRulesChooseOnTargetsTheDataDoesNotCover) {
  Conv2dGw8Problem p = problem(ConvPass::Fprop, 128, 192, 72, 3, 1);
  EXPECT_TRUE(conv2dGw8ModelKnowsTarget(p));
  // An sm_80 part: other multiprocessors and shared memory.
  Conv2dGw8Problem ampere = p;
  ampere.target.multiprocessors = 108;
  ampere.target.sharedBytesPerBlock = 163 * 1024;
  ampere.target.sharedBytesPerMultiprocessor = 164 * 1024;
  EXPECT_FALSE(conv2dGw8ModelKnowsTarget(ampere));
  std::vector<std::string> names, ruleNames;
  for (const Conv2dGw8Config &c : conv2dGw8Candidates(ampere))
    names.push_back(describe(c));
  for (const Conv2dGw8Config &c : conv2dGw8RuleCandidates(ampere))
    ruleNames.push_back(describe(c));
  EXPECT_EQ(names, ruleNames);
  EXPECT_EQ(describe(chooseConv2dGw8Config(ampere)), describe(conv2dGw8RuleConfig(ampere)));
  // The same sizes with Hopper's multiprocessors but less shared memory.
  Conv2dGw8Problem lessShared = p;
  lessShared.target.sharedBytesPerBlock = 99 * 1024;
  lessShared.target.sharedBytesPerMultiprocessor = 100 * 1024;
  EXPECT_FALSE(conv2dGw8ModelKnowsTarget(lessShared));
}

TEST(Conv2dGw8Model, FeaturesFollowTheConfigurationAndTheTarget) {
  Conv2dGw8Problem p = problem(ConvPass::Fprop, 128, 192, 72, 3, 1);
  Conv2dGw8Config c = conv2dGw8RuleConfig(p);
  const std::vector<std::string> &names = conv2dGw8FeatureNames();
  auto feature = [&](const Conv2dGw8Problem &q, const Conv2dGw8Config &k, const char *name) {
    return conv2dGw8Features(q, k)[std::find(names.begin(), names.end(), name) - names.begin()];
  };
  EXPECT_EQ(feature(p, c, "warps_q"), double(c.warpsQ));
  EXPECT_EQ(feature(p, c, "threads"), double(c.threads()));
  Conv2dGw8Config streamed = c;
  streamed.copyWarps = 2;
  streamed.chunks = 29;
  EXPECT_EQ(feature(p, streamed, "copy_warps"), 2.0);
  EXPECT_EQ(feature(p, streamed, "threads"), double(c.threads() + 64));
  // Half the multiprocessors: twice the waves of the same blocks.
  Conv2dGw8Problem half = p;
  half.target.multiprocessors = p.target.multiprocessors / 2;
  EXPECT_DOUBLE_EQ(feature(half, c, "waves"), 2 * feature(p, c, "waves"));
  EXPECT_EQ(feature(half, c, "multiprocessors"), double(half.target.multiprocessors));
  // The registers a thread the resident blocks leave (the copy warps'
  // threads count), at most ptxas's 255.
  for (const Conv2dGw8Config &k : {c, streamed})
    EXPECT_EQ(feature(p, k, "register_budget"),
              std::min(255.0, 65536.0 / (feature(p, k, "resident_blocks") * k.threads())));
}

} // namespace
