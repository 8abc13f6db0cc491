//===- HostRandomTest.cpp - Random inputs on the host ---------------------===//

#include "spio/Runtime/HostRandom.h"

#include <gtest/gtest.h>

#include <vector>

using namespace spio::runtime;

namespace {

TEST(HostRandom, UniformInMinusOneToOne) {
  double sum = 0, squares = 0;
  constexpr int kCount = 1 << 20;
  for (int i = 0; i < kCount; ++i) {
    float v = uniformAt(1, 0, i);
    ASSERT_GE(v, -1.0f);
    ASSERT_LT(v, 1.0f);
    sum += v;
    squares += double(v) * v;
  }
  // Mean 0 and variance 1/3, within a few standard errors.
  EXPECT_NEAR(sum / kCount, 0.0, 0.005);
  EXPECT_NEAR(squares / kCount, 1.0 / 3.0, 0.005);
}

TEST(HostRandom, ValuesDependOnSeedStreamAndIndexAlone) {
  EXPECT_EQ(uniformAt(7, 2, 12345), uniformAt(7, 2, 12345));
  int sameStream = 0, sameSeed = 0, sameIndex = 0;
  for (uint64_t i = 0; i < 1000; ++i) {
    sameStream += uniformAt(1, 0, i) == uniformAt(1, 1, i);
    sameSeed += uniformAt(1, 0, i) == uniformAt(2, 0, i);
    sameIndex += uniformAt(1, 0, i) == uniformAt(1, 0, i + 1);
  }
  EXPECT_LE(sameStream, 1);
  EXPECT_LE(sameSeed, 1);
  EXPECT_LE(sameIndex, 1);
}

TEST(HostRandom, RangesCoverEachIndexOnce) {
  for (size_t count : {size_t(0), size_t(1), size_t(1000), (size_t(5) << 20) + 3}) {
    std::vector<int> seen(count);
    parallelRanges(count, [&](size_t begin, size_t end) {
      ASSERT_LE(begin, end);
      for (size_t i = begin; i < end; ++i)
        ++seen[i];
    });
    for (size_t i = 0; i < count; ++i)
      ASSERT_EQ(seen[i], 1) << "index " << i << " of " << count;
  }
}

} // namespace
