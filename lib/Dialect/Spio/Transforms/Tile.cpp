//===- Tile.cpp - Expand workload ops into tiled kernel code --------------===//
//
// Each kernel family builds its tiled code for a problem and a config in
// place of the workload op, on the typed kernel builder (spio/Kernels/IR):
// the GEMM, the dense conv2d (its implicit GEMM) and conv2d-gw8.
//
//===----------------------------------------------------------------------===//

#include "spio/Dialect/Spio/Transforms/Passes.h"

#include "spio/Kernels/IR/Conv2dGw8Kernel.h"
#include "spio/Kernels/IR/Conv2dKernel.h"
#include "spio/Kernels/IR/GemmKernel.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/TypeSwitch.h"

namespace mlir::spio {
#define GEN_PASS_DEF_SPIOTILE
#include "spio/Dialect/Spio/Transforms/Passes.h.inc"
} // namespace mlir::spio

using namespace mlir;
using namespace mlir::spio;
namespace kernels = ::spio::kernels;

namespace {

/// Gives the kernel around `op` `threadCount` threads a block, or checks
/// that it has them.
LogicalResult claimBlockSize(Operation *op, int64_t threadCount) {
  auto kernel = op->getParentOfType<gpu::GPUFuncOp>();
  if (!kernel || !kernel.isKernel())
    return op->emitOpError() << "must be inside a gpu.func kernel to be tiled";
  int32_t threads = int32_t(threadCount);
  if (std::optional<ArrayRef<int32_t>> known = kernel.getKnownBlockSize()) {
    if ((*known)[0] != threads || (*known)[1] != 1 || (*known)[2] != 1)
      return op->emitOpError() << "needs " << threads
                               << " threads per block, but the kernel's known block size differs";
  } else {
    kernel.setKnownBlockSizeAttr(DenseI32ArrayAttr::get(op->getContext(), {threads, 1, 1}));
  }
  return success();
}

/// Checks the problem and config `op` describes (`check`: empty or what is
/// wrong), claims the block size, and builds the family's tile (`build`) in
/// place of `op`.
template <typename OpT, typename Problem, typename Config, typename Check, typename Build>
LogicalResult tile(OpT op, const Problem &problem, const Config &config, Check check, Build build) {
  if (std::string err = check(problem, config); !err.empty())
    return op.emitOpError() << err;
  if (failed(claimBlockSize(op, config.threads())))
    return failure();
  OpBuilder builder(op);
  build::KernelBuilder b(builder, op.getLoc());
  if (failed(build(b, op, problem, config)))
    return failure();
  op->erase();
  return success();
}

LogicalResult tileGw8(Conv2dGw8Op conv, const ::spio::Target &target) {
  return tile(conv, conv2dGw8Problem(conv, target), conv2dGw8Config(conv.getConfig()),
              kernels::checkConv2dGw8, buildConv2dGw8Tile);
}

/// A grouped spio.conv2d (groups > 1) is the grouped family's
/// spio.conv2d_gw8 of its group width: rewritten into it (with the
/// family's chooser's config where the op gives none), then tiled.
LogicalResult tileGrouped(Conv2dOp conv, const ::spio::Target &target) {
  auto given = cast_if_present<Conv2dGw8ConfigAttr>(conv.getConfigAttr());
  MLIRContext *context = conv.getContext();
  OpBuilder builder(conv);
  // Without a given config the op is built with a placeholder, which its
  // problem reads only for the multiprocessors (0: the target's), then
  // takes the chooser's for that problem.
  auto grouped = Conv2dGw8Op::create(
      builder, conv.getLoc(), conv.getPass(), conv.getX(), conv.getW(), conv.getBias(), conv.getY(),
      conv.getTaps(), conv.getPadding(), uint64_t(conv.getStride()[0]),
      given ? given : Conv2dGw8ConfigAttr::get(context, {1, 1}, 1, 0, 0, 0, 0, 0), WgradPartsAttr(),
      conv.getInputChannels() / conv.getGroups());
  if (!given) {
    kernels::Conv2dGw8Problem problem = conv2dGw8Problem(grouped, target);
    if (std::string error = kernels::checkConv2dGw8Problem(problem); !error.empty()) {
      grouped->erase();
      return conv.emitOpError() << error;
    }
    kernels::Conv2dGw8Config c = kernels::chooseConv2dGw8Config(problem);
    grouped.setConfigAttr(Conv2dGw8ConfigAttr::get(context, {c.warpsQ, c.warpsG}, c.rowsP, c.chunks,
                                                   c.copyWarps, target.multiprocessors, c.rowRing,
                                                   c.stages));
  }
  if (failed(tileGw8(grouped, target))) {
    grouped->erase();
    return failure();
  }
  conv->erase();
  return success();
}

struct SpioTile : mlir::spio::impl::SpioTileBase<SpioTile> {
  using SpioTileBase::SpioTileBase;

  void runOnOperation() override {
    std::optional<::spio::Target> target = ::spio::referenceTarget(chip);
    if (!target) {
      getOperation()->emitError() << ::spio::checkChip(chip);
      return signalPassFailure();
    }
    SmallVector<Operation *> workloads;
    getOperation()->walk([&](Operation *op) {
      if (isa<GemmOp, Conv2dOp, Conv2dGw8Op>(op))
        workloads.push_back(op);
    });
    for (Operation *op : workloads) {
      LogicalResult tiled =
          TypeSwitch<Operation *, LogicalResult>(op)
              .Case([&](GemmOp gemm) {
                auto check = [&](const kernels::GemmProblem &p, const kernels::GemmConfig &c) {
                  return kernels::checkGemm(p, c, *target);
                };
                return tile(gemm, gemmProblem(gemm), gemmConfig(gemm.getConfig()), check,
                            buildGemmTile);
              })
              .Case([&](Conv2dOp conv) {
                // Grouped without a GEMM config: the grouped family.
                if (conv.getGroups() > 1 && !conv.getGemmConfig())
                  return tileGrouped(conv, *target);
                auto check = [&](const kernels::Conv2dProblem &p, const kernels::GemmConfig &c) {
                  return kernels::checkConv2d(p, c, *target);
                };
                return tile(conv, conv2dProblem(conv), gemmConfig(conv.getGemmConfig()), check,
                            buildConv2dTile);
              })
              .Case([&](Conv2dGw8Op conv) { return tileGw8(conv, *target); });
      if (failed(tiled))
        return signalPassFailure();
    }
  }
};

} // namespace
