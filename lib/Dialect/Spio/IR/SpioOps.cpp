//===- SpioOps.cpp - Spio operations --------------------------------------===//

#include "spio/Dialect/Spio/IR/SpioOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

#include <numeric>

using namespace mlir;
using namespace mlir::spio;

#define GET_OP_CLASSES
#include "spio/Dialect/Spio/IR/SpioOps.cpp.inc"

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

static std::optional<int64_t> constantValue(Attribute attr) {
  if (auto intAttr = dyn_cast_if_present<IntegerAttr>(attr))
    return intAttr.getValue().getSExtValue();
  return std::nullopt;
}

static IntegerAttr coordAttr(MLIRContext *ctx, int64_t value) {
  return IntegerAttr::get(IntegerType::get(ctx, 64), value);
}

static CoordType coordType(Value v) { return cast<CoordType>(v.getType()); }

/// The layout model's view of typed coordinate values; only their dimensions
/// and folds matter for checking a subscript.
static std::vector<layout::Coord> coordsOf(ValueRange coords) {
  std::vector<layout::Coord> result;
  for (Value c : coords) {
    CoordType type = coordType(c);
    result.push_back({type.getDim().getValue().str(), type.getFold(), 0});
  }
  return result;
}

static LogicalResult verifySubscript(Operation *op, SpioTensorType tensor,
                                     ValueRange coords, StringRef what,
                                     ArrayAttr projected = {}) {
  std::vector<std::string> projectedDims;
  if (projected)
    for (Attribute a : projected)
      projectedDims.push_back(cast<StringAttr>(a).getValue().str());
  std::string err =
      tensor.getLayout().checkSubscript(coordsOf(coords), projectedDims);
  if (!err.empty())
    return op->emitOpError() << what << ": " << err;
  return success();
}

//===----------------------------------------------------------------------===//
// Coordinates
//===----------------------------------------------------------------------===//

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValueAttr(); }

/// `value` as a folder's replacement for `op`'s result, or none where it is
/// that result itself: a graph region lets an op use its own result, and
/// the greedy driver would fold such an op again forever.
static OpFoldResult unlessSelf(Operation *op, Value value) {
  if (value.getDefiningOp() == op)
    return {};
  return value;
}

LogicalResult FoldOp::verify() {
  CoordType in = getInput().getType(), out = getType();
  if (in.getDim() != out.getDim())
    return emitOpError() << "keeps the dimension, but '" << in.getDimName()
                         << "' would become '" << out.getDimName()
                         << "'; rename it with spio.cast";
  if (out.getFold() % in.getFold() != 0)
    return emitOpError() << "from '" << in.getDimName() << "' to '"
                         << out.getDimName() << "' does not divide: "
                         << out.getFold() << " is not a multiple of "
                         << in.getFold();
  return success();
}

OpFoldResult FoldOp::fold(FoldAdaptor adaptor) {
  CoordType in = getInput().getType(), out = getType();
  if (in == out)
    return unlessSelf(*this, getInput());
  if (auto c = constantValue(adaptor.getInput()))
    return coordAttr(getContext(),
                     layout::floorDiv(*c, out.getFold() / in.getFold()));
  // fold(unfold(x)) is exact when it returns to x's fold.
  if (auto unfold = getInput().getDefiningOp<UnfoldOp>())
    if (unfold.getInput().getType() == out)
      return unlessSelf(*this, unfold.getInput());
  return {};
}

/// fold(fold(x)) -> fold(x); fold(unfold(x)) -> fold(x) or unfold(x),
/// whichever is exact for the folds involved.
static LogicalResult composeFold(FoldOp op, PatternRewriter &rewriter) {
  Operation *producer = op.getInput().getDefiningOp();
  if (!isa_and_present<FoldOp, UnfoldOp>(producer) || producer == op)
    return failure();
  Value source = producer->getOperand(0);
  int64_t sourceFold = coordType(source).getFold();
  int64_t outFold = op.getType().getFold();
  if (isa<FoldOp>(producer) || outFold % sourceFold == 0) {
    rewriter.replaceOpWithNewOp<FoldOp>(op, op.getType(), source);
    return success();
  }
  if (sourceFold % outFold == 0) {
    rewriter.replaceOpWithNewOp<UnfoldOp>(op, op.getType(), source);
    return success();
  }
  return failure();
}

void FoldOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                         MLIRContext *) {
  results.add(composeFold);
}

LogicalResult UnfoldOp::verify() {
  CoordType in = getInput().getType(), out = getType();
  if (in.getDim() != out.getDim())
    return emitOpError() << "keeps the dimension, but '" << in.getDimName()
                         << "' would become '" << out.getDimName()
                         << "'; rename it with spio.cast";
  if (in.getFold() % out.getFold() != 0)
    return emitOpError() << "from '" << in.getDimName() << "' to '"
                         << out.getDimName() << "' does not divide: "
                         << out.getFold() << " does not divide "
                         << in.getFold();
  return success();
}

OpFoldResult UnfoldOp::fold(FoldAdaptor adaptor) {
  CoordType in = getInput().getType(), out = getType();
  if (in == out)
    return unlessSelf(*this, getInput());
  int64_t result;
  if (auto c = constantValue(adaptor.getInput()))
    if (!llvm::MulOverflow(*c, in.getFold() / out.getFold(), result))
      return coordAttr(getContext(), result);
  return {};
}

/// unfold(unfold(x)) -> unfold(x).
static LogicalResult composeUnfold(UnfoldOp op, PatternRewriter &rewriter) {
  auto producer = op.getInput().getDefiningOp<UnfoldOp>();
  if (!producer || producer == op)
    return failure();
  rewriter.replaceOpWithNewOp<UnfoldOp>(op, op.getType(), producer.getInput());
  return success();
}

void UnfoldOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                           MLIRContext *) {
  results.add(composeUnfold);
}

LogicalResult CastOp::verify() {
  CoordType in = getInput().getType(), out = getType();
  if (in.getFold() != out.getFold())
    return emitOpError() << "renames a dimension and keeps its fold, but '"
                         << in.getDimName() << "' and '" << out.getDimName()
                         << "' have different folds; use spio.fold or "
                            "spio.unfold first";
  return success();
}

OpFoldResult CastOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType())
    return unlessSelf(*this, getInput());
  if (auto c = constantValue(adaptor.getInput()))
    return coordAttr(getContext(), *c);
  if (auto inner = getInput().getDefiningOp<CastOp>(); inner && inner != *this) {
    if (inner.getInput().getType() == getType())
      return unlessSelf(*this, inner.getInput());
    getInputMutable().assign(inner.getInput());
    return getResult();
  }
  return {};
}

static LogicalResult inferCoordBinary(std::optional<Location> location,
                                      ValueRange operands, StringRef verb,
                                      SmallVectorImpl<Type> &inferred) {
  if (operands.size() != 2)
    return emitOptionalError(location, "expected two coordinates");
  auto lhs = dyn_cast<CoordType>(operands[0].getType());
  auto rhs = dyn_cast<CoordType>(operands[1].getType());
  if (!lhs || !rhs)
    return emitOptionalError(location, "expected two coordinates");
  if (lhs.getDim() != rhs.getDim())
    return emitOptionalError(location, "cannot ", verb,
                             " coordinates of different dimensions '",
                             lhs.getDimName(), "' and '", rhs.getDimName(),
                             "'; rename one with spio.cast");
  inferred.push_back(CoordType::get(lhs.getContext(), lhs.getDim(),
                                    std::gcd(lhs.getFold(), rhs.getFold())));
  return success();
}

LogicalResult AddOp::inferReturnTypes(MLIRContext *, std::optional<Location> location,
                                      ValueRange operands, DictionaryAttr,
                                      OpaqueProperties, RegionRange,
                                      SmallVectorImpl<Type> &inferred) {
  return inferCoordBinary(location, operands, "add", inferred);
}

LogicalResult SubOp::inferReturnTypes(MLIRContext *, std::optional<Location> location,
                                      ValueRange operands, DictionaryAttr,
                                      OpaqueProperties, RegionRange,
                                      SmallVectorImpl<Type> &inferred) {
  return inferCoordBinary(location, operands, "subtract", inferred);
}

/// Constant operands in base units, or nothing (also when that overflows).
static std::optional<std::pair<int64_t, int64_t>>
constantBasePair(Attribute lhs, Attribute rhs, Value lhsValue, Value rhsValue) {
  auto l = constantValue(lhs), r = constantValue(rhs);
  int64_t lBase, rBase;
  if (!l || !r || llvm::MulOverflow(*l, coordType(lhsValue).getFold(), lBase) ||
      llvm::MulOverflow(*r, coordType(rhsValue).getFold(), rBase))
    return std::nullopt;
  return std::make_pair(lBase, rBase);
}

OpFoldResult AddOp::fold(FoldAdaptor adaptor) {
  int64_t fold = getType().getFold();
  int64_t sum;
  if (auto base = constantBasePair(adaptor.getLhs(), adaptor.getRhs(), getLhs(), getRhs()))
    if (!llvm::AddOverflow(base->first, base->second, sum))
      return coordAttr(getContext(), sum / fold);
  if (constantValue(adaptor.getRhs()) == 0 && getLhs().getType() == getType())
    return unlessSelf(*this, getLhs());
  if (constantValue(adaptor.getLhs()) == 0 && getRhs().getType() == getType())
    return unlessSelf(*this, getRhs());
  return {};
}

OpFoldResult SubOp::fold(FoldAdaptor adaptor) {
  int64_t fold = getType().getFold();
  int64_t difference;
  if (auto base = constantBasePair(adaptor.getLhs(), adaptor.getRhs(), getLhs(), getRhs()))
    if (!llvm::SubOverflow(base->first, base->second, difference))
      return coordAttr(getContext(), difference / fold);
  if (constantValue(adaptor.getRhs()) == 0 && getLhs().getType() == getType())
    return unlessSelf(*this, getLhs());
  if (getLhs() == getRhs())
    return coordAttr(getContext(), 0);
  return {};
}

LogicalResult ModOp::verify() {
  if (getModulus() <= 0)
    return emitOpError() << "modulus of '" << getType().getDimName()
                         << "' must be positive, got " << getModulus();
  return success();
}

OpFoldResult ModOp::fold(FoldAdaptor adaptor) {
  int64_t modulus = getModulus();
  if (modulus == 1)
    return coordAttr(getContext(), 0);
  if (auto c = constantValue(adaptor.getInput()))
    return coordAttr(getContext(), layout::floorMod(*c, modulus));
  // (x mod a) mod b == x mod b when b divides a.
  if (auto inner = getInput().getDefiningOp<ModOp>(); inner && inner != *this) {
    if (inner.getModulus() % modulus == 0) {
      getInputMutable().assign(inner.getInput());
      return getResult();
    }
  }
  return {};
}

LogicalResult CmpOp::verify() {
  CoordType lhs = getLhs().getType(), rhs = getRhs().getType();
  if (lhs.getDim() != rhs.getDim())
    return emitOpError() << "cannot compare coordinates of different "
                            "dimensions '"
                         << lhs.getDimName() << "' and '" << rhs.getDimName()
                         << "'";
  return success();
}

static bool evaluate(CmpPredicate predicate, int64_t l, int64_t r) {
  switch (predicate) {
  case CmpPredicate::eq: return l == r;
  case CmpPredicate::ne: return l != r;
  case CmpPredicate::lt: return l < r;
  case CmpPredicate::le: return l <= r;
  case CmpPredicate::gt: return l > r;
  case CmpPredicate::ge: return l >= r;
  }
  return false;
}

OpFoldResult CmpOp::fold(FoldAdaptor adaptor) {
  auto boolAttr = [&](bool b) {
    return IntegerAttr::get(IntegerType::get(getContext(), 1), b);
  };
  if (auto base = constantBasePair(adaptor.getLhs(), adaptor.getRhs(), getLhs(), getRhs()))
    return boolAttr(evaluate(getPredicate(), base->first, base->second));
  if (getLhs() == getRhs())
    return boolAttr(evaluate(getPredicate(), 0, 0));
  return {};
}

OpFoldResult ToIndexOp::fold(FoldAdaptor adaptor) {
  if (auto c = constantValue(adaptor.getInput()))
    return IntegerAttr::get(IndexType::get(getContext()), *c);
  if (auto from = getInput().getDefiningOp<FromIndexOp>())
    return unlessSelf(*this, from.getInput());
  return {};
}

OpFoldResult FromIndexOp::fold(FoldAdaptor adaptor) {
  if (auto c = constantValue(adaptor.getInput()))
    return coordAttr(getContext(), *c);
  if (auto to = getInput().getDefiningOp<ToIndexOp>())
    if (to.getInput().getType() == getType())
      return unlessSelf(*this, to.getInput());
  return {};
}

LogicalResult DecomposeOp::verify() {
  ArrayRef<int64_t> sizes = getSizes();
  if (sizes.size() != getNumResults())
    return emitOpError() << "has " << sizes.size() << " sizes for "
                         << getNumResults() << " coordinates";
  int64_t covered = 1;
  for (auto [i, size] : llvm::enumerate(sizes)) {
    CoordType type = coordType(getResult(i));
    if (size <= 0)
      return emitOpError() << "size of '" << type.getDimName()
                           << "' must be positive, got " << size;
    for (size_t j = 0; j < i; ++j)
      if (getResult(j).getType() == type)
        return emitOpError() << "'" << type.getDimName() << "' appears twice";
    covered *= size;
  }
  if (auto id = getInput().getDefiningOp<LinearIdOp>())
    if (id.getId() == LinearId::Lane && covered > 32)
      return emitOpError() << "covers " << covered
                           << " ids, but a lane id is below 32";
  return success();
}

//===----------------------------------------------------------------------===//
// Tensors
//===----------------------------------------------------------------------===//

LogicalResult AllocOp::verify() {
  if (getType().getMemorySpace() == MemorySpace::Global)
    return emitOpError() << "makes shared or register tensors; global tensors "
                            "are kernel arguments";
  if (getOverlay() && getType().getMemorySpace() != MemorySpace::Shared)
    return emitOpError() << "overlays shared tensors only, not a "
                         << stringifyMemorySpace(getType().getMemorySpace()) << " one";
  return success();
}

LogicalResult SubscriptOp::verify() {
  return verifySubscript(*this, getTensor().getType(), getCoords(), "subscript",
                         getProjectedAttr());
}

OpFoldResult SubscriptOp::fold(FoldAdaptor) {
  if (getCoords().empty())
    return unlessSelf(*this, getTensor());
  return {};
}

LogicalResult ViewOp::verify() {
  SpioTensorType from = getTensor().getType(), to = getType();
  if (from.getMemorySpace() != to.getMemorySpace())
    return emitOpError() << "keeps the memory space, but "
                         << stringifyMemorySpace(from.getMemorySpace()) << " would become "
                         << stringifyMemorySpace(to.getMemorySpace());
  int64_t fromBytes = from.getCosize() * from.getElementBytes();
  int64_t toBytes = to.getCosize() * to.getElementBytes();
  if (toBytes > fromBytes)
    return emitOpError() << "reaches " << toBytes << " bytes, past the " << fromBytes
                         << " bytes of the viewed tensor";
  if ((from.getSwizzle() || to.getSwizzle()) &&
      (from.getSwizzle() != to.getSwizzle() || from.getElementBytes() != to.getElementBytes()))
    return emitOpError() << "must keep the swizzle and the element size of a swizzled tensor";
  return success();
}

LogicalResult RebaseOp::verify() {
  if (getTensor().getType().getSwizzle())
    return emitOpError() << "cannot rebase a swizzled tensor: the swizzle "
                            "applies to offsets from the allocation";
  return success();
}

LogicalResult LoadOp::verify() {
  return verifySubscript(*this, getTensor().getType(), getCoords(), "load");
}

LogicalResult StoreOp::verify() {
  return verifySubscript(*this, getTensor().getType(), getCoords(), "store");
}

LogicalResult DiscardOp::verify() {
  SpioTensorType tensor = getTensor().getType();
  if (tensor.getMemorySpace() != MemorySpace::Global)
    return emitOpError() << "drops global memory from L2, but the tensor is in "
                         << stringifyMemorySpace(tensor.getMemorySpace()) << " memory";
  return verifySubscript(*this, tensor, getCoords(), "discard");
}

/// A flag of spio.signal or spio.wait_signal: an i32 of a global tensor.
static LogicalResult verifyFlag(Operation *op, SpioTensorType tensor, ValueRange coords,
                                StringRef name) {
  if (tensor.getMemorySpace() != MemorySpace::Global)
    return op->emitOpError() << "flags blocks of the grid through global memory, but the tensor "
                                "is in "
                             << stringifyMemorySpace(tensor.getMemorySpace()) << " memory";
  if (!tensor.getElementType().isInteger(32))
    return op->emitOpError() << "flags are i32, but the tensor holds " << tensor.getElementType();
  return verifySubscript(op, tensor, coords, name);
}

LogicalResult SignalOp::verify() {
  return verifyFlag(*this, getTensor().getType(), getCoords(), "signal");
}

LogicalResult WaitSignalOp::verify() {
  return verifyFlag(*this, getTensor().getType(), getCoords(), "wait_signal");
}

LogicalResult LoadRemoteOp::verify() {
  SpioTensorType tensor = getTensor().getType();
  if (tensor.getMemorySpace() != MemorySpace::Shared)
    return emitOpError() << "reads another block's shared memory, but the tensor is in "
                         << stringifyMemorySpace(tensor.getMemorySpace()) << " memory";
  // One ld.shared::cluster: a scalar or a vector of up to 16 bytes.
  Type element = tensor.getElementType();
  auto vector = dyn_cast<VectorType>(element);
  Type scalar = vector ? vector.getElementType() : element;
  bool loadable = isa<IntegerType, FloatType>(scalar) &&
                  (!vector || (vector.getRank() == 1 && !vector.isScalable() &&
                               vector.getNumElements() * scalar.getIntOrFloatBitWidth() <= 128));
  if (!loadable)
    return emitOpError() << "loads one integer or float element or a vector of them up to 16 "
                            "bytes, not "
                         << element;
  return verifySubscript(*this, tensor, getCoords(), "load_remote");
}

//===----------------------------------------------------------------------===//
// Fragments
//===----------------------------------------------------------------------===//

/// The fragment dimension an ldmatrix counts its rows in: A's rows (its
/// 8-element rows run along the reduction, its columns), B's columns, the
/// other way when transposed.
static StringAttr ldmatrixRowDim(FragmentType fragment, bool transpose) {
  bool alongCols = (fragment.getOperand() == FragmentOperand::A) != transpose;
  return alongCols ? fragment.getRowDim() : fragment.getColDim();
}

/// The entries of `type` along `dim`, finest first.
static SmallVector<TensorDim> entriesAlong(SpioTensorType type, StringAttr dim) {
  SmallVector<TensorDim> entries;
  for (const TensorDim &d : type.getDims())
    if (d.dim == dim)
      entries.push_back(d);
  llvm::stable_sort(entries,
                    [](const TensorDim &x, const TensorDim &y) { return x.fold < y.fold; });
  return entries;
}

/// A wgmma operand: a shared tile of 16-byte vectors in the 128-byte
/// swizzle, K-major (vectors along `k`, rows along `rows` 128 bytes apart)
/// or, for 16-bit elements, MN-major (vectors along `rows`, steps of `k`
/// 128 bytes apart, blocks of 64 rows whole swizzle periods apart), the
/// element at `coords` the tile's origin.
static LogicalResult verifyWgmmaOperand(WgmmaOp op, SpioTensorType type, ValueRange coords,
                                        StringRef which, StringAttr rows, StringAttr k,
                                        VectorType element) {
  auto fail = [&]() { return op.emitOpError() << which << " "; };
  if (type.getMemorySpace() != MemorySpace::Shared)
    return fail() << "must be in shared memory, not "
                  << stringifyMemorySpace(type.getMemorySpace());
  if (type.getElementType() != element)
    return fail() << "must hold A's " << element << ", got " << type.getElementType();
  if (!type.hasDim(rows.getValue()))
    return fail() << "has no dimension '" << rows.getValue() << "' of the accumulator";
  SmallVector<TensorDim> kEntries = entriesAlong(type, k), rowEntries = entriesAlong(type, rows);
  const TensorDim &kFinest = kEntries.front(), &rowFinest = rowEntries.front();
  int64_t lanes = element.getNumElements();
  if (rowFinest.stride != 1) {
    if (kFinest.fold != lanes || kFinest.size != 8 || kFinest.stride != 1 || rowFinest.fold != 1 ||
        rowFinest.stride != 8)
      return fail() << "must be K-major rows of 128 bytes: its finest entries '" << k.getValue()
                    << "/" << lanes << ": 8' (stride 1) and '" << rows.getValue() << "' (stride 8)";
  } else {
    if (lanes != 8)
      return fail() << "of " << element.getElementType()
                    << " must be K-major (wgmma transposes 16-bit operands only)";
    // The blocks of 64 rows lie whole 1024-byte swizzle periods apart, an
    // offset the descriptor holds in 14 bits of 16 bytes.
    bool blocks = rowEntries.size() == 1 ||
                  (rowEntries.size() == 2 && rowEntries[1].fold == 64 &&
                   rowEntries[1].stride % 64 == 0 && rowEntries[1].stride < (1 << 14));
    if (rowFinest.fold != 8 || rowFinest.size != 8 || kFinest.fold != 1 || kFinest.stride != 8 ||
        kFinest.size % 16 != 0 || !blocks)
      return fail() << "must be MN-major rows of 128 bytes: its finest entries '" << rows.getValue()
                    << "/8: 8' (stride 1) and '" << k.getValue()
                    << "' (stride 8, a multiple of 16 steps), then '" << rows.getValue()
                    << "/64' blocks a multiple of 64 vectors apart";
  }
  if (!isSwizzle128B(type.getSwizzle()))
    return fail() << "must be in the 128-byte swizzle, #spio.xor_swizzle<3, 0, 3>";
  return verifySubscript(op, type, coords, which == "A" ? "A's origin" : "B's origin");
}

StringAttr WgmmaOp::getReductionDim() {
  // A's vectors run along the reduction (K-major), or along its rows with
  // the reduction's steps 128 bytes apart (MN-major).
  StringAttr rows = getAcc().getType().getRowDim();
  ArrayRef<TensorDim> dims = getA().getType().getDims();
  auto withStride = [&](int64_t stride) -> StringAttr {
    for (const TensorDim &d : dims)
      if (d.stride == stride)
        return d.dim;
    return {};
  };
  StringAttr inner = withStride(1);
  return inner == rows ? withStride(8) : inner;
}

bool WgmmaOp::isMNMajor(bool operandB) {
  WarpgroupAccType acc = getAcc().getType();
  SpioTensorType type = operandB ? getB().getType() : getA().getType();
  StringAttr rows = operandB ? acc.getColDim() : acc.getRowDim();
  return entriesAlong(type, rows).front().stride == 1;
}

int64_t WgmmaOp::getBlockBytes(bool operandB) {
  if (!isMNMajor(operandB))
    return 0;
  WarpgroupAccType acc = getAcc().getType();
  SpioTensorType type = operandB ? getB().getType() : getA().getType();
  SmallVector<TensorDim> rows = entriesAlong(type, operandB ? acc.getColDim() : acc.getRowDim());
  return rows.size() < 2 ? 0 : rows[1].stride * type.getElementBytes();
}

LogicalResult WgmmaOp::verify() {
  WarpgroupAccType acc = getAcc().getType();
  SpioTensorType a = getA().getType(), b = getB().getType();
  StringAttr k = getReductionDim();
  if (!k || k == acc.getRowDim() || k == acc.getColDim() || !b.hasDim(k.getValue()))
    return emitOpError() << "A and B must share the reduction dimension, other than the "
                            "accumulator's rows and columns, along which A's vectors run "
                            "(K-major) or its rows do (MN-major)";
  auto vector = dyn_cast<VectorType>(a.getElementType());
  if (!isTensorCoreVector(vector))
    return emitOpError() << "A must hold vector<8xf16>, vector<8xbf16> or vector<4xf32> "
                            "(TF32), got "
                         << a.getElementType();
  if (failed(verifyWgmmaOperand(*this, a, getACoords(), "A", acc.getRowDim(), k, vector)) ||
      failed(verifyWgmmaOperand(*this, b, getBCoords(), "B", acc.getColDim(), k, vector)))
    return failure();
  return success();
}

LogicalResult WarpgroupFragmentOp::verify() {
  WarpgroupAccType acc = getAcc().getType();
  FragmentType fragment = getType();
  if (fragment.getOperand() != FragmentOperand::C || fragment.getRowDim() != acc.getRowDim() ||
      fragment.getColDim() != acc.getColDim())
    return emitOpError() << "yields a C fragment [" << acc.getRowDim().getValue() << ", "
                         << acc.getColDim().getValue() << "] of the accumulator, got "
                         << fragment;
  int64_t fragments = acc.getN() / 8;
  if (getIndex() < 0 || getIndex() >= fragments)
    return emitOpError() << "index " << getIndex() << " is past the accumulator's " << fragments
                         << " fragments of 8 columns";
  return success();
}

LogicalResult LdMatrixOp::verify() {
  SpioTensorType tensor = getTensor().getType();
  FragmentType fragment = getType();
  if (tensor.getMemorySpace() != MemorySpace::Shared)
    return emitOpError() << "reads shared memory, but the tensor is in "
                         << stringifyMemorySpace(tensor.getMemorySpace())
                         << " memory";
  if (fragment.getOperand() == FragmentOperand::C)
    return emitOpError() << "loads A or B fragments, not C accumulators";
  auto vector = dyn_cast<VectorType>(tensor.getElementType());
  if (!vector || vector.getRank() != 1 || vector.getNumElements() != 8 ||
      vector.getElementType() != fragment.getElementType())
    return emitOpError() << "rows are 8 x " << fragment.getElementType()
                         << " (16 bytes), so the tensor element must be vector<8x"
                         << fragment.getElementType() << ">, got "
                         << tensor.getElementType();
  for (StringAttr dim : {fragment.getRowDim(), fragment.getColDim()})
    if (!tensor.hasDim(dim.getValue()))
      return emitOpError() << "tensor has no dimension '" << dim.getValue()
                           << "' of the fragment";
  StringAttr reduction = fragment.getReductionDim();
  StringAttr other = reduction == fragment.getRowDim() ? fragment.getColDim()
                                                       : fragment.getRowDim();
  StringAttr rowDim = getTranspose() ? other : reduction;
  if (tensor.getFinestFold(rowDim.getValue()) != 8)
    return emitOpError() << "reads 8 consecutive '" << rowDim.getValue()
                         << "' per row" << (getTranspose() ? " (transposed)" : "")
                         << ", so the tensor's finest entry of '"
                         << rowDim.getValue() << "' must be '"
                         << rowDim.getValue() << "/8', not '"
                         << CoordType::get(getContext(), rowDim,
                                           tensor.getFinestFold(rowDim.getValue()))
                                .getDimName()
                         << "'";
  if (Value gather = getGather()) {
    StringAttr counted = ldmatrixRowDim(fragment, getTranspose());
    auto coord = cast<CoordType>(gather.getType());
    if (coord.getDim() != counted)
      return emitOpError() << "gathers its rows along '" << counted.getValue()
                           << "', the dimension its ldmatrix rows are counted in, but the "
                              "gather coordinate is of '"
                           << coord.getDim().getValue() << "'";
  }
  return verifySubscript(*this, tensor, getCoords(), "ldmatrix");
}

LogicalResult LdMatrixRowOp::verify() {
  auto fragment = cast<FragmentType>(getFragment());
  if (fragment.getOperand() == FragmentOperand::C)
    return emitOpError() << "names a row of an A or B fragment, not of C accumulators";
  StringAttr counted = ldmatrixRowDim(fragment, getTranspose());
  auto coord = cast<CoordType>(getType());
  if (coord.getDim() != counted || coord.getFold() != 1)
    return emitOpError() << "result must be a coordinate of '" << counted.getValue()
                         << "' (fold 1), the dimension the ldmatrix rows are counted in, got "
                         << coord;
  return success();
}

LogicalResult MmaOp::verify() {
  FragmentType a = getA().getType(), b = getB().getType(), c = getAcc().getType();
  auto expectRole = [&](FragmentType type, FragmentOperand role,
                        StringRef which) -> LogicalResult {
    if (type.getOperand() == role)
      return success();
    return emitOpError() << which << " operand must be fragment "
                         << stringifyFragmentOperand(role) << ", got fragment "
                         << stringifyFragmentOperand(type.getOperand());
  };
  if (failed(expectRole(a, FragmentOperand::A, "first")) ||
      failed(expectRole(b, FragmentOperand::B, "second")) ||
      failed(expectRole(c, FragmentOperand::C, "third")))
    return failure();
  // C may be either shape's accumulator: both are the same 16 x 8 f32
  // tile in the same lanes, so one sum can take k8 and k16 steps.
  if (a.getShape() != b.getShape())
    return emitOpError() << "operand shapes disagree: A is "
                         << stringifyMmaShape(a.getShape()) << ", B is "
                         << stringifyMmaShape(b.getShape());
  if (a.getElementType() != b.getElementType())
    return emitOpError() << "operand dtypes disagree: A holds "
                         << a.getElementType() << " but B holds "
                         << b.getElementType();
  auto name = [](StringAttr s) { return s.getValue(); };
  if (a.getColDim() != b.getRowDim())
    return emitOpError() << "reduction dimensions disagree: A's columns are '"
                         << name(a.getColDim()) << "' but B's rows are '"
                         << name(b.getRowDim()) << "'";
  if (a.getRowDim() != c.getRowDim())
    return emitOpError() << "row dimensions disagree: A's rows are '"
                         << name(a.getRowDim()) << "' but C's rows are '"
                         << name(c.getRowDim()) << "'";
  if (b.getColDim() != c.getColDim())
    return emitOpError() << "column dimensions disagree: B's columns are '"
                         << name(b.getColDim()) << "' but C's columns are '"
                         << name(c.getColDim()) << "'";
  // Fragment types already keep rows and columns apart, so with the three
  // agreements above m, n and k are distinct.
  return success();
}

static LogicalResult verifyFragmentVector(Operation *op, FragmentType fragment,
                                          VectorType vector) {
  if (vector.getNumElements() != fragment.getElementsPerLane() ||
      vector.getElementType() != fragment.getElementType())
    return op->emitOpError() << "a lane of " << fragment << " holds "
                             << fragment.getElementsPerLane() << " x "
                             << fragment.getElementType() << ", not " << vector;
  return success();
}

LogicalResult FragmentToVectorOp::verify() {
  return verifyFragmentVector(*this, getFragment().getType(), getType());
}

LogicalResult VectorToFragmentOp::verify() {
  return verifyFragmentVector(*this, getType(), getVector().getType());
}

/// Shared rules of load_fragment and store_fragment: a C fragment, a tensor
/// of scalar floats indexed by both fragment dimensions at unit fold, and
/// bounds along those dimensions.
static LogicalResult verifyFragmentAccess(Operation *op, FragmentType fragment,
                                          SpioTensorType tensor, ValueRange coords,
                                          Value rowBound, Value colBound) {
  if (fragment.getOperand() != FragmentOperand::C)
    return op->emitOpError() << "moves C fragments; A and B come from ldmatrix";
  Type element = tensor.getElementType();
  if (!element.isF32() && !element.isF16() && !element.isBF16())
    return op->emitOpError() << "needs a tensor of f32, f16 or bf16 scalars, got "
                             << element;
  for (StringAttr dim : {fragment.getRowDim(), fragment.getColDim()})
    if (tensor.getFinestFold(dim.getValue()) != 1)
      return op->emitOpError() << "tensor needs dimension '" << dim.getValue()
                               << "' at unit fold to address fragment elements";
  if (bool(rowBound) != bool(colBound))
    return op->emitOpError() << "takes both a row and a column bound, or neither";
  auto checkBound = [&](Value bound, StringAttr dim, StringRef which) -> LogicalResult {
    if (!bound || coordType(bound).getDim() == dim)
      return success();
    return op->emitOpError() << which << " bound is '" << coordType(bound).getDimName()
                             << "' but the fragment's " << which << "s are '"
                             << dim.getValue() << "'";
  };
  if (failed(checkBound(rowBound, fragment.getRowDim(), "row")) ||
      failed(checkBound(colBound, fragment.getColDim(), "column")))
    return failure();
  return verifySubscript(op, tensor, coords, "fragment access");
}

LogicalResult LoadFragmentOp::verify() {
  return verifyFragmentAccess(*this, getType(), getTensor().getType(),
                              getCoords(), getRowBound(), getColBound());
}

LogicalResult StoreFragmentOp::verify() {
  return verifyFragmentAccess(*this, getFragment().getType(),
                              getTensor().getType(), getCoords(), getRowBound(),
                              getColBound());
}

//===----------------------------------------------------------------------===//
// Workloads
//===----------------------------------------------------------------------===//

namespace {
/// A GEMM operand as the verifier reads it: a row-major [outer, inner/V]
/// tensor of 16-byte vectors of V elements, or, for D and C, [rows, cols]
/// of scalars.
struct GemmOperand {
  StringAttr outer, inner;
  int64_t outerExtent = 0, innerExtent = 0;
  /// A leading batch entry, if the operand has one.
  std::optional<TensorDim> batch;
};
} // namespace

/// A GEMM operand's matrix entries: its last two (a third before them is
/// the batch).
static ArrayRef<TensorDim> matrixDims(Value operand) {
  ArrayRef<TensorDim> dims = cast<SpioTensorType>(operand.getType()).getDims();
  return dims.size() == 3 ? dims.drop_front() : dims;
}

static FailureOr<GemmOperand> gemmOperand(Operation *op, SpioTensorType type, StringRef which,
                                          bool vectors) {
  ArrayRef<TensorDim> dims = type.getDims();
  auto fail = [&](const Twine &why) { return op->emitOpError() << which << " " << why; };
  if (type.getMemorySpace() != MemorySpace::Global)
    return fail("must be in global memory");
  std::optional<TensorDim> batch;
  if (dims.size() == 3) {
    batch = dims[0];
    dims = dims.drop_front();
  }
  int64_t lanes = 1;
  if (vectors) {
    auto vector = dyn_cast<VectorType>(type.getElementType());
    lanes = vector ? vector.getNumElements() : 8;
  }
  if (dims.size() != 2 || dims[0].dim == dims[1].dim || dims[1].stride != 1 ||
      dims[0].stride != dims[1].size || dims[0].fold != 1 || dims[1].fold != lanes ||
      (batch && (batch->fold != 1 || batch->stride != dims[0].size * dims[0].stride ||
                 batch->dim == dims[0].dim || batch->dim == dims[1].dim)))
    return fail(vectors ? "must be a row-major [outer, inner/" + Twine(lanes) +
                              "] tensor of 16-byte vectors (after a batch entry, if any)"
                        : "must be a row-major [rows, columns] tensor of scalars (after a "
                          "batch entry, if any)");
  return GemmOperand{dims[0].dim, dims[1].dim, dims[0].size, dims[1].size * dims[1].fold,
                     batch};
}

StringAttr GemmOp::getBatchDim() {
  ArrayRef<TensorDim> d = getD().getType().getDims();
  return d.size() == 3 ? d[0].dim : StringAttr();
}

StringAttr GemmOp::getReductionDim() {
  auto a = matrixDims(getA()), b = matrixDims(getB());
  for (const TensorDim &x : a)
    for (const TensorDim &y : b)
      if (x.dim == y.dim)
        return x.dim;
  return {};
}

StringAttr GemmOp::getRowDim() {
  StringAttr k = getReductionDim();
  for (const TensorDim &x : matrixDims(getA()))
    if (x.dim != k)
      return x.dim;
  return {};
}

StringAttr GemmOp::getColDim() {
  StringAttr k = getReductionDim();
  for (const TensorDim &x : matrixDims(getB()))
    if (x.dim != k)
      return x.dim;
  return {};
}

SmallVector<EpilogueStep> GemmOp::getEpilogueSteps() {
  if (EpilogueAttr epilogue = getEpilogueAttr())
    return SmallVector<EpilogueStep>(epilogue.getSteps());
  if (getC())
    return {EpilogueStep::Residual};
  return {};
}

/// A GEMM's bias or scale: a vector of f16, bf16 or f32 along D's rows or
/// columns, read by the epilogue step of its name.
static LogicalResult verifyEpilogueVector(Operation *op, Value vector, StringRef name,
                                          EpilogueStep step, ArrayRef<EpilogueStep> steps,
                                          ArrayRef<TensorDim> d) {
  bool used = llvm::is_contained(steps, step);
  if (bool(vector) != used)
    return op->emitOpError() << (used ? "has a '" + name + "' epilogue step but no " + name
                                      : "takes a " + name + " only with a '" + name +
                                            "' epilogue step");
  if (!vector)
    return success();
  auto type = cast<SpioTensorType>(vector.getType());
  ArrayRef<TensorDim> dims = type.getDims();
  Type element = type.getElementType();
  if (type.getMemorySpace() != MemorySpace::Global || dims.size() != 1 ||
      dims[0].fold != 1 || dims[0].stride != 1 ||
      !(element.isF16() || element.isBF16() || element.isF32()))
    return op->emitOpError() << name << " must be a global vector of f16, bf16 or f32 scalars, got "
                             << type;
  for (const TensorDim &dim : d)
    if (dims[0].dim == dim.dim) {
      if (dims[0].size != dim.size)
        return op->emitOpError() << name << " has " << dims[0].size << " elements along '"
                                 << dim.dim.getValue() << "', D " << dim.size;
      return success();
    }
  // A convolution's vectors run along y's channels alone.
  InFlightDiagnostic error = op->emitOpError() << name << " must run along ";
  if (d.size() == 1)
    error << "y's channels ('" << d[0].dim.getValue() << "')";
  else
    error << "D's rows ('" << d[0].dim.getValue() << "') or columns ('" << d[1].dim.getValue()
          << "')";
  return error << ", got '" << dims[0].dim.getValue() << "'";
}

/// Whether an epilogue step is an activation (relu and after).
static bool isActivationStep(EpilogueStep step) { return step >= EpilogueStep::Relu; }

/// Whether `type` is a dense row-major tensor in global memory: each
/// entry's stride the extent of those after it, the last one contiguous.
static bool isDenseGlobal(SpioTensorType type) {
  if (type.getMemorySpace() != MemorySpace::Global)
    return false;
  int64_t stride = 1;
  for (const TensorDim &dim : llvm::reverse(type.getDims())) {
    if (dim.stride != stride)
      return false;
    stride *= dim.size;
  }
  return true;
}

/// Dense [block, fragment, thread] x vector<4xf32>: every compute thread's
/// accumulator fragments (wgmma's N / 8), 128 threads a warpgroup, a slot
/// a persistent block.
static LogicalResult verifyBlockSums(GemmOp op, Value sums, StringRef what) {
  GemmConfigAttr config = op.getConfig();
  int64_t blocks = config.getPersistent();
  int64_t fragments = config.getBlock()[1] / 8, threads = 32 * config.getWarps()[0];
  auto type = cast<SpioTensorType>(sums.getType());
  ArrayRef<TensorDim> dims = type.getDims();
  Type lane = VectorType::get({4}, Float32Type::get(op.getContext()));
  if (!isDenseGlobal(type) || type.getElementType() != lane || dims.size() != 3 ||
      llvm::any_of(dims, [](const TensorDim &d) { return d.fold != 1; }) ||
      dims[0].size != blocks || dims[1].size != fragments || dims[2].size != threads)
    return op.emitOpError() << what << " must be a dense global [block: " << blocks
                            << ", fragment: " << fragments << ", thread: " << threads
                            << "] tensor of vector<4xf32>, got " << type;
  return success();
}

LogicalResult GemmOp::verifyStreamK() {
  GemmConfigAttr config = getConfig();
  Value partials = getPartials(), flags = getFlags();
  if (!config.getStreamK()) {
    if (partials)
      return emitOpError() << "takes partial sums and flags (stream_k) only with a stream_k "
                              "config";
    return success();
  }
  if (!partials)
    return emitOpError() << "with a stream_k config needs the blocks' partial sums and flags "
                            "(stream_k %partials, %flags)";
  if (failed(verifyBlockSums(*this, partials, "stream_k's partial sums")))
    return failure();
  // An i32 flag a block.
  int64_t blocks = config.getPersistent();
  auto flagsType = cast<SpioTensorType>(flags.getType());
  ArrayRef<TensorDim> fd = flagsType.getDims();
  if (!isDenseGlobal(flagsType) || !flagsType.getElementType().isInteger(32) || fd.size() != 1 ||
      fd[0].fold != 1 || fd[0].size != blocks)
    return emitOpError() << "stream_k's flags must be a dense global [block: " << blocks
                         << "] tensor of i32, got " << flagsType;
  return success();
}

LogicalResult GemmOp::verifyRangeSums() {
  GemmConfigAttr config = getConfig();
  // Registers hold one accumulator of wgmma's N over 192, not the sums of
  // the ranges before beside it.
  int64_t wgmmaN = config.getWgmmaN();
  bool spills = config.getWgmma() && config.getKRanges() > 1 && wgmmaN > 192;
  if (!spills) {
    if (getRangeSums())
      return emitOpError() << "takes range sums only with k_ranges over 1 and wgmma's N over 192";
    return success();
  }
  if (!getRangeSums())
    return emitOpError() << "with k_ranges = " << config.getKRanges() << " on wgmma's N of "
                         << wgmmaN << " needs the blocks' range sums (range_sums %sums)";
  return verifyBlockSums(*this, getRangeSums(), "the range sums");
}

LogicalResult GemmOp::verify() {
  SpioTensorType aType = getA().getType(), bType = getB().getType(), dType = getD().getType();
  FailureOr<GemmOperand> a = gemmOperand(*this, aType, "A", true);
  FailureOr<GemmOperand> b = gemmOperand(*this, bType, "B", true);
  FailureOr<GemmOperand> d = gemmOperand(*this, dType, "D", false);
  if (failed(a) || failed(b) || failed(d))
    return failure();
  if (aType.getElementType() != bType.getElementType() ||
      !isTensorCoreVector(dyn_cast<VectorType>(aType.getElementType())))
    return emitOpError() << "A and B must hold the same vector<8xf16>, vector<8xbf16> or "
                            "vector<4xf32> (TF32), got "
                         << aType.getElementType() << " and " << bType.getElementType();
  Type out = dType.getElementType();
  if (!out.isF16() && !out.isBF16() && !out.isF32())
    return emitOpError() << "D must hold f16, bf16 or f32, got " << out;
  StringAttr k = getReductionDim();
  int shared = (a->outer == b->outer || a->outer == b->inner) +
               (a->inner == b->outer || a->inner == b->inner);
  if (!k || shared != 1)
    return emitOpError() << "A and B must share exactly one dimension, the reduction; A has '"
                         << a->outer.getValue() << "' and '" << a->inner.getValue()
                         << "', B has '" << b->outer.getValue() << "' and '"
                         << b->inner.getValue() << "'";
  StringAttr rows = getRowDim(), cols = getColDim();
  auto extent = [](const GemmOperand &o, StringAttr dim) {
    return o.outer == dim ? o.outerExtent : o.innerExtent;
  };
  if (d->outer != rows || d->inner != cols)
    return emitOpError() << "D must be indexed [" << rows.getValue() << ", "
                         << cols.getValue() << "] (rows of A, columns of B), got ["
                         << d->outer.getValue() << ", " << d->inner.getValue() << "]";
  if (extent(*a, rows) != d->outerExtent || extent(*b, cols) != d->innerExtent ||
      extent(*a, k) != extent(*b, k))
    return emitOpError() << "sizes disagree: A is " << extent(*a, rows) << " x "
                         << extent(*a, k) << ", B is " << extent(*b, k) << " x "
                         << extent(*b, cols) << ", D is " << d->outerExtent << " x "
                         << d->innerExtent;
  if (bool(getBeta()) != bool(getC()))
    return emitOpError() << "takes beta and C together";
  if (getC() && getC().getType() != dType)
    return emitOpError() << "C must have D's type " << dType << ", got " << getC().getType();
  // A batch: D's leading entry, which A and B have too or, without it, are
  // the same matrix for every problem of the batch.
  GemmConfigAttr config = getConfig();
  if (Value groups = getGroups()) {
    auto type = cast<SpioTensorType>(groups.getType());
    ArrayRef<TensorDim> dims = type.getDims();
    if (dims.size() != 1 || dims[0].fold != 1 || !type.getElementType().isInteger(32) ||
        type.getMemorySpace() != MemorySpace::Global)
      return emitOpError() << "groups must be a global [g: G] tensor of i32 (each group's end "
                              "row), got "
                           << type;
    auto isGroups = [&](const std::optional<TensorDim> &entry) {
      return entry && entry->dim == dims[0].dim && entry->size == dims[0].size;
    };
    // The groups split the rows (B has a matrix a group) or, where D has a
    // matrix a group, the reduction.
    bool rows = isGroups(b->batch) && !a->batch && !d->batch;
    bool reduction = isGroups(d->batch) && !a->batch && !b->batch;
    if (!rows && !reduction)
      return emitOpError() << "a grouped GEMM's B leads with the groups' entry '"
                           << dims[0].dim.getValue() << ": " << dims[0].size
                           << "' (a matrix a group), and A and D with none (the groups' rows "
                              "one after the other); or D leads with it and A and B have none "
                              "(the groups' rows of K one after the other)";
    if (!config.getWgmma() || config.getPersistent() == 0 || config.getCluster() != 1 ||
        config.getSwap() || config.getSplitK() != 1)
      return emitOpError() << "a grouped GEMM runs on a persistent wgmma grid, without clusters, "
                              "swapped operands or split K";
  }
  for (auto [operand, name] : {std::pair{&*a, "A"}, std::pair{&*b, "B"}})
    if (operand->batch && !(getGroups() && operand == &*b) &&
        (!d->batch || operand->batch->dim != d->batch->dim ||
                           operand->batch->size != d->batch->size))
      return emitOpError() << name << "'s batch entry '" << operand->batch->dim.getValue()
                           << ": " << operand->batch->size << "' must be D's"
                           << (d->batch ? "" : " (D has none)");
  SmallVector<EpilogueStep> steps = getEpilogueSteps();
  if (Value pre = getPre()) {
    if (pre.getType() != dType)
      return emitOpError() << "pre (the value before the activation) must have D's type " << dType
                           << ", got " << pre.getType();
    if (!llvm::any_of(steps, isActivationStep))
      return emitOpError() << "stores the value before the activation (pre) but its epilogue "
                              "has no activation step";
  }
  if (bool(getC()) != llvm::is_contained(steps, EpilogueStep::Residual))
    return emitOpError() << (getC() ? "reads C only in a 'residual' epilogue step"
                                    : "has a 'residual' epilogue step but no beta and C");
  if (failed(verifyEpilogueVector(*this, getBias(), "bias", EpilogueStep::Bias, steps,
                                  matrixDims(getD()))) ||
      failed(verifyEpilogueVector(*this, getScale(), "scale", EpilogueStep::Scale, steps,
                                  matrixDims(getD()))))
    return failure();
  if (failed(verifyStreamK()) || failed(verifyRangeSums()))
    return failure();
  if (bool(getAMap()) != bool(getBMap()))
    return emitOpError() << "takes the tensor maps of A and B together";
  if (config.getWgmma() != bool(getAMap()))
    return emitOpError() << (config.getWgmma()
                                 ? "with a wgmma config loads A and B by TMA: it needs their "
                                   "tensor maps (tma %a_map, %b_map)"
                                 : "loads A and B by TMA only with a wgmma config");
  for (auto [map, operand, tileRows] :
       {std::tuple{getAMap(), aType, config.getBlock()[0]},
        std::tuple{getBMap(), bType, config.getBlock()[1] / config.getCluster()}}) {
    if (!map)
      continue;
    // A K-major operand's box is its tile's rows by a k-tile; an M- or
    // N-major one's a k-tile's rows by 64 of its own.
    int64_t rows =
        operand.getDims().back().dim == getReductionDim() ? tileRows : config.getBlock()[2];
    // A batched operand's map holds the rows of all its batch entries.
    ArrayRef<TensorDim> dims = operand.getDims();
    SmallVector<TensorDim> global(matrixDims(cast<Value>(map == getAMap() ? getA() : getB())));
    if (dims.size() == 3)
      global[0].size *= dims[0].size;
    auto expected = SpioTensorType::get(getContext(), global, operand.getElementType(),
                                        MemorySpace::Global, operand.getSwizzle());
    TensorMapType type = cast<TensorMapType>(map.getType());
    if (type.getGlobal() != expected || type.getBox().getDims()[0].size != rows)
      return emitOpError() << "a tensor map's global tensor is its operand's type (the rows of "
                              "its batch entries one after the other) and its box the config's "
                              "tile ("
                           << rows << " rows), got " << type;
  }
  return success();
}

SmallVector<EpilogueStep> Conv2dOp::getEpilogueSteps() {
  if (EpilogueAttr epilogue = getEpilogueAttr())
    return SmallVector<EpilogueStep>(epilogue.getSteps());
  return {};
}

/// A dense global 4-entry tensor, unfolded but for its last entry's
/// `lastFold`: a convolution's NHWC activations or KRSC weights.
static bool isConvOperand(SpioTensorType type, int64_t lastFold) {
  ArrayRef<TensorDim> dims = type.getDims();
  return isDenseGlobal(type) && dims.size() == 4 && dims[0].fold == 1 && dims[1].fold == 1 &&
         dims[2].fold == 1 && dims[3].fold == lastFold;
}

LogicalResult Conv2dOp::verify() {
  ArrayRef<int64_t> stride = getStride(), padding = getPadding(), dilation = getDilation();
  // Strides past 2^40 (the extent of a tensor) are refused before the size
  // arithmetic could overflow.
  if (stride.size() != 2 || stride[0] < 1 || stride[1] < 1 || stride[0] > (int64_t(1) << 40) ||
      stride[1] > (int64_t(1) << 40))
    return emitOpError() << "stride must be two values [sH, sW] from 1 to 2^40";
  if (padding.size() != 2 || padding[0] < 0 || padding[1] < 0)
    return emitOpError() << "padding must be two values [pH, pW], neither negative";
  if (dilation.size() != 2 || dilation[0] < 1 || dilation[1] < 1)
    return emitOpError() << "dilation must be two positive values [dH, dW]";
  if (getGroups() < 1)
    return emitOpError() << "groups must be positive, got " << getGroups();
  // Grouped with a GEMM config: the implicit GEMM, a group's channels at
  // a time; else the grouped family.
  if (getGroups() > 1 && !getGemmConfig())
    return verifyGrouped();
  if (!getConfigAttr())
    return emitOpError() << "a dense conv2d (groups = 1) takes its #spio.gemm_config: its "
                            "tensor maps' boxes are the config's tile";
  if (!getGemmConfig())
    return emitOpError() << "a dense conv2d (groups = 1) runs on the GEMM kernel: its config "
                            "must be a #spio.gemm_config, got "
                         << getConfigAttr();
  // The wgmma kernel reads x and w by TMA; the mma.sync kernel gathers
  // them with cp.async.
  bool wgmma = getGemmConfig().getWgmma();
  if (wgmma && (!getXMap() || !getWMap()))
    return emitOpError() << (getGroups() > 1 ? "a grouped conv2d on the implicit GEMM (a "
                                               "#spio.gemm_config)"
                                             : "a dense conv2d (groups = 1)")
                         << " on the wgmma kernel reads x and w through tensor maps: it needs "
                            "`tma %xMap, %wMap`";
  if (!wgmma && (getXMap() || getWMap()))
    return emitOpError() << "on the mma.sync kernel (wgmma = false) gathers x and w with "
                            "cp.async: it takes no tensor maps";
  SpioTensorType x = getX().getType(), w = getW().getType(), y = getY().getType();
  auto vector = dyn_cast<VectorType>(x.getElementType());
  if (!vector || vector.getRank() != 1 || vector.getNumElements() != 8 ||
      !(vector.getElementType().isF16() || vector.getElementType().isBF16()) ||
      w.getElementType() != x.getElementType())
    return emitOpError() << "x and w must hold the same vector<8xf16> or vector<8xbf16> (8 "
                            "channels), got "
                         << x.getElementType() << " and " << w.getElementType();
  Type out = y.getElementType();
  if (!out.isF16() && !out.isBF16() && !out.isF32())
    return emitOpError() << "y must hold f16, bf16 or f32, got " << out;
  // A k-tile is one tap's 64 channels (wgrad: 64 positions); a tile's
  // columns are not one group's.
  GemmConfigAttr config = getGemmConfig();
  if (!wgmma && (getGroups() > 1 || config.getBlock()[2] != 64))
    return emitOpError() << "on the mma.sync kernel (wgmma = false) takes groups = 1 and a "
                            "config whose block K is 64, got groups = "
                         << getGroups() << " and " << config;
  if (getPass() == ConvPass::Wgrad)
    return verifyWgrad();
  // dgrad reads dy (as x) and writes dx (as y): the forward's output and
  // input.
  bool dgrad = getPass() == ConvPass::Dgrad;
  if (!isConvOperand(x, 8))
    return emitOpError() << (dgrad ? "dy (x) must be a dense global [n, p, q, k/8] tensor (NHWC)"
                                   : "x must be a dense global [n, h, w, c/8] tensor (NHWC)")
                         << ", got " << x;
  if (!isConvOperand(w, 8))
    return emitOpError() << "w must be a dense global [k, r, s, c/8] tensor (KRSC), got " << w;
  if (getPhase() && !dgrad)
    return emitOpError() << "takes a phase only in dgrad";
  // The forward's input rows and columns: x's, or dgrad's dx's.
  int64_t inputSize[2];
  if (dgrad) {
    FailureOr<std::pair<int64_t, int64_t>> dx = verifyDgradOutput();
    if (failed(dx))
      return failure();
    std::tie(inputSize[0], inputSize[1]) = *dx;
  } else if (!isConvOperand(y, 1)) {
    return emitOpError() << "y must be a dense global [n, p, q, k] tensor (NHWC), got " << y;
  }
  ArrayRef<TensorDim> xd = x.getDims(), wd = w.getDims(), yd = y.getDims();
  if (!dgrad) {
    inputSize[0] = xd[1].size;
    inputSize[1] = xd[2].size;
  }
  // The forward's input (x, or dgrad's dx) and output (y, or dy) channels.
  StringAttr inputs = dgrad ? yd[3].dim : xd[3].dim, outputs = dgrad ? xd[3].dim : yd[3].dim;
  int64_t inputCount = dgrad ? yd[3].size : xd[3].size * 8;
  int64_t outputCount = dgrad ? xd[3].size * 8 : yd[3].size;
  // A tile's columns: one group's outputs (dgrad: inputs).
  if (failed(verifyGemmGroups(inputCount, outputCount, dgrad ? "input" : "output",
                              getGemmConfig().getBlock()[1], "columns")))
    return failure();
  // A group's channels, padded to whole k-tiles of 64 where grouped. dgrad
  // of groups not of a multiple of 64 reads w transposed: [c, r, s, k'],
  // each tap's K / G padded.
  int64_t groups = getGroups(), tapChannels = inputCount / groups;
  auto padded = [](int64_t channels) { return llvm::divideCeil(channels, 64) * 64; };
  bool transposed =
      dgrad && groups > 1 && (inputCount / groups % 64 != 0 || outputCount / groups % 64 != 0);
  if (groups > 1)
    tapChannels = padded(transposed ? outputCount / groups : tapChannels);
  StringAttr rowsDim = transposed ? inputs : outputs, tapDim = transposed ? outputs : inputs;
  if (yd[0].dim != xd[0].dim || yd[0].size != xd[0].size)
    return emitOpError() << (dgrad ? "dx must lead with dy's" : "y must lead with x's")
                         << " images '" << xd[0].dim.getValue() << ": " << xd[0].size << "'";
  if (transposed && (wd[0].dim != inputs || wd[0].size != inputCount || wd[3].dim != outputs ||
                     wd[3].size * 8 != tapChannels))
    return emitOpError() << "dgrad of groups not of a multiple of 64 channels reads w "
                            "transposed, each tap's K / G channels padded to a multiple of 64: "
                            "w must be ["
                         << inputs.getValue() << ": " << inputCount << ", r, s, "
                         << outputs.getValue() << "/8: " << tapChannels / 8 << "], got " << w;
  if (wd[3].dim != tapDim || wd[3].size * 8 != tapChannels)
    return emitOpError() << "w's last entry must be " << (dgrad ? "dx's" : "x's") << " channels"
                         << (groups > 1 ? " of a group (padded to a multiple of 64)" : "") << " '"
                         << inputs.getValue() << "/8: " << tapChannels / 8 << "', got '"
                         << wd[3].dim.getValue() << "/8: " << wd[3].size << "'";
  if (rowsDim != wd[0].dim || (transposed ? inputCount : outputCount) != wd[0].size)
    return emitOpError() << (dgrad ? "dy" : "y") << " must end with w's output channels '"
                         << wd[0].dim.getValue() << ": " << wd[0].size << "'";
  // Tensor extents are at most 2^40: padding and dilated filters past that
  // are refused before the size arithmetic could overflow.
  constexpr int64_t kMaxSpan = int64_t(1) << 40;
  for (int side = 0; side < 2; ++side)
    if (padding[side] > kMaxSpan ||
        (wd[1 + side].size > 1 && dilation[side] > kMaxSpan / (wd[1 + side].size - 1)))
      return emitOpError() << "padding and the dilated filter span at most 2^40 positions";
  ArrayRef<TensorDim> forwardOut = dgrad ? xd : yd;
  for (int side = 0; side < 2; ++side) {
    int64_t span = inputSize[side] + 2 * padding[side] - dilation[side] * (wd[1 + side].size - 1);
    int64_t expected = span <= 0 ? 0 : (span - 1) / stride[side] + 1;
    if (forwardOut[1 + side].size != expected)
      return emitOpError() << (dgrad ? "dy has " : "y has ") << forwardOut[1 + side].size
                           << (side ? " columns" : " rows") << ", but the convolution "
                           << (dgrad ? "of dx " : "") << "gives " << expected;
  }
  SmallVector<EpilogueStep> steps = getEpilogueSteps();
  if (dgrad && (!steps.empty() || getBias() || getScale()))
    return emitOpError() << "computes dgrad without an epilogue";
  if (bool(getResidual()) != llvm::is_contained(steps, EpilogueStep::Residual))
    return emitOpError() << (getResidual() ? "reads the residual only in a 'residual' epilogue "
                                             "step"
                                           : "has a 'residual' epilogue step but no residual");
  if (getResidual() && getResidual().getType() != y)
    return emitOpError() << "the residual must have y's type " << y << ", got "
                         << getResidual().getType();
  // The bias and scale run along the output channels, y's last entry.
  ArrayRef<TensorDim> channels = yd.take_back();
  if (failed(verifyEpilogueVector(*this, getBias(), "bias", EpilogueStep::Bias, steps, channels)) ||
      failed(
          verifyEpilogueVector(*this, getScale(), "scale", EpilogueStep::Scale, steps, channels)))
    return failure();
  if (!wgmma)
    return success();
  if (config.getSwap() || config.getStreamK())
    return emitOpError() << "runs on the wgmma GEMM kernel with output positions along the "
                            "warpgroups, a tile's reduction in one block: its config needs "
                            "no swap and no stream_k";
  // The maps: x's im2col boxes of the config's rows, and w as a K x (R * S
  // * C) matrix in boxes of the block's share of the config's columns, the
  // boxes' reductions one dimension.
  auto xMap = dyn_cast<Im2colMapType>(getXMap().getType());
  if (!xMap)
    return emitOpError() << "gathers x's tiles through an im2col map, got " << getXMap().getType();
  TensorMapType wMap = getWMap().getType();
  ArrayRef<TensorDim> wGlobal = wMap.getGlobal().getDims();
  int64_t rows = config.getBlock()[0], columns = config.getBlock()[1] / config.getCluster();
  if (xMap.getGlobal() != x || xMap.getBox().getDims()[0].size != rows)
    return emitOpError() << "x's im2col map must read x in boxes of the config's " << rows
                         << " rows, got " << xMap;
  // dgrad reduces along w's rows, in boxes of a k-tile's rows by 64 of a
  // tap's input channels (transposed: along its columns, as fprop).
  bool nMajor = dgrad && !transposed;
  ArrayRef<TensorDim> wBox = wMap.getBox().getDims();
  StringAttr reduction = xMap.getBox().getDims()[1].dim;
  if (wMap.getGlobal().getElementType() != w.getElementType() || wGlobal[0].size != wd[0].size ||
      wGlobal[1].size != wd[1].size * wd[2].size * wd[3].size ||
      wBox[0].size != (nMajor ? config.getBlock()[2] : columns) ||
      wBox[nMajor ? 0 : 1].dim != reduction)
    return emitOpError() << "w's tensor map must read w as a " << wd[0].size << " x "
                         << wd[1].size * wd[2].size * wd[3].size * 8 << " matrix in boxes of "
                         << (nMajor ? config.getBlock()[2] : columns) << " rows, reducing along "
                         << (nMajor ? "its rows" : "the im2col box's dimension") << ", got "
                         << wMap;
  return success();
}

/// A failed result for an error (reported as its diagnostic is destroyed).
static FailureOr<std::pair<int64_t, int64_t>> reported(InFlightDiagnostic &&) { return failure(); }

FailureOr<std::pair<int64_t, int64_t>> Conv2dOp::verifyDgradOutput() {
  ArrayRef<int64_t> stride = getStride(), padding = getPadding(), dilation = getDilation();
  SpioTensorType y = getY().getType();
  ArrayRef<TensorDim> yd = y.getDims();
  std::optional<ArrayRef<int64_t>> phase = getPhase();
  if (stride[0] == 1 && stride[1] == 1) {
    if (phase && (phase->size() != 2 || (*phase)[0] != 0 || (*phase)[1] != 0))
      return reported(emitOpError() << "at stride 1 dx is one phase, [0, 0]");
    if (!isConvOperand(y, 1))
      return reported(emitOpError()
                      << "dx (y) must be a dense global [n, h, w, c] tensor (NHWC), got " << y);
    return std::pair{yd[1].size, yd[2].size};
  }
  if (!phase || phase->size() != 2 || (*phase)[0] < 0 || (*phase)[0] >= stride[0] ||
      (*phase)[1] < 0 || (*phase)[1] >= stride[1])
    return reported(
        emitOpError() << "computes one phase of a strided dgrad: phase = [a, b] with 0 <= a < "
                      << stride[0] << " and 0 <= b < " << stride[1]);
  // dx's phase: rows sH apart and columns sW apart of [n, h, w, c].
  auto malformed = [&] {
    return emitOpError() << "dx (y) must be phase [" << (*phase)[0] << ", " << (*phase)[1]
                         << "] of dx: [n: N : H*W*C, h: ceil((H - " << (*phase)[0] << ") / "
                         << stride[0] << ") : " << stride[0] << "*W*C, w: ceil((W - " << (*phase)[1]
                         << ") / " << stride[1] << ") : " << stride[1]
                         << "*C, c: C] in global memory, got " << y;
  };
  if (y.getMemorySpace() != MemorySpace::Global || y.getSwizzle() || yd.size() != 4 ||
      llvm::any_of(yd, [](const TensorDim &d) { return d.fold != 1; }) || yd[3].stride != 1)
    return reported(malformed());
  // The strides' products are checked for overflow: a type's strides may
  // be any int64.
  int64_t c = yd[3].size, columnStep, rowStep, imageStep;
  if (llvm::MulOverflow(stride[1], c, columnStep) || yd[2].stride != columnStep ||
      llvm::MulOverflow(stride[0], c, rowStep) || rowStep == 0 || yd[1].stride % rowStep != 0)
    return reported(malformed());
  int64_t width = yd[1].stride / rowStep;
  if (width < 1 || llvm::MulOverflow(width, c, imageStep) || yd[0].stride % imageStep != 0)
    return reported(malformed());
  int64_t height = yd[0].stride / imageStep;
  int64_t size[2] = {height, width};
  for (int side = 0; side < 2; ++side) {
    int64_t at = (*phase)[side];
    if (at >= size[side] ||
        yd[1 + side].size != (size[side] - at + stride[side] - 1) / stride[side])
      return reported(malformed());
    // Some tap must read the phase: r with stride | at + pad - r * dilation.
    int64_t taps = getW().getType().getDims()[1 + side].size;
    bool read = false;
    for (int64_t r = 0; r < taps && !read; ++r)
      read = ((at + padding[side] - r * dilation[side]) % stride[side] + stride[side]) %
                 stride[side] ==
             0;
    if (!read)
      return reported(emitOpError() << "phase [" << (*phase)[0] << ", " << (*phase)[1]
                                    << "] is read by no tap: it is zero, computed by no conv2d");
  }
  return std::pair{height, width};
}

LogicalResult Conv2dOp::verifyWgrad() {
  SpioTensorType x = getX().getType(), dy = getW().getType(), dw = getY().getType();
  if (!isConvOperand(x, 8))
    return emitOpError() << "x must be a dense global [n, h, w, c/8] tensor (NHWC), got " << x;
  if (!isConvOperand(dy, 8))
    return emitOpError() << "dy (w) must be a dense global [n, p, q, k/8] tensor (NHWC), got "
                         << dy;
  // dw, or in parts their f32 sums [part, k, r, s, c].
  ArrayRef<TensorDim> dwd = dw.getDims();
  bool parts = dwd.size() == 5;
  if (parts) {
    if (!isDenseGlobal(dw) || !dw.getElementType().isF32() || dwd[0].fold != 1)
      return emitOpError() << "wgrad's parts must be a dense global [part, k, r, s, c] f32 "
                              "tensor, got "
                           << dw;
    dwd = dwd.drop_front();
  } else if (!isConvOperand(dw, 1)) {
    return emitOpError() << "dw (y) must be a dense global [k, r, s, c] tensor (KRSC), got " << dw;
  }
  ArrayRef<TensorDim> xd = x.getDims(), dyd = dy.getDims();
  // A tile's rows: one group's outputs.
  int64_t groups = getGroups();
  if (failed(verifyGemmGroups(xd[3].size * 8, dyd[3].size * 8, "output",
                              getGemmConfig().getBlock()[0], "rows")))
    return failure();
  // Groups (a dense layer's one) whose channels are not multiples of 64:
  // dw's taps are a group's C / G padded to a multiple of 64 (C'), and its
  // rows, where grouped, G groups' K / G padded alike (its sums of the
  // padding are left out of dw by the reduce kernel).
  int64_t inputs = xd[3].size * 8 / groups, outputs = dyd[3].size * 8 / groups;
  bool padded = inputs % 64 != 0 || (groups > 1 && outputs % 64 != 0);
  int64_t rows =
      padded && groups > 1 ? groups * llvm::divideCeil(outputs, 64) * 64 : dyd[3].size * 8;
  int64_t taps = padded ? llvm::divideCeil(inputs, 64) * 64 : inputs;
  if (dyd[0].dim != xd[0].dim || dyd[0].size != xd[0].size || dwd[0].dim != dyd[3].dim ||
      dwd[0].size != rows || dwd[3].dim != xd[3].dim || dwd[3].size != taps)
    return emitOpError() << "dy must lead with x's images and dw be [dy's channels"
                         << (rows != dyd[3].size * 8 ? " of each group padded to 64" : "")
                         << ", r, s, x's channels" << (groups > 1 ? " of a group" : "")
                         << (padded ? " padded to 64" : "") << "] = [" << rows << ", r, s, " << taps
                         << "], got " << dy << " and " << dw;
  ArrayRef<int64_t> stride = getStride(), padding = getPadding(), dilation = getDilation();
  for (int side = 0; side < 2; ++side) {
    int64_t span =
        xd[1 + side].size + 2 * padding[side] - dilation[side] * (dwd[1 + side].size - 1);
    int64_t expected = span <= 0 ? 0 : (span - 1) / stride[side] + 1;
    if (dyd[1 + side].size != expected)
      return emitOpError() << "dy has " << dyd[1 + side].size << (side ? " columns" : " rows")
                           << ", but the convolution gives " << expected;
  }
  if (!getEpilogueSteps().empty() || getBias() || getScale() || getResidual())
    return emitOpError() << "computes wgrad without an epilogue";
  GemmConfigAttr config = getGemmConfig();
  // The mma.sync kernel gathers x and dy itself (its config checked with
  // the forward's).
  if (!config.getWgmma())
    return success();
  if (config.getSwap() || config.getCluster() != 1 || config.getStreamK())
    return emitOpError() << "runs wgrad on the wgmma GEMM kernel with dw's rows along the "
                            "warpgroups and no cluster multicast: its config needs no swap, "
                            "cluster 1 and no stream_k";
  // The maps: dy read as an (N * P * Q) x K matrix in boxes of a k-tile's
  // positions by 64 channels (an M-major A), and x's im2col boxes of a
  // k-tile's positions by one tap's 64 channels (an N-major B); or, where
  // x is that matrix (1x1 at stride 1, no padding, one group), x read as
  // (N * H * W) x C in boxes of a k-tile's positions.
  TensorMapType dyMap = getWMap().getType();
  int64_t kTile = config.getBlock()[2];
  // Each problem has one form, so that a launch plan knows the map from
  // the problem alone.
  bool plain = dwd[1].size == 1 && dwd[2].size == 1 && stride[0] == 1 && stride[1] == 1 &&
               padding[0] == 0 && padding[1] == 0 && getGroups() == 1;
  if (plain != isa<TensorMapType>(getXMap().getType()))
    return emitOpError() << "reads x through a tensor map as a matrix where the filter is 1x1 at "
                            "stride 1 with no padding and one group, else through an im2col map, "
                            "got "
                         << getXMap().getType();
  if (auto matrix = dyn_cast<TensorMapType>(getXMap().getType())) {
    ArrayRef<TensorDim> global = matrix.getGlobal().getDims();
    if (matrix.getGlobal().getElementType() != x.getElementType() || global.size() != 2 ||
        global[0].size != xd[0].size * xd[1].size * xd[2].size || global[1].size != xd[3].size ||
        matrix.getBox().getDims()[0].size != kTile)
      return emitOpError() << "x's tensor map must read x as a "
                           << xd[0].size * xd[1].size * xd[2].size << " x " << xd[3].size * 8
                           << " matrix in boxes of " << kTile << " rows, got " << matrix;
  } else {
    auto xMap = cast<Im2colMapType>(getXMap().getType());
    if (xMap.getGlobal() != x || xMap.getBox().getDims()[0].size != kTile)
      return emitOpError() << "x's im2col map must read x in boxes of the config's " << kTile
                           << " positions, got " << xMap;
  }
  ArrayRef<TensorDim> dyGlobal = dyMap.getGlobal().getDims();
  if (dyMap.getGlobal().getElementType() != dy.getElementType() || dyGlobal.size() != 2 ||
      dyGlobal[0].size != dyd[0].size * dyd[1].size * dyd[2].size ||
      dyGlobal[1].size != dyd[3].size || dyMap.getBox().getDims()[0].size != kTile)
    return emitOpError() << "dy's tensor map must read dy as a "
                         << dyd[0].size * dyd[1].size * dyd[2].size << " x " << dyd[3].size * 8
                         << " matrix in boxes of " << kTile << " rows, got " << dyMap;
  return success();
}

/// The operands of a grouped convolution of `groupWidth` channels a group
/// (spio.conv2d_gw8's, and spio.conv2d's with groups > 1): `a` the image
/// its kernel stages, `b` the other input, `d` the output.
static LogicalResult verifyGroupedOperands(Operation *op, ConvPass pass, int64_t groupWidth,
                                           ArrayRef<int64_t> kernel, int64_t stride,
                                           SpioTensorType a, SpioTensorType b, Value bias,
                                           SpioTensorType d) {
  if (kernel.size() != 2 || llvm::any_of(kernel, [](int64_t v) { return v < 1 || v > 7; }))
    return op->emitOpError() << "kernel must be two sizes [R, S] from 1 to 7";
  if (stride != 1 && stride != 2)
    return op->emitOpError() << "stride must be 1 or 2, got " << stride;
  if (groupWidth != 1 && groupWidth != 2 && groupWidth != 4 && groupWidth != 8)
    return op->emitOpError() << "group_width must be 1, 2, 4 or 8, got " << groupWidth;
  if (bias && pass != ConvPass::Fprop)
    return op->emitOpError() << "takes a bias in fprop only";
  StringRef names[] = {"first input", "second input", "output"};
  SpioTensorType types[] = {a, b, d};
  for (auto [name, type] : llvm::zip_equal(names, types))
    if (type.getMemorySpace() != MemorySpace::Global)
      return op->emitOpError() << name << " must be in global memory";
  auto vector = dyn_cast<VectorType>(a.getElementType());
  if (!vector || vector.getRank() != 1 || vector.getNumElements() != 8 ||
      !(vector.getElementType().isF16() || vector.getElementType().isBF16()))
    return op->emitOpError() << "first input must hold vector<8xf16> or vector<8xbf16> "
                                "(8 channels of a group), got "
                             << a.getElementType();
  Type scalar = vector.getElementType();
  // Narrow groups' weights are scalars, a group's channels a row.
  bool narrowWeights = pass != ConvPass::Wgrad && groupWidth != 8;
  if (narrowWeights && b.getElementType() != scalar)
    return op->emitOpError() << "w of group width " << groupWidth << " must hold " << scalar
                             << ", a group's channels a row, got " << b.getElementType();
  if (!narrowWeights && b.getElementType() != a.getElementType())
    return op->emitOpError() << "inputs must hold the same element, got " << a.getElementType()
                             << " and " << b.getElementType();
  Type f32 = Float32Type::get(op->getContext());
  // wgrad writes f32 partial sums [part, k, r, sc/8, sc], or dw [k, r, s,
  // c] itself (its blocks adding their sums in a cluster) as the input's
  // type or f32.
  bool wgradDw = pass == ConvPass::Wgrad && d.getDims().size() == 4;
  if (wgradDw) {
    if (d.getElementType() != scalar && d.getElementType() != f32)
      return op->emitOpError() << "wgrad writes dw as " << scalar << " or f32, got "
                               << d.getElementType();
  } else {
    Type expected = pass == ConvPass::Wgrad ? f32 : scalar;
    if (d.getElementType() != expected)
      return op->emitOpError() << stringifyConvPass(pass) << " writes " << expected
                               << (pass == ConvPass::Wgrad ? " partial sums" : "") << ", got "
                               << d.getElementType();
  }
  Type biasElement = bias ? cast<SpioTensorType>(bias.getType()).getElementType() : Type();
  if (bias && biasElement != scalar)
    return op->emitOpError() << "bias must hold " << scalar << ", got " << biasElement;
  size_t outRank = pass == ConvPass::Wgrad && !wgradDw ? 5 : 4;
  if (a.getDims().size() != 4 || b.getDims().size() != 4 || d.getDims().size() != outRank)
    return op->emitOpError() << "takes 4-entry inputs and a "
                             << (pass == ConvPass::Wgrad ? "4-entry (dw) or 5-entry (partial sums)"
                                                         : "4-entry")
                             << " output";
  return success();
}

LogicalResult Conv2dGw8Op::verify() {
  ArrayRef<int64_t> padding = getPadding();
  if (padding.size() != 2 || padding[0] < 0 || padding[1] < 0)
    return emitOpError() << "padding must be two values [pH, pW], neither negative";
  if (getParts() && getPass() != ConvPass::Wgrad)
    return emitOpError() << "runs parts of wgrad's band loop only, not of "
                         << stringifyConvPass(getPass());
  return verifyGroupedOperands(*this, getPass(), getGroupWidth(), getKernel(), getStride(),
                               getA().getType(), getB().getType(), getBias(), getD().getType());
}

LogicalResult Conv2dOp::verifyGrouped() {
  // No config: spio-tile takes the family's chooser's.
  if (getConfigAttr() && !isa<Conv2dGw8ConfigAttr>(getConfigAttr()))
    return emitOpError() << "a grouped conv2d (groups > 1) runs on the grouped family: its "
                            "config must be a #spio.conv2d_gw8_config, got "
                         << getConfigAttr();
  if (getXMap() || getWMap())
    return emitOpError() << "a grouped conv2d (groups > 1) reads no tensor maps";
  if (getResidual() || getScale() || getPhase())
    return emitOpError() << "a grouped conv2d (groups > 1) takes no residual, scale or phase";
  ArrayRef<int64_t> stride = getStride(), dilation = getDilation();
  if (stride[0] != stride[1] || dilation[0] != 1 || dilation[1] != 1)
    return emitOpError() << "a grouped conv2d (groups > 1) takes equal strides and dilation 1, "
                            "got stride ["
                         << stride[0] << ", " << stride[1] << "] and dilation [" << dilation[0]
                         << ", " << dilation[1] << "]";
  SmallVector<EpilogueStep> steps = getEpilogueSteps();
  bool biasStep = steps.size() == 1 && steps[0] == EpilogueStep::Bias;
  if (!(steps.empty() || biasStep) || biasStep != bool(getBias()))
    return emitOpError() << "a grouped conv2d (groups > 1) adds at most a bias: epilogue = "
                            "#spio.epilogue<bias> with a bias operand, or neither";
  SpioTensorType x = getX().getType(), w = getW().getType(), y = getY().getType();
  // x (dgrad's dy) holds C = K channels.
  int64_t channels = getInputChannels(), groups = getGroups();
  if (channels % groups != 0 || !llvm::is_contained({1, 2, 4, 8}, channels / groups))
    return emitOpError() << "groups must split the " << channels
                         << " channels into groups of 1, 2, 4 or 8, got groups = " << groups;
  bool wgrad = getPass() == ConvPass::Wgrad;
  SpioTensorType taps = wgrad ? y : w;
  if (taps.getDims().size() != 4)
    return emitOpError() << (wgrad ? "a grouped conv2d's wgrad writes dw [k, r, s, c] (the "
                                     "family's partial sums are spio.conv2d_gw8's), got "
                                   : "w must be [k, r, s, c], got ")
                         << taps;
  return verifyGroupedOperands(*this, getPass(), channels / groups, getTaps(), stride[0], x, w,
                               getBias(), y);
}

LogicalResult Conv2dOp::verifyGemmGroups(int64_t inputs, int64_t outputs, StringRef tiled,
                                         int64_t tile, StringRef along) {
  int64_t groups = getGroups();
  if (groups == 1)
    return success();
  // Groups not of a multiple of 64 channels pad each tap of w (wgrad: dw's
  // taps and a group's rows) to whole k-tiles.
  if (inputs % groups != 0 || outputs % groups != 0 || inputs / groups % 8 != 0 ||
      outputs / groups % 8 != 0)
    return emitOpError() << "a grouped conv2d on the implicit GEMM (a #spio.gemm_config) takes "
                            "groups of a multiple of 8 input and output channels, got groups = "
                         << groups << " of " << inputs << " inputs and " << outputs
                         << " outputs (groups of 1, 2, 4 or 8 channels run on the grouped "
                            "family, without tensor maps; groups of 16 or 32 as C / 64 groups of "
                            "64 on block-diagonal weights)";
  int64_t groupChannels = (tiled == "input" ? inputs : outputs) / groups;
  if (getPass() == ConvPass::Wgrad && (inputs / groups % 64 != 0 || outputs / groups % 64 != 0))
    groupChannels = llvm::divideCeil(groupChannels, 64) * 64;
  if (groupChannels % tile != 0)
    return emitOpError() << "a grouped conv2d's tiles take one group's " << along
                         << ": the config's " << tile << " " << along << " must divide the group's "
                         << groupChannels << " " << tiled << " channels";
  return success();
}

int64_t Conv2dOp::getInputChannels() {
  ArrayRef<TensorDim> dims = getX().getType().getDims();
  return dims.empty() ? 0 : dims.back().size * 8;
}

std::array<int64_t, 2> Conv2dOp::getTaps() {
  ArrayRef<TensorDim> dims = (getPass() == ConvPass::Wgrad ? getY() : getW()).getType().getDims();
  return {dims[1].size, dims[2].size};
}

//===----------------------------------------------------------------------===//
// Arrive/wait barriers
//===----------------------------------------------------------------------===//

/// A constant index names one of the group's barriers.
static LogicalResult verifyBarrierIndex(Operation *op, Value barriers, Value index) {
  int64_t count = cast<BarrierGroupType>(barriers.getType()).getCount();
  APInt value;
  if (matchPattern(index, m_ConstantInt(&value)) &&
      (value.isNegative() || value.getSExtValue() >= count))
    return op->emitOpError() << "barrier index " << value.getSExtValue()
                             << " is outside the group of " << count;
  return success();
}

LogicalResult BarrierInitOp::verify() { return verifyBarrierIndex(*this, getBarriers(), getIndex()); }
LogicalResult BarrierArriveOp::verify() {
  return verifyBarrierIndex(*this, getBarriers(), getIndex());
}
LogicalResult AsyncArriveOp::verify() { return verifyBarrierIndex(*this, getBarriers(), getIndex()); }
LogicalResult BarrierWaitOp::verify() { return verifyBarrierIndex(*this, getBarriers(), getIndex()); }

LogicalResult BarrierExpectTxOp::verify() {
  return verifyBarrierIndex(*this, getBarriers(), getIndex());
}

LogicalResult NamedBarrierOp::verify() {
  if (getThreads() % 32 != 0)
    return emitOpError() << "synchronizes whole warps, but " << getThreads()
                         << " threads is not a multiple of 32";
  return success();
}

//===----------------------------------------------------------------------===//
// Asynchronous copies
//===----------------------------------------------------------------------===//

/// A bulk copy's shared destination: its coordinates select a tile of the
/// box's type.
static LogicalResult verifyBoxDestination(Operation *op, SpioTensorType dst, SpioTensorType box,
                                          ValueRange dstCoords) {
  if (dst.getMemorySpace() != MemorySpace::Shared)
    return op->emitOpError() << "copies to shared memory, but the destination is in "
                             << stringifyMemorySpace(dst.getMemorySpace()) << " memory";
  ArrayRef<TensorDim> dims = dst.getDims(), boxDims = box.getDims();
  size_t leading = dstCoords.size();
  bool matches = dst.getElementType() == box.getElementType() &&
                 dst.getSwizzle() == box.getSwizzle() && dims.size() == leading + boxDims.size() &&
                 dims.drop_front(leading) == boxDims;
  for (auto [coord, entry] : llvm::zip(dstCoords, dims.take_front(leading)))
    matches = matches && cast<CoordType>(coord.getType()).getDim() == entry.dim;
  if (!matches)
    return op->emitOpError() << "the destination's coordinates must select a tile of the box's "
                                "type "
                             << box << ": the entries they leave are the box's";
  return verifySubscript(op, dst, dstCoords, "destination");
}

LogicalResult TmaLoadOp::verify() {
  TensorMapType map = getMap().getType();
  ArrayRef<TensorDim> global = map.getGlobal().getDims();
  if (getCoords().size() != global.size())
    return emitOpError() << "takes one coordinate per entry of the map's global tensor ("
                         << global.size() << "), got " << getCoords().size();
  for (auto [coord, entry] : llvm::zip(getCoords(), global)) {
    auto type = cast<CoordType>(coord.getType());
    if (type.getDim() != entry.dim)
      return emitOpError() << "coordinates follow the global tensor's entries: expected '"
                           << entry.dim.getValue() << "', got '" << type.getDimName() << "'";
  }
  auto inner = cast<CoordType>(getCoords().back().getType());
  if (inner.getFold() % global.back().fold != 0)
    return emitOpError() << "the box's origin must fall on a 16-byte vector: '"
                         << inner.getDimName() << "' is not a multiple of '"
                         << global.back().dim.getValue() << "/" << global.back().fold << "'";
  if (failed(verifyBoxDestination(*this, getDst().getType(), map.getBox(), getDstCoords())))
    return failure();
  return verifyBarrierIndex(*this, getBarriers(), getIndex());
}

LogicalResult TmaLoadIm2colOp::verify() {
  if (failed(verifyBoxDestination(*this, getDst().getType(), getMap().getType().getBox(),
                                  getDstCoords())))
    return failure();
  return verifyBarrierIndex(*this, getBarriers(), getIndex());
}

LogicalResult SetMaxRegistersOp::verify() {
  if (getCount() % 8 != 0)
    return emitOpError() << "register counts are multiples of 8, got " << getCount();
  return success();
}

LogicalResult AsyncCopyOp::verify() {
  SpioTensorType src = getSrc().getType(), dst = getDst().getType();
  if (src.getMemorySpace() != MemorySpace::Global)
    return emitOpError() << "copies from global memory, but the source is in "
                         << stringifyMemorySpace(src.getMemorySpace())
                         << " memory";
  if (dst.getMemorySpace() != MemorySpace::Shared)
    return emitOpError() << "copies to shared memory, but the destination is in "
                         << stringifyMemorySpace(dst.getMemorySpace())
                         << " memory";
  if (src.getElementType() != dst.getElementType())
    return emitOpError() << "source element " << src.getElementType()
                         << " differs from destination element "
                         << dst.getElementType();
  if (src.getElementBytes() != 16)
    return emitOpError() << "moves 16 bytes per thread, but "
                         << src.getElementType() << " is "
                         << src.getElementBytes() << " bytes";
  if (failed(verifySubscript(*this, src, getSrcCoords(), "source")) ||
      failed(verifySubscript(*this, dst, getDstCoords(), "destination")))
    return failure();
  return success();
}
