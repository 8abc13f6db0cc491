//===- PrintLayouts.cpp - Print the layouts of tensor types ---------------===//

#include "spio/Dialect/Spio/Transforms/Passes.h"

#include "spio/Dialect/Spio/IR/SpioOps.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::spio {
#define GEN_PASS_DEF_SPIOPRINTLAYOUTS
#include "spio/Dialect/Spio/Transforms/Passes.h.inc"
} // namespace mlir::spio

using namespace mlir;
using namespace mlir::spio;

namespace {

/// Grids larger than this are cut to their first rows and columns.
constexpr int64_t kMaxGrid = 32;

std::string entryName(const layout::DimEntry &e) {
  return e.fold == 1 ? e.dim : e.dim + "/" + std::to_string(e.fold);
}

void printLayout(SpioTensorType type, llvm::raw_ostream &os) {
  layout::Layout layout = type.getLayout();
  os << "layout of " << type << "\n";
  for (const layout::DimEntry &e : layout.entries())
    os << "  " << entryName(e) << ": size " << e.size << ", stride " << e.stride << "\n";
  os << "  storage: " << layout.cosize() << " elements of " << type.getElementBytes()
     << " bytes";
  if (SwizzleAttrInterface swizzle = type.getSwizzle()) {
    layout::XorSwizzle s = swizzle.getXorSwizzle();
    os << "; swizzle: offset ^= ((offset >> " << s.shift << ") & "
       << (((int64_t(1) << s.bits) - 1) << s.base) << ")";
  }
  os << "\n";
  const std::vector<layout::DimEntry> &entries = layout.entries();
  const layout::DimEntry &inner = entries.back();
  const layout::DimEntry *outer = entries.size() > 1 ? &entries[entries.size() - 2] : nullptr;
  int64_t fullRows = outer ? outer->size : 1;
  int64_t rows = std::min(fullRows, kMaxGrid);
  int64_t cols = std::min(inner.size, kMaxGrid);
  os << "  offsets [" << (outer ? entryName(*outer) : std::string("-")) << " x "
     << entryName(inner) << "]";
  if (rows < fullRows || cols < inner.size)
    os << " (first " << rows << " x " << cols << " of " << fullRows << " x " << inner.size << ")";
  os << ":\n";
  for (int64_t r = 0; r < rows; ++r) {
    os << "   ";
    for (int64_t c = 0; c < cols; ++c) {
      std::vector<layout::Coord> coords = {{inner.dim, inner.fold, c}};
      if (outer)
        coords.push_back({outer->dim, outer->fold, r});
      os << llvm::format(" %4lld", (long long)layout.offset(coords));
    }
    os << "\n";
  }
}

struct SpioPrintLayouts : mlir::spio::impl::SpioPrintLayoutsBase<SpioPrintLayouts> {
  void runOnOperation() override {
    llvm::SetVector<SpioTensorType> types;
    auto collect = [&](Type type) {
      if (auto tensor = dyn_cast<SpioTensorType>(type))
        types.insert(tensor);
    };
    // Pre-order, so a function's arguments come before the types in its body.
    getOperation()->walk<WalkOrder::PreOrder>([&](Operation *op) {
      for (Type t : op->getResultTypes())
        collect(t);
      for (Region &region : op->getRegions())
        for (Block &block : region)
          for (BlockArgument arg : block.getArguments())
            collect(arg.getType());
    });
    for (SpioTensorType type : types)
      printLayout(type, llvm::outs());
    markAllAnalysesPreserved();
  }
};

} // namespace
