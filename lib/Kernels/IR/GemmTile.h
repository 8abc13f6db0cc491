//===- GemmTile.h - The GEMM tile as other families build on it -*- C++ -*-===//
//
// What the implicit-GEMM convolution (Conv2dKernel.cpp) takes from the GEMM
// family's tile (GemmKernel.cpp): the values a tile reads and writes, its
// shared tiles' types, and the tile itself. Not installed.
//
//===----------------------------------------------------------------------===//

#ifndef SPIO_LIB_KERNELS_IR_GEMMTILE_H
#define SPIO_LIB_KERNELS_IR_GEMMTILE_H

#include "spio/Dialect/Spio/Builder/KernelBuilder.h"
#include "spio/Kernels/Conv2d.h"
#include "spio/Kernels/Gemm.h"

namespace mlir::spio {

/// What a GEMM tile reads and writes: spio.gemm's operands, or those of a
/// workload computed as a GEMM (spio.conv2d's, viewed as matrices), and the
/// op it replaces.
struct GemmValues {
  Operation *op;
  /// `pre`: where the epilogue's value before its activation goes (null:
  /// nowhere); `partials` and `flags`: stream-K's scratch (null without it);
  /// `rangeSums`: where k ranges wider than registers hold wait (null
  /// without them).
  Value a, b, c, d, alpha, beta, bias, scale, groups, pre, partials, flags, rangeSums, aMap, bMap;
  /// An implicit-GEMM convolution: A's tiles are gathered from x through
  /// the im2col map `aMap`, a k-tile a filter tap's channels (wgrad: B's
  /// boxes through `bMap`, a k-tile 64 output positions).
  const ::spio::kernels::Conv2dProblem *conv = nullptr;
};

/// The element type of `dtype`, and the dtype of an element type.
Type typeOf(MLIRContext *context, ::spio::kernels::DType dtype);
::spio::kernels::DType dtypeOf(Type type);

/// The epilogue's steps as the workload op's attribute (null: none).
EpilogueAttr epilogueAttr(MLIRContext *context, ArrayRef<::spio::kernels::EpilogueStep> steps);

/// Operand `operand`'s ('a' or 'b') TMA box (one copy: K-major, the
/// tile's; M- or N-major, 64 of its rows) and its whole shared tile, of
/// `blockRows` rows.
SpioTensorType gemmTileBoxType(build::KernelBuilder &b, const ::spio::kernels::GemmProblem &problem,
                               const ::spio::kernels::GemmConfig &config, char operand,
                               int64_t blockRows);
SpioTensorType gemmTileSharedType(build::KernelBuilder &b,
                                  const ::spio::kernels::GemmProblem &problem,
                                  const ::spio::kernels::GemmConfig &config, char operand,
                                  int64_t blockRows);

/// Builds the tile computing `values` (buildGemmTile's, for any workload
/// computed as a GEMM).
void buildGemmTileOf(build::KernelBuilder &b, const ::spio::kernels::GemmProblem &problem,
                     const ::spio::kernels::GemmConfig &config, const GemmValues &values);

} // namespace mlir::spio

#endif // SPIO_LIB_KERNELS_IR_GEMMTILE_H
