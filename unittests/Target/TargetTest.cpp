//===- TargetTest.cpp - Chips' reference parts and target checks ----------===//

#include "spio/Target/Target.h"

#include <gtest/gtest.h>

namespace {

TEST(Target, ReferencePartsOfTheChipsSpioCompilesFor) {
  for (const char *chip : {"sm_80", "sm_86", "sm_89", "sm_90", "sm_90a"}) {
    std::optional<spio::Target> target = spio::referenceTarget(chip);
    ASSERT_TRUE(target) << chip;
    EXPECT_EQ(target->chip, chip);
    EXPECT_EQ(spio::checkTarget(*target), "") << chip;
    // Its shared memory is the chip's.
    EXPECT_EQ(target->sharedBytesPerBlock, spio::sharedMemoryOf(chip).perBlock);
    EXPECT_EQ(target->sharedBytesPerMultiprocessor, spio::sharedMemoryOf(chip).perMultiprocessor);
  }
  spio::Target hopper = *spio::referenceTarget("sm_90");
  EXPECT_EQ(hopper.part, "H100 SXM");
  EXPECT_EQ(hopper.multiprocessors, 132);
  EXPECT_EQ(hopper.l2Bytes, int64_t(50) << 20);
  EXPECT_EQ(hopper.sharedBytesPerBlock, 227 * 1024);
  // Clusters of 3 and 4 leave some of the GPCs' multiprocessors idle.
  EXPECT_EQ(hopper.clusters(2), 66);
  EXPECT_EQ(hopper.clusters(3), 39);
  EXPECT_EQ(hopper.clusters(4), 30);
  EXPECT_EQ(hopper.clusters(1), 132);
  // Unknown: as many as the multiprocessors hold.
  spio::Target unknown = hopper;
  unknown.clustersAtOnce[1] = 0;
  EXPECT_EQ(unknown.clusters(3), 44);
  EXPECT_EQ(spio::referenceTarget("sm_80")->clusters(2), 54);
  EXPECT_EQ(spio::referenceTarget("sm_80")->multiprocessors, 108);
  EXPECT_EQ(spio::referenceTarget("sm_86")->sharedBytesPerBlock, 99 * 1024);
  for (const char *chip : {"sm_75", "sm_100", "", "garbage"})
    EXPECT_FALSE(spio::referenceTarget(chip)) << chip;
}

TEST(Target, ChecksSayWhichFactIsMissing) {
  spio::Target target = *spio::referenceTarget("sm_90");
  target.multiprocessors = 0;
  EXPECT_EQ(spio::checkTarget(target), "the target's multiprocessors must be positive");
  target = *spio::referenceTarget("sm_90");
  target.sharedBytesPerMultiprocessor = -1;
  EXPECT_EQ(spio::checkTarget(target),
            "the target's shared bytes a multiprocessor must be positive");
  target = *spio::referenceTarget("sm_90");
  target.memoryBytesPerSecond = 0;
  EXPECT_EQ(spio::checkTarget(target), "the target's memory bandwidth must be positive");
  target.chip = "sm_75";
  EXPECT_NE(spio::checkTarget(target).find("unsupported target chip 'sm_75'"), std::string::npos);
  EXPECT_NE(spio::checkTarget(spio::Target()).find("unsupported target chip ''"),
            std::string::npos);
}

} // namespace
