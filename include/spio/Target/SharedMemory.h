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

/// The most shared memory a block may take on `chip` (CUDA's
/// sharedMemPerBlockOptin), 0 where the chip is not listed.
constexpr int64_t maxSharedBytesPerBlock(std::string_view chip) {
  if (chip == "sm_90" || chip == "sm_90a" || chip == "sm_100" || chip == "sm_100a")
    return 227 * 1024;
  if (chip == "sm_80")
    return 163 * 1024;
  if (chip == "sm_86" || chip == "sm_89" || chip == "sm_120")
    return 99 * 1024;
  return 0;
}

/// The shared memory of a multiprocessor of `chip` (CUDA's
/// sharedMemPerMultiprocessor; each resident block also takes 1 KB of it),
/// 0 where the chip is not listed.
constexpr int64_t sharedBytesPerMultiprocessor(std::string_view chip) {
  if (chip == "sm_90" || chip == "sm_90a" || chip == "sm_100" || chip == "sm_100a")
    return 228 * 1024;
  if (chip == "sm_80")
    return 164 * 1024;
  if (chip == "sm_86" || chip == "sm_89" || chip == "sm_120")
    return 100 * 1024;
  return 0;
}

/// The most an H100's or H200's block may take (the kernel families' checks
/// and tile choices).
constexpr int64_t kHopperSharedBytesPerBlock = maxSharedBytesPerBlock("sm_90");

/// The shared memory of an H100's or H200's multiprocessor, of which each
/// resident block also takes 1 KB.
constexpr int64_t kHopperSharedBytesPerMultiprocessor = sharedBytesPerMultiprocessor("sm_90");

} // namespace spio

#endif // SPIO_TARGET_SHAREDMEMORY_H
