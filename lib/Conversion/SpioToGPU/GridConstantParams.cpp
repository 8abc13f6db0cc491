//===- GridConstantParams.cpp - By-value tensor-map kernel parameters -----===//
//
// A TMA descriptor is read by the copy unit from the kernel's parameter
// space: passing it by value (a grid constant) saves the global-memory copy
// a pointer would need at each launch.
//
//===----------------------------------------------------------------------===//

#include "spio/Conversion/Passes.h"

namespace mlir::spio {
#define GEN_PASS_DEF_SPIOGRIDCONSTANTPARAMS
#include "spio/Conversion/Passes.h.inc"
} // namespace mlir::spio

using namespace mlir;

namespace {

/// Bytes of a CUtensorMap.
constexpr unsigned kTensorMapBytes = 128;

struct SpioGridConstantParams
    : spio::impl::SpioGridConstantParamsBase<SpioGridConstantParams> {
  void runOnOperation() override {
    getOperation()->walk([&](LLVM::LLVMFuncOp func) {
      auto params = func->getAttrOfType<DenseI64ArrayAttr>(spio::kGridConstantParamsAttr);
      if (!params)
        return;
      Builder builder(func.getContext());
      Type bytes = LLVM::LLVMArrayType::get(builder.getI8Type(), kTensorMapBytes);
      for (int64_t i : params.asArrayRef()) {
        func.setArgAttr(i, LLVM::LLVMDialect::getByValAttrName(), TypeAttr::get(bytes));
        func.setArgAttr(i, LLVM::LLVMDialect::getAlignAttrName(), builder.getI64IntegerAttr(64));
        func.setArgAttr(i, NVVM::NVVMDialect::getGridConstantAttrName(), builder.getUnitAttr());
      }
      func->removeAttr(spio::kGridConstantParamsAttr);
    });
  }
};

} // namespace
