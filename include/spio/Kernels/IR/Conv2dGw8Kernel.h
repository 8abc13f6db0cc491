//===- Conv2dGw8Kernel.h - The conv2d-gw8 family, built as IR ---*- C++ -*-===//
//
// What the grouped conv2d family of group width 8 (spio/Kernels/Conv2dGw8.h:
// problems, configs, checks, launch shapes) builds in the spio dialect: the
// workload module a caller compiles, and the tiled kernel spio-tile puts in
// place of spio.conv2d_gw8.
//
//===----------------------------------------------------------------------===//

#ifndef SPIO_KERNELS_IR_CONV2DGW8KERNEL_H
#define SPIO_KERNELS_IR_CONV2DGW8KERNEL_H

#include "spio/Dialect/Spio/Builder/KernelBuilder.h"
#include "spio/Kernels/Conv2dGw8.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <string>

namespace mlir::spio {

/// The problem a verified spio.conv2d_gw8 computes, read off its operand
/// types and attributes, on `target` (with the multiprocessors its config
/// says, where it says any).
::spio::kernels::Conv2dGw8Problem conv2dGw8Problem(Conv2dGw8Op op, const ::spio::Target &target);

/// The tile configuration a #spio.conv2d_gw8_config describes.
::spio::kernels::Conv2dGw8Config conv2dGw8Config(Conv2dGw8ConfigAttr attr);

/// The workload: gpu.module @spio_conv holding gpu.func
/// @conv2d_gw8_fprop(x, w, bias, y) or @conv2d_gw8_dgrad(dy, w, bias
/// (unused), dx), whose body is one `spio.conv2d_gw8` op; for wgrad two
/// kernels, @conv2d_gw8_wgrad(x, dy, partials) (the op), then
/// @conv2d_gw8_wgrad_reduce(partials, dw), which sums the partials in a
/// fixed order (deterministic, no atomics); wgrad with a bias adds the
/// bias gradient db (dy summed over its pixels) in two more,
/// @conv2d_gw8_wgrad_bias(dy, workspace), blocks' sums of ranges of
/// pixels, and @conv2d_gw8_wgrad_bias_reduce(workspace, db), which adds
/// them in block order. spio-tile makes the op a kernel. The context must
/// have the spio, GPU, arith, SCF and vector dialects loaded. Requires
/// checkConv2dGw8() to pass.
OwningOpRef<ModuleOp> buildConv2dGw8Workload(MLIRContext *context,
                                             const ::spio::kernels::Conv2dGw8Problem &problem,
                                             const ::spio::kernels::Conv2dGw8Config &config);

/// The workload module printed: what `spio-jit --emit-spio` shows and what
/// the compiler and its cache take.
std::string conv2dGw8Source(const ::spio::kernels::Conv2dGw8Problem &problem,
                            const ::spio::kernels::Conv2dGw8Config &config);

/// Builds what spio-tile expands `op` into, at the builder's insertion
/// point: block, warp and fragment code, band loops marked `spio.stages`
/// for spio-pipeline, and the ptxas hints of the kernel around it. The
/// problem and config are `op`'s and pass checkConv2dGw8(). Fails where an
/// operand's type is not the problem's or an op did not verify (reported
/// at the op).
LogicalResult buildConv2dGw8Tile(build::KernelBuilder &b, Conv2dGw8Op op,
                                 const ::spio::kernels::Conv2dGw8Problem &problem,
                                 const ::spio::kernels::Conv2dGw8Config &config);

} // namespace mlir::spio

#endif // SPIO_KERNELS_IR_CONV2DGW8KERNEL_H
