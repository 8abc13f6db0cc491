//===- ChipTest.cpp - Chip names and what they can do ---------------------===//

#include "spio/Target/Chip.h"

#include <gtest/gtest.h>

namespace {

TEST(Chip, VersionFromName) {
  EXPECT_EQ(spio::chipVersion("sm_90"), 90);
  EXPECT_EQ(spio::chipVersion("sm_90a"), 90);
  EXPECT_EQ(spio::chipVersion("sm_100a"), 100);
  EXPECT_EQ(spio::chipVersion("sm_80"), 80);
  EXPECT_EQ(spio::chipVersion("compute_90"), 0);
  EXPECT_EQ(spio::chipVersion("sm_"), 0);
  EXPECT_EQ(spio::chipVersion(""), 0);
}

TEST(Chip, DependentGridsFromSm90) {
  EXPECT_TRUE(spio::hasDependentGrids("sm_90"));
  EXPECT_TRUE(spio::hasDependentGrids("sm_90a"));
  EXPECT_TRUE(spio::hasDependentGrids("sm_120"));
  EXPECT_FALSE(spio::hasDependentGrids("sm_89"));
  EXPECT_FALSE(spio::hasDependentGrids("sm_80"));
  EXPECT_FALSE(spio::hasDependentGrids("gfx90a"));
}

} // namespace
