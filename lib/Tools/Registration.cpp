//===- Registration.cpp - What every Spio tool registers ------------------===//

#include "spio/Tools/Registration.h"

#include "spio/Dialect/Spio/IR/SpioDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Index/IR/IndexDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Transforms/Passes.h"

void spio::registerSpioCompiler(mlir::DialectRegistry &registry) {
  registry.insert<mlir::spio::SpioDialect, mlir::arith::ArithDialect,
                  mlir::cf::ControlFlowDialect, mlir::func::FuncDialect,
                  mlir::gpu::GPUDialect, mlir::index::IndexDialect,
                  mlir::LLVM::LLVMDialect, mlir::NVVM::NVVMDialect,
                  mlir::memref::MemRefDialect, mlir::nvgpu::NVGPUDialect,
                  mlir::scf::SCFDialect, mlir::vector::VectorDialect>();
  // Canonicalize, CSE, symbol DCE and the other core transforms.
  mlir::registerTransformsPasses();
}
