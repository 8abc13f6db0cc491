//===- Tile.cpp - Expand workload ops into tiled kernel code --------------===//
//
// The GEMM kernel family writes its tiled code as spio-dialect text for a
// problem and a config (spio/Kernels/Gemm.h): one readable template. This
// pass instantiates it for each spio.gemm and clones the result in place of
// the op.
//
//===----------------------------------------------------------------------===//

#include "spio/Dialect/Spio/Transforms/Passes.h"

#include "spio/Dialect/Spio/Transforms/GemmFamily.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Parser/Parser.h"

namespace mlir::spio {
#define GEN_PASS_DEF_SPIOTILE
#include "spio/Dialect/Spio/Transforms/Passes.h.inc"
} // namespace mlir::spio

using namespace mlir;
using namespace mlir::spio;
namespace kernels = ::spio::kernels;

namespace {

LogicalResult tileGemm(GemmOp op) {
  auto kernel = op->getParentOfType<gpu::GPUFuncOp>();
  if (!kernel || !kernel.isKernel())
    return op.emitOpError() << "must be inside a gpu.func kernel to be tiled";
  kernels::GemmProblem problem = gemmProblem(op);
  kernels::GemmConfig config = gemmConfig(op.getConfig());
  if (std::string err = kernels::checkGemm(problem, config); !err.empty())
    return op.emitOpError() << err;

  int32_t threads = int32_t(config.threads());
  if (std::optional<ArrayRef<int32_t>> known = kernel.getKnownBlockSize()) {
    if ((*known)[0] != threads || (*known)[1] != 1 || (*known)[2] != 1)
      return op.emitOpError() << "needs " << threads
                              << " threads per block, but the kernel's known block size differs";
  } else {
    kernel.setKnownBlockSizeAttr(
        DenseI32ArrayAttr::get(op.getContext(), {threads, 1, 1}));
  }

  std::string source = kernels::gemmTileSource(problem, config);
  OwningOpRef<ModuleOp> tiled = parseSourceString<ModuleOp>(source, op.getContext());
  if (!tiled)
    return op.emitOpError() << "the GEMM family's tile template did not parse (a bug)";
  gpu::GPUFuncOp tile;
  tiled->walk([&](gpu::GPUFuncOp f) { tile = f; });
  Block &body = tile.getBody().front();

  IRMapping mapping;
  SmallVector<Value> operands = {op.getA(), op.getB(), op.getD(), op.getAlpha()};
  if (op.getC()) {
    operands.push_back(op.getBeta());
    operands.push_back(op.getC());
  }
  for (auto [arg, value] : llvm::zip_equal(body.getArguments(), operands))
    mapping.map(arg, value);
  OpBuilder builder(op);
  for (Operation &inner : body.without_terminator())
    builder.clone(inner, mapping);
  op.erase();
  return success();
}

struct SpioTile : mlir::spio::impl::SpioTileBase<SpioTile> {
  void runOnOperation() override {
    SmallVector<GemmOp> gemms;
    getOperation()->walk([&](GemmOp op) { gemms.push_back(op); });
    for (GemmOp op : gemms)
      if (failed(tileGemm(op)))
        return signalPassFailure();
  }
};

} // namespace
