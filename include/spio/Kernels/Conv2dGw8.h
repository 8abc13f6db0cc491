//===- Conv2dGw8.h - Grouped conv2d with groups of 8 channels ---*- C++ -*-===//
//
// y[n, p, q, k] = bias[k] + sum_{r, s, c} x[n, p + r - padH, q + s - padW,
// g * (k / g) + c] * w[k, r, s, c], NHWC, C = K channels in groups of g = 8
// (or 1, 2, 4: depthwise and narrow groups, on the same kernels):
// the forward pass (fprop) of a depthwise-like grouped convolution, the
// input gradient (dgrad), which is the same kernel on dy, and the weight
// gradient (wgrad), a reduction over every output pixel. Each
// warp multiplies 16 output pixels by its group's 8 x 8 weights per tap with
// mma.sync (m16n8k16 over a pair of taps, m16n8k8 over an odd width's last
// one), reading the input through shared memory, where each
// block stages the rowsP + R - 1 input rows its rowsP output rows need
// (zero-filled padding) and keeps its groups' weights in registers.
//
// Written in the spio dialect: the input tile is indexed by output columns
// (`q`) shifted by the tap, so an explicit cast from input columns (`w`)
// is where the convolution's index arithmetic lives.
//
// No LLVM dependency: the kernels are built as IR by
// spio/Kernels/IR/Conv2dGw8Kernel.h.
//
//===----------------------------------------------------------------------===//

#ifndef SPIO_KERNELS_CONV2DGW8_H
#define SPIO_KERNELS_CONV2DGW8_H

#include "spio/Kernels/ConvPass.h"
#include "spio/Kernels/Gemm.h"
#include "spio/Kernels/TreeEnsemble.h"

#include <cstdint>
#include <string>
#include <vector>

namespace spio::kernels {

// Passes (ConvPass.h): dgrad runs fprop's kernel on dy with the taps
// flipped, the weights read transposed, and the padding R - 1 - padH
// (stride 1; negative for padding of R or more, which skips dy's rows that
// read only x's padding).
/// Whether wgrad's reduce drops the partial sums it read from L2 unwritten:
/// Auto where conv2dGw8WgradDiscards() finds it pays.
enum class WgradDiscard { Auto, Always, Never };
/// What of wgrad's band loop runs: all of it, or one part alone for
/// timing (the partial sums then come out wrong): its copies, the copies
/// of as many x rows as a band has dy rows (no halo rows re-read), or its
/// fragment loads and mma.
enum class WgradParts { All, Copies, CopiesWithoutRowHalo, Mma };

const char *convPassName(ConvPass pass);

/// The most padding a side: any a layer asks for in practice, and small
/// enough that the output's size arithmetic stays within int64.
constexpr int64_t kMaxConvPadding = int64_t(1) << 30;

struct Conv2dGw8Problem {
  int64_t n = 1, c = 64, h = 56, w = 56;
  int64_t r = 3, s = 3;
  int64_t padH = 1, padW = 1;
  int64_t stride = 1;
  /// Channels a group: 8, or 1 (depthwise), 2 or 4. A narrower group runs
  /// on the group-width-8 kernels with each 8 channels' weights staged as
  /// a block-diagonal 8 x 8 matrix (zeros between its groups), and wgrad
  /// keeps only those blocks of its sums: the same memory traffic as
  /// width 8 and the tensor cores' spare work.
  int64_t groupWidth = 8;
  bool bias = false;
  DType dtype = DType::F16;
  ConvPass pass = ConvPass::Fprop;
  /// wgrad writes dw as f32 rather than as the weight dtype.
  bool wgradF32 = false;
  /// wgrad adds its partial sums in the one kernel: the blocks of a group
  /// tile (at most kMaxClusterBlocks) run as a thread-block cluster, keep
  /// their sums in shared memory and add each other's through distributed
  /// shared memory in block order, as the reduce kernel would (the same
  /// bits), into dw: no workspace and no reduce kernel (sm_90 and later).
  bool wgradClusterReduce = false;
  /// wgrad's reduce drops the partial sums it has read from L2 without
  /// writing them back (spio.discard): its blocks add whole output
  /// channels where one fits (R * S * 8 dw elements), and each drops the
  /// lines of the channels whose elements are all its own.
  WgradDiscard wgradDiscard = WgradDiscard::Auto;
  /// wgrad's partial-sum blocks let the reduce launch as they start
  /// (spio.launch_dependents first) rather than once they have stored
  /// their sums, so that its blocks wait resident, where room is left,
  /// for the partial sums' grid to end (which the reduce waits for either
  /// way: the same bits).
  bool wgradEarlyLaunch = false;
  /// wgrad's band loop whole, or one part of it alone (WgradParts).
  WgradParts wgradParts = WgradParts::All;
  /// The GPU the kernels are chosen and sized for: wgrad's grid, and that
  /// of fprop and dgrad on flattened rows, aim for whole waves on its
  /// multiprocessors; wgrad's WgradDiscard::Auto weighs its L2; the blocks
  /// fit its shared memory. checkConv2dGw8 refuses one without them.
  Target target;

  /// The kernels' groups of 8 channels (a narrower group width's groups
  /// tile them).
  int64_t groups() const { return c / 8; }
  bool narrowGroups() const { return groupWidth != 8; }
  /// The convolution's output (y, or dy for dgrad) height and width.
  /// 0 where the kernel is larger than the padded image (integer division
  /// would round a stride-2 (-1) / 2 up to one row).
  int64_t outH() const { return h + 2 * padH < r ? 0 : (h + 2 * padH - r) / stride + 1; }
  int64_t outW() const { return w + 2 * padW < s ? 0 : (w + 2 * padW - s) / stride + 1; }
  /// The image the kernel stages (x; dy for dgrad) and the pixel grid it
  /// walks (y, or dx for dgrad; for wgrad the pixels of dy it reduces over).
  bool dgrad() const { return pass == ConvPass::Dgrad; }
  int64_t kernelInH() const { return dgrad() ? outH() : h; }
  int64_t kernelInW() const { return dgrad() ? outW() : w; }
  int64_t kernelOutH() const { return dgrad() ? h : outH(); }
  int64_t kernelOutW() const { return dgrad() ? w : outW(); }
  int64_t kernelPadH() const { return dgrad() ? r - 1 - padH : padH; }
  int64_t kernelPadW() const { return dgrad() ? s - 1 - padW : padW; }
};

struct Conv2dGw8Config {
  /// Warps along output columns (16 pixels each) and along groups.
  int64_t warpsQ = 4, warpsG = 2;
  /// Output rows per block: the block stages rowsP + R - 1 input rows once.
  /// wgrad: rows of dy per band, the unit a block stages and reduces.
  int64_t rowsP = 4;
  /// wgrad: blocks along the reduction; each reduces a contiguous range of
  /// bands into one set of partial sums (its warps along Q added in
  /// shared memory). fprop and dgrad: blocks along the bands of rows
  /// (flattened rows, or (image, row tile) bands of rows of fragments),
  /// each loading its weights once for a contiguous range of them, the
  /// next band's rows copying in while one computes (0: choose; rows of
  /// fragments then take one band a block).
  int64_t chunks = 0;
  /// fprop and dgrad on rows of fragments, stride 1: warps that only copy
  /// staged rows in, apart from the warpsQ x warpsG that compute, each
  /// row signalled through arrive/wait barriers (0: none; the compute
  /// warps copy). A block then streams its chunk's bands through one
  /// staged tile: the copy warps fill each row's slot with the next band's
  /// row as soon as the compute warps have read it.
  int64_t copyWarps = 0;
  /// wgrad, stride 1, rows of fragments: a block's bands walk down a
  /// column tile, and a band that continues the one before copies only its
  /// rowsP new rows of x; the R - 1 above them are handed on in shared
  /// memory from that band's tile (x read from L2 once per row, not
  /// (rowsP + R - 1) / rowsP times).
  bool rowRing = false;
  /// wgrad: the band loop's stages, spio-pipeline's buffers of the staged
  /// tiles (0: choose, wgradStages).
  int64_t stages = 0;
  /// wgrad's reduce kernel: the dw elements a lane adds at once, 1, 2 or 4
  /// (one load of 4, 8 or 16 bytes a partial; 0: choose). Every count adds
  /// each element's partials in the same order: the same bits.
  int64_t reduceLaneElements = 0;
  int64_t computeWarps() const { return warpsQ * warpsG; }
  int64_t threads() const { return 32 * (computeWarps() + copyWarps); }
};

/// The hand rules' configuration for the problem (from sweeps on an H200),
/// the seed of the candidates: fprop and dgrad take up to 8 groups a block (64-byte or wider
/// pixels coalesce; 3 or 5 only as an image's whole pixel), the warps
/// along Q that round the fewest columns up, and a row count that divides
/// the height; wgrad takes up to 4 warps along Q (one set of partial sums
/// each), bands of 8 or 9 rows (4 with stride 2) and at most two blocks a
/// multiprocessor in all. A problem checkConv2dGw8Problem refuses gets the
/// default configuration, which checkConv2dGw8 then refuses with the reason.
Conv2dGw8Config conv2dGw8RuleConfig(const Conv2dGw8Problem &problem);

/// The configuration Spio runs: of conv2dGw8Candidates the one the
/// performance model (conv2dGw8Model) predicts fastest on the problem's
/// target, where the model's data was measured on such a target
/// (conv2dGw8ModelKnowsTarget); else the rules'. All candidates write the
/// same bits, so the model changes speed, never results.
Conv2dGw8Config chooseConv2dGw8Config(const Conv2dGw8Problem &problem);

/// conv2d-gw8's performance model: regression trees over
/// conv2dGw8Features predicting an fprop or dgrad candidate's log time
/// (less its layer's mean), trained by benchmarks/model/train.py on
/// measured sweeps.
const TreeEnsemble &conv2dGw8Model();

/// Whether the model's data was measured on a GPU of the problem's
/// multiprocessors and shared memory: elsewhere the model would
/// extrapolate, and the rules choose.
bool conv2dGw8ModelKnowsTarget(const Conv2dGw8Problem &problem);

/// The most candidates the rules' list holds unless a caller asks for
/// fewer (conv2dGw8RuleCandidates), and the most the chooser ranks: those
/// and up to 4 tiles the rules never take (conv2dGw8Candidates).
constexpr int64_t kConv2dGw8RuleCandidates = 10;
constexpr int64_t kConv2dGw8Candidates = kConv2dGw8RuleCandidates + 4;

/// Configurations worth timing on the device for the problem (autotuning,
/// as cudnn.benchmark does), at most `most`: conv2dGw8RuleCandidates, then
/// for fprop and dgrad of 7 or 9 groups tiles of all of them (whole
/// pixels) in one and two warps along the columns, and of an odd number of
/// groups over 8 tiles of 4 and 8 groups, which the rules never take
/// (Conv2dGw8.cpp, addWholePixelTiles, addOddGroupTiles); in the order of
/// the model's predictions where it knows the target, so the chosen one
/// (chooseConv2dGw8Config, the model's pick among them all) first and the
/// likeliest runners-up next; else in the rules' order.
std::vector<Conv2dGw8Config> conv2dGw8Candidates(const Conv2dGw8Problem &problem,
                                                 int64_t most = kConv2dGw8Candidates);

/// The rules' configuration (conv2dGw8RuleConfig) first, then those of its
/// neighbours that checkConv2dGw8 takes, at most `most` in all: the rules'
/// configuration as a band ring in as many blocks as run at once (of the
/// ring, and of one band a block), or where the rules take a ring, one
/// band a block; at stride 1, two copy warps streaming the bands in as
/// many blocks as run at once (and for 5 or more columns four times as
/// many), where a block gets two or more bands; the rules' warps in
/// blocks of about half and twice the rows; one column tile spanning the
/// output row (in the rules' group tiles and in 4); a warp more or fewer
/// along the columns; the same warps over 8 or 4 groups where that
/// leaves no more groups idle; none with a warp along the columns past
/// the row. fprop and dgrad on rows of fragments only: every
/// configuration adds each output's taps in the same order, so all write
/// the same bits; flattened rows (single small images) are few and keep
/// the rules' alone. wgrad's partial sums follow its blocks (other
/// warps, rows or chunks would round differently), so its candidates keep
/// the rules' blocks and vary what leaves the sums as they are: the other
/// of 2 or 3 stages, the row ring toggled where a band spans the output
/// row, and the reduce's other lane widths.
std::vector<Conv2dGw8Config> conv2dGw8RuleCandidates(const Conv2dGw8Problem &problem,
                                                     int64_t most = kConv2dGw8RuleCandidates);

/// What the performance model reads of a problem and configuration on its
/// target (sizes, the configuration's fields, and what follows from them:
/// blocks, waves, blocks a multiprocessor holds, shared bytes, the share
/// of columns, groups and rows that are not rounding), by name.
const std::vector<std::string> &conv2dGw8FeatureNames();
std::vector<double> conv2dGw8Features(const Conv2dGw8Problem &problem,
                                      const Conv2dGw8Config &config);

/// Empty when the problem is one the kernels take (sizes, channels, kernel
/// size, stride, padding, a non-empty output, bias and dtypes), else what
/// is wrong, whatever the configuration.
std::string checkConv2dGw8Problem(const Conv2dGw8Problem &problem);

/// Empty when the kernel can be built, else what is wrong: the problem's
/// checks, then the configuration's.
std::string checkConv2dGw8(const Conv2dGw8Problem &problem, const Conv2dGw8Config &config);

LaunchShape conv2dGw8LaunchShape(const Conv2dGw8Problem &problem,
                                 const Conv2dGw8Config &config);

/// wgrad: the reduce kernel's launch, and the f32 partial sums between the
/// kernels (one [K, R, 2 * ceil(S / 2), 8] set per chunk).
LaunchShape conv2dGw8WgradReduceLaunchShape(const Conv2dGw8Problem &problem,
                                             const Conv2dGw8Config &config);
int64_t conv2dGw8WgradPartials(const Conv2dGw8Problem &problem, const Conv2dGw8Config &config);
/// The workspace: wgrad's partial sums, then with a bias its blocks' sums of dy.
int64_t conv2dGw8WorkspaceBytes(const Conv2dGw8Problem &problem, const Conv2dGw8Config &config);
/// wgrad with a bias: the launches of the bias gradient's two kernels
/// (whatever the configuration), and the longest chain of f32 additions
/// behind one db element.
LaunchShape conv2dGw8WgradBiasLaunchShape(const Conv2dGw8Problem &problem);
LaunchShape conv2dGw8WgradBiasReduceLaunchShape(const Conv2dGw8Problem &problem);
int64_t conv2dGw8WgradBiasAccumulationChain(const Conv2dGw8Problem &problem);
/// Whether wgrad's reduce discards the partial sums it read: never where
/// an output channel (R * S * 8 dw elements) spans reduce blocks. Auto: where
/// x, dy, dw and the partial sums outgrow three quarters of the L2, so that
/// the partial sums' dirty lines would be written back to DRAM. Below that
/// nothing evicts them, and the discard's barrier and fewer lanes a block
/// only cost.
bool conv2dGw8WgradDiscards(const Conv2dGw8Problem &problem, const Conv2dGw8Config &config);

/// The most blocks of a portable thread-block cluster, which bounds the
/// partial sums wgradClusterReduce adds.
constexpr int64_t kMaxClusterBlocks = 8;
/// wgrad: the longest chain of f32 additions behind one dw element (the mma
/// steps of a warp over its chunk's bands, then the partial sums), which
/// bounds its rounding error.
int64_t conv2dGw8WgradAccumulationChain(const Conv2dGw8Problem &problem,
                                        const Conv2dGw8Config &config);

} // namespace spio::kernels

#endif // SPIO_KERNELS_CONV2DGW8_H
