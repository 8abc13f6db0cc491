//===- TensorMap.h - TMA descriptors as kernels take them -------*- C++ -*-===//
//
// What a kernel's TMA descriptor describes, as kernel families state it and
// the runtime encodes it (spio/Runtime/Cuda.h). No LLVM or driver dependency.
//
//===----------------------------------------------------------------------===//

#ifndef SPIO_RUNTIME_TENSORMAP_H
#define SPIO_RUNTIME_TENSORMAP_H

#include <cstdint>

namespace spio::runtime {

/// A TMA descriptor (the driver's CUtensorMap): a kernel parameter of 128
/// bytes, passed by value.
struct alignas(64) TensorMap {
  unsigned char bytes[128];
};

/// What a 2-D tiled tensor map describes: a row-major matrix of 2-byte
/// (f16, bf16) or 4-byte (f32, which TMA rounds to TF32 as it copies: Tf32)
/// elements at a 16-byte aligned address, rows dense, and the box one copy
/// moves (at most 256 rows of 128 bytes, in the 128-byte swizzle); reads
/// past the matrix's edges give zeros.
struct TensorMapShape {
  enum class Element { F16, BF16, Tf32 } element = Element::BF16;
  uint64_t rows = 0, cols = 0;
  uint32_t boxRows = 0, boxCols = 0;
};

/// What an im2col tensor map describes (a convolution's input read as the
/// rows of its implicit GEMM): an NHWC tensor of 2-byte elements at a
/// 16-byte aligned address, dense, channels a multiple of 8. One copy
/// moves `pixels` output positions (rows, at most 256) by 64 channels (128
/// bytes, in the 128-byte swizzle) of one filter tap: the positions run
/// through each image's window of output positions, whose first input
/// position is (lowerH, lowerW), stepping by (strideH, strideW) up to
/// (height - 1 + upperH, width - 1 + upperW), image after image; input
/// positions and channels outside the tensor read as zeros.
struct Im2colMapShape {
  TensorMapShape::Element element = TensorMapShape::Element::BF16;
  uint64_t images = 0, height = 0, width = 0, channels = 0;
  int32_t lowerH = 0, lowerW = 0, upperH = 0, upperW = 0;
  uint32_t strideH = 1, strideW = 1;
  uint32_t pixels = 0;
};

} // namespace spio::runtime

#endif // SPIO_RUNTIME_TENSORMAP_H
