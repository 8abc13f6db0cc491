//===- LaunchPlan.h - How a workload's kernels are launched -----*- C++ -*-===//
//
// The calling convention of a kernel family in one place: for a problem and
// a configuration, the kernels to launch in order, each with its grid and
// block, whether it may start as a dependent grid, and what each of its
// parameters holds (an operand's address, the workspace, a scalar, or an
// operand's TMA descriptor). spio-jit, the C API and Python launch from it.
// No LLVM dependency.
//
//===----------------------------------------------------------------------===//

#ifndef SPIO_KERNELS_LAUNCHPLAN_H
#define SPIO_KERNELS_LAUNCHPLAN_H

#include "spio/Kernels/Conv2d.h"
#include "spio/Kernels/Conv2dGw8.h"
#include "spio/Kernels/Gemm.h"

#include <string>
#include <vector>

namespace spio::kernels {

/// A device buffer the caller passes: its name (as Python's operand
/// dictionaries and spio-jit's messages say it) and whether it may be
/// absent (then its parameters are null).
struct PlanOperand {
  std::string name;
  bool optional = false;
};

/// A float the caller may set, and its value otherwise.
struct PlanScalar {
  std::string name;
  float defaultValue = 0.0f;
};

/// What one kernel parameter holds.
struct PlanParameter {
  enum class Kind {
    /// The address of operand `index` plus `offset` bytes (null where it
    /// is optional and absent).
    Operand,
    /// A null address (a parameter this problem does not use).
    Null,
    /// The workspace's address plus `offset` bytes.
    Workspace,
    /// Scalar `index`, an f32.
    Scalar,
    /// The 128-byte TMA descriptor of operand `index`, shaped `map`.
    TensorMap,
    /// The 128-byte TMA descriptor of what the workspace holds at `offset`
    /// bytes, shaped `map`.
    WorkspaceTensorMap,
    /// The 128-byte im2col TMA descriptor of operand `index`, shaped
    /// `im2col`.
    Im2colMap,
    /// The 128-byte im2col TMA descriptor of what the workspace holds at
    /// `offset` bytes, shaped `im2col`.
    WorkspaceIm2colMap,
  };
  Kind kind = Kind::Null;
  int index = -1;
  runtime::TensorMapShape map;
  int64_t offset = 0;
  runtime::Im2colMapShape im2col;
};

struct PlannedKernel {
  /// The gpu.func's name.
  std::string name;
  LaunchShape shape;
  /// Waits for the grids before it (spio.wait_prerequisites) before reading
  /// what they wrote, so it may launch as a dependent grid where its code
  /// does.
  bool dependent = false;
  std::vector<PlanParameter> parameters;
  /// Bytes of the workspace from `zeroOffset` that must be zero when the
  /// kernel starts (the launcher clears them on the stream first).
  int64_t zeroOffset = 0, zeroBytes = 0;
};

struct LaunchPlan {
  std::vector<PlanOperand> operands;
  std::vector<PlanScalar> scalars;
  /// Scratch bytes the kernels share (0: none); 16-byte aligned like every
  /// operand.
  int64_t workspaceBytes = 0;
  std::vector<PlannedKernel> kernels;
  /// The kernel doing the workload's multiply-adds (the GEMM's or the
  /// implicit GEMM's, a strided dgrad's first phase; a dgrad no tap of
  /// which reads dx, its zeroing kernel), after those preparing its
  /// operands: the one whose resources describe the plan.
  size_t mainKernel = 0;
};

/// Device addresses the kernels take are 16-byte aligned (16-byte vector
/// accesses and TMA).
constexpr int64_t kOperandAlignment = 16;

/// Requires checkGemm / checkConv2dGw8 to pass. A GEMM kernel takes its
/// parameters where `at` says (a workload the family built: gemmParameters;
/// one written by hand: as its gpu.func does) and is named `kernel`.
LaunchPlan gemmLaunchPlan(const GemmProblem &problem, const GemmConfig &config,
                          const GemmParameters &at, const std::string &kernel);
LaunchPlan gemmLaunchPlan(const GemmProblem &problem, const GemmConfig &config);
/// Requires checkConv2d to pass: operands x, w, y, C, bias, scale (the last
/// three where the epilogue reads them); the kernel `conv2d`, or dgrad's
/// (the zeroing kernel where it runs, then a kernel a phase: see
/// conv2dKernelName).
LaunchPlan conv2dLaunchPlan(const Conv2dProblem &problem, const GemmConfig &config);
/// One kernel, `problem`'s (a strided dgrad's phase), named `kernel` and
/// taking its parameters where `at` says (a workload written by hand: as
/// its gpu.func does).
LaunchPlan conv2dLaunchPlan(const Conv2dProblem &problem, const GemmConfig &config,
                            const Conv2dParameters &at, const std::string &kernel);
LaunchPlan conv2dGw8LaunchPlan(const Conv2dGw8Problem &problem, const Conv2dGw8Config &config);

} // namespace spio::kernels

#endif // SPIO_KERNELS_LAUNCHPLAN_H
