//===- Conv2d.cpp - spio-jit's dense conv2d workload ----------------------===//
//
// --workload conv2d: fprop, dgrad and wgrad by implicit GEMM on the wgmma
// kernel, checked against the float64 references and timed.
//
//===----------------------------------------------------------------------===//

#include "Session.h"

#include "spio/Kernels/IR/Conv2dKernel.h"

#include "llvm/Support/Format.h"

#include <cmath>
#include <random>

using namespace spio;
using mlir::MLIRContext;
using namespace spio::kernels;
using namespace spio::runtime;
using namespace spio::testing;

namespace spio::jit {

/// conv2d's wgrad through `launcher` on fresh random x and dy: --check
/// against a float64 reference, --bench.
static int runConv2dWgrad(Cuda &gpu, Launcher &launcher, const Conv2dProblem &problem);
static int runConv2dPlan(Cuda &gpu, const mlir::spio::CompiledModule &compiled,
                         const LaunchPlan &plan, const Conv2dProblem &problem, bool phaseOnly);

/// --workload conv2d: a dense conv2d (NHWC x, KRSC w, NHWC y) by implicit
/// GEMM on the wgmma kernel, checked against a float64 reference and timed.
int runConv2d() {
  Conv2dProblem problem;
  if (opt().convPass == "dgrad")
    problem.pass = ConvPass::Dgrad;
  else if (opt().convPass == "wgrad")
    problem.pass = ConvPass::Wgrad;
  else if (opt().convPass != "fprop")
    fail("unknown conv2d pass '" + opt().convPass + "'; expected fprop, dgrad or wgrad");
  problem.n = opt().convN;
  problem.h = opt().convH;
  problem.w = opt().convW;
  problem.c = opt().convC;
  problem.k = opt().convK ? int64_t(opt().convK) : int64_t(opt().convC);
  problem.r = opt().convR;
  problem.s = opt().convS;
  problem.strideH = problem.strideW = opt().convStride;
  problem.padH = opt().padH;
  problem.padW = opt().padW;
  problem.dilationH = problem.dilationW = opt().convDilation;
  problem.groups = std::max<int64_t>(1, opt().groupCount);
  problem.input = parseDType(dtypeOr("bf16"), false);
  problem.output = opt().outDtype.empty() ? problem.input : parseDType(opt().outDtype, true);
  problem.epilogue = parseEpilogue(opt().epilogue);
  problem.biasType = problem.output;
  problem.scaleType = DType::F32;
  Result<Cuda *> cuda = Cuda::get();
  GemmConfig config = chooseConv2dConfig(problem, target());
  applyTileOptions(config);
  if (opt().convParts && problem.pass != ConvPass::Wgrad)
    fail("--parts applies to conv2d's wgrad only");
  problem.parts =
      opt().convParts ? int64_t(opt().convParts) : conv2dWgradParts(problem, config, target());
  if (std::string err = checkConv2d(problem, config, target()); !err.empty())
    fail(err);
  std::optional<CompiledWorkload> built = compileWorkload(
      [&](MLIRContext *context) {
        return mlir::spio::buildConv2dWorkload(context, problem, config);
      },
      "conv2d");
  if (!built)
    return 0;
  int64_t outH = conv2dOutputHeight(problem), outW = conv2dOutputWidth(problem);
  text() << llvm::format(
      "conv2d %s N=%lld H=%lld W=%lld C=%lld K=%lld R=%lld S=%lld%s stride %lld pad %lldx%lld "
      "dilation %lld -> P=%lld Q=%lld %s->%s, %s tile %lldx%lldx%lld warps %lldx%lld "
      "stages %lld%s%s%s: %s in %.2f ms (%zu bytes PTX)\n",
      opt().convPass.c_str(), (long long)problem.n, (long long)problem.h, (long long)problem.w,
      (long long)problem.c, (long long)problem.k, (long long)problem.r, (long long)problem.s,
      problem.groups > 1 ? (" groups " + std::to_string(problem.groups)).c_str() : "",
      (long long)problem.strideH, (long long)problem.padH, (long long)problem.padW,
      (long long)problem.dilationH, (long long)outH, (long long)outW, dtypeName(problem.input),
      dtypeName(problem.output), config.wgmma ? "wgmma" : "mma.sync", (long long)config.blockM,
      (long long)config.blockN, (long long)config.blockK, (long long)config.warpsM,
      (long long)config.warpsN, (long long)config.stages, config.pingpong ? " ping-pong" : "",
      config.splitK > 1 ? (" split-K " + std::to_string(config.splitK)).c_str() : "",
      problem.parts > 1 ? (" in " + std::to_string(problem.parts) + " parts").c_str() : "",
      mlir::spio::describe(built->outcome), built->ms, built->module.ptx.size());
  report()["workload"] = "conv2d";
  report()["problem"] = llvm::json::Object{{"pass", opt().convPass},
                                           {"n", problem.n},
                                           {"h", problem.h},
                                           {"w", problem.w},
                                           {"c", problem.c},
                                           {"k", problem.k},
                                           {"r", problem.r},
                                           {"s", problem.s},
                                           {"stride", problem.strideH},
                                           {"pad_h", problem.padH},
                                           {"pad_w", problem.padW},
                                           {"dilation", problem.dilationH},
                                           {"groups", problem.groups},
                                           {"dtype", dtypeName(problem.input)},
                                           {"out_dtype", dtypeName(problem.output)}};
  report()["config"] =
      llvm::json::Object{{"block", llvm::json::Array{config.blockM, config.blockN, config.blockK}},
                         {"warps", llvm::json::Array{config.warpsM, config.warpsN}},
                         {"stages", config.stages}};
  if (!cuda) {
    reportNoGpu(cuda.error().message, "compiled to PTX only; nothing was run");
    return 0;
  }
  return runConv2dPlan(**cuda, built->module, conv2dLaunchPlan(problem, config), problem, false);
}

int runConv2dKernel(Cuda &gpu, const mlir::spio::CompiledModule &compiled, const std::string &name,
                    const mlir::spio::Conv2dWorkload &workload) {
  const Conv2dProblem &p = workload.problem;
  return runConv2dPlan(gpu, compiled, conv2dLaunchPlan(p, workload.config, workload.params, name),
                       p, conv2dStridedDgrad(p));
}

/// Runs `plan` of the compiled conv2d workload on fresh random inputs:
/// --check against a float64 reference (of the problem's phase of dx
/// alone where `phaseOnly`), --bench.
static int runConv2dPlan(Cuda &gpu, const mlir::spio::CompiledModule &compiled,
                         const LaunchPlan &plan, const Conv2dProblem &problem, bool phaseOnly) {
  // A strided dgrad's phase kernels launch as dependent grids, so that
  // each starts while the one before it runs.
  LoadedPlan loaded = loadPlan(gpu, compiled, plan, /*dependentLaunches=*/true);
  Launcher &launcher = loaded.launcher;
  reportKernel(gpu, launcher, plan.mainKernel);

  int64_t outH = conv2dOutputHeight(problem), outW = conv2dOutputWidth(problem);
  size_t n = problem.n, h = problem.h, w = problem.w, c = problem.c, k = problem.k;
  size_t r = problem.r, sz = problem.s, p = outH, q = outW;
  // w's channels: a group's (C, or dgrad's K over them, a group's).
  size_t groupInputs = conv2dGroupInputs(problem), groupOutputs = conv2dGroupOutputs(problem);
  if (problem.pass == ConvPass::Wgrad)
    return runConv2dWgrad(gpu, launcher, problem);
  bool dgrad = problem.pass == ConvPass::Dgrad;
  // The kernel reads x (dgrad: dy) and writes y (dgrad: dx).
  size_t inputs = dgrad ? n * p * q * k : n * h * w * c;
  size_t outputs = dgrad ? n * h * w * c : n * p * q * k;
  GemmProblem gemm = conv2dGemmProblem(problem);
  HostMatrix x(problem.input, inputs), wt(problem.input, k * r * sz * groupInputs),
      residual(problem.output, gemm.readsC ? outputs : 0);
  HostMatrix bias(problem.biasType, gemm.bias == Along::None ? 0 : k);
  HostMatrix scale(problem.scaleType, gemm.scale == Along::None ? 0 : k);
  x.fillUniform(opt().seed, 0);
  wt.fillUniform(opt().seed, 1);
  residual.fillUniform(opt().seed, 2);
  bias.fillUniform(opt().seed, 3);
  scale.fillUniform(opt().seed, 4);
  auto upload = [&](const HostMatrix &host, const char *what) {
    DeviceBuffer buffer = orFail(gpu.allocate(std::max<size_t>(host.bytes.size(), 1)), what);
    orFail(buffer.upload(host.bytes.data(), host.bytes.size()), what);
    return buffer;
  };
  DeviceBuffer dX = upload(x, dgrad ? "uploading dy" : "uploading x"),
               dW = upload(wt, "uploading w");
  DeviceBuffer dC = upload(residual, "uploading C"), dBias = upload(bias, "uploading the bias");
  DeviceBuffer dScale = upload(scale, "uploading the scale");
  DeviceBuffer dY = orFail(gpu.allocate(outputs * dtypeBytes(problem.output)),
                           dgrad ? "allocating dx" : "allocating y");
  // The workspace: w expanded (block-diagonal groups), x and w unfolded (C
  // not a multiple of 8), wgrad's partial sums.
  DeviceBuffer workspace;
  if (int64_t bytes = launcher.plan().workspaceBytes)
    workspace = orFail(gpu.allocate(bytes), "allocating the workspace");
  LaunchBindings bindings{
      {dX.pointer(), dW.pointer(), dY.pointer(), dC.pointer(), dBias.pointer(), dScale.pointer()},
      workspace.pointer(),
      {}};
  auto launch = [&]() { return launcher.run(bindings); };
  // Each output's sum: y over (r, s, c), dgrad's dx over (r, s, k).
  size_t depth = r * sz * (dgrad ? groupOutputs : groupInputs), channels = dgrad ? c : k;
  size_t rows = dgrad ? h : p, cols = dgrad ? w : q;

  if (opt().check) {
    HostMatrix y(problem.output, outputs);
    runPoisoned(gpu, dY, launch, y.bytes);
    // Every output of small problems; else every channel of sampled
    // output positions, the first and last among them.
    std::vector<size_t> positions;
    size_t count = n * rows * cols;
    if (count * channels * depth <= (size_t(1) << 31)) {
      for (size_t m = 0; m < count; ++m)
        positions.push_back(m);
    } else {
      std::mt19937_64 rng(opt().seed);
      positions = {0, count - 1};
      for (int i = 0; i < 62; ++i)
        positions.push_back(rng() % count);
    }
    ReferenceCheck reference(problem.output, double(depth));
    for (size_t m : positions) {
      size_t img = m / (rows * cols), row = m / cols % rows, col = m % cols;
      if (phaseOnly && (int64_t(row) % problem.strideH != problem.phaseH ||
                        int64_t(col) % problem.strideW != problem.phaseW))
        continue;
      for (size_t out = 0; out < channels; ++out) {
        size_t element = m * channels + out;
        EpilogueReference expected = applyEpilogue(
            problem.epilogue, conv2dReference(problem, x.values, wt.values, img, row, col, out),
            scale.values.empty() ? 0.0 : double(scale.values[out]),
            bias.values.empty() ? 0.0 : double(bias.values[out]),
            residual.values.empty() ? 0.0 : double(residual.values[element]));
        reference.add(y.read(element), expected, [&] {
          return std::string(dgrad ? "dx[" : "y[") + std::to_string(img) + ", " +
                 std::to_string(row) + ", " + std::to_string(col) + ", " + std::to_string(out) +
                 "]";
        });
      }
    }
    finishCheck(reference, "outputs", dgrad ? "sum|dy*w|" : "sum|x*w|", gpu, dY, launch, y.bytes);
  }

  if (opt().bench > 0)
    // The forward's multiply-adds, whichever pass (a strided dgrad's
    // phases reach no more).
    reportBench(gpu, launch, 2.0 * double(n * p * q) * double(k * r * sz * groupInputs));
  return 0;
}

static int runConv2dWgrad(Cuda &gpu, Launcher &launcher, const Conv2dProblem &problem) {
  size_t positions = conv2dOutputPositions(problem);
  size_t k = problem.k, r = problem.r, s = problem.s, c = conv2dGroupInputs(problem);
  HostMatrix x(problem.input, problem.n * problem.h * problem.w * problem.c),
      dy(problem.input, positions * k);
  x.fillUniform(opt().seed, 0);
  dy.fillUniform(opt().seed, 1);
  auto upload = [&](const HostMatrix &host, const char *what) {
    DeviceBuffer buffer = orFail(gpu.allocate(host.bytes.size()), what);
    orFail(buffer.upload(host.bytes.data(), host.bytes.size()), what);
    return buffer;
  };
  DeviceBuffer dX = upload(x, "uploading x"), dDy = upload(dy, "uploading dy");
  size_t weights = k * r * s * c;
  DeviceBuffer dDw = orFail(gpu.allocate(weights * dtypeBytes(problem.output)), "allocating dw");
  DeviceBuffer workspace;
  if (int64_t bytes = launcher.plan().workspaceBytes)
    workspace = orFail(gpu.allocate(bytes), "allocating the parts' sums");
  LaunchBindings bindings{
      {dX.pointer(), dDy.pointer(), dDw.pointer(), 0, 0, 0}, workspace.pointer(), {}};
  auto launch = [&]() { return launcher.run(bindings); };
  if (opt().check) {
    HostMatrix dw(problem.output, weights);
    runPoisoned(gpu, dDw, launch, dw.bytes);
    // Every weight of small problems; else as many sampled weights as a
    // few billion products take, the first and last among them.
    std::vector<size_t> elements;
    if (weights * positions <= (size_t(1) << 31)) {
      for (size_t e = 0; e < weights; ++e)
        elements.push_back(e);
    } else {
      std::mt19937_64 rng(opt().seed);
      elements = {0, weights - 1};
      size_t samples = std::max<size_t>(62, (size_t(1) << 31) / positions);
      for (size_t i = 0; i < samples; ++i)
        elements.push_back(rng() % weights);
    }
    ReferenceCheck reference(problem.output, double(positions));
    for (size_t e : elements) {
      size_t ch = e % c, fs = e / c % s, fr = e / c / s % r, o = e / c / s / r;
      auto [sum, magnitude] = conv2dWgradReference(problem, x.values, dy.values, o, fr, fs, ch);
      reference.add(dw.read(e), sum, magnitude,
                    [&] { return llvm::formatv("dw[{0}, {1}, {2}, {3}]", o, fr, fs, ch).str(); });
    }
    finishCheck(reference, "weights", "sum|x*dy|", gpu, dDw, launch, dw.bytes);
  }
  if (opt().bench > 0)
    reportBench(gpu, launch, 2.0 * double(positions) * double(weights));
  return 0;
}

} // namespace spio::jit
