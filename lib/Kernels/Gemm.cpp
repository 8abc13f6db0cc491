//===- Gemm.cpp - The tensor-core GEMM kernel family ----------------------===//
//
// What a GEMM kernel supports, which tile configuration it takes and how it
// is launched; spio/Kernels/IR/GemmKernel.cpp builds the kernel itself.
//
//===----------------------------------------------------------------------===//

#include "spio/Kernels/Gemm.h"
#include "spio/Layout/Layout.h"
#include "spio/Target/Chip.h"
#include "spio/Target/Target.h"

#include <algorithm>
#include <tuple>


namespace spio::kernels {

const char *dtypeName(DType dtype) {
  switch (dtype) {
  case DType::F16:
    return "f16";
  case DType::BF16:
    return "bf16";
  case DType::F32:
    return "f32";
  }
  return "?";
}

int64_t dtypeBytes(DType dtype) { return dtype == DType::F32 ? 4 : 2; }

int64_t vectorElements(DType dtype) { return 16 / dtypeBytes(dtype); }

static int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

static bool isPowerOf2(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

/// A wgmma k-tile: one 128-byte row (64 of f16 or bf16, 32 of f32). M-
/// and N-major tiles (16-bit only) come in boxes of 64 of their rows or
/// columns.
constexpr int64_t kWgmmaRowBytes = 128, kWgmmaMNBox = 64;
static int64_t wgmmaBlockK(DType input) { return kWgmmaRowBytes / dtypeBytes(input); }

const char *epilogueStepName(EpilogueStep step) {
  switch (step) {
  case EpilogueStep::Scale:
    return "scale";
  case EpilogueStep::Bias:
    return "bias";
  case EpilogueStep::Residual:
    return "residual";
  case EpilogueStep::Relu:
    return "relu";
  case EpilogueStep::GeluTanh:
    return "gelu_tanh";
  case EpilogueStep::GeluErf:
    return "gelu_erf";
  case EpilogueStep::Silu:
    return "silu";
  }
  return "?";
}

std::vector<EpilogueStep> epilogueSteps(const GemmProblem &p) {
  if (!p.epilogue.empty() || !p.readsC)
    return p.epilogue;
  return {EpilogueStep::Residual};
}

/// Empty when the epilogue's steps and vectors agree with each other and
/// with C, else why not.
static std::string checkEpilogue(const GemmProblem &p) {
  std::vector<EpilogueStep> steps = epilogueSteps(p);
  auto has = [&](EpilogueStep step) {
    return std::find(steps.begin(), steps.end(), step) != steps.end();
  };
  for (size_t i = 0; i < steps.size(); ++i) {
    if (int(steps[i]) < int(EpilogueStep::Scale) || int(steps[i]) > int(EpilogueStep::Silu))
      return "epilogue step " + std::to_string(int(steps[i])) + " is not one of scale, bias, "
             "residual, relu, gelu_tanh, gelu_erf, silu";
    if (std::find(steps.begin(), steps.begin() + i, steps[i]) != steps.begin() + i)
      return std::string("the epilogue step ") + epilogueStepName(steps[i]) + " appears twice";
  }
  if (has(EpilogueStep::Residual) != p.readsC)
    return p.readsC ? "C is read only in a residual epilogue step"
                    : "a residual epilogue step needs C (reads C)";
  for (auto [step, along, type] : {std::tuple{EpilogueStep::Bias, p.bias, p.biasType},
                                   std::tuple{EpilogueStep::Scale, p.scale, p.scaleType}}) {
    const char *name = epilogueStepName(step);
    if (along != Along::None && along != Along::Rows && along != Along::Cols)
      return std::string("the ") + name + " must run along rows or columns";
    if (has(step) != (along != Along::None))
      return has(step) ? std::string("the ") + name + " epilogue step needs a " + name +
                             " vector along rows or columns"
                       : std::string("a ") + name + " vector needs a " + name +
                             " epilogue step";
    if (type != DType::F16 && type != DType::BF16 && type != DType::F32)
      return std::string("the ") + name + " must hold f16, bf16 or f32";
  }
  return {};
}

GemmParameters gemmParameters(const GemmProblem &p, const GemmConfig &c) {
  GemmParameters at;
  if (p.bias != Along::None)
    at.bias = at.count++;
  if (p.scale != Along::None)
    at.scale = at.count++;
  if (p.groups > 0)
    at.groups = at.count++;
  if (p.storesPreActivation)
    at.pre = at.count++;
  if (c.streamK) {
    at.partials = at.count++;
    at.flags = at.count++;
  }
  if (gemmSpillsRangeSums(c))
    at.rangeSums = at.count++;
  if (c.wgmma) {
    at.aMap = at.count++;
    at.bMap = at.count++;
  }
  return at;
}

bool gemmStagesResults(const GemmProblem &p, const GemmConfig &c) {
  return c.wgmma && !c.swapAB && p.n % (16 / dtypeBytes(p.output)) == 0;
}

int64_t gemmStagingBytes(const GemmProblem &p, const GemmConfig &c) {
  if (!gemmStagesResults(p, c))
    return 0;
  return c.warpsM * kStagedRows * (kStagedColumns * dtypeBytes(p.output) + 16);
}

int64_t gemmSharedBytes(const GemmProblem &p, const GemmConfig &c) {
  return c.stages * (c.blockM + c.blockN) * c.blockK * dtypeBytes(p.input) +
         (c.splitK > 1 ? c.blockM * c.blockN * 4 : 0) + gemmStagingBytes(p, c);
}

/// Whether f32 inputs are multiplied as they are, on TF32 tensor cores.
static bool tf32(const GemmProblem &p) {
  return p.input == DType::F32 && p.precision == F32Precision::Tf32;
}

/// The dtype the tensor cores read: f32 inputs' bf16 terms, except TF32's.
static DType tensorCoreInput(const GemmProblem &p) {
  return p.input == DType::F32 && !tf32(p) ? DType::BF16 : p.input;
}

/// Whether both operands are packed: f32 inputs split into terms, or a row
/// that is not 16-byte aligned.
static bool packsBoth(const GemmProblem &p) {
  if (p.input == DType::F32 && !tf32(p))
    return true;
  int64_t vector = vectorElements(p.input);
  int64_t contiguousA = p.a == Layout::RowMajor ? p.k : p.m;
  int64_t contiguousB = p.b == Layout::ColMajor ? p.k : p.n;
  return contiguousA % vector != 0 || contiguousB % vector != 0;
}

/// Whether operand 'a' or 'b' is M- or N-major: its rows run along K.
static bool mnMajor(const GemmProblem &p, char operand) {
  return operand == 'a' ? p.a != Layout::RowMajor : p.b != Layout::ColMajor;
}

/// Whether an operand's rows start off the L2's 32-byte sectors (their
/// length is not a multiple of 32 bytes): each 128-byte row of a TMA box
/// then spans five sectors of two lines, and the L2 serves three times the
/// requests (H200, 6000 x 2000 x 3000: 18.0 M against 5.6 M at K = 3008,
/// the kernel bound by the L2 at 547 TFLOP/s against 706).
static bool rowsOffSectors(const GemmProblem &p, char operand) {
  int64_t contiguous = !mnMajor(p, operand) ? p.k : operand == 'a' ? p.m : p.n;
  return contiguous * dtypeBytes(p.input) % 32 != 0;
}

/// Whether an M- or N-major operand is one the wgmma kernel cannot read in
/// place: a batched one (or a grouped GEMM's B, a matrix a group) whose K
/// leaves a partial k-tile, which its tensor map (the entries' K rows one
/// after the other) would fill from the next entry's rows rather than with
/// zeros.
static bool wgmmaPacksMNMajor(const GemmProblem &p, char operand) {
  bool batched = p.batch > 1 && (operand == 'a' ? p.batchA : p.batchB);
  bool grouped = p.groups > 0 && !p.groupedReduction && operand == 'b';
  return mnMajor(p, operand) && (batched || grouped) && p.k % wgmmaBlockK(p.input) != 0;
}

bool gemmPacksOperand(const GemmProblem &p, char operand) {
  if (packsBoth(p))
    return true;
  // TF32 wgmma reads K-major operands only.
  if (tf32(p))
    return mnMajor(p, operand);
  if (!p.packLayouts || !mnMajor(p, operand))
    return false;
  // Beside a packed partner (whose K is padded to a multiple of 8) an
  // operand is packed too unless K is such a multiple already.
  char other = operand == 'a' ? 'b' : 'a';
  return wgmmaPacksMNMajor(p, operand) || (p.k % 8 != 0 && wgmmaPacksMNMajor(p, other));
}

bool gemmPacksOperands(const GemmProblem &p) {
  return gemmPacksOperand(p, 'a') || gemmPacksOperand(p, 'b');
}

int64_t gemmPackSegments(const GemmProblem &p) {
  if (p.input != DType::F32 || tf32(p))
    return 1;
  switch (p.precision) {
  case F32Precision::Highest:
    return 6;
  case F32Precision::High:
    return 3;
  case F32Precision::Medium:
  case F32Precision::Tf32:
    return 1;
  }
  return 1;
}

int64_t gemmPackTerms(const GemmProblem &p) {
  if (p.input != DType::F32 || tf32(p))
    return 1;
  return p.precision == F32Precision::Highest ? 3 : p.precision == F32Precision::High ? 2 : 1;
}

int64_t gemmPackTerm(const GemmProblem &p, char operand, int64_t segment) {
  // Products by decreasing size: hi*hi, hi*mid, mid*hi, then (Highest)
  // hi*lo, mid*mid, lo*hi; those left out are below f32's rounding.
  static constexpr int64_t termsA[] = {0, 0, 1, 0, 1, 2};
  static constexpr int64_t termsB[] = {0, 1, 0, 2, 1, 0};
  return operand == 'a' ? termsA[segment] : termsB[segment];
}

/// K of a packed operand's segment: zeros up to a multiple of its 16-byte
/// vectors.
static int64_t packedK(const GemmProblem &p) {
  int64_t vector = vectorElements(tensorCoreInput(p));
  return ceilDiv(p.k, vector) * vector;
}

GemmProblem gemmPackedProblem(const GemmProblem &p) {
  if (!gemmPacksOperands(p))
    return p;
  GemmProblem q = p;
  q.input = tensorCoreInput(p);
  if (gemmPacksOperand(p, 'a'))
    q.a = Layout::RowMajor;
  if (gemmPacksOperand(p, 'b'))
    q.b = Layout::ColMajor;
  q.k = gemmPackSegments(p) * packedK(p);
  return q;
}

int64_t gemmPackedBytes(const GemmProblem &p, char operand) {
  if (!gemmPacksOperand(p, operand))
    return 0;
  bool batched = p.batch > 1 && (operand == 'a' ? p.batchA : p.batchB);
  int64_t rows = (operand == 'a' ? p.m : p.n) * (batched ? p.batch : 1);
  GemmProblem packed = gemmPackedProblem(p);
  return ceilDiv(rows * packed.k * dtypeBytes(packed.input), 256) * 256;
}

int64_t gemmPackedOffset(const GemmProblem &p, char operand) {
  return operand == 'a' ? 0 : gemmPackedBytes(p, 'a');
}

bool gemmSpillsRangeSums(const GemmConfig &c) {
  return c.wgmma && c.kRanges > 1 && c.wgmmaN() > 192;
}

int64_t gemmBlockSumsOffset(const GemmProblem &p) {
  return gemmPackedBytes(p, 'a') + gemmPackedBytes(p, 'b');
}

int64_t gemmBlockSumsBytes(const GemmConfig &c) {
  return c.streamK || gemmSpillsRangeSums(c) ? c.persistent * c.blockM * c.blockN * 4 : 0;
}

int64_t gemmStreamKFlagBytes(const GemmConfig &c) {
  return c.streamK ? ceilDiv(c.persistent * 4, 256) * 256 : 0;
}

int64_t gemmWorkspaceBytes(const GemmProblem &p, const GemmConfig &c) {
  return gemmBlockSumsOffset(p) + gemmBlockSumsBytes(c) + gemmStreamKFlagBytes(c);
}

int64_t gemmStreamKTiles(const GemmProblem &problem, const GemmConfig &c) {
  if (!c.streamK)
    return 0;
  GemmProblem p = gemmPackedProblem(problem);
  // Clusters and their tiles (C consecutive tiles along M).
  int64_t clusters = c.persistent / c.cluster;
  int64_t tiles = ceilDiv(ceilDiv(p.m, c.blockM), c.cluster) * ceilDiv(p.n, c.blockN) * p.batch;
  if (tiles < clusters)
    return tiles;
  int64_t partial = tiles % clusters;
  return partial == 0 ? 0 : partial + clusters;
}

std::string checkGemm(const GemmProblem &p, const GemmConfig &c, const Target &target) {
  if (p.m <= 0 || p.n <= 0 || p.k <= 0)
    return "GEMM sizes must be positive, got M=" + std::to_string(p.m) +
           " N=" + std::to_string(p.n) + " K=" + std::to_string(p.k);
  // A spio tensor spans at most layout::kMaxExtent (2^40) elements; the
  // grid arithmetic below then cannot overflow.
  if (!layout::withinExtent({p.m, p.k}) || !layout::withinExtent({p.k, p.n}) ||
      !layout::withinExtent({p.m, p.n}))
    return "M x K, K x N or M x N (M=" + std::to_string(p.m) + " N=" + std::to_string(p.n) +
           " K=" + std::to_string(p.k) + ") is over the 2^40 elements a spio tensor spans";
  if (p.input != DType::F16 && p.input != DType::BF16 && p.input != DType::F32)
    return "GEMM inputs must be f16, bf16 or f32";
  if (p.input == DType::F32 && p.precision != F32Precision::Highest &&
      p.precision != F32Precision::High && p.precision != F32Precision::Medium &&
      p.precision != F32Precision::Tf32)
    return "the f32 precision must be highest, high, medium or tf32";
  if (tf32(p) && !c.wgmma)
    return "f32 inputs at precision tf32 run on wgmma's TF32 tensor cores (sm_90a); elsewhere "
           "take precision high (2 bf16 terms, more accurate than TF32)";
  if (std::string err = checkEpilogue(p); !err.empty())
    return err;
  if (p.batch < 1 || p.batch > kMaxGridY)
    return "the batch must be 1 to " + std::to_string(kMaxGridY) + " problems, got " +
           std::to_string(p.batch);
  // Batches of operands spanning a tensor's extent: A, B and D hold at
  // most 2^40 elements each.
  if (!layout::withinExtent({p.batch, p.m, p.n}) || !layout::withinExtent({p.batch, p.m, p.k}) ||
      !layout::withinExtent({p.batch, p.n, p.k}))
    return "a batch of " + std::to_string(p.batch) + " problems of M=" + std::to_string(p.m) +
           " N=" + std::to_string(p.n) + " K=" + std::to_string(p.k) +
           " is over the 2^40 elements a spio tensor spans";
  if (p.storesPreActivation && std::none_of(p.epilogue.begin(), p.epilogue.end(), isActivation))
    return "storing the value before the activation needs an activation step in the epilogue";
  if (p.groups < 0 || p.groups > kMaxGroups)
    return "a grouped GEMM has 1 to " + std::to_string(kMaxGroups) + " groups, got " +
           std::to_string(p.groups);
  if (p.groups > 0) {
    if (p.batch != 1)
      return "a grouped GEMM is not batched too";
    if (p.groupedReduction && (!mnMajor(p, 'a') || !mnMajor(p, 'b')))
      return "a GEMM whose groups split K takes A column major (M contiguous) and B row major "
             "(N contiguous), each group's rows of K one after the other";
    if (!p.groupedReduction && (mnMajor(p, 'a') || wgmmaPacksMNMajor(p, 'b')))
      return "a grouped GEMM's wgmma kernel takes A row major (K contiguous) and B column "
             "major, or row major where K is a multiple of 64";
    if (p.input == DType::F32 || gemmPacksOperands(p))
      return "a grouped GEMM takes f16 or bf16 A and B, each read in place: contiguous "
             "dimensions multiples of 8 (packing is not done for groups)";
    if (!p.groupedReduction && !layout::withinExtent({p.groups, p.n, p.k}))
      return "B's " + std::to_string(p.groups) + " groups of N=" + std::to_string(p.n) +
             " K=" + std::to_string(p.k) + " are over the 2^40 elements a spio tensor spans";
    if (p.groupedReduction && !layout::withinExtent({p.groups, p.m, p.n}))
      return "D's " + std::to_string(p.groups) + " groups of M=" + std::to_string(p.m) +
             " N=" + std::to_string(p.n) + " are over the 2^40 elements a spio tensor spans";
    if (!c.wgmma || c.persistent == 0 || c.cluster != 1 || c.swapAB || c.splitK != 1)
      return "a grouped GEMM runs on a persistent wgmma grid (sm_90), without clusters, "
             "swapped operands or split K";
    // Each group's last k-tile is cut at the group's end by zeroing the
    // rows past it in the stage, which both compute warpgroups read.
    if (p.groupedReduction && (c.pingpong || c.promote || c.kRanges != 1))
      return "a GEMM whose groups split K runs its compute warpgroups on the same tiles "
             "(no pingpong), without promoted sums or k ranges";
    if (p.groupedReduction && (p.bias != Along::None || p.scale != Along::None))
      return "a GEMM whose groups split K takes no bias or scale vector";
  } else if (p.groupedReduction) {
    return "a GEMM whose groups split K needs the groups (their count and end table)";
  }
  if (gemmPacksOperands(p)) {
    // The packed operands' segments along K must fit a tensor too; the
    // tensor-core kernel is then the packed problem's.
    int64_t k = gemmPackedProblem(p).k;
    if (!layout::withinExtent({p.batch, p.m, k}) || !layout::withinExtent({p.batch, p.n, k}))
      return "A and B packed into " + std::to_string(gemmPackSegments(p)) +
             " segments of K are over the 2^40 elements a spio tensor spans";
    return checkGemm(gemmPackedProblem(p), c, target);
  }
  if (c.warpsM < 1 || c.warpsN < 1)
    return "warp counts must be positive, got " + std::to_string(c.warpsM) + "x" +
           std::to_string(c.warpsN);
  if (c.raster < 1)
    return "raster groups must be positive, got " + std::to_string(c.raster);
  if (c.persistent < 0 || (c.persistent > 0 && !c.wgmma) || c.persistent > kMaxGridX)
    return "a persistent grid is 1 to " + std::to_string(kMaxGridX) +
           " blocks of the wgmma kernel, got " + std::to_string(c.persistent);
  if ((c.cluster != 1 && c.cluster != 2) ||
      (c.cluster == 2 && (c.persistent == 0 || c.persistent % 2 != 0)))
    return "a cluster is 1 block, or 2 of a persistent grid of an even count of blocks, got " +
           std::to_string(c.cluster) + " of " + std::to_string(c.persistent);
  if (!c.wgmma && (c.swapAB || c.splitK != 1 || c.promote || c.kRanges != 1))
    return "swapping A and B, splitting K and promoting sums are for wgmma kernels";
  if (c.wgmma) {
    // A warpgroup's wgmma reads tiles of 128-byte rows: 64 f16 or bf16 (32
    // f32) of the reduction (K-major), or of A's rows or B's columns (M- or
    // N-major, wgmma's transposed operands, 16-bit only).
    if (!wgmmaSupports(p))
      return "a batched M- or N-major operand whose K is not a multiple of 64 is packed "
             "K-major for wgmma first (pack_layouts); use the mma.sync configuration otherwise";
    // An M- or N-major tile comes in TMA boxes of 64 of its rows or columns
    // (a cluster's blocks load B's boxes in equal shares).
    if (mnMajor(p, 'a') && c.blockM % kWgmmaMNBox != 0)
      return "an M-major A's wgmma tiles are 64 rows or a multiple of them (" +
             std::string(c.swapAB ? "wgmma's N" : "block M") + "), got " + std::to_string(c.blockM);
    if (mnMajor(p, 'b') && (c.blockN / c.cluster) % kWgmmaMNBox != 0)
      return "an N-major B's wgmma tiles (a cluster block's share of them) are 64 columns or "
             "a multiple of them, got " +
             std::to_string(c.blockN / c.cluster);
    const char *side = c.swapAB ? "N" : "M";
    if (c.warpsN != 1 || c.warpsM % 4 != 0 || c.warpgroupRows() != 16 * c.warpsM)
      return std::string("a wgmma block is warpgroups of 4 warps along ") + side +
             ", 64 rows each: warps = [4 * G, 1] and block " + side + " = 64 * G, got warps " +
             std::to_string(c.warpsM) + "x" + std::to_string(c.warpsN) + " and block " + side +
             " " + std::to_string(c.warpgroupRows());
    if (c.blockK != wgmmaBlockK(p.input))
      return "a wgmma block's K tile is one 128-byte row: " + std::to_string(wgmmaBlockK(p.input)) +
             " of " + dtypeName(p.input) + ", got " + std::to_string(c.blockK);
    // TMA takes a box's origin as 32-bit signed element coordinates.
    constexpr int64_t kMaxTmaExtent = (int64_t(1) << 31) - 1;
    // A batched operand's rows are those of all its batch entries.
    for (char operand : {'a', 'b'}) {
      runtime::TensorMapShape map = gemmTensorMapShape(p, c, operand);
      if (map.rows > uint64_t(kMaxTmaExtent) || map.cols > uint64_t(kMaxTmaExtent))
        return "a wgmma kernel's TMA copies address M, N and K (the rows times the batch) up "
               "to 2^31 - 1 elements; split the GEMM or use the mma.sync configuration";
    }
    if (c.wgmmaN() < 8 || c.wgmmaN() > 256 || c.wgmmaN() % 8 != 0)
      return std::string("a wgmma block's ") + (c.swapAB ? "M" : "N") +
             " tile (wgmma's N) is a multiple of 8 from 8 to 256, got " +
             std::to_string(c.wgmmaN());
    if (c.swapAB && c.cluster != 1)
      return "blocks share B tiles in a cluster only with A's rows along the warpgroups "
             "(no swap)";
    int64_t kTiles = ceilDiv(p.k, c.blockK);
    if (c.splitK < 1 || c.splitK > 8)
      return "a split reduction is 1 to 8 blocks of a cluster, got " + std::to_string(c.splitK);
    if (c.splitK > kTiles)
      return "K = " + std::to_string(p.k) + " has " + std::to_string(kTiles) +
             " k-tiles, fewer than the " + std::to_string(c.splitK) + " blocks splitting it";
    if (c.splitK > 1 && (c.persistent != 0 || c.cluster != 1))
      return "blocks split K on a grid of a block a tile, not on a persistent grid or in "
             "clusters sharing B";
    // Each warpgroup of a ping-pong pair holds the whole tile's
    // accumulators: 128 rows by up to 128 columns in 232 registers.
    // A promoting warpgroup holds its running sums and a k-tile's.
    if (c.promote && (c.pingpong || c.wgmmaN() > 192))
      return "promoted sums (promote) need wgmma's N of at most 192, not ping-pong";
    if (c.kRanges < 1 || c.kRanges > 8 ||
        (c.kRanges > 1 && (c.pingpong || c.promote || c.splitK != 1)))
      return "a block sums 1 to 8 ranges of k-tiles (k_ranges), not ping-pong, promoted or "
             "split, got " +
             std::to_string(c.kRanges);
    if (gemmSpillsRangeSums(c) && (c.persistent == 0 || c.swapAB))
      return "a block summing k ranges on wgmma's N over 192 keeps their sums in the "
             "workspace, a slot a block of a persistent grid: make the grid persistent, not "
             "swapped, or the tile at most 192 wide";
    if (c.kRanges > ceilDiv(p.k, c.blockK))
      return "K = " + std::to_string(p.k) + " has " + std::to_string(ceilDiv(p.k, c.blockK)) +
             " k-tiles, fewer than the " + std::to_string(c.kRanges) + " ranges summing it";
    if (c.pingpong && (c.persistent == 0 || c.warpsM != 8 || c.swapAB || c.blockN > 128))
      return "compute warpgroups take tiles in turn (pingpong) on a persistent grid, two of "
             "them, with tiles of 128 x 128 or narrower, not swapped";
    if (c.streamK && (c.persistent == 0 || c.swapAB || c.pingpong || c.promote || c.kRanges != 1 ||
                      p.groups > 0))
      return "blocks share tiles' k-tiles (stream_k) on a persistent grid without swapped "
             "operands, ping-pong, promoted sums, k ranges or groups";
    // Its rows would depend on how many tiles M makes.
    if (c.streamK && p.batchInvariant)
      return "a batch-invariant GEMM cannot share k-tiles among blocks (stream_k): where a "
             "row's tile is cut would depend on M";
    // Every block takes at least one k-tile of the shared tiles, so that
    // each block a finishing block waits for exists.
    if (int64_t shared = gemmStreamKTiles(p, c);
        shared > 0 && shared * kTiles < c.persistent / c.cluster)
      return "stream_k shares " + std::to_string(shared * kTiles) + " k-tiles (" +
             std::to_string(shared) + " tiles of " + std::to_string(kTiles) + "), fewer than the " +
             std::to_string(c.persistent / c.cluster) +
             " clusters (blocks) taking them: take fewer persistent blocks";
  } else if (c.blockK % 16 != 0 || c.blockM % (16 * c.warpsM) != 0 ||
             c.blockN % (8 * c.warpsN) != 0 || !isPowerOf2(c.blockM) ||
             !isPowerOf2(c.blockN) || !isPowerOf2(c.blockK)) {
    return "tile " + std::to_string(c.blockM) + "x" + std::to_string(c.blockN) + "x" +
           std::to_string(c.blockK) + " does not divide into the warps' mma tiles";
  }
  if (c.stages < 2)
    return "the pipeline needs at least 2 stages";
  int64_t threads = c.threads();
  // wgmma's tiles come by TMA; mma.sync's by every thread's 16-byte copies.
  auto divides = [&](int64_t rows, int64_t vectorsPerRow) {
    int64_t vectors = rows * vectorsPerRow;
    return vectors % threads == 0 && threads % vectorsPerRow == 0;
  };
  bool ok = c.wgmma || ((p.a == Layout::RowMajor ? divides(c.blockM, c.blockK / 8)
                                                  : divides(c.blockK, c.blockM / 8)) &&
                         (p.b == Layout::ColMajor ? divides(c.blockN, c.blockK / 8)
                                                  : divides(c.blockK, c.blockN / 8)));
  if (!ok)
    return "the tile's 16-byte vectors do not divide evenly among " +
           std::to_string(threads) + " threads";
  // spio-pipeline keeps `stages` of A's and B's tiles (whole swizzle
  // periods) in shared memory, which the target's block caps (saying it
  // here keeps such configs out of the instances a caller may pick).
  // A split reduction adds the blocks' f32 partial tiles from shared memory.
  int64_t shared = gemmSharedBytes(p, c);
  if (shared > target.sharedBytesPerBlock)
    return std::to_string(c.stages) + " stages of " + std::to_string(c.blockM) + "x" +
           std::to_string(c.blockN) + "x" + std::to_string(c.blockK) + " tiles" +
           (c.splitK > 1 ? " and the partial sums" : "") +
           (gemmStagingBytes(p, c) ? " and the staging of D" : "") + " need " +
           std::to_string(shared) + " bytes of shared memory, over the " +
           std::to_string(target.sharedBytesPerBlock) + " a block of " + target.chip +
           " may use: take fewer stages or a smaller tile";
  // A finishing block waits for blocks before it, which must have started.
  if (c.streamK && c.persistent > target.multiprocessors)
    return "stream_k's " + std::to_string(c.persistent) +
           " persistent blocks must all run at once: at most the " +
           std::to_string(target.multiprocessors) + " multiprocessors of " + target.chip;
  // Block rows go along the grid's y, block columns (times the blocks
  // splitting each tile's reduction) along its x.
  if (ceilDiv(p.n, c.blockN) > kMaxGridX / c.splitK)
    return "N = " + std::to_string(p.n) + " takes " + std::to_string(ceilDiv(p.n, c.blockN)) +
           " block columns of " + std::to_string(c.blockN) +
           (c.splitK > 1 ? " (times " + std::to_string(c.splitK) + " splitting K)" : "") +
           ", over the " +
           std::to_string(kMaxGridX) + " a CUDA grid holds along x: split N";
  if (ceilDiv(p.m, c.blockM) > kMaxGridY)
    return "M = " + std::to_string(p.m) + " takes " + std::to_string(ceilDiv(p.m, c.blockM)) +
           " block rows of " + std::to_string(c.blockM) + ", over the " +
           std::to_string(kMaxGridY) + " a CUDA grid holds along y: split M";
  return {};
}

GemmConfig chooseGemmConfig(const GemmProblem &p, const Target &target) {
  int64_t numSMs = std::max<int64_t>(1, target.multiprocessors);
  // 128 x 128 x 32 tiles over 2 x 2 warps (64 x 64 each) and 4 stages were
  // the fastest of the tiles swept at 4096^3 and 8192^3; rasters of 8 block
  // rows share B tiles in L2 (benchmarks/gemm/RESULTS.md).
  GemmConfig large;
  large.warpsM = 2;
  large.warpsN = 2;
  large.raster = 8;
  int64_t blocks = ceilDiv(p.m, large.blockM) * ceilDiv(p.n, large.blockN) * p.batch;
  if (blocks >= numSMs) {
    if (ceilDiv(p.m, large.blockM) % large.raster != 0)
      large.raster = 1;
    return large;
  }
  GemmConfig small;
  small.blockM = 64;
  small.blockN = 64;
  small.warpsM = 2;
  small.warpsN = 2;
  small.blockK = 64;
  small.stages = 4;
  return small;
}

bool wgmmaSupports(const GemmProblem &problem) {
  GemmProblem p = gemmPackedProblem(problem);
  // Groups splitting K read their rows of K from A and B, M- and N-major.
  if (p.groupedReduction)
    return p.input != DType::F32 && mnMajor(p, 'a') && mnMajor(p, 'b');
  // Packed f32 inputs are bf16 terms; TF32's are f32, K-major.
  return (p.input != DType::F32 || tf32(p)) && !wgmmaPacksMNMajor(p, 'a') &&
         !wgmmaPacksMNMajor(p, 'b') && (p.groups == 0 || !mnMajor(p, 'a'));
}

// Hopper (H200, bf16; benchmarks/gemm/layouts.py, RESULTS.md): the wgmma
// kernel reaches about 650 TFLOP/s on large problems; mma.sync on M- or
// N-major operands 345-420 from 2048^3 up and 195 at 1536^3, about half
// near the sizes where the choice turns; the packing kernel transposes an
// operand at about 1.5 TB/s (1.4 for 16384 x 1024, 1.9 for 4096^2), twice
// that where what it reads and writes stays in the L2 (2048 x 768, 1536^2),
// each launch about 3 us of the stream.
constexpr double kHopperWgmmaFlopsPerSecond = 650e12;
constexpr double kHopperMmaSyncFlopsPerSecond = 325e12;
// The transposes' rates (1.5 and 3 TB/s on an H200) as shares of its
// DRAM bandwidth.
constexpr double kTransposeBandwidthShare = 0.31;
constexpr double kL2TransposeBandwidthShare = 0.62;
constexpr double kPackLaunchSeconds = 3e-6;

bool gemmPrefersPackedLayouts(const GemmProblem &problem, const Target &target) {
  GemmProblem p = problem;
  p.packLayouts = false;
  if (p.input == DType::F32 || p.groups > 0 || gemmPacksOperands(p) || wgmmaSupports(p))
    return false;
  double flops = 2.0 * double(p.m) * double(p.n) * double(p.k) * double(p.batch);
  double saved = flops / kHopperMmaSyncFlopsPerSecond - flops / kHopperWgmmaFlopsPerSecond;
  // Each M- or N-major operand read once and written once K-major, in
  // 2-byte elements, by a launch of its own.
  p.packLayouts = true;
  double packSeconds = 0;
  for (char which : {'a', 'b'}) {
    if (!gemmPacksOperand(p, which))
      continue;
    bool batched = which == 'a' ? p.batchA : p.batchB;
    double rows = double(which == 'a' ? p.m : p.n) * double(batched ? p.batch : 1);
    double bytes = 2.0 * 2.0 * rows * double(p.k);
    double share =
        bytes <= double(target.l2Bytes) ? kL2TransposeBandwidthShare : kTransposeBandwidthShare;
    packSeconds += bytes / (share * target.memoryBytesPerSecond) + kPackLaunchSeconds;
  }
  return packSeconds < saved;
}

bool gemmPrefersWgmma(const GemmProblem &problem, const Target &target) {
  return wgmmaSupports(problem) || gemmPrefersPackedLayouts(problem, target);
}

/// `c` with as many stages (up to 8) as a block's shared memory holds.
static GemmConfig deepestRing(const GemmProblem &p, GemmConfig c, const Target &target) {
  GemmConfig deeper = c;
  for (++deeper.stages;
       deeper.stages <= 8 && gemmSharedBytes(p, deeper) <= target.sharedBytesPerBlock;
       ++deeper.stages)
    c.stages = deeper.stages;
  return c;
}

/// `c` swapped onto tiles of `rows` rows of N (a compute warpgroup per 64),
/// in as many of 8 stages as shared memory holds.
static GemmConfig swappedRows(const GemmProblem &p, GemmConfig c, int64_t rows,
                              const Target &target) {
  c.blockN = rows;
  c.warpsM = rows / 16;
  c.stages = 8;
  while (c.stages > 2 && gemmSharedBytes(p, c) > target.sharedBytesPerBlock)
    --c.stages;
  return c;
}

/// Groups of up to 8 tile rows (a count that divides `rows`, the grid's),
/// taken column by column: the blocks running at once then read each B tile
/// from DRAM once, which row by row they would read again for every row
/// once B outgrows the L2.
static int64_t rasterRows(int64_t rows) {
  for (int64_t group = 8; group > 1; --group)
    if (rows % group == 0)
      return group;
  return 1;
}

/// rasterRows of `c`'s grid, whose rows are its clusters' (pairs of tile
/// rows where blocks pair up).
static int64_t gridRaster(const GemmProblem &p, const GemmConfig &c) {
  return rasterRows(ceilDiv(ceilDiv(p.m, c.blockM), c.cluster));
}

GemmConfig chooseWgmmaGemmConfig(const GemmProblem &problem, const Target &target, bool streamK) {
  int64_t numSMs = std::max<int64_t>(1, target.multiprocessors);
  GemmProblem p = gemmPackedProblem(problem);
  GemmConfig c;
  c.wgmma = true;
  // f32 at the highest precision adds each k-tile's sums in f32 (wgmma's
  // own additions truncate), on tiles of 128 columns (192, which the
  // registers also hold, were 0-5% faster on H200; RESULTS.md).
  c.promote = problem.input == DType::F32 && problem.precision == F32Precision::Highest;
  c.blockK = wgmmaBlockK(p.input);
  c.warpsN = 1;
  // The tiles of all the problems of a batch.
  auto tiles = [&](int64_t m, int64_t n) {
    return ceilDiv(p.m, m) * ceilDiv(p.n, n) * p.batch;
  };
  // Whether `clusters` clusters of `size` blocks, a block an SM, all run at
  // once: a cluster lies within one GPC, and those past the part's count
  // wait for a second round (H200: K split by 3 in 40 clusters, one over
  // its 39, ran 35% slower than by 2; benchmarks/gemm/RESULTS.md).
  auto clustersRun = [&](int64_t clusters, int64_t size) {
    return clusters <= target.clusters(size);
  };
  if (p.groups > 0) {
    // Groups of unknown sizes on a persistent grid of 128-row tiles: 256
    // columns where the tiles (each group's last one partial at worst)
    // are three rounds or more, ping-pong over short reductions.
    bool shortK = ceilDiv(p.k, c.blockK) <= 16;
    c.blockM = 128;
    c.warpsM = 8;
    c.persistent = numSMs;
    c.stages = 4;
    if (p.groupedReduction) {
      // Each group's M x N tiles, whose k-tiles only the device knows: 256
      // columns where all groups' tiles are three rounds or more.
      c.blockN = tiles(128, 256) * p.groups >= 3 * numSMs ? 256 : 128;
      c.raster = 1;
      return c;
    }
    int64_t rowTiles = ceilDiv(p.m, c.blockM) + p.groups;
    c.blockN = !shortK && rowTiles * ceilDiv(p.n, 256) >= 3 * numSMs ? 256 : 128;
    c.pingpong = shortK;
    // Bands of 8 tile rows share B tiles in L2 (ping-pong's registers have
    // no room for the band's arithmetic; its short reductions need it less).
    c.raster = c.pingpong ? 1 : 8;
    return c;
  }
  // Decoding and small batches: M along wgmma's N (padded to 8, not to a
  // warpgroup's 64 rows, `width` columns of it) and N along one warpgroup,
  // or two where 64-row tiles would more than fill the three blocks an SM
  // holds; 8 stages keep a block's loads of B in flight. K split by the
  // fewest blocks (up to 3) that give 90% of a block an SM, as many as the
  // SMs hold at once.
  //
  // Where those blocks would not all run at once a block an SM (two rounds,
  // or two blocks on some SMs), or the SMs a block each cut the split
  // short, decoding (M up to 64) takes 128-row tiles instead, split by the
  // most blocks (up to 3) that run at once, where they fill half the SMs or
  // more (and, split short, more SMs than the 64-row tiles): each column's
  // blocks then also read the tokens' tile half as often (H200, M = 16-64:
  // 8-22% faster at N = 4608 split by 3, 2-34% at N = 6000-11008 split by
  // 2 or 1; split by 3 past the 39 clusters of 3 the part runs at once, 35%
  // slower; where as many 64-row blocks ran at once, 128-row ones were 3%
  // faster to 11% slower; benchmarks/gemm/RESULTS.md). `split` blocks, or
  // (0) the chooser's count.
  auto swapped = [&](int64_t width, int64_t split) {
    GemmConfig s = c;
    s.swapAB = true;
    // An M-major A comes in boxes of 64 of M.
    s.blockM = mnMajor(p, 'a') ? ceilDiv(width, kWgmmaMNBox) * kWgmmaMNBox : width;
    // One row of tiles (M <= width): N's tiles alone.
    auto count = [&](int64_t n) { return ceilDiv(p.n, n) * p.batch; };
    int64_t kTiles = ceilDiv(p.k, s.blockK);
    s = swappedRows(p, s, count(64) >= 3 * numSMs ? 128 : 64, target);
    int64_t resident =
        numSMs * std::max<int64_t>(1, target.sharedBytesPerMultiprocessor / gemmSharedBytes(p, s));
    if (split > 0)
      s.splitK = split;
    // Where two blocks fit an SM, twice the clusters run at once.
    int64_t perSM = resident / numSMs;
    while (split == 0 && s.splitK < 3 && 10 * count(s.blockN) * s.splitK < 9 * numSMs &&
           count(s.blockN) * (s.splitK + 1) <= resident &&
           clustersRun(ceilDiv(count(s.blockN), perSM), s.splitK + 1))
      ++s.splitK;
    s.splitK = std::min(s.splitK, kTiles);
    int64_t blocks = count(s.blockN) * s.splitK;
    // Under 90% of the SMs where residency or clusters cut the split short.
    bool cutShort = 10 * blocks < 9 * numSMs && s.splitK < std::min<int64_t>(3, kTiles);
    if (split == 0 && width <= 64 && !p.batchInvariant && (blocks > numSMs || cutShort)) {
      int64_t wideSplit = 1;
      while (wideSplit < 3 && wideSplit < kTiles && count(128) * (wideSplit + 1) <= numSMs &&
             clustersRun(count(128), wideSplit + 1))
        ++wideSplit;
      int64_t wideBlocks = count(128) * wideSplit;
      if (wideBlocks <= numSMs && 2 * wideBlocks >= numSMs &&
          (blocks > numSMs || wideBlocks > blocks)) {
        s = swappedRows(p, s, 128, target);
        s.splitK = wideSplit;
      }
    }
    // The partial sums take their place.
    while (gemmSharedBytes(p, s) > target.sharedBytesPerBlock)
      --s.stages;
    return s;
  };
  // A block of a grid of one round, unsplit and streaming a long reduction
  // (64 k-tiles or more) alone on its SM, runs at the bytes it keeps in
  // flight: as many stages as shared memory holds (H200, 128 x 10240 x
  // 8192: 352 TFLOP/s in 4 stages, 431 in 6; 512 x 4096 x 14336 673 ->
  // 745). Split blocks stream fewer k-tiles, and 6 stages (their partial
  // sums in the ring's bytes) ran up to 25% slower there, GEMMs and
  // convolutions alike; persistent blocks, whose next tile's loads overlap
  // the last one's epilogue, ran 5-7% slower (benchmarks/gemm/RESULTS.md).
  auto deepenLoneRing = [&](GemmConfig &t) {
    if (t.splitK == 1 && t.persistent == 0 && ceilDiv(p.k, t.blockK) >= 64)
      t = deepestRing(p, t, target);
  };
  // Pairs of blocks sharing B tiles halve B's L2 reads, which pays for
  // their coupling over long reductions (benchmarks/gemm/RESULTS.md), and
  // wherever B's rows lie off the L2's sectors; an odd count of tile rows
  // leaves half of the last pair idle, a cost only among few rows, and an
  // N-major B's boxes of 64 columns must split evenly between the two.
  auto pairsFit = [&](const GemmConfig &t) {
    int64_t rows = ceilDiv(p.m, t.blockM);
    return numSMs % 2 == 0 && (rows % 2 == 0 || rows >= 16);
  };
  auto pairsShareB = [&](const GemmConfig &t) {
    return pairsFit(t) && (ceilDiv(p.k, t.blockK) >= 128 || rowsOffSectors(p, 'b')) &&
           (!mnMajor(p, 'b') || t.blockN % (2 * kWgmmaMNBox) == 0);
  };
  // The width of `m`-row tiles, a multiple of 16 from 128 to 256 (of 64
  // for an N-major B's boxes), that does the most work a round (`widest`,
  // below). Persistent pairs sharing B take the tile rows two at a time:
  // their rounds count pairs, and half of an odd count's last pair idles.
  int64_t step = mnMajor(p, 'b') ? kWgmmaMNBox : 16;
  auto paired = [&](int64_t m, int64_t n) {
    GemmConfig t = c;
    t.blockM = m;
    t.blockN = n;
    return pairsShareB(t) && (tiles(m, n) > numSMs || rowsOffSectors(p, 'b'));
  };
  // The grid's units (pairs where paired), the SMs' slots for them, and
  // the tile rows they hold.
  struct Units {
    int64_t count, slots, rows, heldRows;
  };
  auto unitsOf = [&](int64_t m, int64_t n) {
    int64_t per = paired(m, n) ? 2 : 1, rows = ceilDiv(p.m, m), held = ceilDiv(rows, per);
    return Units{held * ceilDiv(p.n, n) * p.batch, numSMs / per, rows, held * per};
  };
  auto fillOf = [&](int64_t m, int64_t n) {
    Units u = unitsOf(m, n);
    return double(u.count) / double(ceilDiv(u.count, u.slots) * u.slots) * double(u.rows) /
           double(u.heldRows) * double(p.n) / double(ceilDiv(p.n, n) * n);
  };
  // Rows past M idle too; a k-tile's MMA work per byte it loads is
  // m n / (m + n).
  auto rowsFilled = [&](int64_t m) { return double(p.m) / double(ceilDiv(p.m, m) * m); };
  auto work = [&](int64_t m, int64_t n) {
    return fillOf(m, n) * rowsFilled(m) * double(m * n) / double(m + n);
  };
  // The width from 256 down whose `score` is highest.
  auto widestBy = [&](auto score) {
    int64_t width = 256;
    for (int64_t n = 256 - step; n >= 128; n -= step)
      if (score(n) > score(width))
        width = n;
    return width;
  };
  auto widest = [&](int64_t m) { return widestBy([&](int64_t n) { return work(m, n); }); };
  // A batch-invariant problem splits K the same way whatever M: as a
  // swapped tile of 64 columns of M would (N's tiles alone), in a cluster
  // where the blocks fit, else summing the ranges apart in each block (the
  // same bits). Promoted sums add tile by tile in one order: never split.
  // Tile shapes, swapping and clusters sharing B leave each element's order
  // of additions as it is, so the rules below that do not split K choose
  // for it as for any problem where that split is 1.
  int64_t invariantSplit = p.batchInvariant && !c.promote ? swapped(64, 0).splitK : 1;
  if (p.m <= 64) {
    int64_t width = 8;
    while (width < p.m)
      width *= 2;
    return swapped(width, p.batchInvariant ? invariantSplit : 0);
  }
  // One row of 128-row tiles streaming a long reduction, whose 64 x 128
  // tiles would fill under half a round: swapped as for decoding (below).
  bool oneRowLongK = ceilDiv(p.m, 128) == 1 && ceilDiv(p.k, c.blockK) >= 64;
  bool swapsOneRow = oneRowLongK && 2 * tiles(64, 128) < numSMs && !c.promote;
  if (invariantSplit > 1 && swapsOneRow)
    return swapped(ceilDiv(p.m, 8) * 8, invariantSplit);
  if (invariantSplit > 1) {
    c.blockM = c.blockN = 128;
    c.warpsM = 8;
    c.stages = 4;
    c.raster = gridRaster(p, c);
    if (tiles(128, 128) * invariantSplit <= numSMs) {
      c.splitK = invariantSplit;
      return c;
    }
    c.kRanges = invariantSplit;
    if (tiles(128, 128) >= numSMs) {
      // Persistent, in the tiles that do the most work a round (as the
      // default's widest), paired where the default pairs them. Over 192
      // columns the sums of the ranges before the last wait in the
      // workspace: each range but the last writes, and reads back, m n f32
      // of a tile whose A and B tiles bring (m + n / pair) K bf16. That
      // cost weighs 1.6x its bytes, the ranges' drains with it (H200, 128 x
      // 256 tiles against the default's: 0.89-0.90 at K = 4096, 0.965 paired
      // at K = 14336; 192-column pairs ran 0.96 at 8192 x 4096 x 4096, 0.89
      // at 2048 x 4096 x 14336).
      auto invariantWork = [&](int64_t n) {
        if (n <= 192)
          return work(128, n);
        double loaded = double(128 + n / (paired(128, n) ? 2 : 1)) * double(p.k) * 2.0;
        double spilled = 2.0 * double(c.kRanges - 1) * 128.0 * double(n) * 4.0;
        return work(128, n) * (1.0 - 1.6 * spilled / loaded);
      };
      c.blockN = widestBy(invariantWork);
      c.persistent = numSMs;
      // Tiles of 192 columns pair to share B over short reductions too
      // (H200, 8192 x 4096 x 4096: 758 TFLOP/s in pairs against 739
      // unpaired); 128-column ones ran 1-7% slower paired there (1024 x
      // 4096 x 4096: 610 against 655).
      if (paired(128, c.blockN) || (c.blockN == 192 && pairsFit(c) && !mnMajor(p, 'b')))
        c.cluster = 2;
      c.raster = gridRaster(p, c);
    }
    return c;
  }
  bool shortK = ceilDiv(p.k, c.blockK) <= 16;
  // How fully `m` x `n` tiles use the SMs: the last round's idle SMs and
  // the columns of each row's last tile past N both count.
  auto fill = [&](int64_t m, int64_t n) {
    int64_t count = tiles(m, n);
    return double(count) / double(ceilDiv(count, numSMs) * numSMs) * double(p.n) /
           double(ceilDiv(p.n, n) * n);
  };
  // 128-row tiles of the width, a multiple of 16 from 128 to 256 (of 64
  // for an N-major B's boxes), that does the most work a round: how fully
  // its tiles use the SMs times the MMA work a k-tile does per byte it
  // loads (m n / (m + n): narrower tiles reload A more often); taken where
  // its tiles fill 90% of the SMs (else the rules below split K or narrow
  // the tiles). One round: a block a tile; more: a persistent grid, pairs
  // sharing B over long reductions (H200: 512 x 10240 x 8192 706 TFLOP/s in
  // 128 x 160 tiles against 632 in 128 x 192; 512 x 8192 x 28672 799 in one
  // round of 128 x 256 against 660 in two of 128 x 128; 8192 x 6144 x 4096
  // 748 in 128 x 176 tiles, which fill 99.5%, against 778 in 128 x 256,
  // which fill 97%; RESULTS.md). Short reductions too where B's rows lie
  // off the L2's sectors: there pairs sharing B in wide tiles beat
  // ping-pong's 128 x 128 (H200, 8000 x 8000 x 1000: 627 TFLOP/s in 128 x
  // 256 pairs against 536; 3000 x 3000 x 1000: 529 in 128 x 192 against
  // 436).
  if ((!shortK || rowsOffSectors(p, 'b')) && !c.promote) {
    // A grid of one round takes 80%: under a round the other ways of
    // filling the SMs (stream-K, split K) hand partial sums between blocks,
    // which cost more than the idle fifth (H200: 3000 x 1000 x 3000 577
    // TFLOP/s in one round of 128 x 208 pairs, 87% full, against 481 by
    // stream-K; 3500 x 640 x 8192 669 in one of 128 x 160, 85%, against 636).
    auto fills = [&](int64_t m, int64_t n) {
      Units u = unitsOf(m, n);
      return fillOf(m, n) >= (u.count <= u.slots ? 0.8 : 0.9);
    };
    // Where 128-row tiles leave an eighth of their rows or more past M,
    // 64-row tiles (one compute warpgroup) where they do more work a round
    // (H200: 192 x 6144 x 4096 464 TFLOP/s in 64 x 144 tiles, 364 in 128 x
    // 128; 192 x 12288 x 4096 356 in 64 x 144, 509 in 128 x 192).
    int64_t rows = 128, width = widest(128);
    if (rowsFilled(128) < 0.875) {
      int64_t width64 = widest(64);
      if (fills(64, width64) && (!fills(128, width) || work(64, width64) > work(128, width))) {
        rows = 64;
        width = width64;
      }
    }
    if (fills(rows, width)) {
      c.blockM = rows;
      c.blockN = width;
      c.warpsM = rows / 16;
      c.stages = 4;
      // Rows off the sectors pair blocks on a grid of one round too (H200,
      // 1500 x 2500 x 3000 in 128 x 240 tiles: 450 TFLOP/s unpaired, 538
      // in pairs).
      if (tiles(rows, width) > numSMs || paired(rows, width)) {
        c.persistent = numSMs;
        if (paired(rows, width))
          c.cluster = 2;
      } else {
        deepenLoneRing(c);
      }
      c.raster = gridRaster(p, c);
      return c;
    }
  }
  // Two compute warpgroups (128 rows) on a persistent grid of a block per
  // SM, the largest tile whose tiles keep the blocks busy: three rounds of
  // tiles or more, or fewer whose last is at least 80% full, and whose
  // columns past N are at most a tenth of its columns (N = 256 in 192-column
  // tiles idles a third). 4 stages: more (what shared memory holds of
  // 128 x 128 tiles) were slower.
  // Short reductions (16 k-tiles or fewer) spend much of a tile in its
  // epilogue: 128 x 128 tiles, each compute warpgroup taking whole tiles in
  // turn (ping-pong), so that one's epilogue overlaps the other's main loop
  // (longer reductions ran faster on wider tiles; benchmarks/gemm/RESULTS.md).
  for (int64_t n : {256, 192, 128}) {
    int64_t count = tiles(128, n);
    int64_t rounds = ceilDiv(count, numSMs);
    if (((shortK || c.promote) && n != 128) || count < numSMs ||
        (rounds < 3 && 100 * count < 80 * rounds * numSMs) ||
        (n != 128 && 10 * p.n < 9 * ceilDiv(p.n, n) * n))
      continue;
    c.blockM = 128;
    c.blockN = n;
    c.warpsM = 8;
    c.persistent = numSMs;
    c.pingpong = shortK && !c.promote;
    c.stages = 4;
    if (pairsShareB(c))
      c.cluster = 2;
    // A cluster's grid counts pairs of tile rows.
    c.raster = gridRaster(p, c);
    return c;
  }
  c.stages = 4;
  c.blockM = 128;
  c.warpsM = 8;
  c.raster = gridRaster(p, c);
  // One row of 128-row tiles streaming a long reduction reads B's bytes
  // more than it computes: where 64 x 128 tiles are a round at least half
  // full, they stream B on twice the SMs, with deeper rings, rather than
  // split K (fewer blocks keep too few of B's bytes in flight to gain).
  bool streamsB = oneRowLongK && 2 * tiles(64, 128) >= numSMs && tiles(64, 128) <= numSMs;
  if (tiles(128, 128) < numSMs && (shortK || streamsB) && !c.promote) {
    // Short reductions under a wave of 128 x 128 tiles: a split's cluster
    // barrier and exchange of partial sums cost more than its few k-tiles
    // save (H200, 1024^3: 214 TFLOP/s split in two, 231 unsplit, 276 in
    // 64 x 128 tiles); smaller tiles fill the SMs instead, 64 x 128 (one
    // compute warpgroup) or 64 x 64, the larger unless the smaller fills
    // the waves more than 2% better. One row's long reductions take 64 x
    // 128 tiles, each block in the deepest ring (H200: 128 x 6144 x 4096
    // 327 TFLOP/s in 8 stages, 289 in 128 x 128 split in two; 96 x 5120 x
    // 4096 225 against 138 split in three; 64 x 64 tiles ran slower than
    // the split on every such shape).
    int64_t rows = 128, columns = 128;
    for (auto [m, n] : {std::pair<int64_t, int64_t>{64, 128}, {64, 64}})
      if ((shortK || n == 128) && fill(m, n) > 1.02 * fill(rows, columns)) {
        rows = m;
        columns = n;
      }
    c.blockM = rows;
    c.blockN = columns;
    c.warpsM = rows / 16;
    // Where B's rows lie off the sectors, pairs of blocks (a grid of one
    // round) share B's tiles of 128 columns, each loading 64 rows (H200,
    // 1000^3 in 64 x 128 tiles: 177 TFLOP/s unpaired, 195 in pairs).
    if (shortK && columns == 128 && pairsShareB(c)) {
      c.persistent = numSMs;
      c.cluster = 2;
    }
    deepenLoneRing(c);
    c.raster = gridRaster(p, c);
    return c;
  }
  // One row of tiles whose 64 x 128 tiles would fill under half a round,
  // over 64 k-tiles or more: swapped as for decoding, M along wgmma's N (a
  // multiple of 8) and K split among the fewest blocks that fill the SMs
  // (H200: 128 x 4096 x 14336 396 TFLOP/s against 340 split in 128 x 128
  // tiles, 96 x 2048 x 8192 226 against 168, 128 x 1000 x 14336 190
  // against 130). A batch-invariant problem here splits K in 1.
  if (swapsOneRow)
    return swapped(ceilDiv(p.m, 8) * 8, p.batchInvariant ? 1 : 0);
  if (tiles(128, 128) < numSMs) {
    // Under one wave of 128 x 128 tiles (a block an SM): up to 3 blocks
    // split each tile's K while the grid and its clusters still all run at
    // once; clusters of 4 such blocks no longer do. (A batch-invariant
    // problem took its split from N and K above.)
    c.blockN = 128;
    while (!p.batchInvariant && c.splitK < 3 && tiles(128, 128) * (c.splitK + 1) <= numSMs &&
           clustersRun(tiles(128, 128), c.splitK + 1) && c.splitK < ceilDiv(p.k, c.blockK))
      ++c.splitK;
    deepenLoneRing(c);
    return c;
  }
  // A wave or more: the widest tile (256, 192 or 128 columns) that fills
  // the waves best: each wave's last fraction idles the rest, and so do the
  // columns of each row's last tile that lie past N.
  c.blockN = c.promote ? 128 : 256;
  for (int64_t n : {192, 128})
    if (n < c.blockN && fill(128, n) > fill(128, c.blockN))
      c.blockN = n;
  // Where no tile fills the SMs' rounds (else the rules above took it),
  // clusters of two blocks sharing B share the last tiles' k-tiles
  // (stream-K), where each cluster then takes half a tile's k-tiles or more:
  // a tile's finishing block reads every other block's partial sums of it
  // alone, which costs more than the idle SMs where a tile is cut among
  // three or more (H200, 128 x 256 tiles: 3000 x 1000 x 6000 571 -> 611
  // TFLOP/s, 3072 x 768 x 8192 612 -> 651, against 1024 x 1536 x 8192 591
  // -> 547 with a tile among 2.75 clusters; RESULTS.md).
  // Its tiles are as wide as the least padded columns allow (within 2%):
  // sharing k-tiles fills the SMs whatever the count of tiles, so columns
  // past N are its only idle work, and pairs multicasting B keep narrower
  // tiles fed (3500 x 640 x 8192: 528 TFLOP/s in 128 x 256 tiles, 634 in
  // 128 x 160).
  GemmConfig shares = c;
  shares.persistent = numSMs;
  shares.cluster = pairsFit(c) ? 2 : 1;
  // A cluster's blocks load an N-major B in boxes of 64 columns each.
  int64_t sharesStep = mnMajor(p, 'b') ? shares.cluster * kWgmmaMNBox : 16;
  auto columnsFilled = [&](int64_t n) { return double(p.n) / double(ceilDiv(p.n, n) * n); };
  double leastPadded = 0;
  for (int64_t n = 256; n >= 128; n -= sharesStep)
    leastPadded = std::max(leastPadded, columnsFilled(n));
  shares.blockN = 256;
  while (columnsFilled(shares.blockN) < 0.98 * leastPadded)
    shares.blockN -= sharesStep;
  shares.streamK = true;
  shares.raster = 1;
  int64_t kTiles = ceilDiv(p.k, c.blockK), clusters = numSMs / shares.cluster;
  int64_t shared = gemmStreamKTiles(p, shares);
  if (streamK && !c.promote && !p.batchInvariant && fill(128, c.blockN) < 0.8 && shared > 0 &&
      2 * shared >= clusters && shared * kTiles >= 16 * clusters)
    return shares;
  return c;
}

std::vector<GemmConfig> gemmCandidates(const GemmProblem &problem, const Target &target) {
  GemmConfig chosen = chooseWgmmaGemmConfig(problem, target);
  std::vector<GemmConfig> candidates{chosen};
  if (chosen.promote || problem.groups > 0 || problem.batchInvariant)
    return candidates;
  auto key = [](const GemmConfig &c) {
    return std::make_tuple(c.blockM, c.blockN, c.warpsM, c.stages, c.raster, c.persistent,
                           c.cluster, c.splitK, c.pingpong, c.kRanges, c.streamK, c.swapAB);
  };
  auto add = [&](const GemmConfig &c) {
    if (!checkGemm(problem, c, target).empty())
      return;
    for (const GemmConfig &seen : candidates)
      if (key(seen) == key(c))
        return;
    candidates.push_back(c);
  };
  GemmProblem p = gemmPackedProblem(problem);
  // Decoding's swapped tiles have no unswapped neighbours worth timing, but
  // swapped ones of 64 or 128 rows of N, K split by 1-3 blocks, in as many
  // of 8 stages as shared memory holds; a swapped row of 128-row tiles (M
  // over 64) has unswapped neighbours.
  if (chosen.swapAB && problem.m <= 64) {
    for (int64_t rows : {64, 128})
      for (int64_t split : {1, 2, 3}) {
        GemmConfig c = chosen;
        c.splitK = split;
        add(swappedRows(p, c, rows, target));
      }
    return candidates;
  }
  int64_t numSMs = std::max<int64_t>(1, target.multiprocessors);
  int64_t step = mnMajor(p, 'b') ? kWgmmaMNBox : 16;
  // 128-row tiles of every width from 256 down to 48 (narrow tiles stream
  // B on more SMs where M is small), then 64-row tiles of one compute
  // warpgroup.
  std::vector<std::pair<int64_t, int64_t>> tiles;
  for (int64_t n = 256; n >= 48; n -= step)
    tiles.push_back({128, n});
  for (int64_t n = 256; n >= 64; n -= 64)
    tiles.push_back({64, n});
  // An m x n tile on a grid of a block a tile, 4 stages, K unsplit.
  auto blockATile = [&](int64_t m, int64_t n) {
    GemmConfig c = chosen;
    c.swapAB = false;
    c.blockM = m;
    c.warpsM = m / 16;
    c.blockN = n;
    c.stages = 4;
    c.splitK = 1;
    c.pingpong = false;
    c.streamK = false;
    c.kRanges = 1;
    c.persistent = 0;
    c.cluster = 1;
    c.raster = gridRaster(p, c);
    return c;
  };
  for (auto [m, n] : tiles) {
    // A block a tile, then as deep a ring as shared memory holds.
    GemmConfig c = blockATile(m, n);
    add(c);
    add(deepestRing(p, c, target));
    // A persistent grid, alone and in pairs sharing B; stream-K on it.
    c.persistent = numSMs;
    add(c);
    GemmConfig pairs = c;
    pairs.cluster = 2;
    pairs.raster = gridRaster(p, pairs);
    add(pairs);
    for (GemmConfig shares : {c, pairs}) {
      shares.streamK = true;
      shares.raster = 1;
      add(shares);
    }
    if (n <= 128) {
      c.pingpong = true;
      add(c);
    }
  }
  // K split among 2 or 3 blocks of a cluster on a grid of a block a tile.
  for (int64_t n : {128, 256})
    for (int64_t split : {2, 3}) {
      GemmConfig c = blockATile(128, n);
      c.splitK = split;
      add(c);
    }
  return candidates;
}

runtime::TensorMapShape gemmTensorMapShape(const GemmProblem &problem, const GemmConfig &c,
                                           char operand) {
  GemmProblem p = gemmPackedProblem(problem);
  runtime::TensorMapShape shape;
  shape.element = p.input == DType::F16   ? runtime::TensorMapShape::Element::F16
                  : p.input == DType::F32 ? runtime::TensorMapShape::Element::Tf32
                                          : runtime::TensorMapShape::Element::BF16;
  bool batched = p.batch > 1 && (operand == 'a' ? p.batchA : p.batchB);
  // A grouped GEMM's B holds a matrix a group (where the groups split the
  // rows; groups splitting K share one A and one B).
  bool grouped = operand == 'b' && p.groups > 0 && !p.groupedReduction;
  int64_t entries = batched ? p.batch : grouped ? p.groups : 1;
  int64_t rows = operand == 'a' ? p.m : p.n;
  if (mnMajor(p, operand)) {
    // K rows of M or N, boxes of a k-tile's rows by 64 of them.
    shape.rows = uint64_t(p.k * entries);
    shape.cols = uint64_t(rows);
    shape.boxRows = uint32_t(c.blockK);
    shape.boxCols = uint32_t(kWgmmaMNBox);
    return shape;
  }
  shape.rows = uint64_t(rows * entries);
  shape.cols = uint64_t(p.k);
  // A block loads its cluster's share of the B tile.
  shape.boxRows = uint32_t(operand == 'a' ? c.blockM : c.blockN / c.cluster);
  shape.boxCols = uint32_t(c.blockK);
  return shape;
}

LaunchShape gemmLaunchShape(const GemmProblem &p, const GemmConfig &c) {
  if (c.persistent > 0)
    return {c.persistent, 1, c.threads()};
  return {ceilDiv(p.n, c.blockN) * c.splitK, ceilDiv(p.m, c.blockM), c.threads(), p.batch};
}

LaunchShape gemmPackLaunchShape(const GemmProblem &p, char operand) {
  // A batch the operand does not have is packed once.
  bool batched = p.batch > 1 && (operand == 'a' ? p.batchA : p.batchB);
  int64_t rows = operand == 'a' ? p.m : p.n;
  int64_t vectors = packedK(p) / vectorElements(tensorCoreInput(p));
  int64_t blocks = mnMajor(p, operand)
                       ? ceilDiv(rows, kPackTileRows) * ceilDiv(vectors, kPackTileVectors)
                       : ceilDiv(rows * vectors, kPackThreads);
  return {blocks, 1, kPackThreads, batched ? p.batch : 1};
}

} // namespace spio::kernels
