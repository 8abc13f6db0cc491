//===- Gemm.h - The tensor-core GEMM kernel family --------------*- C++ -*-===//
//
// D = epilogue(alpha * A @ B) on mma.sync or wgmma tensor cores, with f16 or
// bf16 inputs, or f32 ones (as TF32 on wgmma, or packed into bf16 terms);
// rows that are not 16-byte multiples are packed first; f32 accumulation and f16, bf16 or f32
// output; the epilogue scales, adds a bias, adds beta * C and applies an activation, in any order;
// batched and grouped problems. A kernel is specialized for one problem
// (shapes, layouts, dtypes) and one tile configuration;
// spio/Kernels/IR/GemmKernel.h builds it in the spio dialect (`spio-jit
// --emit-spio` prints it) for the normal spio pipeline.
//
// No LLVM dependency: problems, configs, checks and launch shapes only.
//
//===----------------------------------------------------------------------===//

#ifndef SPIO_KERNELS_GEMM_H
#define SPIO_KERNELS_GEMM_H

#include "spio/Runtime/TensorMap.h"
#include "spio/Target/Target.h"

#include <cstdint>
#include <string>
#include <vector>

namespace spio::kernels {

enum class DType { F16, BF16, F32 };

/// Row major: A is M x K and B is K x N in memory. Column major: A is
/// stored K x M and B is N x K (torch.matmul(a, b.t()) has B column major).
enum class Layout { RowMajor, ColMajor };

const char *dtypeName(DType dtype);
int64_t dtypeBytes(DType dtype);
/// The elements of a 16-byte vector: 8 of f16 or bf16, 4 of f32.
int64_t vectorElements(DType dtype);

/// One step a GEMM applies to each f32 element of alpha * A @ B, in the
/// order given, before the store rounds it into D.
enum class EpilogueStep { Scale, Bias, Residual, Relu, GeluTanh, GeluErf, Silu };

/// Which of D's dimensions a bias or scale vector runs along (one value a
/// row: M values; one a column: N values).
enum class Along { None, Rows, Cols };

/// How f32 inputs are multiplied. Highest, High and Medium are PyTorch's
/// names (torch.set_float32_matmul_precision): each value is split into
/// bf16 terms (bf16 keeps f32's exponent range) and the products that
/// matter are added in f32 on bf16 tensor cores. Highest: 3 terms, 6
/// products, about f32's 24 bits; High: 2 terms, 3 products, about 16 bits
/// (more than TF32's 11); Medium: 1 term, 1 product (bf16). Tf32: the f32
/// values on wgmma's TF32 tensor cores (sm_90a), rounded to TF32 by TMA as
/// it loads them, read in place where K-major, at half bf16's rate: what
/// PyTorch's "high" runs on cuBLAS, with the same errors.
enum class F32Precision { Highest, High, Medium, Tf32 };

const char *epilogueStepName(EpilogueStep step);

/// Whether `step` is an activation (relu, gelu_tanh, gelu_erf, silu).
inline bool isActivation(EpilogueStep step) { return step >= EpilogueStep::Relu; }

struct GemmProblem {
  int64_t m = 0, n = 0, k = 0;
  DType input = DType::BF16;
  DType output = DType::BF16;
  Layout a = Layout::RowMajor;
  Layout b = Layout::ColMajor;
  /// Whether the kernel reads C (beta may be non-zero); D is written.
  bool readsC = false;
  /// The epilogue's steps in order; empty means [Residual] where C is read
  /// (epilogueSteps()). Residual is a step exactly when readsC.
  std::vector<EpilogueStep> epilogue;
  /// The bias and scale vectors the Bias and Scale steps read.
  Along bias = Along::None, scale = Along::None;
  DType biasType = DType::F32, scaleType = DType::F32;
  /// The choosers keep each element's order of additions independent of M
  /// (K split, or summed in ranges in one block, the same way for every M),
  /// so that row i of D has the same bits whatever the number of rows.
  bool batchInvariant = false;
  /// With f32 inputs: how they are multiplied.
  F32Precision precision = F32Precision::Highest;
  /// The typed dimensions: rows of A and D, columns of B and D, reduction.
  std::string rowDim = "i", colDim = "j", reductionDim = "k";
  /// Batched GEMM: `batch` problems of these sizes, each matrix's batch
  /// entries one after the other (dense). A or B without a batch dimension
  /// (`batchA`, `batchB` false) is the same for every problem; C and D have
  /// one wherever batch > 1.
  int64_t batch = 1;
  bool batchA = true, batchB = true;
  std::string batchDim = "batch";
  /// Grouped GEMM (`groups` > 0): that many problems of different row
  /// counts, A's and D's rows (M of them in all) the groups' one after the
  /// other, B one N x K matrix a group; a device table of i32 (the groups
  /// operand) holds each group's end row.
  int64_t groups = 0;
  std::string groupDim = "g";
  /// With `groups`: the groups split the reduction instead of the rows
  /// (the weight gradient of a grouped GEMM): group g sums A's columns and
  /// B's rows of K from the previous group's end to its own (the table's
  /// ends, each held to [0, K]) into its own M x N matrix of D (and C),
  /// which lead with the groups' entry; A and B are one matrix each.
  bool groupedReduction = false;
  /// The epilogue's value before its first activation step is also stored,
  /// rounded to D's type, into operand "pre" (D's shape): the
  /// pre-activation a training step keeps for the activation's gradient.
  bool storesPreActivation = false;
  /// For a wgmma kernel: an M- or N-major A or B it cannot read in place (a
  /// batched one whose K is not a multiple of 64) is packed K-major first
  /// even where its rows are 16-byte aligned (gemmPrefersPackedLayouts).
  bool packLayouts = false;
};

struct GemmConfig {
  int64_t blockM = 128, blockN = 128, blockK = 32;
  int64_t warpsM = 2, warpsN = 2;
  int64_t stages = 4;
  /// Blocks take their tiles in groups of this many block rows, column by
  /// column (1: row by row), so that concurrent blocks share tiles in L2.
  /// Used only when it divides the grid's rows.
  int64_t raster = 1;
  /// Hopper's warpgroup wgmma (sm_90a) instead of mma.sync: each group of
  /// 4 warps along M computes 64 rows of the block from the shared tiles,
  /// which one more warpgroup loads by TMA.
  bool wgmma = false;
  /// wgmma: the grid's blocks, each taking tiles this many apart in turn
  /// (0: a block a tile).
  int64_t persistent = 0;
  /// Persistent wgmma: blocks of a thread-block cluster, which take
  /// consecutive tiles along M and share their B tile (TMA multicast).
  int64_t cluster = 1;
  /// wgmma: the warpgroups' 64-row side runs along N and wgmma's N along M
  /// (D^T = B^T A^T), so that a small M pads wgmma's N to 8 rather than a
  /// warpgroup's 64 rows: block = [8 to 256, 64 * G, 64].
  bool swapAB = false;
  /// wgmma, a block a tile: blocks of a cluster that split the tile's
  /// reduction into this many consecutive ranges and add their partial
  /// sums through shared memory in rank order (1 to 8).
  int64_t splitK = 1;
  /// Persistent wgmma with two compute warpgroups: each takes every other
  /// tile of its block whole (its 64-row halves side by side), so that one
  /// warpgroup's epilogue overlaps the other's main loop.
  bool pingpong = false;
  /// wgmma (not ping-pong, wgmma's N at most 192): each k-tile's products
  /// are summed by wgmma into a fresh accumulator, which f32 adds then add
  /// to the running sums. The tensor cores' additions truncate; over a long
  /// reduction that costs f32 outputs several bits.
  bool promote = false;
  /// wgmma (not ping-pong, promoted or split): each block splits its
  /// k-tiles into this many ranges as splitK would split them among blocks,
  /// sums each by wgmma from zero and adds the sums in order in f32: the
  /// split's bits, in one block. Where wgmma's N is over 192 the sums of the
  /// ranges before the last wait in the workspace (gemmSpillsRangeSums).
  int64_t kRanges = 1;
  /// Persistent wgmma (no swap, ping-pong, promote or k_ranges): the
  /// clusters (blocks, without clusters) take whole cluster tiles in
  /// rounds, then share the last ones' k-tiles evenly (gemmStreamKTiles), a
  /// block handing the partial sums of a tile it does not finish, through
  /// the workspace, to the block of its rank that takes the tile's last
  /// k-tiles, which adds them in a fixed order.
  bool streamK = false;

  /// The compute warps' threads, and the copy warpgroup's with wgmma.
  int64_t threads() const { return 32 * warpsM * warpsN + (wgmma ? 128 : 0); }
  /// wgmma: the block's rows along the warpgroups (64 each), and along
  /// wgmma's N.
  int64_t warpgroupRows() const { return swapAB ? blockN : blockM; }
  int64_t wgmmaN() const { return swapAB ? blockM : blockN; }
};

/// The epilogue's steps in order: the problem's, else [Residual] where it
/// reads C.
std::vector<EpilogueStep> epilogueSteps(const GemmProblem &problem);

/// A compute warp's staging tile of D: its fragments' 16 rows by 64 columns
/// (8 fragments), each row one 16-byte vector longer (no bank conflicts).
constexpr int64_t kStagedRows = 16, kStagedColumns = 64;

/// Whether a wgmma kernel's compute warps store D through a staging tile in
/// shared memory (16-byte rows out of fragments' 4-byte pairs): D's rows
/// along the warpgroups (not swapped) and 16-byte aligned.
bool gemmStagesResults(const GemmProblem &problem, const GemmConfig &config);
/// The staging tiles' bytes, one a compute warp; 0 where the kernel stores D
/// from the fragments.
int64_t gemmStagingBytes(const GemmProblem &problem, const GemmConfig &config);

/// A block's shared memory: the ring's stages of A's and B's tiles, a split
/// reduction's f32 partial tile, the staging tiles of D.
int64_t gemmSharedBytes(const GemmProblem &problem, const GemmConfig &config);

/// Whether A or B is first packed, by a kernel each, into a workspace
/// (gemmPacksOperand): where the inputs are f32 split into terms, a
/// contiguous dimension of A or B is not a multiple of a 16-byte vector
/// (16-byte vectors and TMA need 16-byte rows), an operand is M- or N-major
/// under TF32 or, with packLayouts, an M- or N-major one wgmma cannot read.
/// A packed operand is K-major in the tensor cores' dtype (bf16 for f32
/// inputs split into terms, f32 for TF32), its rows' K padded with zeros
/// to a multiple of a vector and repeated once a segment: f32 inputs' terms
/// side by side along K, paired so that one GEMM over all segments adds the
/// products the precision keeps.
bool gemmPacksOperands(const GemmProblem &problem);
/// Whether operand 'a' or 'b' is packed: both where the inputs are f32
/// split into terms or a row is not 16-byte aligned (K is then padded
/// alike); under TF32 an M- or N-major one; else (packLayouts) only an M-
/// or N-major one that the wgmma kernel cannot read in place (and its
/// partner where K is not a multiple of 8).
bool gemmPacksOperand(const GemmProblem &problem, char operand);
/// The problem the tensor-core kernel computes: the packed operands' where
/// gemmPacksOperands, else the problem itself. Configurations, tensor maps,
/// parameters and launch shapes are the packed problem's.
GemmProblem gemmPackedProblem(const GemmProblem &problem);
/// Segments along a packed operand's K: 1, or 6 (Highest), 3 (High) or 1
/// (Medium, Tf32) for f32 inputs.
int64_t gemmPackSegments(const GemmProblem &problem);
/// The bf16 terms an f32 value is split into: 3 (Highest), 2 (High) or 1
/// (Medium); 1 for other inputs and TF32 (their values as they are).
int64_t gemmPackTerms(const GemmProblem &problem);
/// Which of an f32 value's bf16 terms (0 the largest) segment `segment` of
/// operand 'a' or 'b' holds.
int64_t gemmPackTerm(const GemmProblem &problem, char operand, int64_t segment);
/// A packed operand's bytes in the workspace ('a' first, then 'b', each at
/// a 256-byte multiple; 0 for an operand that is not packed), and where 'a'
/// or 'b' begins there.
int64_t gemmPackedBytes(const GemmProblem &problem, char operand);
int64_t gemmPackedOffset(const GemmProblem &problem, char operand);
/// The workspace: A and B packed (where they are), then a stream-K grid's
/// partial sums and flags or the spilled sums of k ranges
/// (gemmBlockSumsOffset).
int64_t gemmWorkspaceBytes(const GemmProblem &problem, const GemmConfig &config);

/// Stream-K: the cluster tiles (tiles, without clusters) whose k-tiles
/// the clusters share, the last ones: all where they are fewer than the
/// clusters, else the last partial round and one full round before it
/// (each cluster then takes one to two tiles' k-tiles, a tile split among
/// at most three); 0 where the tiles fill whole rounds.
int64_t gemmStreamKTiles(const GemmProblem &problem, const GemmConfig &config);
/// Whether a block summing ranges of K apart (kRanges) keeps the sums of
/// the ranges before the last in the workspace: registers hold one
/// accumulator of wgmma's N over 192, not those sums beside it.
bool gemmSpillsRangeSums(const GemmConfig &config);
/// The workspace after the packed operands: each persistent block's f32
/// sums of one tile (every compute thread's accumulator fragments), where
/// stream-K hands on partial sums or k ranges spill theirs; then stream-K's
/// 4-byte flag a block, which must be zero when the kernel starts.
int64_t gemmBlockSumsOffset(const GemmProblem &problem);
int64_t gemmBlockSumsBytes(const GemmConfig &config);
int64_t gemmStreamKFlagBytes(const GemmConfig &config);

/// Empty when the kernel can be built for `target` (its shared memory a
/// block), else what is wrong (dtypes, sizes, tile shapes).
std::string checkGemm(const GemmProblem &problem, const GemmConfig &config, const Target &target);

/// A tile configuration for the problem on `target`: large tiles, smaller
/// ones when large ones leave multiprocessors idle.
GemmConfig chooseGemmConfig(const GemmProblem &problem, const Target &target);

/// Whether a wgmma kernel (sm_90a) takes the problem: f16 or bf16 A and B
/// (after packing), K-major, or M- and N-major read in place (wgmma's
/// transposed operands) unless batched with K not a multiple of 64; TF32's
/// f32 A and B, K-major (after packing); a
/// grouped GEMM's A K-major and its B K-major, or N-major with K a multiple
/// of 64.
bool wgmmaSupports(const GemmProblem &problem);

/// Whether a Hopper GPU runs the problem, whose f16/bf16 A or B is M- or
/// N-major where wgmma cannot read it in place (batched, K not a multiple
/// of 64; mma.sync could read it), faster with those operands packed
/// K-major for wgmma (packLayouts): where the time the
/// packing kernels take to transpose them (each read and written once,
/// plus a launch each) is less than what wgmma saves over mma.sync, which
/// runs at about half its rate on Hopper (rates measured on an H200; the
/// transposes' scaled by `target`'s L2 and memory bandwidth). Never for
/// grouped GEMMs (whose operands are read in place only).
bool gemmPrefersPackedLayouts(const GemmProblem &problem, const Target &target);

/// Spio's default on Hopper: the wgmma kernel where it reads A and B in
/// place or they are packed anyway, or gemmPrefersPackedLayouts; else
/// mma.sync. The caller then sets packLayouts to it.
bool gemmPrefersWgmma(const GemmProblem &problem, const Target &target);

/// A wgmma (sm_90a) configuration for the problem on `target`. M <= 64: A and B swapped (M along
/// wgmma's N), K split by the fewest blocks (up to 3) giving 90% of a block an SM (never where the
/// problem is batch invariant). Else 128 x 256 or 128 x 128 blocks on a persistent grid of a block
/// an SM where their tiles keep the SMs busy (three rounds, or a last round 80% full), in clusters
/// of 2 sharing B tiles where tile rows pair up and K is 128 k-tiles or more; under one wave of 128
/// x 128 tiles, K split by up to 3 blocks while the grid fits the SMs (unsplit over 64 k-tiles or
/// more: as many stages as shared memory holds); else a block a tile of the
/// width that fills the waves best or, with `streamK` where its tiles would
/// leave a fifth of the SMs' rounds idle, a persistent grid of clusters
/// sharing the last tiles' k-tiles (each taking half a tile's or more).
/// Raster groups of up to 8 tile rows. (A convolution's implicit GEMM takes
/// no stream-K.)
GemmConfig chooseWgmmaGemmConfig(const GemmProblem &problem, const Target &target,
                                 bool streamK = true);

/// The Hopper configurations worth timing for `problem` (a sweep, an
/// autotuner, a model's training data): the chooser's first, then its
/// neighbours that pass checkGemm: 128-row tiles of every width from 48 to
/// 256 columns and 64-row ones, on a grid of a block a tile, a persistent
/// grid, or one of pairs sharing B; the deepest ring; K split in a cluster;
/// ping-pong; stream-K. Each runs
/// bit-identical run to run; where K is split differently their sums may
/// differ in the last bits. Decoding's swapped problems (M <= 64), grouped,
/// batch-invariant and promoted ones have the chooser's alone (decoding
/// has no unswapped neighbour worth timing; the others' order of additions
/// is the chooser's to keep); a swapped row of 128-row tiles has its
/// unswapped neighbours after it.
std::vector<GemmConfig> gemmCandidates(const GemmProblem &problem, const Target &target);

/// The tensor map of operand 'a' or 'b' that a wgmma kernel takes: K-major,
/// the operand's rows (M or N; of all its batch entries, one after the
/// other) by K, boxes of the block's rows by 64 of K; M- or N-major, K
/// rows (of all its batch entries) by M or N, boxes of 64 by 64.
runtime::TensorMapShape gemmTensorMapShape(const GemmProblem &problem, const GemmConfig &config,
                                           char operand);

/// Where each operand is among the kernel's parameters (-1: not one): A, B,
/// C, D, alpha, beta; then the bias and the scale vectors where the epilogue
/// reads them; then a grouped GEMM's row ends; then the pre-activation,
/// stream-K's partial sums and flags or the spilled range sums; then A's
/// and B's tensor maps under a wgmma config.
struct GemmParameters {
  int a = 0, b = 1, c = 2, d = 3, alpha = 4, beta = 5;
  int bias = -1, scale = -1, groups = -1, pre = -1, partials = -1, flags = -1, rangeSums = -1;
  int aMap = -1, bMap = -1;
  int count = 6;
};
GemmParameters gemmParameters(const GemmProblem &problem, const GemmConfig &config);

/// The launch geometry of the kernel.
struct LaunchShape {
  int64_t gridX, gridY, block;
  int64_t gridZ = 1;
};
/// The most blocks a CUDA grid holds along x and along y (and z).
constexpr int64_t kMaxGridX = (int64_t(1) << 31) - 1;
constexpr int64_t kMaxGridY = 65535;
/// The most groups of a grouped GEMM, whose blocks walk the groups in turn.
constexpr int64_t kMaxGroups = 65535;
LaunchShape gemmLaunchShape(const GemmProblem &problem, const GemmConfig &config);
/// The kernels packing A and B, each taking (the operand, its packed form
/// in the workspace).
constexpr const char *kGemmPackA = "gemm_pack_a", *kGemmPackB = "gemm_pack_b";
/// Threads a block of a packing kernel.
constexpr int64_t kPackThreads = 256;
/// The tile a block of a kernel packing an M- or N-major operand transposes
/// through shared memory: this many of its rows by this many 16-byte
/// vectors of K.
constexpr int64_t kPackTileRows = 64, kPackTileVectors = 8;
/// The launch geometry of the kernel packing operand 'a' or 'b' (which
/// gemmPacksOperand): a thread a 16-byte vector of the packed operand's
/// first segment where the operand is K-major, else a block a tile of
/// kPackTileRows x kPackTileVectors of them (the batch along z).
LaunchShape gemmPackLaunchShape(const GemmProblem &problem, char operand);

} // namespace spio::kernels

#endif // SPIO_KERNELS_GEMM_H
