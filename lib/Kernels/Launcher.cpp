//===- Launcher.cpp - A launch plan on loaded kernels ---------------------===//

#include "spio/Kernels/Launcher.h"

#include <algorithm>

namespace spio::kernels {

using runtime::Error;
using runtime::Result;
using runtime::Status;

Result<Launcher> Launcher::create(LaunchPlan plan, const runtime::Cuda &cuda,
                                  const runtime::Module &module,
                                  const std::map<std::string, CompiledResources> &resources,
                                  const std::set<std::string> &dependents) {
  Launcher launcher;
  launcher.cuda = &cuda;
  for (const PlannedKernel &planned : plan.kernels) {
    auto compiled = resources.find(planned.name);
    if (compiled == resources.end())
      return Error{"the compiled module has no kernel " + planned.name};
    int64_t block = compiled->second.blockSize;
    if (block != 0 && block != planned.shape.block)
      return Error{planned.name + " was built for blocks of " + std::to_string(block) +
                   " threads, but the plan launches " + std::to_string(planned.shape.block)};
    Result<runtime::Kernel> kernel = module.kernel(planned.name);
    if (!kernel)
      return kernel.error();
    launcher.ready.push_back({*kernel, compiled->second.sharedBytes,
                              planned.dependent && dependents.count(planned.name) > 0, {}});
  }
  launcher.launchPlan = std::move(plan);
  return launcher;
}

Status Launcher::run(const LaunchBindings &bindings, void *stream, size_t first, size_t count) {
  const LaunchPlan &plan = launchPlan;
  if (bindings.operands.size() != plan.operands.size())
    return Error{"the plan takes " + std::to_string(plan.operands.size()) + " operands, got " +
                 std::to_string(bindings.operands.size())};
  if (!bindings.scalars.empty() && bindings.scalars.size() != plan.scalars.size())
    return Error{"the plan takes " + std::to_string(plan.scalars.size()) + " scalars, got " +
                 std::to_string(bindings.scalars.size())};
  auto misaligned = [](runtime::DevicePtr address) {
    return address % kOperandAlignment != 0;
  };
  for (size_t i = 0; i < plan.operands.size(); ++i) {
    const PlanOperand &operand = plan.operands[i];
    if (bindings.operands[i] == 0 && !operand.optional)
      return Error{"operand '" + operand.name + "' is missing (a null address)"};
    if (misaligned(bindings.operands[i]))
      return Error{"operand '" + operand.name + "' is not " + std::to_string(kOperandAlignment) +
                   "-byte aligned"};
  }
  if (plan.workspaceBytes > 0 && (bindings.workspace == 0 || misaligned(bindings.workspace)))
    return Error{"the kernels need a " + std::to_string(kOperandAlignment) +
                 "-byte aligned workspace of " + std::to_string(plan.workspaceBytes) + " bytes"};
  std::vector<float> scalars = bindings.scalars;
  if (scalars.empty())
    for (const PlanScalar &scalar : plan.scalars)
      scalars.push_back(scalar.defaultValue);

  size_t last = std::min(plan.kernels.size(), first + std::min(count, plan.kernels.size()));
  using Kind = PlanParameter::Kind;
  // Every kernel's parameters first, so that a failed encoding launches nothing.
  std::vector<std::vector<runtime::DevicePtr>> addresses(plan.kernels.size());
  std::vector<std::vector<void *>> arguments(plan.kernels.size());
  for (size_t k = first; k < last; ++k) {
    const std::vector<PlanParameter> &parameters = plan.kernels[k].parameters;
    addresses[k].resize(parameters.size());
    for (size_t i = 0; i < parameters.size(); ++i) {
      const PlanParameter &parameter = parameters[i];
      void *argument = &addresses[k][i];
      switch (parameter.kind) {
      case Kind::Operand:
        addresses[k][i] =
            bindings.operands[parameter.index]
                ? bindings.operands[parameter.index] + runtime::DevicePtr(parameter.offset)
                : 0;
        break;
      case Kind::Null:
        break;
      case Kind::Workspace:
        addresses[k][i] = bindings.workspace + runtime::DevicePtr(parameter.offset);
        break;
      case Kind::Scalar:
        argument = &scalars[parameter.index];
        break;
      case Kind::TensorMap:
      case Kind::WorkspaceTensorMap:
      case Kind::Im2colMap:
      case Kind::WorkspaceIm2colMap: {
        bool inWorkspace = parameter.kind == Kind::WorkspaceTensorMap ||
                           parameter.kind == Kind::WorkspaceIm2colMap;
        bool im2col =
            parameter.kind == Kind::Im2colMap || parameter.kind == Kind::WorkspaceIm2colMap;
        runtime::DevicePtr address =
            inWorkspace ? bindings.workspace + runtime::DevicePtr(parameter.offset)
                        : bindings.operands[parameter.index];
        auto &[encodedFor, map] = ready[k].maps[i];
        if (encodedFor != address) {
          Result<runtime::TensorMap> encoded =
              im2col ? cuda->encodeIm2colMap(parameter.im2col, address)
                     : cuda->encodeTensorMap(parameter.map, address);
          if (!encoded)
            return Error{"encoding the tensor map of " +
                         (inWorkspace ? std::string("the workspace")
                                      : plan.operands[parameter.index].name) +
                         ": " + encoded.error().message};
          map = *encoded;
          encodedFor = address;
        }
        argument = map.bytes;
        break;
      }
      }
      arguments[k].push_back(argument);
    }
  }
  for (size_t k = first; k < last; ++k) {
    const PlannedKernel &planned = plan.kernels[k];
    Ready &kernel = ready[k];
    if (planned.zeroBytes > 0)
      if (Status cleared =
              cuda->zeroAsync(bindings.workspace + runtime::DevicePtr(planned.zeroOffset),
                              size_t(planned.zeroBytes), stream);
          !cleared)
        return Error{"clearing the workspace of " + planned.name + ": " + cleared.error().message};
    Status launched = kernel.kernel.launch(
        unsigned(planned.shape.gridX), unsigned(planned.shape.gridY),
        unsigned(planned.shape.gridZ), unsigned(planned.shape.block),
        size_t(kernel.sharedBytes), std::move(arguments[k]), stream, kernel.dependent);
    if (!launched)
      return Error{"launching " + planned.name + ": " + launched.error().message};
  }
  return runtime::success();
}

} // namespace spio::kernels
