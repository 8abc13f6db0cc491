//===- Session.cpp - What spio-jit's workloads share ----------------------===//
//
// The running request, its target and reports, and the steps every
// workload takes (Session.h); run() dispatches to the workloads.
//
//===----------------------------------------------------------------------===//

#include "Session.h"

#include "spio/Compiler/AutotuneCache.h"
#include "spio/Compiler/Version.h"
#include "spio/Kernels/Autotune.h"
#include "spio/Kernels/IR/GemmKernel.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/xxhash.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <set>

using namespace spio;
using namespace spio::kernels;
using namespace spio::runtime;
using namespace spio::testing;

namespace spio::jit {

namespace {
/// The request being run (run() sets it for its duration).
const Request *current = nullptr;
} // namespace

const Request &opt() { return *current; }

/// The input dtype asked for, else the workload's `fallback`.
std::string dtypeOr(const char *fallback) { return opt().dtype.empty() ? fallback : opt().dtype; }

void orFail(Status status, const char *what) {
  if (!status)
    fail(std::string(what) + ": " + status.error().message);
}

DType parseDType(const std::string &name, bool allowF32) {
  if (name == "f16")
    return DType::F16;
  if (name == "bf16")
    return DType::BF16;
  if (allowF32 && name == "f32")
    return DType::F32;
  fail("unsupported dtype '" + name + "'; expected f16, bf16" + (allowF32 ? " or f32" : ""));
}

std::vector<EpilogueStep> parseEpilogue(const std::string &list) {
  std::vector<EpilogueStep> steps;
  llvm::SmallVector<llvm::StringRef> names;
  llvm::StringRef(list).split(names, ',', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef name : names) {
    std::optional<EpilogueStep> step;
    for (int i = int(EpilogueStep::Scale); i <= int(EpilogueStep::Silu); ++i)
      if (name.trim() == epilogueStepName(EpilogueStep(i)))
        step = EpilogueStep(i);
    if (!step)
      fail("unknown epilogue step '" + name.str() +
           "'; expected scale, bias, residual, relu, gelu_tanh, gelu_erf or silu");
    steps.push_back(*step);
  }
  return steps;
}

Along parseAlong(const std::string &name, const char *vector) {
  if (name == "row")
    return Along::Rows;
  if (name == "col")
    return Along::Cols;
  fail("the " + std::string(vector) + " runs along row or col, not '" + name + "'");
}

F32Precision parsePrecision(const std::string &name) {
  if (name == "highest")
    return F32Precision::Highest;
  if (name == "high")
    return F32Precision::High;
  if (name == "medium")
    return F32Precision::Medium;
  if (name == "tf32")
    return F32Precision::Tf32;
  fail("--precision takes highest, high, medium or tf32, not '" + name + "'");
}

Layout parseLayout(const std::string &name, const char *matrix) {
  if (name == "row")
    return Layout::RowMajor;
  if (name == "col")
    return Layout::ColMajor;
  fail(std::string("unsupported layout '") + name + "' for " + matrix + "; expected row or col");
}

/// Where the human-readable report goes: stdout, or stderr under --json.
llvm::raw_ostream &text() { return opt().jsonReport ? llvm::errs() : llvm::outs(); }

/// What --json prints when the run ends.
llvm::json::Object &report() {
  static llvm::json::Object object;
  return object;
}

namespace {
/// The request's target, once asked for (run() resets it).
std::optional<Target> chosenTarget;
} // namespace

const Target &target() {
  if (!chosenTarget)
    chosenTarget = [] {
      Result<Cuda *> cuda = Cuda::get();
      Target t =
          cuda ? (*cuda)->target() : *referenceTarget(opt().chip.empty() ? "sm_90" : opt().chip);
      if (!opt().chip.empty() && t.chip != opt().chip) {
        t.chip = opt().chip;
        SharedMemory shared = sharedMemoryOf(opt().chip);
        t.sharedBytesPerBlock = std::min(t.sharedBytesPerBlock, shared.perBlock);
        t.sharedBytesPerMultiprocessor =
            std::min(t.sharedBytesPerMultiprocessor, shared.perMultiprocessor);
      }
      // The part's clusters do not hold for another count of
      // multiprocessors: unknown, as many as they hold.
      if (opt().targetMultiprocessors) {
        t.multiprocessors = opt().targetMultiprocessors;
        std::fill(std::begin(t.clustersAtOnce), std::end(t.clustersAtOnce), 0);
      }
      if (opt().targetL2Bytes)
        t.l2Bytes = opt().targetL2Bytes;
      return t;
    }();
  return *chosenTarget;
}

/// "No GPU found (why): <what was done>; chosen for sm_90's reference part,
/// an H100 SXM (132 multiprocessors, 50 MiB L2)."
void reportNoGpu(const std::string &why, const std::string &done) {
  const Target &t = target();
  text() << "No GPU found (" << why << "): " << done << "; chosen for " << t.chip
         << "'s reference part, an " << t.part << " (" << t.multiprocessors << " multiprocessors, "
         << (t.l2Bytes >> 20) << " MiB L2).\n";
  report()["no_gpu"] = why;
}

/// The device and the (first) kernel's resources, for --json.
void reportDevice(const Cuda &gpu, int registers, int spilled, int64_t sharedBytes) {
  report()["device"] = llvm::json::Object{
      {"name", gpu.device().name},
      {"compute_capability",
       llvm::formatv("{0}.{1}", gpu.device().computeMajor, gpu.device().computeMinor).str()},
      {"multiprocessors", gpu.device().multiprocessors},
      {"registers", registers},
      {"spilled_bytes", spilled},
      {"shared_bytes", sharedBytes}};
}

LoadedPlan loadPlan(Cuda &gpu, const mlir::spio::CompiledModule &compiled, LaunchPlan plan,
                    bool dependentLaunches) {
  std::set<std::string> dependents;
  if (dependentLaunches)
    for (std::string &name : dependentKernels(compiled.ptx))
      dependents.insert(std::move(name));
  Module module = orFail(gpu.loadPTX(compiled.ptx), "loading PTX");
  std::map<std::string, CompiledResources> resources;
  for (const mlir::spio::CompiledKernel &kernel : compiled.kernels)
    resources[kernel.name] = {kernel.sharedBytes, kernel.blockSize};
  Launcher launcher = orFail(Launcher::create(std::move(plan), gpu, module, resources, dependents),
                             "looking up the kernels");
  return {std::move(module), std::move(launcher)};
}

/// Prints and reports (--json) the device and the resources of the plan's
/// kernel `index`.
void reportKernel(const Cuda &gpu, const Launcher &launcher, size_t index) {
  auto [regs, local] = orFail(launcher.kernel(index).resources(), "reading kernel resources");
  int64_t shared = launcher.sharedBytes(index);
  text() << "device: " << gpu.device().name << " (sm_" << gpu.device().computeMajor
         << gpu.device().computeMinor << ", " << gpu.device().multiprocessors
         << " SMs); kernel: " << regs << " registers, " << local << " bytes spilled, " << shared
         << " bytes shared\n";
  reportDevice(gpu, regs, local, shared);
}

/// Compiles a workload's spio source, or prints it (--emit-spio) or its PTX
/// (--emit-ptx) and returns nothing: then there is nothing to run.
std::optional<CompiledWorkload> compileWorkload(const BuildWorkload &build, const char *name) {
  std::unique_ptr<mlir::MLIRContext> context = mlir::spio::makeCompilerContext();
  mlir::spio::loadWorkloadDialects(context.get());
  auto start = std::chrono::steady_clock::now();
  mlir::OwningOpRef<mlir::ModuleOp> module = build(context.get());
  if (opt().emitSpio) {
    module->print(llvm::outs());
    return std::nullopt;
  }
  mlir::spio::CompileOptions options;
  options.chip = target().chip;
  options.printIRAfterAll = opt().printIRAfterAll;
  CompiledWorkload result;
  std::string error;
  if (!mlir::spio::compileModuleToPTXCached(*module, options, result.module, error, result.outcome,
                                            result.source, !opt().noDiskCache,
                                            std::string("spio-") + name))
    fail(std::string("compiling the ") + name + " kernel:\n" + error);
  result.ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  if (opt().emitPTX) {
    llvm::outs() << result.module.ptx;
    return std::nullopt;
  }
  return result;
}

/// Poisons `out` (every byte 0xff, a NaN in every float format), runs the
/// kernel once and returns what it wrote.
void runPoisoned(Cuda &gpu, DeviceBuffer &out, const std::function<Status()> &launch,
                 std::vector<uint8_t> &bytes) {
  orFail(out.fill32(0xffffffffu), "poisoning the output");
  orFail(launch(), "launching the kernel");
  orFail(gpu.synchronize(), "running the kernel");
  orFail(out.download(bytes.data(), bytes.size()), "downloading the output");
}

/// Fails unless `repeats` - 1 more runs, each on a freshly poisoned output,
/// write exactly `first`.
static void requireBitIdentical(Cuda &gpu, DeviceBuffer &out, const std::function<Status()> &launch,
                                const std::vector<uint8_t> &first) {
  std::vector<uint8_t> again(first.size());
  for (int rep = 1; rep < opt().repeats; ++rep) {
    runPoisoned(gpu, out, launch, again);
    if (again != first)
      fail("run " + std::to_string(rep + 1) + " differs from run 1: not bit-identical");
  }
}

/// Fails unless every output `reference` checked passed, then requires
/// `repeats` bit-identical runs and reports the summary, e.g. "check: 64
/// weights within tolerance (max error / sum|x*dy| = ...)", with a digest of
/// the output's bytes (xxh3, 64 bits) by which runs of other configurations
/// or builds can be compared bit for bit.
void finishCheck(const ReferenceCheck &reference, const char *what, const char *magnitudeName,
                 Cuda &gpu, DeviceBuffer &out, const std::function<Status()> &launch,
                 const std::vector<uint8_t> &first) {
  if (reference.wrong()) {
    for (const std::string &failure : reference.firstFailures())
      llvm::errs() << "  " << failure << "\n";
    fail(std::to_string(reference.wrong()) + " of " + std::to_string(reference.checked()) +
         " checked " + what + " are wrong");
  }
  requireBitIdentical(gpu, out, launch, first);
  uint64_t digest = llvm::xxh3_64bits(first);
  char hex[17];
  std::snprintf(hex, sizeof(hex), "%016llx", (unsigned long long)digest);
  text() << llvm::format("check: %zu %s within tolerance (max error / %s = %.2e); "
                         "%d runs bit-identical; output digest %s\n",
                         reference.checked(), what, magnitudeName, reference.worstRelativeError(),
                         std::max(1, int(opt().repeats)), hex);
  llvm::json::Value &checks = report()["check"];
  if (!checks.getAsObject())
    checks = llvm::json::Object{};
  (*checks.getAsObject())[what] =
      llvm::json::Object{{"checked", int64_t(reference.checked())},
                         {"max_error", reference.worstRelativeError()},
                         {"relative_to", magnitudeName},
                         {"identical_runs", std::max(1, int(opt().repeats))},
                         {"digest", std::string(hex)}};
}

static const char *timingName() { return opt().timing == Timing::Queued ? "queued" : "launch"; }

/// Sorted milliseconds of `bench` event-timed runs after `warmup` untimed.
static std::vector<float> timeRuns(Cuda &gpu, const std::function<Status()> &launch) {
  for (int i = 0; i < opt().warmup; ++i)
    orFail(launch(), "launching the kernel");
  std::vector<float> times;
  for (int i = 0; i < opt().bench; ++i)
    times.push_back(orFail(gpu.timeMs(launch, opt().timing), "timing the kernel"));
  std::sort(times.begin(), times.end());
  return times;
}

/// Times the runs (timeRuns) and reports their median and the TFLOP/s of
/// `flops` a run.
void reportBench(Cuda &gpu, const std::function<Status()> &launch, double flops) {
  std::vector<float> times = timeRuns(gpu, launch);
  float median = times[times.size() / 2];
  double tflops = flops / (median * 1e-3) / 1e12;
  text() << llvm::format("bench: median %.4f ms over %d runs (%s timing; min %.4f, max %.4f): "
                         "%.1f TFLOP/s\n",
                         median, int(opt().bench), timingName(), times.front(), times.back(),
                         tflops);
  report()["bench"] = llvm::json::Object{{"median_ms", median},    {"min_ms", times.front()},
                                         {"max_ms", times.back()}, {"runs", int(opt().bench)},
                                         {"timing", timingName()}, {"tflops", tflops}};
}

/// The fastest is recorded keyed by the device and the candidates' sources,
/// as the Python package's autotuning reads it; 0, the chooser's, where
/// there is one candidate.
size_t fastestCandidate(Cuda &gpu, const std::vector<std::function<Status()>> &launches,
                        const std::vector<std::string> &names,
                        const std::vector<llvm::json::Value> &configs,
                        const std::vector<CompiledWorkload> &builds, size_t listed) {
  if (launches.size() < 2)
    return 0;
  std::vector<double> ms = orFail(kernels::timeCandidates(gpu, launches, opt().timing),
                                  "timing the autotune candidates");
  for (size_t i = 0; i < launches.size(); ++i)
    text() << llvm::format("autotune: %-44s %.4f ms%s\n", names[i].c_str(), ms[i],
                           i == 0 ? " (the chooser's)" : "");
  size_t fastest = kernels::fastestCandidate(ms);
  llvm::json::Array timed;
  for (size_t i = 0; i < launches.size(); ++i)
    timed.push_back(llvm::json::Object{{"name", names[i]}, {"config", configs[i]}, {"ms", ms[i]}});
  report()["autotune"] = llvm::json::Object{{"candidates", std::move(timed)},
                                            {"listed", int64_t(listed)},
                                            {"fastest", int64_t(fastest)},
                                            {"timing", timingName()}};
  std::string key;
  for (const CompiledWorkload &build : builds)
    key += build.source + "\n";
  if (!opt().noDiskCache)
    mlir::spio::storeAutotuned(gpu.device().name, key, builds.size(), fastest);
  return fastest;
}

/// --autotune --check: every candidate's output (each run poisoned into
/// `out`) must be the chosen one's `bits`.
void expectCandidatesBits(Cuda &gpu, DeviceBuffer &out,
                          const std::vector<std::function<Status()>> &launches,
                          const std::vector<std::string> &names, size_t chosen,
                          const std::vector<uint8_t> &bits) {
  std::vector<uint8_t> other(bits.size());
  for (size_t i = 0; i < launches.size(); ++i) {
    if (i == chosen)
      continue;
    runPoisoned(gpu, out, launches[i], other);
    if (other != bits)
      fail("autotune: " + names[i] + " wrote other bits than " + names[chosen]);
  }
  if (launches.size() > 1)
    text() << "autotune: all " << launches.size() << " candidates wrote bit-identical outputs\n";
}

/// Times `launch` (--bench runs) and prints the median as GB/s of `bytes`.
void reportBandwidth(Cuda &gpu, const std::function<Status()> &launch, double bytes) {
  std::vector<float> times = timeRuns(gpu, launch);
  float median = times[times.size() / 2];
  double gbps = bytes / (median * 1e-3) / 1e9;
  text() << llvm::format("bench: median %.4f ms over %d runs (%s timing): %.1f GB/s\n", median,
                         int(opt().bench), timingName(), gbps);
  report()["bench"] = llvm::json::Object{{"median_ms", median},    {"min_ms", times.front()},
                                         {"max_ms", times.back()}, {"runs", int(opt().bench)},
                                         {"timing", timingName()}, {"gbps", gbps}};
}

/// The tile options given (0: the chooser's) over `config`.
void applyTileOptions(GemmConfig &config) {
  if (opt().blockM)
    config.blockM = opt().blockM;
  if (opt().blockN)
    config.blockN = opt().blockN;
  if (opt().blockK)
    config.blockK = opt().blockK;
  if (opt().stages)
    config.stages = opt().stages;
  if (opt().warpsM)
    config.warpsM = opt().warpsM;
  if (opt().warpsN)
    config.warpsN = opt().warpsN;
  if (opt().raster)
    config.raster = opt().raster;
  // A tile given by hand is neither swapped, split, ping-pong, persistent
  // nor paired unless said so, and has the default stages.
  if (opt().blockM || opt().blockN || opt().blockK || opt().warpsM || opt().warpsN ||
      opt().persistent || opt().cluster) {
    config.swapAB = false;
    config.splitK = 1;
    config.pingpong = false;
    config.streamK = false;
    config.persistent = 0;
    config.cluster = 1;
    if (!opt().stages)
      config.stages = GemmConfig().stages;
  }
  if (opt().persistent)
    config.persistent = std::max<int64_t>(int64_t(opt().persistent), 0);
  if (opt().cluster)
    config.cluster = opt().cluster;
  if (opt().swapAB)
    config.swapAB = *opt().swapAB;
  if (opt().splitK)
    config.splitK = opt().splitK;
  if (opt().pingpong)
    config.pingpong = *opt().pingpong;
  if (opt().promote)
    config.promote = *opt().promote;
  if (opt().kRanges)
    config.kRanges = opt().kRanges;
  if (opt().streamK)
    config.streamK = *opt().streamK;
}

[[noreturn]] void fail(const std::string &message) {
  llvm::errs() << "spio-jit: error: " << message << "\n";
  std::exit(1);
}

int run(const Request &request) {
  current = &request;
  chosenTarget.reset();
  report() = llvm::json::Object();
  if (!request.chip.empty())
    if (std::string why = checkChip(request.chip); !why.empty())
      fail("--chip: " + why);
  if (std::string why = checkTarget(target()); !why.empty())
    fail("--multiprocessors and --l2-bytes: " + why);
  const Target &t = target();
  report()["target"] = llvm::json::Object{
      {"chip", t.chip},
      {"part", t.part},
      {"multiprocessors", t.multiprocessors},
      {"l2_bytes", t.l2Bytes},
      {"shared_bytes_per_block", t.sharedBytesPerBlock},
      {"shared_bytes_per_multiprocessor", t.sharedBytesPerMultiprocessor},
      {"memory_bytes_per_second", t.memoryBytesPerSecond},
      {"clusters_at_once", llvm::json::Array{t.clusters(2), t.clusters(3), t.clusters(4)}}};
  for (auto [name, count] : {std::pair{"bench", request.bench}, std::pair{"warmup", request.warmup},
                             std::pair{"repeats", request.repeats}})
    if (count < 0)
      fail(std::string("--") + name + " takes a count of 0 or more, got " + std::to_string(count));
  if (request.inputFile.empty() && request.workload != "gemm" && request.workload != "conv2d" &&
      request.workload != "conv2d-gw8")
    fail("unknown workload '" + request.workload + "'; expected gemm, conv2d or conv2d-gw8");
  if (request.jsonReport && (request.emitSpio || request.emitPTX))
    fail("--json reports a run; --emit-spio and --emit-ptx print the kernel instead");
  int status = !request.inputFile.empty()         ? runFile()
               : request.workload == "conv2d-gw8" ? runConv()
               : request.workload == "conv2d"     ? runConv2d()
                                                  : runGemm();
  if (request.jsonReport)
    llvm::outs() << llvm::formatv("{0:2}", llvm::json::Value(std::move(report()))) << "\n";
  current = nullptr;
  return status;
}

} // namespace spio::jit
