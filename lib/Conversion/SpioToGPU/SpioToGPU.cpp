//===- SpioToGPU.cpp - Lower spio to arith, memref, gpu and nvgpu ---------===//
//
// Two phases. The first resolves tensors: it follows every memory access back
// through its chain of subscripts to a root (a global tensor argument or an
// alloc), gives each root a memref, and replaces the access with index
// arithmetic from the tensor's layout and an upstream memory op. The second
// is a dialect conversion of what is left (coordinates, fragments, mma,
// function signatures and structured control flow carrying coordinates).
//
//===----------------------------------------------------------------------===//

#include "Activation.h"

#include "spio/Conversion/Passes.h"

#include "spio/Dialect/Spio/IR/SpioOps.h"
#include "spio/Layout/Fragment.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Func/Transforms/FuncConversions.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/RegionKindInterface.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Transforms/DialectConversion.h"
#include "llvm/ADT/MapVector.h"

#include <limits>

namespace mlir::spio {
#define GEN_PASS_DEF_CONVERTSPIOTOGPU
#include "spio/Conversion/Passes.h.inc"
} // namespace mlir::spio

using namespace mlir;
using namespace mlir::spio;

namespace {

/// Shared buffers start at multiples of this many bytes (ldmatrix and
/// cp.async need 16; 128 keeps swizzle patterns aligned to bank rows).
constexpr int64_t kSharedAlignment = 128;

gpu::AddressSpaceAttr addressSpace(MLIRContext *ctx, MemorySpace space) {
  switch (space) {
  case MemorySpace::Global:
    return gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Global);
  case MemorySpace::Shared:
    return gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
  case MemorySpace::Register:
    return gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Private);
  }
  return {};
}

/// The vector a lane's fragment elements live in.
VectorType fragmentVectorType(FragmentType fragment) {
  return VectorType::get({fragment.getElementsPerLane()}, fragment.getElementType());
}

/// The vector a thread's values of a warpgroup accumulator live in.
VectorType warpgroupVectorType(WarpgroupAccType acc) {
  return VectorType::get({acc.getElementsPerThread()}, acc.getElementType());
}

/// The fixed bits of a wgmma shared-memory descriptor for tiles in the
/// 128-byte swizzle, given the leading offset (bytes, >> 4, at bit 16):
/// the swizzle mode (bit 62) and the stride between groups of 8 rows
/// (1024 bytes, >> 4, at bit 32). K-major tiles leave the leading offset
/// unused (16 bytes); MN-major ones give the stride between their blocks of
/// 64 rows (or columns) there.
constexpr uint64_t wgmmaDescriptor128B(int64_t leadingBytes) {
  return (uint64_t(1) << 62) | (uint64_t(1024 >> 4) << 32) | (uint64_t(leadingBytes >> 4) << 16);
}

/// Shared tensors that wgmma reads start at multiples of the 128-byte
/// swizzle's period, which the instruction applies to address bits.
constexpr int64_t kWgmmaSharedAlignment = 1024;

/// The element type of a tensor as stored in a memref.
Type storedElementType(SpioTensorType tensor) {
  if (auto fragment = dyn_cast<FragmentType>(tensor.getElementType()))
    return fragmentVectorType(fragment);
  return tensor.getElementType();
}

int64_t tensorBytes(SpioTensorType tensor) {
  return tensor.getCosize() * tensor.getElementBytes();
}

/// The memref a global tensor argument becomes: its bytes.
MemRefType globalBytesType(SpioTensorType tensor) {
  return MemRefType::get({tensorBytes(tensor)},
                         IntegerType::get(tensor.getContext(), 8), AffineMap(),
                         addressSpace(tensor.getContext(), MemorySpace::Global));
}

layout::MmaOperand mmaOperand(FragmentOperand operand) {
  switch (operand) {
  case FragmentOperand::A:
    return layout::MmaOperand::A;
  case FragmentOperand::B:
    return layout::MmaOperand::B;
  case FragmentOperand::C:
    return layout::MmaOperand::C;
  }
  return layout::MmaOperand::C;
}

int64_t mmaK(FragmentType fragment) {
  return fragment.getShape() == MmaShape::M16N8K8 ? 8 : 16;
}

/// A constant of an integer or index type.
Value typedConstant(OpBuilder &b, Location loc, Type type, int64_t c) {
  return arith::ConstantOp::create(b, loc, type, b.getIntegerAttr(type, c));
}

/// A constant of `v`'s type.
Value constantLike(OpBuilder &b, Location loc, Value v, int64_t c) {
  return typedConstant(b, loc, v.getType(), c);
}

/// Division and remainder rounding toward negative infinity, as the
/// dialect defines folds and mod (arith's remsi rounds toward zero), of
/// index or integer values.
Value floorDivIndex(OpBuilder &b, Location loc, Value v, int64_t d) {
  if (d == 1)
    return v;
  return arith::FloorDivSIOp::create(b, loc, v, constantLike(b, loc, v, d));
}

Value floorModIndex(OpBuilder &b, Location loc, Value v, int64_t d) {
  // Shift negative remainders into [0, d).
  Value cd = constantLike(b, loc, v, d);
  Value rem = arith::RemSIOp::create(b, loc, v, cd);
  Value negative = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, rem,
                                         constantLike(b, loc, v, 0));
  return arith::SelectOp::create(b, loc, negative,
                                 arith::AddIOp::create(b, loc, rem, cd), rem);
}

/// Where this lane's ldmatrix row lies in the fragment (layout::
/// ldmatrixRowOrigin, as IR): lanes 8q..8q+7 address matrix q, whose
/// corner is 8 * (q % 2), 8 * (q / 2) in A and 8 * q, 0 in B; lane 8q + r
/// addresses its row r, along the dimension ldmatrix counts rows in.
/// Returns {row, column, whether the rows are counted along the rows, the
/// 8x8 matrices an ldmatrix of the fragment loads}.
struct LdmatrixLaneRow {
  Value row, col;
  bool alongRows;
  int64_t tiles;
};
LdmatrixLaneRow ldmatrixLaneRow(OpBuilder &b, Location loc, FragmentType fragment,
                                bool transpose) {
  layout::MmaOperand operand = mmaOperand(fragment.getOperand());
  int64_t tiles = layout::ldmatrixTiles(operand, mmaK(fragment));
  auto eight = [&] { return arith::ConstantIndexOp::create(b, loc, 8).getResult(); };
  Value laneId = gpu::LaneIdOp::create(b, loc, nullptr);
  Value q = floorModIndex(b, loc, floorDivIndex(b, loc, laneId, 8), tiles);
  Value r = floorModIndex(b, loc, laneId, 8);
  Value row, col;
  if (operand == layout::MmaOperand::A) {
    row = arith::MulIOp::create(b, loc, floorModIndex(b, loc, q, 2), eight());
    col = arith::MulIOp::create(b, loc, floorDivIndex(b, loc, q, 2), eight());
  } else {
    row = arith::MulIOp::create(b, loc, q, eight());
    col = arith::ConstantIndexOp::create(b, loc, 0);
  }
  bool alongRows = layout::ldmatrixRowsAlongCols(operand, transpose);
  if (alongRows)
    row = arith::AddIOp::create(b, loc, row, r);
  else
    col = arith::AddIOp::create(b, loc, col, r);
  return {row, col, alongRows, tiles};
}

//===----------------------------------------------------------------------===//
// Phase 1: tensors
//===----------------------------------------------------------------------===//

/// A tensor value: its root and the coordinates added since (split at the
/// last rebase, whose resolved offset is `baseOffset`).
struct Cursor {
  Value root;
  SmallVector<Value> coords;      // since the last rebase
  SmallVector<Value> allCoords;   // since the root, for bounds
  Value baseOffset;               // element offset of the last rebase, or null
};

/// A coordinate addition in base units, from a constant lane map.
struct Extra {
  StringAttr dim;
  Value baseValue;
};

/// Whether a wgmma reads `tensor` or a cursor derived from it.
bool feedsWgmma(Value tensor) {
  for (Operation *user : tensor.getUsers()) {
    if (isa<WgmmaOp>(user))
      return true;
    if (isa<SubscriptOp, RebaseOp, ViewOp>(user) && feedsWgmma(user->getResult(0)))
      return true;
  }
  return false;
}

class TensorResolver {
public:
  TensorResolver(FunctionOpInterface func) : func(func), builder(func.getContext()) {
    auto bits = func->getAttrOfType<IntegerAttr>("spio.offset_bits");
    narrowGlobalOffsets = bits && bits.getInt() == 32;
  }

  LogicalResult run();

private:
  LogicalResult collectCursors();
  FailureOr<Cursor> cursorOf(Operation *user, Value tensor);
  /// A memref over `root` with the given element type, created once.
  Value typedView(Value root, Type elementType, int64_t numElements);
  LogicalResult lowerAccess(Operation *op);

  Value index(Location loc, int64_t v) {
    return arith::ConstantIndexOp::create(builder, loc, v);
  }
  /// 32-bit offsets' arithmetic does not overflow (elementOffset).
  static arith::IntegerOverflowFlags overflowFlags(Type offsetType) {
    return offsetType.isIndex() ? arith::IntegerOverflowFlags::none
                                : arith::IntegerOverflowFlags::nsw;
  }
  /// `v` (an index) as `offsetType` (index or i32).
  Value narrowed(Location loc, Value v, Type offsetType) {
    if (offsetType.isIndex())
      return v;
    return arith::IndexCastOp::create(builder, loc, offsetType, v);
  }
  /// The value of `coord` in base units, as `offsetType`.
  Value baseValue(Location loc, Value coord, Type offsetType);
  /// The sum of all coordinates (and extras) of dimension `dim`, base units.
  Value dimTotal(Location loc, StringAttr dim, ArrayRef<Value> coords,
                 ArrayRef<Extra> extras, Type offsetType);
  /// Element offset of a cursor plus `coords` and `extras`, with swizzle.
  Value elementOffset(Location loc, SpioTensorType type, const Cursor &cursor,
                      ValueRange coords, ArrayRef<Extra> extras);
  Value floorDiv(Location loc, Value v, int64_t d) {
    return floorDivIndex(builder, loc, v, d);
  }
  Value floorMod(Location loc, Value v, int64_t d) {
    return floorModIndex(builder, loc, v, d);
  }
  Value lane(Location loc) { return gpu::LaneIdOp::create(builder, loc, nullptr); }
  /// A shared byte offset for `bytes` (128-byte aligned) in the dynamic
  /// shared memory, which this creates on first use.
  int64_t reserveShared(int64_t bytes, int64_t alignment = kSharedAlignment);
  /// Places each `spio.alloc overlay` at the lowest offset whose bytes no
  /// live shared tensor holds (AllocOp), once every other shared tensor is
  /// placed.
  void placeOverlays(ArrayRef<AllocOp> overlays);
  /// Barrier `index` of a spio.barrier_alloc group as a shared pointer.
  Value barrierPointer(Location loc, Value barriers, Value index);
  /// `byteOffset` bytes into the shared root `root`, as an LLVM pointer.
  Value sharedPointer(Location loc, Value root, Value byteOffset);
  /// The byte offset of `coords` in a global tensor's root and the
  /// element's address, as indices.
  std::pair<Value, Value> globalElementAddress(Location loc, SpioTensorType type,
                                               const Cursor &cursor, ValueRange coords) {
    Value offset = elementOffset(loc, type, cursor, coords, {});
    Value bytes = arith::MulIOp::create(builder, loc, offset, index(loc, type.getElementBytes()));
    Value base =
        memref::ExtractAlignedPointerAsIndexOp::create(builder, loc, rootBytes[cursor.root]);
    return {bytes, arith::AddIOp::create(builder, loc, base, bytes)};
  }
  /// A global address (an index) as an LLVM pointer.
  Value globalPointer(Location loc, Value address) {
    Value address64 = arith::IndexCastUIOp::create(builder, loc, builder.getI64Type(), address);
    auto global = LLVM::LLVMPointerType::get(builder.getContext(),
                                             static_cast<unsigned>(NVVM::NVVMMemorySpace::Global));
    return LLVM::IntToPtrOp::create(builder, loc, global, address64);
  }
  /// The shared address of `coords` from a shared tensor's cursor.
  Value elementPointer(Location loc, SpioTensorType type, const Cursor &cursor,
                       ValueRange coords);
  /// A shared address of this block mapped to block `block` (an index) of
  /// its cluster (mapa).
  Value inClusterBlock(Location loc, Value pointer, Value block);
  LLVM::LLVMPointerType clusterSharedType() {
    return LLVM::LLVMPointerType::get(builder.getContext(),
                                      static_cast<unsigned>(NVVM::NVVMMemorySpace::SharedCluster));
  }
  /// A TMA copy's destination, the tile of `dst` at `dstCoords`, in the
  /// cluster's shared window (the shared::cluster form of the copy takes
  /// it there; a block's own shared memory is part of that window), and
  /// its descriptor `map` as a pointer.
  FailureOr<std::pair<Value, Value>> bulkCopyOperands(Operation *op, Value dst,
                                                      ValueRange dstCoords, Value map) {
    FailureOr<Cursor> cursor = cursorOf(op, dst);
    if (failed(cursor))
      return failure();
    Location loc = op->getLoc();
    Value tile = LLVM::AddrSpaceCastOp::create(
        builder, loc, clusterSharedType(),
        elementPointer(loc, cast<SpioTensorType>(dst.getType()), *cursor, dstCoords));
    Value pointer = UnrealizedConversionCastOp::create(
                        builder, loc, LLVM::LLVMPointerType::get(builder.getContext()), map)
                        .getResult(0);
    return std::make_pair(tile, pointer);
  }

  FunctionOpInterface func;
  /// spio.offset_bits = 32: global offsets in 32 bits (elementOffset).
  bool narrowGlobalOffsets = false;
  OpBuilder builder;
  llvm::MapVector<Value, Cursor> cursors;
  DenseMap<Value, Value> rootBytes;       // root -> memref of i8 (global/shared)
  DenseMap<Value, int64_t> sharedOffset;  // shared root -> byte offset
  DenseMap<std::pair<Value, Type>, Value> views;
  Value dynamicShared;
  /// The dynamic shared memory's address, for barrier pointers.
  Value sharedBase;
  int64_t sharedBytes = 0;
};

FailureOr<Cursor> TensorResolver::cursorOf(Operation *user, Value tensor) {
  auto it = cursors.find(tensor);
  if (it != cursors.end())
    return it->second;
  return user->emitOpError()
         << "uses a tensor that does not come from a kernel argument or "
            "spio.alloc through spio.subscript/spio.rebase; tensors cannot "
            "flow through block arguments, loops or calls";
}

int64_t TensorResolver::reserveShared(int64_t bytes, int64_t alignment) {
  if (!dynamicShared) {
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToStart(&func.getFunctionBody().front());
    MLIRContext *ctx = func.getContext();
    auto bytesType = MemRefType::get({ShapedType::kDynamic}, IntegerType::get(ctx, 8),
                                     AffineMap(), addressSpace(ctx, MemorySpace::Shared));
    dynamicShared = gpu::DynamicSharedMemoryOp::create(builder, func.getLoc(), bytesType);
  }
  sharedBytes = llvm::alignTo(sharedBytes, alignment);
  int64_t offset = sharedBytes;
  sharedBytes += bytes;
  return offset;
}

Value TensorResolver::barrierPointer(Location loc, Value barriers, Value index) {
  Value offset = arith::MulIOp::create(builder, loc, index, this->index(loc, 8));
  return sharedPointer(loc, barriers, offset);
}

Value TensorResolver::sharedPointer(Location loc, Value root, Value byteOffset) {
  if (!sharedBase) {
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointAfterValue(dynamicShared);
    sharedBase = memref::ExtractAlignedPointerAsIndexOp::create(builder, loc, dynamicShared);
  }
  Value offset = arith::AddIOp::create(builder, loc, byteOffset,
                                       this->index(loc, sharedOffset.lookup(root)));
  Value address = arith::AddIOp::create(builder, loc, sharedBase, offset);
  Value address64 = arith::IndexCastUIOp::create(builder, loc, builder.getI64Type(), address);
  auto shared = LLVM::LLVMPointerType::get(builder.getContext(),
                                           static_cast<unsigned>(NVVM::NVVMMemorySpace::Shared));
  return LLVM::IntToPtrOp::create(builder, loc, shared, address64);
}

Value TensorResolver::elementPointer(Location loc, SpioTensorType type, const Cursor &cursor,
                                     ValueRange coords) {
  Value offset = elementOffset(loc, type, cursor, coords, {});
  Value bytes = arith::MulIOp::create(builder, loc, offset, index(loc, type.getElementBytes()));
  return sharedPointer(loc, cursor.root, bytes);
}

Value TensorResolver::inClusterBlock(Location loc, Value pointer, Value block) {
  Value rank = arith::IndexCastUIOp::create(builder, loc, builder.getI32Type(), block);
  return NVVM::MapaOp::create(builder, loc, clusterSharedType(), pointer, rank);
}

void TensorResolver::placeOverlays(ArrayRef<AllocOp> overlays) {
  if (overlays.empty())
    return;
  reserveShared(0); // the dynamic shared memory, should nothing else take it
  Block &entry = func.getFunctionBody().front();
  DenseMap<Operation *, int64_t> position;
  SmallVector<int64_t> barriers;
  for (auto [i, op] : llvm::enumerate(entry))
    position[&op] = int64_t(i);
  for (Operation &op : entry)
    if (isa<gpu::BarrierOp, ClusterBarrierOp>(op))
      barriers.push_back(position[&op]);
  // A shared root's first and last use among the entry block's ops, through
  // the subscripts, views and rebases of it (its allocation, wherever it
  // stands, is no use; an unused root lives where it is allocated).
  auto liveRange = [&](Value root) {
    int64_t defined = position.lookup(entry.findAncestorOpInBlock(*root.getDefiningOp()));
    std::pair<int64_t, int64_t> range{std::numeric_limits<int64_t>::max(),
                                      std::numeric_limits<int64_t>::min()};
    SmallVector<Value> values{root};
    while (!values.empty()) {
      Value value = values.pop_back_val();
      for (Operation *user : value.getUsers()) {
        if (isa<SubscriptOp, ViewOp, RebaseOp>(user))
          values.push_back(user->getResult(0));
        int64_t at = position.lookup(entry.findAncestorOpInBlock(*user));
        range.first = std::min(range.first, at);
        range.second = std::max(range.second, at);
      }
    }
    if (range.first > range.second)
      range = {defined, defined};
    return range;
  };
  auto barrierBetween = [&](int64_t after, int64_t before) {
    return llvm::any_of(barriers, [&](int64_t b) { return after < b && b < before; });
  };
  struct Placed {
    int64_t offset, bytes;
    std::pair<int64_t, int64_t> range;
  };
  SmallVector<Placed> placed;
  for (auto [root, offset] : sharedOffset) {
    int64_t bytes = isa<BarrierAllocOp>(root.getDefiningOp())
                        ? 8 * cast<BarrierGroupType>(root.getType()).getCount()
                        : tensorBytes(cast<SpioTensorType>(root.getType()));
    placed.push_back({offset, bytes, liveRange(root)});
  }
  for (AllocOp alloc : overlays) {
    int64_t bytes = tensorBytes(alloc.getType());
    std::pair<int64_t, int64_t> range = liveRange(alloc);
    auto apart = [&](const Placed &other) {
      return (other.range.second < range.first &&
              barrierBetween(other.range.second, range.first)) ||
             (range.second < other.range.first &&
              barrierBetween(range.second, other.range.first));
    };
    SmallVector<int64_t> candidates{0};
    for (const Placed &other : placed)
      candidates.push_back(llvm::alignTo(other.offset + other.bytes, kSharedAlignment));
    llvm::sort(candidates);
    int64_t offset = candidates.back();
    for (int64_t candidate : candidates) {
      bool clear = llvm::all_of(placed, [&](const Placed &other) {
        return apart(other) || candidate + bytes <= other.offset ||
               other.offset + other.bytes <= candidate;
      });
      if (clear) {
        offset = candidate;
        break;
      }
    }
    sharedOffset[alloc] = offset;
    rootBytes[alloc] = dynamicShared;
    sharedBytes = std::max(sharedBytes, offset + bytes);
    placed.push_back({offset, bytes, range});
  }
}

LogicalResult TensorResolver::collectCursors() {
  Block &entry = func.getFunctionBody().front();
  builder.setInsertionPointToStart(&entry);
  for (BlockArgument arg : entry.getArguments()) {
    auto type = dyn_cast<SpioTensorType>(arg.getType());
    if (!type)
      continue;
    if (type.getMemorySpace() != MemorySpace::Global)
      return func.emitOpError()
             << "argument #" << arg.getArgNumber()
             << " is a " << stringifyMemorySpace(type.getMemorySpace())
             << " tensor; only global tensors can be kernel arguments";
    cursors[arg] = Cursor{arg, {}, {}, {}};
    // Becomes the block argument itself once the signature is converted.
    rootBytes[arg] = UnrealizedConversionCastOp::create(
                         builder, arg.getLoc(), globalBytesType(type), arg)
                         .getResult(0);
  }
  SmallVector<AllocOp> overlays;
  WalkResult result = func.getFunctionBody().walk([&](Operation *op) {
    if (auto alloc = dyn_cast<AllocOp>(op)) {
      SpioTensorType type = alloc.getType();
      cursors[alloc] = Cursor{alloc, {}, {}, {}};
      if (type.getMemorySpace() == MemorySpace::Shared && alloc.getOverlay()) {
        overlays.push_back(alloc);
      } else if (type.getMemorySpace() == MemorySpace::Shared) {
        sharedOffset[alloc] = reserveShared(
            tensorBytes(type), feedsWgmma(alloc) ? kWgmmaSharedAlignment : kSharedAlignment);
        rootBytes[alloc] = dynamicShared;
      }
      return WalkResult::advance();
    }
    // Barriers live in the dynamic shared memory too: a static global
    // beside it would shift the tiles' base past what the launch reserves.
    if (auto alloc = dyn_cast<BarrierAllocOp>(op)) {
      sharedOffset[alloc] = reserveShared(8 * alloc.getType().getCount());
      return WalkResult::advance();
    }
    if (auto subscript = dyn_cast<SubscriptOp>(op)) {
      FailureOr<Cursor> base = cursorOf(op, subscript.getTensor());
      if (failed(base))
        return WalkResult::interrupt();
      Cursor next = *base;
      llvm::append_range(next.coords, subscript.getCoords());
      llvm::append_range(next.allCoords, subscript.getCoords());
      cursors[subscript] = next;
      return WalkResult::advance();
    }
    if (auto view = dyn_cast<ViewOp>(op)) {
      FailureOr<Cursor> base = cursorOf(op, view.getTensor());
      if (failed(base))
        return WalkResult::interrupt();
      if (!base->coords.empty() || !base->allCoords.empty() || base->baseOffset) {
        view.emitOpError() << "views a subscripted or rebased cursor; view the kernel "
                              "argument or the allocation itself";
        return WalkResult::interrupt();
      }
      cursors[view] = *base;
      return WalkResult::advance();
    }
    if (auto rebase = dyn_cast<RebaseOp>(op)) {
      FailureOr<Cursor> base = cursorOf(op, rebase.getTensor());
      if (failed(base))
        return WalkResult::interrupt();
      builder.setInsertionPoint(rebase);
      Cursor next = *base;
      next.baseOffset = elementOffset(rebase.getLoc(), rebase.getType(), *base, {}, {});
      next.coords.clear();
      cursors[rebase] = next;
      return WalkResult::advance();
    }
    return WalkResult::advance();
  });
  if (result.wasInterrupted())
    return failure();
  placeOverlays(overlays);
  return success();
}

Value TensorResolver::typedView(Value root, Type elementType, int64_t numElements) {
  auto key = std::make_pair(root, elementType);
  if (Value view = views.lookup(key))
    return view;
  OpBuilder::InsertionGuard guard(builder);
  auto rootType = cast<SpioTensorType>(root.getType());
  Location loc = root.getLoc();
  if (isa<BlockArgument>(root))
    builder.setInsertionPointAfterValue(rootBytes[root]);
  else
    builder.setInsertionPointAfter(root.getDefiningOp());
  auto type = MemRefType::get({numElements}, elementType, AffineMap(),
                              addressSpace(func.getContext(), rootType.getMemorySpace()));
  Value view;
  if (rootType.getMemorySpace() == MemorySpace::Register) {
    view = memref::AllocaOp::create(builder, loc, type);
  } else {
    Value offset = index(loc, sharedOffset.lookup(root));
    view = memref::ViewOp::create(builder, loc, type, rootBytes[root], offset,
                                  ValueRange{});
  }
  views[key] = view;
  return view;
}

Value TensorResolver::baseValue(Location loc, Value coord, Type offsetType) {
  auto type = cast<CoordType>(coord.getType());
  Value value = narrowed(loc, ToIndexOp::create(builder, loc, coord), offsetType);
  if (type.getFold() == 1)
    return value;
  return arith::MulIOp::create(builder, loc, value,
                               constantLike(builder, loc, value, type.getFold()),
                               overflowFlags(offsetType));
}

Value TensorResolver::dimTotal(Location loc, StringAttr dim, ArrayRef<Value> coords,
                               ArrayRef<Extra> extras, Type offsetType) {
  Value total;
  auto add = [&](Value v) {
    total = total ? arith::AddIOp::create(builder, loc, total, v, overflowFlags(offsetType))
                        .getResult()
                  : v;
  };
  for (Value c : coords)
    if (cast<CoordType>(c.getType()).getDim() == dim)
      add(baseValue(loc, c, offsetType));
  for (const Extra &e : extras)
    if (e.dim == dim)
      add(narrowed(loc, e.baseValue, offsetType));
  return total;
}

Value TensorResolver::elementOffset(Location loc, SpioTensorType type,
                                    const Cursor &cursor, ValueRange coords,
                                    ArrayRef<Extra> extras) {
  SmallVector<Value> all(cursor.coords);
  llvm::append_range(all, coords);
  layout::Layout layout = type.getLayout();
  SwizzleAttrInterface swizzle = type.getSwizzle();
  int64_t period = swizzle ? swizzle.getXorSwizzle().period() : 1;
  // Terms whose stride is a multiple of the swizzle period (a pipeline
  // stage, say) commute with the swizzle, which only reads and writes the
  // bits below the period: they are added after it, so the swizzled part
  // stays loop-invariant where only they change.
  // Under spio.offset_bits = 32, global tensors of fewer than 2^31
  // elements take their offsets in 32 bits, sign-extended once (64-bit
  // multiplies cost a copy several instructions). Their terms stay within
  // +-2^31 (no signed overflow, which lets LLVM fold constant terms into
  // the address) but for masked copies' coordinates far out of range,
  // whose address nothing reads.
  Type offsetType = builder.getIndexType();
  if (narrowGlobalOffsets && type.getMemorySpace() == MemorySpace::Global &&
      layout.numElements() < (int64_t(1) << 31))
    offsetType = builder.getI32Type();
  Value swizzled, aligned;
  if (cursor.baseOffset)
    aligned = narrowed(loc, cursor.baseOffset, offsetType);
  auto constant = [&](int64_t v) { return typedConstant(builder, loc, offsetType, v); };
  arith::IntegerOverflowFlags flags = overflowFlags(offsetType);
  auto add = [&](Value &sum, Value term) {
    sum = sum ? arith::AddIOp::create(builder, loc, sum, term, flags).getResult() : term;
  };
  auto scaled = [&](Value v, int64_t stride) {
    return stride == 1 ? v
                       : arith::MulIOp::create(builder, loc, v, constant(stride), flags).getResult();
  };
  llvm::SmallDenseMap<StringAttr, Value> totals;
  for (auto [i, dim] : llvm::enumerate(type.getDims())) {
    // A dimension addressed whole (fold 1, never wrapped) is linear in each
    // of its coordinates: one made from an index (a loop's 8-pixel steps)
    // whose every step is a multiple of the period joins the aligned part
    // by itself. Only those: moving warp coordinates out too measured
    // slower on the GEMM kernels.
    if (swizzle && dim.stride != 0 && dim.fold == 1 && layout.isCoarsest(i)) {
      Value rest;
      for (Value c : all) {
        auto coordType = cast<CoordType>(c.getType());
        if (coordType.getDim() != dim.dim)
          continue;
        Value base = baseValue(loc, c, offsetType);
        if (dim.stride % period == 0 ||
            (c.getDefiningOp<FromIndexOp>() && coordType.getFold() * dim.stride % period == 0))
          add(aligned, scaled(base, dim.stride));
        else
          add(rest, base);
      }
      for (const Extra &e : extras)
        if (e.dim == dim.dim)
          add(rest, narrowed(loc, e.baseValue, offsetType));
      if (rest)
        add(swizzled, scaled(rest, dim.stride));
      continue;
    }
    if (!totals.count(dim.dim))
      totals[dim.dim] = dimTotal(loc, dim.dim, all, extras, offsetType);
    Value total = totals[dim.dim];
    if (!total || dim.stride == 0)
      continue;
    Value position = floorDiv(loc, total, dim.fold);
    if (!layout.isCoarsest(i))
      position = floorMod(loc, position, dim.size);
    add(dim.stride % period == 0 ? aligned : swizzled, scaled(position, dim.stride));
  }
  if (swizzled && swizzle) {
    layout::XorSwizzle s = swizzle.getXorSwizzle();
    int64_t mask = ((int64_t(1) << s.bits) - 1) << (s.base + s.shift);
    Value bits = arith::AndIOp::create(builder, loc, swizzled, constant(mask));
    Value moved = arith::ShRUIOp::create(builder, loc, bits, constant(s.shift));
    swizzled = arith::XOrIOp::create(builder, loc, swizzled, moved);
  }
  Value offset;
  if (swizzled)
    add(offset, swizzled);
  if (aligned)
    add(offset, aligned);
  if (!offset)
    return index(loc, 0);
  if (offsetType.isIndex())
    return offset;
  return arith::IndexCastOp::create(builder, loc, builder.getIndexType(), offset);
}

/// Scalar element type and count of a 16-byte vector element.
std::pair<Type, int64_t> scalarsOf(Type element) {
  if (auto vector = dyn_cast<VectorType>(element))
    return {vector.getElementType(), vector.getNumElements()};
  return {element, 1};
}

Value convertFloat(OpBuilder &b, Location loc, Value v, Type to) {
  if (v.getType() == to)
    return v;
  // A float or a vector of floats, element by element.
  auto from = cast<FloatType>(getElementTypeOrSelf(v.getType()));
  auto target = cast<FloatType>(getElementTypeOrSelf(to));
  if (from.getWidth() < target.getWidth())
    return arith::ExtFOp::create(b, loc, to, v);
  return arith::TruncFOp::create(b, loc, to, v);
}

/// Whether each lane's two adjacent fragment columns can be loaded or stored
/// as one aligned pair, by the types alone: the column dimension is contiguous
/// (unit fold, stride 1, even size), every other stride is even, every
/// column coordinate on the way counts in even steps (so the pair starts at
/// an even offset), nothing was rebased or swizzled, and a column bound, if
/// any, is an even constant (so a pair is in bounds when its first column
/// is).
static bool accessesPairs(SpioTensorType type, FragmentType fragment, const Cursor &cursor,
                          ValueRange coords, Value colBound) {
  StringAttr col = fragment.getColDim();
  if (type.getSwizzle() || cursor.baseOffset)
    return false;
  for (const TensorDim &d : type.getDims()) {
    bool contiguous = d.dim == col && d.fold == 1;
    if (contiguous ? (d.stride != 1 || d.size % 2 != 0) : d.stride % 2 != 0)
      return false;
  }
  SmallVector<Value> all(cursor.coords);
  llvm::append_range(all, coords);
  for (Value c : all) {
    auto t = cast<CoordType>(c.getType());
    if (t.getDim() == col && t.getFold() % 2 != 0)
      return false;
  }
  if (colBound) {
    auto constant = colBound.getDefiningOp<ConstantOp>();
    if (!constant || (constant.getValue() * cast<CoordType>(colBound.getType()).getFold()) % 2)
      return false;
  }
  return true;
}

/// Whether `type` reads the same element at every row of `fragment`: all its
/// dimensions along the fragment's rows have stride 0 (a vector broadcast
/// along them, such as a bias along the columns).
static bool ignoresRows(SpioTensorType type, FragmentType fragment) {
  return llvm::all_of(type.getDims(), [&](const TensorDim &d) {
    return d.dim != fragment.getRowDim() || d.stride == 0;
  });
}

LogicalResult TensorResolver::lowerAccess(Operation *op) {
  Location loc = op->getLoc();
  builder.setInsertionPoint(op);
  auto viewOf = [&](const Cursor &cursor, Type element, int64_t perElement) {
    auto type = cast<SpioTensorType>(cursor.root.getType());
    return typedView(cursor.root, element, type.getCosize() * perElement);
  };

  if (auto load = dyn_cast<LoadOp>(op)) {
    FailureOr<Cursor> cursor = cursorOf(op, load.getTensor());
    if (failed(cursor))
      return failure();
    SpioTensorType type = load.getTensor().getType();
    Value offset = elementOffset(loc, type, *cursor, load.getCoords(), {});
    Value view = viewOf(*cursor, storedElementType(type), 1);
    Value value = memref::LoadOp::create(builder, loc, view, offset);
    if (auto fragment = dyn_cast<FragmentType>(type.getElementType()))
      value = VectorToFragmentOp::create(builder, loc, fragment, value);
    load.replaceAllUsesWith(value);
    load.erase();
    return success();
  }
  if (auto load = dyn_cast<LoadRemoteOp>(op)) {
    // The element's address in this block's shared memory, mapped to the
    // same place in block `block` of the cluster.
    FailureOr<Cursor> cursor = cursorOf(op, load.getTensor());
    if (failed(cursor))
      return failure();
    SpioTensorType type = load.getTensor().getType();
    Value remote = inClusterBlock(
        loc, elementPointer(loc, type, *cursor, load.getCoords()), load.getBlock());
    load.replaceAllUsesWith(
        LLVM::LoadOp::create(builder, loc, type.getElementType(), remote).getResult());
    load.erase();
    return success();
  }

  if (auto store = dyn_cast<StoreOp>(op)) {
    FailureOr<Cursor> cursor = cursorOf(op, store.getTensor());
    if (failed(cursor))
      return failure();
    SpioTensorType type = store.getTensor().getType();
    Value offset = elementOffset(loc, type, *cursor, store.getCoords(), {});
    Value view = viewOf(*cursor, storedElementType(type), 1);
    Value value = store.getValue();
    if (auto fragment = dyn_cast<FragmentType>(type.getElementType()))
      value = FragmentToVectorOp::create(builder, loc, fragmentVectorType(fragment), value);
    memref::StoreOp::create(builder, loc, value, view, offset);
    store.erase();
    return success();
  }

  if (auto discard = dyn_cast<DiscardOp>(op)) {
    // discard.global.L2 drops a whole 128-byte line: only one that starts
    // at the element and holds nothing past the tensor's end.
    FailureOr<Cursor> cursor = cursorOf(op, discard.getTensor());
    if (failed(cursor))
      return failure();
    SpioTensorType type = discard.getTensor().getType();
    constexpr int64_t kLineBytes = 128;
    int64_t tensorSize = tensorBytes(cast<SpioTensorType>(cursor->root.getType()));
    if (tensorSize < kLineBytes) {
      discard.erase();
      return success();
    }
    auto [bytes, address] = globalElementAddress(loc, type, *cursor, discard.getCoords());
    Value misaligned = arith::AndIOp::create(builder, loc, address, index(loc, kLineBytes - 1));
    Value aligned = arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::eq, misaligned,
                                          index(loc, 0));
    Value inside = arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::ule, bytes,
                                         index(loc, tensorSize - kLineBytes));
    auto guard = scf::IfOp::create(builder, loc,
                                   arith::AndIOp::create(builder, loc, aligned, inside), false);
    {
      OpBuilder::InsertionGuard g(builder);
      builder.setInsertionPointToStart(guard.thenBlock());
      Value line = globalPointer(loc, address);
      Value size = arith::ConstantOp::create(builder, loc, builder.getI64IntegerAttr(kLineBytes));
      LLVM::CallIntrinsicOp::create(builder, loc,
                                    builder.getStringAttr("llvm.nvvm.discard.global.L2"),
                                    ValueRange{line, size});
    }
    discard.erase();
    return success();
  }

  if (isa<SignalOp, WaitSignalOp>(op)) {
    auto signal = dyn_cast<SignalOp>(op);
    auto wait = dyn_cast<WaitSignalOp>(op);
    Value tensor = signal ? signal.getTensor() : wait.getTensor();
    ValueRange coords = signal ? signal.getCoords() : wait.getCoords();
    Value value = signal ? signal.getValue() : wait.getValue();
    FailureOr<Cursor> cursor = cursorOf(op, tensor);
    if (failed(cursor))
      return failure();
    auto type = cast<SpioTensorType>(tensor.getType());
    Value flag = globalPointer(loc, globalElementAddress(loc, type, *cursor, coords).second);
    constexpr unsigned kFlagBytes = 4;
    if (signal) {
      LLVM::StoreOp::create(builder, loc, value, flag, kFlagBytes, false, false, false,
                            LLVM::AtomicOrdering::release, "device");
    } else {
      // Read until the flag holds the value.
      Type i32 = builder.getI32Type();
      auto loop = scf::WhileOp::create(builder, loc, TypeRange{}, ValueRange{});
      OpBuilder::InsertionGuard g(builder);
      builder.setInsertionPointToStart(builder.createBlock(&loop.getBefore()));
      Value seen = LLVM::LoadOp::create(builder, loc, i32, flag, kFlagBytes, false, false, false,
                                        false, LLVM::AtomicOrdering::acquire, "device");
      Value unset = arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::ne, seen, value);
      scf::ConditionOp::create(builder, loc, unset, ValueRange{});
      builder.setInsertionPointToStart(builder.createBlock(&loop.getAfter()));
      scf::YieldOp::create(builder, loc);
    }
    op->erase();
    return success();
  }

  if (auto copy = dyn_cast<AsyncCopyOp>(op)) {
    FailureOr<Cursor> src = cursorOf(op, copy.getSrc());
    FailureOr<Cursor> dst = cursorOf(op, copy.getDst());
    if (failed(src) || failed(dst))
      return failure();
    auto [scalar, count] = scalarsOf(copy.getSrc().getType().getElementType());
    Value srcOffset = elementOffset(loc, copy.getSrc().getType(), *src, copy.getSrcCoords(), {});
    Value dstOffset = elementOffset(loc, copy.getDst().getType(), *dst, copy.getDstCoords(), {});
    Value perElement = index(loc, count);
    srcOffset = arith::MulIOp::create(builder, loc, srcOffset, perElement);
    dstOffset = arith::MulIOp::create(builder, loc, dstOffset, perElement);
    Value srcElements;
    if (Value inBounds = copy.getInBounds())
      srcElements = arith::SelectOp::create(builder, loc, inBounds, perElement, index(loc, 0));
    nvgpu::DeviceAsyncCopyOp::create(
        builder, loc, viewOf(*dst, scalar, count), ValueRange{dstOffset},
        viewOf(*src, scalar, count), ValueRange{srcOffset},
        builder.getIndexAttr(count), srcElements, builder.getUnitAttr());
    copy.erase();
    return success();
  }

  if (auto wgmma = dyn_cast<WgmmaOp>(op)) {
    // Each operand's descriptor: the tile origin's shared address (>> 4,
    // 14 bits) and the 128-byte swizzle's fields.
    auto descriptor = [&](Value tensor, ValueRange coords, bool operandB) -> FailureOr<Value> {
      int64_t blockBytes = wgmma.getBlockBytes(operandB);
      uint64_t fields = wgmmaDescriptor128B(blockBytes ? blockBytes : 16);
      FailureOr<Cursor> cursor = cursorOf(op, tensor);
      if (failed(cursor))
        return failure();
      Value pointer =
          elementPointer(loc, cast<SpioTensorType>(tensor.getType()), *cursor, coords);
      Value address = LLVM::PtrToIntOp::create(builder, loc, builder.getI64Type(), pointer);
      Value field = arith::ShRUIOp::create(
          builder, loc,
          arith::AndIOp::create(builder, loc, address,
                                arith::ConstantIntOp::create(builder, loc, 0x3FFFF, 64)),
          arith::ConstantIntOp::create(builder, loc, 4, 64));
      return arith::OrIOp::create(builder, loc, field,
                                  arith::ConstantIntOp::create(builder, loc, int64_t(fields), 64))
          .getResult();
    };
    FailureOr<Value> a = descriptor(wgmma.getA(), wgmma.getACoords(), false);
    FailureOr<Value> b = descriptor(wgmma.getB(), wgmma.getBCoords(), true);
    if (failed(a) || failed(b))
      return failure();
    WarpgroupAccType accType = wgmma.getAcc().getType();
    VectorType vectorType = warpgroupVectorType(accType);
    int64_t count = accType.getElementsPerThread();
    Type f32 = builder.getF32Type();
    auto structType =
        LLVM::LLVMStructType::getLiteral(builder.getContext(), SmallVector<Type>(count, f32));
    // The accumulator as the instruction's struct of registers, and back;
    // the casts meet the converted accumulator when its type is lowered.
    Value accVector =
        UnrealizedConversionCastOp::create(builder, loc, vectorType, wgmma.getAcc()).getResult(0);
    Value inouts = LLVM::UndefOp::create(builder, loc, structType);
    for (int64_t i = 0; i < count; ++i)
      inouts = LLVM::InsertValueOp::create(
          builder, loc, inouts, vector::ExtractOp::create(builder, loc, accVector, i), i);
    // One instruction reduces 32 bytes of each row: 16 f16 or bf16, or 8
    // f32 read as TF32.
    Type element = cast<VectorType>(wgmma.getA().getType().getElementType()).getElementType();
    NVVM::WGMMATypes inputType = element.isF32()    ? NVVM::WGMMATypes::tf32
                                 : element.isBF16() ? NVVM::WGMMATypes::bf16
                                                    : NVVM::WGMMATypes::f16;
    int64_t k = 32 / (element.getIntOrFloatBitWidth() / 8);
    Value d = NVVM::WgmmaMmaAsyncOp::create(
        builder, loc, structType, inouts, *a, *b,
        NVVM::MMAShapeAttr::get(builder.getContext(), 64, accType.getN(), k), inputType, inputType,
        NVVM::WGMMATypes::f32,
        wgmma.getOverwrite() ? NVVM::WGMMAScaleOut::zero : NVVM::WGMMAScaleOut::one,
        NVVM::WGMMAScaleIn::one, NVVM::WGMMAScaleIn::one,
        // K-major A is row major and K-major B column major; MN-major
        // operands are transposed.
        wgmma.isMNMajor(false) ? NVVM::MMALayout::col : NVVM::MMALayout::row,
        wgmma.isMNMajor(true) ? NVVM::MMALayout::row : NVVM::MMALayout::col,
        NVVM::MMAIntOverflowAttr());
    Value result = arith::ConstantOp::create(
        builder, loc, DenseElementsAttr::get(vectorType, builder.getZeroAttr(f32)));
    for (int64_t i = 0; i < count; ++i)
      result = vector::InsertOp::create(builder, loc,
                                        LLVM::ExtractValueOp::create(builder, loc, d, i), result, i);
    wgmma.replaceAllUsesWith(
        UnrealizedConversionCastOp::create(builder, loc, accType, result).getResult(0));
    wgmma.erase();
    return success();
  }

  if (auto ldmatrix = dyn_cast<LdMatrixOp>(op)) {
    FailureOr<Cursor> cursor = cursorOf(op, ldmatrix.getTensor());
    if (failed(cursor))
      return failure();
    FragmentType fragment = ldmatrix.getType();
    bool transpose = ldmatrix.getTranspose();
    LdmatrixLaneRow lane = ldmatrixLaneRow(builder, loc, fragment, transpose);
    // A gather's lanes pass their row's position along the dimension the
    // rows are counted in, in place of its place in the tile.
    SmallVector<Value> coords(ldmatrix.getCoords());
    SmallVector<Extra, 2> extras;
    if (!ldmatrix.getGather() || !lane.alongRows)
      extras.push_back({fragment.getRowDim(), lane.row});
    if (!ldmatrix.getGather() || lane.alongRows)
      extras.push_back({fragment.getColDim(), lane.col});
    if (Value gather = ldmatrix.getGather())
      coords.push_back(gather);
    SpioTensorType type = ldmatrix.getTensor().getType();
    auto [scalar, count] = scalarsOf(type.getElementType());
    Value offset = elementOffset(loc, type, *cursor, coords, extras);
    offset = arith::MulIOp::create(builder, loc, offset, index(loc, count));
    auto resultType = VectorType::get({lane.tiles, 2}, scalar);
    Value tilesValue = nvgpu::LdMatrixOp::create(builder, loc, resultType,
                                                 viewOf(*cursor, scalar, count),
                                                 ValueRange{offset}, transpose, lane.tiles);
    Value flat = vector::ShapeCastOp::create(builder, loc, fragmentVectorType(fragment), tilesValue);
    Value result = VectorToFragmentOp::create(builder, loc, fragment, flat);
    ldmatrix.replaceAllUsesWith(result);
    ldmatrix.erase();
    return success();
  }

  // Fragment loads and stores: one access per element the lane holds (or
  // per pair of them), at the tile position layout::fragmentElement gives
  // (row g + 8 * (e / 2), column 2 * t + e % 2 for lane 4 * g + t), skipped
  // beyond the bounds.
  // With `firstRowOnly`, only the elements of the lane's first row, bounded
  // by the columns alone.
  auto fragmentAccess = [&](FragmentType fragment, Value tensor, ValueRange coords, Value rowBound,
                            Value colBound, int64_t step,
                            function_ref<void(int64_t, Value, Value)> body,
                            bool firstRowOnly = false) -> LogicalResult {
    FailureOr<Cursor> cursor = cursorOf(op, tensor);
    if (failed(cursor))
      return failure();
    auto type = cast<SpioTensorType>(tensor.getType());
    Value laneId = lane(loc);
    Value group = floorDiv(loc, laneId, 4);
    Value pair = arith::MulIOp::create(builder, loc, floorMod(loc, laneId, 4), index(loc, 2));
    SmallVector<Value> all(cursor->allCoords);
    llvm::append_range(all, coords);
    int64_t elements = firstRowOnly ? 2 : fragment.getElementsPerLane();
    for (int64_t e = 0; e < elements; e += step) {
      Value row = arith::AddIOp::create(builder, loc, group, index(loc, 8 * (e / 2)));
      Value col = arith::AddIOp::create(builder, loc, pair, index(loc, e % 2));
      Extra extras[] = {{fragment.getRowDim(), row}, {fragment.getColDim(), col}};
      Value offset = elementOffset(loc, type, *cursor, coords, extras);
      Value inBounds;
      if (rowBound) {
        Type indexType = builder.getIndexType();
        Value absCol = dimTotal(loc, fragment.getColDim(), all, extras[1], indexType);
        inBounds = arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::slt, absCol,
                                         baseValue(loc, colBound, indexType));
        if (!firstRowOnly) {
          Value absRow = dimTotal(loc, fragment.getRowDim(), all, extras[0], indexType);
          Value rowOk = arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::slt, absRow,
                                              baseValue(loc, rowBound, indexType));
          inBounds = arith::AndIOp::create(builder, loc, rowOk, inBounds);
        }
      }
      body(e, offset, inBounds);
    }
    return success();
  };
  // Runs `store` under `inBounds` (when there is one).
  auto guarded = [&](Value inBounds, function_ref<void()> store) {
    if (!inBounds)
      return store();
    auto guard = scf::IfOp::create(builder, loc, inBounds, false);
    OpBuilder::InsertionGuard g(builder);
    builder.setInsertionPointToStart(guard.thenBlock());
    store();
  };

  if (auto store = dyn_cast<StoreFragmentOp>(op)) {
    FragmentType fragment = store.getFragment().getType();
    FailureOr<Cursor> cursor = cursorOf(op, store.getTensor());
    if (failed(cursor))
      return failure();
    SpioTensorType type = store.getTensor().getType();
    Type element = type.getElementType();
    Value values = FragmentToVectorOp::create(builder, loc, fragmentVectorType(fragment),
                                              store.getFragment());
    if (accessesPairs(type, fragment, *cursor, store.getCoords(), store.getColBound())) {
      // Each lane's two adjacent columns in one store.
      auto pairType = VectorType::get({2}, element);
      Value view = typedView(cursor->root, pairType, type.getCosize() / 2);
      if (failed(fragmentAccess(
              fragment, store.getTensor(), store.getCoords(), store.getRowBound(),
              store.getColBound(), 2, [&](int64_t e, Value offset, Value inBounds) {
                Value first = convertFloat(
                    builder, loc, vector::ExtractOp::create(builder, loc, values, e), element);
                Value second = convertFloat(
                    builder, loc, vector::ExtractOp::create(builder, loc, values, e + 1),
                    element);
                Value both = vector::FromElementsOp::create(builder, loc, pairType,
                                                            ValueRange{first, second});
                Value half = arith::DivUIOp::create(builder, loc, offset, index(loc, 2));
                guarded(inBounds,
                        [&] { memref::StoreOp::create(builder, loc, both, view, half); });
              })))
        return failure();
    } else {
      Value view = viewOf(*cursor, element, 1);
      if (failed(fragmentAccess(
              fragment, store.getTensor(), store.getCoords(), store.getRowBound(),
              store.getColBound(), 1, [&](int64_t e, Value offset, Value inBounds) {
                Value v = convertFloat(
                    builder, loc, vector::ExtractOp::create(builder, loc, values, e), element);
                guarded(inBounds,
                        [&] { memref::StoreOp::create(builder, loc, v, view, offset); });
              })))
        return failure();
    }
    store.erase();
    return success();
  }

  if (auto load = dyn_cast<LoadFragmentOp>(op)) {
    FragmentType fragment = load.getType();
    Type f32 = fragment.getElementType();
    FailureOr<Cursor> cursor = cursorOf(op, load.getTensor());
    if (failed(cursor))
      return failure();
    SpioTensorType type = load.getTensor().getType();
    Type element = type.getElementType();
    // A tensor the same at every row (a broadcast bias or scale) is read at
    // the lane's first row only, its two adjacent columns in one load where
    // the types allow (other tensors, C, element by element: their pairs
    // cost the widest tiles registers).
    bool firstRowOnly = ignoresRows(type, fragment) &&
                        ignoresRows(cast<SpioTensorType>(cursor->root.getType()), fragment);
    int64_t step =
        firstRowOnly && accessesPairs(type, fragment, *cursor, load.getCoords(), load.getColBound())
            ? 2
            : 1;
    Value view = step == 2
                     ? typedView(cursor->root, VectorType::get({2}, element), type.getCosize() / 2)
                     : viewOf(*cursor, element, 1);
    // Each access's value, as f32 (vector<2xf32> for a pair).
    Type resultType = step == 2 ? Type(VectorType::get({2}, f32)) : f32;
    auto toF32 = [&](Value v) { return convertFloat(builder, loc, v, resultType); };
    SmallVector<Value> loaded(fragment.getElementsPerLane());
    if (failed(fragmentAccess(
            fragment, load.getTensor(), load.getCoords(), load.getRowBound(), load.getColBound(),
            step,
            [&](int64_t e, Value offset, Value inBounds) {
              if (step == 2)
                offset = arith::DivUIOp::create(builder, loc, offset, index(loc, 2));
              if (!inBounds) {
                loaded[e] = toF32(memref::LoadOp::create(builder, loc, view, offset));
                return;
              }
              auto guard = scf::IfOp::create(builder, loc, TypeRange{resultType}, inBounds, true);
              OpBuilder::InsertionGuard g(builder);
              builder.setInsertionPointToStart(guard.thenBlock());
              scf::YieldOp::create(builder, loc,
                                   toF32(memref::LoadOp::create(builder, loc, view, offset)));
              builder.setInsertionPointToStart(guard.elseBlock());
              scf::YieldOp::create(
                  builder, loc,
                  arith::ConstantOp::create(builder, loc, builder.getZeroAttr(resultType))
                      .getResult());
              loaded[e] = guard.getResult(0);
            },
            firstRowOnly)))
      return failure();
    // Element e of the lane's fragment: from its own access, its pair's, or
    // (rows ignored) the first row's.
    SmallVector<Value> elements;
    for (int64_t e = 0; e < fragment.getElementsPerLane(); ++e) {
      int64_t source = firstRowOnly ? e % 2 : e;
      Value v = loaded[source - source % step];
      if (step == 2)
        v = vector::ExtractOp::create(builder, loc, v, source % 2);
      elements.push_back(v);
    }
    Value values =
        vector::FromElementsOp::create(builder, loc, fragmentVectorType(fragment), elements);
    load.replaceAllUsesWith(VectorToFragmentOp::create(builder, loc, fragment, values).getResult());
    load.erase();
    return success();
  }

  if (auto load = dyn_cast<TmaLoadOp>(op)) {
    FailureOr<std::pair<Value, Value>> operands =
        bulkCopyOperands(op, load.getDst(), load.getDstCoords(), load.getMap());
    if (failed(operands))
      return failure();
    auto [tile, map] = *operands;
    // Element coordinates, innermost first.
    SmallVector<Value> coords;
    for (Value coord : llvm::reverse(load.getCoords()))
      coords.push_back(arith::IndexCastOp::create(builder, loc, builder.getI32Type(),
                                                  baseValue(loc, coord, builder.getIndexType())));
    // A multicast copy lands in blocks 0 to N - 1 of the cluster.
    Value mask;
    if (std::optional<uint64_t> blocks = load.getMulticast())
      mask = arith::ConstantIntOp::create(builder, loc, (int64_t(1) << *blocks) - 1, 16);
    NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp::create(
        builder, loc, tile, map, coords,
        barrierPointer(loc, load.getBarriers(), load.getIndex()), ValueRange(), mask, Value(),
        NVVM::TMALoadMode::TILE, false, NVVM::CTAGroupKindAttr(), Value());
    op->erase();
    return success();
  }
  if (auto load = dyn_cast<TmaLoadIm2colOp>(op)) {
    FailureOr<std::pair<Value, Value>> operands =
        bulkCopyOperands(op, load.getDst(), load.getDstCoords(), load.getMap());
    if (failed(operands))
      return failure();
    auto [tile, map] = *operands;
    auto narrow = [&](Value value, unsigned bits) {
      return arith::IndexCastOp::create(builder, loc, builder.getIntegerType(bits), value)
          .getResult();
    };
    // Element coordinates innermost first (channel, column, row, image);
    // the tap's offsets likewise (column, row).
    SmallVector<Value> coords{narrow(load.getChannel(), 32), narrow(load.getCol(), 32),
                              narrow(load.getRow(), 32), narrow(load.getImage(), 32)};
    SmallVector<Value> offsets{narrow(load.getColOffset(), 16), narrow(load.getRowOffset(), 16)};
    NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp::create(
        builder, loc, tile, map, coords, barrierPointer(loc, load.getBarriers(), load.getIndex()),
        offsets, Value(), Value(), NVVM::TMALoadMode::IM2COL, false, NVVM::CTAGroupKindAttr(),
        Value());
    op->erase();
    return success();
  }
  if (auto expect = dyn_cast<BarrierExpectTxOp>(op)) {
    Value pointer = barrierPointer(loc, expect.getBarriers(), expect.getIndex());
    Value bytes = arith::ConstantIntOp::create(builder, loc, expect.getBytes(), 32);
    NVVM::MBarrierArriveExpectTxOp::create(builder, loc, Type(), pointer, bytes,
                                           NVVM::MemScopeKind::CTA, false, Value());
    op->erase();
    return success();
  }

  // Barriers: NVVM's mbarrier instructions on the barrier's address.
  if (auto init = dyn_cast<BarrierInitOp>(op)) {
    Value pointer = barrierPointer(loc, init.getBarriers(), init.getIndex());
    Value arrivals = arith::ConstantIntOp::create(builder, loc, init.getArrivals(), 32);
    NVVM::MBarrierInitOp::create(builder, loc, pointer, arrivals, Value());
    op->erase();
    return success();
  }
  if (auto arrive = dyn_cast<BarrierArriveOp>(op)) {
    Value pointer = barrierPointer(loc, arrive.getBarriers(), arrive.getIndex());
    if (Value block = arrive.getBlock()) {
      // The same barrier in block `block` of the cluster, released at the
      // CTA's scope as a local arrival is: what it orders is this block's
      // reads of its own shared memory.
      NVVM::MBarrierArriveOp::create(builder, loc, Type(), inClusterBlock(loc, pointer, block),
                                     Value(), NVVM::MemScopeKind::CTA, false);
    } else {
      NVVM::MBarrierArriveOp::create(builder, loc, builder.getI64Type(), pointer, Value());
    }
    op->erase();
    return success();
  }
  if (auto wait = dyn_cast<BarrierWaitOp>(op)) {
    Value pointer = barrierPointer(loc, wait.getBarriers(), wait.getIndex());
    Value parity = arith::ExtUIOp::create(builder, loc, builder.getI32Type(), wait.getParity());
    // The suspend-time hint of each try (ns); the wait loops until the
    // phase completes.
    Value ticks = arith::ConstantIntOp::create(builder, loc, 10000000, 32);
    NVVM::MBarrierTryWaitParityOp::create(builder, loc, pointer, parity, ticks);
    op->erase();
    return success();
  }
  if (auto arrive = dyn_cast<AsyncArriveOp>(op)) {
    Value pointer = barrierPointer(loc, arrive.getBarriers(), arrive.getIndex());
    NVVM::CpAsyncMBarrierArriveOp::create(builder, loc, pointer, builder.getBoolAttr(true));
    op->erase();
    return success();
  }

  if (isa<AsyncCommitOp>(op)) {
    NVVM::CpAsyncCommitGroupOp::create(builder, loc);
    op->erase();
    return success();
  }
  if (auto wait = dyn_cast<AsyncWaitOp>(op)) {
    NVVM::CpAsyncWaitGroupOp::create(builder, loc, wait.getPending());
    op->erase();
    return success();
  }
  return success();
}

LogicalResult TensorResolver::run() {
  if (failed(collectCursors()))
    return failure();
  SmallVector<Operation *> accesses;
  func.getFunctionBody().walk([&](Operation *op) {
    if (isa<LoadOp, LoadRemoteOp, StoreOp, DiscardOp, SignalOp, WaitSignalOp, AsyncCopyOp,
            LdMatrixOp, LoadFragmentOp, StoreFragmentOp, AsyncCommitOp, AsyncWaitOp, BarrierInitOp,
            BarrierArriveOp, BarrierWaitOp, AsyncArriveOp, WgmmaOp, TmaLoadOp, TmaLoadIm2colOp,
            BarrierExpectTxOp>(op))
      accesses.push_back(op);
  });
  for (Operation *op : accesses)
    if (failed(lowerAccess(op)))
      return failure();
  // Cursors are resolved; drop them, uses first.
  SmallVector<Operation *> tensorOps;
  func.getFunctionBody().walk([&](Operation *op) {
    if (isa<SubscriptOp, RebaseOp, ViewOp, AllocOp, BarrierAllocOp>(op))
      tensorOps.push_back(op);
  });
  for (Operation *op : llvm::reverse(tensorOps)) {
    if (!op->use_empty())
      return op->emitOpError()
             << "result is used by an op the lowering cannot resolve: "
             << **op->getUsers().begin();
    op->erase();
  }
  if (sharedBytes > 0)
    func->setAttr("spio.shared_memory_bytes",
                  IntegerAttr::get(IntegerType::get(func.getContext(), 64), sharedBytes));
  return success();
}

//===----------------------------------------------------------------------===//
// Phase 2: coordinates, fragments and signatures
//===----------------------------------------------------------------------===//

class SpioTypeConverter : public TypeConverter {
public:
  SpioTypeConverter() {
    addConversion([](Type type) { return type; });
    addConversion([](CoordType type) -> Type { return IndexType::get(type.getContext()); });
    addConversion([](FragmentType type) -> Type { return fragmentVectorType(type); });
    addConversion([](WarpgroupAccType type) -> Type { return warpgroupVectorType(type); });
    // A tensor map is a by-value kernel parameter, read through its address.
    addConversion([](TensorMapType type) -> Type {
      return LLVM::LLVMPointerType::get(type.getContext());
    });
    addConversion(
        [](Im2colMapType type) -> Type { return LLVM::LLVMPointerType::get(type.getContext()); });
    addConversion([](SpioTensorType type) -> std::optional<Type> {
      if (type.getMemorySpace() == MemorySpace::Global)
        return globalBytesType(type);
      return std::nullopt;
    });
    auto cast = [](OpBuilder &b, Type type, ValueRange inputs, Location loc) -> Value {
      return UnrealizedConversionCastOp::create(b, loc, type, inputs).getResult(0);
    };
    addSourceMaterialization(cast);
    addTargetMaterialization(cast);
  }
};

template <typename Op>
struct SpioPattern : OpConversionPattern<Op> {
  using OpConversionPattern<Op>::OpConversionPattern;
  using Adaptor = typename Op::Adaptor;
  Value index(ConversionPatternRewriter &r, Location loc, int64_t v) const {
    return arith::ConstantIndexOp::create(r, loc, v);
  }
};

struct ConstantLowering : SpioPattern<ConstantOp> {
  using SpioPattern::SpioPattern;
  LogicalResult matchAndRewrite(ConstantOp op, Adaptor, ConversionPatternRewriter &r) const override {
    r.replaceOp(op, index(r, op.getLoc(), op.getValue()));
    return success();
  }
};

/// Ops whose lowering is their (converted) operand.
template <typename Op>
struct IdentityLowering : SpioPattern<Op> {
  using SpioPattern<Op>::SpioPattern;
  LogicalResult matchAndRewrite(Op op, typename Op::Adaptor adaptor,
                                ConversionPatternRewriter &r) const override {
    r.replaceOp(op, adaptor.getOperands().front());
    return success();
  }
};

Value scaled(OpBuilder &b, Location loc, Value v, int64_t factor) {
  if (factor == 1)
    return v;
  return arith::MulIOp::create(b, loc, v, arith::ConstantIndexOp::create(b, loc, factor));
}

struct FoldLowering : SpioPattern<FoldOp> {
  using SpioPattern::SpioPattern;
  LogicalResult matchAndRewrite(FoldOp op, Adaptor a, ConversionPatternRewriter &r) const override {
    int64_t ratio = op.getType().getFold() / op.getInput().getType().getFold();
    r.replaceOp(op, floorDivIndex(r, op.getLoc(), a.getInput(), ratio));
    return success();
  }
};

struct UnfoldLowering : SpioPattern<UnfoldOp> {
  using SpioPattern::SpioPattern;
  LogicalResult matchAndRewrite(UnfoldOp op, Adaptor a, ConversionPatternRewriter &r) const override {
    int64_t ratio = op.getInput().getType().getFold() / op.getType().getFold();
    r.replaceOp(op, scaled(r, op.getLoc(), a.getInput(), ratio));
    return success();
  }
};

template <typename Op, typename ArithOp>
struct CoordBinaryLowering : SpioPattern<Op> {
  using SpioPattern<Op>::SpioPattern;
  LogicalResult matchAndRewrite(Op op, typename Op::Adaptor a,
                                ConversionPatternRewriter &r) const override {
    // Both operands to the result's (finer) fold, then combine.
    int64_t fold = cast<CoordType>(op.getType()).getFold();
    Value lhs = scaled(r, op.getLoc(), a.getLhs(), op.getLhs().getType().getFold() / fold);
    Value rhs = scaled(r, op.getLoc(), a.getRhs(), op.getRhs().getType().getFold() / fold);
    r.replaceOpWithNewOp<ArithOp>(op, lhs, rhs);
    return success();
  }
};

struct ModLowering : SpioPattern<ModOp> {
  using SpioPattern::SpioPattern;
  LogicalResult matchAndRewrite(ModOp op, Adaptor a, ConversionPatternRewriter &r) const override {
    r.replaceOp(op, floorModIndex(r, op.getLoc(), a.getInput(), op.getModulus()));
    return success();
  }
};

struct CmpLowering : SpioPattern<CmpOp> {
  using SpioPattern::SpioPattern;
  LogicalResult matchAndRewrite(CmpOp op, Adaptor a, ConversionPatternRewriter &r) const override {
    // Compare positions: both sides in base units.
    Location loc = op.getLoc();
    Value lhs = scaled(r, loc, a.getLhs(), op.getLhs().getType().getFold());
    Value rhs = scaled(r, loc, a.getRhs(), op.getRhs().getType().getFold());
    arith::CmpIPredicate predicate = arith::CmpIPredicate::eq;
    switch (op.getPredicate()) {
    case CmpPredicate::eq: predicate = arith::CmpIPredicate::eq; break;
    case CmpPredicate::ne: predicate = arith::CmpIPredicate::ne; break;
    case CmpPredicate::lt: predicate = arith::CmpIPredicate::slt; break;
    case CmpPredicate::le: predicate = arith::CmpIPredicate::sle; break;
    case CmpPredicate::gt: predicate = arith::CmpIPredicate::sgt; break;
    case CmpPredicate::ge: predicate = arith::CmpIPredicate::sge; break;
    }
    r.replaceOpWithNewOp<arith::CmpIOp>(op, predicate, lhs, rhs);
    return success();
  }
};

struct LdMatrixRowLowering : SpioPattern<LdMatrixRowOp> {
  using SpioPattern::SpioPattern;
  LogicalResult matchAndRewrite(LdMatrixRowOp op, Adaptor,
                                ConversionPatternRewriter &r) const override {
    LdmatrixLaneRow lane = ldmatrixLaneRow(r, op.getLoc(), cast<FragmentType>(op.getFragment()),
                                           op.getTranspose());
    r.replaceOp(op, lane.alongRows ? lane.row : lane.col);
    return success();
  }
};

struct LinearIdLowering : SpioPattern<LinearIdOp> {
  using SpioPattern::SpioPattern;
  LogicalResult matchAndRewrite(LinearIdOp op, Adaptor, ConversionPatternRewriter &r) const override {
    Location loc = op.getLoc();
    auto threadLinear = [&]() -> Value {
      // x + ntid.x * (y + ntid.y * z)
      Value x = gpu::ThreadIdOp::create(r, loc, gpu::Dimension::x);
      Value y = gpu::ThreadIdOp::create(r, loc, gpu::Dimension::y);
      Value z = gpu::ThreadIdOp::create(r, loc, gpu::Dimension::z);
      Value nx = gpu::BlockDimOp::create(r, loc, gpu::Dimension::x);
      Value ny = gpu::BlockDimOp::create(r, loc, gpu::Dimension::y);
      Value yz = arith::AddIOp::create(r, loc, y, arith::MulIOp::create(r, loc, ny, z));
      return arith::AddIOp::create(r, loc, x, arith::MulIOp::create(r, loc, nx, yz));
    };
    Value result;
    switch (op.getId()) {
    case LinearId::Thread: result = threadLinear(); break;
    case LinearId::Lane: result = gpu::LaneIdOp::create(r, loc, nullptr); break;
    case LinearId::Warp:
      result = arith::DivUIOp::create(r, loc, threadLinear(), index(r, loc, 32));
      break;
    case LinearId::BlockX: result = gpu::BlockIdOp::create(r, loc, gpu::Dimension::x); break;
    case LinearId::BlockY: result = gpu::BlockIdOp::create(r, loc, gpu::Dimension::y); break;
    case LinearId::BlockZ: result = gpu::BlockIdOp::create(r, loc, gpu::Dimension::z); break;
    case LinearId::ClusterBlock:
      result = arith::IndexCastUIOp::create(
          r, loc, r.getIndexType(), NVVM::ClusterId::create(r, loc, r.getI32Type()));
      break;
    }
    r.replaceOp(op, result);
    return success();
  }
};

struct DecomposeLowering : SpioPattern<DecomposeOp> {
  using SpioPattern::SpioPattern;
  LogicalResult matchAndRewrite(DecomposeOp op, Adaptor a, ConversionPatternRewriter &r) const override {
    Location loc = op.getLoc();
    ArrayRef<int64_t> sizes = op.getSizes();
    SmallVector<Value> digits(sizes.size());
    Value rest = a.getInput();
    for (size_t i = sizes.size(); i-- > 0;) {
      digits[i] = floorModIndex(r, loc, rest, sizes[i]);
      rest = floorDivIndex(r, loc, rest, sizes[i]);
    }
    r.replaceOp(op, digits);
    return success();
  }
};

struct FillLowering : SpioPattern<FillOp> {
  using SpioPattern::SpioPattern;
  LogicalResult matchAndRewrite(FillOp op, Adaptor a, ConversionPatternRewriter &r) const override {
    r.replaceOpWithNewOp<vector::BroadcastOp>(op, fragmentVectorType(op.getType()), a.getValue());
    return success();
  }
};

/// spio.mma -> nvvm.mma.sync (row.col): A and B as registers of two 16-bit
/// values (f16x2, or i32 for bf16, as PTX wants), C and D as four f32.
struct MmaLowering : SpioPattern<MmaOp> {
  using SpioPattern::SpioPattern;
  LogicalResult matchAndRewrite(MmaOp op, Adaptor a, ConversionPatternRewriter &r) const override {
    Location loc = op.getLoc();
    FragmentType acc = op.getAcc().getType();
    Type element = op.getA().getType().getElementType();
    bool bf16 = element.isBF16();
    auto registers = [&](Value flat, int64_t count) {
      SmallVector<Value> regs;
      for (int64_t i = 0; i < count; ++i) {
        Value pair = vector::ExtractStridedSliceOp::create(r, loc, flat, ArrayRef<int64_t>{2 * i},
                                                           ArrayRef<int64_t>{2},
                                                           ArrayRef<int64_t>{1});
        if (bf16) {
          Value word = vector::BitCastOp::create(
              r, loc, VectorType::get({1}, r.getI32Type()), pair);
          pair = vector::ExtractOp::create(r, loc, word, 0);
        }
        regs.push_back(pair);
      }
      return regs;
    };
    SmallVector<Value> c;
    for (int64_t i = 0; i < 4; ++i)
      c.push_back(vector::ExtractOp::create(r, loc, a.getAcc(), i));
    Type f32 = r.getF32Type();
    auto resultType = LLVM::LLVMStructType::getLiteral(r.getContext(), {f32, f32, f32, f32});
    NVVM::MMATypes ptxType = bf16 ? NVVM::MMATypes::bf16 : NVVM::MMATypes::f16;
    Value d = NVVM::MmaOp::create(
        r, loc, resultType,
        registers(a.getA(), op.getA().getType().getElementsPerLane() / 2),
        registers(a.getB(), op.getB().getType().getElementsPerLane() / 2), c,
        ArrayRef<int64_t>{16, 8, mmaK(op.getA().getType())}, std::nullopt, std::nullopt,
        std::array<NVVM::MMATypes, 2>{ptxType, ptxType},
        std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row, NVVM::MMALayout::col});
    Value result = arith::ConstantOp::create(
        r, loc, DenseElementsAttr::get(fragmentVectorType(acc), r.getZeroAttr(f32)));
    for (int64_t i = 0; i < 4; ++i)
      result = vector::InsertOp::create(r, loc, LLVM::ExtractValueOp::create(r, loc, d, i), result, i);
    r.replaceOp(op, result);
    return success();
  }
};

/// Each of the thread's accumulator registers gets its own value from an
/// empty asm that passes the fill value through. With one value for all,
/// the backend copies it into each register right before the first wgmma,
/// after its wgmma.fence, where ptxas must fence again (C7519) and then
/// serializes the wgmmas (C7520).
struct WarpgroupFillLowering : SpioPattern<WarpgroupFillOp> {
  using SpioPattern::SpioPattern;
  LogicalResult matchAndRewrite(WarpgroupFillOp op, Adaptor a,
                                ConversionPatternRewriter &r) const override {
    Location loc = op.getLoc();
    VectorType vectorType = warpgroupVectorType(op.getType());
    int64_t count = vectorType.getNumElements();
    Type element = vectorType.getElementType();
    std::string constraints;
    for (int64_t i = 0; i < count; ++i)
      constraints += (i ? ",=f" : "=f");
    for (int64_t i = 0; i < count; ++i)
      constraints += "," + std::to_string(i);
    auto registers =
        LLVM::LLVMStructType::getLiteral(r.getContext(), SmallVector<Type>(count, element));
    Value values = LLVM::InlineAsmOp::create(
                       r, loc, registers, SmallVector<Value>(count, a.getValue()), "", constraints,
                       /*has_side_effects=*/false, /*is_align_stack=*/false,
                       LLVM::tailcallkind::TailCallKind::None, LLVM::AsmDialectAttr(),
                       ArrayAttr())
                       .getResult(0);
    Value fill = LLVM::PoisonOp::create(r, loc, vectorType);
    for (int64_t i = 0; i < count; ++i)
      fill = vector::InsertOp::create(r, loc, LLVM::ExtractValueOp::create(r, loc, values, i),
                                      fill, i);
    r.replaceOp(op, fill);
    return success();
  }
};

/// The thread's values of C fragment `index` are values 4 * index to
/// 4 * index + 3 of its accumulator registers (wgmma's register order).
struct WarpgroupFragmentLowering : SpioPattern<WarpgroupFragmentOp> {
  using SpioPattern::SpioPattern;
  LogicalResult matchAndRewrite(WarpgroupFragmentOp op, Adaptor a,
                                ConversionPatternRewriter &r) const override {
    r.replaceOpWithNewOp<vector::ExtractStridedSliceOp>(
        op, a.getAcc(), ArrayRef<int64_t>{4 * int64_t(op.getIndex())}, ArrayRef<int64_t>{4},
        ArrayRef<int64_t>{1});
    return success();
  }
};

/// wgmma's fence, commit and wait, and the async-proxy fence.
template <typename Op, typename Lowered>
struct ReplaceLowering : SpioPattern<Op> {
  using SpioPattern<Op>::SpioPattern;
  LogicalResult matchAndRewrite(Op op, typename Op::Adaptor,
                                ConversionPatternRewriter &r) const override {
    r.replaceOpWithNewOp<Lowered>(op);
    return success();
  }
};

struct WgmmaWaitLowering : SpioPattern<WgmmaWaitOp> {
  using SpioPattern::SpioPattern;
  LogicalResult matchAndRewrite(WgmmaWaitOp op, Adaptor,
                                ConversionPatternRewriter &r) const override {
    r.replaceOpWithNewOp<NVVM::WgmmaWaitGroupSyncOp>(op, op.getPending());
    return success();
  }
};

struct FenceProxyAsyncLowering : SpioPattern<FenceProxyAsyncOp> {
  using SpioPattern::SpioPattern;
  LogicalResult matchAndRewrite(FenceProxyAsyncOp op, Adaptor,
                                ConversionPatternRewriter &r) const override {
    r.replaceOpWithNewOp<NVVM::FenceProxyOp>(
        op, NVVM::ProxyKind::async_shared,
        NVVM::SharedSpaceAttr::get(r.getContext(), NVVM::SharedSpace::shared_cta));
    return success();
  }
};

struct SetMaxRegistersLowering : SpioPattern<SetMaxRegistersOp> {
  using SpioPattern::SpioPattern;
  LogicalResult matchAndRewrite(SetMaxRegistersOp op, Adaptor,
                                ConversionPatternRewriter &r) const override {
    r.replaceOpWithNewOp<NVVM::SetMaxRegisterOp>(
        op, uint32_t(op.getCount()),
        op.getAction() == RegisterAction::Increase ? NVVM::SetMaxRegisterAction::increase
                                                   : NVVM::SetMaxRegisterAction::decrease);
    return success();
  }
};

struct NamedBarrierLowering : SpioPattern<NamedBarrierOp> {
  using SpioPattern::SpioPattern;
  LogicalResult matchAndRewrite(NamedBarrierOp op, Adaptor, ConversionPatternRewriter &r) const override {
    Location loc = op.getLoc();
    Value id = arith::ConstantIntOp::create(r, loc, op.getId(), 32);
    Value threads = arith::ConstantIntOp::create(r, loc, op.getThreads(), 32);
    NVVM::BarrierOp::create(r, loc, Type(), id, threads, NVVM::BarrierReductionAttr(), Value());
    r.eraseOp(op);
    return success();
  }
};

/// A kernel's tensor-map parameters are passed by value, 64-byte aligned:
/// the GPU lowering keeps `llvm.align` on the argument, and
/// spio-grid-constant-params makes the listed ones byval grid constants once
/// the function is LLVM's. (A device function takes the map's address.)
void markGridConstantParams(FunctionOpInterface func) {
  auto kernel = dyn_cast<gpu::GPUFuncOp>(func.getOperation());
  if (!kernel || !kernel.isKernel())
    return;
  SmallVector<int64_t> params;
  Builder builder(func.getContext());
  for (auto [i, type] : llvm::enumerate(func.getArgumentTypes()))
    if (isa<TensorMapType, Im2colMapType>(type)) {
      func.setArgAttr(i, LLVM::LLVMDialect::getAlignAttrName(), builder.getI64IntegerAttr(64));
      params.push_back(int64_t(i));
    }
  if (!params.empty())
    func->setAttr(kGridConstantParamsAttr, builder.getDenseI64ArrayAttr(params));
}

/// An op of a graph region (where a value may be used before its definition)
/// whose result reaches its own operands, or null: such a value has no
/// lowering, and dialect conversion would chase it forever.
static Operation *findDefinitionCycle(Operation *root) {
  enum class Mark { Open, Done };
  DenseMap<Operation *, Mark> marks;
  Operation *cyclic = nullptr;
  root->walk([&](Operation *op) {
    for (Region &region : op->getRegions()) {
      if (cyclic || !mayBeGraphRegion(region))
        continue;
      for (Block &block : region) {
        // Depth first along the operands' definitions in the block.
        for (Operation &start : block) {
          if (cyclic || marks.count(&start))
            continue;
          SmallVector<std::pair<Operation *, unsigned>> path{{&start, 0}};
          marks[&start] = Mark::Open;
          while (!path.empty() && !cyclic) {
            auto &[current, next] = path.back();
            if (next == current->getNumOperands()) {
              marks[current] = Mark::Done;
              path.pop_back();
              continue;
            }
            Operation *definition = current->getOperand(next++).getDefiningOp();
            if (!definition || definition->getBlock() != &block)
              continue;
            auto mark = marks.find(definition);
            if (mark == marks.end()) {
              marks[definition] = Mark::Open;
              path.push_back({definition, 0});
            } else if (mark->second == Mark::Open) {
              cyclic = definition;
            }
          }
        }
      }
    }
  });
  return cyclic;
}

struct ConvertSpioToGPU : mlir::spio::impl::ConvertSpioToGPUBase<ConvertSpioToGPU> {
  using Base::Base;

  void runOnOperation() override {
    Operation *root = getOperation();
    if (Operation *cyclic = findDefinitionCycle(root)) {
      cyclic->emitOpError() << "uses its own result, directly or through other ops of a graph "
                               "region; a kernel's values are defined before they are used";
      return signalPassFailure();
    }
    // Cluster barriers: barrier.cluster's arrive (release) and wait
    // (acquire). Dependent-grid control: griddepcontrol where the chip has
    // it; before sm_90 a stream's grids run one after the other, so there
    // is nothing to wait for.
    root->walk([&](Operation *op) {
      if (isa<WarpSyncOp>(op)) {
        OpBuilder builder(op);
        Value allLanes = arith::ConstantIntOp::create(builder, op->getLoc(), -1, 32);
        NVVM::SyncWarpOp::create(builder, op->getLoc(), allLanes);
        op->erase();
        return;
      }
      if (isa<ClusterBarrierOp>(op)) {
        OpBuilder builder(op);
        UnitAttr aligned = builder.getUnitAttr();
        NVVM::ClusterArriveOp::create(builder, op->getLoc(), aligned);
        NVVM::ClusterWaitOp::create(builder, op->getLoc(), aligned);
        op->erase();
        return;
      }
      std::optional<NVVM::GridDepActionKind> kind;
      if (isa<LaunchDependentsOp>(op))
        kind = NVVM::GridDepActionKind::launch_dependents;
      else if (isa<WaitPrerequisitesOp>(op))
        kind = NVVM::GridDepActionKind::wait;
      else
        return;
      if (dependentGrids) {
        OpBuilder builder(op);
        NVVM::GriddepcontrolOp::create(builder, op->getLoc(), *kind);
      }
      op->erase();
    });
    SmallVector<FunctionOpInterface> funcs;
    root->walk([&](FunctionOpInterface func) {
      if (!func.isExternal())
        funcs.push_back(func);
    });
    for (FunctionOpInterface func : funcs) {
      if (failed(TensorResolver(func).run()))
        return signalPassFailure();
      markGridConstantParams(func);
    }

    MLIRContext *ctx = &getContext();
    SpioTypeConverter converter;
    ConversionTarget target(*ctx);
    target.addIllegalDialect<SpioDialect>();
    target.addLegalDialect<arith::ArithDialect, gpu::GPUDialect, LLVM::LLVMDialect,
                           memref::MemRefDialect,
                           nvgpu::NVGPUDialect, NVVM::NVVMDialect, scf::SCFDialect,
                           vector::VectorDialect>();
    target.addLegalOp<UnrealizedConversionCastOp>();
    auto signatureLegal = [&](Operation *op) {
      auto func = cast<FunctionOpInterface>(op);
      return converter.isLegal(func.getArgumentTypes()) &&
             converter.isLegal(func.getResultTypes()) &&
             converter.isLegal(&func.getFunctionBody());
    };
    target.addDynamicallyLegalOp<gpu::GPUFuncOp, func::FuncOp>(signatureLegal);
    target.addDynamicallyLegalOp<func::ReturnOp, func::CallOp>(
        [&](Operation *op) { return converter.isLegal(op); });

    RewritePatternSet patterns(ctx);
    patterns.add<ConstantLowering, FoldLowering, UnfoldLowering,
                 IdentityLowering<CastOp>, IdentityLowering<ToIndexOp>,
                 IdentityLowering<FromIndexOp>, IdentityLowering<FragmentToVectorOp>,
                 IdentityLowering<VectorToFragmentOp>,
                 CoordBinaryLowering<AddOp, arith::AddIOp>,
                 CoordBinaryLowering<SubOp, arith::SubIOp>, ModLowering, CmpLowering,
                 LinearIdLowering, LdMatrixRowLowering, DecomposeLowering, FillLowering, MmaLowering,
                 NamedBarrierLowering, WarpgroupFillLowering, WarpgroupFragmentLowering,
                 ReplaceLowering<WgmmaFenceOp, NVVM::WgmmaFenceAlignedOp>,
                 ReplaceLowering<WgmmaCommitOp, NVVM::WgmmaGroupSyncAlignedOp>,
                 WgmmaWaitLowering, FenceProxyAsyncLowering, SetMaxRegistersLowering,
                 ReplaceLowering<FenceBarrierInitOp, NVVM::FenceMbarrierInitOp>>(
        converter, ctx);
    populateActivationLoweringPatterns(patterns);
    populateFunctionOpInterfaceTypeConversionPattern<gpu::GPUFuncOp>(patterns, converter);
    populateFunctionOpInterfaceTypeConversionPattern<func::FuncOp>(patterns, converter);
    populateReturnOpTypeConversionPattern(patterns, converter);
    populateCallOpTypeConversionPattern(patterns, converter);
    scf::populateSCFStructuralTypeConversionsAndLegality(converter, patterns, target);
    if (failed(applyPartialConversion(root, target, std::move(patterns))))
      return signalPassFailure();

    SmallVector<UnrealizedConversionCastOp> casts;
    root->walk([&](UnrealizedConversionCastOp cast) { casts.push_back(cast); });
    reconcileUnrealizedCasts(casts);
  }
};

} // namespace
