//===- ModuleToPTX.cpp - gpu.modules to PTX in process --------------------===//

#include "spio/Conversion/Passes.h"

#include "mlir/Dialect/GPU/IR/CompilationInterfaces.h"
#include "mlir/Target/LLVM/NVVM/Utils.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Target/TargetMachine.h"

namespace mlir::spio {
#define GEN_PASS_DEF_SPIOMODULETOPTX
#include "spio/Conversion/Passes.h.inc"
} // namespace mlir::spio

using namespace mlir;

/// Function simplification without loop rotation, for modules of wgmma
/// kernels: their loops wait on mbarriers for TMA copies, and their
/// accumulators are structs of up to 128 floats, whose copies through a
/// rotated loop's extra blocks cost NVPTX's instruction selection more than
/// O3's passes gain (H200: wgmma GEMMs and convolutions ran within 1% of
/// O3's PTX, a 4096^3 GEMM's cold compile 358 -> 184 ms). Other kernels
/// keep O3: loop rotation, runtime unrolling and jump threading made
/// mma.sync GEMMs and CUDA-core reductions 4-8% faster.
static constexpr const char *kWgmmaPipeline =
    "function(sroa,early-cse,instcombine<no-verify-fixpoint>,simplifycfg,loop-mssa(licm),"
    "loop(loop-unroll-full),gvn,instcombine<no-verify-fixpoint>,simplifycfg)";

/// Whether `function` multiplies on wgmma, which NVVM lowers to inline PTX
/// (were it an intrinsic, the module would keep O3: as fast, slower to
/// compile).
static bool issuesWgmma(const llvm::Function &function) {
  for (const llvm::Instruction &instruction : llvm::instructions(function))
    if (auto *call = dyn_cast<llvm::CallBase>(&instruction))
      if (auto *assembly = dyn_cast<llvm::InlineAsm>(call->getCalledOperand()))
        if (StringRef(assembly->getAsmString()).contains("wgmma.mma_async"))
          return true;
  return false;
}

namespace {

/// The NVVM serializer's translation and libraries, the IR passes chosen
/// for the module's kernels, and NVPTX code generation.
class PTXSerializer : public NVVM::SerializeGPUModuleBase {
public:
  PTXSerializer(Operation &module, NVVM::NVVMTargetAttr target)
      : SerializeGPUModuleBase(module, target) {}

protected:
  LogicalResult optimizeModule(llvm::Module &module, int optLevel) override {
    bool wgmmaOnly = llvm::all_of(module, [](const llvm::Function &function) {
      return function.isDeclaration() || issuesWgmma(function);
    });
    if (!wgmmaOnly || optLevel == 0)
      return ModuleToObject::optimizeModule(module, optLevel);
    FailureOr<llvm::TargetMachine *> machine = getOrCreateTargetMachine();
    if (failed(machine))
      return getOperation().emitError() << "no LLVM target machine for " << triple;
    (*machine)->setOptLevel(llvm::CodeGenOptLevel::Default);
    llvm::LoopAnalysisManager loops;
    llvm::FunctionAnalysisManager functions;
    llvm::CGSCCAnalysisManager sccs;
    llvm::ModuleAnalysisManager modules;
    llvm::PassBuilder builder(*machine);
    builder.registerModuleAnalyses(modules);
    builder.registerCGSCCAnalyses(sccs);
    builder.registerFunctionAnalyses(functions);
    builder.registerLoopAnalyses(loops);
    builder.crossRegisterProxies(loops, functions, sccs, modules);
    llvm::ModulePassManager passes;
    if (llvm::Error error = builder.parsePassPipeline(passes, kWgmmaPipeline))
      return getOperation().emitError()
             << "LLVM pass pipeline: " << llvm::toString(std::move(error));
    passes.run(module, modules);
    return success();
  }

  FailureOr<SmallVector<char, 0>> moduleToObject(llvm::Module &module) override {
    FailureOr<llvm::TargetMachine *> machine = getOrCreateTargetMachine();
    if (failed(machine))
      return getOperation().emitError() << "no LLVM target machine for " << triple;
    FailureOr<SmallString<0>> ptx =
        translateModuleToISA(module, **machine, [&] { return getOperation().emitError(); });
    if (failed(ptx))
      return failure();
    return SmallVector<char, 0>(ptx->begin(), ptx->end());
  }
};

struct SpioModuleToPTX : spio::impl::SpioModuleToPTXBase<SpioModuleToPTX> {
  void runOnOperation() override {
    NVVM::SerializeGPUModuleBase::init();
    SmallVector<gpu::GPUModuleOp> modules(getOperation().getOps<gpu::GPUModuleOp>());
    for (gpu::GPUModuleOp module : modules) {
      ArrayAttr targets = module.getTargetsAttr();
      auto target = targets && targets.size() == 1 ? dyn_cast<NVVM::NVVMTargetAttr>(targets[0])
                                                   : NVVM::NVVMTargetAttr();
      if (!target) {
        module.emitError("expected one #nvvm.target on the gpu.module");
        return signalPassFailure();
      }
      PTXSerializer serializer(*module, target);
      std::optional<SmallVector<char, 0>> ptx = serializer.run();
      if (!ptx) {
        module.emitError("could not compile the gpu.module to PTX");
        return signalPassFailure();
      }
      OpBuilder builder(module);
      auto object = gpu::ObjectAttr::get(&getContext(), target, gpu::CompilationTarget::Assembly,
                                         builder.getStringAttr(StringRef(ptx->data(), ptx->size())),
                                         nullptr, nullptr);
      gpu::BinaryOp::create(builder, module.getLoc(), module.getName(), nullptr,
                            builder.getArrayAttr({object}));
      module.erase();
    }
  }
};
} // namespace
