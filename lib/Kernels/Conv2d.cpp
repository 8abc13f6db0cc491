//===- Conv2d.cpp - Dense conv2d as an implicit GEMM ----------------------===//

#include "spio/Kernels/Conv2d.h"
#include "spio/Kernels/Conv2dGw8.h"

#include "spio/Layout/Layout.h"
#include "spio/Target/Target.h"

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <numeric>

namespace spio::kernels {

namespace {

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// Output positions along one side: floor((in + 2 pad - dilation (taps -
/// 1) - 1) / stride) + 1.
int64_t outputSize(int64_t in, int64_t taps, int64_t stride, int64_t pad, int64_t dilation) {
  int64_t span = in + 2 * pad - dilation * (taps - 1);
  return span <= 0 ? 0 : (span - 1) / stride + 1;
}

/// The k-tile: 64 channels of one tap (a 128-byte row of f16 or bf16).
constexpr int64_t kChannelTile = 64;
/// What an im2col map's window corners and tap offsets can say
/// (cuTensorMapEncodeIm2col: corners of a 4-D map in [-128, 127]; the
/// copy's offsets are taken here as at most 127 as well).
constexpr int64_t kMaxWindowOffset = 127;
/// Shared memory every CUDA device grants a block without opting in to
/// more: the unfolding kernel stays within it.
constexpr int64_t kMostDefaultSharedBytes = 48 * 1024;

/// The window's upper corner along one side: its last position (the
/// first tap's) past the input's last.
int64_t upperCorner(int64_t in, int64_t out, int64_t stride, int64_t pad) {
  return (out - 1) * stride + 1 - in - pad;
}

} // namespace

int64_t conv2dGroupInputs(const Conv2dProblem &p) { return p.c / std::max<int64_t>(1, p.groups); }

int64_t conv2dGroupOutputs(const Conv2dProblem &p) { return p.k / std::max<int64_t>(1, p.groups); }

int64_t conv2dBlockGroups(const Conv2dProblem &p) {
  int64_t width = conv2dGroupInputs(p);
  if (p.groups <= 1 || p.c != p.k || p.c % p.groups != 0 || width < 8 || width % 8 != 0 ||
      width >= kChannelTile)
    return 1;
  // The most groups (dividing G) a block of one k-tile holds; where that
  // block is under 32 channels, the most a block of two holds (on an
  // H200, RegNetY-800MF's 49 groups of 16 ran 1.7x as fast in blocks of
  // 112, twice the multiply-adds, as one by one in tiles of 16 columns).
  auto most = [&](int64_t channels) {
    int64_t best = 1;
    for (int64_t m = 1; m <= p.groups && m * width <= channels; ++m)
      if (p.groups % m == 0)
        best = m;
    return best;
  };
  int64_t m = most(kChannelTile);
  return m * width < 32 ? most(2 * kChannelTile) : m;
}

bool conv2dBlockDiagonal(const Conv2dProblem &p) { return conv2dBlockGroups(p) > 1; }

bool conv2dPadsGroups(const Conv2dProblem &p) {
  // Groups that do not divide the channels are checkConv2d's to refuse.
  if (p.groups < 1 || p.c % p.groups != 0 || p.k % p.groups != 0 || conv2dBlockDiagonal(p) ||
      conv2dUnfolds(p))
    return false;
  bool inputs = conv2dGroupInputs(p) % kChannelTile != 0;
  bool outputs = conv2dGroupOutputs(p) % kChannelTile != 0;
  switch (p.pass) {
  case ConvPass::Fprop:
    // It reduces over a group's inputs.
    return p.groups > 1 && inputs;
  case ConvPass::Dgrad:
    // It reduces over a group's outputs, and its N-major w would take
    // tiles of 64 columns of its inputs.
    return p.groups > 1 && (inputs || outputs);
  case ConvPass::Wgrad:
    // Its columns are taps of 64-channel boxes (a dense layer's too), its
    // tiles' rows one group's outputs.
    return inputs || (p.groups > 1 && outputs);
  }
  return false;
}

bool conv2dTransposesWeights(const Conv2dProblem &p) {
  return p.pass == ConvPass::Dgrad && conv2dPadsGroups(p);
}

int64_t conv2dWeightTapChannels(const Conv2dProblem &p) {
  if (conv2dTransposesWeights(p))
    return ceilDiv(conv2dGroupOutputs(p), kChannelTile) * kChannelTile;
  int64_t width = conv2dGroupInputs(p);
  return conv2dPadsGroups(p) ? ceilDiv(width, kChannelTile) * kChannelTile : width;
}

int64_t conv2dWeightRows(const Conv2dProblem &p) {
  if (p.pass == ConvPass::Wgrad && p.groups > 1 && conv2dPadsGroups(p))
    return p.groups * ceilDiv(conv2dGroupOutputs(p), kChannelTile) * kChannelTile;
  return conv2dTransposesWeights(p) ? p.c : p.k;
}

bool conv2dExpandsWeights(const Conv2dProblem &p) {
  return p.pass != ConvPass::Wgrad && (conv2dBlockDiagonal(p) || conv2dPadsGroups(p));
}

bool conv2dUnfolds(const Conv2dProblem &p) {
  return p.pass != ConvPass::Dgrad && p.groups == 1 && p.c % 8 != 0;
}

int64_t conv2dUnfoldedRows(const Conv2dProblem &p) {
  int64_t row = p.s * p.c;
  return row <= kChannelTile ? std::min(p.r, kChannelTile / row) : 1;
}

Conv2dProblem conv2dKernelProblem(const Conv2dProblem &p) {
  Conv2dProblem kernel = p;
  if (conv2dBlockDiagonal(p))
    kernel.groups = p.groups / conv2dBlockGroups(p);
  if (conv2dUnfolds(p) && conv2dOutputHeight(p) > 0 && conv2dOutputWidth(p) > 0) {
    // x' holds whole k-tiles of channels (an im2col copy of fewer channels
    // than its box ran 2-3x slower on an H200), its rows and columns every
    // position the R' x 1 taps read, padding included.
    int64_t folded = conv2dUnfoldedRows(p), taps = ceilDiv(p.r, folded);
    kernel.h = (conv2dOutputHeight(p) - 1) * p.strideH + (taps - 1) * folded * p.dilationH + 1;
    kernel.w = conv2dOutputWidth(p);
    kernel.c = ceilDiv(folded * p.s * p.c, kChannelTile) * kChannelTile;
    kernel.r = taps;
    kernel.s = 1;
    kernel.strideW = 1;
    kernel.padH = kernel.padW = 0;
    kernel.dilationH = folded * p.dilationH;
    kernel.dilationW = 1;
  }
  return kernel;
}

LaunchShape conv2dUnfoldLaunchShape(const Conv2dProblem &p, char operand) {
  Conv2dProblem kernel = conv2dKernelProblem(p);
  if (operand == 'x')
    return {kernel.n * kernel.h * ceilDiv(kernel.w, conv2dUnfoldXPixels(p)), 1,
            kConv2dReduceThreads};
  return {ceilDiv(kernel.k * kernel.r * kernel.c / 8, kConv2dReduceThreads), 1,
          kConv2dReduceThreads};
}

int64_t conv2dUnfoldXStagedValues(const Conv2dProblem &p, int64_t pixels) {
  int64_t columns = (pixels - 1) * p.strideW + (p.s - 1) * p.dilationW + 1;
  return conv2dUnfoldedRows(p) * columns * p.c;
}

int64_t conv2dUnfoldXPixels(const Conv2dProblem &p) {
  // 16 KB a block lets 8 blocks of 256 threads share a multiprocessor.
  constexpr int64_t kStagedBytes = 16 * 1024;
  int64_t row = conv2dOutputWidth(p), bytes = dtypeBytes(p.input);
  int64_t most = 1;
  while (most < row && conv2dUnfoldXStagedValues(p, most + 1) * bytes <= kStagedBytes)
    ++most;
  return ceilDiv(row, ceilDiv(row, most));
}

int64_t conv2dUnfoldedXBytes(const Conv2dProblem &p) {
  Conv2dProblem kernel = conv2dKernelProblem(p);
  // TMA reads w' from a 16-byte aligned start; 256 keeps it on L2 lines.
  return ceilDiv(kernel.n * kernel.h * kernel.w * kernel.c * dtypeBytes(p.input), 256) * 256;
}

LaunchShape conv2dExpandWeightsLaunchShape(const Conv2dProblem &p) {
  // A thread a vector of 8 channels.
  Conv2dProblem kernel = conv2dKernelProblem(p);
  return {ceilDiv(conv2dWeightRows(kernel) * p.r * p.s * conv2dWeightTapChannels(kernel) / 8,
                  kConv2dReduceThreads),
          1, kConv2dReduceThreads};
}

int64_t conv2dOutputHeight(const Conv2dProblem &p) {
  return outputSize(p.h, p.r, p.strideH, p.padH, p.dilationH);
}

int64_t conv2dOutputWidth(const Conv2dProblem &p) {
  return outputSize(p.w, p.s, p.strideW, p.padW, p.dilationW);
}

Conv2dPhaseSide conv2dPhaseSide(int64_t in, int64_t filterTaps, int64_t stride, int64_t pad,
                                int64_t dilation, int64_t phase) {
  Conv2dPhaseSide side;
  side.positions = phase < in ? (in - phase + stride - 1) / stride : 0;
  // Tap r reads dy at i + (phase + pad - r * dilation) / stride for dx's
  // position phase + stride * i, where the stride divides that.
  int64_t first = 0;
  while (first < filterTaps && ((phase + pad - first * dilation) % stride + stride) % stride != 0)
    ++first;
  if (first == filterTaps)
    return side;
  int64_t common = std::gcd(stride, dilation);
  side.tapStep = stride / common;
  side.taps = (filterTaps - 1 - first) / side.tapStep + 1;
  side.lastTap = first + (side.taps - 1) * side.tapStep;
  side.dilation = dilation / common;
  // Flipped, gathered tap 0 is the last, which reads dy at i - pad.
  side.pad = (side.lastTap * dilation - phase - pad) / stride;
  return side;
}

namespace {

Conv2dPhaseSide phaseRows(const Conv2dProblem &p) {
  return conv2dPhaseSide(p.h, p.r, p.strideH, p.padH, p.dilationH, p.phaseH);
}

Conv2dPhaseSide phaseColumns(const Conv2dProblem &p) {
  return conv2dPhaseSide(p.w, p.s, p.strideW, p.padW, p.dilationW, p.phaseW);
}

/// dx's phases that hold positions, rows first, and whether taps read each.
std::vector<std::pair<Conv2dProblem, bool>> phasesWithPositions(const Conv2dProblem &p) {
  std::vector<std::pair<Conv2dProblem, bool>> phases;
  for (int64_t a = 0; a < p.strideH; ++a)
    for (int64_t b = 0; b < p.strideW; ++b) {
      Conv2dProblem phase = p;
      phase.phaseH = a;
      phase.phaseW = b;
      Conv2dPhaseSide rows = phaseRows(phase), cols = phaseColumns(phase);
      if (rows.positions > 0 && cols.positions > 0)
        phases.push_back({phase, rows.taps > 0 && cols.taps > 0});
    }
  return phases;
}

} // namespace

bool conv2dStridedDgrad(const Conv2dProblem &p) {
  return p.pass == ConvPass::Dgrad && (p.strideH > 1 || p.strideW > 1);
}

std::vector<Conv2dProblem> conv2dDgradPhases(const Conv2dProblem &p) {
  std::vector<Conv2dProblem> phases;
  for (auto [phase, read] : phasesWithPositions(p))
    if (read)
      phases.push_back(phase);
  return phases;
}

bool conv2dDgradZeroes(const Conv2dProblem &p) {
  for (auto [phase, read] : phasesWithPositions(p))
    if (!read)
      return true;
  return false;
}

Conv2dGathered conv2dGathered(const Conv2dProblem &p) {
  if (p.pass != ConvPass::Dgrad)
    return {p, conv2dOutputHeight(p), conv2dOutputWidth(p)};
  Conv2dPhaseSide rows = phaseRows(p), cols = phaseColumns(p);
  Conv2dProblem q = p;
  q.pass = ConvPass::Fprop;
  q.h = conv2dOutputHeight(p);
  q.w = conv2dOutputWidth(p);
  q.c = p.k;
  q.k = p.c;
  q.r = rows.taps;
  q.s = cols.taps;
  q.strideH = q.strideW = 1;
  q.padH = rows.pad;
  q.padW = cols.pad;
  q.dilationH = rows.dilation;
  q.dilationW = cols.dilation;
  q.phaseH = q.phaseW = 0;
  return {q,           rows.positions, cols.positions, rows.lastTap, rows.tapStep, cols.lastTap,
          cols.tapStep};
}

int64_t conv2dChannelTiles(const Conv2dProblem &p) {
  return ceilDiv(conv2dGroupInputs(conv2dGathered(p).conv), kChannelTile);
}

int64_t conv2dPhaseOffsetBytes(const Conv2dProblem &p) {
  if (p.pass != ConvPass::Dgrad)
    return 0;
  return (p.phaseH * p.w + p.phaseW) * p.c * dtypeBytes(p.output);
}

std::string conv2dKernelName(const Conv2dProblem &p) {
  if (!conv2dStridedDgrad(p))
    return "conv2d";
  return "conv2d_dgrad_phase_" + std::to_string(p.phaseH) + "_" + std::to_string(p.phaseW);
}

LaunchShape conv2dDgradZeroLaunchShape(const Conv2dProblem &p) {
  int64_t vectors = p.n * p.h * p.w * p.c / (16 / dtypeBytes(p.output));
  return {ceilDiv(vectors, kConv2dReduceThreads), 1, kConv2dReduceThreads};
}

int64_t conv2dOutputPositions(const Conv2dProblem &p) {
  return p.n * conv2dOutputHeight(p) * conv2dOutputWidth(p);
}

GemmProblem conv2dGemmProblem(const Conv2dProblem &p) {
  if (p.pass == ConvPass::Wgrad) {
    // dw = dy^T (K x positions, read M-major from dy's rows) times x's
    // im2col matrix (positions x R * S * C, N-major); in parts, a batch of
    // the parts' reductions (dy's rows and x's positions one part after
    // the other) into f32 sums.
    GemmProblem g;
    int64_t kTiles = ceilDiv(conv2dOutputPositions(p), kChannelTile);
    g.m = conv2dWeightRows(p);
    g.n = p.r * p.s * conv2dWeightTapChannels(p);
    g.k = ceilDiv(kTiles, p.parts) * kChannelTile;
    g.input = p.input;
    g.output = p.parts > 1 ? DType::F32 : p.output;
    if (p.parts > 1) {
      g.batch = p.parts;
      g.batchDim = "part";
    }
    g.a = Layout::ColMajor;
    g.b = Layout::RowMajor;
    g.rowDim = "k";
    g.colDim = "rsc";
    g.reductionDim = "npq";
    return g;
  }
  Conv2dGathered gathered = conv2dGathered(p);
  const Conv2dProblem &q = gathered.conv;
  bool dgrad = p.pass == ConvPass::Dgrad;
  GemmProblem g;
  g.m = q.n * gathered.outH * gathered.outW;
  g.n = q.k;
  g.k = q.r * q.s * conv2dChannelTiles(p) * kChannelTile;
  g.input = p.input;
  g.output = p.output;
  g.a = Layout::RowMajor;
  // dgrad reads w's input channels along its rows: N-major (transposed
  // into the workspace where its groups are padded: K-major).
  g.b = dgrad && !conv2dTransposesWeights(p) ? Layout::RowMajor : Layout::ColMajor;
  g.epilogue = p.epilogue;
  g.readsC = std::count(p.epilogue.begin(), p.epilogue.end(), EpilogueStep::Residual) > 0;
  auto reads = [&](EpilogueStep step) {
    return std::count(p.epilogue.begin(), p.epilogue.end(), step) > 0 ? Along::Cols : Along::None;
  };
  g.bias = reads(EpilogueStep::Bias);
  g.scale = reads(EpilogueStep::Scale);
  g.biasType = p.biasType;
  g.scaleType = p.scaleType;
  g.rowDim = dgrad ? "nhw" : "npq";
  g.colDim = dgrad ? "c" : "k";
  g.reductionDim = dgrad ? "rsk" : "rsc";
  return g;
}

/// What the TMA im2col copies' window takes.
static std::string windowLimits() {
  return "conv2d's TMA im2col copies take padding, the filter's dilated extent and the "
         "window's far side of at most " +
         std::to_string(kMaxWindowOffset) + " positions";
}

std::string checkConv2dProblem(const Conv2dProblem &p) {
  if (p.n < 1 || p.h < 1 || p.w < 1 || p.c < 1 || p.k < 1 || p.r < 1 || p.s < 1)
    return "conv2d sizes must be positive, got N=" + std::to_string(p.n) +
           " H=" + std::to_string(p.h) + " W=" + std::to_string(p.w) + " C=" + std::to_string(p.c) +
           " K=" + std::to_string(p.k) + " R=" + std::to_string(p.r) + " S=" + std::to_string(p.s);
  if (p.input != DType::F16 && p.input != DType::BF16)
    return "conv2d inputs must be f16 or bf16";
  if (p.groups < 1 || p.c % p.groups != 0 || p.k % p.groups != 0)
    return "conv2d's groups must divide C=" + std::to_string(p.c) +
           " and K=" + std::to_string(p.k) + ", got " + std::to_string(p.groups);
  if (p.strideH < 1 || p.strideH > 8 || p.strideW < 1 || p.strideW > 8)
    return "conv2d strides are 1 to 8, got " + std::to_string(p.strideH) + "x" +
           std::to_string(p.strideW);
  if (p.dilationH < 1 || p.dilationW < 1)
    return "conv2d dilations must be positive, got " + std::to_string(p.dilationH) + "x" +
           std::to_string(p.dilationW);
  if (p.padH < 0 || p.padW < 0)
    return "conv2d padding must not be negative, got " + std::to_string(p.padH) + "x" +
           std::to_string(p.padW);
  if (!layout::withinExtent({p.n, p.h, p.w, p.c}) ||
      !layout::withinExtent({p.k, p.r, p.s, p.c / p.groups}))
    return "x or w is over the 2^40 elements a spio tensor spans";
  // TMA's im2col window: the padding, the window's far side and the taps'
  // offsets within it are small signed numbers (checked by division first,
  // so that no size arithmetic overflows).
  if (p.padH > kMaxWindowOffset || p.padW > kMaxWindowOffset ||
      (p.r > 1 && p.dilationH > kMaxWindowOffset / (p.r - 1)) ||
      (p.s > 1 && p.dilationW > kMaxWindowOffset / (p.s - 1)))
    return windowLimits();
  int64_t outH = conv2dOutputHeight(p), outW = conv2dOutputWidth(p);
  if (outH < 1 || outW < 1)
    return "the filter (" + std::to_string(p.r) + "x" + std::to_string(p.s) + ", dilation " +
           std::to_string(p.dilationH) + "x" + std::to_string(p.dilationW) +
           ") does not fit the padded input (" + std::to_string(p.h) + "x" + std::to_string(p.w) +
           ", padding " + std::to_string(p.padH) + "x" + std::to_string(p.padW) + ")";
  return {};
}

std::string checkConv2d(const Conv2dProblem &p, const GemmConfig &c, const Target &target) {
  if (std::string why = checkConv2dProblem(p); !why.empty())
    return why;
  if (p.c % 8 != 0 && !conv2dUnfolds(p))
    return "conv2d takes a multiple of 8 input channels (16-byte pixels), or any count in a "
           "dense fprop or wgrad (x unfolded first), got C=" +
           std::to_string(p.c) +
           (p.groups != 1 ? " in groups" : std::string(" in ") + convPassName(p.pass));
  // Groups of 16 or 32: the kernels' groups of 64.
  if (conv2dBlockDiagonal(p))
    return checkConv2d(conv2dKernelProblem(p), c, target);
  int64_t groupInputs = conv2dGroupInputs(p), groupOutputs = conv2dGroupOutputs(p);
  // A k-tile is 64 channels from one group's first; a tile's columns
  // (wgrad: rows) one group's.
  if (p.groups > 1 && (groupInputs % 8 != 0 || groupOutputs % 8 != 0))
    return "a grouped conv2d on the implicit GEMM takes groups of a multiple of 8 input and "
           "output channels, got " +
           std::to_string(groupInputs) + " and " + std::to_string(groupOutputs);
  if (!layout::withinExtent({p.k, p.r, p.s, groupInputs}))
    return "x or w is over the 2^40 elements a spio tensor spans";
  // The unfolded problem's checks (its window, tiles, shared memory) are
  // the kernel's; x's unfolding stages one pixel's values at least and a
  // table of C' lanes' places (i32) in shared memory and writes a pixel
  // with at most a block's threads.
  if (conv2dUnfolds(p)) {
    Conv2dProblem kernel = conv2dKernelProblem(p);
    if (kernel.c / 8 > kConv2dReduceThreads ||
        conv2dUnfoldXStagedValues(p, 1) * dtypeBytes(p.input) + kernel.c * 4 >
            kMostDefaultSharedBytes)
      return "conv2d unfolds x of C not a multiple of 8 into pixels of at most " +
             std::to_string(kConv2dReduceThreads * 8) +
             " channels whose taps read at most 48 KB of x, got S x C = " +
             std::to_string(p.s * p.c) + " over " + std::to_string((p.s - 1) * p.dilationW + 1) +
             " columns";
    // The unfolding's arithmetic is on 32 bits.
    constexpr int64_t kMost32 = (int64_t(1) << 31) - 1;
    if ((p.w + 2 * p.padW) * p.c > kMost32 || p.h + 2 * p.padH > kMost32)
      return "conv2d unfolds x of C not a multiple of 8 whose padded rows hold under 2^31 "
             "values and whose padded height is under 2^31 rows";
    return checkConv2d(kernel, c, target);
  }
  if (p.pass == ConvPass::Wgrad) {
    // Each of B's boxes is 64 channels of one tap (padded groups: of the
    // tap's padded columns); dy's rows are 16-byte vectors of K.
    int64_t groupRows = conv2dWeightRows(p) / p.groups;
    if (p.groups > 1 && groupRows % c.blockM != 0)
      return "a grouped conv2d's wgrad tiles take one group's rows of dw: the config's " +
             std::to_string(c.blockM) + " rows must divide the group's " +
             std::to_string(groupRows) + " output channels" +
             (groupRows != groupOutputs ? " (padded)" : "");
    if (p.k % 8 != 0)
      return "conv2d's wgrad reads dy's K channels as 16-byte pixels: K a multiple of 8, got " +
             std::to_string(p.k);
    if (!p.epilogue.empty())
      return "conv2d's wgrad takes no epilogue";
    if (c.cluster != 1)
      return "conv2d's wgrad gathers x's boxes by im2col copies, which are not multicast: "
             "cluster 1, got " +
             std::to_string(c.cluster);
    if (conv2dOutputPositions(p) > (int64_t(1) << 31) - 1)
      return "conv2d's wgrad reduces over at most 2^31 - 1 output positions (TMA's rows), got " +
             std::to_string(conv2dOutputPositions(p));
    int64_t kTiles = ceilDiv(conv2dOutputPositions(p), kChannelTile);
    if (p.parts < 1 || p.parts > kTiles || p.parts > 65535)
      return "conv2d's wgrad takes 1 to " + std::to_string(std::min<int64_t>(kTiles, 65535)) +
             " parts (its k-tiles, at most a grid's z), got " + std::to_string(p.parts);
  } else if (p.parts != 1) {
    return "only conv2d's wgrad reduces in parts";
  }
  if (p.pass == ConvPass::Dgrad) {
    if (p.k % 8 != 0)
      return "conv2d's dgrad reads dy's K channels as 16-byte pixels: K a multiple of 8, got " +
             std::to_string(p.k);
    if (!p.epilogue.empty())
      return "conv2d's dgrad takes no epilogue";
  }
  if (c.wgmma && (c.swapAB || c.streamK))
    return "conv2d runs on the wgmma kernel with the output positions along the warpgroups (no "
           "swap), each tile's reduction in one block (no stream_k)";
  if (!c.wgmma && p.groups > 1)
    return "a grouped conv2d on the implicit GEMM runs on the wgmma kernel (sm_90a); the "
           "mma.sync kernel (sm_80 to sm_89) takes groups = 1";
  if (!c.wgmma && c.blockK != kChannelTile)
    return "conv2d's k-tile is one tap's " + std::to_string(kChannelTile) +
           " channels: the mma.sync config's block K must be " + std::to_string(kChannelTile) +
           ", got " + std::to_string(c.blockK);
  // A tile's columns are one group's outputs (dgrad: inputs).
  int64_t groupColumns = p.pass == ConvPass::Dgrad ? groupInputs : groupOutputs;
  if (p.pass != ConvPass::Wgrad && p.groups > 1 && groupColumns % c.blockN != 0)
    return "a grouped conv2d's tiles take one group's columns: the config's " +
           std::to_string(c.blockN) + " columns must divide the group's " +
           std::to_string(groupColumns) + (p.pass == ConvPass::Dgrad ? " input" : " output") +
           " channels";
  // The weights' rows are R * S * C long (of a group's C, padded), the
  // tensor map's K.
  if (p.r * p.s * conv2dWeightTapChannels(p) > (int64_t(1) << 31) - 1)
    return "R * S * C is over the 2^31 - 1 elements TMA addresses";
  // Each kernel: one of dgrad's phases, else the problem's.
  auto checkKernel = [&](const Conv2dProblem &kernel) -> std::string {
    // The window of the convolution A gathers (dy's for dgrad), which
    // starts inside dy where the padding is past the dilated filter.
    Conv2dGathered q = conv2dGathered(kernel);
    const Conv2dProblem &conv = q.conv;
    if (std::abs(conv.padH) > kMaxWindowOffset || std::abs(conv.padW) > kMaxWindowOffset ||
        std::abs(upperCorner(conv.h, q.outH, conv.strideH, conv.padH)) > kMaxWindowOffset ||
        std::abs(upperCorner(conv.w, q.outW, conv.strideW, conv.padW)) > kMaxWindowOffset)
      return windowLimits();
    GemmProblem g = conv2dGemmProblem(kernel);
    if (!layout::withinExtent({g.m, g.n}))
      return "y is over the 2^40 elements a spio tensor spans";
    return checkGemm(g, conv2dPhaseConfig(kernel, c), target);
  };
  if (p.pass != ConvPass::Dgrad)
    return checkKernel(p);
  for (const Conv2dProblem &phase : conv2dDgradPhases(p))
    if (std::string error = checkKernel(phase); !error.empty())
      return conv2dStridedDgrad(p)
                 ? "phase (" + std::to_string(phase.phaseH) + ", " + std::to_string(phase.phaseW) +
                       ") of the strided dgrad: " + error
                 : error;
  return "";
}

GemmConfig conv2dPhaseConfig(const Conv2dProblem &p, const GemmConfig &config) {
  GemmConfig c = config;
  if (p.pass == ConvPass::Dgrad)
    c.splitK = std::max<int64_t>(
        1, std::min(c.splitK, ceilDiv(conv2dGemmProblem(p).k, std::max<int64_t>(1, c.blockK))));
  return c;
}

/// A grouped conv2d's tile columns for a group of `groupColumns` and the
/// chooser's `chosen` width: the widest tile of 64-column steps within the
/// chosen one that divides the group's columns; else (groups not of a
/// multiple of 64) the widest divisor of 8-column steps within it of 64
/// columns or more, else the narrowest such up to wgmma's 256, else the
/// widest divisor (a group of 48 outputs: one tile of 48; of 232: one of
/// 232, not 29 of 8).
static int64_t groupTileColumns(int64_t groupColumns, int64_t chosen) {
  int64_t widest = 0, narrowWide = 0, widestDivisor = 0;
  for (int64_t width = 8; width <= 256; width += 8) {
    if (groupColumns % width != 0)
      continue;
    widestDivisor = width;
    if (width <= chosen && (width % 64 == 0 || groupColumns % 64 != 0))
      widest = width;
    if (width >= 64 && !narrowWide)
      narrowWide = width;
  }
  if (widest >= 64 || (widest > 0 && !narrowWide))
    return widest;
  return narrowWide ? narrowWide : widestDivisor;
}

/// wgrad: few tiles (dw's K x R * S * C) over a long reduction (every
/// output position): 128 x 128 tiles (64 rows or columns where K or R * S
/// * C is 64 or less), the reduction cut into parts (conv2dWgradParts)
/// rather than split among a cluster's blocks (on an H200 parts ran 1.3-2x
/// as fast: a cluster's blocks wait for each other on one GPC), no
/// multicast (im2col copies are not), 8 stages where shared memory holds
/// them. Where those tiles would take 2 parts, tiles of 64 rows take the
/// multiprocessors in one part instead: the parts' workspace and reduce
/// cost more than the narrower tile (7x7 1x1 layers ran 1.3x as fast).
static GemmConfig chooseConv2dWgradConfig(const Conv2dProblem &p, const GemmProblem &g,
                                          const Target &target) {
  GemmConfig c;
  c.wgmma = true;
  c.blockM = g.m <= 64 ? 64 : 128;
  c.blockN = g.n <= 64 ? 64 : 128;
  c.blockK = kChannelTile;
  if (c.blockM == 128 && conv2dWgradParts(p, c, target) == 2)
    c.blockM = 64;
  // A grouped wgrad's tile rows are one group's outputs (padded groups:
  // padded to a multiple of 64).
  if (p.groups > 1 && conv2dWeightRows(p) / p.groups % c.blockM != 0)
    c.blockM = 64;
  c.warpsM = c.blockM / 16;
  c.warpsN = 1;
  c.stages = 8;
  if (gemmSharedBytes(g, c) > target.sharedBytesPerBlock)
    c.stages = 4;
  // Tiles past a round of the multiprocessors, each taking the whole
  // reduction (no parts): the width of 128, 192 or 256 columns whose tiles
  // take the fewest rounds of the least work (rounds by columns), each
  // still without parts; ties go to fewer tiles. (H200, 3x3 layers at 7x7
  // and 14x14 of 512 dense channels, of 32 groups of 64 and of 16 of 128:
  // 1.2-1.4x as fast in 192 columns as in 128 or 256. Where the reduction
  // is in parts, wider tiles take more parts, whose sums cost more than
  // the width saves: 1x1 layers ran up to 1.4x slower in 256 columns.)
  int64_t multiprocessors = std::max<int64_t>(1, target.multiprocessors);
  if (c.blockN != 128 || conv2dWgradParts(p, c, target) != 1)
    return c;
  GemmConfig chosen = c;
  constexpr int64_t kMost = std::numeric_limits<int64_t>::max();
  std::pair<int64_t, int64_t> best{kMost, kMost};
  for (int64_t width : {128, 192, 256}) {
    GemmConfig candidate = c;
    candidate.blockN = width;
    if (width > 128)
      candidate.stages = 4;
    int64_t tiles = ceilDiv(g.m, c.blockM) * ceilDiv(g.n, width);
    std::pair<int64_t, int64_t> cost{ceilDiv(tiles, multiprocessors) * width, tiles};
    if (conv2dWgradParts(p, candidate, target) == 1 &&
        gemmSharedBytes(g, candidate) <= target.sharedBytesPerBlock && cost < best) {
      best = cost;
      chosen = candidate;
    }
  }
  return chosen;
}

/// Chips without wgmma (sm_80 to sm_89): tiles of 128 x 128, 128 x 64 or
/// 64 x 128 over 2 x 2 warps, a k-tile one tap's 64 channels; each with
/// the most stages (up to 4) that keep two blocks on a multiprocessor (a
/// 128 x 128 tile's accumulators allow no more than two), and the one whose
/// busiest multiprocessor takes the least time (its outputs, at half the
/// rate where it runs one block alone; ties to the one of less padding,
/// then the larger tile). On an H200 running this PTX, 4 stages of 128 x
/// 128 (one block a multiprocessor) ran 1.2-1.4x slower than 3 (two), and
/// 128 x 64 tiles 1.2x faster where 128 x 128 ones left most
/// multiprocessors one.
static GemmConfig chooseConv2dMmaSyncConfig(const GemmProblem &g, const Target &target) {
  int64_t multiprocessors = std::max<int64_t>(1, target.multiprocessors);
  GemmConfig best;
  // The busiest multiprocessor's outputs, then all tiles' (less padding).
  std::pair<int64_t, int64_t> bestWork{std::numeric_limits<int64_t>::max(), 0};
  for (auto [rows, columns] : {std::pair{128, 128}, std::pair{128, 64}, std::pair{64, 128}}) {
    GemmConfig c;
    c.blockM = rows;
    c.blockN = columns;
    c.blockK = kChannelTile;
    c.warpsM = c.warpsN = 2;
    c.raster = 1;
    int64_t registerBlocks = rows * columns > 128 * 64 ? 2 : 4;
    auto resident = [&](const GemmConfig &x) {
      return std::min(registerBlocks,
                      target.sharedBytesPerMultiprocessor / (gemmSharedBytes(g, x) + 1024));
    };
    for (c.stages = 4; c.stages > 2; --c.stages)
      if (gemmSharedBytes(g, c) <= target.sharedBytesPerBlock && resident(c) >= 2)
        break;
    if (gemmSharedBytes(g, c) > target.sharedBytesPerBlock)
      continue;
    // A multiprocessor running one block runs it at about half the rate of
    // two (latency the other block's warps would hide).
    int64_t tiles = ceilDiv(g.m, rows) * ceilDiv(g.n, columns);
    int64_t busiest = ceilDiv(tiles, multiprocessors);
    int64_t together = std::min<int64_t>(2, std::min(busiest, resident(c)));
    std::pair<int64_t, int64_t> work{busiest * rows * columns * 2 / together,
                                     tiles * rows * columns};
    if (work < bestWork) {
      bestWork = work;
      best = c;
    }
  }
  return best;
}

GemmConfig chooseConv2dConfig(const Conv2dProblem &problem, const Target &target) {
  // Tiles are sized from the problem's outputs and strides: none for a
  // problem that has none.
  if (!checkConv2dProblem(problem).empty())
    return GemmConfig();
  // The kernel problem's (one whose filter does not fit x stays unfolding,
  // and checkConv2d refuses it).
  Conv2dProblem kernel = conv2dKernelProblem(problem);
  if ((conv2dBlockDiagonal(problem) || conv2dUnfolds(problem)) && !conv2dUnfolds(kernel))
    return chooseConv2dConfig(kernel, target);
  // A strided dgrad's kernels share the config of its phase of the most
  // taps (the others split their reductions no further than they reach).
  Conv2dProblem p = problem;
  bool strided = conv2dStridedDgrad(problem);
  if (strided) {
    int64_t most = 0;
    for (const Conv2dProblem &phase : conv2dDgradPhases(problem)) {
      Conv2dGathered q = conv2dGathered(phase);
      if (q.conv.r * q.conv.s > most) {
        most = q.conv.r * q.conv.s;
        p = phase;
      }
    }
  }
  GemmProblem g = conv2dGemmProblem(p);
  if (!hasWarpgroupMma(target.chip))
    return chooseConv2dMmaSyncConfig(g, target);
  if (p.pass == ConvPass::Wgrad)
    return chooseConv2dWgradConfig(p, g, target);
  int64_t numSMs = std::max<int64_t>(1, target.multiprocessors);
  GemmConfig c;
  if (strided) {
    // A phase's reduction is a few taps, its rows a stride's square fewer
    // than dx's: 128 x 128 tiles where they take half the SMs or more,
    // else 64 x 128 (on an H200, 3x3 stride-2 ResNet layers ran 1.1-2x as
    // fast as under the GEMM chooser's tiles for the phase alone).
    c.wgmma = true;
    c.blockK = kChannelTile;
    c.blockN = 128;
    c.blockM = 2 * ceilDiv(g.m, 128) * ceilDiv(g.n, 128) >= numSMs ? 128 : 64;
    c.warpsM = c.blockM / 16;
    c.warpsN = 1;
    c.stages = 4;
  } else {
    c = chooseWgmmaGemmConfig(g, target, /*streamK=*/false);
    // The GEMM's 64 x 64 tiles for short reductions under a wave gather
    // A's im2col boxes again for every 64 columns: 128 x 128 (H200, 14x14
    // dgrad of 1024 -> 256 channels: 15.5 us in 64 x 64 tiles, 9.9 in
    // 128 x 128, 10.2 in 64 x 128).
    if (!c.swapAB && c.blockM == 64 && c.blockN == 64) {
      c.blockM = c.blockN = 128;
      c.warpsM = 8;
      c.stages = 4;
    }
    // A short reduction (32 k-tiles or fewer) the GEMM chooser splits
    // among a cluster's blocks: tiles of 64 rows, unsplit, make about as
    // many blocks without the exchange of partial sums, which so few
    // k-tiles do not repay (H200, 1x1 layers of 784 to 2352 positions over
    // 20 to 32 k-tiles: 1.09-1.24x as fast; longer 3x3 reductions ran as
    // often slower).
    if (!c.swapAB && c.splitK > 1 && ceilDiv(g.k, kChannelTile) <= 32) {
      c.splitK = 1;
      c.blockM = 64;
      c.warpsM = 4;
    }
  }
  if (c.swapAB) {
    // Few output positions (64 or fewer): one warpgroup of 64 rows, 64
    // columns, and the reduction split among up to 8 blocks of a cluster
    // while the grid still fits the SMs (such layers are deep: 7x7
    // positions of 512 channels by 3x3 taps are 72 k-tiles).
    c = GemmConfig();
    c.wgmma = true;
    c.blockM = 64;
    c.warpsM = 4;
    c.warpsN = 1;
    c.blockK = 64;
    c.blockN = 64;
    c.stages = 8;
    int64_t tiles = ceilDiv(g.n, c.blockN), kTiles = ceilDiv(g.k, c.blockK);
    while (c.splitK < 8 && c.splitK < kTiles && tiles * (c.splitK + 1) <= numSMs)
      ++c.splitK;
  }
  // Short reductions (16 k-tiles or fewer, e.g. 1x1 filters) on a wave or
  // more of tiles: the epilogue is much of a tile, so two compute
  // warpgroups take whole 128 x 128 tiles in turn on a persistent grid
  // (ping-pong), one's epilogue overlapping the other's main loop, even
  // where the tiles' last round is not full (it is no fuller on a grid of
  // a block a tile).
  int64_t tiles128 = ceilDiv(g.m, 128) * ceilDiv(g.n, 128);
  if (!c.swapAB && c.persistent == 0 && c.splitK == 1 && ceilDiv(g.k, 64) <= 16 &&
      tiles128 >= numSMs) {
    c.blockM = 128;
    c.blockN = 128;
    c.warpsM = 8;
    c.persistent = numSMs;
    c.pingpong = true;
  }
  // Output channels fewer than the tile's columns leave wgmma's columns
  // idle: the narrowest tile of 64-column steps that holds them.
  int64_t columns = std::max<int64_t>(64, ceilDiv(g.n, 64) * 64);
  if (columns < c.blockN)
    c.blockN = columns;
  // Grouped: a tile's columns divide a group's.
  if (p.groups > 1)
    c.blockN = groupTileColumns(
        p.pass == ConvPass::Dgrad ? conv2dGroupInputs(p) : conv2dGroupOutputs(p), c.blockN);
  // Ping-pong warpgroups hold whole tiles of 128 columns at most.
  if (c.pingpong && c.blockN > 128) {
    c.pingpong = false;
    c.persistent = 0;
  }
  // A cluster's blocks load equal shares of B: rows of 16 bytes, or
  // (N-major, dgrad) boxes of 64 columns.
  if (c.cluster > 1 && (c.blockN / c.cluster) % (g.b == Layout::ColMajor ? 8 : 64) != 0)
    c.cluster = 1;
  // A narrower tile's stages hold fewer bytes: 8 stages rather than 4
  // where 4 would keep fewer bytes in flight than 4 stages of 128 x 128
  // tiles, and shared memory holds them. A power of two: the ring's slot
  // and round are then a mask and a shift, not divisions (6 stages of
  // 128 x 64 tiles ran slower than 4 on an H200).
  GemmConfig deeper = c;
  deeper.stages = 8;
  if (c.stages < 8 && c.blockM + c.blockN < 256 &&
      gemmSharedBytes(g, deeper) <= target.sharedBytesPerBlock)
    c.stages = 8;
  // A group's tile wider than the chooser's (up to 256 columns) with the
  // epilogue's staging: as many stages as shared memory holds.
  while (c.stages > 2 && gemmSharedBytes(g, c) > target.sharedBytesPerBlock)
    c.stages /= 2;
  return c;
}

int64_t conv2dWgradParts(const Conv2dProblem &problem, const GemmConfig &c, const Target &target) {
  // A configuration outside the wgmma kernel's ranges (tiles of 8 to 256, a
  // split among a cluster's blocks) is one checkConv2d refuses: no parts to
  // size its grid by.
  if (!checkConv2dProblem(problem).empty() || c.blockM < 1 || c.blockM > 256 || c.blockN < 1 ||
      c.blockN > 256 || c.splitK < 1 || c.splitK > kMaxClusterBlocks)
    return 1;
  Conv2dProblem p = conv2dKernelProblem(problem);
  int64_t multiprocessors = std::max<int64_t>(1, target.multiprocessors);
  if (p.pass != ConvPass::Wgrad)
    return 1;
  GemmProblem g = conv2dGemmProblem(p);
  int64_t blocks = ceilDiv(g.m, c.blockM) * ceilDiv(g.n, c.blockN) * c.splitK;
  int64_t kTiles = ceilDiv(conv2dOutputPositions(p), kChannelTile);
  return std::max<int64_t>(1, std::min(multiprocessors / blocks, kTiles / (4 * c.splitK)));
}

int64_t conv2dWorkspaceBytes(const Conv2dProblem &p) {
  Conv2dProblem kernel = conv2dKernelProblem(p);
  int64_t unfolded = conv2dUnfolds(p) ? conv2dUnfoldedXBytes(p) : 0;
  int64_t weights =
      conv2dWeightRows(kernel) * kernel.r * kernel.s * conv2dWeightTapChannels(kernel);
  if (conv2dWgradReduces(p))
    return unfolded + (p.parts > 1 ? p.parts * weights * 4 : weights * dtypeBytes(p.output));
  if (p.pass == ConvPass::Wgrad)
    return 0;
  return conv2dUnfolds(p) || conv2dExpandsWeights(p) ? unfolded + weights * dtypeBytes(p.input) : 0;
}

bool conv2dWgradReduces(const Conv2dProblem &p) {
  return p.pass == ConvPass::Wgrad &&
         (p.parts > 1 || conv2dBlockDiagonal(p) || conv2dUnfolds(p) || conv2dPadsGroups(p));
}

LaunchShape conv2dWgradReduceLaunchShape(const Conv2dProblem &p) {
  return {ceilDiv(p.k * p.r * p.s * conv2dGroupInputs(p), kConv2dReduceThreads), 1,
          kConv2dReduceThreads};
}

runtime::Im2colMapShape conv2dInputMapShape(const Conv2dProblem &problem, const GemmConfig &c) {
  Conv2dGathered gathered = conv2dGathered(problem);
  const Conv2dProblem &p = gathered.conv;
  runtime::Im2colMapShape shape;
  shape.element = p.input == DType::F16 ? runtime::TensorMapShape::Element::F16
                                        : runtime::TensorMapShape::Element::BF16;
  shape.images = uint64_t(p.n);
  shape.height = uint64_t(p.h);
  shape.width = uint64_t(p.w);
  shape.channels = uint64_t(p.c);
  // Each image's window of first-tap positions: output (0, 0) reads input
  // (-padH, -padW), output (P - 1, Q - 1) reads ((P - 1) strideH - padH,
  // ...); a copy's tap offsets shift the window.
  shape.lowerH = int32_t(-p.padH);
  shape.lowerW = int32_t(-p.padW);
  shape.upperH = int32_t(upperCorner(p.h, gathered.outH, p.strideH, p.padH));
  shape.upperW = int32_t(upperCorner(p.w, gathered.outW, p.strideW, p.padW));
  shape.strideH = uint32_t(p.strideH);
  shape.strideW = uint32_t(p.strideW);
  // A copy is the tile's output positions (wgrad: a k-tile's).
  shape.pixels = uint32_t(p.pass == ConvPass::Wgrad ? c.blockK : c.blockM);
  return shape;
}

runtime::TensorMapShape conv2dWeightMapShape(const Conv2dProblem &p, const GemmConfig &c) {
  if (p.pass == ConvPass::Wgrad) {
    // dy, the GEMM's M-major A: its rows are the output positions, not
    // the reduction padded to whole k-tiles, its columns dy's K (not the
    // padded groups' rows of dw).
    runtime::TensorMapShape shape = gemmTensorMapShape(conv2dGemmProblem(p), c, 'a');
    shape.rows = uint64_t(conv2dOutputPositions(p));
    shape.cols = uint64_t(p.k);
    return shape;
  }
  // The implicit GEMM's B, except that w's rows hold R * S * C channels
  // (padded: R * S * C'), not the reduction padded to whole k-tiles.
  runtime::TensorMapShape shape = gemmTensorMapShape(conv2dGemmProblem(p), c, 'b');
  // dgrad's boxes are 64 of w's K rows by 64 of a tap's input channels
  // (transposed: the tile's input channels by 64 of a tap's K).
  shape.rows = uint64_t(conv2dWeightRows(p));
  shape.cols = uint64_t(p.r * p.s * conv2dWeightTapChannels(p));
  return shape;
}

bool conv2dWgradReadsXAsMatrix(const Conv2dProblem &p) {
  return p.pass == ConvPass::Wgrad && p.r == 1 && p.s == 1 && p.strideH == 1 && p.strideW == 1 &&
         p.padH == 0 && p.padW == 0 && p.groups == 1;
}

runtime::TensorMapShape conv2dInputMatrixMapShape(const Conv2dProblem &p, const GemmConfig &c) {
  // The GEMM's N-major B, whose rows are the output positions, not the
  // reduction padded to whole k-tiles.
  runtime::TensorMapShape shape = gemmTensorMapShape(conv2dGemmProblem(p), c, 'b');
  shape.rows = uint64_t(conv2dOutputPositions(p));
  shape.cols = uint64_t(p.c);
  return shape;
}

Conv2dParameters conv2dParameters(const Conv2dProblem &p, const GemmConfig &c) {
  GemmProblem g = conv2dGemmProblem(p);
  Conv2dParameters at;
  if (g.readsC)
    at.c = at.count++;
  if (g.bias != Along::None)
    at.bias = at.count++;
  if (g.scale != Along::None)
    at.scale = at.count++;
  if (c.wgmma) {
    at.xMap = at.count++;
    at.wMap = at.count++;
  }
  return at;
}

LaunchShape conv2dLaunchShape(const Conv2dProblem &p, const GemmConfig &c) {
  return gemmLaunchShape(conv2dGemmProblem(p), conv2dPhaseConfig(p, c));
}

} // namespace spio::kernels
