//===- Conv2dTest.cpp - The dense conv2d's implicit GEMM ------------------===//

#include "spio/Kernels/Conv2d.h"
#include "PlanChecks.h"
#include "Targets.h"
#include "spio/Kernels/LaunchPlan.h"

#include <gtest/gtest.h>

#include <array>
#include <random>
#include <tuple>

using namespace spio::kernels;

namespace {

Conv2dProblem resnetLayer() {
  Conv2dProblem p;
  p.n = 32;
  p.h = p.w = 56;
  p.c = p.k = 64;
  return p;
}

/// `p` with C = K = `channels` in `groups` groups.
Conv2dProblem grouped(Conv2dProblem p, int64_t channels, int64_t groups) {
  p.c = p.k = channels;
  p.groups = groups;
  return p;
}

/// A 1x1 layer of batch 32 on `size` x `size` images.
Conv2dProblem pointwiseLayer(int64_t size, int64_t c, int64_t k) {
  Conv2dProblem p = resnetLayer();
  p.h = p.w = size;
  p.c = c;
  p.k = k;
  p.r = p.s = 1;
  p.padH = p.padW = 0;
  return p;
}

TEST(Conv2dTest, OutputSizesFollowStridePaddingAndDilation) {
  Conv2dProblem p = resnetLayer();
  EXPECT_EQ(conv2dOutputHeight(p), 56);
  p.strideH = p.strideW = 2;
  EXPECT_EQ(conv2dOutputHeight(p), 28);
  p.dilationW = 2;
  // (56 + 2 - 2 * 2 - 1) / 2 + 1
  EXPECT_EQ(conv2dOutputWidth(p), 27);
  p.h = 1;
  p.padH = 0;
  EXPECT_EQ(conv2dOutputHeight(p), 0);
}

TEST(Conv2dTest, TheImplicitGemmTakesATapsChannelsAKTile) {
  Conv2dProblem p = resnetLayer();
  p.c = 40;
  p.k = 72;
  p.epilogue = {EpilogueStep::Scale, EpilogueStep::Bias, EpilogueStep::Residual,
                EpilogueStep::Relu};
  GemmProblem g = conv2dGemmProblem(p);
  EXPECT_EQ(g.m, 32 * 56 * 56);
  EXPECT_EQ(g.n, 72);
  // 9 taps of 40 channels padded to one 64-channel k-tile each.
  EXPECT_EQ(conv2dChannelTiles(p), 1);
  EXPECT_EQ(g.k, 9 * 64);
  EXPECT_TRUE(g.readsC);
  EXPECT_EQ(g.bias, Along::Cols);
  EXPECT_EQ(g.scale, Along::Cols);
  p.c = 130;
  EXPECT_EQ(conv2dChannelTiles(p), 3);
}

// A dense fprop of 3 channels (ResNet's stem: 7x7, stride 2, padding 3)
// unfolds x: each pixel of x' [N, 229, 112, 64] holds 3 filter rows of the
// 7 taps' 3 channels (63 of its 64), its rows every one the taps read,
// padding included; w' [K, 3, 1, 64]; then the 3 x 1 convolution of the
// two at stride (2, 1), rows 3 apart, no padding.
TEST(Conv2dUnfold, UnfoldsFewChannelsIntoWholeKTiles) {
  Conv2dProblem p = resnetLayer();
  p.h = p.w = 224;
  p.c = 3;
  p.r = p.s = 7;
  p.strideH = p.strideW = 2;
  p.padH = p.padW = 3;
  ASSERT_TRUE(conv2dUnfolds(p));
  EXPECT_EQ(conv2dUnfoldedRows(p), 3);
  Conv2dProblem q = conv2dKernelProblem(p);
  EXPECT_EQ(std::tuple(q.h, q.w, q.c, q.r, q.s, q.strideH, q.strideW, q.padH, q.padW, q.dilationH,
                       q.dilationW),
            std::tuple(229, 112, 64, 3, 1, 2, 1, 0, 0, 3, 1));
  EXPECT_EQ(conv2dOutputHeight(q), 112);
  EXPECT_EQ(conv2dOutputWidth(q), 112);
  GemmConfig c = chooseConv2dConfig(p, hopper());
  EXPECT_EQ(checkConv2d(p, c, hopper()), "");
  // The workspace: x' (256-byte aligned), then w'.
  int64_t xBytes = 32 * 229 * 112 * 64 * 2;
  EXPECT_EQ(conv2dUnfoldedXBytes(p), xBytes);
  EXPECT_EQ(conv2dWorkspaceBytes(p), xBytes + 64 * 3 * 64 * 2);
  LaunchPlan plan = conv2dLaunchPlan(p, c);
  expectPlanFitsCuda(plan);
  ASSERT_EQ(plan.kernels.size(), 3u);
  EXPECT_EQ(plan.kernels[0].name, kConv2dUnfoldX);
  // x' a block a row: its 112 pixels read 3 filter rows of 229 columns.
  EXPECT_EQ(conv2dUnfoldXPixels(p), 112);
  EXPECT_EQ(conv2dUnfoldXStagedValues(p, 112), 3 * 229 * 3);
  EXPECT_EQ(plan.kernels[0].shape.gridX, 32 * 229);
  EXPECT_EQ(plan.kernels[1].name, kConv2dUnfoldW);
  EXPECT_EQ(plan.mainKernel, 2u);
  EXPECT_EQ(plan.kernels[1].parameters[1].offset, xBytes);
  Conv2dParameters at = conv2dParameters(q, c);
  const PlannedKernel &kernel = plan.kernels[2];
  EXPECT_EQ(kernel.parameters[at.x].kind, PlanParameter::Kind::Workspace);
  EXPECT_EQ(kernel.parameters[at.xMap].kind, PlanParameter::Kind::WorkspaceIm2colMap);
  EXPECT_EQ(kernel.parameters[at.xMap].offset, 0);
  EXPECT_EQ(kernel.parameters[at.xMap].im2col.height, 229u);
  EXPECT_EQ(kernel.parameters[at.xMap].im2col.channels, 64u);
  EXPECT_EQ(kernel.parameters[at.w].offset, xBytes);
  EXPECT_EQ(kernel.parameters[at.wMap].kind, PlanParameter::Kind::WorkspaceTensorMap);
  EXPECT_EQ(kernel.parameters[at.wMap].map.cols, uint64_t(3 * 64));
  // UNet's stem (3x3, padding 1): all 27 taps in one pixel, a 1 x 1
  // convolution; 12 channels of 7 taps (84) fill two k-tiles a filter row.
  Conv2dProblem unet = resnetLayer();
  unet.c = 3;
  q = conv2dKernelProblem(unet);
  EXPECT_EQ(std::tuple(q.h, q.w, q.c, q.r, q.s), std::tuple(56, 56, 64, 1, 1));
  Conv2dProblem wide = p;
  wide.c = 12;
  EXPECT_EQ(conv2dUnfoldedRows(wide), 1);
  q = conv2dKernelProblem(wide);
  EXPECT_EQ(std::tuple(q.h, q.c, q.r, q.dilationH, q.padH), std::tuple(229, 128, 7, 1, 0));
  // A row wider than 16 KB of staged values runs in equal runs: 4096
  // columns at stride 1 read 4102 of 3 x 3 values; 904 pixels fit (5448
  // values), so 5 runs of 820.
  Conv2dProblem wideRow = p;
  wideRow.w = 4096;
  wideRow.strideW = 1;
  EXPECT_EQ(conv2dUnfoldXPixels(wideRow), 820);
  EXPECT_LE(conv2dUnfoldXStagedValues(wideRow, 820) * 2, 16 * 1024);
  EXPECT_EQ(conv2dUnfoldLaunchShape(wideRow, 'x').gridX, 32 * 229 * 5);
  // Pixels of more than 2048 channels, or one pixel's taps reading more
  // than 48 KB of x, are refused.
  Conv2dProblem tooWide = p;
  tooWide.c = 301;
  EXPECT_NE(checkConv2d(tooWide, chooseConv2dConfig(tooWide, hopper()), hopper())
                .find("pixels of at most 2048 channels whose taps read at most 48 KB of x, "
                      "got S x C = 2107 over 7 columns"),
            std::string::npos);
  tooWide.c = 291;
  EXPECT_EQ(checkConv2d(tooWide, chooseConv2dConfig(tooWide, hopper()), hopper()), "");
  tooWide.dilationW = 14;
  EXPECT_NE(
      checkConv2d(tooWide, chooseConv2dConfig(tooWide, hopper()), hopper()).find("over 85 columns"),
      std::string::npos);
  // wgrad: x' and dy give dw' [K, 3, 1, 64] in parts after x' in the
  // workspace, which the reduce kernel adds and folds back into dw.
  Conv2dProblem wgrad = p;
  wgrad.pass = ConvPass::Wgrad;
  ASSERT_TRUE(conv2dUnfolds(wgrad));
  GemmConfig wc = chooseConv2dConfig(wgrad, hopper());
  wgrad.parts = conv2dWgradParts(wgrad, wc, hopper());
  EXPECT_GT(wgrad.parts, 1);
  EXPECT_EQ(checkConv2d(wgrad, wc, hopper()), "");
  EXPECT_TRUE(conv2dWgradReduces(wgrad));
  EXPECT_EQ(conv2dWorkspaceBytes(wgrad), xBytes + wgrad.parts * 64 * 3 * 64 * 4);
  LaunchPlan wplan = conv2dLaunchPlan(wgrad, wc);
  expectPlanFitsCuda(wplan);
  ASSERT_EQ(wplan.kernels.size(), 3u);
  EXPECT_EQ(wplan.kernels[0].name, kConv2dUnfoldX);
  Conv2dParameters wat = conv2dParameters(conv2dKernelProblem(wgrad), wc);
  EXPECT_EQ(wplan.kernels[1].parameters[wat.x].kind, PlanParameter::Kind::Workspace);
  EXPECT_EQ(wplan.kernels[1].parameters[wat.xMap].kind, PlanParameter::Kind::WorkspaceIm2colMap);
  EXPECT_EQ(wplan.kernels[1].parameters[wat.y].kind, PlanParameter::Kind::Workspace);
  EXPECT_EQ(wplan.kernels[1].parameters[wat.y].offset, xBytes);
  EXPECT_EQ(wplan.kernels[2].name, "conv2d_wgrad_reduce");
  EXPECT_EQ(wplan.mainKernel, 1u);
  EXPECT_EQ(wplan.kernels[2].parameters[0].offset, xBytes);
  EXPECT_EQ(wplan.kernels[2].shape.gridX, 64 * 7 * 7 * 3 / 256 + 1);
  Conv2dProblem tall = p;
  tall.n = tall.w = 1;
  tall.h = int64_t(1) << 31;
  EXPECT_NE(checkConv2d(tall, c, hopper()).find("padded height is under 2^31 rows"),
            std::string::npos);
  // Channels a multiple of 8, groups, and dgrad: not unfolded.
  for (auto change :
       {+[](Conv2dProblem &t) { t.c = 8; }, +[](Conv2dProblem &t) { t.pass = ConvPass::Dgrad; },
        +[](Conv2dProblem &t) {
          t.c = t.k = 6;
          t.groups = 3;
        }}) {
    Conv2dProblem t = p;
    change(t);
    EXPECT_FALSE(conv2dUnfolds(t));
  }
}

TEST(Conv2dTest, ChecksSayWhatIsRefused) {
  Conv2dProblem p = resnetLayer();
  GemmConfig c = chooseConv2dConfig(p, hopper());
  EXPECT_EQ(checkConv2d(p, c, hopper()), "");
  // 3 channels: a dense fprop or wgrad unfolds x (Conv2dUnfold below);
  // dgrad and groups are refused.
  Conv2dProblem rgb = p;
  rgb.c = 3;
  EXPECT_EQ(checkConv2d(rgb, chooseConv2dConfig(rgb, hopper()), hopper()), "");
  // A filter wider than the padded input: refused, not unfolded.
  Conv2dProblem narrow = rgb;
  narrow.w = 4;
  narrow.s = 6;
  narrow.padW = 0;
  EXPECT_NE(checkConv2d(narrow, chooseConv2dConfig(narrow, hopper()), hopper())
                .find("does not fit the padded input"),
            std::string::npos);
  rgb.pass = ConvPass::Dgrad;
  EXPECT_NE(checkConv2d(rgb, c, hopper()).find("multiple of 8 input channels"), std::string::npos);
  EXPECT_NE(checkConv2d(rgb, c, hopper()).find("got C=3 in dgrad"), std::string::npos);
  Conv2dProblem grouped = rgb;
  grouped.pass = ConvPass::Fprop;
  grouped.c = grouped.k = 12;
  grouped.groups = 4;
  EXPECT_NE(checkConv2d(grouped, c, hopper()).find("got C=12 in groups"), std::string::npos);
  Conv2dProblem f32 = p;
  f32.input = DType::F32;
  EXPECT_NE(checkConv2d(f32, c, hopper()).find("f16 or bf16"), std::string::npos);
  Conv2dProblem large = p;
  large.h = large.w = 2;
  large.r = large.s = 7;
  large.padH = large.padW = 0;
  EXPECT_NE(checkConv2d(large, c, hopper()).find("does not fit"), std::string::npos);
  Conv2dProblem padded = p;
  padded.padH = 200;
  EXPECT_NE(checkConv2d(padded, c, hopper()).find("at most 127"), std::string::npos);
  // A dilation whose extent would overflow the size arithmetic is refused
  // before it is used.
  Conv2dProblem dilated = p;
  dilated.dilationW = int64_t(1) << 62;
  EXPECT_NE(checkConv2d(dilated, c, hopper()).find("at most 127"), std::string::npos);
  // The mma.sync kernel's k-tile is a tap's 64 channels too.
  GemmConfig mmaSync;
  EXPECT_NE(checkConv2d(p, mmaSync, hopper()).find("block K must be 64"), std::string::npos);
  // The implicit GEMM keeps each tile's reduction in one block.
  GemmConfig shared = c;
  shared.persistent = 132;
  shared.streamK = true;
  EXPECT_NE(checkConv2d(p, shared, hopper()).find("(no stream_k)"), std::string::npos);
}

TEST(Conv2dTest, ChooserTakesProblemsTheChecksRefuse) {
  // The chooser sizes tiles from the outputs and strides: a problem without
  // them (a stride, a filter side or a dilation of 0, a filter past the
  // input, every pass and a strided dgrad among them) gets a configuration
  // rather than a division by zero, and the check says what is wrong.
  struct Refused {
    Conv2dProblem problem;
    const char *why;
  };
  std::vector<Refused> cases;
  for (ConvPass pass : {ConvPass::Fprop, ConvPass::Dgrad, ConvPass::Wgrad}) {
    Conv2dProblem p = resnetLayer();
    p.pass = pass;
    Conv2dProblem stride = p, side = p, dilation = p, groups = p, past = p;
    stride.strideH = stride.strideW = 0;
    side.r = 0;
    dilation.dilationH = 0;
    groups.groups = 0;
    past.h = 1;
    past.padH = 0;
    cases.push_back({stride, "strides are 1 to 8"});
    cases.push_back({side, "sizes must be positive"});
    cases.push_back({dilation, "dilations must be positive"});
    cases.push_back({groups, "groups must divide"});
    cases.push_back({past, "does not fit the padded input"});
  }
  for (const Refused &refused : cases) {
    EXPECT_NE(checkConv2dProblem(refused.problem).find(refused.why), std::string::npos);
    GemmConfig c = chooseConv2dConfig(refused.problem, hopper());
    EXPECT_NE(checkConv2d(refused.problem, c, hopper()).find(refused.why), std::string::npos);
    EXPECT_EQ(conv2dWgradParts(refused.problem, c, hopper()), 1);
  }
  EXPECT_EQ(checkConv2dProblem(resnetLayer()), "");
  // wgrad's parts of a configuration past the wgmma kernel's ranges (whose
  // grid arithmetic would overflow): one.
  Conv2dProblem wgrad = resnetLayer();
  wgrad.pass = ConvPass::Wgrad;
  GemmConfig split = chooseConv2dConfig(wgrad, hopper());
  split.splitK = int64_t(1) << 62;
  EXPECT_EQ(conv2dWgradParts(wgrad, split, hopper()), 1);
  // No channels in 2^40 groups: no block of groups (which counted every
  // group of the 2^40).
  Conv2dProblem empty = resnetLayer();
  empty.c = empty.k = 0;
  empty.groups = int64_t(1) << 40;
  EXPECT_EQ(conv2dBlockGroups(empty), 1);
}

/// Grouped on the implicit GEMM: a k-tile is 64 of a group's channels, w's
/// rows R * S taps of a group's channels, and the chooser's tiles keep
/// their columns (wgrad: rows) within one group, whatever the layer.
TEST(Conv2dTest, GroupsTakeOneGroupsChannelsATile) {
  Conv2dProblem p = resnetLayer();
  p.c = 256;
  p.k = 512;
  p.groups = 2;
  GemmProblem g = conv2dGemmProblem(p);
  EXPECT_EQ(conv2dGroupInputs(p), 128);
  EXPECT_EQ(conv2dGroupOutputs(p), 256);
  EXPECT_EQ(g.n, 512);
  EXPECT_EQ(g.k, 9 * 128);
  EXPECT_EQ(conv2dWeightMapShape(p, chooseConv2dConfig(p, hopper())).cols, uint64_t(9 * 128));
  Conv2dProblem dgrad = p;
  dgrad.pass = ConvPass::Dgrad;
  // dgrad reduces over a group's 256 of dy's channels.
  EXPECT_EQ(conv2dGemmProblem(dgrad).k, 9 * 256);
  EXPECT_EQ(conv2dGemmProblem(dgrad).n, 256);
  Conv2dProblem wgrad = p;
  wgrad.pass = ConvPass::Wgrad;
  EXPECT_EQ(conv2dGemmProblem(wgrad).m, 512);
  EXPECT_EQ(conv2dGemmProblem(wgrad).n, 9 * 128);
  for (int64_t channels : {256, 512, 1024, 2048})
    for (int64_t groups : {2, 4, 8, 16})
      for (ConvPass pass : {ConvPass::Fprop, ConvPass::Dgrad, ConvPass::Wgrad})
        for (int64_t size : {7, 14, 28, 56}) {
          Conv2dProblem q = resnetLayer();
          q.c = q.k = channels;
          q.groups = groups;
          q.h = q.w = size;
          q.pass = pass;
          if (channels / groups % 64 != 0)
            continue;
          GemmConfig c = chooseConv2dConfig(q, hopper());
          q.parts = conv2dWgradParts(q, c, hopper());
          std::string where = "C " + std::to_string(channels) + " groups " +
                              std::to_string(groups) + " size " + std::to_string(size) + " pass " +
                              std::to_string(int(pass));
          EXPECT_EQ(checkConv2d(q, c, hopper()), "") << where;
          if (pass == ConvPass::Wgrad)
            EXPECT_EQ(channels / groups % c.blockM, 0) << where;
          else
            EXPECT_EQ(channels / groups % c.blockN, 0) << where;
        }
  // Refused: groups that do not divide the channels, groups not of a
  // multiple of 8, tiles across groups.
  GemmConfig c = chooseConv2dConfig(p, hopper());
  Conv2dProblem uneven = p;
  uneven.groups = 3;
  EXPECT_NE(checkConv2d(uneven, c, hopper()).find("groups must divide C=256 and K=512"),
            std::string::npos);
  // The chooser and the parts take such a problem too, for checkConv2d to
  // refuse (a wgrad of 8 outputs in 32 groups: none a group).
  Conv2dProblem unevenWgrad = p;
  unevenWgrad.pass = ConvPass::Wgrad;
  unevenWgrad.c = 512;
  unevenWgrad.k = 8;
  unevenWgrad.groups = 32;
  GemmConfig uc = chooseConv2dConfig(unevenWgrad, hopper());
  unevenWgrad.parts = conv2dWgradParts(unevenWgrad, uc, hopper());
  EXPECT_NE(checkConv2d(unevenWgrad, uc, hopper()).find("groups must divide C=512 and K=8"),
            std::string::npos);
  Conv2dProblem odd = p;
  odd.c = odd.k = 12 * 8;
  odd.groups = 8;
  EXPECT_NE(checkConv2d(odd, c, hopper()).find("multiple of 8 input and output channels, got 12"),
            std::string::npos);
  GemmConfig wide = c;
  wide.blockN = 256;
  Conv2dProblem four = p;
  four.groups = 4;
  EXPECT_NE(checkConv2d(four, wide, hopper()).find("256 columns must divide the group's 128"),
            std::string::npos);
}

/// Groups of 16 or 32 channels (C = K a multiple of 64): the kernels' C /
/// 64 groups of 64, whose weights fprop and dgrad expand into the workspace
/// first and whose wgrad sums the reduce kernel takes the diagonal of.
TEST(Conv2dTest, GroupsOf16Or32RunAsBlockDiagonalGroupsOf64) {
  Conv2dProblem p = grouped(resnetLayer(), 512, 32);
  p.h = p.w = 14;
  ASSERT_TRUE(conv2dBlockDiagonal(p));
  EXPECT_EQ(conv2dKernelProblem(p).groups, 8);
  Conv2dProblem uneven = p;
  uneven.k = 1024;
  EXPECT_FALSE(conv2dBlockDiagonal(uneven));
  // Channels not a multiple of 64: blocks of the most groups dividing G
  // that fit 64 channels (9 groups of 16: 3 a block of 48, padded to 64),
  // or 128 where those would be under 32 (49 groups of 16: 7 a block of
  // 112; 11: none).
  Conv2dProblem ragged = grouped(p, 49 * 16, 49);
  EXPECT_EQ(conv2dBlockGroups(ragged), 7);
  EXPECT_EQ(conv2dKernelProblem(ragged).groups, 7);
  EXPECT_TRUE(conv2dPadsGroups(conv2dKernelProblem(ragged)));
  Conv2dProblem nine = grouped(p, 144, 9);
  EXPECT_EQ(conv2dBlockGroups(nine), 3);
  GemmConfig nc = chooseConv2dConfig(nine, hopper());
  EXPECT_EQ(checkConv2d(nine, nc, hopper()), "");
  EXPECT_EQ(nc.blockN, 48);
  EXPECT_EQ(conv2dWorkspaceBytes(nine), 144 * 9 * 64 * 2);
  // 5 groups of 24: one block of 120 (under 32 in a k-tile of 64).
  Conv2dProblem five = grouped(p, 120, 5);
  EXPECT_EQ(conv2dBlockGroups(five), 5);
  EXPECT_EQ(conv2dKernelProblem(five).groups, 1);
  Conv2dProblem eleven = grouped(p, 176, 11);
  EXPECT_FALSE(conv2dBlockDiagonal(eleven));
  EXPECT_TRUE(conv2dPadsGroups(eleven));
  for (ConvPass pass : {ConvPass::Dgrad, ConvPass::Wgrad}) {
    Conv2dProblem backward = nine;
    backward.pass = pass;
    GemmConfig bc = chooseConv2dConfig(backward, hopper());
    backward.parts = conv2dWgradParts(backward, bc, hopper());
    EXPECT_EQ(checkConv2d(backward, bc, hopper()), "");
    EXPECT_EQ(conv2dLaunchPlan(backward, bc).kernels.size(), 2u);
  }
  GemmConfig c = chooseConv2dConfig(p, hopper());
  EXPECT_EQ(checkConv2d(p, c, hopper()), "");
  EXPECT_EQ(64 % c.blockN, 0);
  EXPECT_EQ(checkConv2d(ragged, chooseConv2dConfig(ragged, hopper()), hopper()), "");
  // fprop: the expansion (w to the workspace), then the kernel reading it.
  EXPECT_EQ(conv2dWorkspaceBytes(p), 512 * 9 * 64 * 2);
  LaunchPlan plan = conv2dLaunchPlan(p, c);
  ASSERT_EQ(plan.kernels.size(), 2u);
  EXPECT_EQ(plan.kernels[0].name, kConv2dExpandWeights);
  EXPECT_EQ(plan.kernels[0].shape.gridX, 512 * 9 * 64 / 8 / 256);
  EXPECT_EQ(plan.kernels[0].parameters[0].kind, PlanParameter::Kind::Operand);
  EXPECT_EQ(plan.kernels[0].parameters[1].kind, PlanParameter::Kind::Workspace);
  Conv2dParameters at = conv2dParameters(conv2dKernelProblem(p), c);
  EXPECT_EQ(plan.kernels[1].parameters[at.w].kind, PlanParameter::Kind::Workspace);
  EXPECT_EQ(plan.kernels[1].parameters[at.wMap].kind, PlanParameter::Kind::WorkspaceTensorMap);
  EXPECT_EQ(plan.kernels[1].parameters[at.wMap].map.cols, uint64_t(9 * 64));
  // dgrad at stride 2: the expansion, then a kernel a phase, the first of
  // them after the expansion ends.
  Conv2dProblem dgrad = p;
  dgrad.pass = ConvPass::Dgrad;
  dgrad.strideH = dgrad.strideW = 2;
  plan = conv2dLaunchPlan(dgrad, chooseConv2dConfig(dgrad, hopper()));
  ASSERT_EQ(plan.kernels.size(), 5u);
  EXPECT_EQ(plan.kernels[0].name, kConv2dExpandWeights);
  EXPECT_FALSE(plan.kernels[1].dependent);
  EXPECT_TRUE(plan.kernels[4].dependent);
  // wgrad: the blocks' sums to the workspace (in dw's dtype in one part),
  // then their diagonal into dw (512 x 9 x 16).
  Conv2dProblem wgrad = p;
  wgrad.pass = ConvPass::Wgrad;
  GemmConfig wc = chooseConv2dConfig(wgrad, hopper());
  wgrad.parts = conv2dWgradParts(wgrad, wc, hopper());
  EXPECT_TRUE(conv2dWgradReduces(wgrad));
  EXPECT_EQ(checkConv2d(wgrad, wc, hopper()), "");
  EXPECT_EQ(conv2dWorkspaceBytes(wgrad),
            wgrad.parts > 1 ? wgrad.parts * 512 * 9 * 64 * 4 : 512 * 9 * 64 * 2);
  plan = conv2dLaunchPlan(wgrad, wc);
  ASSERT_EQ(plan.kernels.size(), 2u);
  EXPECT_EQ(plan.kernels[1].name, "conv2d_wgrad_reduce");
  EXPECT_EQ(plan.kernels[1].shape.gridX, 512 * 9 * 16 / 256);
  EXPECT_EQ(plan.kernels[0].parameters[conv2dParameters(conv2dKernelProblem(wgrad), wc).y].kind,
            PlanParameter::Kind::Workspace);
}

/// The forward of groups of another multiple of 8 channels (RegNet's):
/// each tap of w padded with zeros to 64 channels in the workspace, tiles
/// whose columns divide a group's outputs.
TEST(Conv2dTest, ForwardPadsGroupsOfOtherWidthsToWholeKTiles) {
  Conv2dProblem p = grouped(resnetLayer(), 432, 9);
  p.h = p.w = 28;
  ASSERT_TRUE(conv2dPadsGroups(p));
  EXPECT_FALSE(conv2dBlockDiagonal(p));
  EXPECT_TRUE(conv2dExpandsWeights(p));
  EXPECT_EQ(conv2dWeightTapChannels(p), 64);
  // A k-tile a tap (64 channels from the group's first).
  EXPECT_EQ(conv2dGemmProblem(p).k, 9 * 64);
  GemmConfig c = chooseConv2dConfig(p, hopper());
  EXPECT_EQ(checkConv2d(p, c, hopper()), "");
  EXPECT_EQ(c.blockN, 48);
  EXPECT_EQ(conv2dWeightMapShape(p, c).cols, uint64_t(9 * 64));
  EXPECT_EQ(conv2dWorkspaceBytes(p), 432 * 9 * 64 * 2);
  LaunchPlan plan = conv2dLaunchPlan(p, c);
  ASSERT_EQ(plan.kernels.size(), 2u);
  EXPECT_EQ(plan.kernels[0].name, kConv2dExpandWeights);
  EXPECT_EQ(plan.kernels[0].shape.gridX, (432 * 9 * 64 / 8 + 255) / 256);
  Conv2dParameters at = conv2dParameters(p, c);
  EXPECT_EQ(plan.kernels[1].parameters[at.w].kind, PlanParameter::Kind::Workspace);
  EXPECT_EQ(plan.kernels[1].parameters[at.wMap].kind, PlanParameter::Kind::WorkspaceTensorMap);
  // Group widths and their tiles: one tile a group where no divisor of 64
  // columns or more is (56; 24 of groups of 32 inputs), the widest within
  // the chosen width (112; 144 within 256), one of 232 rather than 29 of
  // 8; 112 inputs take two k-tiles a tap.
  for (auto [c, k, groups, columns, tapChannels] :
       std::vector<std::array<int64_t, 5>>{{448, 448, 8, 56, 64},
                                           {3024, 3024, 27, 112, 128},
                                           {1152, 1152, 8, 144, 192},
                                           {1392, 1392, 6, 232, 256},
                                           {128, 96, 4, 24, 64}}) {
    Conv2dProblem q = p;
    q.c = c;
    q.k = k;
    q.groups = groups;
    SCOPED_TRACE("C " + std::to_string(c) + " K " + std::to_string(k) + " groups " +
                 std::to_string(groups));
    GemmConfig chosen = chooseConv2dConfig(q, hopper());
    EXPECT_EQ(checkConv2d(q, chosen, hopper()), "");
    EXPECT_EQ(chosen.blockN, columns);
    EXPECT_EQ(conv2dWeightTapChannels(q), tapChannels);
  }
  // Groups of a multiple of 64 inputs are not padded, whatever their
  // outputs (64 -> 48: tiles of 48 columns).
  Conv2dProblem wideInputs = p;
  wideInputs.c = 512;
  wideInputs.k = 384;
  wideInputs.groups = 8;
  EXPECT_FALSE(conv2dPadsGroups(wideInputs));
  EXPECT_EQ(chooseConv2dConfig(wideInputs, hopper()).blockN, 48);
  // dgrad: w transposed into [C, R, S, K'] (K' the group's 48 outputs
  // padded to 64) and read K-major, tiles of the group's 48 inputs; also
  // where only the outputs are not a multiple of 64 (64 -> 48).
  Conv2dProblem dgrad = p;
  dgrad.pass = ConvPass::Dgrad;
  ASSERT_TRUE(conv2dTransposesWeights(dgrad));
  EXPECT_EQ(conv2dWeightRows(dgrad), 432);
  EXPECT_EQ(conv2dWeightTapChannels(dgrad), 64);
  EXPECT_EQ(conv2dGemmProblem(dgrad).b, Layout::ColMajor);
  GemmConfig dc = chooseConv2dConfig(dgrad, hopper());
  EXPECT_EQ(checkConv2d(dgrad, dc, hopper()), "");
  EXPECT_EQ(dc.blockN, 48);
  EXPECT_EQ(conv2dWorkspaceBytes(dgrad), 432 * 9 * 64 * 2);
  plan = conv2dLaunchPlan(dgrad, dc);
  ASSERT_EQ(plan.kernels.size(), 2u);
  EXPECT_EQ(plan.kernels[0].name, kConv2dExpandWeights);
  EXPECT_EQ(plan.kernels[1].parameters[at.wMap].map.rows, uint64_t(432));
  EXPECT_EQ(plan.kernels[1].parameters[at.wMap].map.cols, uint64_t(9 * 64));
  Conv2dProblem narrowOutputs = wideInputs;
  narrowOutputs.pass = ConvPass::Dgrad;
  EXPECT_TRUE(conv2dTransposesWeights(narrowOutputs));
  EXPECT_EQ(conv2dWeightTapChannels(narrowOutputs), 64);
  GemmConfig nc = chooseConv2dConfig(narrowOutputs, hopper());
  EXPECT_EQ(checkConv2d(narrowOutputs, nc, hopper()), "");
  EXPECT_EQ(nc.blockN, 64);
  // Strided: the transposition, then a kernel a phase.
  dgrad.strideH = dgrad.strideW = 2;
  dc = chooseConv2dConfig(dgrad, hopper());
  EXPECT_EQ(checkConv2d(dgrad, dc, hopper()), "");
  EXPECT_EQ(conv2dLaunchPlan(dgrad, dc).kernels.size(), 5u);
  // wgrad: dw' [9 * 64, 3, 3, 64] (each group's 48 rows and each tap's 48
  // columns padded to 64) in the workspace, the reduce kernel taking dw
  // from it; tiles of 64 rows, one group's.
  Conv2dProblem wgrad = p;
  wgrad.pass = ConvPass::Wgrad;
  EXPECT_TRUE(conv2dPadsGroups(wgrad));
  EXPECT_TRUE(conv2dWgradReduces(wgrad));
  EXPECT_EQ(conv2dWeightRows(wgrad), 9 * 64);
  EXPECT_EQ(conv2dWeightTapChannels(wgrad), 64);
  GemmProblem wg = conv2dGemmProblem(wgrad);
  EXPECT_EQ(wg.m, 9 * 64);
  EXPECT_EQ(wg.n, 9 * 64);
  GemmConfig wc = chooseConv2dConfig(wgrad, hopper());
  wgrad.parts = conv2dWgradParts(wgrad, wc, hopper());
  EXPECT_EQ(checkConv2d(wgrad, wc, hopper()), "");
  EXPECT_EQ(wc.blockM, 64);
  GemmConfig tall = wc;
  tall.blockM = 128;
  tall.warpsM = 8;
  EXPECT_NE(checkConv2d(wgrad, tall, hopper())
                .find("128 rows must divide the group's 64 output channels (padded)"),
            std::string::npos);
  EXPECT_EQ(conv2dWorkspaceBytes(wgrad),
            wgrad.parts > 1 ? wgrad.parts * 576 * 9 * 64 * 4 : 576 * 9 * 64 * 2);
  // dy's map reads its 432 channels, not dw''s 576 rows.
  EXPECT_EQ(conv2dWeightMapShape(wgrad, wc).cols, uint64_t(432));
  plan = conv2dLaunchPlan(wgrad, wc);
  ASSERT_EQ(plan.kernels.size(), 2u);
  EXPECT_EQ(plan.kernels[1].name, "conv2d_wgrad_reduce");
  EXPECT_EQ(plan.kernels[1].shape.gridX, (432 * 9 * 48 + 255) / 256);
}

TEST(Conv2dTest, ChooserKeepsOutputPositionsAlongTheWarpgroups) {
  int64_t numSMs = 132;
  for (int64_t n : {1, 2, 32})
    for (int64_t hw : {7, 14, 56})
      for (int64_t k : {2, 64, 72, 256, 2048}) {
        Conv2dProblem p = resnetLayer();
        p.n = n;
        p.h = p.w = hw;
        p.k = k;
        GemmConfig c = chooseConv2dConfig(p, hopperWith(numSMs));
        SCOPED_TRACE("N=" + std::to_string(n) + " HW=" + std::to_string(hw) +
                     " K=" + std::to_string(k));
        EXPECT_EQ(checkConv2d(p, c, hopper()), "");
        EXPECT_FALSE(c.swapAB);
        EXPECT_FALSE(c.streamK);
        // No tile is a 64-column step wider than the output channels need.
        EXPECT_LE(c.blockN, std::max<int64_t>(64, (k + 63) / 64 * 64));
      }
}

// dgrad reads w N-major, rows of C channels: where they lie off the L2's
// 32-byte sectors (C = 72 of bf16), pairs of blocks share w's tiles.
TEST(Conv2dTest, DgradPairsShareWWhereItsRowsLieOffTheSectors) {
  Conv2dProblem p = resnetLayer();
  p.pass = ConvPass::Dgrad;
  p.n = 16;
  p.c = p.k = 72;
  GemmConfig c = chooseConv2dConfig(p, hopper());
  EXPECT_EQ(checkConv2d(p, c, hopper()), "");
  EXPECT_EQ(c.cluster, 2);
  p.c = p.k = 64;
  EXPECT_EQ(chooseConv2dConfig(p, hopper()).cluster, 1);
}

TEST(Conv2dTest, NarrowTilesKeepMoreStagesInFlight) {
  Conv2dProblem p = resnetLayer();
  p.n = 4;
  p.h = p.w = 256;
  p.c = 128;
  GemmConfig c = chooseConv2dConfig(p, hopper());
  EXPECT_EQ(c.blockN, 64);
  // Fewer bytes than 4 stages of 128 x 128 tiles: 8 stages of 128 x 64.
  EXPECT_EQ(c.stages, 8);
}

TEST(Conv2dTest, MapsDescribeTheWindowAndTheWeightMatrix) {
  Conv2dProblem p = resnetLayer();
  p.strideH = p.strideW = 2;
  GemmConfig c = chooseConv2dConfig(p, hopper());
  spio::runtime::Im2colMapShape x = conv2dInputMapShape(p, c);
  EXPECT_EQ(x.images, 32u);
  EXPECT_EQ(x.channels, 64u);
  EXPECT_EQ(x.lowerH, -1);
  // Output row 27's first tap reads input row 53: 53 - 55.
  EXPECT_EQ(x.upperH, -2);
  EXPECT_EQ(x.strideW, 2u);
  EXPECT_EQ(x.pixels, uint32_t(c.blockM));
  spio::runtime::TensorMapShape w = conv2dWeightMapShape(p, c);
  EXPECT_EQ(w.rows, 64u);
  EXPECT_EQ(w.cols, 9u * 64u);
  EXPECT_EQ(w.boxCols, 64u);
}

// dgrad at stride 1: dy's im2col matrix (padded by R - 1 - pad) times w
// read N-major, dx's positions by its C channels; a k-tile 64 of K.
TEST(Conv2dTest, DgradIsTheForwardReadBackward) {
  Conv2dProblem p = resnetLayer();
  p.pass = ConvPass::Dgrad;
  p.c = 96;
  p.k = 200;
  p.r = p.s = 5;
  p.padH = p.padW = 1;
  Conv2dGathered gathered = conv2dGathered(p);
  EXPECT_EQ(gathered.conv.h, 54);
  EXPECT_EQ(gathered.conv.c, 200);
  EXPECT_EQ(gathered.conv.k, 96);
  EXPECT_EQ(gathered.conv.padH, 3);
  EXPECT_EQ(gathered.outH, 56);
  EXPECT_EQ(gathered.lastR, 4);
  EXPECT_EQ(gathered.stepR, 1);
  GemmProblem g = conv2dGemmProblem(p);
  EXPECT_EQ(g.m, 32 * 56 * 56);
  EXPECT_EQ(g.n, 96);
  EXPECT_EQ(g.k, 25 * 4 * 64);
  EXPECT_EQ(g.b, Layout::RowMajor);
  GemmConfig c = chooseConv2dConfig(p, hopper());
  EXPECT_EQ(checkConv2d(p, c, hopper()), "");
  EXPECT_EQ(c.blockN % 64, 0);
  spio::runtime::Im2colMapShape dy = conv2dInputMapShape(p, c);
  EXPECT_EQ(dy.height, 54u);
  EXPECT_EQ(dy.channels, 200u);
  EXPECT_EQ(dy.lowerH, -3);
  // dx row 55's first tap reads dy row 52: 52 - 53.
  EXPECT_EQ(dy.upperH, -1);
  spio::runtime::TensorMapShape w = conv2dWeightMapShape(p, c);
  EXPECT_EQ(w.rows, 200u);
  EXPECT_EQ(w.cols, 25u * 96u);
  EXPECT_EQ(w.boxRows, 64u);
  EXPECT_EQ(w.boxCols, 64u);
  // Padding past the filter starts dy's window inside it.
  Conv2dProblem padded = p;
  padded.padW = 5;
  EXPECT_EQ(checkConv2d(padded, c, hopper()), "");
  EXPECT_EQ(conv2dInputMapShape(padded, c).lowerW, 1);
  // Epilogues and odd K are refused.
  Conv2dProblem fused = p;
  fused.epilogue = {EpilogueStep::Relu};
  EXPECT_NE(checkConv2d(fused, c, hopper()).find("no epilogue"), std::string::npos);
  Conv2dProblem odd = p;
  odd.k = 60;
  EXPECT_NE(checkConv2d(odd, c, hopper()).find("K a multiple of 8"), std::string::npos);
}

TEST(Conv2dTest, WgradReducesOverTheOutputPositions) {
  Conv2dProblem p = resnetLayer();
  p.pass = ConvPass::Wgrad;
  p.k = 72;
  p.strideH = p.strideW = 2;
  GemmProblem g = conv2dGemmProblem(p);
  EXPECT_EQ(conv2dOutputPositions(p), 32 * 28 * 28);
  EXPECT_EQ(g.m, 72);
  EXPECT_EQ(g.n, 9 * 64);
  EXPECT_EQ(g.k, 32 * 28 * 28);
  EXPECT_EQ(g.a, Layout::ColMajor);
  EXPECT_EQ(g.b, Layout::RowMajor);
  // 5 tiles of 128 x 128 over 392 k-tiles: 26 parts, 130 blocks of 132,
  // no cluster; their f32 sums go through the workspace to a reduce
  // kernel. Split among a cluster's blocks, fewer parts fill the SMs.
  GemmConfig c = chooseConv2dConfig(p, hopper());
  EXPECT_EQ(c.blockM, 128);
  EXPECT_EQ(c.blockN, 128);
  EXPECT_EQ(c.splitK, 1);
  EXPECT_EQ(c.cluster, 1);
  EXPECT_EQ(conv2dWgradParts(p, c, hopper()), 26);
  GemmConfig split = c;
  split.splitK = 2;
  EXPECT_EQ(conv2dWgradParts(p, split, hopper()), 13);
  p.parts = 26;
  EXPECT_EQ(checkConv2d(p, c, hopper()), "");
  GemmProblem parts = conv2dGemmProblem(p);
  EXPECT_EQ(parts.batch, 26);
  EXPECT_EQ(parts.k, 16 * 64);
  EXPECT_EQ(parts.output, DType::F32);
  LaunchShape shape = conv2dLaunchShape(p, c);
  EXPECT_EQ(shape.gridX, 5);
  EXPECT_EQ(shape.gridZ, 26);
  EXPECT_EQ(conv2dWorkspaceBytes(p), 26 * 72 * 576 * 4);
  EXPECT_EQ(conv2dWgradReduceLaunchShape(p).gridX, (72 * 576 + 255) / 256);
  // Many tiles take no parts.
  Conv2dProblem wide = p;
  wide.c = 512;
  wide.k = 2048;
  wide.parts = 1;
  GemmConfig wideConfig = chooseConv2dConfig(wide, hopper());
  EXPECT_EQ(wideConfig.blockM, 128);
  // 384 tiles of 192 columns take 3 rounds, 576 of 128 would take 5.
  EXPECT_EQ(wideConfig.blockN, 192);
  EXPECT_EQ(conv2dWgradParts(wide, wideConfig, hopper()), 1);
  // 64 tiles of 128 x 128 would take 2 parts: 128 tiles of 64 rows take
  // the multiprocessors in one.
  Conv2dProblem bottleneck = wide;
  bottleneck.h = bottleneck.w = 7;
  bottleneck.r = bottleneck.s = 1;
  bottleneck.padH = bottleneck.padW = 0;
  bottleneck.strideH = bottleneck.strideW = 1;
  GemmConfig narrowRows = chooseConv2dConfig(bottleneck, hopper());
  EXPECT_EQ(narrowRows.blockM, 64);
  EXPECT_EQ(narrowRows.stages, 8);
  EXPECT_EQ(conv2dWgradParts(bottleneck, narrowRows, hopper()), 1);
  // The maps: x's im2col boxes of a k-tile's positions, dy's rows the
  // output positions themselves (not padded to k-tiles).
  EXPECT_EQ(conv2dInputMapShape(p, c).pixels, 64u);
  spio::runtime::TensorMapShape dy = conv2dWeightMapShape(p, c);
  EXPECT_EQ(dy.rows, uint64_t(32 * 28 * 28));
  EXPECT_EQ(dy.cols, 72u);
  EXPECT_EQ(dy.boxRows, 64u);
  EXPECT_EQ(dy.boxCols, 64u);
  LaunchPlan plan = conv2dLaunchPlan(p, c);
  EXPECT_EQ(plan.operands[1].name, "dy");
  EXPECT_EQ(plan.operands[2].name, "dw");
  ASSERT_EQ(plan.kernels.size(), 2u);
  EXPECT_EQ(plan.kernels[0].parameters[conv2dParameters(p, c).y].kind,
            PlanParameter::Kind::Workspace);
  EXPECT_EQ(plan.kernels[1].name, "conv2d_wgrad_reduce");
  EXPECT_EQ(plan.workspaceBytes, conv2dWorkspaceBytes(p));
  Conv2dProblem tooMany = p;
  tooMany.parts = 400;
  EXPECT_NE(checkConv2d(tooMany, c, hopper()).find("1 to 392 parts"), std::string::npos);
  // C not a multiple of 64: each tap's columns padded to 64 (dw' in the
  // workspace, reduced into dw). K not a multiple of 8, an epilogue and a
  // cluster are refused.
  Conv2dProblem narrow = p;
  narrow.c = 40;
  EXPECT_TRUE(conv2dPadsGroups(narrow));
  EXPECT_EQ(conv2dWeightRows(narrow), narrow.k);
  EXPECT_EQ(conv2dGemmProblem(narrow).n, narrow.r * narrow.s * 64);
  EXPECT_EQ(checkConv2d(narrow, chooseConv2dConfig(narrow, hopper()), hopper()), "");
  Conv2dProblem odd = p;
  odd.k = 60;
  EXPECT_NE(checkConv2d(odd, c, hopper()).find("K a multiple of 8"), std::string::npos);
  Conv2dProblem fused = p;
  fused.epilogue = {EpilogueStep::Relu};
  EXPECT_NE(checkConv2d(fused, c, hopper()).find("no epilogue"), std::string::npos);
  GemmConfig clustered = wideConfig;
  clustered.persistent = 132;
  clustered.cluster = 2;
  EXPECT_NE(checkConv2d(wide, clustered, hopper()).find("not multicast"), std::string::npos);
}

TEST(Conv2dTest, WgradTakesTheWidthOfTheFewestRoundsOfWork) {
  // dw of 512 x (3 * 3 * 512): 144 tiles of 128 x 128 are a round of 132
  // multiprocessors and 12 tiles; 96 of 128 x 192 are one round of 1.5x
  // the work a multiprocessor (72 of 128 x 256 one of 2x), each taking the
  // whole reduction.
  Conv2dProblem p = resnetLayer();
  p.pass = ConvPass::Wgrad;
  p.h = p.w = 7;
  p.c = p.k = 512;
  GemmConfig c = chooseConv2dConfig(p, hopper());
  EXPECT_EQ(c.blockM, 128);
  EXPECT_EQ(c.blockN, 192);
  EXPECT_EQ(c.stages, 4);
  EXPECT_EQ(conv2dWgradParts(p, c, hopper()), 1);
  EXPECT_EQ(checkConv2d(p, c, hopper()), "");
  // 288 tiles (1024 output channels) take 3 rounds, 192 of 192 columns 2
  // of 1.5x the work (as much: the fewer tiles), 144 of 256 columns 2 of
  // twice the work.
  Conv2dProblem more = p;
  more.k = 1024;
  EXPECT_EQ(chooseConv2dConfig(more, hopper()).blockN, 192);
  // Grouped (32 groups of 64 channels): 160 tiles of 64 x 128, or 96 of
  // 64 x 192 in one round.
  Conv2dProblem grouped = p;
  grouped.c = grouped.k = 2048;
  grouped.groups = 32;
  GemmConfig groupedConfig = chooseConv2dConfig(grouped, hopper());
  EXPECT_EQ(groupedConfig.blockM, 64);
  EXPECT_EQ(groupedConfig.blockN, 192);
  EXPECT_EQ(checkConv2d(grouped, groupedConfig, hopper()), "");
  // Under a round the tiles take parts, whose workspace wider tiles would
  // double: 128 x 128.
  Conv2dProblem fewer = p;
  fewer.k = 256;
  EXPECT_EQ(chooseConv2dConfig(fewer, hopper()).blockN, 128);
  // On a GPU of 160 multiprocessors 144 tiles are one round.
  EXPECT_EQ(chooseConv2dConfig(p, hopperWith(160)).blockN, 128);
}

TEST(Conv2dTest, ShortReductionsUnderAWaveKeep128ColumnTiles) {
  // 6272 x 256 x 1024: the GEMM chooser's 64 x 64 tiles would fill the
  // SMs' rounds, but re-gather A's im2col boxes for every 64 columns.
  Conv2dProblem p = pointwiseLayer(14, 256, 1024);
  p.pass = ConvPass::Dgrad;
  GemmConfig c = chooseConv2dConfig(p, hopper());
  EXPECT_EQ(c.blockM, 128);
  EXPECT_EQ(c.blockN, 128);
  EXPECT_EQ(checkConv2d(p, c, hopper()), "");
}

TEST(Conv2dTest, ShortSplitReductionsTake64RowTilesUnsplit) {
  // 1568 x 512 x 2048 (7x7 2048 -> 512 1x1): the GEMM chooser splits the
  // 32 k-tiles of its 52 tiles of 128 x 128 between two blocks; 64-row
  // tiles make 100 blocks without the exchange.
  Conv2dProblem p = pointwiseLayer(7, 2048, 512);
  GemmConfig c = chooseConv2dConfig(p, hopper());
  EXPECT_EQ(c.splitK, 1);
  EXPECT_EQ(c.blockM, 64);
  EXPECT_EQ(c.blockN, 128);
  EXPECT_EQ(checkConv2d(p, c, hopper()), "");
  // Its 3x3 reduction (72 k-tiles) keeps the split.
  p.c = p.k = 512;
  p.r = p.s = 3;
  p.padH = p.padW = 1;
  c = chooseConv2dConfig(p, hopper());
  EXPECT_EQ(c.splitK, 2);
  EXPECT_EQ(c.blockM, 128);
}

TEST(Conv2dTest, StridedDgradIsAConvolutionAPhase) {
  // 3x3, stride 2, padding 1: dx's even rows are read by tap 1 alone (dy
  // row i), its odd rows by taps 2 and 0 (dy rows i and i + 1).
  Conv2dPhaseSide even = conv2dPhaseSide(56, 3, 2, 1, 1, 0);
  EXPECT_EQ(even.positions, 28);
  EXPECT_EQ(even.taps, 1);
  EXPECT_EQ(even.lastTap, 1);
  EXPECT_EQ(even.pad, 0);
  Conv2dPhaseSide odd = conv2dPhaseSide(56, 3, 2, 1, 1, 1);
  EXPECT_EQ(odd.taps, 2);
  EXPECT_EQ(odd.lastTap, 2);
  EXPECT_EQ(odd.tapStep, 2);
  EXPECT_EQ(odd.dilation, 1);
  EXPECT_EQ(odd.pad, 0);
  // 1x1, stride 2: odd rows are read by no tap; 7 rows: 4 even ones.
  EXPECT_EQ(conv2dPhaseSide(56, 1, 2, 0, 1, 1).taps, 0);
  EXPECT_EQ(conv2dPhaseSide(7, 1, 2, 0, 1, 0).positions, 4);
  // Dilation 2 at stride 2, padding 2: tap r reads dy at i + 1 - r, so
  // even rows take every tap, one dy position apart, and odd rows none.
  Conv2dPhaseSide dilated = conv2dPhaseSide(32, 3, 2, 2, 2, 0);
  EXPECT_EQ(dilated.taps, 3);
  EXPECT_EQ(dilated.tapStep, 1);
  EXPECT_EQ(dilated.dilation, 1);
  EXPECT_EQ(dilated.pad, 1);
  EXPECT_EQ(conv2dPhaseSide(32, 3, 2, 2, 2, 1).taps, 0);

  Conv2dProblem p = resnetLayer();
  p.pass = ConvPass::Dgrad;
  p.c = 128;
  p.k = 256;
  p.strideH = p.strideW = 2;
  std::vector<Conv2dProblem> phases = conv2dDgradPhases(p);
  ASSERT_EQ(phases.size(), 4u);
  EXPECT_FALSE(conv2dDgradZeroes(p));
  EXPECT_EQ(phases[3].phaseH, 1);
  EXPECT_EQ(phases[3].phaseW, 1);
  Conv2dGathered corner = conv2dGathered(phases[3]);
  EXPECT_EQ(corner.conv.r * corner.conv.s, 4);
  EXPECT_EQ(conv2dGemmProblem(phases[3]).m, 32 * 28 * 28);
  EXPECT_EQ(conv2dGemmProblem(phases[3]).k, 4 * 4 * 64);
  EXPECT_EQ(conv2dGemmProblem(phases[0]).k, 1 * 4 * 64);
  // Gathered tap (0, 0) of phase (1, 1) is w's last, (2, 2).
  EXPECT_EQ(corner.lastR, 2);
  EXPECT_EQ(corner.lastS, 2);
  GemmConfig c = chooseConv2dConfig(p, hopper());
  EXPECT_EQ(checkConv2d(p, c, hopper()), "");
  // 128 x 128 tiles where a phase's take half the SMs, else 64 rows.
  EXPECT_EQ(c.blockM, 128);
  Conv2dProblem deep = p;
  deep.h = deep.w = 14;
  deep.c = deep.k = 512;
  EXPECT_EQ(chooseConv2dConfig(deep, hopper()).blockM, 64);
  EXPECT_EQ(checkConv2d(deep, chooseConv2dConfig(deep, hopper()), hopper()), "");
  // A config no phase's kernel takes is refused naming the phase: a split
  // reduction on the chooser's persistent grid.
  GemmConfig split = c;
  split.splitK = 2;
  std::string refused = checkConv2d(p, split, hopper());
  EXPECT_EQ(refused, "phase (0, 0) of the strided dgrad: blocks split K on a grid of a block a "
                     "tile, not on a persistent grid or in clusters sharing B");
  // dx's phase (1, 1) starts at row 1, column 1.
  EXPECT_EQ(conv2dPhaseOffsetBytes(phases[3]), (56 + 1) * 128 * 2);
  LaunchPlan plan = conv2dLaunchPlan(p, c);
  ASSERT_EQ(plan.kernels.size(), 4u);
  EXPECT_EQ(plan.kernels[3].name, "conv2d_dgrad_phase_1_1");
  // Each kernel after the first may start as the one before it ends.
  EXPECT_FALSE(plan.kernels[0].dependent);
  EXPECT_TRUE(plan.kernels[3].dependent);
  Conv2dParameters at = conv2dParameters(phases[3], c);
  EXPECT_EQ(plan.kernels[3].parameters[at.y].offset, (56 + 1) * 128 * 2);
  EXPECT_EQ(plan.kernels[3].parameters[at.xMap].im2col.height, 28u);

  // 1x1 stride 2: one phase runs, a kernel zeroes the rest first.
  p.r = p.s = 1;
  p.padH = p.padW = 0;
  phases = conv2dDgradPhases(p);
  ASSERT_EQ(phases.size(), 1u);
  EXPECT_TRUE(conv2dDgradZeroes(p));
  c = chooseConv2dConfig(p, hopper());
  plan = conv2dLaunchPlan(p, c);
  ASSERT_EQ(plan.kernels.size(), 2u);
  EXPECT_EQ(plan.kernels[0].name, kConv2dDgradZero);
  EXPECT_EQ(plan.kernels[0].shape.gridX, 32 * 56 * 56 * 128 / 8 / kConv2dReduceThreads);
  EXPECT_EQ(plan.kernels[1].name, "conv2d_dgrad_phase_0_0");
  EXPECT_EQ(plan.mainKernel, 1u);

  // 1x1 stride 2 padding 1 over one row: no tap reads dx, whose zeroing
  // kernel is the plan (and its main kernel).
  p.h = 1;
  p.w = 8;
  p.padH = p.padW = 1;
  EXPECT_TRUE(conv2dDgradPhases(p).empty());
  plan = conv2dLaunchPlan(p, chooseConv2dConfig(p, hopper()));
  ASSERT_EQ(plan.kernels.size(), 1u);
  EXPECT_EQ(plan.kernels[0].name, kConv2dDgradZero);
  EXPECT_EQ(plan.mainKernel, 0u);
}

TEST(Conv2dTest, ChipsWithoutWgmmaRunFpropAndDgradOnMmaSync) {
  // ResNet-50's 56x56 3x3 layer at batch 8.
  Conv2dProblem p;
  p.n = 8;
  p.h = p.w = 56;
  p.c = p.k = 64;
  p.padH = p.padW = 1;
  for (const char *chip : {"sm_80", "sm_86", "sm_89"}) {
    SCOPED_TRACE(chip);
    spio::Target target = *spio::referenceTarget(chip);
    GemmConfig c = chooseConv2dConfig(p, target);
    EXPECT_FALSE(c.wgmma);
    // A k-tile is a tap's 64 channels; the output's 64 channels one tile's
    // columns; the stages shared memory holds (3 of 128 x 64 on 99 KB).
    EXPECT_EQ(c.blockK, 64);
    EXPECT_EQ(c.blockN, 64);
    EXPECT_EQ(std::tuple(c.warpsM, c.warpsN), std::tuple(2, 2));
    EXPECT_LE(gemmSharedBytes(conv2dGemmProblem(p), c), target.sharedBytesPerBlock);
    EXPECT_EQ(checkConv2d(p, c, target), "");
    // No tensor maps: x, w and y are the kernel's parameters.
    Conv2dParameters at = conv2dParameters(p, c);
    EXPECT_EQ(at.count, 3);
    EXPECT_EQ(std::tuple(at.xMap, at.wMap), std::tuple(-1, -1));
    LaunchPlan plan = conv2dLaunchPlan(p, c);
    ASSERT_EQ(plan.kernels.size(), 1u);
    EXPECT_EQ(plan.kernels[0].parameters.size(), 3u);
    expectPlanFitsCuda(plan);
  }
  spio::Target ampere = *spio::referenceTarget("sm_80");
  // 128 x 128 tiles where they leave no multiprocessor more outputs (216
  // tiles, two rounds of an A100's 108), in 2 stages (64 KB: two blocks in
  // its 164 KB); 128 x 64 tiles in 3.
  Conv2dProblem wide = p;
  wide.n = 6;
  wide.h = wide.w = 48;
  wide.c = wide.k = 256;
  GemmConfig wc = chooseConv2dConfig(wide, ampere);
  EXPECT_EQ(std::tuple(wc.blockM, wc.blockN, wc.stages), std::tuple(128, 128, 2));
  GemmConfig nc = chooseConv2dConfig(p, ampere);
  EXPECT_EQ(std::tuple(nc.blockM, nc.blockN, nc.stages), std::tuple(128, 64, 3));
  // Strided dgrad: a kernel a phase, one after the other (dependent grids
  // are sm_90's).
  Conv2dProblem dgrad = p;
  dgrad.pass = ConvPass::Dgrad;
  dgrad.strideH = dgrad.strideW = 2;
  GemmConfig dc = chooseConv2dConfig(dgrad, ampere);
  EXPECT_FALSE(dc.wgmma);
  EXPECT_EQ(checkConv2d(dgrad, dc, ampere), "");
  LaunchPlan plan = conv2dLaunchPlan(dgrad, dc);
  ASSERT_EQ(plan.kernels.size(), 4u);
  for (const PlannedKernel &kernel : plan.kernels)
    EXPECT_FALSE(kernel.dependent);
  // wgrad: dw's few tiles take the reduction in parts, which the reduce
  // kernel adds; no tensor maps either.
  Conv2dProblem wgrad = p;
  wgrad.pass = ConvPass::Wgrad;
  GemmConfig wgradConfig = chooseConv2dConfig(wgrad, ampere);
  EXPECT_EQ(checkConv2d(wgrad, wgradConfig, ampere), "");
  wgrad.parts = conv2dWgradParts(wgrad, wgradConfig, ampere);
  EXPECT_GT(wgrad.parts, 1);
  EXPECT_EQ(checkConv2d(wgrad, wgradConfig, ampere), "");
  plan = conv2dLaunchPlan(wgrad, wgradConfig);
  ASSERT_EQ(plan.kernels.size(), 2u);
  EXPECT_EQ(plan.kernels[0].parameters.size(), 3u);
  EXPECT_EQ(plan.kernels[0].shape.gridZ, wgrad.parts);
  // Grouped layers stay on wgmma, and say so.
  Conv2dProblem grouped = p;
  grouped.c = grouped.k = 128;
  grouped.groups = 2;
  EXPECT_EQ(checkConv2d(grouped, chooseConv2dConfig(grouped, ampere), ampere),
            "a grouped conv2d on the implicit GEMM runs on the wgmma kernel (sm_90a); the "
            "mma.sync kernel (sm_80 to sm_89) takes groups = 1");
  GemmConfig narrowK = chooseConv2dConfig(p, ampere);
  narrowK.blockK = 32;
  EXPECT_EQ(checkConv2d(p, narrowK, ampere),
            "conv2d's k-tile is one tap's 64 channels: the mma.sync config's block K must be 64, "
            "got 32");
}

TEST(Conv2dTest, LaunchPlanEncodesTheIm2colMapOfX) {
  Conv2dProblem p = resnetLayer();
  p.epilogue = {EpilogueStep::Bias, EpilogueStep::Relu};
  GemmConfig c = chooseConv2dConfig(p, hopper());
  LaunchPlan plan = conv2dLaunchPlan(p, c);
  ASSERT_EQ(plan.operands.size(), 6u);
  EXPECT_EQ(plan.operands[0].name, "x");
  EXPECT_TRUE(plan.operands[3].optional);  // C: no residual step
  EXPECT_FALSE(plan.operands[4].optional); // the bias
  ASSERT_EQ(plan.kernels.size(), 1u);
  const PlannedKernel &kernel = plan.kernels[0];
  EXPECT_EQ(kernel.name, "conv2d");
  Conv2dParameters at = conv2dParameters(p, c);
  ASSERT_EQ(kernel.parameters.size(), size_t(at.count));
  EXPECT_EQ(at.c, -1);
  EXPECT_EQ(kernel.parameters[at.bias].kind, PlanParameter::Kind::Operand);
  EXPECT_EQ(kernel.parameters[at.bias].index, 4);
  EXPECT_EQ(kernel.parameters[at.xMap].kind, PlanParameter::Kind::Im2colMap);
  EXPECT_EQ(kernel.parameters[at.xMap].index, 0);
  EXPECT_EQ(kernel.parameters[at.wMap].kind, PlanParameter::Kind::TensorMap);
  EXPECT_EQ(kernel.parameters[at.wMap].index, 1);
  EXPECT_EQ(kernel.shape.block, c.threads());
}

// A 1x1 wgrad at stride 1 without padding reads x as the matrix of
// positions by C through a tensor map (tiled copies), its rows the
// positions; any other filter, stride, padding or groups through x's
// im2col map; an unfolded stem's 1x1 kernel problem reads x' so from the
// workspace.
TEST(Conv2dTest, WgradReadsAPointwiseXAsAMatrix) {
  Conv2dProblem p = pointwiseLayer(7, 2048, 512);
  p.pass = ConvPass::Wgrad;
  ASSERT_TRUE(conv2dWgradReadsXAsMatrix(p));
  GemmConfig c = chooseConv2dConfig(p, hopper());
  p.parts = conv2dWgradParts(p, c, hopper());
  EXPECT_EQ(checkConv2d(p, c, hopper()), "");
  LaunchPlan plan = conv2dLaunchPlan(p, c);
  Conv2dParameters at = conv2dParameters(p, c);
  const PlanParameter &x = plan.kernels[plan.mainKernel].parameters[at.xMap];
  EXPECT_EQ(x.kind, PlanParameter::Kind::TensorMap);
  EXPECT_EQ(x.index, 0);
  EXPECT_EQ(x.map.rows, uint64_t(32 * 7 * 7));
  EXPECT_EQ(x.map.cols, uint64_t(2048));
  for (auto change :
       {+[](Conv2dProblem &t) { t.r = t.s = 3; },
        +[](Conv2dProblem &t) { t.strideH = t.strideW = 2; }, +[](Conv2dProblem &t) { t.padH = 1; },
        +[](Conv2dProblem &t) { t.groups = 8; },
        +[](Conv2dProblem &t) { t.pass = ConvPass::Fprop; }}) {
    Conv2dProblem t = pointwiseLayer(7, 2048, 512);
    t.pass = ConvPass::Wgrad;
    change(t);
    EXPECT_FALSE(conv2dWgradReadsXAsMatrix(t));
  }
  Conv2dProblem stem = resnetLayer();
  stem.c = 3;
  stem.pass = ConvPass::Wgrad;
  ASSERT_TRUE(conv2dWgradReadsXAsMatrix(conv2dKernelProblem(stem)));
  GemmConfig sc = chooseConv2dConfig(stem, hopper());
  stem.parts = conv2dWgradParts(stem, sc, hopper());
  LaunchPlan stemPlan = conv2dLaunchPlan(stem, sc);
  Conv2dParameters kernelAt = conv2dParameters(conv2dKernelProblem(stem), sc);
  EXPECT_EQ(stemPlan.kernels[stemPlan.mainKernel].parameters[kernelAt.xMap].kind,
            PlanParameter::Kind::WorkspaceTensorMap);
}

// As spio-jit, the C API and Python do: choose for the layer and the
// target (wgrad's parts too), then check. Over many random layers of every
// pass, filter, stride, padding, dilation and group form, on Hopper parts
// of several SM counts, no chosen configuration is refused, and each launch
// plan fits CUDA's limits.
TEST(Conv2dTest, EveryChosenConfigurationPassesTheChecks) {
  std::mt19937_64 rng(20261130);
  auto pick = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  std::vector<spio::Target> targets{hopper(), hopperWith(114), hopperWith(131)};
  for (int i = 0; i < 3000; ++i) {
    const spio::Target &target = targets[i % targets.size()];
    Conv2dProblem p;
    p.pass = std::array<ConvPass, 3>{ConvPass::Fprop, ConvPass::Dgrad, ConvPass::Wgrad}[pick(0, 2)];
    p.n = std::array<int64_t, 4>{1, 2, 8, 32}[pick(0, 3)];
    p.h = pick(1, 64);
    p.w = pick(1, 64);
    p.r = pick(1, 7);
    p.s = pick(1, 7);
    p.strideH = p.strideW = pick(1, 3);
    p.dilationH = p.dilationW = pick(0, 3) == 0 ? 2 : 1;
    p.padH = pick(0, p.r);
    p.padW = pick(0, p.s);
    // Channels: dense (a forward's of any count, x unfolded first), wide
    // groups of multiples of 64 or of 8 (padded), or groups of 16 or 32 as
    // block-diagonal groups of 64.
    int64_t form = pick(0, 3);
    int64_t unit = 8;
    if (form == 0) {
      p.c = unit * pick(1, 64 * 8 / unit);
      p.k = 8 * pick(1, 64);
    } else if (form == 3) {
      p.pass = ConvPass::Fprop;
      p.c = pick(1, 40);
      p.k = 8 * pick(1, 64);
    } else if (form == 1) {
      // Groups of multiples of 64, or of 8 (padded).
      int64_t width = pick(0, 1) == 0 ? 8 : 64;
      p.groups = pick(2, 8);
      p.c = p.groups * width * pick(1, 64 * 2 / width);
      p.k = p.groups * width * pick(1, 64 * 2 / width);
    } else {
      p.c = p.k = 64 * pick(1, 8);
      p.groups = p.c / std::array<int64_t, 2>{16, 32}[pick(0, 1)];
    }
    p.output = pick(0, 3) == 0 ? DType::F32 : DType::BF16;
    if (p.pass == ConvPass::Fprop && pick(0, 2) == 0) {
      p.epilogue = {EpilogueStep::Bias, EpilogueStep::Relu};
      p.biasType = p.output;
    }
    // The layer's own refusals are not the chooser's: skip a layer whose
    // output is empty.
    if (conv2dOutputHeight(p) < 1 || conv2dOutputWidth(p) < 1)
      continue;
    GemmConfig c = chooseConv2dConfig(p, target);
    p.parts = conv2dWgradParts(p, c, target);
    SCOPED_TRACE(std::to_string(target.multiprocessors) + " SMs: pass " +
                 std::to_string(int(p.pass)) + " N" + std::to_string(p.n) + " " +
                 std::to_string(p.h) + "x" + std::to_string(p.w) + " C" + std::to_string(p.c) +
                 " K" + std::to_string(p.k) + " " + std::to_string(p.r) + "x" +
                 std::to_string(p.s) + " s" + std::to_string(p.strideH) + " p" +
                 std::to_string(p.padH) + "," + std::to_string(p.padW) + " d" +
                 std::to_string(p.dilationH) + " g" + std::to_string(p.groups));
    std::string refused = checkConv2d(p, c, target);
    EXPECT_EQ(refused, "");
    if (refused.empty())
      expectPlanFitsCuda(conv2dLaunchPlan(p, c));
  }
}

} // namespace
