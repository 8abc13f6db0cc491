//===- KernelBuilder.h - A typed C++ builder of spio kernels ---*- C++ -*-===//
//
// Kernel families write their tiled code in C++ on this builder, as Triton's
// code generator and CuTe DSL build IR: coordinates, tensors and fragments are
// C++ values that carry their spio types (a tensor is never passed where a
// coordinate is expected), loops are lambdas with their carried values, and
// every op is verified where it is built. Each op's location fuses the
// workload op's (so tiled IR points back at the user's file) with the family's
// C++ file and line that built it (so a misuse names the line at fault).
//
//===----------------------------------------------------------------------===//

#ifndef SPIO_DIALECT_SPIO_BUILDER_KERNELBUILDER_H
#define SPIO_DIALECT_SPIO_BUILDER_KERNELBUILDER_H

#include "spio/Dialect/Spio/IR/SpioOps.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <optional>

namespace mlir::spio::build {

/// A typed coordinate, tensor cursor or fragment: a Value whose C++ type says
/// which spio type it has.
using Coord = TypedValue<CoordType>;
using Tensor = TypedValue<SpioTensorType>;
using Fragment = TypedValue<FragmentType>;
using WarpgroupAcc = TypedValue<WarpgroupAccType>;
using TensorMap = TypedValue<TensorMapType>;
using Im2colMap = TypedValue<Im2colMapType>;
using Barriers = TypedValue<BarrierGroupType>;

/// The call site in a family's C++ source: a builder method's last,
/// defaulted parameter, so it names the caller's line.
struct Here {
  const char *file = __builtin_FILE();
  unsigned line = __builtin_LINE();
};

/// One dimension entry of a tensor type, `dim/fold: size[:stride]`: the
/// stride row-major over the sizes where it is absent, as the parser reads it.
struct Extent {
  StringRef dim;
  int64_t fold;
  int64_t size;
  std::optional<int64_t> stride = std::nullopt;
};

/// A fragment's row and column bounds (ragged edges).
struct Bounds {
  Coord rows, cols;
};

class KernelBuilder {
public:
  /// Builds at `builder`'s insertion point (which it moves); every op's
  /// location fuses `origin`, the workload op's, with the call site.
  KernelBuilder(OpBuilder &builder, Location origin);

  MLIRContext *getContext() const { return builder.getContext(); }
  OpBuilder &getOpBuilder() { return builder; }
  /// The location of an op built at `here`.
  Location loc(Here here = {});
  /// False once an op failed to verify where it was built (the diagnostic
  /// was emitted at the op).
  bool succeeded() const { return verified; }

  //===--- Types --------------------------------------------------------===//
  CoordType coordType(StringRef dim, int64_t fold = 1);
  /// A tensor type with row-major strides over `extents`.
  SpioTensorType tensorType(ArrayRef<Extent> extents, Type element, MemorySpace space,
                            SwizzleAttrInterface swizzle = {});
  FragmentType fragmentType(FragmentOperand operand, MmaShape shape, Type element,
                            StringRef rows, StringRef cols);
  /// A warpgroup's 64 x `n` f32 accumulator.
  WarpgroupAccType warpgroupAccType(int64_t n, StringRef rows, StringRef cols);
  TensorMapType tensorMapType(SpioTensorType global, SpioTensorType box);
  Im2colMapType im2colMapType(SpioTensorType global, SpioTensorType box);
  /// `vector<8 x element>`, the 16-byte element of copies and ldmatrix rows.
  VectorType vector8(Type element);

  //===--- Coordinates --------------------------------------------------===//
  Coord constant(int64_t value, CoordType type, Here here = {});
  Coord fold(Coord c, int64_t fold, Here here = {});
  Coord unfold(Coord c, int64_t fold, Here here = {});
  Coord cast(Coord c, StringRef dim, Here here = {});
  /// Coordinates of one dimension; mixed folds give the finer.
  Coord add(Coord lhs, Coord rhs, Here here = {});
  Coord sub(Coord lhs, Coord rhs, Here here = {});
  Coord mod(Coord c, int64_t modulus, Here here = {});
  /// An i1: whether the positions compare so.
  Value cmp(CmpPredicate predicate, Coord lhs, Coord rhs, Here here = {});
  Value toIndex(Coord c, Here here = {});
  Coord fromIndex(Value index, CoordType type, Here here = {});
  Value linearId(LinearId id, Here here = {});
  /// The digits of `index` in the mixed radix `sizes`, last fastest.
  SmallVector<Coord> decompose(Value index, ArrayRef<int64_t> sizes, ArrayRef<CoordType> types,
                               Here here = {});

  //===--- Tensors ------------------------------------------------------===//
  Tensor alloc(SpioTensorType type, Here here = {});
  Tensor subscript(Tensor tensor, ArrayRef<Coord> coords, Here here = {});
  /// The same memory as `tensor` (a root) under `type`'s layout.
  Tensor view(Tensor tensor, SpioTensorType type, Here here = {});
  Value load(Tensor tensor, ArrayRef<Coord> coords, Here here = {});
  void store(Value value, Tensor tensor, ArrayRef<Coord> coords, Here here = {});
  /// The element of block `block` of the cluster's copy of shared `tensor`.
  Value loadRemote(Tensor tensor, ArrayRef<Coord> coords, Value block, Here here = {});
  /// Sets the i32 flag of a global `tensor` to `value` (release, GPU scope).
  void signal(Value value, Tensor tensor, ArrayRef<Coord> coords, Here here = {});
  /// Waits until the i32 flag holds `value` (acquire, GPU scope).
  void waitSignal(Value value, Tensor tensor, ArrayRef<Coord> coords, Here here = {});

  //===--- Fragments and tensor cores -----------------------------------===//
  Fragment ldmatrix(Tensor tensor, ArrayRef<Coord> coords, FragmentType type, bool transpose,
                    Here here = {});
  Fragment fill(Value value, FragmentType type, Here here = {});
  Fragment mma(Fragment a, Fragment b, Fragment acc, Here here = {});
  Value fragmentToVector(Fragment fragment, Here here = {});
  Fragment vectorToFragment(Value vector, FragmentType type, Here here = {});
  Fragment loadFragment(Tensor tensor, ArrayRef<Coord> coords, FragmentType type,
                        std::optional<Bounds> bounds, Here here = {});
  void storeFragment(Fragment fragment, Tensor tensor, ArrayRef<Coord> coords,
                     std::optional<Bounds> bounds, Here here = {});

  //===--- Warpgroup tensor cores (sm_90a) ------------------------------===//
  WarpgroupAcc warpgroupFill(Value value, WarpgroupAccType type, Here here = {});
  /// acc + A * B from the shared K-major tiles at `aCoords` and `bCoords`
  /// (with `overwrite`, A * B in acc's registers).
  WarpgroupAcc wgmma(Tensor a, ArrayRef<Coord> aCoords, Tensor b, ArrayRef<Coord> bCoords,
                     WarpgroupAcc acc, bool overwrite = false, Here here = {});
  void wgmmaFence(Here here = {});
  void wgmmaCommit(Here here = {});
  void wgmmaWait(int32_t pending, Here here = {});
  /// The C fragment of columns 8 * index.. of the lane's warp's rows.
  Fragment warpgroupFragment(WarpgroupAcc acc, int64_t index, Here here = {});
  /// This thread's shared writes before the async proxy's later reads.
  void fenceProxyAsync(Here here = {});

  //===--- Copies and barriers ------------------------------------------===//
  /// A 16-byte cp.async; with `inBounds`, a false predicate writes zeros.
  void asyncCopy(Tensor src, ArrayRef<Coord> srcCoords, Tensor dst, ArrayRef<Coord> dstCoords,
                 Value inBounds, Here here = {});
  void asyncCommit(Here here = {});
  void asyncWait(int32_t pending, Here here = {});
  /// The block-wide barrier (gpu.barrier).
  void barrier(Here here = {});
  void warpSync(Here here = {});
  /// A box of `map` at `coords` into `dst` at `dstCoords`, by TMA, whose
  /// bytes complete on barrier `index` of `barriers`; with `multicast` N,
  /// in each of cluster blocks 0 to N - 1.
  void tmaLoad(TensorMap map, ArrayRef<Coord> coords, Tensor dst, ArrayRef<Coord> dstCoords,
               Barriers barriers, Value index, int64_t multicast = 0, Here here = {});
  /// An im2col box of `map` into `dst` at `dstCoords`: output positions
  /// from image `image`, input position (`row`, `col`), channels from
  /// `channel`, of the filter tap at offsets (`rowOffset`, `colOffset`);
  /// its bytes complete on barrier `index` of `barriers`.
  void tmaLoadIm2col(Im2colMap map, Value image, Value row, Value col, Value channel,
                     Value rowOffset, Value colOffset, Tensor dst, ArrayRef<Coord> dstCoords,
                     Barriers barriers, Value index, Here here = {});
  Barriers barrierAlloc(int64_t count, Here here = {});
  void barrierInit(Barriers barriers, Value index, int64_t arrivals, Here here = {});
  /// Arrives at barrier `index`; with `block`, at that cluster block's.
  void barrierArrive(Barriers barriers, Value index, Value block = {}, Here here = {});
  /// This thread's barrier initializations before the cluster's later use.
  void fenceBarrierInit(Here here = {});
  /// The barrier of every thread of every block of the cluster.
  void clusterBarrier(Here here = {});
  /// Arrives, the phase then also waiting for `bytes` of TMA copies.
  void barrierExpectTx(Barriers barriers, Value index, int64_t bytes, Here here = {});
  /// Waits for the phase of parity `parity` (an i1).
  void barrierWait(Barriers barriers, Value index, Value parity, Here here = {});
  /// The warpgroup's registers per thread become `count`.
  void setMaxRegisters(RegisterAction action, int32_t count, Here here = {});

  //===--- Scalars and vectors ------------------------------------------===//
  Value index(int64_t value, Here here = {});
  Value f32(double value, Here here = {});
  Value addi(Value lhs, Value rhs, Here here = {});
  Value subi(Value lhs, Value rhs, Here here = {});
  Value muli(Value lhs, Value rhs, Here here = {});
  Value divui(Value lhs, Value rhs, Here here = {});
  Value remui(Value lhs, Value rhs, Here here = {});
  Value andi(Value lhs, Value rhs, Here here = {});
  Value cmpi(arith::CmpIPredicate predicate, Value lhs, Value rhs, Here here = {});
  /// The low bit of an index, as an i1.
  Value lowBit(Value index, Here here = {});
  Value addf(Value lhs, Value rhs, Here here = {});
  Value mulf(Value lhs, Value rhs, Here here = {});
  /// lhs * rhs + addend with one rounding: the multiply and add marked
  /// contractible, which the backend fuses.
  Value fmaf(Value lhs, Value rhs, Value addend, Here here = {});
  Value broadcast(Value scalar, VectorType type, Here here = {});
  /// `kind` applied to each element of an f32 scalar or vector.
  Value activation(Activation kind, Value input, Here here = {});

  //===--- Control flow -------------------------------------------------===//
  /// `scf.for` from `lower` to `upper` by `step` carrying `inits`: `body`
  /// builds one iteration from the induction variable and the carried
  /// values and returns what it yields.
  scf::ForOp forLoop(Value lower, Value upper, Value step, ValueRange inits,
                     function_ref<SmallVector<Value>(Value iv, ValueRange carried)> body,
                     Here here = {});

  /// `scf.if` without results: `body` builds the then-region.
  void ifThen(Value condition, function_ref<void()> body, Here here = {});
  /// `scf.if` without results and with an else-region.
  void ifThenElse(Value condition, function_ref<void()> thenBody, function_ref<void()> elseBody,
                  Here here = {});

  /// Builds an op of any dialect at `here`, verified there.
  template <typename OpTy, typename... Args>
  OpTy create(Here here, Args &&...args) {
    auto op = OpTy::create(builder, loc(here), std::forward<Args>(args)...);
    verify(op);
    return op;
  }

private:
  void verify(Operation *op);

  OpBuilder &builder;
  Location origin;
  bool verified = true;
};

} // namespace mlir::spio::build

#endif // SPIO_DIALECT_SPIO_BUILDER_KERNELBUILDER_H
