//===- Activation.h - spio.activation to f32 arithmetic ---------*- C++ -*-===//
//
// Lowers spio.activation to arith and LLVM intrinsics on f32 (the
// hardware's exp2 for exp), so that kernels need no libdevice.
//
//===----------------------------------------------------------------------===//

#ifndef SPIO_CONVERSION_SPIOTOGPU_ACTIVATION_H
#define SPIO_CONVERSION_SPIOTOGPU_ACTIVATION_H

#include "mlir/IR/PatternMatch.h"

namespace mlir::spio {

void populateActivationLoweringPatterns(RewritePatternSet &patterns);

} // namespace mlir::spio

#endif // SPIO_CONVERSION_SPIOTOGPU_ACTIVATION_H
