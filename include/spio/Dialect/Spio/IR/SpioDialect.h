//===- SpioDialect.h - The Spio dialect -------------------------*- C++ -*-===//

#ifndef SPIO_DIALECT_SPIO_IR_SPIODIALECT_H
#define SPIO_DIALECT_SPIO_IR_SPIODIALECT_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Dialect.h"

#include "spio/Dialect/Spio/IR/SpioDialect.h.inc"

#endif // SPIO_DIALECT_SPIO_IR_SPIODIALECT_H
