//===- HostFloatTest.cpp - f16/bf16 host conversions ----------------------===//

#include "spio/Runtime/HostFloat.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

using namespace spio::runtime;

namespace {

TEST(HostFloat, BF16RoundTripsEveryBF16Value) {
  for (uint32_t h = 0; h < 0x10000; ++h) {
    float f = bf16ToFloat(uint16_t(h));
    if (std::isnan(f))
      continue;
    EXPECT_EQ(floatToBF16(f), h);
  }
}

TEST(HostFloat, F16RoundTripsEveryF16Value) {
  for (uint32_t h = 0; h < 0x10000; ++h) {
    float f = f16ToFloat(uint16_t(h));
    if (std::isnan(f))
      continue;
    EXPECT_EQ(floatToF16(f), h) << std::hex << h;
  }
}

TEST(HostFloat, RoundsToNearestEven) {
  // 1 + 2^-8 is halfway between bf16 1.0 and 1.0078125: ties to even (1.0).
  EXPECT_EQ(bf16ToFloat(floatToBF16(1.0f + std::ldexp(1.0f, -8))), 1.0f);
  EXPECT_EQ(bf16ToFloat(floatToBF16(1.0f + 3 * std::ldexp(1.0f, -8))), 1.015625f);
  // f16: 1 + 2^-11 ties to 1.0; 2049 ties to 2048, 2051 to 2052.
  EXPECT_EQ(f16ToFloat(floatToF16(1.0f + std::ldexp(1.0f, -11))), 1.0f);
  EXPECT_EQ(f16ToFloat(floatToF16(2049.0f)), 2048.0f);
  EXPECT_EQ(f16ToFloat(floatToF16(2051.0f)), 2052.0f);
}

TEST(HostFloat, F16OverflowAndSubnormals) {
  EXPECT_TRUE(std::isinf(f16ToFloat(floatToF16(70000.0f))));
  EXPECT_EQ(f16ToFloat(floatToF16(std::ldexp(1.0f, -24))), std::ldexp(1.0f, -24));
  EXPECT_EQ(f16ToFloat(floatToF16(std::ldexp(1.0f, -26))), 0.0f);
  EXPECT_EQ(floatToF16(-0.0f), 0x8000);
}

TEST(HostFloat, NaNStaysNaN) {
  float nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_TRUE(std::isnan(bf16ToFloat(floatToBF16(nan))));
  EXPECT_TRUE(std::isnan(f16ToFloat(floatToF16(nan))));
}

} // namespace
