//===- Pipelines.cpp - Named Spio pass pipelines --------------------------===//

#include "spio/Pipelines/Pipelines.h"

#include "spio/Conversion/Passes.h"
#include "spio/Dialect/Spio/Transforms/Passes.h"
#include "spio/Target/Chip.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/NVGPUToNVVM/NVGPUToNVVM.h"
#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/UBToLLVM/UBToLLVM.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVMPass.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void mlir::spio::buildSpioLoweringPipeline(OpPassManager &pm, const SpioToPTXOptions &options) {
  SpioTileOptions tile;
  tile.chip = options.chip;
  pm.addPass(createSpioTile(tile));
  pm.addPass(createSpioPipeline());
  ConvertSpioToGPUOptions toGPU;
  toGPU.dependentGrids = ::spio::hasDependentGrids(options.chip.getValue());
  pm.addPass(createConvertSpioToGPU(toGPU));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  // Thread ids are known non-negative and bounded: signed divisions and
  // remainders of the layout arithmetic become shifts and masks.
  pm.addPass(arith::createArithIntRangeOpts());
  pm.addPass(arith::createArithUnsignedWhenEquivalentPass());
  pm.addPass(createCanonicalizerPass());
}

void mlir::spio::buildGPUToPTXPipeline(OpPassManager &pm, const SpioToPTXOptions &options) {
  GpuNVVMAttachTargetOptions target;
  target.chip = options.chip;
  target.features = options.features;
  target.optLevel = options.optLevel;
  pm.addPass(createGpuNVVMAttachTarget(target));
  pm.addPass(createConvertNVGPUToNVVMPass());
  pm.addPass(createSCFToControlFlowPass());
  OpPassManager &gpuModule = pm.nest<gpu::GPUModuleOp>();
  ConvertGpuOpsToNVVMOpsOptions toNVVM;
  toNVVM.useBarePtrCallConv = true;
  gpuModule.addPass(createConvertGpuOpsToNVVMOps(toNVVM));
  gpuModule.addPass(createSpioGridConstantParams());
  gpuModule.addPass(createCanonicalizerPass());
  gpuModule.addPass(createCSEPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createConvertVectorToLLVMPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createUBToLLVMConversionPass());
  pm.addPass(createConvertNVVMToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createSpioModuleToPTX());
}

void mlir::spio::buildSpioToPTXPipeline(OpPassManager &pm, const SpioToPTXOptions &options) {
  buildSpioLoweringPipeline(pm, options);
  buildGPUToPTXPipeline(pm, options);
}

void mlir::spio::registerSpioPipelines() {
  // As PassPipelineRegistration, but a chip spio cannot compile for is
  // refused with the reason before any pass runs.
  registerPassPipeline(
      "spio-to-ptx",
      "Lower spio kernels in gpu.modules to PTX (gpu.binary, isa format), in process",
      [](OpPassManager &pm, StringRef optionsText,
         function_ref<LogicalResult(const Twine &)> errorHandler) {
        SpioToPTXOptions options;
        if (failed(options.parseFromString(optionsText)))
          return failure();
        if (std::string why = ::spio::checkChip(options.chip.getValue()); !why.empty())
          return errorHandler(why);
        buildSpioToPTXPipeline(pm, options);
        return success();
      },
      [](function_ref<void(const detail::PassOptions &)> handler) {
        handler(SpioToPTXOptions());
      });
}
