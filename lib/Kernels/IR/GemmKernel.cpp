//===- GemmKernel.cpp - The GEMM kernel family, built as IR ---------------===//
//
// The kernel, per block of BM x BN outputs:
// - a ring of `stages` shared-memory tiles of A and B, filled with 16-byte
//   cp.async (zero-filled past the matrix edges) `stages - 1` k-steps ahead;
// - per k-step, each warp loads its A and B fragments with ldmatrix (plain
//   for the k-contiguous operand layouts, transposed otherwise) and issues
//   the mma.sync of its warp tile; accumulators are loop-carried fragments;
//   or, with wgmma (sm_90a), each warpgroup multiplies its 64 rows straight
//   from the swizzled tiles into a warpgroup accumulator, one k-step's
//   group in flight while the next is issued;
// - the epilogue computes alpha * acc (+ beta * C) a C fragment at a time
//   and stores D, skipping elements past the edges.
// The reduction order is fixed by the loop structure and there are no
// atomics, so results are bit-identical from run to run.
//
//===----------------------------------------------------------------------===//

#include "spio/Kernels/IR/GemmKernel.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"

using namespace mlir;
using namespace mlir::spio;
using namespace mlir::spio::build;
namespace kernels = ::spio::kernels;
using kernels::GemmConfig;
using kernels::GemmProblem;

static int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

static kernels::DType dtypeOf(Type type) {
  if (type.isF16())
    return kernels::DType::F16;
  if (type.isBF16())
    return kernels::DType::BF16;
  return kernels::DType::F32;
}

static Type typeOf(MLIRContext *ctx, kernels::DType dtype) {
  switch (dtype) {
  case kernels::DType::F16:
    return Float16Type::get(ctx);
  case kernels::DType::BF16:
    return BFloat16Type::get(ctx);
  case kernels::DType::F32:
    return Float32Type::get(ctx);
  }
  llvm_unreachable("a GEMM dtype");
}

GemmProblem mlir::spio::gemmProblem(GemmOp op) {
  GemmProblem p;
  StringAttr rows = op.getRowDim(), cols = op.getColDim(), k = op.getReductionDim();
  ArrayRef<TensorDim> a = op.getA().getType().getDims(), b = op.getB().getType().getDims();
  ArrayRef<TensorDim> d = op.getD().getType().getDims();
  p.rowDim = rows.str();
  p.colDim = cols.str();
  p.reductionDim = k.str();
  p.m = d[0].size;
  p.n = d[1].size;
  // The contiguous (inner) entry counts vectors of 8.
  p.k = a[0].dim == k ? a[0].size : a[1].size * a[1].fold;
  p.input = dtypeOf(cast<VectorType>(op.getA().getType().getElementType()).getElementType());
  p.output = dtypeOf(op.getD().getType().getElementType());
  p.a = a[0].dim == rows ? kernels::Layout::RowMajor : kernels::Layout::ColMajor;
  p.b = b[0].dim == cols ? kernels::Layout::ColMajor : kernels::Layout::RowMajor;
  p.readsC = bool(op.getC());
  return p;
}

GemmConfig mlir::spio::gemmConfig(GemmConfigAttr attr) {
  GemmConfig c;
  c.blockM = attr.getBlock()[0];
  c.blockN = attr.getBlock()[1];
  c.blockK = attr.getBlock()[2];
  c.warpsM = attr.getWarps()[0];
  c.warpsN = attr.getWarps()[1];
  c.stages = attr.getStages();
  c.raster = attr.getRaster();
  c.wgmma = attr.getWgmma();
  return c;
}

GemmConfigAttr mlir::spio::gemmConfigAttr(MLIRContext *context, const GemmConfig &c) {
  return GemmConfigAttr::get(context, {c.blockM, c.blockN, c.blockK}, {c.warpsM, c.warpsN},
                             c.stages, c.raster, c.wgmma);
}

namespace {

/// One operand's global and shared layouts. The tile's rows run along
/// `outer`, its 16-byte vectors along `inner` (whose size counts vectors).
struct Operand {
  StringRef rowDim;  // the non-reduction dimension
  StringRef kDim;    // the reduction dimension
  bool kContiguous;  // vectors run along the reduction
  int64_t rowsExtent; // M or N
  int64_t k;          // K
  int64_t blockRows;  // BM or BN

  StringRef outerDim() const { return kContiguous ? rowDim : kDim; }
  StringRef innerDim() const { return kContiguous ? kDim : rowDim; }
  int64_t tileOuter(int64_t blockK) const { return kContiguous ? blockRows : blockK; }
  int64_t tileVectors(int64_t blockK) const { return (kContiguous ? blockK : blockRows) / 8; }
  int64_t outerExtent() const { return kContiguous ? rowsExtent : k; }
  int64_t innerExtent() const { return kContiguous ? k : rowsExtent; }
};

Operand operandA(const GemmProblem &p, int64_t blockM) {
  return {p.rowDim, p.reductionDim, p.a == kernels::Layout::RowMajor, p.m, p.k, blockM};
}

Operand operandB(const GemmProblem &p, int64_t blockN) {
  return {p.colDim, p.reductionDim, p.b == kernels::Layout::ColMajor, p.n, p.k, blockN};
}

SpioTensorType globalType(KernelBuilder &b, const GemmProblem &p, const Operand &o) {
  return b.tensorType({{o.outerDim(), 1, o.outerExtent()}, {o.innerDim(), 8, o.innerExtent() / 8}},
                      b.vector8(typeOf(b.getContext(), p.input)), MemorySpace::Global);
}

SpioTensorType outputType(KernelBuilder &b, const GemmProblem &p) {
  return b.tensorType({{p.rowDim, 1, p.m}, {p.colDim, 1, p.n}},
                      typeOf(b.getContext(), p.output), MemorySpace::Global);
}

/// XOR swizzle that spreads the 8 rows an ldmatrix phase reads (same
/// vector column) over the 8 16-byte slots of a 128-byte bank row.
SwizzleAttrInterface swizzleFor(MLIRContext *ctx, int64_t vectorsPerRow) {
  if (vectorsPerRow >= 8)
    return XorSwizzleAttr::get(ctx, 3, 0, llvm::Log2_64_Ceil(vectorsPerRow));
  if (vectorsPerRow == 4)
    return XorSwizzleAttr::get(ctx, 2, 0, 3);
  return XorSwizzleAttr::get(ctx, 1, 0, 3);
}

/// Builds one block's kernel code.
class GemmTile {
public:
  GemmTile(KernelBuilder &b, const GemmProblem &p, const GemmConfig &c)
      : b(b), p(p), c(c), a(operandA(p, c.blockM)), bOp(operandB(p, c.blockN)),
        input(typeOf(b.getContext(), p.input)) {}

  void build(GemmOp op);

private:
  SpioTensorType sharedType(const Operand &o) {
    int64_t vectors = o.tileVectors(c.blockK);
    return b.tensorType({{o.outerDim(), 1, o.tileOuter(c.blockK)}, {o.innerDim(), 8, vectors}},
                        b.vector8(input), MemorySpace::Shared, swizzleFor(b.getContext(), vectors));
  }
  FragmentType fragment(FragmentOperand operand, StringRef rows, StringRef cols, Type element) {
    return b.fragmentType(operand, MmaShape::M16N8K16, element, rows, cols);
  }

  /// The block's tile of one operand along its rows (`blockCoord`) and the
  /// k-tile `kTile`, copied into `shared` by every thread's cp.async.
  void copyTile(const Operand &o, Tensor global, Tensor shared, Coord blockCoord, Coord kTile,
                Coord copyOuter, Coord copyInner);

  KernelBuilder &b;
  const GemmProblem &p;
  const GemmConfig &c;
  Operand a, bOp;
  Type input;
};

void GemmTile::copyTile(const Operand &o, Tensor global, Tensor shared, Coord blockCoord,
                        Coord kTile, Coord copyOuter, Coord copyInner) {
  StringRef outer = o.outerDim(), inner = o.innerDim();
  int64_t rowsPerPass = c.threads() / o.tileVectors(c.blockK);
  int64_t passes = o.tileOuter(c.blockK) / rowsPerPass;
  Tensor tile = b.subscript(global, {blockCoord, kTile});
  // Absolute positions of the tile's origin, for the bounds of the copies.
  Coord rowOrigin = b.unfold(blockCoord, 1);
  Coord kOrigin = b.unfold(kTile, 1);
  bool outerIsK = outer == p.reductionDim;
  Coord outerOrigin = outerIsK ? kOrigin : rowOrigin;
  Coord innerOrigin = outerIsK ? rowOrigin : kOrigin;
  Coord innerAbs = b.add(innerOrigin, b.unfold(copyInner, 1));
  Value innerOk = b.cmp(CmpPredicate::lt, innerAbs, b.constant(o.innerExtent(), b.coordType(inner)));
  Coord outerLimit = b.constant(o.outerExtent(), b.coordType(outer));
  for (int64_t pass = 0; pass < passes; ++pass) {
    Coord row = copyOuter;
    if (pass > 0)
      row = b.add(row, b.constant(pass * rowsPerPass, b.coordType(outer)));
    Value outerOk = b.cmp(CmpPredicate::lt, b.add(outerOrigin, row), outerLimit);
    b.asyncCopy(tile, {row, copyInner}, shared, {row, copyInner}, b.andi(outerOk, innerOk));
  }
}

void GemmTile::build(GemmOp op) {
  MLIRContext *ctx = b.getContext();
  StringRef I = p.rowDim, J = p.colDim, K = p.reductionDim;
  int64_t warpM = c.blockM / c.warpsM, warpN = c.blockN / c.warpsN;
  int64_t mTiles = warpM / 16, nTiles = warpN / 8, accs = mTiles * nTiles;
  FragmentType fa = fragment(FragmentOperand::A, I, K, input);
  FragmentType fb = fragment(FragmentOperand::B, K, J, input);
  FragmentType fc = fragment(FragmentOperand::C, I, J, Float32Type::get(ctx));

  Tensor sharedA = b.alloc(sharedType(a));
  Tensor sharedB = b.alloc(sharedType(bOp));
  Value blockCol = b.linearId(LinearId::BlockX);
  Value blockRow = b.linearId(LinearId::BlockY);
  kernels::LaunchShape grid = kernels::gemmLaunchShape(p, c);
  if (c.raster > 1 && grid.gridY % c.raster == 0) {
    // Linear block id -> group of `raster` block rows, then column, then
    // row within the group; all divisions by constants.
    Value gridX = b.index(grid.gridX);
    Value groupWidth = b.index(c.raster * grid.gridX);
    Value raster = b.index(c.raster);
    Value linear = b.addi(b.muli(blockRow, gridX), blockCol);
    Value group = b.divui(linear, groupWidth);
    Value inside = b.remui(linear, groupWidth);
    Value first = b.muli(group, raster);
    blockRow = b.addi(first, b.remui(inside, raster));
    blockCol = b.divui(inside, raster);
  }
  Coord bi = b.fromIndex(blockRow, b.coordType(I, c.blockM));
  Coord bj = b.fromIndex(blockCol, b.coordType(J, c.blockN));
  // The warp's place: mma.sync, its tile of the block; wgmma, its
  // warpgroup's 64 rows and its own 16 of them.
  Value warpId = b.linearId(LinearId::Warp);
  SmallVector<Coord> warp =
      c.wgmma ? b.decompose(warpId, {c.warpsM / 4, 4},
                            {b.coordType(I, WarpgroupAccType::kRows), b.coordType(I, 16)})
              : b.decompose(warpId, {c.warpsM, c.warpsN},
                            {b.coordType(I, warpM), b.coordType(J, warpN)});
  Value thread = b.linearId(LinearId::Thread);
  SmallVector<Coord> copyA, copyB;
  for (auto [o, copy] : {std::pair{&a, &copyA}, std::pair{&bOp, &copyB}}) {
    int64_t vectorsPerRow = o->tileVectors(c.blockK);
    *copy = b.decompose(thread, {c.threads() / vectorsPerRow, vectorsPerRow},
                        {b.coordType(o->outerDim()), b.coordType(o->innerDim(), 8)});
  }
  SmallVector<Value> inits;
  if (c.wgmma)
    inits.push_back(b.warpgroupFill(b.f32(0.0), b.warpgroupAccType(c.blockN, I, J)));
  else
    inits.assign(accs, b.fill(b.f32(0.0), fc));
  Value lower = b.index(0), step = b.index(1);
  Value kTiles = b.index(ceilDiv(p.k, c.blockK));

  // mma.sync: per 16-deep step, the warp's A and B fragments by ldmatrix
  // and the mma of its tile, accumulators carried.
  auto mmaSync = [&](Coord wi, Coord wj, ValueRange carried) {
    SmallVector<Fragment> acc;
    for (Value v : carried)
      acc.push_back(cast<Fragment>(v));
    for (int64_t kk = 0; kk < c.blockK / 16; ++kk) {
      Coord kStep = b.constant(kk, b.coordType(K, 16));
      SmallVector<Fragment> rowsA, colsB;
      for (int64_t mi = 0; mi < mTiles; ++mi)
        rowsA.push_back(b.ldmatrix(sharedA, {wi, b.constant(mi, b.coordType(I, 16)), kStep}, fa,
                                   /*transpose=*/!a.kContiguous));
      for (int64_t ni = 0; ni < nTiles; ++ni)
        colsB.push_back(b.ldmatrix(sharedB, {wj, b.constant(ni, b.coordType(J, 8)), kStep}, fb,
                                   /*transpose=*/!bOp.kContiguous));
      for (int64_t mi = 0; mi < mTiles; ++mi)
        for (int64_t ni = 0; ni < nTiles; ++ni) {
          // Serpentine over n so consecutive mmas share an operand.
          int64_t n = mi % 2 ? nTiles - 1 - ni : ni;
          int64_t t = mi * nTiles + n;
          acc[t] = b.mma(rowsA[mi], colsB[n], acc[t]);
        }
    }
    return SmallVector<Value>(acc.begin(), acc.end());
  };
  // wgmma: the warpgroup's 64 rows times the block's columns, one wgmma a
  // 16-deep step. With 3 stages or more a k-step's group stays in flight
  // while the next is issued; spio-pipeline then refills a stage one
  // iteration later.
  int32_t pendingGroups = c.wgmma && c.stages >= 3 ? 1 : 0;
  auto warpgroupMma = [&](Coord wgRow, ValueRange carried) {
    WarpgroupAcc acc = cast<WarpgroupAcc>(carried[0]);
    b.wgmmaFence();
    for (int64_t kk = 0; kk < c.blockK / 16; ++kk) {
      Coord kStep = b.constant(kk, b.coordType(K, 16));
      acc = b.wgmma(sharedA, {wgRow, kStep}, sharedB, {kStep}, acc);
    }
    b.wgmmaCommit();
    b.wgmmaWait(pendingGroups);
    return SmallVector<Value>{acc};
  };

  // The reduction loop, one k-tile per step, accumulators carried. One
  // stage: load, wait, compute; spio-pipeline overlaps them.
  Tensor globalA = cast<Tensor>(op.getA()), globalB = cast<Tensor>(op.getB());
  scf::ForOp loop = b.forLoop(lower, kTiles, step, inits, [&](Value kt, ValueRange carried) {
    Coord kTile = b.fromIndex(kt, b.coordType(K, c.blockK));
    copyTile(a, globalA, sharedA, bi, kTile, copyA[0], copyA[1]);
    copyTile(bOp, globalB, sharedB, bj, kTile, copyB[0], copyB[1]);
    b.asyncCommit();
    b.asyncWait(0);
    // wgmma reads the tiles through the async proxy.
    if (c.wgmma)
      b.fenceProxyAsync();
    b.barrier();
    SmallVector<Value> results =
        c.wgmma ? warpgroupMma(warp[0], carried) : mmaSync(warp[0], warp[1], carried);
    b.barrier();
    return results;
  });
  loop->setAttr("spio.stages", b.getOpBuilder().getI64IntegerAttr(c.stages));

  // Epilogue: D = alpha * acc (+ beta * C), bounded by M and N, a C
  // fragment at a time.
  Bounds bounds{b.constant(p.m, b.coordType(I)), b.constant(p.n, b.coordType(J))};
  VectorType lane = VectorType::get({4}, Float32Type::get(ctx));
  Value alpha = b.broadcast(op.getAlpha(), lane);
  Tensor tileD = b.subscript(cast<Tensor>(op.getD()), {bi, bj, warp[0], warp[1]});
  Value beta;
  Tensor tileC;
  if (p.readsC) {
    beta = b.broadcast(op.getBeta(), lane);
    tileC = b.subscript(cast<Tensor>(op.getC()), {bi, bj, warp[0], warp[1]});
  }
  auto store = [&](Fragment accumulated, ArrayRef<Coord> at) {
    Value result = b.mulf(alpha, b.fragmentToVector(accumulated));
    if (p.readsC) {
      Fragment cf = b.loadFragment(tileC, at, fc, bounds);
      result = b.addf(result, b.mulf(beta, b.fragmentToVector(cf)));
    }
    b.storeFragment(b.vectorToFragment(result, fc), tileD, at, bounds);
  };
  if (c.wgmma) {
    if (pendingGroups > 0)
      b.wgmmaWait(0);
    WarpgroupAcc accumulated = cast<WarpgroupAcc>(loop.getResult(0));
    for (int64_t ni = 0; ni < c.blockN / 8; ++ni) {
      Coord n = b.constant(ni, b.coordType(J, 8));
      store(b.warpgroupFragment(accumulated, ni), {n});
    }
    return;
  }
  for (int64_t mi = 0; mi < mTiles; ++mi)
    for (int64_t ni = 0; ni < nTiles; ++ni) {
      Coord m = b.constant(mi, b.coordType(I, 16)), n = b.constant(ni, b.coordType(J, 8));
      store(cast<Fragment>(loop.getResult(mi * nTiles + ni)), {m, n});
    }
}

} // namespace

LogicalResult mlir::spio::buildGemmTile(KernelBuilder &b, GemmOp op, const GemmProblem &problem,
                                        const GemmConfig &config) {
  GemmTile(b, problem, config).build(op);
  return success(b.succeeded());
}

SpioTensorType mlir::spio::gemmOperandType(MLIRContext *context, const GemmProblem &problem,
                                           char operand) {
  OpBuilder builder(context);
  KernelBuilder b(builder, UnknownLoc::get(context));
  switch (operand) {
  case 'a':
    return globalType(b, problem, operandA(problem, 0));
  case 'b':
    return globalType(b, problem, operandB(problem, 0));
  default:
    return outputType(b, problem);
  }
}

OwningOpRef<ModuleOp> mlir::spio::buildGemmWorkload(MLIRContext *context, const GemmProblem &p,
                                                    const GemmConfig &c) {
  Location loc = NameLoc::get(StringAttr::get(context, "spio_gemm"));
  OpBuilder builder(context);
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  (*module)->setAttr(gpu::GPUDialect::getContainerModuleAttrName(), builder.getUnitAttr());
  builder.setInsertionPointToEnd(module->getBody());
  auto kernels = gpu::GPUModuleOp::create(builder, loc, "spio_gemm");
  builder.setInsertionPointToStart(kernels.getBody());
  SpioTensorType aType = gemmOperandType(context, p, 'a'), bType = gemmOperandType(context, p, 'b');
  SpioTensorType dType = gemmOperandType(context, p, 'd');
  Type f32 = builder.getF32Type();
  auto kernel = gpu::GPUFuncOp::create(
      builder, loc, "gemm", builder.getFunctionType({aType, bType, dType, dType, f32, f32}, {}));
  kernel->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), builder.getUnitAttr());
  builder.setInsertionPointToStart(&kernel.getBody().front());
  ValueRange args = kernel.getArguments();
  GemmOp::create(builder, loc, args[0], args[1], args[3], args[4],
                 p.readsC ? args[5] : Value(), p.readsC ? args[2] : Value(),
                 gemmConfigAttr(context, c));
  gpu::ReturnOp::create(builder, loc);
  return module;
}

std::string mlir::spio::gemmSource(const GemmProblem &problem, const GemmConfig &config) {
  MLIRContext context(MLIRContext::Threading::DISABLED);
  context.loadDialect<SpioDialect, gpu::GPUDialect>();
  OwningOpRef<ModuleOp> module = buildGemmWorkload(&context, problem, config);
  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os);
  return text;
}
