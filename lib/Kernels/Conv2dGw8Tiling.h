//===- Conv2dGw8Tiling.h - How conv2d-gw8 tiles a problem -------*- C++ -*-===//
//
// The tiling model that the configuration chooser (Conv2dGw8.cpp) and the
// kernel builder (IR/Conv2dGw8Kernel.cpp) share: mma steps along the taps,
// wgrad's partial sums, bands and their grid, the staged input tile, shared
// memory and resident blocks. Not installed. The definitions, with what each
// rule was measured against, are in Conv2dGw8.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef SPIO_LIB_KERNELS_CONV2DGW8TILING_H
#define SPIO_LIB_KERNELS_CONV2DGW8TILING_H

#include "spio/Kernels/Conv2dGw8.h"

#include <cstdint>
#include <vector>

namespace spio::kernels::gw8 {

inline int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// Kernels that loop over bands: wgrad walks dy in bands of rowsP rows by
/// 16 * warpsQ columns, and fprop and dgrad on flattened rows walk their
/// output in bands of rowsP rows of whole images; each block (one per
/// group tile and chunk) takes a contiguous range of bands.
struct BandGrid {
  int64_t qTiles, bands, bandsPerChunk, chunks, groupTiles;
  /// Images side by side in a band's row (packedImages, or gaplessImages).
  int64_t images;
  /// The images' output columns run on without the S - 1 columns between
  /// two images (gaplessImages): column tile t computes pixels [16 *
  /// warpsQ * t, 16 * warpsQ * (t + 1)) of the row of images, and the
  /// rows of its A fragments are gathered from the images' staged columns.
  bool gapless = false;
};

/// fprop's and dgrad's mma steps along S: `taps` taps from tap `s`. Tap
/// pairs, each an m16n8k16 over taps s and s + 1 times 8 channels (half
/// the mma and ldmatrix instructions of two m16n8k8), then for odd S the
/// last tap alone, an m16n8k8 into the same sums (the accumulators of both
/// shapes are one layout): half the tensor work of pairing it with a zero
/// tap (TUNING.md, "Taps").
struct TapStep {
  int64_t s, taps;
};

/// One of wgrad's partial sums a warp keeps, the 16 rows of an mma's A
/// times 8 channels: taps s and s + 1 of kernel row r, or (`rowPair`) an
/// odd S's last tap s at rows r and r + 1, whose A fragment reads its upper
/// 8 rows from the next staged row. Row pairs leave a padding tap only in
/// an odd R's last row: 5x5 keeps 13 sums (52 registers, not 60) and runs
/// 13 mma a row of dy, not 15, for one more A load a staged row. Kernels
/// of 5 or more columns pair rows; 3x3, which would trade 3 A loads a
/// staged row instead of 2 for 5 mma instead of 6, does not (TUNING.md,
/// "Taps"). The partial sums keep the
/// layout of paired taps, [r, sc/8 < S + 1]: a row pair stores tap
/// (r + 1, S - 1) where tap (r, S) would be, which the reduce reads there.
struct WgradSum {
  int64_t r, s;
  bool rowPair;
};

/// 16-byte vectors between the pixels (or staged columns) of a shared tile
/// that holds `vectors` a pixel, such that the 8 rows an ldmatrix reads hit
/// distinct bank slots: an odd count as it is, a power of two as it is
/// (its tile is swizzled), any other count (6 groups; 3 or 5 of stride 2)
/// one more, odd.
inline int64_t conflictFreePitch(int64_t vectors) {
  bool powerOfTwo = (vectors & (vectors - 1)) == 0;
  return vectors % 2 == 1 || powerOfTwo ? vectors : vectors + 1;
}

/// The input tile a block stages in shared memory.
struct StagedInput {
  /// Output columns a block computes, and the staged columns they read
  /// (`copiedColumns`), rounded up to whole swizzle periods of 8
  /// (`stagedColumns`): the columns past copiedColumns are neither copied
  /// nor read.
  int64_t columns, stagedColumns, copiedColumns;
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
  /// Staged rows from an output row to the next: the stride, but 1 for a
  /// kernel one row tall (R = 1) at stride 2, which stages only the even
  /// input rows its outputs read (staged row i is input row 2 i of the
  /// band's).
  int64_t rowStride;
  /// 16-byte vectors between staged columns: `stride` input columns of
  /// `warpsG` groups, padded (conflictFreePitch).
  int64_t columnPitch(int64_t warpsG) const { return conflictFreePitch(stride * warpsG); }
  /// Vectors from a tap to the next of an mma's pair: the next staged
  /// column (stride 1), or the other parity of the same one (stride 2).
  int64_t tapPairStride(int64_t warpsG) const {
    return stride == 2 ? warpsG : columnPitch(warpsG);
  }
  int64_t bytes(int64_t warpsG) const { return slots * stagedColumns * columnPitch(warpsG) * 16; }
  /// wgrad: x's and dy's tiles.
  int64_t wgradBytes(int64_t warpsG) const {
    return bytes(warpsG) + gradientRows * columns * conflictFreePitch(warpsG) * 16;
  }
};

/// The reduce kernel: `splits` lanes of a warp per dw element, each adding
/// a contiguous range of the partials in order, 16 loads at a time, then
/// the ranges in a fixed pairwise tree (shuffles). Splits grow (to 8) while
/// a lane's range is longer than 32: one lane an element leaves the
/// loads' latency exposed on long reductions (TUNING.md, "wgrad's
/// reduce").
constexpr int64_t kReduceThreads = 256;
constexpr int64_t kReduceUnroll = 16;

/// Taps: fprop's and dgrad's mma steps, wgrad's partial sums and tap pairs.
std::vector<TapStep> tapSteps(const Conv2dGw8Problem &p);
int64_t pairedS(const Conv2dGw8Problem &p);
bool wgradRowPairs(const Conv2dGw8Problem &p);
std::vector<WgradSum> wgradSums(const Conv2dGw8Problem &p);

/// Rows, columns and groups: bands, flattened rows, images side by side.
bool upsamplesDy(const Conv2dGw8Problem &p);
int64_t flatPitch(const Conv2dGw8Problem &p);
int64_t wgradFlatPitch(const Conv2dGw8Problem &p);
bool wgradRowsOfWholeSteps(const Conv2dGw8Problem &p);
bool flatRows(const Conv2dGw8Problem &p);
int64_t packedPitch(const Conv2dGw8Problem &p);
BandGrid bandGrid(const Conv2dGw8Problem &p, const Conv2dGw8Config &c);
bool skipsZeroRows(const Conv2dGw8Problem &p, const Conv2dGw8Config &c);
StagedInput stagedInput(const Conv2dGw8Problem &p, const Conv2dGw8Config &c);

/// Shared memory, the blocks a multiprocessor holds, the reduce's lanes.
int64_t outputPitch(int64_t warpsG);
int64_t rowsResidentBlocks(const Conv2dGw8Problem &p, const Conv2dGw8Config &c,
                           int64_t outputRows);
int64_t outputRowsPerBarrier(const Conv2dGw8Problem &p, const Conv2dGw8Config &c);

/// With copy warps: the arrive/wait barriers of the staged tile, a full and
/// an empty one per staged row.
int64_t streamBarrierCount(const Conv2dGw8Problem &p, const Conv2dGw8Config &c);
int64_t wgradResidentBlocks(const Conv2dGw8Problem &p, const Conv2dGw8Config &c);
bool wgradTilesFit(const Conv2dGw8Problem &p, const Conv2dGw8Config &c);
int64_t wgradReduceSplits(const Conv2dGw8Problem &p, const Conv2dGw8Config &c);
/// The dw elements a reduce lane adds at once, a load of each partial: the
/// configuration's reduceLaneElements where set, else 4 (16 bytes) for 5x5
/// kernels whose grid of such lanes keeps 3/4 of the multiprocessors busy,
/// else 1.
int64_t wgradReduceVector(const Conv2dGw8Problem &p, const Conv2dGw8Config &c);
/// The dw elements a reduce block adds: wgradReduceVector a lane group
/// (kReduceThreads / splits of them), or where conv2dGw8WgradDiscards() as
/// many whole output channels as fit (R * S * 8 elements each), the rest of
/// its lanes idle, so that each block alone reads, and discards, its
/// channels' partial sums.
int64_t wgradReduceElementsPerBlock(const Conv2dGw8Problem &p, const Conv2dGw8Config &c);
/// wgrad blocks of more than one warp along the pixels add their warps'
/// partial sums in shared memory, in warp order, and store one partial a
/// block: this many sums a round (all where they fit beside the staged
/// tiles at wgradResidentBlocks, at least one); 0 for one warp.
int64_t wgradSumsPerRound(const Conv2dGw8Problem &p, const Conv2dGw8Config &c);
/// wgradClusterReduce: a block's sums in shared memory, [k: 8 * warpsG, r:
/// R, sc/8, sc: 8] f32 (the partial sums' layout, one part).
int64_t wgradClusterSumBytes(const Conv2dGw8Problem &p, const Conv2dGw8Config &c);
/// The stages of wgrad's band loop (spio-pipeline): 2 or 3.
int64_t wgradStages(const Conv2dGw8Problem &p, const Conv2dGw8Config &c);

/// wgrad with a bias: db, dy summed over its pixels. Blocks of
/// kReduceThreads threads each add a range of pixelsPerBlock pixels: thread
/// t adds 8 channels (vector t % lanes, then every lanes-th) over the
/// range's pixels t / lanes, + slots, ... in order; the block adds its
/// slots in order in shared memory and stores one f32 partial a channel.
/// The partials follow dw's in the workspace; the reduce adds them in
/// block order (a warp an 8-channel vector, 32 lanes then a shuffle tree).
struct WgradBiasTiling {
  int64_t lanes;          // channel vectors a step covers: the largest divisor
                          // of C / 8 up to kReduceThreads
  int64_t slots;          // pixels a step covers: kReduceThreads / lanes
  int64_t pixelsPerBlock; // pixels a block adds
  int64_t blocks;         // the partials, at most two a multiprocessor
};
WgradBiasTiling wgradBiasTiling(const Conv2dGw8Problem &p);
/// Where the bias partials start in the workspace, in 8-float vectors.
int64_t wgradBiasPartialsOffset(const Conv2dGw8Problem &p, const Conv2dGw8Config &c);

} // namespace spio::kernels::gw8

#endif // SPIO_LIB_KERNELS_CONV2DGW8TILING_H
