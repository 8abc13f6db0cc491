//===- HostRandom.h - Random inputs on the host, in parallel ----*- C++ -*-===//
//
// The fresh random inputs spio-jit checks and times kernels on: a
// counter-based generator, so that each value depends only on the seed, the
// tensor's stream and its index, and a tensor fills on all the host's
// threads with the values one thread would give.
//
//===----------------------------------------------------------------------===//

#ifndef SPIO_RUNTIME_HOSTRANDOM_H
#define SPIO_RUNTIME_HOSTRANDOM_H

#include <cstddef>
#include <cstdint>
#include <functional>

namespace spio::runtime {

/// Value `index` of stream `stream` under `seed`: uniform in [-1, 1), in
/// steps of 2^-23 (exact in f32; rounded by the caller to f16 or bf16).
float uniformAt(uint64_t seed, uint64_t stream, uint64_t index);

/// Calls `body(begin, end)` on disjoint ranges that cover [0, count), on
/// up to the host's hardware threads, and returns when all have.
void parallelRanges(size_t count, const std::function<void(size_t, size_t)> &body);

} // namespace spio::runtime

#endif // SPIO_RUNTIME_HOSTRANDOM_H
