//===- spio-jit.cpp - Compile and run Spio kernels on the GPU -------------===//
//
//   spio-jit --workload gemm --m 4096 --n 4096 --k 4096 --dtype bf16 \
//            --a-layout row --b-layout col --check --bench 50
//   spio-jit kernel.mlir --emit-ptx
//
// Compiles in process (spio dialect -> PTX), loads the PTX through the CUDA
// driver, runs, checks against a float64 CPU reference and times with
// events. Without a GPU it still compiles, and says so.
//
//===----------------------------------------------------------------------===//

#include "spio/Compiler/AutotuneCache.h"
#include "spio/Compiler/Cache.h"
#include "spio/Compiler/Version.h"
#include "spio/Kernels/Autotune.h"
#include "spio/Kernels/Conv2dGw8.h"
#include "spio/Kernels/Gemm.h"
#include "spio/Kernels/IR/Conv2dGw8Kernel.h"
#include "spio/Kernels/IR/GemmKernel.h"
#include "spio/Kernels/Launcher.h"
#include "spio/Runtime/Cuda.h"
#include "spio/Target/Target.h"
#include "spio/Testing/Reference.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <set>

using namespace spio;
using namespace spio::kernels;
using namespace spio::runtime;
using namespace spio::testing;
namespace cl = llvm::cl;

/// spio-jit's own options, grouped for --help, which lists only these.
/// LLVM's (the NVPTX back end's, say) still parse, and bypass the PTX cache
/// (llvmOptionsGiven).
static cl::OptionCategory workloadOptions("Workload and compilation");
static cl::OptionCategory runOptions("Checking and timing");
static cl::OptionCategory gemmOptions("GEMM (--workload gemm)");
static cl::OptionCategory tileOptions(
    "Tile configuration (0: the chooser's; conv2d-gw8's adjust its rules' configuration)");
static cl::OptionCategory convOptions("conv2d-gw8 (--workload conv2d-gw8)");
static cl::OptionCategory wgradOptions("conv2d-gw8 wgrad");
static cl::OptionCategory denseConvOptions("Dense conv2d (--workload conv2d; also the "
                                           "conv2d-gw8 sizes, --epilogue and the tile options)");
static const cl::OptionCategory *const jitOptions[] = {
    &workloadOptions, &runOptions,   &gemmOptions,     &tileOptions,
    &convOptions,     &wgradOptions, &denseConvOptions};

static cl::opt<std::string> inputFile(cl::Positional, cl::cat(workloadOptions),
                                      cl::desc("[kernel.mlir]"), cl::init(""));
static cl::opt<std::string> workload("workload", cl::cat(workloadOptions),
                                     cl::desc("Built-in workload: gemm, conv2d or conv2d-gw8"),
                                     cl::init("gemm"));
static cl::opt<std::string> dtype("dtype", cl::cat(workloadOptions),
                                  cl::desc("Input type: f16 or bf16 (gemm: or f32)"),
                                  cl::init("bf16"));
static cl::opt<std::string> outDtype("out-dtype", cl::cat(workloadOptions),
                                     cl::desc("Output type: f16, bf16 or f32 (conv2d-gw8: wgrad's "
                                              "dw as f32); default: the input's"),
                                     cl::init(""));
static cl::opt<std::string> chip("chip", cl::cat(workloadOptions),
                                 cl::desc("The chip to compile for (default: the GPU's, "
                                          "else sm_90)"),
                                 cl::init("sm_90"));
static cl::opt<bool> emitPTX("emit-ptx", cl::cat(workloadOptions),
                             cl::desc("Print the PTX and stop"), cl::init(false));
static cl::opt<bool> emitSpio("emit-spio", cl::cat(workloadOptions),
                              cl::desc("Print the workload module and stop"), cl::init(false));
static cl::opt<bool> noDiskCache("no-disk-cache", cl::cat(workloadOptions),
                                 cl::desc("Bypass the on-disk PTX cache"), cl::init(false));
static cl::opt<bool> printIRAfterAll("print-ir-after-all", cl::cat(workloadOptions),
                                     cl::desc("Print the IR after every pass"), cl::init(false));

static cl::opt<bool> check("check", cl::cat(runOptions),
                           cl::desc("Check against a float64 CPU reference"), cl::init(false));
static cl::opt<int> repeats("repeats", cl::cat(runOptions),
                            cl::desc("Runs that must write the first's bits (with --check)"),
                            cl::init(10));
static cl::opt<int> bench("bench", cl::cat(runOptions), cl::desc("Timed runs (0: no timing)"),
                          cl::init(0));
static cl::opt<int> warmup("warmup", cl::cat(runOptions), cl::desc("Untimed runs before timing"),
                           cl::init(5));
static cl::opt<Timing>
    timing("timing", cl::cat(runOptions), cl::desc("Where --bench's clock starts"),
           cl::values(clEnumValN(Timing::Queued, "queued",
                                 "launches queued behind a hold kernel: the GPU's time alone"),
                      clEnumValN(Timing::Launch, "launch",
                                 "before the launch calls: one launch on an idle GPU")),
           cl::init(Timing::Queued));
static cl::opt<bool>
    jsonReport("json", cl::cat(runOptions),
               cl::desc("Print one JSON object on stdout (problem, configuration, compile, "
                        "device, check, timing) and the text on stderr"),
               cl::init(false));
static cl::opt<unsigned> seed("seed", cl::cat(runOptions), cl::desc("Seed of the random inputs"),
                              cl::init(1));

static cl::opt<int64_t> sizeM("m", cl::cat(gemmOptions), cl::desc("Rows of D"), cl::init(1024));
static cl::opt<int64_t> sizeN("n", cl::cat(gemmOptions), cl::desc("Columns of D"),
                              cl::init(1024));
static cl::opt<int64_t> sizeK("k", cl::cat(gemmOptions), cl::desc("Reduction depth"),
                              cl::init(1024));
static cl::opt<std::string> aLayout("a-layout", cl::cat(gemmOptions),
                                    cl::desc("A: row (M x K) or col (K x M)"), cl::init("row"));
static cl::opt<std::string> bLayout("b-layout", cl::cat(gemmOptions),
                                    cl::desc("B: row (K x N) or col (N x K)"), cl::init("col"));
static cl::opt<float> alpha("alpha", cl::cat(gemmOptions), cl::desc("D = alpha * A @ B + beta * C"),
                            cl::init(1.0f));
static cl::opt<float> beta("beta", cl::cat(gemmOptions), cl::desc("D = alpha * A @ B + beta * C"),
                           cl::init(0.0f));

static cl::opt<std::string>
    epilogue("epilogue", cl::cat(gemmOptions),
             cl::desc("Steps after A @ B, in order (scale,bias,residual,relu,gelu_tanh,...)"));
static cl::opt<int64_t>
    groupCount("groups", cl::cat(gemmOptions), cl::init(0),
               cl::desc("Grouped GEMM: G groups of random row counts adding up to M, B a "
                        "matrix a group"));
static cl::opt<int64_t> batchCount("gemm-batch", cl::cat(gemmOptions),
                                   cl::desc("Problems in the batch"), cl::init(1));
static cl::opt<std::string>
    broadcast("broadcast", cl::cat(gemmOptions),
              cl::desc("The operand (a or b) one matrix of serves the whole batch"));
static cl::opt<bool>
    batchInvariant("batch-invariant", cl::cat(gemmOptions),
                   cl::desc("Rows whose bits do not depend on M (K split alike)"));
static cl::opt<std::string>
    precision("precision", cl::cat(gemmOptions), cl::init("highest"),
              cl::desc("f32 inputs: highest (3 bf16 terms), high (2) or medium (1)"));
static cl::opt<std::string> biasAlong("bias-along", cl::cat(gemmOptions),
                                      cl::desc("The bias (D's dtype): one a row or col"),
                                      cl::init("col"));
static cl::opt<std::string> scaleAlong("scale-along", cl::cat(gemmOptions),
                                       cl::desc("The scale (f32): one a row or col"),
                                       cl::init("col"));

static cl::opt<int64_t> blockM("block-m", cl::cat(tileOptions), cl::desc("GEMM tile rows"),
                               cl::init(0));
static cl::opt<int64_t> blockN("block-n", cl::cat(tileOptions), cl::desc("GEMM tile columns"),
                               cl::init(0));
static cl::opt<int64_t> blockK("block-k", cl::cat(tileOptions), cl::desc("GEMM tile depth"),
                               cl::init(0));
static cl::opt<int64_t> raster("raster", cl::cat(tileOptions),
                               cl::desc("GEMM block rows taken together for L2 reuse"),
                               cl::init(0));
static cl::opt<int64_t>
    persistent("persistent", cl::cat(tileOptions),
               cl::desc("GEMM (wgmma) persistent grid: blocks that take the tiles in turn "
                        "(-1: one a tile)"),
               cl::init(0));
static cl::opt<int64_t>
    cluster("cluster", cl::cat(tileOptions),
            cl::desc("GEMM (persistent wgmma) blocks of a cluster sharing B tiles (1 or 2)"),
            cl::init(0));
static cl::opt<cl::boolOrDefault>
    swapAB("swap", cl::cat(tileOptions),
           cl::desc("GEMM (wgmma): warpgroups along N, wgmma's N along M (for small M; "
                    "default: the chooser's, off with a tile given)"));
static cl::opt<int64_t>
    splitK("split-k", cl::cat(tileOptions),
           cl::desc("GEMM (wgmma): blocks of a cluster splitting each tile's K (1 to 8; "
                    "default: the chooser's, 1 with a tile given)"),
           cl::init(0));
static cl::opt<bool>
    pingpong("pingpong", cl::cat(tileOptions),
             cl::desc("GEMM (persistent wgmma): compute warpgroups take whole tiles in turn "
                      "(default: the chooser's, off with a tile given)"));
static cl::opt<cl::boolOrDefault>
    promote("promote", cl::cat(tileOptions),
            cl::desc("GEMM (wgmma): add each k-tile's sums to the running ones in f32 "
                     "(default: the chooser's, on for f32 at the highest precision)"));
static cl::opt<int64_t>
    kRanges("k-ranges", cl::cat(tileOptions), cl::init(0),
            cl::desc("GEMM (wgmma): ranges of k-tiles a block sums apart and adds in order, as "
                     "--split-k splits them (default: the chooser's)"));
static cl::opt<int64_t> stages("stages", cl::cat(tileOptions),
                               cl::desc("GEMM pipeline stages"), cl::init(0));
static cl::opt<cl::boolOrDefault>
    gemmWgmma("wgmma", cl::cat(tileOptions),
              cl::desc("GEMM on Hopper's warpgroup wgmma (default: on sm_90 where A and B are "
                       "K-major; =false: mma.sync)"));
static cl::opt<int64_t> warpsM("warps-m", cl::cat(tileOptions),
                               cl::desc("Warps along M (conv2d-gw8: along Q)"), cl::init(0));
static cl::opt<int64_t> warpsN("warps-n", cl::cat(tileOptions),
                               cl::desc("Warps along N (conv2d-gw8: along groups)"), cl::init(0));
static cl::opt<int64_t> convRowsP("rows-p", cl::cat(tileOptions),
                                  cl::desc("conv2d-gw8 output rows a block"), cl::init(0));
static cl::opt<int64_t>
    convChunks("chunks", cl::cat(tileOptions),
               cl::desc("conv2d-gw8 blocks a group tile along wgrad's reduction or the bands"),
               cl::init(0));
static cl::opt<int64_t>
    convCopyWarps("copy-warps", cl::cat(tileOptions),
                  cl::desc("conv2d-gw8 fprop and dgrad warps that only copy rows in"),
                  cl::init(0));

static cl::opt<int64_t> convK("out-channels", cl::cat(denseConvOptions),
                              cl::desc("Output channels K (0: C)"), cl::init(0));
static cl::opt<int64_t> convDilation("dilation", cl::cat(denseConvOptions),
                                     cl::desc("Dilation of both sides"), cl::init(1));
static cl::opt<int64_t> convParts("parts", cl::cat(denseConvOptions),
                                  cl::desc("conv2d wgrad: the reduction's parts, added by a "
                                           "reduce kernel (0: choose)"),
                                  cl::init(0));
static cl::opt<std::string> convPass("pass", cl::cat(convOptions),
                                     cl::desc("fprop, dgrad or wgrad (conv2d: fprop or dgrad)"),
                                     cl::init("fprop"));
static cl::opt<int64_t> convN("batch", cl::cat(convOptions), cl::desc("Images N"), cl::init(8));
static cl::opt<int64_t> convC("channels", cl::cat(convOptions), cl::desc("Channels C (conv2d-gw8: C = K)"),
                              cl::init(64));
static cl::opt<int64_t> convH("height", cl::cat(convOptions), cl::desc("Input height H"),
                              cl::init(56));
static cl::opt<int64_t> convW("width", cl::cat(convOptions), cl::desc("Input width W"),
                              cl::init(56));
static cl::opt<int64_t> convR("r", cl::cat(convOptions), cl::desc("Kernel height R"),
                              cl::init(3));
static cl::opt<int64_t> convS("s", cl::cat(convOptions), cl::desc("Kernel width S"), cl::init(3));
static cl::opt<int64_t> padH("pad-h", cl::cat(convOptions), cl::desc("Padding of H"),
                             cl::init(1));
static cl::opt<int64_t> padW("pad-w", cl::cat(convOptions), cl::desc("Padding of W"),
                             cl::init(1));
static cl::opt<int64_t> convStride("stride", cl::cat(convOptions), cl::desc("Stride (conv2d-gw8: 1 or 2; conv2d: 1 to 8)"),
                                   cl::init(1));
static cl::opt<int64_t>
    convGroupWidth("group-width", cl::cat(convOptions),
                   cl::desc("conv2d-gw8 channels a group: 8, or 1 (depthwise), 2 or 4"),
                   cl::init(8));
static cl::opt<bool> convBias("bias", cl::cat(convOptions),
                              cl::desc("Add a bias (fprop); also its gradient (wgrad)"),
                              cl::init(false));
static cl::opt<bool>
    convAutotune("autotune", cl::cat(convOptions),
                 cl::desc("Time the chosen configuration and its neighbours; run the fastest"),
                 cl::init(false));
static cl::opt<int64_t> targetMultiprocessors(
    "multiprocessors", cl::cat(workloadOptions),
    cl::desc("The target's multiprocessors (0: the GPU's, else the chip's reference part's)"),
    cl::init(0));
static cl::opt<int64_t> targetL2Bytes(
    "l2-bytes", cl::cat(workloadOptions),
    cl::desc("The target's L2 bytes (0: the GPU's, else the chip's reference part's)"),
    cl::init(0));

static cl::opt<bool> convDependentLaunch(
    "dependent-launch", cl::cat(wgradOptions),
    cl::desc("Launch the reduce as a dependent grid (sm_90 and later)"), cl::init(true));
/// Which of conv2d-gw8 wgrad's kernels --bench times.
enum class WgradKernels { Both, PartialSums, Reduce };
static cl::opt<WgradKernels> wgradKernels(
    "wgrad-kernels", cl::cat(wgradOptions), cl::desc("The kernels --bench times"),
    cl::values(clEnumValN(WgradKernels::Both, "both", "the partial sums and the reduce"),
               clEnumValN(WgradKernels::PartialSums, "partial-sums", "the partial sums alone"),
               clEnumValN(WgradKernels::Reduce, "reduce",
                          "the reduce alone, not a dependent grid, over a run's partial sums")),
    cl::init(WgradKernels::Both));
static cl::opt<bool> wgradClusterReduce(
    "wgrad-cluster-reduce", cl::cat(wgradOptions),
    cl::desc("One kernel adding its partial sums in a cluster (sm_90; at most 8 sums)"),
    cl::init(false));
static cl::opt<bool>
    wgradEarlyLaunch("wgrad-early-launch", cl::cat(wgradOptions),
                     cl::desc("Let the reduce launch as the partial sums' blocks start"),
                     cl::init(false));
static cl::opt<int64_t> wgradStagesOption("wgrad-stages", cl::cat(wgradOptions),
                                          cl::desc("Band loop buffers, 1 to 4 (0: choose)"),
                                          cl::init(0));
static cl::opt<int64_t>
    wgradReduceLaneElements("wgrad-reduce-lane-elements", cl::cat(wgradOptions),
                            cl::desc("dw elements a reduce lane adds, 1, 2 or 4 (0: choose)"),
                            cl::init(0));
static cl::opt<bool>
    wgradRowRing("wgrad-row-ring", cl::cat(wgradOptions),
                 cl::desc("Hand each band's last R - 1 rows of x on to the next (=false: never)"),
                 cl::init(false));
static cl::opt<WgradParts> wgradParts(
    "wgrad-parts", cl::cat(wgradOptions),
    cl::desc("Run one part of the band loop alone, to time it (wrong sums)"),
    cl::values(clEnumValN(WgradParts::All, "all", "the whole loop"),
               clEnumValN(WgradParts::Copies, "copies", "its copies alone"),
               clEnumValN(WgradParts::CopiesWithoutRowHalo, "copies-without-row-halo",
                          "the copies of as many x rows as a band has dy rows"),
               clEnumValN(WgradParts::Mma, "mma", "its fragment loads and mma alone")),
    cl::init(WgradParts::All));
static cl::opt<WgradDiscard> wgradDiscardPartials(
    "wgrad-discard-partials", cl::cat(wgradOptions),
    cl::desc("Drop the read partial sums from L2 unwritten"),
    cl::values(clEnumValN(WgradDiscard::Auto, "auto",
                          "where the layer and its partial sums outgrow 3/4 of the L2"),
               clEnumValN(WgradDiscard::Always, "always", "wherever a channel fits a block"),
               clEnumValN(WgradDiscard::Never, "never", "never")),
    cl::init(WgradDiscard::Auto));

namespace {

[[noreturn]] void fail(const std::string &message) {
  llvm::errs() << "spio-jit: error: " << message << "\n";
  std::exit(1);
}

template <typename T>
T orFail(Result<T> result, const char *what) {
  if (!result)
    fail(std::string(what) + ": " + result.error().message);
  return std::move(*result);
}

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
  fail("--precision takes highest, high or medium, not '" + name + "'");
}

Layout parseLayout(const std::string &name, const char *matrix) {
  if (name == "row")
    return Layout::RowMajor;
  if (name == "col")
    return Layout::ColMajor;
  fail(std::string("unsupported layout '") + name + "' for " + matrix + "; expected row or col");
}

/// LLVM's options given on the command line, as "--name" in name order:
/// they are global state that can change the PTX without changing its
/// cache key. Read once, after the command line is parsed.
const std::string &llvmOptionsGiven() {
  static const std::string given = [] {
    std::vector<std::string> names;
    for (const auto &[name, option] : cl::getRegisteredOptions())
      if (option->getNumOccurrences() &&
          llvm::none_of(option->Categories, [](const cl::OptionCategory *category) {
            return llvm::is_contained(jitOptions, category);
          }))
        names.push_back("--" + name.str());
    llvm::sort(names);
    return llvm::join(names, ", ");
  }();
  return given;
}

/// Where the human-readable report goes: stdout, or stderr under --json.
llvm::raw_ostream &text() { return jsonReport ? llvm::errs() : llvm::outs(); }

/// What --json prints when the run ends.
llvm::json::Object &report() {
  static llvm::json::Object object;
  return object;
}

/// What kernels are chosen and sized for: the GPU where there is one (its
/// shared memory the chip's where --chip names another), else --chip's
/// reference part; --multiprocessors and --l2-bytes over either.
const Target &target() {
  static const Target chosen = [] {
    Result<Cuda *> cuda = Cuda::get();
    Target t = cuda ? (*cuda)->target() : *referenceTarget(chip);
    if (chip.getNumOccurrences() && t.chip != chip) {
      t.chip = chip;
      SharedMemory shared = sharedMemoryOf(chip);
      t.sharedBytesPerBlock = std::min(t.sharedBytesPerBlock, shared.perBlock);
      t.sharedBytesPerMultiprocessor =
          std::min(t.sharedBytesPerMultiprocessor, shared.perMultiprocessor);
    }
    if (targetMultiprocessors)
      t.multiprocessors = targetMultiprocessors;
    if (targetL2Bytes)
      t.l2Bytes = targetL2Bytes;
    return t;
  }();
  return chosen;
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
      {"compute_capability", llvm::formatv("{0}.{1}", gpu.device().computeMajor,
                                           gpu.device().computeMinor)
                                 .str()},
      {"multiprocessors", gpu.device().multiprocessors},
      {"registers", registers},
      {"spilled_bytes", spilled},
      {"shared_bytes", sharedBytes}};
}

/// A launch plan on a compiled module's kernels, loaded on the GPU (the
/// module and the launcher of its kernels move together).
struct LoadedPlan {
  Module module;
  Launcher launcher;
};

LoadedPlan loadPlan(Cuda &gpu, const mlir::spio::CompiledModule &compiled, LaunchPlan plan,
                    const std::set<std::string> &dependents = {}) {
  Module module = orFail(gpu.loadPTX(compiled.ptx), "loading PTX");
  std::map<std::string, CompiledResources> resources;
  for (const mlir::spio::CompiledKernel &kernel : compiled.kernels)
    resources[kernel.name] = {kernel.sharedBytes, kernel.blockSize};
  Launcher launcher =
      orFail(Launcher::create(std::move(plan), gpu, module, resources, dependents),
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

/// A built-in workload's kernels, compiled through the cache.
struct CompiledWorkload {
  std::string source;
  mlir::spio::CompiledModule module;
  mlir::spio::CacheOutcome outcome;
  double ms;
};

/// Compiles a workload's spio source, or prints it (--emit-spio) or its PTX
/// (--emit-ptx) and returns nothing: then there is nothing to run.
std::optional<CompiledWorkload> compileWorkload(const std::string &source, const char *name) {
  if (emitSpio) {
    llvm::outs() << source;
    return std::nullopt;
  }
  mlir::spio::CompileOptions options;
  options.chip = target().chip;
  options.printIRAfterAll = printIRAfterAll;
  CompiledWorkload result;
  result.source = source;
  std::string error;
  auto start = std::chrono::steady_clock::now();
  if (!mlir::spio::compileToPTXCached(source, options, result.module, error, result.outcome,
                                      !noDiskCache && llvmOptionsGiven().empty(),
                                      std::string("spio-") + name + ".mlir"))
    fail(std::string("compiling the ") + name + " kernel:\n" + error);
  result.ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  if (emitPTX) {
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
void requireBitIdentical(Cuda &gpu, DeviceBuffer &out, const std::function<Status()> &launch,
                         const std::vector<uint8_t> &first) {
  std::vector<uint8_t> again(first.size());
  for (int rep = 1; rep < repeats; ++rep) {
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
                         reference.checked(), what, magnitudeName,
                         reference.worstRelativeError(), std::max(1, int(repeats)), hex);
  llvm::json::Value &checks = report()["check"];
  if (!checks.getAsObject())
    checks = llvm::json::Object{};
  (*checks.getAsObject())[what] =
      llvm::json::Object{{"checked", int64_t(reference.checked())},
                         {"max_error", reference.worstRelativeError()},
                         {"relative_to", magnitudeName},
                         {"identical_runs", std::max(1, int(repeats))},
                         {"digest", std::string(hex)}};
}

const char *timingName() { return timing == Timing::Queued ? "queued" : "launch"; }

/// Sorted milliseconds of `bench` event-timed runs after `warmup` untimed.
std::vector<float> timeRuns(Cuda &gpu, const std::function<Status()> &launch) {
  for (int i = 0; i < warmup; ++i)
    orFail(launch(), "launching the kernel");
  std::vector<float> times;
  for (int i = 0; i < bench; ++i)
    times.push_back(orFail(gpu.timeMs(launch, timing), "timing the kernel"));
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
                         median, int(bench), timingName(), times.front(), times.back(), tflops);
  report()["bench"] =
      llvm::json::Object{{"median_ms", median}, {"min_ms", times.front()}, {"max_ms", times.back()},
                         {"runs", int(bench)},  {"timing", timingName()},  {"tflops", tflops}};
}

/// --autotune: times the candidates (`builds`' kernels), prints each one's
/// time, records the fastest in the autotune cache (keyed by the device and
/// the candidates' sources, as the Python package's autotuning reads it)
/// and returns its index (0, the chooser's, where there is one).
size_t fastestCandidate(Cuda &gpu, const std::vector<std::function<Status()>> &launches,
                        const std::vector<std::string> &names,
                        const std::vector<CompiledWorkload> &builds) {
  if (launches.size() < 2)
    return 0;
  std::vector<double> ms =
      orFail(kernels::timeCandidates(gpu, launches, timing), "timing the autotune candidates");
  for (size_t i = 0; i < launches.size(); ++i)
    text() << llvm::format("autotune: %-44s %.4f ms%s\n", names[i].c_str(), ms[i],
                           i == 0 ? " (the chooser's)" : "");
  size_t fastest = kernels::fastestCandidate(ms);
  std::string key;
  for (const CompiledWorkload &build : builds)
    key += build.source + "\n";
  if (!noDiskCache)
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
    text() << "autotune: all " << launches.size()
                 << " candidates wrote bit-identical outputs\n";
}

/// Times `launch` (--bench runs) and prints the median as GB/s of `bytes`.
void reportBandwidth(Cuda &gpu, const std::function<Status()> &launch, double bytes) {
  std::vector<float> times = timeRuns(gpu, launch);
  float median = times[times.size() / 2];
  double gbps = bytes / (median * 1e-3) / 1e9;
  text() << llvm::format("bench: median %.4f ms over %d runs (%s timing): %.1f GB/s\n", median,
                         int(bench), timingName(), gbps);
  report()["bench"] = llvm::json::Object{{"median_ms", median}, {"min_ms", times.front()},
                                         {"max_ms", times.back()}, {"runs", int(bench)},
                                         {"timing", timingName()}, {"gbps", gbps}};
}

/// The tile options given (0: the chooser's) over `config`.
void applyTileOptions(GemmConfig &config) {
  if (blockM)
    config.blockM = blockM;
  if (blockN)
    config.blockN = blockN;
  if (blockK)
    config.blockK = blockK;
  if (stages)
    config.stages = stages;
  if (warpsM)
    config.warpsM = warpsM;
  if (warpsN)
    config.warpsN = warpsN;
  if (raster)
    config.raster = raster;
  if (persistent)
    config.persistent = std::max<int64_t>(int64_t(persistent), 0);
  if (cluster)
    config.cluster = cluster;
  // A tile given by hand is neither swapped, split nor ping-pong unless
  // said so.
  if (blockM || blockN || blockK || warpsM || warpsN || persistent || cluster) {
    config.swapAB = false;
    config.splitK = 1;
    config.pingpong = false;
  }
  if (swapAB != cl::BOU_UNSET)
    config.swapAB = swapAB == cl::BOU_TRUE;
  if (splitK)
    config.splitK = splitK;
  if (pingpong.getNumOccurrences())
    config.pingpong = pingpong;
  if (promote != cl::BOU_UNSET)
    config.promote = promote == cl::BOU_TRUE;
  if (kRanges)
    config.kRanges = kRanges;
}

/// Runs a compiled GEMM kernel on fresh random inputs: checks it against a
/// float64 reference (with --check) and times it (with --bench). `params`
/// says where each operand is among the kernel's parameters.
int runGemmKernel(Cuda &gpu, const GemmProblem &problem, const GemmConfig &config,
                  const mlir::spio::CompiledModule &compiled,
                  const mlir::spio::CompiledKernel &info,
                  const mlir::spio::GemmWorkload &params) {
  LoadedPlan loaded =
      loadPlan(gpu, compiled, gemmLaunchPlan(problem, config, params.params, info.name));
  Launcher &launcher = loaded.launcher;
  // The GEMM is the plan's last kernel, after any packing its operands.
  reportKernel(gpu, launcher, launcher.plan().kernels.size() - 1);

  // Fresh random inputs, rounded to the input type.
  size_t m = problem.m, n = problem.n, k = problem.k;
  // A batch's matrices one after the other; A or B the batch shares once.
  size_t batches = size_t(problem.batch);
  size_t batchesA = problem.batchA ? batches : 1, batchesB = problem.batchB ? batches : 1;
  // A grouped GEMM's groups: G - 1 random cuts of M's rows (empty groups
  // too), each group's end row, and each row's group.
  std::vector<int32_t> ends;
  std::vector<size_t> groupOf(m, 0);
  if (problem.groups > 0) {
    batchesB = size_t(problem.groups);
    std::mt19937_64 cuts(seed ^ 0x67726f757073ull);
    for (int64_t g = 0; g + 1 < problem.groups; ++g)
      ends.push_back(int32_t(cuts() % (m + 1)));
    ends.push_back(int32_t(m));
    std::sort(ends.begin(), ends.end());
    for (size_t g = ends.size(); g-- > 0;)
      for (size_t r = g ? size_t(ends[g - 1]) : 0; r < size_t(ends[g]); ++r)
        groupOf[r] = g;
  }
  HostMatrix a(problem.input, batchesA * m * k), b(problem.input, batchesB * k * n),
      c(problem.output, batches * m * n);
  a.fillUniform(seed, 0);
  b.fillUniform(seed, 1);
  if (problem.readsC)
    c.fillUniform(seed, 2);
  // The bias and scale vectors: M values (one a row) or N (one a column).
  auto vectorLength = [&](Along along) { return along == Along::Rows ? m : n; };
  HostMatrix bias(problem.biasType, problem.bias == Along::None ? 0 : vectorLength(problem.bias));
  HostMatrix scale(problem.scaleType,
                   problem.scale == Along::None ? 0 : vectorLength(problem.scale));
  bias.fillUniform(seed, 3);
  scale.fillUniform(seed, 4);
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
  // The plan encodes wgmma kernels' tensor maps of A and B.
  LaunchBindings bindings{{dA.pointer(), dB.pointer(), dC.pointer(), dD.pointer(),
                           dBias.pointer(), dScale.pointer(), dGroups.pointer()},
                          workspace.pointer(),
                          {float(alpha), problem.readsC ? float(beta) : 0.0f}};
  auto launch = [&]() { return launcher.run(bindings); };

  if (check) {
    HostMatrix d(problem.output, batches * m * n);
    runPoisoned(gpu, dD, launch, d.bytes);
    // Output rounding plus f32 accumulation error, which grows with depth
    // (the packed segments'), plus what splitting f32 inputs into bf16
    // terms leaves out of each product.
    ReferenceCheck reference(problem.output, double(gemmPackedProblem(problem).k),
                             gemmProductError(problem));
    std::vector<EpilogueStep> steps = epilogueSteps(problem);
    for (auto [bt, r, col] : gemmCheckedElements(problem, seed)) {
      size_t inA = problem.batchA ? bt : 0, inB = problem.batchB ? bt : 0;
      if (problem.groups > 0)
        inB = groupOf[r];
      size_t element = (bt * m + r) * n + col;
      auto vectorAt = [&](const HostMatrix &v, Along along) {
        if (along == Along::None)
          return 0.0;
        return double(v.values[along == Along::Rows ? r : col]);
      };
      ReferenceSum product = gemmReference(problem, a, b, inA, inB, r, col);
      auto [ref, magnitude] =
          applyEpilogue(steps, {alpha * product.sum, std::fabs(alpha) * product.magnitude},
                        vectorAt(scale, problem.scale), vectorAt(bias, problem.bias),
                        problem.readsC ? beta * double(c.values[element]) : 0.0);
      reference.add(d.read(element), ref, magnitude, [&] {
        return "D[" + (batches > 1 ? std::to_string(bt) + ", " : std::string()) +
               std::to_string(r) + ", " + std::to_string(col) + "]";
      });
    }
    finishCheck(reference, "elements", "sum|a*b|", gpu, dD, launch, d.bytes);
  }

  if (bench > 0) {
    reportBench(gpu, launch, 2.0 * double(batches) * double(m) * double(n) * double(k));
  }
  return 0;
}

/// Runs the compiled conv2d kernel `name` of `workload` (below).
int runConv2dKernel(Cuda &gpu, const mlir::spio::CompiledModule &compiled,
                    const std::string &name, const mlir::spio::Conv2dWorkload &workload);
/// conv2d's wgrad through `launcher` on fresh random x and dy: --check
/// against a float64 reference, --bench.
int runConv2dWgrad(Cuda &gpu, Launcher &launcher, const Conv2dProblem &problem);

int runFile() {
  auto buffer = llvm::MemoryBuffer::getFileOrSTDIN(inputFile);
  if (!buffer)
    fail("cannot read " + inputFile + ": " + buffer.getError().message());
  mlir::spio::CompileOptions options;
  options.chip = target().chip;
  options.printIRAfterAll = printIRAfterAll;
  mlir::spio::CompiledModule compiled;
  std::string error;
  if (!mlir::spio::compileToPTX((*buffer)->getBuffer().str(), options, compiled, error,
                                inputFile))
    fail("compiling " + inputFile + ":\n" + error);
  if (emitPTX) {
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
    text() << "  " << k.name << ": " << regs << " registers, " << local
                 << " bytes local memory, " << k.sharedBytes << " bytes shared memory\n";
  }
  // GEMM and conv2d workloads run like --workload gemm and conv2d, with the
  // file's own shapes.
  for (const mlir::spio::CompiledKernel &k : compiled.kernels) {
    if (k.gemm && (check || bench > 0)) {
      text() << "running " << k.name << " (a spio.gemm of " << k.gemm->problem.m << "x"
                   << k.gemm->problem.n << "x" << k.gemm->problem.k << ")\n";
      if (int status = runGemmKernel(**cuda, k.gemm->problem, k.gemm->config, compiled, k,
                                     *k.gemm))
        return status;
    }
    if (k.conv2d && (check || bench > 0)) {
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
  problem.m = sizeM;
  problem.n = sizeN;
  problem.k = sizeK;
  problem.input = parseDType(dtype, true);
  problem.output = outDtype.empty() ? problem.input : parseDType(outDtype, true);
  problem.precision = parsePrecision(precision);
  problem.a = parseLayout(aLayout, "A");
  problem.b = parseLayout(bLayout, "B");
  problem.batchInvariant = batchInvariant;
  problem.batch = batchCount;
  problem.groups = groupCount;
  if (!broadcast.empty() && broadcast != "a" && broadcast != "b")
    fail("--broadcast takes a or b, not '" + broadcast + "'");
  problem.batchA = broadcast != "a";
  problem.batchB = broadcast != "b";
  problem.epilogue = parseEpilogue(epilogue);
  auto has = [&](EpilogueStep step) { return llvm::is_contained(problem.epilogue, step); };
  problem.readsC = beta != 0.0f || has(EpilogueStep::Residual);
  if (has(EpilogueStep::Bias)) {
    problem.bias = parseAlong(biasAlong, "bias");
    problem.biasType = problem.output;
  }
  if (has(EpilogueStep::Scale)) {
    problem.scale = parseAlong(scaleAlong, "scale");
    problem.scaleType = DType::F32;
  }

  Result<Cuda *> cuda = Cuda::get();
  bool hopper = hasWarpgroupMma(target().chip);
  bool wgmma = gemmWgmma == cl::BOU_TRUE ||
               (gemmWgmma == cl::BOU_UNSET && hopper && gemmPrefersWgmma(problem, target()));
  // wgmma reads M- and N-major operands packed K-major.
  problem.packLayouts = wgmma;
  GemmConfig config =
      wgmma ? chooseWgmmaGemmConfig(problem, target()) : chooseGemmConfig(problem, target());
  applyTileOptions(config);
  if (std::string err = checkGemm(problem, config, target()); !err.empty())
    fail(err);

  if (config.wgmma && !hopper)
    fail("--wgmma needs a Hopper target (sm_90), not " + target().chip);
  std::optional<CompiledWorkload> built =
      compileWorkload(mlir::spio::gemmSource(problem, config), "gemm");
  if (!built)
    return 0;
  const mlir::spio::CompiledModule &compiled = built->module;
  mlir::spio::CacheOutcome outcome = built->outcome;
  double compileMs = built->ms;
  // The GEMM kernel follows the kernels packing its operands.
  const mlir::spio::CompiledKernel &info = compiled.kernels.back();
  std::string kind = config.wgmma ? "wgmma" : "mma.sync";
  if (gemmPacksOperands(problem))
    kind += std::string(", operands packed") +
            (problem.input == DType::F32
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
  if (!problem.epilogue.empty()) {
    kind += ", epilogue";
    for (EpilogueStep step : problem.epilogue)
      kind += std::string(step == problem.epilogue.front() ? " " : ",") + epilogueStepName(step);
  }
  if (problem.groups > 0)
    kind += ", " + std::to_string(problem.groups) + " groups";
  if (problem.batch > 1)
    kind += ", batch " + std::to_string(problem.batch) +
            (problem.batchA ? problem.batchB ? "" : " (B shared)" : " (A shared)");
  text() << llvm::format("gemm M=%lld N=%lld K=%lld %s->%s A %s B %s, %s tile %lldx%lldx%lld "
                               "warps %lldx%lld stages %lld: %s in %.2f ms (%zu bytes PTX)\n",
                               (long long)problem.m, (long long)problem.n, (long long)problem.k,
                               dtypeName(problem.input), dtypeName(problem.output),
                               aLayout.c_str(), bLayout.c_str(),
                               kind.c_str(), (long long)config.blockM,
                               (long long)config.blockN, (long long)config.blockK,
                               (long long)config.warpsM, (long long)config.warpsN,
                               (long long)config.stages, mlir::spio::describe(outcome), compileMs,
                               compiled.ptx.size());
  std::string epilogueSteps;
  for (EpilogueStep step : problem.epilogue)
    epilogueSteps += std::string(epilogueSteps.empty() ? "" : ",") + epilogueStepName(step);
  report()["workload"] = "gemm";
  report()["problem"] = llvm::json::Object{
      {"m", problem.m},          {"n", problem.n},
      {"k", problem.k},          {"dtype", dtypeName(problem.input)},
      {"out_dtype", dtypeName(problem.output)},
      {"a_layout", aLayout},     {"b_layout", bLayout},
      {"batch", problem.batch},  {"epilogue", epilogueSteps}};
  report()["config"] = llvm::json::Object{
      {"kind", kind},          {"block", llvm::json::Array{config.blockM, config.blockN,
                                                           config.blockK}},
      {"warps", llvm::json::Array{config.warpsM, config.warpsN}},
      {"stages", config.stages}};
  report()["compile"] = llvm::json::Object{{"ms", compileMs},
                                           {"cache", mlir::spio::describe(outcome)}};
  if (!cuda) {
    reportNoGpu(cuda.error().message, "compiled to PTX only; nothing was run");
    return 0;
  }
  mlir::spio::GemmWorkload workload{problem, config, gemmParameters(problem, config)};
  return runGemmKernel(**cuda, problem, config, compiled, info, workload);
}

/// --workload conv2d: a dense conv2d (NHWC x, KRSC w, NHWC y) by implicit
/// GEMM on the wgmma kernel, checked against a float64 reference and timed.
int runConv2d() {
  Conv2dProblem problem;
  if (convPass == "dgrad")
    problem.pass = ConvPass::Dgrad;
  else if (convPass == "wgrad")
    problem.pass = ConvPass::Wgrad;
  else if (convPass != "fprop")
    fail("unknown conv2d pass '" + convPass + "'; expected fprop, dgrad or wgrad");
  problem.n = convN;
  problem.h = convH;
  problem.w = convW;
  problem.c = convC;
  problem.k = convK ? int64_t(convK) : int64_t(convC);
  problem.r = convR;
  problem.s = convS;
  problem.strideH = problem.strideW = convStride;
  problem.padH = padH;
  problem.padW = padW;
  problem.dilationH = problem.dilationW = convDilation;
  problem.input = parseDType(dtype, false);
  problem.output = outDtype.empty() ? problem.input : parseDType(outDtype, true);
  problem.epilogue = parseEpilogue(epilogue);
  problem.biasType = problem.output;
  problem.scaleType = DType::F32;
  if (!hasWarpgroupMma(target().chip))
    fail("--workload conv2d runs on the wgmma kernel: it needs a Hopper target (sm_90a), not " +
         target().chip);
  Result<Cuda *> cuda = Cuda::get();
  GemmConfig config = chooseConv2dConfig(problem, target());
  applyTileOptions(config);
  if (convParts && problem.pass != ConvPass::Wgrad)
    fail("--parts applies to conv2d's wgrad only");
  problem.parts = convParts ? int64_t(convParts) : conv2dWgradParts(problem, config, target());
  if (std::string err = checkConv2d(problem, config, target()); !err.empty())
    fail(err);
  std::optional<CompiledWorkload> built =
      compileWorkload(mlir::spio::conv2dSource(problem, config), "conv2d");
  if (!built)
    return 0;
  int64_t outH = conv2dOutputHeight(problem), outW = conv2dOutputWidth(problem);
  text() << llvm::format(
      "conv2d %s N=%lld H=%lld W=%lld C=%lld K=%lld R=%lld S=%lld stride %lld pad %lldx%lld "
      "dilation %lld -> P=%lld Q=%lld %s->%s, wgmma tile %lldx%lldx%lld warps %lldx%lld "
      "stages %lld%s%s%s: %s in %.2f ms (%zu bytes PTX)\n",
      convPass.c_str(), (long long)problem.n, (long long)problem.h, (long long)problem.w,
      (long long)problem.c, (long long)problem.k, (long long)problem.r, (long long)problem.s,
      (long long)problem.strideH, (long long)problem.padH, (long long)problem.padW,
      (long long)problem.dilationH, (long long)outH, (long long)outW, dtypeName(problem.input),
      dtypeName(problem.output), (long long)config.blockM, (long long)config.blockN,
      (long long)config.blockK, (long long)config.warpsM, (long long)config.warpsN,
      (long long)config.stages, config.pingpong ? " ping-pong" : "",
      config.splitK > 1 ? (" split-K " + std::to_string(config.splitK)).c_str() : "",
      problem.parts > 1 ? (" in " + std::to_string(problem.parts) + " parts").c_str() : "",
      mlir::spio::describe(built->outcome), built->ms, built->module.ptx.size());
  report()["workload"] = "conv2d";
  report()["problem"] = llvm::json::Object{{"pass", convPass},
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
  return runConv2dKernel(**cuda, built->module, "conv2d",
                         {problem, config, conv2dParameters(problem)});
}

/// Runs the compiled conv2d kernel `name` of `workload` on fresh random
/// inputs: --check against a float64 reference, --bench.
int runConv2dKernel(Cuda &gpu, const mlir::spio::CompiledModule &compiled,
                    const std::string &name, const mlir::spio::Conv2dWorkload &workload) {
  const Conv2dProblem &problem = workload.problem;
  LoadedPlan loaded =
      loadPlan(gpu, compiled, conv2dLaunchPlan(problem, workload.config, workload.params, name));
  Launcher &launcher = loaded.launcher;
  reportKernel(gpu, launcher, 0);

  int64_t outH = conv2dOutputHeight(problem), outW = conv2dOutputWidth(problem);
  size_t n = problem.n, h = problem.h, w = problem.w, c = problem.c, k = problem.k;
  size_t r = problem.r, sz = problem.s, p = outH, q = outW;
  if (problem.pass == ConvPass::Wgrad)
    return runConv2dWgrad(gpu, launcher, problem);
  bool dgrad = problem.pass == ConvPass::Dgrad;
  // The kernel reads x (dgrad: dy) and writes y (dgrad: dx).
  size_t inputs = dgrad ? n * p * q * k : n * h * w * c;
  size_t outputs = dgrad ? n * h * w * c : n * p * q * k;
  GemmProblem gemm = conv2dGemmProblem(problem);
  HostMatrix x(problem.input, inputs), wt(problem.input, k * r * sz * c),
      residual(problem.output, gemm.readsC ? outputs : 0);
  HostMatrix bias(problem.biasType, gemm.bias == Along::None ? 0 : k);
  HostMatrix scale(problem.scaleType, gemm.scale == Along::None ? 0 : k);
  x.fillUniform(seed, 0);
  wt.fillUniform(seed, 1);
  residual.fillUniform(seed, 2);
  bias.fillUniform(seed, 3);
  scale.fillUniform(seed, 4);
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
  LaunchBindings bindings{
      {dX.pointer(), dW.pointer(), dY.pointer(), dC.pointer(), dBias.pointer(), dScale.pointer()},
      0,
      {}};
  auto launch = [&]() { return launcher.run(bindings); };
  // Each output's sum: y over (r, s, c), dgrad's dx over (r, s, k).
  size_t depth = r * sz * (dgrad ? k : c), channels = dgrad ? c : k;
  size_t rows = dgrad ? h : p, cols = dgrad ? w : q;

  if (check) {
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
      std::mt19937_64 rng(seed);
      positions = {0, count - 1};
      for (int i = 0; i < 62; ++i)
        positions.push_back(rng() % count);
    }
    ReferenceCheck reference(problem.output, double(depth));
    for (size_t m : positions) {
      size_t img = m / (rows * cols), row = m / cols % rows, col = m % cols;
      for (size_t out = 0; out < channels; ++out) {
        size_t element = m * channels + out;
        auto [sum, magnitude] = applyEpilogue(
            problem.epilogue, conv2dReference(problem, x.values, wt.values, img, row, col, out),
            scale.values.empty() ? 0.0 : double(scale.values[out]),
            bias.values.empty() ? 0.0 : double(bias.values[out]),
            residual.values.empty() ? 0.0 : double(residual.values[element]));
        reference.add(y.read(element), sum, magnitude, [&] {
          return std::string(dgrad ? "dx[" : "y[") + std::to_string(img) + ", " +
                 std::to_string(row) + ", " + std::to_string(col) + ", " + std::to_string(out) +
                 "]";
        });
      }
    }
    finishCheck(reference, "outputs", dgrad ? "sum|dy*w|" : "sum|x*w|", gpu, dY, launch, y.bytes);
  }

  if (bench > 0)
    reportBench(gpu, launch, 2.0 * double(n * rows * cols) * double(channels * depth));
  return 0;
}

int runConv2dWgrad(Cuda &gpu, Launcher &launcher, const Conv2dProblem &problem) {
  size_t positions = conv2dOutputPositions(problem);
  size_t k = problem.k, r = problem.r, s = problem.s, c = problem.c;
  HostMatrix x(problem.input, problem.n * problem.h * problem.w * c),
      dy(problem.input, positions * k);
  x.fillUniform(seed, 0);
  dy.fillUniform(seed, 1);
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
  if (check) {
    HostMatrix dw(problem.output, weights);
    runPoisoned(gpu, dDw, launch, dw.bytes);
    // Every weight of small problems; else as many sampled weights as a
    // few billion products take, the first and last among them.
    std::vector<size_t> elements;
    if (weights * positions <= (size_t(1) << 31)) {
      for (size_t e = 0; e < weights; ++e)
        elements.push_back(e);
    } else {
      std::mt19937_64 rng(seed);
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
  if (bench > 0)
    reportBench(gpu, launch, 2.0 * double(positions) * double(weights));
  return 0;
}

/// A conv2d-gw8 candidate's kernels loaded and planned: fprop's or dgrad's
/// one; wgrad's partial sums and, unless the cluster adds the sums, the
/// reduce (a dependent grid where its code waits for the sums and
/// `dependentLaunches`); with a bias, the bias gradient's two.
LoadedPlan loadConv(Cuda &gpu, const Conv2dGw8Problem &problem, const Conv2dGw8Config &config,
                    const mlir::spio::CompiledModule &compiled, bool dependentLaunches) {
  std::set<std::string> dependents;
  if (dependentLaunches)
    for (std::string &name : dependentKernels(compiled.ptx))
      dependents.insert(std::move(name));
  return loadPlan(gpu, compiled, conv2dGw8LaunchPlan(problem, config), dependents);
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
int runWgrad(Cuda &gpu, const Conv2dGw8Problem &problem,
             const std::vector<Conv2dGw8Config> &candidates,
             const std::vector<CompiledWorkload> &builds,
             const std::function<std::string(const Conv2dGw8Config &)> &describeConfig,
             const std::function<void(size_t)> &printHeader) {
  std::vector<LoadedPlan> kernels;
  kernels.reserve(candidates.size());
  int64_t workspaceBytes = 0;
  for (size_t i = 0; i < candidates.size(); ++i) {
    kernels.push_back(
        loadConv(gpu, problem, candidates[i], builds[i].module, convDependentLaunch));
    workspaceBytes = std::max(workspaceBytes, kernels.back().launcher.plan().workspaceBytes);
  }
  bool inCluster = problem.wgradClusterReduce;

  int64_t C = problem.c, H = problem.h, W = problem.w, P = problem.outH(), Q = problem.outW();
  int64_t g = problem.groupWidth;
  DType dwType = problem.wgradF32 ? DType::F32 : problem.dtype;
  size_t nx = problem.n * H * W * C, ndy = problem.n * P * Q * C,
         ndw = C * problem.r * problem.s * g;
  std::mt19937_64 rng(seed);
  HostMatrix x(problem.dtype, nx), dy(problem.dtype, ndy);
  x.fillUniform(seed, 0);
  dy.fillUniform(seed, 1);
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
  LaunchBindings bindings{{dX.pointer(), dDy.pointer(), dDw.pointer(), dDb.pointer()},
                          dWs.pointer(),
                          {}};
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
  size_t chosen = fastestCandidate(gpu, launches, names, builds);
  printHeader(chosen);
  const Conv2dGw8Config &config = candidates[chosen];
  LoadedPlan &run = kernels[chosen];
  const std::function<Status()> &launch = launches[chosen];
  const std::function<Status()> &poisonedLaunch = poisonedLaunches[chosen];
  auto [regs, local] = orFail(run.launcher.kernel(0).resources(), "reading kernel resources");
  int64_t parts = conv2dGw8WgradPartials(problem, config);
  text() << "device: " << gpu.device().name << "; kernel: " << regs << " registers, "
               << local << " bytes spilled, " << run.launcher.sharedBytes(0)
               << " bytes shared; " << parts << " partial sums per weight"
               << (inCluster ? ", added in a cluster" : "") << "\n";
  reportDevice(gpu, regs, local, run.launcher.sharedBytes(0));

  if (check) {
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
    ReferenceCheck reference(dwType,
                             double(conv2dGw8WgradAccumulationChain(problem, config) + 16));
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
      ReferenceCheck biasReference(dwType,
                                   double(conv2dGw8WgradBiasAccumulationChain(problem)));
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
  if (bench > 0) {
    if (wgradKernels != WgradKernels::Both)
      text() << "bench: the "
                   << (wgradKernels == WgradKernels::Reduce ? "reduce" : "partial sums")
                   << " alone\n";
    // The reduce alone, not a dependent grid, adds the partial sums of a
    // real run, not whatever the workspace held.
    std::optional<LoadedPlan> reduceAlone;
    if (wgradKernels == WgradKernels::Reduce) {
      if (inCluster)
        fail("--wgrad-kernels=reduce: the cluster adds the partial sums; there is no reduce");
      reduceAlone = loadConv(gpu, problem, config, builds[chosen].module, false);
      orFail(launchPartialSums(run), "launching the partial sums");
      orFail(gpu.synchronize(), "running the partial sums");
    }
    auto timed = [&]() -> Status {
      if (wgradKernels == WgradKernels::PartialSums)
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
  if (convPass == "fprop")
    problem.pass = ConvPass::Fprop;
  else if (convPass == "dgrad")
    problem.pass = ConvPass::Dgrad;
  else if (convPass == "wgrad")
    problem.pass = ConvPass::Wgrad;
  else
    fail("unknown conv2d-gw8 pass '" + convPass + "'; expected fprop, dgrad or wgrad");
  problem.n = convN;
  problem.c = convC;
  problem.h = convH;
  problem.w = convW;
  problem.r = convR;
  problem.s = convS;
  problem.padH = padH;
  problem.padW = padW;
  problem.stride = convStride;
  problem.groupWidth = convGroupWidth;
  problem.bias = convBias;
  problem.dtype = parseDType(dtype.getNumOccurrences() ? std::string(dtype) : "f16", false);
  if (wgradClusterReduce && problem.pass != ConvPass::Wgrad)
    fail("--wgrad-cluster-reduce is for --pass wgrad");
  if (wgradClusterReduce && wgradKernels != WgradKernels::Both)
    fail("--wgrad-cluster-reduce runs one kernel; --wgrad-kernels picks one of two");
  problem.wgradClusterReduce = wgradClusterReduce;
  if (wgradDiscardPartials.getNumOccurrences() && problem.pass != ConvPass::Wgrad)
    fail("--wgrad-discard-partials is for --pass wgrad");
  problem.wgradDiscard = wgradDiscardPartials;
  problem.wgradEarlyLaunch = wgradEarlyLaunch;
  problem.wgradParts = wgradParts;
  if (wgradParts != WgradParts::All && check)
    fail("--wgrad-parts runs part of wgrad's band loop, whose sums --check would find wrong");
  if (wgradKernels != WgradKernels::Both && problem.pass != ConvPass::Wgrad)
    fail("--wgrad-kernels picks which of wgrad's two kernels --bench times; --pass is " +
         convPass);
  if (wgradKernels != WgradKernels::Both && check)
    fail("--check needs both of wgrad's kernels; --wgrad-kernels picks what --bench times");
  if (!outDtype.empty()) {
    DType out = parseDType(outDtype, true);
    if (problem.pass != ConvPass::Wgrad)
      fail("--out-dtype applies to conv2d-gw8 wgrad only (dw as f32)");
    if (out != DType::F32 && out != problem.dtype)
      fail("wgrad writes dw as the input dtype or f32, not " + outDtype);
    problem.wgradF32 = out == DType::F32;
  }
  Result<Cuda *> cuda = Cuda::get();
  problem.target = target();
  bool overridden = convChunks || convRowsP || warpsM || warpsN || convCopyWarps ||
                    wgradRowRing.getNumOccurrences() || wgradStagesOption ||
                    wgradReduceLaneElements;
  // Options adjust the rules' configuration, whose fields follow from the
  // problem alone, not the model's pick among its neighbours.
  Conv2dGw8Config config =
      overridden ? conv2dGw8RuleConfig(problem) : chooseConv2dGw8Config(problem);
  if (convChunks)
    config.chunks = convChunks;
  if (convCopyWarps)
    config.copyWarps = convCopyWarps;
  if (wgradRowRing.getNumOccurrences())
    config.rowRing = wgradRowRing;
  if (wgradStagesOption)
    config.stages = wgradStagesOption;
  if (wgradReduceLaneElements)
    config.reduceLaneElements = wgradReduceLaneElements;
  if (convRowsP)
    config.rowsP = convRowsP;
  if (warpsM)
    config.warpsQ = warpsM;
  if (warpsN)
    config.warpsG = warpsN;
  if (std::string err = checkConv2dGw8(problem, config); !err.empty())
    fail(err);
  if (convAutotune && overridden)
    fail("--autotune times the chosen configuration and its neighbours; it takes no "
         "--warps-m, --warps-n, --rows-p, --chunks, --copy-warps, --wgrad-row-ring, "
         "--wgrad-stages or --wgrad-reduce-lane-elements");
  if (convAutotune && (emitSpio || emitPTX))
    fail("--autotune times kernels on the device; --emit-spio and --emit-ptx print the "
         "chosen one without it");
  std::vector<Conv2dGw8Config> candidates =
      convAutotune ? conv2dGw8Candidates(problem) : std::vector<Conv2dGw8Config>{config};
  std::vector<CompiledWorkload> builds;
  for (const Conv2dGw8Config &candidate : candidates) {
    std::optional<CompiledWorkload> built =
        compileWorkload(mlir::spio::conv2dGw8Source(problem, candidate), "conv2d-gw8");
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
    std::string stages = c.stages ? llvm::formatv(" stages {0}", c.stages).str() : "";
    std::string lanes =
        c.reduceLaneElements ? llvm::formatv(" reduce {0}", c.reduceLaneElements).str() : "";
    return llvm::formatv("warps {0}x{1} rows {2}{3}{4}{5}{6}{7}", c.warpsQ, c.warpsG, c.rowsP,
                         chunks, copy, stages, c.rowRing ? " ring" : "", lanes)
        .str();
  };
  auto printHeader = [&](size_t index) {
    std::string groups =
        problem.narrowGroups() ? llvm::formatv(" group-width={0}", problem.groupWidth).str() : "";
    text() << llvm::format("conv2d-gw8 %s N=%lld C=%lld H=%lld W=%lld R=%lld S=%lld "
                           "pad=%lld,%lld stride=%lld%s%s %s, %s: %s in %.2f ms\n",
                           convPass.c_str(), (long long)problem.n, (long long)C,
                           (long long)problem.h, (long long)problem.w, (long long)problem.r,
                           (long long)problem.s, (long long)problem.padH, (long long)problem.padW,
                           (long long)problem.stride, groups.c_str(), problem.bias ? " bias" : "",
                           dtypeName(problem.dtype), describeConfig(candidates[index]).c_str(),
                           mlir::spio::describe(builds[index].outcome), builds[index].ms);
    report()["workload"] = "conv2d-gw8";
    report()["problem"] = llvm::json::Object{{"pass", convPass},
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
  if (convAutotune && candidates.size() == 1)
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
    return runWgrad(gpu, problem, candidates, builds, describeConfig, printHeader);

  std::mt19937_64 rng(seed);
  // The kernel reads `x` (x for fprop, dy for dgrad) and writes `y` (y, or dx).
  int64_t inH = problem.kernelInH(), inW = problem.kernelInW();
  int64_t outH = problem.kernelOutH(), outW = problem.kernelOutW();
  int64_t g = problem.groupWidth;
  size_t nx = problem.n * inH * inW * C, nw = C * problem.r * problem.s * g,
         ny = problem.n * outH * outW * C;
  HostMatrix x(problem.dtype, nx), w(problem.dtype, nw), bias(problem.dtype, C);
  x.fillUniform(seed, 0);
  w.fillUniform(seed, 1);
  if (problem.bias)
    bias.fillUniform(seed, 2); // else zeros
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
  size_t chosen = fastestCandidate(gpu, launches, names, builds);
  printHeader(chosen);
  config = candidates[chosen];
  const std::function<Status()> &launch = launches[chosen];
  const Launcher &launcher = kernels[chosen].launcher;
  auto [regs, local] = orFail(launcher.kernel(0).resources(), "reading kernel resources");
  text() << "device: " << gpu.device().name << "; kernel: " << regs << " registers, "
               << local << " bytes spilled, " << launcher.sharedBytes(0) << " bytes shared\n";
  reportDevice(gpu, regs, local, launcher.sharedBytes(0));

  if (check) {
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
      int64_t o = i % C, q = (i / C) % outW, pp = (i / C / outW) % outH,
              nn = i / C / outW / outH;
      auto [taps, tapsMagnitude] = conv2dGw8Reference(problem, x.values, w.values, nn, pp, q, o);
      double sum = bias.values[o] + taps, magnitude = std::fabs(bias.values[o]) + tapsMagnitude;
      reference.add(y.read(i), sum, magnitude, [&] {
        return llvm::formatv("output[n={0}, row={1}, col={2}, ch={3}]", nn, pp, q, o).str();
      });
    }
    finishCheck(reference, "outputs", "sum|x*w|", gpu, dY, launch, y.bytes);
  }
  if (bench > 0)
    reportBandwidth(gpu, launch,
                    double(nx + nw + ny + (problem.bias ? C : 0)) * dtypeBytes(problem.dtype));
  return 0;
}

/// Fails when an option the chosen mode does not read was given, rather
/// than running something other than what was asked for.
void rejectOptions(const std::string &mode, std::initializer_list<const cl::Option *> options) {
  for (const cl::Option *option : options)
    if (option->getNumOccurrences())
      fail("--" + option->ArgStr.str() + " does not apply to " + mode);
}

} // namespace

int main(int argc, char **argv) {
  cl::AddExtraVersionPrinter(
      [](llvm::raw_ostream &os) { os << mlir::spio::versionString() << "\n"; });
  cl::HideUnrelatedOptions(jitOptions);
  cl::ParseCommandLineOptions(argc, argv, "Spio JIT: compile and run kernels on the GPU\n");
  if (const std::string &given = llvmOptionsGiven(); !given.empty() && !noDiskCache)
    llvm::errs() << "spio-jit: LLVM options given (" << given
                 << "): the on-disk PTX cache is neither read nor written\n";
  if (std::string why = checkChip(chip); !why.empty())
    fail("--chip: " + why);
  if (std::string why = checkTarget(target()); !why.empty())
    fail("--multiprocessors and --l2-bytes: " + why);
  for (const cl::opt<int> *count : {&bench, &warmup, &repeats})
    if (*count < 0)
      fail("--" + count->ArgStr.str() + " takes a count of 0 or more, got " +
           std::to_string(int(*count)));
  const std::initializer_list<const cl::Option *> gemmOnly = {
      &sizeM, &sizeN, &sizeK, &aLayout, &bLayout, &alpha,
      &beta,  &blockM, &blockN, &blockK, &stages, &raster, &persistent, &cluster, &swapAB, &splitK, &pingpong,
      &promote, &kRanges, &precision, &groupCount, &gemmWgmma};
  // Options of the grouped conv alone, and of both convolutions.
  const std::initializer_list<const cl::Option *> gw8Only = {
      &convBias,           &convGroupWidth,          &convRowsP,
      &convChunks,         &convDependentLaunch,     &convAutotune,
      &wgradClusterReduce, &wgradDiscardPartials,    &wgradEarlyLaunch,
      &wgradParts,         &wgradReduceLaneElements, &wgradRowRing,
      &wgradStagesOption};
  const std::initializer_list<const cl::Option *> convShared = {
      &convN, &convC, &convH, &convW, &convR, &convS, &padH, &padW, &convStride, &convPass};

  if (!inputFile.empty()) {
    // The file fixes the workload, its shapes and its configs.
    std::string mode = "a kernel file";
    rejectOptions(mode, gemmOnly);
    rejectOptions(mode, convShared);
    rejectOptions(mode, gw8Only);
    rejectOptions(mode, {&convK, &convDilation, &convParts});
    rejectOptions(mode, {&workload, &dtype, &outDtype, &warpsM, &warpsN, &emitSpio});
  } else if (workload == "conv2d-gw8") {
    rejectOptions("--workload conv2d-gw8", gemmOnly);
    rejectOptions("--workload conv2d-gw8", {&convParts});
  } else if (workload == "gemm") {
    rejectOptions("--workload gemm", convShared);
    rejectOptions("--workload gemm", gw8Only);
    rejectOptions("--workload gemm", {&convK, &convDilation, &convParts});
  } else if (workload == "conv2d") {
    rejectOptions("--workload conv2d", gw8Only);
    rejectOptions("--workload conv2d", {&sizeM, &sizeN, &sizeK, &aLayout, &bLayout, &alpha, &beta,
                                        &swapAB, &precision, &groupCount, &gemmWgmma, &batchCount,
                                        &broadcast, &batchInvariant, &biasAlong, &scaleAlong});
  } else {
    fail("unknown workload '" + workload + "'; expected gemm, conv2d or conv2d-gw8");
  }
  if (jsonReport && (emitSpio || emitPTX))
    fail("--json reports a run; --emit-spio and --emit-ptx print the kernel instead");
  int status = !inputFile.empty()         ? runFile()
               : workload == "conv2d-gw8" ? runConv()
               : workload == "conv2d"     ? runConv2d()
                                          : runGemm();
  if (jsonReport)
    llvm::outs() << llvm::formatv("{0:2}", llvm::json::Value(std::move(report()))) << "\n";
  return status;
}
