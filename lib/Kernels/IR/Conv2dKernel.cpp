//===- Conv2dKernel.cpp - The dense conv2d family, built as IR ------------===//
//
// The implicit-GEMM convolution (spio/Kernels/Conv2d.h: problems, checks,
// configs, plans): the workload module of a conv2d problem (the kernels
// that expand block-diagonal weights, unfold x and w, zero dgrad's
// positions no tap reads and add wgrad's parts, around the spio.conv2d
// kernels), and the tile spio-tile puts in place of spio.conv2d: the GEMM
// family's tile (GemmTile.h) with A's (wgrad: B's) tiles gathered from x
// by im2col copies.
//
//===----------------------------------------------------------------------===//

#include "spio/Kernels/IR/Conv2dKernel.h"
#include "spio/Kernels/IR/GemmKernel.h"

#include "GemmTile.h"
#include "PrintedWorkload.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::spio;
using namespace mlir::spio::build;
namespace kernels = ::spio::kernels;
using kernels::GemmConfig;
using kernels::GemmProblem;

namespace {

/// The problem's operand types: x [n, h, w, c/8], w [k, r, s, c/8] (16-byte
/// vectors), y [n, p, q, k]; 'b' the bias, 's' the scale ([k]). dgrad's x
/// is dy [n, p, q, k/8] and its y dx [n, h, w, c]; wgrad's w is dy and its
/// y dw [k, r, s, c].
SpioTensorType conv2dOperandType(KernelBuilder &b, const kernels::Conv2dProblem &p, char operand) {
  Type input = typeOf(b.getContext(), p.input);
  bool dgrad = p.pass == kernels::ConvPass::Dgrad;
  int64_t outH = kernels::conv2dOutputHeight(p), outW = kernels::conv2dOutputWidth(p);
  if (p.pass == kernels::ConvPass::Wgrad && operand == 'w')
    return b.tensorType({{"n", 1, p.n}, {"p", 1, outH}, {"q", 1, outW}, {"k", 8, p.k / 8}},
                        b.vector8(input), MemorySpace::Global);
  if (p.pass == kernels::ConvPass::Wgrad && operand == 'y') {
    // In parts: their f32 sums, a dw a part (padded groups: of dw's rows
    // and taps padded).
    SmallVector<Extent> extents{{"k", 1, kernels::conv2dWeightRows(p)},
                                {"r", 1, p.r},
                                {"s", 1, p.s},
                                {"c", 1, kernels::conv2dWeightTapChannels(p)}};
    if (p.parts > 1)
      extents.insert(extents.begin(), {"part", 1, p.parts});
    return b.tensorType(
        extents, p.parts > 1 ? Float32Type::get(b.getContext()) : typeOf(b.getContext(), p.output),
        MemorySpace::Global);
  }
  switch (operand) {
  case 'x':
    if (dgrad)
      return b.tensorType({{"n", 1, p.n}, {"p", 1, outH}, {"q", 1, outW}, {"k", 8, p.k / 8}},
                          b.vector8(input), MemorySpace::Global);
    return b.tensorType({{"n", 1, p.n}, {"h", 1, p.h}, {"w", 1, p.w}, {"c", 8, p.c / 8}},
                        b.vector8(input), MemorySpace::Global);
  case 'w': {
    // dgrad of padded groups reads w transposed, [c, r, s, k'].
    bool transposed = kernels::conv2dTransposesWeights(p);
    return b.tensorType({{transposed ? "c" : "k", 1, kernels::conv2dWeightRows(p)},
                         {"r", 1, p.r},
                         {"s", 1, p.s},
                         {transposed ? "k" : "c", 8, kernels::conv2dWeightTapChannels(p) / 8}},
                        b.vector8(input), MemorySpace::Global);
  }
  case 'b':
    return b.tensorType({{"k", 1, p.k}}, typeOf(b.getContext(), p.biasType), MemorySpace::Global);
  case 's':
    return b.tensorType({{"k", 1, p.k}}, typeOf(b.getContext(), p.scaleType), MemorySpace::Global);
  default:
    if (kernels::conv2dStridedDgrad(p)) {
      // The phase's positions of dx: rows strideH apart, columns strideW.
      kernels::Conv2dGathered phase = kernels::conv2dGathered(p);
      return b.tensorType({{"n", 1, p.n, p.h * p.w * p.c},
                           {"h", 1, phase.outH, p.strideH * p.w * p.c},
                           {"w", 1, phase.outW, p.strideW * p.c},
                           {"c", 1, p.c, 1}},
                          typeOf(b.getContext(), p.output), MemorySpace::Global);
    }
    if (dgrad)
      return b.tensorType({{"n", 1, p.n}, {"h", 1, p.h}, {"w", 1, p.w}, {"c", 1, p.c}},
                          typeOf(b.getContext(), p.output), MemorySpace::Global);
    return b.tensorType({{"n", 1, p.n}, {"p", 1, outH}, {"q", 1, outW}, {"k", 1, p.k}},
                        typeOf(b.getContext(), p.output), MemorySpace::Global);
  }
}

/// The implicit GEMM's tensor maps: x's (dgrad: dy's) im2col map (boxes of
/// the tile's output positions by one tap's channels; a wgrad's x that is a
/// matrix, its tensor map) and w's, w read as a K x (R * S * C) matrix
/// (dgrad reduces along its rows; wgrad's is dy's).
std::pair<Type, TensorMapType> conv2dMapTypes(KernelBuilder &b, const kernels::Conv2dProblem &p,
                                              const kernels::GemmConfig &c, SpioTensorType x) {
  GemmProblem g = kernels::conv2dGemmProblem(p);
  if (p.pass == kernels::ConvPass::Wgrad) {
    // x's im2col boxes are B's (a k-tile's positions by one tap's 64
    // channels), or x read as the matrix of positions x C that it is
    // (conv2dWgradReadsXAsMatrix); dy, read as positions x K, is A.
    auto matrix = [&](StringRef columns, int64_t channels) {
      return b.tensorType(
          {{g.reductionDim, 1, kernels::conv2dOutputPositions(p)}, {columns, 8, channels / 8}},
          b.vector8(typeOf(b.getContext(), p.input)), MemorySpace::Global);
    };
    SpioTensorType boxB = gemmTileBoxType(b, g, c, 'b', c.blockN);
    Type xMap = kernels::conv2dWgradReadsXAsMatrix(p)
                    ? Type(b.tensorMapType(matrix(g.colDim, p.c), boxB))
                    : Type(b.im2colMapType(x, boxB));
    return {xMap, b.tensorMapType(matrix(g.rowDim, p.k), gemmTileBoxType(b, g, c, 'a', c.blockM))};
  }
  SpioTensorType boxA = gemmTileSharedType(b, g, c, 'a', c.blockM);
  SpioTensorType boxB = gemmTileBoxType(b, g, c, 'b', c.blockN / c.cluster);
  // dgrad reads w N-major (along its K rows), unless transposed.
  bool nMajor = p.pass == kernels::ConvPass::Dgrad && !kernels::conv2dTransposesWeights(p);
  StringRef rows = nMajor ? g.reductionDim : g.colDim, cols = nMajor ? g.colDim : g.reductionDim;
  SpioTensorType weights =
      b.tensorType({{rows, 1, kernels::conv2dWeightRows(p)},
                    {cols, 8, p.r * p.s * kernels::conv2dWeightTapChannels(p) / 8}},
                   b.vector8(typeOf(b.getContext(), p.input)), MemorySpace::Global);
  return {b.im2colMapType(x, boxA), b.tensorMapType(weights, boxB)};
}

} // namespace

kernels::Conv2dProblem mlir::spio::conv2dProblem(Conv2dOp op) {
  kernels::Conv2dProblem p;
  p.pass = kernels::ConvPass(int(op.getPass()));
  // The forward's input: x, or dgrad's dx (its y); its weights: w, or
  // wgrad's dw (its y).
  bool dgrad = p.pass == kernels::ConvPass::Dgrad, wgrad = p.pass == kernels::ConvPass::Wgrad;
  ArrayRef<TensorDim> x = (dgrad ? op.getY() : op.getX()).getType().getDims();
  ArrayRef<TensorDim> w = (wgrad ? op.getY() : op.getW()).getType().getDims();
  // wgrad in parts writes [part, k, r, s, c].
  if (wgrad && w.size() == 5) {
    p.parts = w[0].size;
    w = w.drop_front();
  }
  p.n = x[0].size;
  p.h = x[1].size;
  p.w = x[2].size;
  p.c = x[3].size * x[3].fold;
  p.k = w[0].size;
  // dgrad's w transposed ([c, r, s, k']) and wgrad's padded dw: K is dy's.
  if ((dgrad && w[0].dim == x[3].dim) || wgrad) {
    ArrayRef<TensorDim> dy = (wgrad ? op.getW() : op.getX()).getType().getDims();
    p.k = dy[3].size * dy[3].fold;
  }
  p.r = w[1].size;
  p.s = w[2].size;
  p.strideH = op.getStride()[0];
  p.strideW = op.getStride()[1];
  p.padH = op.getPadding()[0];
  p.padW = op.getPadding()[1];
  p.dilationH = op.getDilation()[0];
  p.dilationW = op.getDilation()[1];
  p.groups = int64_t(op.getGroups());
  if (std::optional<ArrayRef<int64_t>> phase = op.getPhase(); phase && dgrad) {
    // %y is the phase's view of dx, whose strides say dx's rows and columns.
    p.phaseH = (*phase)[0];
    p.phaseW = (*phase)[1];
    if (kernels::conv2dStridedDgrad(p)) {
      p.w = x[1].stride / (p.strideH * p.c);
      p.h = x[0].stride / (p.w * p.c);
    }
  }
  p.input = dtypeOf(cast<VectorType>(op.getX().getType().getElementType()).getElementType());
  p.output = dtypeOf(op.getY().getType().getElementType());
  for (EpilogueStep step : op.getEpilogueSteps())
    p.epilogue.push_back(kernels::EpilogueStep(int(step)));
  if (Value bias = op.getBias())
    p.biasType = dtypeOf(cast<SpioTensorType>(bias.getType()).getElementType());
  if (Value scale = op.getScale())
    p.scaleType = dtypeOf(cast<SpioTensorType>(scale.getType()).getElementType());
  return p;
}

LogicalResult mlir::spio::buildConv2dTile(KernelBuilder &b, Conv2dOp op,
                                          const kernels::Conv2dProblem &problem,
                                          const GemmConfig &config) {
  if (config.wgmma) {
    auto [xMap, wMap] = conv2dMapTypes(b, problem, config, op.getX().getType());
    if (op.getXMap().getType() != xMap || op.getWMap().getType() != wMap)
      return op.emitOpError() << "the tensor maps must be " << xMap << " and " << wMap
                              << " for this problem and config";
  }
  GemmProblem g = kernels::conv2dGemmProblem(problem);
  // y, C, the bias and the scale as the GEMM's D-shaped matrices and
  // vectors, under the GEMM's dimension names.
  auto asMatrix = [&](Value tensor) -> Value {
    if (!tensor)
      return Value();
    auto type = cast<SpioTensorType>(tensor.getType());
    SmallVector<Extent> extents{{g.rowDim, 1, g.m}, {g.colDim, 1, g.n}};
    if (kernels::conv2dStridedDgrad(problem)) {
      // A phase's rows (n, i, j) are dx's positions (n, a + sH * i, b + sW
      // * j): the row dimension's entries keep dx's strides.
      ArrayRef<TensorDim> dx = type.getDims();
      int64_t rows = dx[1].size, cols = dx[2].size;
      extents = {{g.rowDim, rows * cols, dx[0].size, dx[0].stride},
                 {g.rowDim, cols, rows, dx[1].stride},
                 {g.rowDim, 1, cols, dx[2].stride},
                 {g.colDim, 1, g.n, 1}};
    }
    if (g.batch > 1)
      extents.insert(extents.begin(), {g.batchDim, 1, g.batch});
    return b.view(cast<Tensor>(tensor),
                  b.tensorType(extents, type.getElementType(), MemorySpace::Global));
  };
  auto asVector = [&](Value tensor) -> Value {
    if (!tensor)
      return Value();
    auto type = cast<SpioTensorType>(tensor.getType());
    return b.view(cast<Tensor>(tensor),
                  b.tensorType({{g.colDim, 1, g.n}}, type.getElementType(), MemorySpace::Global));
  };
  Value one = b.f32(1.0);
  // wgrad's A is dy (read through its tensor map) and its B x's im2col
  // matrix.
  bool wgrad = problem.pass == kernels::ConvPass::Wgrad;
  GemmValues values{op,
                    wgrad ? op.getW() : op.getX(),
                    wgrad ? op.getX() : op.getW(),
                    asMatrix(op.getResidual()),
                    asMatrix(op.getY()),
                    one,
                    op.getResidual() ? one : Value(),
                    asVector(op.getBias()),
                    asVector(op.getScale()),
                    Value(),
                    Value(),
                    Value(),
                    Value(),
                    Value(),
                    wgrad ? Value(op.getWMap()) : Value(op.getXMap()),
                    wgrad ? Value(op.getXMap()) : Value(op.getWMap()),
                    &problem};
  buildGemmTileOf(b, g, config, values);
  return success(b.succeeded());
}

/// Element `index` of the flat tensor `flat` ([e: ...]) where `inside`,
/// else `zero`: an index outside reads the tensor's first element, then
/// drops it (so that the load needs no branch).
static Value loadOrZero(KernelBuilder &b, Tensor flat, Value index, Value inside, Value zero) {
  Value read = b.load(flat, {b.fromIndex(b.create<arith::SelectOp>({}, inside, index, b.index(0)),
                                         b.coordType("e"))});
  return b.create<arith::SelectOp>({}, inside, read, zero);
}

/// A kernel `name` over arguments of `types` in blocks of
/// kConv2dReduceThreads threads: `body` takes the kernel's arguments.
static void buildBlockKernel(KernelBuilder &b, StringRef name, TypeRange types,
                             function_ref<void(ValueRange)> body) {
  OpBuilder &builder = b.getOpBuilder();
  auto kernel = gpu::GPUFuncOp::create(builder, b.loc(), name, builder.getFunctionType(types, {}));
  kernel->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), builder.getUnitAttr());
  kernel.setKnownBlockSizeAttr(
      DenseI32ArrayAttr::get(b.getContext(), {int32_t(kernels::kConv2dReduceThreads), 1, 1}));
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToStart(&kernel.getBody().front());
  body(kernel.getArguments());
  gpu::ReturnOp::create(builder, b.loc());
}

/// A kernel `name` over arguments of `types` in blocks of
/// kConv2dReduceThreads threads, a thread an index below `count`: `body`
/// takes the kernel's arguments and the thread's index.
static void buildThreadPerElementKernel(KernelBuilder &b, StringRef name, TypeRange types,
                                        int64_t count, function_ref<void(ValueRange, Value)> body) {
  buildBlockKernel(b, name, types, [&](ValueRange args) {
    Value index =
        b.addi(b.muli(b.linearId(LinearId::BlockX), b.index(kernels::kConv2dReduceThreads)),
               b.linearId(LinearId::Thread));
    b.ifThen(b.cmpi(arith::CmpIPredicate::ult, index, b.index(count)), [&] { body(args, index); });
  });
}

/// wgrad in parts: dw[e] = the parts' sums of element e added in part
/// order from zero in f32 and rounded once (the same bits every run), a
/// thread an element. The sums (`partials`) are the kernel problem's:
/// unfolded, dw' [K, R', 1, C'], whose lane (f * S + s) * C + c of row (k,
/// r') is dw[k, r' * F + f, s, c]; block-diagonal or padded, dw' [G' * K',
/// R, S, C'] of the kernel problem's G' groups (blocks of B = C / G'
/// channels, K' = B, or K / G' outputs, padded to 64 where not a multiple
/// of it; C' its taps' columns), whose block g's rows start at g * K' and
/// whose row for dw's k holds k's group's C / G columns from j * C / G, j
/// k's group within its block (0 where not blocks).
static void buildConv2dWgradReduce(KernelBuilder &b, const kernels::Conv2dProblem &p,
                                   SpioTensorType partials) {
  int64_t width = kernels::conv2dGroupInputs(p);
  int64_t elements = p.k * p.r * p.s * width;
  SpioTensorType dw = b.tensorType({{"k", 1, p.k}, {"r", 1, p.r}, {"s", 1, p.s}, {"c", 1, width}},
                                   typeOf(b.getContext(), p.output), MemorySpace::Global);
  bool unfolded = kernels::conv2dUnfolds(p);
  bool blocked = kernels::conv2dBlockDiagonal(p);
  kernels::Conv2dProblem kernel = kernels::conv2dKernelProblem(p);
  int64_t sources = kernels::conv2dWeightRows(kernel) * kernel.r * kernel.s *
                    kernels::conv2dWeightTapChannels(kernel);
  Type f32 = Float32Type::get(b.getContext());
  buildThreadPerElementKernel(
      b, "conv2d_wgrad_reduce", {partials, dw}, elements, [&](ValueRange args, Value element) {
        Tensor sums = b.view(cast<Tensor>(args[0]),
                             b.tensorType({{"part", 1, p.parts}, {"e", 1, sources}},
                                          partials.getElementType(), MemorySpace::Global));
        Tensor out =
            b.view(cast<Tensor>(args[1]),
                   b.tensorType({{"e", 1, elements}}, dw.getElementType(), MemorySpace::Global));
        Coord at = b.fromIndex(element, b.coordType("e"));
        Value source = element;
        if (unfolded) {
          int64_t folded = kernels::conv2dUnfoldedRows(p), filterRow = p.s * p.c;
          Value k = b.divui(element, b.index(p.r * filterRow));
          Value r = b.remui(b.divui(element, b.index(filterRow)), b.index(p.r));
          Value lane = b.addi(b.muli(b.remui(r, b.index(folded)), b.index(filterRow)),
                              b.remui(element, b.index(filterRow)));
          Value row = b.addi(b.muli(k, b.index(kernel.r)), b.divui(r, b.index(folded)));
          source = b.addi(b.muli(row, b.index(kernel.c)), lane);
        }
        if (blocked || kernels::conv2dPadsGroups(kernel)) {
          // dw[k, tap, u] is dw'[g * K' + k % B, tap, j * C / G + u], g = k /
          // B (B the kernel problem's outputs a group), j = k % B / (K / G).
          int64_t outputs = kernels::conv2dGroupOutputs(p), taps = p.r * p.s;
          int64_t block = kernels::conv2dGroupOutputs(kernel);
          int64_t rows = kernels::conv2dWeightRows(kernel) / kernel.groups;
          Value row = b.divui(element, b.index(width)), u = b.remui(element, b.index(width));
          Value k = b.divui(row, b.index(taps)), tap = b.remui(row, b.index(taps));
          Value inBlock = b.remui(k, b.index(block));
          Value paddedRow =
              rows == block ? k
                            : b.addi(b.muli(b.divui(k, b.index(block)), b.index(rows)), inBlock);
          Value column = u;
          if (blocked)
            column = b.addi(b.muli(b.divui(inBlock, b.index(outputs)), b.index(width)), u);
          source = b.addi(b.muli(b.addi(b.muli(paddedRow, b.index(taps)), tap),
                                 b.index(kernels::conv2dWeightTapChannels(kernel))),
                          column);
        }
        Coord from = b.fromIndex(source, b.coordType("e"));
        scf::ForOp loop = b.forLoop(b.index(0), b.index(p.parts), b.index(1), {b.f32(0.0)},
                                    [&](Value part, ValueRange sum) {
                                      Coord partAt = b.fromIndex(part, b.coordType("part"));
                                      Value term = b.load(sums, {partAt, from});
                                      if (term.getType() != f32)
                                        term = b.create<arith::ExtFOp>({}, f32, term);
                                      return SmallVector<Value>{b.addf(sum[0], term)};
                                    });
        Value sum = loop.getResult(0);
        if (dw.getElementType() != f32)
          sum = b.create<arith::TruncFOp>({}, dw.getElementType(), sum);
        b.store(sum, out, {at});
      });
}

/// A strided dgrad's kernels write disjoint positions of dx from what the
/// grids before them wrote: each lets the next start once all its blocks
/// have (`spio.launch_dependents` first) and ends only after the one
/// before it (`spio.wait_prerequisites` last), so that the kernels overlap
/// and the last one's end is the whole dgrad's.
static void overlapWithNeighbours(OpBuilder &builder, Location loc, Operation *work) {
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPoint(work);
  LaunchDependentsOp::create(builder, loc);
  builder.setInsertionPointAfter(work);
  WaitPrerequisitesOp::create(builder, loc);
}

/// The implicit-GEMM kernel `name` computing `p` (a strided dgrad's phase).
static gpu::GPUFuncOp buildConv2dKernel(KernelBuilder &b, const kernels::Conv2dProblem &p,
                                        const GemmConfig &c, StringRef name) {
  OpBuilder &builder = b.getOpBuilder();
  MLIRContext *context = b.getContext();
  Location loc = b.loc();
  OpBuilder::InsertionGuard guard(builder);
  kernels::Conv2dParameters at = kernels::conv2dParameters(p, c);
  SpioTensorType x = conv2dOperandType(b, p, 'x'), y = conv2dOperandType(b, p, 'y');
  SmallVector<Type> params{x, conv2dOperandType(b, p, 'w'), y};
  if (at.c >= 0)
    params.push_back(y);
  if (at.bias >= 0)
    params.push_back(conv2dOperandType(b, p, 'b'));
  if (at.scale >= 0)
    params.push_back(conv2dOperandType(b, p, 's'));
  if (c.wgmma) {
    auto [xMap, wMap] = conv2dMapTypes(b, p, c, x);
    params.append({xMap, wMap});
  }
  auto kernel = gpu::GPUFuncOp::create(builder, loc, name, builder.getFunctionType(params, {}));
  kernel->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), builder.getUnitAttr());
  builder.setInsertionPointToStart(&kernel.getBody().front());
  ValueRange args = kernel.getArguments();
  auto arg = [&](int position) { return position >= 0 ? args[position] : Value(); };
  EpilogueAttr epilogue = epilogueAttr(context, p.epilogue);
  bool strided = kernels::conv2dStridedDgrad(p);
  auto conv = Conv2dOp::create(
      builder, loc, args[at.x], args[at.w], args[at.y], arg(at.c), arg(at.bias), arg(at.scale),
      arg(at.xMap), arg(at.wMap), builder.getDenseI64ArrayAttr({p.strideH, p.strideW}),
      builder.getDenseI64ArrayAttr({p.padH, p.padW}),
      builder.getDenseI64ArrayAttr({p.dilationH, p.dilationW}), gemmConfigAttr(context, c),
      epilogue, ConvPass(int(p.pass)),
      strided ? builder.getDenseI64ArrayAttr({p.phaseH, p.phaseW}) : DenseI64ArrayAttr(),
      uint64_t(p.groups));
  gpu::ReturnOp::create(builder, loc);
  // Dependent grids are sm_90's, as wgmma is.
  if (strided && c.wgmma)
    overlapWithNeighbours(builder, loc, conv);
  return kernel;
}

/// Strided dgrad: zeroes dx's positions that no tap reads (rows or
/// columns of phases without taps), a thread a 16-byte vector.
static void buildConv2dDgradZero(KernelBuilder &b, const kernels::Conv2dProblem &p) {
  OpBuilder &builder = b.getOpBuilder();
  MLIRContext *ctx = b.getContext();
  Type element = typeOf(ctx, p.output);
  int64_t lanes = 16 / kernels::dtypeBytes(p.output), perPixel = p.c / lanes;
  int64_t vectors = p.n * p.h * p.w * perPixel;
  auto kernel = gpu::GPUFuncOp::create(
      builder, b.loc(), kernels::kConv2dDgradZero,
      builder.getFunctionType(
          {b.tensorType({{"n", 1, p.n}, {"h", 1, p.h}, {"w", 1, p.w}, {"c", 1, p.c}}, element,
                        MemorySpace::Global)},
          {}));
  kernel->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), builder.getUnitAttr());
  kernel.setKnownBlockSizeAttr(
      DenseI32ArrayAttr::get(ctx, {int32_t(kernels::kConv2dReduceThreads), 1, 1}));
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToStart(&kernel.getBody().front());
  LaunchDependentsOp::create(builder, b.loc());
  VectorType vector = VectorType::get({lanes}, element);
  Tensor out = b.view(cast<Tensor>(kernel.getArgument(0)),
                      b.tensorType({{"e", 1, vectors}}, vector, MemorySpace::Global));
  // Bit a of a mask: whether phase a along that side has no taps.
  auto tapless = [&](int64_t in, int64_t taps, int64_t stride, int64_t pad, int64_t dilation) {
    int64_t mask = 0;
    for (int64_t phase = 0; phase < stride; ++phase)
      if (kernels::conv2dPhaseSide(in, taps, stride, pad, dilation, phase).taps == 0)
        mask |= int64_t(1) << phase;
    return mask;
  };
  int64_t rowMask = tapless(p.h, p.r, p.strideH, p.padH, p.dilationH);
  int64_t colMask = tapless(p.w, p.s, p.strideW, p.padW, p.dilationW);
  Value element0 =
      b.addi(b.muli(b.linearId(LinearId::BlockX), b.index(kernels::kConv2dReduceThreads)),
             b.linearId(LinearId::Thread));
  Value pixel = b.divui(element0, b.index(perPixel));
  Value row = b.remui(b.divui(pixel, b.index(p.w)), b.index(p.h));
  Value col = b.remui(pixel, b.index(p.w));
  auto bit = [&](int64_t mask, Value position, int64_t stride) {
    Value phase = b.remui(position, b.index(stride));
    Value shifted = b.create<arith::ShRUIOp>({}, b.index(mask), phase);
    return b.cmpi(arith::CmpIPredicate::ne, b.andi(shifted, b.index(1)), b.index(0));
  };
  Value zeroed =
      b.create<arith::OrIOp>({}, bit(rowMask, row, p.strideH), bit(colMask, col, p.strideW));
  Value inside = b.cmpi(arith::CmpIPredicate::ult, element0, b.index(vectors));
  b.ifThen(b.andi(inside, zeroed), [&] {
    Value zero = b.create<arith::ConstantOp>({}, cast<TypedAttr>(builder.getZeroAttr(vector)));
    b.store(zero, out, {b.fromIndex(element0, b.coordType("e"))});
  });
  // It overlaps the phases' kernels after it (overlapWithNeighbours).
  WaitPrerequisitesOp::create(builder, b.loc());
  gpu::ReturnOp::create(builder, b.loc());
}

/// dgrad of padded groups (of the kernel problem: blocks of groups, where
/// block-diagonal): w [K, R, S, C / G] transposed into [C, R, S, K'], row
/// (c, tap) holding the weights of c's group's (block's) K / G' outputs at
/// that tap, then zeros to K' (a multiple of 64), a thread a 16-byte
/// vector of 8 outputs (read one by one: they are R * S * C / G apart); in
/// a block, the outputs of c's own group only.
static void buildConv2dTransposeWeights(KernelBuilder &b, const kernels::Conv2dProblem &p) {
  Type element = typeOf(b.getContext(), p.input);
  VectorType vector = b.vector8(element);
  kernels::Conv2dProblem kernel = kernels::conv2dKernelProblem(p);
  bool blocked = kernels::conv2dBlockDiagonal(p);
  int64_t inputs = kernels::conv2dGroupInputs(p), groupOutputs = kernels::conv2dGroupOutputs(p);
  int64_t blockInputs = kernels::conv2dGroupInputs(kernel);
  int64_t outputs = kernels::conv2dGroupOutputs(kernel);
  int64_t taps = p.r * p.s, padded = kernels::conv2dWeightTapChannels(kernel);
  int64_t vectors = p.c * taps * padded / 8;
  SpioTensorType natural =
      b.tensorType({{"e", 1, p.k * taps * inputs}}, element, MemorySpace::Global);
  SpioTensorType transposed = b.tensorType({{"e", 1, vectors}}, vector, MemorySpace::Global);
  buildThreadPerElementKernel(
      b, kernels::kConv2dExpandWeights, {natural, transposed}, vectors,
      [&](ValueRange args, Value index) {
        // Vector (row = c * R * S + tap, outputs j to j + 7 of c's group).
        Value row = b.divui(index, b.index(padded / 8));
        Value j = b.muli(b.remui(index, b.index(padded / 8)), b.index(8));
        Value c = b.divui(row, b.index(taps)), tap = b.remui(row, b.index(taps));
        Value group = b.divui(c, b.index(blockInputs));
        // w[group * K / G' + j, tap, c % (C / G)] and the next outputs, each
        // R * S * C / G on.
        Value first = b.addi(
            b.muli(b.addi(b.muli(b.addi(b.muli(group, b.index(outputs)), j), b.index(taps)), tap),
                   b.index(inputs)),
            b.remui(c, b.index(inputs)));
        // In a block: c's group's outputs within it.
        Value own = blocked ? b.divui(b.remui(c, b.index(blockInputs)), b.index(inputs)) : Value();
        Value zero = b.create<arith::ConstantOp>({}, b.getOpBuilder().getZeroAttr(element));
        SmallVector<Value> lanes;
        for (int64_t lane = 0; lane < 8; ++lane) {
          Value output = b.addi(j, b.index(lane));
          Value inGroup = b.cmpi(arith::CmpIPredicate::ult, output, b.index(outputs));
          if (blocked)
            inGroup = b.andi(inGroup, b.cmpi(arith::CmpIPredicate::eq,
                                             b.divui(output, b.index(groupOutputs)), own));
          Value source = b.addi(first, b.index(lane * taps * inputs));
          lanes.push_back(loadOrZero(b, cast<Tensor>(args[0]), source, inGroup, zero));
        }
        b.store(b.create<vector::FromElementsOp>({}, vector, lanes), cast<Tensor>(args[1]),
                {b.fromIndex(index, b.coordType("e"))});
      });
}

/// fprop of block-diagonal or padded groups and dgrad of block-diagonal
/// ones whose blocks are 64 channels: w [K, R, S, width] expanded into the
/// kernel problem's [K, R, S, channels], a thread a 16-byte vector of 8
/// channels (all of one group: the widths are multiples of 8).
/// Block-diagonal: each output channel's weights at its group's place
/// among its block's input channels; padded: each tap's width channels
/// first; zeros elsewhere (and past a block, to channels).
static void buildConv2dExpandWeights(KernelBuilder &b, const kernels::Conv2dProblem &p) {
  VectorType vector = b.vector8(typeOf(b.getContext(), p.input));
  bool blocked = kernels::conv2dBlockDiagonal(p);
  kernels::Conv2dProblem kernel = kernels::conv2dKernelProblem(p);
  int64_t width = kernels::conv2dGroupInputs(p), rows = p.k * p.r * p.s;
  int64_t block = kernels::conv2dGroupInputs(kernel);
  int64_t channels = kernels::conv2dWeightTapChannels(kernel);
  int64_t vectors = rows * channels / 8;
  SpioTensorType natural = b.tensorType({{"e", 1, rows * width / 8}}, vector, MemorySpace::Global);
  SpioTensorType expanded = b.tensorType({{"e", 1, vectors}}, vector, MemorySpace::Global);
  buildThreadPerElementKernel(
      b, kernels::kConv2dExpandWeights, {natural, expanded}, vectors,
      [&](ValueRange args, Value index) {
        // Vector (row = k * R * S + tap, channels i to i + 7): block-diagonal,
        // k's group j within its block holds inputs j * width to (j + 1) *
        // width (j below the block's groups: none past the block); padded,
        // the row holds inputs 0 to width.
        Value row = b.divui(index, b.index(channels / 8));
        Value i = b.muli(b.remui(index, b.index(channels / 8)), b.index(8));
        Value inGroup;
        if (blocked) {
          Value k = b.divui(row, b.index(p.r * p.s));
          Value group = b.divui(b.remui(k, b.index(block)), b.index(width));
          inGroup = b.cmpi(arith::CmpIPredicate::eq, b.divui(i, b.index(width)), group);
        } else {
          inGroup = b.cmpi(arith::CmpIPredicate::ult, i, b.index(width));
        }
        Value first = b.muli(row, b.index(width / 8));
        Value source = b.addi(first, b.divui(b.remui(i, b.index(width)), b.index(8)));
        // Vectors off the group read the row's first, then drop it.
        Value read = b.create<arith::SelectOp>({}, inGroup, source, first);
        Value weights = b.load(cast<Tensor>(args[0]), {b.fromIndex(read, b.coordType("e"))});
        Value zero =
            b.create<arith::ConstantOp>({}, cast<TypedAttr>(b.getOpBuilder().getZeroAttr(vector)));
        b.store(b.create<arith::SelectOp>({}, inGroup, weights, zero), cast<Tensor>(args[1]),
                {b.fromIndex(index, b.coordType("e"))});
      });
}

/// x [N, H, W, C] unfolded into x' [N, H', Q, C'] (conv2dUnfolds): lane
/// j = (f * S + s) * C + c of pixel (h', q) holds x's channel c at row
/// h' - padH + f * dilationH and column q * strideW - padW + s *
/// dilationW, zeros past F * S * C lanes and off x's sides (F =
/// conv2dUnfoldedRows). A block a run of pixels of one row of x': it stages
/// the x values the run reads in shared memory (each filter row's columns
/// are consecutive values of x, read by consecutive threads), then writes
/// the run a thread a 16-byte vector, each thread the same vector of every
/// pixel it writes, its lanes' places among the staged values read once
/// from a table of C' the block computes. (A thread a vector gathering its
/// lanes from x ran at a quarter of the write bandwidth on an H200.)
static void buildConv2dUnfoldX(KernelBuilder &b, const kernels::Conv2dProblem &p) {
  kernels::Conv2dProblem unfolded = kernels::conv2dKernelProblem(p);
  Type element = typeOf(b.getContext(), p.input);
  VectorType vector = b.vector8(element);
  int64_t folded = kernels::conv2dUnfoldedRows(p), lanes = folded * p.s * p.c;
  int64_t perPixel = unfolded.c / 8, row = unfolded.w;
  int64_t runPixels = kernels::conv2dUnfoldXPixels(p), runs = llvm::divideCeil(row, runPixels);
  int64_t staged = kernels::conv2dUnfoldXStagedValues(p, runPixels), rowValues = staged / folded;
  int64_t threads = kernels::kConv2dReduceThreads, pixelsAtOnce = threads / perPixel;
  SpioTensorType natural =
      b.tensorType({{"e", 1, p.n * p.h * p.w * p.c}}, element, MemorySpace::Global);
  SpioTensorType packed = b.tensorType({{"e", 1, unfolded.n * unfolded.h * row * perPixel}}, vector,
                                       MemorySpace::Global);
  buildBlockKernel(b, kernels::kConv2dUnfoldX, {natural, packed}, [&](ValueRange args) {
    auto x = cast<Tensor>(args[0]), out = cast<Tensor>(args[1]);
    auto less = [&](Value v, int64_t bound) {
      return b.cmpi(arith::CmpIPredicate::ult, v, b.index(bound));
    };
    auto at = [&](Value index) { return b.fromIndex(index, b.coordType("e")); };
    Value block = b.linearId(LinearId::BlockX), thread = b.linearId(LinearId::Thread);
    // Block (image, h', run).
    Value xRow = b.divui(block, b.index(runs));
    Value image = b.divui(xRow, b.index(unfolded.h)), top = b.remui(xRow, b.index(unfolded.h));
    Value first = b.muli(b.remui(block, b.index(runs)), b.index(runPixels));
    Value pixels = b.create<arith::MinUIOp>({}, b.index(runPixels), b.subi(b.index(row), first));
    Value zero = b.create<arith::ConstantOp>({}, b.getOpBuilder().getZeroAttr(element));
    Tensor shared = b.alloc(b.tensorType({{"e", 1, staged}}, element, MemorySpace::Shared));
    // The staging's and the places' arithmetic is on i32 (on index, 64-bit
    // divisions and multiplies made the kernel bound by issuing them): a
    // row of x and the staged values are well below 2^31 (checkConv2d).
    Type i32 = b.getOpBuilder().getI32Type();
    auto int32 = [&](int64_t value) { return b.create<arith::ConstantIntOp>({}, i32, value); };
    auto narrow = [&](Value index) { return b.create<arith::IndexCastUIOp>({}, i32, index); };
    auto widen = [&](Value value) {
      return b.create<arith::IndexCastUIOp>({}, b.getOpBuilder().getIndexType(), value);
    };
    auto below = [&](Value v, int64_t bound) {
      return b.cmpi(arith::CmpIPredicate::ult, v, int32(bound));
    };
    auto from = [&](Value v, int64_t bound) {
      return b.cmpi(arith::CmpIPredicate::uge, v, int32(bound));
    };
    // Value e of filter row f: x's row top - padH + f * dilationH, value
    // first * strideW * C - padW * C + e of it (both kept padH and padW * C
    // higher, so that they are unsigned); zeros off x.
    Value top32 = narrow(top), firstColumn = b.muli(narrow(first), int32(p.strideW * p.c));
    Value imageRows = b.muli(image, b.index(p.h));
    b.forLoop(thread, b.index(staged), b.index(threads), {}, [&](Value e, ValueRange) {
      Value e32 = narrow(e);
      Value f = b.divui(e32, int32(rowValues));
      Value h = b.addi(top32, b.muli(f, int32(p.dilationH)));
      Value column = b.addi(firstColumn, b.subi(e32, b.muli(f, int32(rowValues))));
      Value inside =
          b.andi(b.andi(from(h, p.padH), below(h, p.h + p.padH)),
                 b.andi(from(column, p.padW * p.c), below(column, (p.w + p.padW) * p.c)));
      Value source =
          b.addi(b.muli(b.addi(imageRows, widen(b.subi(h, int32(p.padH)))), b.index(p.w * p.c)),
                 widen(b.subi(column, int32(p.padW * p.c))));
      b.store(loadOrZero(b, x, source, inside, zero), shared, {at(e)});
      return SmallVector<Value>{};
    });
    // Lane j = (f * S + s) * C + c of every pixel is staged value f *
    // rowValues + s * dilationW * C + c past the pixel's first column, -1
    // past F * S * C lanes: a table of C' places, one a thread.
    Tensor placeTable = b.alloc(b.tensorType({{"e", 1, unfolded.c}}, i32, MemorySpace::Shared));
    b.ifThen(less(thread, unfolded.c), [&] {
      Value j = narrow(thread);
      Value f = b.divui(j, int32(p.s * p.c)), tap = b.divui(j, int32(p.c));
      Value place =
          b.addi(b.addi(b.muli(f, int32(rowValues)),
                        b.muli(b.subi(tap, b.muli(f, int32(p.s))), int32(p.dilationW * p.c))),
                 b.subi(j, b.muli(tap, int32(p.c))));
      b.store(b.create<arith::SelectOp>({}, below(j, lanes), place, int32(-1)), placeTable,
              {at(thread)});
    });
    b.barrier();
    b.ifThen(less(thread, pixelsAtOnce * perPixel), [&] {
      // The thread's vector v of each pixel: lanes 8 v to 8 v + 7.
      Value v = b.remui(thread, b.index(perPixel));
      SmallVector<Value> places, inLanes;
      for (int64_t i = 0; i < 8; ++i) {
        Value place = b.load(placeTable, {at(b.addi(b.muli(v, b.index(8)), b.index(i)))});
        inLanes.push_back(b.cmpi(arith::CmpIPredicate::sge, place, int32(0)));
        places.push_back(widen(b.create<arith::SelectOp>({}, inLanes.back(), place, int32(0))));
      }
      Value firstVector =
          b.addi(b.muli(b.addi(b.muli(xRow, b.index(row)), first), b.index(perPixel)), v);
      b.forLoop(b.divui(thread, b.index(perPixel)), pixels, b.index(pixelsAtOnce), {},
                [&](Value pixel, ValueRange) {
                  Value column = b.muli(pixel, b.index(p.strideW * p.c));
                  SmallVector<Value> values;
                  for (int64_t i = 0; i < 8; ++i) {
                    Value read = b.load(shared, {at(b.addi(column, places[i]))});
                    values.push_back(b.create<arith::SelectOp>({}, inLanes[i], read, zero));
                  }
                  b.store(b.create<vector::FromElementsOp>({}, vector, values), out,
                          {at(b.addi(firstVector, b.muli(pixel, b.index(perPixel))))});
                  return SmallVector<Value>{};
                });
    });
  });
}

/// w [K, R, S, C] unfolded into w' [K, R', 1, C'] (conv2dUnfolds): lane
/// j = (f * S + s) * C + c of row (k, r') holds w[k, r' * F + f, s, c],
/// zeros past F * S * C lanes and R rows. A thread a 16-byte vector: its
/// first lane's (f, s, c) by division, the next lanes' by counting on (C
/// is not a multiple of 8, so they are read as single values).
static void buildConv2dUnfoldW(KernelBuilder &b, const kernels::Conv2dProblem &p) {
  kernels::Conv2dProblem unfolded = kernels::conv2dKernelProblem(p);
  Type element = typeOf(b.getContext(), p.input);
  VectorType vector = b.vector8(element);
  int64_t folded = kernels::conv2dUnfoldedRows(p);
  int64_t rows = unfolded.k * unfolded.r;
  int64_t perRow = unfolded.c / 8, vectors = rows * perRow, lanes = folded * p.s * p.c;
  SpioTensorType natural =
      b.tensorType({{"e", 1, p.k * p.r * p.s * p.c}}, element, MemorySpace::Global);
  SpioTensorType packed = b.tensorType({{"e", 1, vectors}}, vector, MemorySpace::Global);
  buildThreadPerElementKernel(
      b, kernels::kConv2dUnfoldW, {natural, packed}, vectors, [&](ValueRange args, Value index) {
        Value row = b.divui(index, b.index(perRow));
        Value j = b.muli(b.remui(index, b.index(perRow)), b.index(8));
        Value c = b.remui(j, b.index(p.c)), s = b.remui(b.divui(j, b.index(p.c)), b.index(p.s));
        Value f = b.divui(j, b.index(p.s * p.c));
        Value k = b.divui(row, b.index(unfolded.r)), first = b.remui(row, b.index(unfolded.r));
        Value zero = b.create<arith::ConstantOp>({}, b.getOpBuilder().getZeroAttr(element));
        SmallVector<Value> lanesRead;
        for (int64_t lane = 0; lane < 8; ++lane) {
          if (lane > 0) {
            // The next lane: channel c + 1, else the next column, else row.
            Value wrapC = b.cmpi(arith::CmpIPredicate::eq, c, b.index(p.c - 1));
            Value wrapS = b.andi(wrapC, b.cmpi(arith::CmpIPredicate::eq, s, b.index(p.s - 1)));
            c = b.create<arith::SelectOp>({}, wrapC, b.index(0), b.addi(c, b.index(1)));
            s = b.create<arith::SelectOp>(
                {}, wrapS, b.index(0),
                b.create<arith::SelectOp>({}, wrapC, b.addi(s, b.index(1)), s));
            f = b.create<arith::SelectOp>({}, wrapS, b.addi(f, b.index(1)), f);
            j = b.addi(j, b.index(1));
          }
          Value r = b.addi(b.muli(first, b.index(folded)), f);
          Value inside = b.andi(b.cmpi(arith::CmpIPredicate::ult, j, b.index(lanes)),
                                b.cmpi(arith::CmpIPredicate::ult, r, b.index(p.r)));
          Value source =
              b.addi(b.muli(b.addi(b.muli(b.addi(b.muli(k, b.index(p.r)), r), b.index(p.s)), s),
                            b.index(p.c)),
                     c);
          lanesRead.push_back(loadOrZero(b, cast<Tensor>(args[0]), source, inside, zero));
        }
        b.store(b.create<vector::FromElementsOp>({}, vector, lanesRead), cast<Tensor>(args[1]),
                {b.fromIndex(index, b.coordType("e"))});
      });
}

OwningOpRef<ModuleOp> mlir::spio::buildConv2dWorkload(MLIRContext *context,
                                                      const kernels::Conv2dProblem &original,
                                                      const GemmConfig &config) {
  Location loc = NameLoc::get(StringAttr::get(context, "spio_conv2d"));
  OpBuilder builder(context);
  KernelBuilder b(builder, loc);
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  (*module)->setAttr(gpu::GPUDialect::getContainerModuleAttrName(), builder.getUnitAttr());
  builder.setInsertionPointToEnd(module->getBody());
  auto kernels = gpu::GPUModuleOp::create(builder, loc, "spio_conv2d");
  builder.setInsertionPointToStart(kernels.getBody());
  // The implicit GEMM's problem: block-diagonal groups of 16 or 32 channels
  // as groups of 64, whose weights fprop and dgrad expand first, as they
  // pad those of groups not of a multiple of 64.
  kernels::Conv2dProblem problem = kernels::conv2dKernelProblem(original);
  if (kernels::conv2dTransposesWeights(problem))
    buildConv2dTransposeWeights(b, original);
  else if (kernels::conv2dExpandsWeights(original))
    buildConv2dExpandWeights(b, original);
  if (kernels::conv2dUnfolds(original)) {
    buildConv2dUnfoldX(b, original);
    if (original.pass == kernels::ConvPass::Fprop)
      buildConv2dUnfoldW(b, original);
  }
  if (problem.pass != kernels::ConvPass::Dgrad) {
    gpu::GPUFuncOp kernel = buildConv2dKernel(b, problem, config, "conv2d");
    if (kernels::conv2dWgradReduces(original)) {
      builder.setInsertionPointAfter(kernel);
      buildConv2dWgradReduce(b, original, conv2dOperandType(b, problem, 'y'));
    }
    return module;
  }
  // dgrad: the zeroing kernel where some positions have no taps, then a
  // kernel a phase (one at stride 1).
  if (kernels::conv2dDgradZeroes(problem))
    buildConv2dDgradZero(b, problem);
  for (const kernels::Conv2dProblem &phase : kernels::conv2dDgradPhases(problem))
    builder.setInsertionPointAfter(buildConv2dKernel(
        b, phase, kernels::conv2dPhaseConfig(phase, config), kernels::conv2dKernelName(phase)));
  return module;
}

std::string mlir::spio::conv2dSource(const kernels::Conv2dProblem &problem,
                                     const GemmConfig &config) {
  return printedWorkload(
      [&](MLIRContext *context) { return buildConv2dWorkload(context, problem, config); });
}
