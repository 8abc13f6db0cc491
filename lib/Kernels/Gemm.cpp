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
  return {};
}

GemmConfig chooseGemmConfig(const GemmProblem &p, int64_t numSMs) {
  // 128 x 128 x 32 tiles over 2 x 2 warps (64 x 64 each) and 4 stages were
  // the fastest of the tiles swept on an H200 at 4096^3 and 8192^3.
  GemmConfig large;
  large.warpsM = 2;
  large.warpsN = 2;
  int64_t blocks = ceilDiv(p.m, large.blockM) * ceilDiv(p.n, large.blockN);
  if (blocks >= numSMs)
    return large;
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
  std::string rowDim;      // i for A, j for B: the non-reduction dimension
  bool kContiguous;        // vectors run along k
  int64_t rowsExtent;      // M or N
  int64_t k;               // K
  int64_t blockRows;       // BM or BN

  std::string outerDim() const { return kContiguous ? rowDim : "k"; }
  std::string innerDim() const { return kContiguous ? "k" : rowDim; }
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

class Writer {
public:
  Writer(const GemmProblem &p, const GemmConfig &c) : p(p), c(c) {
    a = {"a", "i", p.a == Layout::RowMajor, p.m, p.k, c.blockM};
    b = {"b", "j", p.b == Layout::ColMajor, p.n, p.k, c.blockN};
  }

  std::string write();

private:
  std::string fresh(const std::string &prefix) {
    return "%" + prefix + std::to_string(counter++);
  }
  std::string coord(const std::string &dim, int64_t fold = 1) {
    return "!spio.coord<" + dim + (fold == 1 ? "" : "/" + std::to_string(fold)) + ">";
  }
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
  std::string globalType(const Operand &o) const {
    std::ostringstream s;
    s << "!spio.tensor<[" << o.outerDim() << ": " << o.outerExtent() << ", "
      << o.innerDim() << "/8: " << o.innerExtent() / 8 << "] x vector<8x"
      << dtypeName(p.input) << ">, global>";
    return s.str();
  }
  std::string sharedType(const Operand &o) const {
    std::ostringstream s;
    s << "!spio.tensor<[s: " << c.stages << ", " << o.outerDim() << ": "
      << o.tileOuter(c.blockK) << ", " << o.innerDim() << "/8: " << o.tileVectors(c.blockK)
      << "] x vector<8x" << dtypeName(p.input) << ">, shared, "
      << swizzleFor(o.tileVectors(c.blockK)) << ">";
    return s.str();
  }
  std::string fragmentType(const char *operand, const std::string &rows,
                           const std::string &cols, const char *dtype) const {
    return std::string("!spio.fragment<") + operand + ", m16n8k16, " + dtype + ", [" +
           rows + ", " + cols + "]>";
  }

  /// Issues the cp.async of k-tile `kt` (an index) into stage `stage`.
  void loadTile(const Operand &o, const std::string &global, const std::string &shared,
                const std::string &blockCoord, const std::string &kt,
                const std::string &stage);
  void kernelBody();

  const GemmProblem &p;
  const GemmConfig &c;
  Operand a, b;
  std::ostringstream out;
  int counter = 0;
  // Per-thread copy coordinates, per operand: outer and inner.
  std::string copyOuter[2], copyInner[2];
};

void Writer::loadTile(const Operand &o, const std::string &global,
                      const std::string &shared, const std::string &blockCoord,
                      const std::string &kt, const std::string &stage) {
  int which = o.name == "a" ? 0 : 1;
  int64_t vectorsPerRow = o.tileVectors(c.blockK);
  int64_t rowsPerPass = c.threads() / vectorsPerRow;
  int64_t passes = o.tileOuter(c.blockK) / rowsPerPass;
  std::string gT = globalType(o), sT = sharedType(o);
  std::string outer = o.outerDim(), inner = o.innerDim();
  std::string ktc = fresh("kt");
  out << "    " << ktc << " = spio.from_index " << kt << " : " << coord("k", c.blockK) << "\n";
  std::string st = fresh("st");
  out << "    " << st << " = spio.from_index " << stage << " : " << coord("s") << "\n";
  std::string tile = fresh("tile");
  out << "    " << tile << " = spio.subscript " << global << "[" << blockCoord << ", " << ktc
      << "] : " << gT << "[" << coord(o.rowDim, o.blockRows) << ", " << coord("k", c.blockK)
      << "]\n";
  // Absolute positions of the tile origin along outer and inner, for bounds.
  std::string rowOrigin = fresh("ro");
  std::string kOrigin = fresh("ko");
  out << "    " << rowOrigin << " = spio.unfold " << blockCoord << " : "
      << coord(o.rowDim, o.blockRows) << " to " << coord(o.rowDim) << "\n";
  out << "    " << kOrigin << " = spio.unfold " << ktc << " : " << coord("k", c.blockK)
      << " to " << coord("k") << "\n";
  std::string outerOrigin = outer == "k" ? kOrigin : rowOrigin;
  std::string innerOrigin = inner == "k" ? kOrigin : rowOrigin;
  std::string innerPos = fresh("ip");
  out << "    " << innerPos << " = spio.unfold " << copyInner[which] << " : "
      << coord(inner, 8) << " to " << coord(inner) << "\n";
  std::string innerAbs = fresh("ia");
  out << "    " << innerAbs << " = spio.add " << innerOrigin << ", " << innerPos << " : "
      << coord(inner) << ", " << coord(inner) << "\n";
  std::string innerLimit = constant(o.innerExtent(), inner);
  std::string innerOk = fresh("iok");
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
    std::string outerAbs = fresh("oa");
    out << "    " << outerAbs << " = spio.add " << outerOrigin << ", " << row << " : "
        << coord(outer) << ", " << coord(outer) << "\n";
    std::string outerOk = fresh("ook");
    out << "    " << outerOk << " = spio.cmp lt, " << outerAbs << ", " << outerLimit << " : "
        << coord(outer) << ", " << coord(outer) << "\n";
    std::string ok = fresh("ok");
    out << "    " << ok << " = arith.andi " << outerOk << ", " << innerOk << " : i1\n";
    out << "    spio.async_copy " << tile << "[" << row << ", " << copyInner[which] << "] to "
        << shared << "[" << st << ", " << row << ", " << copyInner[which] << "] in_bounds "
        << ok << " : " << gT << "[" << coord(outer) << ", " << coord(inner, 8) << "] to "
        << sT << "[" << coord("s") << ", " << coord(outer) << ", " << coord(inner, 8)
        << "]\n";
  }
}

void Writer::kernelBody() {
  const char *T = dtypeName(p.input);
  int64_t warpM = c.blockM / c.warpsM, warpN = c.blockN / c.warpsN;
  int64_t mTiles = warpM / 16, nTiles = warpN / 8, accs = mTiles * nTiles;
  int64_t kTiles = ceilDiv(p.k, c.blockK);
  std::string FA = fragmentType("A", "i", "k", T), FB = fragmentType("B", "k", "j", T);
  std::string FC = fragmentType("C", "i", "j", "f32");
  std::string dT = "!spio.tensor<[i: " + std::to_string(p.m) + ", j: " + std::to_string(p.n) +
                   "] x " + dtypeName(p.output) + ", global>";

  out << "    %sa = spio.alloc : " << sharedType(a) << "\n";
  out << "    %sb = spio.alloc : " << sharedType(b) << "\n";
  out << "    %bx = spio.linear_id block_x\n    %by = spio.linear_id block_y\n";
  LaunchShape grid = gemmLaunchShape(p, c);
  std::string blockRow = "%by", blockCol = "%bx";
  if (c.rasterGroup > 1 && grid.gridY > c.rasterGroup) {
    // Linear block id -> (group of rasterGroup block rows, column, row).
    int64_t width = c.rasterGroup * grid.gridX;
    out << "    %gx = arith.constant " << grid.gridX << " : index\n";
    out << "    %gy = arith.constant " << grid.gridY << " : index\n";
    out << "    %gw = arith.constant " << width << " : index\n";
    out << "    %gg = arith.constant " << c.rasterGroup << " : index\n";
    out << "    %pid0 = arith.muli %by, %gx : index\n";
    out << "    %pid = arith.addi %pid0, %bx : index\n";
    out << "    %group = arith.divui %pid, %gw : index\n";
    out << "    %first = arith.muli %group, %gg : index\n";
    out << "    %left = arith.subi %gy, %first : index\n";
    out << "    %gsize = arith.minui %left, %gg : index\n";
    out << "    %inside = arith.remui %pid, %gw : index\n";
    out << "    %rrow = arith.remui %inside, %gsize : index\n";
    out << "    %brow = arith.addi %first, %rrow : index\n";
    out << "    %bcol = arith.divui %inside, %gsize : index\n";
    blockRow = "%brow";
    blockCol = "%bcol";
  }
  out << "    %bi = spio.from_index " << blockRow << " : " << coord("i", c.blockM) << "\n";
  out << "    %bj = spio.from_index " << blockCol << " : " << coord("j", c.blockN) << "\n";
  out << "    %warp = spio.linear_id warp\n";
  out << "    %wi, %wj = spio.decompose %warp [" << c.warpsM << ", " << c.warpsN << "] : "
      << coord("i", warpM) << ", " << coord("j", warpN) << "\n";
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
  out << "    %nstages = arith.constant " << c.stages << " : index\n";
  out << "    %ktiles = arith.constant " << kTiles << " : index\n";

  // Prologue: the first stages - 1 k-tiles.
  for (int64_t s = 0; s + 1 < c.stages; ++s) {
    std::string kt = index(s);
    loadTile(a, "%a", "%sa", "%bi", kt, kt);
    loadTile(b, "%b", "%sb", "%bj", kt, kt);
    out << "    spio.async_commit\n";
  }

  // Main loop over k-tiles, accumulators carried.
  out << "    %accs:" << accs << " = scf.for %kt = %i0 to %ktiles step %i1 iter_args(";
  for (int64_t t = 0; t < accs; ++t)
    out << (t ? ", " : "") << "%acc_in" << t << " = %acc0";
  out << ") -> (";
  for (int64_t t = 0; t < accs; ++t)
    out << (t ? ", " : "") << FC;
  out << ") {\n";
  out << "    spio.async_wait " << c.stages - 2 << "\n    gpu.barrier\n";
  std::string lookahead = index(c.stages - 1);
  std::string ahead = fresh("ahead");
  out << "    " << ahead << " = arith.addi %kt, " << lookahead << " : index\n";
  std::string aheadStage = fresh("as");
  out << "    " << aheadStage << " = arith.remui " << ahead << ", %nstages : index\n";
  loadTile(a, "%a", "%sa", "%bi", ahead, aheadStage);
  loadTile(b, "%b", "%sb", "%bj", ahead, aheadStage);
  out << "    spio.async_commit\n";
  std::string stageIndex = fresh("cs");
  out << "    " << stageIndex << " = arith.remui %kt, %nstages : index\n";
  std::string stage = fresh("stage");
  out << "    " << stage << " = spio.from_index " << stageIndex << " : " << coord("s") << "\n";
  std::string sAT = sharedType(a), sBT = sharedType(b);
  std::vector<std::string> acc(accs);
  for (int64_t t = 0; t < accs; ++t)
    acc[t] = "%acc_in" + std::to_string(t);
  for (int64_t kk = 0; kk < c.blockK / 16; ++kk) {
    std::string kc = constant(kk, "k", 16);
    std::vector<std::string> fa(mTiles), fb(nTiles);
    for (int64_t mi = 0; mi < mTiles; ++mi) {
      std::string mc = constant(mi, "i", 16);
      fa[mi] = fresh("fa");
      out << "    " << fa[mi] << " = spio.ldmatrix %sa[" << stage << ", %wi, " << mc << ", "
          << kc << "]" << (a.kContiguous ? "" : " transpose") << " : " << sAT << "["
          << coord("s") << ", " << coord("i", warpM) << ", " << coord("i", 16) << ", "
          << coord("k", 16) << "] -> " << FA << "\n";
    }
    for (int64_t ni = 0; ni < nTiles; ++ni) {
      std::string nc = constant(ni, "j", 8);
      fb[ni] = fresh("fb");
      out << "    " << fb[ni] << " = spio.ldmatrix %sb[" << stage << ", %wj, " << nc << ", "
          << kc << "]" << (b.kContiguous ? "" : " transpose") << " : " << sBT << "["
          << coord("s") << ", " << coord("j", warpN) << ", " << coord("j", 8) << ", "
          << coord("k", 16) << "] -> " << FB << "\n";
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
  out << "    scf.yield ";
  for (int64_t t = 0; t < accs; ++t)
    out << (t ? ", " : "") << acc[t];
  out << " : ";
  for (int64_t t = 0; t < accs; ++t)
    out << (t ? ", " : "") << FC;
  out << "\n    }\n";
  out << "    spio.async_wait 0\n";

  // Epilogue: D = alpha * acc (+ beta * C), bounded by M and N.
  out << "    %m = spio.constant " << p.m << " : " << coord("i") << "\n";
  out << "    %n = spio.constant " << p.n << " : " << coord("j") << "\n";
  out << "    %alphav = vector.broadcast %alpha : f32 to vector<4xf32>\n";
  out << "    %betav = vector.broadcast %beta : f32 to vector<4xf32>\n";
  std::string tileT = "[" + coord("i", c.blockM) + ", " + coord("j", c.blockN) + ", " +
                      coord("i", warpM) + ", " + coord("j", warpN) + "]";
  out << "    %dt = spio.subscript %d[%bi, %bj, %wi, %wj] : " << dT << tileT << "\n";
  if (p.readsC)
    out << "    %ct = spio.subscript %c[%bi, %bj, %wi, %wj] : " << dT << tileT << "\n";
  for (int64_t mi = 0; mi < mTiles; ++mi)
    for (int64_t ni = 0; ni < nTiles; ++ni) {
      int64_t t = mi * nTiles + ni;
      std::string mc = constant(mi, "i", 16), nc = constant(ni, "j", 8);
      std::string fragCoords = "[" + coord("i", 16) + ", " + coord("j", 8) + "]";
      std::string av = fresh("av");
      out << "    " << av << " = spio.fragment_to_vector %accs#" << t << " : " << FC
          << " -> vector<4xf32>\n";
      std::string r = fresh("r");
      out << "    " << r << " = arith.mulf %alphav, " << av << " : vector<4xf32>\n";
      if (p.readsC) {
        std::string cf = fresh("cf"), cv = fresh("cv"), bc = fresh("bc"), sum = fresh("sum");
        out << "    " << cf << " = spio.load_fragment %ct[" << mc << ", " << nc
            << "] bounds %m, %n : " << dT << fragCoords << " bounds " << coord("i") << ", "
            << coord("j") << " -> " << FC << "\n";
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
          << "] bounds %m, %n : " << FC << ", " << dT << fragCoords << " bounds "
          << coord("i") << ", " << coord("j") << "\n";
    }
}

std::string Writer::write() {
  std::string dT = "!spio.tensor<[i: " + std::to_string(p.m) + ", j: " + std::to_string(p.n) +
                   "] x " + dtypeName(p.output) + ", global>";
  out << "// spio GEMM: D[" << p.m << "x" << p.n << "] = alpha * A @ B"
      << (p.readsC ? " + beta * C" : "") << ", K=" << p.k << ", " << dtypeName(p.input)
      << " -> " << dtypeName(p.output) << ", A "
      << (p.a == Layout::RowMajor ? "row" : "col") << "-major, B "
      << (p.b == Layout::RowMajor ? "row" : "col") << "-major; tile " << c.blockM << "x"
      << c.blockN << "x" << c.blockK << ", warps " << c.warpsM << "x" << c.warpsN
      << ", stages " << c.stages << ", raster group " << c.rasterGroup << "\n";
  out << "module attributes {gpu.container_module} {\n";
  out << "  gpu.module @spio_gemm {\n";
  out << "  gpu.func @gemm(%a: " << globalType(a) << ", %b: " << globalType(b)
      << ", %c: " << dT << ", %d: " << dT
      << ", %alpha: f32, %beta: f32) kernel attributes {known_block_size = array<i32: "
      << c.threads() << ", 1, 1>} {\n";
  kernelBody();
  out << "    gpu.return\n  }\n  }\n}\n";
  return out.str();
}

} // namespace

std::string gemmSource(const GemmProblem &problem, const GemmConfig &config) {
  return Writer(problem, config).write();
}

} // namespace spio::kernels
