//===- Gemm.cpp - spio-jit's GEMM and MLIR-file workloads -----------------===//
//
// --workload gemm: the problem from the request, the chooser's or the given
// tile, checked against the float64 reference and timed; and an MLIR file's
// kernels, whose GEMM and conv2d workloads run the same way.
//
//===----------------------------------------------------------------------===//

#include "Session.h"

#include "spio/Kernels/IR/GemmKernel.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>
#include <cmath>
#include <random>

using namespace spio;
using mlir::MLIRContext;
using namespace spio::kernels;
using namespace spio::runtime;
using namespace spio::testing;

namespace spio::jit {

/// Runs a compiled GEMM kernel on fresh random inputs: checks it against a
/// float64 reference (with --check) and times it (with --bench). `params`
/// says where each operand is among the kernel's parameters.
static int runGemmKernel(Cuda &gpu, const GemmProblem &problem, const GemmConfig &config,
                         const mlir::spio::CompiledModule &compiled,
                         const mlir::spio::CompiledKernel &info,
                         const mlir::spio::GemmWorkload &params) {
  LoadedPlan loaded =
      loadPlan(gpu, compiled, gemmLaunchPlan(problem, config, params.params, info.name));
  Launcher &launcher = loaded.launcher;
  reportKernel(gpu, launcher, launcher.plan().mainKernel);

  // Fresh random inputs, rounded to the input type.
  size_t m = problem.m, n = problem.n, k = problem.k;
  // A batch's matrices one after the other; A or B the batch shares once.
  size_t batches = size_t(problem.batch);
  size_t batchesA = problem.batchA ? batches : 1, batchesB = problem.batchB ? batches : 1;
  // A grouped GEMM's groups: G - 1 random cuts of M's rows (or of K where
  // the groups split it; empty groups too), each group's end, and each
  // row's group. Groups splitting K have a matrix of D (and C) each.
  std::vector<int32_t> ends;
  std::vector<size_t> groupOf(m, 0);
  if (problem.groups > 0) {
    size_t cut = problem.groupedReduction ? k : m;
    if (problem.groupedReduction)
      batches = size_t(problem.groups);
    else
      batchesB = size_t(problem.groups);
    std::mt19937_64 cuts(opt().seed ^ 0x67726f757073ull);
    for (int64_t g = 0; g + 1 < problem.groups; ++g)
      ends.push_back(int32_t(cuts() % (cut + 1)));
    ends.push_back(int32_t(cut));
    std::sort(ends.begin(), ends.end());
    if (!problem.groupedReduction)
      for (size_t g = ends.size(); g-- > 0;)
        for (size_t r = g ? size_t(ends[g - 1]) : 0; r < size_t(ends[g]); ++r)
          groupOf[r] = g;
  }
  HostMatrix a(problem.input, batchesA * m * k), b(problem.input, batchesB * k * n),
      c(problem.output, batches * m * n);
  a.fillUniform(opt().seed, 0);
  b.fillUniform(opt().seed, 1);
  if (problem.readsC)
    c.fillUniform(opt().seed, 2);
  // The bias and scale vectors: M values (one a row) or N (one a column).
  auto vectorLength = [&](Along along) { return along == Along::Rows ? m : n; };
  HostMatrix bias(problem.biasType, problem.bias == Along::None ? 0 : vectorLength(problem.bias));
  HostMatrix scale(problem.scaleType,
                   problem.scale == Along::None ? 0 : vectorLength(problem.scale));
  bias.fillUniform(opt().seed, 3);
  scale.fillUniform(opt().seed, 4);
  DeviceBuffer dA = orFail(gpu.allocate(a.bytes.size()), "allocating A");
  DeviceBuffer dB = orFail(gpu.allocate(b.bytes.size()), "allocating B");
  DeviceBuffer dC = orFail(gpu.allocate(c.bytes.size()), "allocating C");
  DeviceBuffer dD = orFail(gpu.allocate(c.bytes.size()), "allocating D");
  orFail(dA.upload(a.bytes.data(), a.bytes.size()), "uploading A");
  orFail(dB.upload(b.bytes.data(), b.bytes.size()), "uploading B");
  orFail(dC.upload(c.bytes.data(), c.bytes.size()), "uploading C");
  DeviceBuffer dBias, dScale;
  if (!bias.bytes.empty()) {
    dBias = orFail(gpu.allocate(bias.bytes.size()), "allocating the bias");
    orFail(dBias.upload(bias.bytes.data(), bias.bytes.size()), "uploading the bias");
  }
  if (!scale.bytes.empty()) {
    dScale = orFail(gpu.allocate(scale.bytes.size()), "allocating the scale");
    orFail(dScale.upload(scale.bytes.data(), scale.bytes.size()), "uploading the scale");
  }

  DeviceBuffer dGroups;
  if (!ends.empty()) {
    dGroups = orFail(gpu.allocate(ends.size() * sizeof(int32_t)), "allocating the row ends");
    orFail(dGroups.upload(ends.data(), ends.size() * sizeof(int32_t)), "uploading the row ends");
  }
  DeviceBuffer workspace;
  if (int64_t bytes = launcher.plan().workspaceBytes)
    workspace = orFail(gpu.allocate(size_t(bytes)), "allocating the workspace");
  // The value before the activation, where the kernel stores it: poisoned
  // (all bits set: NaN) so that an element it leaves out fails the check.
  DeviceBuffer dPre;
  if (problem.storesPreActivation) {
    dPre = orFail(gpu.allocate(c.bytes.size()), "allocating the pre-activation");
    orFail(dPre.fill32(0xffffffffu), "poisoning the pre-activation");
  }
  // The plan encodes wgmma kernels' tensor maps of A and B.
  LaunchBindings bindings{{dA.pointer(), dB.pointer(), dC.pointer(), dD.pointer(), dBias.pointer(),
                           dScale.pointer(), dGroups.pointer()},
                          workspace.pointer(),
                          {float(opt().alpha), problem.readsC ? float(opt().beta) : 0.0f}};
  if (problem.storesPreActivation)
    bindings.operands.push_back(dPre.pointer());
  auto launch = [&]() { return launcher.run(bindings); };

  if (opt().check) {
    HostMatrix d(problem.output, batches * m * n),
        pre(problem.output, problem.storesPreActivation ? batches * m * n : 0);
    runPoisoned(gpu, dD, launch, d.bytes);
    if (problem.storesPreActivation)
      orFail(dPre.download(pre.bytes.data(), pre.bytes.size()), "downloading the pre-activation");
    // Output rounding plus f32 accumulation error, which grows with depth
    // (the packed segments'), plus what splitting f32 inputs into bf16
    // terms leaves out of each product.
    ReferenceCheck reference(problem.output, double(gemmPackedProblem(problem).k),
                             gemmProductError(problem));
    std::vector<EpilogueStep> steps = epilogueSteps(problem);
    // The steps before the first activation: what pre holds.
    std::vector<EpilogueStep> preSteps(steps.begin(),
                                       std::find_if(steps.begin(), steps.end(), isActivation));
    // Groups splitting K: each group's matrix checked as a batch's.
    GemmProblem checked = problem;
    if (problem.groupedReduction)
      checked.batch = problem.groups;
    for (auto [bt, r, col] : gemmCheckedElements(checked, opt().seed)) {
      size_t inA = problem.batchA ? bt : 0, inB = problem.batchB ? bt : 0;
      size_t kBegin = 0, kEnd = k;
      if (problem.groupedReduction) {
        inA = inB = 0;
        kBegin = bt ? size_t(ends[bt - 1]) : 0;
        kEnd = size_t(ends[bt]);
      } else if (problem.groups > 0) {
        inB = groupOf[r];
      }
      size_t element = (bt * m + r) * n + col;
      auto vectorAt = [&](const HostMatrix &v, Along along) {
        if (along == Along::None)
          return 0.0;
        return double(v.values[along == Along::Rows ? r : col]);
      };
      ReferenceSum product = gemmReference(problem, a, b, inA, inB, r, col, kBegin, kEnd);
      ReferenceSum scaled{opt().alpha * product.sum, std::fabs(opt().alpha) * product.magnitude};
      double residual = problem.readsC ? opt().beta * double(c.values[element]) : 0.0;
      EpilogueReference ref = applyEpilogue(steps, scaled, vectorAt(scale, problem.scale),
                                            vectorAt(bias, problem.bias), residual);
      auto where = [&](const char *name) {
        return name + ("[" + (batches > 1 ? std::to_string(bt) + ", " : std::string())) +
               std::to_string(r) + ", " + std::to_string(col) + "]";
      };
      reference.add(d.read(element), ref, [&] { return where("D"); });
      if (problem.storesPreActivation) {
        EpilogueReference preRef = applyEpilogue(preSteps, scaled, vectorAt(scale, problem.scale),
                                                 vectorAt(bias, problem.bias), residual);
        reference.add(pre.read(element), preRef, [&] { return where("pre"); });
      }
    }
    finishCheck(reference, "elements", "sum|a*b|", gpu, dD, launch, d.bytes);
  }

  if (opt().bench > 0) {
    // Groups splitting K share its k rows among them.
    double problems = problem.groupedReduction ? 1.0 : double(batches);
    reportBench(gpu, launch, 2.0 * problems * double(m) * double(n) * double(k));
  }
  return 0;
}

int runFile() {
  auto buffer = llvm::MemoryBuffer::getFileOrSTDIN(opt().inputFile);
  if (!buffer)
    fail("cannot read " + opt().inputFile + ": " + buffer.getError().message());
  mlir::spio::CompileOptions options;
  options.chip = target().chip;
  options.printIRAfterAll = opt().printIRAfterAll;
  mlir::spio::CompiledModule compiled;
  std::string error;
  if (!mlir::spio::compileToPTX((*buffer)->getBuffer().str(), options, compiled, error,
                                opt().inputFile))
    fail("compiling " + opt().inputFile + ":\n" + error);
  if (opt().emitPTX) {
    llvm::outs() << compiled.ptx;
    return 0;
  }
  Result<Cuda *> cuda = Cuda::get();
  if (!cuda) {
    reportNoGpu(cuda.error().message, "compiled " + std::to_string(compiled.kernels.size()) +
                                          " kernel(s) to " + std::to_string(compiled.ptx.size()) +
                                          " bytes of PTX; nothing was run");
    return 0;
  }
  Module module = orFail((*cuda)->loadPTX(compiled.ptx), "loading PTX");
  text() << "Loaded on " << (*cuda)->device().name << ":\n";
  for (const mlir::spio::CompiledKernel &k : compiled.kernels) {
    Kernel kernel = orFail(module.kernel(k.name), "looking up kernel");
    auto [regs, local] = orFail(kernel.resources(), "reading kernel resources");
    text() << "  " << k.name << ": " << regs << " registers, " << local << " bytes local memory, "
           << k.sharedBytes << " bytes shared memory\n";
  }
  // GEMM and conv2d workloads run like --workload gemm and conv2d, with the
  // file's own shapes.
  for (const mlir::spio::CompiledKernel &k : compiled.kernels) {
    if (k.gemm && (opt().check || opt().bench > 0)) {
      text() << "running " << k.name << " (a spio.gemm of " << k.gemm->problem.m << "x"
             << k.gemm->problem.n << "x" << k.gemm->problem.k << ")\n";
      if (int status = runGemmKernel(**cuda, k.gemm->problem, k.gemm->config, compiled, k, *k.gemm))
        return status;
    }
    if (k.conv2d && (opt().check || opt().bench > 0)) {
      const Conv2dProblem &p = k.conv2d->problem;
      text() << "running " << k.name << " (a spio.conv2d of " << p.n << "x" << p.h << "x" << p.w
             << "x" << p.c << " by " << p.k << "x" << p.r << "x" << p.s << ")\n";
      if (int status = runConv2dKernel(**cuda, compiled, k.name, *k.conv2d))
        return status;
    }
  }
  return 0;
}

int runGemm() {
  GemmProblem problem;
  problem.m = opt().sizeM;
  problem.n = opt().sizeN;
  problem.k = opt().sizeK;
  problem.input = parseDType(dtypeOr("bf16"), true);
  problem.output = opt().outDtype.empty() ? problem.input : parseDType(opt().outDtype, true);
  problem.precision = parsePrecision(opt().precision);
  problem.a = parseLayout(opt().aLayout, "A");
  problem.b = parseLayout(opt().bLayout, "B");
  problem.batchInvariant = opt().batchInvariant;
  problem.batch = opt().batchCount;
  problem.groups = opt().groupCount;
  if (opt().groupsAlong != "rows" && opt().groupsAlong != "k")
    fail("--groups-along takes rows or k, not '" + opt().groupsAlong + "'");
  problem.groupedReduction = opt().groupsAlong == "k";
  problem.storesPreActivation = opt().storesPreActivation;
  if (!opt().broadcast.empty() && opt().broadcast != "a" && opt().broadcast != "b")
    fail("--broadcast takes a or b, not '" + opt().broadcast + "'");
  problem.batchA = opt().broadcast != "a";
  problem.batchB = opt().broadcast != "b";
  problem.epilogue = parseEpilogue(opt().epilogue);
  auto has = [&](EpilogueStep step) { return llvm::is_contained(problem.epilogue, step); };
  problem.readsC = opt().beta != 0.0f || has(EpilogueStep::Residual);
  if (has(EpilogueStep::Bias)) {
    problem.bias = parseAlong(opt().biasAlong, "bias");
    problem.biasType = problem.output;
  }
  if (has(EpilogueStep::Scale)) {
    problem.scale = parseAlong(opt().scaleAlong, "scale");
    problem.scaleType = DType::F32;
  }

  Result<Cuda *> cuda = Cuda::get();
  bool hopper = hasWarpgroupMma(target().chip);
  bool wgmma = opt().gemmWgmma.value_or(hopper && gemmPrefersWgmma(problem, target()));
  // wgmma reads M- and N-major operands packed K-major.
  problem.packLayouts = wgmma;
  if (opt().listCandidates) {
    if (!wgmma || !hopper)
      fail("--list-candidates lists Hopper's wgmma configurations: it needs an sm_90 target and a "
           "problem wgmma runs");
    // Every field given, so that spio-jit with the line runs that
    // configuration exactly.
    for (const GemmConfig &c : gemmCandidates(problem, target()))
      llvm::outs() << "--block-m " << c.blockM << " --block-n " << c.blockN << " --block-k "
                   << c.blockK << " --warps-m " << c.warpsM << " --warps-n " << c.warpsN
                   << " --stages " << c.stages << " --raster " << c.raster << " --persistent "
                   << (c.persistent ? c.persistent : -1) << " --cluster " << c.cluster
                   << " --split-k " << c.splitK << " --k-ranges " << c.kRanges
                   << " --swap=" << (c.swapAB ? "true" : "false")
                   << " --pingpong=" << (c.pingpong ? "true" : "false")
                   << " --promote=" << (c.promote ? "true" : "false")
                   << " --stream-k=" << (c.streamK ? "true" : "false") << "\n";
    return 0;
  }
  // --stream-k=false: the chooser's best configuration without stream-K.
  GemmConfig config = wgmma ? chooseWgmmaGemmConfig(problem, target(), opt().streamK.value_or(true))
                            : chooseGemmConfig(problem, target());
  applyTileOptions(config);
  if (std::string err = checkGemm(problem, config, target()); !err.empty())
    fail(err);

  if (config.wgmma && !hopper)
    fail("--wgmma needs a Hopper target (sm_90), not " + target().chip);
  std::optional<CompiledWorkload> built = compileWorkload(
      [&](MLIRContext *context) { return mlir::spio::buildGemmWorkload(context, problem, config); },
      "gemm");
  if (!built)
    return 0;
  const mlir::spio::CompiledModule &compiled = built->module;
  mlir::spio::CacheOutcome outcome = built->outcome;
  double compileMs = built->ms;
  // The GEMM kernel follows the kernels packing its operands.
  const mlir::spio::CompiledKernel &info = compiled.kernels.back();
  bool tf32 = problem.input == DType::F32 && problem.precision == F32Precision::Tf32;
  std::string kind = config.wgmma ? (tf32 ? "wgmma tf32" : "wgmma") : "mma.sync";
  if (gemmPacksOperands(problem))
    kind += std::string(", operands packed") +
            (problem.input == DType::F32 && !tf32
                 ? std::string(" into ") + std::to_string(gemmPackTerms(problem)) + " bf16 terms"
                 : "");
  if (config.swapAB)
    kind += " (A, B swapped)";
  if (config.splitK > 1)
    kind += " split-K " + std::to_string(config.splitK);
  if (config.pingpong)
    kind += " ping-pong";
  if (config.promote)
    kind += " promoted sums";
  if (config.kRanges > 1)
    kind += " " + std::to_string(config.kRanges) + " k-ranges";
  if (config.streamK)
    kind += " stream-K";
  if (!problem.epilogue.empty()) {
    kind += ", epilogue";
    for (EpilogueStep step : problem.epilogue)
      kind += std::string(step == problem.epilogue.front() ? " " : ",") + epilogueStepName(step);
  }
  if (problem.groups > 0)
    kind += ", " + std::to_string(problem.groups) +
            (problem.groupedReduction ? " groups of K" : " groups");
  if (problem.batch > 1)
    kind += ", batch " + std::to_string(problem.batch) +
            (problem.batchA ? problem.batchB ? "" : " (B shared)" : " (A shared)");
  text() << llvm::format(
      "gemm M=%lld N=%lld K=%lld %s->%s A %s B %s, %s tile %lldx%lldx%lld "
      "warps %lldx%lld stages %lld: %s in %.2f ms (%zu bytes PTX)\n",
      (long long)problem.m, (long long)problem.n, (long long)problem.k, dtypeName(problem.input),
      dtypeName(problem.output), opt().aLayout.c_str(), opt().bLayout.c_str(), kind.c_str(),
      (long long)config.blockM, (long long)config.blockN, (long long)config.blockK,
      (long long)config.warpsM, (long long)config.warpsN, (long long)config.stages,
      mlir::spio::describe(outcome), compileMs, compiled.ptx.size());
  std::string epilogueSteps;
  for (EpilogueStep step : problem.epilogue)
    epilogueSteps += std::string(epilogueSteps.empty() ? "" : ",") + epilogueStepName(step);
  report()["workload"] = "gemm";
  report()["problem"] = llvm::json::Object{{"m", problem.m},
                                           {"n", problem.n},
                                           {"k", problem.k},
                                           {"dtype", dtypeName(problem.input)},
                                           {"out_dtype", dtypeName(problem.output)},
                                           {"a_layout", opt().aLayout},
                                           {"b_layout", opt().bLayout},
                                           {"batch", problem.batch},
                                           {"epilogue", epilogueSteps}};
  report()["config"] =
      llvm::json::Object{{"kind", kind},
                         {"block", llvm::json::Array{config.blockM, config.blockN, config.blockK}},
                         {"warps", llvm::json::Array{config.warpsM, config.warpsN}},
                         {"stages", config.stages}};
  report()["compile"] =
      llvm::json::Object{{"ms", compileMs}, {"cache", mlir::spio::describe(outcome)}};
  if (!cuda) {
    reportNoGpu(cuda.error().message, "compiled to PTX only; nothing was run");
    return 0;
  }
  mlir::spio::GemmWorkload workload{problem, config, gemmParameters(problem, config)};
  return runGemmKernel(**cuda, problem, config, compiled, info, workload);
}

} // namespace spio::jit
