//===- Reference.h - Host data and the reference tolerance model -*- C++ -*-===//
//
// What checks a kernel against a float64 reference on the host: matrices
// of f16, bf16 or f32 with their bytes and rounded values, filled with the
// counter-based random inputs, and the tolerance model (the output's
// rounding plus the f32 error of its chain of additions). spio-jit checks
// every workload with it. No LLVM dependency.
//
//===----------------------------------------------------------------------===//

#ifndef SPIO_TESTING_REFERENCE_H
#define SPIO_TESTING_REFERENCE_H

#include "spio/Kernels/Conv2d.h"
#include "spio/Kernels/Conv2dGw8.h"
#include "spio/Kernels/Gemm.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace spio::testing {

/// A host matrix of 16-bit or 32-bit floats: its bytes and its values.
struct HostMatrix {
  kernels::DType dtype;
  std::vector<uint8_t> bytes;
  /// As rounded to dtype.
  std::vector<float> values;

  HostMatrix(kernels::DType dtype, size_t count);
  void set(size_t i, float value);
  /// Element `i` of `bytes` (as a kernel wrote them).
  float read(size_t i) const;
  /// Fresh inputs: uniform values in [-1, 1) of `seed`'s stream `stream`,
  /// rounded to dtype, made on all the host's threads.
  void fillUniform(uint64_t seed, uint64_t stream);
};

/// The unit roundoff of `dtype` (2^-11 for f16, 2^-8 for bf16, 2^-24 f32).
double unitRoundoff(kernels::DType dtype);

/// The relative error of each product of a GEMM's inputs as its kernel
/// forms it: 0 for f16 and bf16 (exact in f32), and for f32 inputs what
/// their bf16 terms and the products left out miss (about 4 u^3, 3 u^2 and
/// 2 u for Highest, High and Medium, u = 2^-8), or TF32's 10-bit mantissas
/// (at most about 2^-9).
double gemmProductError(const kernels::GemmProblem &problem);

/// A float64 sum and the sum of its terms' absolute values.
struct ReferenceSum {
  double sum = 0, magnitude = 0;
};

/// Element (`row`, `col`) of A @ B, A entry `entryA` and B entry `entryB`
/// of a batch (a broadcast operand's 0, a grouped GEMM's B the row's
/// group), each stored in the problem's layout; summed over K's
/// [`kBegin`, `kEnd`) (a group that splits K), all of it by default.
ReferenceSum gemmReference(const kernels::GemmProblem &problem, const HostMatrix &a,
                           const HostMatrix &b, size_t entryA, size_t entryB, size_t row,
                           size_t col, size_t kBegin = 0, size_t kEnd = SIZE_MAX);

/// An output's float64 reference after the epilogue.
struct EpilogueReference {
  double sum = 0, magnitude = 0;
  /// What the kernel's approximate functions may add to its error: gelu_tanh's
  /// tanh.approx.f32 errs by up to 2^-11 of tanh, 2^-12 |x| of the output.
  double approximation = 0;
};

/// The epilogue's `steps` on a float64 reference: `value.sum` becomes the
/// output's value and `value.magnitude` bounds what rounding before each
/// step can have moved it (activations' slopes are at most 1.13), with the
/// element's scale, bias and residual (beta * C) values given.
EpilogueReference applyEpilogue(const std::vector<kernels::EpilogueStep> &steps, ReferenceSum value,
                                double scale, double bias, double residual);

/// The elements of D a check compares, as {batch entry, row, column}: all
/// of them for small problems; else every column of sampled rows and every
/// row of sampled columns (the first and last, ragged ones, among them) of
/// the first and last batch entries and a random one, drawn from `seed`.
std::vector<std::array<size_t, 3>> gemmCheckedElements(const kernels::GemmProblem &problem,
                                                       uint64_t seed);

/// One output of a conv2d on the implicit GEMM (`problem`'s sizes the
/// forward's) at image `image`, position (`row`, `col`) and channel
/// `channel`: fprop's y from x (NHWC) and w (KRSC, C a group's), dgrad's dx
/// from dy (N, P, Q, K) and w, any stride and groups.
ReferenceSum conv2dReference(const kernels::Conv2dProblem &problem, const std::vector<float> &input,
                             const std::vector<float> &weights, size_t image, size_t row,
                             size_t col, size_t channel);

/// One weight gradient of a conv2d on the implicit GEMM (`problem`'s sizes
/// the forward's): dw[k, r, s, c] (c of k's group's channels) from x (NHWC)
/// and dy (N, P, Q, K), a sum over every output position.
ReferenceSum conv2dWgradReference(const kernels::Conv2dProblem &problem,
                                  const std::vector<float> &x, const std::vector<float> &dy,
                                  size_t k, size_t r, size_t s, size_t c);

/// One output of a grouped conv2d (groups of `problem.groupWidth`
/// channels, C = K) at image `image`, position (`row`, `col`) and channel
/// `channel` of the kernel's output: fprop's y from x (NHWC) and w [k, r,
/// s, g], dgrad's dx from dy (N, P, Q, C) and w, stride 1 or 2.
ReferenceSum conv2dGw8Reference(const kernels::Conv2dGw8Problem &problem,
                                const std::vector<float> &input, const std::vector<float> &weights,
                                size_t image, size_t row, size_t col, size_t channel);

/// One weight gradient of a grouped conv2d: dw[k, r, s, c] (c of k's group
/// of `problem.groupWidth`) from x and dy (N, P, Q, C).
ReferenceSum conv2dGw8WgradReference(const kernels::Conv2dGw8Problem &problem,
                                     const std::vector<float> &x, const std::vector<float> &dy,
                                     size_t k, size_t r, size_t s, size_t c);

/// Compares a kernel's outputs with float64 references. An output passes
/// within its dtype's rounding of the reference plus the f32 error of a
/// chain of `chain` additions of terms whose absolute values sum to the
/// output's `magnitude`, plus `productError` times that magnitude.
class ReferenceCheck {
public:
  ReferenceCheck(kernels::DType output, double chain, double productError = 0);

  /// Checks one output; `where` names it among the first failures kept.
  void add(double got, double expected, double magnitude,
           const std::function<std::string()> &where);
  /// The same for an epilogue's output, within its approximations too.
  void add(double got, const EpilogueReference &expected,
           const std::function<std::string()> &where);

  size_t checked() const { return count; }
  size_t wrong() const { return bad; }
  /// The largest error relative to its output's magnitude.
  double worstRelativeError() const { return worst; }
  /// The first few failures, each "where = got, expected e (tolerance t)".
  const std::vector<std::string> &firstFailures() const { return failures; }

private:
  double u, chain, productError;
  double worst = 0;
  size_t bad = 0, count = 0;
  std::vector<std::string> failures;
};

} // namespace spio::testing

#endif // SPIO_TESTING_REFERENCE_H
