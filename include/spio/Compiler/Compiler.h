//===- Compiler.h - In-process compilation of spio kernels to PTX -*- C++ -*-===//

#ifndef SPIO_COMPILER_COMPILER_H
#define SPIO_COMPILER_COMPILER_H

#include <cstdint>
#include <string>
#include <vector>

namespace mlir::spio {

struct CompileOptions {
  std::string chip = "sm_90";
  std::string features = "+ptx80";
  int optLevel = 3;
  /// Print the IR after every pass to stderr.
  bool printIRAfterAll = false;
};

/// One kernel of a compiled module.
struct CompiledKernel {
  std::string name;
  /// Dynamic shared memory the launch must provide.
  int64_t sharedBytes = 0;
  /// `known_block_size`, or 0 when the kernel does not fix it.
  int64_t blockSize = 0;
};

struct CompiledModule {
  std::string ptx;
  std::vector<CompiledKernel> kernels;
};

/// Parses `source` (spio kernels in one gpu.module) and compiles it to PTX in
/// process. On failure, returns false and sets `error` to the diagnostics,
/// located in `sourceName`.
bool compileToPTX(const std::string &source, const CompileOptions &options,
                  CompiledModule &result, std::string &error,
                  const std::string &sourceName = "<source>");

} // namespace mlir::spio

#endif // SPIO_COMPILER_COMPILER_H
