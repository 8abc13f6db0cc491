//===- Tile.cpp - Expand workload ops into tiled kernel code --------------===//
//
// Each kernel family builds its tiled code for a problem and a config in
// place of the workload op: the GEMM family (and the dense conv2d, its
// implicit GEMM) on the typed kernel builder (spio/Kernels/IR); conv2d-gw8 still writes
// spio-dialect text, which this pass parses and clones in place of the op.
//
//===----------------------------------------------------------------------===//

#include "spio/Dialect/Spio/Transforms/Passes.h"

#include "spio/Dialect/Spio/Transforms/Conv2dGw8Family.h"
#include "spio/Kernels/IR/GemmKernel.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/TypeSwitch.h"

namespace mlir::spio {
#define GEN_PASS_DEF_SPIOTILE
#include "spio/Dialect/Spio/Transforms/Passes.h.inc"
} // namespace mlir::spio

using namespace mlir;
using namespace mlir::spio;
namespace kernels = ::spio::kernels;

namespace {

/// A template argument and the value the op binds to it (null: the
/// template must not use it).
struct Binding {
  StringRef name;
  Value value;
};

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

/// Replaces `op` with the body of the single gpu.func in the family's
/// template `source`, its arguments bound in order; the kernel must run
/// `threads` threads a block. Operand types must equal the template's.
LogicalResult expandTemplate(Operation *op, int64_t threadCount, StringRef family,
                             const std::string &source, ArrayRef<Binding> bindings) {
  if (failed(claimBlockSize(op, threadCount)))
    return failure();
  auto kernel = op->getParentOfType<gpu::GPUFuncOp>();
  OwningOpRef<ModuleOp> tiled = parseSourceString<ModuleOp>(source, op->getContext());
  if (!tiled)
    return op->emitOpError() << "the " << family << " family's tile template did not parse (a bug)";
  gpu::GPUFuncOp tile;
  tiled->walk([&](gpu::GPUFuncOp f) { tile = f; });
  // The kernel keeps the template's NVVM attributes, hints for ptxas such
  // as the blocks a multiprocessor holds (nvvm.minctasm), and the width of
  // its offset arithmetic (spio.offset_bits).
  for (NamedAttribute attr : tile->getAttrs())
    if (attr.getName().strref().starts_with("nvvm.") || attr.getName() == "spio.offset_bits")
      kernel->setAttr(attr.getName(), attr.getValue());
  Block &body = tile.getBody().front();
  if (body.getNumArguments() != bindings.size())
    return op->emitOpError() << "the " << family << " family's tile template takes "
                             << body.getNumArguments() << " arguments, not " << bindings.size()
                             << " (a bug)";

  IRMapping mapping;
  for (auto [arg, binding] : llvm::zip_equal(body.getArguments(), bindings)) {
    if (!binding.value) {
      if (!arg.use_empty())
        return op->emitOpError() << "the " << family << " family's tile template uses "
                                 << binding.name << ", which the op lacks (a bug)";
      continue;
    }
    if (binding.value.getType() != arg.getType())
      return op->emitOpError() << binding.name << " must be " << arg.getType()
                               << " for this problem, got " << binding.value.getType();
    mapping.map(arg, binding.value);
  }
  OpBuilder builder(op);
  for (Operation &inner : body.without_terminator())
    builder.clone(inner, mapping);
  op->erase();
  return success();
}

LogicalResult tileGemm(GemmOp op) {
  kernels::GemmProblem problem = gemmProblem(op);
  kernels::GemmConfig config = gemmConfig(op.getConfig());
  if (std::string err = kernels::checkGemm(problem, config); !err.empty())
    return op.emitOpError() << err;
  if (failed(claimBlockSize(op, config.threads())))
    return failure();
  OpBuilder builder(op);
  build::KernelBuilder b(builder, op.getLoc());
  if (failed(buildGemmTile(b, op, problem, config)))
    return failure();
  op->erase();
  return success();
}

LogicalResult tileConv2d(Conv2dOp op) {
  kernels::Conv2dProblem problem = conv2dProblem(op);
  kernels::GemmConfig config = gemmConfig(op.getConfig());
  if (std::string err = kernels::checkConv2d(problem, config); !err.empty())
    return op.emitOpError() << err;
  if (failed(claimBlockSize(op, config.threads())))
    return failure();
  OpBuilder builder(op);
  build::KernelBuilder b(builder, op.getLoc());
  if (failed(buildConv2dTile(b, op, problem, config)))
    return failure();
  op->erase();
  return success();
}

LogicalResult tileConv2dGw8(Conv2dGw8Op op) {
  kernels::Conv2dGw8Problem problem = conv2dGw8Problem(op);
  kernels::Conv2dGw8Config config = conv2dGw8Config(op.getConfig());
  if (std::string err = kernels::checkConv2dGw8(problem, config); !err.empty())
    return op.emitOpError() << err;
  SmallVector<Binding> bindings;
  switch (op.getPass()) {
  case ConvPass::Fprop:
    bindings = {{"x", op.getA()}, {"w", op.getB()}, {"bias", op.getBias()}, {"y", op.getD()}};
    break;
  case ConvPass::Dgrad:
    bindings = {{"dy", op.getA()}, {"w", op.getB()}, {"bias", Value()}, {"dx", op.getD()}};
    break;
  case ConvPass::Wgrad:
    bindings = {{"x", op.getA()},
                {"dy", op.getB()},
                {problem.wgradClusterReduce ? "dw" : "the partial sums", op.getD()}};
    break;
  }
  return expandTemplate(op, config.threads(), "conv2d-gw8",
                        kernels::conv2dGw8TileSource(problem, config), bindings);
}

struct SpioTile : mlir::spio::impl::SpioTileBase<SpioTile> {
  void runOnOperation() override {
    SmallVector<Operation *> workloads;
    getOperation()->walk([&](Operation *op) {
      if (isa<GemmOp, Conv2dOp, Conv2dGw8Op>(op))
        workloads.push_back(op);
    });
    for (Operation *op : workloads) {
      LogicalResult tiled = TypeSwitch<Operation *, LogicalResult>(op)
                                .Case([](GemmOp gemm) { return tileGemm(gemm); })
                                .Case([](Conv2dOp conv) { return tileConv2d(conv); })
                                .Case([](Conv2dGw8Op conv) { return tileConv2dGw8(conv); });
      if (failed(tiled))
        return signalPassFailure();
    }
  }
};

} // namespace
