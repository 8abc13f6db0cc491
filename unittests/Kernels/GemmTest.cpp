//===- GemmTest.cpp - The GEMM family's rules and configuration -----------===//

#include "spio/Kernels/Gemm.h"
#include "PlanChecks.h"
#include "Targets.h"
#include "spio/Kernels/LaunchPlan.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <random>
#include <set>
#include <tuple>

using namespace spio::kernels;

namespace {

GemmProblem problem(int64_t m, int64_t n, int64_t k) {
  GemmProblem p;
  p.m = m;
  p.n = n;
  p.k = k;
  return p;
}

TEST(GemmCheck, AcceptsRaggedShapesWithAlignedContiguousDimensions) {
  EXPECT_EQ(checkGemm(problem(4097, 4095, 4096), GemmConfig(), hopper()), "");
  EXPECT_EQ(checkGemm(problem(1, 1, 8), GemmConfig(), hopper()), "");
}

TEST(GemmPacking, PacksUnalignedContiguousDimensionsOfEachLayout) {
  GemmProblem p = problem(64, 64, 1001);
  EXPECT_TRUE(gemmPacksOperands(p));
  GemmProblem q = gemmPackedProblem(p);
  // K-major bf16 operands, K padded with zeros to a multiple of 8.
  EXPECT_EQ(q.k, 1008);
  EXPECT_EQ(q.input, DType::BF16);
  EXPECT_FALSE(gemmPacksOperands(q));
  EXPECT_EQ(checkGemm(p, GemmConfig(), hopper()), "");
  p = problem(100, 64, 64);
  p.a = Layout::ColMajor;
  EXPECT_TRUE(gemmPacksOperands(p));
  q = gemmPackedProblem(p);
  EXPECT_EQ(q.a, Layout::RowMajor);
  EXPECT_EQ(q.k, 64);
  EXPECT_TRUE(wgmmaSupports(p));
  p = problem(64, 100, 64);
  p.b = Layout::RowMajor;
  EXPECT_TRUE(gemmPacksOperands(p));
  // B column major (N x K) only needs K aligned.
  p.b = Layout::ColMajor;
  EXPECT_FALSE(gemmPacksOperands(p));
  EXPECT_EQ(gemmWorkspaceBytes(p, GemmConfig()), 0);
}

TEST(GemmPacking, SplitsF32IntoTheTermsOfItsPrecision) {
  GemmProblem p = problem(100, 60, 20);
  p.input = DType::F32;
  p.output = DType::F32;
  EXPECT_TRUE(gemmPacksOperands(p));
  EXPECT_EQ(checkGemm(p, GemmConfig(), hopper()), "");
  // Highest: hi*hi, hi*mid, mid*hi, hi*lo, mid*mid, lo*hi.
  EXPECT_EQ(gemmPackTerms(p), 3);
  EXPECT_EQ(gemmPackSegments(p), 6);
  std::vector<std::pair<int64_t, int64_t>> pairs;
  for (int64_t s = 0; s < gemmPackSegments(p); ++s)
    pairs.push_back({gemmPackTerm(p, 'a', s), gemmPackTerm(p, 'b', s)});
  EXPECT_EQ(pairs, (std::vector<std::pair<int64_t, int64_t>>{
                       {0, 0}, {0, 1}, {1, 0}, {0, 2}, {1, 1}, {2, 0}}));
  EXPECT_EQ(gemmPackedProblem(p).k, 6 * 24);
  // A's 100 rows and B's 60 of 144 bf16, each rounded up to 256 bytes.
  EXPECT_EQ(gemmPackedBytes(p, 'a'), 28928);
  EXPECT_EQ(gemmPackedOffset(p, 'b'), 28928);
  EXPECT_EQ(gemmWorkspaceBytes(p, GemmConfig()), 28928 + 17408);
  p.precision = F32Precision::High;
  EXPECT_EQ(gemmPackTerms(p), 2);
  EXPECT_EQ(gemmPackSegments(p), 3);
  p.precision = F32Precision::Medium;
  EXPECT_EQ(gemmPackTerms(p), 1);
  EXPECT_EQ(gemmPackSegments(p), 1);
  p.precision = F32Precision(7);
  EXPECT_NE(checkGemm(p, GemmConfig(), hopper()).find("highest, high, medium or tf32"),
            std::string::npos);
  // Six segments of K outgrow a tensor the unpacked operands fit.
  p = problem(1 << 20, 64, 1 << 19);
  p.input = DType::F32;
  EXPECT_NE(checkGemm(p, GemmConfig(), hopper()).find("packed into 6 segments of K are over"),
            std::string::npos);
}

TEST(GemmPacking, Tf32ReadsKMajorF32InPlaceAndPacksTheRest) {
  GemmProblem p = problem(1000, 600, 1000);
  p.input = p.output = DType::F32;
  p.precision = F32Precision::Tf32;
  // K-major rows of 16-byte multiples: read as they are, 32 a k-tile.
  EXPECT_FALSE(gemmPacksOperands(p));
  EXPECT_TRUE(wgmmaSupports(p));
  GemmConfig c = chooseWgmmaGemmConfig(p, hopper());
  EXPECT_EQ(c.blockK, 32);
  EXPECT_FALSE(c.promote);
  EXPECT_EQ(checkGemm(p, c, hopper()), "");
  EXPECT_EQ(gemmTensorMapShape(p, c, 'a').element, spio::runtime::TensorMapShape::Element::Tf32);
  EXPECT_EQ(gemmTensorMapShape(p, c, 'a').cols, 1000u);
  c.blockK = 64;
  EXPECT_NE(checkGemm(p, c, hopper()).find("32 of f32, got 64"), std::string::npos);
  // Only wgmma multiplies TF32.
  EXPECT_NE(checkGemm(p, chooseGemmConfig(p, hopper()), hopper()).find("precision high"),
            std::string::npos);
  // An M-major A is packed K-major, its values kept in f32; B stays.
  p.a = Layout::ColMajor;
  EXPECT_TRUE(gemmPacksOperand(p, 'a'));
  EXPECT_FALSE(gemmPacksOperand(p, 'b'));
  GemmProblem q = gemmPackedProblem(p);
  EXPECT_EQ(q.input, DType::F32);
  EXPECT_EQ(q.a, Layout::RowMajor);
  EXPECT_EQ(q.k, 1000);
  EXPECT_EQ(gemmPackTerms(p), 1);
  EXPECT_EQ(gemmPackSegments(p), 1);
  EXPECT_EQ(gemmPackedBytes(p, 'a'), 1000 * 1000 * 4);
  // Transposed through shared memory, a block a tile of 64 rows by 8
  // vectors: 16 x 32 tiles of 1000 rows x 250 vectors.
  EXPECT_EQ(gemmPackLaunchShape(p, 'a').gridX, 16 * 32);
  // K not a multiple of 4: both packed, K padded to 1004.
  p = problem(300, 200, 1003);
  p.input = DType::F32;
  p.precision = F32Precision::Tf32;
  EXPECT_TRUE(gemmPacksOperand(p, 'a'));
  EXPECT_TRUE(gemmPacksOperand(p, 'b'));
  EXPECT_EQ(gemmPackedProblem(p).k, 1004);
  EXPECT_EQ(checkGemm(p, chooseWgmmaGemmConfig(p, hopper()), hopper()), "");
  // No grouped TF32.
  p = problem(1000, 512, 256);
  p.input = DType::F32;
  p.precision = F32Precision::Tf32;
  p.groups = 4;
  EXPECT_NE(checkGemm(p, chooseWgmmaGemmConfig(p, hopper()), hopper()).find("f16 or bf16"),
            std::string::npos);
}

TEST(GemmPacking, PacksEachOperandOnceForABatchThatSharesIt) {
  GemmProblem p = problem(30, 40, 50);
  p.input = DType::F32;
  p.batch = 4;
  p.batchB = false;
  EXPECT_EQ(gemmPackLaunchShape(p, 'a').gridZ, 4);
  EXPECT_EQ(gemmPackLaunchShape(p, 'b').gridZ, 1);
  // A thread a 16-byte vector of the first segment: 30 rows x 7 vectors.
  EXPECT_EQ(gemmPackLaunchShape(p, 'a').gridX, 1);
  EXPECT_EQ(gemmPackedBytes(p, 'a'), (4 * 30 * 6 * 56 * 2 + 255) / 256 * 256);
}

TEST(GemmPacking, HighestPrecisionPromotesSumsOnTilesOf128Columns) {
  for (auto [m, n, k] : {std::tuple{8192, 8192, 8192}, std::tuple{2048, 3072, 768},
                         std::tuple{128, 4096, 4096}, std::tuple{5, 4096, 4096}}) {
    GemmProblem p = problem(m, n, k);
    p.input = p.output = DType::F32;
    GemmConfig c = chooseWgmmaGemmConfig(p, hopper());
    EXPECT_TRUE(c.promote);
    EXPECT_FALSE(c.pingpong);
    EXPECT_LE(c.wgmmaN(), 128);
    EXPECT_EQ(checkGemm(p, c, hopper()), "");
    p.precision = F32Precision::High;
    EXPECT_FALSE(chooseWgmmaGemmConfig(p, hopper()).promote);
  }
  GemmProblem p = problem(1024, 1024, 1024);
  GemmConfig c = chooseWgmmaGemmConfig(p, hopper());
  c.promote = true;
  c.pingpong = true;
  EXPECT_NE(checkGemm(p, c, hopper()).find("not ping-pong"), std::string::npos);
  c = GemmConfig();
  c.promote = true;
  EXPECT_NE(checkGemm(p, c, hopper()).find("promoting sums are for wgmma"), std::string::npos);
}

TEST(GemmGrouped, RunsOnAPersistentWgmmaGridOfItsGroupsTiles) {
  GemmProblem p = problem(8192, 4096, 4096);
  p.groups = 8;
  GemmConfig c = chooseWgmmaGemmConfig(p, hopper());
  EXPECT_EQ(c.persistent, 132);
  EXPECT_EQ(c.cluster, 1);
  EXPECT_FALSE(c.swapAB);
  EXPECT_EQ(c.splitK, 1);
  EXPECT_EQ(checkGemm(p, c, hopper()), "");
  EXPECT_EQ(gemmParameters(p, c).groups, 6);
  // B's tensor map holds a matrix a group.
  EXPECT_EQ(gemmTensorMapShape(p, c, 'b').rows, 8u * 4096u);
  EXPECT_EQ(gemmTensorMapShape(p, c, 'a').rows, 8192u);
  EXPECT_NE(checkGemm(p, GemmConfig(), hopper()).find("persistent wgmma grid"), std::string::npos);
  p.groups = -1;
  EXPECT_NE(checkGemm(p, c, hopper()).find("1 to 65535 groups"), std::string::npos);
  p.groups = 8;
  p.batch = 2;
  EXPECT_NE(checkGemm(p, c, hopper()).find("not batched too"), std::string::npos);
  // B's matrices, one a group, outgrow a tensor.
  p = problem(1024, 1 << 16, 1 << 16);
  p.groups = 512;
  EXPECT_NE(checkGemm(p, c, hopper()).find("groups of N=65536 K=65536 are over"),
            std::string::npos);
}

/// "MxNxK", naming a problem in a failure.
static std::string shapeOf(const GemmProblem &p) {
  return std::to_string(p.m) + "x" + std::to_string(p.n) + "x" + std::to_string(p.k);
}

TEST(GemmBatchInvariant, SplitsKTheSameWayForEveryM) {
  // Split in a cluster or summed in ranges in one block: the same ranges
  // whatever M, so the same bits for each row, whatever rule chooses for a
  // row count (swapped, 64-row tiles, pairs, persistent grids); never
  // stream-K.
  for (int64_t n : {256, 1000, 3000, 4096, 6144, 11008, 28672})
    for (int64_t k : {520, 1032, 2056, 4096, 14336}) {
      std::set<int64_t> splits;
      for (int64_t m : {1, 7, 8, 16, 33, 64, 65, 100, 128, 129, 256, 300, 512, 1000, 2048, 8192}) {
        GemmProblem p = problem(m, n, k);
        p.batchInvariant = true;
        GemmConfig c = chooseWgmmaGemmConfig(p, hopper());
        EXPECT_EQ(checkGemm(p, c, hopper()), "") << shapeOf(p);
        EXPECT_FALSE(c.streamK) << shapeOf(p);
        EXPECT_TRUE(c.splitK == 1 || c.kRanges == 1) << shapeOf(p);
        splits.insert(std::max(c.splitK, c.kRanges));
      }
      EXPECT_EQ(splits.size(), 1u) << n << "x" << k;
    }
  // f32 at the highest precision promotes each k-tile's sums: never split.
  for (int64_t m : {1, 128, 8192}) {
    GemmProblem p = problem(m, 4096, 4096);
    p.input = p.output = DType::F32;
    p.batchInvariant = true;
    GemmConfig c = chooseWgmmaGemmConfig(p, hopper());
    EXPECT_EQ(checkGemm(p, c, hopper()), "") << m;
    EXPECT_TRUE(c.promote && c.splitK == 1 && c.kRanges == 1) << m;
  }
}

TEST(GemmBatchInvariant, OneRowOfTilesRunsTheDefaultKernelWhereItsSplitIsTheInvariantOne) {
  // M of 65 to 128 over a long reduction: the swapped kernel the default
  // chooses (split as N and K alone say, for N = 4096) or unsplit 64 x 128
  // tiles, not 128 x 128 tiles under a round.
  for (auto [n, k] : {std::pair{4096, 4096}, std::pair{4096, 14336}, std::pair{6144, 4096},
                      std::pair{8192, 28672}})
    for (int64_t m : {100, 128}) {
      GemmProblem p = problem(m, n, k);
      GemmConfig chosen = chooseWgmmaGemmConfig(p, hopper());
      p.batchInvariant = true;
      GemmConfig invariant = chooseWgmmaGemmConfig(p, hopper());
      std::string shape = shapeOf(p);
      EXPECT_EQ(invariant.swapAB, chosen.swapAB) << shape;
      EXPECT_EQ(invariant.blockM, chosen.blockM) << shape;
      EXPECT_EQ(invariant.blockN, chosen.blockN) << shape;
      EXPECT_EQ(invariant.splitK, chosen.splitK) << shape;
      EXPECT_EQ(invariant.kRanges, 1) << shape;
    }
}

TEST(GemmBatchInvariant, RangesIn192ColumnTilesPairToShareB) {
  // Persistent blocks summing 2 ranges apart: 192-column tiles pair over a
  // short reduction (64 k-tiles), where 256-column tiles would write and
  // read back more of their sums against the bytes they load.
  GemmProblem p = problem(8192, 4096, 4096);
  p.batchInvariant = true;
  GemmConfig wide = chooseWgmmaGemmConfig(p, hopper());
  EXPECT_EQ(wide.kRanges, 2);
  EXPECT_EQ(wide.blockN, 192);
  EXPECT_EQ(wide.cluster, 2);
  EXPECT_FALSE(gemmSpillsRangeSums(wide));
  EXPECT_EQ(gemmWorkspaceBytes(p, wide), 0);
}

TEST(GemmBatchInvariant, WideRangesWaitInTheWorkspace) {
  // Over a long reduction the default's 256-column pairs, the first range's
  // sums in a slot a block of the workspace; under two rounds of 192-column
  // tiles too (one round of 128 x 256 at M = 1024).
  GemmProblem p = problem(2048, 4096, 14336);
  GemmConfig chosen = chooseWgmmaGemmConfig(p, hopper());
  p.batchInvariant = true;
  GemmConfig invariant = chooseWgmmaGemmConfig(p, hopper());
  EXPECT_EQ(invariant.blockN, chosen.blockN);
  EXPECT_EQ(invariant.cluster, chosen.cluster);
  EXPECT_EQ(invariant.blockN, 256);
  EXPECT_EQ(invariant.cluster, 2);
  EXPECT_EQ(invariant.kRanges, 2);
  EXPECT_EQ(invariant.persistent, 132);
  EXPECT_TRUE(gemmSpillsRangeSums(invariant));
  EXPECT_EQ(checkGemm(p, invariant, hopper()), "");
  EXPECT_EQ(gemmBlockSumsBytes(invariant), 132 * 128 * 256 * 4);
  EXPECT_EQ(gemmWorkspaceBytes(p, invariant), 132 * 128 * 256 * 4);
  GemmParameters at = gemmParameters(p, invariant);
  EXPECT_EQ(at.partials, -1);
  EXPECT_EQ(at.flags, -1);
  ASSERT_GE(at.rangeSums, 0);
  EXPECT_EQ(at.aMap, at.rangeSums + 1);
  LaunchPlan plan = gemmLaunchPlan(p, invariant);
  const PlannedKernel &kernel = plan.kernels.back();
  EXPECT_EQ(kernel.parameters[at.rangeSums].kind, PlanParameter::Kind::Workspace);
  EXPECT_EQ(kernel.parameters[at.rangeSums].offset, 0);
  EXPECT_EQ(kernel.zeroBytes, 0);
  p.m = 1024;
  p.k = 4096;
  GemmConfig oneRound = chooseWgmmaGemmConfig(p, hopper());
  EXPECT_EQ(oneRound.blockN, 256);
  EXPECT_EQ(oneRound.persistent, 132);
  EXPECT_TRUE(gemmSpillsRangeSums(oneRound));
  // A block a tile has no slot to keep them in.
  GemmConfig lone = oneRound;
  lone.persistent = 0;
  EXPECT_NE(checkGemm(p, lone, hopper()).find("a slot a block of a persistent grid"),
            std::string::npos);
}

TEST(GemmChooser, SwappedMMajorATilesAreWholeBoxesOf64) {
  // 112 rows of an M-major A, swapped: 128 (two boxes), not 112.
  GemmProblem p = problem(112, 8, 7770);
  p.a = Layout::ColMajor;
  p.b = Layout::RowMajor;
  GemmConfig c = chooseWgmmaGemmConfig(p, hopper());
  EXPECT_TRUE(c.swapAB);
  EXPECT_EQ(c.blockM, 128);
  EXPECT_EQ(checkGemm(p, c, hopper()), "");
}

TEST(GemmCheck, RejectsEmptyProblems) {
  EXPECT_NE(checkGemm(problem(0, 64, 64), GemmConfig(), hopper()).find("must be positive"),
            std::string::npos);
}

TEST(GemmEpilogue, StepsMatchTheirVectorsAndC) {
  GemmProblem p = problem(64, 64, 64);
  p.epilogue = {EpilogueStep::Bias, EpilogueStep::GeluTanh};
  EXPECT_NE(checkGemm(p, GemmConfig(), hopper()).find("needs a bias vector"), std::string::npos);
  p.bias = Along::Cols;
  EXPECT_EQ(checkGemm(p, GemmConfig(), hopper()), "");
  p.scale = Along::Rows;
  EXPECT_NE(checkGemm(p, GemmConfig(), hopper()).find("a scale vector needs a scale epilogue step"),
            std::string::npos);
  p.scale = Along::None;
  p.epilogue.push_back(EpilogueStep::GeluTanh);
  EXPECT_NE(checkGemm(p, GemmConfig(), hopper()).find("gelu_tanh appears twice"),
            std::string::npos);
  p.epilogue = {EpilogueStep::Bias, EpilogueStep::Residual};
  EXPECT_NE(checkGemm(p, GemmConfig(), hopper()).find("needs C"), std::string::npos);
  p.readsC = true;
  EXPECT_EQ(checkGemm(p, GemmConfig(), hopper()), "");
  p.epilogue = {EpilogueStep::Bias, EpilogueStep(42)};
  EXPECT_NE(checkGemm(p, GemmConfig(), hopper()).find("epilogue step 42 is not one of"),
            std::string::npos);
}

TEST(GemmEpilogue, WithoutStepsCIsAddedWhereRead) {
  GemmProblem p = problem(64, 64, 64);
  EXPECT_TRUE(epilogueSteps(p).empty());
  p.readsC = true;
  EXPECT_EQ(epilogueSteps(p), std::vector<EpilogueStep>{EpilogueStep::Residual});
}

TEST(GemmEpilogue, VectorsAreParametersAfterBetaBeforeTheTensorMaps) {
  GemmProblem p = problem(64, 64, 64);
  GemmConfig c;
  GemmParameters plain = gemmParameters(p, c);
  EXPECT_EQ(plain.count, 6);
  EXPECT_EQ(plain.bias, -1);
  p.epilogue = {EpilogueStep::Scale, EpilogueStep::Bias};
  p.bias = Along::Cols;
  p.scale = Along::Rows;
  c.wgmma = true;
  GemmParameters all = gemmParameters(p, c);
  EXPECT_EQ(all.beta, 5);
  EXPECT_EQ(all.bias, 6);
  EXPECT_EQ(all.scale, 7);
  EXPECT_EQ(all.aMap, 8);
  EXPECT_EQ(all.bMap, 9);
  EXPECT_EQ(all.count, 10);
}

TEST(GemmEpilogue, ThePreActivationIsTheLastOperandAndNeedsAnActivation) {
  GemmProblem p = problem(256, 256, 256);
  p.epilogue = {EpilogueStep::Bias};
  p.bias = Along::Cols;
  p.storesPreActivation = true;
  GemmConfig c = chooseWgmmaGemmConfig(p, hopper());
  EXPECT_NE(checkGemm(p, c, hopper()).find("needs an activation step"), std::string::npos);
  p.epilogue.push_back(EpilogueStep::GeluTanh);
  EXPECT_EQ(checkGemm(p, c, hopper()), "");
  // After the bias vector, before the tensor maps; the launcher's operand
  // after the group ends, where only this kernel has it.
  GemmParameters at = gemmParameters(p, c);
  EXPECT_EQ(at.bias, 6);
  EXPECT_EQ(at.pre, 7);
  EXPECT_EQ(at.aMap, 8);
  LaunchPlan plan = gemmLaunchPlan(p, c);
  ASSERT_EQ(plan.operands.size(), 8u);
  EXPECT_EQ(plan.operands.back().name, "pre");
  EXPECT_EQ(plan.kernels.back().parameters[size_t(at.pre)].index, 7);
  p.storesPreActivation = false;
  EXPECT_EQ(gemmLaunchPlan(p, c).operands.size(), 7u);
}

TEST(GemmBatch, ProblemsGoAlongZAndTensorMapsReadEveryBatchEntry) {
  GemmProblem p = problem(100, 60, 64);
  p.batch = 5;
  p.batchB = false;
  GemmConfig c = chooseWgmmaGemmConfig(p, hopper());
  EXPECT_EQ(checkGemm(p, c, hopper()), "");
  EXPECT_EQ(gemmLaunchShape(p, c).gridZ, c.persistent ? 1 : 5);
  EXPECT_EQ(gemmTensorMapShape(p, c, 'a').rows, 500u);
  EXPECT_EQ(gemmTensorMapShape(p, c, 'b').rows, 60u);
  p.batch = 65536;
  EXPECT_NE(checkGemm(p, c, hopper()).find("the batch must be 1 to 65535"), std::string::npos);
  p.batch = 0;
  EXPECT_NE(checkGemm(p, c, hopper()).find("the batch must be 1 to 65535"), std::string::npos);
}

TEST(GemmBatch, TheChooserCountsEveryProblemsTiles) {
  // One 128 x 4096 problem leaves SMs idle and splits K; 3 of them fill
  // the GPU without.
  GemmProblem p = problem(128, 4096, 4096);
  EXPECT_GT(chooseWgmmaGemmConfig(p, hopper()).splitK, 1);
  p.batch = 3;
  EXPECT_EQ(chooseWgmmaGemmConfig(p, hopper()).splitK, 1);
}

TEST(GemmCheck, RejectsTilesThatDoNotDivide) {
  GemmConfig c;
  c.blockM = 96; // not a power of two
  EXPECT_NE(checkGemm(problem(256, 256, 256), c, hopper()).find("does not divide"),
            std::string::npos);
  c = GemmConfig();
  c.blockK = 8; // below one k16 step
  EXPECT_NE(checkGemm(problem(256, 256, 256), c, hopper()), "");
  c = GemmConfig();
  c.stages = 0;
  EXPECT_NE(checkGemm(problem(256, 256, 256), c, hopper()).find("stage"), std::string::npos);
}

TEST(GemmCheck, RejectsMoreBlockRowsThanAGridHolds) {
  // 128-row blocks: 65535 block rows hold M up to 8388480.
  GemmConfig c;
  c.blockM = 128;
  EXPECT_EQ(checkGemm(problem(8388480, 64, 64), c, hopper()), "");
  EXPECT_NE(checkGemm(problem(8388481, 64, 64), c, hopper())
                .find("65536 block rows of 128, over the 65535"),
            std::string::npos);
}

TEST(GemmCheck, RejectsTilesOverSharedMemoryAndSizesPastATensor) {
  // 4 stages of 256 x 128 x 64 bf16 tiles take 196608 bytes; 5 take
  // 245760, over an H100's or H200's 232448 a block.
  GemmConfig c;
  c.blockM = 256;
  c.blockN = 128;
  c.blockK = 64;
  c.stages = 4;
  EXPECT_EQ(checkGemm(problem(4096, 4096, 4096), c, hopper()), "");
  c.stages = 5;
  EXPECT_NE(
      checkGemm(problem(4096, 4096, 4096), c, hopper()).find("need 245760 bytes of shared memory"),
      std::string::npos);
  // M = 2^63 - 1 would overflow the block-row count.
  EXPECT_NE(
      checkGemm(problem(INT64_MAX, 64, 64), GemmConfig(), hopper()).find("over the 2^40 elements"),
      std::string::npos);
  // N = 2^37 within 2^40 elements (K = 8), in 16-column tiles: 2^33 block
  // columns, over the 2^31 - 1 a grid holds along x; 128-column tiles fit.
  GemmConfig narrow;
  narrow.blockM = narrow.blockN = 16;
  narrow.blockK = 32;
  narrow.warpsM = narrow.warpsN = 1;
  EXPECT_NE(checkGemm(problem(8, int64_t(1) << 37, 8), narrow, hopper()).find("along x: split N"),
            std::string::npos);
  EXPECT_EQ(checkGemm(problem(8, int64_t(1) << 37, 8), GemmConfig(), hopper()), "");
}

TEST(GemmCheck, RejectsNonPositiveWarpsAndRaster) {
  GemmConfig c;
  c.warpsM = 0; // would divide by zero in the tile check
  EXPECT_EQ(checkGemm(problem(256, 256, 256), c, hopper()),
            "warp counts must be positive, got 0x2");
  c = GemmConfig();
  c.warpsN = -2;
  EXPECT_EQ(checkGemm(problem(256, 256, 256), c, hopper()),
            "warp counts must be positive, got 2x-2");
  c = GemmConfig();
  c.raster = -1;
  EXPECT_EQ(checkGemm(problem(256, 256, 256), c, hopper()),
            "raster groups must be positive, got -1");
}

TEST(GemmConfigChoice, LargeTilesWhenTheyFillTheGpu) {
  GemmConfig c = chooseGemmConfig(problem(4096, 4096, 4096), hopper());
  EXPECT_EQ(c.blockM, 128);
  EXPECT_EQ(c.blockN, 128);
  EXPECT_EQ(c.threads(), 128);
  EXPECT_EQ(c.raster, 8);
  EXPECT_EQ(checkGemm(problem(4096, 4096, 4096), c, hopper()), "");
}

TEST(GemmConfigChoice, SmallTilesWhenLargeOnesLeaveMultiprocessorsIdle) {
  GemmConfig c = chooseGemmConfig(problem(128, 4096, 4096), hopper());
  EXPECT_EQ(c.blockM, 64);
  EXPECT_EQ(c.blockN, 64);
  EXPECT_EQ(checkGemm(problem(128, 4096, 4096), c, hopper()), "");
}

TEST(GemmConfigChoice, NoRasterWhenGroupsDoNotDivideTheRows) {
  // 4097 rows: 33 block rows, not a multiple of 8.
  EXPECT_EQ(chooseGemmConfig(problem(4097, 4095, 4096), hopper()).raster, 1);
}

TEST(GemmLaunch, OneBlockPerOutputTile) {
  GemmConfig c;
  LaunchShape s = gemmLaunchShape(problem(4097, 4095, 64), c);
  EXPECT_EQ(s.gridX, 32); // ceil(4095 / 128)
  EXPECT_EQ(s.gridY, 33); // ceil(4097 / 128)
  EXPECT_EQ(s.block, c.threads());
}

TEST(GemmWgmma, ReadsMOrNMajorOperandsInPlaceOrPacked) {
  GemmProblem p = problem(256, 256, 256);
  EXPECT_TRUE(wgmmaSupports(p));
  // M- and N-major operands are read in place (transposed), in boxes of 64
  // of M or N: a 64-row swapped tile of M, cluster blocks' shares of B of
  // 64 columns or more.
  p.a = Layout::ColMajor;
  p.b = Layout::RowMajor;
  EXPECT_TRUE(wgmmaSupports(p));
  p.packLayouts = true;
  EXPECT_FALSE(gemmPacksOperands(p));
  GemmConfig c = chooseWgmmaGemmConfig(p, hopper());
  EXPECT_EQ(checkGemm(p, c, hopper()), "");
  EXPECT_EQ(gemmWorkspaceBytes(p, GemmConfig()), 0);
  GemmProblem decode = p;
  decode.m = 16;
  GemmConfig swapped = chooseWgmmaGemmConfig(decode, hopper());
  EXPECT_TRUE(swapped.swapAB);
  EXPECT_EQ(swapped.blockM, 64);
  EXPECT_EQ(checkGemm(decode, swapped, hopper()), "");
  swapped.blockM = 16;
  EXPECT_NE(checkGemm(decode, swapped, hopper()).find("an M-major A's wgmma tiles are 64 rows"),
            std::string::npos);
  GemmProblem big = problem(8192, 8192, 8192);
  big.b = Layout::RowMajor;
  GemmConfig pairs = chooseWgmmaGemmConfig(big, hopper());
  EXPECT_EQ(pairs.cluster, 2);
  EXPECT_EQ(checkGemm(big, pairs, hopper()), "");
  pairs.blockN = 192;
  EXPECT_NE(checkGemm(big, pairs, hopper()).find("an N-major B's wgmma tiles"), std::string::npos);
  // A batched one whose K leaves a partial k-tile would read the next batch
  // entry's rows: packed K-major (packLayouts), else not for wgmma.
  p = problem(256, 256, 200);
  p.batch = 2;
  p.a = Layout::ColMajor;
  EXPECT_FALSE(wgmmaSupports(p));
  EXPECT_NE(checkGemm(p, c, hopper()).find("packed K-major for wgmma first"), std::string::npos);
  p.packLayouts = true;
  EXPECT_TRUE(gemmPacksOperand(p, 'a'));
  EXPECT_FALSE(gemmPacksOperand(p, 'b'));
  EXPECT_TRUE(wgmmaSupports(p));
  EXPECT_EQ(checkGemm(p, chooseWgmmaGemmConfig(p, hopper()), hopper()), "");
  EXPECT_EQ(gemmWorkspaceBytes(p, GemmConfig()), 2 * 256 * 200 * 2);
  p.b = Layout::RowMajor;
  EXPECT_TRUE(gemmPacksOperand(p, 'b'));
  EXPECT_EQ(gemmWorkspaceBytes(p, GemmConfig()), 2 * 2 * 256 * 200 * 2);
  // Beside a packed partner whose K is padded to a multiple of 8, an
  // operand read in place otherwise is packed too.
  p.batchB = false;
  p.k = 196;
  EXPECT_TRUE(gemmPacksOperand(p, 'a'));
  EXPECT_TRUE(gemmPacksOperand(p, 'b'));
  // A grouped GEMM's wgmma kernel reads A K-major, and B K-major or, where
  // no k-tile runs into the next group's matrix, N-major.
  GemmProblem grouped = problem(4096, 1024, 512);
  grouped.groups = 8;
  GemmConfig persistent = chooseWgmmaGemmConfig(grouped, hopper());
  EXPECT_EQ(checkGemm(grouped, persistent, hopper()), "");
  grouped.b = Layout::RowMajor;
  EXPECT_EQ(checkGemm(grouped, persistent, hopper()), "");
  EXPECT_FALSE(gemmPacksOperands(grouped));
  grouped.k = 520;
  EXPECT_NE(checkGemm(grouped, persistent, hopper()).find("or row major where K is a multiple"),
            std::string::npos);
  grouped.k = 512;
  grouped.a = Layout::ColMajor;
  EXPECT_NE(checkGemm(grouped, persistent, hopper())
                .find("a grouped GEMM's wgmma kernel takes A row major"),
            std::string::npos);
  // Groups splitting K: A M-major and B N-major, their compute warpgroups
  // on the same tiles; 256 columns once all groups' tiles fill three rounds.
  GemmProblem reduction = problem(1024, 512, 3000);
  reduction.groups = 5;
  reduction.groupedReduction = true;
  reduction.a = Layout::ColMajor;
  reduction.b = Layout::RowMajor;
  GemmConfig walk = chooseWgmmaGemmConfig(reduction, hopper());
  EXPECT_EQ(checkGemm(reduction, walk, hopper()), "");
  EXPECT_TRUE(walk.wgmma && walk.persistent > 0 && !walk.pingpong);
  EXPECT_EQ(walk.blockN, 128);
  reduction.m = reduction.n = 4096;
  reduction.groups = 8;
  EXPECT_EQ(chooseWgmmaGemmConfig(reduction, hopper()).blockN, 256);
  // Their tensor maps span K rows of A and of B (a grouped B's, K rows a
  // group, N-major here), so TMA fills rows past K with zeros.
  EXPECT_EQ(gemmTensorMapShape(reduction, walk, 'a').rows, 3000u);
  EXPECT_EQ(gemmTensorMapShape(reduction, walk, 'b').rows, 3000u);
  EXPECT_EQ(gemmTensorMapShape(grouped, persistent, 'b').rows, 8u * 512);
  walk.pingpong = true;
  EXPECT_NE(checkGemm(reduction, walk, hopper()).find("no pingpong"), std::string::npos);
  walk.pingpong = false;
  // D's matrices, one a group, outgrow a tensor.
  GemmProblem wide = reduction;
  wide.m = wide.n = 1 << 18;
  wide.k = 64;
  wide.groups = 64;
  EXPECT_NE(checkGemm(wide, walk, hopper()).find("D's 64 groups of M=262144 N=262144 are over"),
            std::string::npos);
  reduction.b = Layout::ColMajor;
  EXPECT_NE(checkGemm(reduction, walk, hopper()).find("B row major (N contiguous)"),
            std::string::npos);
  // Misaligned rows pack both operands, K-major or not.
  p = problem(256, 256, 250);
  EXPECT_TRUE(gemmPacksOperand(p, 'b'));
  // K-major operands are never packed for it.
  EXPECT_FALSE(gemmPacksOperands(problem(256, 256, 256)));
}

TEST(GemmWgmma, PacksMOrNMajorOperandsWhereThatBeatsMmaSync) {
  // Batched M- or N-major operands whose K leaves a partial k-tile, where
  // transposing them costs less than what wgmma saves: 4 x 2048^2 x 1000,
  // not 2 x 256^2 x 1000. Operands wgmma reads in place are never packed.
  auto prefers = [](int64_t m, int64_t n, int64_t k, Layout a, Layout b, int64_t batch = 1) {
    GemmProblem p = problem(m, n, k);
    p.a = a;
    p.b = b;
    p.batch = batch;
    return gemmPrefersPackedLayouts(p, hopper());
  };
  Layout row = Layout::RowMajor, col = Layout::ColMajor;
  for (auto [a, b] : {std::pair{col, col}, std::pair{row, row}, std::pair{col, row}}) {
    EXPECT_TRUE(prefers(2048, 2048, 1000, a, b, 4));
    EXPECT_FALSE(prefers(256, 256, 1000, a, b, 2));
    EXPECT_FALSE(prefers(4096, 4096, 4096, a, b));
    EXPECT_FALSE(prefers(2048, 2048, 1024, a, b, 4));
  }
  // K-major operands need no packing; f32 and misaligned ones are packed
  // anyway; grouped GEMMs take K-major operands only.
  EXPECT_FALSE(prefers(4096, 4096, 4000, row, col, 4));
  EXPECT_FALSE(prefers(4096, 4096, 4095, col, col, 4));
  GemmProblem f32 = problem(4096, 4096, 4096);
  f32.input = DType::F32;
  f32.a = col;
  EXPECT_FALSE(gemmPrefersPackedLayouts(f32, hopper()));
  // Hopper's default: wgmma where it reads A and B in place, they are
  // packed anyway (f32) or preferably packed; mma.sync where packing does
  // not pay.
  EXPECT_TRUE(gemmPrefersWgmma(problem(1024, 1024, 1024), hopper()));
  EXPECT_TRUE(gemmPrefersWgmma(f32, hopper()));
  GemmProblem transposed = problem(1024, 1024, 1024);
  transposed.a = col;
  transposed.b = row;
  EXPECT_TRUE(gemmPrefersWgmma(transposed, hopper()));
  transposed.batch = 2;
  transposed.m = transposed.n = 256;
  transposed.k = 1000;
  EXPECT_FALSE(gemmPrefersWgmma(transposed, hopper()));
}

// 128-row blocks on a persistent grid of a block an SM where their tiles
// keep the SMs busy (three rounds, or a last round 80% full), the widest of
// 256, 192 and 128 columns; else a block a tile of the widest that fills
// the waves best.
TEST(GemmWgmma, ChoosesPersistentBlocksThatKeepTheSMsBusy) {
  auto tile = [](int64_t m, int64_t n, int64_t sms) {
    GemmConfig c = chooseWgmmaGemmConfig(problem(m, n, 4096), hopperWith(sms));
    EXPECT_EQ(checkGemm(problem(m, n, 4096), c, hopper()), "");
    EXPECT_EQ(c.warpsM * 16, c.warpgroupRows());
    return std::pair{c.blockM, c.blockN};
  };
  EXPECT_EQ(tile(4096, 4096, 132), (std::pair<int64_t, int64_t>{128, 256}));  // 512 tiles
  // 192 tiles of 128 x 256: 2 rounds, 73%; 256 of 128 x 192: 97%.
  EXPECT_EQ(tile(2048, 3072, 132), (std::pair<int64_t, int64_t>{128, 192}));
  EXPECT_EQ(tile(2048, 3072, 100), (std::pair<int64_t, int64_t>{128, 256}));  // 192: 96%
  EXPECT_EQ(chooseWgmmaGemmConfig(problem(2048, 3072, 4096), hopper()).persistent, 132);
  // 96 tiles of 128 x 256 fill one wave 73%, 128 of 128 x 192 97%.
  EXPECT_EQ(tile(512, 6144, 132), (std::pair<int64_t, int64_t>{128, 192}));
  EXPECT_EQ(chooseWgmmaGemmConfig(problem(512, 6144, 4096), hopper()).persistent, 0);
  // 64 tiles of 128 x 256 fill 48% of a wave, 128 of 128 x 128 97%.
  EXPECT_EQ(tile(512, 4096, 132), (std::pair<int64_t, int64_t>{128, 128}));
  EXPECT_EQ(gemmLaunchShape(problem(4096, 4096, 4096),
                            chooseWgmmaGemmConfig(problem(4096, 4096, 4096), hopper()))
                .gridX,
            132);
}

// Short reductions (16 k-tiles or fewer) on a persistent grid: 128 x 128
// tiles that the compute warpgroups take in turn.
TEST(GemmWgmma, TakesTilesInTurnOverShortReductions) {
  GemmConfig c = chooseWgmmaGemmConfig(problem(2048, 3072, 768), hopper());
  EXPECT_EQ(checkGemm(problem(2048, 3072, 768), c, hopper()), "");
  EXPECT_TRUE(c.pingpong);
  EXPECT_EQ(c.blockN, 128);
  c = chooseWgmmaGemmConfig(problem(16384, 1024, 1024), hopper());
  EXPECT_TRUE(c.pingpong);
  EXPECT_EQ(c.blockN, 128);  // not 128 x 256
  EXPECT_FALSE(chooseWgmmaGemmConfig(problem(16384, 1024, 1088), hopper()).pingpong); // 17 k-tiles
  c.blockN = 256;
  EXPECT_NE(
      checkGemm(problem(16384, 1024, 1024), c, hopper()).find("tiles of 128 x 128 or narrower"),
      std::string::npos);
}

// Under one wave of 128 x 128 tiles, up to 3 blocks of a cluster split each
// tile's K while the grid fits the SMs; the grid's x counts them.
TEST(GemmWgmma, SplitsKUnderOneWave) {
  auto split = [](int64_t m, int64_t n, int64_t k) {
    GemmConfig c = chooseWgmmaGemmConfig(problem(m, n, k), hopper());
    EXPECT_EQ(checkGemm(problem(m, n, k), c, hopper()), "");
    return c.splitK;
  };
  EXPECT_EQ(split(128, 4096, 2048), 3);   // 32 tiles: 96 blocks
  EXPECT_EQ(split(1024, 1024, 4096), 2);  // 64 tiles: 128 blocks
  EXPECT_EQ(split(128, 10240, 8192), 1);  // 80 tiles: 160 blocks would not fit
  EXPECT_EQ(split(4096, 4096, 4096), 1);
  // 40 tiles: 40 clusters of 3 over the 39 the part runs at once, so 2; 3
  // where the part's clusters are unknown (as many as 132 SMs hold, 44).
  EXPECT_EQ(split(640, 1024, 8192), 2);
  spio::Target unknown = hopper();
  unknown.clustersAtOnce[1] = 0;
  EXPECT_EQ(chooseWgmmaGemmConfig(problem(640, 1024, 8192), unknown).splitK, 3);
  GemmConfig c = chooseWgmmaGemmConfig(problem(128, 4096, 2048), hopper());
  EXPECT_EQ(gemmLaunchShape(problem(128, 4096, 2048), c).gridX, 32 * 3);
  EXPECT_EQ(c.stages, 4);
  // The partial sums need shared memory too.
  c.stages = 6;
  EXPECT_NE(checkGemm(problem(128, 4096, 2048), c, hopper())
                .find("and the partial sums and the staging of D need"),
            std::string::npos);
  // Unsplit blocks streaming 64 k-tiles or more: as many stages as shared
  // memory holds (6 of 128 x 128 x 64 tiles); shorter reductions keep 4.
  EXPECT_EQ(chooseWgmmaGemmConfig(problem(128, 10240, 8192), hopper()).stages, 6);
  EXPECT_EQ(chooseWgmmaGemmConfig(problem(128, 10240, 4032), hopper()).stages, 4);
  c = chooseWgmmaGemmConfig(problem(128, 4096, 2048), hopper());
  c.persistent = 132;
  EXPECT_NE(checkGemm(problem(128, 4096, 2048), c, hopper()).find("not on a persistent grid"),
            std::string::npos);
}

// Short reductions under a wave of 128 x 128 tiles: 64 x 128 or 64 x 64
// tiles fill the SMs instead of a split.
TEST(GemmWgmma, NarrowsTilesOverShortReductionsUnderOneWave) {
  auto tile = [](int64_t m, int64_t n, int64_t k) {
    GemmConfig c = chooseWgmmaGemmConfig(problem(m, n, k), hopper());
    EXPECT_EQ(checkGemm(problem(m, n, k), c, hopper()), "");
    EXPECT_EQ(c.splitK, 1);
    EXPECT_EQ(c.warpsM * 16, c.blockM);
    return std::pair{c.blockM, c.blockN};
  };
  EXPECT_EQ(tile(1024, 1024, 1024), (std::pair<int64_t, int64_t>{64, 128})); // 128 tiles
  EXPECT_EQ(tile(1000, 1000, 1000), (std::pair<int64_t, int64_t>{64, 128}));
  EXPECT_EQ(tile(512, 512, 512), (std::pair<int64_t, int64_t>{64, 64})); // 64 tiles
  EXPECT_EQ(tile(256, 256, 128), (std::pair<int64_t, int64_t>{64, 64}));
  // 17 k-tiles: split as before.
  EXPECT_EQ(chooseWgmmaGemmConfig(problem(1024, 1024, 1088), hopper()).splitK, 2);
}

// 128-row tiles of the 16-column width that does the most work a round
// (how fully its tiles use the SMs times n / (128 + n)), a block a tile in
// one round; large problems keep 256 columns.
TEST(GemmWgmma, ChoosesWidthsOfSixteenColumnsThatFillTheSMs) {
  auto chosen = [](GemmProblem p) {
    GemmConfig c = chooseWgmmaGemmConfig(p, hopper());
    EXPECT_EQ(checkGemm(p, c, hopper()), "");
    return std::tuple{c.blockN, c.persistent, c.cluster};
  };
  // 256 tiles of 128 x 160: two rounds, 97%, pairs over 128 k-tiles.
  EXPECT_EQ(chosen(problem(512, 10240, 8192)), std::make_tuple(160, 132, 2));
  // 128 tiles of 128 x 256: one round, 97%.
  EXPECT_EQ(chosen(problem(512, 8192, 28672)), std::make_tuple(256, 0, 1));
  EXPECT_EQ(chosen(problem(512, 28672, 4096)), std::make_tuple(224, 132, 1));
  EXPECT_EQ(chosen(problem(128, 28672, 4096)), std::make_tuple(224, 0, 1));
  // An N-major B comes in boxes of 64 columns.
  GemmProblem nMajor = problem(512, 10240, 8192);
  nMajor.b = Layout::RowMajor;
  EXPECT_EQ(std::get<0>(chosen(nMajor)) % 64, 0);
  // Nothing fills 90%: K split as before.
  EXPECT_EQ(chosen(problem(128, 10240, 8192)), std::make_tuple(128, 0, 1));
  // 128 x 176 tiles fill 99.5% against 128 x 256's 97%, but reload A more.
  EXPECT_EQ(std::get<0>(chosen(problem(8192, 6144, 4096))), 256);
  EXPECT_EQ(std::get<0>(chosen(problem(8192, 10240, 8192))), 256);
}

// M <= 64: M along wgmma's N (a power of 2 from 8) and N along the
// warpgroups, two of them where 64-row tiles would overfill the SMs' three
// blocks each; split K by the fewest blocks (up to 3) giving 90% of a block
// an SM. Where those blocks would not all run at once, 128-row tiles split
// by the most blocks whose clusters do.
TEST(GemmWgmma, SmallProblemsSplitK) {
  EXPECT_GT(chooseWgmmaGemmConfig(problem(1, 4096, 4096), hopper()).splitK, 1);
  EXPECT_GT(chooseWgmmaGemmConfig(problem(128, 4096, 4096), hopper()).splitK, 1);
}

TEST(GemmWgmma, SwapsSmallM) {
  auto chosen = [](int64_t m, int64_t n, int64_t k) {
    GemmConfig c = chooseWgmmaGemmConfig(problem(m, n, k), hopper());
    EXPECT_EQ(checkGemm(problem(m, n, k), c, hopper()), "");
    EXPECT_TRUE(c.swapAB);
    EXPECT_EQ(c.warpsM * 16, c.blockN);
    return std::tuple{c.blockM, c.blockN, c.splitK, c.stages};
  };
  EXPECT_EQ(chosen(1, 4096, 4096), std::make_tuple(8, 64, 2, 8));     // 64 tiles
  EXPECT_EQ(chosen(1, 6144, 4096), std::make_tuple(8, 128, 2, 8));    // 48 tiles: 3 over 39
  EXPECT_EQ(chosen(16, 10240, 8192), std::make_tuple(16, 128, 1, 8)); // 80 tiles
  EXPECT_EQ(chosen(16, 2048, 8192), std::make_tuple(16, 64, 3, 8));   // 16 tiles of 128
  EXPECT_EQ(chosen(16, 28672, 4096), std::make_tuple(16, 128, 1, 8)); // 448 of 64 rows
  EXPECT_EQ(chosen(33, 1000, 4096), std::make_tuple(64, 64, 3, 8));   // 16 tiles
  EXPECT_EQ(chosen(5, 24, 8), std::make_tuple(8, 64, 1, 8));          // one k-tile
  GemmConfig c = chooseWgmmaGemmConfig(problem(1, 4096, 4096), hopper());
  EXPECT_EQ(gemmTensorMapShape(problem(1, 4096, 4096), c, 'a').boxRows, 8u);
  EXPECT_EQ(gemmTensorMapShape(problem(1, 4096, 4096), c, 'b').boxRows, 64u);
  EXPECT_EQ(gemmLaunchShape(problem(1, 4096, 4096), c).gridX, 64 * 2);
  c.splitK = 1;
  c.persistent = 132;
  c.cluster = 2;
  EXPECT_NE(checkGemm(problem(1, 4096, 4096), c, hopper())
                .find("only with A's rows along the warpgroups"),
            std::string::npos);
}

// Decoding's splits count the clusters the part runs at once. Where the
// 64-row tiles' blocks would not all run at once, or their split is cut
// short, 128-row tiles split by 3 where the part runs their clusters of 3
// all at once, else by 2.
TEST(GemmWgmma, SplitsDecodingByClustersThePartRunsAtOnce) {
  auto tile = [](int64_t n, int64_t clustersOf3) {
    spio::Target target = hopper();
    target.clustersAtOnce[1] = clustersOf3;
    GemmConfig c = chooseWgmmaGemmConfig(problem(16, n, 4096), target);
    EXPECT_EQ(checkGemm(problem(16, n, 4096), c, target), "");
    return std::pair{c.blockN, c.splitK};
  };
  EXPECT_EQ(tile(4608, 39), std::pair(int64_t(128), int64_t(3))); // 36 clusters of 3
  EXPECT_EQ(tile(4608, 30), std::pair(int64_t(128), int64_t(2)));
  // 128 blocks of 64-row tiles, all at once.
  EXPECT_EQ(tile(4096, 39), std::pair(int64_t(64), int64_t(2)));
  // Unknown: as many as the multiprocessors hold (44).
  EXPECT_EQ(tile(5120, 0), std::pair(int64_t(128), int64_t(3)));
  EXPECT_EQ(tile(5120, 39), std::pair(int64_t(128), int64_t(2)));
  // 64 tokens, a block an SM: 40 tiles of 64 rows split by 2, not by 3
  // (40 clusters of 3 over the 39 that run at once; 44 where unknown).
  auto tokens64 = [](int64_t n, int64_t k, int64_t clustersOf3) {
    spio::Target target = hopper();
    target.clustersAtOnce[1] = clustersOf3;
    GemmConfig c = chooseWgmmaGemmConfig(problem(64, n, k), target);
    EXPECT_EQ(checkGemm(problem(64, n, k), c, target), "");
    return std::pair{c.blockN, c.splitK};
  };
  EXPECT_EQ(tokens64(2560, 8192, 39), std::pair(int64_t(64), int64_t(2)));
  EXPECT_EQ(tokens64(2560, 8192, 0), std::pair(int64_t(64), int64_t(3)));
  // 72 tiles of 64 rows cannot split on a block an SM; 36 of 128 rows split
  // by 3 run on more SMs (108).
  EXPECT_EQ(tokens64(4608, 4096, 39), std::pair(int64_t(128), int64_t(3)));
  // 80 tiles of 64 rows: 128 rows split by 2 run on no more SMs.
  EXPECT_EQ(tokens64(5120, 4096, 39), std::pair(int64_t(64), int64_t(1)));
}

// Pairs of blocks share B tiles over long reductions where tile rows pair up.
TEST(GemmWgmma, ClustersPairsOverLongReductions) {
  EXPECT_EQ(chooseWgmmaGemmConfig(problem(8192, 8192, 8192), hopper()).cluster, 2);
  EXPECT_EQ(chooseWgmmaGemmConfig(problem(4096, 4096, 4096), hopper()).cluster, 1); // 64 k-tiles
  // An odd count of tile rows idles half of the last pair: paired from 16
  // rows (33 here), not among 11.
  EXPECT_EQ(chooseWgmmaGemmConfig(problem(4224, 8192, 8192), hopper()).cluster, 2);
  EXPECT_EQ(chooseWgmmaGemmConfig(problem(1408, 8192, 8192), hopper()).cluster, 1);
  GemmConfig c = chooseWgmmaGemmConfig(problem(8192, 8192, 8192), hopper());
  EXPECT_EQ(checkGemm(problem(8192, 8192, 8192), c, hopper()), "");
  EXPECT_EQ(gemmTensorMapShape(problem(8192, 8192, 8192), c, 'b').boxRows, 128u);
  c.persistent = 131;
  EXPECT_NE(checkGemm(problem(8192, 8192, 8192), c, hopper()).find("a cluster is 1 block, or 2"),
            std::string::npos);
}

// Rows off the L2's 32-byte sectors (K = 3000 or 1000 of bf16) triple the
// L2's requests: pairs share B however short the reduction, in the width
// whose rounds of pairs do the most work rather than ping-pong's 128
// columns; the raster counts the pairs (47 tile rows: 24 pairs).
TEST(GemmWgmma, PairsShareBWhereItsRowsLieOffTheSectors) {
  auto chosen = [](GemmProblem p) {
    GemmConfig c = chooseWgmmaGemmConfig(p, hopper());
    EXPECT_EQ(checkGemm(p, c, hopper()), "");
    return std::tuple{c.blockN, c.persistent, c.cluster, c.raster, c.pingpong};
  };
  EXPECT_EQ(chosen(problem(6000, 2000, 3000)), std::make_tuple(256, 132, 2, 8, false));
  EXPECT_EQ(chosen(problem(6000, 2000, 3008)), std::make_tuple(256, 132, 1, 1, false));
  EXPECT_EQ(chosen(problem(8000, 8000, 1000)), std::make_tuple(256, 132, 2, 8, false));
  // 12 pairs by 16 tiles of 192 fill 97% of 3 rounds; 12 of 256, 73% of 3.
  EXPECT_EQ(chosen(problem(3000, 3000, 1000)), std::make_tuple(192, 132, 2, 6, false));
  // 28 pairs (55 rows) by 14 tiles of 224: 6 rounds, 99% full.
  EXPECT_EQ(chosen(problem(7000, 3000, 1000)), std::make_tuple(224, 132, 2, 7, false));
  // One round of tiles is paired too: a persistent grid of a tile a block.
  EXPECT_EQ(chosen(problem(1500, 2500, 3000)), std::make_tuple(240, 132, 2, 6, false));
  EXPECT_EQ(chosen(problem(1000, 1000, 1000)), std::make_tuple(128, 132, 2, 8, false));
  EXPECT_EQ(chosen(problem(1000, 1000, 1008)), std::make_tuple(128, 0, 1, 8, false));
  // On the sectors, short reductions stay ping-pong, unpaired.
  EXPECT_EQ(chosen(problem(8000, 8000, 1008)), std::make_tuple(128, 132, 1, 7, true));
  // An N-major B's rows are N long.
  GemmProblem nMajor = problem(6000, 2000, 3008);
  nMajor.b = Layout::RowMajor;
  EXPECT_EQ(std::get<2>(chosen(nMajor)), 1);
  nMajor.n = 2008;
  EXPECT_EQ(std::get<2>(chosen(nMajor)), 2);
}

// Blocks of one round streaming 64 k-tiles or more alone on their SMs take
// as many stages as shared memory holds; persistent blocks and shorter
// reductions keep 4.
TEST(GemmWgmma, DeepensTheRingOfBlocksOfOneRound) {
  auto tile = [](int64_t m, int64_t n, int64_t k) {
    GemmConfig c = chooseWgmmaGemmConfig(problem(m, n, k), hopper());
    EXPECT_EQ(checkGemm(problem(m, n, k), c, hopper()), "");
    return std::tuple{c.blockN, c.persistent, c.stages};
  };
  EXPECT_EQ(tile(512, 4096, 14336), std::make_tuple(128, 0, 6));
  EXPECT_EQ(tile(256, 11008, 4096), std::make_tuple(176, 0, 5));
  EXPECT_EQ(tile(512, 4096, 4032), std::make_tuple(128, 0, 4)); // 63 k-tiles
  EXPECT_EQ(tile(2048, 6144, 4096), std::make_tuple(256, 132, 4));
}

/// The chooser's configuration of an m x n x k problem, which checkGemm
/// accepts.
GemmConfig chosen(int64_t m, int64_t n, int64_t k) {
  GemmConfig c = chooseWgmmaGemmConfig(problem(m, n, k), hopper());
  EXPECT_EQ(checkGemm(problem(m, n, k), c, hopper()), "");
  return c;
}

// One row of 128-row tiles over a long reduction: 64 x 128 tiles in the
// deepest ring where they are a round at least half full; under half,
// swapped as for decoding (M along wgmma's N, K split); over a round, one
// block a tile.
TEST(GemmWgmma, StreamsBOnTwiceTheMultiprocessorsInOneRow) {
  auto tile = [](int64_t m, int64_t n, int64_t k) {
    GemmConfig c = chosen(m, n, k);
    return std::tuple{c.swapAB, c.blockM, c.blockN, c.warpsM, c.splitK, c.persistent, c.stages};
  };
  EXPECT_EQ(tile(128, 6144, 4096), std::make_tuple(false, 64, 128, 4, 1, 0, 8)); // 96 tiles
  EXPECT_EQ(tile(96, 5120, 4096), std::make_tuple(false, 64, 128, 4, 1, 0, 8));  // 80 tiles
  // 64 tiles: 64 of N's by 2 blocks splitting K; 8 tiles: by 3.
  EXPECT_EQ(tile(128, 4096, 4096), std::make_tuple(true, 128, 64, 4, 2, 0, 8));
  EXPECT_EQ(tile(100, 1000, 14336), std::make_tuple(true, 104, 64, 4, 3, 0, 8));
  // 160 tiles, over a round.
  EXPECT_EQ(tile(128, 10240, 8192), std::make_tuple(false, 128, 128, 8, 1, 0, 6));
  // 63 k-tiles: the short rule's fill, 4 stages.
  EXPECT_EQ(std::get<4>(tile(128, 6144, 4032)), 2);
  EXPECT_FALSE(std::get<0>(tile(128, 4096, 4032)));
}

// Where 128-row tiles leave an eighth of their rows past M, 64-row tiles
// where they do more work a round counting those rows.
TEST(GemmWgmma, TakesRowsOf64WhereRowsOf128PadM) {
  auto tile = [](int64_t m, int64_t n, int64_t k) {
    GemmConfig c = chosen(m, n, k);
    return std::tuple{c.blockM, c.blockN, c.warpsM, c.persistent};
  };
  // 3 x 43 tiles of 64 x 144 against 2 x 48 of 128 x 128, a quarter idle.
  EXPECT_EQ(tile(192, 6144, 4096), std::make_tuple(64, 144, 4, 0));
  // 2 x 64 tiles of 128 x 192 fill a round: they do more.
  EXPECT_EQ(tile(192, 12288, 4096), std::make_tuple(128, 192, 8, 0));
  // M = 448 leaves exactly an eighth: 128 rows.
  EXPECT_EQ(std::get<0>(tile(448, 6144, 4096)), 128);
}

// A grid of one round 80% full or more takes no partial sums (stream-K,
// split K); more rounds need 90%.
TEST(GemmWgmma, TakesOneRoundFourFifthsFull) {
  auto tile = [](int64_t m, int64_t n, int64_t k) {
    GemmConfig c = chosen(m, n, k);
    return std::tuple{c.blockN, c.persistent, c.cluster, c.streamK};
  };
  // 28 x 4 tiles of 128 x 160: 85%.
  EXPECT_EQ(tile(3500, 640, 8192), std::make_tuple(160, 0, 1, false));
  // Rows off the sectors: 12 x 5 pairs of 128 x 208, 87% of a round.
  EXPECT_EQ(tile(3000, 1000, 3000), std::make_tuple(208, 132, 2, false));
  // 34 x 4 tiles of 128 x 160 are a round and 3% of another: stream-K.
  EXPECT_TRUE(std::get<3>(tile(4300, 640, 8192)));
}

/// A persistent stream-K configuration of `blocks` blocks of 128 x `n`
/// tiles, in clusters of `cluster`.
GemmConfig streamK(int64_t n, int64_t blocks, int64_t cluster = 1) {
  GemmConfig c;
  c.wgmma = true;
  c.blockM = 128;
  c.blockN = n;
  c.blockK = 64;
  c.warpsM = 8;
  c.warpsN = 1;
  c.persistent = blocks;
  c.cluster = cluster;
  c.streamK = true;
  return c;
}

TEST(GemmStreamK, SharesTheLastPartialRoundAndOneRoundBefore) {
  // 8 x 12 tiles, fewer than the blocks: all shared.
  EXPECT_EQ(gemmStreamKTiles(problem(1024, 1536, 8192), streamK(128, 132)), 96);
  // 32 x 32 tiles: 1024 = 7 rounds of 132 and 100 more; 100 + 132 shared.
  EXPECT_EQ(gemmStreamKTiles(problem(4096, 4096, 4096), streamK(128, 132)), 232);
  // Whole rounds: none shared.
  EXPECT_EQ(gemmStreamKTiles(problem(1536, 1408, 1536), streamK(128, 132)), 0);
  // Clusters of two count cluster tiles (pairs along M, the last one past
  // M) over 66 clusters: 4 x 6 of them.
  EXPECT_EQ(gemmStreamKTiles(problem(1000, 1536, 8192), streamK(256, 132, 2)), 24);
  // A batch's problems' tiles one after the other: 3 x 2 x 3.
  GemmProblem batched = problem(256, 384, 512);
  batched.batch = 3;
  EXPECT_EQ(gemmStreamKTiles(batched, streamK(128, 5)), 18 % 5 + 5);
  GemmConfig plain = streamK(128, 132);
  plain.streamK = false;
  EXPECT_EQ(gemmStreamKTiles(problem(1024, 1536, 8192), plain), 0);
}

TEST(GemmStreamK, PartialSumsAndFlagsFollowThePackedOperands) {
  GemmConfig c = streamK(256, 132);
  GemmProblem p = problem(1024, 1536, 8192);
  EXPECT_EQ(gemmBlockSumsOffset(p), 0);
  EXPECT_EQ(gemmBlockSumsBytes(c), 132 * 128 * 256 * 4);
  EXPECT_EQ(gemmStreamKFlagBytes(c), 768); // 132 flags, in 256-byte units
  EXPECT_EQ(gemmWorkspaceBytes(p, c), 132 * 128 * 256 * 4 + 768);
  // An unaligned K packs both operands first; the sums come after them.
  GemmProblem packed = problem(1024, 1536, 8190);
  EXPECT_EQ(gemmBlockSumsOffset(packed), gemmWorkspaceBytes(packed, GemmConfig()));
  EXPECT_GT(gemmBlockSumsOffset(packed), 0);
  // The plan passes both from the workspace and has the flags cleared
  // before the kernel starts.
  LaunchPlan plan = gemmLaunchPlan(p, c);
  GemmParameters at = gemmParameters(p, c);
  ASSERT_GE(at.partials, 0);
  EXPECT_EQ(at.flags, at.partials + 1);
  EXPECT_EQ(at.aMap, at.flags + 1);
  const PlannedKernel &kernel = plan.kernels.back();
  EXPECT_EQ(kernel.parameters[at.partials].kind, PlanParameter::Kind::Workspace);
  EXPECT_EQ(kernel.parameters[at.partials].offset, 0);
  EXPECT_EQ(kernel.parameters[at.flags].offset, gemmBlockSumsBytes(c));
  EXPECT_EQ(kernel.zeroOffset, gemmBlockSumsBytes(c));
  EXPECT_EQ(kernel.zeroBytes, 768);
  EXPECT_EQ(plan.workspaceBytes, gemmWorkspaceBytes(p, c));
  // Without stream-K nothing is cleared.
  EXPECT_EQ(gemmLaunchPlan(p, GemmConfig()).kernels.back().zeroBytes, 0);
}

TEST(GemmStreamK, ChosenWhereTilesLeaveRoundsIdleAndEachClusterTakesHalfATile) {
  // 19 x 4 tiles of 128 x 224 fill 58% of one round, and no width fills
  // 80% of one: 10 x 4 cluster tiles of 128 k-tiles over 66 clusters, 77
  // k-tiles each.
  GemmConfig c = chooseWgmmaGemmConfig(problem(2328, 888, 8192), hopper());
  EXPECT_TRUE(c.streamK);
  EXPECT_EQ(c.blockN, 224);
  EXPECT_EQ(c.cluster, 2);
  EXPECT_EQ(c.persistent, 132);
  EXPECT_EQ(checkGemm(problem(2328, 888, 8192), c, hopper()), "");
  // A round of 128 x 208 tiles 87% full: a block a tile, no k-tiles shared.
  c = chooseWgmmaGemmConfig(problem(3000, 1000, 6000), hopper());
  EXPECT_FALSE(c.streamK);
  EXPECT_EQ(c.blockN, 208);
  EXPECT_EQ(c.persistent, 0);
  // 4 x 6 cluster tiles: each cut among 2.75 clusters, whose partial sums
  // the finishing block would read alone.
  EXPECT_FALSE(chooseWgmmaGemmConfig(problem(1024, 1536, 8192), hopper()).streamK);
  // Tiles that fill the rounds, batch invariance, promoted sums, and a
  // convolution's implicit GEMM: no stream-K.
  EXPECT_FALSE(chooseWgmmaGemmConfig(problem(8192, 8192, 8192), hopper()).streamK);
  GemmProblem invariant = problem(3000, 1000, 6000);
  invariant.batchInvariant = true;
  EXPECT_FALSE(chooseWgmmaGemmConfig(invariant, hopper()).streamK);
  EXPECT_FALSE(chooseWgmmaGemmConfig(problem(3000, 1000, 6000), hopper(), false).streamK);
  // An odd count of multiprocessors: clusters of one.
  EXPECT_EQ(chooseWgmmaGemmConfig(problem(3000, 1000, 6000), hopperWith(131)).cluster, 1);
}

TEST(GemmStreamK, TilesAsWideAsTheLeastPaddedColumnsAllow) {
  // N = 640: 128 x 160 tiles pad nothing where 128 x 256 ones idle a sixth.
  GemmConfig c = chooseWgmmaGemmConfig(problem(4300, 640, 8192), hopper());
  EXPECT_TRUE(c.streamK);
  EXPECT_EQ(c.blockN, 160);
  EXPECT_EQ(checkGemm(problem(4300, 640, 8192), c, hopper()), "");
  // N = 888: 224 and 128 both pad to 896 columns; the wider.
  EXPECT_EQ(chooseWgmmaGemmConfig(problem(2328, 888, 8192), hopper()).blockN, 224);
  // An N-major B's pairs load boxes of 64 columns each: widths of 128.
  GemmProblem nMajor = problem(4300, 640, 8192);
  nMajor.b = Layout::RowMajor;
  GemmConfig n = chooseWgmmaGemmConfig(nMajor, hopper());
  EXPECT_TRUE(n.streamK);
  EXPECT_EQ(n.blockN, 128);
  EXPECT_EQ(checkGemm(nMajor, n, hopper()), "");
}

TEST(GemmStreamK, RefusesWhatItCannotRun) {
  GemmProblem p = problem(1024, 1536, 8192);
  EXPECT_EQ(checkGemm(p, streamK(128, 132), hopper()), "");
  EXPECT_EQ(checkGemm(p, streamK(256, 132, 2), hopper()), "");
  GemmConfig c = streamK(128, 132);
  c.pingpong = true;
  EXPECT_NE(checkGemm(p, c, hopper()).find("(stream_k) on a persistent grid without swapped"),
            std::string::npos);
  // Every block waits only for blocks that run at once.
  EXPECT_NE(checkGemm(p, streamK(128, 264), hopper()).find("must all run at once"),
            std::string::npos);
  // Each cluster takes a k-tile at least.
  EXPECT_NE(checkGemm(problem(128, 128, 64), streamK(128, 16), hopper())
                .find("stream_k shares 1 k-tiles (1 tiles of 1), fewer than the 16 clusters"),
            std::string::npos);
  GemmProblem invariant = p;
  invariant.batchInvariant = true;
  EXPECT_NE(checkGemm(invariant, streamK(128, 132), hopper()).find("batch-invariant"),
            std::string::npos);
}

TEST(GemmWgmma, RefusesExtentsPastTmaCoordinates) {
  GemmProblem p = problem(int64_t(1) << 32, 8, 8);
  GemmConfig c = chooseWgmmaGemmConfig(problem(1024, 1024, 1024), hopper());
  EXPECT_NE(checkGemm(p, c, hopper()).find("up to 2^31 - 1 elements"), std::string::npos);
}

TEST(GemmWgmma, RefusesPersistentGridsOfOtherKernels) {
  GemmConfig c = chooseGemmConfig(problem(1024, 1024, 1024), hopper());
  c.persistent = 132;
  EXPECT_NE(checkGemm(problem(1024, 1024, 1024), c, hopper()).find("persistent grid"),
            std::string::npos);
}

TEST(GemmWgmma, RefusesBlocksThatAreNotWarpgroupTiles) {
  GemmConfig c = chooseWgmmaGemmConfig(problem(1024, 1024, 1024), hopper());
  c.warpsM = 2;
  EXPECT_NE(checkGemm(problem(1024, 1024, 1024), c, hopper()).find("a wgmma block is warpgroups"),
            std::string::npos);
  c = chooseWgmmaGemmConfig(problem(1024, 1024, 1024), hopper());
  c.blockK = 32;
  EXPECT_NE(checkGemm(problem(1024, 1024, 1024), c, hopper())
                .find("K tile is one 128-byte row: 64 of bf16, got 32"),
            std::string::npos);
  c = chooseWgmmaGemmConfig(problem(1024, 1024, 1024), hopper());
  c.blockN = 512;
  EXPECT_NE(checkGemm(problem(1024, 1024, 1024), c, hopper()).find("a multiple of 8 from 8 to 256"),
            std::string::npos);
}

// The configurations a sweep times: the chooser's first, then neighbours
// the checks pass, each once; decoding's swapped problems have swapped
// neighbours alone, a swapped row of 128-row tiles has unswapped ones.
TEST(GemmCandidates, StartWithTheChoiceAndPassTheChecks) {
  for (GemmProblem p :
       {problem(3000, 1000, 3000), problem(128, 6144, 4096), problem(8192, 8192, 1000),
        problem(1000, 1000, 1000), problem(128, 4096, 4096)}) {
    std::vector<GemmConfig> candidates = gemmCandidates(p, hopper());
    GemmConfig chosen = chooseWgmmaGemmConfig(p, hopper());
    ASSERT_GT(candidates.size(), 10u);
    EXPECT_EQ(candidates[0].blockN, chosen.blockN);
    EXPECT_EQ(candidates[0].persistent, chosen.persistent);
    EXPECT_EQ(candidates[0].cluster, chosen.cluster);
    EXPECT_EQ(candidates[0].streamK, chosen.streamK);
    EXPECT_EQ(candidates[0].swapAB, chosen.swapAB);
    std::set<
        std::tuple<int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, bool, bool, bool>>
        seen;
    for (const GemmConfig &c : candidates) {
      EXPECT_EQ(checkGemm(p, c, hopper()), "");
      EXPECT_TRUE(seen.insert({c.blockM, c.blockN, c.stages, c.persistent, c.cluster, c.splitK,
                               c.raster, c.pingpong, c.streamK, c.swapAB})
                      .second);
    }
    // Only the chooser's is swapped.
    EXPECT_EQ(std::count_if(candidates.begin(), candidates.end(),
                            [](const GemmConfig &c) { return c.swapAB; }),
              chosen.swapAB ? 1 : 0);
    // Narrow tiles and 64-row ones are among them.
    EXPECT_TRUE(std::any_of(candidates.begin(), candidates.end(),
                            [](const GemmConfig &c) { return c.blockN == 48; }));
    EXPECT_TRUE(std::any_of(candidates.begin(), candidates.end(),
                            [](const GemmConfig &c) { return c.blockM == 64; }));
  }
  // Decoding: the chooser's (64 rows split by 2), then 64 or 128 rows of N
  // split by 1-3, all swapped, each once.
  std::vector<GemmConfig> decoding = gemmCandidates(problem(16, 4096, 4096), hopper());
  EXPECT_EQ(decoding.size(), 6u);
  std::set<std::pair<int64_t, int64_t>> variants;
  for (const GemmConfig &c : decoding) {
    EXPECT_EQ(checkGemm(problem(16, 4096, 4096), c, hopper()), "");
    EXPECT_TRUE(c.swapAB);
    EXPECT_EQ(c.blockM, 16);
    variants.insert({c.blockN, c.splitK});
  }
  EXPECT_EQ(variants.size(), 6u);
  EXPECT_EQ(*variants.rbegin(), std::pair(int64_t(128), int64_t(3)));
}

// What every front end does (spio-jit, the C API, Python): choose for the
// problem and the target, then check. A chooser's configuration the checks
// refuse would fail a call that should run; over many random problems of
// every layout, dtype, batch, group and reduction depth, on Hopper parts
// of several SM counts and on sm_80, none is refused, and each launch plan
// fits CUDA's limits.
TEST(GemmChooser, EveryChosenConfigurationPassesTheChecks) {
  std::mt19937_64 rng(20261130);
  auto pick = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  // Sizes spread over the decades from 1 to 40000, multiples of 8 and
  // ragged ones alike.
  auto size = [&] {
    int64_t top = std::array<int64_t, 5>{8, 64, 1024, 8192, 40000}[pick(0, 4)];
    int64_t s = pick(1, top);
    return pick(0, 1) ? std::max<int64_t>(8, s / 8 * 8) : s;
  };
  std::vector<spio::Target> targets{hopper(), hopperWith(114), hopperWith(131),
                                    *spio::referenceTarget("sm_80")};
  int checked = 0;
  for (int i = 0; i < 6000; ++i) {
    const spio::Target &target = targets[i % targets.size()];
    GemmProblem p = problem(size(), size(), size());
    p.a = pick(0, 1) ? Layout::RowMajor : Layout::ColMajor;
    p.b = pick(0, 1) ? Layout::RowMajor : Layout::ColMajor;
    p.input = std::array<DType, 3>{DType::BF16, DType::F16, DType::F32}[pick(0, 2)];
    p.output = std::array<DType, 3>{DType::BF16, DType::F16, DType::F32}[pick(0, 2)];
    if (p.input == DType::F32)
      p.precision =
          std::array<F32Precision, 4>{F32Precision::Highest, F32Precision::High,
                                      F32Precision::Medium, F32Precision::Tf32}[pick(0, 3)];
    p.readsC = pick(0, 3) == 0;
    p.batchInvariant = pick(0, 9) == 0;
    if (pick(0, 4) == 0) {
      p.batch = pick(2, 8);
      p.batchA = pick(0, 3) != 0;
      p.batchB = !p.batchA || pick(0, 1);
    } else if (pick(0, 6) == 0 && p.input != DType::F32 && !p.batchInvariant &&
               target.chip == "sm_90") {
      // Groups (a Hopper kernel, operands read in place: contiguous sizes
      // multiples of 8) of rows (MoE: A K-major, B K-major or N-major where
      // K is a multiple of 64), or of K (their weight gradient: A and B
      // hold K along their rows).
      p.groups = pick(1, 16);
      p.groupedReduction = pick(0, 1);
      auto eights = [](int64_t v) { return std::max<int64_t>(8, v / 8 * 8); };
      if (p.groupedReduction) {
        p.a = Layout::ColMajor;
        p.b = Layout::RowMajor;
        p.m = eights(p.m);
        p.n = eights(p.n);
      } else {
        p.a = Layout::RowMajor;
        p.k = p.b == Layout::RowMajor ? std::max<int64_t>(64, p.k / 64 * 64) : eights(p.k);
        if (p.b == Layout::RowMajor)
          p.n = eights(p.n);
      }
    }
    if (pick(0, 3) == 0 && !p.groupedReduction) {
      p.bias = pick(0, 1) ? Along::Rows : Along::Cols;
      p.epilogue = {EpilogueStep::Bias, std::array<EpilogueStep, 4>{
                                            EpilogueStep::Relu, EpilogueStep::GeluTanh,
                                            EpilogueStep::GeluErf, EpilogueStep::Silu}[pick(0, 3)]};
      if (p.readsC)
        p.epilogue.push_back(EpilogueStep::Residual);
      p.storesPreActivation = pick(0, 2) == 0;
    }
    // The problem's own refusals (sizes, dtypes, precisions a target does
    // not run) are not the chooser's: a configuration-independent one
    // refuses the default configuration too.
    bool hopperTarget = target.chip.rfind("sm_90", 0) == 0;
    if (p.precision == F32Precision::Tf32 && !hopperTarget)
      continue;
    bool wgmma = hopperTarget && gemmPrefersWgmma(p, target);
    p.packLayouts = wgmma;
    GemmConfig c = wgmma ? chooseWgmmaGemmConfig(p, target) : chooseGemmConfig(p, target);
    std::string refused = checkGemm(p, c, target);
    SCOPED_TRACE(target.chip + " " + std::to_string(target.multiprocessors) +
                 " SMs: " + std::to_string(p.m) + "x" + std::to_string(p.n) + "x" +
                 std::to_string(p.k) + " " + dtypeName(p.input) + "->" + dtypeName(p.output) +
                 " a " + (p.a == Layout::RowMajor ? "row" : "col") + " b " +
                 (p.b == Layout::RowMajor ? "row" : "col") + " batch " + std::to_string(p.batch) +
                 " groups " + std::to_string(p.groups) + (p.groupedReduction ? " of K" : "") +
                 (p.batchInvariant ? " invariant" : "") + (p.epilogue.empty() ? "" : " epilogue"));
    EXPECT_EQ(refused, "");
    if (refused.empty()) {
      LaunchPlan plan = gemmLaunchPlan(p, c);
      expectPlanFitsCuda(plan);
      // A cluster's blocks (pairs, or blocks splitting K) are consecutive
      // along x: the GEMM's grid holds whole clusters.
      EXPECT_EQ(plan.kernels.back().shape.gridX % (c.cluster * c.splitK), 0);
    }
    ++checked;
  }
  EXPECT_GT(checked, 5000);
}

} // namespace
