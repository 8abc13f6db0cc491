//===- Pipelines.h - Named Spio pass pipelines ------------------*- C++ -*-===//

#ifndef SPIO_PIPELINES_PIPELINES_H
#define SPIO_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassOptions.h"

#include <string>

namespace mlir {
class OpPassManager;
} // namespace mlir

namespace mlir::spio {

struct SpioToPTXOptions : PassPipelineOptions<SpioToPTXOptions> {
  Option<std::string> chip{*this, "chip", llvm::cl::desc("Target SM"),
                           llvm::cl::init("sm_90")};
  Option<std::string> features{*this, "features",
                               llvm::cl::desc("PTX features"),
                               llvm::cl::init("+ptx80")};
  Option<int> optLevel{*this, "opt-level",
                       llvm::cl::desc("LLVM optimization level"),
                       llvm::cl::init(3)};
};

/// The spio part of the pipeline: workload ops tiled and pipelined, spio ops
/// to upstream GPU dialects, then index arithmetic simplified with the
/// kernels' known block sizes. Dependent-grid control stays only for chips
/// that have it.
void buildSpioLoweringPipeline(OpPassManager &pm, const SpioToPTXOptions &options);

/// The rest: upstream GPU dialects to NVVM and LLVM, then each gpu.module to
/// PTX text (a gpu.binary in `isa` format), all in process.
void buildGPUToPTXPipeline(OpPassManager &pm, const SpioToPTXOptions &options);

/// Both, as `spio-to-ptx`.
void buildSpioToPTXPipeline(OpPassManager &pm, const SpioToPTXOptions &options);

/// Registers `spio-to-ptx` with the global pipeline registry.
void registerSpioPipelines();

} // namespace mlir::spio

#endif // SPIO_PIPELINES_PIPELINES_H
