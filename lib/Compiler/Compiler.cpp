//===- Compiler.cpp - In-process compilation of spio kernels to PTX -------===//

#include "spio/Compiler/Compiler.h"

#include "spio/Kernels/IR/Conv2dKernel.h"
#include "spio/Kernels/IR/GemmKernel.h"
#include "spio/Pipelines/Pipelines.h"
#include "spio/Target/Chip.h"
#include "spio/Target/Target.h"
#include "spio/Tools/Registration.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <mutex>

using namespace mlir;

/// `file:line:col` for file locations; for an op a kernel family built, the
/// workload's place and then the family's source line (`user.mlir:3:5
/// (lib/Kernels/IR/GemmKernel.cpp:120)`); the location as MLIR prints it else.
static void printLocation(llvm::raw_ostream &os, Location loc) {
  if (auto file = dyn_cast<FileLineColLoc>(loc)) {
    os << file.getFilename().getValue() << ":" << file.getLine();
    if (file.getColumn() != 0)
      os << ":" << file.getColumn();
  } else if (auto fused = dyn_cast<FusedLoc>(loc); fused && fused.getLocations().size() == 2) {
    printLocation(os, fused.getLocations()[0]);
    os << " (";
    printLocation(os, fused.getLocations()[1]);
    os << ")";
  } else {
    os << loc;
  }
}

/// Appends `diag` and its notes to `errors`, each at its location.
static LogicalResult appendDiagnostic(llvm::raw_ostream &errors, Diagnostic &diag) {
  printLocation(errors, diag.getLocation());
  errors << ": " << diag << "\n";
  for (Diagnostic &note : diag.getNotes()) {
    printLocation(errors, note.getLocation());
    errors << ": note: " << note << "\n";
  }
  return success();
}

std::unique_ptr<MLIRContext> mlir::spio::makeCompilerContext() {
  DialectRegistry registry;
  registerSpioCompiler(registry);
  return std::make_unique<MLIRContext>(registry, MLIRContext::Threading::DISABLED);
}

namespace mlir::spio {
/// Lowers `module` to PTX (diagnostics go to the context's handler; what
/// is not a diagnostic to `errors`), without the crash recovery.
static bool lowerUnguarded(ModuleOp module, const CompileOptions &options, CompiledModule &result,
                           llvm::raw_ostream &errors) {
  MLIRContext &context = *module.getContext();
  // Workload kernels: a spio.gemm on the kernel's own parameters.
  llvm::StringMap<GemmWorkload> workloads;
  module.walk([&](GemmOp gemm) {
    auto kernel = gemm->getParentOfType<gpu::GPUFuncOp>();
    if (!kernel || gemm->getParentOp() != kernel)
      return;
    auto param = [&](Value v) {
      auto arg = dyn_cast_if_present<BlockArgument>(v);
      return arg && arg.getOwner() == &kernel.getBody().front() ? int(arg.getArgNumber()) : -1;
    };
    GemmWorkload w;
    w.problem = gemmProblem(gemm);
    w.config = gemmConfig(gemm.getConfig());
    ::spio::kernels::GemmParameters &at = w.params;
    at.a = param(gemm.getA());
    at.b = param(gemm.getB());
    at.d = param(gemm.getD());
    at.alpha = param(gemm.getAlpha());
    at.c = param(gemm.getC());
    at.beta = param(gemm.getBeta());
    at.bias = param(gemm.getBias());
    at.scale = param(gemm.getScale());
    at.groups = param(gemm.getGroups());
    at.pre = param(gemm.getPre());
    at.aMap = param(gemm.getAMap());
    at.bMap = param(gemm.getBMap());
    at.count = int(kernel.getNumArguments());
    // Every operand the op has must be a parameter of the kernel.
    auto given = [&](Value v, int position) { return !v || position >= 0; };
    if (at.a >= 0 && at.b >= 0 && at.d >= 0 && at.alpha >= 0 && given(gemm.getC(), at.c) &&
        given(gemm.getBeta(), at.beta) && given(gemm.getBias(), at.bias) &&
        given(gemm.getScale(), at.scale) && given(gemm.getGroups(), at.groups) &&
        given(gemm.getPre(), at.pre) && given(gemm.getAMap(), at.aMap) &&
        given(gemm.getBMap(), at.bMap))
      workloads[kernel.getName()] = w;
  });

  // Workload kernels: a dense spio.conv2d on the kernel's own parameters.
  llvm::StringMap<Conv2dWorkload> convolutions;
  module.walk([&](Conv2dOp conv) {
    auto kernel = conv->getParentOfType<gpu::GPUFuncOp>();
    if (!kernel || conv->getParentOp() != kernel || conv.getGroups() != 1)
      return;
    auto param = [&](Value v) {
      auto arg = dyn_cast_if_present<BlockArgument>(v);
      return arg && arg.getOwner() == &kernel.getBody().front() ? int(arg.getArgNumber()) : -1;
    };
    Conv2dWorkload w{conv2dProblem(conv), gemmConfig(conv.getGemmConfig()), {}};
    ::spio::kernels::Conv2dParameters &at = w.params;
    at.x = param(conv.getX());
    at.w = param(conv.getW());
    at.y = param(conv.getY());
    at.c = param(conv.getResidual());
    at.bias = param(conv.getBias());
    at.scale = param(conv.getScale());
    at.xMap = param(conv.getXMap());
    at.wMap = param(conv.getWMap());
    at.count = int(kernel.getNumArguments());
    auto given = [&](Value v, int position) { return !v || position >= 0; };
    if (at.x >= 0 && at.w >= 0 && at.y >= 0 && at.xMap >= 0 && at.wMap >= 0 &&
        given(conv.getResidual(), at.c) && given(conv.getBias(), at.bias) &&
        given(conv.getScale(), at.scale))
      convolutions[kernel.getName()] = w;
  });

  auto configure = [&](PassManager &pm) {
    if (options.printIRAfterAll) {
      context.disableMultithreading();
      pm.enableIRPrinting([](Pass *, Operation *) { return false; },
                          [](Pass *, Operation *) { return true; },
                          /*printModuleScope=*/true, /*printAfterOnlyOnChange=*/false);
    }
  };
  SpioToPTXOptions ptxOptions;
  ptxOptions.chip = options.chip;
  ptxOptions.features = options.features;
  ptxOptions.optLevel = options.optLevel;
  PassManager lower(&context);
  configure(lower);
  buildSpioLoweringPipeline(lower, ptxOptions);
  if (failed(lower.run(module)))
    return false;
  // wgmma exists only in Hopper's arch-specific target: a kernel that uses
  // it is compiled for sm_90a, which runs on the sm_90 chips it was asked for.
  if (ptxOptions.chip.getValue() == "sm_90") {
    WalkResult wgmma =
        module.walk([](NVVM::WgmmaFenceAlignedOp) { return WalkResult::interrupt(); });
    if (wgmma.wasInterrupted())
      ptxOptions.chip = "sm_90a";
  }

  // What the launch needs, read before the kernels become LLVM functions.
  // A kernel over the chip's shared memory could never launch: said here,
  // at the kernel, rather than by the driver.
  result.kernels.clear();
  int64_t sharedLimit = ::spio::sharedMemoryOf(options.chip).perBlock;
  bool fits = true;
  module.walk([&](gpu::GPUFuncOp func) {
    if (!func.isKernel())
      return;
    CompiledKernel kernel;
    kernel.name = func.getName().str();
    if (auto bytes = func->getAttrOfType<IntegerAttr>("spio.shared_memory_bytes"))
      kernel.sharedBytes = bytes.getInt();
    if (sharedLimit > 0 && kernel.sharedBytes > sharedLimit) {
      emitError(func.getLoc()) << "kernel '" << kernel.name << "' needs " << kernel.sharedBytes
                               << " bytes of shared memory a block; " << options.chip
                               << " allows at most " << sharedLimit;
      fits = false;
    }
    if (std::optional<ArrayRef<int32_t>> block = func.getKnownBlockSize())
      kernel.blockSize = int64_t((*block)[0]) * (*block)[1] * (*block)[2];
    if (auto it = workloads.find(func.getName()); it != workloads.end())
      kernel.gemm = it->second;
    if (auto it = convolutions.find(func.getName()); it != convolutions.end())
      kernel.conv2d = it->second;
    result.kernels.push_back(kernel);
  });
  if (!fits)
    return false;

  PassManager toPTX(&context);
  configure(toPTX);
  buildGPUToPTXPipeline(toPTX, ptxOptions);
  if (failed(toPTX.run(module)))
    return false;

  result.ptx.clear();
  module.walk([&](gpu::BinaryOp binary) {
    for (Attribute object : binary.getObjects())
      result.ptx += cast<gpu::ObjectAttr>(object).getObject().getValue().str();
  });
  if (result.ptx.empty()) {
    errors << "compilation produced no PTX: the source has no gpu.module\n";
    return false;
  }
  return true;
}

/// compileToPTX without the crash recovery.
static bool compileUnguarded(const std::string &source, const CompileOptions &options,
                             CompiledModule &result, std::string &error,
                             const std::string &sourceName) {
  if (std::string why = ::spio::checkChip(options.chip); !why.empty()) {
    error = why;
    return false;
  }
  std::unique_ptr<MLIRContext> context = makeCompilerContext();
  llvm::raw_string_ostream errors(error);
  ScopedDiagnosticHandler handler(context.get(),
                                  [&](Diagnostic &diag) { return appendDiagnostic(errors, diag); });
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(source, context.get(), sourceName);
  return module && lowerUnguarded(*module, options, result, errors);
}
} // namespace mlir::spio

/// Saves `source` where a crash report can point: a temporary file's path,
/// or empty where none could be written.
static std::string saveCrashInput(const std::string &source) {
  int fd = -1;
  llvm::SmallString<128> path;
  if (llvm::sys::fs::createTemporaryFile("spio-crash", "mlir", fd, path))
    return {};
  llvm::raw_fd_ostream out(fd, /*shouldClose=*/true);
  out << source;
  out.close();
  // A stream destroyed with an error pending would abort the process.
  if (out.has_error()) {
    out.clear_error();
    return {};
  }
  return std::string(path);
}

/// Runs `compile`. The library runs inside Python and other hosts: a crash
/// in LLVM or MLIR (a signal, or the abort of an LLVM ERROR) becomes the
/// call's error, naming where `input()` was saved, rather than the
/// process's end. Compilation is single-threaded, so the crash happens on
/// this thread. What the crashed compilation held leaks.
static bool guarded(const std::function<bool()> &compile, const std::function<std::string()> &input,
                    const std::string &sourceName, std::string &error) {
  static std::once_flag enabled;
  std::call_once(enabled, [] { llvm::CrashRecoveryContext::Enable(); });
  bool compiled = false;
  llvm::CrashRecoveryContext recovery;
  if (recovery.RunSafely([&] { compiled = compile(); }))
    return compiled;
  std::string saved = saveCrashInput(input());
  error += "the compiler crashed on " + sourceName +
           (saved.empty() ? std::string(" (its input could not be saved)")
                          : "; the input was saved to " + saved);
  return false;
}

bool mlir::spio::compileToPTX(const std::string &source, const CompileOptions &options,
                              CompiledModule &result, std::string &error,
                              const std::string &sourceName) {
  return guarded([&] { return compileUnguarded(source, options, result, error, sourceName); },
                 [&] { return source; }, sourceName, error);
}

bool mlir::spio::compileModuleToPTX(ModuleOp module, const CompileOptions &options,
                                    CompiledModule &result, std::string &error,
                                    const std::string &sourceName, const std::string &printed) {
  if (std::string why = ::spio::checkChip(options.chip); !why.empty()) {
    error = why;
    return false;
  }
  llvm::raw_string_ostream errors(error);
  ScopedDiagnosticHandler handler(module.getContext(),
                                  [&](Diagnostic &diag) { return appendDiagnostic(errors, diag); });
  // Printed before lowering: a crash may leave the module unprintable.
  std::string input;
  if (printed.empty()) {
    llvm::raw_string_ostream os(input);
    module.print(os);
  }
  return guarded([&] { return lowerUnguarded(module, options, result, errors); },
                 [&] { return printed.empty() ? input : printed; }, sourceName, error);
}
