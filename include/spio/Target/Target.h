//===- Target.h - The GPU kernels are chosen and compiled for ---*- C++ -*-===//
//
// What the choosers and checks of the kernel families size their tiles,
// grids and occupancy by: the chip compiled for and the part's
// multiprocessors, L2, shared memory and DRAM bandwidth. Read from the
// device at run time (runtime::Cuda::target), or a chip's reference part
// where there is none (compiling to PTX), with any fact given explicitly.
// No LLVM dependency.
//
//===----------------------------------------------------------------------===//

#ifndef SPIO_TARGET_TARGET_H
#define SPIO_TARGET_TARGET_H

#include "spio/Target/Chip.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace spio {

/// The shared memory of a chip: what a block may take (CUDA's
/// sharedMemPerBlockOptin) and what a multiprocessor holds
/// (sharedMemPerMultiprocessor; each resident block also takes 1 KB of it).
struct SharedMemory {
  int64_t perBlock = 0, perMultiprocessor = 0;
};

/// `chip`'s shared memory, zeros where the chip is not listed.
constexpr SharedMemory sharedMemoryOf(std::string_view chip) {
  if (chip == "sm_90" || chip == "sm_90a" || chip == "sm_100" || chip == "sm_100a")
    return {227 * 1024, 228 * 1024};
  if (chip == "sm_80")
    return {163 * 1024, 164 * 1024};
  if (chip == "sm_86" || chip == "sm_89" || chip == "sm_120")
    return {99 * 1024, 100 * 1024};
  return {};
}

struct Target {
  /// The chip kernels are compiled for ("sm_90a").
  std::string chip;
  /// The part: its name (the device's, or the reference part's), its
  /// multiprocessors, L2 bytes, the shared memory a block may take and a
  /// multiprocessor holds, and its DRAM bandwidth.
  std::string part;
  int64_t multiprocessors = 0;
  int64_t l2Bytes = 0;
  int64_t sharedBytesPerBlock = 0, sharedBytesPerMultiprocessor = 0;
  double memoryBytesPerSecond = 0;
  /// Clusters of 2, 3 and 4 blocks that run at once where each block takes
  /// a multiprocessor's shared memory (the driver's
  /// cuOccupancyMaxActiveClusters): a cluster lies within one GPC, so a
  /// size that does not divide the GPCs idles some multiprocessors (an
  /// H200: 66, 39 and 30 of its 132). 0 where unknown.
  int64_t clustersAtOnce[3] = {0, 0, 0};

  /// Clusters of `size` blocks, a block a multiprocessor, that run at once:
  /// the part's count, else (unknown, or a size past 4) as many as the
  /// multiprocessors hold.
  int64_t clusters(int64_t size) const {
    if (size >= 2 && size <= 4 && clustersAtOnce[size - 2] > 0)
      return clustersAtOnce[size - 2];
    return size > 0 ? multiprocessors / size : multiprocessors;
  }
};

/// `chip`'s reference part, which kernels compiled without a device (to
/// PTX) are chosen for: sm_90/sm_90a an H100 SXM, sm_80 an A100 SXM, sm_86
/// an A10, sm_89 an L40S (the H100 SXM's clusters as an H200 of the same
/// 132 multiprocessors runs them; earlier chips have none). Nothing where
/// spio does not compile for `chip`.
inline std::optional<Target> referenceTarget(std::string_view chip) {
  struct Part {
    const char *name;
    int64_t multiprocessors, l2MiB;
    double terabytesPerSecond;
  };
  std::optional<Part> part;
  if (chip == "sm_90" || chip == "sm_90a")
    part = Part{"H100 SXM", 132, 50, 3.35};
  else if (chip == "sm_80")
    part = Part{"A100 SXM", 108, 40, 2.04};
  else if (chip == "sm_86")
    part = Part{"A10", 72, 6, 0.6};
  else if (chip == "sm_89")
    part = Part{"L40S", 142, 96, 0.864};
  if (!part)
    return std::nullopt;
  SharedMemory shared = sharedMemoryOf(chip);
  Target target{std::string(chip),
                part->name,
                part->multiprocessors,
                part->l2MiB << 20,
                shared.perBlock,
                shared.perMultiprocessor,
                part->terabytesPerSecond * 1e12};
  if (chip == "sm_90" || chip == "sm_90a") {
    target.clustersAtOnce[0] = 66;
    target.clustersAtOnce[1] = 39;
    target.clustersAtOnce[2] = 30;
  }
  return target;
}

/// Empty where the choosers and checks can size kernels for `target`,
/// else what is missing.
inline std::string checkTarget(const Target &target) {
  if (std::string why = checkChip(target.chip); !why.empty())
    return why;
  auto positive = [](const char *what, auto value) {
    return value > 0 ? std::string() : std::string("the target's ") + what + " must be positive";
  };
  for (std::string why :
       {positive("multiprocessors", target.multiprocessors), positive("L2 bytes", target.l2Bytes),
        positive("shared bytes a block", target.sharedBytesPerBlock),
        positive("shared bytes a multiprocessor", target.sharedBytesPerMultiprocessor),
        positive("memory bandwidth", target.memoryBytesPerSecond)})
    if (!why.empty())
      return why;
  return {};
}

} // namespace spio

#endif // SPIO_TARGET_TARGET_H
