//===- GemmFamily.h - spio.gemm as the GEMM kernel family sees it -*- C++ -*-===//

#ifndef SPIO_DIALECT_SPIO_TRANSFORMS_GEMMFAMILY_H
#define SPIO_DIALECT_SPIO_TRANSFORMS_GEMMFAMILY_H

#include "spio/Dialect/Spio/IR/SpioOps.h"
#include "spio/Kernels/Gemm.h"

namespace mlir::spio {

/// The problem a verified spio.gemm computes: sizes, dtypes, layouts and
/// dimension names read off its operand types.
::spio::kernels::GemmProblem gemmProblem(GemmOp op);

/// The tile configuration a #spio.gemm_config describes.
::spio::kernels::GemmConfig gemmConfig(GemmConfigAttr attr);

} // namespace mlir::spio

#endif // SPIO_DIALECT_SPIO_TRANSFORMS_GEMMFAMILY_H
