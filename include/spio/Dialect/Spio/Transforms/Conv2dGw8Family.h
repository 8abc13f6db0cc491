//===- Conv2dGw8Family.h - spio.conv2d_gw8 as its kernel family sees it -*- C++ -*-===//

#ifndef SPIO_DIALECT_SPIO_TRANSFORMS_CONV2DGW8FAMILY_H
#define SPIO_DIALECT_SPIO_TRANSFORMS_CONV2DGW8FAMILY_H

#include "spio/Dialect/Spio/IR/SpioOps.h"
#include "spio/Kernels/Conv2dGw8.h"

namespace mlir::spio {

/// The problem a verified spio.conv2d_gw8 computes: the pass, sizes and
/// dtype read off its attributes and operand types. spio-tile checks the
/// operand types against the family's types for this problem.
::spio::kernels::Conv2dGw8Problem conv2dGw8Problem(Conv2dGw8Op op);

/// The tile configuration a #spio.conv2d_gw8_config describes.
::spio::kernels::Conv2dGw8Config conv2dGw8Config(Conv2dGw8ConfigAttr attr);

} // namespace mlir::spio

#endif // SPIO_DIALECT_SPIO_TRANSFORMS_CONV2DGW8FAMILY_H
