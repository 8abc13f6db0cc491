//===- Target.h - One fuzzer input through the compiler --------*- C++ -*-===//
//
// What the fuzzer runs an input through: the parser and verifiers, then
// spio-tile, spio-pipeline and convert-spio-to-gpu. An error is an answer;
// only a crash, a hang, or a pass that succeeds yet leaves IR that does
// not verify is a finding.
//
//===----------------------------------------------------------------------===//

#ifndef SPIO_FUZZING_TARGET_H
#define SPIO_FUZZING_TARGET_H

#include <string_view>

namespace spio::fuzzing {

/// How far an input got.
enum class Outcome {
  /// The parser or a verifier refused it.
  Invalid,
  /// A pass refused it with an error.
  Refused,
  /// Every pass ran.
  Lowered,
};

/// Runs each `// -----` piece of `text` through the compiler and returns
/// how far the last got. A pass that succeeds but leaves IR that does not
/// verify prints the diagnostic and aborts, so that fuzzers report it.
Outcome runInput(std::string_view text);

} // namespace spio::fuzzing

#endif // SPIO_FUZZING_TARGET_H
