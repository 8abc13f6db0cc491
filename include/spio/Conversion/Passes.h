//===- Passes.h - Spio lowerings --------------------------------*- C++ -*-===//

#ifndef SPIO_CONVERSION_PASSES_H
#define SPIO_CONVERSION_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::spio {

/// A kernel's tensor-map arguments, by position (convert-spio-to-gpu sets
/// it, spio-grid-constant-params consumes it).
inline constexpr llvm::StringLiteral kGridConstantParamsAttr = "spio.grid_constant_params";

#define GEN_PASS_DECL
#include "spio/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "spio/Conversion/Passes.h.inc"

} // namespace mlir::spio

#endif // SPIO_CONVERSION_PASSES_H
