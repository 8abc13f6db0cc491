//===- Launcher.h - A launch plan on loaded kernels -------------*- C++ -*-===//
//
// Runs a LaunchPlan on a loaded module: looks its kernels up once, then
// binds each launch's operand addresses, workspace and scalars to the
// kernels' parameters (encoding TMA descriptors for new addresses), checks
// them and launches in order. spio-jit and the C API (so Python) launch
// through it. No LLVM dependency.
//
//===----------------------------------------------------------------------===//

#ifndef SPIO_KERNELS_LAUNCHER_H
#define SPIO_KERNELS_LAUNCHER_H

#include "spio/Kernels/LaunchPlan.h"
#include "spio/Runtime/Cuda.h"

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace spio::kernels {

/// What one run binds: the operands' device addresses in the plan's order
/// (0 for an absent optional one), the workspace's, and the scalars (empty:
/// the plan's defaults).
struct LaunchBindings {
  std::vector<runtime::DevicePtr> operands;
  runtime::DevicePtr workspace = 0;
  std::vector<float> scalars;
};

/// What compilation says of a kernel: its dynamic shared memory, and the
/// block size it was built for (0: not fixed).
struct CompiledResources {
  int64_t sharedBytes = 0;
  int64_t blockSize = 0;
};

class Launcher {
public:
  /// The plan on `module` (loaded on `cuda`'s device), whose kernels were
  /// compiled with `resources` (by name); `dependents` are the kernels whose
  /// code waits for the grids before them (from the PTX), which launch as
  /// dependent grids where the plan allows. Fails where the module lacks a
  /// planned kernel or built it for another block size than the plan's.
  static runtime::Result<Launcher>
  create(LaunchPlan plan, const runtime::Cuda &cuda, const runtime::Module &module,
         const std::map<std::string, CompiledResources> &resources,
         const std::set<std::string> &dependents);

  const LaunchPlan &plan() const { return launchPlan; }
  /// The device the plan's kernels are loaded on.
  const runtime::Cuda &device() const { return *cuda; }
  /// Checks `bindings` (an address for every operand that is not optional,
  /// each 16-byte aligned; the workspace where the plan needs one; as many
  /// scalars as the plan has, or none) and launches kernels [first, first
  /// + count) of the plan on `stream`; nothing is launched where a check or
  /// an encoding fails. One thread at a time.
  runtime::Status run(const LaunchBindings &bindings, void *stream = nullptr, size_t first = 0,
                      size_t count = SIZE_MAX);
  /// Kernel `index`, for its resources.
  const runtime::Kernel &kernel(size_t index) const { return ready[index].kernel; }
  int64_t sharedBytes(size_t index) const { return ready[index].sharedBytes; }

private:
  struct Ready {
    runtime::Kernel kernel;
    int64_t sharedBytes = 0;
    bool dependent = false;
    /// TMA descriptors by parameter position, and the address each was
    /// encoded for.
    std::map<size_t, std::pair<runtime::DevicePtr, runtime::TensorMap>> maps;
  };
  LaunchPlan launchPlan;
  const runtime::Cuda *cuda = nullptr;
  std::vector<Ready> ready;
};

} // namespace spio::kernels

#endif // SPIO_KERNELS_LAUNCHER_H
