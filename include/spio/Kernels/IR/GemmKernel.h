//===- GemmKernel.h - The GEMM kernel family, built as IR -------*- C++ -*-===//
//
// What the tensor-core GEMM family (spio/Kernels/Gemm.h: problems, configs,
// checks, launch shapes) builds in the spio dialect: the workload module a
// caller compiles, and the tiled kernel spio-tile puts in place of spio.gemm.
//
//===----------------------------------------------------------------------===//

#ifndef SPIO_KERNELS_IR_GEMMKERNEL_H
#define SPIO_KERNELS_IR_GEMMKERNEL_H

#include "spio/Dialect/Spio/Builder/KernelBuilder.h"
#include "spio/Kernels/Gemm.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <string>

namespace mlir::spio {

/// The problem a verified spio.gemm computes: sizes, dtypes, layouts and
/// dimension names read off its operand types.
::spio::kernels::GemmProblem gemmProblem(GemmOp op);

/// The tile configuration a #spio.gemm_config describes.
::spio::kernels::GemmConfig gemmConfig(GemmConfigAttr attr);

/// The config as its attribute.
GemmConfigAttr gemmConfigAttr(MLIRContext *context, const ::spio::kernels::GemmConfig &config);

/// The spio tensor type of operand 'a', 'b' or 'd' (C has D's type), of
/// the epilogue's bias ('x') or scale ('s') vector, or of a grouped GEMM's
/// row ends ('g').
SpioTensorType gemmOperandType(MLIRContext *context, const ::spio::kernels::GemmProblem &problem,
                               char operand);

/// The TMA descriptor type of operand 'a' or 'b' under a wgmma config: the
/// operand's global tensor and one stage of its shared tiles.
TensorMapType gemmTensorMapType(MLIRContext *context, const ::spio::kernels::GemmProblem &problem,
                                const ::spio::kernels::GemmConfig &config, char operand);

/// The persistent blocks' scratch: each block's sums of a tile ('p', [sk,
/// fragment, thread] x vector<4xf32>: stream-K's partial sums, or the
/// spilled sums of k ranges) or stream-K's flags ('f', [sk] x i32).
SpioTensorType gemmScratchType(MLIRContext *context, const ::spio::kernels::GemmConfig &config,
                               char which);

/// Loads the dialects every family's workload builder (buildGemmWorkload,
/// buildConv2dWorkload, buildConv2dGw8Workload) creates ops of.
void loadWorkloadDialects(MLIRContext *context);

/// The workload: one gpu.module @spio_gemm holding gpu.func @gemm(A, B, C, D,
/// alpha, beta, then the parameters gemmParameters() adds: the bias and scale
/// vectors, A's and B's tensor maps) whose body is a `spio.gemm` with the
/// config and epilogue, after the packing kernels (kGemmPackA, kGemmPackB) where the
/// operands are packed (then A and B are the packed ones); spio-tile and
/// spio-pipeline make it a kernel. The context must have the spio, GPU and
/// func dialects loaded. Requires checkGemm() to pass.
OwningOpRef<ModuleOp> buildGemmWorkload(MLIRContext *context,
                                        const ::spio::kernels::GemmProblem &problem,
                                        const ::spio::kernels::GemmConfig &config);

/// The workload module printed: what `spio-jit --emit-spio` shows and what
/// the compiler and its cache take.
std::string gemmSource(const ::spio::kernels::GemmProblem &problem,
                       const ::spio::kernels::GemmConfig &config);

/// Builds what spio-tile expands `op` into, at the builder's insertion point:
/// block, warp and fragment code; mma.sync's with a one-stage reduction loop
/// marked `spio.stages` for spio-pipeline, wgmma's with its own TMA ring (and
/// `nvvm.cluster_dim` on the kernel for a cluster). The problem and config
/// are `op`'s and pass checkGemm(). Fails where an op did not verify
/// (already reported).
LogicalResult buildGemmTile(build::KernelBuilder &b, GemmOp op,
                            const ::spio::kernels::GemmProblem &problem,
                            const ::spio::kernels::GemmConfig &config);

} // namespace mlir::spio

#endif // SPIO_KERNELS_IR_GEMMKERNEL_H
