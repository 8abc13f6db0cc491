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

// spio's kernels need sm_80 and a PTX version LLVM's backend gives them.
TEST(Chip, ChecksTheTargetsSpioCompilesFor) {
  for (const char *chip : {"sm_80", "sm_86", "sm_89", "sm_90", "sm_90a"})
    EXPECT_EQ(spio::checkChip(chip), "") << chip;
  for (const char *chip : {"sm_75", "sm_10", "sm_999", "SM_90", "", "sm_", "garbage", "sm_100"})
    EXPECT_NE(spio::checkChip(chip).find("unsupported target chip '" + std::string(chip) + "'"),
              std::string::npos)
        << chip;
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
