//===- Spio.cpp - C API of the Spio compiler ------------------------------===//

#include "spio-c/Spio.h"

#include "spio/Compiler/AutotuneCache.h"
#include "spio/Compiler/Cache.h"
#include "spio/Compiler/Compiler.h"
#include "spio/Compiler/Version.h"
#include "spio/Kernels/Autotune.h"
#include "spio/Kernels/Conv2d.h"
#include "spio/Kernels/Conv2dGw8.h"
#include "spio/Kernels/Gemm.h"
#include "spio/Kernels/IR/Conv2dGw8Kernel.h"
#include "spio/Kernels/IR/Conv2dKernel.h"
#include "spio/Kernels/IR/GemmKernel.h"
#include "spio/Kernels/Launcher.h"
#include "spio/Runtime/Cuda.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <set>
#include <vector>

namespace kernels = ::spio::kernels;

struct spio_compiled {
  mlir::spio::CompiledModule module;
  mlir::spio::CacheOutcome outcome;
  /// The spio-dialect text compiled (for a family's workload, the module
  /// as it prints: the cache's key).
  std::string source;
};

struct spio_loaded {
  /// The device the module is loaded on.
  const ::spio::runtime::Cuda *cuda = nullptr;
  ::spio::runtime::Module module;
  /// Kernels looked up so far (each remembers its shared-memory opt-in).
  std::map<std::string, ::spio::runtime::Kernel> kernels;
  /// Kernels that wait for the grids before them: launched as dependent
  /// grids (wgrad's reduce).
  std::set<std::string> dependents;
  /// Loaded from compiled kernels: each one's shared memory and block size.
  std::map<std::string, kernels::CompiledResources> resources;
};

struct spio_launcher {
  kernels::Launcher launcher;
};

namespace {

/// A malloc'ed copy, or NULL for an empty string (no error).
char *copyOrNull(const std::string &text) {
  if (text.empty())
    return nullptr;
  char *copy = static_cast<char *>(std::malloc(text.size() + 1));
  std::memcpy(copy, text.c_str(), text.size() + 1);
  return copy;
}

kernels::DType dtype(int32_t value) {
  switch (value) {
  case SPIO_BF16:
    return kernels::DType::BF16;
  case SPIO_F32:
    return kernels::DType::F32;
  default:
    return kernels::DType::F16;
  }
}

/// Out-of-range enumerators are reported by the checks, not guessed.
std::string enumError(const char *what, int32_t value, int32_t last) {
  if (value >= 0 && value <= last)
    return {};
  return std::string("unknown ") + what + " " + std::to_string(value);
}

/// The first `count` steps (the checks refuse a count outside 0-8 before
/// this is used).
std::vector<kernels::EpilogueStep> epilogueSteps(const int32_t *steps, int32_t count) {
  std::vector<kernels::EpilogueStep> result;
  for (int32_t i = 0; i < std::clamp(count, 0, SPIO_GEMM_MAX_EPILOGUE_STEPS); ++i)
    result.push_back(kernels::EpilogueStep(steps[i]));
  return result;
}

kernels::GemmProblem gemmProblem(const spio_gemm_problem &p) {
  kernels::GemmProblem g;
  g.m = p.m;
  g.n = p.n;
  g.k = p.k;
  g.input = dtype(p.input_dtype);
  g.output = dtype(p.output_dtype);
  g.a = p.a_col_major ? kernels::Layout::ColMajor : kernels::Layout::RowMajor;
  g.b = p.b_col_major ? kernels::Layout::ColMajor : kernels::Layout::RowMajor;
  g.readsC = p.reads_c != 0;
  g.epilogue = epilogueSteps(p.epilogue, p.epilogue_steps);
  auto along = [](int32_t value) {
    return value == SPIO_ALONG_ROWS   ? kernels::Along::Rows
           : value == SPIO_ALONG_COLS ? kernels::Along::Cols
                                      : kernels::Along::None;
  };
  g.bias = along(p.bias_along);
  g.scale = along(p.scale_along);
  g.biasType = dtype(p.bias_dtype);
  g.scaleType = dtype(p.scale_dtype);
  g.batchInvariant = p.batch_invariant != 0;
  g.batch = p.batch == 0 ? 1 : p.batch;
  g.batchA = p.a_shared == 0;
  g.batchB = p.b_shared == 0;
  g.precision = kernels::F32Precision(p.f32_precision);
  g.groups = p.groups;
  g.packLayouts = p.pack_layouts != 0;
  g.groupedReduction = p.groups_along_k != 0;
  g.storesPreActivation = p.stores_pre_activation != 0;
  return g;
}

kernels::GemmConfig gemmConfig(const spio_gemm_config &c) {
  kernels::GemmConfig g;
  g.blockM = c.block_m;
  g.blockN = c.block_n;
  g.blockK = c.block_k;
  g.warpsM = c.warps_m;
  g.warpsN = c.warps_n;
  g.stages = c.stages;
  g.raster = c.raster;
  g.wgmma = c.wgmma != 0;
  g.persistent = c.persistent;
  g.cluster = c.cluster ? c.cluster : 1;
  g.swapAB = c.swap != 0;
  g.splitK = c.split_k ? c.split_k : 1;
  g.pingpong = c.pingpong != 0;
  g.promote = c.promote != 0;
  g.kRanges = c.k_ranges ? c.k_ranges : 1;
  g.streamK = c.stream_k != 0;
  return g;
}

kernels::Conv2dProblem conv2dProblem(const spio_conv2d_problem &p) {
  kernels::Conv2dProblem g;
  g.n = p.n;
  g.h = p.h;
  g.w = p.w;
  g.c = p.c;
  g.k = p.k;
  g.r = p.r;
  g.s = p.s;
  g.strideH = p.stride_h;
  g.strideW = p.stride_w;
  g.padH = p.pad_h;
  g.padW = p.pad_w;
  g.dilationH = p.dilation_h;
  g.dilationW = p.dilation_w;
  g.input = dtype(p.input_dtype);
  g.output = dtype(p.output_dtype);
  g.epilogue = epilogueSteps(p.epilogue, p.epilogue_steps);
  g.biasType = dtype(p.bias_dtype);
  g.scaleType = dtype(p.scale_dtype);
  g.pass = p.pass == SPIO_DGRAD   ? kernels::ConvPass::Dgrad
           : p.pass == SPIO_WGRAD ? kernels::ConvPass::Wgrad
                                  : kernels::ConvPass::Fprop;
  if (p.parts != 0)
    g.parts = p.parts;
  if (p.groups != 0)
    g.groups = p.groups;
  return g;
}

spio_gemm_config gemmConfig(const kernels::GemmConfig &c) {
  return {c.blockM,     c.blockN,  c.blockK, c.warpsM, c.warpsN,   c.stages,  c.raster,  c.wgmma,
          c.persistent, c.cluster, c.swapAB, c.splitK, c.pingpong, c.promote, c.kRanges, c.streamK};
}

/// The C target as the kernel families take it (empty for NULL: the
/// checks refuse it).
::spio::Target target(const spio_target *t) {
  ::spio::Target g;
  if (!t)
    return g;
  g.chip = std::string(t->chip, strnlen(t->chip, sizeof(t->chip)));
  g.multiprocessors = t->multiprocessors;
  g.l2Bytes = t->l2_bytes;
  g.sharedBytesPerBlock = t->shared_bytes_per_block;
  g.sharedBytesPerMultiprocessor = t->shared_bytes_per_multiprocessor;
  g.memoryBytesPerSecond = t->memory_bytes_per_second;
  std::copy(std::begin(t->clusters_at_once), std::end(t->clusters_at_once), g.clustersAtOnce);
  return g;
}

void writeTarget(const ::spio::Target &g, spio_target *t) {
  std::memset(t, 0, sizeof(*t));
  std::strncpy(t->chip, g.chip.c_str(), sizeof(t->chip) - 1);
  t->multiprocessors = g.multiprocessors;
  t->l2_bytes = g.l2Bytes;
  t->shared_bytes_per_block = g.sharedBytesPerBlock;
  t->shared_bytes_per_multiprocessor = g.sharedBytesPerMultiprocessor;
  t->memory_bytes_per_second = g.memoryBytesPerSecond;
  std::copy(std::begin(g.clustersAtOnce), std::end(g.clustersAtOnce), t->clusters_at_once);
}

kernels::Conv2dGw8Problem convProblem(const spio_conv2d_gw8_problem &p) {
  kernels::Conv2dGw8Problem g;
  g.pass = p.pass == SPIO_DGRAD   ? kernels::ConvPass::Dgrad
           : p.pass == SPIO_WGRAD ? kernels::ConvPass::Wgrad
                                  : kernels::ConvPass::Fprop;
  g.n = p.n;
  g.c = p.c;
  g.h = p.h;
  g.w = p.w;
  g.r = p.r;
  g.s = p.s;
  g.padH = p.pad_h;
  g.padW = p.pad_w;
  g.stride = p.stride;
  if (p.group_width != 0)
    g.groupWidth = p.group_width;
  g.bias = p.bias != 0;
  g.dtype = dtype(p.dtype);
  g.wgradF32 = p.wgrad_f32 != 0;
  g.target = target(&p.target);
  return g;
}

kernels::Conv2dGw8Config convConfig(const spio_conv2d_gw8_config &c) {
  kernels::Conv2dGw8Config g;
  g.warpsQ = c.warps_q;
  g.warpsG = c.warps_g;
  g.rowsP = c.rows_p;
  g.chunks = c.chunks;
  g.copyWarps = c.copy_warps;
  g.stages = c.stages;
  g.rowRing = c.row_ring != 0;
  g.reduceLaneElements = c.reduce_lane_elements;
  return g;
}

spio_conv2d_gw8_config convConfig(const kernels::Conv2dGw8Config &c) {
  return {c.warpsQ, c.warpsG, c.rowsP, c.chunks, c.copyWarps, c.stages, c.rowRing ? 1 : 0,
          c.reduceLaneElements};
}

spio_launch_shape launchShape(const kernels::LaunchShape &s) {
  return {s.gridX, s.gridY, s.block, s.gridZ};
}

/// A Hopper without limits on shared memory or multiprocessors: what the
/// checks refuse on it (dtypes, sizes, a configuration's own ranges) they
/// refuse on every GPU. The sources, launch shapes and workspaces below
/// are sized from the problem and configuration: they take only what that
/// passes, and say nothing (NULL, zeros) of the rest.
spio_target unboundedTarget() {
  spio_target t{};
  std::strncpy(t.chip, "sm_90a", sizeof(t.chip) - 1);
  t.multiprocessors = t.l2_bytes = int64_t(1) << 40;
  t.shared_bytes_per_block = t.shared_bytes_per_multiprocessor = int64_t(1) << 40;
  t.memory_bytes_per_second = 1e15;
  return t;
}

/// Whether a check's answer (freed here) found nothing wrong.
bool passes(char *why) {
  bool nothingWrong = !why;
  std::free(why);
  return nothingWrong;
}

bool gemmWellFormed(const spio_gemm_problem &p, const spio_gemm_config &c) {
  spio_target any = unboundedTarget();
  return passes(spio_gemm_check(&p, &c, &any));
}

bool conv2dWellFormed(const spio_conv2d_problem &p, const spio_gemm_config &c) {
  spio_target any = unboundedTarget();
  return passes(spio_conv2d_check(&p, &c, &any));
}

bool conv2dGw8WellFormed(const spio_conv2d_gw8_problem &p, const spio_conv2d_gw8_config &c) {
  return passes(spio_conv2d_gw8_check(&p, &c));
}

bool conv2dGw8ProblemWellFormed(const spio_conv2d_gw8_problem &p) {
  return p.pass >= 0 && p.pass <= SPIO_WGRAD && p.dtype >= 0 && p.dtype <= SPIO_F32 &&
         kernels::checkConv2dGw8Problem(convProblem(p)).empty();
}

} // namespace

extern "C" {

void spio_free(void *pointer) { std::free(pointer); }

const char *spio_version(void) { return mlir::spio::versionString(); }

int32_t spio_abi_version(void) { return SPIO_ABI_VERSION; }

char *spio_gemm_check(const spio_gemm_problem *problem, const spio_gemm_config *config,
                      const spio_target *target) {
  std::string err = enumError("input dtype", problem->input_dtype, SPIO_F32) +
                    enumError("output dtype", problem->output_dtype, SPIO_F32) +
                    enumError("bias dtype", problem->bias_dtype, SPIO_F32) +
                    enumError("scale dtype", problem->scale_dtype, SPIO_F32) +
                    enumError("bias direction", problem->bias_along, SPIO_ALONG_COLS) +
                    enumError("scale direction", problem->scale_along, SPIO_ALONG_COLS) +
                    enumError("epilogue step count", problem->epilogue_steps,
                              SPIO_GEMM_MAX_EPILOGUE_STEPS);
  if (!err.empty())
    return copyOrNull(err);
  ::spio::Target t = ::target(target);
  if (std::string why = ::spio::checkTarget(t); !why.empty())
    return copyOrNull(why);
  return copyOrNull(kernels::checkGemm(gemmProblem(*problem), gemmConfig(*config), t));
}

spio_gemm_config spio_gemm_choose_config(const spio_gemm_problem *problem,
                                         const spio_target *target) {
  kernels::GemmProblem p = gemmProblem(*problem);
  ::spio::Target t = ::target(target);
  bool wgmma = ::spio::hasWarpgroupMma(t.chip) && kernels::gemmPrefersWgmma(p, t);
  p.packLayouts = wgmma;
  return gemmConfig(wgmma ? kernels::chooseWgmmaGemmConfig(p, t) : kernels::chooseGemmConfig(p, t));
}

char *spio_conv2d_check(const spio_conv2d_problem *problem, const spio_gemm_config *config,
                        const spio_target *target) {
  std::string err =
      enumError("input dtype", problem->input_dtype, SPIO_F32) +
      enumError("output dtype", problem->output_dtype, SPIO_F32) +
      enumError("bias dtype", problem->bias_dtype, SPIO_F32) +
      enumError("scale dtype", problem->scale_dtype, SPIO_F32) +
      enumError("pass", problem->pass, SPIO_WGRAD) +
      enumError("epilogue step count", problem->epilogue_steps, SPIO_GEMM_MAX_EPILOGUE_STEPS);
  for (int32_t i = 0; err.empty() && i < problem->epilogue_steps; ++i)
    err = enumError("epilogue step", problem->epilogue[i], SPIO_EPILOGUE_SILU);
  if (!err.empty())
    return copyOrNull(err);
  ::spio::Target t = ::target(target);
  if (std::string why = ::spio::checkTarget(t); !why.empty())
    return copyOrNull(why);
  return copyOrNull(kernels::checkConv2d(conv2dProblem(*problem), gemmConfig(*config), t));
}

spio_gemm_config spio_conv2d_choose_config(const spio_conv2d_problem *problem,
                                           const spio_target *target) {
  return gemmConfig(kernels::chooseConv2dConfig(conv2dProblem(*problem), ::target(target)));
}

int64_t spio_conv2d_wgrad_parts(const spio_conv2d_problem *problem, const spio_gemm_config *config,
                                const spio_target *target) {
  return kernels::conv2dWgradParts(conv2dProblem(*problem), gemmConfig(*config), ::target(target));
}

int64_t spio_conv2d_workspace_bytes(const spio_conv2d_problem *problem) {
  if (problem->input_dtype < 0 || problem->input_dtype > SPIO_F32 ||
      !kernels::checkConv2dProblem(conv2dProblem(*problem)).empty())
    return 0;
  return kernels::conv2dWorkspaceBytes(conv2dProblem(*problem));
}

int64_t spio_conv2d_block_groups(const spio_conv2d_problem *problem) {
  return kernels::conv2dBlockGroups(conv2dProblem(*problem));
}

char *spio_conv2d_source(const spio_conv2d_problem *problem, const spio_gemm_config *config) {
  if (!conv2dWellFormed(*problem, *config))
    return nullptr;
  return copyOrNull(mlir::spio::conv2dSource(conv2dProblem(*problem), gemmConfig(*config)));
}

int64_t spio_conv2d_launch_shapes(const spio_conv2d_problem *problem,
                                  const spio_gemm_config *config, spio_launch_shape *shapes,
                                  int64_t capacity) {
  if (!conv2dWellFormed(*problem, *config))
    return 0;
  kernels::LaunchPlan plan =
      kernels::conv2dLaunchPlan(conv2dProblem(*problem), gemmConfig(*config));
  for (int64_t i = 0; i < capacity && i < int64_t(plan.kernels.size()); ++i)
    shapes[i] = launchShape(plan.kernels[i].shape);
  return int64_t(plan.kernels.size());
}

char *spio_gemm_source(const spio_gemm_problem *problem, const spio_gemm_config *config) {
  if (!gemmWellFormed(*problem, *config))
    return nullptr;
  return copyOrNull(mlir::spio::gemmSource(gemmProblem(*problem), gemmConfig(*config)));
}

spio_launch_shape spio_gemm_launch_shape(const spio_gemm_problem *problem,
                                         const spio_gemm_config *config) {
  if (!gemmWellFormed(*problem, *config))
    return {0, 0, 0, 0};
  return launchShape(kernels::gemmLaunchShape(gemmProblem(*problem), gemmConfig(*config)));
}

spio_launch_shape spio_gemm_pack_launch_shape(const spio_gemm_problem *problem,
                                              int32_t operand) {
  kernels::GemmProblem p = gemmProblem(*problem);
  if ((operand != 0 && operand != 1) || p.m < 1 || p.n < 1 || p.k < 1 || p.batch < 1 ||
      !kernels::gemmPacksOperand(p, operand == 0 ? 'a' : 'b'))
    return {0, 0, 0, 0};
  return launchShape(kernels::gemmPackLaunchShape(p, operand == 0 ? 'a' : 'b'));
}

int64_t spio_gemm_workspace_size(const spio_gemm_problem *problem, const spio_gemm_config *config) {
  if (!gemmWellFormed(*problem, *config))
    return 0;
  return kernels::gemmWorkspaceBytes(gemmProblem(*problem), gemmConfig(*config));
}

char *spio_conv2d_gw8_check(const spio_conv2d_gw8_problem *problem,
                            const spio_conv2d_gw8_config *config) {
  std::string err = enumError("pass", problem->pass, SPIO_WGRAD) +
                    enumError("dtype", problem->dtype, SPIO_F32);
  if (!err.empty())
    return copyOrNull(err);
  return copyOrNull(kernels::checkConv2dGw8(convProblem(*problem), convConfig(*config)));
}

spio_conv2d_gw8_config spio_conv2d_gw8_choose_config(const spio_conv2d_gw8_problem *problem) {
  return convConfig(kernels::chooseConv2dGw8Config(convProblem(*problem)));
}

spio_conv2d_gw8_config spio_conv2d_gw8_rule_config(const spio_conv2d_gw8_problem *problem) {
  return convConfig(kernels::conv2dGw8RuleConfig(convProblem(*problem)));
}

int64_t spio_conv2d_gw8_candidates(const spio_conv2d_gw8_problem *problem,
                                   spio_conv2d_gw8_config *configs, int64_t capacity) {
  std::vector<kernels::Conv2dGw8Config> candidates =
      kernels::conv2dGw8Candidates(convProblem(*problem));
  for (int64_t i = 0; configs && i < capacity && i < int64_t(candidates.size()); ++i)
    configs[i] = convConfig(candidates[i]);
  return int64_t(candidates.size());
}

int64_t spio_conv2d_gw8_features(const spio_conv2d_gw8_problem *problem,
                                 const spio_conv2d_gw8_config *config, double *features,
                                 int64_t capacity) {
  if (!conv2dGw8WellFormed(*problem, *config))
    return 0;
  std::vector<double> values =
      kernels::conv2dGw8Features(convProblem(*problem), convConfig(*config));
  for (int64_t i = 0; features && i < capacity && i < int64_t(values.size()); ++i)
    features[i] = values[i];
  return int64_t(values.size());
}

const char *spio_conv2d_gw8_feature_name(int64_t index) {
  const std::vector<std::string> &names = kernels::conv2dGw8FeatureNames();
  return index >= 0 && index < int64_t(names.size()) ? names[index].c_str() : nullptr;
}

char *spio_conv2d_gw8_source(const spio_conv2d_gw8_problem *problem,
                             const spio_conv2d_gw8_config *config) {
  if (!conv2dGw8WellFormed(*problem, *config))
    return nullptr;
  return copyOrNull(mlir::spio::conv2dGw8Source(convProblem(*problem), convConfig(*config)));
}

spio_launch_shape spio_conv2d_gw8_launch_shape(const spio_conv2d_gw8_problem *problem,
                                               const spio_conv2d_gw8_config *config) {
  if (!conv2dGw8WellFormed(*problem, *config))
    return {0, 0, 0, 0};
  return launchShape(kernels::conv2dGw8LaunchShape(convProblem(*problem), convConfig(*config)));
}

int64_t spio_conv2d_gw8_workspace_bytes(const spio_conv2d_gw8_problem *problem,
                                        const spio_conv2d_gw8_config *config) {
  if (!conv2dGw8WellFormed(*problem, *config))
    return 0;
  return kernels::conv2dGw8WorkspaceBytes(convProblem(*problem), convConfig(*config));
}

spio_launch_shape spio_conv2d_gw8_reduce_launch_shape(const spio_conv2d_gw8_problem *problem,
                                                      const spio_conv2d_gw8_config *config) {
  if (!conv2dGw8WellFormed(*problem, *config))
    return {0, 0, 0, 0};
  return launchShape(
      kernels::conv2dGw8WgradReduceLaunchShape(convProblem(*problem), convConfig(*config)));
}

spio_launch_shape spio_conv2d_gw8_bias_launch_shape(const spio_conv2d_gw8_problem *problem) {
  if (!conv2dGw8ProblemWellFormed(*problem))
    return {0, 0, 0, 0};
  return launchShape(kernels::conv2dGw8WgradBiasLaunchShape(convProblem(*problem)));
}

spio_launch_shape spio_conv2d_gw8_bias_reduce_launch_shape(const spio_conv2d_gw8_problem *problem) {
  if (!conv2dGw8ProblemWellFormed(*problem))
    return {0, 0, 0, 0};
  return launchShape(kernels::conv2dGw8WgradBiasReduceLaunchShape(convProblem(*problem)));
}

/// Runs `compile` (into the compiled's module and outcome, or an error
/// message) for `chip`: the compiled, or NULL with *error set.
static spio_compiled *compileWith(
    const char *chip, char **error,
    llvm::function_ref<bool(const mlir::spio::CompileOptions &, spio_compiled &, std::string &)>
        compile) {
  mlir::spio::CompileOptions options;
  if (chip && *chip)
    options.chip = chip;
  auto *compiled = new spio_compiled;
  std::string message;
  if (!compile(options, *compiled, message)) {
    delete compiled;
    if (error)
      *error = copyOrNull(message.empty() ? "compilation failed" : message);
    return nullptr;
  }
  return compiled;
}

spio_compiled *spio_compile(const char *source, const char *chip, char **error) {
  return compileWith(chip, error,
                     [&](const mlir::spio::CompileOptions &options, spio_compiled &compiled,
                         std::string &message) {
                       compiled.source = source ? source : "";
                       return mlir::spio::compileToPTXCached(
                           compiled.source, options, compiled.module, message, compiled.outcome);
                     });
}

/// A family's workload built in a compiler context and compiled as built,
/// through the cache keyed by its printed text.
static spio_compiled *
compileWorkload(const char *chip, char **error,
                llvm::function_ref<mlir::OwningOpRef<mlir::ModuleOp>(mlir::MLIRContext *)> build) {
  return compileWith(
      chip, error,
      [&](const mlir::spio::CompileOptions &options, spio_compiled &compiled,
          std::string &message) {
        std::unique_ptr<mlir::MLIRContext> context = mlir::spio::makeCompilerContext();
        mlir::spio::loadWorkloadDialects(context.get());
        mlir::OwningOpRef<mlir::ModuleOp> module = build(context.get());
        return mlir::spio::compileModuleToPTXCached(*module, options, compiled.module, message,
                                                    compiled.outcome, compiled.source);
      });
}

spio_compiled *spio_gemm_compile(const spio_gemm_problem *problem, const spio_gemm_config *config,
                                 const char *chip, char **error) {
  return compileWorkload(chip, error, [&](mlir::MLIRContext *context) {
    return mlir::spio::buildGemmWorkload(context, gemmProblem(*problem), gemmConfig(*config));
  });
}

spio_compiled *spio_conv2d_compile(const spio_conv2d_problem *problem,
                                   const spio_gemm_config *config, const char *chip, char **error) {
  return compileWorkload(chip, error, [&](mlir::MLIRContext *context) {
    return mlir::spio::buildConv2dWorkload(context, conv2dProblem(*problem), gemmConfig(*config));
  });
}

spio_compiled *spio_conv2d_gw8_compile(const spio_conv2d_gw8_problem *problem,
                                       const spio_conv2d_gw8_config *config, const char *chip,
                                       char **error) {
  return compileWorkload(chip, error, [&](mlir::MLIRContext *context) {
    return mlir::spio::buildConv2dGw8Workload(context, convProblem(*problem), convConfig(*config));
  });
}

const char *spio_compiled_source(const spio_compiled *compiled) { return compiled->source.c_str(); }

void spio_compiled_destroy(spio_compiled *compiled) { delete compiled; }

const char *spio_compiled_ptx(const spio_compiled *compiled) {
  return compiled->module.ptx.c_str();
}

const char *spio_compiled_cache_outcome(const spio_compiled *compiled) {
  return mlir::spio::describe(compiled->outcome);
}

int32_t spio_compiled_num_kernels(const spio_compiled *compiled) {
  return int32_t(compiled->module.kernels.size());
}

const char *spio_compiled_kernel_name(const spio_compiled *compiled, int32_t index) {
  return compiled->module.kernels.at(index).name.c_str();
}

int64_t spio_compiled_kernel_shared_bytes(const spio_compiled *compiled, int32_t index) {
  return compiled->module.kernels.at(index).sharedBytes;
}

int64_t spio_compiled_kernel_block_size(const spio_compiled *compiled, int32_t index) {
  return compiled->module.kernels.at(index).blockSize;
}

char *spio_cache_directory(void) { return copyOrNull(mlir::spio::cacheDirectory()); }

/// Sets *error (when asked for) and returns 1.
static int32_t fail(char **error, const std::string &message) {
  if (error)
    *error = copyOrNull(message);
  return 1;
}

/// Device `device`, or why it is not there.
static ::spio::runtime::Result<::spio::runtime::Cuda *> cudaDevice(int32_t device) {
  auto cuda = ::spio::runtime::Cuda::get(device);
  if (!cuda)
    return ::spio::runtime::Error{"no GPU: " + cuda.error().message};
  return cuda;
}

/// The loaded kernel `name` (looked up once; it keeps its shared-memory
/// opt-in).
static ::spio::runtime::Result<::spio::runtime::Kernel *> kernelOf(spio_loaded *loaded,
                                                                  const std::string &name) {
  auto found = loaded->kernels.find(name);
  if (found == loaded->kernels.end()) {
    auto kernel = loaded->module.kernel(name);
    if (!kernel)
      return kernel.error();
    found = loaded->kernels.emplace(name, *kernel).first;
  }
  return &found->second;
}

int32_t spio_device(int32_t device, spio_device_info *info, char **error) {
  auto cuda = cudaDevice(device);
  if (!cuda)
    return fail(error, cuda.error().message);
  const ::spio::runtime::DeviceInfo &facts = (*cuda)->device();
  std::memset(info, 0, sizeof(*info));
  std::strncpy(info->name, facts.name.c_str(), sizeof(info->name) - 1);
  info->compute_major = facts.computeMajor;
  info->compute_minor = facts.computeMinor;
  info->multiprocessors = facts.multiprocessors;
  info->max_shared_bytes_per_block = facts.maxSharedBytesPerBlock;
  info->l2_bytes = facts.l2Bytes;
  info->shared_bytes_per_multiprocessor = facts.sharedBytesPerMultiprocessor;
  return 0;
}

int32_t spio_device_target(int32_t device, spio_target *target, char **error) {
  auto cuda = cudaDevice(device);
  if (!cuda)
    return fail(error, cuda.error().message);
  writeTarget((*cuda)->target(), target);
  return 0;
}

int32_t spio_chip_target(const char *chip, spio_target *target, char **error) {
  std::optional<::spio::Target> reference = ::spio::referenceTarget(chip ? chip : "");
  if (!reference)
    return fail(error, ::spio::checkChip(chip ? chip : ""));
  writeTarget(*reference, target);
  return 0;
}

int32_t spio_chip_has_wgmma(const char *chip) {
  return ::spio::hasWarpgroupMma(chip ? chip : "") ? 1 : 0;
}

spio_loaded *spio_load(int32_t device, const char *ptx, char **error) {
  auto cuda = cudaDevice(device);
  if (!cuda) {
    fail(error, cuda.error().message);
    return nullptr;
  }
  auto module = (*cuda)->loadPTX(ptx ? ptx : "");
  if (!module) {
    fail(error, "loading PTX: " + module.error().message);
    return nullptr;
  }
  auto *loaded = new spio_loaded;
  loaded->cuda = *cuda;
  loaded->module = std::move(*module);
  for (std::string &name : ::spio::runtime::dependentKernels(ptx ? ptx : ""))
    loaded->dependents.insert(std::move(name));
  return loaded;
}

void spio_loaded_destroy(spio_loaded *loaded) { delete loaded; }

int32_t spio_gemm_tensor_maps(const spio_gemm_problem *problem, const spio_gemm_config *config,
                              uint64_t a, uint64_t b, void *maps, char **error) {
  auto cuda = cudaDevice(0);
  if (!cuda)
    return fail(error, cuda.error().message);
  ::spio::kernels::GemmProblem p = gemmProblem(*problem);
  ::spio::kernels::GemmConfig c = gemmConfig(*config);
  auto *out = static_cast<unsigned char *>(maps);
  for (auto [operand, address, name] : {std::tuple{'a', a, "A"}, std::tuple{'b', b, "B"}}) {
    auto map = (*cuda)->encodeTensorMap(::spio::kernels::gemmTensorMapShape(p, c, operand), address);
    if (!map)
      return fail(error, std::string("encoding ") + name + "'s tensor map: " + map.error().message);
    // The launch copies parameters, so the caller's buffer needs no alignment.
    std::memcpy(out, map->bytes, sizeof(map->bytes));
    out += sizeof(map->bytes);
  }
  return 0;
}

int32_t spio_launch(spio_loaded *loaded, const char *name, spio_launch_shape shape,
                    int64_t shared_bytes, void *stream, void **args, int32_t num_args,
                    char **error) {
  std::string kernelName = name ? name : "";
  auto kernel = kernelOf(loaded, kernelName);
  if (!kernel)
    return fail(error, kernel.error().message);
  int64_t gridZ = shape.grid_z == 0 ? 1 : shape.grid_z;
  if (shape.grid_x < 1 || shape.grid_y < 1 || gridZ < 1 || shape.block < 1 || shared_bytes < 0)
    return fail(error, "launching " + kernelName + ": empty grid or block");
  std::vector<void *> parameters(args, args + num_args);
  auto launched = (*kernel)->launch(unsigned(shape.grid_x), unsigned(shape.grid_y),
                                    unsigned(gridZ), unsigned(shape.block), size_t(shared_bytes),
                                    parameters, stream, loaded->dependents.count(kernelName) > 0);
  if (!launched)
    return fail(error, "launching " + kernelName + ": " + launched.error().message);
  return 0;
}

spio_loaded *spio_load_compiled(int32_t device, const spio_compiled *compiled, char **error) {
  spio_loaded *loaded = spio_load(device, compiled->module.ptx.c_str(), error);
  if (loaded)
    for (const mlir::spio::CompiledKernel &kernel : compiled->module.kernels)
      loaded->resources[kernel.name] = {kernel.sharedBytes, kernel.blockSize};
  return loaded;
}

/// The launcher of the plan `planOf` gives on `loaded`, or NULL with
/// *error set to `invalid` (the family's check, freed here) or why not.
static spio_launcher *makeLauncher(char *invalid,
                                   const std::function<kernels::LaunchPlan()> &planOf,
                                   spio_loaded *loaded, char **error) {
  if (!loaded) {
    std::free(invalid);
    fail(error, "no loaded kernels (spio_load_compiled gives them)");
    return nullptr;
  }
  if (invalid) {
    fail(error, invalid);
    std::free(invalid);
    return nullptr;
  }
  auto launcher = kernels::Launcher::create(planOf(), *loaded->cuda, loaded->module,
                                            loaded->resources, loaded->dependents);
  if (!launcher) {
    fail(error, launcher.error().message + " (load compiled kernels with spio_load_compiled)");
    return nullptr;
  }
  return new spio_launcher{std::move(*launcher)};
}

/// The device `loaded` is on, as a target (zeros without one, which the
/// checks refuse).
static spio_target loadedTarget(const spio_loaded *loaded) {
  spio_target target{};
  if (loaded)
    writeTarget(loaded->cuda->target(), &target);
  return target;
}

spio_launcher *spio_gemm_launcher(const spio_gemm_problem *problem,
                                  const spio_gemm_config *config, spio_loaded *loaded,
                                  char **error) {
  spio_target target = loadedTarget(loaded);
  return makeLauncher(
      spio_gemm_check(problem, config, &target),
      [&] { return kernels::gemmLaunchPlan(gemmProblem(*problem), gemmConfig(*config)); }, loaded,
      error);
}

spio_launcher *spio_conv2d_launcher(const spio_conv2d_problem *problem,
                                    const spio_gemm_config *config, spio_loaded *loaded,
                                    char **error) {
  spio_target target = loadedTarget(loaded);
  return makeLauncher(
      spio_conv2d_check(problem, config, &target),
      [&] { return kernels::conv2dLaunchPlan(conv2dProblem(*problem), gemmConfig(*config)); },
      loaded, error);
}

spio_launcher *spio_conv2d_gw8_launcher(const spio_conv2d_gw8_problem *problem,
                                        const spio_conv2d_gw8_config *config,
                                        spio_loaded *loaded, char **error) {
  return makeLauncher(
      spio_conv2d_gw8_check(problem, config),
      [&] { return kernels::conv2dGw8LaunchPlan(convProblem(*problem), convConfig(*config)); },
      loaded, error);
}

void spio_launcher_destroy(spio_launcher *launcher) { delete launcher; }

int32_t spio_launcher_num_operands(const spio_launcher *launcher) {
  return int32_t(launcher->launcher.plan().operands.size());
}

const char *spio_launcher_operand_name(const spio_launcher *launcher, int32_t index) {
  return launcher->launcher.plan().operands.at(index).name.c_str();
}

int32_t spio_launcher_operand_optional(const spio_launcher *launcher, int32_t index) {
  return launcher->launcher.plan().operands.at(index).optional;
}

int32_t spio_launcher_num_scalars(const spio_launcher *launcher) {
  return int32_t(launcher->launcher.plan().scalars.size());
}

const char *spio_launcher_scalar_name(const spio_launcher *launcher, int32_t index) {
  return launcher->launcher.plan().scalars.at(index).name.c_str();
}

float spio_launcher_scalar_default(const spio_launcher *launcher, int32_t index) {
  return launcher->launcher.plan().scalars.at(index).defaultValue;
}

int64_t spio_launcher_workspace_bytes(const spio_launcher *launcher) {
  return launcher->launcher.plan().workspaceBytes;
}

int32_t spio_autotune(spio_launcher *const *launchers, int32_t count, const uint64_t *operands,
                      int32_t num_operands, uint64_t workspace, const char *key, int32_t *fastest,
                      char **error) {
  if (count < 1 || !launchers || !fastest)
    return fail(error, "autotuning takes one launcher or more and where to write the fastest");
  const ::spio::runtime::Cuda &cuda = launchers[0]->launcher.device();
  for (int32_t i = 1; i < count; ++i)
    if (&launchers[i]->launcher.device() != &cuda)
      return fail(error, "autotuning takes launchers loaded on one device");
  if (key)
    if (std::optional<size_t> known =
            mlir::spio::lookupAutotuned(cuda.device().name, key, size_t(count))) {
      *fastest = int32_t(*known);
      return 0;
    }
  kernels::LaunchBindings bindings;
  bindings.operands.assign(operands, operands + std::max(num_operands, 0));
  bindings.workspace = workspace;
  std::vector<std::function<::spio::runtime::Status()>> launches;
  for (int32_t i = 0; i < count; ++i)
    launches.push_back([&, i] { return launchers[i]->launcher.run(bindings); });
  auto times = kernels::timeCandidates(cuda, launches);
  if (!times)
    return fail(error, "autotuning: " + times.error().message);
  *fastest = int32_t(kernels::fastestCandidate(*times));
  if (key)
    mlir::spio::storeAutotuned(cuda.device().name, key, size_t(count), size_t(*fastest));
  return 0;
}

int32_t spio_launcher_run(spio_launcher *launcher, void *stream, const uint64_t *operands,
                          int32_t num_operands, uint64_t workspace, const float *scalars,
                          char **error) {
  kernels::LaunchBindings bindings;
  bindings.operands.assign(operands, operands + std::max(num_operands, 0));
  bindings.workspace = workspace;
  if (scalars)
    bindings.scalars.assign(scalars, scalars + launcher->launcher.plan().scalars.size());
  if (auto ran = launcher->launcher.run(bindings, stream); !ran)
    return fail(error, ran.error().message);
  return 0;
}

} // extern "C"
