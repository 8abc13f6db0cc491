//===- SpioTypes.h - Spio types ---------------------------------*- C++ -*-===//

#ifndef SPIO_DIALECT_SPIO_IR_SPIOTYPES_H
#define SPIO_DIALECT_SPIO_IR_SPIOTYPES_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Types.h"
#include "spio/Dialect/Spio/IR/SpioAttrs.h"

namespace mlir::spio {

/// One dimension entry of a tensor type: `dim/fold: size:stride`.
struct TensorDim {
  StringAttr dim;
  int64_t fold = 1;
  int64_t size = 1;
  int64_t stride = 1;

  bool operator==(const TensorDim &other) const {
    return dim == other.dim && fold == other.fold && size == other.size &&
           stride == other.stride;
  }
};

inline llvm::hash_code hash_value(const TensorDim &d) {
  return llvm::hash_combine(d.dim, d.fold, d.size, d.stride);
}

/// Whether `swizzle` is the 128-byte swizzle (#spio.xor_swizzle<3, 0, 3>)
/// that wgmma reads and TMA writes.
bool isSwizzle128B(SwizzleAttrInterface swizzle);

/// Whether `vector` is a 16-byte vector the tensor cores multiply: 8 f16 or
/// bf16, or 4 f32 (as TF32). Null is not.
bool isTensorCoreVector(VectorType vector);

} // namespace mlir::spio

#define GET_TYPEDEF_CLASSES
#include "spio/Dialect/Spio/IR/SpioTypes.h.inc"

#endif // SPIO_DIALECT_SPIO_IR_SPIOTYPES_H
