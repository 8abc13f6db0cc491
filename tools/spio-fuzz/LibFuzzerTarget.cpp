//===- LibFuzzerTarget.cpp - spio-fuzz under libFuzzer --------------------===//
//
// libFuzzer's entry points: each input through the compiler, mutated mostly
// by Spio's structure-aware mutator and now and then byte by byte.
//
//===----------------------------------------------------------------------===//

#include "spio/Fuzzing/Mutator.h"
#include "spio/Fuzzing/Target.h"

#include <cstdint>
#include <cstring>

extern "C" size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t maxSize);

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  spio::fuzzing::runInput(std::string_view(reinterpret_cast<const char *>(data), size));
  return 0;
}

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t maxSize,
                                          unsigned int seed) {
  std::mt19937_64 rng(seed);
  if (rng() % 8 == 0)
    return LLVMFuzzerMutate(data, size, maxSize);
  std::string mutant = spio::fuzzing::mutate(
      std::string_view(reinterpret_cast<const char *>(data), size), rng, maxSize);
  std::memcpy(data, mutant.data(), mutant.size());
  return mutant.size();
}
