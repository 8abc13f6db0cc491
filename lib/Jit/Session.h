//===- Session.h - What spio-jit's workloads share ---------------*- C++ -*-===//
//
// The running request, the target, the text and JSON reports, compiling a
// workload through the cache, loading its launch plan, and the check and
// timing steps every workload takes (poisoned runs, bit-identical reruns,
// medians of event-timed runs, autotuning). Internal to lib/Jit.
//
//===----------------------------------------------------------------------===//

#ifndef SPIO_LIB_JIT_SESSION_H
#define SPIO_LIB_JIT_SESSION_H

#include "spio/Jit/Jit.h"

#include "spio/Compiler/Cache.h"
#include "spio/Compiler/Compiler.h"
#include "spio/Kernels/Conv2d.h"
#include "spio/Kernels/Gemm.h"
#include "spio/Kernels/Launcher.h"
#include "spio/Testing/Reference.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace spio::jit {

/// The request being run.
const Request &opt();
/// The input dtype asked for, else the workload's `fallback`.
std::string dtypeOr(const char *fallback);

template <typename T> T orFail(runtime::Result<T> result, const char *what) {
  if (!result)
    fail(std::string(what) + ": " + result.error().message);
  return std::move(*result);
}
void orFail(runtime::Status status, const char *what);

kernels::DType parseDType(const std::string &name, bool allowF32);
std::vector<kernels::EpilogueStep> parseEpilogue(const std::string &list);
kernels::Along parseAlong(const std::string &name, const char *vector);
kernels::F32Precision parsePrecision(const std::string &name);
kernels::Layout parseLayout(const std::string &name, const char *matrix);

/// Where the human-readable report goes: stdout, or stderr under --json.
llvm::raw_ostream &text();
/// What --json prints when the run ends.
llvm::json::Object &report();
/// What kernels are chosen and sized for: the GPU where there is one (its
/// shared memory the chip's where --chip names another), else --chip's
/// reference part; --multiprocessors and --l2-bytes over either.
const Target &target();
/// "No GPU found (why): <done>; chosen for sm_90's reference part, ...".
void reportNoGpu(const std::string &why, const std::string &done);
/// The device and the (first) kernel's resources, for --json.
void reportDevice(const runtime::Cuda &gpu, int registers, int spilled, int64_t sharedBytes);

/// A launch plan on a compiled module's kernels, loaded on the GPU (the
/// module and the launcher of its kernels move together).
struct LoadedPlan {
  runtime::Module module;
  kernels::Launcher launcher;
};
/// With `dependentLaunches`, the plan's dependent kernels whose PTX waits
/// for their prerequisites launch as dependent grids (as the C API launches
/// them); else each after the one before it has ended.
LoadedPlan loadPlan(runtime::Cuda &gpu, const mlir::spio::CompiledModule &compiled,
                    kernels::LaunchPlan plan, bool dependentLaunches = false);
/// Prints and reports (--json) the device and the resources of the plan's
/// kernel `index`.
void reportKernel(const runtime::Cuda &gpu, const kernels::Launcher &launcher, size_t index);

/// A built-in workload's kernels, compiled through the cache.
struct CompiledWorkload {
  std::string source;
  mlir::spio::CompiledModule module;
  mlir::spio::CacheOutcome outcome;
  double ms;
};
/// A workload's module, built in the given context by its kernel family.
using BuildWorkload = std::function<mlir::OwningOpRef<mlir::ModuleOp>(mlir::MLIRContext *)>;
/// Compiles the workload `build` makes (through the PTX cache, lowered as
/// built), or prints its module (--emit-spio) or its PTX (--emit-ptx) and
/// returns nothing: then there is nothing to run.
std::optional<CompiledWorkload> compileWorkload(const BuildWorkload &build, const char *name);

using Launch = std::function<runtime::Status()>;
/// Poisons `out`, runs `launch` once and returns what it wrote in `bytes`.
void runPoisoned(runtime::Cuda &gpu, runtime::DeviceBuffer &out, const Launch &launch,
                 std::vector<uint8_t> &bytes);
/// Fails unless every output `reference` checked passed, then requires
/// --repeats bit-identical runs and reports the summary with the output's
/// digest.
void finishCheck(const testing::ReferenceCheck &reference, const char *what,
                 const char *magnitudeName, runtime::Cuda &gpu, runtime::DeviceBuffer &out,
                 const Launch &launch, const std::vector<uint8_t> &first);
/// Times --bench runs and reports their median as TFLOP/s of `flops`, or
/// as GB/s of `bytes`.
void reportBench(runtime::Cuda &gpu, const Launch &launch, double flops);
void reportBandwidth(runtime::Cuda &gpu, const Launch &launch, double bytes);
/// --autotune: times the candidates, prints each one's time (`names`),
/// reports them (--json: each one's name, `configs` entry and time, and how
/// many the library `listed`: more where only the model's best were timed),
/// records the fastest in the autotune cache and returns its index.
size_t fastestCandidate(runtime::Cuda &gpu, const std::vector<Launch> &launches,
                        const std::vector<std::string> &names,
                        const std::vector<llvm::json::Value> &configs,
                        const std::vector<CompiledWorkload> &builds, size_t listed);
/// --autotune --check: every candidate's output must be the chosen one's.
void expectCandidatesBits(runtime::Cuda &gpu, runtime::DeviceBuffer &out,
                          const std::vector<Launch> &launches,
                          const std::vector<std::string> &names, size_t chosen,
                          const std::vector<uint8_t> &bits);
/// The tile options given (0: the chooser's) over `config`.
void applyTileOptions(kernels::GemmConfig &config);

/// The workloads: an MLIR file's kernels, the GEMM, the dense conv2d and
/// the grouped conv2d.
int runFile();
int runGemm();
int runConv2d();
int runConv();
/// Runs the compiled conv2d kernel `name` of `workload` (Conv2d.cpp).
int runConv2dKernel(runtime::Cuda &gpu, const mlir::spio::CompiledModule &compiled,
                    const std::string &name, const mlir::spio::Conv2dWorkload &workload);

} // namespace spio::jit

#endif // SPIO_LIB_JIT_SESSION_H
