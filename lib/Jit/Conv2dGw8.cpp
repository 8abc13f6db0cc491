//===- Conv2dGw8.cpp - spio-jit's grouped conv2d workload -----------------===//
//
// --workload conv2d-gw8: fprop, dgrad and wgrad of the grouped (and
// depthwise) conv2d, checked against the float64 references, timed as
// bandwidth, or autotuned over the chooser's candidates.
//
//===----------------------------------------------------------------------===//

#include "Session.h"

#include "spio/Kernels/Conv2dGw8.h"
#include "spio/Kernels/IR/Conv2dGw8Kernel.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <random>

using namespace spio;
using mlir::MLIRContext;
using namespace spio::kernels;
using namespace spio::runtime;
using namespace spio::testing;

namespace spio::jit {

/// Each candidate's configuration as the Python package's conv2d_gw8 tile
/// (the C API's fields, trailing zeros off): how sweep records list them.
static std::vector<llvm::json::Value> tilesOf(const std::vector<Conv2dGw8Config> &candidates) {
  std::vector<llvm::json::Value> tiles;
  for (const Conv2dGw8Config &c : candidates) {
    std::vector<int64_t> fields = {c.warpsQ,    c.warpsG, c.rowsP,   c.chunks,
                                   c.copyWarps, c.stages, c.rowRing, c.reduceLaneElements};
    while (fields.size() > 3 && fields.back() == 0)
      fields.pop_back();
    tiles.push_back(llvm::json::Array(fields));
  }
  return tiles;
}

/// A conv2d-gw8 candidate's kernels loaded and planned: fprop's or dgrad's
/// one; wgrad's partial sums and, unless the cluster adds the sums, the
/// reduce (a dependent grid where its code waits for the sums and
/// `dependentLaunches`); with a bias, the bias gradient's two.
static LoadedPlan loadConv(Cuda &gpu, const Conv2dGw8Problem &problem,
                           const Conv2dGw8Config &config,
                           const mlir::spio::CompiledModule &compiled, bool dependentLaunches) {
  return loadPlan(gpu, compiled, conv2dGw8LaunchPlan(problem, config), dependentLaunches);
}

/// The weight gradient: two kernels (per-warp partial sums, then their
/// reduction in a fixed order), or one whose cluster adds the sums
/// (--wgrad-cluster-reduce), checked against a float64 reference on
/// sampled weights (all of them for small problems) and timed together as
/// GB/s of x, dy and dw; with --bias also the bias gradient (two more
/// kernels, the same in every candidate), checked on every channel. Given
/// several candidates (--autotune: the same blocks, so the same sums),
/// runs the fastest, and with --check compares every other's dw with its
/// bits.
static int runWgrad(Cuda &gpu, const Conv2dGw8Problem &problem,
                    const std::vector<Conv2dGw8Config> &candidates,
                    const std::vector<CompiledWorkload> &builds,
                    const std::function<std::string(const Conv2dGw8Config &)> &describeConfig,
                    const std::function<void(size_t)> &printHeader, size_t listed) {
  std::vector<LoadedPlan> kernels;
  kernels.reserve(candidates.size());
  int64_t workspaceBytes = 0;
  for (size_t i = 0; i < candidates.size(); ++i) {
    kernels.push_back(
        loadConv(gpu, problem, candidates[i], builds[i].module, opt().convDependentLaunch));
    workspaceBytes = std::max(workspaceBytes, kernels.back().launcher.plan().workspaceBytes);
  }
  bool inCluster = problem.wgradClusterReduce;

  int64_t C = problem.c, H = problem.h, W = problem.w, P = problem.outH(), Q = problem.outW();
  int64_t g = problem.groupWidth;
  DType dwType = problem.wgradF32 ? DType::F32 : problem.dtype;
  size_t nx = problem.n * H * W * C, ndy = problem.n * P * Q * C,
         ndw = C * problem.r * problem.s * g;
  std::mt19937_64 rng(opt().seed);
  HostMatrix x(problem.dtype, nx), dy(problem.dtype, ndy);
  x.fillUniform(opt().seed, 0);
  dy.fillUniform(opt().seed, 1);
  DeviceBuffer dX = orFail(gpu.allocate(x.bytes.size()), "allocating x");
  DeviceBuffer dDy = orFail(gpu.allocate(dy.bytes.size()), "allocating dy");
  DeviceBuffer dWs;
  if (!inCluster)
    dWs = orFail(gpu.allocate(workspaceBytes), "allocating the partial sums");
  DeviceBuffer dDw = orFail(gpu.allocate(ndw * dtypeBytes(dwType)), "allocating dw");
  DeviceBuffer dDb;
  if (problem.bias)
    dDb = orFail(gpu.allocate(C * dtypeBytes(dwType)), "allocating db");
  orFail(dX.upload(x.bytes.data(), x.bytes.size()), "uploading x");
  orFail(dDy.upload(dy.bytes.data(), dy.bytes.size()), "uploading dy");
  LaunchBindings bindings{
      {dX.pointer(), dDy.pointer(), dDw.pointer(), dDb.pointer()}, dWs.pointer(), {}};
  // The plan's kernels: the partial sums, then (unless the cluster adds
  // them) the reduce, then with a bias the bias gradient's two.
  auto launchPartialSums = [&](LoadedPlan &k) { return k.launcher.run(bindings, nullptr, 0, 1); };
  auto launchBoth = [&](LoadedPlan &k) { return k.launcher.run(bindings); };
  // Checked runs poison the partial sums as well as dw.
  auto poisonedLaunchOf = [&](LoadedPlan &k) {
    return [&, target = &k]() -> Status {
      if (target->launcher.plan().workspaceBytes > 0)
        if (Status poisoned = dWs.fill32(0xffffffffu); !poisoned)
          return poisoned;
      return launchBoth(*target);
    };
  };

  std::vector<std::string> names;
  std::vector<std::function<Status()>> launches, poisonedLaunches;
  for (size_t i = 0; i < candidates.size(); ++i) {
    names.push_back(describeConfig(candidates[i]));
    launches.push_back([&, target = &kernels[i]]() { return launchBoth(*target); });
    poisonedLaunches.push_back(poisonedLaunchOf(kernels[i]));
  }
  size_t chosen = fastestCandidate(gpu, launches, names, tilesOf(candidates), builds, listed);
  printHeader(chosen);
  const Conv2dGw8Config &config = candidates[chosen];
  LoadedPlan &run = kernels[chosen];
  const std::function<Status()> &launch = launches[chosen];
  const std::function<Status()> &poisonedLaunch = poisonedLaunches[chosen];
  auto [regs, local] = orFail(run.launcher.kernel(0).resources(), "reading kernel resources");
  int64_t parts = conv2dGw8WgradPartials(problem, config);
  text() << "device: " << gpu.device().name << "; kernel: " << regs << " registers, " << local
         << " bytes spilled, " << run.launcher.sharedBytes(0) << " bytes shared; " << parts
         << " partial sums per weight" << (inCluster ? ", added in a cluster" : "") << "\n";
  reportDevice(gpu, regs, local, run.launcher.sharedBytes(0));

  if (opt().check) {
    HostMatrix dw(dwType, ndw);
    runPoisoned(gpu, dDw, poisonedLaunch, dw.bytes);
    // Every candidate adds each weight's products and partial sums in the
    // same order.
    expectCandidatesBits(gpu, dDw, poisonedLaunches, names, chosen, dw.bytes);
    size_t depth = problem.n * P * Q;
    std::vector<size_t> points;
    if (ndw * depth <= (size_t(1) << 31)) {
      for (size_t i = 0; i < ndw; ++i)
        points.push_back(i);
    } else {
      for (int i = 0; i < 1000; ++i)
        points.push_back(rng() % ndw);
      for (size_t i = ndw - 8 * problem.r * problem.s * g; i < ndw; ++i)
        points.push_back(i); // the last 8 channels' weights
    }
    // Each mma step adds up to 16 products before joining the f32 chain.
    ReferenceCheck reference(dwType, double(conv2dGw8WgradAccumulationChain(problem, config) + 16));
    for (size_t i : points) {
      // dw[k, r, s, c]: dy's channel k against x's channel g * (k / g) + c.
      int64_t cc = i % g, s = (i / g) % problem.s, r = (i / g / problem.s) % problem.r,
              k = i / g / problem.s / problem.r;
      auto [sum, magnitude] = conv2dGw8WgradReference(problem, x.values, dy.values, k, r, s, cc);
      reference.add(dw.read(i), sum, magnitude, [&] {
        return llvm::formatv("dw[k={0}, r={1}, s={2}, c={3}]", k, r, s, cc).str();
      });
    }
    finishCheck(reference, "weights", "sum|x*dy|", gpu, dDw, poisonedLaunch, dw.bytes);
    if (problem.bias) {
      HostMatrix db(dwType, C);
      runPoisoned(gpu, dDb, poisonedLaunch, db.bytes);
      ReferenceCheck biasReference(dwType, double(conv2dGw8WgradBiasAccumulationChain(problem)));
      for (int64_t k = 0; k < C; ++k) {
        double sum = 0, magnitude = 0;
        for (size_t pixel = 0; pixel < depth; ++pixel) {
          double value = dy.values[pixel * C + k];
          sum += value;
          magnitude += std::fabs(value);
        }
        biasReference.add(db.read(k), sum, magnitude,
                          [&] { return llvm::formatv("db[k={0}]", k).str(); });
      }
      finishCheck(biasReference, "bias gradients", "sum|dy|", gpu, dDb, poisonedLaunch, db.bytes);
    }
  }
  if (opt().bench > 0) {
    if (opt().wgradKernels != WgradKernels::Both)
      text() << "bench: the "
             << (opt().wgradKernels == WgradKernels::Reduce ? "reduce" : "partial sums")
             << " alone\n";
    // The reduce alone, not a dependent grid, adds the partial sums of a
    // real run, not whatever the workspace held.
    std::optional<LoadedPlan> reduceAlone;
    if (opt().wgradKernels == WgradKernels::Reduce) {
      if (inCluster)
        fail("--wgrad-kernels=reduce: the cluster adds the partial sums; there is no reduce");
      reduceAlone = loadConv(gpu, problem, config, builds[chosen].module, false);
      orFail(launchPartialSums(run), "launching the partial sums");
      orFail(gpu.synchronize(), "running the partial sums");
    }
    auto timed = [&]() -> Status {
      if (opt().wgradKernels == WgradKernels::PartialSums)
        return launchPartialSums(run);
      return reduceAlone ? reduceAlone->launcher.run(bindings, nullptr, 1, 1) : launch();
    };
    reportBandwidth(gpu, timed,
                    double(nx + ndy) * dtypeBytes(problem.dtype) +
                        double(ndw + (problem.bias ? C : 0)) * dtypeBytes(dwType));
  }
  return 0;
}

/// The grouped convolution (fprop or dgrad; wgrad goes to runWgrad): checked
/// against a float64 reference on sampled outputs (all of them for small
/// problems), timed as GB/s of the ideal traffic (each input read once,
/// each output written once).
int runConv() {
  Conv2dGw8Problem problem;
  if (opt().convPass == "fprop")
    problem.pass = ConvPass::Fprop;
  else if (opt().convPass == "dgrad")
    problem.pass = ConvPass::Dgrad;
  else if (opt().convPass == "wgrad")
    problem.pass = ConvPass::Wgrad;
  else
    fail("unknown conv2d-gw8 pass '" + opt().convPass + "'; expected fprop, dgrad or wgrad");
  problem.n = opt().convN;
  problem.c = opt().convC;
  problem.h = opt().convH;
  problem.w = opt().convW;
  problem.r = opt().convR;
  problem.s = opt().convS;
  problem.padH = opt().padH;
  problem.padW = opt().padW;
  problem.stride = opt().convStride;
  problem.groupWidth = opt().convGroupWidth;
  problem.bias = opt().convBias;
  problem.dtype = parseDType(dtypeOr("f16"), false);
  if (opt().wgradClusterReduce && problem.pass != ConvPass::Wgrad)
    fail("--wgrad-cluster-reduce is for --pass wgrad");
  if (opt().wgradClusterReduce && opt().wgradKernels != WgradKernels::Both)
    fail("--wgrad-cluster-reduce runs one kernel; --wgrad-kernels picks one of two");
  problem.wgradClusterReduce = opt().wgradClusterReduce;
  if (opt().wgradDiscardPartials && problem.pass != ConvPass::Wgrad)
    fail("--wgrad-discard-partials is for --pass wgrad");
  problem.wgradDiscard = opt().wgradDiscardPartials.value_or(WgradDiscard::Auto);
  problem.wgradEarlyLaunch = opt().wgradEarlyLaunch;
  problem.wgradParts = opt().wgradParts;
  if (opt().wgradParts != WgradParts::All && opt().check)
    fail("--wgrad-parts runs part of wgrad's band loop, whose sums --check would find wrong");
  if (opt().wgradKernels != WgradKernels::Both && problem.pass != ConvPass::Wgrad)
    fail("--wgrad-kernels picks which of wgrad's two kernels --bench times; --pass is " +
         opt().convPass);
  if (opt().wgradKernels != WgradKernels::Both && opt().check)
    fail("--check needs both of wgrad's kernels; --wgrad-kernels picks what --bench times");
  if (!opt().outDtype.empty()) {
    DType out = parseDType(opt().outDtype, true);
    if (problem.pass != ConvPass::Wgrad)
      fail("--out-dtype applies to conv2d-gw8 wgrad only (dw as f32)");
    if (out != DType::F32 && out != problem.dtype)
      fail("wgrad writes dw as the input dtype or f32, not " + opt().outDtype);
    problem.wgradF32 = out == DType::F32;
  }
  Result<Cuda *> cuda = Cuda::get();
  problem.target = target();
  bool overridden = opt().convRules || opt().convChunks || opt().convRowsP || opt().warpsM ||
                    opt().warpsN || opt().convCopyWarps || opt().wgradRowRing.has_value() ||
                    opt().wgradStagesOption || opt().wgradReduceLaneElements;
  // Options adjust the rules' configuration, whose fields follow from the
  // problem alone, not the model's pick among its neighbours.
  Conv2dGw8Config config =
      overridden ? conv2dGw8RuleConfig(problem) : chooseConv2dGw8Config(problem);
  if (opt().convChunks)
    config.chunks = opt().convChunks;
  if (opt().convCopyWarps)
    config.copyWarps = opt().convCopyWarps;
  if (opt().wgradRowRing)
    config.rowRing = *opt().wgradRowRing;
  if (opt().wgradStagesOption)
    config.stages = opt().wgradStagesOption;
  if (opt().wgradReduceLaneElements)
    config.reduceLaneElements = opt().wgradReduceLaneElements;
  if (opt().convRowsP)
    config.rowsP = opt().convRowsP;
  if (opt().warpsM)
    config.warpsQ = opt().warpsM;
  if (opt().warpsN)
    config.warpsG = opt().warpsN;
  if (std::string err = checkConv2dGw8(problem, config); !err.empty())
    fail(err);
  if (opt().convAutotune && overridden)
    fail("--autotune times the chosen configuration and its neighbours; it takes no "
         "--rules, --warps-m, --warps-n, --rows-p, --chunks, --copy-warps, --wgrad-row-ring, "
         "--wgrad-stages or --wgrad-reduce-lane-elements");
  if (opt().convAutotune && (opt().emitSpio || opt().emitPTX))
    fail("--autotune times kernels on the device; --emit-spio and --emit-ptx print the "
         "chosen one without it");
  std::vector<Conv2dGw8Config> candidates =
      opt().convAutotune ? conv2dGw8Candidates(problem) : std::vector<Conv2dGw8Config>{config};
  // The candidates come in the model's order: its N best are the first N.
  size_t listed = candidates.size();
  if (opt().convAutotuneCandidates && size_t(opt().convAutotuneCandidates) < listed)
    candidates.resize(opt().convAutotuneCandidates);
  std::vector<CompiledWorkload> builds;
  for (const Conv2dGw8Config &candidate : candidates) {
    std::optional<CompiledWorkload> built = compileWorkload(
        [&](MLIRContext *context) {
          return mlir::spio::buildConv2dGw8Workload(context, problem, candidate);
        },
        "conv2d-gw8");
    if (!built)
      return 0;
    builds.push_back(std::move(*built));
  }
  int64_t C = problem.c;
  // The configuration as the workload op's attribute spells it: warps
  // along the columns, then along the groups.
  auto describeConfig = [](const Conv2dGw8Config &c) {
    std::string chunks = c.chunks ? llvm::formatv(" chunks {0}", c.chunks).str() : "";
    std::string copy = c.copyWarps ? llvm::formatv(" copy {0}", c.copyWarps).str() : "";
    std::string stagesText = c.stages ? llvm::formatv(" stages {0}", c.stages).str() : "";
    std::string lanes =
        c.reduceLaneElements ? llvm::formatv(" reduce {0}", c.reduceLaneElements).str() : "";
    return llvm::formatv("warps {0}x{1} rows {2}{3}{4}{5}{6}{7}", c.warpsQ, c.warpsG, c.rowsP,
                         chunks, copy, stagesText, c.rowRing ? " ring" : "", lanes)
        .str();
  };
  auto printHeader = [&](size_t index) {
    std::string groups =
        problem.narrowGroups() ? llvm::formatv(" group-width={0}", problem.groupWidth).str() : "";
    text() << llvm::format("conv2d-gw8 %s N=%lld C=%lld H=%lld W=%lld R=%lld S=%lld "
                           "pad=%lld,%lld stride=%lld%s%s %s, %s: %s in %.2f ms\n",
                           opt().convPass.c_str(), (long long)problem.n, (long long)C,
                           (long long)problem.h, (long long)problem.w, (long long)problem.r,
                           (long long)problem.s, (long long)problem.padH, (long long)problem.padW,
                           (long long)problem.stride, groups.c_str(), problem.bias ? " bias" : "",
                           dtypeName(problem.dtype), describeConfig(candidates[index]).c_str(),
                           mlir::spio::describe(builds[index].outcome), builds[index].ms);
    report()["workload"] = "conv2d-gw8";
    report()["problem"] = llvm::json::Object{{"pass", opt().convPass},
                                             {"n", problem.n},
                                             {"c", C},
                                             {"h", problem.h},
                                             {"w", problem.w},
                                             {"r", problem.r},
                                             {"s", problem.s},
                                             {"pad_h", problem.padH},
                                             {"pad_w", problem.padW},
                                             {"stride", problem.stride},
                                             {"group_width", problem.groupWidth},
                                             {"bias", problem.bias},
                                             {"dtype", dtypeName(problem.dtype)}};
    report()["config"] = describeConfig(candidates[index]);
    report()["compile"] = llvm::json::Object{
        {"ms", builds[index].ms}, {"cache", mlir::spio::describe(builds[index].outcome)}};
  };
  if (opt().convAutotune && candidates.size() == 1)
    text() << "autotune: one candidate ("
           << (problem.pass == ConvPass::Wgrad
                   ? "no other stages, ring or reduce lanes of the chosen blocks pass "
                     "the check"
                   : "flattened rows, or no neighbour of the chosen configuration "
                     "passes the check")
           << ")\n";
  if (!cuda) {
    printHeader(0);
    if (candidates.size() > 1) {
      text() << "autotune: compiled " << candidates.size() << " candidates (";
      for (size_t i = 0; i < candidates.size(); ++i)
        text() << (i ? "; " : "") << describeConfig(candidates[i]);
      text() << "); without a GPU the chosen one stands\n";
    }
    reportNoGpu(cuda.error().message, "compiled to PTX only; nothing was run");
    return 0;
  }
  Cuda &gpu = **cuda;
  if (problem.pass == ConvPass::Wgrad)
    return runWgrad(gpu, problem, candidates, builds, describeConfig, printHeader, listed);

  std::mt19937_64 rng(opt().seed);
  // The kernel reads `x` (x for fprop, dy for dgrad) and writes `y` (y, or dx).
  int64_t inH = problem.kernelInH(), inW = problem.kernelInW();
  int64_t outH = problem.kernelOutH(), outW = problem.kernelOutW();
  int64_t g = problem.groupWidth;
  size_t nx = problem.n * inH * inW * C, nw = C * problem.r * problem.s * g,
         ny = problem.n * outH * outW * C;
  HostMatrix x(problem.dtype, nx), w(problem.dtype, nw), bias(problem.dtype, C);
  x.fillUniform(opt().seed, 0);
  w.fillUniform(opt().seed, 1);
  if (problem.bias)
    bias.fillUniform(opt().seed, 2); // else zeros
  DeviceBuffer dX = orFail(gpu.allocate(x.bytes.size()), "allocating x");
  DeviceBuffer dW = orFail(gpu.allocate(w.bytes.size()), "allocating w");
  DeviceBuffer dB = orFail(gpu.allocate(bias.bytes.size()), "allocating bias");
  DeviceBuffer dY = orFail(gpu.allocate(ny * dtypeBytes(problem.dtype)), "allocating y");
  orFail(dX.upload(x.bytes.data(), x.bytes.size()), "uploading x");
  orFail(dW.upload(w.bytes.data(), w.bytes.size()), "uploading w");
  orFail(dB.upload(bias.bytes.data(), bias.bytes.size()), "uploading bias");
  // fprop's operands x, w, bias, y; dgrad's dy, w, dx (x and y here).
  LaunchBindings bindings;
  bindings.operands = problem.dgrad()
                          ? std::vector<DevicePtr>{dX.pointer(), dW.pointer(), dY.pointer()}
                          : std::vector<DevicePtr>{dX.pointer(), dW.pointer(),
                                                   problem.bias ? dB.pointer() : 0, dY.pointer()};
  std::vector<LoadedPlan> kernels;
  kernels.reserve(candidates.size());
  std::vector<std::function<Status()>> launches;
  for (size_t i = 0; i < candidates.size(); ++i) {
    kernels.push_back(loadConv(gpu, problem, candidates[i], builds[i].module, false));
    launches.push_back([&, i]() { return kernels[i].launcher.run(bindings); });
  }
  std::vector<std::string> names;
  for (const Conv2dGw8Config &candidate : candidates)
    names.push_back(describeConfig(candidate));
  size_t chosen = fastestCandidate(gpu, launches, names, tilesOf(candidates), builds, listed);
  printHeader(chosen);
  config = candidates[chosen];
  const std::function<Status()> &launch = launches[chosen];
  const Launcher &launcher = kernels[chosen].launcher;
  auto [regs, local] = orFail(launcher.kernel(0).resources(), "reading kernel resources");
  text() << "device: " << gpu.device().name << "; kernel: " << regs << " registers, " << local
         << " bytes spilled, " << launcher.sharedBytes(0) << " bytes shared\n";
  reportDevice(gpu, regs, local, launcher.sharedBytes(0));

  if (opt().check) {
    HostMatrix y(problem.dtype, ny);
    runPoisoned(gpu, dY, launch, y.bytes);
    // Every candidate adds each output's taps in the same order.
    expectCandidatesBits(gpu, dY, launches, names, chosen, y.bytes);
    size_t depth = problem.r * problem.s * g;
    std::vector<size_t> points;
    if (ny * depth <= (size_t(1) << 30)) {
      for (size_t i = 0; i < ny; ++i)
        points.push_back(i);
    } else {
      for (int i = 0; i < 200000; ++i)
        points.push_back(rng() % ny);
      for (int64_t q = 0; q < outW; ++q) // a whole output row of the last image
        for (int64_t k = 0; k < C; ++k)
          points.push_back((((problem.n - 1) * outH + (outH - 1)) * outW + q) * C + k);
    }
    ReferenceCheck reference(problem.dtype, double(depth));
    for (size_t i : points) {
      // Output channel o of pixel (pp, q), after the bias.
      int64_t o = i % C, q = (i / C) % outW, pp = (i / C / outW) % outH, nn = i / C / outW / outH;
      auto [taps, tapsMagnitude] = conv2dGw8Reference(problem, x.values, w.values, nn, pp, q, o);
      double sum = bias.values[o] + taps, magnitude = std::fabs(bias.values[o]) + tapsMagnitude;
      reference.add(y.read(i), sum, magnitude, [&] {
        return llvm::formatv("output[n={0}, row={1}, col={2}, ch={3}]", nn, pp, q, o).str();
      });
    }
    finishCheck(reference, "outputs", "sum|x*w|", gpu, dY, launch, y.bytes);
  }
  if (opt().bench > 0)
    reportBandwidth(gpu, launch,
                    double(nx + nw + ny + (problem.bias ? C : 0)) * dtypeBytes(problem.dtype));
  return 0;
}

/// Fails when an option the chosen mode does not read was given, rather
/// than running something other than what was asked for.

} // namespace spio::jit
