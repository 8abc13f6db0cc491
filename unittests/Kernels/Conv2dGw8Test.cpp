//===- Conv2dGw8Test.cpp - The conv2d-gw8 family's rules and shapes -------===//

#include "spio/Kernels/Conv2dGw8.h"
#include "PlanChecks.h"
#include "Targets.h"
#include "spio/Kernels/LaunchPlan.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <random>
#include <tuple>

using namespace spio::kernels;

namespace {

Conv2dGw8Problem layer(int64_t n, int64_t c, int64_t hw, int64_t rs, int64_t pad) {
  Conv2dGw8Problem p;
  p.target = hopper();
  p.n = n;
  p.c = c;
  p.h = p.w = hw;
  p.r = p.s = rs;
  p.padH = p.padW = pad;
  return p;
}

/// `p` as `pass` with `stride`.
Conv2dGw8Problem as(Conv2dGw8Problem p, ConvPass pass, int64_t stride = 1) {
  p.pass = pass;
  p.stride = stride;
  return p;
}

/// The chooser's configuration for `p`, which must be `warpsQ` x `warpsG`
/// warps of `rowsP` rows and pass the check.
Conv2dGw8Config expectChosen(const Conv2dGw8Problem &p, int64_t warpsQ, int64_t warpsG,
                             int64_t rowsP) {
  Conv2dGw8Config c = conv2dGw8RuleConfig(p);
  EXPECT_EQ(c.warpsQ, warpsQ);
  EXPECT_EQ(c.warpsG, warpsG);
  EXPECT_EQ(c.rowsP, rowsP);
  EXPECT_EQ(checkConv2dGw8(p, c), "");
  return c;
}

TEST(Conv2dGw8, OutputSizes) {
  EXPECT_EQ(layer(1, 8, 56, 3, 1).outH(), 56);
  EXPECT_EQ(layer(1, 8, 56, 5, 0).outW(), 52);
  Conv2dGw8Problem p = layer(1, 8, 20, 3, 0);
  p.padW = 2;
  EXPECT_EQ(p.outH(), 18);
  EXPECT_EQ(p.outW(), 22);
  // A kernel taller than the padded image leaves no output rows, with
  // stride 2 too; the chooser keeps its default and the check says why.
  Conv2dGw8Problem tall = layer(3, 48, 3, 6, 1);
  for (int64_t stride : {1, 2}) {
    tall.stride = stride;
    EXPECT_EQ(tall.outH(), 0);
    EXPECT_EQ(checkConv2dGw8(tall, conv2dGw8RuleConfig(tall)), "the output is empty");
  }
  tall.h = 4;
  EXPECT_EQ(tall.outH(), 1);
}

TEST(Conv2dGw8, CandidatesOfRefusedProblemsAreTheDefault) {
  // The candidates' tiles are sized from the output and the stride: a
  // problem without them (a stride or a size of 0, every pass) has the
  // rules' default alone rather than a division by zero, and the check
  // says what is wrong.
  for (ConvPass pass : {ConvPass::Fprop, ConvPass::Dgrad, ConvPass::Wgrad}) {
    Conv2dGw8Problem unstrided = layer(2, 64, 56, 3, 1), empty = layer(2, 64, 56, 3, 1);
    unstrided.pass = empty.pass = pass;
    unstrided.stride = 0;
    empty.n = 0;
    for (const Conv2dGw8Problem &refused : {unstrided, empty}) {
      std::vector<Conv2dGw8Config> candidates = conv2dGw8Candidates(refused);
      ASSERT_EQ(candidates.size(), 1u);
      EXPECT_NE(checkConv2dGw8(refused, chooseConv2dGw8Config(refused)), "");
    }
    EXPECT_NE(checkConv2dGw8Problem(unstrided).find("stride 1 or 2, got 0"), std::string::npos);
  }
  // Counts whose product (the threads, the staged rows' bytes) would
  // overflow are refused before it is taken.
  Conv2dGw8Problem p = layer(2, 64, 56, 3, 1);
  Conv2dGw8Config huge = chooseConv2dGw8Config(p);
  for (int64_t Conv2dGw8Config::*count : {&Conv2dGw8Config::warpsQ, &Conv2dGw8Config::copyWarps,
                                          &Conv2dGw8Config::rowsP, &Conv2dGw8Config::chunks}) {
    Conv2dGw8Config c = huge;
    c.*count = int64_t(1) << 62;
    EXPECT_EQ(checkConv2dGw8(p, c), "bad warp, row or chunk counts");
  }
  // A flattened-rows wgrad of a very tall image chooses in moments.
  Conv2dGw8Problem tall = layer(1, 8, 8, 3, 1);
  tall.h = int64_t(1) << 31;
  tall.pass = ConvPass::Wgrad;
  EXPECT_EQ(checkConv2dGw8(tall, conv2dGw8RuleConfig(tall)), "");
}

TEST(Conv2dGw8, ChecksGroupsKernelsPaddingAndStride) {
  Conv2dGw8Config c;
  EXPECT_EQ(checkConv2dGw8(layer(2, 64, 56, 3, 1), c), "");
  EXPECT_NE(checkConv2dGw8(layer(2, 60, 56, 3, 1), c).find("multiple of 8"), std::string::npos);
  EXPECT_NE(checkConv2dGw8(layer(2, 64, 56, 8, 1), c).find("1 to 7"), std::string::npos);
  // Any padding up to 2^30: with 3 or more a side, 3x3 outputs read only
  // zeros at the edges, and dgrad's kernel padding turns negative.
  for (ConvPass pass : {ConvPass::Fprop, ConvPass::Dgrad, ConvPass::Wgrad}) {
    Conv2dGw8Problem padded = layer(2, 64, 56, 3, 5);
    padded.pass = pass;
    EXPECT_EQ(checkConv2dGw8(padded, conv2dGw8RuleConfig(padded)), "");
  }
  EXPECT_EQ(layer(2, 64, 56, 3, 5).outH(), 64);
  EXPECT_EQ(checkConv2dGw8(layer(2, 64, 56, 3, -1), c), "padding must be 0 to 2^30, got -1, -1");
  Conv2dGw8Problem farPadded = layer(1, 8, 1, 1, kMaxConvPadding + 1);
  EXPECT_EQ(checkConv2dGw8Problem(farPadded),
            "padding must be 0 to 2^30, got 1073741825, 1073741825");
  farPadded.padH = farPadded.padW = kMaxConvPadding;
  EXPECT_NE(checkConv2dGw8Problem(farPadded).find("2^40"), std::string::npos);
  Conv2dGw8Problem strided = layer(2, 64, 56, 3, 1);
  strided.stride = 2;
  EXPECT_EQ(checkConv2dGw8(strided, c), "");
  EXPECT_EQ(strided.outH(), 28);
  strided.stride = 3;
  EXPECT_NE(checkConv2dGw8(strided, c).find("stride"), std::string::npos);
  strided.stride = 2;
  strided.pass = ConvPass::Dgrad;
  EXPECT_EQ(checkConv2dGw8(strided, c), "");
  Conv2dGw8Problem f32 = layer(2, 64, 56, 3, 1);
  f32.dtype = DType::F32;
  EXPECT_NE(checkConv2dGw8(f32, c), "");
  c.warpsG = 10;
  EXPECT_NE(checkConv2dGw8(layer(2, 80, 56, 3, 1), c).find("1 to 9"), std::string::npos);
  // 3 groups: an odd pitch, which stride-2 staging (fprop, wgrad) pads to
  // one (7 vectors a staged column); dgrad stages with stride 1.
  c.warpsG = 3;
  EXPECT_EQ(checkConv2dGw8(layer(2, 64, 56, 3, 1), c), "");
  for (ConvPass pass : {ConvPass::Fprop, ConvPass::Wgrad, ConvPass::Dgrad}) {
    strided.pass = pass;
    EXPECT_EQ(checkConv2dGw8(strided, c), "");
  }
  // Tensors past the 2^40 elements a spio layout spans are refused by
  // name, not by the compiler; so is N near INT64_MAX (no overflow).
  Conv2dGw8Problem huge = layer(300000, 256, 224, 3, 1);
  EXPECT_NE(checkConv2dGw8(huge, conv2dGw8RuleConfig(huge)).find("over the 2^40 elements"),
            std::string::npos);
  huge.n = INT64_MAX;
  EXPECT_NE(checkConv2dGw8(huge, c).find("over the 2^40 elements"), std::string::npos);
}

TEST(Conv2dGw8, ConfigFitsTheRowAndTheGroups) {
  // 8 groups of 16-byte pixels: one 128-byte line a pixel; 64 columns as
  // 2 warps of 32 (16 warps a block); 16 rows.
  Conv2dGw8Config wide = conv2dGw8RuleConfig(layer(128, 64, 64, 3, 1));
  EXPECT_EQ(wide.warpsQ, 2);
  EXPECT_EQ(wide.warpsG, 8);
  EXPECT_EQ(wide.rowsP, 16);
  // 72 columns of a 3x3 kernel: 3 tiles of 2 warps (96 computed) for a
  // block of 16 warps, not 5 of one (80 computed, 8 warps); 72 rows as 6
  // blocks of 12, since 24 rows of those tiles leave one block a
  // multiprocessor.
  Conv2dGw8Config odd = conv2dGw8RuleConfig(layer(128, 192, 72, 3, 1));
  EXPECT_EQ(odd.warpsQ, 2);
  EXPECT_EQ(odd.warpsG, 8);
  EXPECT_EQ(odd.rowsP, 12);
  // Images of 64 rows or more: up to 24 rows where two blocks fit.
  EXPECT_EQ(conv2dGw8RuleConfig(layer(64, 24, 160, 3, 1)).rowsP, 20);
  // 5x5 kernels compute more than they move: columns are not rounded up
  // for bigger blocks, and they score the images they lay side by side
  // (36 columns: 2 images 40 apart in 3 tiles of 2 warps, 72 of 96
  // computed, as 3 warps of 16 compute 48 for one; 4 groups coalesce
  // better than the 2 of 3 x 2 warps).
  Conv2dGw8Config fiveByFive = conv2dGw8RuleConfig(layer(128, 288, 36, 5, 2));
  EXPECT_EQ(fiveByFive.warpsQ, 2);
  EXPECT_EQ(fiveByFive.warpsG, 4);
  // On images of up to 16 columns they take two images side by side in 32
  // columns, 4 groups a block (14 + 4 + 14 = 32), not one image in 16
  // columns; 16x16's two images (36 columns) do not fit.
  Conv2dGw8Config sideBySide = conv2dGw8RuleConfig(layer(256, 672, 14, 5, 2));
  EXPECT_EQ(sideBySide.warpsQ, 2);
  EXPECT_EQ(sideBySide.warpsG, 4);
  EXPECT_EQ(conv2dGw8RuleConfig(layer(128, 528, 16, 5, 2)).warpsQ, 1);
  // 18x18: 3 images in 62 columns, as one 64-column tile of 2 groups
  // rather than two 32-column tiles of 4 that split the middle image;
  // 36x36's two images (76 columns) stay in 32-column tiles (one tile would
  // leave 1 group: fiveByFive above), 20x20 packs none in 32 columns, and
  // 3x3 kernels keep theirs.
  Conv2dGw8Config eighteen = conv2dGw8RuleConfig(layer(128, 576, 18, 5, 2));
  EXPECT_EQ(eighteen.warpsQ, 4);
  EXPECT_EQ(eighteen.warpsG, 2);
  EXPECT_EQ(conv2dGw8LaunchShape(layer(128, 576, 18, 5, 2), eighteen).gridX, 36);
  EXPECT_EQ(conv2dGw8RuleConfig(layer(64, 960, 20, 5, 2)).warpsQ, 2);
  EXPECT_EQ(conv2dGw8RuleConfig(layer(128, 816, 18, 3, 1)).warpsG, 8);
  // 18 groups: 4 a block waste 2 of 20, 8 a block 6 of 24.
  EXPECT_EQ(conv2dGw8RuleConfig(layer(128, 144, 64, 3, 1)).warpsG, 4);
  // 3 and 5 groups: one block takes the whole pixel, with stride 2 too; 6
  // groups too where rows fit tiles of up to 5 warps (3 would split pixels
  // mid-sector), else 2 at a time.
  EXPECT_EQ(conv2dGw8RuleConfig(layer(128, 24, 144, 3, 1)).warpsG, 3);
  EXPECT_EQ(conv2dGw8RuleConfig(layer(128, 40, 144, 3, 1)).warpsG, 5);
  EXPECT_EQ(conv2dGw8RuleConfig(layer(64, 48, 160, 3, 1)).warpsG, 6);
  EXPECT_EQ(conv2dGw8RuleConfig(layer(64, 48, 96, 3, 1)).warpsG, 2);
  Conv2dGw8Problem fiveStrided = layer(128, 40, 144, 3, 1);
  fiveStrided.stride = 2;
  EXPECT_EQ(conv2dGw8RuleConfig(fiveStrided).warpsG, 5);
  fiveStrided.pass = ConvPass::Wgrad;
  EXPECT_EQ(conv2dGw8RuleConfig(fiveStrided).warpsG, 5);
  // 112 columns: 7 warps of 16 cover them exactly.
  EXPECT_EQ(conv2dGw8RuleConfig(layer(256, 32, 112, 3, 1)).warpsQ, 7);
  // Among blocks of 12 or more warps, the fewest columns rounded up: 144
  // columns as one tile of 9 warps (27 with the 3 groups; 5 would compute
  // 160), 224 as 2 tiles of 7.
  EXPECT_EQ(conv2dGw8RuleConfig(layer(128, 24, 144, 3, 1)).warpsQ, 9);
  EXPECT_EQ(conv2dGw8RuleConfig(layer(32, 24, 224, 3, 1)).warpsQ, 7);
  // Stride-2 fprop keeps 8-warp blocks; stride-2 dgrad, which skips the
  // upsampled dy's zero rows, takes the light kernels' wider and taller
  // blocks (72x72 C192 as 2 x 8 warps of 24 rows: 1.46x 1 x 8 of 12).
  Conv2dGw8Problem wideStrided = layer(128, 192, 72, 3, 1);
  wideStrided.stride = 2;
  EXPECT_EQ(conv2dGw8RuleConfig(wideStrided).warpsQ, 1);
  wideStrided.pass = ConvPass::Dgrad;
  Conv2dGw8Config wideDgrad = conv2dGw8RuleConfig(wideStrided);
  EXPECT_EQ(wideDgrad.warpsQ, 2);
  EXPECT_EQ(wideDgrad.warpsG, 8);
  EXPECT_EQ(wideDgrad.rowsP, 24);
  // Stride-2 dgrad skips zero rows only in blocks of an even number of rows:
  // 21 rows as 2 x 12 (not 2 x 11), 27 as 3 x 10 (not 3 x 9).
  Conv2dGw8Problem oddDgrad = layer(8, 64, 21, 3, 1);
  oddDgrad.stride = 2;
  oddDgrad.pass = ConvPass::Dgrad;
  EXPECT_EQ(conv2dGw8RuleConfig(oddDgrad).rowsP, 12);
  oddDgrad.h = oddDgrad.w = 27;
  EXPECT_EQ(conv2dGw8RuleConfig(oddDgrad).rowsP, 10);
  // Rows of 7: images side by side, 3 of 9 staged columns in 2 warps' 32
  // columns (21 used, which scores as 2 in 16 and makes a 16-warp block);
  // 8 warps go to groups; one block takes all 7 rows.
  Conv2dGw8Problem sevens = layer(128, 1024, 7, 3, 1);
  Conv2dGw8Config narrow = conv2dGw8RuleConfig(sevens);
  EXPECT_EQ(narrow.warpsQ, 2);
  EXPECT_EQ(narrow.warpsG, 8);
  EXPECT_EQ(narrow.rowsP, 7);
  // Rows of 8: 5 images of 10 staged columns fill 3 warps' 48 columns; one
  // column tile a group tile, one band of 5 images a block along y.
  Conv2dGw8Problem eights = layer(128, 1248, 8, 3, 1);
  Conv2dGw8Config eight = conv2dGw8RuleConfig(eights);
  EXPECT_EQ(eight.warpsQ, 3);
  EXPECT_EQ(eight.warpsG, 8);
  EXPECT_EQ(conv2dGw8LaunchShape(eights, eight).gridX, 20);
  EXPECT_EQ(conv2dGw8LaunchShape(eights, eight).gridY, 26);
  EXPECT_EQ(conv2dGw8RuleConfig(layer(128, 1392, 9, 3, 1)).rowsP, 9);
  // 5x5 kernels: blocks of up to 28 rows (4 halo rows each), as few
  // rounded up as can be: 40 rows as 2 of 20, 36 as 2 of 18, 56 as 2 of 28.
  EXPECT_EQ(conv2dGw8RuleConfig(layer(64, 336, 40, 5, 2)).rowsP, 20);
  EXPECT_EQ(conv2dGw8RuleConfig(layer(128, 288, 36, 5, 2)).rowsP, 18);
  EXPECT_EQ(conv2dGw8RuleConfig(layer(128, 576, 18, 5, 2)).rowsP, 18);
  EXPECT_EQ(conv2dGw8RuleConfig(layer(320, 160, 28, 5, 2)).rowsP, 28);
  EXPECT_EQ(conv2dGw8RuleConfig(layer(320, 80, 56, 5, 2)).rowsP, 28);
  // Flattened rows of 22 pixels: 10 rows keep a warp near 14 fragments and
  // tile 20 rows exactly; 18 rows of 20 pixels go as 2 blocks of 9.
  EXPECT_EQ(conv2dGw8RuleConfig(layer(128, 64, 20, 3, 1)).rowsP, 10);
  EXPECT_EQ(conv2dGw8RuleConfig(layer(128, 576, 18, 3, 1)).rowsP, 9);
  // Stride 2 stages two input columns per output column and about two rows
  // per output row: fprop holds them as a ring of 11 rows (3 + 2 for each
  // of 4 output rows ahead), so 14 output rows (29 staged) fit as 2 x 8
  // warps.
  Conv2dGw8Problem strided = layer(2, 64, 56, 3, 1);
  strided.stride = 2;
  Conv2dGw8Config fitted = conv2dGw8RuleConfig(strided);
  EXPECT_EQ(fitted.warpsQ, 2);
  EXPECT_EQ(fitted.rowsP, 14);
  // R = 7 at stride 2: 2 x 8 warps take the tallest block that fits (16
  // output rows in a ring of 15 staged rows: 7 + 2 for each of 4 rows
  // ahead), not 4 rows (13 staged rows, the whole tile, under the 144 KB
  // a staged tile that fits twice may take).
  Conv2dGw8Problem tall = layer(2, 64, 256, 3, 1);
  tall.r = 7;
  tall.padH = 3;
  tall.stride = 2;
  Conv2dGw8Config tallConfig = conv2dGw8RuleConfig(tall);
  EXPECT_EQ(tallConfig.warpsQ, 2);
  EXPECT_EQ(tallConfig.warpsG, 8);
  EXPECT_EQ(tallConfig.rowsP, 16);
  // One group: no warps on groups that do not exist.
  EXPECT_EQ(conv2dGw8RuleConfig(layer(1, 8, 5, 3, 1)).warpsG, 1);
  for (auto p : {layer(128, 64, 64, 3, 1), layer(128, 192, 72, 3, 1), layer(256, 32, 112, 3, 1),
                 layer(128, 1024, 7, 3, 1), layer(1, 8, 5, 3, 1), strided, tall})
    EXPECT_EQ(checkConv2dGw8(p, conv2dGw8RuleConfig(p)), "");
}

TEST(Conv2dGw8, GridCoversEveryOutput) {
  Conv2dGw8Problem p = layer(3, 24, 17, 5, 2);
  p.w = 29;
  Conv2dGw8Config c = conv2dGw8RuleConfig(p);
  LaunchShape s = conv2dGw8LaunchShape(p, c);
  int64_t qTiles = (p.outW() + 16 * c.warpsQ - 1) / (16 * c.warpsQ);
  int64_t gTiles = (p.groups() + c.warpsG - 1) / c.warpsG;
  int64_t pTiles = (p.outH() + c.rowsP - 1) / c.rowsP;
  EXPECT_EQ(s.gridX, qTiles * gTiles);
  EXPECT_EQ(s.gridY, p.n * pTiles);
  EXPECT_EQ(s.block, c.threads());
  // Chunks: blocks along the (image, row tile) bands, each a loop over a
  // contiguous range of them as a 2-stage ring; the last chunk takes what
  // is left, and no more chunks than bands.
  ASSERT_EQ(p.n * pTiles, 3);
  c.chunks = 2; // 2 bands, then 1
  EXPECT_EQ(conv2dGw8LaunchShape(p, c).gridY, 2);
  EXPECT_EQ(conv2dGw8LaunchShape(p, c).gridX, qTiles * gTiles);
  c.chunks = 100; // one band each: no loop
  EXPECT_EQ(conv2dGw8LaunchShape(p, c).gridY, 3);
}

TEST(Conv2dGw8, HeavyKernelsLayImagesSideBySideGapless) {
  // 28x28 5x5 in column tiles of 32: 8 images side by side without the 4
  // columns between them fill 7 tiles (224 columns), where one image a
  // band rounds 28 columns up to 32 (conv2d-gw8-tiling.test: the A
  // fragments gather their rows).
  Conv2dGw8Problem p = layer(320, 160, 28, 5, 2);
  Conv2dGw8Config c = conv2dGw8RuleConfig(p);
  ASSERT_EQ(c.warpsQ, 2);
  LaunchShape s = conv2dGw8LaunchShape(p, c);
  int64_t groupTiles = p.groups() / c.warpsG;
  EXPECT_EQ(s.gridX, 7 * groupTiles);
  EXPECT_EQ(s.gridY, 320 / 8);
}

TEST(Conv2dGw8, OddGroupTilesStageUnswizzled) {
  // 3 groups a block, at stride 1 and 2 (conv2d-gw8-tiling.test: their
  // staging is unswizzled at an odd pitch).
  Conv2dGw8Problem p = layer(2, 24, 20, 3, 1);
  p.w = 64;
  EXPECT_EQ(conv2dGw8RuleConfig(p).warpsG, 3);
  Conv2dGw8Problem strided = layer(2, 24, 40, 3, 1);
  strided.stride = 2;
  EXPECT_EQ(conv2dGw8RuleConfig(strided).warpsG, 3);
}

TEST(Conv2dGw8, SixGroupsTakeWholeRowsPaddedToAnOddPitch) {
  // C48 rows of 17 to 80 columns: all 6 groups, one column tile a row
  // (fprop and dgrad; wgrad keeps its rules), staged columns of 6 vectors
  // padded to 7 (an odd pitch: no swizzle).
  for (ConvPass pass : {ConvPass::Fprop, ConvPass::Dgrad}) {
    Conv2dGw8Problem p = as(layer(256, 48, 64, 3, 1), pass);
    expectChosen(p, 4, 6, 16);
    expectChosen(as(layer(256, 48, 29, 3, 1), pass), 2, 6, 15);
  }
  expectChosen(as(layer(256, 48, 64, 3, 1), ConvPass::Dgrad, 2), 4, 6, 16);
  // Stride-2 fprop: output rows of up to 32 columns (64x64 in; 80x80's 40
  // keep 2 groups).
  expectChosen(as(layer(256, 48, 64, 3, 1), ConvPass::Fprop, 2), 2, 6, 16);
  EXPECT_EQ(conv2dGw8RuleConfig(as(layer(256, 48, 80, 3, 1), ConvPass::Fprop, 2)).warpsG, 2);
  // Wider rows: tiles of 5 warps where they round at most a tenth of the
  // columns up, in the tallest block that fits (224: 3 tiles, 240 columns,
  // 16 rows); 112 columns (2 tiles, 160) keep 2 groups, and so do
  // stride-2 dgrad's rows wider than 64. 6 groups of more (C96) keep 4.
  expectChosen(layer(32, 48, 224, 3, 1), 5, 6, 16);
  EXPECT_EQ(conv2dGw8RuleConfig(layer(32, 48, 112, 3, 1)).warpsG, 2);
  EXPECT_EQ(conv2dGw8RuleConfig(as(layer(32, 48, 160, 3, 1), ConvPass::Dgrad, 2)).warpsG, 2);
  EXPECT_EQ(conv2dGw8RuleConfig(layer(256, 96, 32, 3, 1)).warpsG, 4);
  EXPECT_NE(conv2dGw8RuleConfig(as(layer(256, 48, 64, 3, 1), ConvPass::Wgrad)).warpsG, 6);
  // 7 groups, and 6 at stride 2, may be configured (conv2d-gw8-tiling.test:
  // their staged pitches).
  auto expectTaken = [](const Conv2dGw8Problem &p, int64_t warpsG) {
    Conv2dGw8Config c = conv2dGw8RuleConfig(p);
    c.warpsG = warpsG;
    EXPECT_EQ(checkConv2dGw8(p, c), "");
  };
  expectTaken(layer(2, 56, 30, 3, 1), 7);
  expectTaken(as(layer(2, 96, 33, 3, 1), ConvPass::Fprop, 2), 6);
}

TEST(Conv2dGw8, NarrowImagesFlattenRowsIntoPixels) {
  // 7 columns of one image flatten rows into pixels (which images do:
  // conv2d-gw8-tiling.test).
  Conv2dGw8Problem p = layer(1, 32, 7, 3, 1);
  p.bias = true;
  // One block (grid x) per group tile: no column tiles; grid y splits the
  // bands of rows (here one per image) into chunks, each a loop.
  Conv2dGw8Config c = conv2dGw8RuleConfig(p);
  EXPECT_EQ(conv2dGw8LaunchShape(p, c).gridX, (p.groups() + c.warpsG - 1) / c.warpsG);
  EXPECT_EQ(c.rowsP, 7);
  EXPECT_EQ(conv2dGw8LaunchShape(p, c).gridY, 1);
  // A tall single image flattens in bands of 20 rows (a warp's 14
  // fragments of 11 staged columns): 10 group tiles want 53 chunks of its
  // 320 bands, 7 bands a block.
  Conv2dGw8Problem tall = layer(1, 640, 7, 5, 2);
  tall.h = 320 * 20;
  Conv2dGw8Config tallC = conv2dGw8RuleConfig(tall);
  EXPECT_EQ(tallC.rowsP, 20);
  EXPECT_EQ(conv2dGw8LaunchShape(tall, tallC).gridX, 10);
  EXPECT_EQ(conv2dGw8LaunchShape(tall, tallC).gridY, 46);
  tallC.chunks = 3;
  EXPECT_EQ(conv2dGw8LaunchShape(tall, tallC).gridY, 3);
  // Unlike wgrad, the chunk count rounds up: 30 group tiles want 18 chunks
  // of 256 bands of 24 rows (15 a block), 540 blocks for a target of 528.
  Conv2dGw8Problem wideGroups = layer(1, 1920, 7, 3, 1);
  wideGroups.h = 256 * 24;
  Conv2dGw8Config wideC = conv2dGw8RuleConfig(wideGroups);
  EXPECT_EQ(wideC.rowsP, 24);
  EXPECT_EQ(conv2dGw8LaunchShape(wideGroups, wideC).gridY, 18);
}

TEST(Conv2dGw8, DgradRunsTheKernelOnDyWithFlippedTaps) {
  Conv2dGw8Problem p = layer(2, 16, 10, 3, 0);
  p.pass = ConvPass::Dgrad;
  // dy is 8 x 8; dx is 10 x 10 with padding R - 1 - 0 = 2.
  EXPECT_EQ(p.kernelInH(), 8);
  EXPECT_EQ(p.kernelOutW(), 10);
  EXPECT_EQ(p.kernelPadH(), 2);
  p.bias = true;
  EXPECT_NE(checkConv2dGw8(p, conv2dGw8RuleConfig(p)).find("no bias"), std::string::npos);
}

TEST(Conv2dGw8, WgradBiasBlocksFollowTheChannelsAndPixels) {
  struct Case {
    Conv2dGw8Problem p;
    int64_t blocks, chain;
  };
  // 8 channels: one vector, a step of 256 pixels, 324 pixels in one block.
  // 2304: 288 vectors, 144 a step of one pixel, 784 pixels in 98 blocks of 8
  // (at least 8 a thread). One pixel. Stride 2: 12 vectors, 21 pixels a
  // step, 26912 pixels in 161 blocks of 168. The chain: a thread's pixels,
  // the slots, a reduce lane's blocks, 5 shuffle levels.
  for (auto [p, blocks, chain] :
       {Case{layer(4, 8, 9, 3, 1), 1, 2 + 256 + 1 + 5},
        Case{layer(16, 2304, 7, 3, 1), 98, 8 + 1 + 4 + 5},
        Case{layer(1, 64, 1, 1, 0), 1, 1 + 32 + 1 + 5},
        Case{as(layer(32, 96, 57, 5, 2), ConvPass::Wgrad, 2), 161, 8 + 21 + 6 + 5}}) {
    p.pass = ConvPass::Wgrad;
    Conv2dGw8Config c = conv2dGw8RuleConfig(p);
    int64_t dwBytes = conv2dGw8WorkspaceBytes(p, c);
    p.bias = true;
    EXPECT_EQ(checkConv2dGw8(p, c), "");
    EXPECT_EQ(conv2dGw8WgradBiasLaunchShape(p).gridX, blocks);
    EXPECT_EQ(conv2dGw8WgradBiasAccumulationChain(p), chain);
    EXPECT_EQ(conv2dGw8WorkspaceBytes(p, c), dwBytes + blocks * p.c * 4);
    EXPECT_EQ(conv2dGw8WgradBiasReduceLaunchShape(p).gridX, (p.c / 8 + 7) / 8);
  }
  Conv2dGw8Problem dgrad = as(layer(4, 64, 9, 3, 1), ConvPass::Dgrad);
  dgrad.bias = true;
  EXPECT_EQ(checkConv2dGw8Problem(dgrad), "dgrad takes no bias");
}

TEST(Conv2dGw8, WgradChunksCoverEveryBandOnce) {
  Conv2dGw8Problem p = layer(32, 64, 56, 3, 1);
  p.pass = ConvPass::Wgrad;
  Conv2dGw8Config c = conv2dGw8RuleConfig(p);
  EXPECT_EQ(checkConv2dGw8(p, c), "");
  // One group tile of 8 warps, one along Q, one block a multiprocessor:
  // 32 images x 7 bands of 8 rows x 4 tiles of 16 columns = 896 bands; the
  // group tile wants 132 chunks, so 7 bands each, 128 chunks.
  EXPECT_EQ(c.warpsQ, 1);
  EXPECT_EQ(c.warpsG, 8);
  EXPECT_EQ(c.rowsP, 8);
  LaunchShape s = conv2dGw8LaunchShape(p, c);
  EXPECT_EQ(s.gridX, 1);
  EXPECT_EQ(s.gridY, 128);
  EXPECT_EQ(conv2dGw8WgradPartials(p, c), 128);
  // Partials hold an even number of taps: S = 3 pads to 4.
  EXPECT_EQ(conv2dGw8WorkspaceBytes(p, c), 128 * 64 * 3 * 4 * 8 * 4);
  // A warp adds 7 bands of 8 rows, one mma step a row, then the reduce
  // adds the partials in 4 splits of 32, and the splits in 2 levels.
  EXPECT_EQ(conv2dGw8WgradAccumulationChain(p, c), 7 * 8 + 32 + 2);
  // 4 splits: a block of 256 threads reduces 64 dw elements.
  EXPECT_EQ(conv2dGw8WgradReduceLaunchShape(p, c).gridX, 64 * 9 * 8 / 64);
  // On a GPU of 114 multiprocessors (an H100 PCIe) the group tile wants
  // 114 chunks: 8 bands each, 112 of them. On 66, 66 chunks of 14 bands,
  // 64 of them.
  Conv2dGw8Problem smaller = p;
  smaller.target.multiprocessors = 114;
  EXPECT_EQ(conv2dGw8LaunchShape(smaller, c).gridY, 112);
  smaller.target.multiprocessors = 66;
  EXPECT_EQ(conv2dGw8LaunchShape(smaller, c).gridY, 64);
  smaller.target.multiprocessors = 0;
  EXPECT_NE(checkConv2dGw8(smaller, c).find("multiprocessor count must be positive"),
            std::string::npos);
  // Bands of 9 rows only where they round fewer up than 8 (images wide
  // enough not to flatten their rows).
  Conv2dGw8Problem eighteen = layer(8, 64, 18, 3, 1), seventyTwo = layer(8, 64, 72, 3, 1);
  eighteen.w = 40;
  eighteen.pass = seventyTwo.pass = ConvPass::Wgrad;
  EXPECT_EQ(conv2dGw8RuleConfig(eighteen).rowsP, 9);
  EXPECT_EQ(conv2dGw8RuleConfig(seventyTwo).rowsP, 8);
  c.chunks = 1000; // more chunks than bands: one band each
  EXPECT_EQ(conv2dGw8LaunchShape(p, c).gridY, 896);
  c.chunks = 3; // 299 bands each, the last chunk takes 298
  EXPECT_EQ(conv2dGw8LaunchShape(p, c).gridY, 3);
  // 3 partials: one lane a dw element.
  EXPECT_EQ(conv2dGw8WgradReduceLaunchShape(p, c).gridX, 64 * 9 * 8 / 256);
  // With a bias, wgrad also sums dy over its 100352 pixels: 8 channel
  // vectors a step of 32 pixels, in 264 blocks (two a multiprocessor) of
  // 381, whose f32 sums follow dw's partials; the reduce takes a warp a
  // vector, 9 sums a lane.
  p.bias = true;
  EXPECT_EQ(checkConv2dGw8(p, c), "");
  EXPECT_EQ(conv2dGw8WorkspaceBytes(p, c), 3 * 64 * 3 * 4 * 8 * 4 + 264 * 64 * 4);
  EXPECT_EQ(conv2dGw8WgradBiasLaunchShape(p).gridX, 264);
  EXPECT_EQ(conv2dGw8WgradBiasReduceLaunchShape(p).gridX, 1);
  EXPECT_EQ(conv2dGw8WgradBiasAccumulationChain(p), 12 + 32 + 9 + 5);
  p.wgradClusterReduce = true;
  EXPECT_NE(checkConv2dGw8(p, c).find("cluster reduce computes no bias gradient"),
            std::string::npos);
  p.wgradClusterReduce = false;
  p.bias = false;
  p.wgradF32 = true;
  EXPECT_EQ(checkConv2dGw8(p, c), "");
  p.pass = ConvPass::Fprop;
  EXPECT_NE(checkConv2dGw8(p, c).find("only wgrad"), std::string::npos);
}

TEST(Conv2dGw8, WgradReduceBlocksOfWholeChannelsWhereTheyDiscard) {
  // 3x3, 3 partials (one lane a dw element): blocks of 256 of the 64 x 72
  // elements, or, discarding, of 3 whole channels (216; 40 lanes idle).
  Conv2dGw8Problem p = layer(32, 64, 56, 3, 1);
  p.pass = ConvPass::Wgrad;
  Conv2dGw8Config c = conv2dGw8RuleConfig(p);
  c.chunks = 3;
  EXPECT_EQ(conv2dGw8WgradReduceLaunchShape(p, c).gridX, 64 * 72 / 256);
  p.wgradDiscard = WgradDiscard::Always;
  EXPECT_EQ(checkConv2dGw8(p, c), "");
  EXPECT_EQ(conv2dGw8WgradReduceLaunchShape(p, c).gridX, (64 * 72 + 215) / 216);
  // 5x5: a block a channel of 200 elements; 7x7's channels (392) span
  // blocks of 256 as without.
  Conv2dGw8Problem wide = layer(32, 64, 28, 5, 2);
  wide.pass = ConvPass::Wgrad;
  wide.wgradDiscard = WgradDiscard::Always;
  Conv2dGw8Config wideConfig = conv2dGw8RuleConfig(wide);
  wideConfig.chunks = 3;
  EXPECT_EQ(conv2dGw8WgradReduceLaunchShape(wide, wideConfig).gridX, 64);
  wide.r = wide.s = 7;
  wide.padH = wide.padW = 3;
  EXPECT_EQ(conv2dGw8WgradReduceLaunchShape(wide, wideConfig).gridX, 64 * 392 / 256);
  EXPECT_FALSE(conv2dGw8WgradDiscards(wide, wideConfig));
  // Only wgrad's reduce kernel discards.
  p.wgradClusterReduce = true;
  EXPECT_NE(checkConv2dGw8(p, c).find("only wgrad's reduce kernel discards"), std::string::npos);
  p.wgradClusterReduce = false;
  p.pass = ConvPass::Dgrad;
  EXPECT_NE(checkConv2dGw8(p, c).find("only wgrad's reduce kernel discards"), std::string::npos);
}

TEST(Conv2dGw8, OddGroupsAutotuneTilesOfFourAndEightGroups) {
  // 9 groups (C = 72): after the rules' candidates, as many warps as the
  // rules' first or fewer over tiles of 4 and 8 groups, which the rules
  // never take; the chosen (the model's pick on its target) first.
  for (ConvPass pass : {ConvPass::Fprop, ConvPass::Dgrad}) {
    Conv2dGw8Problem odd = as(layer(64, 72, 56, 3, 1), pass);
    odd.groupWidth = 1;
    std::vector<Conv2dGw8Config> rules = conv2dGw8RuleCandidates(odd);
    EXPECT_EQ(rules.front().warpsG, 2);
    std::vector<Conv2dGw8Config> candidates = conv2dGw8Candidates(odd);
    // And the two whole-pixel tiles of 9 groups (the next test).
    ASSERT_EQ(candidates.size(), rules.size() + 4);
    Conv2dGw8Config chosen = chooseConv2dGw8Config(odd);
    EXPECT_EQ(candidates.front().warpsG, chosen.warpsG);
    EXPECT_EQ(candidates.front().warpsQ, chosen.warpsQ);
    EXPECT_EQ(candidates.front().rowsP, chosen.rowsP);
    for (int64_t warpsG : {4, 8}) {
      auto tile = std::find_if(candidates.begin(), candidates.end(),
                               [&](const Conv2dGw8Config &c) { return c.warpsG == warpsG; });
      ASSERT_NE(tile, candidates.end());
      EXPECT_LE(tile->computeWarps(), rules.front().computeWarps());
      EXPECT_EQ(std::count_if(rules.begin(), rules.end(),
                              [&](const Conv2dGw8Config &c) { return c.warpsG == warpsG; }),
                0);
    }
    for (const Conv2dGw8Config &c : candidates)
      EXPECT_EQ(checkConv2dGw8(odd, c), "");
    // At most `most` in all: none appended to a full list.
    int64_t ranked = int64_t(rules.size());
    EXPECT_EQ(int64_t(conv2dGw8Candidates(odd, ranked).size()), ranked);
    // 18 groups start every pixel on a sector: the ranked candidates alone.
    Conv2dGw8Problem even = odd;
    even.c = 144;
    EXPECT_EQ(conv2dGw8Candidates(even).size(), conv2dGw8RuleCandidates(even).size());
  }
  // wgrad's candidates keep the rules' blocks (its order of additions).
  Conv2dGw8Problem wgrad = as(layer(64, 72, 56, 3, 1), ConvPass::Wgrad);
  wgrad.groupWidth = 1;
  for (const Conv2dGw8Config &c : conv2dGw8Candidates(wgrad))
    EXPECT_EQ(c.warpsG, conv2dGw8RuleConfig(wgrad).warpsG);
}

static auto fields(const Conv2dGw8Config &c) {
  return std::make_tuple(c.warpsQ, c.warpsG, c.rowsP, c.chunks, c.copyWarps, c.rowRing, c.stages,
                         c.reduceLaneElements);
}

TEST(Conv2dGw8, CandidatesComeInTheModelsOrder) {
  // On a target the model knows, every pass's candidates in the order of
  // its predictions, its pick first; elsewhere the rules' order.
  for (ConvPass pass : {ConvPass::Fprop, ConvPass::Dgrad, ConvPass::Wgrad})
    for (int64_t channels : {72, 256}) {
      Conv2dGw8Problem p = as(layer(64, channels, 56, 3, 1), pass);
      p.groupWidth = channels == 72 ? 1 : 8;
      ASSERT_TRUE(conv2dGw8ModelKnowsTarget(p));
      std::vector<Conv2dGw8Config> candidates = conv2dGw8Candidates(p);
      ASSERT_GE(candidates.size(), 2u);
      std::vector<double> predicted;
      for (const Conv2dGw8Config &c : candidates)
        predicted.push_back(predict(conv2dGw8Model(), conv2dGw8Features(p, c)));
      EXPECT_TRUE(std::is_sorted(predicted.begin(), predicted.end()));
      EXPECT_EQ(fields(candidates.front()), fields(chooseConv2dGw8Config(p)));
      Conv2dGw8Problem unknown = p;
      unknown.target.multiprocessors = 7;
      ASSERT_FALSE(conv2dGw8ModelKnowsTarget(unknown));
      EXPECT_EQ(fields(conv2dGw8Candidates(unknown).front()), fields(conv2dGw8RuleConfig(unknown)));
    }
}

TEST(Conv2dGw8, SevenOrNineGroupsTakeWholePixelTiles) {
  for (int64_t channels : {56, 72}) {
    int64_t groups = channels / 8;
    // fprop and dgrad: tiles of all the groups in one and two warps along
    // Q, which the rules never take, for the model to rank.
    for (ConvPass pass : {ConvPass::Fprop, ConvPass::Dgrad}) {
      Conv2dGw8Problem p = as(layer(64, channels, 56, 3, 1), pass);
      p.groupWidth = 1;
      EXPECT_NE(conv2dGw8RuleConfig(p).warpsG, groups);
      std::vector<Conv2dGw8Config> candidates = conv2dGw8Candidates(p);
      for (int64_t warpsQ : {1, 2}) {
        auto tile = std::find_if(candidates.begin(), candidates.end(), [&](const auto &c) {
          return c.warpsG == groups && c.warpsQ == warpsQ;
        });
        ASSERT_NE(tile, candidates.end()) << channels << " channels, " << warpsQ << " warps";
        EXPECT_EQ(checkConv2dGw8(p, *tile), "");
      }
      EXPECT_LE(int64_t(candidates.size()), kConv2dGw8Candidates);
    }
    // wgrad's rules take them for kernels of up to 3x3 at stride 1 (one
    // warp along Q: 9 warps for 9 groups), not for 5x5 or stride 2.
    Conv2dGw8Problem wgrad = as(layer(64, channels, 56, 3, 1), ConvPass::Wgrad);
    Conv2dGw8Config c = conv2dGw8RuleConfig(wgrad);
    EXPECT_EQ(c.warpsG, groups);
    EXPECT_EQ(c.warpsQ, 1);
    EXPECT_EQ(checkConv2dGw8(wgrad, c), "");
    EXPECT_NE(conv2dGw8RuleConfig(as(layer(64, channels, 56, 5, 2), ConvPass::Wgrad)).warpsG,
              groups);
    EXPECT_NE(conv2dGw8RuleConfig(as(layer(64, channels, 56, 3, 1), ConvPass::Wgrad, 2)).warpsG,
              groups);
  }
  // Other group counts keep the rules' candidates (and 4- and 8-group
  // tiles where odd over 8): none of more than 8 groups.
  Conv2dGw8Problem eleven = as(layer(64, 88, 56, 3, 1), ConvPass::Fprop);
  for (const Conv2dGw8Config &c : conv2dGw8Candidates(eleven))
    EXPECT_LE(c.warpsG, 8);
  Conv2dGw8Config ten;
  ten.warpsG = 10;
  EXPECT_NE(checkConv2dGw8(eleven, ten).find("1 to 9"), std::string::npos);
}

TEST(Conv2dGw8, NarrowGroupsRunOnTheSameBlocks) {
  // Groups of 1, 2 or 4 channels take the blocks of width 8 (the same
  // staged tiles and grid); a 5x5 wgrad's reduce adds at most a group's
  // channels a lane, since a lane's elements are stored together.
  Conv2dGw8Problem p = as(layer(320, 320, 14, 5, 2), ConvPass::Wgrad);
  Conv2dGw8Config wide = conv2dGw8RuleConfig(p);
  for (int64_t width : {1, 2, 4}) {
    Conv2dGw8Problem narrow = p;
    narrow.groupWidth = width;
    Conv2dGw8Config c = conv2dGw8RuleConfig(narrow);
    EXPECT_EQ(checkConv2dGw8(narrow, c), "");
    EXPECT_EQ(conv2dGw8WgradPartials(narrow, c), conv2dGw8WgradPartials(p, wide));
    for (const Conv2dGw8Config &candidate : conv2dGw8Candidates(narrow))
      EXPECT_LE(candidate.reduceLaneElements, width);
    c.reduceLaneElements = 4;
    EXPECT_EQ(checkConv2dGw8(narrow, c).find("at most a group's") != std::string::npos, width < 4);
  }
  for (ConvPass pass : {ConvPass::Fprop, ConvPass::Dgrad}) {
    Conv2dGw8Problem fprop = as(layer(8, 96, 56, 3, 1), pass);
    Conv2dGw8Problem depthwise = fprop;
    depthwise.groupWidth = 1;
    EXPECT_EQ(conv2dGw8LaunchShape(depthwise, conv2dGw8RuleConfig(depthwise)).gridX,
              conv2dGw8LaunchShape(fprop, conv2dGw8RuleConfig(fprop)).gridX);
  }
  Conv2dGw8Problem three = layer(2, 64, 56, 3, 1);
  three.groupWidth = 3;
  EXPECT_EQ(checkConv2dGw8Problem(three),
            "conv2d-gw8 takes groups of 1, 2, 4 or 8 channels, got 3");
}

TEST(Conv2dGw8, Wgrad5x5ReduceAddsFourChannelsALaneWhereItsGridFills) {
  // 14x14 C320: 38 partials in 2 splits, 128 lanes of 4 a block, which
  // hold 2 whole channels of 200 (400 elements) and discard them: 160
  // blocks. One a lane, a channel would span blocks of 128: no discard.
  Conv2dGw8Problem p = as(layer(320, 320, 14, 5, 2), ConvPass::Wgrad);
  Conv2dGw8Config c = conv2dGw8RuleConfig(p);
  EXPECT_EQ(conv2dGw8WgradPartials(p, c), 38);
  EXPECT_TRUE(conv2dGw8WgradDiscards(p, c));
  EXPECT_EQ(conv2dGw8WgradReduceLaunchShape(p, c).gridX, 320 * 200 / 400);
  // Which grids take four a lane: conv2d-gw8-tiling.test.
  // The configuration may set it: 2 a lane halves 3x3's blocks (3
  // partials: 512 elements a block); 3, fprop and the cluster's one kernel
  // are refused.
  Conv2dGw8Problem two = as(layer(32, 64, 56, 3, 1), ConvPass::Wgrad);
  Conv2dGw8Config twoConfig = conv2dGw8RuleConfig(two);
  twoConfig.chunks = 3;
  twoConfig.reduceLaneElements = 2;
  EXPECT_EQ(checkConv2dGw8(two, twoConfig), "");
  EXPECT_EQ(conv2dGw8WgradReduceLaunchShape(two, twoConfig).gridX, 64 * 72 / 512);
  twoConfig.reduceLaneElements = 3;
  EXPECT_NE(checkConv2dGw8(two, twoConfig).find("1, 2 or 4 elements a lane"), std::string::npos);
  twoConfig.reduceLaneElements = 2;
  two.wgradClusterReduce = true;
  EXPECT_NE(checkConv2dGw8(two, twoConfig).find("only wgrad's reduce kernel"), std::string::npos);
  two.wgradClusterReduce = false;
  two.pass = ConvPass::Fprop;
  Conv2dGw8Config fpropConfig = conv2dGw8RuleConfig(two);
  fpropConfig.reduceLaneElements = 2;
  EXPECT_NE(checkConv2dGw8(two, fpropConfig).find("only wgrad's reduce kernel"),
            std::string::npos);
}

TEST(Conv2dGw8, WgradDiscardsByDefaultWhereItsBytesOutgrowTheL2) {
  // N128 C1248 8x8 3x3: 41 MB of x, dy and dw and 13 partials of 4.7 MB,
  // over 3/4 of 50 MiB; C768's 25 + 4.9 MB are not.
  Conv2dGw8Problem large = as(layer(128, 1248, 8, 3, 1), ConvPass::Wgrad);
  Conv2dGw8Config c = conv2dGw8RuleConfig(large);
  ASSERT_EQ(conv2dGw8WgradPartials(large, c), 13);
  EXPECT_TRUE(conv2dGw8WgradDiscards(large, c));
  Conv2dGw8Problem small = as(layer(128, 768, 8, 3, 1), ConvPass::Wgrad);
  EXPECT_FALSE(conv2dGw8WgradDiscards(small, conv2dGw8RuleConfig(small)));
  // The target's L2 moves the line; Never and the cluster reduce keep them.
  large.target.l2Bytes = int64_t(64) << 20;
  EXPECT_FALSE(conv2dGw8WgradDiscards(large, c));
  small.wgradDiscard = WgradDiscard::Always;
  EXPECT_TRUE(conv2dGw8WgradDiscards(small, conv2dGw8RuleConfig(small)));
  large.target.l2Bytes = hopper().l2Bytes;
  large.wgradDiscard = WgradDiscard::Never;
  EXPECT_FALSE(conv2dGw8WgradDiscards(large, c));
  large.wgradDiscard = WgradDiscard::Auto;
  large.wgradClusterReduce = true;
  EXPECT_FALSE(conv2dGw8WgradDiscards(large, c));
  large.pass = ConvPass::Dgrad;
  large.wgradClusterReduce = false;
  EXPECT_FALSE(conv2dGw8WgradDiscards(large, c));
}

TEST(Conv2dGw8, WgradAddsUpToEightPartialsInACluster) {
  Conv2dGw8Problem p = layer(128, 2112, 8, 3, 1);
  p.pass = ConvPass::Wgrad;
  p.wgradClusterReduce = true;
  Conv2dGw8Config c = conv2dGw8RuleConfig(p);
  int64_t parts = conv2dGw8WgradPartials(p, c);
  ASSERT_LE(parts, kMaxClusterBlocks);
  EXPECT_EQ(checkConv2dGw8(p, c), "");
  EXPECT_EQ(conv2dGw8WorkspaceBytes(p, c), 0);
  // One kernel into dw, its grid along y one cluster.
  EXPECT_EQ(conv2dGw8LaunchShape(p, c).gridY, parts);
  // More partials than a portable cluster holds are refused, by count.
  c.chunks = kMaxClusterBlocks + 1;
  EXPECT_NE(checkConv2dGw8(p, c).find("cluster of at most 8 blocks, but the grid takes 9"),
            std::string::npos);
  p.pass = ConvPass::Fprop;
  c = conv2dGw8RuleConfig(p);
  EXPECT_NE(checkConv2dGw8(p, c).find("only wgrad adds partial sums in a cluster"),
            std::string::npos);
}

TEST(Conv2dGw8, WgradBlocksAddTheirWarpsSums) {
  // 128x128 C32 3x3: blocks of 2 warps along Q and 4 groups, 8-row bands.
  // The warps add their 6 sums in shared memory, in warp order, and the
  // block stores one partial: 128 images x 16 bands x 4 column tiles in
  // 256 chunks of 32 bands. A dw element's chain: 32 bands of 8 mma steps,
  // the other warp's sum, then the reduce's 8 splits of 32 partials and 3
  // levels.
  Conv2dGw8Problem p = as(layer(128, 32, 128, 3, 1), ConvPass::Wgrad);
  Conv2dGw8Config c = expectChosen(p, 2, 4, 8);
  EXPECT_EQ(conv2dGw8LaunchShape(p, c).gridY, 256);
  EXPECT_EQ(conv2dGw8WgradPartials(p, c), 256);
  EXPECT_EQ(conv2dGw8WgradAccumulationChain(p, c), 32 * 8 + 1 + 32 + 3);
  // 32 warps along Q of one group, 5x5 in 2-row bands: 13 sums of 32
  // fragments (16 KB each) beside 131 KB of tiles, one sum a round, each
  // round's writes after the last round's reads (a barrier between).
  Conv2dGw8Problem wide = layer(2, 8, 512, 5, 2);
  wide.pass = ConvPass::Wgrad;
  Conv2dGw8Config w = conv2dGw8RuleConfig(wide);
  w.warpsQ = 32;
  w.warpsG = 1;
  w.rowsP = 2;
  EXPECT_EQ(checkConv2dGw8(wide, w), "");
}

TEST(Conv2dGw8, Wgrad5x5ImagesSideBySideTakeTwoByTwoWarps) {
  // 7x7 and 8x8 (3 images side by side in 32 columns either way, bands of
  // 7 and 8 rows) take 2 x 2 warps; one image a tile (28x28 in 32 columns
  // either way, 32x32), 14x14 (one image in 16 columns, 2 in 32) and 18x18
  // (bands of 9 rows) keep 1 x 4.
  expectChosen(as(layer(320, 640, 7, 5, 2), ConvPass::Wgrad), 2, 2, 7);
  expectChosen(as(layer(128, 1248, 8, 5, 2), ConvPass::Wgrad), 2, 2, 8);
  expectChosen(as(layer(320, 160, 28, 5, 2), ConvPass::Wgrad), 1, 4, 7);
  expectChosen(as(layer(32, 1056, 28, 5, 2), ConvPass::Wgrad), 1, 4, 7);
  expectChosen(as(layer(128, 288, 32, 5, 2), ConvPass::Wgrad), 1, 4, 8);
  expectChosen(as(layer(256, 480, 14, 5, 2), ConvPass::Wgrad), 1, 4, 7);
  expectChosen(as(layer(128, 576, 18, 5, 2), ConvPass::Wgrad), 1, 4, 9);
  // The score's 4 x 2: 10 groups as 1 x 4 (12 groups a row of blocks, 5
  // of 6 used), its 8-row bands kept; 6 groups (8, 3 of 4 used) as 2 x 2.
  expectChosen(as(layer(320, 80, 56, 5, 2), ConvPass::Wgrad), 1, 4, 8);
  expectChosen(as(layer(320, 48, 56, 5, 2), ConvPass::Wgrad), 2, 2, 8);
}

TEST(Conv2dGw8, Wgrad3x3GroupsPastAMultipleOfEightTakeEightAPixel) {
  // 12 and 18 groups on rows of more than 16 columns: 1 x 8, not the
  // score's 2 x 4 (9 groups: all of them, 1 x 9); 24 groups (a multiple
  // of 8) and 14x14 C480 (60 groups, 2 images in 32 columns) keep the
  // score's.
  expectChosen(as(layer(128, 72, 32, 3, 1), ConvPass::Wgrad), 1, 9, 8);
  expectChosen(as(layer(256, 96, 32, 3, 1), ConvPass::Wgrad), 1, 8, 8);
  expectChosen(as(layer(256, 144, 56, 3, 1), ConvPass::Wgrad), 1, 8, 8);
  expectChosen(as(layer(128, 192, 72, 3, 1), ConvPass::Wgrad), 1, 8, 8);
  expectChosen(as(layer(256, 480, 14, 3, 1), ConvPass::Wgrad), 2, 4, 14);
  // fprop keeps the score's 2 x 4.
  expectChosen(layer(128, 72, 32, 3, 1), 2, 4, 16);
}

TEST(Conv2dGw8, WgradRowRingTakesStrideOneRowsOfFragments) {
  // The ring hands a band's last R - 1 staged rows on to the next band of
  // its column tile: wgrad on rows of fragments, stride 1, kernels of 2
  // rows or more.
  auto ring = [](const Conv2dGw8Problem &p) {
    Conv2dGw8Config c = conv2dGw8RuleConfig(p);
    c.rowRing = true;
    return checkConv2dGw8(p, c);
  };
  const std::string refused =
      "a row ring is for wgrad on rows of fragments, stride 1, kernels of 2 rows or more";
  EXPECT_EQ(ring(as(layer(4, 160, 28, 5, 2), ConvPass::Wgrad)), "");
  EXPECT_EQ(ring(as(layer(2, 64, 56, 3, 1), ConvPass::Wgrad)), "");
  EXPECT_EQ(ring(as(layer(2, 64, 56, 3, 1), ConvPass::Wgrad, 2)), refused);
  EXPECT_EQ(ring(as(layer(2, 32, 8, 3, 1), ConvPass::Wgrad)), refused); // flattened rows
  EXPECT_EQ(ring(as(layer(2, 64, 56, 1, 0), ConvPass::Wgrad)), refused);
  EXPECT_EQ(ring(layer(2, 64, 56, 3, 1)), refused);
}

TEST(Conv2dGw8, Wgrad5x5ColumnTilesOfTwoBandsTakeARowRing) {
  auto chosenRing = [](const Conv2dGw8Problem &p) { return conv2dGw8RuleConfig(p).rowRing; };
  // Two bands a column tile: 14x14 and 16x16 in 7- and 8-row bands, 18x18
  // and 20x20 (images side by side) in 9 and 10.
  EXPECT_TRUE(chosenRing(as(layer(256, 480, 14, 5, 2), ConvPass::Wgrad)));
  EXPECT_TRUE(chosenRing(as(layer(128, 720, 16, 5, 2), ConvPass::Wgrad)));
  EXPECT_TRUE(chosenRing(as(layer(128, 816, 18, 5, 2), ConvPass::Wgrad)));
  EXPECT_TRUE(chosenRing(as(layer(64, 960, 20, 5, 2), ConvPass::Wgrad)));
  // One band (10x10), four (28x28) or seven (56x56); 3x3; stride 2; fprop.
  EXPECT_FALSE(chosenRing(as(layer(64, 1632, 10, 5, 2), ConvPass::Wgrad)));
  EXPECT_FALSE(chosenRing(as(layer(320, 160, 28, 5, 2), ConvPass::Wgrad)));
  EXPECT_FALSE(chosenRing(as(layer(32, 384, 56, 5, 2), ConvPass::Wgrad)));
  EXPECT_FALSE(chosenRing(as(layer(128, 528, 16, 3, 1), ConvPass::Wgrad)));
  EXPECT_FALSE(chosenRing(as(layer(128, 288, 32, 5, 2), ConvPass::Wgrad, 2)));
  EXPECT_FALSE(chosenRing(layer(256, 480, 14, 5, 2)));
  // Copying only as many x rows as dy rows leaves no halo to hand on.
  Conv2dGw8Problem part = as(layer(256, 480, 14, 5, 2), ConvPass::Wgrad);
  part.wgradParts = WgradParts::CopiesWithoutRowHalo;
  EXPECT_FALSE(chosenRing(part));
  // Every ring the chooser takes passes the check.
  for (int64_t hw : {14, 16, 17, 18, 20, 24}) {
    Conv2dGw8Problem p = as(layer(64, 320, hw, 5, 2), ConvPass::Wgrad);
    EXPECT_EQ(checkConv2dGw8(p, conv2dGw8RuleConfig(p)), "") << hw;
  }
}

TEST(Conv2dGw8, WgradBlocksOfTheBandLoopDepthCases) {
  // The blocks of the cases whose band-loop depth (spio-pipeline's stages)
  // conv2d-gw8-tiling.test checks: three where a block has one warp along
  // the pixels and 16 bands or more, and two such blocks a multiprocessor
  // still fit, and for 3x3 blocks of 8 groups one a multiprocessor (72x72
  // C192, 56x56 C128, 16x16 C1024; not 9x9 C2304, whose 36 group tiles
  // would fill 108 of the 132, nor 32x32 C72's 9 groups); two for blocks
  // of fewer bands (8x8 C1248: 10), blocks whose warps add their sums in
  // shared memory, 5x5's blocks of three a multiprocessor and 7x7's one.
  expectChosen(as(layer(256, 1152, 7, 3, 1), ConvPass::Wgrad), 1, 8, 7);
  expectChosen(as(layer(256, 32, 112, 3, 1), ConvPass::Wgrad), 1, 4, 8);
  expectChosen(as(layer(128, 192, 72, 3, 1), ConvPass::Wgrad), 1, 8, 8);
  expectChosen(as(layer(128, 128, 56, 3, 1), ConvPass::Wgrad), 1, 8, 8);
  expectChosen(as(layer(256, 1024, 16, 3, 1), ConvPass::Wgrad), 1, 8, 8);
  expectChosen(as(layer(128, 2304, 9, 3, 1), ConvPass::Wgrad), 1, 8, 9);
  expectChosen(as(layer(128, 72, 32, 3, 1), ConvPass::Wgrad), 1, 9, 8);
  expectChosen(as(layer(128, 1248, 8, 3, 1), ConvPass::Wgrad), 1, 8, 8);
  expectChosen(as(layer(128, 32, 128, 3, 1), ConvPass::Wgrad), 2, 4, 8);
  expectChosen(as(layer(256, 480, 14, 5, 2), ConvPass::Wgrad), 1, 4, 7);
  EXPECT_EQ(conv2dGw8RuleConfig(as(layer(64, 128, 56, 7, 3), ConvPass::Wgrad)).warpsQ, 1);
}

TEST(Conv2dGw8, WgradBandsRoundFewestRowsUp) {
  // Bands of 8 rows, 9 where that rounds fewer rows up; 5x5 kernels in
  // blocks of 4 warps also 7, then 10 (14 and 28 rows exactly as 7; 10,
  // 20 and 30 as 10, not 14, 21 and 32; 12 as 14, not 20).
  auto rows = [](int64_t hw, int64_t rs) {
    Conv2dGw8Problem p = layer(64, 256, hw, rs, rs / 2);
    p.pass = ConvPass::Wgrad;
    return conv2dGw8RuleConfig(p).rowsP;
  };
  EXPECT_EQ(rows(14, 5), 7);
  EXPECT_EQ(rows(28, 5), 7);
  EXPECT_EQ(rows(12, 5), 7);
  EXPECT_EQ(rows(10, 5), 10);
  EXPECT_EQ(rows(20, 5), 10);
  EXPECT_EQ(rows(30, 5), 10);
  EXPECT_EQ(rows(18, 5), 9);
  EXPECT_EQ(rows(56, 5), 8);
  EXPECT_EQ(rows(40, 5), 8);
  EXPECT_EQ(rows(36, 3), 9);
  EXPECT_EQ(rows(56, 3), 8);
  // 10 only in blocks of one column tile and up to 4 warps (168
  // registers): 2 groups of 64 columns, the score's 4 x 2 warps as 2 x 2
  // (two column tiles), keep 7.
  Conv2dGw8Problem twoGroups = as(layer(64, 16, 20, 5, 2), ConvPass::Wgrad);
  twoGroups.w = 64;
  expectChosen(twoGroups, 2, 2, 7);
  // The score's 2 x 4 warps (4 groups) become 1 x 4, as its 1 x 8 do.
  expectChosen(as(layer(64, 32, 20, 5, 2), ConvPass::Wgrad), 1, 4, 10);
  expectChosen(as(layer(128, 288, 32, 5, 2), ConvPass::Wgrad), 1, 4, 8);
}

TEST(Conv2dGw8, StridedWgradBandsFitTwoBlocks) {
  // Stride-2 3x3 in 8-warp blocks of one column tile: 4-row bands stage 9
  // rows of x, which fit a multiprocessor once; 3 rows (7 staged) fit
  // twice. Blocks of 2 x 4 warps fit twice as 4 rows; kernels of more
  // rows keep 4.
  auto config = [](int64_t n, int64_t c, int64_t hw, int64_t r) {
    Conv2dGw8Problem p = layer(n, c, hw, 3, 1);
    p.r = r;
    p.padH = r / 2;
    p.stride = 2;
    p.pass = ConvPass::Wgrad;
    return conv2dGw8RuleConfig(p);
  };
  Conv2dGw8Config wide = config(128, 192, 72, 3);
  EXPECT_EQ(wide.warpsQ, 1);
  EXPECT_EQ(wide.warpsG, 8);
  EXPECT_EQ(wide.rowsP, 3);
  EXPECT_EQ(config(32, 768, 28, 3).rowsP, 3);
  Conv2dGw8Config narrow = config(256, 32, 112, 3);
  EXPECT_EQ(narrow.warpsQ, 2);
  EXPECT_EQ(narrow.rowsP, 4);
  EXPECT_EQ(config(64, 128, 64, 5).rowsP, 4);
}

/// The images the configuration lays side by side in a row (the model's
/// feature of that name).
static double imagesSideBySide(const Conv2dGw8Problem &p, const Conv2dGw8Config &c) {
  const std::vector<std::string> &names = conv2dGw8FeatureNames();
  size_t images = std::find(names.begin(), names.end(), "images") - names.begin();
  EXPECT_LT(images, names.size());
  return images < names.size() ? conv2dGw8Features(p, c)[images] : 0.0;
}

TEST(Conv2dGw8, StridedPassesLayNarrowImagesSideBySide) {
  // Stride 2 on 5x5 images: 3 output columns, an image's 7 padded input
  // columns in 4 staged ones, so 4 images fill 15 of 16 columns (fprop
  // and wgrad); stride-2 dgrad stages dy upsampled and keeps one image.
  Conv2dGw8Problem p = layer(64, 960, 5, 3, 1);
  p.stride = 2;
  Conv2dGw8Config oneWarp;
  oneWarp.warpsQ = 1;
  oneWarp.warpsG = 8;
  oneWarp.rowsP = 3;
  EXPECT_EQ(imagesSideBySide(as(p, ConvPass::Fprop, 2), oneWarp), 4.0);
  EXPECT_EQ(imagesSideBySide(as(p, ConvPass::Wgrad, 2), oneWarp), 4.0);
  EXPECT_EQ(imagesSideBySide(as(p, ConvPass::Dgrad, 2), oneWarp), 1.0);
  // 56x56: 28 columns a tile of 32 already holds; nothing to gain.
  EXPECT_EQ(imagesSideBySide(as(layer(64, 960, 56, 3, 1), ConvPass::Fprop, 2), oneWarp), 1.0);
}

TEST(Conv2dGw8, StridedFpropTakesTheTallestBlockThatFits) {
  // Stride-2 5x5 fprop on 28x28 in 8-warp blocks: the whole image's 14
  // output rows in one block, which rings 13 of the 31 rows of x they read,
  // two images of 14 columns side by side in 2 x 4 warps; 32x32's 16 rows
  // fit as a ring of staged rows too.
  Conv2dGw8Problem pair = as(layer(32, 768, 28, 5, 2), ConvPass::Fprop, 2);
  expectChosen(pair, 2, 4, 14);
  EXPECT_EQ(imagesSideBySide(pair, conv2dGw8RuleConfig(pair)), 2.0);
  expectChosen(as(layer(32, 768, 32, 5, 2), ConvPass::Fprop, 2), 1, 8, 16);
  // 3x3 on 224x224 C24 in 7 x 3 warps: 16 rows ring 11 staged rows just
  // over the 144 KB budget of other kernels; under it, 4 rows.
  expectChosen(as(layer(32, 24, 224, 3, 1), ConvPass::Fprop, 2), 7, 3, 16);
}

TEST(Conv2dGw8, StridedRowPairedWgradTakesTwoRowsWhereFourFitOnce) {
  // Stride-2 5x5: 4-row bands stage 11 rows of x, which fit a
  // multiprocessor once in blocks of 1 x 8 and 2 x 4 warps; 2 rows (7
  // staged) fit twice. Blocks of 4 warps fit twice as 4 rows.
  auto config = [](int64_t n, int64_t c, int64_t hw) {
    Conv2dGw8Problem p = layer(n, c, hw, 5, 2);
    p.stride = 2;
    p.pass = ConvPass::Wgrad;
    return conv2dGw8RuleConfig(p);
  };
  Conv2dGw8Config wide = config(32, 768, 28);
  EXPECT_EQ(wide.warpsQ, 1);
  EXPECT_EQ(wide.warpsG, 8);
  EXPECT_EQ(wide.rowsP, 2);
  Conv2dGw8Config split = config(128, 288, 36);
  EXPECT_EQ(split.warpsQ, 2);
  EXPECT_EQ(split.warpsG, 4);
  EXPECT_EQ(split.rowsP, 2);
  Conv2dGw8Config quarter = config(320, 160, 28);
  EXPECT_EQ(quarter.warpsQ * quarter.warpsG, 4);
  EXPECT_EQ(quarter.rowsP, 4);
}

TEST(Conv2dGw8, BandsPastTheGridsYLimitLoopInBlocks) {
  // 70000 images of 112 rows in 16-row blocks are 490000 bands; a grid
  // holds 65535 along y, so blocks take 8 bands each (a band ring). Left
  // at one band a block, the configuration is refused with the reason.
  for (ConvPass pass : {ConvPass::Fprop, ConvPass::Dgrad}) {
    Conv2dGw8Problem p = layer(70000, 16, 112, 3, 1);
    p.pass = pass;
    Conv2dGw8Config c = conv2dGw8RuleConfig(p);
    EXPECT_EQ(c.chunks, 65535);
    EXPECT_EQ(checkConv2dGw8(p, c), "");
    EXPECT_LE(conv2dGw8LaunchShape(p, c).gridY, 65535);
    c.chunks = 0;
    EXPECT_NE(checkConv2dGw8(p, c).find("blocks along y, over CUDA's 65535"), std::string::npos);
  }
  // 5x5 kernels' two staged tiles still fit (300000 images, 8 gapless
  // in a row: 75000 bands); 9000 images (63000 bands) keep one band a
  // block.
  Conv2dGw8Problem heavy = layer(300000, 80, 56, 5, 2);
  Conv2dGw8Config ringed = conv2dGw8RuleConfig(heavy);
  EXPECT_EQ(ringed.chunks, 65535);
  EXPECT_EQ(checkConv2dGw8(heavy, ringed), "");
  EXPECT_EQ(conv2dGw8RuleConfig(layer(9000, 16, 112, 3, 1)).chunks, 0);
  // Stride-2 7x7 fprop's 14-row blocks (the tallest that fit one) would
  // not fit twice: 7 rows.
  Conv2dGw8Problem strided = layer(300000, 64, 112, 7, 3);
  strided.stride = 2;
  strided.n = 8;
  EXPECT_EQ(conv2dGw8RuleConfig(strided).rowsP, 28);
  strided.n = 300000;
  Conv2dGw8Config shorter = conv2dGw8RuleConfig(strided);
  EXPECT_EQ(shorter.rowsP, 7);
  EXPECT_EQ(shorter.chunks, 65535);
  EXPECT_EQ(checkConv2dGw8(strided, shorter), "");
}

TEST(Conv2dGw8, WgradPairsTheLastTapsRowsOfWideKernels) {
  // 5x5: taps (0, 1) and (2, 3) of each row, tap 4 of rows (0, 1) and (2,
  // 3) from the row view, and of row 4 with its padding tap: 13 sums, 13
  // mma a row of dy (conv2d-gw8-tiling.test). Blocks of 4 warps, not the 8
  // of the group tile's score: three fit, and the hint holds them to 168
  // registers.
  Conv2dGw8Problem p = layer(32, 64, 32, 5, 2);
  p.pass = ConvPass::Wgrad;
  Conv2dGw8Config c = conv2dGw8RuleConfig(p);
  EXPECT_EQ(c.rowsP, 8);
  EXPECT_EQ(c.warpsQ, 1);
  EXPECT_EQ(c.warpsG, 4);
  // The grid aims for three blocks on each of 132 multiprocessors: 2 group
  // tiles of 4 groups want 198 chunks of the 32 x 4 x 2 bands, which take
  // 2 bands each: 128 chunks.
  EXPECT_EQ(conv2dGw8LaunchShape(p, c).gridY, 128);
  // 7x7 (25 sums, 100 registers) keeps blocks of 8 warps, one a
  // multiprocessor (held to one, not two at 128 registers, where its sums
  // spilled), so 36 rows take bands of 9; 5x5 in blocks of 4 warps keeps 9
  // rows (three fit); 9 rows of 7x7 keep 9.
  Conv2dGw8Problem tall = layer(8, 288, 36, 7, 3), tall5 = layer(8, 288, 36, 5, 2);
  Conv2dGw8Problem nine = layer(8, 1392, 9, 7, 3);
  tall.pass = tall5.pass = nine.pass = ConvPass::Wgrad;
  EXPECT_EQ(conv2dGw8RuleConfig(nine).rowsP, 9);
  EXPECT_EQ(conv2dGw8RuleConfig(tall).warpsG, 8);
  EXPECT_EQ(conv2dGw8RuleConfig(tall).rowsP, 9);
  EXPECT_EQ(conv2dGw8RuleConfig(tall5).warpsG, 4);
  EXPECT_EQ(conv2dGw8RuleConfig(tall5).rowsP, 9);
  // Stride 2 keeps blocks of 8 warps (4 ran slower).
  Conv2dGw8Problem strided = layer(8, 64, 28, 5, 2);
  strided.pass = ConvPass::Wgrad;
  strided.stride = 2;
  EXPECT_EQ(conv2dGw8RuleConfig(strided).warpsG, 8);
}

TEST(Conv2dGw8, ConfigsOverSharedMemoryAreRefused) {
  // Stride-2 wgrad, 16 rows of 4 x 2 warps: 33 staged rows of 72 column
  // pairs, twice: over the 227 KB of a block. 8 rows fit.
  Conv2dGw8Problem p = layer(2, 32, 21, 3, 1);
  p.w = 20;
  p.stride = 2;
  p.pass = ConvPass::Wgrad;
  Conv2dGw8Config c;
  c.warpsQ = 4;
  c.warpsG = 2;
  c.rowsP = 16;
  EXPECT_NE(checkConv2dGw8(p, c).find("bytes of shared memory"), std::string::npos);
  c.rowsP = 8;
  EXPECT_EQ(checkConv2dGw8(p, c), "");
  // fprop's rows: 64 rows of a band ring of 8 groups stage 66 rows twice.
  Conv2dGw8Problem f = layer(2, 64, 64, 3, 1);
  Conv2dGw8Config tall = conv2dGw8RuleConfig(f);
  EXPECT_EQ(checkConv2dGw8(f, tall), "");
  tall.rowsP = 64;
  tall.chunks = 1;
  EXPECT_NE(checkConv2dGw8(f, tall).find("take fewer rows or warps"), std::string::npos);
}

// On a target whose blocks take less shared memory than Hopper's 227 KB
// (sm_86 and sm_89: 99 KB a block, 100 KB an SM), every pass's chosen
// blocks fit it: shorter blocks and two wgrad stages where the rules tuned
// on Hopper would not (128 x 64 x 64^2 3x3 and 8 x 512 x 28^2 7x7 took
// 110 to 144 KB).
TEST(Conv2dGw8, ChosenBlocksFitTheTargetsSharedMemory) {
  for (Conv2dGw8Problem p :
       {layer(128, 64, 64, 3, 1), layer(32, 256, 56, 5, 2), layer(8, 512, 28, 7, 3),
        layer(16, 96, 7, 3, 1), layer(64, 128, 112, 3, 1)})
    for (int64_t stride : {1, 2})
      for (ConvPass pass : {ConvPass::Fprop, ConvPass::Dgrad, ConvPass::Wgrad}) {
        Conv2dGw8Problem q = as(p, pass, stride);
        q.target.sharedBytesPerBlock = spio::sharedMemoryOf("sm_86").perBlock;
        q.target.sharedBytesPerMultiprocessor = spio::sharedMemoryOf("sm_86").perMultiprocessor;
        if (!checkConv2dGw8Problem(q).empty())
          continue;
        Conv2dGw8Config c = conv2dGw8RuleConfig(q);
        EXPECT_EQ(checkConv2dGw8(q, c), "")
            << q.c << " channels " << q.h << "^2 " << q.r << "x" << q.s << " stride " << stride;
      }
  Conv2dGw8Problem none = layer(1, 64, 8, 3, 1);
  none.target.sharedBytesPerBlock = 0;
  EXPECT_NE(checkConv2dGw8Problem(none).find("shared memory must be positive"), std::string::npos);
}

TEST(Conv2dGw8, WgradFlattensNarrowImages) {
  // 10x10 images: one band is a whole image of 10 rows of 16 staged
  // columns (10 + 1, a row's right padding the next row's left, rounded up
  // to whole 8-pixel steps), 160 pixels in 20 steps, where rows of 16-pixel
  // fragments would take 2 bands of 8 rows x 16.
  Conv2dGw8Problem p = layer(64, 1632, 10, 3, 1);
  p.pass = ConvPass::Wgrad;
  Conv2dGw8Config c = conv2dGw8RuleConfig(p);
  EXPECT_EQ(checkConv2dGw8(p, c), "");
  EXPECT_EQ(c.warpsQ, 1);
  EXPECT_EQ(c.warpsG, 8);
  EXPECT_EQ(c.rowsP, 10);
  // 26 group tiles take at most 264 / 26 = 10 chunks of the 64 bands (no
  // block past one wave of two a multiprocessor): 7 bands each.
  EXPECT_EQ(conv2dGw8LaunchShape(p, c).gridY, 10);
  EXPECT_EQ(conv2dGw8WgradAccumulationChain(p, c), 7 * 20 + 10);
  // Its staged tiles, steps and which images flatten: conv2d-gw8-tiling.test.
}

TEST(Conv2dGw8, CopyWarpsAreForStrideOneRowsOfFragments) {
  Conv2dGw8Problem p = layer(32, 160, 28, 5, 2);
  Conv2dGw8Config c = conv2dGw8RuleConfig(p);
  c.copyWarps = 2;
  c.chunks = 4;
  EXPECT_EQ(checkConv2dGw8(p, c), "");
  EXPECT_EQ(c.threads(), 32 * (c.computeWarps() + 2));
  c.copyWarps = 5;
  EXPECT_EQ(checkConv2dGw8(p, c), "at most 4 copy warps");
  c.copyWarps = -1;
  EXPECT_EQ(checkConv2dGw8(p, c), "bad warp, row or chunk counts");
  c.copyWarps = 1;
  EXPECT_EQ(checkConv2dGw8(as(p, ConvPass::Fprop, 2), c),
            "copy warps are for fprop and dgrad on rows of fragments, stride 1");
  EXPECT_EQ(checkConv2dGw8(as(p, ConvPass::Wgrad), c),
            "copy warps are for fprop and dgrad on rows of fragments, stride 1");
  EXPECT_EQ(checkConv2dGw8(layer(1, 32, 7, 3, 1), c),
            "copy warps are for fprop and dgrad on rows of fragments, stride 1");
}

TEST(Conv2dGw8, WgradAutotuneCandidatesKeepTheChosenBlocks) {
  auto describe = [](const Conv2dGw8Config &c) {
    return std::to_string(c.warpsQ) + "x" + std::to_string(c.warpsG) + " rows " +
           std::to_string(c.rowsP) + " chunks " + std::to_string(c.chunks) + " stages " +
           std::to_string(c.stages) + (c.rowRing ? " ring" : "") + " reduce " +
           std::to_string(c.reduceLaneElements);
  };
  auto names = [&](const std::vector<Conv2dGw8Config> &candidates) {
    std::vector<std::string> out;
    for (const Conv2dGw8Config &c : candidates)
      out.push_back(describe(c));
    return out;
  };
  // 72x72 C192 3x3 (5 column tiles: no ring; one block a multiprocessor,
  // 3 stages): the chosen, then its 44 chunks in 2 stages, and the reduce
  // at 2 and 4 lanes, each naming the chosen chunks, stages and lanes.
  // Every one's partial sums are the chosen's blocks.
  Conv2dGw8Problem wide = as(layer(128, 192, 72, 3, 1), ConvPass::Wgrad);
  std::vector<Conv2dGw8Config> candidates = conv2dGw8RuleCandidates(wide);
  EXPECT_EQ(names(candidates),
            (std::vector<std::string>{"1x8 rows 8 chunks 0 stages 0 reduce 0",
                                      "1x8 rows 8 chunks 44 stages 2 reduce 1",
                                      "1x8 rows 8 chunks 44 stages 3 reduce 2",
                                      "1x8 rows 8 chunks 44 stages 3 reduce 4"}));
  for (const Conv2dGw8Config &c : candidates) {
    EXPECT_EQ(checkConv2dGw8(wide, c), "") << describe(c);
    EXPECT_EQ(conv2dGw8WgradPartials(wide, c), 44) << describe(c);
    EXPECT_EQ(conv2dGw8LaunchShape(wide, c).gridX, conv2dGw8LaunchShape(wide, candidates[0]).gridX);
  }
  EXPECT_EQ(conv2dGw8RuleCandidates(wide, 2).size(), 2u);
  // 14x14 C320 5x5: one column tile, so the ring (the chooser's: two bands
  // a column tile) is toggled too; the reduce's default there is 4 lanes.
  std::vector<std::string> ringed =
      names(conv2dGw8RuleCandidates(as(layer(320, 320, 14, 5, 2), ConvPass::Wgrad)));
  EXPECT_EQ(ringed, (std::vector<std::string>{"1x4 rows 7 chunks 0 stages 0 ring reduce 0",
                                              "1x4 rows 7 chunks 38 stages 3 ring reduce 4",
                                              "1x4 rows 7 chunks 38 stages 2 reduce 4",
                                              "1x4 rows 7 chunks 38 stages 2 ring reduce 1",
                                              "1x4 rows 7 chunks 38 stages 2 ring reduce 2"}));
  // Partial sums added in a cluster: no reduce kernel, so no lanes to vary.
  Conv2dGw8Problem cluster = as(layer(32, 1824, 14, 3, 1), ConvPass::Wgrad);
  cluster.wgradClusterReduce = true;
  for (const Conv2dGw8Config &c : conv2dGw8RuleCandidates(cluster))
    EXPECT_EQ(c.reduceLaneElements, 0) << describe(c);
}

TEST(Conv2dGw8, AutotuneCandidatesAreTheChosenAndItsNeighbours) {
  auto warps = [](const Conv2dGw8Config &c) {
    return std::to_string(c.warpsQ) + "x" + std::to_string(c.warpsG) + " rows " +
           std::to_string(c.rowsP) + (c.chunks ? " chunks " + std::to_string(c.chunks) : "") +
           (c.copyWarps ? " copy " + std::to_string(c.copyWarps) : "");
  };
  auto names = [&](const std::vector<Conv2dGw8Config> &candidates) {
    std::vector<std::string> out;
    for (const Conv2dGw8Config &c : candidates)
      out.push_back(warps(c));
    return out;
  };
  // 72x72 C192: the chosen 2 x 8 warps in 12 rows first, then as a band
  // ring in 14 and 29 blocks along the bands (1 block of the ring, or 2 of
  // one band a block, a multiprocessor, times 132 over 9 tiles along x),
  // with two copy warps streaming the bands in 29 blocks (3x3: not in
  // four times as many), then 6 and 24 rows, one 80-column tile (4
  // groups: 8 would be 40 warps), a warp more or fewer along Q (3 x 8
  // and 1 x 8, in the rows the chooser gives them), and the 16 warps over
  // 4 groups.
  Conv2dGw8Problem wide = layer(128, 192, 72, 3, 1);
  std::vector<Conv2dGw8Config> candidates = conv2dGw8RuleCandidates(wide);
  EXPECT_EQ(names(candidates),
            (std::vector<std::string>{"2x8 rows 12", "2x8 rows 12 chunks 14",
                                      "2x8 rows 12 chunks 29", "2x8 rows 12 chunks 29 copy 2",
                                      "2x8 rows 6", "2x8 rows 24",
                                      "5x4 rows 12",
                                      "3x8 rows 12", "1x8 rows 24", "4x4 rows 12"}));
  for (const Conv2dGw8Config &c : candidates)
    EXPECT_EQ(checkConv2dGw8(wide, c), "") << warps(c);
  EXPECT_EQ(conv2dGw8RuleCandidates(wide, 3).size(), 3u);
  // 5x5 (compute heavy): blocks of at most 8 warps. One 16x16 image (no
  // others to lay beside it): no warp along Q past its 16 columns.
  for (const Conv2dGw8Config &c : conv2dGw8RuleCandidates(layer(320, 160, 28, 5, 2)))
    EXPECT_LE(c.warpsQ * c.warpsG, 8) << warps(c);
  // One band a block: no copy warps (nothing to stream).
  std::vector<Conv2dGw8Config> narrow = conv2dGw8RuleCandidates(layer(1, 720, 16, 5, 2));
  EXPECT_EQ(names(narrow), (std::vector<std::string>{"1x8 rows 16", "1x8 rows 8"}));
  // 5x5 stride 1: the chosen warps and rows with two copy warps, in as
  // many blocks as run at once (2 a multiprocessor, 264 over 35 tiles
  // along x: 7 column tiles of 8 gapless images by 5 group tiles) and in
  // four times as many.
  std::vector<std::string> streamed = names(conv2dGw8RuleCandidates(layer(320, 160, 28, 5, 2)));
  EXPECT_NE(std::find(streamed.begin(), streamed.end(), "2x4 rows 28 chunks 7 copy 2"),
            streamed.end());
  EXPECT_NE(std::find(streamed.begin(), streamed.end(), "2x4 rows 28 chunks 28 copy 2"),
            streamed.end());
  // Not for stride 2.
  for (const Conv2dGw8Config &c :
       conv2dGw8RuleCandidates(as(layer(320, 160, 28, 5, 2), ConvPass::Fprop, 2)))
    EXPECT_EQ(c.copyWarps, 0) << warps(c);
  // 5x5 on 16x16 images in blocks of 8 groups: the chooser takes the band
  // ring (one of its blocks a multiprocessor: 11 blocks along the 128
  // bands for each of 12 group tiles, 132 in all), so its first neighbour
  // is one band a block, which says so in its chunks, as the others do.
  std::vector<Conv2dGw8Config> ringed = conv2dGw8RuleCandidates(layer(128, 720, 16, 5, 2));
  ASSERT_GE(ringed.size(), 3u);
  EXPECT_EQ(warps(ringed[0]), "1x8 rows 16 chunks 11");
  EXPECT_EQ(warps(ringed[1]), "1x8 rows 16 chunks 128");
  for (const Conv2dGw8Config &c : std::vector<Conv2dGw8Config>(ringed.begin() + 1, ringed.end()))
    EXPECT_GT(c.chunks, 0) << warps(c);
  // Blocks of 2 groups, and rings that would fill too few of the blocks
  // the multiprocessors hold (20x20 C960 N32: 90 tiles, 1 a
  // multiprocessor), keep one band a block. N64 lays 8 images gaplessly
  // in 5 column tiles: 150 tiles, a ring of one chunk each.
  EXPECT_EQ(conv2dGw8RuleConfig(layer(128, 576, 18, 5, 2)).chunks, 0);
  EXPECT_EQ(conv2dGw8RuleConfig(layer(32, 960, 20, 5, 2)).chunks, 0);
  EXPECT_EQ(conv2dGw8RuleConfig(layer(64, 960, 20, 5, 2)).chunks, 1);
  // Every ring the chooser takes fits (its two staged tiles): fprop and
  // dgrad over image sizes, channels and batches that take it.
  int64_t rings = 0;
  for (ConvPass pass : {ConvPass::Fprop, ConvPass::Dgrad})
    for (int64_t hw = 5; hw <= 20; ++hw)
      for (int64_t c = 64; c <= 4096; c *= 2)
        for (int64_t n : {32, 96, 256, 1024}) {
          Conv2dGw8Problem p = as(layer(n, c + 32, hw, 5, 2), pass);
          Conv2dGw8Config chosen = conv2dGw8RuleConfig(p);
          rings += chosen.chunks > 0;
          EXPECT_EQ(checkConv2dGw8(p, chosen), "") << n << " " << c + 32 << " " << hw;
        }
  EXPECT_GT(rings, 50);
  // Flattened rows (one small image) and problems the check refuses: the
  // chosen alone.
  EXPECT_EQ(conv2dGw8RuleCandidates(layer(1, 32, 7, 3, 1)).size(), 1u);
  EXPECT_EQ(conv2dGw8RuleCandidates(layer(1, 30, 7, 3, 1)).size(), 1u);
  // dgrad and stride 2 have neighbours too.
  EXPECT_GT(conv2dGw8RuleCandidates(as(wide, ConvPass::Dgrad, 2)).size(), 1u);
  EXPECT_GT(conv2dGw8RuleCandidates(as(wide, ConvPass::Fprop, 2)).size(), 1u);
}

// As spio-jit, the C API and Python do: choose (the performance model, or
// the rules where it does not know the target) for a layer the family
// takes, then check. Over many random layers of every pass, group width,
// kernel, padding, stride and size, no chosen configuration is refused, and
// each launch plan fits CUDA's limits.
TEST(Conv2dGw8, EveryChosenConfigurationPassesTheChecks) {
  std::mt19937_64 rng(20261130);
  auto pick = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  int checked = 0;
  for (int i = 0; i < 1500; ++i) {
    Conv2dGw8Problem p;
    p.target = i % 2 ? hopper() : hopperWith(114);
    p.pass = std::array<ConvPass, 3>{ConvPass::Fprop, ConvPass::Dgrad, ConvPass::Wgrad}[pick(0, 2)];
    p.n = std::array<int64_t, 4>{1, 2, 8, 32}[pick(0, 3)];
    p.c = 8 * pick(1, 96);
    p.h = pick(1, 128);
    p.w = pick(0, 1) ? p.h : pick(1, 128);
    p.r = pick(1, 7);
    p.s = pick(0, 1) ? p.r : pick(1, 7);
    p.padH = pick(0, p.r - 1);
    p.padW = pick(0, p.s - 1);
    p.stride = pick(1, 2);
    p.groupWidth = std::array<int64_t, 4>{1, 2, 4, 8}[pick(0, 3)];
    p.bias = p.pass == ConvPass::Fprop && pick(0, 1);
    p.dtype = pick(0, 1) ? DType::F16 : DType::BF16;
    p.wgradF32 = p.pass == ConvPass::Wgrad && pick(0, 1);
    if (!checkConv2dGw8Problem(p).empty())
      continue;
    Conv2dGw8Config c = chooseConv2dGw8Config(p);
    SCOPED_TRACE("pass " + std::to_string(int(p.pass)) + " N" + std::to_string(p.n) + " C" +
                 std::to_string(p.c) + " gw" + std::to_string(p.groupWidth) + " " +
                 std::to_string(p.h) + "x" + std::to_string(p.w) + " " + std::to_string(p.r) + "x" +
                 std::to_string(p.s) + " pad " + std::to_string(p.padH) + "," +
                 std::to_string(p.padW) + " stride " + std::to_string(p.stride));
    std::string refused = checkConv2dGw8(p, c);
    EXPECT_EQ(refused, "");
    if (refused.empty())
      expectPlanFitsCuda(conv2dGw8LaunchPlan(p, c));
    ++checked;
  }
  EXPECT_GT(checked, 1000);
}

} // namespace
