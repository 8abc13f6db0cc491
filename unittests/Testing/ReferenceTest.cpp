//===- ReferenceTest.cpp - Host data and the reference tolerance model ----===//

#include "spio/Testing/Reference.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <tuple>

using spio::kernels::Conv2dGw8Problem;
using spio::kernels::Conv2dProblem;
using spio::kernels::ConvPass;
using spio::kernels::DType;
using spio::kernels::EpilogueStep;
using spio::kernels::F32Precision;
using spio::kernels::GemmProblem;
using spio::kernels::Layout;
using spio::testing::applyEpilogue;
using spio::testing::conv2dGw8Reference;
using spio::testing::conv2dGw8WgradReference;
using spio::testing::conv2dReference;
using spio::testing::conv2dWgradReference;
using spio::testing::EpilogueReference;
using spio::testing::gemmCheckedElements;
using spio::testing::gemmProductError;
using spio::testing::gemmReference;
using spio::testing::HostMatrix;
using spio::testing::ReferenceCheck;
using spio::testing::unitRoundoff;

namespace {

/// A GEMM element of each layout of A and B, and of a batch's entries, is
/// the dot product of A's row and B's column.
TEST(GemmReferenceTest, ReadsEachLayoutAndBatchEntry) {
  GemmProblem p;
  p.m = 3;
  p.n = 2;
  p.k = 4;
  HostMatrix a(DType::F32, 2 * 3 * 4), b(DType::F32, 2 * 4 * 2);
  a.fillUniform(1, 0);
  b.fillUniform(1, 1);
  for (Layout la : {Layout::RowMajor, Layout::ColMajor})
    for (Layout lb : {Layout::RowMajor, Layout::ColMajor}) {
      p.a = la;
      p.b = lb;
      for (size_t entry : {0, 1}) {
        double expected = 0, magnitude = 0;
        for (size_t kk = 0; kk < 4; ++kk) {
          float x = a.values[entry * 12 + (la == Layout::RowMajor ? 2 * 4 + kk : kk * 3 + 2)];
          float y = b.values[entry * 8 + (lb == Layout::RowMajor ? kk * 2 + 1 : 1 * 4 + kk)];
          expected += double(x) * y;
          magnitude += std::fabs(double(x) * y);
        }
        auto [sum, bound] = gemmReference(p, a, b, entry, entry, 2, 1);
        EXPECT_DOUBLE_EQ(sum, expected);
        EXPECT_DOUBLE_EQ(bound, magnitude);
      }
    }
}

TEST(GemmReferenceTest, AppliesTheEpilogueInOrder) {
  auto [value, magnitude, approximation] = applyEpilogue(
      {EpilogueStep::Scale, EpilogueStep::Bias, EpilogueStep::Relu}, {2.0, 3.0}, -1.5, 1.0, 0.0);
  EXPECT_DOUBLE_EQ(value, 0.0); // relu(2 * -1.5 + 1)
  EXPECT_DOUBLE_EQ(magnitude, 3.0 * 1.5 + 1.0);
  EXPECT_EQ(approximation, 0.0);
  EXPECT_DOUBLE_EQ(
      applyEpilogue({EpilogueStep::Residual, EpilogueStep::Scale}, {1.0, 1.0}, 2.0, 0.0, 0.5).sum,
      3.0);
  EXPECT_NEAR(applyEpilogue({EpilogueStep::GeluErf}, {1.0, 1.0}, 0, 0, 0).sum, 0.8413447, 1e-6);
  EXPECT_NEAR(applyEpilogue({EpilogueStep::Silu}, {1.0, 1.0}, 0, 0, 0).sum, 0.7310586, 1e-6);
}

TEST(GemmReferenceTest, GeluTanhAllowsTheHardwareTanhsErrorScaledByLaterSteps) {
  // tanh.approx.f32 errs by up to 2^-11 of tanh(u): 2^-12 |x| of 0.5 x (1 +
  // tanh(u)); a later scale of -2 and a gelu's slope (1.13) scale it.
  EpilogueReference gelu = applyEpilogue({EpilogueStep::GeluTanh}, {-3.0, 4.0}, 0, 0, 0);
  EXPECT_NEAR(gelu.sum, -0.0036373, 1e-6);
  EXPECT_DOUBLE_EQ(gelu.approximation, 3.0 / 4096);
  EpilogueReference scaled = applyEpilogue(
      {EpilogueStep::GeluTanh, EpilogueStep::Scale, EpilogueStep::Silu}, {-3.0, 4.0}, -2, 0, 0);
  EXPECT_DOUBLE_EQ(scaled.approximation, 3.0 / 4096 * 2 * 1.1);
  EXPECT_EQ(applyEpilogue({EpilogueStep::GeluErf}, {-3.0, 4.0}, 0, 0, 0).approximation, 0.0);
  // The check's tolerance takes it in: an f32 output of a chain of 1.
  ReferenceCheck check(DType::F32, 1);
  double rest = std::ldexp(1.0, -24) * std::fabs(gelu.sum) +
                2.0 * std::ldexp(1.0, -24) * gelu.magnitude + 1e-6;
  check.add(gelu.sum + 0.99 * (gelu.approximation + rest), gelu, [] { return "d[0]"; });
  EXPECT_EQ(check.wrong(), 0u);
  check.add(gelu.sum + 1.01 * (gelu.approximation + rest), gelu, [] { return "d[1]"; });
  EXPECT_EQ(check.wrong(), 1u);
}

/// Small problems check every element; large ones every column of sampled
/// rows and every row of sampled columns, the last (ragged) ones included,
/// the same for a seed.
TEST(GemmReferenceTest, ChecksEveryElementOrSampledRowsAndColumns) {
  GemmProblem small;
  small.m = 5;
  small.n = 3;
  small.k = 8;
  small.batch = 2;
  EXPECT_EQ(gemmCheckedElements(small, 1).size(), 2u * 5 * 3);
  GemmProblem large;
  large.m = 4097;
  large.n = 4095;
  large.k = 4096;
  auto points = gemmCheckedElements(large, 7);
  EXPECT_EQ(points, gemmCheckedElements(large, 7));
  EXPECT_NE(points, gemmCheckedElements(large, 8));
  auto has = [&](size_t r, size_t c) {
    return std::find(points.begin(), points.end(), std::array<size_t, 3>{0, r, c}) != points.end();
  };
  EXPECT_TRUE(has(4096, 17));
  EXPECT_TRUE(has(23, 4094));
  EXPECT_EQ(points.size(), 16u * 4095 + 16u * 4097);
}

/// dgrad's and wgrad's references are the adjoints of fprop's: <conv(x, w),
/// dy> equals <x, dgrad(dy, w)> and <wgrad(x, dy), w> for any x, w and dy,
/// stride, padding and dilation.
TEST(Conv2dReferenceTest, DgradAndWgradAreTheAdjointsOfFprop) {
  for (auto [stride, pad, dilation] :
       {std::tuple{1, 1, 1}, std::tuple{2, 1, 1}, std::tuple{1, 2, 2}, std::tuple{2, 0, 1}}) {
    Conv2dProblem p;
    p.n = 2;
    p.h = 7;
    p.w = 6;
    p.c = 3;
    p.k = 4;
    p.r = 3;
    p.s = 2;
    p.strideH = p.strideW = stride;
    p.padH = p.padW = pad;
    p.dilationH = p.dilationW = dilation;
    size_t outH = conv2dOutputHeight(p), outW = conv2dOutputWidth(p);
    ASSERT_GT(outH * outW, 0u);
    HostMatrix x(DType::F32, p.n * p.h * p.w * p.c), w(DType::F32, p.k * p.r * p.s * p.c),
        dy(DType::F32, p.n * outH * outW * p.k);
    x.fillUniform(7, 0);
    w.fillUniform(7, 1);
    dy.fillUniform(7, 2);
    double forward = 0, backward = 0;
    for (size_t i = 0; i < size_t(p.n); ++i) {
      for (size_t row = 0; row < outH; ++row)
        for (size_t col = 0; col < outW; ++col)
          for (size_t o = 0; o < size_t(p.k); ++o)
            forward += conv2dReference(p, x.values, w.values, i, row, col, o).sum *
                       dy.values[((i * outH + row) * outW + col) * p.k + o];
      Conv2dProblem d = p;
      d.pass = ConvPass::Dgrad;
      for (size_t row = 0; row < size_t(p.h); ++row)
        for (size_t col = 0; col < size_t(p.w); ++col)
          for (size_t ch = 0; ch < size_t(p.c); ++ch)
            backward += conv2dReference(d, dy.values, w.values, i, row, col, ch).sum *
                        x.values[((i * p.h + row) * p.w + col) * p.c + ch];
    }
    double weights = 0;
    for (size_t o = 0; o < size_t(p.k); ++o)
      for (size_t fr = 0; fr < size_t(p.r); ++fr)
        for (size_t fs = 0; fs < size_t(p.s); ++fs)
          for (size_t ch = 0; ch < size_t(p.c); ++ch)
            weights += conv2dWgradReference(p, x.values, dy.values, o, fr, fs, ch).sum *
                       w.values[((o * p.r + fr) * p.s + fs) * p.c + ch];
    EXPECT_NEAR(forward, backward, 1e-9 * std::fabs(forward) + 1e-12)
        << "stride " << stride << " pad " << pad << " dilation " << dilation;
    EXPECT_NEAR(forward, weights, 1e-9 * std::fabs(forward) + 1e-12)
        << "stride " << stride << " pad " << pad << " dilation " << dilation;
    EXPECT_NE(forward, 0.0);
  }
}

/// Grouped weights [k, taps, c / groups] of `k` outputs in groups of
/// `groupOutputs` reading `groupInputs` of `c` channels each, as the dense
/// convolution's [k, taps, c]: zero outside each output channel's group.
HostMatrix blockDiagonal(const HostMatrix &w, size_t k, size_t taps, size_t c, size_t groupInputs,
                         size_t groupOutputs) {
  HostMatrix dense(DType::F32, k * taps * c);
  for (size_t o = 0; o < k; ++o)
    for (size_t tap = 0; tap < taps; ++tap)
      for (size_t ch = 0; ch < c; ++ch)
        if (ch / groupInputs == o / groupOutputs)
          dense.set((o * taps + tap) * c + ch,
                    w.values[(o * taps + tap) * groupInputs + ch % groupInputs]);
  return dense;
}

/// A grouped conv2d (groups of g channels) is the dense one whose weights
/// are zero outside each output channel's group: fprop, dgrad (stride 1
/// and 2, kernel padding negative too) and wgrad, for g = 1, 2, 4, 8.
TEST(Conv2dReferenceTest, GroupedIsDenseWithBlockDiagonalWeights) {
  for (auto [g, stride, pad] : {std::tuple{1, 1, 1}, std::tuple{2, 2, 1}, std::tuple{4, 1, 2},
                                std::tuple{8, 2, 0}, std::tuple{1, 2, 3}}) {
    Conv2dGw8Problem p;
    p.n = 2;
    p.c = 16;
    p.h = 7;
    p.w = 6;
    p.r = 3;
    p.s = 2;
    p.padH = p.padW = pad;
    p.stride = stride;
    p.groupWidth = g;
    Conv2dProblem d;
    d.n = p.n;
    d.h = p.h;
    d.w = p.w;
    d.c = d.k = p.c;
    d.r = p.r;
    d.s = p.s;
    d.strideH = d.strideW = stride;
    d.padH = d.padW = pad;
    size_t outH = p.outH(), outW = p.outW(), c = p.c;
    ASSERT_EQ(outH, size_t(conv2dOutputHeight(d)));
    ASSERT_EQ(outW, size_t(conv2dOutputWidth(d)));
    HostMatrix x(DType::F32, p.n * p.h * p.w * c), w(DType::F32, c * p.r * p.s * g),
        dy(DType::F32, p.n * outH * outW * c);
    x.fillUniform(11, 0);
    w.fillUniform(11, 1);
    dy.fillUniform(11, 2);
    HostMatrix dense = blockDiagonal(w, c, p.r * p.s, c, g, g);
    std::string where = "g " + std::to_string(g) + " stride " + std::to_string(stride) + " pad " +
                        std::to_string(pad);
    for (size_t i = 0; i < size_t(p.n); ++i)
      for (size_t o = 0; o < c; ++o) {
        for (size_t row = 0; row < outH; ++row)
          for (size_t col = 0; col < outW; ++col)
            EXPECT_NEAR(conv2dGw8Reference(p, x.values, w.values, i, row, col, o).sum,
                        conv2dReference(d, x.values, dense.values, i, row, col, o).sum, 1e-12)
                << where;
        Conv2dGw8Problem pd = p;
        pd.pass = ConvPass::Dgrad;
        Conv2dProblem dd = d;
        dd.pass = ConvPass::Dgrad;
        for (size_t row = 0; row < size_t(p.h); ++row)
          for (size_t col = 0; col < size_t(p.w); ++col)
            EXPECT_NEAR(conv2dGw8Reference(pd, dy.values, w.values, i, row, col, o).sum,
                        conv2dReference(dd, dy.values, dense.values, i, row, col, o).sum, 1e-12)
                << where;
      }
    for (size_t k = 0; k < c; ++k)
      for (size_t fr = 0; fr < size_t(p.r); ++fr)
        for (size_t fs = 0; fs < size_t(p.s); ++fs)
          for (size_t j = 0; j < size_t(g); ++j)
            EXPECT_NEAR(
                conv2dGw8WgradReference(p, x.values, dy.values, k, fr, fs, j).sum,
                conv2dWgradReference(d, x.values, dy.values, k, fr, fs, g * (k / g) + j).sum, 1e-12)
                << where;
  }
}

/// The implicit GEMM's groups (C / G inputs and K / G outputs, w [k, r, s,
/// C / G]): the dense conv2d whose weights are zero outside each output
/// channel's group, for fprop, dgrad (stride 1 and 2) and wgrad.
TEST(Conv2dReferenceTest, ImplicitGemmGroupsAreDenseWithBlockDiagonalWeights) {
  for (auto [groups, stride] : {std::pair{3, 1}, std::pair{3, 2}, std::pair{1, 2}}) {
    Conv2dProblem p;
    p.n = 2;
    p.h = 7;
    p.w = 6;
    p.c = 6;
    p.k = 9;
    p.r = 3;
    p.s = 2;
    p.strideH = p.strideW = stride;
    p.groups = groups;
    Conv2dProblem d = p;
    d.groups = 1;
    size_t outH = conv2dOutputHeight(p), outW = conv2dOutputWidth(p), c = p.c, k = p.k;
    size_t gc = c / groups, gk = k / groups, taps = p.r * p.s;
    HostMatrix x(DType::F32, p.n * p.h * p.w * c), w(DType::F32, k * taps * gc),
        dy(DType::F32, p.n * outH * outW * k);
    x.fillUniform(13, 0);
    w.fillUniform(13, 1);
    dy.fillUniform(13, 2);
    HostMatrix dense = blockDiagonal(w, k, taps, c, gc, gk);
    std::string where = "groups " + std::to_string(groups) + " stride " + std::to_string(stride);
    Conv2dProblem pd = p, dd = d;
    pd.pass = dd.pass = ConvPass::Dgrad;
    for (size_t i = 0; i < size_t(p.n); ++i) {
      for (size_t row = 0; row < outH; ++row)
        for (size_t col = 0; col < outW; ++col)
          for (size_t o = 0; o < k; ++o)
            EXPECT_NEAR(conv2dReference(p, x.values, w.values, i, row, col, o).sum,
                        conv2dReference(d, x.values, dense.values, i, row, col, o).sum, 1e-12)
                << where;
      for (size_t row = 0; row < size_t(p.h); ++row)
        for (size_t col = 0; col < size_t(p.w); ++col)
          for (size_t ch = 0; ch < c; ++ch)
            EXPECT_NEAR(conv2dReference(pd, dy.values, w.values, i, row, col, ch).sum,
                        conv2dReference(dd, dy.values, dense.values, i, row, col, ch).sum, 1e-12)
                << where;
    }
    for (size_t o = 0; o < k; ++o)
      for (size_t fr = 0; fr < size_t(p.r); ++fr)
        for (size_t fs = 0; fs < size_t(p.s); ++fs)
          for (size_t j = 0; j < gc; ++j)
            EXPECT_NEAR(
                conv2dWgradReference(p, x.values, dy.values, o, fr, fs, j).sum,
                conv2dWgradReference(d, x.values, dy.values, o, fr, fs, o / gk * gc + j).sum, 1e-12)
                << where;
  }
}

TEST(HostMatrixTest, ValuesAreRoundedToTheDtypeAndReadBackFromTheBytes) {
  HostMatrix bf16(DType::BF16, 2), f32(DType::F32, 1);
  bf16.set(0, 1.0f + std::ldexp(1.0f, -10)); // below bf16's resolution at 1
  bf16.set(1, -2.5f);
  f32.set(0, 0.1f);
  EXPECT_EQ(bf16.values[0], 1.0f);
  EXPECT_EQ(bf16.read(0), 1.0f);
  EXPECT_EQ(bf16.read(1), -2.5f);
  EXPECT_EQ(bf16.bytes.size(), 4u);
  EXPECT_EQ(f32.read(0), 0.1f);
}

TEST(HostMatrixTest, UniformInputsDependOnlyOnSeedStreamAndIndex) {
  HostMatrix a(DType::F16, 1000), b(DType::F16, 1000), c(DType::F16, 1000);
  a.fillUniform(7, 1);
  b.fillUniform(7, 1);
  c.fillUniform(7, 2);
  EXPECT_EQ(a.bytes, b.bytes);
  EXPECT_NE(a.bytes, c.bytes);
  for (float v : a.values)
    EXPECT_TRUE(v >= -1.0f && v < 1.0f);
}

TEST(ReferenceCheckTest, ToleranceIsTheOutputRoundingPlusTheChainOfAdditions) {
  EXPECT_EQ(unitRoundoff(DType::BF16), std::ldexp(1.0, -8));
  // f16 output, a chain of 1024 additions of terms whose magnitudes sum to 10:
  // tolerance = 2^-11 |expected| + 2 * 1024 * 2^-24 * 10 + 1e-6.
  ReferenceCheck check(DType::F16, 1024);
  double tolerance = std::ldexp(1.0, -11) * 4.0 + 2.0 * 1024 * std::ldexp(1.0, -24) * 10 + 1e-6;
  check.add(4.0 + 0.99 * tolerance, 4.0, 10, [] { return "y[0]"; });
  EXPECT_EQ(check.wrong(), 0u);
  check.add(4.0 + 1.01 * tolerance, 4.0, 10, [] { return "y[1]"; });
  check.add(NAN, 4.0, 10, [] { return "y[2]"; }); // an unwritten, poisoned output
  EXPECT_EQ(check.checked(), 3u);
  EXPECT_EQ(check.wrong(), 2u);
  ASSERT_EQ(check.firstFailures().size(), 2u);
  EXPECT_EQ(check.firstFailures()[0].rfind("y[1] = ", 0), 0u) << check.firstFailures()[0];
  EXPECT_NEAR(check.worstRelativeError(), 1.01 * tolerance / 10, 1e-12);
}

TEST(ReferenceCheckTest, KeepsTheFirstFiveFailures) {
  ReferenceCheck check(DType::F32, 1);
  for (int i = 0; i < 8; ++i)
    check.add(1.0, 0.0, 1.0, [i] { return "d[" + std::to_string(i) + "]"; });
  EXPECT_EQ(check.wrong(), 8u);
  EXPECT_EQ(check.firstFailures().size(), 5u);
}

TEST(ReferenceCheckTest, F32ProductsAllowWhatTheirBf16TermsLeaveOut) {
  GemmProblem p;
  EXPECT_EQ(gemmProductError(p), 0.0);
  p.input = DType::F32;
  double highest = gemmProductError(p);
  p.precision = F32Precision::High;
  double high = gemmProductError(p);
  p.precision = F32Precision::Medium;
  double medium = gemmProductError(p);
  EXPECT_EQ(highest, 4 * std::ldexp(1.0, -24));
  EXPECT_LT(highest, high);
  EXPECT_LT(high, medium);
  // An error of a bf16 rounding of each input passes at Medium only.
  ReferenceCheck coarse(DType::F32, 1, medium), fine(DType::F32, 1, high);
  double expected = 1.0, got = expected + 2 * std::ldexp(1.0, -9);
  coarse.add(got, expected, 1.0, [] { return "x"; });
  fine.add(got, expected, 1.0, [] { return "x"; });
  EXPECT_EQ(coarse.wrong(), 0u);
  EXPECT_EQ(fine.wrong(), 1u);
}

} // namespace
