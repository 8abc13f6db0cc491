//===- SpioBytecode.h - The spio dialect's bytecode version -----*- C++ -*-===//
//
// Bytecode holding spio IR records the dialect's version; a reader refuses
// IR written by a newer Spio, saying so, rather than misreading it.
//
//===----------------------------------------------------------------------===//

#ifndef SPIO_DIALECT_SPIO_IR_SPIOBYTECODE_H
#define SPIO_DIALECT_SPIO_IR_SPIOBYTECODE_H

#include "mlir/Bytecode/BytecodeImplementation.h"

#include <cstdint>

namespace mlir::spio {

/// The version this Spio writes; it grows whenever an op, attribute or type
/// changes the form it is written in.
constexpr uint64_t kSpioBytecodeVersion = 1;

/// The spio version a bytecode file was written with (or, given to a
/// BytecodeWriterConfig, the one to write).
struct SpioDialectVersion : public DialectVersion {
  explicit SpioDialectVersion(uint64_t version) : version(version) {}
  uint64_t version;
};

} // namespace mlir::spio

#endif // SPIO_DIALECT_SPIO_IR_SPIOBYTECODE_H
