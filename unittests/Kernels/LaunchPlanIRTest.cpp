//===- LaunchPlanIRTest.cpp - Launch plans agree with the built kernels ---===//
//
// A plan names each gpu.func of the workload and gives it as many
// parameters as the function takes.

#include "Targets.h"
#include "spio/Kernels/IR/Conv2dGw8Kernel.h"
#include "spio/Kernels/IR/GemmKernel.h"
#include "spio/Kernels/LaunchPlan.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

using namespace mlir;
namespace kernels = ::spio::kernels;

namespace {

void expectPlanMatches(ModuleOp module, const kernels::LaunchPlan &plan) {
  for (const kernels::PlannedKernel &planned : plan.kernels) {
    gpu::GPUFuncOp function;
    module.walk([&](gpu::GPUFuncOp f) {
      if (f.getName() == planned.name)
        function = f;
    });
    ASSERT_TRUE(function) << "no gpu.func @" << planned.name;
    EXPECT_TRUE(function.isKernel());
    EXPECT_EQ(function.getNumArguments(), planned.parameters.size()) << planned.name;
  }
  size_t functions = 0;
  module.walk([&](gpu::GPUFuncOp) { ++functions; });
  EXPECT_EQ(functions, plan.kernels.size());
}

class LaunchPlanIRTest : public ::testing::Test {
protected:
  LaunchPlanIRTest() {
    context.loadDialect<mlir::spio::SpioDialect, gpu::GPUDialect, arith::ArithDialect,
                        scf::SCFDialect, vector::VectorDialect>();
  }
  MLIRContext context{MLIRContext::Threading::DISABLED};
};

TEST_F(LaunchPlanIRTest, GemmPlanMatchesTheWorkload) {
  kernels::GemmProblem p;
  p.m = 512;
  p.n = 256;
  p.k = 128;
  p.epilogue = {kernels::EpilogueStep::Scale, kernels::EpilogueStep::Bias};
  p.bias = kernels::Along::Cols;
  p.scale = kernels::Along::Rows;
  for (kernels::GemmConfig c :
       {kernels::chooseGemmConfig(p, hopper()), kernels::chooseWgmmaGemmConfig(p, hopper())}) {
    ASSERT_EQ(kernels::checkGemm(p, c, hopper()), "");
    OwningOpRef<ModuleOp> module = mlir::spio::buildGemmWorkload(&context, p, c);
    expectPlanMatches(*module, kernels::gemmLaunchPlan(p, c));
  }
}

TEST_F(LaunchPlanIRTest, PackedAndGroupedGemmPlansMatchTheWorkloads) {
  // A grouped GEMM; f32 inputs and an unaligned K-major bf16 problem, both
  // packed first.
  kernels::GemmProblem f32;
  f32.m = 300;
  f32.n = 200;
  f32.k = 100;
  f32.input = f32.output = kernels::DType::F32;
  f32.a = kernels::Layout::ColMajor;
  kernels::GemmProblem unaligned;
  unaligned.m = 7;
  unaligned.n = 1000;
  unaligned.k = 999;
  kernels::GemmProblem grouped;
  grouped.m = 4096;
  grouped.n = 1024;
  grouped.k = 512;
  grouped.groups = 8;
  kernels::GemmConfig c = kernels::chooseWgmmaGemmConfig(grouped, hopper());
  ASSERT_EQ(kernels::checkGemm(grouped, c, hopper()), "");
  OwningOpRef<ModuleOp> module = mlir::spio::buildGemmWorkload(&context, grouped, c);
  ASSERT_TRUE(succeeded(verify(*module)));
  kernels::LaunchPlan plan = kernels::gemmLaunchPlan(grouped, c);
  EXPECT_FALSE(plan.operands[6].optional);
  expectPlanMatches(*module, plan);
  for (const kernels::GemmProblem &p : {f32, unaligned})
    for (kernels::GemmConfig c :
         {kernels::chooseGemmConfig(p, hopper()), kernels::chooseWgmmaGemmConfig(p, hopper())}) {
      ASSERT_EQ(kernels::checkGemm(p, c, hopper()), "");
      OwningOpRef<ModuleOp> module = mlir::spio::buildGemmWorkload(&context, p, c);
      ASSERT_TRUE(succeeded(verify(*module)));
      expectPlanMatches(*module, kernels::gemmLaunchPlan(p, c));
    }
  // Batched M- or N-major bf16 operands whose K leaves a partial k-tile,
  // packed for wgmma: one packing kernel where the other operand is K-major
  // (read in place), two where neither is.
  kernels::GemmProblem layouts;
  layouts.m = 512;
  layouts.n = 384;
  layouts.k = 200;
  layouts.batch = 2;
  layouts.a = kernels::Layout::ColMajor;
  layouts.packLayouts = true;
  for (kernels::Layout b : {kernels::Layout::ColMajor, kernels::Layout::RowMajor}) {
    layouts.b = b;
    kernels::GemmConfig c = kernels::chooseWgmmaGemmConfig(layouts, hopper());
    ASSERT_EQ(kernels::checkGemm(layouts, c, hopper()), "");
    OwningOpRef<ModuleOp> module = mlir::spio::buildGemmWorkload(&context, layouts, c);
    ASSERT_TRUE(succeeded(verify(*module)));
    kernels::LaunchPlan plan = kernels::gemmLaunchPlan(layouts, c);
    EXPECT_EQ(plan.kernels.size(), b == kernels::Layout::ColMajor ? 2u : 3u);
    expectPlanMatches(*module, plan);
  }
  // Read in place (unbatched): the GEMM alone.
  layouts.batch = 1;
  kernels::GemmConfig inPlace = kernels::chooseWgmmaGemmConfig(layouts, hopper());
  ASSERT_EQ(kernels::checkGemm(layouts, inPlace, hopper()), "");
  OwningOpRef<ModuleOp> transposed = mlir::spio::buildGemmWorkload(&context, layouts, inPlace);
  ASSERT_TRUE(succeeded(verify(*transposed)));
  kernels::LaunchPlan single = kernels::gemmLaunchPlan(layouts, inPlace);
  EXPECT_EQ(single.kernels.size(), 1u);
  expectPlanMatches(*transposed, single);
}

TEST_F(LaunchPlanIRTest, ConvPlansMatchTheWorkloads) {
  for (auto [pass, bias] : {std::pair{kernels::ConvPass::Fprop, true},
                            std::pair{kernels::ConvPass::Dgrad, false},
                            std::pair{kernels::ConvPass::Wgrad, false},
                            std::pair{kernels::ConvPass::Wgrad, true}}) {
    kernels::Conv2dGw8Problem p;
    p.target = hopper();
    p.n = 2;
    p.c = 64;
    p.h = p.w = 16;
    p.pass = pass;
    p.bias = bias;
    kernels::Conv2dGw8Config c = kernels::chooseConv2dGw8Config(p);
    ASSERT_EQ(kernels::checkConv2dGw8(p, c), "");
    OwningOpRef<ModuleOp> module = mlir::spio::buildConv2dGw8Workload(&context, p, c);
    ASSERT_TRUE(succeeded(verify(*module)));
    expectPlanMatches(*module, kernels::conv2dGw8LaunchPlan(p, c));
  }
}

} // namespace
