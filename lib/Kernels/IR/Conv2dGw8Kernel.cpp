//===- Conv2dGw8Kernel.cpp - The conv2d-gw8 family, built as IR -----------===//
//
// The workload of a grouped conv2d of group width 8 and the kernels spio-tile
// expands it to, built from a problem and its configuration: fprop and dgrad
// stage input rows and the group's weights in shared memory by cp.async and
// multiply them on mma.sync, staged row by staged row into every output row
// they feed (rows of fragments), or over flattened rows of narrow images;
// wgrad multiplies staged x and dy bands into per-block partial sums, which
// a reduce kernel (or the cluster) adds in a fixed order. Tiling rules are
// in Conv2dGw8Tiling.h, with what each was measured against in
// Conv2dGw8.cpp.
//
//===----------------------------------------------------------------------===//

#include "spio/Kernels/IR/Conv2dGw8Kernel.h"

#include "Conv2dGw8Tiling.h"
#include "PrintedWorkload.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <algorithm>
#include <cassert>
#include <functional>
#include <map>

using namespace mlir;
using namespace mlir::spio;
using namespace mlir::spio::build;
namespace kernels = ::spio::kernels;
using kernels::Conv2dGw8Config;
using kernels::Conv2dGw8Problem;
using namespace kernels::gw8;

// The dialect's passes are the kernel library's; its wgrad parts are the
// library's after All (the op's absent attribute).
static_assert(int(ConvPass::Fprop) == int(kernels::ConvPass::Fprop) &&
              int(ConvPass::Dgrad) == int(kernels::ConvPass::Dgrad) &&
              int(ConvPass::Wgrad) == int(kernels::ConvPass::Wgrad));
static_assert(int(WgradParts::Copies) + 1 == int(kernels::WgradParts::Copies) &&
              int(WgradParts::CopiesWithoutRowHalo) + 1 ==
                  int(kernels::WgradParts::CopiesWithoutRowHalo) &&
              int(WgradParts::Mma) + 1 == int(kernels::WgradParts::Mma));

kernels::Conv2dGw8Problem mlir::spio::conv2dGw8Problem(Conv2dGw8Op op,
                                                       const ::spio::Target &target) {
  kernels::Conv2dGw8Problem p;
  p.pass = kernels::ConvPass(int(op.getPass()));
  // The first input is the image the kernel stages, [n, h, w, channels/8];
  // for dgrad it is dy, and the image sizes come from dx, [n, p, q, c].
  ArrayRef<TensorDim> a = op.getA().getType().getDims();
  ArrayRef<TensorDim> image =
      p.pass == kernels::ConvPass::Dgrad ? op.getD().getType().getDims() : a;
  p.n = a[0].size;
  p.h = image[1].size;
  p.w = image[2].size;
  p.c = a[3].size * a[3].fold;
  p.r = op.getKernel()[0];
  p.s = op.getKernel()[1];
  p.padH = op.getPadding()[0];
  p.padW = op.getPadding()[1];
  p.stride = op.getStride();
  p.groupWidth = op.getGroupWidth();
  p.bias = bool(op.getBias());
  Type scalar = cast<VectorType>(op.getA().getType().getElementType()).getElementType();
  p.dtype = scalar.isBF16() ? kernels::DType::BF16 : kernels::DType::F16;
  p.target = target;
  if (int64_t multiprocessors = op.getConfig().getMultiprocessors())
    p.target.multiprocessors = multiprocessors;
  // wgrad into dw rather than partial sums adds them in a cluster.
  SpioTensorType out = op.getD().getType();
  p.wgradClusterReduce = p.pass == kernels::ConvPass::Wgrad && out.getDims().size() == 4;
  p.wgradF32 = p.wgradClusterReduce && out.getElementType().isF32();
  if (std::optional<WgradParts> parts = op.getParts())
    p.wgradParts = kernels::WgradParts(int(*parts) + 1);
  return p;
}

kernels::Conv2dGw8Config mlir::spio::conv2dGw8Config(Conv2dGw8ConfigAttr attr) {
  kernels::Conv2dGw8Config c;
  c.warpsQ = attr.getWarps()[0];
  c.warpsG = attr.getWarps()[1];
  c.rowsP = attr.getRows();
  c.chunks = attr.getChunks();
  c.copyWarps = attr.getCopyWarps();
  c.rowRing = attr.getRowRing();
  c.stages = attr.getStages();
  return c;
}

namespace {

/// The block's first output column, as a coordinate and split into image
/// and column (images side by side), and one copy's image and column.
struct ImageColumn {
  Coord image, column;
  /// Whether the image is one of the row's and of the batch's (null: all
  /// are).
  Value exists;
};

/// What fprop and dgrad set up before their tap loops.
struct ComputeStart {
  SmallVector<Fragment> weights;
  Coord limitO;
  /// Every output fragment's initial sums: the bias or zeros.
  Fragment initial;
};

/// The problem's global operands as the kernels see them.
struct Gw8Types {
  SpioTensorType x, w, bias, y, dy, ws, dw;
};

class Gw8Kernel {
public:
  Gw8Kernel(KernelBuilder &b, const Conv2dGw8Problem &p, const Conv2dGw8Config &c)
      : b(b), ctx(b.getContext()), p(p), c(c) {
    T = p.dtype == kernels::DType::BF16 ? Type(BFloat16Type::get(ctx))
                                        : Type(Float16Type::get(ctx));
    dgrad = p.pass == kernels::ConvPass::Dgrad;
    // The channel dimension the kernel reduces over and the one it writes:
    // fprop reads x's c and writes y's k; dgrad reads dy's k, writes dx's c.
    CI = dgrad ? "k" : "c";
    CO = dgrad ? "c" : "k";
    RD = "s" + CI;
    WG = c.warpsG;
    StagedInput staged = stagedInput(p, c);
    BQ = staged.columns;
    QT = staged.stagedColumns;
    copiedQT = staged.copiedColumns;
    rows = staged.rows;
    skipZeroRows = skipsZeroRows(p, c);
    slots = staged.slots;
    ring = staged.ring;
    flatPixels = staged.pixels;
    gradientRows = staged.gradientRows;
    st = staged.stride;
    rowSt = staged.rowStride;
    perQ = staged.columnPitch(WG);
    pixelPitch = conflictFreePitch(WG);
    tapPairStride = staged.tapPairStride(WG);
    upsample = upsamplesDy(p);
    flat = flatRows(p);
    grid = bandGrid(p, c);
    outputRows = p.pass == kernels::ConvPass::Wgrad || flat ? 1 : outputRowsPerBarrier(p, c);
    computeTypes();
  }

  /// The global operands' types.
  Gw8Types types() const { return {xT, wT, bT, yT, dyT, wsT, dwT}; }

  /// The tiled kernel (what spio-tile expands the workload op into), over
  /// the op's operands, and the ptxas hints of `kernel`.
  void buildTile(gpu::GPUFuncOp kernel, Conv2dGw8Op op);
  /// wgrad's reduce kernel and, with a bias, its two bias-gradient kernels,
  /// at the builder's insertion point in the workload's gpu.module.
  void buildWgradReduce(OpBuilder &builder, Location loc);
  void buildWgradBias(OpBuilder &builder, Location loc);

private:
  //===--- Helpers ------------------------------------------------------===//
  CoordType coord(StringRef dim, int64_t fold = 1) { return b.coordType(dim, fold); }
  Coord constant(int64_t value, StringRef dim, int64_t fold = 1, Here here = {}) {
    return b.constant(value, coord(dim, fold), here);
  }
  Value index(int64_t value, Here here = {}) { return b.index(value, here); }
  Value i32(int64_t value, Here here = {}) {
    return b.create<arith::ConstantOp>(here, b.getOpBuilder().getI32IntegerAttr(value));
  }
  /// The index `base` + `offset` (`base` itself where `offset` is 0).
  Value indexPlus(Value base, int64_t offset, Here here = {}) {
    if (!offset)
      return base;
    Value step = index(offset, here);
    return b.addi(base, step, here);
  }
  /// `body` under `scf.if` on the index `value` < `limit`.
  void ifBelow(Value value, int64_t limit, function_ref<void()> body, Here here = {}) {
    Value bound = index(limit, here);
    Value valid = b.cmpi(arith::CmpIPredicate::ult, value, bound, here);
    b.ifThen(valid, body, here);
  }
  /// The same index as a coordinate of another dimension or fold: where a
  /// stride scales a position (input row 2p for output row p).
  Coord reinterpret(Coord value, CoordType to, Here here = {}) {
    Value position = b.toIndex(value, here);
    return b.fromIndex(position, to, here);
  }
  Value castIndex(Value value, Type to, Here here = {}) {
    return b.create<arith::IndexCastUIOp>(here, to, value);
  }
  Value minui(Value lhs, Value rhs, Here here = {}) {
    return b.create<arith::MinUIOp>(here, lhs, rhs);
  }
  Value select(Value condition, Value lhs, Value rhs, Here here = {}) {
    return b.create<arith::SelectOp>(here, condition, lhs, rhs);
  }
  /// `running` + each of `values` in order (f32 additions).
  Value addInOrder(Value running, ArrayRef<Value> values, Here here = {}) {
    for (Value value : values)
      running = b.addf(running, value, here);
    return running;
  }
  /// `sum` (f32) as the weights' type `outType` (wgrad's dw and db: rounded
  /// once, unless they are written as f32).
  Value roundedToWeights(Value sum, Type outType, Here here = {}) {
    if (p.wgradF32)
      return sum;
    return b.create<arith::TruncFOp>(here, outType, sum);
  }
  /// Zeros of an f32 scalar or vector type.
  Value zerosOf(Type type, Here here = {}) {
    return b.create<arith::ConstantOp>(here, b.getOpBuilder().getZeroAttr(type));
  }
  Fragment asFragment(Value value) { return llvm::cast<Fragment>(value); }
  /// The barrier of the warps that compute: the block's, or with copy
  /// warps the compute warps' own.
  void blockBarrier(Here here = {}) {
    if (streamed)
      b.create<NamedBarrierOp>(here, 1, 32 * c.computeWarps());
    else
      b.barrier(here);
  }
  /// `sum` (f32, or a vector of `width` f32) added over the lanes whose ids
  /// differ in the bits from `firstMask` up, in a fixed xor tree that
  /// leaves each of them the same bits. NVVM shuffles 32-bit values: a
  /// vector's floats each apart.
  Value xorTreeSum(Value sum, int64_t width, int64_t firstMask);

  /// A cooperative loop over `count` elements: each pass, thread `tid` +
  /// pass * threads runs `body` on linear element `lin`, guarded so that
  /// spare threads do nothing (a zero-filling copy would overwrite a real
  /// element).
  void forEachElement(int64_t count, function_ref<void(Value)> body);
  /// A staged row's elements: an element's index in its row decomposes
  /// by `sizes` into coordinates of `types`; rows are `rowType`.
  struct RowShape {
    CoordType rowType;
    SmallVector<int64_t> sizes;
    SmallVector<CoordType> types;
  };
  using RowPart = function_ref<void(ArrayRef<Coord>)>;
  using RowBody = function_ref<void(Coord)>;
  /// A cooperative loop over `rows` rows of elements of `shape`: `inRow` on
  /// an element's coordinates, then `body` on its row (a coordinate of
  /// shape.rowType). With `rowElements`, each thread keeps its element of a
  /// row and steps through the rows, so that what depends on the element's
  /// place in a row (image, column, bounds, its share of the address) is
  /// worked out once instead of once a copy; threads beyond a whole number
  /// of rows a pass then do nothing. Otherwise forEachElement's passes.
  void forEachRowElement(int64_t rows, const RowShape &shape, bool rowElements, RowPart inRow,
                         RowBody body);
  /// Whether wgrad's band copies keep each thread on one element of a row
  /// (forEachRowElement): where a band row is 3 or more column tiles
  /// (TUNING.md, "Copies").
  bool wgradRowElements() const { return !flat && grid.qTiles >= 3; }
  /// forEachElement over the output tile's 16-byte vectors (a pixel's WG
  /// groups in a row), its threads ordered by copyOutTid.
  void forEachOutputVector(int64_t count, function_ref<void(Value)> body);
  /// Staged input rows [first, first + count), into shared rows from
  /// `slot` on (first where negative); without zero rows (zeroRow), each
  /// into its slotOf.
  void stageInput(int64_t first, int64_t count, int64_t slot = -1);
  /// The copies of stageInput, every row.
  void copyInputRows(int64_t first, int64_t count, int64_t slot);
  void stageWeights();
  /// Narrow groups: stages weight row k (of tap wr, ws; zeros where `ok`
  /// is false) as its 8 channels' block-diagonal row at `stagedAt` of sw.
  void stageNarrowWeightRow(Coord k, Coord wr, Coord ws, Value ok, ArrayRef<Coord> stagedAt);
  /// fprop/dgrad: an A fragment over `pixels` or a B fragment (no pixels)
  /// for an mma step of `taps` taps, or (C) the sums over `pixels`, of the
  /// first step's shape.
  FragmentType fragmentType(char role, StringRef pixels, int64_t taps = 0) {
    if (role == 'C')
      taps = tapSteps(p).front().taps;
    MmaShape shape = taps == 2 ? MmaShape::M16N8K16 : MmaShape::M16N8K8;
    if (role == 'A')
      return b.fragmentType(FragmentOperand::A, shape, T, pixels, RD);
    if (role == 'B')
      return b.fragmentType(FragmentOperand::B, shape, T, RD, CO);
    return b.fragmentType(FragmentOperand::C, shape, Float32Type::get(ctx), pixels, CO);
  }
  /// The image of the band's column q0 + `offset` (a `q`, under
  /// `columns`) and its column in that image: n and q0 + `offset`, or
  /// with images side by side (grid.images > 1) the image from the band's
  /// first n on, the column among its packedPitch, and whether the image
  /// is one of the row's and of the batch's.
  ImageColumn imageColumn(Coord offset, int64_t columns);
  /// Gapless images (BandGrid::gapless): the image and column of the
  /// block's output pixel d0 + `offset` (a `q`, under `columns`).
  ImageColumn gaplessColumn(Coord offset, int64_t columns);
  /// The image and column, as i32 under `pitch` (the value `pitchValue`),
  /// of the block's first column (q0img, q0col, whose column is under both
  /// pitches) plus `offset`.
  ImageColumn splitColumn(Coord offset, int64_t columns, int64_t pitch, Value pitchValue,
                          Value first);
  /// With images side by side: the pitch and q0's image and column among
  /// it, as i32 (q0img, q0col), one division where q0 is defined, so that
  /// a copy whose offsets span at most a pitch and one column takes an
  /// addition and a wrap instead of a division of its own. Gapless images:
  /// q0 is the staged column of the tile's first output pixel d0 (i32
  /// d0v), with the output row's pitch qpitch.
  void splitFirstColumn();
  /// Gapless images: this lane's A-fragment row, as the staged column
  /// (from q0) of the pixel it addresses in warp wq's fragment, gq.
  void gatherColumn();
  /// Gapless images: pixel `pixel` (i32) of the row of images is column
  /// pixel % Q of image pixel / Q, staged at image * pitch + column:
  /// {image, column, staged}.
  std::array<Value, 3> splitGaplessPixel(Value pixel);
  /// n (the band's image, or the first of its row of images side by side),
  /// p0 and, with `columnTiles` (wgrad), q0 of `band`, an index over
  /// (images, row tiles[, column tiles]).
  void bandCoordinates(Value band, bool columnTiles);
  /// wgrad: dy's band into shared memory; the band's mma into the partial
  /// sums `accs`.
  void stageGradient();
  void computeWgrad(SmallVector<Fragment> &accs);
  void computeWgradFlat(SmallVector<Fragment> &accs);
  void computeWgradFlatRowSteps(SmallVector<Fragment> &accs);
  /// wgrad on flattened rows: the m16n8k8 fragment type `kind` (A: x's
  /// taps by pixels, B: dy's pixels by channels).
  FragmentType flatStepFragmentType(char kind) {
    return kind == 'A' ? b.fragmentType(FragmentOperand::A, MmaShape::M16N8K8, T, "sc", "m")
                       : b.fragmentType(FragmentOperand::B, MmaShape::M16N8K8, T, "m", "k");
  }
  /// The warp's 8-pixel step `j` (an index) as a coordinate.
  Coord flatStep(Value j) { return b.fromIndex(j, coord("m", 8)); }
  /// dy's B fragment at the warp's step `step`.
  Fragment loadFlatGradient(Coord step);
  /// x's A fragment of the tap pair at pixel offset `tap` from the warp's
  /// step `step` (`rowPair`: from the view of paired staged rows).
  Fragment loadFlatInput(Coord step, int64_t tap, bool rowPair);
  /// band0 and band1: the range of bands block_y takes (BandGrid).
  void chunkBands();
  /// wgrad on flattened rows: the 8-pixel steps of a band each warp along
  /// the pixels takes.
  int64_t wgradStepsPerWarp() const { return flatPixels / (8 * c.warpsQ); }
  /// wgrad's warps along the pixels (wq): 16-column fragments, or
  /// flattened rows' steps.
  StringRef wgradPixelDim() const { return flat ? "m" : "q"; }
  int64_t wgradPixelFold() const { return flat ? 8 * wgradStepsPerWarp() : 16; }
  /// wgrad's partial sums: m16n8k16 over a row's 16 columns, m16n8k8 over
  /// flattened rows' 8-pixel steps.
  FragmentType wgradAccumulatorType() {
    return b.fragmentType(FragmentOperand::C, flat ? MmaShape::M16N8K8 : MmaShape::M16N8K16,
                          Float32Type::get(ctx), "sc", "k");
  }
  /// copyOutTid: tid permuted so that a 16-byte access phase of the
  /// output tile's copy-out reads 8 distinct bank slots.
  void defineCopyOutThread();
  /// fprop/dgrad: one output row from the shared tile's `slot` to y as
  /// 16-byte vectors, within the bounds.
  void copyOutputRow(Coord slot, Coord pAbs, Coord limitQ);
  /// The group's B fragment of every tap (dgrad: flipped, transposed).
  SmallVector<Fragment> loadWeights();
  /// What fprop and dgrad set up before their tap loops, with fragments
  /// over the pixel dimension `pixels` (q, or m for flattened rows): the
  /// warp's coordinates (wg and wq), its group as weight rows and output
  /// channels (wgk, wgo), the bias viewed broadcast over a fragment's 16
  /// pixels or a zero, the wait for the first `pending` commit groups (none
  /// where negative: the caller waited), and the weights.
  ComputeStart beginCompute(StringRef pixels, int64_t pending);
  /// fprop/dgrad on rows of fragments: the block's output rows from its
  /// staged rows, waiting for each commit group of them (`awaitRows`) or
  /// with all of them staged.
  void computeRows(const ComputeStart &start, bool awaitRows);
  /// fprop/dgrad with copy warps (Conv2dGw8Config::copyWarps): the copy
  /// warps stream the chunk's bands' rows into the staged tile, the
  /// compute warps compute each band as its rows land.
  void buildStreamedBands();
  /// The bias broadcast over a fragment's 16 `pixels` by a zero stride.
  SpioTensorType biasViewType(StringRef pixels) {
    return b.tensorType({{pixels, 1, 16, 0}, {CO, 1, p.c}}, T, MemorySpace::Global);
  }
  /// fprop/dgrad on flattened rows: for each of the block's bands, its
  /// 16-pixel fragments, then its output rows copied out.
  void computeFlat();
  /// conv2dGw8WgradDiscards(): after its sums, the reduce block drops the
  /// partial-sum lines of the output channels it alone read.
  void discardReadPartials(int64_t elementsPerBlock, Tensor ws, Value bx);
  /// Where the partial sums hold tap (`r`, `s`) (WgradSum): its kernel row
  /// and sc/8 entry.
  std::pair<Coord, Coord> partialSumPlace(Coord r, Coord s);
  /// Narrow groups: whether dw element (`k`, V channels from `channels`)
  /// of an 8-channel sum lies in k's group, and the channels' place in the
  /// narrow dw (a null i1 and `channels` at group width 8).
  std::pair<Value, Coord> narrowWeightColumn(Coord k, Coord channels, int64_t V);
  SwizzleAttrInterface swizzleFor(int64_t perRow) const;
  void computeTypes();
  /// fprop/dgrad on rows of fragments: blocks of this kernel a
  /// multiprocessor holds by shared memory, at up to 40 registers a thread.
  int64_t residentBlocks() const { return rowsResidentBlocks(p, c, outputRows); }
  /// Whether the kernel computes its global offsets in 32 bits
  /// (spio.offset_bits).
  bool narrowOffsets() const {
    // wgrad's 5x5 kernels spend most of a band's instructions on their
    // copies' offsets, which 32 bits make cheaper; the other kernels ran no
    // faster so (the GEMM's slower), so they keep 64.
    return p.pass == kernels::ConvPass::Wgrad && p.s >= 5;
  }
  /// The ptxas hints and cluster shape of the tiled kernel.
  void setKernelAttributes(gpu::GPUFuncOp kernel);
  void buildTileBody();
  void buildWgradTileBody();
  /// wgrad's row ring: a band's copies of x, its first R - 1 rows only
  /// where it starts a column tile or the chunk.
  void stageRingRows();
  /// wgrad's row ring: this band's last R - 1 staged rows into the next
  /// band's first, where the next band continues this column tile.
  void handOnRingRows();
  /// wgrad: the block's partial sums `sums` into the workspace
  /// (wgradSumsPerRound), or with wgradClusterReduce into its shared csums.
  void storeWgradPartial(ArrayRef<WgradSum> sumPlaces, ValueRange sums, FragmentType FC);
  /// wgradClusterReduce: after every block of the cluster has stored its
  /// sums, each adds a share of the group tile's dw elements over the
  /// blocks in order and stores them.
  void reduceInCluster();

  KernelBuilder &b;
  MLIRContext *ctx;
  const Conv2dGw8Problem &p;
  const Conv2dGw8Config &c;
  Type T;
  bool dgrad;
  std::string CI, CO;
  /// Output columns, staged columns (whole swizzle periods) and those of
  /// them the taps read, which are all that copies fill.
  int64_t BQ, WG, QT, copiedQT, rows;
  /// Shared rows of the staged input (StagedInput::slots), whether they
  /// are a ring, and the commit groups of staged rows issued so far
  /// (computeRows).
  int64_t slots, committedGroups = 0;
  bool ring;
  /// With copy warps: each staged row's slot has a barrier the copy warps
  /// complete when its copies land (full, barrier i) and one the compute
  /// warps complete when they have read it (empty, barrier rows + i), in
  /// `bars`; `rowPhase` is the parity of the band's phase of the full
  /// barriers (computeRows waits for it). The compute warps synchronize
  /// among themselves (named barrier 1).
  bool streamed = false;
  Value rowPhase;
  Barriers bars;
  /// Who shares forEachElement's elements: the thread index from 0 and the
  /// thread count (the block's, or with copy warps those of one role).
  Value elementTid;
  int64_t elementThreads = 0;
  /// The thread index forEachOutputVector spreads the output tile's
  /// vectors by (defineCopyOutThread).
  Value copyOutTid;
  /// The shared row of staged row i.
  int64_t slotOf(int64_t i) const { return skipZeroRows ? i / 2 : i % slots; }
  /// One past the last staged row of commit group g: group 0 holds rows
  /// 0 .. R - 1, group g the rowSt * outputRows rows before groupEnd(g)
  /// (the last one those left).
  int64_t groupEnd(int64_t g) const { return std::min(rows, p.r + rowSt * outputRows * g); }
  int64_t groupCount() const { return 1 + ceilDiv(rows - p.r, rowSt * outputRows); }
  /// Output rows between two barriers (outputRowsPerBarrier).
  int64_t outputRows = 1;
  /// The stride of the staged input (1 for dgrad), the vectors between its
  /// staged columns (StagedInput::columnPitch), between the pixels of
  /// flattened and dy tiles (conflictFreePitch), and from a tap to the next
  /// of a pair (StagedInput::tapPairStride); whether the staging upsamples
  /// dy (dgrad, stride 2).
  int64_t st, perQ, pixelPitch, tapPairStride;
  /// Staged rows from an output row to the next (StagedInput::rowStride).
  int64_t rowSt;
  bool upsample;
  /// skipsZeroRows: the zero rows (zeroRow) are neither staged nor
  /// multiplied, half the mma of the upsampled rows.
  bool skipZeroRows = false;
  bool zeroRow(int64_t i) const { return skipZeroRows && (i - p.kernelPadH()) % 2 != 0; }
  /// Narrow images: rows flattened into `m` (flatRows), the pixels a block
  /// computes, and wgrad's staged dy rows.
  bool flat = false;
  int64_t flatPixels = 0, gradientRows = 0;
  SpioTensorType xT, wT, bT, yT, sxT, swT, dyT, sdyT, wsT, dwT, csumT;
  /// fprop/dgrad: the reduction dimension of an mma, its taps times the
  /// channels (`sc`, dgrad `sk`), and the staged weights viewed with it.
  std::string RD;
  SpioTensorType swpT;
  /// fprop/dgrad: y as 16-byte vectors, and the shared output tile as
  /// scalars (fragment stores) and as vectors (copies out).
  SpioTensorType yvT, syT, syvT;
  /// Flattened rows: the staged input (wgrad: and dy) as pixels `m`.
  SpioTensorType sxfT, sdyfT;
  /// wgrad: the staged input (as rows or as pixels `m`) whose `sc/8` entry
  /// steps one staged row (WgradSum::rowPair).
  SpioTensorType sxRowsT;
  /// The bands, chunks and images side by side (bandGrid).
  BandGrid grid{};

  //===--- Values of the kernel being built -----------------------------===//
  /// Global operands (fprop/dgrad: x, w, bias, y; dgrad's x is dy and y
  /// is dx; wgrad: x, dy and ws or dw) and their views.
  Tensor x, w, bias, y, dy, ws, dw, yv;
  /// Shared tiles and their views.
  Tensor sx, sw, swp, sy, syv, sxf, sdy, sdyf, sxr, csums;
  /// Block, thread and warp indices; the band loop's range and index.
  Value bx, by, tid, warp, band0, band1, band, ptIndex;
  /// The band's image, first output row and column; the block's first
  /// group (input and output channels, weight rows); the warp's group and
  /// pixel tile.
  Coord n, p0, q0, d0, g0, go0, co0, wk0, gk0, k0, wg, wq, wgk, wgo, gq;
  /// Images side by side: the pitches and the first column split (i32).
  Value pitch, qpitch, q0v, q0img, q0col, d0v;
};

} // namespace

Value Gw8Kernel::xorTreeSum(Value sum, int64_t width, int64_t firstMask) {
  Value lanes = i32(32);
  for (int64_t mask = firstMask; mask < 32; mask *= 2) {
    Value offset = i32(mask), other;
    auto shuffle = [&](Value mine) {
      return b.create<gpu::ShuffleOp>({}, mine, offset, lanes, gpu::ShuffleMode::XOR)
          .getShuffleResult();
    };
    if (width == 1) {
      other = shuffle(sum);
    } else {
      SmallVector<Value> joined;
      for (int64_t e = 0; e < width; ++e) {
        Value mine = b.create<vector::ExtractOp>({}, sum, ArrayRef<int64_t>{e});
        joined.push_back(shuffle(mine));
      }
      other = b.create<vector::FromElementsOp>({}, sum.getType(), joined);
    }
    sum = addInOrder(sum, {other});
  }
  return sum;
}

void Gw8Kernel::forEachElement(int64_t count, function_ref<void(Value)> body) {
  int64_t threads = elementThreads ? elementThreads : c.threads();
  for (int64_t pass = 0; pass * threads < count; ++pass) {
    Value offset = index(pass * threads);
    Value lin = b.addi(elementTid, offset);
    ifBelow(lin, count, [&] { body(lin); });
  }
}

void Gw8Kernel::forEachRowElement(int64_t rows, const RowShape &shape, bool rowElements,
                                  RowPart inRow, RowBody body) {
  int64_t perRow = 1;
  for (int64_t size : shape.sizes)
    perRow *= size;
  // An element's coordinates in its row, and with `withRow` its row last.
  auto decompose = [&](Value linear, bool withRow) {
    SmallVector<int64_t> sizes;
    SmallVector<CoordType> types;
    if (withRow) {
      sizes.push_back(rows);
      types.push_back(shape.rowType);
    }
    sizes.append(shape.sizes.begin(), shape.sizes.end());
    types.append(shape.types.begin(), shape.types.end());
    SmallVector<Coord> coords = b.decompose(linear, sizes, types);
    if (withRow)
      std::rotate(coords.begin(), coords.begin() + 1, coords.end());
    return coords;
  };
  if (!rowElements) {
    forEachElement(rows * perRow, [&](Value lin) {
      SmallVector<Coord> coords = decompose(lin, true);
      Coord row = coords.pop_back_val();
      inRow(coords);
      body(row);
    });
    return;
  }
  auto rowAt = [&](Value position) { body(b.fromIndex(position, shape.rowType)); };
  int64_t threads = elementThreads ? elementThreads : c.threads();
  if (perRow > threads) {
    // Each thread takes an element every `threads` of a row, in every row.
    for (int64_t slot = 0; slot * threads < perRow; ++slot) {
      Value e = indexPlus(elementTid, slot * threads);
      auto copies = [&] {
        inRow(decompose(e, false));
        for (int64_t r = 0; r < rows; ++r)
          rowAt(index(r));
      };
      if ((slot + 1) * threads > perRow)
        ifBelow(e, perRow, copies);
      else
        copies();
    }
    return;
  }
  // step rows a pass: thread t takes element t mod perRow of row
  // t / perRow, then of the rows step, 2 step, ... further on.
  int64_t step = std::min(threads / perRow, rows);
  Value width = index(perRow);
  Value first = b.divui(elementTid, width);
  Value e = b.remui(elementTid, width);
  auto copies = [&] {
    inRow(decompose(e, false));
    for (int64_t pass = 0; pass * step < rows; ++pass) {
      Value row = indexPlus(first, pass * step);
      if ((pass + 1) * step > rows)
        ifBelow(row, rows, [&] { rowAt(row); });
      else
        rowAt(row);
    }
  };
  if (step * perRow < threads)
    ifBelow(first, step, copies);
  else
    copies();
}

void Gw8Kernel::forEachOutputVector(int64_t count, function_ref<void(Value)> body) {
  // A pass takes whole runs of 8 * WG threads (all the compute threads),
  // so the permuted indices cover the same elements as tid's.
  Value threadIndex = elementTid;
  elementTid = copyOutTid;
  forEachElement(count, body);
  elementTid = threadIndex;
}

void Gw8Kernel::stageInput(int64_t firstRow, int64_t numRows, int64_t slot) {
  if (!skipZeroRows) {
    copyInputRows(firstRow, numRows, slot);
    return;
  }
  for (int64_t m = firstRow; m < firstRow + numRows; ++m)
    if (!zeroRow(m))
      copyInputRows(m, 1, slotOf(m));
}

void Gw8Kernel::copyInputRows(int64_t firstRow, int64_t numRows, int64_t slot) {
  bool strided = st == 2;
  Coord first = constant(firstRow, "r");
  bool moved = slot >= 0 && slot != firstRow;
  Coord firstSlot = moved ? constant(slot, "r") : first;
  CoordType Q = coord("q"), G8 = coord(CI, 8);
  Coord padH = constant(p.kernelPadH(), "h"), padW = constant(p.kernelPadW(), "w");
  Coord zeroH = constant(0, "h"), zeroW = constant(0, "w");
  Coord limitH = constant(p.kernelInH(), "h"), limitW = constant(p.kernelInW(), "w");
  Coord limitC = constant(p.c, CI);
  // The block's first input row: stride * p0, in steps of the stride.
  CoordType HS = coord("h", st), WS = coord("w", st);
  Coord ph = strided ? reinterpret(p0, HS) : b.cast(p0, "h");
  // A staged row's elements: (column, [input column's phase,] group).
  RowShape shape{coord("r"), {copiedQT, WG}, {Q, G8}};
  if (strided) {
    // A kernel one column wide reads no odd input column (wgrad's paired
    // tap there is a partial sum dw leaves out): x's odd columns stay in
    // memory, half the bytes of the rows.
    shape.sizes.insert(shape.sizes.begin() + 1, p.s == 1 ? 1 : 2);
    shape.types.insert(shape.types.begin() + 1, coord("wp"));
  }
  // What a copy's element of a row decides (its column and group): the
  // bounds apart, as forEachElement's copies combine them with the row's,
  // and together (columnOk), as rowElements copies do.
  bool rowElements = p.pass == kernels::ConvPass::Wgrad && wgradRowElements();
  Coord qq, wp, gl, wCol, g;
  Value evenW, columnInside, groupInside, columnOk;
  ImageColumn at;
  auto inRow = [&](ArrayRef<Coord> element) {
    qq = element.front(), gl = element.back(), wp = strided ? element[1] : Coord();
    // Input column w = stride * (q0 + q) + wp - padW.
    at = imageColumn(qq, copiedQT);
    if (strided) {
      // Staged column q holds the image's input columns 2q and 2q + 1.
      Coord wq = reinterpret(at.column, WS);
      Coord wpw = b.cast(wp, "w");
      wCol = b.sub(b.add(wq, wpw), padW);
    } else {
      wCol = b.sub(b.cast(at.column, "w"), padW);
    }
    if (upsample) {
      // Position u of the upsampled dy holds dy[u / 2] when u is even.
      evenW = b.cmp(CmpPredicate::eq, b.mod(wCol, 2), zeroW);
      wCol = reinterpret(b.fold(wCol, 2), coord("w"));
    }
    columnInside =
        b.andi(b.cmp(CmpPredicate::ge, wCol, zeroW), b.cmp(CmpPredicate::lt, wCol, limitW));
    g = b.add(g0, gl);
    groupInside = b.cmp(CmpPredicate::lt, g, limitC);
    if (!rowElements)
      return;
    columnOk = b.andi(upsample ? b.andi(evenW, columnInside) : columnInside, groupInside);
    if (at.exists)
      columnOk = b.andi(columnOk, at.exists);
  };
  auto copyRow = [&](Coord rl) {
    // Input row h = stride * p0 + r - padH; staged rows of even input rows
    // alone (rowSt 1 at stride 2) step two input rows.
    Coord rr = b.add(first, rl);
    Coord rh = rowSt == st ? b.cast(rr, "h") : reinterpret(rr, HS);
    Coord h = b.sub(b.add(ph, rh), padH);
    Value evenH;
    if (upsample) {
      evenH = b.cmp(CmpPredicate::eq, b.mod(h, 2), zeroH);
      h = reinterpret(b.fold(h, 2), coord("h"));
    }
    Value ok = b.andi(b.cmp(CmpPredicate::ge, h, zeroH), b.cmp(CmpPredicate::lt, h, limitH));
    if (rowElements) {
      ok = b.andi(upsample ? b.andi(evenH, ok) : ok, columnOk);
    } else {
      ok = upsample ? b.andi(b.andi(evenH, evenW), b.andi(ok, columnInside))
                    : b.andi(ok, columnInside);
      ok = b.andi(ok, groupInside);
      if (at.exists)
        ok = b.andi(ok, at.exists);
    }
    Coord sr = moved ? b.add(firstSlot, rl) : rr;
    SmallVector<Coord> dst =
        strided ? SmallVector<Coord>{sr, qq, wp, gl} : SmallVector<Coord>{sr, qq, gl};
    b.asyncCopy(x, {at.image, h, wCol, g}, sx, dst, ok);
  };
  forEachRowElement(numRows, shape, rowElements, inRow, copyRow);
}

void Gw8Kernel::stageWeights() {
  // dgrad runs the taps backwards: it stages w[k, R - 1 - r, S - 1 - s] as
  // tap (r, s), so that both passes read a tap pair as consecutive taps.
  int64_t count = p.r * p.s * 8 * WG;
  CoordType K = coord("k"), R = coord("r"), S = coord("s");
  Coord limitK = constant(p.c, "k");
  Coord lastR = dgrad ? constant(p.r - 1, "r") : Coord();
  Coord lastS = dgrad ? constant(p.s - 1, "s") : Coord();
  forEachElement(count, [&](Value lin) {
    SmallVector<Coord> tap = b.decompose(lin, {p.r, p.s, 8 * WG}, {R, S, K});
    Coord rr = tap[0], ss = tap[1], kl = tap[2];
    Coord k = b.add(wk0, kl);
    Value ok = b.cmp(CmpPredicate::lt, k, limitK);
    Coord wr = dgrad ? b.sub(lastR, rr) : rr;
    Coord ws = dgrad ? b.sub(lastS, ss) : ss;
    if (p.narrowGroups())
      stageNarrowWeightRow(k, wr, ws, ok, {rr, ss, kl});
    else
      b.asyncCopy(w, {k, wr, ws}, sw, {rr, ss, kl}, ok);
  });
}

void Gw8Kernel::stageNarrowWeightRow(Coord k, Coord wr, Coord ws, Value ok,
                                     ArrayRef<Coord> stagedAt) {
  // Row k of its 8 channels' block-diagonal matrix: channel j holds w[k,
  // wr, ws, j % g] where j's group (j / g) is k's within the 8 ((k % 8) /
  // g), else zero. A row past C is zeros, as a zero-filled copy leaves it.
  int64_t g = p.groupWidth;
  Value kIndex = b.toIndex(k);
  Value eight = index(8), width = index(g);
  Value kGroup = b.divui(b.remui(kIndex, eight), width);
  Coord kIn = b.fromIndex(minui(kIndex, index(p.c - 1)), coord("k"));
  SmallVector<Value> groupRow;
  for (int64_t j = 0; j < g; ++j)
    groupRow.push_back(b.load(w, {kIn, wr, ws, constant(j, "c")}));
  Value zero = b.create<arith::ConstantOp>({}, b.getOpBuilder().getZeroAttr(T));
  SmallVector<Value> row;
  for (int64_t j = 0; j < 8; ++j) {
    Value inGroup = b.andi(ok, b.cmpi(arith::CmpIPredicate::eq, kGroup, index(j / g)));
    row.push_back(select(inGroup, groupRow[j % g], zero));
  }
  Value vector = b.create<vector::FromElementsOp>({}, b.vector8(T), row);
  SmallVector<Coord> at(stagedAt);
  at.push_back(constant(0, "c", 8));
  b.store(vector, sw, at);
}

SmallVector<Fragment> Gw8Kernel::loadWeights() {
  // The group's weights, one B fragment per mma step of taps, stay in
  // registers. dgrad reduces over k, so it reads them transposed.
  swp = b.view(sw, swpT);
  SmallVector<Fragment> weights;
  for (int64_t r = 0; r < p.r; ++r)
    for (TapStep step : tapSteps(p)) {
      Coord rc = constant(r, "r"), tap = constant(step.s, RD, 8);
      weights.push_back(b.ldmatrix(swp, {rc, tap, wgk}, fragmentType('B', "", step.taps), dgrad));
    }
  return weights;
}

ComputeStart Gw8Kernel::beginCompute(StringRef pixels, int64_t pending) {
  SmallVector<Coord> warpAt = b.decompose(warp, {WG, c.warpsQ}, {coord(CI, 8), coord(pixels, 16)});
  wg = warpAt[0];
  wq = warpAt[1];
  if (grid.gapless)
    gatherColumn();
  // The warp's group, as weight rows (k) and as output channels.
  wgk = b.cast(wg, "k");
  wgo = b.cast(wg, CO);
  ComputeStart start;
  start.limitO = constant(p.c, CO);
  Coord rows16 = constant(16, pixels);
  FragmentType FC = fragmentType('C', pixels);
  // Every accumulator starts from one fragment: zeros, or the bias (the
  // warp's channels broadcast over its pixels) loaded once, ahead of the
  // wait, not after each row's barrier, across which LLVM cannot hoist a
  // load.
  if (p.bias) {
    Tensor broadcast = b.view(bias, biasViewType(pixels));
    start.initial = b.loadFragment(broadcast, {co0, wgo}, FC, Bounds{rows16, start.limitO});
  } else {
    start.initial = b.fill(b.f32(0.0), FC);
  }
  if (pending >= 0) {
    b.asyncWait(int32_t(pending));
    b.barrier();
  }
  start.weights = loadWeights();
  return start;
}

void Gw8Kernel::computeFlat() {
  CoordType M16 = coord("m", 16), G8 = coord(CO, 8);
  sxf = b.view(sx, sxfT);
  ComputeStart start = beginCompute("m", 0);
  // The block's bands (of whole images, or rows of one), a 2-stage ring:
  // the next band's rows copy in while this one computes, and the weights
  // stay in registers for all of them.
  chunkBands();
  Value one = index(1);
  scf::ForOp bands = b.forLoop(band0, band1, one, {}, [&](Value iv, ValueRange) {
    band = iv;
    SmallVector<Coord> at = b.decompose(band, {p.n, ceilDiv(p.kernelOutH(), c.rowsP)},
                                        {coord("n"), coord("p", c.rowsP)});
    n = at[0];
    p0 = b.unfold(at[1], 1);
    stageInput(0, rows);
    b.asyncCommit();
    b.asyncWait(0);
    b.barrier();
    int64_t MT = flatPixels / 16;
    Coord limitTiles = constant(MT, "m", 16);
    // Warp wm takes fragments wm, wm + warpsQ, ... in a loop, not unrolled:
    // unrolled, every fragment's ldmatrix addresses are loop-invariant in
    // the band loop and stay in registers (20x20 images: 250 registers). A
    // fragment made from the loop index is a whole number of swizzle
    // periods, so its ldmatrix addresses are one add each (spio-to-gpu).
    Value zero = index(0), perWarp = index(ceilDiv(MT, c.warpsQ)), warpsQ = index(c.warpsQ);
    Value wmi = b.toIndex(wq);
    b.forLoop(zero, perWarp, one, {}, [&](Value j, ValueRange) {
      Value firstTile = b.muli(j, warpsQ);
      Value tileAt = b.addi(firstTile, wmi);
      Coord tile = b.fromIndex(tileAt, M16);
      Value inside = b.cmp(CmpPredicate::lt, tile, limitTiles);
      b.ifThen(inside, [&] {
        Fragment acc = start.initial;
        std::vector<TapStep> steps = tapSteps(p);
        for (int64_t r = 0; r < p.r; ++r)
          for (size_t step = 0; step < steps.size(); ++step) {
            FragmentType FA = fragmentType('A', "m", steps[step].taps);
            Coord tap = constant(r * QT + steps[step].s, "m");
            Fragment a = b.ldmatrix(sxf, {tile, tap, wg}, FA, false);
            acc = b.mma(a, start.weights[r * steps.size() + step], acc);
          }
        b.storeFragment(acc, sy, {tile, wgo}, std::nullopt);
      });
      return SmallVector<Value>{};
    });
    b.barrier();
    // Pixel (row, q) of the block is m = row * (Q + S - 1) + q of the tile.
    int64_t Qn = p.kernelOutW(), count = c.rowsP * Qn * WG;
    CoordType MQ = coord("m", QT), Q = coord("q"), P = coord("p");
    Coord limitP = constant(p.kernelOutH(), "p");
    forEachOutputVector(count, [&](Value lin) {
      SmallVector<Coord> pixel = b.decompose(lin, {c.rowsP, Qn, WG}, {P, Q, G8});
      Coord pr = pixel[0], qq = pixel[1], gl = pixel[2];
      Coord pAbs = b.add(p0, pr), g = b.add(go0, gl);
      Value ok =
          b.andi(b.cmp(CmpPredicate::lt, pAbs, limitP), b.cmp(CmpPredicate::lt, g, start.limitO));
      b.ifThen(ok, [&] {
        Coord rowM = b.unfold(reinterpret(pr, MQ), 1);
        Coord colM = b.cast(qq, "m");
        Value v = b.load(syv, {rowM, colM, gl});
        b.store(v, yv, {n, pAbs, qq, g});
      });
    });
    b.barrier();
    return SmallVector<Value>{};
  });
  bands->setAttr("spio.stages", b.getOpBuilder().getI64IntegerAttr(2));
}

void Gw8Kernel::computeRows(const ComputeStart &start, bool awaitRows) {
  Coord limitQ = constant(p.kernelOutW(), "q"), limitP = constant(p.kernelOutH(), "p");
  // A ring of accumulators: each staged row is read once per mma step of
  // taps and multiplied into every output row it feeds (output row j reads
  // staged rows stride * j + r), so a block loads R times fewer A fragments
  // than one output row at a time would. Staged rows go in order, so each
  // output still adds its taps in (r, s) order: the same sums, bit for bit.
  // Rows past the image compute on zero-filled staging and are not written.
  SmallVector<Fragment> acc(c.rowsP);
  // Output rows whose fragments are in the shared tile, to be copied out
  // after the next barrier.
  struct CompletedRow {
    Coord pAbs;
    Value inside;
    Coord slot;
  };
  SmallVector<CompletedRow> completed;
  int64_t awaited = 0;
  std::vector<TapStep> steps = tapSteps(p);
  // After a barrier that follows the reads of staged rows up to
  // `consumed`, copies in (and commits) each group whose rows' ring slots
  // those rows held.
  auto refill = [&](int64_t consumed) {
    for (; committedGroups < groupCount() && groupEnd(committedGroups) - 1 - slots <= consumed;
         ++committedGroups) {
      for (int64_t m = groupEnd(committedGroups - 1); m < groupEnd(committedGroups); ++m)
        stageInput(m, 1, m % slots);
      b.asyncCommit();
    }
  };
  // Commit group 0 holds staged rows 0 .. R - 1 (beginCompute waited for
  // it); group g the stride rows after R + stride * (g - 1). Waits for
  // staged row i's group if it has not been waited for; true if it did
  // (the block must sync next).
  auto awaitRow = [&](int64_t i) {
    int64_t group = i < p.r ? 0 : (i - p.r) / (rowSt * outputRows) + 1;
    if (!awaitRows || group <= awaited)
      return false;
    assert(group < committedGroups && "a ring slot is refilled before its rows are awaited");
    b.asyncWait(int32_t(committedGroups - 1 - group));
    awaited = group;
    return true;
  };
  // Staged row i's A fragment of every mma step. Output column q at tap s
  // reads staged column q + s / stride (and, strided, the input column
  // parity s % 2); with paired taps the tensor's RD/8 entry steps to tap
  // s + 1.
  auto loadRow = [&](int64_t i) {
    SmallVector<Fragment> fragments;
    if (zeroRow(i))
      return fragments;
    Coord stagedRow = constant(slotOf(i), "r"), zeroR = constant(0, "r");
    Value empty;
    if (streamed) {
      Value full = index(slotOf(i));
      empty = index(rows + slotOf(i));
      b.barrierWait(bars, full, rowPhase);
    }
    for (TapStep step : steps) {
      Coord sq = constant(step.s / st, "q");
      Coord parity = st == 2 ? constant(step.s % 2, "wp") : Coord();
      // Gapless: the warp's tile is in the lanes' gathered columns (gq).
      Coord tile = grid.gapless ? constant(0, "q", 16) : wq;
      SmallVector<Value> coords{stagedRow, zeroR, tile, sq};
      if (parity)
        coords.push_back(parity);
      coords.push_back(wg);
      FragmentType FA = fragmentType('A', "q", step.taps);
      fragments.push_back(asFragment(
          b.create<LdMatrixOp>({}, FA, sx, coords, grid.gapless ? Value(gq) : Value(), false)));
    }
    // The fragments are in registers: the slot may take the next band's row.
    if (streamed)
      b.barrierArrive(bars, empty);
    return fragments;
  };
  // With every staged row committed up front (no ring), the next staged
  // row's A fragments load before this row's mma, which hides their
  // latency behind it (waiting one staged row earlier; TUNING.md,
  // "Copies"). A ring's refills follow the rows it has read, so it loads
  // them after its barrier.
  SmallVector<Fragment> a = loadRow(0), ahead;
  bool prefetch = !ring;
  if (prefetch && rows > 1 && awaitRow(1))
    blockBarrier();
  for (int64_t i = 0; i < rows; ++i) {
    if (prefetch && i + 1 < rows)
      ahead = loadRow(i + 1);
    for (size_t step = 0; step < steps.size() && !zeroRow(i); ++step) {
      for (int64_t r = 0; r < p.r && r <= i; ++r) {
        if ((i - r) % rowSt != 0 || (i - r) / rowSt >= c.rowsP)
          continue;
        Fragment &sum = acc[(i - r) / rowSt];
        if (!sum)
          sum = start.initial;
        sum = b.mma(a[step], start.weights[r * steps.size() + step], sum);
      }
    }
    // Output row j is complete after staged row rowSt * j + R - 1. Its
    // outputs go through a shared tile (2 * outputRows slots), so that
    // each pixel's channels leave as whole 16-byte vectors rather than as
    // 4-byte pieces of half-used sectors. One barrier covers the tile's
    // fragment stores of the last outputRows rows (or fewer) and the
    // copies of the staged rows after the next one loaded (of the next, in
    // a ring, whose A fragments then load before the rows' copies out).
    if (i + 1 >= p.r && (i + 1 - p.r) % rowSt == 0) {
      int64_t row = (i + 1 - p.r) / rowSt;
      // Only zero rows feed it (stride-2 dgrad, R = 1, odd rows): zeros.
      if (!acc[row])
        acc[row] = start.initial;
      CompletedRow done;
      done.pAbs = b.add(p0, constant(row, "p"));
      done.inside = b.cmp(CmpPredicate::lt, done.pAbs, limitP);
      done.slot = constant(row % (2 * outputRows), "slot");
      b.ifThen(done.inside, [&] {
        b.storeFragment(acc[row], sy, {done.slot, wq, wgo}, std::nullopt);
      });
      completed.push_back(done);
    }
    bool next = i + 1 < rows;
    bool await = prefetch ? i + 2 < rows && awaitRow(i + 2) : next && awaitRow(i + 1);
    bool barrier =
        await || int64_t(completed.size()) == outputRows || (!next && !completed.empty());
    if (barrier) {
      blockBarrier();
      if (awaitRows)
        refill(i);
    }
    if (prefetch)
      a = ahead;
    else if (next)
      a = loadRow(i + 1);
    if (barrier) {
      for (const CompletedRow &done : completed)
        b.ifThen(done.inside, [&] { copyOutputRow(done.slot, done.pAbs, limitQ); });
      completed.clear();
    }
  }
}

void Gw8Kernel::defineCopyOutThread() {
  if (WG != 2 && WG != 4)
    return;
  // Within each run of 8 * WG threads, thread 8j + WG k + g takes pixel
  // j + WG k (of the run's 8) and group g, rather than pixel (8j + WG k) / WG:
  // the 8 threads of a 16-byte access phase then read pixels WG apart,
  // whose vectors (outputPitch(WG) = WG + 1 apart) fall in 8 distinct bank
  // slots, where two adjacent pixels' would share one. WG is 2 or 4: shifts
  // and masks.
  int64_t logWG = WG == 2 ? 1 : 2;
  Value runMask = index(8 * WG - 1), lowMask = index(7), three = index(3);
  Value logG = index(logWG), twoLogG = index(2 * logWG);
  // The group bits' mask, WG - 1: 3, or for WG 2 the constant 1 its shift
  // already names.
  Value groupMask = WG == 4 ? three : logG;
  Value o = b.andi(tid, runMask);
  Value j = b.create<arith::ShRUIOp>({}, o, three);
  Value k = b.create<arith::ShRUIOp>({}, b.andi(o, lowMask), logG);
  Value g = b.andi(o, groupMask);
  Value jw = b.create<arith::ShLIOp>({}, j, logG);
  Value kw = b.create<arith::ShLIOp>({}, k, twoLogG);
  Value moved = b.addi(b.addi(jw, kw), g);
  copyOutTid = b.addi(b.subi(tid, o), moved);
}

void Gw8Kernel::copyOutputRow(Coord slot, Coord pAbs, Coord limitQ) {
  CoordType Q = coord("q"), G8 = coord(CO, 8);
  Coord limitO = constant(p.c, CO);
  forEachOutputVector(BQ * WG, [&](Value lin) {
    SmallVector<Coord> vector = b.decompose(lin, {BQ, WG}, {Q, G8});
    Coord ql = vector[0], gl = vector[1];
    Coord g = b.add(go0, gl);
    ImageColumn at = grid.gapless ? gaplessColumn(ql, BQ) : imageColumn(ql, BQ);
    Value ok =
        b.andi(b.cmp(CmpPredicate::lt, at.column, limitQ), b.cmp(CmpPredicate::lt, g, limitO));
    if (at.exists)
      ok = b.andi(ok, at.exists);
    b.ifThen(ok, [&] {
      Value v = b.load(syv, {slot, ql, gl});
      b.store(v, yv, {at.image, pAbs, at.column, g});
    });
  });
}

/// Spreads the 8 rows an ldmatrix reads (consecutive q, same parity and
/// group, `perRow` 16-byte elements apart) over the 8 16-byte bank slots:
/// XOR the slot bits with q's. An odd `perRow` needs none: 8 consecutive
/// odd multiples land in distinct slots.
SwizzleAttrInterface Gw8Kernel::swizzleFor(int64_t perRow) const {
  int64_t shift = 0;
  while ((int64_t(1) << shift) < perRow)
    ++shift;
  if (perRow % 2 == 1)
    return {};
  if (perRow == 2)
    return XorSwizzleAttr::get(ctx, 1, 0, 3);
  if (perRow == 4)
    return XorSwizzleAttr::get(ctx, 2, 0, 3);
  return XorSwizzleAttr::get(ctx, 3, 0, shift);
}

void Gw8Kernel::computeTypes() {
  int64_t G = p.groups();
  VectorType v8 = b.vector8(T);
  Type f32 = Float32Type::get(ctx);
  auto global = [&](ArrayRef<Extent> extents, Type element) {
    return b.tensorType(extents, element, MemorySpace::Global);
  };
  auto shared = [&](ArrayRef<Extent> extents, Type element, SwizzleAttrInterface swizzle = {}) {
    return b.tensorType(extents, element, MemorySpace::Shared, swizzle);
  };
  if (p.pass == kernels::ConvPass::Wgrad) {
    int64_t S2 = pairedS(p);
    xT = global({{"n", 1, p.n}, {"h", 1, p.h}, {"w", 1, p.w}, {"c", 8, G}}, v8);
    dyT = global({{"n", 1, p.n}, {"p", 1, p.outH()}, {"q", 1, p.outW()}, {"k", 8, G}}, v8);
    // Staged x, with explicit strides: the `sc/8` entry aliases the next
    // tap's column (stride 1) or parity (stride 2), so it never addresses
    // new storage; copies write sc/8 = 0.
    // x's rows with the `sc/8` entry `tapStride` vectors on, and as pixels.
    auto stagedRows = [&](int64_t count, int64_t tapStride) {
      SmallVector<Extent> extents{{"r", 1, count, QT * perQ}, {"q", 1, QT, perQ}};
      if (p.stride == 2)
        extents.push_back({"wp", 1, 2, WG});
      extents.append({{"sc", 8, 2, tapStride}, {"c", 8, WG, 1}});
      return shared(extents, v8, swizzleFor(perQ));
    };
    auto stagedPixels = [&](int64_t count, int64_t tapStride) {
      return shared({{"m", 1, count, pixelPitch}, {"sc", 8, 2, tapStride}, {"c", 8, WG, 1}}, v8,
                    swizzleFor(pixelPitch));
    };
    sxT = stagedRows(rows, tapPairStride);
    sdyT =
        shared({{"p", 1, gradientRows, BQ * pixelPitch}, {"q", 1, BQ, pixelPitch}, {"k", 8, WG, 1}},
               v8, swizzleFor(pixelPitch));
    // The same storage with the `sc/8` entry one staged row down, one row
    // short (no row pair starts at the last row): A of wgrad's row pairs.
    sxRowsT = stagedRows(rows - 1, QT * perQ);
    if (flat) {
      sxfT = stagedPixels(rows * QT, pixelPitch);
      sxRowsT = stagedPixels((rows - 1) * QT, QT * pixelPitch);
      sdyfT = shared({{"m", 1, gradientRows * BQ, pixelPitch}, {"k", 8, WG, 1}}, v8,
                     swizzleFor(pixelPitch));
    }
    wsT = global({{"part", 1, kernels::conv2dGw8WgradPartials(p, c)},
                  {"k", 1, p.c},
                  {"r", 1, p.r},
                  {"sc", 8, S2},
                  {"sc", 1, 8}},
                 f32);
    dwT = global({{"k", 1, p.c}, {"r", 1, p.r}, {"s", 1, p.s}, {"c", 1, p.groupWidth}},
                 p.wgradF32 ? f32 : T);
    csumT = shared({{"k", 1, 8 * WG}, {"r", 1, p.r}, {"sc", 8, S2}, {"sc", 1, 8}}, f32);
    return;
  }
  xT = global({{"n", 1, p.n}, {"h", 1, p.kernelInH()}, {"w", 1, p.kernelInW()}, {CI, 8, G}}, v8);
  wT = p.narrowGroups()
           ? global({{"k", 1, p.c}, {"r", 1, p.r}, {"s", 1, p.s}, {"c", 1, p.groupWidth}}, T)
           : global({{"k", 1, p.c}, {"r", 1, p.r}, {"s", 1, p.s}, {"c", 8, 1}}, v8);
  bT = global({{CO, 1, p.c}}, T);
  yT = global({{"n", 1, p.n}, {"p", 1, p.kernelOutH()}, {"q", 1, p.kernelOutW()}, {CO, 1, p.c}}, T);
  // Staged input with explicit strides: the `RD/8` entry (two where the
  // mma steps pair taps) aliases the next tap's column (stride 1) or
  // parity (stride 2), so that one ldmatrix reads a tap pair; copies write
  // RD/8 = 0.
  Extent pairEntry{RD, 8, tapSteps(p).front().taps, tapPairStride};
  SmallVector<Extent> staged{{"r", 1, slots, QT * perQ}, {"q", 1, QT, perQ}};
  if (st == 2)
    staged.push_back({"wp", 1, 2, WG});
  staged.append({pairEntry, {CI, 8, WG, 1}});
  sxT = shared(staged, v8, swizzleFor(perQ));
  swT = shared({{"r", 1, p.r}, {"s", 1, p.s}, {"k", 1, 8 * WG}, {"c", 8, 1}}, v8);
  // The weights as B fragments' rows: RD/8 steps a tap; dgrad's rows are a
  // group's 8 k of a tap.
  int64_t perTap = 8 * WG;
  SmallVector<Extent> weightRows{{"r", 1, p.r, p.s * perTap}, {RD, 8, p.s, perTap}};
  if (dgrad)
    weightRows.append({{"k", 8, WG, 8}, {"sk", 1, 8, 1}, {"c", 8, 1, 1}});
  else
    weightRows.push_back({"k", 1, perTap, 1});
  swpT = shared(weightRows, v8);
  yvT = global({{"n", 1, p.n}, {"p", 1, p.kernelOutH()}, {"q", 1, p.kernelOutW()}, {CO, 8, G}}, v8);
  int64_t pitch = outputPitch(WG);
  if (flat) {
    sxfT = shared({{"m", 1, rows * QT, pixelPitch}, pairEntry, {CI, 8, WG, 1}}, v8,
                  swizzleFor(pixelPitch));
    syT = shared({{"m", 1, flatPixels, 8 * pitch}, {CO, 1, 8 * WG, 1}}, T);
    syvT = shared({{"m", 1, flatPixels, pitch}, {CO, 8, WG, 1}}, v8);
    return;
  }
  syT = shared(
      {{"slot", 1, 2 * outputRows, 8 * BQ * pitch}, {"q", 1, BQ, 8 * pitch}, {CO, 1, 8 * WG, 1}},
      T);
  syvT = shared({{"slot", 1, 2 * outputRows, BQ * pitch}, {"q", 1, BQ, pitch}, {CO, 8, WG, 1}}, v8);
}

void Gw8Kernel::setKernelAttributes(gpu::GPUFuncOp kernel) {
  OpBuilder &builder = b.getOpBuilder();
  // fprop and dgrad on rows of fragments tell ptxas how many blocks their
  // shared memory lets a multiprocessor hold, so that it neither caps
  // registers for more (left to itself it spilled; TUNING.md, "Registers")
  // nor takes so many that fewer fit. Flattened rows hold more registers
  // than that allows (7x7 5x5: 114, which spill at the 80 of 3 blocks).
  StringRef minBlocks = NVVM::NVVMDialect::getMinctasmAttrName();
  if (p.pass != kernels::ConvPass::Wgrad && !flat)
    kernel->setAttr(minBlocks, builder.getI32IntegerAttr(int32_t(residentBlocks())));
  // wgrad's 5x5 kernels left to ptxas take 166-246 registers, one block a
  // multiprocessor; with row pairs (WgradSum) they are held to the blocks
  // their shared memory fits, which runs faster. 3x3 kernels need no hint
  // (hinted, they took more registers and ran no faster).
  if (p.pass == kernels::ConvPass::Wgrad && wgradRowPairs(p) && wgradTilesFit(p, c))
    kernel->setAttr(minBlocks, builder.getI32IntegerAttr(int32_t(wgradResidentBlocks(p, c))));
  if (narrowOffsets())
    kernel->setAttr("spio.offset_bits", builder.getI64IntegerAttr(32));
  // A group tile's blocks, along y, as one cluster.
  if (p.pass == kernels::ConvPass::Wgrad && p.wgradClusterReduce)
    kernel->setAttr(
        NVVM::NVVMDialect::getClusterDimAttrName(),
        DenseI32ArrayAttr::get(ctx, {1, int32_t(kernels::conv2dGw8WgradPartials(p, c)), 1}));
}

void Gw8Kernel::buildTile(gpu::GPUFuncOp kernel, Conv2dGw8Op op) {
  setKernelAttributes(kernel);
  if (p.pass == kernels::ConvPass::Wgrad) {
    x = op.getA();
    dy = op.getB();
    (p.wgradClusterReduce ? dw : ws) = op.getD();
    buildWgradTileBody();
    return;
  }
  x = op.getA();
  w = op.getB();
  if (op.getBias())
    bias = op.getBias();
  y = op.getD();
  buildTileBody();
}

void Gw8Kernel::buildTileBody() {
  int64_t qTiles = grid.qTiles;
  sx = b.alloc(sxT);
  sw = b.alloc(swT);
  sy = b.alloc(syT);
  syv = b.view(sy, syvT);
  yv = b.view(y, yvT);
  bx = b.linearId(LinearId::BlockX);
  by = b.linearId(LinearId::BlockY);
  SmallVector<Coord> tile =
      b.decompose(bx, {grid.groupTiles, qTiles}, {coord(CI, 8 * WG), coord("q", BQ)});
  Coord gt = tile[0];
  (grid.gapless ? d0 : q0) = b.unfold(tile[1], 1);
  splitFirstColumn();
  // The block's first group, in input channels, output channels and
  // weight rows.
  g0 = b.unfold(gt, 8);
  Coord gci = b.unfold(gt, 1);
  co0 = b.cast(gci, CO);
  go0 = b.fold(co0, 8);
  wk0 = CI == "k" ? b.unfold(gt, 1) : b.cast(gci, "k");
  tid = b.linearId(LinearId::Thread);
  warp = b.linearId(LinearId::Warp);
  elementTid = copyOutTid = tid;
  defineCopyOutThread();
  stageWeights();
  if (c.copyWarps) {
    buildStreamedBands();
    return;
  }
  if (flat) {
    b.asyncCommit();
    computeFlat();
    return;
  }
  if (grid.bandsPerChunk > 1) {
    // A block takes a range of (image, row tile) bands, a 2-stage ring
    // (spio-pipeline): the next band's rows copy in while this one
    // computes, so that copies stay in flight between bands, and the
    // weights stay in registers for all of them.
    b.asyncCommit();
    ComputeStart start = beginCompute("q", 0);
    chunkBands();
    Value one = index(1);
    scf::ForOp bands = b.forLoop(band0, band1, one, {}, [&](Value iv, ValueRange) {
      band = iv;
      bandCoordinates(band, false);
      // Row by row: every row's copies share one set of per-thread
      // coordinates, which the band loop would otherwise keep in registers
      // for each copy.
      for (int64_t i = 0; i < rows; ++i)
        stageInput(i, 1);
      b.asyncCommit();
      b.asyncWait(0);
      b.barrier();
      computeRows(start, false);
      b.barrier();
      return SmallVector<Value>{};
    });
    bands->setAttr("spio.stages", b.getOpBuilder().getI64IntegerAttr(2));
    return;
  }
  // One commit group per outputRows output rows: the weights and the R
  // rows output row 0 reads, then the stride rows each further output row
  // adds, so that computing row j overlaps the copies of the rows after it
  // (awaited outputRows at a time, one barrier for each group). The
  // groups whose rows fit the ring go first; computeRows copies in the
  // others as rows are read.
  bandCoordinates(by, false);
  stageInput(0, p.r);
  b.asyncCommit();
  committedGroups = 1;
  for (; committedGroups < groupCount() && (!ring || groupEnd(committedGroups) <= slots);
       ++committedGroups) {
    int64_t first = groupEnd(committedGroups - 1);
    stageInput(first, groupEnd(committedGroups) - first);
    b.asyncCommit();
  }
  computeRows(beginCompute("q", committedGroups - 1), true);
}

void Gw8Kernel::buildStreamedBands() {
  // Thread 0 sets up the barriers; the weights and the barriers are ready
  // for every warp after the block's one barrier.
  int64_t computeThreads = 32 * c.computeWarps(), copyThreads = 32 * c.copyWarps;
  b.asyncCommit();
  bars = b.barrierAlloc(streamBarrierCount(p, c));
  Value zero = index(0);
  Value first = b.cmpi(arith::CmpIPredicate::eq, tid, zero);
  b.ifThen(first, [&] {
    for (int64_t i = 0; i < rows; ++i) {
      Value full = index(i), empty = index(rows + i);
      b.barrierInit(bars, full, copyThreads);
      b.barrierInit(bars, empty, computeThreads);
    }
  });
  b.asyncWait(0);
  b.barrier();
  chunkBands();
  Value one = index(1);
  streamed = true;
  // Band k of the chunk fills the slots in phase k of their full barriers
  // and reads them in phase k of their empty ones, so that the copy warps
  // wait for phase k - 1 of a slot's empty barrier (parity (k + 1) % 2;
  // for band 0 the phase before the first, which counts as complete).
  auto bandParity = [&](bool previous) {
    Value k = b.subi(band, band0);
    Value odd = b.andi(k, one);
    return b.cmpi(previous ? arith::CmpIPredicate::eq : arith::CmpIPredicate::ne, odd, zero);
  };
  Value computeLimit = index(computeThreads);
  Value copies = b.cmpi(arith::CmpIPredicate::uge, tid, computeLimit);
  b.ifThenElse(
      copies,
      [&] {
        elementTid = b.subi(tid, computeLimit);
        elementThreads = copyThreads;
        b.forLoop(band0, band1, one, {}, [&](Value iv, ValueRange) {
          band = iv;
          bandCoordinates(band, false);
          Value emptyParity = bandParity(true);
          // Each row as its slot frees up: its copies, then the arrival
          // that completes the slot's full barrier once they land.
          for (int64_t i = 0; i < rows; ++i) {
            Value full = index(i), empty = index(rows + i);
            b.barrierWait(bars, empty, emptyParity);
            stageInput(i, 1);
            b.create<AsyncArriveOp>({}, bars, full);
          }
          return SmallVector<Value>{};
        });
        b.asyncWait(0);
      },
      [&] {
        elementTid = tid;
        elementThreads = computeThreads;
        ComputeStart start = beginCompute("q", -1);
        b.forLoop(band0, band1, one, {}, [&](Value iv, ValueRange) {
          band = iv;
          bandCoordinates(band, false);
          rowPhase = bandParity(false);
          computeRows(start, false);
          // The next band's first output rows reuse the tile slots whose
          // copies out end this one.
          blockBarrier();
          return SmallVector<Value>{};
        });
      });
}

void Gw8Kernel::bandCoordinates(Value bandIndex, bool columnTiles) {
  CoordType images = coord("n", grid.images), rowTile = coord("p", c.rowsP);
  CoordType columnTile = coord("q", BQ);
  int64_t imageTiles = ceilDiv(p.n, grid.images), rowTiles = ceilDiv(p.kernelOutH(), c.rowsP);
  Coord first, pt, qt;
  if (columnTiles && c.rowRing) {
    // Row tiles fastest: a block's bands walk down a column tile; the row
    // tile as an index says where a band starts it or hands rows on.
    SmallVector<Coord> at =
        b.decompose(bandIndex, {imageTiles, grid.qTiles, rowTiles}, {images, columnTile, rowTile});
    first = at[0], qt = at[1], pt = at[2];
    ptIndex = b.toIndex(pt);
  } else if (columnTiles) {
    SmallVector<Coord> at =
        b.decompose(bandIndex, {imageTiles, rowTiles, grid.qTiles}, {images, rowTile, columnTile});
    first = at[0], pt = at[1], qt = at[2];
  } else {
    SmallVector<Coord> at = b.decompose(bandIndex, {imageTiles, rowTiles}, {images, rowTile});
    first = at[0], pt = at[1];
  }
  n = grid.images > 1 ? b.unfold(first, 1) : first;
  p0 = b.unfold(pt, 1);
  if (columnTiles) {
    q0 = b.unfold(qt, 1);
    splitFirstColumn();
  }
}

void Gw8Kernel::splitFirstColumn() {
  if (grid.images == 1)
    return;
  // Unsigned 32-bit division by the pitch (a multiply and a shift), not
  // spio.decompose's signed index division with its sign fix-ups.
  Type i32Type = b.getOpBuilder().getI32Type();
  pitch = i32(packedPitch(p));
  if (grid.gapless) {
    qpitch = i32(p.kernelOutW());
    Value first = b.toIndex(d0);
    d0v = castIndex(first, i32Type);
    auto [image, column, staged] = splitGaplessPixel(d0v);
    q0img = image;
    q0col = column;
    q0v = staged;
    Value start = castIndex(q0v, b.getOpBuilder().getIndexType());
    q0 = b.fromIndex(start, coord("q"));
    return;
  }
  Value first = b.toIndex(q0);
  q0v = castIndex(first, i32Type);
  q0img = b.divui(q0v, pitch);
  Value product = b.muli(q0img, pitch);
  q0col = b.subi(q0v, product);
}

void Gw8Kernel::gatherColumn() {
  // The lane's pixel e = 16 * wq + row is pixel d0 + e of the row of
  // images; its staged column is that pixel's, less q0. Both A fragment
  // shapes (x4 and x2) give a lane the same row.
  Coord row = llvm::cast<Coord>(
      b.create<LdMatrixRowOp>({}, coord("q"), TypeAttr::get(fragmentType('A', "q", 2)), UnitAttr())
          .getResult());
  Value rowI = b.toIndex(row);
  Value warpI = b.toIndex(wq);
  Value sixteen = index(16);
  Value warpColumns = b.muli(warpI, sixteen);
  Value e = b.addi(warpColumns, rowI);
  Value e32 = castIndex(e, b.getOpBuilder().getI32Type());
  Value sum = b.addi(q0col, e32);
  Value staged = splitGaplessPixel(sum)[2];
  Value fromFirst = b.subi(staged, q0col);
  Value relI = castIndex(fromFirst, b.getOpBuilder().getIndexType());
  gq = b.fromIndex(relI, coord("q"));
}

std::array<Value, 3> Gw8Kernel::splitGaplessPixel(Value pixel) {
  Value image = b.divui(pixel, qpitch);
  Value whole = b.muli(image, qpitch);
  Value column = b.subi(pixel, whole);
  Value first = b.muli(image, pitch);
  Value staged = b.addi(first, column);
  return {image, column, staged};
}

ImageColumn Gw8Kernel::imageColumn(Coord offset, int64_t columns) {
  if (grid.images == 1)
    return {n, b.add(q0, offset), Value()};
  return splitColumn(offset, columns, packedPitch(p), pitch, q0v);
}

ImageColumn Gw8Kernel::gaplessColumn(Coord offset, int64_t columns) {
  return splitColumn(offset, columns, p.kernelOutW(), qpitch, d0v);
}

ImageColumn Gw8Kernel::splitColumn(Coord offset, int64_t columns, int64_t pitchColumns,
                                   Value pitchValue, Value first) {
  Type i32Type = b.getOpBuilder().getI32Type();
  Value oi = b.toIndex(offset);
  Value o32 = castIndex(oi, i32Type);
  Value j32, col32;
  if (columns <= pitchColumns + 1) {
    // q0col + offset is under two pitches: at most one image further on.
    Value sum = b.addi(q0col, o32);
    Value wrap = b.cmpi(arith::CmpIPredicate::uge, sum, pitchValue);
    Value back = b.subi(sum, pitchValue);
    col32 = select(wrap, back, sum);
    Value carry = b.create<arith::ExtUIOp>({}, i32Type, wrap);
    j32 = b.addi(q0img, carry);
  } else {
    Value sum = b.addi(first, o32);
    Value whole = b.divui(sum, pitchValue);
    Value jq = b.muli(whole, pitchValue);
    col32 = b.subi(sum, jq);
    j32 = whole;
  }
  Type indexType = b.getOpBuilder().getIndexType();
  Value ji = castIndex(j32, indexType);
  Value coli = castIndex(col32, indexType);
  Coord image = b.fromIndex(ji, coord("n"));
  Coord column = b.fromIndex(coli, coord("q"));
  Coord absolute = b.add(n, image);
  Coord rowImages = constant(grid.images, "n"), batch = constant(p.n, "n");
  Value exists =
      b.andi(b.cmp(CmpPredicate::lt, image, rowImages), b.cmp(CmpPredicate::lt, absolute, batch));
  return {absolute, column, exists};
}

void Gw8Kernel::stageGradient() {
  // Flattened rows stage whole dy rows of Q + S - 1 columns, zeros past
  // column Q and past the band's rows (the mma steps' tail).
  Coord bandRows = gradientRows > c.rowsP ? constant(c.rowsP, "p") : Coord();
  CoordType P = coord("p"), Q = coord("q"), G8 = coord("k", 8);
  Coord limitP = constant(p.outH(), "p"), limitQ = constant(p.outW(), "q");
  Coord limitK = constant(p.c, "k");
  bool rowElements = wgradRowElements();
  Coord qq, gl, g;
  Value columnInside, groupInside, columnOk;
  ImageColumn at;
  auto inRow = [&](ArrayRef<Coord> element) {
    qq = element[0], gl = element[1];
    at = imageColumn(qq, BQ);
    g = b.add(gk0, gl);
    columnInside = b.cmp(CmpPredicate::lt, at.column, limitQ);
    groupInside = b.cmp(CmpPredicate::lt, g, limitK);
    if (!rowElements)
      return;
    columnOk = b.andi(columnInside, groupInside);
    if (at.exists)
      columnOk = b.andi(columnOk, at.exists);
  };
  auto copyRow = [&](Coord rr) {
    Coord pAbs = b.add(p0, rr);
    Value ok = b.cmp(CmpPredicate::lt, pAbs, limitP);
    ok = rowElements ? b.andi(ok, columnOk) : b.andi(b.andi(ok, columnInside), groupInside);
    if (bandRows)
      ok = b.andi(ok, b.cmp(CmpPredicate::lt, rr, bandRows));
    if (!rowElements && at.exists)
      ok = b.andi(ok, at.exists);
    b.asyncCopy(dy, {at.image, pAbs, at.column, g}, sdy, {rr, qq, gl}, ok);
  };
  forEachRowElement(gradientRows, {P, {BQ, WG}, {Q, G8}}, rowElements, inRow, copyRow);
}

void Gw8Kernel::computeWgrad(SmallVector<Fragment> &accs) {
  // A sum's 16 rows of taps times 8 channels are one A fragment (the `sc`
  // dimension, 8 * s + c, of the staged x, whose `sc/8` entry steps one
  // tap: one staged column, or one parity with stride 2; or one staged row
  // for row pairs). An mma reduces over the warp's 16 columns of a row. dy
  // row j meets staged x row rowSt * j + r at kernel row r: the kernel
  // goes by staged rows, as fprop's rows do, loading a row's A fragments
  // once and multiplying them into every dy row they meet (up to R), so
  // that each lives for one staged row (by dy rows, the same loads merged
  // by CSE lived from their first dy row to their last). Staged rows go in
  // order, so each sum still adds its dy rows in order.
  FragmentType FA = b.fragmentType(FragmentOperand::A, MmaShape::M16N8K16, T, "sc", "q");
  FragmentType FB = b.fragmentType(FragmentOperand::B, MmaShape::M16N8K16, T, "q", "k");
  Coord zeroQ = constant(0, "q"), zeroR = constant(0, "r");
  Coord parity = p.stride == 2 ? constant(0, "wp") : Coord();
  std::vector<WgradSum> sums = wgradSums(p);
  SmallVector<Fragment> gradient(c.rowsP);
  for (int64_t i = 0; i < rows; ++i) {
    // dy row j's B fragment loads at its first staged row, i = rowSt * j.
    if (i % rowSt == 0 && i / rowSt < c.rowsP) {
      int64_t row = i / rowSt;
      Coord rowP = constant(row, "p");
      gradient[row] = b.ldmatrix(sdy, {rowP, wq, zeroQ, wgk}, FB, true);
    }
    // Staged row i's A fragments, by tap s and whether rows pair.
    std::map<std::pair<int64_t, bool>, Fragment> a;
    Coord stagedRow;
    for (size_t k = 0; k < sums.size(); ++k) {
      const WgradSum &sum = sums[k];
      if (i < sum.r || (i - sum.r) % rowSt != 0 || (i - sum.r) / rowSt >= c.rowsP)
        continue;
      Fragment &fragment = a[{sum.s, sum.rowPair}];
      if (!fragment) {
        if (!stagedRow)
          stagedRow = constant(i, "r");
        // Tap s reads staged column q + s / stride (parity s % 2, 0 here).
        Coord column = constant(sum.s / p.stride, "q");
        SmallVector<Coord> coords{stagedRow, zeroR, wq, column};
        if (parity)
          coords.push_back(parity);
        coords.push_back(wg);
        fragment = b.ldmatrix(sum.rowPair ? sxr : sx, coords, FA, true);
      }
      accs[k] = b.mma(fragment, gradient[(i - sum.r) / rowSt], accs[k]);
    }
  }
}

Fragment Gw8Kernel::loadFlatGradient(Coord step) {
  return b.ldmatrix(sdyf, {wq, step, wgk}, flatStepFragmentType('B'), true);
}

Fragment Gw8Kernel::loadFlatInput(Coord step, int64_t tap, bool rowPair) {
  Coord offset = constant(tap, "m");
  return b.ldmatrix(rowPair ? sxr : sxf, {wq, step, offset, wg}, flatStepFragmentType('A'), true);
}

void Gw8Kernel::computeWgradFlat(SmallVector<Fragment> &accs) {
  // Warp wq takes the band's 8-pixel steps wq * perWarp .. (wq + 1) *
  // perWarp - 1, in order: dy's step is the B fragment, and x's pixels at
  // the tap pair's offset r * flatPitch + s, with the next pixel's for
  // tap s + 1, the A. A loop, not unrolled: unrolled, ptxas hoists every
  // ldmatrix of the band (10x10: 237 registers). The loop loads the next
  // step's fragments before it multiplies this step's, so that the
  // ldmatrix latency overlaps the mma (ptxas does not pipeline across
  // iterations).
  std::vector<WgradSum> sums = wgradSums(p);
  // The fragments of step `j` (an index): dy's B, then each sum's A.
  auto loadStep = [&](Value j) {
    Coord step = flatStep(j);
    SmallVector<Value> fragments = {loadFlatGradient(step)};
    for (const WgradSum &sum : sums)
      fragments.push_back(loadFlatInput(step, sum.r * QT + sum.s, sum.rowPair));
    return fragments;
  };
  // Each sum's mma of the step whose fragments are `fragments`.
  auto multiplyStep = [&](ValueRange fragments, SmallVector<Fragment> &sumsSoFar) {
    for (size_t k = 0; k < sums.size(); ++k)
      sumsSoFar[k] = b.mma(asFragment(fragments[k + 1]), asFragment(fragments[0]), sumsSoFar[k]);
  };
  Value zero = index(0), one = index(1), last = index(wgradStepsPerWarp() - 1);
  SmallVector<Value> first = loadStep(zero);
  // Carried: the sums, then the next step's fragments.
  SmallVector<Value> inits(accs.begin(), accs.end());
  inits.append(first);
  size_t count = accs.size();
  scf::ForOp loop = b.forLoop(zero, last, one, inits, [&](Value j, ValueRange carried) {
    Value next = b.addi(j, one);
    SmallVector<Value> ahead = loadStep(next);
    SmallVector<Fragment> sumsSoFar;
    for (Value acc : carried.take_front(count))
      sumsSoFar.push_back(asFragment(acc));
    multiplyStep(carried.drop_front(count), sumsSoFar);
    SmallVector<Value> yielded(sumsSoFar.begin(), sumsSoFar.end());
    yielded.append(ahead);
    return yielded;
  });
  // The last step, whose fragments the loop loaded.
  for (size_t i = 0; i < count; ++i)
    accs[i] = asFragment(loop.getResult(i));
  multiplyStep(loop.getResults().drop_front(count), accs);
}

void Gw8Kernel::computeWgradFlatRowSteps(SmallVector<Fragment> &accs) {
  // Rows of rowSteps = wgradFlatPitch / 8 whole steps: kernel row r's taps
  // read x r * rowSteps steps after row 0's, so x step e's A fragment of
  // tap pair s serves every kernel row, met with dy step e - r * rowSteps.
  // Warp wq's dy steps t = 0 .. perWarp - 1 (from wq * perWarp) meet x
  // steps e = 0 .. perWarp - 1 + lag (lag = (R - 1) * rowSteps), each
  // loading its A fragments once and keeping the last lag + 1 B fragments
  // in registers: under half the ldmatrix bytes of loading each sum's A
  // (7x7 3x3: 640 bytes a step, not 1664). Each sum still adds dy steps in
  // order. Steps whose kernel rows meet only some dy steps (the first and
  // last lag) are written out, multiplying only the kernel rows whose dy
  // step is the warp's; a loop takes the others, loading the next step's
  // fragments before it multiplies this step's.
  assert(!wgradRowPairs(p) && "flattened rows take kernels of up to 3 columns");
  int64_t perWarp = wgradStepsPerWarp(), rowSteps = QT / 8, lag = (p.r - 1) * rowSteps;
  int64_t total = perWarp + lag;
  std::vector<WgradSum> sums = wgradSums(p);
  std::vector<int64_t> pairTaps;
  for (const WgradSum &sum : sums)
    if (std::find(pairTaps.begin(), pairTaps.end(), sum.s) == pairTaps.end())
      pairTaps.push_back(sum.s);
  auto loadA = [&](Value e) {
    Coord step = flatStep(e);
    SmallVector<Fragment> fragments;
    for (int64_t s : pairTaps)
      fragments.push_back(loadFlatInput(step, s, /*rowPair=*/false));
    return fragments;
  };
  auto loadB = [&](Value t) { return loadFlatGradient(flatStep(t)); };
  // Each sum's mma of x step fragments `a` with the B fragment `bOf(r)` of
  // its kernel row r (none: that dy step is not the warp's).
  auto multiply = [&](ArrayRef<Fragment> a, function_ref<Fragment(int64_t)> bOf) {
    for (size_t k = 0; k < sums.size(); ++k) {
      Fragment gradient = bOf(sums[k].r);
      if (!gradient)
        continue;
      size_t pair = std::find(pairTaps.begin(), pairTaps.end(), sums[k].s) - pairTaps.begin();
      accs[k] = b.mma(a[pair], gradient, accs[k]);
    }
  };
  std::map<int64_t, SmallVector<Fragment>> aAt;
  std::map<int64_t, Fragment> bAt;
  auto load = [&](int64_t e) {
    if (e < total && !aAt.count(e))
      aAt[e] = loadA(index(e));
    if (e < perWarp && !bAt.count(e))
      bAt[e] = loadB(index(e));
  };
  auto writtenStep = [&](int64_t e) {
    load(e);
    load(e + 1);
    multiply(aAt[e], [&](int64_t r) {
      int64_t t = e - r * rowSteps;
      return t >= 0 && t < perWarp ? bAt[t] : Fragment();
    });
  };
  int64_t lo = lag, hi = perWarp - 1;
  if (hi <= lo) {
    for (int64_t e = 0; e < total; ++e)
      writtenStep(e);
    return;
  }
  for (int64_t e = 0; e < lo; ++e)
    writtenStep(e);
  load(lo);
  // Carried: the sums, step e's A fragments, then B fragments of dy steps
  // e, e - 1, ..., e - lag.
  SmallVector<Value> inits(accs.begin(), accs.end());
  inits.append(aAt[lo].begin(), aAt[lo].end());
  for (int64_t d = 0; d <= lag; ++d)
    inits.push_back(bAt[lo - d]);
  size_t count = accs.size(), taps = pairTaps.size();
  Value one = index(1);
  Value lower = index(lo);
  Value upper = index(hi);
  scf::ForOp loop = b.forLoop(lower, upper, one, inits, [&](Value e, ValueRange carried) {
    for (size_t i = 0; i < count; ++i)
      accs[i] = asFragment(carried[i]);
    SmallVector<Fragment> a, window;
    for (Value fragment : carried.slice(count, taps))
      a.push_back(asFragment(fragment));
    for (Value fragment : carried.drop_front(count + taps))
      window.push_back(asFragment(fragment));
    Value next = b.addi(e, one);
    SmallVector<Fragment> aheadA = loadA(next);
    Fragment aheadB = loadB(next);
    multiply(a, [&](int64_t r) { return window[r * rowSteps]; });
    SmallVector<Value> yielded(accs.begin(), accs.end());
    yielded.append(aheadA.begin(), aheadA.end());
    yielded.push_back(aheadB);
    yielded.append(window.begin(), window.end() - 1);
    return yielded;
  });
  size_t at = 0;
  for (Fragment &acc : accs)
    acc = asFragment(loop.getResult(at++));
  aAt[hi].clear();
  for (size_t i = 0; i < taps; ++i)
    aAt[hi].push_back(asFragment(loop.getResult(at++)));
  for (int64_t d = 0; d <= lag; ++d)
    bAt[hi - d] = asFragment(loop.getResult(at++));
  for (int64_t step = hi; step < total; ++step)
    writtenStep(step);
}

void Gw8Kernel::chunkBands() {
  // This block's bands: [by * perChunk, min((by + 1) * perChunk, bands)).
  Value perChunk = index(grid.bandsPerChunk), total = index(grid.bands);
  band0 = b.muli(by, perChunk);
  Value bandEnd = b.addi(band0, perChunk);
  band1 = minui(bandEnd, total);
}

void Gw8Kernel::stageRingRows() {
  // A band copies its first R - 1 rows of x only where it starts a column
  // tile or the block's chunk; else the band before hands them on
  // (handOnRingRows), and a copy of them, even a zero-filling one, could
  // land after the hand-on.
  int64_t halo = p.r - 1;
  Value zero = index(0);
  Value firstRow = b.cmpi(arith::CmpIPredicate::eq, ptIndex, zero);
  Value chunkStart = b.cmpi(arith::CmpIPredicate::eq, band, band0);
  Value starts = b.create<arith::OrIOp>({}, firstRow, chunkStart);
  b.ifThen(starts, [&] { stageInput(0, halo); });
  stageInput(halo, rows - halo);
}

void Gw8Kernel::handOnRingRows() {
  // Where the next band of the chunk continues this column tile, its first
  // R - 1 staged rows are this band's last (its input rows p0 + rowsP - padH
  // on): each thread moves its share into the next band's stage
  // (spio.next_stage), whose copies leave those rows alone. This band's
  // stage is only read here, as the compute reads it; the next band reads
  // the rows after the next iteration's wait and barrier.
  int64_t halo = p.r - 1, rowTiles = ceilDiv(p.kernelOutH(), c.rowsP);
  Value one = index(1), lastTile = index(rowTiles - 1);
  Value next = b.addi(band, one);
  Value inChunk = b.cmpi(arith::CmpIPredicate::ult, next, band1);
  Value notLast = b.cmpi(arith::CmpIPredicate::ult, ptIndex, lastTile);
  Value continues = b.andi(inChunk, notLast);
  b.ifThen(continues, [&] {
    CoordType R = coord("r"), Q = coord("q"), G8 = coord("c", 8);
    Coord below = constant(c.rowsP, "r");
    forEachElement(halo * copiedQT * WG, [&](Value lin) {
      SmallVector<Coord> at = b.decompose(lin, {halo, copiedQT, WG}, {R, Q, G8});
      Coord from = b.add(at[0], below);
      Value v = b.load(sx, {from, at[1], at[2]});
      auto store = b.create<StoreOp>({}, v, sx, ValueRange{at[0], at[1], at[2]});
      store->setAttr("spio.next_stage", b.getOpBuilder().getUnitAttr());
    });
  });
}

void Gw8Kernel::buildWgradTileBody() {
  std::vector<WgradSum> sums = wgradSums(p);
  FragmentType FC = wgradAccumulatorType();
  sx = b.alloc(sxT);
  sdy = b.alloc(sdyT);
  // The sums take the staged tiles' bytes once the band loop is done.
  if (p.wgradClusterReduce)
    csums = llvm::cast<Tensor>(b.create<AllocOp>({}, csumT, /*overlay=*/true).getResult());
  if (flat) {
    sxf = b.view(sx, sxfT);
    sdyf = b.view(sdy, sdyfT);
  }
  if (wgradRowPairs(p))
    sxr = b.view(sx, sxRowsT);
  CoordType WQ = coord(wgradPixelDim(), wgradPixelFold());
  CoordType GT = coord("c", 8 * WG);
  bx = b.linearId(LinearId::BlockX);
  by = b.linearId(LinearId::BlockY);
  Coord gt = b.fromIndex(bx, GT);
  g0 = b.unfold(gt, 8);
  Coord gkt = b.cast(gt, "k");
  gk0 = b.unfold(gkt, 8);
  k0 = b.unfold(gkt, 1);
  tid = b.linearId(LinearId::Thread);
  warp = b.linearId(LinearId::Warp);
  elementTid = copyOutTid = tid;
  SmallVector<Coord> warpAt = b.decompose(warp, {WG, c.warpsQ}, {coord("c", 8), WQ});
  wg = warpAt[0];
  wq = warpAt[1];
  wgk = b.cast(wg, "k");
  chunkBands();
  Value one = index(1);
  Value zero = b.f32(0.0);
  SmallVector<Value> inits;
  for (size_t i = 0; i < sums.size(); ++i)
    inits.push_back(b.fill(zero, FC));
  kernels::WgradParts parts = p.wgradParts;
  scf::ForOp bands = b.forLoop(band0, band1, one, inits, [&](Value iv, ValueRange carried) {
    band = iv;
    SmallVector<Fragment> accs;
    for (Value acc : carried)
      accs.push_back(asFragment(acc));
    bandCoordinates(band, true);
    if (parts != kernels::WgradParts::Mma) {
      if (c.rowRing)
        stageRingRows();
      else
        stageInput(0, parts == kernels::WgradParts::CopiesWithoutRowHalo
                          ? std::max<int64_t>(1, rows - (p.r - 1))
                          : rows);
      stageGradient();
    }
    b.asyncCommit();
    b.asyncWait(0);
    b.barrier();
    if (parts == kernels::WgradParts::All || parts == kernels::WgradParts::Mma) {
      if (flat && wgradRowsOfWholeSteps(p))
        computeWgradFlatRowSteps(accs);
      else if (flat)
        computeWgradFlat(accs);
      else
        computeWgrad(accs);
    }
    if (c.rowRing && parts != kernels::WgradParts::Mma)
      handOnRingRows();
    b.barrier();
    return SmallVector<Value>(accs.begin(), accs.end());
  });
  // The next one or two bands copy in while this one computes (with no
  // copies, nothing to overlap).
  if (parts != kernels::WgradParts::Mma)
    bands->setAttr("spio.stages", b.getOpBuilder().getI64IntegerAttr(wgradStages(p, c)));
  // No warp may still read the staged tiles the sums overlay.
  if (p.wgradClusterReduce)
    b.barrier();
  storeWgradPartial(sums, bands.getResults(), FC);
  if (p.wgradClusterReduce)
    reduceInCluster();
}

void Gw8Kernel::storeWgradPartial(ArrayRef<WgradSum> sumPlaces, ValueRange sums, FragmentType FC) {
  // A block stores one partial, its chunk's: part = by.
  Coord part = b.fromIndex(by, coord("part"));
  Coord limitSC = constant(16 * (pairedS(p) / 2), "sc"), limitK = constant(p.c, "k");
  // An odd S's last tap without a row pair holds a zero tap S in its
  // fragment's upper 8 rows, which the reduce never reads: not stored, a
  // quarter of 3x3's partial-sum bytes (8x8 layers write partial sums of
  // 15-37% of their ideal bytes).
  auto holdsZeroTap = [&](const WgradSum &sum) { return !sum.rowPair && sum.s + 1 == p.s; };
  Coord limitTaps;
  if (!p.wgradClusterReduce && llvm::any_of(sumPlaces, holdsZeroTap))
    limitTaps = constant(8 * p.s, "sc");
  auto store = [&](size_t k, Fragment fragment) {
    Coord rc = constant(sumPlaces[k].r, "r"), tap = constant(sumPlaces[k].s, "sc", 8);
    if (p.wgradClusterReduce) {
      b.storeFragment(fragment, csums, {wgk, rc, tap}, std::nullopt);
      return;
    }
    b.storeFragment(fragment, ws, {part, k0, wgk, rc, tap},
                    Bounds{holdsZeroTap(sumPlaces[k]) ? limitTaps : limitSC, limitK});
  };
  int64_t perRound = wgradSumsPerRound(p, c);
  if (!perRound) {
    for (size_t k = 0; k < sumPlaces.size(); ++k)
      store(k, asFragment(sums[k]));
    return;
  }
  // Warps along the pixels add their sums through shared memory, a round
  // of sums at a time: each writes its fragments, then sum j of a round is
  // added by warp j mod warpsQ, over the warps in order (the same bits run
  // to run), and stored. One partial a block, not one a warp, cuts what
  // the grid writes and the reduce reads warpsQ-fold.
  StringRef wqDim = wgradPixelDim();
  int64_t wqFold = wgradPixelFold();
  SpioTensorType scratchT = b.tensorType(
      {{wqDim, wqFold, c.warpsQ}, {"k", 8, WG}, {"sum", 1, perRound}, {"sc", 1, 16}, {"k", 1, 8}},
      Float32Type::get(ctx), MemorySpace::Shared);
  Tensor scratch = b.alloc(scratchT);
  Value wqi = b.toIndex(wq);
  // Warp w's slot in the scratch, and whether this warp adds sums j of a
  // round with j mod warpsQ = w (only the first perRound warps add any).
  SmallVector<Coord> warpAt, slotAt;
  SmallVector<Value> isWarp;
  for (int64_t warpIndex = 0; warpIndex < c.warpsQ; ++warpIndex) {
    warpAt.push_back(constant(warpIndex, wqDim, wqFold));
    if (warpIndex >= perRound)
      continue;
    Value at = index(warpIndex);
    isWarp.push_back(b.cmpi(arith::CmpIPredicate::eq, wqi, at));
  }
  for (int64_t j = 0; j < perRound; ++j)
    slotAt.push_back(constant(j, "sum"));
  for (size_t first = 0; first < sumPlaces.size(); first += perRound) {
    size_t last = std::min(sumPlaces.size(), first + perRound);
    if (first)
      b.barrier();
    for (size_t k = first; k < last; ++k)
      b.storeFragment(asFragment(sums[k]), scratch, {wq, wgk, slotAt[k - first]}, std::nullopt);
    b.barrier();
    for (size_t k = first; k < last; ++k) {
      b.ifThen(isWarp[(k - first) % c.warpsQ], [&] {
        Value total;
        for (int64_t warpIndex = 0; warpIndex < c.warpsQ; ++warpIndex) {
          Fragment fragment = b.loadFragment(scratch, {warpAt[warpIndex], wgk, slotAt[k - first]},
                                             FC, std::nullopt);
          Value values = b.fragmentToVector(fragment);
          if (total)
            values = b.addf(total, values);
          total = values;
        }
        store(k, b.vectorToFragment(total, FC));
      });
    }
  }
}

void Gw8Kernel::reduceInCluster() {
  // Block b of the cluster (its rank, by) adds elements b * threads + tid
  // + i * parts * threads of the tile's [k: 8 * WG, r, s, c: 8], each over
  // the blocks' sums in block order from zero, as the reduce kernel adds
  // the partials (the same bits); all loads of a thread are issued before
  // the additions. A second cluster barrier keeps every block's sums until
  // all have read them.
  int64_t parts = kernels::conv2dGw8WgradPartials(p, c), threads = c.threads();
  int64_t tileElements = 8 * WG * p.r * p.s * 8;
  int64_t passes = ceilDiv(tileElements, parts * threads);
  b.clusterBarrier();
  Value firstBlock = index(threads);
  Value spread = b.muli(by, firstBlock);
  Value own = b.addi(spread, tid);
  Value tileEnd = index(tileElements), lastElement = index(tileElements - 1);
  Value zero = b.f32(0.0);
  SmallVector<Value> ranks;
  for (int64_t rank = 0; rank < parts; ++rank)
    ranks.push_back(index(rank));
  CoordType K = coord("k"), R = coord("r"), S = coord("s"), C = coord("c");
  Coord limitK = constant(p.c, "k");
  for (int64_t pass = 0; pass < passes; ++pass) {
    Value lin = indexPlus(own, pass * parts * threads);
    Value inTile = b.cmpi(arith::CmpIPredicate::ult, lin, tileEnd);
    Value element = minui(lin, lastElement);
    SmallVector<Coord> at = b.decompose(element, {8 * WG, p.r, p.s, 8}, {K, R, S, C});
    Coord k = at[0], r = at[1], s = at[2], ch = at[3];
    auto [sumR, tap] = partialSumPlace(r, s);
    Coord channel = b.cast(ch, "sc");
    SmallVector<Value> values;
    for (int64_t rank = 0; rank < parts; ++rank)
      values.push_back(b.loadRemote(csums, {k, sumR, tap, channel}, ranks[rank]));
    Value sum = addInOrder(zero, values);
    Coord kAbs = b.add(k0, k);
    Value stores = b.andi(inTile, b.cmp(CmpPredicate::lt, kAbs, limitK));
    auto [inGroup, column] = narrowWeightColumn(kAbs, ch, 1);
    if (inGroup)
      stores = b.andi(stores, inGroup);
    b.ifThen(stores, [&] {
      Value value = p.wgradF32 ? sum : b.create<arith::TruncFOp>({}, T, sum).getResult();
      b.store(value, dw, {kAbs, r, s, column});
    });
  }
  b.clusterBarrier();
}

std::pair<Value, Coord> Gw8Kernel::narrowWeightColumn(Coord k, Coord channels, int64_t V) {
  if (!p.narrowGroups())
    return {Value(), channels};
  // The lane's V channels from channel j = V * channels lie in k's group
  // where j / g = (k % 8) / g, at column j % g of the narrow dw.
  int64_t g = p.groupWidth;
  Value width = index(g);
  Value first = b.muli(b.toIndex(channels), index(V));
  Value kGroup = b.divui(b.remui(b.toIndex(k), index(8)), width);
  Value inGroup = b.cmpi(arith::CmpIPredicate::eq, b.divui(first, width), kGroup);
  Value column = b.divui(b.remui(first, width), index(V));
  return {inGroup, b.fromIndex(column, coord("c", V))};
}

std::pair<Coord, Coord> Gw8Kernel::partialSumPlace(Coord r, Coord s) {
  // With row pairs, the last tap at an odd row r comes from row r - 1's
  // pair, at sc/8 = S.
  if (!wgradRowPairs(p))
    return {r, reinterpret(s, coord("sc", 8))};
  Value one = index(1), lastS = index(p.s - 1), S = index(p.s);
  Value ri = b.toIndex(r);
  Value si = b.toIndex(s);
  Value bit = b.andi(ri, one);
  Value odd = b.cmpi(arith::CmpIPredicate::eq, bit, one);
  Value last = b.cmpi(arith::CmpIPredicate::eq, si, lastS);
  Value rowPair = b.andi(odd, last);
  Value below = b.subi(ri, bit);
  Value pairR = select(rowPair, below, ri);
  Value pairS = select(rowPair, S, si);
  Coord placeR = b.fromIndex(pairR, coord("r"));
  Coord tap = b.fromIndex(pairS, coord("sc", 8));
  return {placeR, tap};
}

/// A kernel of the workload module: gpu.func `name` over `params`, with a
/// known block of kReduceThreads threads, its body at `builder`'s insertion
/// point (the caller restores it).
static gpu::GPUFuncOp reduceKernel(OpBuilder &builder, Location loc, StringRef name,
                                   TypeRange params) {
  auto kernel = gpu::GPUFuncOp::create(builder, loc, name, builder.getFunctionType(params, {}));
  kernel->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), builder.getUnitAttr());
  kernel.setKnownBlockSizeAttr(
      DenseI32ArrayAttr::get(builder.getContext(), {int32_t(kReduceThreads), 1, 1}));
  builder.setInsertionPointToStart(&kernel.getBody().front());
  return kernel;
}

/// dw[k, r, s, c] = the sum over the partials in a fixed order, a lane's
/// wgradReduceVector channels at once (4: 16-byte loads of the partials):
/// the lanes of a warp are [split, lane's channels] (wgradReduceSplits),
/// each lane adds its split's contiguous range of partials in order, and a
/// pairwise tree of shuffles adds the splits (both lanes of a pair add the
/// same two values, so all end with the same bits); split 0 stores.
void Gw8Kernel::buildWgradReduce(OpBuilder &builder, Location loc) {
  int64_t V = wgradReduceVector(p, c), lanes = p.c * p.r * p.s * 8 / V;
  int64_t parts = kernels::conv2dGw8WgradPartials(p, c);
  int64_t splits = wgradReduceSplits(p, c), lanesPerWarp = 32 / splits;
  int64_t range = ceilDiv(parts, splits);
  OpBuilder::InsertionGuard guard(builder);
  gpu::GPUFuncOp kernel = reduceKernel(builder, loc, "conv2d_gw8_wgrad_reduce", {wsT, dwT});
  Tensor partials = llvm::cast<Tensor>(kernel.getArgument(0));
  Tensor weights = llvm::cast<Tensor>(kernel.getArgument(1));
  // A lane's floats: f32 where it adds one element, else a vector read
  // and written through views of the workspace and dw.
  bool scalar = V == 1;
  Type f32 = Float32Type::get(ctx);
  Type dwOut = p.wgradF32 ? f32 : T;
  Type laneF32 = scalar ? f32 : Type(VectorType::get({V}, f32));
  Type laneOut = scalar ? dwOut : Type(VectorType::get({V}, dwOut));
  SpioTensorType wsLaneT = b.tensorType(
      {{"part", 1, parts}, {"k", 1, p.c}, {"r", 1, p.r}, {"sc", 8, pairedS(p)}, {"sc", V, 8 / V}},
      laneF32, MemorySpace::Global);
  SpioTensorType dwLaneT =
      b.tensorType({{"k", 1, p.c}, {"r", 1, p.r}, {"s", 1, p.s}, {"c", V, p.groupWidth / V}},
                   laneOut, MemorySpace::Global);
  b.create<WaitPrerequisitesOp>({});
  Value blockX = b.linearId(LinearId::BlockX);
  Value warpIndex = b.linearId(LinearId::Warp);
  Value lane = b.linearId(LinearId::Lane);
  Tensor wsLane = scalar ? partials : b.view(partials, wsLaneT);
  Tensor dwLane = scalar ? weights : b.view(weights, dwLaneT);
  int64_t lanesPerBlock = wgradReduceElementsPerBlock(p, c) / V;
  Value perBlock = index(lanesPerBlock), perWarp = index(lanesPerWarp);
  Value limit = index(lanes), lastLane = index(lanes - 1);
  Value blockFirst = b.muli(blockX, perBlock);
  Value warpFirst = b.muli(warpIndex, perWarp);
  Value e = b.remui(lane, perWarp);
  Value inBlock = b.addi(warpFirst, e);
  Value owns;
  if (lanesPerBlock < kReduceThreads / 32 * lanesPerWarp) {
    // Blocks of whole channels: lanes past the block's elements reduce its
    // last ones (never another block's partial sums) and store nothing.
    Value lastInBlock = index(lanesPerBlock - 1);
    owns = b.cmpi(arith::CmpIPredicate::ult, inBlock, perBlock);
    inBlock = minui(inBlock, lastInBlock);
  }
  Value lin = b.addi(blockFirst, inBlock);
  Value valid = b.cmpi(arith::CmpIPredicate::ult, lin, limit);
  if (owns)
    valid = b.andi(owns, valid);
  // Lanes past the last elements reduce them too (every lane takes part in
  // the shuffles) and store nothing.
  Value element = minui(lin, lastLane);
  SmallVector<Coord> at = b.decompose(element, {p.c, p.r, p.s, 8 / V},
                                      {coord("k"), coord("r"), coord("s"), coord("c", V)});
  Coord k = at[0], r = at[1], s = at[2], ch = at[3];
  auto [wsR, tap] = partialSumPlace(r, s);
  Coord channels = b.cast(ch, "sc");
  // The split's partials in order, loaded kReduceUnroll at a time so that
  // their latencies overlap; the additions keep the order.
  Value sum = zerosOf(laneF32);
  auto sumLoop = [&](Value lower, Value upper, int64_t step) {
    Value stride = index(step);
    scf::ForOp loop = b.forLoop(lower, upper, stride, {sum}, [&](Value i, ValueRange acc) {
      SmallVector<Value> values;
      for (int64_t u = 0; u < step; ++u) {
        Value partAt = i;
        if (u) {
          Value offset = index(u);
          partAt = b.addi(i, offset);
        }
        Coord part = b.fromIndex(partAt, coord("part"));
        values.push_back(b.load(wsLane, {part, k, wsR, tap, channels}));
      }
      return SmallVector<Value>{addInOrder(acc[0], values)};
    });
    sum = loop.getResult(0);
  };
  if (splits == 1) {
    int64_t unrolled = parts / kReduceUnroll * kReduceUnroll;
    if (unrolled)
      sumLoop(index(0), index(unrolled), kReduceUnroll);
    if (unrolled < parts)
      sumLoop(index(unrolled), index(parts), 1);
  } else {
    // Split j adds partials [j * range, min((j + 1) * range, parts)).
    Value rangeI = index(range), partsI = index(parts), unrollI = index(kReduceUnroll);
    Value split = b.divui(lane, perWarp);
    Value from = b.muli(split, rangeI);
    Value lower = minui(from, partsI);
    Value left = b.subi(partsI, lower);
    Value count = minui(left, rangeI);
    Value ragged = b.remui(count, unrollI);
    Value whole = b.subi(count, ragged);
    Value mid = b.addi(lower, whole);
    Value upper = b.addi(lower, count);
    sumLoop(lower, mid, kReduceUnroll);
    sumLoop(mid, upper, 1);
    sum = xorTreeSum(sum, V, lanesPerWarp);
  }
  Value firstSplit = b.cmpi(arith::CmpIPredicate::ult, lane, perWarp);
  Value stores = b.andi(valid, firstSplit);
  auto [inGroup, column] = narrowWeightColumn(k, ch, V);
  if (inGroup)
    stores = b.andi(stores, inGroup);
  b.ifThen(stores, [&] {
    Value value = roundedToWeights(sum, laneOut);
    b.store(value, dwLane, {k, r, s, column});
  });
  if (kernels::conv2dGw8WgradDiscards(p, c))
    discardReadPartials(wgradReduceElementsPerBlock(p, c), partials, blockX);
  gpu::ReturnOp::create(builder, loc);
}

void Gw8Kernel::buildWgradBias(OpBuilder &builder, Location loc) {
  WgradBiasTiling tiling = wgradBiasTiling(p);
  int64_t vectors = p.c / 8, pixels = p.n * p.outH() * p.outW();
  int64_t offset = wgradBiasPartialsOffset(p, c);
  Type f32 = Float32Type::get(ctx);
  VectorType f32x8 = b.vector8(f32), outT = b.vector8(p.wgradF32 ? f32 : T);
  // The workspace as 8-float vectors: dw's partial sums, then the bias's.
  SpioTensorType wsBiasT =
      b.tensorType({{"f", 1, offset + tiling.blocks * vectors}}, f32x8, MemorySpace::Global);
  SpioTensorType dyFlatT =
      b.tensorType({{"pix", 1, pixels}, {"k", 8, vectors}}, b.vector8(T), MemorySpace::Global);
  SpioTensorType slotsT =
      b.tensorType({{"slot", 1, tiling.slots}, {"k", 8, tiling.lanes}}, f32x8, MemorySpace::Shared);
  SpioTensorType dbT = b.tensorType({{"k", 8, vectors}}, outT, MemorySpace::Global);
  OpBuilder::InsertionGuard guard(builder);

  // Blocks' sums: thread t's slot adds its pixels in order, then thread
  // `lane` of the first slot adds the slots in order.
  gpu::GPUFuncOp sums = reduceKernel(builder, loc, "conv2d_gw8_wgrad_bias", {dyT, wsBiasT});
  {
    Tensor gradient = llvm::cast<Tensor>(sums.getArgument(0));
    Tensor workspace = llvm::cast<Tensor>(sums.getArgument(1));
    Tensor dyv = b.view(gradient, dyFlatT);
    Tensor slotSums = b.alloc(slotsT);
    Value blockX = b.linearId(LinearId::BlockX);
    Value thread = b.linearId(LinearId::Thread);
    Value lanesI = index(tiling.lanes), slotsI = index(tiling.slots);
    Value lane = b.remui(thread, lanesI);
    Value slot = b.divui(thread, lanesI);
    Value inSlot = b.cmpi(arith::CmpIPredicate::ult, slot, slotsI);
    Value blockFirst = b.muli(blockX, index(tiling.pixelsPerBlock));
    Value blockPast = b.addi(blockFirst, index(tiling.pixelsPerBlock));
    Value blockEnd = minui(blockPast, index(pixels));
    Value first = b.addi(blockFirst, slot);
    // Threads past the slots add no pixels; a slot past the block's end none.
    Value end = select(inSlot, blockEnd, first);
    Value upper = b.create<arith::MaxUIOp>({}, end, first);
    Value span = b.subi(upper, first);
    Value spanUp = b.addi(span, index(tiling.slots - 1));
    Value steps = b.divui(spanUp, slotsI);
    constexpr int64_t unroll = 4;
    Value ragged = b.remui(steps, index(unroll));
    Value whole = b.subi(steps, ragged);
    Value wholeSpan = b.muli(whole, slotsI);
    Value mid = b.addi(first, wholeSpan);
    Value zero = zerosOf(f32x8);
    Value zeroI = index(0), oneI = index(1), vectorSteps = index(vectors / tiling.lanes);
    Value isFirstSlot = b.cmpi(arith::CmpIPredicate::eq, slot, zeroI);
    b.forLoop(zeroI, vectorSteps, oneI, {}, [&](Value j, ValueRange) {
      Value vStep = b.muli(j, lanesI);
      Value v = b.addi(vStep, lane);
      Coord channels = b.fromIndex(v, coord("k", 8));
      // Pixels `unroll` at a time (their loads in flight together), then
      // one at a time; either way added in order.
      Value sum = zero;
      auto pixelLoop = [&](Value lower, Value upperBound, int64_t count) {
        Value step = index(count * tiling.slots);
        scf::ForOp loop = b.forLoop(lower, upperBound, step, {sum}, [&](Value m, ValueRange acc) {
          SmallVector<Value> values;
          for (int64_t u = 0; u < count; ++u) {
            Value pixelAt = indexPlus(m, u * tiling.slots);
            Coord pix = b.fromIndex(pixelAt, coord("pix"));
            Value d = b.load(dyv, {pix, channels});
            values.push_back(b.create<arith::ExtFOp>({}, f32x8, d));
          }
          return SmallVector<Value>{addInOrder(acc[0], values)};
        });
        sum = loop.getResult(0);
      };
      pixelLoop(first, mid, unroll);
      pixelLoop(mid, upper, 1);
      b.ifThen(inSlot, [&] {
        Coord slotC = b.fromIndex(slot, coord("slot"));
        Coord laneC = b.fromIndex(lane, coord("k", 8));
        b.store(sum, slotSums, {slotC, laneC});
      });
      b.barrier();
      b.ifThen(isFirstSlot, [&] {
        scf::ForOp slotLoop = b.forLoop(zeroI, slotsI, oneI, {zero}, [&](Value s, ValueRange acc) {
          Coord atSlot = b.fromIndex(s, coord("slot"));
          Coord atLane = b.fromIndex(lane, coord("k", 8));
          Value slotSum = b.load(slotSums, {atSlot, atLane});
          return SmallVector<Value>{b.addf(acc[0], slotSum)};
        });
        Value blockBase = b.muli(blockX, index(vectors));
        Value shifted = b.addi(blockBase, v);
        Value partialIndex = b.addi(shifted, index(offset));
        Coord partial = b.fromIndex(partialIndex, coord("f"));
        b.store(slotLoop.getResult(0), workspace, {partial});
      });
      // The slots are read before the next vector's sums overwrite them.
      b.barrier();
      return SmallVector<Value>{};
    });
    gpu::ReturnOp::create(builder, loc);
  }

  // The reduce: warp w of block b adds vector 8 b + w's partials, lane l
  // those of blocks l, l + 32, ... in order, then the lanes in a fixed
  // xor tree, which leaves every lane the same bits.
  builder.setInsertionPointAfter(sums);
  gpu::GPUFuncOp kernel =
      reduceKernel(builder, loc, "conv2d_gw8_wgrad_bias_reduce", {wsBiasT, dbT});
  Tensor workspace = llvm::cast<Tensor>(kernel.getArgument(0));
  Tensor db = llvm::cast<Tensor>(kernel.getArgument(1));
  Value blockX = b.linearId(LinearId::BlockX);
  Value warpIndex = b.linearId(LinearId::Warp);
  Value lane = b.linearId(LinearId::Lane);
  Value warpsBefore = b.muli(blockX, index(kReduceThreads / 32));
  Value vector = b.addi(warpsBefore, warpIndex);
  Value vectorsI = index(vectors);
  Value valid = b.cmpi(arith::CmpIPredicate::ult, vector, vectorsI);
  Value v = minui(vector, index(vectors - 1));
  Value zero = zerosOf(f32x8);
  SmallVector<Value> values;
  int64_t perLane = ceilDiv(tiling.blocks, 32);
  Value lastBlock = index(tiling.blocks - 1), blocksI = index(tiling.blocks);
  for (int64_t i = 0; i < perLane; ++i) {
    Value block = indexPlus(lane, 32 * i);
    Value owned = b.cmpi(arith::CmpIPredicate::ult, block, blocksI);
    Value clamped = minui(block, lastBlock);
    Value base = b.muli(clamped, index(vectors));
    Value withVector = b.addi(base, v);
    Value at = b.addi(withVector, index(offset));
    Coord partial = b.fromIndex(at, coord("f"));
    Value loaded = b.load(workspace, {partial});
    values.push_back(select(owned, loaded, zero));
  }
  Value laneSum = xorTreeSum(addInOrder(zero, values), 8, 1);
  Value laneZero = index(0);
  Value firstLane = b.cmpi(arith::CmpIPredicate::eq, lane, laneZero);
  Value stores = b.andi(valid, firstLane);
  b.ifThen(stores, [&] {
    Value value = roundedToWeights(laneSum, outT);
    Coord vc = b.fromIndex(v, coord("k", 8));
    b.store(value, db, {vc});
  });
  gpu::ReturnOp::create(builder, loc);
}

void Gw8Kernel::discardReadPartials(int64_t elementsPerBlock, Tensor partials, Value blockX) {
  // Blocks of whole channels (wgradReduceElementsPerBlock): block b alone
  // read the partial sums (R * pairedS * 8 floats a partial, row pairs'
  // included) of its channels [b * channels, + channels), so their whole
  // 128-byte lines, in every partial, go once all its lanes have added
  // theirs.
  int64_t channels = elementsPerBlock / (p.r * p.s * 8);
  int64_t parts = kernels::conv2dGw8WgradPartials(p, c), floatsPerChannel = p.r * pairedS(p) * 8;
  int64_t lineFloats = 32, partLines = p.c * floatsPerChannel / lineFloats;
  SpioTensorType linesT = b.tensorType({{"line", 1, parts * partLines}, {"f", 1, 32}},
                                       Float32Type::get(ctx), MemorySpace::Global);
  b.barrier();
  Tensor lines = b.view(partials, linesT);
  Value thread = b.linearId(LinearId::Thread);
  Value perBlock = index(channels), allChannels = index(p.c);
  Value floats = index(floatsPerChannel), lineSize = index(lineFloats);
  Value lineAbove = index(lineFloats - 1), threads = index(kReduceThreads);
  Value perPart = index(partLines), partCount = index(parts);
  Value kFirst = b.muli(blockX, perBlock);
  Value kPast = b.addi(kFirst, perBlock);
  Value kEnd = minui(kPast, allChannels);
  // The lines wholly inside the channels' floats (5x5: 7.5 lines a channel).
  Value fFirst = b.muli(kFirst, floats);
  Value fFirstUp = b.addi(fFirst, lineAbove);
  Value line0 = b.divui(fFirstUp, lineSize);
  Value fEnd = b.muli(kEnd, floats);
  Value line1Down = b.divui(fEnd, lineSize);
  Value line1 = b.create<arith::MaxUIOp>({}, line1Down, line0);
  Value ownLines = b.subi(line1, line0);
  Value allLines = b.muli(ownLines, partCount);
  b.forLoop(thread, allLines, threads, {}, [&](Value i, ValueRange) {
    Value ip = b.divui(i, ownLines);
    Value ipl = b.muli(ip, ownLines);
    Value j = b.subi(i, ipl);
    Value partFirst = b.muli(ip, perPart);
    Value lineAt = b.addi(partFirst, line0);
    Value lineIndex = b.addi(lineAt, j);
    Coord line = b.fromIndex(lineIndex, coord("line"));
    b.create<DiscardOp>({}, lines, ValueRange{line});
    return SmallVector<Value>{};
  });
}

/// The message where an operand's type is not the one the problem needs.
static LogicalResult checkOperand(Conv2dGw8Op op, StringRef name, Value value,
                                  SpioTensorType expected) {
  if (value.getType() == expected)
    return success();
  return op.emitOpError() << name << " must be " << expected << " for this problem, got "
                          << value.getType();
}

LogicalResult mlir::spio::buildConv2dGw8Tile(KernelBuilder &b, Conv2dGw8Op op,
                                             const Conv2dGw8Problem &problem,
                                             const Conv2dGw8Config &config) {
  Gw8Kernel kernel(b, problem, config);
  Gw8Types types = kernel.types();
  bool checked = true;
  auto check = [&](StringRef name, Value value, SpioTensorType expected) {
    checked = checked && succeeded(checkOperand(op, name, value, expected));
  };
  switch (problem.pass) {
  case kernels::ConvPass::Fprop:
    check("x", op.getA(), types.x);
    check("w", op.getB(), types.w);
    if (op.getBias())
      check("bias", op.getBias(), types.bias);
    check("y", op.getD(), types.y);
    break;
  case kernels::ConvPass::Dgrad:
    check("dy", op.getA(), types.x);
    check("w", op.getB(), types.w);
    check("dx", op.getD(), types.y);
    break;
  case kernels::ConvPass::Wgrad:
    check("x", op.getA(), types.x);
    check("dy", op.getB(), types.dy);
    if (problem.wgradClusterReduce)
      check("dw", op.getD(), types.dw);
    else
      check("the partial sums", op.getD(), types.ws);
    break;
  }
  if (!checked)
    return failure();
  kernel.buildTile(op->getParentOfType<gpu::GPUFuncOp>(), op);
  return success(b.succeeded());
}

OwningOpRef<ModuleOp> mlir::spio::buildConv2dGw8Workload(MLIRContext *context,
                                                         const Conv2dGw8Problem &p,
                                                         const Conv2dGw8Config &c) {
  Location loc = NameLoc::get(StringAttr::get(context, "spio_conv"));
  OpBuilder builder(context);
  KernelBuilder b(builder, loc);
  Gw8Kernel family(b, p, c);
  Gw8Types types = family.types();
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  (*module)->setAttr(gpu::GPUDialect::getContainerModuleAttrName(), builder.getUnitAttr());
  builder.setInsertionPointToEnd(module->getBody());
  auto kernels = gpu::GPUModuleOp::create(builder, loc, "spio_conv");
  builder.setInsertionPointToStart(kernels.getBody());
  bool wgrad = p.pass == kernels::ConvPass::Wgrad;
  SmallVector<Type> params;
  if (wgrad)
    params = {types.x, types.dy, p.wgradClusterReduce ? types.dw : types.ws};
  else
    params = {types.x, types.w, types.bias, types.y};
  std::string name = std::string("conv2d_gw8_") + kernels::convPassName(p.pass);
  auto kernel = gpu::GPUFuncOp::create(builder, loc, name, builder.getFunctionType(params, {}));
  kernel->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), builder.getUnitAttr());
  {
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToStart(&kernel.getBody().front());
    ValueRange args = kernel.getArguments();
    // The reduce runs as a dependent grid, launched once every block has
    // stored its partial sums (or, wgradEarlyLaunch, has started), so that
    // its launch and start overlap this grid's end; it then waits for the
    // sums.
    bool reduces = wgrad && !p.wgradClusterReduce;
    if (reduces && p.wgradEarlyLaunch)
      LaunchDependentsOp::create(builder, loc);
    WgradPartsAttr parts;
    if (p.wgradParts != kernels::WgradParts::All)
      parts = WgradPartsAttr::get(context, WgradParts(int(p.wgradParts) - 1));
    auto config =
        Conv2dGw8ConfigAttr::get(context, {c.warpsQ, c.warpsG}, c.rowsP, c.chunks, c.copyWarps,
                                 p.target.multiprocessors, c.rowRing, c.stages);
    Conv2dGw8Op::create(builder, loc, ConvPass(int(p.pass)), args[0], args[1],
                        p.bias && !wgrad ? args[2] : Value(), args[wgrad ? 2 : 3],
                        ArrayRef<int64_t>{p.r, p.s}, ArrayRef<int64_t>{p.padH, p.padW},
                        uint64_t(p.stride), config, parts, p.groupWidth);
    if (reduces && !p.wgradEarlyLaunch)
      LaunchDependentsOp::create(builder, loc);
    gpu::ReturnOp::create(builder, loc);
  }
  builder.setInsertionPointAfter(kernel);
  if (wgrad && !p.wgradClusterReduce)
    family.buildWgradReduce(builder, loc);
  if (wgrad && p.bias) {
    builder.setInsertionPointToEnd(kernels.getBody());
    family.buildWgradBias(builder, loc);
  }
  return module;
}

std::string mlir::spio::conv2dGw8Source(const Conv2dGw8Problem &problem,
                                        const Conv2dGw8Config &config) {
  return printedWorkload(
      [&](MLIRContext *context) { return buildConv2dGw8Workload(context, problem, config); });
}
