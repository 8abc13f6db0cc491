//===- Gemm.cpp - The tensor-core GEMM kernel family ----------------------===//
//
// The kernel, per block of BM x BN outputs:
// - a ring of `stages` shared-memory tiles of A and B, filled with 16-byte
//   cp.async (zero-filled past the matrix edges) `stages - 1` k-steps ahead;
// - per k-step, each warp loads its A and B fragments with ldmatrix (plain
//   for the k-contiguous operand layouts, transposed otherwise) and issues
//   the mma.sync of its warp tile; accumulators are loop-carried fragments;
// - the epilogue computes alpha * acc (+ beta * C) and stores D, skipping
//   elements past the edges.
// The reduction order is fixed by the loop structure and there are no
// atomics, so results are bit-identical from run to run.
//
//===----------------------------------------------------------------------===//

#include "spio/Kernels/Gemm.h"
#include "spio/Layout/Layout.h"
#include "spio/Target/SharedMemory.h"

#include <sstream>
#include <vector>

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

static int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

static bool isPowerOf2(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

std::string checkGemm(const GemmProblem &p, const GemmConfig &c) {
  if (p.m <= 0 || p.n <= 0 || p.k <= 0)
    return "GEMM sizes must be positive, got M=" + std::to_string(p.m) +
           " N=" + std::to_string(p.n) + " K=" + std::to_string(p.k);
  // A spio tensor spans at most layout::kMaxExtent (2^40) elements; the
  // grid arithmetic below then cannot overflow.
  if (!layout::withinExtent({p.m, p.k}) || !layout::withinExtent({p.k, p.n}) ||
      !layout::withinExtent({p.m, p.n}))
    return "M x K, K x N or M x N (M=" + std::to_string(p.m) + " N=" + std::to_string(p.n) +
           " K=" + std::to_string(p.k) + ") is over the 2^40 elements a spio tensor spans";
  if (p.input == DType::F32)
    return "GEMM inputs must be f16 or bf16 (tensor cores with f32 accumulation)";
  // Each 16-byte vector holds 8 consecutive elements of the contiguous
  // dimension, so that dimension must be a multiple of 8.
  auto aligned = [&](const char *matrix, const char *dim, int64_t size) -> std::string {
    if (size % 8 == 0)
      return {};
    return std::string(matrix) + " is contiguous along " + dim + " = " +
           std::to_string(size) +
           ", which must be a multiple of 8 for 16-byte loads; use the other "
           "layout or pad it";
  };
  std::string err = p.a == Layout::RowMajor ? aligned("A", "K", p.k) : aligned("A", "M", p.m);
  if (err.empty())
    err = p.b == Layout::ColMajor ? aligned("B", "K", p.k) : aligned("B", "N", p.n);
  if (!err.empty())
    return err;
  if (c.warpsM < 1 || c.warpsN < 1)
    return "warp counts must be positive, got " + std::to_string(c.warpsM) + "x" +
           std::to_string(c.warpsN);
  if (c.raster < 1)
    return "raster groups must be positive, got " + std::to_string(c.raster);
  if (c.blockK % 16 != 0 || c.blockM % (16 * c.warpsM) != 0 ||
      c.blockN % (8 * c.warpsN) != 0 || !isPowerOf2(c.blockM) ||
      !isPowerOf2(c.blockN) || !isPowerOf2(c.blockK))
    return "tile " + std::to_string(c.blockM) + "x" + std::to_string(c.blockN) + "x" +
           std::to_string(c.blockK) + " does not divide into the warps' mma tiles";
  if (c.stages < 2)
    return "the pipeline needs at least 2 stages";
  int64_t threads = c.threads();
  auto divides = [&](int64_t rows, int64_t vectorsPerRow) {
    int64_t vectors = rows * vectorsPerRow;
    return vectors % threads == 0 && threads % vectorsPerRow == 0;
  };
  bool ok = (p.a == Layout::RowMajor ? divides(c.blockM, c.blockK / 8)
                                     : divides(c.blockK, c.blockM / 8)) &&
            (p.b == Layout::ColMajor ? divides(c.blockN, c.blockK / 8)
                                     : divides(c.blockK, c.blockN / 8));
  if (!ok)
    return "the tile's 16-byte vectors do not divide evenly among " +
           std::to_string(threads) + " threads";
  // spio-pipeline keeps `stages` of A's and B's tiles (whole swizzle
  // periods) in shared memory, which an H100's or H200's block caps; the
  // compiler says so per chip too (saying it here keeps such configs out of
  // the instances a caller may pick).
  int64_t shared = c.stages * (c.blockM + c.blockN) * c.blockK * dtypeBytes(p.input);
  if (shared > kHopperSharedBytesPerBlock)
    return std::to_string(c.stages) + " stages of " + std::to_string(c.blockM) + "x" +
           std::to_string(c.blockN) + "x" + std::to_string(c.blockK) + " tiles need " +
           std::to_string(shared) + " bytes of shared memory, over the " +
           std::to_string(kHopperSharedBytesPerBlock) +
           " an H100 or H200 block may use: take fewer stages or a smaller tile";
  // Block rows go along the grid's y, block columns along its x.
  if (ceilDiv(p.n, c.blockN) > kMaxGridX)
    return "N = " + std::to_string(p.n) + " takes " + std::to_string(ceilDiv(p.n, c.blockN)) +
           " block columns of " + std::to_string(c.blockN) + ", over the " +
           std::to_string(kMaxGridX) + " a CUDA grid holds along x: split N";
  if (ceilDiv(p.m, c.blockM) > kMaxGridY)
    return "M = " + std::to_string(p.m) + " takes " + std::to_string(ceilDiv(p.m, c.blockM)) +
           " block rows of " + std::to_string(c.blockM) + ", over the " +
           std::to_string(kMaxGridY) + " a CUDA grid holds along y: split M";
  return {};
}

GemmConfig chooseGemmConfig(const GemmProblem &p, int64_t numSMs) {
  // 128 x 128 x 32 tiles over 2 x 2 warps (64 x 64 each) and 4 stages were
  // the fastest of the tiles swept on an H200 at 4096^3 and 8192^3; rasters
  // of 8 block rows gained 2-4% at 8192^3 and were neutral at 4096^3.
  GemmConfig large;
  large.warpsM = 2;
  large.warpsN = 2;
  large.raster = 8;
  int64_t blocks = ceilDiv(p.m, large.blockM) * ceilDiv(p.n, large.blockN);
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

LaunchShape gemmLaunchShape(const GemmProblem &p, const GemmConfig &c) {
  return {ceilDiv(p.n, c.blockN), ceilDiv(p.m, c.blockM), c.threads()};
}

namespace {

/// One operand's global and shared layouts. The tile's rows run along
/// `outer`, its 16-byte vectors along `inner` (whose size counts vectors).
struct Operand {
  std::string name;        // "a" or "b"
  std::string rowDim;      // the non-reduction dimension
  std::string kDim;        // the reduction dimension
  bool kContiguous;        // vectors run along the reduction
  int64_t rowsExtent;      // M or N
  int64_t k;               // K
  int64_t blockRows;       // BM or BN

  std::string outerDim() const { return kContiguous ? rowDim : kDim; }
  std::string innerDim() const { return kContiguous ? kDim : rowDim; }
  int64_t tileOuter(int64_t blockK) const { return kContiguous ? blockRows : blockK; }
  int64_t tileVectors(int64_t blockK) const {
    return (kContiguous ? blockK : blockRows) / 8;
  }
  int64_t outerExtent() const { return kContiguous ? rowsExtent : k; }
  int64_t innerExtent() const { return kContiguous ? k : rowsExtent; }
};

/// XOR swizzle that spreads the 8 rows an ldmatrix phase reads (same
/// vector column) over the 8 16-byte slots of a 128-byte bank row.
std::string swizzleFor(int64_t vectorsPerRow) {
  if (vectorsPerRow >= 8) {
    int64_t shift = 0;
    while ((int64_t(1) << shift) < vectorsPerRow)
      ++shift;
    return "#spio.xor_swizzle<3, 0, " + std::to_string(shift) + ">";
  }
  if (vectorsPerRow == 4)
    return "#spio.xor_swizzle<2, 0, 3>";
  return "#spio.xor_swizzle<1, 0, 3>";
}

std::string coord(const std::string &dim, int64_t fold = 1) {
  return "!spio.coord<" + dim + (fold == 1 ? "" : "/" + std::to_string(fold)) + ">";
}

Operand operandA(const GemmProblem &p, const GemmConfig &c) {
  return {"a", p.rowDim, p.reductionDim, p.a == Layout::RowMajor, p.m, p.k, c.blockM};
}

Operand operandB(const GemmProblem &p, const GemmConfig &c) {
  return {"b", p.colDim, p.reductionDim, p.b == Layout::ColMajor, p.n, p.k, c.blockN};
}

std::string globalType(const GemmProblem &p, const Operand &o) {
  std::ostringstream s;
  s << "!spio.tensor<[" << o.outerDim() << ": " << o.outerExtent() << ", " << o.innerDim()
    << "/8: " << o.innerExtent() / 8 << "] x vector<8x" << dtypeName(p.input) << ">, global>";
  return s.str();
}

std::string outputType(const GemmProblem &p) {
  return "!spio.tensor<[" + p.rowDim + ": " + std::to_string(p.m) + ", " + p.colDim + ": " +
         std::to_string(p.n) + "] x " + dtypeName(p.output) + ", global>";
}

/// Writes the tiled kernel. SSA names are numbered, so generated values
/// never clash.
class TileWriter {
public:
  TileWriter(const GemmProblem &p, const GemmConfig &c)
      : p(p), c(c), a(operandA(p, c)), b(operandB(p, c)) {}

  std::string write();

private:
  std::string fresh(const std::string &prefix) {
    return "%" + prefix + std::to_string(counter++);
  }
  std::string constant(int64_t value, const std::string &dim, int64_t fold = 1) {
    std::string name = fresh("c");
    out << "    " << name << " = spio.constant " << value << " : " << coord(dim, fold) << "\n";
    return name;
  }
  std::string sharedType(const Operand &o) const {
    std::ostringstream s;
    s << "!spio.tensor<[" << o.outerDim() << ": " << o.tileOuter(c.blockK) << ", "
      << o.innerDim() << "/8: " << o.tileVectors(c.blockK) << "] x vector<8x"
      << dtypeName(p.input) << ">, shared, " << swizzleFor(o.tileVectors(c.blockK)) << ">";
    return s.str();
  }
  std::string fragmentType(const char *operand, const std::string &rows,
                           const std::string &cols, const char *dtype) const {
    return std::string("!spio.fragment<") + operand + ", m16n8k16, " + dtype + ", [" +
           rows + ", " + cols + "]>";
  }

  /// The cp.async of the k-tile `ktc` (a coordinate) of one operand.
  void loadTile(const Operand &o, const std::string &blockCoord, const std::string &ktc);
  void body();

  const GemmProblem &p;
  const GemmConfig &c;
  Operand a, b;
  std::ostringstream out;
  int counter = 0;
  // Per-thread copy coordinates, per operand: outer and inner.
  std::string copyOuter[2], copyInner[2];
};

void TileWriter::loadTile(const Operand &o, const std::string &blockCoord,
                          const std::string &ktc) {
  int which = o.name == "a" ? 0 : 1;
  const std::string &k = p.reductionDim;
  int64_t vectorsPerRow = o.tileVectors(c.blockK);
  int64_t rowsPerPass = c.threads() / vectorsPerRow;
  int64_t passes = o.tileOuter(c.blockK) / rowsPerPass;
  std::string gT = globalType(p, o), sT = sharedType(o);
  std::string outer = o.outerDim(), inner = o.innerDim();
  std::string shared = "%s" + o.name;
  std::string tile = fresh("tile");
  out << "    " << tile << " = spio.subscript %" << o.name << "[" << blockCoord << ", " << ktc
      << "] : " << gT << "[" << coord(o.rowDim, o.blockRows) << ", " << coord(k, c.blockK)
      << "]\n";
  // Absolute positions of the tile origin, for the bounds of the copies.
  std::string rowOrigin = fresh("ro"), kOrigin = fresh("ko");
  out << "    " << rowOrigin << " = spio.unfold " << blockCoord << " : "
      << coord(o.rowDim, o.blockRows) << " to " << coord(o.rowDim) << "\n";
  out << "    " << kOrigin << " = spio.unfold " << ktc << " : " << coord(k, c.blockK) << " to "
      << coord(k) << "\n";
  std::string outerOrigin = outer == k ? kOrigin : rowOrigin;
  std::string innerOrigin = inner == k ? kOrigin : rowOrigin;
  std::string innerPos = fresh("ip"), innerAbs = fresh("ia"), innerOk = fresh("iok");
  out << "    " << innerPos << " = spio.unfold " << copyInner[which] << " : " << coord(inner, 8)
      << " to " << coord(inner) << "\n";
  out << "    " << innerAbs << " = spio.add " << innerOrigin << ", " << innerPos << " : "
      << coord(inner) << ", " << coord(inner) << "\n";
  std::string innerLimit = constant(o.innerExtent(), inner);
  out << "    " << innerOk << " = spio.cmp lt, " << innerAbs << ", " << innerLimit << " : "
      << coord(inner) << ", " << coord(inner) << "\n";
  std::string outerLimit = constant(o.outerExtent(), outer);
  for (int64_t pass = 0; pass < passes; ++pass) {
    std::string row = copyOuter[which];
    if (pass > 0) {
      std::string offset = constant(pass * rowsPerPass, outer);
      std::string shifted = fresh("row");
      out << "    " << shifted << " = spio.add " << row << ", " << offset << " : "
          << coord(outer) << ", " << coord(outer) << "\n";
      row = shifted;
    }
    std::string outerAbs = fresh("oa"), outerOk = fresh("ook"), ok = fresh("ok");
    out << "    " << outerAbs << " = spio.add " << outerOrigin << ", " << row << " : "
        << coord(outer) << ", " << coord(outer) << "\n";
    out << "    " << outerOk << " = spio.cmp lt, " << outerAbs << ", " << outerLimit << " : "
        << coord(outer) << ", " << coord(outer) << "\n";
    out << "    " << ok << " = arith.andi " << outerOk << ", " << innerOk << " : i1\n";
    out << "    spio.async_copy " << tile << "[" << row << ", " << copyInner[which] << "] to "
        << shared << "[" << row << ", " << copyInner[which] << "] in_bounds " << ok << " : "
        << gT << "[" << coord(outer) << ", " << coord(inner, 8) << "] to " << sT << "["
        << coord(outer) << ", " << coord(inner, 8) << "]\n";
  }
}

void TileWriter::body() {
  const char *T = dtypeName(p.input);
  const std::string &I = p.rowDim, &J = p.colDim, &K = p.reductionDim;
  int64_t warpM = c.blockM / c.warpsM, warpN = c.blockN / c.warpsN;
  int64_t mTiles = warpM / 16, nTiles = warpN / 8, accs = mTiles * nTiles;
  int64_t kTiles = ceilDiv(p.k, c.blockK);
  std::string FA = fragmentType("A", I, K, T), FB = fragmentType("B", K, J, T);
  std::string FC = fragmentType("C", I, J, "f32");
  std::string dT = outputType(p);

  out << "    %sa = spio.alloc : " << sharedType(a) << "\n";
  out << "    %sb = spio.alloc : " << sharedType(b) << "\n";
  out << "    %bx = spio.linear_id block_x\n    %by = spio.linear_id block_y\n";
  std::string blockRow = "%by", blockCol = "%bx";
  LaunchShape grid = gemmLaunchShape(p, c);
  if (c.raster > 1 && grid.gridY % c.raster == 0) {
    // Linear block id -> group of `raster` block rows, then column, then
    // row within the group; all divisions by constants.
    out << "    %gridx = arith.constant " << grid.gridX << " : index\n";
    out << "    %groupw = arith.constant " << c.raster * grid.gridX << " : index\n";
    out << "    %rasterc = arith.constant " << c.raster << " : index\n";
    out << "    %pid0 = arith.muli %by, %gridx : index\n";
    out << "    %pid = arith.addi %pid0, %bx : index\n";
    out << "    %group = arith.divui %pid, %groupw : index\n";
    out << "    %inside = arith.remui %pid, %groupw : index\n";
    out << "    %first = arith.muli %group, %rasterc : index\n";
    out << "    %rrow = arith.remui %inside, %rasterc : index\n";
    out << "    %brow = arith.addi %first, %rrow : index\n";
    out << "    %bcol = arith.divui %inside, %rasterc : index\n";
    blockRow = "%brow";
    blockCol = "%bcol";
  }
  out << "    %bi = spio.from_index " << blockRow << " : " << coord(I, c.blockM) << "\n";
  out << "    %bj = spio.from_index " << blockCol << " : " << coord(J, c.blockN) << "\n";
  out << "    %warp = spio.linear_id warp\n";
  out << "    %wi, %wj = spio.decompose %warp [" << c.warpsM << ", " << c.warpsN << "] : "
      << coord(I, warpM) << ", " << coord(J, warpN) << "\n";
  out << "    %tid = spio.linear_id thread\n";
  for (const Operand *o : {&a, &b}) {
    int which = o == &a ? 0 : 1;
    int64_t vectorsPerRow = o->tileVectors(c.blockK);
    copyOuter[which] = "%" + o->name + "_outer";
    copyInner[which] = "%" + o->name + "_inner";
    out << "    " << copyOuter[which] << ", " << copyInner[which] << " = spio.decompose %tid ["
        << c.threads() / vectorsPerRow << ", " << vectorsPerRow << "] : "
        << coord(o->outerDim()) << ", " << coord(o->innerDim(), 8) << "\n";
  }
  out << "    %zero = arith.constant 0.0 : f32\n";
  out << "    %acc0 = spio.fill %zero : " << FC << "\n";
  out << "    %i0 = arith.constant 0 : index\n    %i1 = arith.constant 1 : index\n";
  out << "    %ktiles = arith.constant " << kTiles << " : index\n";

  // The reduction loop, one k-tile per step, accumulators carried. One
  // stage: load, wait, compute; spio-pipeline overlaps them.
  out << "    %accs:" << accs << " = scf.for %kt = %i0 to %ktiles step %i1 iter_args(";
  for (int64_t t = 0; t < accs; ++t)
    out << (t ? ", " : "") << "%acc_in" << t << " = %acc0";
  out << ") -> (";
  for (int64_t t = 0; t < accs; ++t)
    out << (t ? ", " : "") << FC;
  out << ") {\n";
  std::string ktc = fresh("kt");
  out << "    " << ktc << " = spio.from_index %kt : " << coord(K, c.blockK) << "\n";
  loadTile(a, "%bi", ktc);
  loadTile(b, "%bj", ktc);
  out << "    spio.async_commit\n    spio.async_wait 0\n    gpu.barrier\n";
  std::string sAT = sharedType(a), sBT = sharedType(b);
  std::vector<std::string> acc(accs);
  for (int64_t t = 0; t < accs; ++t)
    acc[t] = "%acc_in" + std::to_string(t);
  for (int64_t kk = 0; kk < c.blockK / 16; ++kk) {
    std::string kc = constant(kk, K, 16);
    std::vector<std::string> fa(mTiles), fb(nTiles);
    for (int64_t mi = 0; mi < mTiles; ++mi) {
      std::string mc = constant(mi, I, 16);
      fa[mi] = fresh("fa");
      out << "    " << fa[mi] << " = spio.ldmatrix %sa[%wi, " << mc << ", " << kc << "]"
          << (a.kContiguous ? "" : " transpose") << " : " << sAT << "[" << coord(I, warpM)
          << ", " << coord(I, 16) << ", " << coord(K, 16) << "] -> " << FA << "\n";
    }
    for (int64_t ni = 0; ni < nTiles; ++ni) {
      std::string nc = constant(ni, J, 8);
      fb[ni] = fresh("fb");
      out << "    " << fb[ni] << " = spio.ldmatrix %sb[%wj, " << nc << ", " << kc << "]"
          << (b.kContiguous ? "" : " transpose") << " : " << sBT << "[" << coord(J, warpN)
          << ", " << coord(J, 8) << ", " << coord(K, 16) << "] -> " << FB << "\n";
    }
    for (int64_t mi = 0; mi < mTiles; ++mi)
      for (int64_t ni = 0; ni < nTiles; ++ni) {
        // Serpentine over n so consecutive mmas share an operand.
        int64_t n = mi % 2 ? nTiles - 1 - ni : ni;
        int64_t t = mi * nTiles + n;
        std::string d = fresh("d");
        out << "    " << d << " = spio.mma " << fa[mi] << ", " << fb[n] << ", " << acc[t]
            << " : " << FA << ", " << FB << ", " << FC << "\n";
        acc[t] = d;
      }
  }
  out << "    gpu.barrier\n    scf.yield ";
  for (int64_t t = 0; t < accs; ++t)
    out << (t ? ", " : "") << acc[t];
  out << " : ";
  for (int64_t t = 0; t < accs; ++t)
    out << (t ? ", " : "") << FC;
  out << "\n    } {spio.stages = " << c.stages << "}\n";

  // Epilogue: D = alpha * acc (+ beta * C), bounded by M and N.
  out << "    %m = spio.constant " << p.m << " : " << coord(I) << "\n";
  out << "    %n = spio.constant " << p.n << " : " << coord(J) << "\n";
  out << "    %alphav = vector.broadcast %alpha : f32 to vector<4xf32>\n";
  std::string tileT = "[" + coord(I, c.blockM) + ", " + coord(J, c.blockN) + ", " +
                      coord(I, warpM) + ", " + coord(J, warpN) + "]";
  out << "    %dt = spio.subscript %d[%bi, %bj, %wi, %wj] : " << dT << tileT << "\n";
  if (p.readsC) {
    out << "    %betav = vector.broadcast %beta : f32 to vector<4xf32>\n";
    out << "    %ct = spio.subscript %c[%bi, %bj, %wi, %wj] : " << dT << tileT << "\n";
  }
  std::string fragCoords = "[" + coord(I, 16) + ", " + coord(J, 8) + "]";
  std::string bounds = " bounds " + coord(I) + ", " + coord(J);
  for (int64_t mi = 0; mi < mTiles; ++mi)
    for (int64_t ni = 0; ni < nTiles; ++ni) {
      int64_t t = mi * nTiles + ni;
      std::string mc = constant(mi, I, 16), nc = constant(ni, J, 8);
      std::string av = fresh("av"), r = fresh("r");
      out << "    " << av << " = spio.fragment_to_vector %accs#" << t << " : " << FC
          << " -> vector<4xf32>\n";
      out << "    " << r << " = arith.mulf %alphav, " << av << " : vector<4xf32>\n";
      if (p.readsC) {
        std::string cf = fresh("cf"), cv = fresh("cv"), bc = fresh("bc"), sum = fresh("sum");
        out << "    " << cf << " = spio.load_fragment %ct[" << mc << ", " << nc
            << "] bounds %m, %n : " << dT << fragCoords << bounds << " -> " << FC << "\n";
        out << "    " << cv << " = spio.fragment_to_vector " << cf << " : " << FC
            << " -> vector<4xf32>\n";
        out << "    " << bc << " = arith.mulf %betav, " << cv << " : vector<4xf32>\n";
        out << "    " << sum << " = arith.addf " << r << ", " << bc << " : vector<4xf32>\n";
        r = sum;
      }
      std::string rf = fresh("rf");
      out << "    " << rf << " = spio.vector_to_fragment " << r << " : vector<4xf32> -> " << FC
          << "\n";
      out << "    spio.store_fragment " << rf << ", %dt[" << mc << ", " << nc
          << "] bounds %m, %n : " << FC << ", " << dT << fragCoords << bounds << "\n";
    }
}

std::string TileWriter::write() {
  std::string dT = outputType(p);
  out << "gpu.module @spio_gemm_tile {\n";
  out << "  gpu.func @gemm_tile(%a: " << globalType(p, a) << ", %b: " << globalType(p, b)
      << ", %d: " << dT << ", %alpha: f32";
  if (p.readsC)
    out << ", %beta: f32, %c: " << dT;
  out << ") kernel attributes {known_block_size = array<i32: " << c.threads()
      << ", 1, 1>} {\n";
  body();
  out << "    gpu.return\n  }\n}\n";
  return out.str();
}

} // namespace

std::string gemmOperandType(const GemmProblem &problem, char operand) {
  GemmConfig config;
  switch (operand) {
  case 'a':
    return globalType(problem, operandA(problem, config));
  case 'b':
    return globalType(problem, operandB(problem, config));
  default:
    return outputType(problem);
  }
}

std::string gemmTileSource(const GemmProblem &problem, const GemmConfig &config) {
  return TileWriter(problem, config).write();
}

std::string gemmSource(const GemmProblem &p, const GemmConfig &c) {
  std::ostringstream out;
  std::string aT = gemmOperandType(p, 'a'), bT = gemmOperandType(p, 'b');
  std::string dT = gemmOperandType(p, 'd');
  out << "// spio GEMM: D[" << p.m << "x" << p.n << "] = alpha * A @ B"
      << (p.readsC ? " + beta * C" : "") << ", K=" << p.k << ", " << dtypeName(p.input)
      << " -> " << dtypeName(p.output) << ", A " << (p.a == Layout::RowMajor ? "row" : "col")
      << "-major, B " << (p.b == Layout::RowMajor ? "row" : "col") << "-major\n";
  out << "module attributes {gpu.container_module} {\n";
  out << "  gpu.module @spio_gemm {\n";
  out << "    gpu.func @gemm(%a: " << aT << ", %b: " << bT << ", %c: " << dT << ", %d: " << dT
      << ", %alpha: f32, %beta: f32) kernel {\n";
  out << "      spio.gemm %a, %b into %d alpha %alpha" << (p.readsC ? " beta %beta, %c" : "")
      << " {config = #spio.gemm_config<block = [" << c.blockM << ", " << c.blockN << ", "
      << c.blockK << "], warps = [" << c.warpsM << ", " << c.warpsN
      << "], stages = " << c.stages;
  if (c.raster > 1)
    out << ", raster = " << c.raster;
  out << ">} : " << aT << ", " << bT << " -> " << dT
      << (p.readsC ? ", " + dT : "") << "\n";
  out << "      gpu.return\n    }\n  }\n}\n";
  return out.str();
}

} // namespace spio::kernels
