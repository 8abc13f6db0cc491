//===- Registration.cpp - What every Spio tool registers ------------------===//

#include "spio/Tools/Registration.h"

#include "spio/Conversion/Passes.h"
#include "spio/Dialect/Spio/IR/SpioDialect.h"
#include "spio/Dialect/Spio/Transforms/Passes.h"
#include "spio/Pipelines/Pipelines.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVM.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/NVGPUToNVVM/NVGPUToNVVM.h"
#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/UBToLLVM/UBToLLVM.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVM.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVMPass.h"
#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/DLTI/DLTI.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Index/IR/IndexDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Transforms/Passes.h"

void mlir::spio::registerSpioCompiler(DialectRegistry &registry) {
  registry.insert<mlir::spio::SpioDialect, mlir::arith::ArithDialect,
                  mlir::cf::ControlFlowDialect, mlir::DLTIDialect, mlir::func::FuncDialect,
                  mlir::gpu::GPUDialect, mlir::index::IndexDialect,
                  mlir::LLVM::LLVMDialect, mlir::NVVM::NVVMDialect,
                  mlir::memref::MemRefDialect, mlir::nvgpu::NVGPUDialect,
                  mlir::scf::SCFDialect, mlir::ub::UBDialect,
                  mlir::vector::VectorDialect>();
  // Lowering to LLVM through each dialect's ConvertToLLVM interface, and
  // translation of the NVVM target to PTX.
  mlir::arith::registerConvertArithToLLVMInterface(registry);
  mlir::cf::registerConvertControlFlowToLLVMInterface(registry);
  mlir::registerConvertFuncToLLVMInterface(registry);
  mlir::index::registerConvertIndexToLLVMInterface(registry);
  mlir::registerConvertMemRefToLLVMInterface(registry);
  mlir::registerConvertNVVMToLLVMInterface(registry);
  mlir::ub::registerConvertUBToLLVMInterface(registry);
  mlir::vector::registerConvertVectorToLLVMInterface(registry);
  mlir::NVVM::registerNVVMTargetInterfaceExternalModels(registry);
  mlir::registerBuiltinDialectTranslation(registry);
  mlir::registerGPUDialectTranslation(registry);
  mlir::registerLLVMDialectTranslation(registry);
  mlir::registerNVVMDialectTranslation(registry);

  // Canonicalize, CSE, symbol DCE and the other core transforms.
  mlir::registerTransformsPasses();
  mlir::spio::registerSpioConversionPasses();
  mlir::spio::registerSpioTransformsPasses();
  mlir::spio::registerSpioPipelines();
  // The upstream passes of the spio-to-ptx pipeline, to run them one by one.
  mlir::registerGPUPasses();
  mlir::arith::registerArithIntRangeOpts();
  mlir::arith::registerArithUnsignedWhenEquivalentPass();
  mlir::memref::registerExpandStridedMetadataPass();
  mlir::registerConvertNVGPUToNVVMPass();
  mlir::registerConvertGpuOpsToNVVMOps();
  mlir::registerSCFToControlFlowPass();
  mlir::registerConvertVectorToLLVMPass();
  mlir::registerArithToLLVMConversionPass();
  mlir::registerConvertIndexToLLVMPass();
  mlir::registerFinalizeMemRefToLLVMConversionPass();
  mlir::registerConvertControlFlowToLLVMPass();
  mlir::registerConvertNVVMToLLVMPass();
  mlir::registerUBToLLVMConversionPass();
  mlir::registerReconcileUnrealizedCastsPass();
}
