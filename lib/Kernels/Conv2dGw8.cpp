//===- Conv2dGw8.cpp - conv2d-gw8 tiling, configurations and launches ----===//

#include "Conv2dGw8Tiling.h"
#include "spio/Layout/Layout.h"
#include "spio/Target/Target.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstdlib>
#include <iterator>
#include <string>
#include <tuple>
#include <vector>

namespace spio::kernels {

using namespace gw8;

const char *convPassName(ConvPass pass) {
  switch (pass) {
  case ConvPass::Fprop:
    return "fprop";
  case ConvPass::Dgrad:
    return "dgrad";
  case ConvPass::Wgrad:
    return "wgrad";
  }
  return "?";
}

namespace gw8 {

/// Blocks a multiprocessor fprop and dgrad on flattened rows aim for: a
/// band is one small image or less, and each block loads its groups'
/// weights once for all its bands; more blocks reuse them less, fewer
/// leave multiprocessors idle (TUNING.md, "Flattened rows").
constexpr int64_t kFlatBlocksPerMultiprocessor = 4;

/// Output rows whose staged rows stride-2 fprop copies in ahead of the one
/// it computes, in a ring of shared-memory rows (stagedInput).
constexpr int64_t kRingLookahead = 4;

std::vector<TapStep> tapSteps(const Conv2dGw8Problem &p) {
  std::vector<TapStep> steps;
  int64_t s = 0;
  for (; s + 1 < p.s; s += 2)
    steps.push_back({s, 2});
  if (s < p.s)
    steps.push_back({s, 1});
  return steps;
}

/// wgrad's tap pairs: its A fragment holds a pair as 16 rows, and its
/// partial sums an even number of taps (an odd S's tap S is a partial sum
/// that dw leaves out).
int64_t pairedS(const Conv2dGw8Problem &p) { return 2 * ceilDiv(p.s, 2); }

bool wgradRowPairs(const Conv2dGw8Problem &p) { return p.s >= 5 && p.s % 2 == 1 && p.r > 1; }

std::vector<WgradSum> wgradSums(const Conv2dGw8Problem &p) {
  bool rowPairs = wgradRowPairs(p);
  std::vector<WgradSum> sums;
  for (int64_t r = 0; r < p.r; ++r) {
    for (int64_t s = 0; s + 1 < p.s; s += 2)
      sums.push_back({r, s, false});
    if (p.s % 2 == 1 && (!rowPairs || r % 2 == 0))
      sums.push_back({r, p.s - 1, rowPairs && r + 1 < p.r});
  }
  return sums;
}

/// Columns an output's taps span: wgrad's partial sums hold the paired
/// taps.
static int64_t tapColumns(const Conv2dGw8Problem &p) {
  return p.pass == ConvPass::Wgrad ? pairedS(p) : p.s;
}

static bool wgradQuarterBlocks(const Conv2dGw8Problem &p);
static bool wgradOneDeepBlock(const Conv2dGw8Problem &p, const Conv2dGw8Config &c);

/// wgrad blocks of one column tile and up to 4 warps (wgradBandRows).
static bool fewWarpBlock(const Conv2dGw8Config &c) {
  return c.warpsQ == 1 && c.computeWarps() <= 4;
}

/// wgrad's bands of rows of 16-pixel fragments: 8 rows (4 with stride 2,
/// fewer only where the chooser finds its tiles would not fit), or 9 only
/// where that rounds fewer rows up (18 rows as 2 bands, not 3): the
/// unrolled ninth row costs registers (it can halve the blocks a
/// multiprocessor holds). Kernels of wgradQuarterBlocks also take 7, then,
/// in blocks of one column tile and up to 4 warps (fewWarpBlock: 168
/// registers, where 8-warp blocks spill at 128), 10, where that rounds
/// fewer up than the bands before (TUNING.md, "wgrad bands").
static int64_t wgradBandRows(const Conv2dGw8Problem &p, bool inFewWarps) {
  int64_t rows = p.outH();
  if (p.stride == 2)
    return std::min<int64_t>(rows, 4);
  int64_t band = 8;
  auto roundsFewerUp = [&](int64_t other) {
    return ceilDiv(rows, other) * other < ceilDiv(rows, band) * band;
  };
  if (roundsFewerUp(9))
    band = 9;
  if (wgradQuarterBlocks(p) && roundsFewerUp(7))
    band = 7;
  if (wgradQuarterBlocks(p) && inFewWarps && roundsFewerUp(10))
    band = 10;
  return std::min(rows, band);
}

/// Input columns per staged column: 2 for stride-2 fprop and wgrad (each
/// staged q holds input columns 2q and 2q + 1). dgrad with stride 2 runs the
/// stride-1 kernel on dy upsampled by zeros: the staging reads dy only at
/// even positions, zero-fills the rest, and the compute is that of stride 1.
static int64_t stagingStride(const Conv2dGw8Problem &p) {
  return p.pass == ConvPass::Dgrad ? 1 : p.stride;
}

/// dgrad with stride 2, which stages dy upsampled by zeros.
bool upsamplesDy(const Conv2dGw8Problem &p) {
  return p.pass == ConvPass::Dgrad && p.stride == 2;
}

/// 3, 5 or 7 groups a block: an odd pitch of 16-byte vectors, which needs
/// no swizzle. Stride-2 staging, two input columns a staged column, pads it
/// to stay odd (conflictFreePitch).
static bool oddGroupTile(int64_t warpsG) { return warpsG % 2 == 1 && warpsG > 1; }

/// Problems of 7 or 9 groups, whose pixels (112 or 144 bytes) a block of
/// as many warps along groups copies whole: more than the rules' 5, at
/// most the 9 warps a column of them may take.
static bool wholePixelTile(const Conv2dGw8Problem &p) { return p.groups() == 7 || p.groups() == 9; }

/// Flattened rows' staged columns a row: the input's W columns, then padW
/// zeros that are both this row's right padding and the next row's left (a
/// tap past column W - 1 reads on into the next row's padding), not the Q +
/// S - 1 of a row padded on both sides. wgrad's phantom tap of an odd S
/// reads one column further, into the next row's pixels, and adds them to
/// the partial sum that dw leaves out.
int64_t flatPitch(const Conv2dGw8Problem &p) { return p.kernelInW() + p.kernelPadW(); }

/// wgrad's flattened rows: flatPitch rounded up to whole 8-pixel mma steps
/// where that adds at most half the pixels, so that each x step's A
/// fragments serve every kernel row (computeWgradFlatRowSteps); doubling
/// the pixels costs more than the reuse gives (TUNING.md, "Flattened
/// rows").
int64_t wgradFlatPitch(const Conv2dGw8Problem &p) {
  int64_t pitch = flatPitch(p), steps = ceilDiv(pitch, 8) * 8;
  return 2 * steps <= 3 * pitch ? steps : pitch;
}

/// wgrad's flattened rows are whole 8-pixel mma steps: each x step's A
/// fragments serve every kernel row (computeWgradFlatRowSteps).
bool wgradRowsOfWholeSteps(const Conv2dGw8Problem &p) { return wgradFlatPitch(p) % 8 == 0; }

/// Narrow images flatten each staged row of flatPitch columns into one
/// pixel dimension `m`: an mma takes consecutive pixels across rows and a
/// tap is the offset r * flatPitch + s, where the padding fits between two
/// rows (0 <= kernelPadW < S). fprop and dgrad compute and drop
/// the columns of each row past Q; wgrad stages dy's as zeros, so they add
/// nothing to its sums. fprop and dgrad flatten only where rows of
/// 16-pixel fragments would compute at least twice the pixels (Q <= 8)
/// and the one image (N = 1) has none to go beside it; never stride-2
/// dgrad, whose zero-upsampled dy only rows of fragments stage (flattened,
/// a 7x7 GPU test failed). Flattened, no staged row is reused across the
/// R output rows it feeds, which rows of fragments do, so those win
/// wherever they waste less than half their pixels. wgrad flattens only
/// kernels of up to 3 columns (wider ones reuse their staged rows more).
/// Rows of whole mma steps (wgradFlatPitch), whose x fragments serve every
/// kernel row as the bands' do, flatten where they compute fewer pixels
/// than bands of 8 or 9 rows of 16-column fragments; other rows at up to
/// 60% of the bands' pixels (TUNING.md, "Flattened rows").
bool flatRows(const Conv2dGw8Problem &p) {
  int64_t q = p.kernelOutW();
  if (stagingStride(p) != 1 || q > 32 || flatPitch(p) >= 16 * ceilDiv(q, 16) ||
      p.kernelPadW() < 0 || p.kernelPadW() >= p.s)
    return false;
  if (p.pass != ConvPass::Wgrad)
    return 16 * ceilDiv(q, 16) >= 2 * q && p.stride == 1 && p.n == 1;
  int64_t rows = p.outH(), band = wgradBandRows(p, false);
  int64_t bandPixels = ceilDiv(rows, band) * band * 16 * ceilDiv(q, 16);
  if (p.s > 3)
    return false;
  if (wgradRowsOfWholeSteps(p))
    return rows * wgradFlatPitch(p) < bandPixels;
  return 100 * rows * flatPitch(p) <= 60 * bandPixels;
}

/// Images a kernel on rows of fragments lays side by side in one row: k
/// staged images of kernelInW + 2 kernelPadW columns each, whose output
/// columns past kernelOutW (the S - 1 between two images' outputs, and
/// those past the last image) fprop and dgrad compute and drop, and wgrad
/// stages dy's as zeros, which add nothing. Column tiles of 16 * warpsQ
/// then run on across images instead of rounding each image's columns up
/// (18 columns: 18 of 32 used; 3 images side by side, 54 of 64). Taken by
/// fprop and stride-1 dgrad (not with padding of S or more, whose kernel
/// padding is negative) and wgrad of wgradQuarterBlocks or stride 2, where
/// that uses at least 1.3x the columns (smaller gains do not pay for the
/// dropped columns' copies): at most 8 images, for wgrad 3 in bands of 9
/// or 10 rows (whose ninth row already costs registers); not stride-1
/// wgrad's 3x3 kernels, whose copies' column arithmetic costs registers
/// (TUNING.md, "Images side by side").
constexpr int64_t kMaxPackedImages = 8;

/// The output columns one image takes side by side with others: its padded
/// input columns, which stride-2 fprop stages in pairs (one output column's
/// two parities).
int64_t packedPitch(const Conv2dGw8Problem &p) {
  return ceilDiv(p.kernelInW() + 2 * p.kernelPadW(), stagingStride(p));
}

/// The output columns a row of `images` images side by side spans.
static int64_t packedColumns(const Conv2dGw8Problem &p, int64_t images) {
  return (images - 1) * packedPitch(p) + p.kernelOutW();
}

/// The share of the columns computed in tiles of 16 * warpsQ that are
/// output columns, `images` side by side.
static double packedShare(const Conv2dGw8Problem &p, int64_t images, int64_t warpsQ) {
  int64_t tile = 16 * warpsQ;
  return double(images * p.kernelOutW()) /
         double(ceilDiv(packedColumns(p, images), tile) * tile);
}

static int64_t packedImages(const Conv2dGw8Problem &p, int64_t warpsQ,
                            bool wgradInFewWarps = false) {
  bool wgrad = p.pass == ConvPass::Wgrad;
  bool takes =
      wgrad ? wgradQuarterBlocks(p) || p.stride == 2 : p.stride == 1 || p.pass == ConvPass::Fprop;
  if (!takes || flatRows(p) || p.kernelPadW() < 0)
    return 1;
  bool tallBands = wgrad && wgradBandRows(p, wgradInFewWarps) >= 9;
  int64_t most = std::min(p.n, tallBands ? 3 : kMaxPackedImages), best = 1;
  for (int64_t images = 2; images <= most; ++images)
    if (packedShare(p, images, warpsQ) > packedShare(p, best, warpsQ) + 1e-9)
      best = images;
  return packedShare(p, best, warpsQ) >= 1.3 * packedShare(p, 1, warpsQ) ? best : 1;
}

/// The most image boundaries one gapless column tile of `tile` pixels
/// crosses, over `columns` output columns of images `q` wide.
static int64_t gaplessCrossings(int64_t q, int64_t tile, int64_t columns) {
  int64_t most = 0;
  for (int64_t first = 0; first < columns; first += tile)
    most = std::max(most, (first % q + tile - 1) / q);
  return most;
}

/// fprop and dgrad kernels of 5 or more columns, stride 1, on rows of
/// fragments lay images side by side gaplessly (BandGrid::gapless): the
/// fewest images, up to 8 and N, whose output columns fill the most of
/// their column tiles, where that uses 1.1x or more the share of the
/// columns packedImages does, a tile crosses at most 3 image boundaries
/// (each adds the S - 1 zero columns between two images to its staged
/// tile) and 8 or more bands remain (fewer bands leave blocks idle, more
/// crossings stage too many zero columns); 0 otherwise (TUNING.md,
/// "Gapless images").
static int64_t gaplessImages(const Conv2dGw8Problem &p, const Conv2dGw8Config &c) {
  if (p.pass == ConvPass::Wgrad || p.s < 5 || p.stride != 1 || flatRows(p) ||
      p.kernelPadW() < 0)
    return 0;
  int64_t Q = p.kernelOutW(), tile = 16 * c.warpsQ;
  auto share = [&](int64_t images) {
    return double(images * Q) / double(ceilDiv(images * Q, tile) * tile);
  };
  int64_t best = 1;
  for (int64_t images = 2; images <= std::min(p.n, kMaxPackedImages); ++images)
    if (share(images) > share(best) + 1e-9)
      best = images;
  bool gains = share(best) >= 1.1 * packedShare(p, packedImages(p, c.warpsQ), c.warpsQ);
  int64_t bands = ceilDiv(p.n, best) * ceilDiv(p.kernelOutH(), c.rowsP);
  return gains && gaplessCrossings(Q, tile, best * Q) <= 3 && bands >= 8 ? best : 0;
}

/// wgrad's grid, or that of fprop and dgrad on flattened rows. fprop and
/// dgrad on rows of fragments: blocks along the (image, row tile) bands,
/// with the group and column tiles along x.
BandGrid bandGrid(const Conv2dGw8Problem &p, const Conv2dGw8Config &c) {
  BandGrid g;
  int64_t gapless = gaplessImages(p, c);
  g.gapless = gapless > 0;
  g.images = g.gapless ? gapless : packedImages(p, c.warpsQ, fewWarpBlock(c));
  int64_t columns = g.gapless ? g.images * p.kernelOutW() : packedColumns(p, g.images);
  g.qTiles = flatRows(p) ? 1 : ceilDiv(columns, 16 * c.warpsQ);
  g.groupTiles = ceilDiv(p.groups(), c.warpsG);
  // wgrad's bands span one column tile each; fprop's and dgrad's, whole rows.
  bool rowsOfFragments = p.pass != ConvPass::Wgrad && !flatRows(p);
  g.bands = ceilDiv(p.n, g.images) * ceilDiv(p.kernelOutH(), c.rowsP) *
            (rowsOfFragments ? 1 : g.qTiles);
  if (rowsOfFragments) {
    g.bandsPerChunk = c.chunks ? ceilDiv(g.bands, std::min(c.chunks, g.bands)) : 1;
    g.chunks = ceilDiv(g.bands, g.bandsPerChunk);
    return g;
  }
  // wgrad aims for as many blocks as are resident on all multiprocessors
  // at once (wgradResidentBlocks), so that all run in one wave and one
  // block's copies overlap another's mma; more blocks would write more
  // partial sums.
  // wgrad takes at most `target` blocks: blocks past whole waves run as one
  // more. Flattened fprop and dgrad round up (TUNING.md, "Grids").
  int64_t want = c.chunks;
  if (!want) {
    int64_t target =
        (p.pass == ConvPass::Wgrad ? wgradResidentBlocks(p, c) : kFlatBlocksPerMultiprocessor) *
        p.target.multiprocessors;
    want = p.pass == ConvPass::Wgrad ? std::max<int64_t>(1, target / g.groupTiles)
                                     : ceilDiv(target, g.groupTiles);
  }
  g.bandsPerChunk = ceilDiv(g.bands, std::min(want, g.bands));
  g.chunks = ceilDiv(g.bands, g.bandsPerChunk);
  return g;
}

/// Stride-2 dgrad on rows of fragments in blocks of an even number of rows:
/// blocks start at even rows, so every other staged row is an odd row of
/// the upsampled dy, all zeros, which the kernel neither stages (it takes
/// no shared memory) nor multiplies.
bool skipsZeroRows(const Conv2dGw8Problem &p, const Conv2dGw8Config &c) {
  return upsamplesDy(p) && !flatRows(p) && c.rowsP % 2 == 0;
}

StagedInput stagedInput(const Conv2dGw8Problem &p, const Conv2dGw8Config &c) {
  StagedInput t;
  t.columns = 16 * c.warpsQ;
  t.pixels = t.gradientRows = 0;
  t.stride = stagingStride(p);
  // Staged columns: output columns q0 .. q0 + columns - 1 plus the taps'
  // reach; with stride 2 each staged q holds the two input columns 2q and
  // 2q + 1.
  int64_t reach = tapColumns(p);
  t.copiedColumns = t.columns + (reach - 1) / t.stride;
  BandGrid grid = bandGrid(p, c);
  if (grid.gapless)
    t.copiedColumns +=
        (reach - 1) * gaplessCrossings(p.kernelOutW(), t.columns, grid.images * p.kernelOutW());
  t.stagedColumns = ceilDiv(t.copiedColumns, 8) * 8;
  t.rowStride = p.r == 1 ? 1 : t.stride;
  t.rows = t.rowStride * (c.rowsP - 1) + p.r;
  if (p.pass == ConvPass::Wgrad)
    t.gradientRows = c.rowsP;
  if (flatRows(p)) {
    // Whole rows of flatPitch staged columns; enough rows that the last
    // pixel's tap pairs stay inside the tile.
    t.copiedColumns = t.stagedColumns = t.columns =
        p.pass == ConvPass::Wgrad ? wgradFlatPitch(p) : flatPitch(p);
    int64_t step = p.pass == ConvPass::Wgrad ? 8 * c.warpsQ : 16;
    t.pixels = ceilDiv(c.rowsP * t.columns, step) * step;
    t.rows = (t.pixels - 1 + (p.r - 1) * t.columns + reach - 1) / t.columns + 1;
    if (p.pass == ConvPass::Wgrad)
      t.gradientRows = ceilDiv(t.pixels, t.columns);
  }
  // Stride-2 fprop (one band a block) keeps a ring of the R rows an output
  // row reads and the rows of the next kRingLookahead output rows, copied
  // in while the block computes, where that holds under half the block's
  // rows: its staged rows are twice as many and as wide, and the whole
  // tile capped its blocks at 4 to 9 rows. Stride 1 and stride-2 dgrad
  // keep whole tiles, which the ring did not speed up (TUNING.md,
  // "Stride-2 fprop's ring").
  int64_t ring = p.r + t.rowStride * kRingLookahead;
  t.ring = p.pass == ConvPass::Fprop && p.stride == 2 && !flatRows(p) &&
           grid.bandsPerChunk == 1 && t.rows > 2 * ring;
  t.slots = t.ring ? ring : t.rows;
  // The parity by & 1: dgrad's kernel padding is negative for padding of R
  // or more.
  if (skipsZeroRows(p, c))
    t.slots = (t.rows - (p.kernelPadH() & 1) + 1) / 2;
  return t;
}

/// fprop/dgrad: 16-byte vectors between pixels of the output tile: a
/// pixel's 8 * warpsG channels, padded to an odd number of vectors so that
/// the fragment stores of its 8 rows hit distinct banks.
int64_t outputPitch(int64_t warpsG) { return warpsG % 2 == 1 ? warpsG : warpsG + 1; }

/// The staged input's storage in 16-byte vectors, its layout's cosize (the
/// writer's sxT): the tile, the tap entry's alias reaching `taps - 1`
/// pixels past its end, and the rest of the last swizzle period (8 staged
/// columns; odd pitches have none).
static int64_t stagedStorageVectors(const StagedInput &staged, int64_t warpsG, int64_t taps) {
  int64_t perColumn = staged.columnPitch(warpsG);
  int64_t period = perColumn % 2 == 1 ? 1 : 8 * perColumn;
  return ceilDiv(staged.bytes(warpsG) / 16 + (taps - 1) * staged.tapPairStride(warpsG), period) *
         period;
}

/// fprop's and dgrad's shared memory as spio-to-gpu lays it out (each tile
/// from a 128-byte boundary, at its layout's cosize): `stagedCopies` of the
/// staged input, the weights, and `outputElements` of f16 or bf16.
static int64_t tilesSharedBytes(const Conv2dGw8Problem &p, const Conv2dGw8Config &c,
                                int64_t stagedCopies, int64_t outputElements) {
  auto aligned = [](int64_t bytes) { return ceilDiv(bytes, 128) * 128; };
  int64_t staged = stagedCopies * 16 *
                   stagedStorageVectors(stagedInput(p, c), c.warpsG, tapSteps(p).front().taps);
  return aligned(aligned(staged) + p.r * p.s * 8 * c.warpsG * 16) + 2 * outputElements;
}

int64_t streamBarrierCount(const Conv2dGw8Problem &p, const Conv2dGw8Config &c) {
  return 2 * stagedInput(p, c).rows;
}

/// fprop and dgrad on rows of fragments: whether a block rings its bands
/// through two staged tiles (with copy warps it streams them through one).
static bool ringsTwoTiles(const Conv2dGw8Problem &p, const Conv2dGw8Config &c) {
  return bandGrid(p, c).bandsPerChunk > 1 && !c.copyWarps;
}

/// fprop and dgrad on rows of fragments: the staged input, twice where a
/// block rings its bands, the output tile's rows, two for each output row
/// between two of the block's barriers (outputRowsPerBarrier), and with
/// copy warps their barriers.
static int64_t rowsSharedBytes(const Conv2dGw8Problem &p, const Conv2dGw8Config &c,
                               int64_t outputRows) {
  int64_t pitch = outputPitch(c.warpsG), columns = 16 * c.warpsQ;
  // The barriers follow the tiles, from a 128-byte boundary.
  int64_t barriers = c.copyWarps ? ceilDiv(8 * streamBarrierCount(p, c), 128) * 128 : 0;
  return barriers + tilesSharedBytes(p, c, ringsTwoTiles(p, c) ? 2 : 1,
                                     8 * (2 * outputRows * columns * pitch - pitch + c.warpsG));
}

/// Blocks of `bytes` of shared memory a multiprocessor of the target holds,
/// 1 KB of it reserved per block.
static int64_t blocksBySharedMemory(const Conv2dGw8Problem &p, int64_t bytes) {
  return p.target.sharedBytesPerMultiprocessor / (bytes + 1024);
}

/// fprop and dgrad on rows of fragments: the blocks a multiprocessor holds
/// by shared memory (with `outputRows` rows between barriers), at the
/// registers a thread ptxas takes about.
int64_t rowsResidentBlocks(const Conv2dGw8Problem &p, const Conv2dGw8Config &c,
                           int64_t outputRows) {
  // At most as many blocks as leave 40 registers a thread (of 64K): ptxas
  // takes about that many (TUNING.md, "Registers").
  int64_t bySharedMemory = blocksBySharedMemory(p, rowsSharedBytes(p, c, outputRows));
  // A ring's copies in the row loop take more registers: 64 (with a ring
  // on every 3x3 kernel and 40, 98 of the 244 stride-1 layer kernels
  // spilled).
  int64_t registers = stagedInput(p, c).ring ? 64 : 40;
  // Kernels of 5 or more columns hold 5 or more rows of sums and their
  // weights: ptxas takes about 77 registers, and so do kernels of more
  // than 9 taps or of 6 or more rows; held to fewer, they spill.
  if (p.s >= 5 || p.r * p.s > 9 || p.r >= 6)
    registers = std::max<int64_t>(registers, 80);
  // Kernels of 36 or more taps (6x6 to 7x7) take about 100 to 125, and
  // spill held to 80.
  if (p.r * p.s >= 36)
    registers = 128;
  // A multiprocessor's registers are four files of 16K, one a scheduler,
  // its resident warps dealt out over the four: B blocks of W warps at R
  // registers fit where ceil(B * W / 4) warps of 32 * R fit one file, as
  // ptxas counts (a file's share counted wrong, ptxas spills: TUNING.md,
  // "Registers").
  int64_t warps = c.threads() / 32, perFile = 16384 / (32 * registers);
  return std::max<int64_t>(1, std::min(bySharedMemory, 4 * perFile / warps));
}

/// fprop and dgrad on rows of fragments: the output rows a block completes
/// between two of its barriers. Each completed row's fragments go to a
/// shared tile row, and after the next barrier the block copies all such
/// rows out as whole pixels (each warp its own pixels would write
/// half-written sectors); 2k tile rows let the next k rows' fragment
/// stores start before the copies of these end. Awaits of staged rows come
/// in groups of k rows too (computeRows), so that one barrier serves both.
/// Kernels of 5 or more columns, bound by their mma and stalled at
/// barriers, take the largest k up to 4 that keeps the blocks a
/// multiprocessor holds; 3x3 kernels, memory bound, whose larger groups of
/// awaited rows would wait longer, and stride-2 fprop, whose groups would
/// await twice the staged rows (and whose ring refills after every row's
/// barrier), keep 1 (TUNING.md, "Rows a barrier").
int64_t outputRowsPerBarrier(const Conv2dGw8Problem &p, const Conv2dGw8Config &c) {
  if (p.s < 5 || stagingStride(p) != 1)
    return 1;
  int64_t blocks = rowsResidentBlocks(p, c, 1);
  for (int64_t k = 4; k > 1; k /= 2)
    if (rowsResidentBlocks(p, c, k) >= blocks)
      return k;
  return 1;
}

/// wgrad's staged tiles: x's and dy's (dy's are whole swizzle periods),
/// `stages` of each (spio-pipeline's buffers), as spio-to-gpu lays them
/// out, to a 128-byte boundary.
static int64_t wgradTileBytes(const Conv2dGw8Problem &p, const Conv2dGw8Config &c,
                              int64_t stages) {
  StagedInput staged = stagedInput(p, c);
  int64_t dyVectors = (staged.wgradBytes(c.warpsG) - staged.bytes(c.warpsG)) / 16;
  return ceilDiv(stages * 16 * (stagedStorageVectors(staged, c.warpsG, 2) + dyVectors), 128) *
         128;
}

/// One partial sum's 16 x 8 f32 fragments, one per warp of the block.
static int64_t wgradSumScratchBytes(const Conv2dGw8Config &c) {
  return c.warpsQ * c.warpsG * 16 * 8 * 4;
}

/// Three stages (two bands copying in while one computes) for
/// wgradOneDeepBlock's blocks, and for blocks of one warp along the
/// pixels, two a multiprocessor, that take 16 bands or more, where shared
/// memory still holds two blocks; else two stages: a third stage pays
/// where a block's bands are many and its copies latency bound, not where
/// it costs blocks a multiprocessor, scratch rounds or registers
/// (TUNING.md, "wgrad stages").
int64_t wgradStages(const Conv2dGw8Problem &p, const Conv2dGw8Config &c) {
  if (c.stages)
    return c.stages;
  if (wgradOneDeepBlock(p, c))
    return 3;
  bool deeper = c.warpsQ == 1 && !wgradQuarterBlocks(p) && wgradResidentBlocks(p, c) == 2 &&
                bandGrid(p, c).bandsPerChunk >= 16 &&
                blocksBySharedMemory(p, wgradTileBytes(p, c, 3)) >= 2;
  return deeper ? 3 : 2;
}

/// wgradSumsPerRound beside staged tiles of `tileBytes`.
static int64_t wgradSumsPerRound(const Conv2dGw8Problem &p, const Conv2dGw8Config &c,
                                 int64_t tileBytes) {
  if (c.warpsQ == 1)
    return 0;
  int64_t sums = wgradSums(p).size();
  int64_t spare =
      p.target.sharedBytesPerMultiprocessor / wgradResidentBlocks(p, c) - 1024 - tileBytes;
  return std::clamp<int64_t>(spare / wgradSumScratchBytes(c), 1, sums);
}

int64_t wgradSumsPerRound(const Conv2dGw8Problem &p, const Conv2dGw8Config &c) {
  return wgradSumsPerRound(p, c, wgradTileBytes(p, c, wgradStages(p, c)));
}

/// wgrad's shared memory: the staged tiles and the scratch its warps add
/// their partial sums through.
static int64_t wgradSharedBytes(const Conv2dGw8Problem &p, const Conv2dGw8Config &c) {
  int64_t tileBytes = wgradTileBytes(p, c, wgradStages(p, c));
  int64_t bytes = tileBytes + wgradSumsPerRound(p, c, tileBytes) * wgradSumScratchBytes(c);
  // The cluster's sums overlay the staged tiles where they fit in them,
  // else follow the warps' scratch.
  int64_t clusterSums = p.wgradClusterReduce ? wgradClusterSumBytes(p, c) : 0;
  return clusterSums <= tileBytes ? bytes : bytes + clusterSums;
}

int64_t wgradClusterSumBytes(const Conv2dGw8Problem &p, const Conv2dGw8Config &c) {
  return 8 * c.warpsG * p.r * pairedS(p) * 8 * 4;
}

/// The shared memory a block's tiles take: wgrad's, those of flattened
/// rows (two stages of the staged rows, whose band loop is pipelined, and
/// the output tile's pixels), or those of rows of fragments.
static int64_t blockSharedBytes(const Conv2dGw8Problem &p, const Conv2dGw8Config &c) {
  if (p.pass == ConvPass::Wgrad)
    return wgradSharedBytes(p, c);
  if (flatRows(p))
    return tilesSharedBytes(p, c, 2,
                            (stagedInput(p, c).pixels - 1) * 8 * outputPitch(c.warpsG) +
                                8 * c.warpsG);
  return rowsSharedBytes(p, c, outputRowsPerBarrier(p, c));
}

/// Row-paired stride-1 wgrad kernels of at most 13 partial sums (5x5: 52
/// accumulator registers) run best as blocks of 4 warps, three a
/// multiprocessor at up to 168 registers, which hold a band's fragments
/// where 128 spilled; not 7x7's 25 sums, which spill at 168, nor stride
/// 2 (TUNING.md, "wgrad blocks").
static bool wgradQuarterBlocks(const Conv2dGw8Problem &p) {
  return p.stride == 1 && wgradRowPairs(p) && wgradSums(p).size() <= 13;
}

/// 3x3 stride-1 wgrad on rows of fragments in blocks of one warp along the
/// pixels and 8 groups: one block a multiprocessor, in 3 stages, where
/// their group tiles are 3/4 busy or more and the grid of one a
/// multiprocessor fills 9/10 of them: a tile of few groups, or a grid
/// short of the multiprocessors, idles them (TUNING.md, "wgrad blocks").
static bool wgradOneDeepBlock(const Conv2dGw8Problem &p, const Conv2dGw8Config &c) {
  if (p.pass != ConvPass::Wgrad || p.stride != 1 || p.r != 3 || p.s != 3 || flatRows(p) ||
      c.warpsQ != 1 || c.warpsG != 8)
    return false;
  int64_t groupTiles = ceilDiv(p.groups(), c.warpsG);
  Conv2dGw8Config one = c;
  one.chunks = std::max<int64_t>(1, p.target.multiprocessors / groupTiles);
  int64_t blocks = bandGrid(p, one).chunks * groupTiles;
  return 4 * p.groups() >= 3 * c.warpsG * groupTiles && 10 * blocks >= 9 * p.target.multiprocessors;
}

/// wgrad blocks a multiprocessor holds: two of 256 threads at up to 128
/// registers, or three (wgradQuarterBlocks) of up to 128 threads, or one
/// where the partial sums alone take 72 registers or more (18 sums: 5x7,
/// 7x5, 6x6 and up), which spilled at 128, or of wgradOneDeepBlock
/// (TUNING.md, "wgrad blocks").
int64_t wgradResidentBlocks(const Conv2dGw8Problem &p, const Conv2dGw8Config &c) {
  if (wgradSums(p).size() >= 18 || wgradOneDeepBlock(p, c))
    return 1;
  return wgradQuarterBlocks(p) && c.threads() <= 128 ? 3 : 2;
}

/// Whether shared memory holds wgradResidentBlocks.
bool wgradTilesFit(const Conv2dGw8Problem &p, const Conv2dGw8Config &c) {
  return blocksBySharedMemory(p, wgradSharedBytes(p, c)) >= wgradResidentBlocks(p, c);
}

/// A bias block's threads add at least this many pixels each where there
/// are enough: more blocks would only add partials for the reduce to read.
constexpr int64_t kWgradBiasMinPixelsPerThread = 8;

WgradBiasTiling wgradBiasTiling(const Conv2dGw8Problem &p) {
  int64_t vectors = p.c / 8, pixels = p.n * p.outH() * p.outW();
  int64_t lanes = std::min(vectors, kReduceThreads);
  while (vectors % lanes)
    --lanes;
  int64_t slots = kReduceThreads / lanes;
  int64_t blocks = std::clamp<int64_t>(ceilDiv(pixels, slots * kWgradBiasMinPixelsPerThread), 1,
                                       2 * p.target.multiprocessors);
  int64_t pixelsPerBlock = ceilDiv(pixels, blocks);
  // No block without pixels.
  return {lanes, slots, pixelsPerBlock, ceilDiv(pixels, pixelsPerBlock)};
}

int64_t wgradBiasPartialsOffset(const Conv2dGw8Problem &p, const Conv2dGw8Config &c) {
  return conv2dGw8WgradPartials(p, c) * p.c * p.r * pairedS(p);
}

} // namespace gw8

std::string checkConv2dGw8Problem(const Conv2dGw8Problem &p) {
  if (p.n <= 0 || p.c <= 0 || p.h <= 0 || p.w <= 0)
    return "conv2d sizes must be positive";
  if (p.target.multiprocessors <= 0)
    return "the target GPU's multiprocessor count must be positive, got " +
           std::to_string(p.target.multiprocessors);
  if (p.target.l2Bytes <= 0)
    return "the target GPU's L2 bytes must be positive, got " + std::to_string(p.target.l2Bytes);
  if (p.target.sharedBytesPerBlock <= 0 ||
      p.target.sharedBytesPerMultiprocessor < p.target.sharedBytesPerBlock)
    return "the target GPU's shared memory must be positive, a multiprocessor's at least a "
           "block's, got " +
           std::to_string(p.target.sharedBytesPerBlock) + " and " +
           std::to_string(p.target.sharedBytesPerMultiprocessor);
  if (p.groupWidth != 1 && p.groupWidth != 2 && p.groupWidth != 4 && p.groupWidth != 8)
    return "conv2d-gw8 takes groups of 1, 2, 4 or 8 channels, got " + std::to_string(p.groupWidth);
  if (p.c % 8 != 0)
    return "C = " + std::to_string(p.c) + " is not a multiple of 8 (the kernels' 8-channel tiles)";
  if (p.r < 1 || p.r > 7 || p.s < 1 || p.s > 7)
    return "kernel sizes R and S must be 1 to 7, got " + std::to_string(p.r) + "x" +
           std::to_string(p.s);
  if (p.stride != 1 && p.stride != 2)
    return "conv2d-gw8 takes stride 1 or 2, got " + std::to_string(p.stride);
  auto overExtent = [&] {
    return "N x H x W x C = " + std::to_string(p.n) + " x " + std::to_string(p.h) + " x " +
           std::to_string(p.w) + " x " + std::to_string(p.c) +
           " (or the output's) is over the 2^40 elements a spio tensor spans";
  };
  if (!layout::withinExtent({p.n, p.h, p.w, p.c}))
    return overExtent();
  // Any padding: rows and columns past the image read zeros (with padding
  // of R or more, output rows that read only padding are the bias). The
  // bound keeps the output's size arithmetic within int64.
  if (p.padH < 0 || p.padW < 0 || p.padH > kMaxConvPadding || p.padW > kMaxConvPadding)
    return "padding must be 0 to 2^30, got " + std::to_string(p.padH) + ", " +
           std::to_string(p.padW);
  if (p.outH() <= 0 || p.outW() <= 0)
    return "the output is empty";
  if (!layout::withinExtent({p.n, p.outH(), p.outW(), p.c}))
    return overExtent();
  // wgrad's bias is db's: dy summed over its pixels.
  if (p.pass == ConvPass::Dgrad && p.bias)
    return "dgrad takes no bias";
  if (p.bias && p.wgradClusterReduce)
    return "wgrad's cluster reduce computes no bias gradient";
  if (p.pass != ConvPass::Wgrad && p.wgradF32)
    return "only wgrad writes f32 weights";
  if (p.wgradDiscard == WgradDiscard::Always &&
      (p.pass != ConvPass::Wgrad || p.wgradClusterReduce))
    return "only wgrad's reduce kernel discards the partial sums it read";
  if (p.wgradEarlyLaunch && (p.pass != ConvPass::Wgrad || p.wgradClusterReduce))
    return "only wgrad's partial sums launch a reduce kernel early";
  if (p.wgradParts != WgradParts::All && p.pass != ConvPass::Wgrad)
    return "only wgrad's band loop runs its parts alone";
  if (p.dtype == DType::F32)
    return "conv2d-gw8 takes f16 or bf16";
  return {};
}

std::string checkConv2dGw8(const Conv2dGw8Problem &p, const Conv2dGw8Config &c) {
  if (std::string problem = checkConv2dGw8Problem(p); !problem.empty())
    return problem;
  if (c.warpsG < 1 || c.warpsG > 9)
    return "warps along groups must be 1 to 9";
  // Each count bounded before any product of them (threads(), the staged
  // rows' bytes) could overflow.
  if (c.warpsQ < 1 || c.warpsQ > 32 || c.copyWarps < 0 || c.copyWarps > 32 || c.threads() > 1024 ||
      c.rowsP < 1 || c.rowsP > (int64_t(1) << 20) || c.chunks < 0 || c.chunks > (int64_t(1) << 30))
    return "bad warp, row or chunk counts";
  int64_t laneElements = c.reduceLaneElements;
  if (laneElements != 0 && laneElements != 1 && laneElements != 2 && laneElements != 4)
    return "wgrad's reduce adds 1, 2 or 4 elements a lane (0: choose), got " +
           std::to_string(laneElements);
  if (laneElements && (p.pass != ConvPass::Wgrad || p.wgradClusterReduce))
    return "only wgrad's reduce kernel adds elements a lane";
  if (laneElements > p.groupWidth)
    return "wgrad's reduce adds at most a group's " + std::to_string(p.groupWidth) +
           " elements a lane, got " + std::to_string(laneElements);
  if (p.wgradClusterReduce) {
    if (p.pass != ConvPass::Wgrad)
      return "only wgrad adds partial sums in a cluster";
    if (conv2dGw8WgradPartials(p, c) > kMaxClusterBlocks)
      return "wgrad adds its partial sums in a cluster of at most " +
             std::to_string(kMaxClusterBlocks) + " blocks, but the grid takes " +
             std::to_string(conv2dGw8WgradPartials(p, c)) +
             " along the reduction: take fewer chunks, or the reduce kernel";
  }
  if (c.copyWarps) {
    // Stride 1 keeps the whole band staged (only stride-2 fprop rings its
    // staged rows), the one tile the copy warps stream through.
    if (p.pass == ConvPass::Wgrad || flatRows(p) || p.stride != 1)
      return "copy warps are for fprop and dgrad on rows of fragments, stride 1";
    if (c.copyWarps > 4)
      return "at most 4 copy warps";
  }
  if (c.stages < 0 || c.stages > 4 || (c.stages && p.pass != ConvPass::Wgrad))
    return "stages (spio-pipeline's buffers) are wgrad's, 1 to 4";
  if (c.rowRing && p.wgradParts == WgradParts::CopiesWithoutRowHalo)
    return "a row ring copies only the rows it lacks; time its copies as the part 'copies'";
  if (c.rowRing && c.stages == 1)
    return "a row ring hands rows on to the next band's stage: 2 stages or more";
  if (c.rowRing &&
      (p.pass != ConvPass::Wgrad || p.stride != 1 || flatRows(p) || p.r < 2 || c.copyWarps))
    return "a row ring is for wgrad on rows of fragments, stride 1, kernels of 2 rows or more";
  // A block's tiles must fit the shared memory the target's block may use
  // (the compiler says so too, per chip; saying it here keeps such configs
  // out of the instances a caller may pick).
  int64_t shared = blockSharedBytes(p, c);
  if (shared > p.target.sharedBytesPerBlock)
    return "a block's tiles need about " + std::to_string(shared) +
           " bytes of shared memory, over the " + std::to_string(p.target.sharedBytesPerBlock) +
           " the target's block may use: take fewer rows or warps";
  // A block's rows are unrolled: rows past the output's add code and no
  // work (an upsampling dgrad takes its rows in pairs).
  int64_t mostRows = upsamplesDy(p) ? 2 * ceilDiv(p.kernelOutH(), 2) : p.kernelOutH();
  if (c.rowsP > mostRows)
    return "a block takes at most the output's " + std::to_string(mostRows) + " rows, got " +
           std::to_string(c.rowsP);
  LaunchShape launch = conv2dGw8LaunchShape(p, c);
  if (launch.gridX > kMaxGridX)
    return "the grid would take " + std::to_string(launch.gridX) +
           " blocks along x (column and group tiles), over CUDA's " + std::to_string(kMaxGridX);
  int64_t gridY = launch.gridY;
  if (gridY > kMaxGridY)
    return "the grid would take " + std::to_string(gridY) + " blocks along y, over CUDA's " +
           std::to_string(kMaxGridY) +
           ": take at most that many chunks (blocks that loop over several bands)";
  return {};
}

namespace {

/// How much of the bandwidth a block with `warpsG` groups (16 bytes each
/// per pixel) gets: under 64 contiguous bytes per pixel the copies touch
/// more lines, and L1/L2 throughput, not DRAM, limits (TUNING.md, "Block
/// shapes"). 3 and 5 groups are taken only as whole pixels of 48 and 80
/// bytes, which stream contiguously.
double groupCoalescing(int64_t warpsG) {
  switch (warpsG) {
  case 8:
  case 5:
    return 1.0;
  case 4:
  case 3:
    return 0.95;
  case 2:
    return 0.85;
  default:
    return 0.45;
  }
}

/// The share of the group tiles of `warpsG` groups that are groups.
double groupShare(const Conv2dGw8Problem &p, int64_t warpsG) {
  return double(p.groups()) / double(ceilDiv(p.groups(), warpsG) * warpsG);
}

/// fprop and dgrad kernels of 5 or more columns: bound by their mma.
bool heavyKernel(const Conv2dGw8Problem &p) { return p.pass != ConvPass::Wgrad && p.s >= 5; }

/// The most warps a block takes: 8 for compute-heavy kernels (more blocks
/// a multiprocessor) and wgrad (a set of partial sums per warp), else 32.
int64_t blockWarpLimit(const Conv2dGw8Problem &p) {
  return heavyKernel(p) || p.pass == ConvPass::Wgrad ? 8 : 32;
}

/// fprop and dgrad rows of fragments of fewer columns, stride 1 (or
/// stride-2 dgrad, which skips the upsampled dy's zero rows): bound by the
/// bytes they move.
bool lightKernel(const Conv2dGw8Problem &p) {
  return !heavyKernel(p) && p.pass != ConvPass::Wgrad && !flatRows(p) &&
         (p.stride == 1 || upsamplesDy(p));
}

/// The most rows in [low, high] that tile `rows` with the fewest rounded up.
int64_t chooseRows(int64_t rows, int64_t low, int64_t high) {
  int64_t best = high;
  for (int64_t r = high; r >= low; --r)
    if (ceilDiv(rows, r) * r < ceilDiv(rows, best) * best)
      best = r;
  return best;
}

} // namespace

static Conv2dGw8Config chooseBlockRows(const Conv2dGw8Problem &p, Conv2dGw8Config c);

/// fprop and dgrad on rows of fragments: the blocks of `c` the
/// multiprocessors hold at once, as a band ring (whose two staged tiles may
/// fit fewer a multiprocessor) or with one band a block.
static int64_t blocksAtOnce(const Conv2dGw8Problem &p, const Conv2dGw8Config &c, bool ring) {
  Conv2dGw8Config resident = c;
  // Any chunks that give a block two or more bands make it a ring.
  resident.chunks = ring ? std::max<int64_t>(1, bandGrid(p, c).bands / 2) : 0;
  return rowsResidentBlocks(p, resident, outputRowsPerBarrier(p, resident)) *
         p.target.multiprocessors;
}

/// The chunks that make `c` a band ring in as many blocks as run at once
/// (blocksAtOnce over the tiles along x): of the ring itself, so that no
/// block's range of bands waits for a second wave, or (`asOneBand`) as
/// many as `c` with one band a block. 0 where each block would take one
/// band anyway.
static int64_t bandRingChunks(const Conv2dGw8Problem &p, const Conv2dGw8Config &c,
                              bool asOneBand = false) {
  BandGrid grid = bandGrid(p, c);
  int64_t chunks =
      std::max<int64_t>(1, blocksAtOnce(p, c, !asOneBand) / (grid.qTiles * grid.groupTiles));
  return chunks < grid.bands ? chunks : 0;
}

Conv2dGw8Config conv2dGw8RuleConfig(const Conv2dGw8Problem &p) {
  Conv2dGw8Config c;
  // The rules below divide by the output's sizes and assume a kernel of 1
  // to 7 taps.
  if (!checkConv2dGw8Problem(p).empty())
    return c;
  int64_t Q = p.kernelOutW();
  // Warps along groups and along Q by the work a block does that is not
  // rounded up (groups to warpsG, columns to 16 * warpsQ), weighed by how
  // its pixels coalesce and whether it has 8 warps to hide latency; ties go
  // to blocks nearest 16 warps. Kernels of 5 or more columns are compute
  // heavy: they take blocks of at most 8 warps (more blocks a
  // multiprocessor) and at least 32 columns (16 re-read 4 halo columns
  // each). wgrad keeps a set of partial sums per warp along Q: it takes at
  // most 4 of them and 8 warps in all (TUNING.md, "Block shapes").
  bool wgrad = p.pass == ConvPass::Wgrad, flat = flatRows(p);
  bool heavy = heavyKernel(p);
  int64_t maxWarps = blockWarpLimit(p);
  auto misfit = [](int64_t warps) { return warps < 8 ? 100 - warps : std::abs(warps - 16); };
  // 3x3 kernels (stride 1, and stride-2 dgrad, which skips the upsampled
  // dy's zero rows) move more bytes than they compute: columns rounded up
  // to the block cost little up to a quarter of them, and blocks of 12 or
  // more warps, with more copies in flight, ran faster than 8 or 9, which
  // ties then prefer, then the fewest columns rounded up.
  bool light = lightKernel(p);
  // Blocks of images of up to 8 columns, and of kernels of 5 or more,
  // score the columns of the images they lay side by side (packedImages).
  // Light kernels on wider images were tuned scoring one image.
  bool packedScore = !wgrad && !flat && (2 * Q <= 16 || heavy);
  auto columnShare = [&](int64_t warpsQ) {
    return flat ? 1.0 : packedShare(p, packedScore ? packedImages(p, warpsQ) : 1, warpsQ);
  };
  auto preferred = [&](int64_t warpsQ, int64_t warpsG) {
    int64_t warps = warpsQ * warpsG;
    bool midsize = light && warps >= 12;
    return std::make_tuple(midsize, light ? columnShare(warpsQ) : 0.0, -misfit(warps));
  };
  double best = -1;
  for (int64_t warpsG : {8, 5, 4, 3, 2, 1}) {
    // 3 or 5 groups only as whole pixels: a block's part of a wider pixel
    // would start and end inside 32-byte sectors.
    if (oddGroupTile(warpsG) && warpsG != p.groups())
      continue;
    double groupsUsed = groupShare(p, warpsG);
    for (int64_t warpsQ = 1; warpsQ * warpsG <= maxWarps && (!wgrad || warpsQ <= 4); ++warpsQ) {
      if (heavy && warpsQ == 1 && Q > 16 && !flat)
        continue;
      // Flattened rows spread the block's pixels over its warps.
      double columnsUsed = columnShare(warpsQ);
      if (light)
        columnsUsed = std::min(1.0, columnsUsed / 0.75);
      int64_t warps = warpsQ * warpsG;
      double latency = warps < 4 ? 0.6 : warps < 8 ? 0.9 : 1.0;
      double score = groupsUsed * groupCoalescing(warpsG) * columnsUsed * latency;
      if (score > best + 1e-9 || (score > best - 1e-9 && preferred(warpsQ, warpsG) >
                                                            preferred(c.warpsQ, c.warpsG))) {
        best = std::max(best, score);
        c.warpsQ = warpsQ;
        c.warpsG = warpsG;
      }
    }
  }
  // Compute-heavy kernels on images of up to 16 columns: two images side
  // by side in 32 columns, 4 groups a block, rather than one image's 16
  // columns and 8 groups (the same share of the columns used), which
  // shares each block's weights over two images.
  if (heavy && !flat && Q <= 16 && p.groups() >= 4 && packedImages(p, 2) >= 2 &&
      packedColumns(p, 2) <= 32) {
    c.warpsQ = 2;
    c.warpsG = 4;
  }
  // Compute-heavy kernels whose images side by side span more than one
  // column tile take, at no smaller share of the columns and groups used,
  // one tile that holds the whole row of images where its block keeps 2
  // or more groups in 8 warps (two tiles would split an image between
  // them).
  if (heavy && !flat) {
    int64_t images = packedImages(p, c.warpsQ), span = packedColumns(p, images);
    int64_t warpsQ = ceilDiv(span, 16), warpsG = maxWarps / warpsQ;
    if (images > 1 && span > 16 * c.warpsQ && (warpsG == 2 || warpsG == 4) &&
        packedShare(p, packedImages(p, warpsQ), warpsQ) >=
            packedShare(p, images, c.warpsQ) - 1e-9 &&
        groupShare(p, warpsG) >= groupShare(p, c.warpsG) - 1e-9) {
      c.warpsQ = warpsQ;
      c.warpsG = warpsG;
    }
  }
  // C48 (6 groups): whole pixels, 96 bytes (3 sectors), so that a block's
  // rows are contiguous runs. Rows of 17 to 80 columns (stride-1 fprop
  // and dgrad; stride-2 dgrad up to 64; stride-2 fprop, which stages twice
  // the columns, up to 32) take one column tile that spans the row; wider
  // stride-1 rows tiles of 5 warps (80 columns) where those round at most
  // a tenth of the columns up (TUNING.md, "Block shapes").
  bool stride2Fprop = p.pass == ConvPass::Fprop && p.stride == 2;
  if (p.groups() == 6 && Q > 16 && (light || stride2Fprop)) {
    int64_t warpsQ = std::min<int64_t>(ceilDiv(Q, 16), 5);
    int64_t columns = ceilDiv(Q, 16 * warpsQ) * 16 * warpsQ;
    bool spansTheRow = Q <= (stride2Fprop ? 32 : p.stride == 2 ? 64 : 80);
    bool wideRows = p.stride == 1 && Q > 80 && 10 * Q >= 9 * columns;
    if (spansTheRow || wideRows) {
      c.warpsQ = warpsQ;
      c.warpsG = 6;
    }
  }
  c = chooseBlockRows(p, c);
  int64_t P = p.kernelOutH();
  // Stride-1 5x5 wgrad on rows of fragments whose column tiles take two
  // bands: a row ring, the second band copying only its rowsP new rows of
  // x (14x14 to 20x20 in bands of 7 to 10 rows: 4 of 11 or 14 rows read
  // from L2 a band are not). Not where a column tile takes one band (no
  // halo to hand on) or more than two, nor 3x3 (no rule found), nor for
  // the part that copies as many x rows as a band has dy rows, which has
  // none to hand on (TUNING.md, "Rings").
  if (wgrad && !flat && p.r == 5 && p.s == 5 && p.stride == 1 && ceilDiv(P, c.rowsP) == 2 &&
      p.wgradParts != WgradParts::CopiesWithoutRowHalo)
    c.rowRing = true;
  // Stride-1 kernels of 5 columns whose blocks span the image's height, on
  // images of up to 20 rows, in blocks of 4 or more groups, take a band
  // ring where its blocks fill 85% or more of what the multiprocessors
  // hold of them: a block's copies of the next image then overlap its mma
  // on this one, which one band a block leaves to other blocks (2 or 3 a
  // multiprocessor), and the weights load once; rings of blocks of 2
  // groups, or that fill fewer, leave multiprocessors idle (TUNING.md,
  // "Rings").
  if (!wgrad && !flat && !c.chunks && p.s == 5 && p.stride == 1 && c.rowsP >= P && P <= 20 &&
      c.warpsG >= 4) {
    Conv2dGw8Config ring = c;
    ring.chunks = bandRingChunks(p, c);
    BandGrid grid = bandGrid(p, ring);
    if (ring.chunks &&
        100 * grid.chunks * grid.qTiles * grid.groupTiles >= 85 * blocksAtOnce(p, c, true)) {
      // Two tiles of at most 24 staged rows (40 columns of 4 groups or 24
      // of 8) fit a block's shared memory with room to spare.
      assert(checkConv2dGw8(p, ring).empty() && "the band ring fits a block");
      c = ring;
    }
  }
  // The rules above were tuned on Hopper's 227 KB a block: on a target
  // whose blocks take less, shorter blocks and (wgrad) two stages.
  while (blockSharedBytes(p, c) > p.target.sharedBytesPerBlock) {
    if (wgrad && wgradStages(p, c) > 2)
      c.stages = 2;
    else if (c.rowsP > 1)
      --c.rowsP;
    else
      break;
  }
  return c;
}

/// The rest of a configuration for a block of `c`'s warps: its rows (and,
/// for wgrad and flattened rows, the warps those adjust), then its chunks.
static Conv2dGw8Config chooseBlockRows(const Conv2dGw8Problem &p, Conv2dGw8Config c) {
  int64_t P = p.kernelOutH(), Q = p.kernelOutW();
  bool wgrad = p.pass == ConvPass::Wgrad, flat = flatRows(p);
  bool heavy = heavyKernel(p), light = lightKernel(p);
  if (wgrad && flat) {
    // Flattened rows: the tallest band whose x and dy tiles fit 48 KB (two
    // stages and two blocks a multiprocessor, as 8-row bands of 16
    // columns) in at most 32 mma steps a warp (twice a row band's); then
    // rows that divide the height.
    auto fits = [&](int64_t rowsP) {
      Conv2dGw8Config t = c;
      t.rowsP = rowsP;
      StagedInput staged = stagedInput(p, t);
      return staged.wgradBytes(c.warpsG) <= 48 * 1024 && staged.pixels <= 32 * 8 * c.warpsQ;
    };
    // A band's rows are pixels of its own: none over 32 * 8 * warpsQ fits
    // (the bound keeps the search short on tall images).
    int64_t most = std::min<int64_t>(P, 32 * 8 * c.warpsQ);
    while (most > 1 && !fits(most))
      --most;
    c.rowsP = chooseRows(P, (most + 1) / 2, most);
    return c;
  }
  if (wgrad) {
    // wgradQuarterBlocks kernels take blocks of 4 warps of one column tile
    // where the score chose 8 of 8 or 4 groups (three a multiprocessor at
    // 168 registers, not two at 128, which spill; TUNING.md, "wgrad
    // warps").
    if (wgradQuarterBlocks(p) && c.threads() == 256 && c.warpsG >= 4) {
      c.warpsQ = 1;
      c.warpsG = 4;
    }
    // Where it chose 4 x 2 (2 groups), 1 x 4 where blocks of 4 groups use
    // at least 80% of theirs, else 2 x 2, whose two warps along Q add their
    // sums in shared memory (TUNING.md, "wgrad warps").
    if (wgradQuarterBlocks(p) && c.threads() == 256 && c.warpsG == 2 && c.warpsQ == 4) {
      bool fourGroups = groupShare(p, 4) >= 0.8;
      c.warpsQ = fourGroups ? 1 : 2;
      c.warpsG = fourGroups ? 4 : 2;
    }
    // Stride-1 3x3 kernels of more than 8 groups, not a multiple of 8, on
    // rows of more than 16 columns, where the score chose 2 x 4 for the
    // groups that 8 a block round up: 1 x 8, 128 bytes a pixel (one L2
    // request of 4 sectors, not two of 2); the groups past C copy no
    // bytes (TUNING.md, "wgrad warps").
    if (p.r == 3 && p.s == 3 && p.stride == 1 && c.warpsQ == 2 && c.warpsG == 4 &&
        p.groups() > 8 && p.groups() % 8 != 0 && p.kernelOutW() > 16) {
      c.warpsQ = 1;
      c.warpsG = 8;
    }
    // Stride-1 kernels of up to 3x3 over 7 or 9 groups: one warp along Q
    // over all of them (9 warps, one past wgrad's 8), whole pixels of 112
    // or 144 bytes, so that a block's rows are contiguous runs (H200: 3x3
    // 1.07-1.42x the rules' tiles of 2, 4 or 8 groups; 5x5 and stride 2,
    // 0.58-0.80x).
    if (wholePixelTile(p) && p.stride == 1 && p.r <= 3 && p.s <= 3) {
      c.warpsQ = 1;
      c.warpsG = p.groups();
    }
    // Row-paired kernels whose tiles do not fit wgradResidentBlocks: the
    // tallest band of at least 6 rows that divides the height and fits.
    // Shorter bands round rows up (TUNING.md, "wgrad bands").
    c.rowsP = wgradBandRows(p, fewWarpBlock(c));
    // wgradQuarterBlocks kernels in 4-warp blocks of one column tile whose
    // images lie side by side, in bands of 7 or 8 rows, take 2 x 2 warps
    // where a 32-column tile holds those images as fully: half the groups
    // a pixel, half the halo columns a group, and their two warps along Q
    // add their sums in shared memory (wgradSumsPerRound). Not one image a
    // tile: its pixels' 32 bytes, a sector each, take twice the L2
    // requests of 1 x 4's 64 (TUNING.md, "wgrad warps").
    int64_t images = packedImages(p, 1, true);
    if (wgradQuarterBlocks(p) && fewWarpBlock(c) && c.warpsG == 4 && images > 1 &&
        (c.rowsP == 7 || c.rowsP == 8) && packedImages(p, 2) == images &&
        packedShare(p, images, 2) >= packedShare(p, images, 1) - 1e-9) {
      c.warpsQ = 2;
      c.warpsG = 2;
    }
    // Stride-2 kernels of up to 3 rows without row pairs: the tallest band
    // of up to 4 rows whose tiles fit wgradResidentBlocks (taller kernels
    // would re-read more of x for each shorter band: not measured). 3x3's
    // 4-row bands in 8-warp blocks of one column tile stage 9 rows of 48
    // input columns, which fit once, so the grid, sized for two, ran as
    // two waves of 8 warps a multiprocessor (TUNING.md, "wgrad bands").
    if (p.stride == 2 && p.r <= 3 && !wgradRowPairs(p)) {
      while (c.rowsP > 1 && !wgradTilesFit(p, c))
        --c.rowsP;
      return c;
    }
    // Stride-2 row-paired kernels whose 4-row bands fit once: 2 rows (5x5:
    // 7 staged rows of x, which fit twice; TUNING.md, "wgrad bands").
    if (p.stride == 2 && wgradRowPairs(p) && !wgradTilesFit(p, c)) {
      c.rowsP = std::min<int64_t>(c.rowsP, 2);
      return c;
    }
    if (!wgradRowPairs(p) || wgradTilesFit(p, c))
      return c;
    for (Conv2dGw8Config shorter = c; --shorter.rowsP >= 6;)
      if (P % shorter.rowsP == 0 && wgradTilesFit(p, shorter))
        return shorter;
    return c;
  }
  if (flat) {
    // Flattened rows: 8 warps share the block's pixels, and a block takes
    // as many rows as keep each warp at about 14 fragments (more cost
    // registers; TUNING.md, "Block rows").
    c.warpsQ = std::max<int64_t>(1, 8 / c.warpsG);
    int64_t maxRows = std::max<int64_t>(1, 14 * 16 * c.warpsQ / (Q + p.s - 1));
    c.rowsP = P <= maxRows ? P : chooseRows(P, 1, maxRows);
    return c;
  }
  // Taller blocks re-read fewer halo rows; rows that divide the height
  // waste none. Kernels of 5 or more columns re-read 4 or more halo rows
  // and take up to 28. Light kernels on images of 64 rows or more take up
  // to 24 where two blocks still fit a multiprocessor (TUNING.md, "Block
  // rows").
  auto tallestFitting = [&](int64_t tallest) {
    c.rowsP = P <= tallest ? P : chooseRows(P, tallest / 2, tallest);
    return blocksBySharedMemory(p, rowsSharedBytes(p, c, 1)) >= 2;
  };
  if (!(light && P >= 64 && tallestFitting(24)))
    tallestFitting(heavy ? 28 : 16);
  // A staged tile over the budget leaves one block a multiprocessor (or
  // none): shorter blocks. One output row always fits: at most 7 staged
  // rows (R = 7) of 72 stride-2 column pairs of 8 groups (4 x 8 warps),
  // 126 KB.
  // Stride-2 fprop takes the tallest block that fits the block limit, not
  // the budget: shorter blocks re-read more halo rows, and the taller ones
  // ring their staged rows (stagedInput) or fit once anyway; so do C48's
  // 6-group tiles of 5 warps (TUNING.md, "Block rows").
  constexpr int64_t kStagedBudget = 144 * 1024;
  bool blockLimit = (p.pass == ConvPass::Fprop && p.stride == 2) || c.warpsG == 6;
  auto fits = [&] {
    return blockSharedBytes(p, c) <= p.target.sharedBytesPerBlock &&
           (blockLimit || stagedInput(p, c).bytes(c.warpsG) <= kStagedBudget);
  };
  int64_t fitting = c.rowsP;
  while (c.rowsP > 1 && !fits())
    --c.rowsP;
  if (c.rowsP < fitting)
    c.rowsP = chooseRows(P, (c.rowsP + 1) / 2, c.rowsP);
  assert(fits() && "one staged output row fits the shared-memory budget");
  // Stride-2 dgrad skips the upsampled dy's zero rows only in blocks of an
  // even number of rows (skipsZeroRows): an odd count becomes the even
  // neighbour that rounds fewer rows up (the taller on a tie) and fits.
  if (upsamplesDy(p) && c.rowsP % 2 == 1) {
    int64_t lower = c.rowsP - 1;
    c.rowsP += 1;
    if (lower >= 2 && (!fits() || ceilDiv(P, lower) * lower < ceilDiv(P, c.rowsP) * c.rowsP))
      c.rowsP = lower;
  }
  // More (image, row tile) bands than a grid holds along y: blocks loop
  // over several as a band ring, in shorter blocks where the ring's two
  // staged tiles would not fit.
  if (bandGrid(p, c).bands > kMaxGridY) {
    c.chunks = kMaxGridY;
    while (c.rowsP > 1 && blockSharedBytes(p, c) > p.target.sharedBytesPerBlock)
      --c.rowsP;
  }
  return c;
}

/// wgrad's candidates: the chosen blocks (warps, rows and chunks, hence the
/// partial sums and their order) with what leaves each dw element's sum as
/// it was: the other of 2 or 3 stages (where a block has as many bands),
/// the row ring toggled where a band spans the output row (one column
/// tile: bands go down the rows either way), and the reduce's other lane
/// widths. Each names the chosen chunks, stages and lanes, so that only
/// what it varies differs.
static std::vector<Conv2dGw8Config> wgradCandidates(const Conv2dGw8Problem &p,
                                                    const Conv2dGw8Config &chosen, int64_t most) {
  std::vector<Conv2dGw8Config> candidates = {chosen};
  BandGrid grid = bandGrid(p, chosen);
  Conv2dGw8Config pinned = chosen;
  pinned.chunks = grid.chunks;
  pinned.stages = wgradStages(p, chosen);
  if (!p.wgradClusterReduce)
    pinned.reduceLaneElements = wgradReduceVector(p, chosen);
  auto add = [&](const Conv2dGw8Config &c) {
    BandGrid g = bandGrid(p, c);
    if (int64_t(candidates.size()) < most && checkConv2dGw8(p, c).empty() &&
        g.chunks == grid.chunks && g.bandsPerChunk == grid.bandsPerChunk)
      candidates.push_back(c);
  };
  // Stages past a block's bands would buffer nothing.
  for (int64_t stages : {2, 3}) {
    Conv2dGw8Config c = pinned;
    c.stages = stages;
    if (stages != pinned.stages && stages <= grid.bandsPerChunk)
      add(c);
  }
  if (grid.qTiles == 1) {
    Conv2dGw8Config c = pinned;
    c.rowRing = !chosen.rowRing;
    add(c);
  }
  for (int64_t lanes : {1, 2, 4}) {
    Conv2dGw8Config c = pinned;
    c.reduceLaneElements = lanes;
    if (!p.wgradClusterReduce && lanes != pinned.reduceLaneElements)
      add(c);
  }
  return candidates;
}

std::vector<Conv2dGw8Config> conv2dGw8RuleCandidates(const Conv2dGw8Problem &p, int64_t most) {
  Conv2dGw8Config chosen = conv2dGw8RuleConfig(p);
  if (!checkConv2dGw8(p, chosen).empty())
    return {chosen};
  if (p.pass == ConvPass::Wgrad)
    return wgradCandidates(p, chosen, most);
  std::vector<Conv2dGw8Config> candidates = {chosen};
  if (flatRows(p))
    return candidates;
  // Where the chooser takes a band ring (below), every candidate of one
  // band a block says so (as many chunks as bands), so that spio-jit's
  // options, which start from the chosen configuration, name it.
  bool chosenRing = chosen.chunks && chosen.chunks == bandRingChunks(p, chosen);
  // Configurations that differ only in how chunks say one band a block
  // are the same kernel.
  auto same = [&](const Conv2dGw8Config &a, const Conv2dGw8Config &b) {
    return std::make_tuple(a.warpsQ, a.warpsG, a.rowsP, bandGrid(p, a).bandsPerChunk,
                           a.copyWarps) ==
           std::make_tuple(b.warpsQ, b.warpsG, b.rowsP, bandGrid(p, b).bandsPerChunk,
                           b.copyWarps);
  };
  auto add = [&](Conv2dGw8Config c) {
    if (chosenRing && !c.chunks)
      c.chunks = bandGrid(p, c).bands;
    if (int64_t(candidates.size()) < most &&
        std::none_of(candidates.begin(), candidates.end(),
                     [&](const Conv2dGw8Config &known) { return same(known, c); }) &&
        checkConv2dGw8(p, c).empty())
      candidates.push_back(c);
  };
  // Other warps, in blocks of the rows the chooser gives them; none whose
  // last warp along Q would be past the row's columns.
  auto addWarps = [&](int64_t warpsQ, int64_t warpsG) {
    if (warpsQ < 1 || warpsQ * warpsG > blockWarpLimit(p) ||
        16 * (warpsQ - 1) >= packedColumns(p, packedImages(p, warpsQ)))
      return;
    Conv2dGw8Config c;
    c.warpsQ = warpsQ;
    c.warpsG = warpsG;
    add(chooseBlockRows(p, c));
  };
  // The chosen configuration as a band ring (blocks that loop over their
  // bands, the next band's rows copied in while one computes) in as many
  // blocks as run at once: of the ring, and of one band a block (more where
  // the ring's two staged tiles fit fewer a multiprocessor); where the
  // chooser takes the first, one band a block instead. No rule says which
  // wins, so the autotuner times both (TUNING.md, "Candidates").
  Conv2dGw8Config ring = chosen;
  ring.chunks = chosenRing ? 0 : bandRingChunks(p, chosen);
  if (chosenRing || ring.chunks)
    add(ring);
  ring.chunks = bandRingChunks(p, chosen, true);
  if (ring.chunks)
    add(ring);
  // Stride 1: the chosen warps and rows with two copy warps, each block
  // streaming its bands through one staged tile, in as many blocks as run
  // at once and, for kernels of 5 or more columns, in four times as many;
  // none where each block would get one band (nothing to stream); the
  // best block count differs from layer to layer (TUNING.md,
  // "Candidates").
  if (p.stride == 1) {
    Conv2dGw8Config streamed = chosen;
    streamed.chunks = 0;
    streamed.copyWarps = 2;
    BandGrid grid = bandGrid(p, streamed);
    int64_t atOnce = std::max<int64_t>(
        1, blocksAtOnce(p, streamed, false) / (grid.qTiles * grid.groupTiles));
    std::vector<int64_t> blockCounts = {atOnce};
    if (heavyKernel(p))
      blockCounts.push_back(4 * atOnce);
    for (int64_t chunks : blockCounts) {
      streamed.chunks = chunks;
      if (chunks < grid.bands)
        add(streamed);
    }
  }
  int64_t P = p.kernelOutH(), Q = p.kernelOutW(), rows = chosen.rowsP;
  // The chosen warps in blocks of about half and twice the rows.
  Conv2dGw8Config shorter = chosen, taller = chosen;
  if (chosenRing)
    shorter.chunks = taller.chunks = 0;
  shorter.rowsP = chooseRows(P, std::max<int64_t>(1, rows / 3), std::max<int64_t>(1, rows / 2));
  taller.rowsP = chooseRows(P, std::min(P, rows + 1), std::min(P, 2 * rows));
  add(shorter);
  add(taller);
  // One column tile spanning the row, in the chosen group tiles and in 4.
  int64_t spanning = ceilDiv(Q, 16);
  if (spanning != chosen.warpsQ) {
    addWarps(spanning, chosen.warpsG);
    if (groupShare(p, 4) >= groupShare(p, chosen.warpsG) - 1e-9)
      addWarps(spanning, 4);
  }
  // A warp more or fewer along Q.
  addWarps(chosen.warpsQ + 1, chosen.warpsG);
  addWarps(chosen.warpsQ - 1, chosen.warpsG);
  // The same warps over other group tiles that leave no more groups idle.
  for (int64_t warpsG : {8, 4})
    if (warpsG != chosen.warpsG && groupShare(p, warpsG) >= groupShare(p, chosen.warpsG) - 1e-9 &&
        chosen.warpsQ * chosen.warpsG % warpsG == 0)
      addWarps(chosen.warpsQ * chosen.warpsG / warpsG, warpsG);
  return candidates;
}

namespace {
#include "Conv2dGw8Model.inc"
} // namespace

const TreeEnsemble &conv2dGw8Model() {
  static const TreeEnsemble model = {kModelNodes,
                                     kModelRoots,
                                     std::size(kModelRoots),
                                     kModelFeatureNames,
                                     std::size(kModelFeatureNames),
                                     kModelBase};
  return model;
}

bool conv2dGw8ModelKnowsTarget(const Conv2dGw8Problem &p) {
  return std::any_of(std::begin(kModelTargets), std::end(kModelTargets), [&](const ModelTarget &t) {
    return t.multiprocessors == p.target.multiprocessors &&
           t.sharedBytesPerBlock == p.target.sharedBytesPerBlock &&
           t.sharedBytesPerMultiprocessor == p.target.sharedBytesPerMultiprocessor;
  });
}

/// fprop and dgrad of an odd number of groups, over a block's 8: as many
/// warps as the rules' first or fewer over tiles of 4 and 8 groups, after
/// the rules' candidates. Every other pixel starts 16 bytes into a 32-byte
/// sector, where a tile of 2 groups touches 3 sectors for 2 it fills (N64
/// C72 56x56 3x3 on an H200: tiles of 4 ran 1.27x as fast as the rules'
/// 2); the rules do not take them (so taken, 22 of 59 other odd-group
/// layers of the model's sweep ran slower, 13 faster), the model ranks
/// them with the others. They write the same bits as the others.
static void addOddGroupTiles(const Conv2dGw8Problem &p, std::vector<Conv2dGw8Config> &candidates,
                             int64_t most) {
  if (p.pass == ConvPass::Wgrad || flatRows(p) || p.groups() <= 8 || p.groups() % 2 == 0 ||
      candidates.empty() || !checkConv2dGw8(p, candidates.front()).empty())
    return;
  Conv2dGw8Config chosen = candidates.front();
  for (int64_t warpsG : {4, 8}) {
    Conv2dGw8Config c;
    c.warpsG = warpsG;
    c.warpsQ = std::max<int64_t>(1, chosen.warpsQ * chosen.warpsG / warpsG);
    if (int64_t(candidates.size()) >= most || c.warpsQ * warpsG > blockWarpLimit(p))
      return;
    c = chooseBlockRows(p, c);
    bool known = std::any_of(candidates.begin(), candidates.end(), [&](const Conv2dGw8Config &k) {
      return k.warpsQ == c.warpsQ && k.warpsG == c.warpsG && k.rowsP == c.rowsP;
    });
    if (!known && checkConv2dGw8(p, c).empty())
      candidates.push_back(c);
  }
}

/// fprop and dgrad of 7 or 9 groups: tiles of all of them (whole pixels)
/// in one or two warps along Q, after the rules' candidates (H200, 3x3 and
/// 5x5: 1.08-1.36x the rules' tiles of 2, 4 or 8 groups on 7 of 9 layers;
/// on 32x32 and 64x64 in blocks of one warp along Q, 0.81-0.85x). The
/// rules do not take them; the model ranks them with the others, whose
/// bits they write.
static void addWholePixelTiles(const Conv2dGw8Problem &p, std::vector<Conv2dGw8Config> &candidates,
                               int64_t most) {
  if (p.pass == ConvPass::Wgrad || flatRows(p) || !wholePixelTile(p) || candidates.empty() ||
      !checkConv2dGw8(p, candidates.front()).empty())
    return;
  for (int64_t warpsQ : {1, 2}) {
    Conv2dGw8Config c;
    c.warpsQ = warpsQ;
    c.warpsG = p.groups();
    c = chooseBlockRows(p, c);
    if (int64_t(candidates.size()) < most && checkConv2dGw8(p, c).empty())
      candidates.push_back(c);
  }
}

/// conv2dGw8RuleCandidates, the whole-pixel and odd-group tiles, in the
/// model's order (ties in the rules'); without a model of the target, the
/// rules' order.
std::vector<Conv2dGw8Config> conv2dGw8Candidates(const Conv2dGw8Problem &p, int64_t most) {
  // The tiles below are sized from the output and the stride: a problem the
  // check refuses has the rules' default alone.
  if (!checkConv2dGw8Problem(p).empty())
    return {conv2dGw8RuleConfig(p)};
  std::vector<Conv2dGw8Config> candidates =
      conv2dGw8RuleCandidates(p, std::min(most, kConv2dGw8RuleCandidates));
  addWholePixelTiles(p, candidates, most);
  addOddGroupTiles(p, candidates, most);
  if (candidates.size() < 2 || !conv2dGw8ModelKnowsTarget(p))
    return candidates;
  std::vector<std::pair<double, size_t>> ranked;
  for (size_t i = 0; i < candidates.size(); ++i)
    ranked.push_back({predict(conv2dGw8Model(), conv2dGw8Features(p, candidates[i])), i});
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const auto &a, const auto &b) { return a.first < b.first; });
  std::vector<Conv2dGw8Config> ordered;
  for (const auto &[prediction, index] : ranked)
    ordered.push_back(candidates[index]);
  return ordered;
}

Conv2dGw8Config chooseConv2dGw8Config(const Conv2dGw8Problem &p) {
  return conv2dGw8Candidates(p, kConv2dGw8Candidates).front();
}

LaunchShape conv2dGw8LaunchShape(const Conv2dGw8Problem &p, const Conv2dGw8Config &c) {
  BandGrid g = bandGrid(p, c);
  if (p.pass == ConvPass::Wgrad || flatRows(p))
    return {g.groupTiles, g.chunks, c.threads()};
  return {g.qTiles * g.groupTiles, g.chunks, c.threads()};
}

static const char *const kFeatureNames[] = {"pass",
                                            "log2_n",
                                            "log2_c",
                                            "log2_in_h",
                                            "log2_in_w",
                                            "log2_out_h",
                                            "log2_out_w",
                                            "r",
                                            "s",
                                            "stride",
                                            "group_width",
                                            "log2_bytes",
                                            "log2_macs",
                                            "flat_rows",
                                            "warps_q",
                                            "warps_g",
                                            "rows_p",
                                            "copy_warps",
                                            "log2_chunks",
                                            "row_ring",
                                            "stages",
                                            "reduce_lanes",
                                            "threads",
                                            "q_tiles",
                                            "group_tiles",
                                            "log2_bands",
                                            "bands_a_chunk",
                                            "images",
                                            "log2_blocks",
                                            "resident_blocks",
                                            "waves",
                                            "last_wave_fill",
                                            "shared_bytes",
                                            "column_use",
                                            "group_share",
                                            "row_use",
                                            "staged_rows",
                                            "log2_bytes_a_block",
                                            "multiprocessors",
                                            "bytes_over_l2",
                                            "register_budget"};

const std::vector<std::string> &conv2dGw8FeatureNames() {
  static const std::vector<std::string> names(std::begin(kFeatureNames), std::end(kFeatureNames));
  return names;
}

std::vector<double> conv2dGw8Features(const Conv2dGw8Problem &p, const Conv2dGw8Config &c) {
  auto log2 = [](double v) { return std::log2(std::max(v, 1.0)); };
  BandGrid g = bandGrid(p, c);
  LaunchShape launch = conv2dGw8LaunchShape(p, c);
  int64_t inH = p.kernelInH(), inW = p.kernelInW(), outH = p.kernelOutH(), outW = p.kernelOutW();
  double bytes = 2.0 * (double(p.n) * (inH * inW + outH * outW) * p.c +
                        double(p.c) * p.r * p.s * p.groupWidth);
  double macs = double(p.n) * p.outH() * p.outW() * p.c * p.r * p.s * p.groupWidth;
  int64_t shared = blockSharedBytes(p, c);
  int64_t resident;
  if (p.pass == ConvPass::Wgrad)
    resident = wgradResidentBlocks(p, c);
  else if (flatRows(p))
    resident = blocksBySharedMemory(p, shared);
  else
    resident = rowsResidentBlocks(p, c, outputRowsPerBarrier(p, c));
  resident = std::max<int64_t>(1, std::min({resident, 2048 / c.threads(), int64_t(32)}));
  double blocks = double(launch.gridX) * launch.gridY * launch.gridZ;
  double waves = blocks / double(resident * p.target.multiprocessors);
  double lastWave = waves - std::floor(waves);
  int64_t stride = p.pass == ConvPass::Dgrad ? 1 : p.stride;
  // Staged rows over the input rows a band's outputs span (kernels one row
  // tall at stride 2 stage every other one).
  int64_t rowStride = stagedInput(p, c).rowStride;
  // The registers a thread its resident blocks leave (ptxas takes at most
  // 255): where the kernel needs more, it spills.
  double registerBudget = std::min(255.0, 65536.0 / double(resident * c.threads()));
  std::vector<double> f = {
      double(int(p.pass)),
      log2(p.n),
      log2(p.c),
      log2(inH),
      log2(inW),
      log2(outH),
      log2(outW),
      double(p.r),
      double(p.s),
      double(p.stride),
      double(p.groupWidth),
      log2(bytes),
      log2(macs),
      double(flatRows(p)),
      double(c.warpsQ),
      double(c.warpsG),
      double(c.rowsP),
      double(c.copyWarps),
      log2(1.0 + double(g.chunks)),
      double(c.rowRing),
      double(p.pass == ConvPass::Wgrad ? wgradStages(p, c) : 0),
      double(p.pass == ConvPass::Wgrad && !p.wgradClusterReduce ? wgradReduceVector(p, c) : 0),
      double(c.threads()),
      double(g.qTiles),
      double(g.groupTiles),
      log2(g.bands),
      double(g.bandsPerChunk),
      double(g.images),
      log2(blocks),
      double(resident),
      waves,
      lastWave == 0 ? 1.0 : lastWave,
      double(shared),
      double(g.images * outW) / double(g.qTiles * 16 * c.warpsQ),
      groupShare(p, c.warpsG),
      double(outH) / double(ceilDiv(outH, c.rowsP) * c.rowsP),
      double(c.rowsP * rowStride + p.r - rowStride) / double(c.rowsP * stride),
      log2(bytes / blocks),
      double(p.target.multiprocessors),
      bytes / double(p.target.l2Bytes),
      registerBudget};
  assert(f.size() == std::size(kFeatureNames) && "a feature without its name");
  return f;
}

/// A lane's longest range of partials before splits grow, and the most
/// splits (the reduce kernel: Conv2dGw8Tiling.h).
constexpr int64_t kReduceRange = 32;
constexpr int64_t kReduceMaxSplits = 8;

int64_t gw8::wgradReduceSplits(const Conv2dGw8Problem &p, const Conv2dGw8Config &c) {
  int64_t parts = conv2dGw8WgradPartials(p, c), splits = 1;
  while (splits < kReduceMaxSplits && ceilDiv(parts, splits) > kReduceRange)
    splits *= 2;
  return splits;
}

/// The dw elements a reduce block adds at `vector` a lane (before the
/// discard's whole channels).
static int64_t reduceBlockElements(const Conv2dGw8Problem &p, const Conv2dGw8Config &c,
                                   int64_t vector) {
  return kReduceThreads / wgradReduceSplits(p, c) * vector;
}

/// conv2dGw8WgradDiscards at `vector` elements a reduce lane.
static bool reduceDiscards(const Conv2dGw8Problem &p, const Conv2dGw8Config &c, int64_t vector) {
  // A block discards only the channels it alone reads: where a channel
  // (R * S * 8 dw elements) spans blocks, none.
  if (p.pass != ConvPass::Wgrad || p.wgradClusterReduce || p.wgradDiscard == WgradDiscard::Never ||
      p.r * p.s * 8 > reduceBlockElements(p, c, vector))
    return false;
  if (p.wgradDiscard == WgradDiscard::Always)
    return true;
  // Each partial holds R * S * 8 floats an output channel (an odd S's zero
  // tap unstored).
  int64_t weights = p.c * p.r * p.s * 8;
  int64_t bytes = (p.n * p.h * p.w * p.c + p.n * p.outH() * p.outW() * p.c) * 2 +
                  weights * (p.wgradF32 ? 4 : 2) + conv2dGw8WgradPartials(p, c) * weights * 4;
  return 4 * bytes > 3 * p.target.l2Bytes;
}

/// The dw elements a reduce block adds at `vector` a lane, as whole
/// channels where it discards.
static int64_t reduceElementsPerBlock(const Conv2dGw8Problem &p, const Conv2dGw8Config &c,
                                      int64_t vector) {
  int64_t elements = reduceBlockElements(p, c, vector), perChannel = p.r * p.s * 8;
  return reduceDiscards(p, c, vector) ? elements / perChannel * perChannel : elements;
}

/// 4 elements a lane take a quarter of the lanes and load instructions,
/// and let blocks of fewer lanes hold whole channels to discard: taken by
/// 5x5 kernels whose grid keeps 3/4 of a block a multiprocessor or more
/// (TUNING.md, "wgrad's reduce"). Other kernel sizes keep 1, untimed with
/// 4 (--wgrad-reduce-lane-elements sets 4 for them).
int64_t gw8::wgradReduceVector(const Conv2dGw8Problem &p, const Conv2dGw8Config &c) {
  if (c.reduceLaneElements)
    return c.reduceLaneElements;
  int64_t blocks = ceilDiv(p.c * p.r * p.s * 8, reduceElementsPerBlock(p, c, 4));
  // A lane's elements lie in one group.
  return p.r == 5 && p.s == 5 && 4 * blocks >= 3 * p.target.multiprocessors && p.groupWidth >= 4
             ? 4
             : 1;
}

int64_t gw8::wgradReduceElementsPerBlock(const Conv2dGw8Problem &p, const Conv2dGw8Config &c) {
  return reduceElementsPerBlock(p, c, wgradReduceVector(p, c));
}

LaunchShape conv2dGw8WgradReduceLaunchShape(const Conv2dGw8Problem &p, const Conv2dGw8Config &c) {
  return {ceilDiv(p.c * p.r * p.s * 8, wgradReduceElementsPerBlock(p, c)), 1, kReduceThreads};
}

int64_t conv2dGw8WgradPartials(const Conv2dGw8Problem &p, const Conv2dGw8Config &c) {
  return bandGrid(p, c).chunks;
}

int64_t conv2dGw8WgradAccumulationChain(const Conv2dGw8Problem &p, const Conv2dGw8Config &c) {
  // The mma steps of a warp's bands (one per row of 16 columns, or the
  // flattened band's 8-pixel steps), one addition per other warp along the
  // pixels of its block, then one per partial of a lane's range and one
  // per level of the tree over the splits.
  int64_t steps = flatRows(p) ? stagedInput(p, c).pixels / (8 * c.warpsQ) : c.rowsP;
  int64_t splits = wgradReduceSplits(p, c), levels = 0;
  while ((int64_t(1) << levels) < splits)
    ++levels;
  return bandGrid(p, c).bandsPerChunk * steps + (c.warpsQ - 1) +
         ceilDiv(conv2dGw8WgradPartials(p, c), splits) + levels;
}

int64_t conv2dGw8WorkspaceBytes(const Conv2dGw8Problem &p, const Conv2dGw8Config &c) {
  if (p.pass != ConvPass::Wgrad || p.wgradClusterReduce)
    return 0;
  int64_t biasFloats = p.bias ? wgradBiasTiling(p).blocks * p.c : 0;
  return (wgradBiasPartialsOffset(p, c) * 8 + biasFloats) * 4;
}

LaunchShape conv2dGw8WgradBiasLaunchShape(const Conv2dGw8Problem &p) {
  return {wgradBiasTiling(p).blocks, 1, kReduceThreads};
}

LaunchShape conv2dGw8WgradBiasReduceLaunchShape(const Conv2dGw8Problem &p) {
  return {ceilDiv(p.c / 8, kReduceThreads / 32), 1, kReduceThreads};
}

int64_t conv2dGw8WgradBiasAccumulationChain(const Conv2dGw8Problem &p) {
  // A thread's pixels, the block's slots, a reduce lane's partials, then
  // the shuffle tree over 32 lanes.
  WgradBiasTiling t = wgradBiasTiling(p);
  return ceilDiv(t.pixelsPerBlock, t.slots) + t.slots + ceilDiv(t.blocks, 32) + 5;
}

bool conv2dGw8WgradDiscards(const Conv2dGw8Problem &p, const Conv2dGw8Config &c) {
  return reduceDiscards(p, c, gw8::wgradReduceVector(p, c));
}

} // namespace spio::kernels
