//===- Autotune.h - Timing candidate kernels, keeping the fastest -*- C++ -*-===//
//
// What `spio-jit --autotune` and `spio.set_autotune(True)` share: each
// candidate's median time over rounds that take every candidate in turn
// (drift and the GPU's clocks hit all alike), and the fastest. No LLVM
// dependency; the results' disk cache is spio/Compiler/AutotuneCache.h.
//
//===----------------------------------------------------------------------===//

#ifndef SPIO_KERNELS_AUTOTUNE_H
#define SPIO_KERNELS_AUTOTUNE_H

#include "spio/Runtime/Cuda.h"

#include <functional>
#include <vector>

namespace spio::kernels {

/// Each candidate's median milliseconds a launch (`launches[i]` launches
/// candidate i on the default stream): one untimed launch each, then 5
/// rounds timing 3 launches of every candidate in turn.
runtime::Result<std::vector<double>>
timeCandidates(const runtime::Cuda &cuda,
               const std::vector<std::function<runtime::Status()>> &launches,
               runtime::Timing timing = runtime::Timing::Queued);

/// The index of the smallest of `times` (the first of equals).
size_t fastestCandidate(const std::vector<double> &times);

} // namespace spio::kernels

#endif // SPIO_KERNELS_AUTOTUNE_H
