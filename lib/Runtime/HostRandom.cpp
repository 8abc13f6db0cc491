//===- HostRandom.cpp - Random inputs on the host, in parallel ------------===//

#include "spio/Runtime/HostRandom.h"

#include <algorithm>
#include <system_error>
#include <thread>
#include <vector>

namespace spio::runtime {

namespace {

constexpr uint64_t kGolden = 0x9e3779b97f4a7c15ull;

/// splitmix64's output function.
uint64_t mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/// Below this many values a tensor fills on the calling thread alone.
constexpr size_t kValuesPerThread = size_t(1) << 20;

} // namespace

float uniformAt(uint64_t seed, uint64_t stream, uint64_t index) {
  // Each (seed, stream) starts its own splitmix64 sequence; value `index`
  // is that sequence's output `index`.
  uint64_t start = mix(mix(seed + kGolden) + stream * kGolden);
  uint64_t bits = mix(start + (index + 1) * kGolden);
  return float(int64_t(bits >> 40)) * 0x1p-23f - 1.0f;
}

void parallelRanges(size_t count, const std::function<void(size_t, size_t)> &body) {
  size_t threads = std::max<size_t>(1, std::thread::hardware_concurrency());
  threads = std::min(threads, std::max<size_t>(1, count / kValuesPerThread));
  if (threads == 1) {
    body(0, count);
    return;
  }
  std::vector<std::thread> workers;
  workers.reserve(threads - 1);
  size_t t = 1;
  try {
    for (; t < threads; ++t)
      workers.emplace_back(body, count * t / threads, count * (t + 1) / threads);
  } catch (const std::system_error &) {
    // No more threads to be had: this one takes the ranges left.
  }
  body(0, count / threads);
  for (; t < threads; ++t)
    body(count * t / threads, count * (t + 1) / threads);
  for (std::thread &worker : workers)
    worker.join();
}

} // namespace spio::runtime
