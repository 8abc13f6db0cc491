//===- Compiler.h - In-process compilation of spio kernels to PTX -*- C++ -*-===//

#ifndef SPIO_COMPILER_COMPILER_H
#define SPIO_COMPILER_COMPILER_H

#include "spio/Kernels/Conv2d.h"
#include "spio/Kernels/Gemm.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mlir {
class MLIRContext;
class ModuleOp;
} // namespace mlir

namespace mlir::spio {

struct CompileOptions {
  std::string chip = "sm_90";
  std::string features = "+ptx80";
  int optLevel = 3;
  /// Print the IR after every pass to stderr.
  bool printIRAfterAll = false;
};

/// A kernel whose body is one spio.gemm on its parameters: what it computes
/// and where each operand is among the parameters (-1: absent).
struct GemmWorkload {
  ::spio::kernels::GemmProblem problem;
  ::spio::kernels::GemmConfig config;
  /// Where the kernel takes each operand; `count` is its parameter count.
  ::spio::kernels::GemmParameters params;
};

/// A kernel whose body is one spio.conv2d on its parameters: what it
/// computes and where each operand is among the parameters (-1: absent).
struct Conv2dWorkload {
  ::spio::kernels::Conv2dProblem problem;
  ::spio::kernels::GemmConfig config;
  ::spio::kernels::Conv2dParameters params;
};

/// One kernel of a compiled module.
struct CompiledKernel {
  std::string name;
  /// Dynamic shared memory the launch must provide.
  int64_t sharedBytes = 0;
  /// `known_block_size`, or 0 when the kernel does not fix it.
  int64_t blockSize = 0;
  /// Set for GEMM and conv2d workload kernels (not kept by the PTX cache).
  std::optional<GemmWorkload> gemm;
  std::optional<Conv2dWorkload> conv2d;
};

struct CompiledModule {
  std::string ptx;
  std::vector<CompiledKernel> kernels;
};

/// Parses `source` (spio kernels in one gpu.module) and compiles it to PTX in
/// process. On failure, returns false and sets `error` to the diagnostics,
/// located in `sourceName`; a crash inside LLVM or MLIR is such a failure
/// too, its error naming where the input was saved.
bool compileToPTX(const std::string &source, const CompileOptions &options,
                  CompiledModule &result, std::string &error,
                  const std::string &sourceName = "<source>");

/// A context with every dialect spio compiles loaded, single-threaded:
/// where a kernel family builds the module compileModuleToPTX lowers.
std::unique_ptr<MLIRContext> makeCompilerContext();

/// compileToPTX of a module built in place (in a makeCompilerContext
/// context), lowered as built, never printed and parsed back; `module` is
/// lowered in place. Errors are located as the builder located its ops.
/// `printed` is the module's text where the caller has printed it already
/// (saved if the compiler crashes); empty, the module is printed here.
bool compileModuleToPTX(ModuleOp module, const CompileOptions &options, CompiledModule &result,
                        std::string &error, const std::string &sourceName = "<module>",
                        const std::string &printed = "");

} // namespace mlir::spio

#endif // SPIO_COMPILER_COMPILER_H
