//===- Reference.cpp - Host data and the reference tolerance model ---------===//

#include "spio/Testing/Reference.h"

#include "spio/Runtime/HostFloat.h"
#include "spio/Runtime/HostRandom.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

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
  }
  return 0;
}

ReferenceCheck::ReferenceCheck(DType output, double chain, double productError)
    : u(unitRoundoff(output)), chain(chain), productError(productError) {}

void ReferenceCheck::add(double got, double expected, double magnitude,
                         const std::function<std::string()> &where) {
  double tolerance =
      u * std::fabs(expected) +
      (2.0 * chain * std::ldexp(1.0, -24) + productError) * magnitude + 1e-6;
  double err = std::fabs(got - expected);
  if (!(err <= tolerance)) {
    if (failures.size() < 5) {
      char line[160];
      std::snprintf(line, sizeof(line), " = %g, expected %g (tolerance %g)", got, expected,
                    tolerance);
      failures.push_back(where() + line);
    }
    ++bad;
  }
  if (magnitude > 0)
    worst = std::max(worst, err / magnitude);
  ++count;
}

} // namespace spio::testing
