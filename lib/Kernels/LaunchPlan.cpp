//===- LaunchPlan.cpp - How a workload's kernels are launched -------------===//

#include "spio/Kernels/LaunchPlan.h"

#include <optional>
#include <tuple>

namespace spio::kernels {

namespace {

using Kind = PlanParameter::Kind;

PlanParameter operand(int index, int64_t offset = 0) { return {Kind::Operand, index, {}, offset}; }
PlanParameter null() { return {Kind::Null, -1, {}}; }
PlanParameter workspace(int64_t offset = 0) { return {Kind::Workspace, -1, {}, offset}; }

/// Operand `index`, or what the workspace holds at `offset` where there is
/// one (an operand packed, expanded or unfolded there).
PlanParameter operandOr(std::optional<int64_t> offset, int index) {
  return offset ? workspace(*offset) : operand(index);
}

/// The TMA descriptor shaped `map` of the same.
PlanParameter tensorMapOf(std::optional<int64_t> offset, int index, runtime::TensorMapShape map) {
  return offset ? PlanParameter{Kind::WorkspaceTensorMap, -1, map, *offset}
                : PlanParameter{Kind::TensorMap, index, map};
}

/// The im2col TMA descriptor shaped `shape` of the same.
PlanParameter im2colMapOf(std::optional<int64_t> offset, int index, runtime::Im2colMapShape shape) {
  PlanParameter parameter = offset ? PlanParameter{Kind::WorkspaceIm2colMap, -1, {}, *offset}
                                   : PlanParameter{Kind::Im2colMap, index, {}};
  parameter.im2col = shape;
  return parameter;
}

} // namespace

LaunchPlan gemmLaunchPlan(const GemmProblem &problem, const GemmConfig &config) {
  return gemmLaunchPlan(problem, config, gemmParameters(problem, config), "gemm");
}

LaunchPlan gemmLaunchPlan(const GemmProblem &problem, const GemmConfig &config,
                          const GemmParameters &at, const std::string &name) {
  enum { A, B, C, D, Bias, Scale, Groups, Pre };
  enum { Alpha, Beta };
  LaunchPlan plan;
  plan.operands = {{"A", false},
                   {"B", false},
                   {"C", !problem.readsC},
                   {"D", false},
                   {"bias", problem.bias == Along::None},
                   {"scale", problem.scale == Along::None},
                   {"groups", problem.groups == 0}};
  // Only a kernel that stores the pre-activation takes it (the launchers
  // of the others keep their operands).
  if (problem.storesPreActivation)
    plan.operands.push_back({"pre", false});
  plan.scalars = {{"alpha", 1.0f}, {"beta", 0.0f}};
  // Packed operands: each packing kernel writes its operand's packed form
  // into the workspace, which the GEMM reads.
  plan.workspaceBytes = gemmWorkspaceBytes(problem, config);
  for (auto [index, which, kernelName] :
       {std::tuple{int(A), 'a', kGemmPackA}, std::tuple{int(B), 'b', kGemmPackB}})
    if (gemmPacksOperand(problem, which))
      plan.kernels.push_back({kernelName,
                              gemmPackLaunchShape(problem, which),
                              false,
                              {operand(index), workspace(gemmPackedOffset(problem, which))}});
  PlannedKernel kernel{name, gemmLaunchShape(problem, config), false,
                       std::vector<PlanParameter>(at.count)};
  auto place = [&](int position, PlanParameter parameter) {
    if (position >= 0)
      kernel.parameters[position] = parameter;
  };
  auto packed = [&](char which) {
    return gemmPacksOperand(problem, which) ? std::optional(gemmPackedOffset(problem, which))
                                            : std::nullopt;
  };
  auto tensorMap = [&](int index, char which) {
    return tensorMapOf(packed(which), index, gemmTensorMapShape(problem, config, which));
  };
  auto matrix = [&](int index, char which) { return operandOr(packed(which), index); };
  place(at.a, matrix(A, 'a'));
  place(at.b, matrix(B, 'b'));
  place(at.c, operand(C));
  place(at.d, operand(D));
  place(at.bias, operand(Bias));
  place(at.scale, operand(Scale));
  place(at.groups, operand(Groups));
  place(at.pre, operand(Pre));
  // Stream-K's partial sums and flags, or the spilled sums of k ranges,
  // follow the packed operands; the flags start cleared.
  int64_t flagsOffset = gemmBlockSumsOffset(problem) + gemmBlockSumsBytes(config);
  place(at.partials, workspace(gemmBlockSumsOffset(problem)));
  place(at.rangeSums, workspace(gemmBlockSumsOffset(problem)));
  place(at.flags, workspace(flagsOffset));
  if (config.streamK) {
    kernel.zeroOffset = flagsOffset;
    kernel.zeroBytes = gemmStreamKFlagBytes(config);
  }
  place(at.alpha, {Kind::Scalar, Alpha, {}});
  place(at.beta, {Kind::Scalar, Beta, {}});
  place(at.aMap, tensorMap(A, 'a'));
  place(at.bMap, tensorMap(B, 'b'));
  plan.mainKernel = plan.kernels.size();
  plan.kernels.push_back(std::move(kernel));
  return plan;
}

namespace {

enum { X, W, Y, C, Bias, Scale };

/// The operands of a conv2d plan.
LaunchPlan conv2dOperands(const Conv2dProblem &problem) {
  GemmProblem gemm = conv2dGemmProblem(problem);
  LaunchPlan plan;
  // wgrad reads x and dy and writes dw.
  bool wgrad = problem.pass == ConvPass::Wgrad;
  plan.operands = {{"x", false},
                   {wgrad ? "dy" : "w", false},
                   {wgrad ? "dw" : "y", false},
                   {"C", !gemm.readsC},
                   {"bias", gemm.bias == Along::None},
                   {"scale", gemm.scale == Along::None}};
  return plan;
}

/// Where the implicit-GEMM kernel reads x and w: the operands, or (at
/// these offsets) the workspace where they are unfolded or expanded there.
struct Conv2dSources {
  std::optional<int64_t> x, w;
};

/// The implicit-GEMM kernel of `problem` (a kernel problem: a strided
/// dgrad's phase, y at the phase's first position), reading x and w from
/// `sources`, and wgrad writing its sums into the workspace at `sums` for
/// the reduce kernel.
PlannedKernel conv2dKernel(const Conv2dProblem &problem, const GemmConfig &config,
                           const Conv2dParameters &at, const std::string &name,
                           Conv2dSources sources = {}, std::optional<int64_t> sums = {}) {
  PlannedKernel kernel{name, conv2dLaunchShape(problem, config), false,
                       std::vector<PlanParameter>(at.count)};
  kernel.parameters[at.x] = operandOr(sources.x, X);
  kernel.parameters[at.w] = operandOr(sources.w, W);
  kernel.parameters[at.y] = sums ? workspace(*sums) : operand(Y, conv2dPhaseOffsetBytes(problem));
  for (auto [position, index] :
       {std::pair{at.c, int(C)}, std::pair{at.bias, int(Bias)}, std::pair{at.scale, int(Scale)}})
    if (position >= 0)
      kernel.parameters[position] = operand(index);
  if (!config.wgmma)
    return kernel;
  GemmConfig phaseConfig = conv2dPhaseConfig(problem, config);
  kernel.parameters[at.xMap] =
      conv2dWgradReadsXAsMatrix(problem)
          ? tensorMapOf(sources.x, X, conv2dInputMatrixMapShape(problem, phaseConfig))
          : im2colMapOf(sources.x, X, conv2dInputMapShape(problem, phaseConfig));
  kernel.parameters[at.wMap] =
      tensorMapOf(sources.w, W, conv2dWeightMapShape(problem, phaseConfig));
  return kernel;
}

} // namespace

LaunchPlan conv2dLaunchPlan(const Conv2dProblem &problem, const GemmConfig &config) {
  Conv2dProblem kernels = conv2dKernelProblem(problem);
  if (problem.pass != ConvPass::Dgrad && !conv2dBlockDiagonal(problem) &&
      !conv2dExpandsWeights(problem) && !conv2dUnfolds(problem))
    return conv2dLaunchPlan(problem, config, conv2dParameters(problem, config), "conv2d");
  LaunchPlan plan = conv2dOperands(problem);
  plan.workspaceBytes = conv2dWorkspaceBytes(problem);
  Conv2dSources sources;
  int64_t unfolded = 0;
  if (conv2dUnfolds(problem)) {
    // x and (fprop) w unfolded into the workspace first; the kernel then
    // convolves the R' x 1 taps of the two.
    unfolded = conv2dUnfoldedXBytes(problem);
    plan.kernels.push_back(
        {kConv2dUnfoldX, conv2dUnfoldLaunchShape(problem, 'x'), false, {operand(X), workspace()}});
    sources.x = 0;
    if (problem.pass == ConvPass::Fprop) {
      plan.kernels.push_back({kConv2dUnfoldW,
                              conv2dUnfoldLaunchShape(problem, 'w'),
                              false,
                              {operand(W), workspace(unfolded)}});
      sources.w = unfolded;
      plan.mainKernel = plan.kernels.size();
      plan.kernels.push_back(
          conv2dKernel(kernels, config, conv2dParameters(kernels, config), "conv2d", sources));
      return plan;
    }
  }
  if (problem.pass == ConvPass::Wgrad) {
    // The kernel's sums (in parts, of the blocks, or of dw'), then the
    // reduce kernel adds them into dw.
    plan.mainKernel = plan.kernels.size();
    plan.kernels.push_back(conv2dKernel(kernels, config, conv2dParameters(kernels, config),
                                        "conv2d", sources, unfolded));
    plan.kernels.push_back({"conv2d_wgrad_reduce",
                            conv2dWgradReduceLaunchShape(problem),
                            false,
                            {workspace(unfolded), operand(Y)}});
    return plan;
  }
  // Block-diagonal or padded groups: fprop and dgrad read w expanded.
  if (conv2dExpandsWeights(problem)) {
    plan.kernels.push_back({kConv2dExpandWeights,
                            conv2dExpandWeightsLaunchShape(problem),
                            false,
                            {operand(W), workspace()}});
    sources.w = 0;
  }
  if (problem.pass == ConvPass::Fprop) {
    plan.mainKernel = plan.kernels.size();
    plan.kernels.push_back(
        conv2dKernel(kernels, config, conv2dParameters(kernels, config), "conv2d", sources));
    return plan;
  }
  // dgrad: positions no tap reads zeroed, then a kernel a phase (one at
  // stride 1).
  size_t first = plan.kernels.size();
  if (conv2dDgradZeroes(kernels))
    plan.kernels.push_back(
        {kConv2dDgradZero, conv2dDgradZeroLaunchShape(kernels), false, {operand(Y)}});
  // The first phase's kernel, or where no tap reads dx (a 1x1 stride-2
  // layer over a row of height 1) the zeroing kernel, the plan's last.
  plan.mainKernel = plan.kernels.size();
  for (const Conv2dProblem &phase : conv2dDgradPhases(kernels))
    plan.kernels.push_back(conv2dKernel(phase, config, conv2dParameters(phase, config),
                                        conv2dKernelName(phase), sources));
  plan.mainKernel = std::min(plan.mainKernel, plan.kernels.size() - 1);
  // A strided dgrad's kernels overlap, each waiting for the one before it
  // only as it ends (their positions of dx are disjoint), where the chip
  // has dependent grids (the wgmma kernel's, sm_90).
  for (size_t i = first + 1; config.wgmma && i < plan.kernels.size(); ++i)
    plan.kernels[i].dependent = true;
  return plan;
}

LaunchPlan conv2dLaunchPlan(const Conv2dProblem &problem, const GemmConfig &config,
                            const Conv2dParameters &at, const std::string &name) {
  LaunchPlan plan = conv2dOperands(problem);
  bool reduced = conv2dWgradReduces(problem);
  plan.kernels.push_back(conv2dKernel(problem, config, at, name, {},
                                      reduced ? std::optional<int64_t>(0) : std::nullopt));
  if (reduced) {
    plan.workspaceBytes = conv2dWorkspaceBytes(problem);
    plan.kernels.push_back({name + "_wgrad_reduce",
                            conv2dWgradReduceLaunchShape(problem),
                            false,
                            {workspace(), operand(Y)}});
  }
  return plan;
}

LaunchPlan conv2dGw8LaunchPlan(const Conv2dGw8Problem &problem, const Conv2dGw8Config &config) {
  LaunchPlan plan;
  LaunchShape shape = conv2dGw8LaunchShape(problem, config);
  switch (problem.pass) {
  case ConvPass::Fprop:
    plan.operands = {{"x", false}, {"w", false}, {"bias", !problem.bias}, {"y", false}};
    plan.kernels.push_back(
        {"conv2d_gw8_fprop", shape, false, {operand(0), operand(1), operand(2), operand(3)}});
    return plan;
  case ConvPass::Dgrad:
    plan.operands = {{"dy", false}, {"w", false}, {"dx", false}};
    plan.kernels.push_back(
        {"conv2d_gw8_dgrad", shape, false, {operand(0), operand(1), null(), operand(2)}});
    return plan;
  case ConvPass::Wgrad:
    break;
  }
  enum { X, Dy, Dw, Db };
  plan.operands = {{"x", false}, {"dy", false}, {"dw", false}, {"db", !problem.bias}};
  // A cluster adds the partial sums into dw itself; else a reduce kernel
  // adds them from the workspace, in a fixed order.
  if (problem.wgradClusterReduce) {
    plan.kernels.push_back(
        {"conv2d_gw8_wgrad", shape, false, {operand(X), operand(Dy), operand(Dw)}});
  } else {
    plan.workspaceBytes = conv2dGw8WorkspaceBytes(problem, config);
    plan.kernels.push_back(
        {"conv2d_gw8_wgrad", shape, false, {operand(X), operand(Dy), workspace()}});
    plan.kernels.push_back({"conv2d_gw8_wgrad_reduce",
                            conv2dGw8WgradReduceLaunchShape(problem, config), true,
                            {workspace(), operand(Dw)}});
  }
  // The bias gradient's partial sums lie in the workspace after dw's.
  if (problem.bias) {
    plan.kernels.push_back({"conv2d_gw8_wgrad_bias", conv2dGw8WgradBiasLaunchShape(problem),
                            false, {operand(Dy), workspace()}});
    plan.kernels.push_back({"conv2d_gw8_wgrad_bias_reduce",
                            conv2dGw8WgradBiasReduceLaunchShape(problem), false,
                            {workspace(), operand(Db)}});
  }
  return plan;
}

} // namespace spio::kernels
