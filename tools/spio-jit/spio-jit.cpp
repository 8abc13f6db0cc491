//===- spio-jit.cpp - Compile and run Spio kernels on the GPU -------------===//
//
//   spio-jit --workload gemm --m 4096 --n 4096 --k 4096 --check --bench 50
//   spio-jit kernel.mlir --emit-ptx
//
// The command line of the SpioJit library (spio/Jit/Jit.h), whose Request
// the options fill.
//
//===----------------------------------------------------------------------===//

#include "spio/Compiler/Version.h"
#include "spio/Jit/Jit.h"
#include "spio/Target/Chip.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

using namespace spio;
using namespace spio::kernels;
using namespace spio::runtime;
using jit::WgradKernels;
namespace cl = llvm::cl;

/// The run the options describe; most options are one of its fields.
static jit::Request request;
template <typename T> using Field = cl::opt<T, /*ExternalStorage=*/true>;

/// spio-jit's options, grouped for --help, which lists only these; LLVM's
/// (the NVPTX back end's, say) still parse, and bypass the PTX cache.
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

static Field<std::string> inputFile(cl::Positional, cl::cat(workloadOptions),
                                    cl::desc("[kernel.mlir]"), cl::location(request.inputFile));
static Field<std::string> workload("workload", cl::cat(workloadOptions),
                                   cl::desc("Built-in workload: gemm, conv2d or conv2d-gw8"),
                                   cl::location(request.workload));
static Field<std::string>
    dtype("dtype", cl::cat(workloadOptions),
          cl::desc("Input type: f16 or bf16 (gemm: or f32); default bf16 (conv2d-gw8: f16)"),
          cl::location(request.dtype));
static Field<std::string> outDtype("out-dtype", cl::cat(workloadOptions),
                                   cl::desc("Output type: f16, bf16 or f32 (conv2d-gw8: wgrad's "
                                            "dw as f32); default: the input's"),
                                   cl::location(request.outDtype));
static Field<std::string> chip("chip", cl::cat(workloadOptions),
                               cl::desc("The chip to compile for (default: the GPU's, "
                                        "else sm_90)"),
                               cl::location(request.chip));
static Field<bool> emitPTX("emit-ptx", cl::cat(workloadOptions), cl::desc("Print the PTX and stop"),
                           cl::location(request.emitPTX));
static Field<bool> emitSpio("emit-spio", cl::cat(workloadOptions),
                            cl::desc("Print the workload module and stop"),
                            cl::location(request.emitSpio));
static Field<bool> noDiskCache("no-disk-cache", cl::cat(workloadOptions),
                               cl::desc("Bypass the on-disk PTX cache"),
                               cl::location(request.noDiskCache));
static Field<bool> printIRAfterAll("print-ir-after-all", cl::cat(workloadOptions),
                                   cl::desc("Print the IR after every pass"),
                                   cl::location(request.printIRAfterAll));

static Field<bool> check("check", cl::cat(runOptions),
                         cl::desc("Check against a float64 CPU reference"),
                         cl::location(request.check));
static Field<int> repeats("repeats", cl::cat(runOptions),
                          cl::desc("Runs that must write the first's bits (with --check)"),
                          cl::location(request.repeats));
static Field<int> bench("bench", cl::cat(runOptions), cl::desc("Timed runs (0: no timing)"),
                        cl::location(request.bench));
static Field<int> warmup("warmup", cl::cat(runOptions), cl::desc("Untimed runs before timing"),
                         cl::location(request.warmup));
static Field<Timing>
    timing("timing", cl::cat(runOptions), cl::desc("Where --bench's clock starts"),
           cl::values(clEnumValN(Timing::Queued, "queued",
                                 "launches queued behind a hold kernel: the GPU's time alone"),
                      clEnumValN(Timing::Launch, "launch",
                                 "before the launch calls: one launch on an idle GPU")),
           cl::location(request.timing));
static Field<bool>
    jsonReport("json", cl::cat(runOptions),
               cl::desc("Print one JSON object on stdout (problem, configuration, compile, "
                        "device, check, timing) and the text on stderr"),
               cl::location(request.jsonReport));
static Field<unsigned> seed("seed", cl::cat(runOptions), cl::desc("Seed of the random inputs"),
                            cl::location(request.seed));

static Field<int64_t> sizeM("m", cl::cat(gemmOptions), cl::desc("Rows of D"),
                            cl::location(request.sizeM));
static Field<int64_t> sizeN("n", cl::cat(gemmOptions), cl::desc("Columns of D"),
                            cl::location(request.sizeN));
static Field<int64_t> sizeK("k", cl::cat(gemmOptions), cl::desc("Reduction depth"),
                            cl::location(request.sizeK));
static Field<std::string> aLayout("a-layout", cl::cat(gemmOptions),
                                  cl::desc("A: row (M x K) or col (K x M)"),
                                  cl::location(request.aLayout));
static Field<std::string> bLayout("b-layout", cl::cat(gemmOptions),
                                  cl::desc("B: row (K x N) or col (N x K)"),
                                  cl::location(request.bLayout));
static Field<float> alpha("alpha", cl::cat(gemmOptions), cl::desc("D = alpha * A @ B + beta * C"),
                          cl::location(request.alpha));
static Field<float> beta("beta", cl::cat(gemmOptions), cl::desc("D = alpha * A @ B + beta * C"),
                         cl::location(request.beta));

static Field<std::string>
    epilogue("epilogue", cl::cat(gemmOptions),
             cl::desc("Steps after A @ B, in order (scale,bias,residual,relu,gelu_tanh,...)"),
             cl::location(request.epilogue));
static Field<int64_t>
    groupCount("groups", cl::cat(gemmOptions),
               cl::desc("Grouped GEMM: G groups of random row counts adding up to M, B a "
                        "matrix a group. conv2d: G groups of C / G = 1, 2, 4 or 8 channels "
                        "(C = K), run by the grouped family as conv2d-gw8 (its options apply), "
                        "or of C / G and K / G multiples of 64 on the implicit GEMM (or 16 or "
                        "32, C = K a multiple of 64, as block-diagonal groups of 64; fprop and "
                        "dgrad: any multiples of 8, w's taps padded to 64 channels)"),
               cl::location(request.groupCount));
static Field<std::string> groupsAlong(
    "groups-along", cl::cat(gemmOptions),
    cl::desc("What the groups split: rows (B a matrix a group) or k (random cuts of K, D a "
             "matrix a group; A col, B row)"),
    cl::location(request.groupsAlong));
static Field<bool> storesPreActivation(
    "store-pre-activation", cl::cat(gemmOptions),
    cl::desc("Also store the epilogue's value before its activation (checked like D)"),
    cl::location(request.storesPreActivation));
static Field<int64_t> batchCount("gemm-batch", cl::cat(gemmOptions),
                                 cl::desc("Problems in the batch"),
                                 cl::location(request.batchCount));
static Field<std::string>
    broadcast("broadcast", cl::cat(gemmOptions),
              cl::desc("The operand (a or b) one matrix of serves the whole batch"),
              cl::location(request.broadcast));
static Field<bool> batchInvariant("batch-invariant", cl::cat(gemmOptions),
                                  cl::desc("Rows whose bits do not depend on M (K split alike)"),
                                  cl::location(request.batchInvariant));
static Field<bool> listCandidates(
    "list-candidates", cl::cat(gemmOptions),
    cl::desc("Print the GEMM's Hopper configurations worth timing (the chooser's first), one line "
             "of spio-jit options each, and exit"),
    cl::location(request.listCandidates));
static Field<std::string>
    precision("precision", cl::cat(gemmOptions),
              cl::desc("f32 inputs: highest (3 bf16 terms), high (2), medium (1) or "
                       "tf32 (TF32 tensor cores, sm_90a)"),
              cl::location(request.precision));
static Field<std::string> biasAlong("bias-along", cl::cat(gemmOptions),
                                    cl::desc("The bias (D's dtype): one a row or col"),
                                    cl::location(request.biasAlong));
static Field<std::string> scaleAlong("scale-along", cl::cat(gemmOptions),
                                     cl::desc("The scale (f32): one a row or col"),
                                     cl::location(request.scaleAlong));

static Field<int64_t> blockM("block-m", cl::cat(tileOptions), cl::desc("GEMM tile rows"),
                             cl::location(request.blockM));
static Field<int64_t> blockN("block-n", cl::cat(tileOptions), cl::desc("GEMM tile columns"),
                             cl::location(request.blockN));
static Field<int64_t> blockK("block-k", cl::cat(tileOptions), cl::desc("GEMM tile depth"),
                             cl::location(request.blockK));
static Field<int64_t> raster("raster", cl::cat(tileOptions),
                             cl::desc("GEMM block rows taken together for L2 reuse"),
                             cl::location(request.raster));
static Field<int64_t>
    persistent("persistent", cl::cat(tileOptions),
               cl::desc("GEMM (wgmma) persistent grid: blocks that take the tiles in turn "
                        "(-1: one a tile)"),
               cl::location(request.persistent));
static Field<int64_t>
    cluster("cluster", cl::cat(tileOptions),
            cl::desc("GEMM (persistent wgmma) blocks of a cluster sharing B tiles (1 or 2)"),
            cl::location(request.cluster));
static cl::opt<cl::boolOrDefault>
    swapAB("swap", cl::cat(tileOptions),
           cl::desc("GEMM (wgmma): warpgroups along N, wgmma's N along M (for small M; "
                    "default: the chooser's, off with a tile given)"));
static Field<int64_t>
    splitK("split-k", cl::cat(tileOptions),
           cl::desc("GEMM (wgmma): blocks of a cluster splitting each tile's K (1 to 8; "
                    "default: the chooser's, 1 with a tile given)"),
           cl::location(request.splitK));
static cl::opt<bool>
    pingpong("pingpong", cl::cat(tileOptions),
             cl::desc("GEMM (persistent wgmma): compute warpgroups take whole tiles in turn "
                      "(default: the chooser's, off with a tile given)"));
static cl::opt<cl::boolOrDefault>
    promote("promote", cl::cat(tileOptions),
            cl::desc("GEMM (wgmma): add each k-tile's sums to the running ones in f32 "
                     "(default: the chooser's, on for f32 at the highest precision)"));
static Field<int64_t>
    kRanges("k-ranges", cl::cat(tileOptions),
            cl::desc("GEMM (wgmma): ranges of k-tiles a block sums apart and adds in order, as "
                     "--split-k splits them (default: the chooser's)"),
            cl::location(request.kRanges));
static cl::opt<cl::boolOrDefault>
    streamK("stream-k", cl::cat(tileOptions),
            cl::desc("GEMM (persistent wgmma): blocks share the last tiles' k-tiles, partial "
                     "sums added in a fixed order (default: the chooser's, off with a tile "
                     "given; =false: the chooser's choice without it)"));
static Field<int64_t>
    stages("stages", cl::cat(tileOptions),
           cl::desc("GEMM pipeline stages (default: the chooser's, 4 with a tile given)"),
           cl::location(request.stages));
static cl::opt<cl::boolOrDefault>
    gemmWgmma("wgmma", cl::cat(tileOptions),
              cl::desc("GEMM on Hopper's warpgroup wgmma (default: on sm_90 where A and B are "
                       "K-major; =false: mma.sync)"));
static Field<int64_t> warpsM("warps-m", cl::cat(tileOptions),
                             cl::desc("Warps along M (conv2d-gw8: along Q)"),
                             cl::location(request.warpsM));
static Field<int64_t> warpsN("warps-n", cl::cat(tileOptions),
                             cl::desc("Warps along N (conv2d-gw8: along groups)"),
                             cl::location(request.warpsN));
static Field<int64_t> convRowsP("rows-p", cl::cat(tileOptions),
                                cl::desc("conv2d-gw8 output rows a block"),
                                cl::location(request.convRowsP));
static Field<int64_t>
    convChunks("chunks", cl::cat(tileOptions),
               cl::desc("conv2d-gw8 blocks a group tile along wgrad's reduction or the bands"),
               cl::location(request.convChunks));
static Field<int64_t>
    convCopyWarps("copy-warps", cl::cat(tileOptions),
                  cl::desc("conv2d-gw8 fprop and dgrad warps that only copy rows in"),
                  cl::location(request.convCopyWarps));

static Field<int64_t> convK("out-channels", cl::cat(denseConvOptions),
                            cl::desc("Output channels K (0: C)"), cl::location(request.convK));
static Field<int64_t> convDilation("dilation", cl::cat(denseConvOptions),
                                   cl::desc("Dilation of both sides"),
                                   cl::location(request.convDilation));
static Field<int64_t> convParts("parts", cl::cat(denseConvOptions),
                                cl::desc("conv2d wgrad: the reduction's parts, added by a "
                                         "reduce kernel (0: choose)"),
                                cl::location(request.convParts));
static Field<std::string> convPass("pass", cl::cat(convOptions),
                                   cl::desc("fprop, dgrad or wgrad (conv2d: fprop or dgrad)"),
                                   cl::location(request.convPass));
static Field<int64_t> convN("batch", cl::cat(convOptions), cl::desc("Images N"),
                            cl::location(request.convN));
static Field<int64_t> convC("channels", cl::cat(convOptions),
                            cl::desc("Channels C (conv2d-gw8: C = K)"),
                            cl::location(request.convC));
static Field<int64_t> convH("height", cl::cat(convOptions), cl::desc("Input height H"),
                            cl::location(request.convH));
static Field<int64_t> convW("width", cl::cat(convOptions), cl::desc("Input width W"),
                            cl::location(request.convW));
static Field<int64_t> convR("r", cl::cat(convOptions), cl::desc("Kernel height R"),
                            cl::location(request.convR));
static Field<int64_t> convS("s", cl::cat(convOptions), cl::desc("Kernel width S"),
                            cl::location(request.convS));
static Field<int64_t> padH("pad-h", cl::cat(convOptions), cl::desc("Padding of H"),
                           cl::location(request.padH));
static Field<int64_t> padW("pad-w", cl::cat(convOptions), cl::desc("Padding of W"),
                           cl::location(request.padW));
static Field<int64_t> convStride("stride", cl::cat(convOptions),
                                 cl::desc("Stride (conv2d-gw8: 1 or 2; conv2d: 1 to 8)"),
                                 cl::location(request.convStride));
static Field<int64_t>
    convGroupWidth("group-width", cl::cat(convOptions),
                   cl::desc("conv2d-gw8 channels a group: 8, or 1 (depthwise), 2 or 4"),
                   cl::location(request.convGroupWidth));
static Field<bool> convBias("bias", cl::cat(convOptions),
                            cl::desc("Add a bias (fprop); also its gradient (wgrad)"),
                            cl::location(request.convBias));
static Field<bool>
    convAutotune("autotune", cl::cat(convOptions),
                 cl::desc("Time the chosen configuration and its neighbours; run the fastest"),
                 cl::location(request.convAutotune));
static Field<int64_t> convAutotuneCandidates(
    "autotune-candidates", cl::cat(convOptions),
    cl::desc("Time only the performance model's N best candidates (implies --autotune)"),
    cl::location(request.convAutotuneCandidates));
static Field<bool>
    convRules("rules", cl::cat(convOptions),
              cl::desc("The hand rules' configuration, not the performance model's pick"),
              cl::location(request.convRules));
static Field<int64_t> targetMultiprocessors(
    "multiprocessors", cl::cat(workloadOptions),
    cl::desc("The target's multiprocessors (0: the GPU's, else the chip's reference part's)"),
    cl::location(request.targetMultiprocessors));
static Field<int64_t> targetL2Bytes(
    "l2-bytes", cl::cat(workloadOptions),
    cl::desc("The target's L2 bytes (0: the GPU's, else the chip's reference part's)"),
    cl::location(request.targetL2Bytes));

static Field<bool>
    convDependentLaunch("dependent-launch", cl::cat(wgradOptions),
                        cl::desc("Launch the reduce as a dependent grid (sm_90 and later)"),
                        cl::location(request.convDependentLaunch));
static Field<WgradKernels> wgradKernels(
    "wgrad-kernels", cl::cat(wgradOptions), cl::Hidden, cl::desc("The kernels --bench times"),
    cl::values(clEnumValN(WgradKernels::Both, "both", "the partial sums and the reduce"),
               clEnumValN(WgradKernels::PartialSums, "partial-sums", "the partial sums alone"),
               clEnumValN(WgradKernels::Reduce, "reduce",
                          "the reduce alone, not a dependent grid, over a run's partial sums")),
    cl::location(request.wgradKernels));
static Field<bool> wgradClusterReduce(
    "wgrad-cluster-reduce", cl::cat(wgradOptions),
    cl::desc("One kernel adding its partial sums in a cluster (sm_90; at most 8 sums)"),
    cl::location(request.wgradClusterReduce));
static Field<bool>
    wgradEarlyLaunch("wgrad-early-launch", cl::cat(wgradOptions),
                     cl::desc("Let the reduce launch as the partial sums' blocks start"),
                     cl::location(request.wgradEarlyLaunch));
static Field<int64_t> wgradStagesOption("wgrad-stages", cl::cat(wgradOptions),
                                        cl::desc("Band loop buffers, 1 to 4 (0: choose)"),
                                        cl::location(request.wgradStagesOption));
static Field<int64_t>
    wgradReduceLaneElements("wgrad-reduce-lane-elements", cl::cat(wgradOptions),
                            cl::desc("dw elements a reduce lane adds, 1, 2 or 4 (0: choose)"),
                            cl::location(request.wgradReduceLaneElements));
static cl::opt<bool>
    wgradRowRing("wgrad-row-ring", cl::cat(wgradOptions),
                 cl::desc("Hand each band's last R - 1 rows of x on to the next (=false: never)"),
                 cl::init(false));
static Field<WgradParts>
    wgradParts("wgrad-parts", cl::cat(wgradOptions), cl::Hidden,
               cl::desc("Run one part of the band loop alone, to time it (wrong sums)"),
               cl::values(clEnumValN(WgradParts::All, "all", "the whole loop"),
                          clEnumValN(WgradParts::Copies, "copies", "its copies alone"),
                          clEnumValN(WgradParts::CopiesWithoutRowHalo, "copies-without-row-halo",
                                     "the copies of as many x rows as a band has dy rows"),
                          clEnumValN(WgradParts::Mma, "mma", "its fragment loads and mma alone")),
               cl::location(request.wgradParts));
static cl::opt<WgradDiscard> wgradDiscardPartials(
    "wgrad-discard-partials", cl::cat(wgradOptions),
    cl::desc("Drop the read partial sums from L2 unwritten"),
    cl::values(clEnumValN(WgradDiscard::Auto, "auto",
                          "where the layer and its partial sums outgrow 3/4 of the L2"),
               clEnumValN(WgradDiscard::Always, "always", "wherever a channel fits a block"),
               clEnumValN(WgradDiscard::Never, "never", "never")),
    cl::init(WgradDiscard::Auto));

namespace {

using jit::fail;

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

void rejectOptions(const std::string &mode, llvm::ArrayRef<const cl::Option *> options) {
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
  if (const std::string &given = llvmOptionsGiven(); !given.empty() && !request.noDiskCache) {
    llvm::errs() << "spio-jit: LLVM options given (" << given
                 << "): the on-disk PTX cache is neither read nor written\n";
    request.noDiskCache = true;
  }
  // An empty --chip is a chip spio does not compile for, not the default.
  if (chip.getNumOccurrences())
    if (std::string why = checkChip(request.chip); !why.empty())
      fail("--chip: " + why);
  const std::initializer_list<const cl::Option *> gemmOnly = {
      &sizeM,      &sizeN,         &sizeK,     &aLayout,    &bLayout,     &alpha,
      &beta,       &blockM,        &blockN,    &blockK,     &stages,      &raster,
      &persistent, &cluster,       &swapAB,    &splitK,     &pingpong,    &promote,
      &kRanges,    &streamK,       &precision, &groupCount, &groupsAlong, &storesPreActivation,
      &gemmWgmma,  &listCandidates};
  // Options of the grouped conv alone, and of both convolutions.
  const std::initializer_list<const cl::Option *> gw8Only = {
      &convBias,         &convGroupWidth,      &convRowsP,
      &convChunks,       &convDependentLaunch, &convAutotune,
      &convRules,        &wgradClusterReduce,  &wgradDiscardPartials,
      &wgradEarlyLaunch, &wgradParts,          &wgradReduceLaneElements,
      &wgradRowRing,     &wgradStagesOption,   &convAutotuneCandidates};
  const std::initializer_list<const cl::Option *> convShared = {
      &convN, &convC, &convH, &convW, &convR, &convS, &padH, &padW, &convStride, &convPass};
  if (!request.inputFile.empty()) {
    // The file fixes the workload, its shapes and its configs.
    const std::initializer_list<const cl::Option *> fileFixes = {
        &convK,    &convDilation, &convParts, &workload, &dtype,
        &outDtype, &warpsM,       &warpsN,    &emitSpio};
    for (const auto &options : {gemmOnly, convShared, gw8Only, fileFixes})
      rejectOptions("a kernel file", options);
  } else if (request.workload == "conv2d" && request.groupCount > 1 &&
             (request.convC % request.groupCount != 0 ||
              (request.convC / request.groupCount < 16 &&
               (request.convK == 0 || request.convK == request.convC)))) {
    // A grouped conv2d of narrow groups (as many outputs as inputs) is the
    // grouped family's workload of its group width (groups of 16 channels
    // or more, or of other outputs, run on the implicit GEMM, below).
    int64_t c = request.convC, groups = request.groupCount;
    llvm::SmallVector<const cl::Option *> gemmNotConv(gemmOnly);
    llvm::erase(gemmNotConv, &groupCount);
    rejectOptions("--workload conv2d --groups", gemmNotConv);
    rejectOptions("--workload conv2d --groups", {&convParts, &convGroupWidth});
    if (c % groups != 0 || !llvm::is_contained({1, 2, 4, 8}, c / groups))
      fail("--groups must split the " + std::to_string(c) +
           " channels into groups of 1, 2, 4 or 8 (the grouped family), or of a multiple of 8 "
           "(the implicit GEMM), got " +
           std::to_string(groups));
    if (request.convDilation != 1)
      fail("--groups: a grouped conv2d takes dilation 1");
    request.workload = "conv2d-gw8";
    request.convGroupWidth = c / groups;
    request.groupCount = 0;
    if (request.dtype.empty())
      request.dtype = "bf16";
  } else if (request.workload == "conv2d-gw8") {
    rejectOptions("--workload conv2d-gw8", gemmOnly);
    rejectOptions("--workload conv2d-gw8", {&convParts});
  } else if (request.workload == "gemm") {
    for (const auto &options : {convShared, gw8Only, {&convK, &convDilation, &convParts}})
      rejectOptions("--workload gemm", options);
  } else if (request.workload == "conv2d") {
    // --groups 1 (or none): the dense conv2d; groups of 64 channels or
    // more: the implicit GEMM a group at a time.
    if (groupCount.getNumOccurrences() && request.groupCount < 1)
      fail("--groups must be positive, got " + std::to_string(request.groupCount));
    request.groupCount = std::max<int64_t>(1, request.groupCount);
    rejectOptions("--workload conv2d", gw8Only);
    rejectOptions("--workload conv2d",
                  {&sizeM, &sizeN, &sizeK, &aLayout, &bLayout, &alpha, &beta, &swapAB, &precision,
                   &groupsAlong, &gemmWgmma, &batchCount, &broadcast, &batchInvariant, &biasAlong,
                   &scaleAlong, &listCandidates});
  }
  auto given = [](const cl::opt<cl::boolOrDefault> &option) {
    return option == cl::BOU_UNSET ? std::nullopt : std::optional<bool>(option == cl::BOU_TRUE);
  };
  request.swapAB = given(swapAB);
  request.promote = given(promote);
  request.streamK = given(streamK);
  request.gemmWgmma = given(gemmWgmma);
  if (pingpong.getNumOccurrences())
    request.pingpong = pingpong;
  if (wgradRowRing.getNumOccurrences())
    request.wgradRowRing = wgradRowRing;
  if (wgradDiscardPartials.getNumOccurrences())
    request.wgradDiscardPartials = wgradDiscardPartials;
  if (convAutotuneCandidates.getNumOccurrences()) {
    if (request.convAutotuneCandidates < 2)
      fail("--autotune-candidates times the model's N best candidates: N must be 2 or more, got " +
           std::to_string(request.convAutotuneCandidates));
    request.convAutotune = true;
  }
  return jit::run(request);
}
