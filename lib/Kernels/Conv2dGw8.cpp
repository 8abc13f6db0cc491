//===- Conv2dGw8.cpp - Grouped conv2d with groups of 8 channels -----------===//

#include "spio/Kernels/Conv2dGw8.h"
#include "spio/Target/SharedMemory.h"

#include <algorithm>
#include <cassert>
#include <cstdlib>
#include <functional>
#include <map>
#include <sstream>
#include <vector>

namespace spio::kernels {

static int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

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

namespace {

/// Kernels that loop over bands: wgrad walks dy in bands of rowsP rows by
/// 16 * warpsQ columns, and fprop and dgrad on flattened rows walk their
/// output in bands of rowsP rows of whole images; each block (one per
/// group tile and chunk) takes a contiguous range of bands.
struct BandGrid {
  int64_t qTiles, bands, bandsPerChunk, chunks, groupTiles;
  /// Images side by side in a band's row (packedImages).
  int64_t images;
};

/// Blocks a multiprocessor fprop and dgrad on flattened rows aim for: a
/// band is one small image or less, and each block loads its groups'
/// weights once for all its bands. Swept on an H200 over 6 layers (7x7 to
/// 20x20): 4 blocks per multiprocessor ran 1.04x 8 blocks, 2 blocks 1.05x
/// but 0.90x on 10x10 5x5; one block per band (no reuse) 0.85x.
constexpr int64_t kFlatBlocksPerMultiprocessor = 4;

/// Output rows whose staged rows stride-2 fprop copies in ahead of the one
/// it computes, in a ring of shared-memory rows (stagedInput).
constexpr int64_t kRingLookahead = 4;

/// fprop's and dgrad's mma steps along S: `taps` taps from tap `s`. Tap
/// pairs, each an m16n8k16 over taps s and s + 1 times 8 channels (half
/// the mma and ldmatrix instructions of two m16n8k8), then for odd S the
/// last tap alone, an m16n8k8 into the same sums (the accumulators of both
/// shapes are one layout): half the tensor work of pairing it with a zero
/// tap (on an H200, 5x5 layers ran 1.02-1.12x that, 3x3 0.99-1.01x).
struct TapStep {
  int64_t s, taps;
};

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

/// One of wgrad's partial sums a warp keeps, the 16 rows of an mma's A
/// times 8 channels: taps s and s + 1 of kernel row r, or (`rowPair`) an
/// odd S's last tap s at rows r and r + 1, whose A fragment reads its upper
/// 8 rows from the next staged row. Row pairs leave a padding tap only in
/// an odd R's last row: 5x5 keeps 13 sums (52 registers, not 60) and runs
/// 13 mma a row of dy, not 15, for one more A load a staged row. Kernels
/// of 5 or more columns pair rows (on an H200, with the two-block hint, 24
/// 5x5 layers ran 1.12x in geometric mean, 0.92-1.22x); 3x3, 3 A loads a
/// staged row instead of 2 for 5 mma instead of 6, ran 0.98-1.01x (8
/// layers, hinted) and does not. The partial sums keep the
/// layout of paired taps, [r, sc/8 < S + 1]: a row pair stores tap
/// (r + 1, S - 1) where tap (r, S) would be, which the reduce reads there.
struct WgradSum {
  int64_t r, s;
  bool rowPair;
};

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
int64_t tapColumns(const Conv2dGw8Problem &p) {
  return p.pass == ConvPass::Wgrad ? pairedS(p) : p.s;
}

bool wgradQuarterBlocks(const Conv2dGw8Problem &p);

/// wgrad's bands of rows of 16-pixel fragments: 8 rows (4 with stride 2;
/// shorter ones ran slower), or 9 only where that rounds fewer rows up (18
/// rows as 2 bands, not 3): the unrolled ninth row costs registers (72x72:
/// 126 -> 150, one block a multiprocessor instead of two, 3045 -> 1991 GB/s
/// on an H200). The 5x5 kernels of wgradQuarterBlocks also take 7 where
/// that rounds fewer up than both (on an H200: 14x14 1.07x, 20x20 1.03x,
/// 28x28 0.99-1.04x 8 rows; 6 rows ran 0.89-0.97x 8).
int64_t wgradBandRows(const Conv2dGw8Problem &p) {
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
  return std::min(rows, band);
}

/// Input columns per staged column: 2 for stride-2 fprop and wgrad (each
/// staged q holds input columns 2q and 2q + 1). dgrad with stride 2 runs the
/// stride-1 kernel on dy upsampled by zeros: the staging reads dy only at
/// even positions, zero-fills the rest, and the compute is that of stride 1.
int64_t stagingStride(const Conv2dGw8Problem &p) {
  return p.pass == ConvPass::Dgrad ? 1 : p.stride;
}

/// dgrad with stride 2, which stages dy upsampled by zeros.
bool upsamplesDy(const Conv2dGw8Problem &p) {
  return p.pass == ConvPass::Dgrad && p.stride == 2;
}

/// 3 or 5 groups a block: an odd pitch of 16-byte vectors, which needs no
/// swizzle. Stride-2 staging would double it to an even one.
bool oddGroupTile(int64_t warpsG) { return warpsG % 2 == 1 && warpsG > 1; }

/// Flattened rows' staged columns a row: the input's W columns, then padW
/// zeros that are both this row's right padding and the next row's left (a
/// tap past column W - 1 reads on into the next row's padding), not the Q +
/// S - 1 of a row padded on both sides. wgrad's phantom tap of an odd S
/// reads one column further, into the next row's pixels, and adds them to
/// the partial sum that dw leaves out.
int64_t flatPitch(const Conv2dGw8Problem &p) { return p.kernelInW() + p.kernelPadW(); }

/// wgrad's flattened rows: flatPitch rounded up to whole 8-pixel mma steps
/// where that adds at most half the pixels, so that each x step's A
/// fragments serve every kernel row (computeWgradFlatRowSteps). On an H200,
/// against rows of flatPitch: 10x10 (11 -> 16 columns) 1.05-1.11x, 18x18
/// (19 -> 24) 1.09x, 20x20 (21 -> 24) 1.16x; 8x8 (9 -> 16) 0.87-0.95x.
int64_t wgradFlatPitch(const Conv2dGw8Problem &p) {
  int64_t pitch = flatPitch(p), steps = ceilDiv(pitch, 8) * 8;
  return 2 * steps <= 3 * pitch ? steps : pitch;
}

/// wgrad's flattened rows are whole 8-pixel mma steps: each x step's A
/// fragments serve every kernel row (computeWgradFlatRowSteps).
bool wgradRowsOfWholeSteps(const Conv2dGw8Problem &p) { return wgradFlatPitch(p) % 8 == 0; }

/// Narrow images flatten each staged row of flatPitch columns into one
/// pixel dimension `m`: an mma takes consecutive pixels across rows and a
/// tap is the offset r * flatPitch + s. fprop and dgrad compute and drop
/// the columns of each row past Q; wgrad stages dy's as zeros, so they add
/// nothing to its sums. fprop and dgrad flatten only where rows of
/// 16-pixel fragments would compute at least twice the pixels (Q <= 8)
/// and the one image (N = 1) has none to go beside it; never stride-2
/// dgrad, whose zero-upsampled dy only rows of fragments stage (flattened,
/// a 7x7 GPU test failed). Flattened, no staged row is reused across the
/// R output rows it feeds (on an H200 rows of fragments ran 1.19-1.47x on
/// 9x9 to 20x20 5x5 layers, 1.06-1.6x on 10x10, 24x24 and 28x28 3x3, even
/// on 18x18 and 20x20 3x3, 0.9x on 9x9 3x3 and 7x7 5x5 one image a row;
/// with images side by side, all 13 7x7 and 8x8 layers 1.09-1.37x, fprop
/// and dgrad, 1.19x in geometric mean). wgrad flattens only kernels
/// of up to 3 columns (5x5 kernels ran 20-30% slower flattened). Rows of
/// whole mma steps (wgradFlatPitch), whose x fragments serve every kernel
/// row as the bands' do, flatten where they compute fewer pixels than
/// bands of 8 or 9 rows of 16-column fragments (on an H200: 14x14 and
/// 28x28, 224 of 256 and 896 of 1024 pixels, ran 1.02-1.16x their bands).
/// Other rows flatten at up to 60% of the bands' pixels: 8x8 (56%) ran
/// 1.03-1.10x its bands, 9x9 (62.5%) 0.92-0.94x.
bool flatRows(const Conv2dGw8Problem &p) {
  int64_t q = p.kernelOutW();
  if (stagingStride(p) != 1 || q > 32 || flatPitch(p) >= 16 * ceilDiv(q, 16))
    return false;
  if (p.pass != ConvPass::Wgrad)
    return 16 * ceilDiv(q, 16) >= 2 * q && p.stride == 1 && p.n == 1;
  int64_t rows = p.outH(), band = wgradBandRows(p);
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
/// stride-1 kernels (wgrad: those of wgradQuarterBlocks) where that uses at
/// least 1.3x the columns: at most 8 images, for wgrad 3 in bands of 9 rows
/// (whose ninth row already costs registers). On an H200: fprop and dgrad
/// 1.07-1.28x on the 11 layers this takes (9x9 to 20x20, 3x3 and 5x5);
/// wgrad 1.01-1.19x on its 7 (7x7 to 20x20 5x5). Not taken: gains of 1.2x
/// the columns or less (fprop and dgrad on 80x80 3x3 0.94x, 36x36 5x5
/// 0.98x); wgrad's 9x9 5x5 as 4 images in 9-row bands, which spilled 44
/// bytes (0.86x), and its 3x3 kernels, whose copies' column arithmetic took
/// them from 125 to 154-162 registers (one block a multiprocessor, not
/// two), 0.75-1.02x.
constexpr int64_t kMaxPackedImages = 8;

/// The staged columns of one image side by side with others.
int64_t packedPitch(const Conv2dGw8Problem &p) { return p.kernelInW() + 2 * p.kernelPadW(); }

/// The output columns a row of `images` images side by side spans.
int64_t packedColumns(const Conv2dGw8Problem &p, int64_t images) {
  return (images - 1) * packedPitch(p) + p.kernelOutW();
}

/// The share of the columns computed in tiles of 16 * warpsQ that are
/// output columns, `images` side by side.
double packedShare(const Conv2dGw8Problem &p, int64_t images, int64_t warpsQ) {
  int64_t tile = 16 * warpsQ;
  return double(images * p.kernelOutW()) /
         double(ceilDiv(packedColumns(p, images), tile) * tile);
}

int64_t packedImages(const Conv2dGw8Problem &p, int64_t warpsQ) {
  bool wgrad = p.pass == ConvPass::Wgrad;
  bool takes = wgrad ? wgradQuarterBlocks(p) : p.stride == 1;
  if (!takes || flatRows(p))
    return 1;
  int64_t most = std::min(p.n, wgrad && wgradBandRows(p) == 9 ? 3 : kMaxPackedImages), best = 1;
  for (int64_t images = 2; images <= most; ++images)
    if (packedShare(p, images, warpsQ) > packedShare(p, best, warpsQ) + 1e-9)
      best = images;
  return packedShare(p, best, warpsQ) >= 1.3 * packedShare(p, 1, warpsQ) ? best : 1;
}

int64_t wgradResidentBlocks(const Conv2dGw8Problem &p, const Conv2dGw8Config &c);

/// wgrad's grid, or that of fprop and dgrad on flattened rows. fprop and
/// dgrad on rows of fragments: blocks along the (image, row tile) bands,
/// with the group and column tiles along x.
BandGrid bandGrid(const Conv2dGw8Problem &p, const Conv2dGw8Config &c) {
  BandGrid g;
  g.images = packedImages(p, c.warpsQ);
  g.qTiles = flatRows(p) ? 1 : ceilDiv(packedColumns(p, g.images), 16 * c.warpsQ);
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
  int64_t target = (p.pass == ConvPass::Wgrad ? wgradResidentBlocks(p, c)
                                              : kFlatBlocksPerMultiprocessor) *
                   p.multiprocessors;
  // wgrad takes at most `target` blocks: blocks past whole waves run as one
  // more (on an H200, 20 layers whose count this rounded down from up to
  // 294 ran 1.126x in geometric mean; 36x36 5x5, one block a
  // multiprocessor, 1059 -> 1475 GB/s). Flattened fprop and dgrad round
  // up (their one such layer ran 0.91x and 1.03x rounded down).
  int64_t want = c.chunks ? c.chunks
                 : p.pass == ConvPass::Wgrad ? std::max<int64_t>(1, target / g.groupTiles)
                                             : ceilDiv(target, g.groupTiles);
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

/// The input tile a block stages in shared memory.
struct StagedInput {
  /// Output columns a block computes, and the staged columns they read.
  int64_t columns, stagedColumns;
  /// Staged rows; flattened rows: the pixels the block computes (whole
  /// 16-pixel fragments for fprop and dgrad, 8-pixel mma steps for each
  /// warp along the pixels for wgrad); wgrad: dy's staged rows.
  int64_t rows, pixels, gradientRows;
  /// Shared rows: a ring of staged rows (stride-2 fprop on rows of
  /// fragments, `ring`), the staged rows that are not zeros (skipsZeroRows;
  /// staged row i in slot i / 2), or all of them.
  int64_t slots;
  bool ring;
  /// Input columns per staged column (2: stride-2 fprop and wgrad).
  int64_t stride;
  int64_t bytes(int64_t warpsG) const { return slots * stagedColumns * stride * warpsG * 16; }
  /// wgrad: x's and dy's tiles.
  int64_t wgradBytes(int64_t warpsG) const {
    return bytes(warpsG) + gradientRows * columns * warpsG * 16;
  }
};

StagedInput stagedInput(const Conv2dGw8Problem &p, const Conv2dGw8Config &c) {
  StagedInput t;
  t.columns = 16 * c.warpsQ;
  t.pixels = t.gradientRows = 0;
  t.stride = stagingStride(p);
  // Staged columns: output columns q0 .. q0 + columns - 1 plus the taps'
  // reach; with stride 2 each staged q holds the two input columns 2q and
  // 2q + 1.
  int64_t reach = tapColumns(p);
  t.stagedColumns = ceilDiv(t.columns + (reach - 1) / t.stride, 8) * 8;
  t.rows = t.stride * (c.rowsP - 1) + p.r;
  if (p.pass == ConvPass::Wgrad)
    t.gradientRows = c.rowsP;
  if (flatRows(p)) {
    // Whole rows of flatPitch staged columns; enough rows that the last
    // pixel's tap pairs stay inside the tile.
    t.stagedColumns = t.columns =
        p.pass == ConvPass::Wgrad ? wgradFlatPitch(p) : flatPitch(p);
    int64_t step = p.pass == ConvPass::Wgrad ? 8 * c.warpsQ : 16;
    t.pixels = ceilDiv(c.rowsP * t.columns, step) * step;
    t.rows = (t.pixels - 1 + (p.r - 1) * t.columns + reach - 1) / t.columns + 1;
    if (p.pass == ConvPass::Wgrad)
      t.gradientRows = ceilDiv(t.pixels, t.columns);
  }
  // Stride-2 fprop with kernels of up to 3 columns (one band a block)
  // keeps a ring of the R rows an output row reads and the rows of the
  // next kRingLookahead output rows, copied in while the block computes,
  // where that holds under half the block's rows: its staged rows are
  // twice as many and as wide, and the whole tile capped its blocks at 4
  // to 9 rows. On an H200 the 30 stride-2 layer kernels it changes (with
  // the taller blocks it lets the chooser take) ran 1.088x in geometric
  // mean, 0.89-1.39x; on stride 1 it ran 0.99x (0.86-1.12x) and on
  // stride-2 dgrad 0.97x, which keep whole tiles.
  int64_t ring = p.r + t.stride * kRingLookahead;
  t.ring = p.pass == ConvPass::Fprop && p.stride == 2 && p.s <= 3 && !flatRows(p) &&
           bandGrid(p, c).bandsPerChunk == 1 && t.rows > 2 * ring;
  t.slots = t.ring ? ring : t.rows;
  if (skipsZeroRows(p, c))
    t.slots = (t.rows - p.kernelPadH() % 2 + 1) / 2;
  return t;
}

/// fprop/dgrad: 16-byte vectors between pixels of the output tile: a
/// pixel's 8 * warpsG channels, padded to an odd number of vectors so that
/// the fragment stores of its 8 rows hit distinct banks.
int64_t outputPitch(int64_t warpsG) { return warpsG % 2 == 1 ? warpsG : warpsG + 1; }

/// fprop and dgrad on rows of fragments: the kernel's shared tiles (each
/// 128-byte aligned): the staged input, twice where a block rings its bands,
/// the weights and the output tile's rows, two for each output row between
/// two of the block's barriers (outputRowsPerBarrier).
int64_t rowsSharedBytes(const Conv2dGw8Problem &p, const Conv2dGw8Config &c, bool ring,
                        int64_t outputRows) {
  auto aligned = [](int64_t bytes) { return ceilDiv(bytes, 128) * 128; };
  return (ring ? 2 : 1) * aligned(stagedInput(p, c).bytes(c.warpsG)) +
         aligned(p.r * p.s * 8 * c.warpsG * 16) +
         aligned(2 * outputRows * 16 * c.warpsQ * outputPitch(c.warpsG) * 16);
}

/// Blocks of `bytes` of shared memory an H100's or H200's multiprocessor
/// holds: 228 KB, 1 KB of it reserved per block.
int64_t blocksBySharedMemory(int64_t bytes) {
  return kHopperSharedBytesPerMultiprocessor / (bytes + 1024);
}

/// fprop and dgrad on rows of fragments: the blocks a multiprocessor holds
/// by shared memory (with `outputRows` rows between barriers), at the
/// registers a thread ptxas takes about.
int64_t rowsResidentBlocks(const Conv2dGw8Problem &p, const Conv2dGw8Config &c,
                           int64_t outputRows) {
  // At most as many blocks as leave 40 registers a thread (of 64K): ptxas
  // takes about that many (18x18 3x3, 512 threads, 3 blocks by shared
  // memory: hinted 2, it took 45 registers and ran 0.86x and 0.92x 3 blocks
  // at 39 on an H200).
  int64_t bySharedMemory =
      blocksBySharedMemory(rowsSharedBytes(p, c, bandGrid(p, c).bandsPerChunk > 1, outputRows));
  // A ring's copies in the row loop take more registers: 64 (with a ring
  // on every 3x3 kernel and 40, 98 of the 244 stride-1 layer kernels
  // spilled).
  int64_t registers = stagedInput(p, c).ring ? 64 : 40;
  // Kernels of 5 or more columns hold 5 or more rows of sums and their
  // weights: ptxas takes about 77 registers (stride-2 dgrad 5x5, whose
  // shared tile without zero rows would let 5 to 7 blocks fit: held to 40
  // to 56 registers, it spilled up to 360 bytes and ran 0.61-0.79x).
  if (p.s >= 5)
    registers = 80;
  return std::max<int64_t>(1, std::min(bySharedMemory, 65536 / (registers * c.threads())));
}

/// fprop and dgrad on rows of fragments: the output rows a block completes
/// between two of its barriers. Each completed row's fragments go to a
/// shared tile row, and after the next barrier the block copies all such
/// rows out as whole pixels (each warp its own, in 16-byte pieces of
/// half-written sectors, ran 0.65-0.89x); 2k tile rows let the next k
/// rows' fragment stores start before the copies of these end. Awaits of
/// staged rows come in groups of k rows too (computeRows), so that one
/// barrier serves both. Kernels of 5 or more columns, bound by their mma
/// and stalled at barriers, take the largest k up to 4 that keeps the
/// blocks a multiprocessor holds: on an H200, fprop and dgrad on the 15
/// 5x5 layers where 4 keeps them ran 1.02-1.15x; on the 6 where 2 does
/// (not 4) 1.02-1.06x (as 4 0.96-1.03x). 3x3 kernels, memory bound,
/// whose larger groups of awaited rows wait longer, ran 0.93-1.02x as 2 and
/// 0.78-0.97x as 4. Stride-2 fprop, whose groups would await twice the
/// staged rows (and whose ring of them refills after every row's
/// barrier), keeps 1: its 9 5x5 layers ran 0.92-1.05x as 4 (stride-2
/// dgrad, a stride-1 kernel, 1.01-1.14x).
int64_t outputRowsPerBarrier(const Conv2dGw8Problem &p, const Conv2dGw8Config &c) {
  if (p.s < 5 || stagingStride(p) != 1)
    return 1;
  int64_t blocks = rowsResidentBlocks(p, c, 1);
  for (int64_t k = 4; k > 1; k /= 2)
    if (rowsResidentBlocks(p, c, k) >= blocks)
      return k;
  return 1;
}

/// wgrad's shared tiles, x's and dy's, twice (two stages), plus 2 KB for
/// spio-to-gpu's padding of each stage to its swizzle period: an upper
/// bound.
int64_t wgradSharedBytes(const Conv2dGw8Problem &p, const Conv2dGw8Config &c) {
  return 2 * stagedInput(p, c).wgradBytes(c.warpsG) + 2048;
}

/// Row-paired stride-1 wgrad kernels of at most 13 partial sums (5x5: 52
/// accumulator registers) run best as blocks of 4 warps, three a
/// multiprocessor at up to 168 registers, which hold a band's fragments
/// where 128 spilled. 7x7's 25 sums spill at 168 (33x33: 368 bytes);
/// stride-2 5x5 layers ran 0.79-1.07x so (9 layers, 0.97x).
bool wgradQuarterBlocks(const Conv2dGw8Problem &p) {
  return p.stride == 1 && wgradRowPairs(p) && wgradSums(p).size() <= 13;
}

/// wgrad blocks a multiprocessor holds: two of 256 threads at up to 128
/// registers, or three (wgradQuarterBlocks) of up to 128 threads.
int64_t wgradResidentBlocks(const Conv2dGw8Problem &p, const Conv2dGw8Config &c) {
  return wgradQuarterBlocks(p) && c.threads() <= 128 ? 3 : 2;
}

/// Whether shared memory holds wgradResidentBlocks.
bool wgradTilesFit(const Conv2dGw8Problem &p, const Conv2dGw8Config &c) {
  return blocksBySharedMemory(wgradSharedBytes(p, c)) >= wgradResidentBlocks(p, c);
}

} // namespace

std::string checkConv2dGw8(const Conv2dGw8Problem &p, const Conv2dGw8Config &c) {
  if (p.n <= 0 || p.c <= 0 || p.h <= 0 || p.w <= 0)
    return "conv2d sizes must be positive";
  if (p.multiprocessors <= 0)
    return "the target GPU's multiprocessor count must be positive, got " +
           std::to_string(p.multiprocessors);
  if (p.c % 8 != 0)
    return "C = " + std::to_string(p.c) + " is not a multiple of the group width 8";
  if (p.r < 1 || p.r > 7 || p.s < 1 || p.s > 7)
    return "kernel sizes R and S must be 1 to 7, got " + std::to_string(p.r) + "x" +
           std::to_string(p.s);
  if (p.stride != 1 && p.stride != 2)
    return "conv2d-gw8 takes stride 1 or 2, got " + std::to_string(p.stride);
  if (p.padH < 0 || p.padW < 0 || p.padH >= p.r || p.padW >= p.s)
    return "padding must be in [0, R) and [0, S)";
  if (p.outH() <= 0 || p.outW() <= 0)
    return "the output is empty";
  if (p.pass != ConvPass::Fprop && p.bias)
    return std::string(convPassName(p.pass)) + " takes no bias";
  if (p.pass != ConvPass::Wgrad && p.wgradF32)
    return "only wgrad writes f32 weights";
  if (p.dtype == DType::F32)
    return "conv2d-gw8 takes f16 or bf16";
  if (c.warpsG < 1 || c.warpsG > 8 || c.warpsG == 6 || c.warpsG == 7)
    return "warps along groups must be 1, 2, 3, 4, 5 or 8";
  if (oddGroupTile(c.warpsG) && stagingStride(p) == 2)
    return "3 or 5 warps along groups need stride 1 (or dgrad)";
  if (c.warpsQ < 1 || c.threads() > 1024 || c.rowsP < 1 || c.chunks < 0)
    return "bad warp, row or chunk counts";
  // A block's tiles must fit the shared memory an H100's or H200's block
  // may use (the compiler says so too, per chip; saying it here keeps such
  // configs out of the instances a caller may pick). Flattened rows hold a
  // few small rows by construction.
  const int64_t kBlockSharedLimit = maxSharedBytesPerBlock("sm_90");
  int64_t shared = 0;
  if (p.pass == ConvPass::Wgrad)
    shared = wgradSharedBytes(p, c);
  else if (!flatRows(p))
    shared = rowsSharedBytes(p, c, bandGrid(p, c).bandsPerChunk > 1,
                             outputRowsPerBarrier(p, c));
  if (shared > kBlockSharedLimit)
    return "a block's tiles need about " + std::to_string(shared) +
           " bytes of shared memory, over the " + std::to_string(kBlockSharedLimit) +
           " an H100 or H200 block may use: take fewer rows or warps";
  return {};
}

namespace {

/// How much of the bandwidth a block with `warpsG` groups (16 bytes each
/// per pixel) gets: under 64 contiguous bytes per pixel the copies touch
/// more lines, and L1/L2 throughput, not DRAM, limits (swept on an H200: 2
/// groups ran about 15% slower than 4 or 8 at equal work, 1 group half as
/// fast). 3 and 5 groups are taken only as whole pixels of 48 and 80 bytes,
/// which stream contiguously.
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

/// The most rows in [low, high] that tile `rows` with the fewest rounded up.
int64_t chooseRows(int64_t rows, int64_t low, int64_t high) {
  int64_t best = high;
  for (int64_t r = high; r >= low; --r)
    if (ceilDiv(rows, r) * r < ceilDiv(rows, best) * best)
      best = r;
  return best;
}

} // namespace

Conv2dGw8Config chooseConv2dGw8Config(const Conv2dGw8Problem &p) {
  Conv2dGw8Config c;
  int64_t P = p.kernelOutH(), Q = p.kernelOutW();
  // Warps along groups and along Q by the work a block does that is not
  // rounded up (groups to warpsG, columns to 16 * warpsQ), weighed by how
  // its pixels coalesce and whether it has 8 warps to hide latency; ties go
  // to blocks nearest 16 warps. Kernels of 5 or more columns are compute
  // heavy: they take blocks of at most 8 warps (more blocks a
  // multiprocessor) and at least 32 columns (16 re-read 4 halo columns
  // each). wgrad keeps a set of partial sums per warp along Q: it takes at
  // most 4 of them and 8 warps in all. Swept on an H200.
  bool wgrad = p.pass == ConvPass::Wgrad, flat = flatRows(p);
  bool heavy = !wgrad && p.s >= 5;
  int64_t maxWarps = heavy || wgrad ? 8 : 32;
  auto misfit = [](int64_t warps) { return warps < 8 ? 100 - warps : std::abs(warps - 16); };
  // 3x3 kernels (stride 1, and stride-2 dgrad, which skips the upsampled
  // dy's zero rows) move more bytes than they compute: columns rounded up
  // to the block cost little up to a quarter of them, and blocks of 12 or
  // more warps ran faster than 8 or 9 (on an H200: 72x72 and 80x80 C192
  // 1.13x and 1.15x as 2 x 8 warps, 144x144 C24 1.15x as 5 x 3 and 1.20x
  // as 9 x 3, 112x112 C240 1.11x; stride-2 dgrad, the 8 layers this
  // changes: 1.01-1.46x), which ties then prefer, then the fewest columns
  // rounded up (224x224 C24 as 5 x 3 warps ran 0.94x 7 x 3, 112x112 C32 as
  // 4 x 4 0.98x 7 x 4).
  bool light = !heavy && !wgrad && !flat && (p.stride == 1 || upsamplesDy(p));
  // Blocks of images of up to 8 columns, and of kernels of 5 or more,
  // score the columns of the images they lay side by side (packedImages):
  // on an H200 8x8 3x3 as 3 x 8 warps, 5 images, ran 1.03-1.24x 1 x 8,
  // which packs none (2 of 7 columns go in 16, 5 of 8 in 48); 36x36 and
  // 40x40 5x5 as 2 x 4 warps, 2 images in 96 columns, 1.03-1.07x 3 x 2,
  // one in 48 (fprop and dgrad). Light kernels on wider images were tuned
  // scoring one image.
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
    // would start and end inside 32-byte sectors (on an H200 3 groups of 6
    // and 5 of 18 ran 0.65-0.9x 2 and 4; 3 of 3 and 5 of 5 1.12-1.77x).
    if (oddGroupTile(warpsG) && (stagingStride(p) == 2 || warpsG != p.groups()))
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
  // columns and 8 groups (the same share of the columns used): on an H200,
  // 5x5 fprop and dgrad on 9x9, 10x10 and 14x14 images ran 1.09-1.20x
  // (16x16, whose two images do not fit 32 columns, 0.96x).
  if (heavy && !flat && Q <= 16 && p.groups() >= 4 && packedImages(p, 2) >= 2 &&
      packedColumns(p, 2) <= 32) {
    c.warpsQ = 2;
    c.warpsG = 4;
  }
  // Compute-heavy kernels whose images side by side span more than one
  // column tile take, at no smaller share of the columns and groups used,
  // one tile that holds the whole row of images where its block keeps 2
  // or more groups in 8 warps: on an H200, 18x18 5x5 C576 and C816 (3
  // images in 62 columns) as 4 x 2 warps ran 1.05-1.06x 2 x 4, whose two
  // 32-column tiles split the middle image, and 9x9 C1392 (5 images in
  // 61) 1.05x (fprop and dgrad). 36x36's two images (76 columns) would
  // leave 1 group.
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
    int64_t most = P;
    while (most > 1 && !fits(most))
      --most;
    c.rowsP = chooseRows(P, (most + 1) / 2, most);
    return c;
  }
  if (wgrad) {
    // wgradQuarterBlocks kernels take blocks of 4 warps of one column tile
    // where the score chose 8 (three a multiprocessor at 168 registers, not
    // two at 128): on an H200 the 24 5x5 layers ran 1.073x in geometric
    // mean (0.97-1.42x; 40x40 C336, which spilled 76 bytes at 128, 1.42x;
    // 36x36 1.16x, as 9-row bands, which fit three times, not 6). Blocks of
    // 4 warps held to 128 registers (four a multiprocessor) ran 0.95x, to
    // 255 (two) 1.02x (19 layers).
    if (wgradQuarterBlocks(p) && c.warpsQ == 1 && c.warpsG == 8)
      c.warpsG = 4;
    // Row-paired kernels whose tiles do not fit wgradResidentBlocks: the
    // tallest band of at least 6 rows that divides the height and fits.
    // On an H200: 36x36 and 18x18 5x5 in 8-warp blocks as 6 rows 1.09x 9;
    // 9x9 as 4 to 8 rows 0.66-0.79x 9, whose rows are then rounded up.
    c.rowsP = wgradBandRows(p);
    if (!wgradRowPairs(p) || wgradTilesFit(p, c))
      return c;
    for (Conv2dGw8Config shorter = c; --shorter.rowsP >= 6;)
      if (P % shorter.rowsP == 0 && wgradTilesFit(p, shorter))
        return shorter;
    return c;
  }
  if (flat) {
    // Flattened rows: 8 warps share the block's pixels, and a block takes
    // as many rows as keep each warp at about 14 fragments (more ran
    // slower: 26 fragments a warp lost 15% on 28x28 images).
    c.warpsQ = std::max<int64_t>(1, 8 / c.warpsG);
    int64_t maxRows = std::max<int64_t>(1, 14 * 16 * c.warpsQ / (Q + p.s - 1));
    c.rowsP = P <= maxRows ? P : chooseRows(P, 1, maxRows);
    return c;
  }
  // Taller blocks re-read fewer halo rows; rows that divide the height
  // waste none (swept on an H200: 14 of 56 beat 16 and 28). Kernels of 5
  // or more columns re-read 4 or more halo rows and take up to 28 (5x5
  // fprop and dgrad: 40 rows as 20 ran 1.14x 10, 36 as 18 1.06x 12 and
  // 1.07x 36; 56 and 28 as 28 0.99-1.12x 14; 32 as 32 0.98x 16). Light
  // kernels on images of 64 rows or more take up to 24 where two blocks
  // still fit a multiprocessor (8-warp blocks: 72x72 C192 as 24 rows 1.22x
  // 12, 80x80 as 20 1.12x 16, 144x144 C24 and C40 1.11x and 1.07x 16;
  // 16-warp blocks that fit once: 72x72 as 24 0.95x 12, 80x80 as 20 0.90x
  // 16).
  auto tallestFitting = [&](int64_t tallest) {
    c.rowsP = P <= tallest ? P : chooseRows(P, tallest / 2, tallest);
    return blocksBySharedMemory(rowsSharedBytes(p, c, false, 1)) >= 2;
  };
  if (!(light && P >= 64 && tallestFitting(24)))
    tallestFitting(heavy ? 28 : 16);
  // A staged tile over the budget leaves one block a multiprocessor (or
  // none): shorter blocks. One output row always fits: at most 7 staged
  // rows (R = 7) of 72 stride-2 column pairs of 8 groups (4 x 8 warps),
  // 126 KB.
  constexpr int64_t kStagedBudget = 144 * 1024;
  auto fits = [&] { return stagedInput(p, c).bytes(c.warpsG) <= kStagedBudget; };
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
  return c;
}

LaunchShape conv2dGw8LaunchShape(const Conv2dGw8Problem &p, const Conv2dGw8Config &c) {
  BandGrid g = bandGrid(p, c);
  if (p.pass == ConvPass::Wgrad || flatRows(p))
    return {g.groupTiles, g.chunks, c.threads()};
  return {g.qTiles * g.groupTiles, g.chunks, c.threads()};
}

/// The reduce kernel: `splits` lanes of a warp per dw element, each adding
/// a contiguous range of the partials in order, 16 loads at a time, then
/// the ranges in a fixed pairwise tree (shuffles). Splits grow (to 8) while
/// a lane's range is longer than 32. One lane per element, 8 loads at a
/// time, took 19 us of 128x128 C16's 61 (1024 partials) on an H200; split
/// so, 13 wgrad layers ran 1.069x in geometric mean (0.99-1.32x; 1.06x
/// with ranges of 16 and 8 loads at a time, whose 4 splits of 9 partials
/// ran 40x40 5x5 0.98x).
constexpr int64_t kReduceThreads = 256;
constexpr int64_t kReduceUnroll = 16;
constexpr int64_t kReduceRange = 32;
constexpr int64_t kReduceMaxSplits = 8;

int64_t wgradReduceSplits(const Conv2dGw8Problem &p, const Conv2dGw8Config &c) {
  int64_t parts = conv2dGw8WgradPartials(p, c), splits = 1;
  while (splits < kReduceMaxSplits && ceilDiv(parts, splits) > kReduceRange)
    splits *= 2;
  return splits;
}

LaunchShape conv2dGw8WgradReduceLaunchShape(const Conv2dGw8Problem &p, const Conv2dGw8Config &c) {
  int64_t elementsPerBlock = kReduceThreads / wgradReduceSplits(p, c);
  return {ceilDiv(p.c * p.r * p.s * 8, elementsPerBlock), 1, kReduceThreads};
}

int64_t conv2dGw8WgradPartials(const Conv2dGw8Problem &p, const Conv2dGw8Config &c) {
  return bandGrid(p, c).chunks * c.warpsQ;
}

int64_t conv2dGw8WgradAccumulationChain(const Conv2dGw8Problem &p, const Conv2dGw8Config &c) {
  // The mma steps of a warp's bands (one per row of 16 columns, or the
  // flattened band's 8-pixel steps), then one addition per partial of a
  // lane's range and one per level of the tree over the splits.
  int64_t steps = flatRows(p) ? stagedInput(p, c).pixels / (8 * c.warpsQ) : c.rowsP;
  int64_t splits = wgradReduceSplits(p, c), levels = 0;
  while ((int64_t(1) << levels) < splits)
    ++levels;
  return bandGrid(p, c).bandsPerChunk * steps +
         ceilDiv(conv2dGw8WgradPartials(p, c), splits) + levels;
}

int64_t conv2dGw8WorkspaceBytes(const Conv2dGw8Problem &p, const Conv2dGw8Config &c) {
  if (p.pass != ConvPass::Wgrad)
    return 0;
  return conv2dGw8WgradPartials(p, c) * p.c * p.r * pairedS(p) * 8 * 4;
}

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
    rows = staged.rows;
    skipZeroRows = skipsZeroRows(p, c);
    slots = staged.slots;
    ring = staged.ring;
    flatPixels = staged.pixels;
    gradientRows = staged.gradientRows;
    st = staged.stride;
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
  /// The image of the band's column `v` (a `q`) and its column in that
  /// image: %n and `v`, or with images side by side (grid.images > 1) the image
  /// from the band's first %n on, the column among its packedPitch, and
  /// `exists`, whether the image is one of the row's and of the batch's.
  struct ImageColumn {
    std::string image, column, exists;
  };
  ImageColumn imageColumn(const std::string &v);
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
  /// wgrad's partial sums: m16n8k16 over a row's 16 columns, m16n8k8 over
  /// flattened rows' 8-pixel steps.
  std::string wgradAccumulatorType() const {
    return std::string("!spio.fragment<C, ") + (flat ? "m16n8k8" : "m16n8k16") +
           ", f32, [sc, k]>";
  }
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
  /// first `pending` commit groups, and the weights.
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
  /// The bias broadcast over a fragment's 16 `pixels` by a zero stride.
  std::string biasViewType(const std::string &pixels) const {
    return "!spio.tensor<[" + pixels + ": 16:0, " + CO + ": " + std::to_string(p.c) + "] x " +
           T + ", global>";
  }
  /// fprop/dgrad on flattened rows: for each of the block's bands, its
  /// 16-pixel fragments, then its output rows copied out.
  void computeFlat();
  void writeWgradReduce();
  std::string swizzleFor(int64_t perRow) const;
  void computeTypes();
  /// The comment line, module and gpu.module openings, and the kernel's
  /// gpu.func line (with its known block size when `tiled`).
  void openKernel(bool tiled);
  /// fprop/dgrad on rows of fragments: blocks of this kernel a
  /// multiprocessor holds by shared memory, at up to 40 registers a thread.
  int64_t residentBlocks() const;
  void writeTileBody();
  void writeWgradTileBody();

  const Conv2dGw8Problem &p;
  const Conv2dGw8Config &c;
  const char *T;
  bool dgrad;
  std::string CI, CO;
  int64_t BQ, WG, QT, rows;
  /// Shared rows of the staged input (StagedInput::slots), whether they
  /// are a ring, and the commit groups of staged rows issued so far
  /// (computeRows).
  int64_t slots, committedGroups = 0;
  bool ring;
  /// The shared row of staged row i.
  int64_t slotOf(int64_t i) const { return skipZeroRows ? i / 2 : i % slots; }
  /// One past the last staged row of commit group g: group 0 holds rows
  /// 0 .. R - 1, group g the stride * outputRows rows before groupEnd(g)
  /// (the last one those left).
  int64_t groupEnd(int64_t g) const { return std::min(rows, p.r + st * outputRows * g); }
  int64_t groupCount() const { return 1 + ceilDiv(rows - p.r, st * outputRows); }
  /// Output rows between two barriers (outputRowsPerBarrier).
  int64_t outputRows = 1;
  /// The stride of the staged input (1 for dgrad) and whether the staging
  /// upsamples dy (dgrad, stride 2).
  int64_t st;
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
  std::string xT, wT, bT, yT, sxT, swT, dyT, sdyT, wsT, dwT;
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
  for (int64_t pass = 0; pass * c.threads() < count; ++pass) {
    std::string offset = index(pass * c.threads()), limit = index(count);
    std::string lin = fresh("lin"), valid = fresh("valid");
    out << "    " << lin << " = arith.addi %tid, " << offset << " : index\n";
    out << "    " << valid << " = arith.cmpi ult, " << lin << ", " << limit << " : index\n";
    out << "    scf.if " << valid << " {\n";
    body(lin);
    out << "    }\n";
  }
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
  int64_t count = numRows * QT * (strided ? 2 : 1) * WG;
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
  forEachElement(count, [&](const std::string &lin) {
    std::string rl = fresh("rl"), qq = fresh("qq"), wp = fresh("wp"), gl = fresh("gl");
    if (strided)
      out << "    " << rl << ", " << qq << ", " << wp << ", " << gl << " = spio.decompose " << lin
          << " [" << numRows << ", " << QT << ", 2, " << WG << "] : " << coord("r") << ", " << Q
          << ", " << coord("wp") << ", " << G8 << "\n";
    else
      out << "    " << rl << ", " << qq << ", " << gl << " = spio.decompose " << lin << " ["
          << numRows << ", " << QT << ", " << WG << "] : " << coord("r") << ", " << Q << ", "
          << G8 << "\n";
    std::string rr = binary("add", first, rl, coord("r"));
    // Input row h = stride * p0 + r - padH and column
    // w = stride * (q0 + q) + wp - padW.
    std::string rh = convert("cast", rr, coord("r"), H);
    std::string h = binary("sub", binary("add", ph, rh, strided ? HS : H, H), padH, H);
    std::string qabs = binary("add", "%q0", qq, Q);
    ImageColumn at = imageColumn(qabs);
    std::string w;
    if (strided) {
      std::string wq = reinterpret(qabs, Q, WS);
      std::string wpw = convert("cast", wp, coord("wp"), W);
      w = binary("sub", binary("add", wq, wpw, WS, W), padW, W);
    } else {
      w = binary("sub", convert("cast", at.column, Q, W), padW, W);
    }
    std::string g = binary("add", "%g0", gl, G8);
    std::string ok;
    if (upsample) {
      // Position u of the upsampled dy holds dy[u / 2] when u is even.
      std::string evenH = cmp("eq", parity(h, H), zeroH, H);
      std::string evenW = cmp("eq", parity(w, W), zeroW, W);
      h = reinterpret(convert("fold", h, H, coord("h", 2)), coord("h", 2), H);
      w = reinterpret(convert("fold", w, W, coord("w", 2)), coord("w", 2), W);
      ok = andi(andi(evenH, evenW), andi(andi(cmp("ge", h, zeroH, H), cmp("lt", h, limitH, H)),
                                         andi(cmp("ge", w, zeroW, W), cmp("lt", w, limitW, W))));
    } else {
      ok = andi(andi(cmp("ge", h, zeroH, H), cmp("lt", h, limitH, H)),
                andi(cmp("ge", w, zeroW, W), cmp("lt", w, limitW, W)));
    }
    ok = andi(ok, cmp("lt", g, limitC, G8, coord(CI)));
    if (!at.exists.empty())
      ok = andi(ok, at.exists);
    std::string sr = moved ? binary("add", firstSlot, rl, coord("r")) : rr;
    std::string dst = strided ? sr + ", " + qq + ", " + wp + ", " + gl : sr + ", " + qq + ", " + gl;
    std::string dstTypes = coord("r") + ", " + Q + (strided ? ", " + coord("wp") : "") + ", " + G8;
    out << "    spio.async_copy %x[" << at.image << ", " << h << ", " << w << ", " << g
        << "] to %sx[" << dst << "] in_bounds " << ok << " : " << xT << "[" << coord("n") << ", "
        << H << ", " << W << ", " << G8 << "] to " << sxT << "[" << dstTypes << "]\n";
  });
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
  forEachElement(count, [&](const std::string &lin) {
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
    for (TapStep step : steps) {
      std::string sq = constant(step.s / st, "q");
      std::string parity = st == 2 ? constant(step.s % 2, "wp") : "";
      std::string a = fresh("a");
      out << "    " << a << " = spio.ldmatrix %sx[" << stagedRow << ", " << zeroR << ", %wq, "
          << sq << (parity.empty() ? "" : ", " + parity) << ", %wg] : " << sxT << "["
          << coord("r") << ", " << coord("r") << ", " << coord("q", 16) << ", " << coord("q")
          << (parity.empty() ? "" : ", " + coord("wp")) << ", " << coord(CI, 8) << "] -> "
          << fragmentType('A', "q", step.taps) << "\n";
      fragments.push_back(a);
    }
    return fragments;
  };
  // With every staged row committed up front (no ring), the next staged
  // row's A fragments load before this row's mma, which hides their
  // latency behind it (waiting one staged row earlier); on an H200,
  // 0.998-1.045x on 14 layers, 1.012x in geometric mean. A ring's refills
  // follow the rows it has read, so it loads them after its barrier.
  std::vector<std::string> a = loadRow(0), ahead;
  bool prefetch = !ring;
  if (prefetch && rows > 1 && awaitRow(1))
    out << "    gpu.barrier\n";
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
      out << "    gpu.barrier\n";
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

void ConvWriter::copyOutputRow(const std::string &slot, const std::string &pAbs,
                               const std::string &limitQ) {
  std::string Q = coord("q"), G8 = coord(CO, 8);
  std::string limitO = constant(p.c, CO);
  forEachElement(BQ * WG, [&](const std::string &lin) {
    std::string ql = fresh("ql"), gl = fresh("gl");
    out << "    " << ql << ", " << gl << " = spio.decompose " << lin << " [" << BQ << ", " << WG
        << "] : " << Q << ", " << G8 << "\n";
    std::string qAbs = binary("add", "%q0", ql, Q), g = binary("add", "%go0", gl, G8);
    ImageColumn at = imageColumn(qAbs);
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
    int64_t S2 = pairedS(p), perQ = p.stride * WG;
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
      return "!spio.tensor<[m: " + str(count) + ":" + str(WG) + ", sc/8: 2:" + str(tapStride) +
             ", c/8: " + str(WG) + ":1] x vector<8x" + T + ">, shared" + swizzleFor(WG) + ">";
    };
    sxT = stagedRows(rows, WG);
    sdyT = "!spio.tensor<[p: " + str(gradientRows) + ", q: " + str(BQ) + ", k/8: " + str(WG) +
           "] x vector<8x" + T + ">, shared" + swizzleFor(WG) + ">";
    // The same storage with the `sc/8` entry one staged row down, one row
    // short (no row pair starts at the last row): A of wgrad's row pairs.
    sxRowsT = stagedRows(rows - 1, QT * perQ);
    if (flat) {
      sxfT = stagedPixels(rows * QT, WG);
      sxRowsT = stagedPixels((rows - 1) * QT, QT * WG);
      sdyfT = "!spio.tensor<[m: " + str(gradientRows * BQ) + ", k/8: " + str(WG) + "] x vector<8x" +
              T + ">, shared" + swizzleFor(WG) + ">";
    }
    wsT = "!spio.tensor<[part: " + str(conv2dGw8WgradPartials(p, c)) + ", k: " + str(p.c) +
          ", r: " + str(p.r) + ", sc/8: " + str(S2) + ", sc: 8] x f32, global>";
    dwT = "!spio.tensor<[k: " + str(p.c) + ", r: " + str(p.r) + ", s: " + str(p.s) +
          ", c: 8] x " + (p.wgradF32 ? "f32" : T) + ", global>";
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
  int64_t perQ = st * WG;
  std::string pairEntry = ", " + RD + "/8: " + str(tapSteps(p).front().taps) + ":" + str(WG);
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
    sxfT = "!spio.tensor<[m: " + str(rows * QT) + ":" + str(WG) + pairEntry + ", " + CI +
           "/8: " + str(WG) + ":1] x vector<8x" + T + ">, shared" + swizzleFor(WG) + ">";
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
  if (p.pass == ConvPass::Wgrad)
    out << "(%x: " << xT << ", %dy: " << dyT << ", %ws: " << wsT << ")";
  else
    out << "(%x: " << xT << ", %w: " << wT << ", %bias: " << bT << ", %y: " << yT << ")";
  out << " kernel";
  if (tiled) {
    out << " attributes {known_block_size = array<i32: " << c.threads() << ", 1, 1>";
    // fprop and dgrad on rows of fragments tell ptxas how many blocks
    // their shared memory lets a multiprocessor hold, so that it neither
    // caps registers for more (left to itself it chose 40 registers and
    // spilled on 56x56 3x3 with bias: 0.88x on an H200) nor takes so many
    // that fewer fit. Flattened rows hold more registers than that allows
    // (7x7 5x5: 114, which spill at the 80 of 3 blocks).
    if (p.pass != ConvPass::Wgrad && !flat)
      out << ", nvvm.minctasm = " << residentBlocks() << " : i32";
    // wgrad's 5x5 kernels left to ptxas took 166-246 registers, one block
    // a multiprocessor; held to wgradResidentBlocks where shared memory
    // fits them, with row pairs (WgradSum), they ran 1.06-1.22x on an H200
    // (8-warp blocks at 128 registers, session 9). 3x3 kernels, at 80-131
    // registers unhinted, took more hinted and ran 0.93-1.08x.
    if (p.pass == ConvPass::Wgrad && wgradRowPairs(p) && wgradTilesFit(p, c))
      out << ", nvvm.minctasm = " << wgradResidentBlocks(p, c) << " : i32";
    out << "}";
  }
  out << " {\n";
}

int64_t ConvWriter::residentBlocks() const { return rowsResidentBlocks(p, c, outputRows); }

std::string ConvWriter::writeTile() {
  openKernel(true);
  if (p.pass == ConvPass::Wgrad) {
    writeWgradTileBody();
    // The reduce runs as a dependent grid, launched once every block has
    // stored its partial sums, so that its launch and start overlap this
    // grid's end; it then waits for the sums (writeWgradReduce).
    out << "    spio.launch_dependents\n";
  } else {
    writeTileBody();
  }
  out << "    gpu.return\n  }\n  }\n}\n";
  return out.str();
}

std::string ConvWriter::writeWorkload() {
  openKernel(false);
  bool wgrad = p.pass == ConvPass::Wgrad;
  out << "    spio.conv2d_gw8 " << convPassName(p.pass) << " %x, " << (wgrad ? "%dy" : "%w")
      << (p.bias ? " bias %bias" : "") << " into " << (wgrad ? "%ws" : "%y")
      << " {config = #spio.conv2d_gw8_config<warps = [" << c.warpsQ << ", " << c.warpsG
      << "], rows = " << c.rowsP;
  if (c.chunks)
    out << ", chunks = " << c.chunks;
  if (p.multiprocessors != kDefaultMultiprocessors)
    out << ", multiprocessors = " << p.multiprocessors;
  out << ">, kernel = array<i64: " << p.r << ", " << p.s << ">, padding = array<i64: " << p.padH
      << ", " << p.padW << ">, stride = " << p.stride << "} : " << xT << ", "
      << (wgrad ? dyT : wT) << (p.bias ? ", " + bT : "") << " -> " << (wgrad ? wsT : yT) << "\n";
  out << "    gpu.return\n  }\n";
  if (wgrad)
    writeWgradReduce();
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
  out << "    %q0 = spio.unfold %qt : " << coord("q", BQ) << " to " << coord("q") << "\n";
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
  stageWeights();
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

void ConvWriter::bandCoordinates(const std::string &band, bool columnTiles) {
  std::string images = coord("n", grid.images), rowTile = coord("p", c.rowsP);
  std::string columnTile = coord("q", BQ);
  out << "    " << (grid.images > 1 ? "%nt" : "%n") << ", %pt" << (columnTiles ? ", %qt" : "")
      << " = spio.decompose " << band << " [" << ceilDiv(p.n, grid.images) << ", "
      << ceilDiv(p.kernelOutH(), c.rowsP);
  if (columnTiles)
    out << ", " << grid.qTiles;
  out << "] : " << images << ", " << rowTile << (columnTiles ? ", " + columnTile : "") << "\n";
  if (grid.images > 1)
    out << "    %n = spio.unfold %nt : " << images << " to " << coord("n") << "\n";
  out << "    %p0 = spio.unfold %pt : " << rowTile << " to " << coord("p") << "\n";
  if (columnTiles)
    out << "    %q0 = spio.unfold %qt : " << columnTile << " to " << coord("q") << "\n";
}

ConvWriter::ImageColumn ConvWriter::imageColumn(const std::string &v) {
  if (grid.images == 1)
    return {"%n", v, ""};
  // Unsigned 32-bit division by the pitch (a multiply and a shift), not
  // spio.decompose's signed index division with its sign fix-ups.
  std::string pitch = fresh("pitch"), vi = fresh("i"), v32 = fresh("v"), j32 = fresh("v");
  std::string jq = fresh("v"), col32 = fresh("v"), ji = fresh("i"), coli = fresh("i");
  std::string N = coord("n"), offset = fresh("img"), column = fresh("col");
  out << "    " << pitch << " = arith.constant " << packedPitch(p) << " : i32\n";
  out << "    " << vi << " = spio.to_index " << v << " : " << coord("q") << "\n";
  out << "    " << v32 << " = arith.index_castui " << vi << " : index to i32\n";
  out << "    " << j32 << " = arith.divui " << v32 << ", " << pitch << " : i32\n";
  out << "    " << jq << " = arith.muli " << j32 << ", " << pitch << " : i32\n";
  out << "    " << col32 << " = arith.subi " << v32 << ", " << jq << " : i32\n";
  out << "    " << ji << " = arith.index_castui " << j32 << " : i32 to index\n";
  out << "    " << coli << " = arith.index_castui " << col32 << " : i32 to index\n";
  out << "    " << offset << " = spio.from_index " << ji << " : " << N << "\n";
  out << "    " << column << " = spio.from_index " << coli << " : " << coord("q") << "\n";
  std::string image = binary("add", "%n", offset, N);
  std::string rowImages = constant(grid.images, "n"), batch = constant(p.n, "n");
  std::string exists = andi(cmp("lt", offset, rowImages, N), cmp("lt", image, batch, N));
  return {image, column, exists};
}

void ConvWriter::stageGradient() {
  // Flattened rows stage whole dy rows of Q + S - 1 columns, zeros past
  // column Q and past the band's rows (the mma steps' tail).
  int64_t count = gradientRows * BQ * WG;
  std::string bandRows = gradientRows > c.rowsP ? constant(c.rowsP, "p") : "";
  std::string P = coord("p"), Q = coord("q"), G8 = coord("k", 8);
  std::string limitP = constant(p.outH(), "p"), limitQ = constant(p.outW(), "q");
  std::string limitK = constant(p.c, "k");
  forEachElement(count, [&](const std::string &lin) {
    std::string rr = fresh("rr"), qq = fresh("qq"), gl = fresh("gl");
    out << "    " << rr << ", " << qq << ", " << gl << " = spio.decompose " << lin << " ["
        << gradientRows << ", " << BQ << ", " << WG << "] : " << P << ", " << Q << ", " << G8
        << "\n";
    std::string pAbs = binary("add", "%p0", rr, P), qAbs = binary("add", "%q0", qq, Q);
    ImageColumn at = imageColumn(qAbs);
    std::string g = binary("add", "%gk0", gl, G8);
    std::string ok = andi(andi(cmp("lt", pAbs, limitP, P), cmp("lt", at.column, limitQ, Q)),
                          cmp("lt", g, limitK, G8, coord("k")));
    if (!bandRows.empty())
      ok = andi(ok, cmp("lt", rr, bandRows, P));
    if (!at.exists.empty())
      ok = andi(ok, at.exists);
    out << "    spio.async_copy %dy[" << at.image << ", " << pAbs << ", " << at.column << ", " << g
        << "] to %sdy["
        << rr << ", " << qq << ", " << gl << "] in_bounds " << ok << " : " << dyT << "["
        << coord("n") << ", " << P << ", " << Q << ", " << G8 << "] to " << sdyT << "[" << P
        << ", " << Q << ", " << G8 << "]\n";
  });
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

void ConvWriter::writeWgradTileBody() {
  int64_t pairs = pairedS(p) / 2;
  std::vector<WgradSum> sums = wgradSums(p);
  std::string FC = wgradAccumulatorType();
  out << "    %sx = spio.alloc : " << sxT << "\n    %sdy = spio.alloc : " << sdyT << "\n";
  if (flat) {
    out << "    %sxf = spio.view %sx : " << sxT << " to " << sxfT << "\n";
    out << "    %sdyf = spio.view %sdy : " << sdyT << " to " << sdyfT << "\n";
  }
  if (wgradRowPairs(p))
    out << "    %sxr = spio.view %sx : " << sxT << " to " << sxRowsT << "\n";
  // Warps along the pixels: 16-column fragments, or flattened rows' steps.
  std::string WQ = flat ? coord("m", 8 * wgradStepsPerWarp()) : coord("q", 16);
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
  stageInput(0, rows);
  stageGradient();
  out << "    spio.async_commit\n    spio.async_wait 0\n    gpu.barrier\n";
  if (flat && wgradRowsOfWholeSteps(p))
    computeWgradFlatRowSteps(accs);
  else if (flat)
    computeWgradFlat(accs);
  else
    computeWgrad(accs);
  out << "    gpu.barrier\n";
  closeCarryingLoop(accs, bandSums);
  // Two stages: the next band copies in while this one computes.
  out << " {spio.stages = 2}\n";
  // Each warp writes its partial sums: part = chunk * warpsQ + wq.
  std::string warpsQ = index(c.warpsQ);
  out << "    %wqi = spio.to_index %wq : " << WQ << "\n";
  out << "    %partBase = arith.muli %by, " << warpsQ << " : index\n";
  out << "    %parti = arith.addi %partBase, %wqi : index\n";
  out << "    %part = spio.from_index %parti : " << coord("part") << "\n";
  std::string limitSC = constant(16 * pairs, "sc"), limitK = constant(p.c, "k");
  for (size_t k = 0; k < sums.size(); ++k) {
    std::string rc = constant(sums[k].r, "r"), tap = constant(sums[k].s, "sc", 8);
    out << "    spio.store_fragment %sums#" << k << ", %ws[%part, %k0, %wgk, " << rc << ", " << tap
        << "] bounds " << limitSC << ", " << limitK << " : " << FC << ", " << wsT << "["
        << coord("part") << ", " << coord("k") << ", " << coord("k", 8) << ", " << coord("r")
        << ", " << coord("sc", 8) << "] bounds " << coord("sc") << ", " << coord("k") << "\n";
  }
}

/// dw[k, r, s, c] = the sum over the partials in a fixed order: the lanes
/// of a warp are [split, element] (wgradReduceSplits), each lane adds its
/// split's contiguous range of partials in order, and a pairwise tree of
/// shuffles adds the splits (both lanes of a pair add the same two values,
/// so all end with the same bits); split 0 stores.
void ConvWriter::writeWgradReduce() {
  int64_t total = p.c * p.r * p.s * 8, parts = conv2dGw8WgradPartials(p, c);
  int64_t splits = wgradReduceSplits(p, c), elementsPerWarp = 32 / splits;
  int64_t range = ceilDiv(parts, splits);
  out << "  gpu.func @conv2d_gw8_wgrad_reduce(%ws: " << wsT << ", %dw: " << dwT
      << ") kernel attributes {known_block_size = array<i32: " << kReduceThreads
      << ", 1, 1>} {\n";
  out << "    spio.wait_prerequisites\n";
  out << "    %bx = spio.linear_id block_x\n    %warp = spio.linear_id warp\n";
  out << "    %lane = spio.linear_id lane\n";
  std::string warps = index(kReduceThreads / 32), perWarp = index(elementsPerWarp);
  out << "    %warps = arith.muli %bx, " << warps << " : index\n";
  out << "    %w = arith.addi %warps, %warp : index\n";
  out << "    %first = arith.muli %w, " << perWarp << " : index\n";
  out << "    %e = arith.remui %lane, " << perWarp << " : index\n";
  out << "    %lin = arith.addi %first, %e : index\n";
  std::string limit = index(total), lastElement = index(total - 1);
  out << "    %valid = arith.cmpi ult, %lin, " << limit << " : index\n";
  // Lanes past the last element reduce it too (every lane takes part in
  // the shuffles) and store nothing.
  out << "    %element = arith.minui %lin, " << lastElement << " : index\n";
  out << "    %k, %r, %s, %c = spio.decompose %element [" << p.c << ", " << p.r << ", " << p.s
      << ", 8] : " << coord("k") << ", " << coord("r") << ", " << coord("s") << ", "
      << coord("c") << "\n";
  // Where the partial sums hold tap (r, s) (WgradSum): with row pairs, the
  // last tap at an odd row r comes from row r - 1's pair, at sc/8 = S.
  std::string wsR = "%r", tap;
  if (!wgradRowPairs(p)) {
    tap = reinterpret("%s", coord("s"), coord("sc", 8));
  } else {
    std::string one = index(1), lastS = index(p.s - 1), S = index(p.s);
    std::string ri = fresh("i"), si = fresh("i"), bit = fresh("i"), below = fresh("i");
    std::string odd = fresh("b"), last = fresh("b"), rowPair = fresh("b");
    std::string pairR = fresh("i"), pairS = fresh("i");
    out << "    " << ri << " = spio.to_index %r : " << coord("r") << "\n";
    out << "    " << si << " = spio.to_index %s : " << coord("s") << "\n";
    out << "    " << bit << " = arith.andi " << ri << ", " << one << " : index\n";
    out << "    " << odd << " = arith.cmpi eq, " << bit << ", " << one << " : index\n";
    out << "    " << last << " = arith.cmpi eq, " << si << ", " << lastS << " : index\n";
    out << "    " << rowPair << " = arith.andi " << odd << ", " << last << " : i1\n";
    out << "    " << below << " = arith.subi " << ri << ", " << bit << " : index\n";
    out << "    " << pairR << " = arith.select " << rowPair << ", " << below << ", " << ri
        << " : index\n";
    out << "    " << pairS << " = arith.select " << rowPair << ", " << S << ", " << si
        << " : index\n";
    wsR = fresh("v");
    tap = fresh("v");
    out << "    " << wsR << " = spio.from_index " << pairR << " : " << coord("r") << "\n";
    out << "    " << tap << " = spio.from_index " << pairS << " : " << coord("sc", 8) << "\n";
  }
  std::string channel = convert("cast", "%c", coord("c"), coord("sc"));
  // The split's partials in order, loaded kReduceUnroll at a time so that
  // their latencies overlap; the additions keep the order.
  std::string wsIndex = "[" + coord("part") + ", " + coord("k") + ", " + coord("r") + ", " +
                        coord("sc", 8) + ", " + coord("sc") + "]";
  out << "    %zero = arith.constant 0.0 : f32\n";
  std::string sum = "%zero";
  auto sumLoop = [&](const std::string &lower, const std::string &upper, int64_t step) {
    std::string i = fresh("i"), acc = fresh("acc"), result = fresh("sum");
    std::string stride = index(step);
    out << "    " << result << " = scf.for " << i << " = " << lower << " to " << upper
        << " step " << stride << " iter_args(" << acc << " = " << sum << ") -> (f32) {\n";
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
      out << "    " << v << " = spio.load %ws[" << part << ", %k, " << wsR << ", " << tap << ", "
          << channel << "] : " << wsT << wsIndex << "\n";
      values.push_back(v);
    }
    std::string running = acc;
    for (const std::string &v : values) {
      std::string next = fresh("v");
      out << "    " << next << " = arith.addf " << running << ", " << v << " : f32\n";
      running = next;
    }
    out << "    scf.yield " << running << " : f32\n    }\n";
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
    out << "    %width = arith.constant 32 : i32\n";
    for (int64_t mask = elementsPerWarp; mask < 32; mask *= 2) {
      std::string offset = fresh("m"), other = fresh("v"), ok = fresh("b"), next = fresh("v");
      out << "    " << offset << " = arith.constant " << mask << " : i32\n";
      out << "    " << other << ", " << ok << " = gpu.shuffle xor " << sum << ", " << offset
          << ", %width : f32\n";
      out << "    " << next << " = arith.addf " << sum << ", " << other << " : f32\n";
      sum = next;
    }
  }
  out << "    %first_split = arith.cmpi ult, %lane, " << perWarp << " : index\n";
  out << "    %stores = arith.andi %valid, %first_split : i1\n";
  out << "    scf.if %stores {\n";
  std::string value = sum;
  if (!p.wgradF32) {
    value = fresh("v");
    out << "    " << value << " = arith.truncf " << sum << " : f32 to " << T << "\n";
  }
  out << "    spio.store " << value << ", %dw[%k, %r, %s, %c] : " << dwT << "[" << coord("k")
      << ", " << coord("r") << ", " << coord("s") << ", " << coord("c") << "]\n";
  out << "    }\n    gpu.return\n  }\n";
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
