//===- GemmTest.cpp - The GEMM family's rules and configuration -----------===//

#include "spio/Kernels/Gemm.h"

#include <gtest/gtest.h>

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
  EXPECT_EQ(checkGemm(problem(4097, 4095, 4096), GemmConfig()), "");
  EXPECT_EQ(checkGemm(problem(1, 1, 8), GemmConfig()), "");
}

TEST(GemmCheck, RejectsUnalignedContiguousDimensionOfEachLayout) {
  GemmProblem p = problem(64, 64, 1001);
  EXPECT_NE(checkGemm(p, GemmConfig()).find("A is contiguous along K = 1001"), std::string::npos);
  p = problem(100, 64, 64);
  p.a = Layout::ColMajor;
  EXPECT_NE(checkGemm(p, GemmConfig()).find("A is contiguous along M = 100"), std::string::npos);
  p = problem(64, 100, 64);
  p.b = Layout::RowMajor;
  EXPECT_NE(checkGemm(p, GemmConfig()).find("B is contiguous along N = 100"), std::string::npos);
  // B column major (N x K) only needs K aligned.
  p.b = Layout::ColMajor;
  EXPECT_EQ(checkGemm(p, GemmConfig()), "");
}

TEST(GemmCheck, RejectsF32InputsAndEmptyProblems) {
  GemmProblem p = problem(64, 64, 64);
  p.input = DType::F32;
  EXPECT_NE(checkGemm(p, GemmConfig()), "");
  EXPECT_NE(checkGemm(problem(0, 64, 64), GemmConfig()).find("must be positive"),
            std::string::npos);
}

TEST(GemmCheck, RejectsTilesThatDoNotDivide) {
  GemmConfig c;
  c.blockM = 96; // not a power of two
  EXPECT_NE(checkGemm(problem(256, 256, 256), c).find("does not divide"), std::string::npos);
  c = GemmConfig();
  c.blockK = 8; // below one k16 step
  EXPECT_NE(checkGemm(problem(256, 256, 256), c), "");
  c = GemmConfig();
  c.stages = 0;
  EXPECT_NE(checkGemm(problem(256, 256, 256), c).find("stage"), std::string::npos);
}

TEST(GemmCheck, RejectsMoreBlockRowsThanAGridHolds) {
  // 128-row blocks: 65535 block rows hold M up to 8388480.
  GemmConfig c;
  c.blockM = 128;
  EXPECT_EQ(checkGemm(problem(8388480, 64, 64), c), "");
  EXPECT_NE(checkGemm(problem(8388481, 64, 64), c).find("65536 block rows of 128, over the 65535"),
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
  EXPECT_EQ(checkGemm(problem(4096, 4096, 4096), c), "");
  c.stages = 5;
  EXPECT_NE(checkGemm(problem(4096, 4096, 4096), c).find("need 245760 bytes of shared memory"),
            std::string::npos);
  // M = 2^63 - 1 would overflow the block-row count.
  EXPECT_NE(checkGemm(problem(INT64_MAX, 64, 64), GemmConfig()).find("over the 2^40 elements"),
            std::string::npos);
  // N = 2^37 within 2^40 elements (K = 8), in 16-column tiles: 2^33 block
  // columns, over the 2^31 - 1 a grid holds along x; 128-column tiles fit.
  GemmConfig narrow;
  narrow.blockM = narrow.blockN = 16;
  narrow.blockK = 32;
  narrow.warpsM = narrow.warpsN = 1;
  EXPECT_NE(checkGemm(problem(8, int64_t(1) << 37, 8), narrow).find("along x: split N"),
            std::string::npos);
  EXPECT_EQ(checkGemm(problem(8, int64_t(1) << 37, 8), GemmConfig()), "");
}

TEST(GemmCheck, RejectsNonPositiveWarpsAndRaster) {
  GemmConfig c;
  c.warpsM = 0; // would divide by zero in the tile check
  EXPECT_EQ(checkGemm(problem(256, 256, 256), c), "warp counts must be positive, got 0x2");
  c = GemmConfig();
  c.warpsN = -2;
  EXPECT_EQ(checkGemm(problem(256, 256, 256), c), "warp counts must be positive, got 2x-2");
  c = GemmConfig();
  c.raster = -1;
  EXPECT_EQ(checkGemm(problem(256, 256, 256), c), "raster groups must be positive, got -1");
}

TEST(GemmConfigChoice, LargeTilesWhenTheyFillTheGpu) {
  GemmConfig c = chooseGemmConfig(problem(4096, 4096, 4096), 132);
  EXPECT_EQ(c.blockM, 128);
  EXPECT_EQ(c.blockN, 128);
  EXPECT_EQ(c.threads(), 128);
  EXPECT_EQ(c.raster, 8);
  EXPECT_EQ(checkGemm(problem(4096, 4096, 4096), c), "");
}

TEST(GemmConfigChoice, SmallTilesWhenLargeOnesLeaveMultiprocessorsIdle) {
  GemmConfig c = chooseGemmConfig(problem(128, 4096, 4096), 132);
  EXPECT_EQ(c.blockM, 64);
  EXPECT_EQ(c.blockN, 64);
  EXPECT_EQ(checkGemm(problem(128, 4096, 4096), c), "");
}

TEST(GemmConfigChoice, NoRasterWhenGroupsDoNotDivideTheRows) {
  // 4097 rows: 33 block rows, not a multiple of 8.
  EXPECT_EQ(chooseGemmConfig(problem(4097, 4095, 4096), 132).raster, 1);
}

TEST(GemmLaunch, OneBlockPerOutputTile) {
  GemmConfig c;
  LaunchShape s = gemmLaunchShape(problem(4097, 4095, 64), c);
  EXPECT_EQ(s.gridX, 32); // ceil(4095 / 128)
  EXPECT_EQ(s.gridY, 33); // ceil(4097 / 128)
  EXPECT_EQ(s.block, c.threads());
}

TEST(GemmWgmma, TakesKMajorOperandsOnly) {
  GemmProblem p = problem(256, 256, 256);
  EXPECT_TRUE(wgmmaSupports(p));
  p.a = Layout::ColMajor;
  EXPECT_FALSE(wgmmaSupports(p));
  GemmConfig c = chooseWgmmaGemmConfig(problem(256, 256, 256), 132);
  EXPECT_NE(checkGemm(p, c).find("wgmma kernels take A row major and B column major"),
            std::string::npos);
}

// 128-row blocks on a persistent grid of a block an SM where their tiles
// keep the SMs busy (three rounds, or a last round 85% full); else a block a
// tile of 64 rows, 64 x 128 where that nearly fills the SMs, else 64 x 64.
TEST(GemmWgmma, ChoosesPersistentBlocksThatKeepTheSMsBusy) {
  auto tile = [](int64_t m, int64_t n, int64_t sms) {
    GemmConfig c = chooseWgmmaGemmConfig(problem(m, n, 4096), sms);
    EXPECT_EQ(checkGemm(problem(m, n, 4096), c), "");
    EXPECT_EQ(c.warpsM * 16, c.blockM);
    return std::pair{c.blockM, c.blockN};
  };
  EXPECT_EQ(tile(4096, 4096, 132), (std::pair<int64_t, int64_t>{128, 256}));  // 512 tiles
  EXPECT_EQ(tile(2048, 3072, 132), (std::pair<int64_t, int64_t>{128, 128}));  // 192: 2 rounds, 73%
  EXPECT_EQ(tile(2048, 3072, 100), (std::pair<int64_t, int64_t>{128, 256}));  // 192: 96%
  EXPECT_EQ(tile(1024, 1024, 132), (std::pair<int64_t, int64_t>{64, 128}));   // 128 tiles
  // 224 tiles of 128 x 128 fill the SMs but not two rounds: a block a tile.
  EXPECT_EQ(tile(128, 28672, 132), (std::pair<int64_t, int64_t>{128, 128}));
  EXPECT_EQ(chooseWgmmaGemmConfig(problem(128, 28672, 4096), 132).persistent, 0);
  EXPECT_EQ(chooseWgmmaGemmConfig(problem(16, 28672, 4096), 132).blockM, 64);
  EXPECT_EQ(chooseWgmmaGemmConfig(problem(2048, 3072, 4096), 132).persistent, 132);
  EXPECT_EQ(chooseWgmmaGemmConfig(problem(1024, 1024, 4096), 132).persistent, 0);
  EXPECT_EQ(tile(128, 4096, 132), (std::pair<int64_t, int64_t>{64, 64}));     // 64 x 128: 64
  EXPECT_EQ(gemmLaunchShape(problem(4096, 4096, 4096),
                            chooseWgmmaGemmConfig(problem(4096, 4096, 4096), 132))
                .gridX,
            132);
}



// A grid under one wave keeps more tiles in flight a block.
TEST(GemmWgmma, TakesMoreStagesUnderOneWave) {
  EXPECT_EQ(chooseWgmmaGemmConfig(problem(128, 4096, 4096), 132).stages, 8); // 128 blocks
  EXPECT_EQ(chooseWgmmaGemmConfig(problem(1024, 1024, 1024), 132).stages, 8); // 128 blocks
  EXPECT_EQ(chooseWgmmaGemmConfig(problem(2048, 3072, 768), 132).stages, 4);  // persistent
  EXPECT_EQ(chooseWgmmaGemmConfig(problem(4096, 4096, 4096), 132).stages, 4);
}

// Pairs of blocks share B tiles over long reductions where tile rows pair up.
TEST(GemmWgmma, ClustersPairsOverLongReductions) {
  EXPECT_EQ(chooseWgmmaGemmConfig(problem(8192, 8192, 8192), 132).cluster, 2);
  EXPECT_EQ(chooseWgmmaGemmConfig(problem(4096, 4096, 4096), 132).cluster, 1);  // 64 k-tiles
  EXPECT_EQ(chooseWgmmaGemmConfig(problem(4224, 8192, 8192), 132).cluster, 1);  // 33 tile rows
  GemmConfig c = chooseWgmmaGemmConfig(problem(8192, 8192, 8192), 132);
  EXPECT_EQ(checkGemm(problem(8192, 8192, 8192), c), "");
  EXPECT_EQ(gemmTensorMapShape(problem(8192, 8192, 8192), c, 'b').boxRows, 128u);
  c.persistent = 131;
  EXPECT_NE(checkGemm(problem(8192, 8192, 8192), c).find("a cluster is 1 block, or 2"),
            std::string::npos);
}

TEST(GemmWgmma, RefusesExtentsPastTmaCoordinates) {
  GemmProblem p = problem(int64_t(1) << 32, 8, 8);
  GemmConfig c = chooseWgmmaGemmConfig(problem(1024, 1024, 1024), 132);
  EXPECT_NE(checkGemm(p, c).find("up to 2^31 - 1 elements"), std::string::npos);
}

TEST(GemmWgmma, RefusesPersistentGridsOfOtherKernels) {
  GemmConfig c = chooseGemmConfig(problem(1024, 1024, 1024), 132);
  c.persistent = 132;
  EXPECT_NE(checkGemm(problem(1024, 1024, 1024), c).find("persistent grid"), std::string::npos);
}

TEST(GemmWgmma, RefusesBlocksThatAreNotWarpgroupTiles) {
  GemmConfig c = chooseWgmmaGemmConfig(problem(1024, 1024, 1024), 132);
  c.warpsM = 2;
  EXPECT_NE(checkGemm(problem(1024, 1024, 1024), c).find("a wgmma block is warpgroups"),
            std::string::npos);
  c = chooseWgmmaGemmConfig(problem(1024, 1024, 1024), 132);
  c.blockK = 32;
  EXPECT_NE(checkGemm(problem(1024, 1024, 1024), c).find("K tile is 64"), std::string::npos);
  c = chooseWgmmaGemmConfig(problem(1024, 1024, 1024), 132);
  c.blockN = 512;
  EXPECT_NE(checkGemm(problem(1024, 1024, 1024), c).find("multiple of 8 from 8 to 256"),
            std::string::npos);
}

} // namespace
