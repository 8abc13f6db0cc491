//===- LaunchPlanTest.cpp - Kernel families' launch plans -----------------===//

#include "spio/Kernels/LaunchPlan.h"
#include "Targets.h"

#include <gtest/gtest.h>

#include <tuple>

using namespace spio::kernels;
using Kind = PlanParameter::Kind;

namespace {

std::vector<Kind> kinds(const PlannedKernel &kernel) {
  std::vector<Kind> result;
  for (const PlanParameter &parameter : kernel.parameters)
    result.push_back(parameter.kind);
  return result;
}

std::vector<std::string> operandNames(const LaunchPlan &plan) {
  std::vector<std::string> names;
  for (const PlanOperand &operand : plan.operands)
    names.push_back(operand.name);
  return names;
}

TEST(LaunchPlanTest, GemmTakesItsOperandsAndScalarsWhereGemmParametersPutsThem) {
  GemmProblem p;
  p.m = p.n = p.k = 256;
  GemmConfig c;
  LaunchPlan plan = gemmLaunchPlan(p, c);
  EXPECT_EQ(operandNames(plan),
            (std::vector<std::string>{"A", "B", "C", "D", "bias", "scale", "groups"}));
  EXPECT_TRUE(plan.operands[6].optional); // the row ends of a grouped GEMM
  EXPECT_TRUE(plan.operands[2].optional); // C, which this problem does not read
  EXPECT_FALSE(plan.operands[3].optional);
  ASSERT_EQ(plan.kernels.size(), 1u);
  const PlannedKernel &kernel = plan.kernels[0];
  EXPECT_EQ(kernel.name, "gemm");
  EXPECT_EQ(kernel.shape.gridX, gemmLaunchShape(p, c).gridX);
  EXPECT_EQ(kinds(kernel), (std::vector<Kind>{Kind::Operand, Kind::Operand, Kind::Operand,
                                              Kind::Operand, Kind::Scalar, Kind::Scalar}));
  EXPECT_EQ(kernel.parameters[4].index, 0); // alpha
  EXPECT_EQ(plan.scalars[0].defaultValue, 1.0f);
  EXPECT_EQ(plan.scalars[1].defaultValue, 0.0f);
  EXPECT_EQ(plan.workspaceBytes, 0);
}

TEST(LaunchPlanTest, WgmmaGemmTakesTensorMapsOfAAndBAfterTheVectors) {
  GemmProblem p;
  p.m = p.n = p.k = 1024;
  p.epilogue = {EpilogueStep::Bias};
  p.bias = Along::Cols;
  GemmConfig c;
  c.wgmma = true;
  c.blockM = 128;
  c.blockN = 128;
  c.blockK = 64;
  c.warpsM = 8;
  c.warpsN = 1;
  LaunchPlan plan = gemmLaunchPlan(p, c);
  EXPECT_FALSE(plan.operands[4].optional); // the bias the epilogue reads
  const PlannedKernel &kernel = plan.kernels[0];
  ASSERT_EQ(kernel.parameters.size(), 9u);
  EXPECT_EQ(kernel.parameters[6].kind, Kind::Operand);
  EXPECT_EQ(kernel.parameters[6].index, 4);
  for (auto [position, operand] : {std::pair{7, 0}, std::pair{8, 1}}) {
    const PlanParameter &map = kernel.parameters[position];
    EXPECT_EQ(map.kind, Kind::TensorMap);
    EXPECT_EQ(map.index, operand);
    EXPECT_EQ(map.map.rows, 1024u);
    EXPECT_EQ(map.map.boxRows, 128u);
  }
}

TEST(LaunchPlanTest, PackedGemmReadsItsOperandsAndTensorMapsFromTheWorkspace) {
  GemmProblem p;
  p.m = 300;
  p.n = 200;
  p.k = 100;
  p.input = p.output = DType::F32;
  GemmConfig c = chooseWgmmaGemmConfig(p, hopper());
  ASSERT_EQ(checkGemm(p, c, hopper()), "");
  LaunchPlan plan = gemmLaunchPlan(p, c);
  EXPECT_EQ(plan.workspaceBytes, gemmWorkspaceBytes(p, GemmConfig()));
  ASSERT_EQ(plan.kernels.size(), 3u);
  for (auto [k, name, operand, which] :
       {std::tuple{0, kGemmPackA, 0, 'a'}, std::tuple{1, kGemmPackB, 1, 'b'}}) {
    const PlannedKernel &pack = plan.kernels[size_t(k)];
    EXPECT_EQ(pack.name, name);
    EXPECT_EQ(kinds(pack), (std::vector<Kind>{Kind::Operand, Kind::Workspace}));
    EXPECT_EQ(pack.parameters[0].index, operand);
    EXPECT_EQ(pack.parameters[1].offset, gemmPackedOffset(p, which));
    EXPECT_EQ(pack.shape.block, kPackThreads);
  }
  EXPECT_EQ(plan.mainKernel, 2u);
  const PlannedKernel &gemm = plan.kernels[2];
  GemmParameters at = gemmParameters(p, c);
  EXPECT_EQ(gemm.parameters[size_t(at.a)].kind, Kind::Workspace);
  EXPECT_EQ(gemm.parameters[size_t(at.b)].offset, gemmPackedOffset(p, 'b'));
  EXPECT_EQ(gemm.parameters[size_t(at.d)].kind, Kind::Operand);
  const PlanParameter &mapB = gemm.parameters[size_t(at.bMap)];
  EXPECT_EQ(mapB.kind, Kind::WorkspaceTensorMap);
  EXPECT_EQ(mapB.offset, gemmPackedOffset(p, 'b'));
  // B's 200 rows of 6 segments of K padded to 104.
  EXPECT_EQ(mapB.map.rows, 200u);
  EXPECT_EQ(mapB.map.cols, 624u);
}

Conv2dGw8Problem conv(ConvPass pass, bool bias) {
  Conv2dGw8Problem p;
  p.target = hopper();
  p.n = 2;
  p.c = 64;
  p.h = p.w = 16;
  p.pass = pass;
  p.bias = bias;
  return p;
}

TEST(LaunchPlanTest, ConvForwardAndDataGradientAreOneKernel) {
  Conv2dGw8Problem fprop = conv(ConvPass::Fprop, false);
  LaunchPlan plan = conv2dGw8LaunchPlan(fprop, chooseConv2dGw8Config(fprop));
  EXPECT_EQ(operandNames(plan), (std::vector<std::string>{"x", "w", "bias", "y"}));
  EXPECT_TRUE(plan.operands[2].optional);
  ASSERT_EQ(plan.kernels.size(), 1u);
  EXPECT_EQ(plan.kernels[0].name, "conv2d_gw8_fprop");

  Conv2dGw8Problem dgrad = conv(ConvPass::Dgrad, false);
  plan = conv2dGw8LaunchPlan(dgrad, chooseConv2dGw8Config(dgrad));
  EXPECT_EQ(operandNames(plan), (std::vector<std::string>{"dy", "w", "dx"}));
  EXPECT_EQ(kinds(plan.kernels[0]),
            (std::vector<Kind>{Kind::Operand, Kind::Operand, Kind::Null, Kind::Operand}));
}

TEST(LaunchPlanTest, WgradReducesThroughTheWorkspaceAsADependentGrid) {
  Conv2dGw8Problem p = conv(ConvPass::Wgrad, true);
  Conv2dGw8Config c = chooseConv2dGw8Config(p);
  LaunchPlan plan = conv2dGw8LaunchPlan(p, c);
  EXPECT_EQ(plan.workspaceBytes, conv2dGw8WorkspaceBytes(p, c));
  std::vector<std::string> names;
  for (const PlannedKernel &kernel : plan.kernels)
    names.push_back(kernel.name);
  EXPECT_EQ(names, (std::vector<std::string>{"conv2d_gw8_wgrad", "conv2d_gw8_wgrad_reduce",
                                             "conv2d_gw8_wgrad_bias",
                                             "conv2d_gw8_wgrad_bias_reduce"}));
  EXPECT_FALSE(plan.kernels[0].dependent);
  EXPECT_TRUE(plan.kernels[1].dependent);
  EXPECT_EQ(kinds(plan.kernels[1]), (std::vector<Kind>{Kind::Workspace, Kind::Operand}));
  EXPECT_EQ(plan.kernels[1].parameters[1].index, 2); // dw
}

TEST(LaunchPlanTest, WgradClusterReduceWritesDwDirectly) {
  Conv2dGw8Problem p = conv(ConvPass::Wgrad, false);
  p.wgradClusterReduce = true;
  LaunchPlan plan = conv2dGw8LaunchPlan(p, chooseConv2dGw8Config(p));
  EXPECT_EQ(plan.workspaceBytes, 0);
  ASSERT_EQ(plan.kernels.size(), 1u);
  EXPECT_EQ(plan.kernels[0].parameters[2].kind, Kind::Operand);
}

} // namespace
