//===- KernelBuilder.cpp - A typed C++ builder of spio kernels ------------===//

#include "spio/Dialect/Spio/Builder/KernelBuilder.h"

#include "spio/Layout/Layout.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Verifier.h"

#include <numeric>

using namespace mlir;
using namespace mlir::spio;
using namespace mlir::spio::build;

static SmallVector<Value> values(ArrayRef<Coord> coords) {
  return SmallVector<Value>(coords.begin(), coords.end());
}

KernelBuilder::KernelBuilder(OpBuilder &builder, Location origin)
    : builder(builder), origin(origin) {}

Location KernelBuilder::loc(Here here) {
  MLIRContext *ctx = getContext();
  return FusedLoc::get(ctx, {origin, FileLineColLoc::get(ctx, here.file, here.line, 0)});
}

void KernelBuilder::verify(Operation *op) {
  // Ops inside a region were verified where they were built.
  if (failed(mlir::verify(op, /*verifyRecursively=*/false)))
    verified = false;
}

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

CoordType KernelBuilder::coordType(StringRef dim, int64_t fold) {
  return CoordType::get(getContext(), dim, fold);
}

SpioTensorType KernelBuilder::tensorType(ArrayRef<Extent> extents, Type element,
                                         MemorySpace space, SwizzleAttrInterface swizzle) {
  std::vector<int64_t> sizes;
  for (const Extent &e : extents)
    sizes.push_back(e.size);
  std::vector<int64_t> strides = ::spio::layout::Layout::rowMajorStrides(sizes);
  SmallVector<TensorDim> dims;
  for (auto [e, stride] : llvm::zip_equal(extents, strides))
    dims.push_back(
        {StringAttr::get(getContext(), e.dim), e.fold, e.size, e.stride.value_or(stride)});
  return SpioTensorType::get(getContext(), dims, element, space, swizzle);
}

FragmentType KernelBuilder::fragmentType(FragmentOperand operand, MmaShape shape, Type element,
                                         StringRef rows, StringRef cols) {
  MLIRContext *ctx = getContext();
  return FragmentType::get(ctx, operand, shape, element, StringAttr::get(ctx, rows),
                           StringAttr::get(ctx, cols));
}

Im2colMapType KernelBuilder::im2colMapType(SpioTensorType global, SpioTensorType box) {
  return Im2colMapType::get(getContext(), global, box);
}

TensorMapType KernelBuilder::tensorMapType(SpioTensorType global, SpioTensorType box) {
  return TensorMapType::get(getContext(), global, box);
}

WarpgroupAccType KernelBuilder::warpgroupAccType(int64_t n, StringRef rows, StringRef cols) {
  MLIRContext *ctx = getContext();
  return WarpgroupAccType::get(ctx, n, Float32Type::get(ctx), StringAttr::get(ctx, rows),
                               StringAttr::get(ctx, cols));
}

VectorType KernelBuilder::vector8(Type element) { return VectorType::get({8}, element); }

//===----------------------------------------------------------------------===//
// Coordinates
//===----------------------------------------------------------------------===//

Coord KernelBuilder::constant(int64_t value, CoordType type, Here here) {
  return llvm::cast<Coord>(create<ConstantOp>(here, type, builder.getI64IntegerAttr(value)).getResult());
}

Coord KernelBuilder::fold(Coord c, int64_t fold, Here here) {
  return llvm::cast<Coord>(
      create<FoldOp>(here, coordType(c.getType().getDim(), fold), c).getResult());
}

Coord KernelBuilder::unfold(Coord c, int64_t fold, Here here) {
  return llvm::cast<Coord>(
      create<UnfoldOp>(here, coordType(c.getType().getDim(), fold), c).getResult());
}

Coord KernelBuilder::cast(Coord c, StringRef dim, Here here) {
  return llvm::cast<Coord>(
      create<CastOp>(here, coordType(dim, c.getType().getFold()), c).getResult());
}

/// The type of a sum or difference: the operands' dimension at the finer
/// fold. Across dimensions it is the left operand's, which the op's
/// verifier then refuses at the call.
static CoordType binaryType(Coord lhs, Coord rhs) {
  CoordType l = lhs.getType(), r = rhs.getType();
  if (l.getDim() != r.getDim())
    return l;
  return CoordType::get(l.getContext(), l.getDim(), std::gcd(l.getFold(), r.getFold()));
}

Coord KernelBuilder::add(Coord lhs, Coord rhs, Here here) {
  return llvm::cast<Coord>(create<AddOp>(here, binaryType(lhs, rhs), lhs, rhs).getResult());
}

Coord KernelBuilder::sub(Coord lhs, Coord rhs, Here here) {
  return llvm::cast<Coord>(create<SubOp>(here, binaryType(lhs, rhs), lhs, rhs).getResult());
}

Coord KernelBuilder::mod(Coord c, int64_t modulus, Here here) {
  return llvm::cast<Coord>(
      create<ModOp>(here, c.getType(), c, builder.getI64IntegerAttr(modulus)).getResult());
}

Value KernelBuilder::cmp(CmpPredicate predicate, Coord lhs, Coord rhs, Here here) {
  return create<CmpOp>(here, builder.getI1Type(), predicate, lhs, rhs);
}

Value KernelBuilder::toIndex(Coord c, Here here) {
  return create<ToIndexOp>(here, builder.getIndexType(), c);
}

Coord KernelBuilder::fromIndex(Value index, CoordType type, Here here) {
  return llvm::cast<Coord>(create<FromIndexOp>(here, type, index).getResult());
}

Value KernelBuilder::linearId(LinearId id, Here here) {
  return create<LinearIdOp>(here, builder.getIndexType(), id);
}

SmallVector<Coord> KernelBuilder::decompose(Value index, ArrayRef<int64_t> sizes,
                                            ArrayRef<CoordType> types, Here here) {
  SmallVector<Type> resultTypes(types.begin(), types.end());
  DecomposeOp op = create<DecomposeOp>(here, resultTypes, index, sizes);
  SmallVector<Coord> coords;
  for (Value result : op.getResults())
    coords.push_back(llvm::cast<Coord>(result));
  return coords;
}

//===----------------------------------------------------------------------===//
// Tensors and fragments
//===----------------------------------------------------------------------===//

Tensor KernelBuilder::alloc(SpioTensorType type, Here here) {
  return llvm::cast<Tensor>(create<AllocOp>(here, type, /*overlay=*/false).getResult());
}

Tensor KernelBuilder::subscript(Tensor tensor, ArrayRef<Coord> coords, Here here) {
  return llvm::cast<Tensor>(
      create<SubscriptOp>(here, tensor.getType(), tensor, values(coords), ArrayAttr())
          .getResult());
}

Tensor KernelBuilder::view(Tensor tensor, SpioTensorType type, Here here) {
  return llvm::cast<Tensor>(create<ViewOp>(here, type, tensor).getResult());
}

Fragment KernelBuilder::ldmatrix(Tensor tensor, ArrayRef<Coord> coords, FragmentType type,
                                 bool transpose, Here here) {
  return llvm::cast<Fragment>(
      create<LdMatrixOp>(here, type, tensor, values(coords), Value(), transpose).getResult());
}

Fragment KernelBuilder::fill(Value value, FragmentType type, Here here) {
  return llvm::cast<Fragment>(create<FillOp>(here, type, value).getResult());
}

Fragment KernelBuilder::mma(Fragment a, Fragment b, Fragment acc, Here here) {
  return llvm::cast<Fragment>(create<MmaOp>(here, acc.getType(), a, b, acc).getResult());
}

Value KernelBuilder::fragmentToVector(Fragment fragment, Here here) {
  FragmentType type = fragment.getType();
  VectorType vector = VectorType::get({type.getElementsPerLane()}, type.getElementType());
  return create<FragmentToVectorOp>(here, vector, fragment);
}

Fragment KernelBuilder::vectorToFragment(Value vector, FragmentType type, Here here) {
  return llvm::cast<Fragment>(create<VectorToFragmentOp>(here, type, vector).getResult());
}

Value KernelBuilder::load(Tensor tensor, ArrayRef<Coord> coords, Here here) {
  return create<LoadOp>(here, tensor.getType().getElementType(), tensor, values(coords))
      .getResult();
}

void KernelBuilder::store(Value value, Tensor tensor, ArrayRef<Coord> coords, Here here) {
  create<StoreOp>(here, value, tensor, values(coords));
}

void KernelBuilder::signal(Value value, Tensor tensor, ArrayRef<Coord> coords, Here here) {
  create<SignalOp>(here, value, tensor, values(coords));
}

void KernelBuilder::waitSignal(Value value, Tensor tensor, ArrayRef<Coord> coords, Here here) {
  create<WaitSignalOp>(here, value, tensor, values(coords));
}

Value KernelBuilder::loadRemote(Tensor tensor, ArrayRef<Coord> coords, Value block, Here here) {
  return create<LoadRemoteOp>(here, tensor.getType().getElementType(), tensor, values(coords),
                              block)
      .getResult();
}

Fragment KernelBuilder::loadFragment(Tensor tensor, ArrayRef<Coord> coords, FragmentType type,
                                     std::optional<Bounds> bounds, Here here) {
  Value rows = bounds ? Value(bounds->rows) : Value(), cols = bounds ? Value(bounds->cols) : Value();
  return llvm::cast<Fragment>(
      create<LoadFragmentOp>(here, type, tensor, values(coords), rows, cols).getResult());
}

void KernelBuilder::storeFragment(Fragment fragment, Tensor tensor, ArrayRef<Coord> coords,
                                  std::optional<Bounds> bounds, Here here) {
  Value rows = bounds ? Value(bounds->rows) : Value(), cols = bounds ? Value(bounds->cols) : Value();
  create<StoreFragmentOp>(here, fragment, tensor, values(coords), rows, cols);
}

//===----------------------------------------------------------------------===//
// Warpgroup tensor cores
//===----------------------------------------------------------------------===//

WarpgroupAcc KernelBuilder::warpgroupFill(Value value, WarpgroupAccType type, Here here) {
  return llvm::cast<WarpgroupAcc>(create<WarpgroupFillOp>(here, type, value).getResult());
}

WarpgroupAcc KernelBuilder::wgmma(Tensor a, ArrayRef<Coord> aCoords, Tensor b,
                                  ArrayRef<Coord> bCoords, WarpgroupAcc acc, bool overwrite,
                                  Here here) {
  return llvm::cast<WarpgroupAcc>(
      create<WgmmaOp>(here, acc.getType(), acc, a, values(aCoords), b, values(bCoords), overwrite)
          .getResult());
}

void KernelBuilder::wgmmaFence(Here here) { create<WgmmaFenceOp>(here); }

void KernelBuilder::wgmmaCommit(Here here) { create<WgmmaCommitOp>(here); }

void KernelBuilder::wgmmaWait(int32_t pending, Here here) {
  create<WgmmaWaitOp>(here, uint32_t(pending));
}

Fragment KernelBuilder::warpgroupFragment(WarpgroupAcc acc, int64_t index, Here here) {
  WarpgroupAccType type = acc.getType();
  FragmentType fragment = fragmentType(FragmentOperand::C, MmaShape::M16N8K16,
                                       type.getElementType(), type.getRowDim().getValue(),
                                       type.getColDim().getValue());
  return llvm::cast<Fragment>(
      create<WarpgroupFragmentOp>(here, fragment, acc, builder.getI64IntegerAttr(index))
          .getResult());
}

void KernelBuilder::fenceProxyAsync(Here here) { create<FenceProxyAsyncOp>(here); }

//===----------------------------------------------------------------------===//
// Copies and barriers
//===----------------------------------------------------------------------===//

void KernelBuilder::asyncCopy(Tensor src, ArrayRef<Coord> srcCoords, Tensor dst,
                              ArrayRef<Coord> dstCoords, Value inBounds, Here here) {
  create<AsyncCopyOp>(here, src, values(srcCoords), dst, values(dstCoords), inBounds);
}

void KernelBuilder::asyncCommit(Here here) { create<AsyncCommitOp>(here); }

void KernelBuilder::asyncWait(int32_t pending, Here here) {
  create<AsyncWaitOp>(here, uint32_t(pending));
}

void KernelBuilder::barrier(Here here) { create<gpu::BarrierOp>(here); }

void KernelBuilder::warpSync(Here here) { create<WarpSyncOp>(here); }

void KernelBuilder::tmaLoad(TensorMap map, ArrayRef<Coord> coords, Tensor dst,
                            ArrayRef<Coord> dstCoords, Barriers barriers, Value index,
                            int64_t multicast, Here here) {
  create<TmaLoadOp>(here, map, values(coords), dst, values(dstCoords), barriers, index,
                    multicast ? builder.getI64IntegerAttr(multicast) : IntegerAttr());
}

void KernelBuilder::tmaLoadIm2col(Im2colMap map, Value image, Value row, Value col, Value channel,
                                  Value rowOffset, Value colOffset, Tensor dst,
                                  ArrayRef<Coord> dstCoords, Barriers barriers, Value index,
                                  Here here) {
  create<TmaLoadIm2colOp>(here, map, image, row, col, channel, rowOffset, colOffset, dst,
                          values(dstCoords), barriers, index);
}

Barriers KernelBuilder::barrierAlloc(int64_t count, Here here) {
  return llvm::cast<Barriers>(
      create<BarrierAllocOp>(here, BarrierGroupType::get(getContext(), count)).getResult());
}

void KernelBuilder::barrierInit(Barriers barriers, Value index, int64_t arrivals, Here here) {
  create<BarrierInitOp>(here, barriers, index, arrivals);
}

void KernelBuilder::barrierArrive(Barriers barriers, Value index, Value block, Here here) {
  create<BarrierArriveOp>(here, barriers, index, block);
}

void KernelBuilder::fenceBarrierInit(Here here) { create<FenceBarrierInitOp>(here); }

void KernelBuilder::clusterBarrier(Here here) { create<ClusterBarrierOp>(here); }

void KernelBuilder::barrierExpectTx(Barriers barriers, Value index, int64_t bytes, Here here) {
  create<BarrierExpectTxOp>(here, barriers, index, bytes);
}

void KernelBuilder::barrierWait(Barriers barriers, Value index, Value parity, Here here) {
  create<BarrierWaitOp>(here, barriers, index, parity);
}

void KernelBuilder::setMaxRegisters(RegisterAction action, int32_t count, Here here) {
  create<SetMaxRegistersOp>(here, action, count);
}

//===----------------------------------------------------------------------===//
// Scalars and vectors
//===----------------------------------------------------------------------===//

Value KernelBuilder::index(int64_t value, Here here) {
  return create<arith::ConstantIndexOp>(here, value);
}

Value KernelBuilder::f32(double value, Here here) {
  return create<arith::ConstantOp>(here, builder.getF32FloatAttr(float(value)));
}

Value KernelBuilder::addi(Value lhs, Value rhs, Here here) {
  return create<arith::AddIOp>(here, lhs, rhs);
}

Value KernelBuilder::subi(Value lhs, Value rhs, Here here) {
  return create<arith::SubIOp>(here, lhs, rhs);
}

Value KernelBuilder::muli(Value lhs, Value rhs, Here here) {
  return create<arith::MulIOp>(here, lhs, rhs);
}

Value KernelBuilder::divui(Value lhs, Value rhs, Here here) {
  return create<arith::DivUIOp>(here, lhs, rhs);
}

Value KernelBuilder::remui(Value lhs, Value rhs, Here here) {
  return create<arith::RemUIOp>(here, lhs, rhs);
}

Value KernelBuilder::andi(Value lhs, Value rhs, Here here) {
  return create<arith::AndIOp>(here, lhs, rhs);
}

Value KernelBuilder::cmpi(arith::CmpIPredicate predicate, Value lhs, Value rhs, Here here) {
  return create<arith::CmpIOp>(here, predicate, lhs, rhs);
}

Value KernelBuilder::lowBit(Value index, Here here) {
  return create<arith::IndexCastUIOp>(here, builder.getI1Type(), remui(index, this->index(2, here), here));
}

Value KernelBuilder::addf(Value lhs, Value rhs, Here here) {
  return create<arith::AddFOp>(here, lhs, rhs);
}

Value KernelBuilder::mulf(Value lhs, Value rhs, Here here) {
  return create<arith::MulFOp>(here, lhs, rhs);
}

Value KernelBuilder::fmaf(Value lhs, Value rhs, Value addend, Here here) {
  auto contract = arith::FastMathFlags::contract;
  Value product = create<arith::MulFOp>(here, lhs, rhs, contract);
  return create<arith::AddFOp>(here, product, addend, contract);
}

Value KernelBuilder::broadcast(Value scalar, VectorType type, Here here) {
  return create<vector::BroadcastOp>(here, type, scalar);
}

Value KernelBuilder::activation(Activation kind, Value input, Here here) {
  return create<ActivationOp>(here, kind, input);
}

//===----------------------------------------------------------------------===//
// Control flow
//===----------------------------------------------------------------------===//

scf::ForOp KernelBuilder::forLoop(Value lower, Value upper, Value step, ValueRange inits,
                                  function_ref<SmallVector<Value>(Value, ValueRange)> body,
                                  Here here) {
  Location at = loc(here);
  // The body is built once the loop is in place, so that loops nested in it
  // verify inside a complete region tree.
  auto loop = scf::ForOp::create(builder, at, lower, upper, step, inits);
  Block *block = loop.getBody();
  if (!block->empty())
    block->back().erase();
  {
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToEnd(block);
    scf::YieldOp::create(builder, at, body(loop.getInductionVar(), loop.getRegionIterArgs()));
  }
  verify(loop);
  return loop;
}

void KernelBuilder::ifThen(Value condition, function_ref<void()> body, Here here) {
  auto op = create<scf::IfOp>(here, condition, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPoint(op.thenBlock()->getTerminator());
  body();
}

void KernelBuilder::ifThenElse(Value condition, function_ref<void()> thenBody,
                               function_ref<void()> elseBody, Here here) {
  auto op = create<scf::IfOp>(here, condition, /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPoint(op.thenBlock()->getTerminator());
  thenBody();
  builder.setInsertionPoint(op.elseBlock()->getTerminator());
  elseBody();
}
