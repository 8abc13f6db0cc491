//===- Jit.h - The workloads spio-jit compiles, checks and times -*- C++ -*-===//
//
// What spio-jit does, as a library: builds a workload (a GEMM, a dense
// conv2d, a grouped conv2d, or an MLIR file's kernels) from a Request,
// compiles it through the PTX cache for the target (the GPU's, or a chip's
// reference part), and on the GPU checks it against the float64 references
// (poisoned outputs, bit-identical reruns), times it, or autotunes; it
// reports as text and as one JSON object. spio-jit is its command line.
//
//===----------------------------------------------------------------------===//

#ifndef SPIO_JIT_JIT_H
#define SPIO_JIT_JIT_H

#include "spio/Kernels/Conv2dGw8.h"
#include "spio/Runtime/Cuda.h"

#include <cstdint>
#include <optional>
#include <string>

namespace spio::jit {

/// Which of conv2d-gw8 wgrad's kernels a bench times.
enum class WgradKernels { Both, PartialSums, Reduce };

/// A run: the workload, its sizes and configuration, and what to do with
/// it. Each field is one spio-jit option (docs/spio-jit.md).
struct Request {
  // Workload and compilation.
  /// An MLIR file of kernels to compile and run (empty: the built-in workload)
  std::string inputFile;
  /// Built-in workload: gemm, conv2d or conv2d-gw8
  std::string workload = "gemm";
  /// Input type: f16 or bf16 (gemm: or f32); empty: the workload's (bf16; conv2d-gw8 f16)
  std::string dtype;
  /// Output type: f16, bf16 or f32 (conv2d-gw8: wgrad's dw as f32); default: the input's
  std::string outDtype;
  /// The chip to compile for; empty: the GPU's, else sm_90
  std::string chip;
  /// Print the PTX and stop
  bool emitPTX = false;
  /// Print the workload module and stop
  bool emitSpio = false;
  /// Bypass the on-disk PTX cache (and autotune cache)
  bool noDiskCache = false;
  /// Print the IR after every pass
  bool printIRAfterAll = false;
  /// The target's multiprocessors (0: the GPU's, else the chip's reference part's)
  int64_t targetMultiprocessors = 0;
  /// The target's L2 bytes (0: the GPU's, else the chip's reference part's)
  int64_t targetL2Bytes = 0;
  // Checking and timing.
  /// Check against a float64 CPU reference
  bool check = false;
  /// Runs that must write the first's bits (with --check)
  int repeats = 10;
  /// Timed runs (0: no timing)
  int bench = 0;
  /// Untimed runs before timing
  int warmup = 5;
  /// Where --bench's clock starts
  runtime::Timing timing = runtime::Timing::Queued;
  /// Print one JSON object on stdout (problem, configuration, compile, device, check, timing) and
  /// the text on stderr
  bool jsonReport = false;
  /// Seed of the random inputs
  unsigned seed = 1;
  // GEMM.
  /// Rows of D
  int64_t sizeM = 1024;
  /// Columns of D
  int64_t sizeN = 1024;
  /// Reduction depth
  int64_t sizeK = 1024;
  /// A: row (M x K) or col (K x M)
  std::string aLayout = "row";
  /// B: row (K x N) or col (N x K)
  std::string bLayout = "col";
  /// D = alpha * A @ B + beta * C
  float alpha = 1.0f;
  /// D = alpha * A @ B + beta * C
  float beta = 0.0f;
  /// Steps after A @ B, in order (scale,bias,residual,relu,gelu_tanh,...)
  std::string epilogue;
  /// Grouped GEMM: G groups of random row counts adding up to M, B a matrix a group
  int64_t groupCount = 0;
  /// What the groups split: rows (each group's rows of A and D, B a matrix a group) or k (each
  /// group's rows of K of A and B, D a matrix a group)
  std::string groupsAlong = "rows";
  /// Also store the epilogue's value before its activation (checked like D)
  bool storesPreActivation = false;
  /// Problems in the batch
  int64_t batchCount = 1;
  /// The operand (a or b) one matrix of serves the whole batch
  std::string broadcast;
  /// Rows whose bits do not depend on M (K split alike)
  bool batchInvariant = false;
  /// Print the GEMM's configurations worth timing, a line of options each
  bool listCandidates = false;
  /// f32 inputs: highest (3 bf16 terms), high (2) or medium (1)
  std::string precision = "highest";
  /// The bias (D's dtype): one a row or col
  std::string biasAlong = "col";
  /// The scale (f32): one a row or col
  std::string scaleAlong = "col";
  /// GEMM on Hopper's warpgroup wgmma (default: on sm_90 where A and B are K-major; =false:
  /// mma.sync)
  std::optional<bool> gemmWgmma;
  // Tile configuration (0 or unset: the chooser's; conv2d-gw8's adjust its rules' configuration).
  /// GEMM tile rows
  int64_t blockM = 0;
  /// GEMM tile columns
  int64_t blockN = 0;
  /// GEMM tile depth
  int64_t blockK = 0;
  /// GEMM block rows taken together for L2 reuse
  int64_t raster = 0;
  /// GEMM (wgmma) persistent grid: blocks that take the tiles in turn (-1: one a tile)
  int64_t persistent = 0;
  /// GEMM (persistent wgmma) blocks of a cluster sharing B tiles (1 or 2)
  int64_t cluster = 0;
  /// GEMM (wgmma): warpgroups along N, wgmma's N along M (for small M; default: the chooser's, off
  /// with a tile given)
  std::optional<bool> swapAB;
  /// GEMM (wgmma): blocks of a cluster splitting each tile's K (1 to 8; default: the chooser's, 1
  /// with a tile given)
  int64_t splitK = 0;
  /// GEMM (persistent wgmma): compute warpgroups take whole tiles in turn (default: the chooser's,
  /// off with a tile given)
  std::optional<bool> pingpong;
  /// GEMM (wgmma): add each k-tile's sums to the running ones in f32 (default: the chooser's, on
  /// for f32 at the highest precision)
  std::optional<bool> promote;
  /// GEMM (wgmma): ranges of k-tiles a block sums apart and adds in order, as --split-k splits them
  /// (default: the chooser's)
  int64_t kRanges = 0;
  /// GEMM (persistent wgmma): blocks share the last tiles' k-tiles (default: the chooser's, off
  /// with a tile given; false: the chooser's choice without it)
  std::optional<bool> streamK;
  /// GEMM pipeline stages (default: the chooser's, 4 with a tile given)
  int64_t stages = 0;
  /// Warps along M (conv2d-gw8: along Q)
  int64_t warpsM = 0;
  /// Warps along N (conv2d-gw8: along groups)
  int64_t warpsN = 0;
  /// conv2d-gw8 output rows a block
  int64_t convRowsP = 0;
  /// conv2d-gw8 blocks a group tile along wgrad's reduction or the bands
  int64_t convChunks = 0;
  /// conv2d-gw8 fprop and dgrad warps that only copy rows in
  int64_t convCopyWarps = 0;
  // Convolutions (conv2d-gw8 and dense conv2d).
  /// fprop, dgrad or wgrad (conv2d: fprop or dgrad)
  std::string convPass = "fprop";
  /// Images N
  int64_t convN = 8;
  /// Channels C (conv2d-gw8: C = K)
  int64_t convC = 64;
  /// Input height H
  int64_t convH = 56;
  /// Input width W
  int64_t convW = 56;
  /// Kernel height R
  int64_t convR = 3;
  /// Kernel width S
  int64_t convS = 3;
  /// Padding of H
  int64_t padH = 1;
  /// Padding of W
  int64_t padW = 1;
  /// Stride (conv2d-gw8: 1 or 2; conv2d: 1 to 8)
  int64_t convStride = 1;
  /// Output channels K (0: C)
  int64_t convK = 0;
  /// Dilation of both sides
  int64_t convDilation = 1;
  /// conv2d wgrad: the reduction's parts, added by a reduce kernel (0: choose)
  int64_t convParts = 0;
  /// conv2d-gw8 channels a group: 8, or 1 (depthwise), 2 or 4
  int64_t convGroupWidth = 8;
  /// Add a bias (fprop); also its gradient (wgrad)
  bool convBias = false;
  /// Time the chosen configuration and its neighbours; run the fastest
  bool convAutotune = false;
  /// Time only the performance model's N best candidates (implies --autotune)
  int64_t convAutotuneCandidates = 0;
  /// conv2d-gw8: the hand rules' configuration, not the performance model's pick
  bool convRules = false;
  // conv2d-gw8 wgrad.
  /// Launch the reduce as a dependent grid (sm_90 and later)
  bool convDependentLaunch = true;
  /// The kernels --bench times
  WgradKernels wgradKernels = WgradKernels::Both;
  /// One kernel adding its partial sums in a cluster (sm_90; at most 8 sums)
  bool wgradClusterReduce = false;
  /// Let the reduce launch as the partial sums' blocks start
  bool wgradEarlyLaunch = false;
  /// Band loop buffers, 1 to 4 (0: choose)
  int64_t wgradStagesOption = 0;
  /// dw elements a reduce lane adds, 1, 2 or 4 (0: choose)
  int64_t wgradReduceLaneElements = 0;
  /// Hand each band's last R - 1 rows of x on to the next (=false: never)
  std::optional<bool> wgradRowRing;
  /// Run one part of the band loop alone, to time it (wrong sums)
  kernels::WgradParts wgradParts = kernels::WgradParts::All;
  /// Drop the read partial sums from L2 unwritten
  std::optional<kernels::WgradDiscard> wgradDiscardPartials;
};

/// Runs `request`, printing what it found (stdout, or stderr with a JSON
/// object on stdout under jsonReport), and returns the exit status. A bad
/// request or a failing check or CUDA call prints "spio-jit: error: ..."
/// and exits with status 1.
int run(const Request &request);

/// Prints "spio-jit: error: `message`" and exits with status 1.
[[noreturn]] void fail(const std::string &message);

} // namespace spio::jit

#endif // SPIO_JIT_JIT_H
