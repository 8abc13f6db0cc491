//===- GemmKernelTest.cpp - The GEMM family's workload, built as IR -------===//

#include "spio/Kernels/IR/GemmKernel.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace mlir::spio;
namespace kernels = ::spio::kernels;

namespace {

class GemmKernelTest : public ::testing::Test {
protected:
  GemmKernelTest() { context.loadDialect<SpioDialect, gpu::GPUDialect>(); }

  Type parse(const char *text) { return parseType(text, &context); }

  static kernels::GemmProblem problem() {
    kernels::GemmProblem p;
    p.m = 64;
    p.n = 32;
    p.k = 16;
    p.rowDim = "m";
    p.colDim = "n";
    p.reductionDim = "r";
    p.b = kernels::Layout::RowMajor;
    return p;
  }

  MLIRContext context{MLIRContext::Threading::DISABLED};
};

TEST_F(GemmKernelTest, NamesTheOperandsByDimension) {
  kernels::GemmProblem p = problem();
  EXPECT_EQ(gemmOperandType(&context, p, 'a'),
            parse("!spio.tensor<[m: 64, r/8: 2] x vector<8xbf16>, global>"));
  EXPECT_EQ(gemmOperandType(&context, p, 'b'),
            parse("!spio.tensor<[r: 16, n/8: 4] x vector<8xbf16>, global>"));
  EXPECT_EQ(gemmOperandType(&context, p, 'd'),
            parse("!spio.tensor<[m: 64, n: 32] x bf16, global>"));
}

// The workload op reads back as the problem and config it was built from:
// nothing is lost between the family's structs and the IR.
TEST_F(GemmKernelTest, WorkloadReadsBackAsItsProblemAndConfig) {
  for (bool readsC : {false, true}) {
    kernels::GemmProblem p = problem();
    p.readsC = readsC;
    p.a = kernels::Layout::ColMajor;
    p.output = kernels::DType::F32;
    kernels::GemmConfig c;
    c.blockM = 64;
    c.stages = 3;
    c.raster = 2;
    OwningOpRef<ModuleOp> module = buildGemmWorkload(&context, p, c);
    ASSERT_TRUE(succeeded(verify(*module)));
    SmallVector<GemmOp> gemms;
    module->walk([&](GemmOp op) { gemms.push_back(op); });
    ASSERT_EQ(gemms.size(), 1u);
    kernels::GemmProblem back = gemmProblem(gemms[0]);
    EXPECT_EQ(back.m, p.m);
    EXPECT_EQ(back.n, p.n);
    EXPECT_EQ(back.k, p.k);
    EXPECT_EQ(back.a, p.a);
    EXPECT_EQ(back.b, p.b);
    EXPECT_EQ(back.input, p.input);
    EXPECT_EQ(back.output, p.output);
    EXPECT_EQ(back.readsC, readsC);
    EXPECT_EQ(back.rowDim, "m");
    EXPECT_EQ(back.reductionDim, "r");
    EXPECT_EQ(gemmConfigAttr(&context, c), gemms[0].getConfig());
  }
}

// The printed workload parses back to the same module.
TEST_F(GemmKernelTest, SourceRoundTrips) {
  kernels::GemmProblem p = problem();
  std::string source = gemmSource(p, kernels::GemmConfig());
  OwningOpRef<ModuleOp> parsed = parseSourceString<ModuleOp>(source, &context);
  ASSERT_TRUE(parsed) << source;
  std::string again;
  llvm::raw_string_ostream os(again);
  parsed->print(os);
  EXPECT_EQ(again, source);
}

} // namespace
