//===- ConvPass.h - The passes of a convolution -----------------*- C++ -*-===//
//
// No LLVM dependency.
//
//===----------------------------------------------------------------------===//

#ifndef SPIO_KERNELS_CONVPASS_H
#define SPIO_KERNELS_CONVPASS_H

namespace spio::kernels {

/// fprop computes y from x and w; dgrad computes dx from dy and w (the
/// forward read backward: taps flipped, w read transposed); wgrad computes
/// dw from x and dy.
enum class ConvPass { Fprop, Dgrad, Wgrad };

} // namespace spio::kernels

#endif // SPIO_KERNELS_CONVPASS_H
