//===- GemmKernel.cpp - The GEMM kernel family, built as IR ---------------===//
//
// Two kernels, per block of BM x BN outputs:
// - mma.sync: every thread copies A's and B's tiles into swizzled shared
//   memory with 16-byte cp.async (zero-filled past the matrix edges); per
//   k-step each warp loads its fragments with ldmatrix (transposed for the
//   M- and N-major layouts) and issues the mma.sync of its warp tile. The
//   loop is one stage; spio-pipeline makes the ring, `stages - 1` k-steps
//   ahead.
// - wgmma (sm_90a): warp specialized. A copy warpgroup has one thread load
//   the tiles by TMA into a ring of stages with full and empty barriers
//   (M- and N-major tiles in boxes of 64 of M or N side by side, read as
//   wgmma's transposed operands); each compute warpgroup multiplies its 64
//   rows straight from the 128-byte swizzled tiles into a warpgroup
//   accumulator, one k-tile's group in flight while the next is issued.
//   On a persistent grid
//   a block loops over tiles, its copies running into the next tile while
//   the last is stored; a cluster of two blocks shares B tiles by multicast.
//   With A and B swapped, the warpgroups' rows run along N and wgmma's N
//   along M (for small M). Blocks of a cluster that split K add their
//   partial sums from shared memory in rank order.
//   A grouped GEMM's persistent blocks walk its groups' tiles, reading the
//   groups' end rows from the device. With `promote` or `k_ranges`, a
//   compute warpgroup sums each k-tile or each range of k-tiles from zero
//   and adds the sums in f32. With `stream_k`, persistent clusters share
//   the last tiles' k-tiles: a tile's finishing block waits for the flags
//   of the blocks before it (which set them after storing their partial
//   sums) and adds their sums in block order.
// f32 operands run on wgmma as TF32, read in place where K-major. Operands
// whose rows are not 16-byte multiples (and, for wgmma, batched M- or
// N-major ones whose K leaves a partial k-tile; under TF32 every M- or
// N-major one; f32 ones split into bf16 terms) are first packed by a kernel
// each into K-major bf16/f16 (f32 values as bf16 terms) or f32 (TF32).
// Both end in the same epilogue: alpha * acc (+ beta * C) a C fragment at a
// time, stores skipping elements past the edges. The reduction order is
// fixed by the loop structure and there are no atomics, so results are
// bit-identical from run to run.
//
//===----------------------------------------------------------------------===//

#include "spio/Kernels/IR/GemmKernel.h"

#include "GemmTile.h"
#include "PrintedWorkload.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::spio;
using namespace mlir::spio::build;
namespace kernels = ::spio::kernels;
using kernels::GemmConfig;
using kernels::GemmProblem;
using kernels::GemmParameters;

static int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

kernels::DType mlir::spio::dtypeOf(Type type) {
  if (type.isF16())
    return kernels::DType::F16;
  if (type.isBF16())
    return kernels::DType::BF16;
  return kernels::DType::F32;
}

Type mlir::spio::typeOf(MLIRContext *ctx, kernels::DType dtype) {
  switch (dtype) {
  case kernels::DType::F16:
    return Float16Type::get(ctx);
  case kernels::DType::BF16:
    return BFloat16Type::get(ctx);
  case kernels::DType::F32:
    return Float32Type::get(ctx);
  }
  llvm_unreachable("a GEMM dtype");
}

/// The 16-byte vector of `dtype` the tensor cores' operands are made of.
static VectorType tensorCoreVector(MLIRContext *ctx, kernels::DType dtype) {
  return VectorType::get({kernels::vectorElements(dtype)}, typeOf(ctx, dtype));
}

GemmProblem mlir::spio::gemmProblem(GemmOp op) {
  GemmProblem p;
  StringAttr rows = op.getRowDim(), cols = op.getColDim(), k = op.getReductionDim();
  ArrayRef<TensorDim> a = op.getA().getType().getDims(), b = op.getB().getType().getDims();
  ArrayRef<TensorDim> d = op.getD().getType().getDims();
  // Groups splitting K: D leads with the groups' entry, a matrix a group.
  if (op.getGroups() && d.size() == 3) {
    p.groups = d[0].size;
    p.groupDim = d[0].dim.str();
    p.groupedReduction = true;
    d = d.drop_front();
  } else if (StringAttr batch = op.getBatchDim()) {
    // A batch entry comes first; the matrices' entries follow.
    p.batch = d[0].size;
    p.batchDim = batch.str();
    p.batchA = a.size() == 3;
    p.batchB = b.size() == 3;
    d = d.drop_front();
  }
  if (a.size() == 3)
    a = a.drop_front();
  if (b.size() == 3) {
    // A grouped GEMM's B leads with a matrix a group.
    if (op.getGroups()) {
      p.groups = b[0].size;
      p.groupDim = b[0].dim.str();
    }
    b = b.drop_front();
  }
  p.rowDim = rows.str();
  p.colDim = cols.str();
  p.reductionDim = k.str();
  p.m = d[0].size;
  p.n = d[1].size;
  // The contiguous (inner) entry counts vectors of 8.
  p.k = a[0].dim == k ? a[0].size : a[1].size * a[1].fold;
  p.input = dtypeOf(cast<VectorType>(op.getA().getType().getElementType()).getElementType());
  // The op's f32 vectors are the tensor cores' TF32 inputs.
  if (p.input == kernels::DType::F32)
    p.precision = kernels::F32Precision::Tf32;
  p.output = dtypeOf(op.getD().getType().getElementType());
  p.a = a[0].dim == rows ? kernels::Layout::RowMajor : kernels::Layout::ColMajor;
  p.b = b[0].dim == cols ? kernels::Layout::ColMajor : kernels::Layout::RowMajor;
  p.readsC = bool(op.getC());
  p.storesPreActivation = bool(op.getPre());
  if (EpilogueAttr epilogue = op.getEpilogueAttr())
    for (EpilogueStep step : epilogue.getSteps())
      p.epilogue.push_back(kernels::EpilogueStep(int(step)));
  for (auto [vector, along, type] : {std::tuple{op.getBias(), &p.bias, &p.biasType},
                                     std::tuple{op.getScale(), &p.scale, &p.scaleType}}) {
    if (!vector)
      continue;
    auto tensor = cast<SpioTensorType>(vector.getType());
    *along = tensor.getDims()[0].dim == rows ? kernels::Along::Rows : kernels::Along::Cols;
    *type = dtypeOf(tensor.getElementType());
  }
  return p;
}

// The dialect's epilogue steps and the kernel library's are one list, whose
// activation steps are the activations in order.
static_assert(int(ConvPass::Fprop) == int(kernels::ConvPass::Fprop) &&
              int(ConvPass::Dgrad) == int(kernels::ConvPass::Dgrad) &&
              int(ConvPass::Wgrad) == int(kernels::ConvPass::Wgrad));
static_assert(int(EpilogueStep::Scale) == int(kernels::EpilogueStep::Scale) &&
              int(EpilogueStep::Silu) == int(kernels::EpilogueStep::Silu));
constexpr int kFirstActivationStep = int(kernels::EpilogueStep::Relu);
static_assert(int(Activation::Relu) == 0 &&
              int(Activation::GeluTanh) ==
                  int(kernels::EpilogueStep::GeluTanh) - kFirstActivationStep &&
              int(Activation::GeluErf) ==
                  int(kernels::EpilogueStep::GeluErf) - kFirstActivationStep &&
              int(Activation::Silu) == int(kernels::EpilogueStep::Silu) - kFirstActivationStep);

/// The activation an activation step applies.
static Activation activationOf(kernels::EpilogueStep step) {
  return Activation(int(step) - kFirstActivationStep);
}

GemmConfig mlir::spio::gemmConfig(GemmConfigAttr attr) {
  GemmConfig c;
  c.blockM = attr.getBlock()[0];
  c.blockN = attr.getBlock()[1];
  c.blockK = attr.getBlock()[2];
  c.warpsM = attr.getWarps()[0];
  c.warpsN = attr.getWarps()[1];
  c.stages = attr.getStages();
  c.raster = attr.getRaster();
  c.wgmma = attr.getWgmma();
  c.persistent = attr.getPersistent();
  c.cluster = attr.getCluster();
  c.swapAB = attr.getSwap();
  c.splitK = attr.getSplitK();
  c.pingpong = attr.getPingpong();
  c.promote = attr.getPromote();
  c.kRanges = attr.getKRanges();
  c.streamK = attr.getStreamK();
  return c;
}

GemmConfigAttr mlir::spio::gemmConfigAttr(MLIRContext *context, const GemmConfig &c) {
  return GemmConfigAttr::get(context, {c.blockM, c.blockN, c.blockK}, {c.warpsM, c.warpsN},
                             c.stages, c.raster, c.wgmma, c.persistent, c.cluster, c.swapAB,
                             c.splitK, c.pingpong, c.promote, c.kRanges, c.streamK);
}

namespace {

/// One operand's global and shared layouts. The tile's rows run along
/// `outer`, its 16-byte vectors (of `lanes` elements) along `inner` (whose
/// size counts vectors).
struct Operand {
  bool batched;      // one matrix a problem of the batch (else one for all)
  bool grouped;      // a grouped GEMM's B: one matrix a group
  StringRef rowDim;  // the non-reduction dimension
  StringRef kDim;    // the reduction dimension
  bool kContiguous;  // vectors run along the reduction
  int64_t rowsExtent; // M or N
  int64_t k;          // K
  int64_t blockRows;  // BM or BN
  char name;          // 'a' or 'b'
  int64_t lanes;      // elements of a 16-byte vector

  StringRef outerDim() const { return kContiguous ? rowDim : kDim; }
  StringRef innerDim() const { return kContiguous ? kDim : rowDim; }
  int64_t tileOuter(int64_t blockK) const { return kContiguous ? blockRows : blockK; }
  int64_t tileVectors(int64_t blockK) const { return (kContiguous ? blockK : blockRows) / lanes; }
  int64_t outerExtent() const { return kContiguous ? rowsExtent : k; }
  int64_t innerExtent() const { return kContiguous ? k : rowsExtent; }
};

Operand operandA(const GemmProblem &p, int64_t blockM) {
  return {p.batch > 1 && p.batchA,
          false,
          p.rowDim,
          p.reductionDim,
          p.a == kernels::Layout::RowMajor,
          p.m,
          p.k,
          blockM,
          'a',
          kernels::vectorElements(p.input)};
}

Operand operandB(const GemmProblem &p, int64_t blockN) {
  return {p.batch > 1 && p.batchB,
          p.groups > 0 && !p.groupedReduction,
          p.colDim,
          p.reductionDim,
          p.b == kernels::Layout::ColMajor,
          p.n,
          p.k,
          blockN,
          'b',
          kernels::vectorElements(p.input)};
}

/// An operand's global tensor: its batch entry (if it has one), then its
/// matrix; as 16-byte vectors along its contiguous dimension, or as scalars
/// where a kernel packs it first.
SpioTensorType globalType(KernelBuilder &b, const GemmProblem &p, const Operand &o) {
  SmallVector<Extent> extents;
  if (o.batched)
    extents.push_back({p.batchDim, 1, p.batch});
  if (o.grouped)
    extents.push_back({p.groupDim, 1, p.groups});
  Type element = typeOf(b.getContext(), p.input);
  if (kernels::gemmPacksOperand(p, o.name)) {
    extents.append({{o.outerDim(), 1, o.outerExtent()}, {o.innerDim(), 1, o.innerExtent()}});
    return b.tensorType(extents, element, MemorySpace::Global);
  }
  extents.append(
      {{o.outerDim(), 1, o.outerExtent()}, {o.innerDim(), o.lanes, o.innerExtent() / o.lanes}});
  return b.tensorType(extents, tensorCoreVector(b.getContext(), p.input), MemorySpace::Global);
}

/// The global tensor a (K-major) operand's tensor map reads: the rows of
/// all its batch entries, one after the other.
SpioTensorType tmaGlobalType(KernelBuilder &b, const GemmProblem &p, const Operand &o) {
  int64_t entries = o.batched ? p.batch : o.grouped ? p.groups : 1;
  return b.tensorType({{o.outerDim(), 1, o.outerExtent() * entries},
                       {o.innerDim(), o.lanes, o.innerExtent() / o.lanes}},
                      tensorCoreVector(b.getContext(), p.input), MemorySpace::Global);
}

SpioTensorType outputType(KernelBuilder &b, const GemmProblem &p) {
  SmallVector<Extent> extents;
  if (p.batch > 1)
    extents.push_back({p.batchDim, 1, p.batch});
  if (p.groupedReduction)
    extents.push_back({p.groupDim, 1, p.groups});
  extents.append({{p.rowDim, 1, p.m}, {p.colDim, 1, p.n}});
  return b.tensorType(extents, typeOf(b.getContext(), p.output), MemorySpace::Global);
}

/// A bias or scale vector: one value a row of D or one a column.
SpioTensorType epilogueVectorType(KernelBuilder &b, const GemmProblem &p, kernels::Along along,
                                  kernels::DType type) {
  bool rows = along == kernels::Along::Rows;
  return b.tensorType({{rows ? p.rowDim : p.colDim, 1, rows ? p.m : p.n}},
                      typeOf(b.getContext(), type), MemorySpace::Global);
}

/// The same vector as a tensor of D's shape, broadcast along D's other
/// dimensions by a zero stride, so that it loads as C fragments.
SpioTensorType broadcastType(MLIRContext *ctx, const GemmProblem &p, SpioTensorType vector) {
  StringAttr along = vector.getDims()[0].dim;
  SmallVector<TensorDim> dims;
  if (p.batch > 1)
    dims.push_back({StringAttr::get(ctx, p.batchDim), 1, p.batch, 0});
  for (auto [dim, size] : {std::pair{p.rowDim, p.m}, std::pair{p.colDim, p.n}}) {
    StringAttr name = StringAttr::get(ctx, dim);
    dims.push_back({name, 1, size, name == along ? 1 : 0});
  }
  return SpioTensorType::get(ctx, dims, vector.getElementType(), MemorySpace::Global,
                             SwizzleAttrInterface());
}

/// XOR swizzle that spreads the 8 rows an ldmatrix phase reads (same
/// vector column) over the 8 16-byte slots of a 128-byte bank row.
SwizzleAttrInterface swizzleFor(MLIRContext *ctx, int64_t vectorsPerRow) {
  if (vectorsPerRow >= 8)
    return XorSwizzleAttr::get(ctx, 3, 0, llvm::Log2_64_Ceil(vectorsPerRow));
  if (vectorsPerRow == 4)
    return XorSwizzleAttr::get(ctx, 2, 0, 3);
  return XorSwizzleAttr::get(ctx, 1, 0, 3);
}

/// The ring's dimension: which of the shared stages a tile is in.
constexpr StringLiteral kStage = "stage";
/// An M- or N-major wgmma tile's TMA boxes: 64 of its rows (128 bytes).
constexpr int64_t kMNBox = 64;
/// The dimensions of a split reduction's partial sums in shared memory: a
/// warpgroup accumulator's C fragment, and the compute thread holding it.
constexpr StringLiteral kAccFragment = "fragment", kAccThread = "thread";
/// Stream-K's partial sums and flags: one of each a persistent block.
constexpr StringLiteral kStreamKBlock = "sk";
/// The dimension of the compute warps' staging tiles of D.
constexpr StringLiteral kStagingWarp = "warp";
/// setmaxnreg budgets: the copy warpgroup keeps what issuing TMA needs, the
/// compute warpgroups take the rest of the register file (with up to two
/// of them, 40 * 128 + 232 * 256 <= 65536).
constexpr int32_t kCopyRegisters = 40;
constexpr int32_t kComputeRegisters = 232;

GemmValues gemmValues(GemmOp op) {
  return {op,
          op.getA(),
          op.getB(),
          op.getC(),
          op.getD(),
          op.getAlpha(),
          op.getBeta(),
          op.getBias(),
          op.getScale(),
          op.getGroups(),
          op.getPre(),
          op.getPartials(),
          op.getFlags(),
          op.getRangeSums(),
          op.getAMap(),
          op.getBMap()};
}

/// Builds one block's kernel code.
class GemmTile {
public:
  GemmTile(KernelBuilder &b, const GemmProblem &p, const GemmConfig &c)
      : b(b), p(p), c(c), a(operandA(p, c.blockM)), bOp(operandB(p, c.blockN)),
        input(typeOf(b.getContext(), p.input)) {}

  void build(const GemmValues &op) { c.wgmma ? buildWarpSpecialized(op) : buildMmaSync(op); }

  /// One stage of an operand's tiles in shared memory.
  SpioTensorType sharedType(const Operand &o) {
    int64_t vectors = o.tileVectors(c.blockK);
    return b.tensorType(
        {{o.outerDim(), 1, o.tileOuter(c.blockK)}, {o.innerDim(), o.lanes, vectors}}, inputVector(),
        MemorySpace::Shared, swizzleFor(b.getContext(), vectors));
  }

  /// The box one TMA copy moves into a stage of a wgmma operand's tiles:
  /// K-major, the operand's rows (`o.blockRows`) by a k-tile; M- or
  /// N-major, a k-tile's rows by 64 of the operand's rows, of which a
  /// stage holds side by side as many as the tile has.
  SpioTensorType boxType(const Operand &o) {
    if (o.kContiguous)
      return sharedType(o);
    return b.tensorType({{o.kDim, 1, c.blockK}, {o.rowDim, 8, kMNBox / 8}}, inputVector(),
                        MemorySpace::Shared, swizzleFor(b.getContext(), kMNBox / 8));
  }

  /// The 16-byte vector of the tensor cores' input dtype.
  VectorType inputVector() { return tensorCoreVector(b.getContext(), p.input); }

private:
  /// mma.sync from ldmatrix fragments, tiles loaded by every thread's
  /// cp.async; spio-pipeline makes the ring.
  void buildMmaSync(const GemmValues &op);
  /// wgmma from a ring of TMA-loaded tiles: one copy warpgroup, the others
  /// compute.
  void buildWarpSpecialized(const GemmValues &op);
  std::pair<Value, Value> tilePlace(Value linear, int64_t tilesM, int64_t tilesN);
  /// Where a convolution's k-tile reads w: along B's reduction and, for
  /// dgrad (an N-major B), the shift of its columns to the tap's channels.
  struct ConvWeights {
    Coord k, shift;
  };
  /// A convolution's k-tile: the filter tap (its index, and (r, s)) of the
  /// convolution A gathers, its 64 channels from `channel` of the tile's
  /// group (null where not grouped), whose inputs start at `groupBase`.
  struct ConvTap {
    Value tap, r, s, channel, group, groupBase;
  };
  /// The k-tile `kIndex` of the tile at column index `tileColumn`.
  ConvTap convTap(const GemmValues &op, Value tileColumn, Value kIndex);
  /// Where the tap's weights are.
  ConvWeights convWeights(const GemmValues &op, const ConvTap &tap);
  /// A convolution's k-tile `kIndex` of the tile at rows `bi` and column
  /// index `tileColumn`: starts the im2col copy of its tap's channels (of
  /// the tile's group) into `tiles` at `stage`, and returns where the tap's
  /// weights are.
  ConvWeights convLoadInput(const GemmValues &op, Coord bi, Value tileColumn, Value kIndex,
                            Tensor tiles, Coord stage, Barriers full, Value slot);
  /// One of the rows of A a thread gathers on mma.sync (a pass of its
  /// copies): whether the output position is inside the problem, its
  /// image, and the input row and column its first tap reads (negative in
  /// the padding).
  struct ConvRow {
    Value inside, image, h, w;
  };
  /// The rows the thread at `copyRow` of the tile at rows `bi` gathers,
  /// computed once for every k-tile.
  SmallVector<ConvRow> convRows(const GemmValues &op, Coord bi, Coord copyRow);
  /// mma.sync: a cp.async of the channels at `vector` of pixel (`image`,
  /// `h`, `w`) of `input` (x, or dgrad's dy, of `conv`'s sizes) into
  /// `shared` at `at`; zeros where not `inside` or (h, w) is in the padding.
  void copyPixel(const kernels::Conv2dProblem &conv, Tensor input, Value inside, Value image,
                 Value h, Value w, Value vector, Tensor shared, ArrayRef<Coord> at);
  /// mma.sync: the thread's cp.async copies of the tap's channels of its
  /// `rows` into A's `shared` tile (zeros in the padding and past the
  /// group's channels).
  void convGatherA(const GemmValues &op, ArrayRef<ConvRow> rows, const ConvTap &tap, Tensor shared,
                   Coord copyRow, Coord copyVector);
  /// mma.sync: the thread's cp.async copies of the tap's weights (at
  /// `tap`) for the tile at columns `bj` into B's `shared` tile.
  void convCopyWeights(const GemmValues &op, const ConvWeights &tap, Coord bj, Tensor shared,
                       Coord copyOuter, Coord copyInner);
  /// The thread's cp.async copies of operand `o`'s tile from the matrix
  /// `global`, rows from `rowOrigin` and vectors from `colOrigin`: zeros
  /// where `colOk` is false and in rows at `rowLimit` or past.
  void copyBounded(const Operand &o, Tensor global, Tensor shared, Coord rowOrigin, Coord colOrigin,
                   Value colOk, int64_t rowLimit, Coord copyOuter, Coord copyInner);
  /// mma.sync wgrad: the thread's copies of dy's k-tile `kIndex` (64
  /// output positions) for the tile at rows `bi` (of K) into A's tile.
  void convCopyDy(const GemmValues &op, Value kIndex, Coord bi, Tensor shared, Coord copyOuter,
                  Coord copyInner);
  /// mma.sync wgrad: the column of dw's R * S * C a thread gathers x for
  /// (a k-tile's positions by its 8 channels): whether it is one (not past
  /// N or a tap's C), its channels' vector in x, and the offsets of its tap
  /// from an output position's input row and column (less the padding).
  struct ConvColumn {
    Value inside, vector, h, w;
  };
  ConvColumn convColumn(const GemmValues &op, Coord bj, Coord copyVector);
  /// mma.sync wgrad: the thread's cp.async copies of x at the k-tile
  /// `kIndex`'s positions for its `column` into B's tile.
  void convGatherX(const GemmValues &op, const ConvColumn &column, Value kIndex, Tensor shared,
                   Coord copyRow, Coord copyVector);
  /// wgrad of padded groups: the first of dy's channels that a box at rows
  /// `rowsOfDw` of dw' (group g's rows from g * K') reads, g * K / G on
  /// (past the group's, the next group's: rows of dw' left unreduced).
  Coord convWgradDyRows(const kernels::Conv2dProblem &conv, Coord rowsOfDw) {
    int64_t rows = kernels::conv2dWeightRows(conv) / conv.groups;
    Value first = b.toIndex(b.unfold(rowsOfDw, 1));
    Value group = b.divui(first, b.index(rows));
    Value channel = b.addi(b.muli(group, b.index(kernels::conv2dGroupOutputs(conv))),
                           b.subi(first, b.muli(group, b.index(rows))));
    return b.fromIndex(b.divui(channel, b.index(8)), b.coordType(p.rowDim, 8));
  }
  /// wgrad's k-tile `kIndex` (64 output positions) of B's box of 64
  /// columns from `column` (one tap's channels of the group of the tile at
  /// rows `bi`): starts its im2col copy of x into `tiles` at `stage` (and
  /// `part`, the box's place in the stage).
  void convLoadGatheredB(const GemmValues &op, Coord bi, Value column, Value kIndex, Tensor tiles,
                         Coord stage, Coord part, Barriers full, Value slot);
  /// A grouped GEMM's persistent walk: the groups' tiles one group after
  /// the other (in bands of `raster` tile rows), read off the row ends; this block's are those
  /// `start`, `start + step`, ... `body` takes the tile's absolute first row
  /// (with `group` and `groupEnd` set), its column and column index, and how
  /// many of the block's tiles (`first`, `first + stride`, ...) came before.
  void forEachGroupTile(const GemmValues &op, function_ref<void(Coord, Coord, Value, Value)> body,
                        Value first, Value stride, Value start, Value step);
  /// The persistent walk of groups that split K: tile t is group
  /// t / (tiles a group)'s, whose rows of K `body` finds in `reduction`
  /// (with the tile's group as its batch coordinate).
  void forEachReductionGroupTile(const GemmValues &op,
                                 function_ref<void(Coord, Coord, Value, Value)> body, Value first,
                                 Value stride, Value start, Value step);
  /// Stream-K's walk: the cluster's whole cluster tiles (rounds of the
  /// persistent grid), then its even share of the last ones' k-tiles, from
  /// its last unit back to its first, so that the one unit of a tile it
  /// does not finish comes first and the one it finishes (waiting for the
  /// partial sums of clusters before it, left in their first units) comes
  /// last; a block only ever waits for blocks that started before it.
  /// `body` takes the block's tile's row and column coordinates, column
  /// index and the unit's index, with `unit` set.
  void forEachStreamKUnit(function_ref<void(Coord, Coord, Value, Value)> body);
  /// A stream-K unit's end: where it finishes its tile, the partial sums of
  /// the blocks before it added to its own in block order and the epilogue;
  /// else its sums left in the block's partials and its flag set.
  void streamKEpilogue(const GemmValues &op, Coord bi, Coord bj, ArrayRef<Coord> warp,
                       function_ref<Fragment(int64_t)> accumulated);
  /// The tile of a grid of a block a tile: x runs along columns, y rows.
  std::pair<Coord, Coord> blockCoords();
  /// D = alpha * acc (+ beta * C) for the warp at `warp`, its accumulator
  /// `mTiles` x `nTiles` C fragments, bounded by M and N; or, for a
  /// warpgroup, its warp's 16 rows of fragments `nBegin` to `nEnd`, rows
  /// along `rowDim` (N where A and B are swapped).
  void epilogue(const GemmValues &op, Coord bi, Coord bj, ArrayRef<Coord> warp,
                function_ref<Fragment(int64_t, int64_t)> accumulated, int64_t mTiles,
                int64_t nTiles);
  void warpgroupEpilogue(const GemmValues &op, Coord bi, Coord bj, ArrayRef<Coord> warp,
                         StringRef rowDim, function_ref<Fragment(int64_t)> accumulated,
                         int64_t nBegin, int64_t nEnd);
  /// A warp's tile of D (and C) at `at`, the bounds of fragments whose rows
  /// run along `rows`, and alpha and beta a lane: built once an epilogue.
  struct TileStore {
    Tensor d, c, bias, scale, pre;
    Value alpha, beta;
    Bounds bounds;
  };
  TileStore tileStore(const GemmValues &op, ArrayRef<Coord> at, StringRef rows, StringRef cols);
  /// A C fragment of the accumulator and its place in the warp's tile.
  struct Placed {
    SmallVector<Coord, 2> place;
    Fragment acc;
  };
  /// Stores epilogue(alpha * acc) for each fragment: into D, or through
  /// `store` (given the result and the fragment's index); the value before
  /// the activation likewise into the tile's `pre`, or through `storePre`.
  void storeResults(const TileStore &tile, ArrayRef<Placed> fragments,
                    function_ref<void(Fragment, size_t)> store = {},
                    function_ref<void(Fragment, size_t)> storePre = {});
  /// A warp's fragments `nBegin` + `fragments` through its staging tile:
  /// 8 fragments at a time stored there, then copied out as 16-byte rows.
  void storeStaged(const GemmValues &op, const TileStore &tile, ArrayRef<Coord> at,
                   StringRef rowDim, StringRef colDim, ArrayRef<Placed> fragments, int64_t nBegin);

  FragmentType fragment(FragmentOperand operand, StringRef rows, StringRef cols, Type element) {
    return b.fragmentType(operand, MmaShape::M16N8K16, element, rows, cols);
  }

  /// The block's tile of one operand along its rows (`blockCoord`) and the
  /// k-tile `kTile`, copied into `shared` by every thread's cp.async.
  void copyTile(const Operand &o, Tensor global, Tensor shared, Coord blockCoord, Coord kTile,
                Coord copyOuter, Coord copyInner);

  /// `coords` after the current tile's batch coordinate, if there is one.
  SmallVector<Coord> withBatch(ArrayRef<Coord> coords) {
    SmallVector<Coord> all;
    if (batch)
      all.push_back(batch);
    all.append(coords.begin(), coords.end());
    return all;
  }
  /// A batched operand's tile origin `rows` (a coordinate along its rows:
  /// M or N where it is K-major, else K) in the rows its tensor map reads,
  /// the batch entries' one after the other; an operand the batch shares
  /// keeps `rows`.
  Coord tmaRows(const Operand &o, Coord rows) {
    if (!o.batched && !o.grouped)
      return rows;
    Coord entry = o.grouped ? group : batch;
    Coord first =
        b.fromIndex(b.muli(b.toIndex(entry), b.index(o.outerExtent())), b.coordType(o.outerDim()));
    return b.add(first, b.unfold(rows, 1));
  }

  KernelBuilder &b;
  const GemmProblem &p;
  const GemmConfig &c;
  Operand a, bOp;
  Type input;
  /// The batch coordinate of the tile being built (null for one problem).
  Coord batch;
  /// A grouped GEMM's tile: its group, and the group's end row (D's rows'
  /// bound); null otherwise.
  Coord group, groupEnd;
  /// A tile of groups that split K: its rows of K [begin, end), its k-tiles
  /// (the last cut at `end`) and the ring's stages the block's tiles before
  /// it took; null otherwise (every tile takes the block's k-tiles).
  struct Reduction {
    Value begin, end, kTiles, stagesBefore;
  } reduction;
  /// A stream-K unit of a tile: its k-tiles [kBegin, kBegin + kTiles), the
  /// ring's stages the block's units before it took, whether it takes the
  /// tile's last k-tile (and so finishes the tile) and, if it does, the
  /// first cluster (block, without clusters) whose partial sums of the tile
  /// it adds (the block of this one's rank in each cluster from it to this
  /// block's cluster's predecessor), this block's cluster and its rank in
  /// it; null without stream-K.
  struct StreamKUnit {
    Value kBegin, kTiles, stagesBefore, finishes, firstCluster, cluster, rank;
  } unit;
  /// The k-tile count and the ring's stages before it of the block's
  /// `done`-th tile, each of whose tiles takes `kCount` k-tiles unless the
  /// walk says otherwise (groups splitting K, stream-K).
  std::pair<Value, Value> tileSteps(Value done, Value kCount) {
    if (reduction.kTiles)
      return {reduction.stagesBefore, reduction.kTiles};
    if (unit.kTiles)
      return {unit.stagesBefore, unit.kTiles};
    return {b.muli(done, kCount), kCount};
  }
  /// Each compute warp's staging tile of D (gemmStagesResults), as
  /// scalars and as 16-byte vectors; null where D is stored from fragments.
  Tensor staging, stagingVectors;
};

void GemmTile::copyTile(const Operand &o, Tensor global, Tensor shared, Coord blockCoord,
                        Coord kTile, Coord copyOuter, Coord copyInner) {
  StringRef outer = o.outerDim(), inner = o.innerDim();
  int64_t rowsPerPass = c.threads() / o.tileVectors(c.blockK);
  int64_t passes = o.tileOuter(c.blockK) / rowsPerPass;
  Tensor tile = b.subscript(global, o.batched ? withBatch({blockCoord, kTile})
                                             : SmallVector<Coord>{blockCoord, kTile});
  // Absolute positions of the tile's origin, for the bounds of the copies.
  Coord rowOrigin = b.unfold(blockCoord, 1);
  Coord kOrigin = b.unfold(kTile, 1);
  bool outerIsK = outer == p.reductionDim;
  Coord outerOrigin = outerIsK ? kOrigin : rowOrigin;
  Coord innerOrigin = outerIsK ? rowOrigin : kOrigin;
  Coord innerAbs = b.add(innerOrigin, b.unfold(copyInner, 1));
  Value innerOk = b.cmp(CmpPredicate::lt, innerAbs, b.constant(o.innerExtent(), b.coordType(inner)));
  Coord outerLimit = b.constant(o.outerExtent(), b.coordType(outer));
  for (int64_t pass = 0; pass < passes; ++pass) {
    Coord row = copyOuter;
    if (pass > 0)
      row = b.add(row, b.constant(pass * rowsPerPass, b.coordType(outer)));
    Value outerOk = b.cmp(CmpPredicate::lt, b.add(outerOrigin, row), outerLimit);
    b.asyncCopy(tile, {row, copyInner}, shared, {row, copyInner}, b.andi(outerOk, innerOk));
  }
}

GemmTile::ConvTap GemmTile::convTap(const GemmValues &op, Value tileColumn, Value kIndex) {
  // The convolution whose im2col matrix A is: dgrad's over dy.
  const kernels::Conv2dProblem &conv = kernels::conv2dGathered(*op.conv).conv;
  int64_t channelTiles = kernels::conv2dChannelTiles(conv);
  int64_t groupInputs = kernels::conv2dGroupInputs(conv);
  // k-tile -> filter tap (r, s) and its 64 channels from `channel` (of
  // the tile's group, whose inputs start at `groupBase`).
  ConvTap t;
  t.tap = b.divui(kIndex, b.index(channelTiles));
  t.channel = b.muli(b.remui(kIndex, b.index(channelTiles)), b.index(c.blockK));
  t.groupBase = b.index(0);
  if (conv.groups > 1) {
    t.group =
        b.divui(b.muli(tileColumn, b.index(c.blockN)), b.index(kernels::conv2dGroupOutputs(conv)));
    t.groupBase = b.muli(t.group, b.index(groupInputs));
  }
  t.r = b.divui(t.tap, b.index(conv.s));
  t.s = b.remui(t.tap, b.index(conv.s));
  return t;
}

GemmTile::ConvWeights GemmTile::convWeights(const GemmValues &op, const ConvTap &t) {
  kernels::Conv2dGathered gathered = kernels::conv2dGathered(*op.conv);
  const kernels::Conv2dProblem &conv = gathered.conv;
  if (op.conv->pass == kernels::ConvPass::Dgrad) {
    // Tap (r, s) of dy's window is w's tap (lastR - r * stepR, lastS - s *
    // stepS) (at stride 1: (R - 1 - r, S - 1 - s)): its K rows from
    // `channel` (of the group's), its C input channels (a group's C / G)
    // that many taps along w's rows; the tile's columns, dx's channels,
    // are shifted back by the group's first.
    int64_t taps = op.conv->s;
    int64_t dxGroupChannels = kernels::conv2dGroupInputs(*op.conv);
    bool everyTap = conv.r == op.conv->r && conv.s == op.conv->s;
    Value flipped = everyTap ? b.subi(b.index(conv.r * conv.s - 1), t.tap)
                             : b.subi(b.index(gathered.lastR * taps + gathered.lastS),
                                      b.addi(b.muli(t.r, b.index(gathered.stepR * taps)),
                                             b.muli(t.s, b.index(gathered.stepS))));
    if (kernels::conv2dTransposesWeights(*op.conv)) {
      // w transposed, [C, R, S, K'] (K-major): the tap's K' channels of the
      // tile's dx channels, from `channel`.
      Value weights =
          b.addi(b.muli(flipped, b.index(kernels::conv2dWeightTapChannels(*op.conv))), t.channel);
      return {b.fromIndex(b.divui(weights, b.index(8)), b.coordType(p.reductionDim, 8)), Coord()};
    }
    Value shift = b.muli(flipped, b.index(dxGroupChannels / 8));
    if (t.group)
      shift = b.subi(shift, b.muli(t.group, b.index(dxGroupChannels / 8)));
    return {b.fromIndex(b.addi(t.groupBase, t.channel), b.coordType(p.reductionDim)),
            b.fromIndex(shift, b.coordType(p.colDim, 8))};
  }
  // w's row holds tap after tap of C channels (a group's C / G, padded).
  Value weights = b.addi(b.muli(t.tap, b.index(kernels::conv2dWeightTapChannels(conv))), t.channel);
  return {b.fromIndex(b.divui(weights, b.index(8)), b.coordType(p.reductionDim, 8)), Coord()};
}

GemmTile::ConvWeights GemmTile::convLoadInput(const GemmValues &op, Coord bi, Value tileColumn,
                                              Value kIndex, Tensor tiles, Coord stage,
                                              Barriers full, Value slot) {
  kernels::Conv2dGathered gathered = kernels::conv2dGathered(*op.conv);
  const kernels::Conv2dProblem &conv = gathered.conv;
  int64_t outH = gathered.outH, outW = gathered.outW;
  ConvTap t = convTap(op, tileColumn, kIndex);
  // The tile's first output position (n, p, q) and the input position its
  // first tap reads (negative in the padding).
  Value first = b.toIndex(b.unfold(bi, 1));
  Value image = b.divui(first, b.index(outH * outW));
  Value inImage = b.remui(first, b.index(outH * outW));
  Value row =
      b.subi(b.muli(b.divui(inImage, b.index(outW)), b.index(conv.strideH)), b.index(conv.padH));
  Value col =
      b.subi(b.muli(b.remui(inImage, b.index(outW)), b.index(conv.strideW)), b.index(conv.padW));
  b.tmaLoadIm2col(cast<Im2colMap>(op.aMap), image, row, col, b.addi(t.groupBase, t.channel),
                  b.muli(t.r, b.index(conv.dilationH)), b.muli(t.s, b.index(conv.dilationW)), tiles,
                  {stage}, full, slot);
  return convWeights(op, t);
}

SmallVector<GemmTile::ConvRow> GemmTile::convRows(const GemmValues &op, Coord bi, Coord copyRow) {
  kernels::Conv2dGathered gathered = kernels::conv2dGathered(*op.conv);
  const kernels::Conv2dProblem &conv = gathered.conv;
  int64_t outH = gathered.outH, outW = gathered.outW;
  int64_t rowsPerPass = c.threads() / a.tileVectors(c.blockK);
  SmallVector<ConvRow> rows;
  for (int64_t pass = 0; pass < c.blockM / rowsPerPass; ++pass) {
    Value position =
        b.addi(b.toIndex(b.add(b.unfold(bi, 1), copyRow)), b.index(pass * rowsPerPass));
    Value inImage = b.remui(position, b.index(outH * outW));
    rows.push_back(
        {b.cmpi(arith::CmpIPredicate::ult, position, b.index(p.m)),
         b.divui(position, b.index(outH * outW)),
         b.subi(b.muli(b.divui(inImage, b.index(outW)), b.index(conv.strideH)), b.index(conv.padH)),
         b.subi(b.muli(b.remui(inImage, b.index(outW)), b.index(conv.strideW)),
                b.index(conv.padW))});
  }
  return rows;
}

void GemmTile::copyPixel(const kernels::Conv2dProblem &conv, Tensor input, Value inside,
                         Value image, Value h, Value w, Value vector, Tensor shared,
                         ArrayRef<Coord> at) {
  ArrayRef<TensorDim> dims = input.getType().getDims();
  // Unsigned compares also take a row or column in the padding (negative).
  Value ok = b.andi(inside, b.andi(b.cmpi(arith::CmpIPredicate::ult, h, b.index(conv.h)),
                                   b.cmpi(arith::CmpIPredicate::ult, w, b.index(conv.w))));
  // A copy that writes zeros reads nothing; its source is the first pixel.
  Value zero = b.index(0);
  auto coord = [&](Value v, const TensorDim &dim) {
    return b.fromIndex(b.create<arith::SelectOp>({}, ok, v, zero),
                       b.coordType(dim.dim.getValue(), dim.fold));
  };
  b.asyncCopy(input,
              {coord(image, dims[0]), coord(h, dims[1]), coord(w, dims[2]), coord(vector, dims[3])},
              shared, at, ok);
}

void GemmTile::convGatherA(const GemmValues &op, ArrayRef<ConvRow> rows, const ConvTap &tap,
                           Tensor shared, Coord copyRow, Coord copyVector) {
  const kernels::Conv2dProblem &conv = kernels::conv2dGathered(*op.conv).conv;
  int64_t rowsPerPass = c.threads() / a.tileVectors(c.blockK);
  auto input = cast<Tensor>(op.a);
  // The thread's 8 channels of the tap's 64, within the group's.
  Value channel = b.addi(tap.channel, b.toIndex(b.unfold(copyVector, 1)));
  Value channelOk =
      b.cmpi(arith::CmpIPredicate::ult, channel, b.index(kernels::conv2dGroupInputs(conv)));
  Value vector = b.divui(b.addi(tap.groupBase, channel), b.index(8));
  Value rowOffset = b.muli(tap.r, b.index(conv.dilationH));
  Value colOffset = b.muli(tap.s, b.index(conv.dilationW));
  for (auto [pass, row] : llvm::enumerate(rows)) {
    Coord place = copyRow;
    if (pass > 0)
      place = b.add(place, b.constant(int64_t(pass) * rowsPerPass, place.getType()));
    copyPixel(conv, input, b.andi(row.inside, channelOk), row.image, b.addi(row.h, rowOffset),
              b.addi(row.w, colOffset), vector, shared, {place, copyVector});
  }
}

void GemmTile::copyBounded(const Operand &o, Tensor global, Tensor shared, Coord rowOrigin,
                           Coord colOrigin, Value colOk, int64_t rowLimit, Coord copyOuter,
                           Coord copyInner) {
  int64_t rowsPerPass = c.threads() / o.tileVectors(c.blockK);
  int64_t passes = o.tileOuter(c.blockK) / rowsPerPass;
  Coord col = b.add(colOrigin, copyInner);
  for (int64_t pass = 0; pass < passes; ++pass) {
    Coord place = copyOuter;
    if (pass > 0)
      place = b.add(place, b.constant(pass * rowsPerPass, copyOuter.getType()));
    Coord row = b.add(rowOrigin, place);
    Value ok = b.andi(
        colOk, b.cmpi(arith::CmpIPredicate::ult, b.toIndex(b.unfold(row, 1)), b.index(rowLimit)));
    b.asyncCopy(global, {row, col}, shared, {place, copyInner}, ok);
  }
}

void GemmTile::convCopyWeights(const GemmValues &op, const ConvWeights &tap, Coord bj,
                               Tensor shared, Coord copyOuter, Coord copyInner) {
  const kernels::Conv2dProblem &conv = *op.conv;
  // w as the matrix of its rows (K, or transposed C) by its taps' channels.
  int64_t rows = kernels::conv2dWeightRows(conv);
  int64_t columns = conv.r * conv.s * kernels::conv2dWeightTapChannels(conv);
  StringRef rowDim = bOp.kContiguous ? p.colDim : p.reductionDim;
  StringRef colDim = bOp.kContiguous ? p.reductionDim : p.colDim;
  Tensor weights =
      b.view(cast<Tensor>(op.b), b.tensorType({{rowDim, 1, rows}, {colDim, 8, columns / 8}},
                                              inputVector(), MemorySpace::Global));
  // K-major (fprop): rows the tile's outputs, columns the tap's channels;
  // N-major (dgrad): rows the tap's K channels, columns the tile's dx
  // channels shifted to the tap's. Past the matrix, or (N-major) past dx's
  // channels, the copy writes zeros; A's zeros meet the rest (the next
  // tap's weights).
  Coord rowOrigin = bOp.kContiguous ? b.unfold(bj, 1) : tap.k;
  Coord colOrigin = bOp.kContiguous ? tap.k : b.add(b.unfold(bj, 8), tap.shift);
  Value colOk =
      bOp.kContiguous
          ? b.cmpi(arith::CmpIPredicate::ult, b.toIndex(b.unfold(b.add(colOrigin, copyInner), 1)),
                   b.index(columns))
          : b.cmpi(arith::CmpIPredicate::ult,
                   b.toIndex(b.add(b.unfold(bj, 1), b.unfold(copyInner, 1))), b.index(p.n));
  copyBounded(bOp, weights, shared, rowOrigin, colOrigin, colOk, bOp.kContiguous ? p.n : rows,
              copyOuter, copyInner);
}

void GemmTile::convCopyDy(const GemmValues &op, Value kIndex, Coord bi, Tensor shared,
                          Coord copyOuter, Coord copyInner) {
  // dy as the matrix of the output positions by K, M-major: the k-tile's
  // 64 positions by the tile's rows of dw (K).
  int64_t positions = kernels::conv2dOutputPositions(*op.conv);
  Tensor dy = b.view(cast<Tensor>(op.a),
                     b.tensorType({{p.reductionDim, 1, positions}, {p.rowDim, 8, p.m / 8}},
                                  inputVector(), MemorySpace::Global));
  Coord rowOrigin = b.unfold(b.fromIndex(kIndex, b.coordType(p.reductionDim, c.blockK)), 1);
  Value colOk = b.cmpi(arith::CmpIPredicate::ult,
                       b.toIndex(b.add(b.unfold(bi, 1), b.unfold(copyInner, 1))), b.index(p.m));
  copyBounded(a, dy, shared, rowOrigin, b.unfold(bi, 8), colOk, positions, copyOuter, copyInner);
}

GemmTile::ConvColumn GemmTile::convColumn(const GemmValues &op, Coord bj, Coord copyVector) {
  const kernels::Conv2dProblem &conv = *op.conv;
  int64_t tapColumns = kernels::conv2dWeightTapChannels(conv);
  // Column n of dw's R * S * C' is tap n / C''s channel n % C' (C'
  // padded to whole k-tiles: zeros past C).
  Value column = b.toIndex(b.add(b.unfold(bj, 1), b.unfold(copyVector, 1)));
  Value tap = b.divui(column, b.index(tapColumns));
  Value channel = b.remui(column, b.index(tapColumns));
  return {
      b.andi(b.cmpi(arith::CmpIPredicate::ult, column, b.index(p.n)),
             b.cmpi(arith::CmpIPredicate::ult, channel, b.index(conv.c))),
      b.divui(channel, b.index(8)),
      b.subi(b.muli(b.divui(tap, b.index(conv.s)), b.index(conv.dilationH)), b.index(conv.padH)),
      b.subi(b.muli(b.remui(tap, b.index(conv.s)), b.index(conv.dilationW)), b.index(conv.padW))};
}

void GemmTile::convGatherX(const GemmValues &op, const ConvColumn &column, Value kIndex,
                           Tensor shared, Coord copyRow, Coord copyVector) {
  const kernels::Conv2dProblem &conv = *op.conv;
  int64_t outH = kernels::conv2dOutputHeight(conv), outW = kernels::conv2dOutputWidth(conv);
  int64_t positions = kernels::conv2dOutputPositions(conv);
  int64_t rowsPerPass = c.threads() / bOp.tileVectors(c.blockK);
  auto x = cast<Tensor>(op.b);
  Value first = b.addi(b.muli(kIndex, b.index(c.blockK)), b.toIndex(b.unfold(copyRow, 1)));
  for (int64_t pass = 0; pass < c.blockK / rowsPerPass; ++pass) {
    // The output position (n, p, q) and the input position its tap reads.
    Value position = pass ? b.addi(first, b.index(pass * rowsPerPass)) : first;
    Value inImage = b.remui(position, b.index(outH * outW));
    Coord place = copyRow;
    if (pass > 0)
      place = b.add(place, b.constant(pass * rowsPerPass, copyRow.getType()));
    copyPixel(
        conv, x,
        b.andi(column.inside, b.cmpi(arith::CmpIPredicate::ult, position, b.index(positions))),
        b.divui(position, b.index(outH * outW)),
        b.addi(b.muli(b.divui(inImage, b.index(outW)), b.index(conv.strideH)), column.h),
        b.addi(b.muli(b.remui(inImage, b.index(outW)), b.index(conv.strideW)), column.w),
        column.vector, shared, {place, copyVector});
  }
}

void GemmTile::convLoadGatheredB(const GemmValues &op, Coord bi, Value column, Value kIndex,
                                 Tensor tiles, Coord stage, Coord part, Barriers full, Value slot) {
  const kernels::Conv2dProblem &conv = *op.conv;
  int64_t outH = kernels::conv2dOutputHeight(conv), outW = kernels::conv2dOutputWidth(conv);
  // Column n of dw's R * S * C is tap n / C's channel n % C (C a group's,
  // of the group of the tile's rows; padded groups: C' columns a tap, rows
  // K' a group, the channels past the group's read and left unreduced).
  int64_t groupInputs = kernels::conv2dGroupInputs(conv);
  int64_t tapColumns = kernels::conv2dWeightTapChannels(conv);
  Value tap = b.divui(column, b.index(tapColumns));
  Value channel = b.remui(column, b.index(tapColumns));
  if (conv.groups > 1) {
    Value group =
        b.divui(b.toIndex(b.unfold(bi, 1)), b.index(kernels::conv2dWeightRows(conv) / conv.groups));
    channel = b.addi(b.muli(group, b.index(groupInputs)), channel);
  }
  Value r = b.divui(tap, b.index(conv.s)), s = b.remui(tap, b.index(conv.s));
  // The k-tile's first output position (n, p, q) (a part's k-tiles follow
  // the parts' before it) and the input position its first tap reads
  // (negative in the padding); positions past the last image read zeros.
  if (batch)
    kIndex = b.addi(b.muli(b.toIndex(batch), b.index(p.k / c.blockK)), kIndex);
  Value first = b.muli(kIndex, b.index(c.blockK));
  Value image = b.divui(first, b.index(outH * outW));
  Value inImage = b.remui(first, b.index(outH * outW));
  Value row =
      b.subi(b.muli(b.divui(inImage, b.index(outW)), b.index(conv.strideH)), b.index(conv.padH));
  Value col =
      b.subi(b.muli(b.remui(inImage, b.index(outW)), b.index(conv.strideW)), b.index(conv.padW));
  SmallVector<Coord> at{stage};
  if (part)
    at.push_back(part);
  b.tmaLoadIm2col(cast<Im2colMap>(op.bMap), image, row, col, channel,
                  b.muli(r, b.index(conv.dilationH)), b.muli(s, b.index(conv.dilationW)), tiles, at,
                  full, slot);
}

/// Tile `linear` of a grid of `tilesM` x `tilesN` tiles, row by row, as its
/// row and column, in grouped order with `raster` rows a group (where that
/// divides the rows) so that the blocks running at once share tiles in L2.
std::pair<Value, Value> GemmTile::tilePlace(Value linear, int64_t tilesM, int64_t tilesN) {
  if (c.raster > 1 && tilesM % c.raster == 0) {
    // Linear tile -> group of `raster` rows, then column, then row within
    // the group; all divisions by constants.
    Value groupWidth = b.index(c.raster * tilesN);
    Value raster = b.index(c.raster);
    Value group = b.divui(linear, groupWidth);
    Value inside = b.remui(linear, groupWidth);
    return {b.addi(b.muli(group, raster), b.remui(inside, raster)), b.divui(inside, raster)};
  }
  return {b.divui(linear, b.index(tilesN)), b.remui(linear, b.index(tilesN))};
}

void GemmTile::forEachGroupTile(const GemmValues &op,
                                function_ref<void(Coord, Coord, Value, Value)> body, Value first,
                                Value stride, Value start, Value step) {
  auto ends = cast<Tensor>(op.groups);
  Type indexType = b.getOpBuilder().getIndexType();
  Value tilesN = b.index(ceilDiv(p.n, c.blockN));
  // Carried: the group's first row and the linear index of its first tile.
  b.forLoop(b.index(0), b.index(p.groups), b.index(1), {b.index(0), b.index(0)},
            [&](Value g, ValueRange carried) {
              Value begin = carried[0], tileBase = carried[1];
              Coord at = b.fromIndex(g, b.coordType(p.groupDim));
              // Row ends out of order or past M are held to [begin, M].
              Value end = b.create<arith::IndexCastOp>({}, indexType, b.load(ends, {at}));
              end = b.create<arith::MinSIOp>({}, b.create<arith::MaxSIOp>({}, end, begin),
                                             b.index(p.m));
              Value rowTiles = b.divui(b.addi(b.subi(end, begin), b.index(c.blockM - 1)),
                                       b.index(c.blockM));
              Value next = b.addi(tileBase, b.muli(rowTiles, tilesN));
              // This block's first tile at or after the group's first.
              Value behind = b.subi(b.create<arith::MaxUIOp>({}, tileBase, start), start);
              Value lower = b.addi(
                  start, b.muli(b.divui(b.addi(behind, b.subi(step, b.index(1))), step), step));
              b.forLoop(lower, next, step, {}, [&](Value t, ValueRange) {
                Value inGroup = b.subi(t, tileBase);
                group = at;
                groupEnd = b.fromIndex(end, b.coordType(p.rowDim));
                // Bands of `raster` tile rows (fewer in the group's last),
                // column by column, so that the blocks running at once
                // share the group's B tiles in L2.
                Value row = b.divui(inGroup, tilesN), col = b.remui(inGroup, tilesN);
                if (c.raster > 1) {
                  Value band = b.index(c.raster);
                  Value bandTiles = b.muli(band, tilesN);
                  Value bandIndex = b.divui(inGroup, bandTiles);
                  Value inBand = b.remui(inGroup, bandTiles);
                  Value bandRows = b.create<arith::MinUIOp>(
                      {}, band, b.subi(rowTiles, b.muli(bandIndex, band)));
                  row = b.addi(b.muli(bandIndex, band), b.remui(inBand, bandRows));
                  col = b.divui(inBand, bandRows);
                }
                Coord bi = b.fromIndex(b.addi(begin, b.muli(row, b.index(c.blockM))),
                                       b.coordType(p.rowDim));
                body(bi, b.fromIndex(col, b.coordType(p.colDim, c.blockN)), col,
                     b.divui(b.subi(t, first), stride));
                group = groupEnd = Coord();
                return SmallVector<Value>{};
              });
              return SmallVector<Value>{end, next};
            });
}

void GemmTile::forEachReductionGroupTile(const GemmValues &op,
                                         function_ref<void(Coord, Coord, Value, Value)> body,
                                         Value first, Value stride, Value start, Value step) {
  auto ends = cast<Tensor>(op.groups);
  Type indexType = b.getOpBuilder().getIndexType();
  int64_t tilesN = ceilDiv(p.n, c.blockN), groupTiles = ceilDiv(p.m, c.blockM) * tilesN;
  // An end of the table, held to [0, K].
  auto endAt = [&](Value g) {
    Value end = b.create<arith::IndexCastOp>(
        {}, indexType, b.load(ends, {b.fromIndex(g, b.coordType(p.groupDim))}));
    return b.create<arith::MinSIOp>({}, b.create<arith::MaxSIOp>({}, end, b.index(0)),
                                    b.index(p.k));
  };
  // Carried: the ring's stages of the block's tiles so far.
  b.forLoop(start, b.index(p.groups * groupTiles), step, {b.index(0)},
            [&](Value t, ValueRange carried) {
              Value g = b.divui(t, b.index(groupTiles));
              Value inGroup = b.remui(t, b.index(groupTiles));
              // Group g's rows of K run from group g - 1's end (0 for the
              // first) to its own, none where the ends are out of order.
              Value isFirst = b.cmpi(arith::CmpIPredicate::eq, g, b.index(0));
              Value previous = b.subi(b.create<arith::MaxUIOp>({}, g, b.index(1)), b.index(1));
              Value begin = b.create<arith::SelectOp>({}, isFirst, b.index(0), endAt(previous));
              Value end = b.create<arith::MaxSIOp>({}, endAt(g), begin);
              Value kTiles =
                  b.divui(b.addi(b.subi(end, begin), b.index(c.blockK - 1)), b.index(c.blockK));
              batch = b.fromIndex(g, b.coordType(p.groupDim));
              reduction = {begin, end, kTiles, carried[0]};
              Value col = b.remui(inGroup, b.index(tilesN));
              body(b.fromIndex(b.divui(inGroup, b.index(tilesN)), b.coordType(p.rowDim, c.blockM)),
                   b.fromIndex(col, b.coordType(p.colDim, c.blockN)), col,
                   b.divui(b.subi(t, first), stride));
              batch = Coord();
              reduction = {};
              return SmallVector<Value>{b.addi(carried[0], kTiles)};
            });
}

void GemmTile::forEachStreamKUnit(function_ref<void(Coord, Coord, Value, Value)> body) {
  // The walk's units are clusters and their tiles (C consecutive tiles
  // along M), the blocks of a cluster taking the same k-tiles of its tiles
  // (the rank's row) so that they share B's.
  int64_t cluster = c.cluster, clusters = c.persistent / cluster;
  int64_t kTiles = ceilDiv(p.k, c.blockK);
  int64_t tilesM = ceilDiv(ceilDiv(p.m, c.blockM), cluster), tilesN = ceilDiv(p.n, c.blockN);
  int64_t tilesPerProblem = tilesM * tilesN;
  int64_t shared = kernels::gemmStreamKTiles(p, c);
  int64_t whole = tilesPerProblem * p.batch - shared, wholeRounds = whole / clusters;
  int64_t iterations = shared * kTiles;
  Value block = b.linearId(LinearId::BlockX);
  Value self = cluster > 1 ? b.divui(block, b.index(cluster)) : block;
  Value rank = cluster > 1 ? b.linearId(LinearId::ClusterBlock) : b.index(0);
  // The cluster's k-tiles [begin, end) of the shared tiles' (every
  // cluster has one at least: checkGemm), tiles firstTile to lastTile.
  Value begin = b.divui(b.muli(self, b.index(iterations)), b.index(clusters));
  Value end = b.divui(b.muli(b.addi(self, b.index(1)), b.index(iterations)), b.index(clusters));
  Value firstTile = b.divui(begin, b.index(kTiles));
  Value lastTile = b.divui(b.subi(end, b.index(1)), b.index(kTiles));
  Value units = b.index(wholeRounds);
  if (shared > 0)
    units = b.addi(units, b.addi(b.subi(lastTile, firstTile), b.index(1)));
  auto min = [&](Value x, Value y) { return b.create<arith::MinUIOp>({}, x, y); };
  auto max = [&](Value x, Value y) { return b.create<arith::MaxUIOp>({}, x, y); };
  // Carried: the ring's stages of the block's units so far.
  b.forLoop(b.index(0), units, b.index(1), {b.index(0)}, [&](Value u, ValueRange carried) {
    Value isWhole = b.cmpi(arith::CmpIPredicate::ult, u, b.index(wholeRounds));
    // Shared tile lastTile - j (j counts the shared units from 0): its
    // k-tiles within [begin, end).
    Value j = b.subi(max(u, b.index(wholeRounds)), b.index(wholeRounds));
    Value sharedTile = b.subi(lastTile, min(j, lastTile));
    Value tileBegin = b.muli(sharedTile, b.index(kTiles));
    Value kBegin = b.subi(max(begin, tileBegin), tileBegin);
    Value kEnd = b.subi(min(end, b.addi(tileBegin, b.index(kTiles))), tileBegin);
    // The cluster holding the tile's first k-tile: the last whose begin,
    // x * I / X, is at most the tile's first k-tile i: ((i + 1) X - 1) / I.
    Value holder =
        b.divui(b.subi(b.muli(b.addi(tileBegin, b.index(1)), b.index(clusters)), b.index(1)),
                b.index(std::max<int64_t>(iterations, 1)));
    Value tile = b.create<arith::SelectOp>({}, isWhole, b.addi(self, b.muli(u, b.index(clusters))),
                                           b.addi(b.index(whole), sharedTile));
    unit.kBegin = b.create<arith::SelectOp>({}, isWhole, b.index(0), kBegin);
    unit.kTiles = b.create<arith::SelectOp>({}, isWhole, b.index(kTiles), b.subi(kEnd, kBegin));
    unit.stagesBefore = carried[0];
    unit.finishes = b.create<arith::OrIOp>({}, isWhole,
                                           b.cmpi(arith::CmpIPredicate::eq, kEnd, b.index(kTiles)));
    unit.firstCluster = b.create<arith::SelectOp>({}, isWhole, self, holder);
    unit.cluster = self;
    unit.rank = rank;
    Value inProblem = tile;
    if (p.batch > 1) {
      batch = b.fromIndex(b.divui(tile, b.index(tilesPerProblem)), b.coordType(p.batchDim));
      inProblem = b.remui(tile, b.index(tilesPerProblem));
    }
    auto [row, col] = tilePlace(inProblem, tilesM, tilesN);
    body(b.fromIndex(b.addi(b.muli(row, b.index(cluster)), rank), b.coordType(p.rowDim, c.blockM)),
         b.fromIndex(col, b.coordType(p.colDim, c.blockN)), col, u);
    Value next = b.addi(carried[0], unit.kTiles);
    unit = {};
    batch = Coord();
    return SmallVector<Value>{next};
  });
}

void GemmTile::streamKEpilogue(const GemmValues &op, Coord bi, Coord bj, ArrayRef<Coord> warp,
                               function_ref<Fragment(int64_t)> accumulated) {
  MLIRContext *ctx = b.getContext();
  auto partials = cast<Tensor>(op.partials), flags = cast<Tensor>(op.flags);
  int64_t fragments = c.wgmmaN() / 8, threads = 32 * c.warpsM;
  FragmentType fc = fragment(FragmentOperand::C, p.rowDim, p.colDim, Float32Type::get(ctx));
  Value thread = b.linearId(LinearId::Thread);
  // The compute threads follow the copy warpgroup's 128.
  Coord self = b.fromIndex(b.subi(thread, b.index(128)), b.coordType(kAccThread));
  Value block = b.linearId(LinearId::BlockX);
  Value set = b.create<arith::ConstantIntOp>({}, 1, 32);
  auto fragmentAt = [&](int64_t ni) { return b.constant(ni, b.coordType(kAccFragment)); };
  b.ifThenElse(
      unit.finishes,
      [&] {
        SmallVector<Value> own;
        for (int64_t ni = 0; ni < fragments; ++ni)
          own.push_back(b.fragmentToVector(accumulated(ni)));
        // Each earlier cluster's block of this rank's sums once its flag is
        // set, in cluster order: the same additions in every run.
        scf::ForOp sums = b.forLoop(
            unit.firstCluster, unit.cluster, b.index(1), own, [&](Value other, ValueRange carried) {
              Value peer =
                  c.cluster > 1 ? b.addi(b.muli(other, b.index(c.cluster)), unit.rank) : other;
              Coord at = b.fromIndex(peer, b.coordType(kStreamKBlock));
              b.waitSignal(set, flags, {at});
              SmallVector<Value> added;
              for (int64_t ni = 0; ni < fragments; ++ni)
                added.push_back(b.addf(carried[ni], b.load(partials, {at, fragmentAt(ni), self})));
              return added;
            });
        warpgroupEpilogue(
            op, bi, bj, warp, p.rowDim,
            [&](int64_t ni) { return b.vectorToFragment(sums.getResult(ni), fc); }, 0, fragments);
      },
      [&] {
        Coord own = b.fromIndex(block, b.coordType(kStreamKBlock));
        for (int64_t ni = 0; ni < fragments; ++ni)
          b.store(b.fragmentToVector(accumulated(ni)), partials, {own, fragmentAt(ni), self});
        // Every compute thread's sums are written before the flag says so.
        b.create<NamedBarrierOp>({}, 1, threads);
        b.ifThen(b.cmpi(arith::CmpIPredicate::eq, thread, b.index(128)),
                 [&] { b.signal(set, flags, {own}); });
      });
}

std::pair<Coord, Coord> GemmTile::blockCoords() {
  // The blocks splitting a tile's reduction are consecutive along x.
  Value col = b.linearId(LinearId::BlockX);
  if (c.splitK > 1)
    col = b.divui(col, b.index(c.splitK));
  Value row = b.linearId(LinearId::BlockY);
  int64_t tilesM = ceilDiv(p.m, c.blockM), tilesN = ceilDiv(p.n, c.blockN);
  if (c.raster > 1 && tilesM % c.raster == 0)
    std::tie(row, col) = tilePlace(b.addi(b.muli(row, b.index(tilesN)), col), tilesM, tilesN);
  // The problems of a batch go along z.
  if (p.batch > 1)
    batch = b.fromIndex(b.linearId(LinearId::BlockZ), b.coordType(p.batchDim));
  return {b.fromIndex(row, b.coordType(p.rowDim, c.blockM)),
          b.fromIndex(col, b.coordType(p.colDim, c.blockN))};
}

GemmTile::TileStore GemmTile::tileStore(const GemmValues &op, ArrayRef<Coord> warpAt,
                                        StringRef rows, StringRef cols) {
  auto extent = [&](StringRef dim) { return dim == p.rowDim ? p.m : p.n; };
  VectorType lane = VectorType::get({4}, Float32Type::get(b.getContext()));
  SmallVector<Coord> at = withBatch(warpAt);
  // A grouped tile's rows end at its group's end.
  auto bound = [&](StringRef dim) {
    return groupEnd && dim == p.rowDim ? groupEnd : b.constant(extent(dim), b.coordType(dim));
  };
  TileStore tile{b.subscript(cast<Tensor>(op.d), at),
                 Tensor(),
                 Tensor(),
                 Tensor(),
                 op.pre ? b.subscript(cast<Tensor>(op.pre), at) : Tensor(),
                 b.broadcast(op.alpha, lane),
                 Value(),
                 Bounds{bound(rows), bound(cols)}};
  if (p.readsC) {
    tile.c = b.subscript(cast<Tensor>(op.c), at);
    tile.beta = b.broadcast(op.beta, lane);
  }
  for (auto [vector, view] : {std::pair{op.bias, &tile.bias}, std::pair{op.scale, &tile.scale}})
    if (vector) {
      auto tensor = cast<Tensor>(vector);
      *view = b.subscript(b.view(tensor, broadcastType(b.getContext(), p, tensor.getType())), at);
    }
  return tile;
}

/// Fragments whose epilogue reads are issued together: the compiler cannot
/// tell D's stores from the vectors and C, so a read issued between stores
/// would wait out its latency alone.
constexpr size_t kEpilogueReadBatch = 8;
// A staging tile holds one batch of a warp's fragments.
static_assert(kernels::kStagedColumns == 8 * kEpilogueReadBatch &&
              kernels::kStagedRows == 16);

void GemmTile::storeResults(const TileStore &tile, ArrayRef<Placed> fragments,
                            function_ref<void(Fragment, size_t)> store,
                            function_ref<void(Fragment, size_t)> storePre) {
  std::vector<kernels::EpilogueStep> steps = epilogueSteps(p);
  // alpha * acc + bias in one fused multiply-add where the bias comes first.
  bool biasFirst = !steps.empty() && steps.front() == kernels::EpilogueStep::Bias;
  for (size_t begin = 0; begin < fragments.size(); begin += kEpilogueReadBatch) {
    ArrayRef<Placed> group =
        fragments.slice(begin, std::min(kEpilogueReadBatch, fragments.size() - begin));
    // Each fragment's scale, bias and C (where the epilogue reads them), as
    // f32 vectors in the fragment's register order.
    SmallVector<std::array<Value, 3>> reads;
    for (const Placed &f : group) {
      auto read = [&](Tensor tensor) -> Value {
        if (!tensor)
          return {};
        return b.fragmentToVector(b.loadFragment(tensor, f.place, f.acc.getType(), tile.bounds));
      };
      reads.push_back({read(tile.scale), read(tile.bias), read(tile.c)});
    }
    for (size_t i = 0; i < group.size(); ++i) {
      const Placed &f = group[i];
      auto [scale, bias, c] = reads[i];
      Value acc = b.fragmentToVector(f.acc);
      Value result = biasFirst ? b.fmaf(tile.alpha, acc, bias) : b.mulf(tile.alpha, acc);
      bool preStored = !tile.pre;
      for (kernels::EpilogueStep step : ArrayRef(steps).drop_front(biasFirst ? 1 : 0)) {
        // The value the first activation takes, kept for its gradient.
        if (!preStored && kernels::isActivation(step)) {
          Fragment pre = b.vectorToFragment(result, f.acc.getType());
          if (storePre)
            storePre(pre, begin + i);
          else
            b.storeFragment(pre, tile.pre, f.place, tile.bounds);
          preStored = true;
        }
        switch (step) {
        case kernels::EpilogueStep::Scale:
          result = b.mulf(result, scale);
          break;
        case kernels::EpilogueStep::Bias:
          result = b.addf(result, bias);
          break;
        case kernels::EpilogueStep::Residual:
          result = b.addf(result, b.mulf(tile.beta, c));
          break;
        case kernels::EpilogueStep::Relu:
        case kernels::EpilogueStep::GeluTanh:
        case kernels::EpilogueStep::GeluErf:
        case kernels::EpilogueStep::Silu:
          result = b.activation(activationOf(step), result);
          break;
        }
      }
      Fragment out = b.vectorToFragment(result, f.acc.getType());
      if (store)
        store(out, begin + i);
      else
        b.storeFragment(out, tile.d, f.place, tile.bounds);
    }
  }
}

void GemmTile::storeStaged(const GemmValues &op, const TileStore &tile, ArrayRef<Coord> at,
                           StringRef rowDim, StringRef colDim, ArrayRef<Placed> fragments,
                           int64_t nBegin) {
  int64_t lanesVector = 16 / kernels::dtypeBytes(p.output);
  // The compute warps follow the copy warpgroup's 4.
  Coord slab = b.fromIndex(b.subi(b.linearId(LinearId::Warp), b.index(4)),
                           b.coordType(kStagingWarp));
  Tensor mine = b.subscript(staging, {slab}), mineVectors = b.subscript(stagingVectors, {slab});
  // D (or the pre-activation, which has D's type) as 16-byte vectors along
  // its rows, at the warp's tile.
  auto vectorsAt = [&](Value tensor) {
    auto t = cast<Tensor>(tensor);
    SmallVector<TensorDim> dims(t.getType().getDims());
    for (TensorDim &dim : dims)
      dim.stride = dim.stride == 1 ? 1 : dim.stride / lanesVector;
    dims.back().fold = lanesVector;
    dims.back().size /= lanesVector;
    return b.subscript(
        b.view(t, SpioTensorType::get(b.getContext(), dims,
                                      VectorType::get({lanesVector}, t.getType().getElementType()),
                                      MemorySpace::Global, SwizzleAttrInterface())),
        withBatch(at));
  };
  Tensor outD = vectorsAt(op.d), outPre = tile.pre ? vectorsAt(op.pre) : Tensor();
  // The warp's first row and the tile's first column, for the bounds.
  Coord rowOrigin, colOrigin;
  for (Coord c : at) {
    Coord absolute = b.unfold(c, 1);
    Coord &origin = c.getType().getDim() == rowDim ? rowOrigin : colOrigin;
    origin = origin ? b.add(origin, absolute) : absolute;
  }
  Coord rows = tile.bounds.rows, cols = tile.bounds.cols;
  Value lane = b.linearId(LinearId::Lane);
  auto stage = [&](Fragment value, size_t i) {
    b.storeFragment(value, mine, {b.constant(int64_t(i), b.coordType(colDim, 8))}, std::nullopt);
  };
  // The staging tile's `count` fragments (from column chunk `chunk` on)
  // copied out to `out`, a lane copying vectors l, l + 32, ... of the 16
  // rows.
  auto copyOut = [&](Tensor out, int64_t count, Coord chunk) {
    b.warpSync();
    int64_t perRow = count * 8 / lanesVector, vectors = 16 * perRow;
    for (int64_t v = 0; v < vectors; v += 32) {
      Value index = b.addi(lane, b.index(v));
      auto copy = [&] {
        Coord row = b.fromIndex(b.divui(index, b.index(perRow)), b.coordType(rowDim));
        Coord column = b.fromIndex(b.remui(index, b.index(perRow)),
                                   b.coordType(colDim, lanesVector));
        Value value = b.load(mineVectors, {row, column});
        Value inside = b.andi(
            b.cmp(CmpPredicate::lt, b.add(rowOrigin, row), rows),
            b.cmp(CmpPredicate::lt,
                  b.add(b.add(colOrigin, b.unfold(chunk, 1)), b.unfold(column, 1)), cols));
        b.ifThen(inside, [&] { b.store(value, out, {row, chunk, column}); });
      };
      if (v + 32 <= vectors)
        copy();
      else
        b.ifThen(b.cmpi(arith::CmpIPredicate::ult, index, b.index(vectors)), copy);
    }
    b.warpSync();
  };
  for (size_t first = 0; first < fragments.size(); first += kEpilogueReadBatch) {
    ArrayRef<Placed> group =
        fragments.slice(first, std::min(kEpilogueReadBatch, fragments.size() - first));
    Coord chunk = b.constant(nBegin + int64_t(first), b.coordType(colDim, 8));
    // The pre-activations wait in registers while D has the staging tile.
    SmallVector<Fragment> pres;
    storeResults(tile, group, stage, [&](Fragment pre, size_t) { pres.push_back(pre); });
    copyOut(outD, int64_t(group.size()), chunk);
    if (pres.empty())
      continue;
    for (auto [i, pre] : llvm::enumerate(pres))
      stage(pre, i);
    copyOut(outPre, int64_t(group.size()), chunk);
  }
}

void GemmTile::epilogue(const GemmValues &op, Coord bi, Coord bj, ArrayRef<Coord> warp,
                        function_ref<Fragment(int64_t, int64_t)> accumulated, int64_t mTiles,
                        int64_t nTiles) {
  SmallVector<Coord> at{bi, bj};
  at.append(warp.begin(), warp.end());
  TileStore tile = tileStore(op, at, p.rowDim, p.colDim);
  SmallVector<Placed> fragments;
  for (int64_t mi = 0; mi < mTiles; ++mi)
    for (int64_t ni = 0; ni < nTiles; ++ni)
      fragments.push_back({{b.constant(mi, b.coordType(p.rowDim, 16)),
                            b.constant(ni, b.coordType(p.colDim, 8))},
                           accumulated(mi, ni)});
  storeResults(tile, fragments);
}

void GemmTile::warpgroupEpilogue(const GemmValues &op, Coord bi, Coord bj, ArrayRef<Coord> warp,
                                 StringRef rowDim, function_ref<Fragment(int64_t)> accumulated,
                                 int64_t nBegin, int64_t nEnd) {
  SmallVector<Coord> at{bi, bj};
  at.append(warp.begin(), warp.end());
  StringRef colDim = rowDim == p.rowDim ? p.colDim : p.rowDim;
  TileStore tile = tileStore(op, at, rowDim, colDim);
  SmallVector<Placed> fragments;
  for (int64_t ni = nBegin; ni < nEnd; ++ni)
    fragments.push_back({{b.constant(ni, b.coordType(colDim, 8))}, accumulated(ni)});
  if (staging)
    return storeStaged(op, tile, at, rowDim, colDim, fragments, nBegin);
  storeResults(tile, fragments);
}

void GemmTile::buildMmaSync(const GemmValues &op) {
  MLIRContext *ctx = b.getContext();
  StringRef I = p.rowDim, J = p.colDim, K = p.reductionDim;
  int64_t warpM = c.blockM / c.warpsM, warpN = c.blockN / c.warpsN;
  int64_t mTiles = warpM / 16, nTiles = warpN / 8, accs = mTiles * nTiles;
  FragmentType fa = fragment(FragmentOperand::A, I, K, input);
  FragmentType fb = fragment(FragmentOperand::B, K, J, input);
  FragmentType fc = fragment(FragmentOperand::C, I, J, Float32Type::get(ctx));

  Tensor sharedA = b.alloc(sharedType(a));
  Tensor sharedB = b.alloc(sharedType(bOp));
  auto [bi, bj] = blockCoords();
  SmallVector<Coord> warp = b.decompose(b.linearId(LinearId::Warp), {c.warpsM, c.warpsN},
                                        {b.coordType(I, warpM), b.coordType(J, warpN)});
  Value thread = b.linearId(LinearId::Thread);
  SmallVector<Coord> copyA, copyB;
  for (auto [o, copy] : {std::pair{&a, &copyA}, std::pair{&bOp, &copyB}}) {
    int64_t vectorsPerRow = o->tileVectors(c.blockK);
    *copy = b.decompose(thread, {c.threads() / vectorsPerRow, vectorsPerRow},
                        {b.coordType(o->outerDim()), b.coordType(o->innerDim(), 8)});
  }
  SmallVector<Value> inits(accs, b.fill(b.f32(0.0), fc));
  Value kTiles = b.index(ceilDiv(p.k, c.blockK));
  // An implicit-GEMM convolution gathers A from x (dgrad: dy), its rows'
  // positions worked out once, and reads B from the k-tile's tap of w;
  // wgrad reads dy as A and gathers B from x, each thread's column's tap
  // worked out once.
  bool wgrad = op.conv && op.conv->pass == kernels::ConvPass::Wgrad;
  SmallVector<ConvRow> convRowsA;
  std::optional<ConvColumn> convColumnB;
  if (wgrad)
    convColumnB = convColumn(op, bj, copyB[1]);
  else if (op.conv)
    convRowsA = convRows(op, bi, copyA[0]);

  // The reduction loop, one k-tile per step, accumulators carried: load,
  // wait, then per 16-deep step the warp's A and B fragments by ldmatrix
  // and the mma of its tile. One stage; spio-pipeline overlaps them.
  Tensor globalA = cast<Tensor>(op.a), globalB = cast<Tensor>(op.b);
  scf::ForOp loop =
      b.forLoop(b.index(0), kTiles, b.index(1), inits, [&](Value kt, ValueRange carried) {
        if (wgrad) {
          // A part's k-tiles follow the parts' before it.
          Value kIndex = batch ? b.addi(b.muli(b.toIndex(batch), kTiles), kt) : kt;
          convCopyDy(op, kIndex, bi, sharedA, copyA[0], copyA[1]);
          convGatherX(op, *convColumnB, kIndex, sharedB, copyB[0], copyB[1]);
        } else if (op.conv) {
          ConvTap tap = convTap(op, b.toIndex(bj), kt);
          convGatherA(op, convRowsA, tap, sharedA, copyA[0], copyA[1]);
          convCopyWeights(op, convWeights(op, tap), bj, sharedB, copyB[0], copyB[1]);
        } else {
          Coord kTile = b.fromIndex(kt, b.coordType(K, c.blockK));
          copyTile(a, globalA, sharedA, bi, kTile, copyA[0], copyA[1]);
          copyTile(bOp, globalB, sharedB, bj, kTile, copyB[0], copyB[1]);
        }
        b.asyncCommit();
        b.asyncWait(0);
        b.barrier();
        SmallVector<Fragment> acc;
        for (Value v : carried)
          acc.push_back(cast<Fragment>(v));
        for (int64_t kk = 0; kk < c.blockK / 16; ++kk) {
          Coord kStep = b.constant(kk, b.coordType(K, 16));
          SmallVector<Fragment> rowsA, colsB;
          for (int64_t mi = 0; mi < mTiles; ++mi)
            rowsA.push_back(b.ldmatrix(sharedA, {warp[0], b.constant(mi, b.coordType(I, 16)), kStep},
                                       fa, /*transpose=*/!a.kContiguous));
          for (int64_t ni = 0; ni < nTiles; ++ni)
            colsB.push_back(b.ldmatrix(sharedB, {warp[1], b.constant(ni, b.coordType(J, 8)), kStep},
                                       fb, /*transpose=*/!bOp.kContiguous));
          for (int64_t mi = 0; mi < mTiles; ++mi)
            for (int64_t ni = 0; ni < nTiles; ++ni) {
              // Serpentine over n so consecutive mmas share an operand.
              int64_t n = mi % 2 ? nTiles - 1 - ni : ni;
              int64_t t = mi * nTiles + n;
              acc[t] = b.mma(rowsA[mi], colsB[n], acc[t]);
            }
        }
        b.barrier();
        return SmallVector<Value>(acc.begin(), acc.end());
      });
  loop->setAttr("spio.stages", b.getOpBuilder().getI64IntegerAttr(c.stages));
  epilogue(op, bi, bj, warp, [&](int64_t mi, int64_t ni) {
    return cast<Fragment>(loop.getResult(mi * nTiles + ni));
  }, mTiles, nTiles);
}

void GemmTile::buildWarpSpecialized(const GemmValues &op) {
  StringRef K = p.reductionDim;
  // The warpgroups' rows run along `rowDim` (M, or N with A and B
  // swapped), wgmma's N along the other.
  StringRef rowDim = c.swapAB ? p.colDim : p.rowDim;
  StringRef colDim = c.swapAB ? p.rowDim : p.colDim;
  int64_t stages = c.stages, consumers = c.warpsM / 4, splitK = c.splitK;
  // The operands' tiles come by tiled copies or, for a convolution, one by
  // im2col copies: fprop's and dgrad's A, wgrad's B (where x is not read as
  // a matrix).
  bool gathersB =
      op.conv && op.conv->pass == kernels::ConvPass::Wgrad && isa<Im2colMapType>(op.bMap.getType());
  bool gathersA = op.conv && op.conv->pass != kernels::ConvPass::Wgrad;
  auto boxOf = [](Value map) {
    if (auto im2col = dyn_cast<Im2colMapType>(map.getType()))
      return im2col.getBox();
    return cast<TensorMapType>(map.getType()).getBox();
  };
  SpioTensorType boxA = boxOf(op.aMap), boxB = boxOf(op.bMap);
  // With a cluster of C blocks (consecutive tiles along M), each block
  // loads 1 / C of the B tile the blocks share and multicasts it to all;
  // blocks splitting K form a cluster too, to add their sums.
  int64_t cluster = c.cluster;
  MLIRContext *ctx = b.getContext();
  if (cluster > 1 || splitK > 1)
    op.op->getParentOfType<gpu::GPUFuncOp>()->setAttr(
        NVVM::NVVMDialect::getClusterDimAttrName(),
        DenseI32ArrayAttr::get(ctx, {int32_t(cluster * splitK), 1, 1}));
  // A ring of `stages` tiles of A and B, each with a barrier that TMA
  // fills (full) and one the compute warps release (empty). A stage holds
  // an operand's boxes side by side along its rows: a K-major B's C parts
  // (one a block of the cluster), an M- or N-major tile's blocks of 64.
  auto boxes = [&](const Operand &o) -> std::pair<int64_t, int64_t> {
    int64_t rows = o.name == 'a' ? c.blockM : c.blockN;
    int64_t count = !o.kContiguous ? rows / kMNBox : o.name == 'a' ? 1 : cluster;
    return {count, rows / count};
  };
  auto [boxesA, foldA] = boxes(a);
  auto [boxesB, foldB] = boxes(bOp);
  auto ring = [&](SpioTensorType box, StringRef rows, int64_t parts, int64_t fold) {
    SmallVector<TensorDim> dims{{StringAttr::get(ctx, kStage), 1, stages, 0}};
    if (parts > 1)
      dims.push_back({StringAttr::get(ctx, rows), fold, parts, box.getCosize()});
    for (const TensorDim &d : box.getDims())
      dims.push_back(d);
    dims[0].stride = parts * box.getCosize();
    return b.alloc(SpioTensorType::get(ctx, dims, box.getElementType(), MemorySpace::Shared,
                                       box.getSwizzle()));
  };
  Tensor tilesA = ring(boxA, a.rowDim, boxesA, foldA);
  Tensor tilesB = ring(boxB, bOp.rowDim, boxesB, foldB);
  // Blocks splitting K leave their partial sums here for the cluster to
  // add: each compute thread's accumulator, fragment by fragment, the
  // threads' 16-byte values side by side.
  int64_t fragments = c.wgmmaN() / 8;
  Tensor partials;
  if (splitK > 1)
    partials = b.alloc(b.tensorType({{kAccFragment, 1, fragments},
                                     {kAccThread, 1, 128 * consumers}},
                                    VectorType::get({4}, Float32Type::get(ctx)),
                                    MemorySpace::Shared));
  if (kernels::gemmStagesResults(p, c)) {
    // A warp's 16 rows by 64 columns of D, each row a 16-byte vector
    // longer so that the fragments' rows fall in different banks.
    int64_t lanesVector = 16 / kernels::dtypeBytes(p.output);
    int64_t rowsTile = kernels::kStagedRows, columns = kernels::kStagedColumns;
    int64_t pitch = columns + lanesVector;
    StringAttr warpDim = StringAttr::get(ctx, kStagingWarp);
    StringAttr rows = StringAttr::get(ctx, rowDim), cols = StringAttr::get(ctx, colDim);
    Type out = typeOf(ctx, p.output);
    staging = b.alloc(SpioTensorType::get(
        ctx,
        {{warpDim, 1, c.warpsM, rowsTile * pitch},
         {rows, 1, rowsTile, pitch},
         {cols, 1, columns, 1}},
        out, MemorySpace::Shared, SwizzleAttrInterface()));
    stagingVectors = b.view(
        staging,
        SpioTensorType::get(ctx,
                            {{warpDim, 1, c.warpsM, rowsTile * pitch / lanesVector},
                             {rows, 1, rowsTile, pitch / lanesVector},
                             {cols, lanesVector, columns / lanesVector, 1}},
                            VectorType::get({lanesVector}, out), MemorySpace::Shared,
                            SwizzleAttrInterface()));
  }
  Barriers full = b.barrierAlloc(stages), empty = b.barrierAlloc(stages);
  // Ping-pong warpgroups each consume whole tiles' stages, their main loops
  // in turn: a warpgroup waits on a stage's full barrier only once the
  // other has passed its waits of the tile before, so that no wait can be
  // met by a round two behind it (same parity).
  int64_t tileConsumers = c.pingpong ? 1 : consumers;
  Barriers order = c.pingpong ? b.barrierAlloc(2) : Barriers();
  Value thread = b.linearId(LinearId::Thread);
  b.ifThen(b.cmpi(arith::CmpIPredicate::eq, thread, b.index(0)), [&] {
    for (int64_t s = 0; s < stages; ++s) {
      b.barrierInit(full, b.index(s), 1);
      // Lane 0 of each compute warp of each block of the cluster releases
      // a stage.
      b.barrierInit(empty, b.index(s), cluster * 4 * tileConsumers);
    }
    // Lane 0 of each warp of a ping-pong warpgroup hands the ring to the
    // other once past its main loop's waits.
    if (c.pingpong)
      for (int64_t g = 0; g < 2; ++g)
        b.barrierInit(order, b.index(g), 4);
    // The barriers are written by this thread and read by the TMA unit
    // (and the cluster's other blocks).
    b.fenceProxyAsync();
    if (cluster > 1)
      b.fenceBarrierInit();
  });
  if (cluster > 1)
    b.clusterBarrier();
  else
    b.barrier();
  Value rank = cluster > 1 || splitK > 1 ? b.linearId(LinearId::ClusterBlock) : b.index(0);
  int64_t kTiles = ceilDiv(p.k, c.blockK);
  // A block splitting K takes k-tiles [rank * T / S, (rank + 1) * T / S).
  Value kFirst = b.index(0), kCount = b.index(kTiles);
  if (splitK > 1) {
    auto bound = [&](Value r) { return b.divui(b.muli(r, b.index(kTiles)), b.index(splitK)); };
    kFirst = bound(rank);
    kCount = b.subi(bound(b.addi(rank, b.index(1))), kFirst);
  }
  Value stageCount = b.index(stages);
  int64_t stageBytes =
      (boxesA * boxA.getCosize() + boxesB * boxB.getCosize()) * boxA.getElementBytes();
  Value warpgroup = b.divui(thread, b.index(128));
  // Two compute warpgroups with accumulators of 128 columns or more would
  // be held to the register file's share of each thread (168 of 384): the
  // copy warpgroup gives back most of its registers and they take them.
  // (Smaller accumulators fit, and ptxas ignores setmaxnreg where a
  // kernel's registers do not reach the share.)
  bool rebalance = consumers == 2 && c.wgmmaN() >= 128;

  // The block's tiles, each with its place in the block's sequence: its
  // own tile, or with `persistent = P` the cluster's tiles x, x + P / C, ...
  // of the grid of C-tile columns, x its cluster's id; the block takes row
  // C * row + its rank of the cluster's tile. A ping-pong warpgroup takes
  // every other one of them (`skip` 0 or 1, `every` 2).
  int64_t tilesN = ceilDiv(p.n, c.blockN);
  int64_t clusterTilesM = ceilDiv(ceilDiv(p.m, c.blockM), cluster);
  auto forEachTile = [&](function_ref<void(Coord, Coord, Value, Value)> body,
                         Value skip = {}, int64_t every = 1) {
    if (c.persistent == 0) {
      auto [bi, bj] = blockCoords();
      body(bi, bj, b.toIndex(bj), b.index(0));
      return;
    }
    Value first = b.linearId(LinearId::BlockX);
    if (cluster > 1)
      first = b.divui(first, b.index(cluster));
    Value stride = b.index(c.persistent / cluster);
    Value start = skip ? b.addi(first, b.muli(skip, stride)) : first;
    Value step = every == 1 ? stride : b.index(every * (c.persistent / cluster));
    if (p.groupedReduction)
      return forEachReductionGroupTile(op, body, first, stride, start, step);
    if (c.streamK)
      return forEachStreamKUnit(body);
    if (p.groups > 0)
      return forEachGroupTile(op, body, first, stride, start, step);
    // A batch's problems' tiles one after the other.
    int64_t tilesPerProblem = clusterTilesM * tilesN;
    b.forLoop(start, b.index(p.batch * tilesPerProblem), step, {},
              [&](Value t, ValueRange) {
                Value inProblem = t;
                if (p.batch > 1) {
                  batch = b.fromIndex(b.divui(t, b.index(tilesPerProblem)),
                                      b.coordType(p.batchDim));
                  inProblem = b.remui(t, b.index(tilesPerProblem));
                }
                auto [row, col] = tilePlace(inProblem, clusterTilesM, tilesN);
                Coord bi = b.fromIndex(b.addi(b.muli(row, b.index(cluster)), rank),
                                       b.coordType(p.rowDim, c.blockM));
                Coord bj = b.fromIndex(col, b.coordType(p.colDim, c.blockN));
                body(bi, bj, col, b.divui(b.subi(t, first), stride));
                return SmallVector<Value>{};
              });
  };

  // Warpgroup 0 copies: one thread waits for a free stage, expects its
  // bytes and starts the two TMA loads, running ahead into the next tile
  // while the compute warpgroups store the last.
  b.ifThen(b.cmpi(arith::CmpIPredicate::eq, warpgroup, b.index(0)), [&] {
    if (rebalance)
      b.setMaxRegisters(RegisterAction::Decrease, kCopyRegisters);
    b.ifThen(b.cmpi(arith::CmpIPredicate::eq, thread, b.index(0)), [&] {
      forEachTile([&](Coord bi, Coord, Value col, Value done) {
        auto [before, tileKTiles] = tileSteps(done, kCount);
        // This block's share of the B tile's boxes, by its rank.
        Value bRank = cluster > 1 ? rank : b.index(0);
        int64_t boxesOfBlock = boxesB / cluster;
        // Boxes `firstBox` to `firstBox + count` (each `fold` rows) of an
        // operand's tile (the `tile`-th of `tileRows` rows): where each
        // starts along the operand's rows and, where a stage holds several,
        // its place in the stage.
        struct Box {
          Coord rows, part;
        };
        auto boxesOf = [&](const Operand &o, Tensor tiles, SpioTensorType box, Value tile,
                           int64_t tileRows, int64_t fold, Value firstBox, int64_t count) {
          bool parts = tiles.getType().getDims().size() > box.getDims().size() + 1;
          Value first = tileRows == fold ? tile : b.muli(tile, b.index(tileRows / fold));
          SmallVector<Box> boxes;
          for (int64_t i = 0; i < count; ++i) {
            Value box = i == 0 ? firstBox : b.addi(firstBox, b.index(i));
            CoordType type = b.coordType(o.rowDim, fold);
            boxes.push_back(
                {b.fromIndex(b.addi(first, box), type), parts ? b.fromIndex(box, type) : Coord()});
          }
          return boxes;
        };
        SmallVector<Box> ownA{{bi, Coord()}};
        if (!gathersA && boxesA > 1)
          ownA = boxesOf(a, tilesA, boxA, b.toIndex(bi), c.blockM, foldA, b.index(0), boxesA);
        // wgrad of padded groups: each box's rows of dw' read dy's channels
        // of their group.
        if (op.conv && op.conv->pass == kernels::ConvPass::Wgrad && op.conv->groups > 1 &&
            kernels::conv2dPadsGroups(*op.conv))
          for (Box &box : ownA)
            box.rows = convWgradDyRows(*op.conv, box.rows);
        SmallVector<Box> ownB =
            boxesOf(bOp, tilesB, boxB, col, c.blockN, foldB,
                    boxesOfBlock == 1 ? bRank : b.muli(bRank, b.index(boxesOfBlock)), boxesOfBlock);
        // The boxes' k-tile at `kTile` into the stage (multicast to the
        // cluster's blocks), shifted along the operand's rows by `shift`
        // (a convolution's dgrad: to the k-tile's tap in w's rows).
        auto loadBoxes = [&](TensorMap map, const Operand &o, Tensor tiles, ArrayRef<Box> boxes,
                             Coord kTile, Coord stage, Value slot, int64_t multicast,
                             Coord shift = Coord()) {
          for (const Box &box : boxes) {
            Coord rows = shift ? b.add(b.unfold(box.rows, 8), shift) : box.rows;
            SmallVector<Coord> at = o.kContiguous ? SmallVector<Coord>{tmaRows(o, rows), kTile}
                                                  : SmallVector<Coord>{tmaRows(o, kTile), rows};
            SmallVector<Coord> dst{stage};
            if (box.part)
              dst.push_back(box.part);
            if (multicast > 1)
              b.tmaLoad(map, at, tiles, dst, full, slot, multicast);
            else
              b.tmaLoad(map, at, tiles, dst, full, slot);
          }
        };
        b.forLoop(b.index(0), tileKTiles, b.index(1), {}, [&](Value kt, ValueRange) {
          Value step = b.addi(before, kt);
          Value slot = b.remui(step, stageCount);
          // Round r of a slot waits for the release of round r - 1; the
          // first round's wait (parity 1 before phase 0) passes at once.
          Value parity = b.lowBit(b.addi(b.divui(step, stageCount), b.index(1)));
          b.barrierWait(empty, slot, parity);
          b.barrierExpectTx(full, slot, stageBytes);
          Value kIndex = b.addi(unit.kBegin ? unit.kBegin : kFirst, kt);
          // Groups splitting K: the k-tile's rows from the group's first.
          Coord kTile = reduction.kTiles
                            ? b.fromIndex(b.addi(reduction.begin, b.muli(kt, b.index(c.blockK))),
                                          b.coordType(K))
                            : b.fromIndex(kIndex, b.coordType(K, c.blockK));
          Coord stage = b.fromIndex(slot, b.coordType(kStage));
          Coord shift;
          if (gathersA) {
            ConvWeights weights = convLoadInput(op, bi, col, kIndex, tilesA, stage, full, slot);
            kTile = weights.k;
            shift = weights.shift;
          } else {
            loadBoxes(cast<TensorMap>(op.aMap), a, tilesA, ownA, kTile, stage, slot, 1);
          }
          if (gathersB) {
            for (const Box &box : ownB)
              convLoadGatheredB(op, bi, b.muli(b.toIndex(box.rows), b.index(foldB)), kIndex, tilesB,
                                stage, box.part, full, slot);
          } else {
            loadBoxes(cast<TensorMap>(op.bMap), bOp, tilesB, ownB, kTile, stage, slot, cluster,
                      shift);
          }
          return SmallVector<Value>{};
        });
      });
    });
    // The cluster barriers of a split reduction, which each warp passes in
    // its own role's code: after the join, ptxas could not tell the
    // registers of the two roles apart and would ignore setmaxnreg.
    if (splitK > 1) {
      b.clusterBarrier();
      b.clusterBarrier();
    }
  });

  // Warpgroups 1.. compute: each multiplies its 64 rows of A (of B when
  // swapped) by all of the other tile into its accumulator, a k-tile's
  // wgmma group in flight while the next is issued; a stage is released
  // once the group that read it is done.
  b.ifThen(b.cmpi(arith::CmpIPredicate::ne, warpgroup, b.index(0)), [&] {
    if (rebalance)
      b.setMaxRegisters(RegisterAction::Increase, kComputeRegisters);
    SmallVector<Coord> warp =
        b.decompose(b.linearId(LinearId::Warp), {consumers + 1, 4},
                    {b.coordType(rowDim, WarpgroupAccType::kRows), b.coordType(rowDim, 16)});
    // Warpgroup 1 takes the block's first 64 rows.
    warp[0] = b.sub(warp[0], b.constant(1, warp[0].getType()));
    Value firstLane = b.cmpi(arith::CmpIPredicate::eq, b.linearId(LinearId::Lane), b.index(0));
    auto release = [&](Value step) {
      b.ifThen(firstLane, [&] {
        Value slot = b.remui(step, stageCount);
        if (cluster == 1)
          return b.barrierArrive(empty, slot);
        // The stage is free in every block of the cluster, whose copies
        // write all of them.
        for (int64_t block = 0; block < cluster; ++block)
          b.barrierArrive(empty, slot, b.index(block));
      });
    };
    // Groups splitting K: rows of the group's last k-tile past its end hold
    // the next group's (or TMA's zeros); the compute threads zero them in
    // both tiles of the stage before wgmma reads it.
    auto zeroRowsPastGroupEnd = [&](Value kt, Coord stage) {
      Value left = b.subi(b.subi(reduction.end, reduction.begin), b.muli(kt, b.index(c.blockK)));
      b.ifThen(b.cmpi(arith::CmpIPredicate::ult, left, b.index(c.blockK)), [&] {
        int64_t threads = 128 * consumers;
        Value self = b.subi(thread, b.index(128));
        Value zero = b.create<arith::ConstantOp>({}, b.getOpBuilder().getZeroAttr(inputVector()));
        for (auto [tiles, o, boxCount, fold] :
             {std::tuple{tilesA, &a, boxesA, foldA}, std::tuple{tilesB, &bOp, boxesB, foldB}}) {
          int64_t boxVectors = c.blockK * (kMNBox / 8);
          b.forLoop(self, b.index(boxCount * boxVectors), b.index(threads), {},
                    [&](Value v, ValueRange) {
                      Value inBox = b.remui(v, b.index(boxVectors));
                      Value row = b.divui(inBox, b.index(kMNBox / 8));
                      b.ifThen(b.cmpi(arith::CmpIPredicate::uge, row, left), [&] {
                        SmallVector<Coord> at{stage};
                        if (boxCount > 1)
                          at.push_back(b.fromIndex(b.divui(v, b.index(boxVectors)),
                                                   b.coordType(o->rowDim, fold)));
                        at.push_back(b.fromIndex(row, b.coordType(K)));
                        at.push_back(b.fromIndex(b.remui(inBox, b.index(kMNBox / 8)),
                                                 b.coordType(o->rowDim, 8)));
                        b.store(zero, tiles, at);
                      });
                      return SmallVector<Value>{};
                    });
        }
        // Written by these threads, read by the others' wgmma (the async
        // proxy).
        b.fenceProxyAsync();
        b.create<NamedBarrierOp>({}, 1, threads);
      });
    };
    // A ping-pong warpgroup computes all of its tiles' 64-row halves;
    // otherwise the warpgroups split each tile's rows.
    int64_t halves = c.pingpong ? c.blockM / WarpgroupAccType::kRows : 1;
    auto halfRows = [&](int64_t h) {
      return c.pingpong ? b.constant(h, warp[0].getType()) : warp[0];
    };
    // A ping-pong warpgroup's `order` barrier, and the other's.
    Value mine, other;
    if (c.pingpong) {
      mine = b.subi(warpgroup, b.index(1));
      other = b.subi(b.index(1), mine);
    }
    forEachTile(
        [&](Coord bi, Coord bj, Value, Value done) {
          auto [before, tileKTiles] = tileSteps(done, kCount);
          if (c.pingpong) {
            // This warpgroup's r-th tile waits for the other's main loop of the
            // tile before it (the first's wait passes at once: parity 1 before
            // phase 0).
            Value round = b.divui(done, b.index(2));
            b.barrierWait(order, mine, b.lowBit(b.subi(b.addi(round, b.index(2)), warpgroup)));
          }
          WarpgroupAccType accType = b.warpgroupAccType(c.wgmmaN(), rowDim, colDim);
          // Promoted sums run on as the accumulator's C fragments, f32 vectors.
          FragmentType fc = fragment(FragmentOperand::C, rowDim, colDim, Float32Type::get(ctx));
          VectorType lane = VectorType::get({4}, Float32Type::get(ctx));
          // k-tile `kt` of those from `lo` multiplied into the carried
          // accumulators, one k-tile's group in flight while the next is
          // issued; with `promote`, into a fresh one whose sums are added in
          // f32 to the carried vectors; with `overwrite`, into the carried
          // accumulator's registers, whose values are not read.
          auto multiplyKTile = [&](Value kt, Value lo, ValueRange carried,
                                   bool overwrite) -> SmallVector<Value> {
            Value step = b.addi(before, kt);
            Value slot = b.remui(step, stageCount);
            b.barrierWait(full, slot, b.lowBit(b.divui(step, stageCount)));
            Coord stage = b.fromIndex(slot, b.coordType(kStage));
            if (reduction.kTiles)
              zeroRowsPastGroupEnd(kt, stage);
            Tensor tileA = b.subscript(tilesA, {stage}), tileB = b.subscript(tilesB, {stage});
            if (c.swapAB)
              std::swap(tileA, tileB);
            SmallVector<Value> acc(carried.begin(), carried.end());
            if (c.promote)
              acc.assign(1, b.warpgroupFill(b.f32(0.0), accType));
            b.wgmmaFence();
            // An instruction reduces 32 bytes of each row: 16 f16 or bf16,
            // or 8 f32 as TF32.
            int64_t wgmmaK = 2 * kernels::vectorElements(p.input);
            for (int64_t kk = 0; kk < c.blockK / wgmmaK; ++kk) {
              Coord kStep = b.constant(kk, b.coordType(K, wgmmaK));
              for (int64_t h = 0; h < halves; ++h)
                acc[h] = b.wgmma(tileA, {halfRows(h), kStep}, tileB, {kStep},
                                 cast<WarpgroupAcc>(acc[h]), overwrite && kk == 0);
            }
            b.wgmmaCommit();
            if (c.promote) {
              // This k-tile's sums, done, added to the running ones in f32;
              // its stage is free.
              b.wgmmaWait(0);
              release(step);
              SmallVector<Value> sums;
              for (int64_t ni = 0; ni < fragments; ++ni)
                sums.push_back(b.addf(carried[ni], b.fragmentToVector(b.warpgroupFragment(
                                                       cast<WarpgroupAcc>(acc[0]), ni))));
              return sums;
            }
            b.wgmmaWait(1);
            // The previous k-tile's group is done: its stage is free.
            b.ifThen(b.cmpi(arith::CmpIPredicate::ugt, kt, lo),
                     [&] { release(b.addi(step, b.index(stages - 1))); });
            return acc;
          };
          // k-tiles [lo, hi) multiplied into the carried accumulators.
          auto accumulate = [&](Value lo, Value hi, SmallVector<Value> inits) {
            return b.forLoop(lo, hi, b.index(1), inits, [&](Value kt, ValueRange carried) {
              return multiplyKTile(kt, lo, carried, false);
            });
          };
          // The last k-tile of [lo, hi) done and its stage free (a group that
          // splits K may have none).
          auto drain = [&](Value hi) {
            b.wgmmaWait(0);
            if (!reduction.kTiles)
              return release(b.subi(b.addi(before, hi), b.index(1)));
            b.ifThen(b.cmpi(arith::CmpIPredicate::ugt, hi, b.index(0)),
                     [&] { release(b.subi(b.addi(before, hi), b.index(1))); });
          };
          scf::ForOp loop;
          // Sums carried or added as the accumulator's C fragments, f32 vectors.
          SmallVector<Value> sums;
          if (c.kRanges > 1) {
            // Range r of the k-tiles as split K's block r takes them, summed
            // from zero; the ranges' sums added in order. Where registers
            // hold one accumulator alone, the sums so far wait in the
            // block's slot of the workspace, each thread's own fragments.
            bool spills = kernels::gemmSpillsRangeSums(c);
            Tensor waiting = spills ? cast<Tensor>(op.rangeSums) : Tensor();
            Coord own, self;
            if (spills) {
              own = b.fromIndex(b.linearId(LinearId::BlockX), b.coordType(kStreamKBlock));
              self = b.fromIndex(b.subi(thread, b.index(128)), b.coordType(kAccThread));
            }
            auto waitingAt = [&](int64_t ni) -> SmallVector<Coord> {
              return {own, b.constant(ni, b.coordType(kAccFragment)), self};
            };
            // The waiting sums added to a range's, 16 fragments' loads at a
            // time, the next group's issued before this one's additions: a
            // warp sync (which may touch memory) between groups keeps LLVM
            // from issuing every load at once, whose registers and the
            // accumulator's would not fit.
            auto addWaiting = [&](ArrayRef<Value> range) {
              constexpr int64_t group = 16;
              SmallVector<Value> loaded(fragments), totals(fragments);
              auto load = [&](int64_t first) {
                for (int64_t ni = first; ni < std::min(first + group, fragments); ++ni)
                  loaded[ni] = b.load(waiting, waitingAt(ni));
              };
              load(0);
              for (int64_t first = 0; first < fragments; first += group) {
                b.warpSync();
                if (first + group < fragments)
                  load(first + group);
                for (int64_t ni = first; ni < std::min(first + group, fragments); ++ni)
                  totals[ni] = b.addf(loaded[ni], range[ni]);
              }
              return totals;
            };
            for (int64_t r = 0; r < c.kRanges; ++r) {
              int64_t lo = r * kTiles / c.kRanges, hi = (r + 1) * kTiles / c.kRanges;
              if (r == 0 || !spills) {
                loop = accumulate(b.index(lo), b.index(hi), {b.warpgroupFill(b.f32(0.0), accType)});
              } else {
                // The range's first k-tile overwrites the last range's
                // registers, stored: a zero accumulator beside them (which
                // LLVM would set up before the first range) does not fit.
                SmallVector<Value> first =
                    multiplyKTile(b.index(lo), b.index(lo), loop.getResults(), true);
                loop = b.forLoop(b.index(lo + 1), b.index(hi), b.index(1), first,
                                 [&](Value kt, ValueRange carried) {
                                   return multiplyKTile(kt, b.index(lo), carried, false);
                                 });
              }
              drain(b.index(hi));
              SmallVector<Value> range;
              for (int64_t ni = 0; ni < fragments; ++ni)
                range.push_back(b.fragmentToVector(
                    b.warpgroupFragment(cast<WarpgroupAcc>(loop.getResult(0)), ni)));
              if (!spills) {
                for (int64_t ni = 0; ni < fragments; ++ni)
                  if (r == 0)
                    sums.push_back(range[ni]);
                  else
                    sums[ni] = b.addf(sums[ni], range[ni]);
                continue;
              }
              SmallVector<Value> totals = r == 0 ? range : addWaiting(range);
              if (r + 1 == c.kRanges) {
                sums = totals;
                continue;
              }
              for (int64_t ni = 0; ni < fragments; ++ni)
                b.store(totals[ni], waiting, waitingAt(ni));
            }
          } else if (c.promote) {
            loop = accumulate(b.index(0), tileKTiles,
                              SmallVector<Value>(fragments, b.broadcast(b.f32(0.0), lane)));
            sums.assign(loop.getResults().begin(), loop.getResults().end());
          } else {
            loop = accumulate(b.index(0), tileKTiles,
                              SmallVector<Value>(halves, b.warpgroupFill(b.f32(0.0), accType)));
          }
          if (c.pingpong)
            b.ifThen(firstLane, [&] { b.barrierArrive(order, other); });
          if (!c.promote && c.kRanges == 1)
            drain(tileKTiles);
          // Fragment `ni` of the tile's sums (of its first 64-row half).
          auto accumulatedFragment = [&](int64_t ni) -> Fragment {
            if (!sums.empty())
              return b.vectorToFragment(sums[ni], fc);
            return b.warpgroupFragment(cast<WarpgroupAcc>(loop.getResult(0)), ni);
          };
          if (c.pingpong) {
            for (int64_t h = 0; h < halves; ++h) {
              auto accumulated = cast<WarpgroupAcc>(loop.getResult(h));
              warpgroupEpilogue(
                  op, bi, bj, {halfRows(h), warp[1]}, rowDim,
                  [&](int64_t ni) { return b.warpgroupFragment(accumulated, ni); }, 0, fragments);
            }
            return;
          }
          if (c.streamK)
            return streamKEpilogue(op, bi, bj, warp, accumulatedFragment);
          if (splitK == 1)
            return warpgroupEpilogue(op, bi, bj, warp, rowDim, accumulatedFragment, 0, fragments);
          // The compute thread's place in `partials`.
          Coord self = b.fromIndex(b.subi(thread, b.index(128)), b.coordType(kAccThread));
          for (int64_t ni = 0; ni < fragments; ++ni)
            b.store(b.fragmentToVector(accumulatedFragment(ni)), partials,
                    {b.constant(ni, b.coordType(kAccFragment)), self});
          // Every block's partial sums are in place; block r adds the sums of
          // its share of the fragments in rank order (the same order in every
          // run) and stores them.
          b.clusterBarrier();
          auto sum = [&](int64_t ni) {
            Coord at = b.constant(ni, b.coordType(kAccFragment));
            Value total = b.loadRemote(partials, {at, self}, b.index(0));
            for (int64_t block = 1; block < splitK; ++block)
              total = b.addf(total, b.loadRemote(partials, {at, self}, b.index(block)));
            return b.vectorToFragment(total, fc);
          };
          for (int64_t r = 0; r < splitK; ++r) {
            int64_t first = r * fragments / splitK, last = (r + 1) * fragments / splitK;
            if (first < last)
              b.ifThen(b.cmpi(arith::CmpIPredicate::eq, rank, b.index(r)), [&] {
                SmallVector<Fragment> sums;
                for (int64_t ni = first; ni < last; ++ni)
                  sums.push_back(sum(ni));
                // Every remote read issued before the first store: the warp
                // sync (which may touch memory) keeps LLVM from sinking each
                // read into the branch of its edge-checked stores, where the
                // reads' latencies would add up.
                b.warpSync();
                warpgroupEpilogue(
                    op, bi, bj, warp, rowDim, [&](int64_t ni) { return sums[ni - first]; }, first,
                    last);
              });
          }
          // No block leaves while another may still read its partial sums.
          b.clusterBarrier();
        },
        c.pingpong ? mine : Value(), c.pingpong ? 2 : 1);
  });
  // No block leaves while another may still copy into it or arrive at its
  // barriers.
  if (cluster > 1)
    b.clusterBarrier();
}

/// The kernel packing operand 'a' or 'b' of `p` (gemmPacksOperand) into
/// 16-byte vectors of the K-major packed operand, each from a vector's
/// worth of consecutive values of K of one row (8, or 4 for TF32's f32;
/// zero past K): f32 values split into bf16 terms (TF32 keeps them), each
/// segment's term stored as one vector. Where the source is K-major a
/// thread reads its values and a warp's threads take consecutive vectors of
/// a row. Where it is M- or N-major a block transposes a tile of
/// kPackTileRows rows by kPackTileVectors vectors of K through shared
/// memory: it reads the tile's K steps one after the other, consecutive
/// rows at a time, and writes each row's vectors side by side, so that
/// reads and writes are both coalesced.
void buildPackKernel(OpBuilder &builder, Location loc, const GemmProblem &p, char operand,
                     StringRef name) {
  MLIRContext *ctx = builder.getContext();
  GemmProblem packed = kernels::gemmPackedProblem(p);
  Operand source = operand == 'a' ? operandA(p, 0) : operandB(p, 0);
  Operand target = operand == 'a' ? operandA(packed, 0) : operandB(packed, 0);
  KernelBuilder b(builder, loc);
  SpioTensorType sourceType = globalType(b, p, source);
  SpioTensorType targetType = globalType(b, packed, target);
  auto kernel = gpu::GPUFuncOp::create(
      builder, loc, name, builder.getFunctionType({sourceType, targetType}, {}));
  kernel->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), builder.getUnitAttr());
  kernel.setKnownBlockSizeAttr(
      DenseI32ArrayAttr::get(ctx, {int32_t(kernels::kPackThreads), 1, 1}));
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToStart(&kernel.getBody().front());
  auto src = cast<Tensor>(kernel.getArgument(0)), dst = cast<Tensor>(kernel.getArgument(1));
  int64_t vectorLanes = kernels::vectorElements(packed.input);
  int64_t rows = source.rowsExtent, kVectors = ceilDiv(p.k, vectorLanes);
  Coord batch;
  if (source.batched)
    batch = b.fromIndex(b.linearId(LinearId::BlockZ), b.coordType(p.batchDim));
  Type element = typeOf(ctx, p.input);
  Value zero = b.create<arith::ConstantOp>({}, builder.getZeroAttr(element));
  Value size = b.index(p.k), last = b.index(p.k - 1);
  // Source element (row, k), or zero past K (reading K - 1 instead).
  auto read = [&](Coord rowAt, Value k) {
    Value inside = b.cmpi(arith::CmpIPredicate::ult, k, size);
    Coord kAt = b.fromIndex(b.create<arith::MinUIOp>({}, k, last), b.coordType(source.kDim));
    SmallVector<Coord> at =
        source.kContiguous ? SmallVector<Coord>{rowAt, kAt} : SmallVector<Coord>{kAt, rowAt};
    if (batch)
      at.insert(at.begin(), batch);
    return b.create<arith::SelectOp>({}, inside, b.load(src, at), zero).getResult();
  };
  // The vector `vector` of K of row `row` from its values: an f32 value's
  // terms are each the bf16 rounding of what the larger ones leave.
  Type packedType = typeOf(ctx, packed.input);
  auto storeVector = [&](Value row, Value vector, SmallVector<Value> values) {
    SmallVector<Value> terms;
    for (int64_t t = 0; t < kernels::gemmPackTerms(p); ++t) {
      SmallVector<Value> lanes;
      for (Value &value : values) {
        if (value.getType() == packedType) {
          lanes.push_back(value);
          continue;
        }
        Value term = b.create<arith::TruncFOp>({}, packedType, value);
        lanes.push_back(term);
        if (t + 1 < kernels::gemmPackTerms(p))
          value = b.create<arith::SubFOp>({}, value,
                                          b.create<arith::ExtFOp>({}, value.getType(), term));
      }
      terms.push_back(
          b.create<vector::FromElementsOp>({}, tensorCoreVector(ctx, packed.input), lanes));
    }
    SmallVector<Coord> at{b.fromIndex(row, b.coordType(source.rowDim)), Coord()};
    if (batch)
      at.insert(at.begin(), batch);
    for (int64_t segment = 0; segment < kernels::gemmPackSegments(p); ++segment) {
      at.back() = b.fromIndex(b.addi(vector, b.index(segment * kVectors)),
                              b.coordType(p.reductionDim, vectorLanes));
      b.store(terms[kernels::gemmPackTerm(p, operand, segment)], dst, at);
    }
  };
  Value thread = b.linearId(LinearId::Thread);
  if (source.kContiguous) {
    Value linear =
        b.addi(b.muli(b.linearId(LinearId::BlockX), b.index(kernels::kPackThreads)), thread);
    b.ifThen(b.cmpi(arith::CmpIPredicate::ult, linear, b.index(rows * kVectors)), [&] {
      Value row = b.divui(linear, b.index(kVectors));
      Value vector = b.remui(linear, b.index(kVectors));
      Coord rowAt = b.fromIndex(row, b.coordType(source.rowDim));
      Value first = b.muli(vector, b.index(vectorLanes));
      SmallVector<Value> values;
      for (int64_t e = 0; e < vectorLanes; ++e)
        values.push_back(read(rowAt, b.addi(first, b.index(e))));
      storeVector(row, vector, values);
    });
    gpu::ReturnOp::create(builder, loc);
    return;
  }
  // The block's tile: row tiles along x first, then K's.
  constexpr int64_t tileRows = kernels::kPackTileRows, threads = kernels::kPackThreads;
  int64_t tileK = kernels::kPackTileVectors * vectorLanes;
  int64_t rowTiles = ceilDiv(rows, tileRows);
  Value block = b.linearId(LinearId::BlockX);
  Value firstRow = b.muli(b.remui(block, b.index(rowTiles)), b.index(tileRows));
  Value firstVector = b.muli(b.divui(block, b.index(rowTiles)), b.index(kernels::kPackTileVectors));
  // One padding column: the vectors a warp reads (8 of K's steps of 4 rows)
  // then fall in distinct banks.
  Tensor tile = b.alloc(b.tensorType({{source.kDim, 1, tileK}, {source.rowDim, 1, tileRows + 1}},
                                     element, MemorySpace::Shared));
  Value inTile = b.remui(thread, b.index(tileRows));
  Coord rowInTile = b.fromIndex(inTile, b.coordType(source.rowDim));
  Coord sourceRow =
      b.fromIndex(b.create<arith::MinUIOp>({}, b.addi(firstRow, inTile), b.index(rows - 1)),
                  b.coordType(source.rowDim));
  Value firstK = b.muli(firstVector, b.index(vectorLanes));
  for (int64_t pass = 0; pass < tileK * tileRows / threads; ++pass) {
    Value k = b.addi(b.index(pass * (threads / tileRows)), b.divui(thread, b.index(tileRows)));
    b.store(read(sourceRow, b.addi(firstK, k)), tile,
            {b.fromIndex(k, b.coordType(source.kDim)), rowInTile});
  }
  b.barrier();
  int64_t rowsPerPass = threads / kernels::kPackTileVectors;
  Value vectorInTile = b.remui(thread, b.index(kernels::kPackTileVectors));
  Value vector = b.addi(firstVector, vectorInTile);
  for (int64_t pass = 0; pass < tileRows / rowsPerPass; ++pass) {
    Value r =
        b.addi(b.index(pass * rowsPerPass), b.divui(thread, b.index(kernels::kPackTileVectors)));
    Value row = b.addi(firstRow, r);
    Value inside =
        b.create<arith::AndIOp>({}, b.cmpi(arith::CmpIPredicate::ult, row, b.index(rows)),
                                b.cmpi(arith::CmpIPredicate::ult, vector, b.index(kVectors)));
    b.ifThen(inside, [&] {
      SmallVector<Value> values;
      Coord rAt = b.fromIndex(r, b.coordType(source.rowDim));
      for (int64_t e = 0; e < vectorLanes; ++e) {
        Value k = b.addi(b.muli(vectorInTile, b.index(vectorLanes)), b.index(e));
        values.push_back(b.load(tile, {b.fromIndex(k, b.coordType(source.kDim)), rAt}));
      }
      storeVector(row, vector, values);
    });
  }
  gpu::ReturnOp::create(builder, loc);
}

} // namespace

SpioTensorType mlir::spio::gemmTileBoxType(KernelBuilder &b, const GemmProblem &problem,
                                           const GemmConfig &config, char operand,
                                           int64_t blockRows) {
  return GemmTile(b, problem, config)
      .boxType(operand == 'a' ? operandA(problem, blockRows) : operandB(problem, blockRows));
}

SpioTensorType mlir::spio::gemmTileSharedType(KernelBuilder &b, const GemmProblem &problem,
                                              const GemmConfig &config, char operand,
                                              int64_t blockRows) {
  return GemmTile(b, problem, config)
      .sharedType(operand == 'a' ? operandA(problem, blockRows) : operandB(problem, blockRows));
}

void mlir::spio::buildGemmTileOf(KernelBuilder &b, const GemmProblem &problem,
                                 const GemmConfig &config, const GemmValues &values) {
  GemmTile(b, problem, config).build(values);
}

LogicalResult mlir::spio::buildGemmTile(KernelBuilder &b, GemmOp op, const GemmProblem &problem,
                                        const GemmConfig &config) {
  GemmTile(b, problem, config).build(gemmValues(op));
  return success(b.succeeded());
}

SpioTensorType mlir::spio::gemmOperandType(MLIRContext *context, const GemmProblem &problem,
                                           char operand) {
  OpBuilder builder(context);
  KernelBuilder b(builder, UnknownLoc::get(context));
  switch (operand) {
  case 'a':
    return globalType(b, problem, operandA(problem, 0));
  case 'b':
    return globalType(b, problem, operandB(problem, 0));
  case 'x':
    return epilogueVectorType(b, problem, problem.bias, problem.biasType);
  case 's':
    return epilogueVectorType(b, problem, problem.scale, problem.scaleType);
  case 'g':
    return b.tensorType({{problem.groupDim, 1, problem.groups}},
                        IntegerType::get(context, 32), MemorySpace::Global);
  default:
    return outputType(b, problem);
  }
}

SpioTensorType mlir::spio::gemmScratchType(MLIRContext *context, const GemmConfig &config,
                                           char which) {
  OpBuilder builder(context);
  KernelBuilder b(builder, UnknownLoc::get(context));
  if (which == 'f')
    return b.tensorType({{kStreamKBlock, 1, config.persistent}}, IntegerType::get(context, 32),
                        MemorySpace::Global);
  return b.tensorType({{kStreamKBlock, 1, config.persistent},
                       {kAccFragment, 1, config.blockN / 8},
                       {kAccThread, 1, 32 * config.warpsM}},
                      VectorType::get({4}, Float32Type::get(context)), MemorySpace::Global);
}

TensorMapType mlir::spio::gemmTensorMapType(MLIRContext *context, const GemmProblem &problem,
                                            const GemmConfig &config, char operand) {
  OpBuilder builder(context);
  KernelBuilder b(builder, UnknownLoc::get(context));
  // B's box is the block's part of the tile its cluster shares.
  Operand o = operand == 'a' ? operandA(problem, config.blockM)
                             : operandB(problem, config.blockN / config.cluster);
  GemmTile tile(b, problem, config);
  return b.tensorMapType(tmaGlobalType(b, problem, o), tile.boxType(o));
}

EpilogueAttr mlir::spio::epilogueAttr(MLIRContext *context, ArrayRef<kernels::EpilogueStep> steps) {
  if (steps.empty())
    return {};
  SmallVector<EpilogueStep> converted;
  for (kernels::EpilogueStep step : steps)
    converted.push_back(EpilogueStep(int(step)));
  return EpilogueAttr::get(context, converted);
}

OwningOpRef<ModuleOp> mlir::spio::buildGemmWorkload(MLIRContext *context,
                                                    const GemmProblem &problem,
                                                    const GemmConfig &c) {
  Location loc = NameLoc::get(StringAttr::get(context, "spio_gemm"));
  OpBuilder builder(context);
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  (*module)->setAttr(gpu::GPUDialect::getContainerModuleAttrName(), builder.getUnitAttr());
  builder.setInsertionPointToEnd(module->getBody());
  auto kernels = gpu::GPUModuleOp::create(builder, loc, "spio_gemm");
  builder.setInsertionPointToStart(kernels.getBody());
  // Packed operands come from their packing kernels, the GEMM computing the
  // packed problem.
  for (auto [which, name] :
       {std::pair{'a', kernels::kGemmPackA}, std::pair{'b', kernels::kGemmPackB}})
    if (kernels::gemmPacksOperand(problem, which))
      buildPackKernel(builder, loc, problem, which, name);
  GemmProblem p = kernels::gemmPackedProblem(problem);
  SpioTensorType aType = gemmOperandType(context, p, 'a'), bType = gemmOperandType(context, p, 'b');
  SpioTensorType dType = gemmOperandType(context, p, 'd');
  Type f32 = builder.getF32Type();
  SmallVector<Type> params{aType, bType, dType, dType, f32, f32};
  GemmParameters at = gemmParameters(p, c);
  if (at.bias >= 0)
    params.push_back(gemmOperandType(context, p, 'x'));
  if (at.scale >= 0)
    params.push_back(gemmOperandType(context, p, 's'));
  if (at.groups >= 0)
    params.push_back(gemmOperandType(context, p, 'g'));
  if (at.pre >= 0)
    params.push_back(dType);
  if (at.partials >= 0)
    params.append({gemmScratchType(context, c, 'p'), gemmScratchType(context, c, 'f')});
  if (at.rangeSums >= 0)
    params.push_back(gemmScratchType(context, c, 'p'));
  if (c.wgmma)
    params.append({gemmTensorMapType(context, p, c, 'a'), gemmTensorMapType(context, p, c, 'b')});
  auto kernel =
      gpu::GPUFuncOp::create(builder, loc, "gemm", builder.getFunctionType(params, {}));
  kernel->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), builder.getUnitAttr());
  builder.setInsertionPointToStart(&kernel.getBody().front());
  ValueRange args = kernel.getArguments();
  auto arg = [&](int position) { return position >= 0 ? args[position] : Value(); };
  EpilogueAttr epilogue = epilogueAttr(context, p.epilogue);
  GemmOp::create(builder, loc, args[at.a], args[at.b], args[at.d], args[at.alpha],
                 p.readsC ? args[at.beta] : Value(), p.readsC ? args[at.c] : Value(), arg(at.bias),
                 arg(at.scale), arg(at.groups), arg(at.pre), arg(at.partials), arg(at.flags),
                 arg(at.rangeSums), arg(at.aMap), arg(at.bMap), gemmConfigAttr(context, c),
                 epilogue);
  gpu::ReturnOp::create(builder, loc);
  return module;
}

void mlir::spio::loadWorkloadDialects(MLIRContext *context) {
  context->loadDialect<SpioDialect, gpu::GPUDialect, arith::ArithDialect, scf::SCFDialect,
                       vector::VectorDialect>();
}

std::string
mlir::spio::printedWorkload(function_ref<OwningOpRef<ModuleOp>(MLIRContext *)> buildWorkload) {
  MLIRContext context(MLIRContext::Threading::DISABLED);
  loadWorkloadDialects(&context);
  OwningOpRef<ModuleOp> module = buildWorkload(&context);
  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os);
  return text;
}

std::string mlir::spio::gemmSource(const GemmProblem &problem, const GemmConfig &config) {
  return printedWorkload(
      [&](MLIRContext *context) { return buildGemmWorkload(context, problem, config); });
}
