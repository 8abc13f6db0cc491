//===- Conv2dKernel.h - The dense conv2d family, built as IR ----*- C++ -*-===//
//
// What the implicit-GEMM convolution family (spio/Kernels/Conv2d.h:
// problems, configs, checks, launch plans) builds in the spio dialect: the
// workload module a caller compiles, and the tiled kernel spio-tile puts in
// place of a dense or wide-group spio.conv2d.
//
//===----------------------------------------------------------------------===//

#ifndef SPIO_KERNELS_IR_CONV2DKERNEL_H
#define SPIO_KERNELS_IR_CONV2DKERNEL_H

#include "spio/Dialect/Spio/Builder/KernelBuilder.h"
#include "spio/Kernels/Conv2d.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <string>

namespace mlir::spio {

/// The problem a verified spio.conv2d computes, read off its operand types
/// and attributes.
::spio::kernels::Conv2dProblem conv2dProblem(Conv2dOp op);

/// The workload of a dense convolution: gpu.module @spio_conv2d holding
/// gpu.func @conv2d(x, w, y, then the parameters conv2dParameters() adds)
/// whose body is a `spio.conv2d` with the config and epilogue. Requires
/// checkConv2d() to pass.
OwningOpRef<ModuleOp> buildConv2dWorkload(MLIRContext *context,
                                          const ::spio::kernels::Conv2dProblem &problem,
                                          const ::spio::kernels::GemmConfig &config);
std::string conv2dSource(const ::spio::kernels::Conv2dProblem &problem,
                         const ::spio::kernels::GemmConfig &config);

/// Builds what spio-tile expands `op` into: the wgmma GEMM tile of the
/// implicit GEMM, A's tiles gathered by im2col copies. Fails where the
/// operands' types are not the problem's (reported at the op).
LogicalResult buildConv2dTile(build::KernelBuilder &b, Conv2dOp op,
                              const ::spio::kernels::Conv2dProblem &problem,
                              const ::spio::kernels::GemmConfig &config);

} // namespace mlir::spio

#endif // SPIO_KERNELS_IR_CONV2DKERNEL_H
