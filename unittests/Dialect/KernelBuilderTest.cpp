//===- KernelBuilderTest.cpp - The typed kernel builder --------------------===//

#include "spio/Dialect/Spio/Builder/KernelBuilder.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace mlir::spio;
using namespace mlir::spio::build;

namespace {

class KernelBuilderTest : public ::testing::Test {
protected:
  KernelBuilderTest()
      : module(ModuleOp::create(UnknownLoc::get(&context))), builder(&context),
        origin(FileLineColLoc::get(&context, "user.mlir", 7, 3)) {
    context.loadAllAvailableDialects();
    builder.setInsertionPointToStart(module->getBody());
  }

  MLIRContext context{[] {
    DialectRegistry registry;
    registry.insert<SpioDialect, arith::ArithDialect, gpu::GPUDialect, scf::SCFDialect,
                    vector::VectorDialect>();
    return registry;
  }(), MLIRContext::Threading::DISABLED};
  OwningOpRef<ModuleOp> module;
  OpBuilder builder;
  Location origin;
};

/// The file and line of the call site a location names beside the origin.
std::pair<std::string, unsigned> callSite(Location loc) {
  auto fused = dyn_cast<FusedLoc>(loc);
  if (!fused || fused.getLocations().size() != 2)
    return {};
  auto file = dyn_cast<FileLineColLoc>(fused.getLocations()[1]);
  if (!file)
    return {};
  return {file.getFilename().str(), file.getLine()};
}

TEST_F(KernelBuilderTest, OpsFuseTheWorkloadLocationWithTheirCallSite) {
  KernelBuilder b(builder, origin);
  unsigned line = __LINE__ + 1;
  Coord k = b.constant(3, b.coordType("k", 8));
  auto fused = cast<FusedLoc>(k.getDefiningOp()->getLoc());
  EXPECT_EQ(fused.getLocations()[0], origin);
  auto [file, at] = callSite(k.getDefiningOp()->getLoc());
  // Relative to the source tree, whatever the build machine.
  EXPECT_EQ(file, "unittests/Dialect/KernelBuilderTest.cpp");
  EXPECT_EQ(at, line);
}

TEST_F(KernelBuilderTest, TypesCarryIntoValues) {
  KernelBuilder b(builder, origin);
  Coord k8 = b.constant(3, b.coordType("k", 8));
  Coord k2 = b.constant(1, b.coordType("k", 2));
  // Mixed folds add at the finer one.
  EXPECT_EQ(b.add(k8, k2).getType(), b.coordType("k", 2));
  EXPECT_EQ(b.unfold(k8, 1).getType(), b.coordType("k"));
  EXPECT_EQ(b.cast(k8, "c").getType(), b.coordType("c", 8));
  SpioTensorType shared = b.tensorType({{"i", 1, 64}, {"k", 8, 4}}, b.vector8(builder.getF16Type()),
                                       MemorySpace::Shared);
  EXPECT_EQ(shared, parseType("!spio.tensor<[i: 64, k/8: 4] x vector<8xf16>, shared>", &context));
  // Explicit strides where given, row-major over the sizes elsewhere, as the
  // parser reads them.
  SpioTensorType strided = b.tensorType({{"r", 1, 3, 160}, {"q", 1, 40, 4}, {"c", 8, 4}},
                                        b.vector8(builder.getF16Type()), MemorySpace::Shared);
  EXPECT_EQ(strided, parseType("!spio.tensor<[r: 3:160, q: 40:4, c/8: 4] x vector<8xf16>, shared>",
                               &context));
  EXPECT_TRUE(b.succeeded());
}

TEST_F(KernelBuilderTest, IfThenElseBuildsBothBranches) {
  KernelBuilder b(builder, origin);
  Value flag = b.cmpi(arith::CmpIPredicate::eq, b.index(0), b.index(1));
  Value inThen, inElse;
  b.ifThenElse(
      flag, [&] { inThen = b.index(2); }, [&] { inElse = b.index(3); });
  auto branch = cast<scf::IfOp>(inThen.getDefiningOp()->getParentOp());
  EXPECT_EQ(inThen.getDefiningOp()->getBlock(), branch.thenBlock());
  EXPECT_EQ(inElse.getDefiningOp()->getBlock(), branch.elseBlock());
  // Ops after the if come after it.
  EXPECT_EQ(b.index(4).getDefiningOp()->getPrevNode(), branch.getOperation());
  EXPECT_TRUE(b.succeeded());
  EXPECT_TRUE(succeeded(verify(*module)));
}

// Misuse the C++ types cannot catch is refused by the op's verifier where it
// is built, and the diagnostic names the family's line.
TEST_F(KernelBuilderTest, MisuseIsReportedAtTheCallSite) {
  KernelBuilder b(builder, origin);
  std::vector<std::pair<std::string, Location>> diagnostics;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &d) {
    diagnostics.push_back({d.str(), d.getLocation()});
    return success();
  });
  Coord i = b.constant(1, b.coordType("i"));
  Coord k = b.constant(2, b.coordType("k"));
  EXPECT_TRUE(b.succeeded());
  unsigned line = __LINE__ + 1;
  b.add(i, k);
  EXPECT_FALSE(b.succeeded());
  ASSERT_FALSE(diagnostics.empty());
  EXPECT_NE(diagnostics[0].first.find("cannot add"), std::string::npos) << diagnostics[0].first;
  for (auto &[message, location] : diagnostics)
    EXPECT_EQ(callSite(location).second, line) << message;
}

TEST_F(KernelBuilderTest, LoopsCarryTheirValues) {
  KernelBuilder b(builder, origin);
  FragmentType c = b.fragmentType(FragmentOperand::C, MmaShape::M16N8K16, builder.getF32Type(),
                                  "i", "j");
  Fragment zero = b.fill(b.f32(0.0), c);
  int iterations = 0;
  scf::ForOp loop =
      b.forLoop(b.index(0), b.index(4), b.index(1), {zero, zero}, [&](Value, ValueRange carried) {
        ++iterations;
        return SmallVector<Value>{carried[1], carried[0]};
      });
  EXPECT_EQ(iterations, 1);
  EXPECT_EQ(loop.getNumResults(), 2u);
  EXPECT_EQ(loop.getResult(0).getType(), c);
  auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
  EXPECT_EQ(yield.getOperand(0), loop.getRegionIterArgs()[1]);
  // Ops after the loop come after it.
  Value after = b.index(5);
  EXPECT_EQ(after.getDefiningOp()->getPrevNode(), loop.getOperation());
  EXPECT_TRUE(b.succeeded());
  EXPECT_TRUE(succeeded(verify(*module)));
}

} // namespace
