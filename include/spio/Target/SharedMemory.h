//===- SharedMemory.h - Shared memory of the chips spio targets -*- C++ -*-===//
//
// What a block and a multiprocessor may hold, by chip: the compiler refuses
// kernels over a block's limit, and the kernel families size their tiles
// and occupancy hints by it. No LLVM dependency.
//
//===----------------------------------------------------------------------===//

#ifndef SPIO_TARGET_SHAREDMEMORY_H
#define SPIO_TARGET_SHAREDMEMORY_H

#include <cstdint>
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

/// An H100's or H200's (the kernel families' checks and tile choices
/// unless told the target's).
constexpr int64_t kHopperSharedBytesPerBlock = sharedMemoryOf("sm_90").perBlock;
constexpr int64_t kHopperSharedBytesPerMultiprocessor = sharedMemoryOf("sm_90").perMultiprocessor;

} // namespace spio

#endif // SPIO_TARGET_SHAREDMEMORY_H
