//===- Conv2dGw8Source.cpp - conv2d-gw8's spio-dialect sources ----------===//
//
// The workload op and the kernels spio-tile expands it to, written as
// spio-dialect text from a problem and its configuration.
//
//===----------------------------------------------------------------------===//

#include "Conv2dGw8Tiling.h"

#include <algorithm>
#include <cassert>
#include <functional>
#include <map>
#include <sstream>
#include <vector>

namespace spio::kernels {

using namespace gw8;

namespace {

std::string coord(const std::string &dim, int64_t fold = 1) {
  return "!spio.coord<" + dim + (fold == 1 ? "" : "/" + std::to_string(fold)) + ">";
}

class ConvWriter {
public:
  ConvWriter(const Conv2dGw8Problem &p, const Conv2dGw8Config &c) : p(p), c(c) {
    T = dtypeName(p.dtype);
    dgrad = p.pass == ConvPass::Dgrad;
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
    perQ = staged.columnPitch(WG);
    pixelPitch = conflictFreePitch(WG);
    tapPairStride = staged.tapPairStride(WG);
    upsample = upsamplesDy(p);
    flat = flatRows(p);
    grid = bandGrid(p, c);
    outputRows = p.pass == ConvPass::Wgrad || flat ? 1 : outputRowsPerBarrier(p, c);
    computeTypes();
  }

  /// The tiled kernel (what spio-tile expands the workload op into).
  std::string writeTile();
  /// The workload: the kernel as one spio.conv2d_gw8 op (and, for wgrad,
  /// the reduce kernel).
  std::string writeWorkload();

private:
  std::string fresh(const std::string &prefix) { return "%" + prefix + std::to_string(n++); }
  /// The barrier of the warps that compute: the block's, or with copy
  /// warps the compute warps' own.
  std::string blockBarrier() const {
    return streamed ? "spio.named_barrier 1, threads " + std::to_string(32 * c.computeWarps())
                    : "gpu.barrier";
  }
  std::string barriersType() const {
    return "!spio.barriers<" + std::to_string(streamBarrierCount(p, c)) + ">";
  }
  std::string constant(int64_t value, const std::string &dim, int64_t fold = 1) {
    std::string name = fresh("c");
    out << "    " << name << " = spio.constant " << value << " : " << coord(dim, fold) << "\n";
    return name;
  }
  std::string index(int64_t value) {
    std::string name = fresh("x");
    out << "    " << name << " = arith.constant " << value << " : index\n";
    return name;
  }
  /// The index `base` + `offset` (`base` itself where `offset` is 0).
  std::string indexPlus(const std::string &base, int64_t offset) {
    if (!offset)
      return base;
    std::string step = index(offset), name = fresh("i");
    out << "    " << name << " = arith.addi " << base << ", " << step << " : index\n";
    return name;
  }
  /// `name` = `lhs` `op` `rhs` on indices (op: arith.muli, ...).
  void indexOp(const std::string &name, const char *op, const std::string &lhs,
               const std::string &rhs) {
    out << "    " << name << " = arith." << op << " " << lhs << ", " << rhs << " : index\n";
  }
  /// Opens `scf.if` on the index `value` < `limit`; the caller closes it.
  void openIfBelow(const std::string &value, int64_t limit) {
    std::string bound = index(limit), valid = fresh("valid");
    out << "    " << valid << " = arith.cmpi ult, " << value << ", " << bound
        << " : index\n    scf.if " << valid << " {\n";
  }
  /// `lhs op rhs` on coordinates of one type.
  std::string binary(const char *op, const std::string &lhs, const std::string &rhs,
                     const std::string &type, std::string rhsType = "") {
    std::string name = fresh("v");
    out << "    " << name << " = spio." << op << " " << lhs << ", " << rhs << " : " << type
        << ", " << (rhsType.empty() ? type : rhsType) << "\n";
    return name;
  }
  /// The same index as a coordinate of another dimension or fold: where a
  /// stride scales a position (input row 2p for output row p).
  std::string reinterpret(const std::string &value, const std::string &from,
                          const std::string &to) {
    std::string index = fresh("i"), name = fresh("v");
    out << "    " << index << " = spio.to_index " << value << " : " << from << "\n";
    out << "    " << name << " = spio.from_index " << index << " : " << to << "\n";
    return name;
  }
  std::string cmp(const char *predicate, const std::string &lhs, const std::string &rhs,
                  const std::string &type, std::string rhsType = "") {
    std::string name = fresh("b");
    out << "    " << name << " = spio.cmp " << predicate << ", " << lhs << ", " << rhs << " : "
        << type << ", " << (rhsType.empty() ? type : rhsType) << "\n";
    return name;
  }
  /// `value` modulo 2.
  std::string parity(const std::string &value, const std::string &type) {
    std::string name = fresh("v");
    out << "    " << name << " = spio.mod " << value << ", 2 : " << type << "\n";
    return name;
  }
  std::string andi(const std::string &lhs, const std::string &rhs) {
    std::string name = fresh("b");
    out << "    " << name << " = arith.andi " << lhs << ", " << rhs << " : i1\n";
    return name;
  }
  /// `running` + each of `values` in order (f32 additions of `type`).
  std::string addInOrder(std::string running, const std::vector<std::string> &values,
                         const std::string &type) {
    for (const std::string &value : values) {
      std::string next = fresh("v");
      out << "    " << next << " = arith.addf " << running << ", " << value << " : " << type
          << "\n";
      running = next;
    }
    return running;
  }
  /// `sum` of f32 `type` as the weights' type `outType` (wgrad's dw and db:
  /// rounded once, unless they are written as f32).
  std::string roundedToWeights(const std::string &sum, const std::string &type,
                               const std::string &outType) {
    if (p.wgradF32)
      return sum;
    std::string value = fresh("v");
    out << "    " << value << " = arith.truncf " << sum << " : " << type << " to " << outType
        << "\n";
    return value;
  }
  /// `sum` (f32, or a vector of `width` f32 of `type`) added over the
  /// lanes whose ids differ in the bits from `firstMask` up, in a fixed xor
  /// tree that leaves each of them the same bits. NVVM shuffles 32-bit
  /// values: a vector's floats each apart.
  std::string xorTreeSum(std::string sum, const std::string &type, int64_t width,
                         int64_t firstMask) {
    out << "    %width = arith.constant 32 : i32\n";
    for (int64_t mask = firstMask; mask < 32; mask *= 2) {
      std::string offset = fresh("m"), other = fresh("v");
      out << "    " << offset << " = arith.constant " << mask << " : i32\n";
      auto shuffle = [&](const std::string &mine, const std::string &theirs) {
        out << "    " << theirs << ", " << fresh("b") << " = gpu.shuffle xor " << mine << ", "
            << offset << ", %width : f32\n";
      };
      if (width == 1) {
        shuffle(sum, other);
      } else {
        std::string joined;
        for (int64_t e = 0; e < width; ++e) {
          std::string mine = fresh("v"), theirs = fresh("v");
          out << "    " << mine << " = vector.extract " << sum << "[" << e << "] : f32 from "
              << type << "\n";
          shuffle(mine, theirs);
          joined += (e ? ", " : "") + theirs;
        }
        out << "    " << other << " = vector.from_elements " << joined << " : " << type << "\n";
      }
      sum = addInOrder(sum, {other}, type);
    }
    return sum;
  }

  std::string convert(const char *op, const std::string &value, const std::string &from,
                      const std::string &to) {
    std::string name = fresh("v");
    out << "    " << name << " = spio." << op << " " << value << " : " << from << " to " << to
        << "\n";
    return name;
  }

  /// A cooperative loop over `count` elements: each pass, thread `tid` +
  /// pass * threads runs `body` on linear element `lin`, guarded so that
  /// spare threads do nothing (a zero-filling copy would overwrite a real
  /// element).
  void forEachElement(int64_t count, const std::function<void(const std::string &)> &body);
  /// A staged row's elements: an element's index in its row decomposes
  /// by `sizes` into coordinates of `types`; rows are `rowType`.
  struct RowShape {
    std::string rowType;
    std::vector<int64_t> sizes;
    std::vector<std::string> types;
  };
  using RowPart = std::function<void(const std::vector<std::string> &)>;
  using RowBody = std::function<void(const std::string &)>;
  /// A cooperative loop over `rows` rows of elements of `shape`: `inRow` on
  /// an element's coordinates, then `body` on its row (a coordinate of
  /// shape.rowType). With `rowElements`, each thread keeps its element of a
  /// row and steps through the rows, so that what depends on the element's
  /// place in a row (image, column, bounds, its share of the address) is
  /// worked out once instead of once a copy; threads beyond a whole number
  /// of rows a pass then do nothing. Otherwise forEachElement's passes.
  void forEachRowElement(int64_t rows, const RowShape &shape, bool rowElements,
                         const RowPart &inRow, const RowBody &body);
  /// Whether wgrad's band copies keep each thread on one element of a row
  /// (forEachRowElement): where a band row is 3 or more column tiles
  /// (TUNING.md, "Copies").
  bool wgradRowElements() const;
  /// forEachElement over the output tile's 16-byte vectors (a pixel's WG
  /// groups in a row), its threads ordered by copyOutTid.
  void forEachOutputVector(int64_t count,
                           const std::function<void(const std::string &)> &body);
  /// Staged input rows [first, first + count), into shared rows from
  /// `slot` on (first where negative); without zero rows (zeroRow), each
  /// into its slotOf.
  void stageInput(int64_t first, int64_t count, int64_t slot = -1);
  /// The copies of stageInput, every row.
  void copyInputRows(int64_t first, int64_t count, int64_t slot);
  void stageWeights();
  /// fprop/dgrad: an A fragment over `pixels` or a B fragment (no pixels)
  /// for an mma step of `taps` taps, or (C) the sums over `pixels`, of the
  /// first step's shape.
  std::string fragmentType(char role, const std::string &pixels, int64_t taps = 0) const {
    std::string dims = role == 'A' ? pixels + ", " + RD : role == 'B' ? RD + ", " + CO
                                                                      : pixels + ", " + CO;
    if (role == 'C')
      taps = tapSteps(p).front().taps;
    return std::string("!spio.fragment<") + role + ", " + (taps == 2 ? "m16n8k16" : "m16n8k8") +
           ", " + (role == 'C' ? "f32" : T) + ", [" + dims + "]>";
  }
  /// The image of the band's column %q0 + `offset` (a `q`, under
  /// `columns`) and its column in that image: %n and %q0 + `offset`, or
  /// with images side by side (grid.images > 1) the image from the band's
  /// first %n on, the column among its packedPitch, and `exists`, whether
  /// the image is one of the row's and of the batch's.
  struct ImageColumn {
    std::string image, column, exists;
  };
  ImageColumn imageColumn(const std::string &offset, int64_t columns);
  /// Gapless images (BandGrid::gapless): the image and column of the
  /// block's output pixel %d0 + `offset` (a `q`, under `columns`).
  ImageColumn gaplessColumn(const std::string &offset, int64_t columns);
  /// The image and column, as i32 under `pitch` (named by the SSA value
  /// `pitchValue`), of the block's first column (%q0img, %q0col, whose
  /// column is under both pitches) plus `offset`.
  ImageColumn splitColumn(const std::string &offset, int64_t columns, int64_t pitch,
                          const std::string &pitchValue, const std::string &first);
  /// With images side by side: the pitch (%pitch) and %q0's image and
  /// column among it, as i32 (%q0img, %q0col), one division where %q0 is
  /// defined, so that a copy whose offsets span at most a pitch and one
  /// column takes an addition and a wrap instead of a division of its own.
  /// Gapless images: %q0 is the staged column of the tile's first output
  /// pixel %d0 (i32 %d0v), with the output row's pitch %qpitch.
  void splitFirstColumn();
  /// Gapless images: this lane's A-fragment row, as the staged column
  /// (from %q0) of the pixel it addresses in warp %wq's fragment, %gq.
  void gatherColumn();
  /// Gapless images: pixel `pixel` (i32) of the row of images is column
  /// `column` of image `image` (pixel / Q, pixel % Q), staged at image *
  /// pitch + column; defines the three i32 values so named.
  void splitGaplessPixel(const std::string &pixel, const std::string &image,
                         const std::string &column, const std::string &staged);
  /// %n (the band's image, or the first of its row of images side by
  /// side), %p0 and, with `columnTiles` (wgrad), %q0 of `band`, an index
  /// over (images, row tiles[, column tiles]).
  void bandCoordinates(const std::string &band, bool columnTiles);
  /// wgrad: dy's band into shared memory; the band's mma into the partial
  /// sums `accs`; the reduction of the partials into dw.
  void stageGradient();
  void computeWgrad(std::vector<std::string> &accs);
  void computeWgradFlat(std::vector<std::string> &accs);
  void computeWgradFlatRowSteps(std::vector<std::string> &accs);
  /// wgrad on flattened rows: the m16n8k8 fragment type `kind` (A: x's
  /// taps by pixels, B: dy's pixels by channels).
  std::string flatStepFragmentType(char kind) const {
    return kind == 'A' ? std::string("!spio.fragment<A, m16n8k8, ") + T + ", [sc, m]>"
                       : std::string("!spio.fragment<B, m16n8k8, ") + T + ", [m, k]>";
  }
  /// The warp's 8-pixel step `j` (an index) as a coordinate.
  std::string flatStep(const std::string &j);
  /// dy's B fragment at the warp's step `step`.
  std::string loadFlatGradient(const std::string &step);
  /// x's A fragment of the tap pair at pixel offset `tap` from the warp's
  /// step `step` (`rowPair`: from the view of paired staged rows).
  std::string loadFlatInput(const std::string &step, int64_t tap, bool rowPair);
  /// %band0 and %band1: the range of bands block_y takes (BandGrid).
  void chunkBands();
  /// The values a carrying loop carries, in order: their names inside the
  /// loop, their values on entry and their types.
  struct LoopCarried {
    std::vector<std::string> names, inits, types;
    /// Carries `init` (of `type`) as `name`; returns `name`.
    std::string add(const std::string &name, const std::string &init, const std::string &type) {
      names.push_back(name);
      inits.push_back(init);
      types.push_back(type);
      return name;
    }
  };
  /// Opens `results = scf.for iv = lower to upper step step` carrying
  /// `carried`.
  void openCarryingLoop(const std::string &results, const std::string &iv,
                        const std::string &lower, const std::string &upper,
                        const std::string &step, const LoopCarried &carried);
  /// `scf.yield values` (of `carried`'s types) and the loop's closing brace.
  void closeCarryingLoop(const std::vector<std::string> &values, const LoopCarried &carried);
  /// Result `i` of the loop whose results are `results`.
  static std::string loopResult(const std::string &results, size_t i) {
    return results + "#" + std::to_string(i);
  }
  /// wgrad on flattened rows: the 8-pixel steps of a band each warp along
  /// the pixels takes.
  int64_t wgradStepsPerWarp() const { return flatPixels / (8 * c.warpsQ); }
  /// wgrad's warps along the pixels (%wq): 16-column fragments, or
  /// flattened rows' steps.
  const char *wgradPixelDim() const { return flat ? "m" : "q"; }
  int64_t wgradPixelFold() const { return flat ? 8 * wgradStepsPerWarp() : 16; }
  /// wgrad's partial sums: m16n8k16 over a row's 16 columns, m16n8k8 over
  /// flattened rows' 8-pixel steps.
  std::string wgradAccumulatorType() const {
    return std::string("!spio.fragment<C, ") + (flat ? "m16n8k8" : "m16n8k16") +
           ", f32, [sc, k]>";
  }
  /// copyOutTid: %tid permuted so that a 16-byte access phase of the
  /// output tile's copy-out reads 8 distinct bank slots.
  void defineCopyOutThread();
  /// fprop/dgrad: one output row from the shared tile's `slot` to y as
  /// 16-byte vectors, within the bounds.
  void copyOutputRow(const std::string &slot, const std::string &pAbs,
                     const std::string &limitQ);
  /// The group's B fragment of every tap (dgrad: flipped, transposed).
  std::vector<std::string> loadWeights();
  /// What fprop and dgrad set up before their tap loops, with fragments
  /// over the pixel dimension `pixels` (q, or m for flattened rows): the
  /// warp's coordinates (%wg and %w<pixels>), its group as weight rows and
  /// output channels (%wgk, %wgo), the bias viewed broadcast over a
  /// fragment's 16 pixels (%bias<pixels>) or a zero, the wait for the
  /// first `pending` commit groups (none where negative: the caller
  /// waited), and the weights.
  struct ComputeStart {
    std::vector<std::string> weights;
    std::string limitO;
    /// Every output fragment's initial sums: the bias or zeros.
    std::string initial;
  };
  ComputeStart beginCompute(const std::string &pixels, int64_t pending);
  /// fprop/dgrad on rows of fragments: the block's output rows from its
  /// staged rows, waiting for each commit group of them (`awaitRows`) or
  /// with all of them staged.
  void computeRows(const ComputeStart &start, bool awaitRows);
  /// fprop/dgrad with copy warps (Conv2dGw8Config::copyWarps): the copy
  /// warps stream the chunk's bands' rows into the staged tile, the
  /// compute warps compute each band as its rows land.
  void writeStreamedBands();
  /// The bias broadcast over a fragment's 16 `pixels` by a zero stride.
  std::string biasViewType(const std::string &pixels) const {
    return "!spio.tensor<[" + pixels + ": 16:0, " + CO + ": " + std::to_string(p.c) + "] x " +
           T + ", global>";
  }
  /// fprop/dgrad on flattened rows: for each of the block's bands, its
  /// 16-pixel fragments, then its output rows copied out.
  void computeFlat();
  void writeWgradReduce();
  void writeWgradBias();
  /// conv2dGw8WgradDiscards(): after its sums, the reduce block drops the
  /// partial-sum lines of the output channels it alone read.
  void discardReadPartials(int64_t elementsPerBlock);
  /// Where the partial sums hold tap (`r`, `s`) (WgradSum): its kernel row
  /// and sc/8 entry.
  std::pair<std::string, std::string> partialSumPlace(const std::string &r,
                                                      const std::string &s);
  std::string swizzleFor(int64_t perRow) const;
  void computeTypes();
  /// The comment line, module and gpu.module openings, and the kernel's
  /// gpu.func line (with its known block size when `tiled`).
  void openKernel(bool tiled);
  /// fprop/dgrad on rows of fragments: blocks of this kernel a
  /// multiprocessor holds by shared memory, at up to 40 registers a thread.
  int64_t residentBlocks() const;
  /// Whether the kernel computes its global offsets in 32 bits
  /// (spio.offset_bits).
  bool narrowOffsets() const;
  void writeTileBody();
  void writeWgradTileBody();
  /// The workload op's ` parts ...` where wgrad runs one part of its band
  /// loop alone, else nothing.
  std::string wgradPartsClause() const;
  /// wgrad's row ring: a band's copies of x, its first R - 1 rows only
  /// where it starts a column tile or the chunk.
  void stageRingRows();
  /// wgrad's row ring: this band's last R - 1 staged rows into the next
  /// band's first, where the next band continues this column tile.
  void handOnRingRows();
  /// wgrad: the block's partial sums into the workspace (wgradSumsPerRound),
  /// or with wgradClusterReduce into its shared %csums.
  void storeWgradPartial(const std::vector<WgradSum> &sums, const std::string &FC);
  /// wgradClusterReduce: after every block of the cluster has stored its
  /// sums, each adds a share of the group tile's dw elements over the
  /// blocks in order and stores them.
  void reduceInCluster();

  const Conv2dGw8Problem &p;
  const Conv2dGw8Config &c;
  const char *T;
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
  /// %bars; `rowPhase` names the parity of the band's phase of the full
  /// barriers (computeRows waits for it). The compute warps synchronize
  /// among themselves (named barrier 1).
  bool streamed = false;
  std::string rowPhase;
  /// Who shares forEachElement's elements: the thread index from 0 and the
  /// thread count (the block's, or with copy warps those of one role).
  std::string elementTid = "%tid";
  int64_t elementThreads = 0;
  /// The thread index forEachOutputVector spreads the output tile's
  /// vectors by (defineCopyOutThread).
  std::string copyOutTid = "%tid";
  /// The shared row of staged row i.
  int64_t slotOf(int64_t i) const { return skipZeroRows ? i / 2 : i % slots; }
  /// One past the last staged row of commit group g: group 0 holds rows
  /// 0 .. R - 1, group g the stride * outputRows rows before groupEnd(g)
  /// (the last one those left).
  int64_t groupEnd(int64_t g) const { return std::min(rows, p.r + st * outputRows * g); }
  int64_t groupCount() const { return 1 + ceilDiv(rows - p.r, st * outputRows); }
  /// Output rows between two barriers (outputRowsPerBarrier).
  int64_t outputRows = 1;
  /// The stride of the staged input (1 for dgrad), the vectors between its
  /// staged columns (StagedInput::columnPitch), between the pixels of
  /// flattened and dy tiles (conflictFreePitch), and from a tap to the next
  /// of a pair (StagedInput::tapPairStride); whether the staging upsamples
  /// dy (dgrad, stride 2).
  int64_t st, perQ, pixelPitch, tapPairStride;
  bool upsample;
  /// skipsZeroRows: the zero rows (zeroRow) are neither staged nor
  /// multiplied, half the mma of the upsampled rows.
  bool skipZeroRows = false;
  bool zeroRow(int64_t i) const { return skipZeroRows && (i - p.kernelPadH()) % 2 != 0; }
  /// Narrow images: rows flattened into `m` (flatRows), the pixels a block
  /// computes, and wgrad's staged dy rows.
  bool flat = false;
  int64_t flatPixels = 0, gradientRows = 0;
  std::ostringstream out;
  int n = 0;
  std::string xT, wT, bT, yT, sxT, swT, dyT, sdyT, wsT, dwT, csumT;
  /// fprop/dgrad: the reduction dimension of an mma, its taps times the
  /// channels (`sc`, dgrad `sk`), and the staged weights viewed with it.
  std::string RD, swpT;
  /// fprop/dgrad: y as 16-byte vectors, and the shared output tile as
  /// scalars (fragment stores) and as vectors (copies out).
  std::string yvT, syT, syvT;
  /// Flattened rows: the staged input (wgrad: and dy) as pixels `m`.
  std::string sxfT, sdyfT;
  /// wgrad: the staged input (as rows or as pixels `m`) whose `sc/8` entry
  /// steps one staged row (WgradSum::rowPair).
  std::string sxRowsT;
  /// The bands, chunks and images side by side (bandGrid).
  BandGrid grid{};
};

void ConvWriter::forEachElement(int64_t count,
                                const std::function<void(const std::string &)> &body) {
  int64_t threads = elementThreads ? elementThreads : c.threads();
  for (int64_t pass = 0; pass * threads < count; ++pass) {
    std::string offset = index(pass * threads), lin = fresh("lin");
    out << "    " << lin << " = arith.addi " << elementTid << ", " << offset << " : index\n";
    openIfBelow(lin, count);
    body(lin);
    out << "    }\n";
  }
}

void ConvWriter::forEachRowElement(int64_t rows, const RowShape &shape, bool rowElements,
                                   const RowPart &inRow, const RowBody &body) {
  int64_t perRow = 1;
  for (int64_t size : shape.sizes)
    perRow *= size;
  auto decompose = [&](const std::string &linear, bool withRow) {
    std::vector<std::string> coords;
    std::string row = withRow ? fresh("rl") : "";
    for (size_t i = 0; i < shape.sizes.size(); ++i)
      coords.push_back(fresh("el"));
    out << "    " << (withRow ? row + ", " : "");
    for (size_t i = 0; i < coords.size(); ++i)
      out << (i ? ", " : "") << coords[i];
    out << " = spio.decompose " << linear << " [";
    if (withRow)
      out << rows << ", ";
    for (size_t i = 0; i < shape.sizes.size(); ++i)
      out << (i ? ", " : "") << shape.sizes[i];
    out << "] : " << (withRow ? shape.rowType + ", " : "");
    for (size_t i = 0; i < shape.types.size(); ++i)
      out << (i ? ", " : "") << shape.types[i];
    out << "\n";
    if (withRow)
      coords.push_back(row);
    return coords;
  };
  if (!rowElements) {
    forEachElement(rows * perRow, [&](const std::string &lin) {
      std::vector<std::string> coords = decompose(lin, true);
      std::string row = coords.back();
      coords.pop_back();
      inRow(coords);
      body(row);
    });
    return;
  }
  auto rowAt = [&](const std::string &index) {
    std::string row = fresh("rl");
    out << "    " << row << " = spio.from_index " << index << " : " << shape.rowType << "\n";
    body(row);
  };
  int64_t threads = elementThreads ? elementThreads : c.threads();
  if (perRow > threads) {
    // Each thread takes an element every `threads` of a row, in every row.
    for (int64_t slot = 0; slot * threads < perRow; ++slot) {
      std::string e = indexPlus(elementTid, slot * threads);
      bool spare = (slot + 1) * threads > perRow;
      if (spare)
        openIfBelow(e, perRow);
      inRow(decompose(e, false));
      for (int64_t r = 0; r < rows; ++r)
        rowAt(index(r));
      if (spare)
        out << "    }\n";
    }
    return;
  }
  // step rows a pass: thread t takes element t mod perRow of row
  // t / perRow, then of the rows step, 2 step, ... further on.
  int64_t step = std::min(threads / perRow, rows);
  std::string width = index(perRow), first = fresh("rf"), e = fresh("e");
  out << "    " << first << " = arith.divui " << elementTid << ", " << width << " : index\n";
  out << "    " << e << " = arith.remui " << elementTid << ", " << width << " : index\n";
  bool spare = step * perRow < threads;
  if (spare)
    openIfBelow(first, step);
  inRow(decompose(e, false));
  for (int64_t pass = 0; pass * step < rows; ++pass) {
    std::string row = indexPlus(first, pass * step);
    bool partial = (pass + 1) * step > rows;
    if (partial)
      openIfBelow(row, rows);
    rowAt(row);
    if (partial)
      out << "    }\n";
  }
  if (spare)
    out << "    }\n";
}

bool ConvWriter::wgradRowElements() const { return !flat && grid.qTiles >= 3; }

void ConvWriter::forEachOutputVector(int64_t count,
                                     const std::function<void(const std::string &)> &body) {
  // A pass takes whole runs of 8 * WG threads (all the compute threads),
  // so the permuted indices cover the same elements as %tid's.
  std::string tid = elementTid;
  elementTid = copyOutTid;
  forEachElement(count, body);
  elementTid = tid;
}

void ConvWriter::stageInput(int64_t firstRow, int64_t numRows, int64_t slot) {
  if (!skipZeroRows) {
    copyInputRows(firstRow, numRows, slot);
    return;
  }
  for (int64_t m = firstRow; m < firstRow + numRows; ++m)
    if (!zeroRow(m))
      copyInputRows(m, 1, slotOf(m));
}

void ConvWriter::copyInputRows(int64_t firstRow, int64_t numRows, int64_t slot) {
  bool strided = st == 2;
  std::string first = constant(firstRow, "r");
  bool moved = slot >= 0 && slot != firstRow;
  std::string firstSlot = moved ? constant(slot, "r") : first;
  std::string H = coord("h"), W = coord("w"), Q = coord("q"), G8 = coord(CI, 8);
  std::string padH = constant(p.kernelPadH(), "h"), padW = constant(p.kernelPadW(), "w");
  std::string zeroH = constant(0, "h"), zeroW = constant(0, "w");
  std::string limitH = constant(p.kernelInH(), "h"), limitW = constant(p.kernelInW(), "w");
  std::string limitC = constant(p.c, CI);
  // The block's first input row: stride * p0, in steps of the stride.
  std::string HS = coord("h", st), WS = coord("w", st);
  std::string ph = strided ? reinterpret("%p0", coord("p"), HS)
                            : convert("cast", "%p0", coord("p"), H);
  // A staged row's elements: (column, [input column's phase,] group).
  RowShape shape{coord("r"), {copiedQT, WG}, {Q, G8}};
  if (strided) {
    shape.sizes.insert(shape.sizes.begin() + 1, 2);
    shape.types.insert(shape.types.begin() + 1, coord("wp"));
  }
  // What a copy's element of a row decides (its column and group): the
  // bounds apart, as forEachElement's copies combine them with the row's,
  // and together (columnOk), as rowElements copies do.
  bool rowElements = p.pass == ConvPass::Wgrad && wgradRowElements();
  std::string qq, wp, gl, w, g, evenW, columnInside, groupInside, columnOk;
  ImageColumn at;
  auto inRow = [&](const std::vector<std::string> &element) {
    qq = element.front(), gl = element.back(), wp = strided ? element[1] : "";
    // Input column w = stride * (q0 + q) + wp - padW.
    at = imageColumn(qq, copiedQT);
    if (strided) {
      // Stride 2 stages one image a band (packedImages): at.column is q0 + q.
      std::string wq = reinterpret(at.column, Q, WS);
      std::string wpw = convert("cast", wp, coord("wp"), W);
      w = binary("sub", binary("add", wq, wpw, WS, W), padW, W);
    } else {
      w = binary("sub", convert("cast", at.column, Q, W), padW, W);
    }
    if (upsample) {
      // Position u of the upsampled dy holds dy[u / 2] when u is even.
      evenW = cmp("eq", parity(w, W), zeroW, W);
      w = reinterpret(convert("fold", w, W, coord("w", 2)), coord("w", 2), W);
    }
    columnInside = andi(cmp("ge", w, zeroW, W), cmp("lt", w, limitW, W));
    g = binary("add", "%g0", gl, G8);
    groupInside = cmp("lt", g, limitC, G8, coord(CI));
    if (!rowElements)
      return;
    columnOk = andi(upsample ? andi(evenW, columnInside) : columnInside, groupInside);
    if (!at.exists.empty())
      columnOk = andi(columnOk, at.exists);
  };
  auto copyRow = [&](const std::string &rl) {
    // Input row h = stride * p0 + r - padH.
    std::string rr = binary("add", first, rl, coord("r"));
    std::string rh = convert("cast", rr, coord("r"), H);
    std::string h = binary("sub", binary("add", ph, rh, strided ? HS : H, H), padH, H);
    std::string evenH;
    if (upsample) {
      evenH = cmp("eq", parity(h, H), zeroH, H);
      h = reinterpret(convert("fold", h, H, coord("h", 2)), coord("h", 2), H);
    }
    std::string ok = andi(cmp("ge", h, zeroH, H), cmp("lt", h, limitH, H));
    if (rowElements) {
      ok = andi(upsample ? andi(evenH, ok) : ok, columnOk);
    } else {
      ok = upsample ? andi(andi(evenH, evenW), andi(ok, columnInside)) : andi(ok, columnInside);
      ok = andi(ok, groupInside);
      if (!at.exists.empty())
        ok = andi(ok, at.exists);
    }
    std::string sr = moved ? binary("add", firstSlot, rl, coord("r")) : rr;
    std::string dst = strided ? sr + ", " + qq + ", " + wp + ", " + gl : sr + ", " + qq + ", " + gl;
    std::string dstTypes = coord("r") + ", " + Q + (strided ? ", " + coord("wp") : "") + ", " + G8;
    out << "    spio.async_copy %x[" << at.image << ", " << h << ", " << w << ", " << g
        << "] to %sx[" << dst << "] in_bounds " << ok << " : " << xT << "[" << coord("n") << ", "
        << H << ", " << W << ", " << G8 << "] to " << sxT << "[" << dstTypes << "]\n";
  };
  forEachRowElement(numRows, shape, rowElements, inRow, copyRow);
}

void ConvWriter::stageWeights() {
  // dgrad runs the taps backwards: it stages w[k, R - 1 - r, S - 1 - s] as
  // tap (r, s), so that both passes read a tap pair as consecutive taps.
  int64_t count = p.r * p.s * 8 * WG;
  std::string K = coord("k"), R = coord("r"), S = coord("s");
  std::string limitK = constant(p.c, "k");
  std::string lastR = dgrad ? constant(p.r - 1, "r") : "";
  std::string lastS = dgrad ? constant(p.s - 1, "s") : "";
  forEachElement(count, [&](const std::string &lin) {
    std::string rr = fresh("rr"), ss = fresh("ss"), kl = fresh("kl");
    out << "    " << rr << ", " << ss << ", " << kl << " = spio.decompose " << lin << " ["
        << p.r << ", " << p.s << ", " << 8 * WG << "] : " << R << ", " << S << ", " << K << "\n";
    std::string k = binary("add", "%wk0", kl, K);
    std::string ok = cmp("lt", k, limitK, K);
    std::string wr = dgrad ? binary("sub", lastR, rr, R) : rr;
    std::string ws = dgrad ? binary("sub", lastS, ss, S) : ss;
    out << "    spio.async_copy %w[" << k << ", " << wr << ", " << ws << "] to %sw[" << rr << ", "
        << ss << ", " << kl << "] in_bounds " << ok << " : " << wT << "[" << K << ", " << R
        << ", " << S << "] to " << swT << "[" << R << ", " << S << ", " << K << "]\n";
  });
}

std::vector<std::string> ConvWriter::loadWeights() {
  // The group's weights, one B fragment per mma step of taps, stay in
  // registers. dgrad reduces over k, so it reads them transposed.
  out << "    %swp = spio.view %sw : " << swT << " to " << swpT << "\n";
  std::vector<std::string> weights;
  for (int64_t r = 0; r < p.r; ++r)
    for (TapStep step : tapSteps(p)) {
      std::string rc = constant(r, "r"), tap = constant(step.s, RD, 8), b = fresh("b");
      out << "    " << b << " = spio.ldmatrix %swp[" << rc << ", " << tap << ", %wgk]"
          << (dgrad ? " transpose" : "") << " : " << swpT << "[" << coord("r") << ", "
          << coord(RD, 8) << ", " << coord("k", 8) << "] -> "
          << fragmentType('B', "", step.taps) << "\n";
      weights.push_back(b);
    }
  return weights;
}

ConvWriter::ComputeStart ConvWriter::beginCompute(const std::string &pixels, int64_t pending) {
  out << "    %wg, %w" << pixels << " = spio.decompose %warp [" << WG << ", " << c.warpsQ
      << "] : " << coord(CI, 8) << ", " << coord(pixels, 16) << "\n";
  if (grid.gapless)
    gatherColumn();
  // The warp's group, as weight rows (k) and as output channels.
  out << "    %wgk = spio.cast %wg : " << coord(CI, 8) << " to " << coord("k", 8) << "\n";
  out << "    %wgo = spio.cast %wg : " << coord(CI, 8) << " to " << coord(CO, 8) << "\n";
  ComputeStart start;
  start.limitO = constant(p.c, CO);
  std::string rows16 = constant(16, pixels), FC = fragmentType('C', pixels);
  // Every accumulator starts from one fragment: zeros, or the bias (the
  // warp's channels broadcast over its pixels) loaded once, ahead of the
  // wait, not after each row's barrier, across which LLVM cannot hoist a
  // load.
  start.initial = fresh("acc");
  if (p.bias)
    out << "    %bias" << pixels << " = spio.view %bias : " << bT << " to "
        << biasViewType(pixels) << "\n    " << start.initial << " = spio.load_fragment %bias"
        << pixels << "[%co0, %wgo] bounds " << rows16 << ", " << start.limitO << " : "
        << biasViewType(pixels) << "[" << coord(CO) << ", " << coord(CO, 8) << "] bounds "
        << coord(pixels) << ", " << coord(CO) << " -> " << FC << "\n";
  else
    out << "    %zero = arith.constant 0.0 : f32\n    " << start.initial
        << " = spio.fill %zero : " << FC << "\n";
  if (pending >= 0)
    out << "    spio.async_wait " << pending << "\n    gpu.barrier\n";
  start.weights = loadWeights();
  return start;
}

void ConvWriter::computeFlat() {
  std::string FC = fragmentType('C', "m");
  std::string M16 = coord("m", 16), M = coord("m"), G8 = coord(CO, 8);
  out << "    %sxf = spio.view %sx : " << sxT << " to " << sxfT << "\n";
  ComputeStart start = beginCompute("m", 0);
  // The block's bands (of whole images, or rows of one), a 2-stage ring:
  // the next band's rows copy in while this one computes, and the weights
  // stay in registers for all of them.
  chunkBands();
  std::string one = index(1);
  out << "    scf.for %band = %band0 to %band1 step " << one << " {\n";
  out << "    %n, %pt = spio.decompose %band [" << p.n << ", " << ceilDiv(p.kernelOutH(), c.rowsP)
      << "] : " << coord("n") << ", " << coord("p", c.rowsP) << "\n";
  out << "    %p0 = spio.unfold %pt : " << coord("p", c.rowsP) << " to " << coord("p") << "\n";
  stageInput(0, rows);
  out << "    spio.async_commit\n    spio.async_wait 0\n    gpu.barrier\n";
  int64_t MT = flatPixels / 16;
  std::string limitTiles = constant(MT, "m", 16);
  // Warp wm takes fragments wm, wm + warpsQ, ... in a loop, not unrolled:
  // unrolled, every fragment's ldmatrix addresses are loop-invariant in
  // the band loop and stay in registers (20x20 images: 250 registers). A
  // fragment made from the loop index is a whole number of swizzle periods,
  // so its ldmatrix addresses are one add each (spio-to-gpu).
  std::string zero = index(0), perWarp = index(ceilDiv(MT, c.warpsQ)), warpsQ = index(c.warpsQ);
  std::string j = fresh("j"), first = fresh("i"), at = fresh("i"), tile = fresh("tile");
  out << "    %wmi = spio.to_index %wm : " << M16 << "\n";
  out << "    scf.for " << j << " = " << zero << " to " << perWarp << " step " << one << " {\n";
  out << "    " << first << " = arith.muli " << j << ", " << warpsQ << " : index\n";
  out << "    " << at << " = arith.addi " << first << ", %wmi : index\n";
  out << "    " << tile << " = spio.from_index " << at << " : " << M16 << "\n";
  std::string inside = cmp("lt", tile, limitTiles, M16);
  out << "    scf.if " << inside << " {\n";
  std::string acc = start.initial;
  std::vector<TapStep> steps = tapSteps(p);
  for (int64_t r = 0; r < p.r; ++r)
    for (size_t step = 0; step < steps.size(); ++step) {
      std::string FA = fragmentType('A', "m", steps[step].taps);
      std::string FB = fragmentType('B', "", steps[step].taps);
      std::string tap = constant(r * QT + steps[step].s, "m"), a = fresh("a"), d = fresh("d");
      out << "    " << a << " = spio.ldmatrix %sxf[" << tile << ", " << tap << ", %wg] : " << sxfT
          << "[" << M16 << ", " << M << ", " << coord(CI, 8) << "] -> " << FA << "\n";
      out << "    " << d << " = spio.mma " << a << ", " << start.weights[r * steps.size() + step]
          << ", " << acc << " : " << FA << ", " << FB << ", " << FC << "\n";
      acc = d;
    }
  out << "    spio.store_fragment " << acc << ", %sy[" << tile << ", %wgo] : " << FC << ", " << syT
      << "[" << M16 << ", " << G8 << "]\n";
  out << "    }\n    }\n";
  out << "    gpu.barrier\n";
  // Pixel (row, q) of the block is m = row * (Q + S - 1) + q of the tile.
  int64_t Qn = p.kernelOutW(), count = c.rowsP * Qn * WG;
  std::string MQ = coord("m", QT), Q = coord("q"), P = coord("p");
  std::string limitP = constant(p.kernelOutH(), "p");
  forEachOutputVector(count, [&](const std::string &lin) {
    std::string pr = fresh("pr"), qq = fresh("qq"), gl = fresh("gl");
    out << "    " << pr << ", " << qq << ", " << gl << " = spio.decompose " << lin << " ["
        << c.rowsP << ", " << Qn << ", " << WG << "] : " << P << ", " << Q << ", " << G8 << "\n";
    std::string pAbs = binary("add", "%p0", pr, P), g = binary("add", "%go0", gl, G8);
    std::string ok =
        andi(cmp("lt", pAbs, limitP, P), cmp("lt", g, start.limitO, G8, coord(CO)));
    out << "    scf.if " << ok << " {\n";
    std::string rowM = convert("unfold", reinterpret(pr, P, MQ), MQ, M);
    std::string colM = convert("cast", qq, Q, M), v = fresh("v");
    out << "    " << v << " = spio.load %syv[" << rowM << ", " << colM << ", " << gl << "] : "
        << syvT << "[" << M << ", " << M << ", " << G8 << "]\n";
    out << "    spio.store " << v << ", %yv[%n, " << pAbs << ", " << qq << ", " << g << "] : "
        << yvT << "[" << coord("n") << ", " << P << ", " << Q << ", " << G8 << "]\n";
    out << "    }\n";
  });
  out << "    gpu.barrier\n    } {spio.stages = 2}\n";
}

void ConvWriter::computeRows(const ComputeStart &start, bool awaitRows) {
  std::string FC = fragmentType('C', "q");
  std::string limitQ = constant(p.kernelOutW(), "q"), limitP = constant(p.kernelOutH(), "p");
  // A ring of accumulators: each staged row is read once per mma step of
  // taps and multiplied into every output row it feeds (output row j reads
  // staged rows stride * j + r), so a block loads R times fewer A fragments
  // than one output row at a time would. Staged rows go in order, so each
  // output still adds its taps in (r, s) order: the same sums, bit for bit.
  // Rows past the image compute on zero-filled staging and are not written.
  std::vector<std::string> acc(c.rowsP);
  // Output rows whose fragments are in the shared tile, to be copied out
  // after the next barrier.
  struct CompletedRow {
    std::string pAbs, inside, slot;
  };
  std::vector<CompletedRow> completed;
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
      out << "    spio.async_commit\n";
    }
  };
  // Commit group 0 holds staged rows 0 .. R - 1 (beginCompute waited for
  // it); group g the stride rows after R + stride * (g - 1). Waits for
  // staged row i's group if it has not been waited for; true if it did
  // (the block must sync next).
  auto awaitRow = [&](int64_t i) {
    int64_t group = i < p.r ? 0 : (i - p.r) / (st * outputRows) + 1;
    if (!awaitRows || group <= awaited)
      return false;
    assert(group < committedGroups && "a ring slot is refilled before its rows are awaited");
    out << "    spio.async_wait " << committedGroups - 1 - group << "\n";
    awaited = group;
    return true;
  };
  // Staged row i's A fragment of every mma step. Output column q at tap s
  // reads staged column q + s / stride (and, strided, the input column
  // parity s % 2); with paired taps the tensor's RD/8 entry steps to tap
  // s + 1.
  auto loadRow = [&](int64_t i) {
    std::vector<std::string> fragments;
    if (zeroRow(i))
      return fragments;
    std::string stagedRow = constant(slotOf(i), "r"), zeroR = constant(0, "r");
    std::string full, empty;
    if (streamed) {
      full = index(slotOf(i));
      empty = index(rows + slotOf(i));
      out << "    spio.barrier_wait %bars[" << full << "], parity " << rowPhase << " : "
          << barriersType() << "\n";
    }
    for (TapStep step : steps) {
      std::string sq = constant(step.s / st, "q");
      std::string parity = st == 2 ? constant(step.s % 2, "wp") : "";
      std::string a = fresh("a");
      // Gapless: the warp's tile is in the lanes' gathered columns (%gq).
      std::string tile = grid.gapless ? constant(0, "q", 16) : "%wq";
      std::string gather = grid.gapless ? " gather(%gq : " + coord("q") + ")" : "";
      out << "    " << a << " = spio.ldmatrix %sx[" << stagedRow << ", " << zeroR << ", " << tile
          << ", " << sq << (parity.empty() ? "" : ", " + parity) << ", %wg]" << gather
          << " : " << sxT << "["
          << coord("r") << ", " << coord("r") << ", " << coord("q", 16) << ", " << coord("q")
          << (parity.empty() ? "" : ", " + coord("wp")) << ", " << coord(CI, 8) << "] -> "
          << fragmentType('A', "q", step.taps) << "\n";
      fragments.push_back(a);
    }
    // The fragments are in registers: the slot may take the next band's row.
    if (streamed)
      out << "    spio.barrier_arrive %bars[" << empty << "] : " << barriersType() << "\n";
    return fragments;
  };
  // With every staged row committed up front (no ring), the next staged
  // row's A fragments load before this row's mma, which hides their
  // latency behind it (waiting one staged row earlier; TUNING.md,
  // "Copies"). A ring's refills follow the rows it has read, so it loads
  // them after its barrier.
  std::vector<std::string> a = loadRow(0), ahead;
  bool prefetch = !ring;
  if (prefetch && rows > 1 && awaitRow(1))
    out << "    " << blockBarrier() << "\n";
  for (int64_t i = 0; i < rows; ++i) {
    if (prefetch && i + 1 < rows)
      ahead = loadRow(i + 1);
    for (size_t step = 0; step < steps.size() && !zeroRow(i); ++step) {
      std::string FA = fragmentType('A', "q", steps[step].taps);
      std::string FB = fragmentType('B', "", steps[step].taps);
      for (int64_t r = 0; r < p.r && r <= i; ++r) {
        if ((i - r) % st != 0 || (i - r) / st >= c.rowsP)
          continue;
        std::string &sum = acc[(i - r) / st];
        if (sum.empty())
          sum = start.initial;
        std::string d = fresh("d");
        out << "    " << d << " = spio.mma " << a[step] << ", "
            << start.weights[r * steps.size() + step] << ", " << sum << " : " << FA << ", "
            << FB << ", " << FC << "\n";
        sum = d;
      }
    }
    // Output row j is complete after staged row stride * j + R - 1. Its
    // outputs go through a shared tile (2 * outputRows slots), so that
    // each pixel's channels leave as whole 16-byte vectors rather than as
    // 4-byte pieces of half-used sectors. One barrier covers the tile's
    // fragment stores of the last outputRows rows (or fewer) and the
    // copies of the staged rows after the next one loaded (of the next, in
    // a ring, whose A fragments then load before the rows' copies out).
    if (i + 1 >= p.r && (i + 1 - p.r) % st == 0) {
      int64_t row = (i + 1 - p.r) / st;
      // Only zero rows feed it (stride-2 dgrad, R = 1, odd rows): zeros.
      if (acc[row].empty())
        acc[row] = start.initial;
      CompletedRow done;
      done.pAbs = binary("add", "%p0", constant(row, "p"), coord("p"));
      done.inside = cmp("lt", done.pAbs, limitP, coord("p"));
      done.slot = constant(row % (2 * outputRows), "slot");
      out << "    scf.if " << done.inside << " {\n";
      out << "    spio.store_fragment " << acc[row] << ", %sy[" << done.slot << ", %wq, %wgo] : "
          << FC << ", " << syT << "[" << coord("slot") << ", " << coord("q", 16) << ", "
          << coord(CO, 8) << "]\n";
      out << "    }\n";
      completed.push_back(done);
    }
    bool next = i + 1 < rows;
    bool await = prefetch ? i + 2 < rows && awaitRow(i + 2) : next && awaitRow(i + 1);
    bool barrier = await || int64_t(completed.size()) == outputRows ||
                   (!next && !completed.empty());
    if (barrier) {
      out << "    " << blockBarrier() << "\n";
      if (awaitRows)
        refill(i);
    }
    if (prefetch)
      a = ahead;
    else if (next)
      a = loadRow(i + 1);
    if (barrier) {
      for (const CompletedRow &done : completed) {
        out << "    scf.if " << done.inside << " {\n";
        copyOutputRow(done.slot, done.pAbs, limitQ);
        out << "    }\n";
      }
      completed.clear();
    }
  }
}

void ConvWriter::defineCopyOutThread() {
  if (WG != 2 && WG != 4)
    return;
  // Within each run of 8 * WG threads, thread 8j + WG k + g takes pixel
  // j + WG k (of the run's 8) and group g, rather than pixel (8j + WG k) / WG:
  // the 8 threads of a 16-byte access phase then read pixels WG apart,
  // whose vectors (outputPitch(WG) = WG + 1 apart) fall in 8 distinct bank
  // slots, where two adjacent pixels' would share one. WG is 2 or 4: shifts
  // and masks.
  int64_t logWG = WG == 2 ? 1 : 2;
  std::string runMask = index(8 * WG - 1), lowMask = index(7), three = index(3);
  std::string logG = index(logWG), twoLogG = index(2 * logWG);
  // The group bits' mask, WG - 1: 3, or for WG 2 the constant 1 its shift
  // already names.
  std::string groupMask = WG == 4 ? three : logG;
  auto op = [&](const char *name, const std::string &lhs, const std::string &rhs) {
    std::string v = fresh("o");
    out << "    " << v << " = arith." << name << " " << lhs << ", " << rhs << " : index\n";
    return v;
  };
  std::string o = op("andi", "%tid", runMask);
  std::string j = op("shrui", o, three);
  std::string k = op("shrui", op("andi", o, lowMask), logG);
  std::string g = op("andi", o, groupMask);
  std::string jw = op("shli", j, logG);
  std::string kw = op("shli", k, twoLogG);
  std::string moved = op("addi", op("addi", jw, kw), g);
  copyOutTid = op("addi", op("subi", "%tid", o), moved);
}

void ConvWriter::copyOutputRow(const std::string &slot, const std::string &pAbs,
                               const std::string &limitQ) {
  std::string Q = coord("q"), G8 = coord(CO, 8);
  std::string limitO = constant(p.c, CO);
  forEachOutputVector(BQ * WG, [&](const std::string &lin) {
    std::string ql = fresh("ql"), gl = fresh("gl");
    out << "    " << ql << ", " << gl << " = spio.decompose " << lin << " [" << BQ << ", " << WG
        << "] : " << Q << ", " << G8 << "\n";
    std::string g = binary("add", "%go0", gl, G8);
    ImageColumn at = grid.gapless ? gaplessColumn(ql, BQ) : imageColumn(ql, BQ);
    std::string ok = andi(cmp("lt", at.column, limitQ, Q), cmp("lt", g, limitO, G8, coord(CO)));
    if (!at.exists.empty())
      ok = andi(ok, at.exists);
    out << "    scf.if " << ok << " {\n";
    std::string v = fresh("v");
    out << "    " << v << " = spio.load %syv[" << slot << ", " << ql << ", " << gl << "] : " << syvT
        << "[" << coord("slot") << ", " << Q << ", " << G8 << "]\n";
    out << "    spio.store " << v << ", %yv[" << at.image << ", " << pAbs << ", " << at.column
        << ", " << g << "] : " << yvT << "[" << coord("n") << ", " << coord("p") << ", " << Q
        << ", " << G8 << "]\n";
    out << "    }\n";
  });
}

/// Spreads the 8 rows an ldmatrix reads (consecutive q, same parity and
/// group, `perRow` 16-byte elements apart) over the 8 16-byte bank slots:
/// XOR the slot bits with q's. An odd `perRow` needs none: 8 consecutive
/// odd multiples land in distinct slots.
std::string ConvWriter::swizzleFor(int64_t perRow) const {
  int64_t shift = 0;
  while ((int64_t(1) << shift) < perRow)
    ++shift;
  return perRow % 2 == 1 ? ""
         : perRow == 2 ? ", #spio.xor_swizzle<1, 0, 3>"
         : perRow == 4 ? ", #spio.xor_swizzle<2, 0, 3>"
                       : ", #spio.xor_swizzle<3, 0, " + std::to_string(shift) + ">";
}

void ConvWriter::computeTypes() {
  auto str = [](int64_t v) { return std::to_string(v); };
  int64_t G = p.groups();
  if (p.pass == ConvPass::Wgrad) {
    int64_t S2 = pairedS(p);
    xT = "!spio.tensor<[n: " + str(p.n) + ", h: " + str(p.h) + ", w: " + str(p.w) +
         ", c/8: " + str(G) + "] x vector<8x" + T + ">, global>";
    dyT = "!spio.tensor<[n: " + str(p.n) + ", p: " + str(p.outH()) + ", q: " + str(p.outW()) +
          ", k/8: " + str(G) + "] x vector<8x" + T + ">, global>";
    // Staged x, with explicit strides: the `sc/8` entry aliases the next
    // tap's column (stride 1) or parity (stride 2), so it never addresses
    // new storage; copies write sc/8 = 0.
    // x's rows with the `sc/8` entry `tapStride` vectors on, and as pixels.
    auto stagedRows = [&](int64_t count, int64_t tapStride) {
      return "!spio.tensor<[r: " + str(count) + ":" + str(QT * perQ) + ", q: " + str(QT) + ":" +
             str(perQ) + (p.stride == 2 ? ", wp: 2:" + str(WG) : "") + ", sc/8: 2:" +
             str(tapStride) + ", c/8: " + str(WG) + ":1] x vector<8x" + T + ">, shared" +
             swizzleFor(perQ) + ">";
    };
    auto stagedPixels = [&](int64_t count, int64_t tapStride) {
      return "!spio.tensor<[m: " + str(count) + ":" + str(pixelPitch) + ", sc/8: 2:" +
             str(tapStride) + ", c/8: " + str(WG) + ":1] x vector<8x" + T + ">, shared" +
             swizzleFor(pixelPitch) + ">";
    };
    sxT = stagedRows(rows, tapPairStride);
    sdyT = "!spio.tensor<[p: " + str(gradientRows) + ":" + str(BQ * pixelPitch) + ", q: " +
           str(BQ) + ":" + str(pixelPitch) + ", k/8: " + str(WG) + ":1] x vector<8x" + T +
           ">, shared" + swizzleFor(pixelPitch) + ">";
    // The same storage with the `sc/8` entry one staged row down, one row
    // short (no row pair starts at the last row): A of wgrad's row pairs.
    sxRowsT = stagedRows(rows - 1, QT * perQ);
    if (flat) {
      sxfT = stagedPixels(rows * QT, pixelPitch);
      sxRowsT = stagedPixels((rows - 1) * QT, QT * pixelPitch);
      sdyfT = "!spio.tensor<[m: " + str(gradientRows * BQ) + ":" + str(pixelPitch) + ", k/8: " +
              str(WG) + ":1] x vector<8x" + T + ">, shared" + swizzleFor(pixelPitch) + ">";
    }
    wsT = "!spio.tensor<[part: " + str(conv2dGw8WgradPartials(p, c)) + ", k: " + str(p.c) +
          ", r: " + str(p.r) + ", sc/8: " + str(S2) + ", sc: 8] x f32, global>";
    dwT = "!spio.tensor<[k: " + str(p.c) + ", r: " + str(p.r) + ", s: " + str(p.s) +
          ", c: 8] x " + (p.wgradF32 ? "f32" : T) + ", global>";
    csumT = "!spio.tensor<[k: " + str(8 * WG) + ", r: " + str(p.r) + ", sc/8: " + str(S2) +
            ", sc: 8] x f32, shared>";
    return;
  }
  xT = "!spio.tensor<[n: " + str(p.n) + ", h: " + str(p.kernelInH()) + ", w: " +
       str(p.kernelInW()) + ", " + CI + "/8: " + str(G) + "] x vector<8x" + T + ">, global>";
  wT = "!spio.tensor<[k: " + str(p.c) + ", r: " + str(p.r) + ", s: " + str(p.s) +
       ", c/8: 1] x vector<8x" + T + ">, global>";
  bT = "!spio.tensor<[" + CO + ": " + str(p.c) + "] x " + T + ", global>";
  yT = "!spio.tensor<[n: " + str(p.n) + ", p: " + str(p.kernelOutH()) + ", q: " +
       str(p.kernelOutW()) + ", " + CO + ": " + str(p.c) + "] x " + T + ", global>";
  // Staged input with explicit strides: the `RD/8` entry (two where the
  // mma steps pair taps) aliases the next tap's column (stride 1) or
  // parity (stride 2), so that one ldmatrix reads a tap pair; copies write
  // RD/8 = 0.
  std::string pairEntry =
      ", " + RD + "/8: " + str(tapSteps(p).front().taps) + ":" + str(tapPairStride);
  sxT = "!spio.tensor<[r: " + str(slots) + ":" + str(QT * perQ) + ", q: " + str(QT) + ":" +
        str(perQ) + (st == 2 ? ", wp: 2:" + str(WG) : "") + pairEntry + ", " + CI +
        "/8: " + str(WG) + ":1] x vector<8x" + T + ">, shared" + swizzleFor(perQ) + ">";
  swT = "!spio.tensor<[r: " + str(p.r) + ", s: " + str(p.s) + ", k: " + str(8 * WG) +
        ", c/8: 1] x vector<8x" + T + ">, shared>";
  // The weights as B fragments' rows: RD/8 steps a tap; dgrad's rows are a
  // group's 8 k of a tap.
  std::string perTap = str(8 * WG);
  swpT = "!spio.tensor<[r: " + str(p.r) + ":" + str(p.s * 8 * WG) + ", " + RD + "/8: " + str(p.s) +
         ":" + perTap +
         (dgrad ? ", k/8: " + str(WG) + ":8, sk: 8:1, c/8: 1:1" : ", k: " + perTap + ":1") +
         "] x vector<8x" + T + ">, shared>";
  yvT = "!spio.tensor<[n: " + str(p.n) + ", p: " + str(p.kernelOutH()) + ", q: " +
        str(p.kernelOutW()) + ", " + CO + "/8: " + str(G) + "] x vector<8x" + T + ">, global>";
  int64_t pitch = outputPitch(WG);
  if (flat) {
    sxfT = "!spio.tensor<[m: " + str(rows * QT) + ":" + str(pixelPitch) + pairEntry + ", " + CI +
           "/8: " + str(WG) + ":1] x vector<8x" + T + ">, shared" + swizzleFor(pixelPitch) + ">";
    syT = "!spio.tensor<[m: " + str(flatPixels) + ":" + str(8 * pitch) + ", " + CO + ": " +
          str(8 * WG) + ":1] x " + T + ", shared>";
    syvT = "!spio.tensor<[m: " + str(flatPixels) + ":" + str(pitch) + ", " + CO + "/8: " + str(WG) +
           ":1] x vector<8x" + T + ">, shared>";
    return;
  }
  std::string slots = "!spio.tensor<[slot: " + str(2 * outputRows) + ":";
  syT = slots + str(8 * BQ * pitch) + ", q: " + str(BQ) + ":" + str(8 * pitch) + ", " + CO + ": " +
        str(8 * WG) + ":1] x " + T + ", shared>";
  syvT = slots + str(BQ * pitch) + ", q: " + str(BQ) + ":" + str(pitch) + ", " + CO + "/8: " +
         str(WG) + ":1] x vector<8x" + T + ">, shared>";
}

void ConvWriter::openKernel(bool tiled) {
  std::string pass = convPassName(p.pass);
  out << "// spio conv2d-gw8 " << pass << ": N=" << p.n << " C=" << p.c << " H=" << p.h
      << " W=" << p.w << " R=" << p.r << " S=" << p.s << " pad=" << p.padH << "," << p.padW
      << " stride=" << p.stride << (p.bias ? " bias" : "") << " " << T
      << (p.wgradF32 ? " -> f32" : "") << "\n";
  out << "module attributes {gpu.container_module} {\n  gpu.module @spio_conv {\n";
  out << "  gpu.func @conv2d_gw8_" << pass;
  if (p.pass == ConvPass::Wgrad && p.wgradClusterReduce)
    out << "(%x: " << xT << ", %dy: " << dyT << ", %dw: " << dwT << ")";
  else if (p.pass == ConvPass::Wgrad)
    out << "(%x: " << xT << ", %dy: " << dyT << ", %ws: " << wsT << ")";
  else
    out << "(%x: " << xT << ", %w: " << wT << ", %bias: " << bT << ", %y: " << yT << ")";
  out << " kernel";
  if (tiled) {
    out << " attributes {known_block_size = array<i32: " << c.threads() << ", 1, 1>";
    // fprop and dgrad on rows of fragments tell ptxas how many blocks
    // their shared memory lets a multiprocessor hold, so that it neither
    // caps registers for more (left to itself it spilled; TUNING.md,
    // "Registers") nor takes so many that fewer fit. Flattened rows hold more registers than that allows
    // (7x7 5x5: 114, which spill at the 80 of 3 blocks).
    if (p.pass != ConvPass::Wgrad && !flat)
      out << ", nvvm.minctasm = " << residentBlocks() << " : i32";
    // wgrad's 5x5 kernels left to ptxas take 166-246 registers, one block
    // a multiprocessor; with row pairs (WgradSum) they are held to the
    // blocks their shared memory fits, which runs faster. 3x3 kernels
    // need no hint (hinted, they took more registers and ran no faster).
    if (p.pass == ConvPass::Wgrad && wgradRowPairs(p) && wgradTilesFit(p, c))
      out << ", nvvm.minctasm = " << wgradResidentBlocks(p, c) << " : i32";
    if (narrowOffsets())
      out << ", spio.offset_bits = 32";
    // A group tile's blocks, along y, as one cluster.
    if (p.pass == ConvPass::Wgrad && p.wgradClusterReduce)
      out << ", nvvm.cluster_dim = array<i32: 1, " << conv2dGw8WgradPartials(p, c) << ", 1>";
    out << "}";
  }
  out << " {\n";
}

int64_t ConvWriter::residentBlocks() const { return rowsResidentBlocks(p, c, outputRows); }

bool ConvWriter::narrowOffsets() const {
  // wgrad's 5x5 kernels spend most of a band's instructions on their
  // copies' offsets, which 32 bits make cheaper; the other kernels ran no
  // faster so (the GEMM's slower), so they keep 64.
  return p.pass == ConvPass::Wgrad && p.s >= 5;
}

std::string ConvWriter::writeTile() {
  openKernel(true);
  if (p.pass == ConvPass::Wgrad)
    writeWgradTileBody();
  else
    writeTileBody();
  out << "    gpu.return\n  }\n  }\n}\n";
  return out.str();
}

std::string ConvWriter::writeWorkload() {
  openKernel(false);
  bool wgrad = p.pass == ConvPass::Wgrad;
  // The reduce runs as a dependent grid, launched once every block has
  // stored its partial sums (or, wgradEarlyLaunch, has started), so that
  // its launch and start overlap this grid's end; it then waits for the
  // sums (writeWgradReduce).
  bool reduces = wgrad && !p.wgradClusterReduce;
  const char *launchDependents = "    spio.launch_dependents\n";
  if (reduces && p.wgradEarlyLaunch)
    out << launchDependents;
  out << "    spio.conv2d_gw8 " << convPassName(p.pass) << " %x, " << (wgrad ? "%dy" : "%w")
      << (p.bias && !wgrad ? " bias %bias" : "") << " into "
      << (wgrad ? (p.wgradClusterReduce ? "%dw" : "%ws") : "%y") << wgradPartsClause()
      << " {config = #spio.conv2d_gw8_config<warps = [" << c.warpsQ << ", " << c.warpsG
      << "], rows = " << c.rowsP;
  if (c.chunks)
    out << ", chunks = " << c.chunks;
  if (c.copyWarps)
    out << ", copy_warps = " << c.copyWarps;
  if (p.multiprocessors != kDefaultMultiprocessors)
    out << ", multiprocessors = " << p.multiprocessors;
  if (c.stages)
    out << ", stages = " << c.stages;
  if (c.rowRing)
    out << ", row_ring";
  out << ">, kernel = array<i64: " << p.r << ", " << p.s << ">, padding = array<i64: " << p.padH
      << ", " << p.padW << ">, stride = " << p.stride << "} : " << xT << ", "
      << (wgrad ? dyT : wT) << (p.bias && !wgrad ? ", " + bT : "") << " -> "
      << (wgrad ? (p.wgradClusterReduce ? dwT : wsT) : yT) << "\n";
  if (reduces && !p.wgradEarlyLaunch)
    out << launchDependents;
  out << "    gpu.return\n  }\n";
  if (reduces)
    writeWgradReduce();
  if (wgrad && p.bias)
    writeWgradBias();
  out << "  }\n}\n";
  return out.str();
}

void ConvWriter::writeTileBody() {
  int64_t qTiles = grid.qTiles;
  out << "    %sx = spio.alloc : " << sxT << "\n    %sw = spio.alloc : " << swT << "\n";
  out << "    %sy = spio.alloc : " << syT << "\n";
  out << "    %syv = spio.view %sy : " << syT << " to " << syvT << "\n";
  out << "    %yv = spio.view %y : " << yT << " to " << yvT << "\n";
  out << "    %bx = spio.linear_id block_x\n    %by = spio.linear_id block_y\n";
  out << "    %gt, %qt = spio.decompose %bx [" << grid.groupTiles << ", " << qTiles << "] : "
      << coord(CI, 8 * WG) << ", " << coord("q", BQ) << "\n";
  out << "    %" << (grid.gapless ? "d0" : "q0") << " = spio.unfold %qt : " << coord("q", BQ)
      << " to " << coord("q") << "\n";
  splitFirstColumn();
  // The block's first group, in input channels, output channels and
  // weight rows.
  out << "    %g0 = spio.unfold %gt : " << coord(CI, 8 * WG) << " to " << coord(CI, 8) << "\n";
  out << "    %gci = spio.unfold %gt : " << coord(CI, 8 * WG) << " to " << coord(CI) << "\n";
  out << "    %co0 = spio.cast %gci : " << coord(CI) << " to " << coord(CO) << "\n";
  out << "    %go0 = spio.fold %co0 : " << coord(CO) << " to " << coord(CO, 8) << "\n";
  if (CI == "k")
    out << "    %wk0 = spio.unfold %gt : " << coord(CI, 8 * WG) << " to " << coord("k") << "\n";
  else
    out << "    %wk0 = spio.cast %gci : " << coord(CI) << " to " << coord("k") << "\n";
  out << "    %tid = spio.linear_id thread\n    %warp = spio.linear_id warp\n";
  defineCopyOutThread();
  stageWeights();
  if (c.copyWarps) {
    writeStreamedBands();
    return;
  }
  if (flat) {
    out << "    spio.async_commit\n";
    computeFlat();
    return;
  }
  if (grid.bandsPerChunk > 1) {
    // A block takes a range of (image, row tile) bands, a 2-stage ring
    // (spio-pipeline): the next band's rows copy in while this one
    // computes, so that copies stay in flight between bands, and the
    // weights stay in registers for all of them.
    out << "    spio.async_commit\n";
    ComputeStart start = beginCompute("q", 0);
    chunkBands();
    std::string one = index(1);
    out << "    scf.for %band = %band0 to %band1 step " << one << " {\n";
    bandCoordinates("%band", false);
    // Row by row: every row's copies share one set of per-thread
    // coordinates, which the band loop would otherwise keep in registers
    // for each copy.
    for (int64_t i = 0; i < rows; ++i)
      stageInput(i, 1);
    out << "    spio.async_commit\n    spio.async_wait 0\n    gpu.barrier\n";
    computeRows(start, false);
    out << "    gpu.barrier\n    } {spio.stages = 2}\n";
    return;
  }
  // One commit group per outputRows output rows: the weights and the R
  // rows output row 0 reads, then the stride rows each further output row
  // adds, so that computing row j overlaps the copies of the rows after it
  // (awaited outputRows at a time, one barrier for each group). The
  // groups whose rows fit the ring go first; computeRows copies in the
  // others as rows are read.
  bandCoordinates("%by", false);
  stageInput(0, p.r);
  out << "    spio.async_commit\n";
  committedGroups = 1;
  for (; committedGroups < groupCount() && (!ring || groupEnd(committedGroups) <= slots);
       ++committedGroups) {
    int64_t first = groupEnd(committedGroups - 1);
    stageInput(first, groupEnd(committedGroups) - first);
    out << "    spio.async_commit\n";
  }
  computeRows(beginCompute("q", committedGroups - 1), true);
}

void ConvWriter::writeStreamedBands() {
  // Thread 0 sets up the barriers; the weights and the barriers are ready
  // for every warp after the block's one barrier.
  int64_t computeThreads = 32 * c.computeWarps(), copyThreads = 32 * c.copyWarps;
  out << "    spio.async_commit\n";
  out << "    %bars = spio.barrier_alloc : " << barriersType() << "\n";
  std::string zero = index(0), first = fresh("b");
  out << "    " << first << " = arith.cmpi eq, %tid, " << zero << " : index\n";
  out << "    scf.if " << first << " {\n";
  for (int64_t i = 0; i < rows; ++i) {
    std::string full = index(i), empty = index(rows + i);
    out << "    spio.barrier_init %bars[" << full << "], arrivals " << copyThreads << " : "
        << barriersType() << "\n";
    out << "    spio.barrier_init %bars[" << empty << "], arrivals " << computeThreads << " : "
        << barriersType() << "\n";
  }
  out << "    }\n    spio.async_wait 0\n    gpu.barrier\n";
  chunkBands();
  std::string one = index(1), copies = fresh("b");
  streamed = true;
  // Band k of the chunk fills the slots in phase k of their full barriers
  // and reads them in phase k of their empty ones, so that the copy warps
  // wait for phase k - 1 of a slot's empty barrier (parity (k + 1) % 2;
  // for band 0 the phase before the first, which counts as complete).
  auto bandParity = [&](bool previous) {
    std::string k = fresh("k"), odd = fresh("k"), parity = fresh("b");
    out << "    " << k << " = arith.subi %band, %band0 : index\n";
    out << "    " << odd << " = arith.andi " << k << ", " << one << " : index\n";
    out << "    " << parity << " = arith.cmpi " << (previous ? "eq" : "ne") << ", " << odd << ", "
        << zero << " : index\n";
    return parity;
  };
  std::string computeLimit = index(computeThreads);
  out << "    " << copies << " = arith.cmpi uge, %tid, " << computeLimit << " : index\n";
  out << "    scf.if " << copies << " {\n";
  elementTid = fresh("ctid");
  elementThreads = copyThreads;
  out << "    " << elementTid << " = arith.subi %tid, " << computeLimit << " : index\n";
  out << "    scf.for %band = %band0 to %band1 step " << one << " {\n";
  bandCoordinates("%band", false);
  std::string emptyParity = bandParity(true);
  // Each row as its slot frees up: its copies, then the arrival that
  // completes the slot's full barrier once they land.
  for (int64_t i = 0; i < rows; ++i) {
    std::string full = index(i), empty = index(rows + i);
    out << "    spio.barrier_wait %bars[" << empty << "], parity " << emptyParity << " : "
        << barriersType() << "\n";
    stageInput(i, 1);
    out << "    spio.async_arrive %bars[" << full << "] : " << barriersType() << "\n";
  }
  out << "    }\n    spio.async_wait 0\n    } else {\n";
  elementTid = "%tid";
  elementThreads = computeThreads;
  ComputeStart start = beginCompute("q", -1);
  out << "    scf.for %band = %band0 to %band1 step " << one << " {\n";
  bandCoordinates("%band", false);
  rowPhase = bandParity(false);
  computeRows(start, false);
  // The next band's first output rows reuse the tile slots whose copies
  // out end this one.
  out << "    " << blockBarrier() << "\n    }\n    }\n";
}

void ConvWriter::bandCoordinates(const std::string &band, bool columnTiles) {
  std::string images = coord("n", grid.images), rowTile = coord("p", c.rowsP);
  std::string columnTile = coord("q", BQ);
  std::string first = grid.images > 1 ? "%nt" : "%n";
  int64_t imageTiles = ceilDiv(p.n, grid.images), rowTiles = ceilDiv(p.kernelOutH(), c.rowsP);
  if (columnTiles && c.rowRing) {
    // Row tiles fastest: a block's bands walk down a column tile; the row
    // tile as an index says where a band starts it or hands rows on.
    out << "    " << first << ", %qt, %pt = spio.decompose " << band << " [" << imageTiles << ", "
        << grid.qTiles << ", " << rowTiles << "] : " << images << ", " << columnTile << ", "
        << rowTile << "\n";
    out << "    %ptIndex = spio.to_index %pt : " << rowTile << "\n";
  } else {
    out << "    " << first << ", %pt" << (columnTiles ? ", %qt" : "") << " = spio.decompose "
        << band << " [" << imageTiles << ", " << rowTiles;
    if (columnTiles)
      out << ", " << grid.qTiles;
    out << "] : " << images << ", " << rowTile << (columnTiles ? ", " + columnTile : "")
        << "\n";
  }
  if (grid.images > 1)
    out << "    %n = spio.unfold %nt : " << images << " to " << coord("n") << "\n";
  out << "    %p0 = spio.unfold %pt : " << rowTile << " to " << coord("p") << "\n";
  if (columnTiles) {
    out << "    %q0 = spio.unfold %qt : " << columnTile << " to " << coord("q") << "\n";
    splitFirstColumn();
  }
}

void ConvWriter::splitFirstColumn() {
  if (grid.images == 1)
    return;
  // Unsigned 32-bit division by the pitch (a multiply and a shift), not
  // spio.decompose's signed index division with its sign fix-ups.
  std::string first = fresh("i"), product = fresh("v");
  out << "    %pitch = arith.constant " << packedPitch(p) << " : i32\n";
  if (grid.gapless) {
    std::string start = fresh("i");
    out << "    %qpitch = arith.constant " << p.kernelOutW() << " : i32\n";
    out << "    " << first << " = spio.to_index %d0 : " << coord("q") << "\n";
    out << "    %d0v = arith.index_castui " << first << " : index to i32\n";
    splitGaplessPixel("%d0v", "%q0img", "%q0col", "%q0v");
    out << "    " << start << " = arith.index_castui %q0v : i32 to index\n";
    out << "    %q0 = spio.from_index " << start << " : " << coord("q") << "\n";
    return;
  }
  out << "    " << first << " = spio.to_index %q0 : " << coord("q") << "\n";
  out << "    %q0v = arith.index_castui " << first << " : index to i32\n";
  out << "    %q0img = arith.divui %q0v, %pitch : i32\n";
  out << "    " << product << " = arith.muli %q0img, %pitch : i32\n";
  out << "    %q0col = arith.subi %q0v, " << product << " : i32\n";
}

void ConvWriter::gatherColumn() {
  // The lane's pixel e = 16 * wq + row is pixel %d0 + e of the row of
  // images; its staged column is that pixel's, less %q0. Both A fragment
  // shapes (x4 and x2) give a lane the same row.
  std::string row = fresh("c"), rowI = fresh("i"), warpI = fresh("i"), e = fresh("i");
  out << "    " << row << " = spio.ldmatrix_row : " << fragmentType('A', "q", 2) << " -> "
      << coord("q") << "\n";
  out << "    " << rowI << " = spio.to_index " << row << " : " << coord("q") << "\n";
  out << "    " << warpI << " = spio.to_index %wq : " << coord("q", 16) << "\n";
  std::string sixteen = index(16), warpColumns = fresh("i");
  out << "    " << warpColumns << " = arith.muli " << warpI << ", " << sixteen << " : index\n";
  out << "    " << e << " = arith.addi " << warpColumns << ", " << rowI << " : index\n";
  std::string e32 = fresh("v"), sum = fresh("v"), staged = fresh("v"), relI = fresh("i");
  out << "    " << e32 << " = arith.index_castui " << e << " : index to i32\n";
  out << "    " << sum << " = arith.addi %q0col, " << e32 << " : i32\n";
  splitGaplessPixel(sum, fresh("v"), fresh("v"), staged);
  std::string fromFirst = fresh("v");
  out << "    " << fromFirst << " = arith.subi " << staged << ", %q0col : i32\n";
  out << "    " << relI << " = arith.index_castui " << fromFirst << " : i32 to index\n";
  out << "    %gq = spio.from_index " << relI << " : " << coord("q") << "\n";
}

void ConvWriter::splitGaplessPixel(const std::string &pixel, const std::string &image,
                                   const std::string &column, const std::string &staged) {
  std::string whole = fresh("v"), first = fresh("v");
  out << "    " << image << " = arith.divui " << pixel << ", %qpitch : i32\n";
  out << "    " << whole << " = arith.muli " << image << ", %qpitch : i32\n";
  out << "    " << column << " = arith.subi " << pixel << ", " << whole << " : i32\n";
  out << "    " << first << " = arith.muli " << image << ", %pitch : i32\n";
  out << "    " << staged << " = arith.addi " << first << ", " << column << " : i32\n";
}

ConvWriter::ImageColumn ConvWriter::imageColumn(const std::string &offset, int64_t columns) {
  if (grid.images == 1)
    return {"%n", binary("add", "%q0", offset, coord("q")), ""};
  return splitColumn(offset, columns, packedPitch(p), "%pitch", "%q0v");
}

ConvWriter::ImageColumn ConvWriter::gaplessColumn(const std::string &offset, int64_t columns) {
  return splitColumn(offset, columns, p.kernelOutW(), "%qpitch", "%d0v");
}

ConvWriter::ImageColumn ConvWriter::splitColumn(const std::string &offset, int64_t columns,
                                                int64_t pitch, const std::string &pitchValue,
                                                const std::string &first) {
  std::string Q = coord("q");
  std::string j32 = fresh("v"), col32 = fresh("v");
  std::string oi = fresh("i"), o32 = fresh("v");
  out << "    " << oi << " = spio.to_index " << offset << " : " << Q << "\n";
  out << "    " << o32 << " = arith.index_castui " << oi << " : index to i32\n";
  if (columns <= pitch + 1) {
    // %q0col + offset is under two pitches: at most one image further on.
    std::string sum = fresh("v"), wrap = fresh("b"), back = fresh("v"), carry = fresh("v");
    out << "    " << sum << " = arith.addi %q0col, " << o32 << " : i32\n";
    out << "    " << wrap << " = arith.cmpi uge, " << sum << ", " << pitchValue << " : i32\n";
    out << "    " << back << " = arith.subi " << sum << ", " << pitchValue << " : i32\n";
    out << "    " << col32 << " = arith.select " << wrap << ", " << back << ", " << sum
        << " : i32\n";
    out << "    " << carry << " = arith.extui " << wrap << " : i1 to i32\n";
    out << "    " << j32 << " = arith.addi %q0img, " << carry << " : i32\n";
  } else {
    std::string sum = fresh("v"), whole = fresh("v"), jq = fresh("v");
    out << "    " << sum << " = arith.addi " << first << ", " << o32 << " : i32\n";
    out << "    " << whole << " = arith.divui " << sum << ", " << pitchValue << " : i32\n";
    out << "    " << jq << " = arith.muli " << whole << ", " << pitchValue << " : i32\n";
    out << "    " << col32 << " = arith.subi " << sum << ", " << jq << " : i32\n";
    j32 = whole;
  }
  std::string ji = fresh("i"), coli = fresh("i");
  std::string N = coord("n"), image = fresh("img"), column = fresh("col");
  out << "    " << ji << " = arith.index_castui " << j32 << " : i32 to index\n";
  out << "    " << coli << " = arith.index_castui " << col32 << " : i32 to index\n";
  out << "    " << image << " = spio.from_index " << ji << " : " << N << "\n";
  out << "    " << column << " = spio.from_index " << coli << " : " << Q << "\n";
  std::string absolute = binary("add", "%n", image, N);
  std::string rowImages = constant(grid.images, "n"), batch = constant(p.n, "n");
  std::string exists = andi(cmp("lt", image, rowImages, N), cmp("lt", absolute, batch, N));
  return {absolute, column, exists};
}

void ConvWriter::stageGradient() {
  // Flattened rows stage whole dy rows of Q + S - 1 columns, zeros past
  // column Q and past the band's rows (the mma steps' tail).
  std::string bandRows = gradientRows > c.rowsP ? constant(c.rowsP, "p") : "";
  std::string P = coord("p"), Q = coord("q"), G8 = coord("k", 8);
  std::string limitP = constant(p.outH(), "p"), limitQ = constant(p.outW(), "q");
  std::string limitK = constant(p.c, "k");
  bool rowElements = wgradRowElements();
  std::string qq, gl, g, columnInside, groupInside, columnOk;
  ImageColumn at;
  auto inRow = [&](const std::vector<std::string> &element) {
    qq = element[0], gl = element[1];
    at = imageColumn(qq, BQ);
    g = binary("add", "%gk0", gl, G8);
    columnInside = cmp("lt", at.column, limitQ, Q);
    groupInside = cmp("lt", g, limitK, G8, coord("k"));
    if (!rowElements)
      return;
    columnOk = andi(columnInside, groupInside);
    if (!at.exists.empty())
      columnOk = andi(columnOk, at.exists);
  };
  auto copyRow = [&](const std::string &rr) {
    std::string pAbs = binary("add", "%p0", rr, P);
    std::string ok = cmp("lt", pAbs, limitP, P);
    ok = rowElements ? andi(ok, columnOk) : andi(andi(ok, columnInside), groupInside);
    if (!bandRows.empty())
      ok = andi(ok, cmp("lt", rr, bandRows, P));
    if (!rowElements && !at.exists.empty())
      ok = andi(ok, at.exists);
    out << "    spio.async_copy %dy[" << at.image << ", " << pAbs << ", " << at.column << ", " << g
        << "] to %sdy[" << rr << ", " << qq << ", " << gl << "] in_bounds " << ok << " : " << dyT
        << "[" << coord("n") << ", " << P << ", " << Q << ", " << G8 << "] to " << sdyT << "["
        << P << ", " << Q << ", " << G8 << "]\n";
  };
  forEachRowElement(gradientRows, {P, {BQ, WG}, {Q, G8}}, rowElements, inRow, copyRow);
}

void ConvWriter::computeWgrad(std::vector<std::string> &accs) {
  // A sum's 16 rows of taps times 8 channels are one A fragment (the `sc`
  // dimension, 8 * s + c, of the staged x, whose `sc/8` entry steps one
  // tap: one staged column, or one parity with stride 2; or one staged row
  // for row pairs). An mma reduces over the warp's 16 columns of a row. dy
  // row j meets staged x row stride * j + r at kernel row r: the kernel
  // goes by staged rows, as fprop's rows do, loading a row's A fragments
  // once and multiplying them into every dy row they meet (up to R), so
  // that each lives for one staged row (by dy rows, the same loads merged
  // by CSE lived from their first dy row to their last). Staged rows go in
  // order, so each sum still adds its dy rows in order.
  std::string FA = std::string("!spio.fragment<A, m16n8k16, ") + T + ", [sc, q]>";
  std::string FB = std::string("!spio.fragment<B, m16n8k16, ") + T + ", [q, k]>";
  std::string FC = wgradAccumulatorType();
  std::string sxIndex = coord("r") + ", " + coord("r") + ", " + coord("q", 16) + ", " +
                        coord("q") + (p.stride == 2 ? ", " + coord("wp") : "") + ", " +
                        coord("c", 8);
  std::string zeroQ = constant(0, "q"), zeroR = constant(0, "r");
  std::string parity = p.stride == 2 ? ", " + constant(0, "wp") : "";
  std::vector<WgradSum> sums = wgradSums(p);
  std::vector<std::string> b(c.rowsP);
  for (int64_t i = 0; i < rows; ++i) {
    // dy row j's B fragment loads at its first staged row, i = stride * j.
    if (i % p.stride == 0 && i / p.stride < c.rowsP) {
      int64_t row = i / p.stride;
      std::string rowP = constant(row, "p");
      b[row] = fresh("b");
      out << "    " << b[row] << " = spio.ldmatrix %sdy[" << rowP << ", %wq, " << zeroQ
          << ", %wgk] transpose : " << sdyT << "[" << coord("p") << ", " << coord("q", 16)
          << ", " << coord("q") << ", " << coord("k", 8) << "] -> " << FB << "\n";
    }
    // Staged row i's A fragments, by tap s and whether rows pair.
    std::map<std::pair<int64_t, bool>, std::string> a;
    std::string stagedRow;
    for (size_t k = 0; k < sums.size(); ++k) {
      const WgradSum &sum = sums[k];
      if (i < sum.r || (i - sum.r) % p.stride != 0 || (i - sum.r) / p.stride >= c.rowsP)
        continue;
      std::string &fragment = a[{sum.s, sum.rowPair}];
      if (fragment.empty()) {
        if (stagedRow.empty())
          stagedRow = constant(i, "r");
        // Tap s reads staged column q + s / stride (parity s % 2, 0 here).
        std::string column = constant(sum.s / p.stride, "q");
        fragment = fresh("a");
        out << "    " << fragment << " = spio.ldmatrix " << (sum.rowPair ? "%sxr[" : "%sx[")
            << stagedRow << ", " << zeroR << ", %wq, " << column << parity
            << ", %wg] transpose : " << (sum.rowPair ? sxRowsT : sxT) << "[" << sxIndex
            << "] -> " << FA << "\n";
      }
      std::string d = fresh("d");
      out << "    " << d << " = spio.mma " << fragment << ", " << b[(i - sum.r) / p.stride]
          << ", " << accs[k] << " : " << FA << ", " << FB << ", " << FC << "\n";
      accs[k] = d;
    }
  }
}

void ConvWriter::openCarryingLoop(const std::string &results, const std::string &iv,
                                  const std::string &lower, const std::string &upper,
                                  const std::string &step, const LoopCarried &carried) {
  out << "    " << results << ":" << carried.names.size() << " = scf.for " << iv << " = "
      << lower << " to " << upper << " step " << step << " iter_args(";
  for (size_t i = 0; i < carried.names.size(); ++i)
    out << (i ? ", " : "") << carried.names[i] << " = " << carried.inits[i];
  out << ") -> (";
  for (size_t i = 0; i < carried.types.size(); ++i)
    out << (i ? ", " : "") << carried.types[i];
  out << ") {\n";
}

void ConvWriter::closeCarryingLoop(const std::vector<std::string> &values,
                                   const LoopCarried &carried) {
  assert(values.size() == carried.types.size() && "a loop yields what it carries");
  out << "    scf.yield ";
  for (size_t i = 0; i < values.size(); ++i)
    out << (i ? ", " : "") << values[i];
  out << " : ";
  for (size_t i = 0; i < values.size(); ++i)
    out << (i ? ", " : "") << carried.types[i];
  out << "\n    }";
}

std::string ConvWriter::flatStep(const std::string &j) {
  std::string step = fresh("step");
  out << "    " << step << " = spio.from_index " << j << " : " << coord("m", 8) << "\n";
  return step;
}

std::string ConvWriter::loadFlatGradient(const std::string &step) {
  std::string b = fresh("b");
  out << "    " << b << " = spio.ldmatrix %sdyf[%wq, " << step << ", %wgk] transpose : " << sdyfT
      << "[" << coord("m", 8 * wgradStepsPerWarp()) << ", " << coord("m", 8) << ", "
      << coord("k", 8) << "] -> " << flatStepFragmentType('B') << "\n";
  return b;
}

std::string ConvWriter::loadFlatInput(const std::string &step, int64_t tap, bool rowPair) {
  std::string offset = constant(tap, "m"), a = fresh("a");
  out << "    " << a << " = spio.ldmatrix " << (rowPair ? "%sxr" : "%sxf") << "[%wq, " << step
      << ", " << offset << ", %wg] transpose : " << (rowPair ? sxRowsT : sxfT) << "["
      << coord("m", 8 * wgradStepsPerWarp()) << ", " << coord("m", 8) << ", " << coord("m")
      << ", " << coord("c", 8) << "] -> " << flatStepFragmentType('A') << "\n";
  return a;
}

void ConvWriter::computeWgradFlat(std::vector<std::string> &accs) {
  // Warp wq takes the band's 8-pixel steps wq * perWarp .. (wq + 1) *
  // perWarp - 1, in order: dy's step is the B fragment, and x's pixels at
  // the tap pair's offset r * flatPitch + s, with the next pixel's for
  // tap s + 1, the A. A loop, not unrolled: unrolled, ptxas hoists every
  // ldmatrix of the band (10x10: 237 registers). The loop loads the next
  // step's fragments before it multiplies this step's, so that the
  // ldmatrix latency overlaps the mma (ptxas does not pipeline across
  // iterations).
  std::string FA = flatStepFragmentType('A'), FB = flatStepFragmentType('B');
  std::string FC = wgradAccumulatorType();
  std::vector<WgradSum> sums = wgradSums(p);
  // The fragments of step `j` (an index): dy's B, then each sum's A.
  auto loadStep = [&](const std::string &j) {
    std::string step = flatStep(j);
    std::vector<std::string> fragments = {loadFlatGradient(step)};
    for (const WgradSum &sum : sums)
      fragments.push_back(loadFlatInput(step, sum.r * QT + sum.s, sum.rowPair));
    return fragments;
  };
  // Each sum's mma of the step whose fragments are `fragments`.
  auto multiplyStep = [&](const std::vector<std::string> &fragments,
                          std::vector<std::string> &sumsSoFar) {
    for (size_t k = 0; k < sums.size(); ++k) {
      std::string d = fresh("d");
      out << "    " << d << " = spio.mma " << fragments[k + 1] << ", " << fragments[0] << ", "
          << sumsSoFar[k] << " : " << FA << ", " << FB << ", " << FC << "\n";
      sumsSoFar[k] = d;
    }
  };
  std::string zero = index(0), one = index(1), last = index(wgradStepsPerWarp() - 1);
  std::vector<std::string> first = loadStep(zero);
  // Carried: the sums, then the next step's fragments.
  LoopCarried carried;
  std::vector<std::string> sumsSoFar, current;
  for (const std::string &acc : accs)
    sumsSoFar.push_back(carried.add(fresh("acc"), acc, FC));
  for (size_t i = 0; i < first.size(); ++i)
    current.push_back(carried.add(fresh("f"), first[i], i ? FA : FB));
  std::string loop = fresh("steps"), j = fresh("j"), next = fresh("j");
  openCarryingLoop(loop, j, zero, last, one, carried);
  out << "    " << next << " = arith.addi " << j << ", " << one << " : index\n";
  std::vector<std::string> ahead = loadStep(next);
  multiplyStep(current, sumsSoFar);
  sumsSoFar.insert(sumsSoFar.end(), ahead.begin(), ahead.end());
  closeCarryingLoop(sumsSoFar, carried);
  out << "\n";
  // The last step, whose fragments the loop loaded.
  std::vector<std::string> lastFragments;
  for (size_t i = 0; i < accs.size(); ++i)
    accs[i] = loopResult(loop, i);
  for (size_t i = 0; i < first.size(); ++i)
    lastFragments.push_back(loopResult(loop, accs.size() + i));
  multiplyStep(lastFragments, accs);
}

void ConvWriter::computeWgradFlatRowSteps(std::vector<std::string> &accs) {
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
  std::string FA = flatStepFragmentType('A'), FB = flatStepFragmentType('B');
  std::string FC = wgradAccumulatorType();
  int64_t perWarp = wgradStepsPerWarp(), rowSteps = QT / 8, lag = (p.r - 1) * rowSteps;
  int64_t total = perWarp + lag;
  std::vector<WgradSum> sums = wgradSums(p);
  std::vector<int64_t> pairTaps;
  for (const WgradSum &sum : sums)
    if (std::find(pairTaps.begin(), pairTaps.end(), sum.s) == pairTaps.end())
      pairTaps.push_back(sum.s);
  auto loadA = [&](const std::string &e) {
    std::string step = flatStep(e);
    std::vector<std::string> fragments;
    for (int64_t s : pairTaps)
      fragments.push_back(loadFlatInput(step, s, /*rowPair=*/false));
    return fragments;
  };
  auto loadB = [&](const std::string &t) { return loadFlatGradient(flatStep(t)); };
  // Each sum's mma of x step fragments `a` with the B fragment `bOf(r)` of
  // its kernel row r (none: that dy step is not the warp's).
  auto multiply = [&](const std::vector<std::string> &a,
                      const std::function<std::string(int64_t)> &bOf) {
    for (size_t k = 0; k < sums.size(); ++k) {
      std::string b = bOf(sums[k].r);
      if (b.empty())
        continue;
      size_t pair = std::find(pairTaps.begin(), pairTaps.end(), sums[k].s) - pairTaps.begin();
      std::string d = fresh("d");
      out << "    " << d << " = spio.mma " << a[pair] << ", " << b << ", " << accs[k] << " : "
          << FA << ", " << FB << ", " << FC << "\n";
      accs[k] = d;
    }
  };
  std::map<int64_t, std::vector<std::string>> aAt;
  std::map<int64_t, std::string> bAt;
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
      return t >= 0 && t < perWarp ? bAt[t] : std::string();
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
  LoopCarried carried;
  for (std::string &acc : accs)
    acc = carried.add(fresh("acc"), acc, FC);
  std::vector<std::string> a, window;
  for (const std::string &fragment : aAt[lo])
    a.push_back(carried.add(fresh("f"), fragment, FA));
  for (int64_t d = 0; d <= lag; ++d)
    window.push_back(carried.add(fresh("f"), bAt[lo - d], FB));
  std::string loop = fresh("steps"), e = fresh("e"), next = fresh("e"), one = index(1);
  openCarryingLoop(loop, e, index(lo), index(hi), one, carried);
  out << "    " << next << " = arith.addi " << e << ", " << one << " : index\n";
  std::vector<std::string> aheadA = loadA(next);
  std::string aheadB = loadB(next);
  multiply(a, [&](int64_t r) { return window[r * rowSteps]; });
  std::vector<std::string> yielded = accs;
  yielded.insert(yielded.end(), aheadA.begin(), aheadA.end());
  yielded.push_back(aheadB);
  yielded.insert(yielded.end(), window.begin(), window.end() - 1);
  closeCarryingLoop(yielded, carried);
  out << "\n";
  size_t at = 0;
  for (std::string &acc : accs)
    acc = loopResult(loop, at++);
  aAt[hi].clear();
  for (size_t i = 0; i < pairTaps.size(); ++i)
    aAt[hi].push_back(loopResult(loop, at++));
  for (int64_t d = 0; d <= lag; ++d)
    bAt[hi - d] = loopResult(loop, at++);
  for (int64_t step = hi; step < total; ++step)
    writtenStep(step);
}

void ConvWriter::chunkBands() {
  // This block's bands: [by * perChunk, min((by + 1) * perChunk, bands)).
  std::string perChunk = index(grid.bandsPerChunk), total = index(grid.bands);
  out << "    %band0 = arith.muli %by, " << perChunk << " : index\n";
  out << "    %bandEnd = arith.addi %band0, " << perChunk << " : index\n";
  out << "    %band1 = arith.minui %bandEnd, " << total << " : index\n";
}

void ConvWriter::stageRingRows() {
  // A band copies its first R - 1 rows of x only where it starts a column
  // tile or the block's chunk; else the band before hands them on
  // (handOnRingRows), and a copy of them, even a zero-filling one, could
  // land after the hand-on.
  int64_t halo = p.r - 1;
  std::string zero = index(0);
  std::string firstRow = fresh("b"), chunkStart = fresh("b"), starts = fresh("b");
  out << "    " << firstRow << " = arith.cmpi eq, %ptIndex, " << zero << " : index\n";
  out << "    " << chunkStart << " = arith.cmpi eq, %band, %band0 : index\n";
  out << "    " << starts << " = arith.ori " << firstRow << ", " << chunkStart << " : i1\n";
  out << "    scf.if " << starts << " {\n";
  stageInput(0, halo);
  out << "    }\n";
  stageInput(halo, rows - halo);
}

void ConvWriter::handOnRingRows() {
  // Where the next band of the chunk continues this column tile, its first
  // R - 1 staged rows are this band's last (its input rows p0 + rowsP - padH
  // on): each thread moves its share into the next band's stage
  // (spio.next_stage), whose copies leave those rows alone. This band's
  // stage is only read here, as the compute reads it; the next band reads
  // the rows after the next iteration's wait and barrier.
  int64_t halo = p.r - 1, rowTiles = ceilDiv(p.kernelOutH(), c.rowsP);
  std::string next = fresh("i");
  std::string inChunk = fresh("b"), notLast = fresh("b"), continues = fresh("b");
  std::string one = index(1), lastTile = index(rowTiles - 1);
  out << "    " << next << " = arith.addi %band, " << one << " : index\n";
  out << "    " << inChunk << " = arith.cmpi ult, " << next << ", %band1 : index\n";
  out << "    " << notLast << " = arith.cmpi ult, %ptIndex, " << lastTile << " : index\n";
  out << "    " << continues << " = arith.andi " << inChunk << ", " << notLast << " : i1\n";
  out << "    scf.if " << continues << " {\n";
  std::string R = coord("r"), Q = coord("q"), G8 = coord("c", 8);
  std::string below = constant(c.rowsP, "r");
  forEachElement(halo * copiedQT * WG, [&](const std::string &lin) {
    std::string r = fresh("rr"), q = fresh("qq"), g = fresh("gl"), v = fresh("v");
    out << "    " << r << ", " << q << ", " << g << " = spio.decompose " << lin << " [" << halo
        << ", " << copiedQT << ", " << WG << "] : " << R << ", " << Q << ", " << G8 << "\n";
    std::string from = binary("add", r, below, R);
    out << "    " << v << " = spio.load %sx[" << from << ", " << q << ", " << g << "] : " << sxT
        << "[" << R << ", " << Q << ", " << G8 << "]\n";
    out << "    spio.store " << v << ", %sx[" << r << ", " << q << ", " << g
        << "] {spio.next_stage} : " << sxT << "[" << R << ", " << Q << ", " << G8 << "]\n";
  });
  out << "    }\n";
}

std::string ConvWriter::wgradPartsClause() const {
  switch (p.wgradParts) {
  case WgradParts::Copies:
    return " parts copies";
  case WgradParts::CopiesWithoutRowHalo:
    return " parts copies_without_row_halo";
  case WgradParts::Mma:
    return " parts mma";
  case WgradParts::All:
    break;
  }
  return "";
}

void ConvWriter::writeWgradTileBody() {
  std::vector<WgradSum> sums = wgradSums(p);
  std::string FC = wgradAccumulatorType();
  out << "    %sx = spio.alloc : " << sxT << "\n    %sdy = spio.alloc : " << sdyT << "\n";
  // The sums take the staged tiles' bytes once the band loop is done.
  if (p.wgradClusterReduce)
    out << "    %csums = spio.alloc overlay : " << csumT << "\n";
  if (flat) {
    out << "    %sxf = spio.view %sx : " << sxT << " to " << sxfT << "\n";
    out << "    %sdyf = spio.view %sdy : " << sdyT << " to " << sdyfT << "\n";
  }
  if (wgradRowPairs(p))
    out << "    %sxr = spio.view %sx : " << sxT << " to " << sxRowsT << "\n";
  std::string WQ = coord(wgradPixelDim(), wgradPixelFold());
  std::string GT = coord("c", 8 * WG);
  out << "    %bx = spio.linear_id block_x\n    %by = spio.linear_id block_y\n";
  out << "    %gt = spio.from_index %bx : " << GT << "\n";
  out << "    %g0 = spio.unfold %gt : " << GT << " to " << coord("c", 8) << "\n";
  out << "    %gkt = spio.cast %gt : " << GT << " to " << coord("k", 8 * WG) << "\n";
  out << "    %gk0 = spio.unfold %gkt : " << coord("k", 8 * WG) << " to " << coord("k", 8) << "\n";
  out << "    %k0 = spio.unfold %gkt : " << coord("k", 8 * WG) << " to " << coord("k") << "\n";
  out << "    %tid = spio.linear_id thread\n    %warp = spio.linear_id warp\n";
  out << "    %wg, %wq = spio.decompose %warp [" << WG << ", " << c.warpsQ << "] : "
      << coord("c", 8) << ", " << WQ << "\n";
  out << "    %wgk = spio.cast %wg : " << coord("c", 8) << " to " << coord("k", 8) << "\n";
  chunkBands();
  std::string one = index(1);
  out << "    %zero = arith.constant 0.0 : f32\n";
  LoopCarried bandSums;
  std::vector<std::string> accs;
  for (size_t i = 0; i < sums.size(); ++i) {
    std::string init = fresh("init");
    out << "    " << init << " = spio.fill %zero : " << FC << "\n";
    accs.push_back(bandSums.add("%acc" + std::to_string(i), init, FC));
  }
  openCarryingLoop("%sums", "%band", "%band0", "%band1", one, bandSums);
  bandCoordinates("%band", true);
  WgradParts parts = p.wgradParts;
  if (parts != WgradParts::Mma) {
    if (c.rowRing)
      stageRingRows();
    else
      stageInput(0, parts == WgradParts::CopiesWithoutRowHalo
                        ? std::max<int64_t>(1, rows - (p.r - 1))
                        : rows);
    stageGradient();
  }
  out << "    spio.async_commit\n    spio.async_wait 0\n    gpu.barrier\n";
  if (parts == WgradParts::All || parts == WgradParts::Mma) {
    if (flat && wgradRowsOfWholeSteps(p))
      computeWgradFlatRowSteps(accs);
    else if (flat)
      computeWgradFlat(accs);
    else
      computeWgrad(accs);
  }
  if (c.rowRing && parts != WgradParts::Mma)
    handOnRingRows();
  out << "    gpu.barrier\n";
  closeCarryingLoop(accs, bandSums);
  // The next one or two bands copy in while this one computes (with no
  // copies, nothing to overlap).
  if (parts != WgradParts::Mma)
    out << " {spio.stages = " << wgradStages(p, c) << "}";
  out << "\n";
  // No warp may still read the staged tiles the sums overlay.
  if (p.wgradClusterReduce)
    out << "    gpu.barrier\n";
  storeWgradPartial(sums, FC);
  if (p.wgradClusterReduce)
    reduceInCluster();
}

void ConvWriter::storeWgradPartial(const std::vector<WgradSum> &sums, const std::string &FC) {
  // A block stores one partial, its chunk's: part = %by.
  out << "    %part = spio.from_index %by : " << coord("part") << "\n";
  std::string limitSC = constant(16 * (pairedS(p) / 2), "sc"), limitK = constant(p.c, "k");
  // An odd S's last tap without a row pair holds a zero tap S in its
  // fragment's upper 8 rows, which the reduce never reads: not stored, a
  // quarter of 3x3's partial-sum bytes (8x8 layers write partial sums of
  // 15-37% of their ideal bytes).
  auto holdsZeroTap = [&](const WgradSum &sum) { return !sum.rowPair && sum.s + 1 == p.s; };
  std::string limitTaps;
  if (!p.wgradClusterReduce && std::any_of(sums.begin(), sums.end(), holdsZeroTap))
    limitTaps = constant(8 * p.s, "sc");
  auto store = [&](size_t k, const std::string &fragment) {
    std::string rc = constant(sums[k].r, "r"), tap = constant(sums[k].s, "sc", 8);
    if (p.wgradClusterReduce) {
      out << "    spio.store_fragment " << fragment << ", %csums[%wgk, " << rc << ", " << tap
          << "] : " << FC << ", " << csumT << "[" << coord("k", 8) << ", " << coord("r") << ", "
          << coord("sc", 8) << "]\n";
      return;
    }
    out << "    spio.store_fragment " << fragment << ", %ws[%part, %k0, %wgk, " << rc << ", " << tap
        << "] bounds " << (holdsZeroTap(sums[k]) ? limitTaps : limitSC) << ", " << limitK
        << " : " << FC << ", " << wsT << "[" << coord("part") << ", " << coord("k") << ", "
        << coord("k", 8) << ", " << coord("r") << ", " << coord("sc", 8) << "] bounds "
        << coord("sc") << ", " << coord("k") << "\n";
  };
  int64_t perRound = wgradSumsPerRound(p, c);
  if (!perRound) {
    for (size_t k = 0; k < sums.size(); ++k)
      store(k, "%sums#" + std::to_string(k));
    return;
  }
  // Warps along the pixels add their sums through shared memory, a round
  // of sums at a time: each writes its fragments, then sum j of a round is
  // added by warp j mod warpsQ, over the warps in order (the same bits run
  // to run), and stored. One partial a block, not one a warp, cuts what
  // the grid writes and the reduce reads warpsQ-fold.
  std::string wqDim = wgradPixelDim();
  int64_t wqFold = wgradPixelFold();
  std::string WQ = coord(wqDim, wqFold);
  std::string scratchT = "!spio.tensor<[" + wqDim + "/" + std::to_string(wqFold) + ": " +
                         std::to_string(c.warpsQ) + ", k/8: " + std::to_string(WG) +
                         ", sum: " + std::to_string(perRound) + ", sc: 16, k: 8] x f32, shared>";
  std::string scratchIndex = "[" + WQ + ", " + coord("k", 8) + ", " + coord("sum") + "]";
  out << "    %scratch = spio.alloc : " << scratchT << "\n";
  out << "    %wqi = spio.to_index %wq : " << WQ << "\n";
  // Warp w's slot in the scratch, and whether this warp adds sums j of a
  // round with j mod warpsQ = w (only the first perRound warps add any).
  std::vector<std::string> warpAt, isWarp, slots;
  for (int64_t w = 0; w < c.warpsQ; ++w) {
    warpAt.push_back(constant(w, wqDim, wqFold));
    if (w >= perRound)
      continue;
    std::string at = index(w);
    isWarp.push_back(fresh("b"));
    out << "    " << isWarp.back() << " = arith.cmpi eq, %wqi, " << at << " : index\n";
  }
  for (int64_t j = 0; j < perRound; ++j)
    slots.push_back(constant(j, "sum"));
  std::string vecT = "vector<4xf32>";
  for (size_t first = 0; first < sums.size(); first += perRound) {
    size_t last = std::min(sums.size(), first + perRound);
    if (first)
      out << "    gpu.barrier\n";
    for (size_t k = first; k < last; ++k)
      out << "    spio.store_fragment %sums#" << k << ", %scratch[%wq, %wgk, " << slots[k - first]
          << "] : " << FC << ", " << scratchT << scratchIndex << "\n";
    out << "    gpu.barrier\n";
    for (size_t k = first; k < last; ++k) {
      out << "    scf.if " << isWarp[(k - first) % c.warpsQ] << " {\n";
      std::string total;
      for (int64_t w = 0; w < c.warpsQ; ++w) {
        std::string fragment = fresh("f"), values = fresh("v");
        out << "    " << fragment << " = spio.load_fragment %scratch[" << warpAt[w] << ", %wgk, "
            << slots[k - first] << "] : " << scratchT << scratchIndex << " -> " << FC << "\n";
        out << "    " << values << " = spio.fragment_to_vector " << fragment << " : " << FC
            << " -> " << vecT << "\n";
        if (!total.empty()) {
          std::string next = fresh("v");
          out << "    " << next << " = arith.addf " << total << ", " << values << " : " << vecT
              << "\n";
          values = next;
        }
        total = values;
      }
      std::string sum = fresh("f");
      out << "    " << sum << " = spio.vector_to_fragment " << total << " : " << vecT << " -> "
          << FC << "\n";
      store(k, sum);
      out << "    }\n";
    }
  }
}

void ConvWriter::reduceInCluster() {
  // Block b of the cluster (its rank, %by) adds elements b * threads + tid
  // + i * parts * threads of the tile's [k: 8 * WG, r, s, c: 8], each over
  // the blocks' sums in block order from zero, as the reduce kernel adds
  // the partials (the same bits); all loads of a thread are issued before
  // the additions. A second cluster barrier keeps every block's sums until
  // all have read them.
  int64_t parts = conv2dGw8WgradPartials(p, c), threads = c.threads();
  int64_t tileElements = 8 * WG * p.r * p.s * 8;
  int64_t passes = ceilDiv(tileElements, parts * threads);
  out << "    spio.cluster_barrier\n";
  std::string firstBlock = index(threads), spread = fresh("i");
  out << "    " << spread << " = arith.muli %by, " << firstBlock << " : index\n";
  std::string own = fresh("i");
  out << "    " << own << " = arith.addi " << spread << ", %tid : index\n";
  std::string tileEnd = index(tileElements), lastElement = index(tileElements - 1);
  std::string zero = fresh("zero");
  out << "    " << zero << " = arith.constant 0.0 : f32\n";
  std::vector<std::string> ranks;
  for (int64_t b = 0; b < parts; ++b)
    ranks.push_back(index(b));
  std::string K = coord("k"), R = coord("r"), S = coord("s"), C = coord("c");
  std::string limitK = constant(p.c, "k");
  for (int64_t pass = 0; pass < passes; ++pass) {
    std::string lin = indexPlus(own, pass * parts * threads);
    std::string inTile = fresh("b"), element = fresh("i");
    out << "    " << inTile << " = arith.cmpi ult, " << lin << ", " << tileEnd << " : index\n";
    out << "    " << element << " = arith.minui " << lin << ", " << lastElement << " : index\n";
    std::string k = fresh("k"), r = fresh("r"), s = fresh("s"), ch = fresh("ch");
    out << "    " << k << ", " << r << ", " << s << ", " << ch << " = spio.decompose " << element
        << " [" << 8 * WG << ", " << p.r << ", " << p.s << ", 8] : " << K << ", " << R << ", "
        << S << ", " << C << "\n";
    auto [sumR, tap] = partialSumPlace(r, s);
    std::string channel = convert("cast", ch, C, coord("sc"));
    std::vector<std::string> values;
    for (int64_t b = 0; b < parts; ++b) {
      values.push_back(fresh("v"));
      out << "    " << values.back() << " = spio.load_remote %csums[" << k << ", " << sumR << ", "
          << tap << ", " << channel << "] block " << ranks[b] << " : " << csumT << "[" << K
          << ", " << R << ", " << coord("sc", 8) << ", " << coord("sc") << "]\n";
    }
    std::string sum = zero;
    for (const std::string &v : values) {
      std::string next = fresh("v");
      out << "    " << next << " = arith.addf " << sum << ", " << v << " : f32\n";
      sum = next;
    }
    std::string kAbs = binary("add", "%k0", k, K);
    std::string stores = andi(inTile, cmp("lt", kAbs, limitK, K));
    out << "    scf.if " << stores << " {\n";
    std::string value = sum;
    if (!p.wgradF32) {
      value = fresh("v");
      out << "    " << value << " = arith.truncf " << sum << " : f32 to " << T << "\n";
    }
    out << "    spio.store " << value << ", %dw[" << kAbs << ", " << r << ", " << s << ", " << ch
        << "] : " << dwT << "[" << K << ", " << R << ", " << S << ", " << C << "]\n";
    out << "    }\n";
  }
  out << "    spio.cluster_barrier\n";
}

std::pair<std::string, std::string> ConvWriter::partialSumPlace(const std::string &r,
                                                                const std::string &s) {
  // With row pairs, the last tap at an odd row r comes from row r - 1's
  // pair, at sc/8 = S.
  if (!wgradRowPairs(p))
    return {r, reinterpret(s, coord("s"), coord("sc", 8))};
  std::string one = index(1), lastS = index(p.s - 1), S = index(p.s);
  std::string ri = fresh("i"), si = fresh("i"), bit = fresh("i"), below = fresh("i");
  std::string odd = fresh("b"), last = fresh("b"), rowPair = fresh("b");
  std::string pairR = fresh("i"), pairS = fresh("i");
  out << "    " << ri << " = spio.to_index " << r << " : " << coord("r") << "\n";
  out << "    " << si << " = spio.to_index " << s << " : " << coord("s") << "\n";
  out << "    " << bit << " = arith.andi " << ri << ", " << one << " : index\n";
  out << "    " << odd << " = arith.cmpi eq, " << bit << ", " << one << " : index\n";
  out << "    " << last << " = arith.cmpi eq, " << si << ", " << lastS << " : index\n";
  out << "    " << rowPair << " = arith.andi " << odd << ", " << last << " : i1\n";
  out << "    " << below << " = arith.subi " << ri << ", " << bit << " : index\n";
  out << "    " << pairR << " = arith.select " << rowPair << ", " << below << ", " << ri
      << " : index\n";
  out << "    " << pairS << " = arith.select " << rowPair << ", " << S << ", " << si
      << " : index\n";
  std::string placeR = fresh("v"), tap = fresh("v");
  out << "    " << placeR << " = spio.from_index " << pairR << " : " << coord("r") << "\n";
  out << "    " << tap << " = spio.from_index " << pairS << " : " << coord("sc", 8) << "\n";
  return {placeR, tap};
}

/// dw[k, r, s, c] = the sum over the partials in a fixed order, a lane's
/// wgradReduceVector channels at once (4: 16-byte loads of the partials):
/// the lanes of a warp are [split, lane's channels] (wgradReduceSplits),
/// each lane adds its split's contiguous range of partials in order, and a
/// pairwise tree of shuffles adds the splits (both lanes of a pair add the
/// same two values, so all end with the same bits); split 0 stores.
void ConvWriter::writeWgradReduce() {
  auto str = [](int64_t v) { return std::to_string(v); };
  int64_t V = wgradReduceVector(p, c), lanes = p.c * p.r * p.s * 8 / V;
  int64_t parts = conv2dGw8WgradPartials(p, c);
  int64_t splits = wgradReduceSplits(p, c), lanesPerWarp = 32 / splits;
  int64_t range = ceilDiv(parts, splits);
  // A lane's floats: f32 where it adds one element, else a vector read
  // and written through views of the workspace and dw.
  bool scalar = V == 1;
  std::string dwOutT = p.wgradF32 ? "f32" : T;
  std::string laneF32T = scalar ? "f32" : "vector<" + str(V) + "xf32>";
  std::string laneOutT = scalar ? dwOutT : "vector<" + str(V) + "x" + dwOutT + ">";
  std::string foldedC = scalar ? "c" : "c/" + str(V), foldedSC = scalar ? "sc" : "sc/" + str(V);
  std::string wsLaneT = "!spio.tensor<[part: " + str(parts) + ", k: " + str(p.c) +
                        ", r: " + str(p.r) + ", sc/8: " + str(pairedS(p)) + ", " + foldedSC +
                        ": " + str(8 / V) + "] x " + laneF32T + ", global>";
  std::string dwLaneT = "!spio.tensor<[k: " + str(p.c) + ", r: " + str(p.r) + ", s: " + str(p.s) +
                        ", " + foldedC + ": " + str(8 / V) + "] x " + laneOutT + ", global>";
  std::string wsLane = scalar ? "%ws" : "%wsv", dwLane = scalar ? "%dw" : "%dwv";
  out << "  gpu.func @conv2d_gw8_wgrad_reduce(%ws: " << wsT << ", %dw: " << dwT
      << ") kernel attributes {known_block_size = array<i32: " << kReduceThreads
      << ", 1, 1>} {\n";
  out << "    spio.wait_prerequisites\n";
  out << "    %bx = spio.linear_id block_x\n    %warp = spio.linear_id warp\n";
  out << "    %lane = spio.linear_id lane\n";
  if (!scalar) {
    out << "    %wsv = spio.view %ws : " << wsT << " to " << wsLaneT << "\n";
    out << "    %dwv = spio.view %dw : " << dwT << " to " << dwLaneT << "\n";
  }
  int64_t lanesPerBlock = wgradReduceElementsPerBlock(p, c) / V;
  std::string perBlock = index(lanesPerBlock), perWarp = index(lanesPerWarp);
  std::string limit = index(lanes), lastLane = index(lanes - 1);
  indexOp("%blockFirst", "muli", "%bx", perBlock);
  indexOp("%warpFirst", "muli", "%warp", perWarp);
  indexOp("%e", "remui", "%lane", perWarp);
  indexOp("%inBlock", "addi", "%warpFirst", "%e");
  std::string inBlock = "%inBlock", owns;
  if (lanesPerBlock < kReduceThreads / 32 * lanesPerWarp) {
    // Blocks of whole channels: lanes past the block's elements reduce its
    // last ones (never another block's partial sums) and store nothing.
    std::string lastInBlock = index(lanesPerBlock - 1);
    out << "    %ownsElement = arith.cmpi ult, %inBlock, " << perBlock << " : index\n";
    indexOp("%inBlockLast", "minui", "%inBlock", lastInBlock);
    inBlock = "%inBlockLast";
    owns = "%ownsElement";
  }
  indexOp("%lin", "addi", "%blockFirst", inBlock);
  out << "    %" << (owns.empty() ? "valid" : "inGrid") << " = arith.cmpi ult, %lin, " << limit
      << " : index\n";
  if (!owns.empty())
    out << "    %valid = arith.andi " << owns << ", %inGrid : i1\n";
  // Lanes past the last elements reduce them too (every lane takes part in
  // the shuffles) and store nothing.
  out << "    %element = arith.minui %lin, " << lastLane << " : index\n";
  out << "    %k, %r, %s, %c = spio.decompose %element [" << p.c << ", " << p.r << ", " << p.s
      << ", " << 8 / V << "] : " << coord("k") << ", " << coord("r") << ", " << coord("s")
      << ", " << coord("c", V) << "\n";
  auto [wsR, tap] = partialSumPlace("%r", "%s");
  std::string channels = convert("cast", "%c", coord("c", V), coord("sc", V));
  // The split's partials in order, loaded kReduceUnroll at a time so that
  // their latencies overlap; the additions keep the order.
  std::string wsIndex = "[" + coord("part") + ", " + coord("k") + ", " + coord("r") + ", " +
                        coord("sc", 8) + ", " + coord("sc", V) + "]";
  out << "    %zero = arith.constant " << (scalar ? "0.0" : "dense<0.0>") << " : " << laneF32T
      << "\n";
  std::string sum = "%zero";
  auto sumLoop = [&](const std::string &lower, const std::string &upper, int64_t step) {
    std::string i = fresh("i"), acc = fresh("acc"), result = fresh("sum");
    std::string stride = index(step);
    out << "    " << result << " = scf.for " << i << " = " << lower << " to " << upper
        << " step " << stride << " iter_args(" << acc << " = " << sum << ") -> (" << laneF32T
        << ") {\n";
    std::vector<std::string> values;
    for (int64_t u = 0; u < step; ++u) {
      std::string at = i;
      if (u) {
        std::string offset = index(u);
        at = fresh("i");
        out << "    " << at << " = arith.addi " << i << ", " << offset << " : index\n";
      }
      std::string part = fresh("part"), v = fresh("v");
      out << "    " << part << " = spio.from_index " << at << " : " << coord("part") << "\n";
      out << "    " << v << " = spio.load " << wsLane << "[" << part << ", %k, " << wsR << ", "
          << tap << ", " << channels << "] : " << wsLaneT << wsIndex << "\n";
      values.push_back(v);
    }
    std::string total = addInOrder(acc, values, laneF32T);
    out << "    scf.yield " << total << " : " << laneF32T << "\n    }\n";
    sum = result;
  };
  if (splits == 1) {
    int64_t unrolled = parts / kReduceUnroll * kReduceUnroll;
    if (unrolled)
      sumLoop(index(0), index(unrolled), kReduceUnroll);
    if (unrolled < parts)
      sumLoop(index(unrolled), index(parts), 1);
  } else {
    // Split j adds partials [j * range, min((j + 1) * range, parts)).
    std::string rangeI = index(range), partsI = index(parts), unrollI = index(kReduceUnroll);
    out << "    %split = arith.divui %lane, " << perWarp << " : index\n";
    out << "    %from = arith.muli %split, " << rangeI << " : index\n";
    out << "    %lower = arith.minui %from, " << partsI << " : index\n";
    out << "    %left = arith.subi " << partsI << ", %lower : index\n";
    out << "    %count = arith.minui %left, " << rangeI << " : index\n";
    out << "    %ragged = arith.remui %count, " << unrollI << " : index\n";
    out << "    %whole = arith.subi %count, %ragged : index\n";
    out << "    %mid = arith.addi %lower, %whole : index\n";
    out << "    %upper = arith.addi %lower, %count : index\n";
    sumLoop("%lower", "%mid", kReduceUnroll);
    sumLoop("%mid", "%upper", 1);
    sum = xorTreeSum(sum, laneF32T, V, lanesPerWarp);
  }
  out << "    %first_split = arith.cmpi ult, %lane, " << perWarp << " : index\n";
  out << "    %stores = arith.andi %valid, %first_split : i1\n";
  out << "    scf.if %stores {\n";
  std::string value = roundedToWeights(sum, laneF32T, laneOutT);
  out << "    spio.store " << value << ", " << dwLane << "[%k, %r, %s, %c] : " << dwLaneT << "["
      << coord("k") << ", " << coord("r") << ", " << coord("s") << ", " << coord("c", V) << "]\n";
  out << "    }\n";
  if (conv2dGw8WgradDiscards(p, c))
    discardReadPartials(wgradReduceElementsPerBlock(p, c));
  out << "    gpu.return\n  }\n";
}

void ConvWriter::writeWgradBias() {
  auto str = [](int64_t v) { return std::to_string(v); };
  WgradBiasTiling tiling = wgradBiasTiling(p);
  int64_t vectors = p.c / 8, pixels = p.n * p.outH() * p.outW();
  int64_t offset = wgradBiasPartialsOffset(p, c);
  std::string f32x8 = "vector<8xf32>", inT = "vector<8x" + std::string(T) + ">";
  std::string outT = "vector<8x" + std::string(p.wgradF32 ? "f32" : T) + ">";
  // The workspace as 8-float vectors: dw's partial sums, then the bias's.
  std::string wsBiasT = "!spio.tensor<[f: " + str(offset + tiling.blocks * vectors) + "] x " +
                        f32x8 + ", global>";
  std::string dyFlatT =
      "!spio.tensor<[pix: " + str(pixels) + ", k/8: " + str(vectors) + "] x " + inT + ", global>";
  std::string slotsT = "!spio.tensor<[slot: " + str(tiling.slots) + ", k/8: " +
                       str(tiling.lanes) + "] x " + f32x8 + ", shared>";
  std::string dbT = "!spio.tensor<[k/8: " + str(vectors) + "] x " + outT + ", global>";
  std::string attributes =
      " kernel attributes {known_block_size = array<i32: " + str(kReduceThreads) + ", 1, 1>} {\n";
  // The coordinate of the workspace's 8-float vector `index`.
  auto partialAt = [&](const std::string &index) {
    std::string at = fresh("f");
    out << "    " << at << " = spio.from_index " << index << " : " << coord("f") << "\n";
    return at;
  };

  // Blocks' sums: thread t's slot adds its pixels in order, then thread
  // `lane` of the first slot adds the slots in order.
  out << "  gpu.func @conv2d_gw8_wgrad_bias(%dy: " << dyT << ", %ws: " << wsBiasT << ")"
      << attributes;
  out << "    %dyv = spio.view %dy : " << dyT << " to " << dyFlatT << "\n";
  out << "    %slotSums = spio.alloc : " << slotsT << "\n";
  out << "    %bx = spio.linear_id block_x\n    %tid = spio.linear_id thread\n";
  std::string lanesI = index(tiling.lanes), slotsI = index(tiling.slots);
  indexOp("%lane", "remui", "%tid", lanesI);
  indexOp("%slot", "divui", "%tid", lanesI);
  out << "    %inSlot = arith.cmpi ult, %slot, " << slotsI << " : index\n";
  indexOp("%blockFirst", "muli", "%bx", index(tiling.pixelsPerBlock));
  indexOp("%blockPast", "addi", "%blockFirst", index(tiling.pixelsPerBlock));
  indexOp("%blockEnd", "minui", "%blockPast", index(pixels));
  indexOp("%first", "addi", "%blockFirst", "%slot");
  // Threads past the slots add no pixels; a slot past the block's end none.
  out << "    %end = arith.select %inSlot, %blockEnd, %first : index\n";
  indexOp("%upper", "maxui", "%end", "%first");
  indexOp("%span", "subi", "%upper", "%first");
  indexOp("%spanUp", "addi", "%span", index(tiling.slots - 1));
  indexOp("%steps", "divui", "%spanUp", slotsI);
  constexpr int64_t unroll = 4;
  indexOp("%ragged", "remui", "%steps", index(unroll));
  indexOp("%whole", "subi", "%steps", "%ragged");
  indexOp("%wholeSpan", "muli", "%whole", slotsI);
  indexOp("%mid", "addi", "%first", "%wholeSpan");
  out << "    %zero = arith.constant dense<0.0> : " << f32x8 << "\n";
  std::string zeroI = index(0), oneI = index(1), vectorSteps = index(vectors / tiling.lanes);
  std::string isFirstSlot = fresh("b"), vectorsLoop = fresh("j");
  out << "    " << isFirstSlot << " = arith.cmpi eq, %slot, " << zeroI << " : index\n";
  out << "    scf.for " << vectorsLoop << " = " << zeroI << " to " << vectorSteps << " step "
      << oneI << " {\n";
  std::string vStep = fresh("v");
  indexOp(vStep, "muli", vectorsLoop, lanesI);
  std::string v = fresh("v");
  indexOp(v, "addi", vStep, "%lane");
  std::string channels = fresh("k");
  out << "    " << channels << " = spio.from_index " << v << " : " << coord("k", 8) << "\n";
  // Pixels `unroll` at a time (their loads in flight together), then one at
  // a time; either way added in order.
  std::string sum = "%zero";
  auto pixelLoop = [&](const std::string &lower, const std::string &upper, int64_t count) {
    std::string m = fresh("m"), acc = fresh("acc"), result = fresh("sum");
    std::string step = index(count * tiling.slots);
    out << "    " << result << " = scf.for " << m << " = " << lower << " to " << upper << " step "
        << step << " iter_args(" << acc << " = " << sum << ") -> (" << f32x8 << ") {\n";
    std::vector<std::string> values;
    for (int64_t u = 0; u < count; ++u) {
      std::string at = indexPlus(m, u * tiling.slots), pix = fresh("pix"), d = fresh("d"),
                  wide = fresh("d");
      out << "    " << pix << " = spio.from_index " << at << " : " << coord("pix") << "\n";
      out << "    " << d << " = spio.load %dyv[" << pix << ", " << channels << "] : " << dyFlatT
          << "[" << coord("pix") << ", " << coord("k", 8) << "]\n";
      out << "    " << wide << " = arith.extf " << d << " : " << inT << " to " << f32x8 << "\n";
      values.push_back(wide);
    }
    std::string total = addInOrder(acc, values, f32x8);
    out << "    scf.yield " << total << " : " << f32x8 << "\n    }\n";
    sum = result;
  };
  pixelLoop("%first", "%mid", unroll);
  pixelLoop("%mid", "%upper", 1);
  std::string slotC = fresh("slot"), laneC = fresh("k");
  out << "    scf.if %inSlot {\n";
  out << "    " << slotC << " = spio.from_index %slot : " << coord("slot") << "\n";
  out << "    " << laneC << " = spio.from_index %lane : " << coord("k", 8) << "\n";
  out << "    spio.store " << sum << ", %slotSums[" << slotC << ", " << laneC << "] : " << slotsT
      << "[" << coord("slot") << ", " << coord("k", 8) << "]\n    }\n";
  out << "    gpu.barrier\n";
  out << "    scf.if " << isFirstSlot << " {\n";
  std::string s = fresh("s"), acc = fresh("acc"), total = fresh("sum");
  out << "    " << total << " = scf.for " << s << " = " << zeroI << " to " << slotsI << " step "
      << oneI << " iter_args(" << acc << " = %zero) -> (" << f32x8 << ") {\n";
  std::string atSlot = fresh("slot"), atLane = fresh("k"), slotSum = fresh("v"),
              added = fresh("v");
  out << "    " << atSlot << " = spio.from_index " << s << " : " << coord("slot") << "\n";
  out << "    " << atLane << " = spio.from_index %lane : " << coord("k", 8) << "\n";
  out << "    " << slotSum << " = spio.load %slotSums[" << atSlot << ", " << atLane << "] : "
      << slotsT << "[" << coord("slot") << ", " << coord("k", 8) << "]\n";
  out << "    " << added << " = arith.addf " << acc << ", " << slotSum << " : " << f32x8 << "\n";
  out << "    scf.yield " << added << " : " << f32x8 << "\n    }\n";
  std::string blockBase = fresh("f"), partialIndex = fresh("f");
  indexOp(blockBase, "muli", "%bx", index(vectors));
  std::string shifted = fresh("f");
  indexOp(shifted, "addi", blockBase, v);
  indexOp(partialIndex, "addi", shifted, index(offset));
  std::string partial = partialAt(partialIndex);
  out << "    spio.store " << total << ", %ws[" << partial << "] : " << wsBiasT << "["
      << coord("f") << "]\n    }\n";
  // The slots are read before the next vector's sums overwrite them.
  out << "    gpu.barrier\n    }\n    gpu.return\n  }\n";

  // The reduce: warp w of block b adds vector 8 b + w's partials, lane l
  // those of blocks l, l + 32, ... in order, then the lanes in a fixed
  // xor tree, which leaves every lane the same bits.
  out << "  gpu.func @conv2d_gw8_wgrad_bias_reduce(%ws: " << wsBiasT << ", %db: " << dbT << ")"
      << attributes;
  out << "    %bx = spio.linear_id block_x\n    %warp = spio.linear_id warp\n";
  out << "    %lane = spio.linear_id lane\n";
  indexOp("%warpsBefore", "muli", "%bx", index(kReduceThreads / 32));
  indexOp("%vector", "addi", "%warpsBefore", "%warp");
  std::string vectorsI = index(vectors);
  out << "    %valid = arith.cmpi ult, %vector, " << vectorsI << " : index\n";
  indexOp("%v", "minui", "%vector", index(vectors - 1));
  out << "    %zero = arith.constant dense<0.0> : " << f32x8 << "\n";
  std::vector<std::string> values;
  int64_t perLane = ceilDiv(tiling.blocks, 32);
  std::string lastBlock = index(tiling.blocks - 1), blocksI = index(tiling.blocks);
  for (int64_t i = 0; i < perLane; ++i) {
    std::string block = indexPlus("%lane", 32 * i), owned = fresh("b"), clamped = fresh("i");
    out << "    " << owned << " = arith.cmpi ult, " << block << ", " << blocksI << " : index\n";
    indexOp(clamped, "minui", block, lastBlock);
    std::string base = fresh("f"), at = fresh("f");
    indexOp(base, "muli", clamped, index(vectors));
    std::string withVector = fresh("f");
    indexOp(withVector, "addi", base, "%v");
    indexOp(at, "addi", withVector, index(offset));
    std::string partial = partialAt(at), loaded = fresh("v"), kept = fresh("v");
    out << "    " << loaded << " = spio.load %ws[" << partial << "] : " << wsBiasT << "["
        << coord("f") << "]\n";
    out << "    " << kept << " = arith.select " << owned << ", " << loaded << ", %zero : "
        << f32x8 << "\n";
    values.push_back(kept);
  }
  std::string laneSum = xorTreeSum(addInOrder("%zero", values, f32x8), f32x8, 8, 1);
  std::string laneZero = index(0);
  out << "    %firstLane = arith.cmpi eq, %lane, " << laneZero << " : index\n";
  out << "    %stores = arith.andi %valid, %firstLane : i1\n    scf.if %stores {\n";
  std::string value = roundedToWeights(laneSum, f32x8, outT);
  std::string vc = fresh("k");
  out << "    " << vc << " = spio.from_index %v : " << coord("k", 8) << "\n";
  out << "    spio.store " << value << ", %db[" << vc << "] : " << dbT << "[" << coord("k", 8)
      << "]\n    }\n    gpu.return\n  }\n";
}

void ConvWriter::discardReadPartials(int64_t elementsPerBlock) {
  // Blocks of whole channels (wgradReduceElementsPerBlock): block b alone
  // read the partial sums (R * pairedS * 8 floats a partial, row pairs'
  // included) of its channels [b * channels, + channels), so their whole
  // 128-byte lines, in every partial, go once all its lanes have added
  // theirs.
  int64_t channels = elementsPerBlock / (p.r * p.s * 8);
  int64_t parts = conv2dGw8WgradPartials(p, c), floatsPerChannel = p.r * pairedS(p) * 8;
  int64_t lineFloats = 32, partLines = p.c * floatsPerChannel / lineFloats;
  std::string linesT =
      "!spio.tensor<[line: " + std::to_string(parts * partLines) + ", f: 32] x f32, global>";
  out << "    gpu.barrier\n";
  out << "    %lines = spio.view %ws : " << wsT << " to " << linesT << "\n";
  out << "    %tid = spio.linear_id thread\n";
  std::string perBlock = index(channels), allChannels = index(p.c);
  std::string floats = index(floatsPerChannel), lineSize = index(lineFloats);
  std::string lineAbove = index(lineFloats - 1), threads = index(kReduceThreads);
  std::string perPart = index(partLines), partCount = index(parts);
  indexOp("%discard_kFirst", "muli", "%bx", perBlock);
  indexOp("%discard_kPast", "addi", "%discard_kFirst", perBlock);
  indexOp("%discard_kEnd", "minui", "%discard_kPast", allChannels);
  // The lines wholly inside the channels' floats (5x5: 7.5 lines a channel).
  indexOp("%discard_fFirst", "muli", "%discard_kFirst", floats);
  indexOp("%discard_fFirstUp", "addi", "%discard_fFirst", lineAbove);
  indexOp("%discard_line0", "divui", "%discard_fFirstUp", lineSize);
  indexOp("%discard_fEnd", "muli", "%discard_kEnd", floats);
  indexOp("%discard_line1Down", "divui", "%discard_fEnd", lineSize);
  indexOp("%discard_line1", "maxui", "%discard_line1Down", "%discard_line0");
  indexOp("%discard_ownLines", "subi", "%discard_line1", "%discard_line0");
  indexOp("%discard_allLines", "muli", "%discard_ownLines", partCount);
  out << "    scf.for %discard_i = %tid to %discard_allLines step " << threads << " {\n";
  indexOp("%discard_ip", "divui", "%discard_i", "%discard_ownLines");
  indexOp("%discard_ipl", "muli", "%discard_ip", "%discard_ownLines");
  indexOp("%discard_j", "subi", "%discard_i", "%discard_ipl");
  indexOp("%discard_partFirst", "muli", "%discard_ip", perPart);
  indexOp("%discard_lineAt", "addi", "%discard_partFirst", "%discard_line0");
  indexOp("%discard_lineIndex", "addi", "%discard_lineAt", "%discard_j");
  out << "    %discard_line = spio.from_index %discard_lineIndex : " << coord("line") << "\n";
  out << "    spio.discard %lines[%discard_line] : " << linesT << "[" << coord("line") << "]\n";
  out << "    }\n";
}

} // namespace

std::string conv2dGw8Source(const Conv2dGw8Problem &problem, const Conv2dGw8Config &config) {
  return ConvWriter(problem, config).writeWorkload();
}

std::string conv2dGw8TileSource(const Conv2dGw8Problem &problem,
                                const Conv2dGw8Config &config) {
  return ConvWriter(problem, config).writeTile();
}

} // namespace spio::kernels
