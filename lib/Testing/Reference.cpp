//===- Reference.cpp - Host data and the reference tolerance model ---------===//

#include "spio/Testing/Reference.h"

#include "spio/Runtime/HostFloat.h"
#include "spio/Runtime/HostRandom.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <set>

namespace spio::testing {

using kernels::DType;

HostMatrix::HostMatrix(DType dtype, size_t count)
    : dtype(dtype), bytes(count * kernels::dtypeBytes(dtype)), values(count) {}

void HostMatrix::set(size_t i, float value) {
  if (dtype == DType::F32) {
    values[i] = value;
    std::memcpy(&bytes[4 * i], &value, 4);
    return;
  }
  uint16_t h = dtype == DType::BF16 ? runtime::floatToBF16(value) : runtime::floatToF16(value);
  values[i] = dtype == DType::BF16 ? runtime::bf16ToFloat(h) : runtime::f16ToFloat(h);
  std::memcpy(&bytes[2 * i], &h, 2);
}

float HostMatrix::read(size_t i) const {
  if (dtype == DType::F32) {
    float value;
    std::memcpy(&value, &bytes[4 * i], 4);
    return value;
  }
  uint16_t h;
  std::memcpy(&h, &bytes[2 * i], 2);
  return dtype == DType::BF16 ? runtime::bf16ToFloat(h) : runtime::f16ToFloat(h);
}

void HostMatrix::fillUniform(uint64_t seed, uint64_t stream) {
  // A layer's hundreds of MB had taken seconds on one thread.
  runtime::parallelRanges(values.size(), [&](size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i)
      set(i, runtime::uniformAt(seed, stream, i));
  });
}

ReferenceSum gemmReference(const kernels::GemmProblem &problem, const HostMatrix &a,
                           const HostMatrix &b, size_t entryA, size_t entryB, size_t row,
                           size_t col, size_t kBegin, size_t kEnd) {
  size_t m = problem.m, n = problem.n, k = problem.k;
  // Element (r, c) of entry `entry` of a batch of rows x cols matrices.
  auto at = [](const HostMatrix &mat, kernels::Layout layout, size_t entry, size_t rows,
               size_t cols, size_t r, size_t c) {
    size_t first = entry * rows * cols;
    return layout == kernels::Layout::RowMajor ? mat.values[first + r * cols + c]
                                               : mat.values[first + c * rows + r];
  };
  ReferenceSum total;
  for (size_t kk = kBegin; kk < std::min(kEnd, k); ++kk) {
    double product = double(at(a, problem.a, entryA, m, k, row, kk)) *
                     double(at(b, problem.b, entryB, k, n, kk, col));
    total.sum += product;
    total.magnitude += std::fabs(product);
  }
  return total;
}

EpilogueReference applyEpilogue(const std::vector<kernels::EpilogueStep> &steps, ReferenceSum value,
                                double scale, double bias, double residual) {
  EpilogueReference out{value.sum, value.magnitude};
  double &x = out.sum;
  // Each step scales what the earlier ones' rounding and approximations
  // can have moved x by as it scales x (at most).
  auto scaleErrors = [&](double factor) {
    out.magnitude *= factor;
    out.approximation *= factor;
  };
  for (kernels::EpilogueStep step : steps) {
    switch (step) {
    case kernels::EpilogueStep::Scale:
      x *= scale;
      scaleErrors(std::fabs(scale));
      break;
    case kernels::EpilogueStep::Bias:
      x += bias;
      out.magnitude += std::fabs(bias);
      break;
    case kernels::EpilogueStep::Residual:
      x += residual;
      out.magnitude += std::fabs(residual);
      break;
    case kernels::EpilogueStep::Relu:
      x = std::max(x, 0.0);
      break;
    case kernels::EpilogueStep::GeluTanh:
      scaleErrors(1.13);
      out.approximation += std::ldexp(std::fabs(x), -12);
      x = 0.5 * x * (1 + std::tanh(std::sqrt(2 / M_PI) * (x + 0.044715 * x * x * x)));
      break;
    case kernels::EpilogueStep::GeluErf:
      x = 0.5 * x * (1 + std::erf(x * M_SQRT1_2));
      scaleErrors(1.13);
      break;
    case kernels::EpilogueStep::Silu:
      x = x / (1 + std::exp(-x));
      scaleErrors(1.1);
      break;
    }
  }
  return out;
}

std::vector<std::array<size_t, 3>> gemmCheckedElements(const kernels::GemmProblem &problem,
                                                       uint64_t seed) {
  size_t m = problem.m, n = problem.n, k = problem.k, batches = problem.batch;
  std::vector<std::array<size_t, 3>> points;
  if (batches * m * n * k <= (size_t(1) << 31)) {
    for (size_t entry = 0; entry < batches; ++entry)
      for (size_t r = 0; r < m; ++r)
        for (size_t c = 0; c < n; ++c)
          points.push_back({entry, r, c});
    return points;
  }
  std::mt19937_64 rng(seed);
  std::vector<size_t> rows = {0, m - 1}, cols = {0, n - 1};
  for (int s = 0; s < 14; ++s) {
    rows.push_back(rng() % m);
    cols.push_back(rng() % n);
  }
  std::set<size_t> sampled = {0, batches - 1, size_t(rng() % batches)};
  for (size_t entry : sampled) {
    for (size_t r : rows)
      for (size_t c = 0; c < n; ++c)
        points.push_back({entry, r, c});
    for (size_t c : cols)
      for (size_t r = 0; r < m; ++r)
        points.push_back({entry, r, c});
  }
  return points;
}

ReferenceSum conv2dReference(const kernels::Conv2dProblem &p, const std::vector<float> &input,
                             const std::vector<float> &weights, size_t image, size_t row,
                             size_t col, size_t channel) {
  size_t h = p.h, w = p.w, c = p.c, k = p.k, r = p.r, s = p.s;
  size_t outH = kernels::conv2dOutputHeight(p), outW = kernels::conv2dOutputWidth(p);
  bool dgrad = p.pass == kernels::ConvPass::Dgrad;
  // w's rows hold a group's input channels; `channel`'s group (an output
  // channel's, dgrad: an input channel's) reads its group's alone.
  size_t groupInputs = kernels::conv2dGroupInputs(p), groupOutputs = kernels::conv2dGroupOutputs(p);
  size_t group = channel / (dgrad ? groupInputs : groupOutputs);
  ReferenceSum total;
  auto add = [&](double product) {
    total.sum += product;
    total.magnitude += std::fabs(product);
  };
  for (size_t fr = 0; fr < r; ++fr) {
    for (size_t fs = 0; fs < s; ++fs) {
      if (dgrad) {
        // The dy position whose tap (fr, fs) reads x at (row, col).
        int64_t ph = int64_t(row) + p.padH - int64_t(fr) * p.dilationH;
        int64_t pw = int64_t(col) + p.padW - int64_t(fs) * p.dilationW;
        if (ph < 0 || pw < 0 || ph % p.strideH || pw % p.strideW ||
            ph / p.strideH >= int64_t(outH) || pw / p.strideW >= int64_t(outW))
          continue;
        size_t at = ((image * outH + size_t(ph / p.strideH)) * outW + size_t(pw / p.strideW)) * k;
        for (size_t o = group * groupOutputs; o < (group + 1) * groupOutputs; ++o)
          add(double(input[at + o]) *
              double(weights[((o * r + fr) * s + fs) * groupInputs + channel % groupInputs]));
        continue;
      }
      int64_t ih = int64_t(row * p.strideH + fr * p.dilationH) - p.padH;
      int64_t iw = int64_t(col * p.strideW + fs * p.dilationW) - p.padW;
      if (ih < 0 || ih >= int64_t(h) || iw < 0 || iw >= int64_t(w))
        continue;
      size_t at = ((image * h + size_t(ih)) * w + size_t(iw)) * c + group * groupInputs;
      size_t tap = ((channel * r + fr) * s + fs) * groupInputs;
      for (size_t ch = 0; ch < groupInputs; ++ch)
        add(double(input[at + ch]) * double(weights[tap + ch]));
    }
  }
  return total;
}

ReferenceSum conv2dWgradReference(const kernels::Conv2dProblem &p, const std::vector<float> &x,
                                  const std::vector<float> &dy, size_t k, size_t r, size_t s,
                                  size_t c) {
  size_t outH = kernels::conv2dOutputHeight(p), outW = kernels::conv2dOutputWidth(p);
  // `c` is of k's group's input channels.
  size_t channel = k / kernels::conv2dGroupOutputs(p) * kernels::conv2dGroupInputs(p) + c;
  ReferenceSum total;
  for (size_t image = 0; image < size_t(p.n); ++image)
    for (size_t row = 0; row < outH; ++row) {
      int64_t ih = int64_t(row) * p.strideH + int64_t(r) * p.dilationH - p.padH;
      if (ih < 0 || ih >= p.h)
        continue;
      for (size_t col = 0; col < outW; ++col) {
        int64_t iw = int64_t(col) * p.strideW + int64_t(s) * p.dilationW - p.padW;
        if (iw < 0 || iw >= p.w)
          continue;
        double product = double(dy[((image * outH + row) * outW + col) * p.k + k]) *
                         double(x[((image * p.h + size_t(ih)) * p.w + size_t(iw)) * p.c + channel]);
        total.sum += product;
        total.magnitude += std::fabs(product);
      }
    }
  return total;
}

ReferenceSum conv2dGw8Reference(const kernels::Conv2dGw8Problem &p, const std::vector<float> &input,
                                const std::vector<float> &weights, size_t image, size_t row,
                                size_t col, size_t channel) {
  // The kernel reads `input` (x, or dgrad's dy) at its padding and taps,
  // dgrad's flipped; the channel's group is its g input channels.
  int64_t g = p.groupWidth, c = p.c, inH = p.kernelInH(), inW = p.kernelInW();
  bool dgrad = p.dgrad();
  int64_t o = int64_t(channel);
  ReferenceSum total;
  for (int64_t r = 0; r < p.r; ++r)
    for (int64_t s = 0; s < p.s; ++s) {
      // fprop reads input row stride * p + r - pad; dgrad reads the
      // upsampled dy at p + r - pad, which holds dy[u / stride] where u
      // is a multiple of the stride.
      int64_t h = int64_t(row) * p.stride + r - p.kernelPadH();
      int64_t w = int64_t(col) * p.stride + s - p.kernelPadW();
      if (dgrad) {
        h = int64_t(row) + r - p.kernelPadH();
        w = int64_t(col) + s - p.kernelPadW();
        if (h % p.stride != 0 || w % p.stride != 0)
          continue;
        h /= p.stride;
        w /= p.stride;
      }
      if (h < 0 || h >= inH || w < 0 || w >= inW)
        continue;
      for (int64_t j = 0; j < g; ++j) {
        int64_t in = g * (o / g) + j;
        // w[k, r, s, c]: fprop k = o, c = in; dgrad k = in, c = o, taps flipped.
        int64_t weight = dgrad ? ((in * p.r + (p.r - 1 - r)) * p.s + (p.s - 1 - s)) * g + o % g
                               : ((o * p.r + r) * p.s + s) * g + j;
        double product = double(input[((int64_t(image) * inH + h) * inW + w) * c + in]) *
                         double(weights[weight]);
        total.sum += product;
        total.magnitude += std::fabs(product);
      }
    }
  return total;
}

ReferenceSum conv2dGw8WgradReference(const kernels::Conv2dGw8Problem &p,
                                     const std::vector<float> &x, const std::vector<float> &dy,
                                     size_t k, size_t r, size_t s, size_t c) {
  int64_t outH = p.outH(), outW = p.outW(), in = p.groupWidth * (int64_t(k) / p.groupWidth) + c;
  ReferenceSum total;
  for (int64_t image = 0; image < p.n; ++image)
    for (int64_t row = 0; row < outH; ++row) {
      int64_t h = row * p.stride + int64_t(r) - p.padH;
      if (h < 0 || h >= p.h)
        continue;
      for (int64_t col = 0; col < outW; ++col) {
        int64_t w = col * p.stride + int64_t(s) - p.padW;
        if (w < 0 || w >= p.w)
          continue;
        double product = double(dy[((image * outH + row) * outW + col) * p.c + int64_t(k)]) *
                         double(x[((image * p.h + h) * p.w + w) * p.c + in]);
        total.sum += product;
        total.magnitude += std::fabs(product);
      }
    }
  return total;
}

double unitRoundoff(DType dtype) {
  switch (dtype) {
  case DType::F16:
    return std::ldexp(1.0, -11);
  case DType::BF16:
    return std::ldexp(1.0, -8);
  case DType::F32:
    return std::ldexp(1.0, -24);
  }
  return 1;
}

double gemmProductError(const kernels::GemmProblem &problem) {
  if (problem.input != DType::F32)
    return 0;
  double u = unitRoundoff(DType::BF16);
  switch (problem.precision) {
  case kernels::F32Precision::Highest:
    return 4 * u * u * u;
  case kernels::F32Precision::High:
    return 3 * u * u;
  case kernels::F32Precision::Medium:
    return 2 * u + u * u;
  case kernels::F32Precision::Tf32: {
    // Each f32 keeps 10 mantissa bits (TMA rounds to nearest; the bound
    // holds for truncation too).
    double t = std::ldexp(1.0, -10);
    return 2 * t + t * t;
  }
  }
  return 0;
}

ReferenceCheck::ReferenceCheck(DType output, double chain, double productError)
    : u(unitRoundoff(output)), chain(chain), productError(productError) {}

void ReferenceCheck::add(double got, double expected, double magnitude,
                         const std::function<std::string()> &where) {
  add(got, EpilogueReference{expected, magnitude}, where);
}

void ReferenceCheck::add(double got, const EpilogueReference &expected,
                         const std::function<std::string()> &where) {
  double tolerance = u * std::fabs(expected.sum) +
                     (2.0 * chain * std::ldexp(1.0, -24) + productError) * expected.magnitude +
                     expected.approximation + 1e-6;
  double err = std::fabs(got - expected.sum);
  if (!(err <= tolerance)) {
    if (failures.size() < 5) {
      char line[160];
      std::snprintf(line, sizeof(line), " = %g, expected %g (tolerance %g)", got, expected.sum,
                    tolerance);
      failures.push_back(where() + line);
    }
    ++bad;
  }
  if (expected.magnitude > 0)
    worst = std::max(worst, err / expected.magnitude);
  ++count;
}

} // namespace spio::testing
