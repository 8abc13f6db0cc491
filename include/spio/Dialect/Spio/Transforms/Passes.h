//===- Passes.h - Spio transformations --------------------------*- C++ -*-===//

#ifndef SPIO_DIALECT_SPIO_TRANSFORMS_PASSES_H
#define SPIO_DIALECT_SPIO_TRANSFORMS_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::spio {

#define GEN_PASS_DECL
#include "spio/Dialect/Spio/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "spio/Dialect/Spio/Transforms/Passes.h.inc"

} // namespace mlir::spio

#endif // SPIO_DIALECT_SPIO_TRANSFORMS_PASSES_H
