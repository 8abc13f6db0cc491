//===- Mutator.h - Structure-aware mutations of MLIR text -------*- C++ -*-===//
//
// The fuzzer's mutations: edits a parser and a verifier have to take apart
// (an integer turned into an edge value, a token or line moved, an op's
// keyword swapped for another of the file's), so that most mutants still
// parse and reach Spio's verifiers and passes. No LLVM: the same code runs
// under libFuzzer and in the standalone driver CI uses.
//
//===----------------------------------------------------------------------===//

#ifndef SPIO_FUZZING_MUTATOR_H
#define SPIO_FUZZING_MUTATOR_H

#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace spio::fuzzing {

/// The integer values a mutation writes in place of an integer: the limits
/// of the widths Spio computes in, powers of two around them, and the
/// small counts configurations use.
const std::vector<std::string> &edgeIntegers();

/// `input` with one to `maxEdits` structure-aware edits, chosen by `rng`
/// (deterministic for a seed). Never longer than `maxBytes`.
std::string mutate(std::string_view input, std::mt19937_64 &rng, size_t maxBytes, int maxEdits = 4);

/// The pieces of an input file between `// -----` lines, as
/// `-split-input-file` cuts them.
std::vector<std::string_view> splitInputFile(std::string_view input);

} // namespace spio::fuzzing

#endif // SPIO_FUZZING_MUTATOR_H
