//===- Conv2d.h - Dense conv2d as an implicit GEMM --------------*- C++ -*-===//
//
// y[n, p, q, k] = epilogue(sum_{r, s, c} x[n, p * strideH - padH + r *
// dilationH, q * strideW - padW + s * dilationW, c] * w[k, r, s, c]), NHWC
// input and output, KRSC weights, f16 or bf16 inputs, f32 accumulation:
// the forward pass of a dense (groups = 1) convolution. It runs on the
// wgmma GEMM kernel (sm_90a) as D = A @ B^T with D = y as an (N * P * Q) x K
// matrix, B = w as a K x (R * S * C) matrix, and A the implicit im2col
// matrix of x, which TMA gathers tile by tile in its im2col mode: each
// k-tile is one filter tap's 64 channels. Channels past C read as zeros.
//
// dgrad computes dx[n, h, w, c] = sum_{r, s, k} dy[n, p, q, k] * w[k, r, s,
// c] over the (p, q) whose taps read (h, w): at stride 1 the forward read
// backward, a convolution of dy (padded by dilation * (R - 1) - pad) with
// the taps flipped, D = dx as an (N * H * W) x C matrix, A dy's im2col
// matrix and B = w read as K rows of R * S * C, N-major (wgmma's
// transposed operand). At a stride over 1 each phase of dx (its positions
// h = a + strideH * i, w = b + strideW * j) is read by its own taps only
// (those with (a + padH - r * dilationH) % strideH = 0), so each phase is a
// stride-1 convolution of dy with those taps flipped, one kernel a phase;
// the positions of phases no tap reads are zeroed by a kernel of their own.
//
// wgrad computes dw[k, r, s, c] = sum_{n, p, q} dy[n, p, q, k] * x[n, p *
// strideH - padH + r * dilationH, q * strideW - padW + s * dilationW, c],
// D = dw as a K x (R * S * C) matrix, A = dy read M-major (positions x K),
// B x's im2col matrix read N-major (positions x a tap's channels, gathered
// by TMA), the reduction every output position, split among a cluster's
// blocks that add their sums in rank order.
//
// Grouped (groups = G > 1, C / G and K / G multiples of 64): each group's
// K / G outputs read its C / G inputs only; a tile's columns are one
// group's outputs (fprop; dgrad: inputs), so its k-tiles gather that
// group's channels of x (dy) and w is K x R * S * (C / G); wgrad's rows are
// one group's outputs, its columns the taps of that group's inputs.
// Groups of 16 or 32 channels (C = K a multiple of 64) run as C / 64
// groups of 64 whose weights are block-diagonal: a kernel expands w into
// the workspace ([K, R, S, 64], zeros off each output channel's group)
// before fprop and dgrad, and wgrad's sums of those blocks go to the
// workspace, whose diagonal blocks the reduce kernel adds into dw. Other
// groups of a multiple of 8 channels (fprop and dgrad) pad each tap of w
// with zeros to a multiple of 64 channels in the workspace (dgrad's
// transposed, [C, R, S, K']), since a k-tile gathers 64 channels from the
// group's first; a tile's columns divide the group's outputs (dgrad:
// inputs), any multiple of 8 up to wgmma's 256.
//
// No LLVM dependency: problems, configs, checks and launch shapes only.
//
//===----------------------------------------------------------------------===//

#ifndef SPIO_KERNELS_CONV2D_H
#define SPIO_KERNELS_CONV2D_H

#include "spio/Kernels/ConvPass.h"
#include "spio/Kernels/Gemm.h"
#include "spio/Runtime/TensorMap.h"

#include <cstdint>
#include <string>
#include <vector>

namespace spio::kernels {

/// The forward problem's sizes (x [n, h, w, c], w [k, r, s, c]) whichever
/// pass computes it.
struct Conv2dProblem {
  /// Fprop, Dgrad or Wgrad.
  ConvPass pass = ConvPass::Fprop;
  int64_t n = 1, h = 56, w = 56, c = 64, k = 64;
  int64_t r = 3, s = 3;
  int64_t strideH = 1, strideW = 1;
  int64_t padH = 1, padW = 1;
  int64_t dilationH = 1, dilationW = 1;
  /// Groups of C / G inputs and K / G outputs (1: dense).
  int64_t groups = 1;
  DType input = DType::BF16, output = DType::BF16;
  /// The epilogue's steps in order: scale (a value an output channel, e.g.
  /// a folded batch norm), bias (one an output channel), residual (adds
  /// y's shape of C), activations.
  std::vector<EpilogueStep> epilogue;
  DType biasType = DType::F32, scaleType = DType::F32;
  /// wgrad: the reduction's parts, one a grid entry along z; with more
  /// than one, each writes its f32 sums into a workspace and a reduce
  /// kernel adds the parts in order into dw (conv2dWgradParts chooses).
  int64_t parts = 1;
  /// dgrad at a stride over 1: the phase (h % strideH, w % strideW) of dx
  /// that one kernel computes, what the functions of one kernel describe
  /// (the GEMM, its maps and launch shape). checkConv2d, the chooser, the
  /// launch plan and the workload cover every phase whatever it holds.
  int64_t phaseH = 0, phaseW = 0;
};

/// One side of a dgrad phase: dx's positions phase, phase + stride, ...
/// (`positions` of them), read by w's taps last, last - step, ... (`taps`
/// of them; none: the phase is zero), which read dy `dilation` apart: as a
/// stride-1 convolution of dy with those taps flipped, its window starts
/// `pad` positions before dy's first (negative: inside).
struct Conv2dPhaseSide {
  int64_t positions = 0, taps = 0, lastTap = 0, tapStep = 1, dilation = 1, pad = 0;
};
/// Along one side of size `in` with `filterTaps` taps: phase `phase` of
/// dgrad at `stride`, `pad` and `dilation`.
Conv2dPhaseSide conv2dPhaseSide(int64_t in, int64_t filterTaps, int64_t stride, int64_t pad,
                                int64_t dilation, int64_t phase);
/// dgrad at a stride over 1: a kernel a phase of dx.
bool conv2dStridedDgrad(const Conv2dProblem &problem);
/// dgrad: the phases (phaseH, phaseW) whose kernels run (positions and taps
/// on both sides), rows first; one, (0, 0), at stride 1.
std::vector<Conv2dProblem> conv2dDgradPhases(const Conv2dProblem &problem);
/// dgrad: whether some of dx's positions are read by no tap (the zeroing
/// kernel runs).
bool conv2dDgradZeroes(const Conv2dProblem &problem);

/// A group's input channels C / G and output channels K / G.
int64_t conv2dGroupInputs(const Conv2dProblem &problem);
int64_t conv2dGroupOutputs(const Conv2dProblem &problem);
/// Groups of fewer than 64 channels, a multiple of 8, C = K: the groups a
/// block of block-diagonal weights holds, the most (dividing G) whose
/// channels fit a k-tile of 64, or two k-tiles where that block is under 32
/// channels (groups of 16 or 32 on a multiple of 64 channels: blocks of
/// 64; RegNetY-800MF's 9 groups of 16: of 48, its 49: of 112); 1 for none.
int64_t conv2dBlockGroups(const Conv2dProblem &problem);
/// Blocks of more than one group (conv2dBlockGroups): the kernels compute
/// the convolution of G / m groups of m * C / G channels whose weights are
/// block-diagonal (their blocks padded as padded groups' where not a
/// multiple of 64).
bool conv2dBlockDiagonal(const Conv2dProblem &problem);
/// Groups whose reduction is not of a multiple of 64 channels (fprop: a
/// group's inputs; dgrad: its outputs, or inputs, its tiles' columns;
/// wgrad: its inputs, a dense layer's too, or outputs, its tiles' rows),
/// not block-diagonal (RegNet's 24, 48, 56, 112, ...): a k-tile gathers 64
/// channels from the group's first, past its own into the next group's
/// (past C, zeros), so the weights the kernel reads hold each tap's
/// channels padded with zeros to a multiple of 64 (conv2dWeightTapChannels),
/// which a kernel expands w into first: fprop's [K, R, S, C'], dgrad's
/// transposed [C, R, S, K'] (C' and K' a group's C / G and K / G rounded up
/// to 64), which dgrad reads K-major (so that its tiles' columns, a
/// group's inputs, may be any multiple of 8); wgrad computes dw' [G * K',
/// R, S, C'] (a dense layer's [K, R, S, C']), which its reduce kernel
/// takes dw from.
bool conv2dPadsGroups(const Conv2dProblem &problem);
/// dgrad of padded groups: w transposed into [C, R, S, K'].
bool conv2dTransposesWeights(const Conv2dProblem &problem);
/// The channels a tap of the weights the implicit GEMM reads (wgrad:
/// writes): a group's C / G, rounded up to a multiple of 64 where the
/// groups are padded (dgrad's transposed weights: its K / G rounded up).
int64_t conv2dWeightTapChannels(const Conv2dProblem &problem);
/// The rows of the weights the implicit GEMM reads (fprop, dgrad) or
/// writes (wgrad): K; dgrad's transposed weights' C; wgrad's dw' of padded
/// groups G * K'.
int64_t conv2dWeightRows(const Conv2dProblem &problem);
/// Whether fprop and dgrad read w expanded into the workspace
/// (block-diagonal or padded groups).
bool conv2dExpandsWeights(const Conv2dProblem &problem);
/// A dense fprop or wgrad whose C is not a multiple of 8 (RGB stems: 3
/// channels), whose pixels are not whole 16-byte vectors as TMA reads them:
/// x is unfolded first into x' [N, H', Q, C'], whose pixel (h', q) holds
/// the C channels of each of the S columns output column q reads from each
/// of conv2dUnfoldedRows filter rows from row h' - padH on (C' = that count
/// rounded up to the k-tile's 64, zeros past it and off x's sides); fprop
/// unfolds w into w' [K, R', 1, C'] alike (R' = R over the rows folded,
/// rounded up) and convolves x' with R' x 1 taps, no padding; wgrad's
/// kernel computes that convolution's dw', which its reduce kernel folds
/// back into dw.
bool conv2dUnfolds(const Conv2dProblem &problem);
/// The filter rows each pixel of x' holds: as many as fill a k-tile's 64
/// channels with S * C of each (at most R), else 1.
int64_t conv2dUnfoldedRows(const Conv2dProblem &problem);
/// The problem the implicit-GEMM kernels compute: `problem`, or where it is
/// block-diagonal the same convolution in G / m groups of blocks (w then
/// the expanded [K, R, S, m * C / G], padded to 64), or where it unfolds x
/// the R' x 1 convolution of x' and w'.
Conv2dProblem conv2dKernelProblem(const Conv2dProblem &problem);
/// The kernels unfolding x and w into the workspace (x' first, then w' or
/// wgrad's sums at conv2dUnfoldedXBytes): x' a block a run of
/// conv2dUnfoldXPixels pixels of one of its rows, w' a thread a 16-byte
/// vector.
constexpr const char *kConv2dUnfoldX = "conv2d_unfold_x", *kConv2dUnfoldW = "conv2d_unfold_w";
LaunchShape conv2dUnfoldLaunchShape(const Conv2dProblem &problem, char operand);
/// The pixels of a row of x' a block of x's unfolding writes: as many as
/// keep the x values they read (conv2dUnfoldXStagedValues) within 16 KB of
/// shared memory, the row's runs of equal length but the last; at least 1.
int64_t conv2dUnfoldXPixels(const Conv2dProblem &problem);
/// The x values a run of `pixels` pixels of x' reads: F filter rows of the
/// columns the run's taps read, C channels each.
int64_t conv2dUnfoldXStagedValues(const Conv2dProblem &problem, int64_t pixels);
/// The workspace's bytes x' takes, rounded up to 256.
int64_t conv2dUnfoldedXBytes(const Conv2dProblem &problem);
/// Block-diagonal or padded groups: the kernel that expands w into the
/// workspace, a thread a 16-byte vector of [conv2dWeightRows, R, S,
/// conv2dWeightTapChannels] (block-diagonal: of the kernel problem's 64).
constexpr const char *kConv2dExpandWeights = "conv2d_expand_weights";
LaunchShape conv2dExpandWeightsLaunchShape(const Conv2dProblem &problem);

/// Output rows P and columns Q (0 or less where the filter does not fit),
/// and the N * P * Q output positions.
int64_t conv2dOutputHeight(const Conv2dProblem &problem);
int64_t conv2dOutputWidth(const Conv2dProblem &problem);
int64_t conv2dOutputPositions(const Conv2dProblem &problem);

/// The implicit GEMM: M = N * P * Q output positions (rows `npq`), N = K
/// output channels (columns `k`), and a reduction (`rsc`) of R * S taps of
/// C channels padded to the k-tile's 64, so that k-tile t is tap t / T's
/// channels 64 * (t % T) on, T = ceil(C / 64) (of a group's C / G where
/// grouped: w's rows are then R * S * C / G long). dgrad: M = N * H * W
/// (`nhw`), N = C (`c`), the reduction (`rsk`) R * S taps of K channels. wgrad: M =
/// K (`k`), N = R * S * C (`rsc`), the reduction (`npq`) the output
/// positions padded to whole k-tiles; A = dy M-major, B = x's im2col
/// matrix N-major.
GemmProblem conv2dGemmProblem(const Conv2dProblem &problem);
/// The convolution whose im2col matrix is A, as the kernel gathers it.
struct Conv2dGathered {
  /// fprop: the problem. dgrad: the one over dy (P x Q images of K
  /// channels, K outputs C, stride 1), its taps the phase's flipped, their
  /// dilation and the window's lower padding (negative: inside) the
  /// phase's.
  Conv2dProblem conv;
  /// Its output rows and columns: y's P x Q, dgrad's phase of dx.
  int64_t outH = 0, outW = 0;
  /// dgrad: gathered tap (i, j) is w's (lastR - i * stepR, lastS - j *
  /// stepS).
  int64_t lastR = 0, stepR = 1, lastS = 0, stepS = 1;
};
Conv2dGathered conv2dGathered(const Conv2dProblem &problem);
/// T: the k-tiles of one filter tap.
int64_t conv2dChannelTiles(const Conv2dProblem &problem);

/// Empty when the kernels can be built for `target`, else what is wrong.
std::string checkConv2d(const Conv2dProblem &problem, const GemmConfig &config,
                        const Target &target);
/// checkConv2d's checks of the problem alone (sizes, dtype, groups, strides,
/// dilation, padding, the filter fitting the padded input): what the
/// chooser needs to hold before it sizes tiles from the problem.
std::string checkConv2dProblem(const Conv2dProblem &problem);

/// The GEMM chooser's wgmma configuration for the implicit GEMM, on 64- or
/// 128-row tiles (the im2col copy fills A's tile rows, never B's); for a
/// strided dgrad, that of its phase of the most taps. A problem
/// checkConv2dProblem refuses gets a default configuration (which
/// checkConv2d then refuses with the problem's reason).
GemmConfig chooseConv2dConfig(const Conv2dProblem &problem, const Target &target);
/// `config` as the kernel of `problem`'s phase runs it: a split reduction
/// cut into no more parts than the phase has k-tiles.
GemmConfig conv2dPhaseConfig(const Conv2dProblem &problem, const GemmConfig &config);

/// wgrad: the parts its reduction takes for `config`'s grid to fill
/// `target`'s multiprocessors: as many as they hold of the tiles' blocks (each
/// split among a cluster's `splitK`), each part's blocks then reducing at
/// least 4 k-tiles; 1 where the blocks are more than the multiprocessors.
int64_t conv2dWgradParts(const Conv2dProblem &problem, const GemmConfig &config,
                         const Target &target);
/// The workspace: wgrad's parts' f32 sums, [part, k, r, s, c] of the
/// kernel problem (block-diagonal: of the blocks' 64 channels; unfolded:
/// after x', of dw'; in dw's dtype in one part), block-diagonal fprop's and
/// dgrad's expanded w, or fprop's unfolded x' and w'; 0 for none.
int64_t conv2dWorkspaceBytes(const Conv2dProblem &problem);
/// wgrad: whether the reduce kernel adds the workspace's sums into dw (in
/// parts, block-diagonal or unfolded), and its launch, a thread an element
/// of dw.
bool conv2dWgradReduces(const Conv2dProblem &problem);
LaunchShape conv2dWgradReduceLaunchShape(const Conv2dProblem &problem);
/// The reduce kernel's threads a block (and the dgrad zeroing kernel's).
constexpr int64_t kConv2dReduceThreads = 256;
/// dgrad's zeroing kernel: a thread a 16-byte vector of dx.
LaunchShape conv2dDgradZeroLaunchShape(const Conv2dProblem &problem);
/// The kernel computing `problem` (its phase for a strided dgrad):
/// `conv2d`, or `conv2d_dgrad_phase_<a>_<b>`.
std::string conv2dKernelName(const Conv2dProblem &problem);
/// The zeroing kernel's name.
constexpr const char *kConv2dDgradZero = "conv2d_dgrad_zero";
/// Bytes from dx's first element to its phase's first (0 at stride 1).
int64_t conv2dPhaseOffsetBytes(const Conv2dProblem &problem);
/// x's (dgrad: dy's) im2col tensor map: a copy is a tile's output
/// positions by one tap's 64 channels.
runtime::Im2colMapShape conv2dInputMapShape(const Conv2dProblem &problem, const GemmConfig &config);
/// w's tensor map: K rows of R * S * C, boxes of the block's share of the
/// tile's output channels by 64 (dgrad: of 64 rows by 64 input channels).
runtime::TensorMapShape conv2dWeightMapShape(const Conv2dProblem &problem,
                                             const GemmConfig &config);
/// A wgrad whose x is a matrix of the output positions by C (a 1x1 filter
/// at stride 1, no padding, one group): its kernel reads x's boxes by tiled
/// TMA copies of that matrix rather than by im2col copies (on an H200 the
/// same tiles of 7x7 1x1 layers ran 1.15-1.3x as fast).
bool conv2dWgradReadsXAsMatrix(const Conv2dProblem &problem);
/// That matrix's tensor map: N * H * W rows of C, boxes of a k-tile's
/// positions by 64 channels.
runtime::TensorMapShape conv2dInputMatrixMapShape(const Conv2dProblem &problem,
                                                  const GemmConfig &config);

/// Where each operand is among the kernel's parameters (-1: not one): x, w,
/// y, then C, the bias and the scale vectors where the epilogue reads them,
/// then, on the wgmma kernel, x's im2col map and w's tensor map (the
/// mma.sync kernel gathers x with cp.async and reads no tensor maps).
struct Conv2dParameters {
  int x = 0, w = 1, y = 2, c = -1, bias = -1, scale = -1, xMap = -1, wMap = -1;
  int count = 3;
};
Conv2dParameters conv2dParameters(const Conv2dProblem &problem, const GemmConfig &config);

LaunchShape conv2dLaunchShape(const Conv2dProblem &problem, const GemmConfig &config);

} // namespace spio::kernels

#endif // SPIO_KERNELS_CONV2D_H
