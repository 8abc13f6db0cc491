//===- SpioFoldTest.cpp - Coordinate folders against the layout model -----===//
//
// Builds coordinate ops on constants with createOrFold and checks that what
// they fold to is what the layout model computes, over ranges of values that
// include negative (halo) coordinates.
//
//===----------------------------------------------------------------------===//

#include "spio/Dialect/Spio/IR/SpioOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

#include <limits>

using namespace mlir;
using namespace mlir::spio;
namespace layout = ::spio::layout;

namespace {

class SpioFoldTest : public ::testing::Test {
protected:
  SpioFoldTest() : builder(&context) {
    context.loadDialect<SpioDialect, arith::ArithDialect>();
    module = ModuleOp::create(builder.getUnknownLoc());
    builder.setInsertionPointToEnd(module->getBody());
  }

  CoordType coord(StringRef dim, int64_t fold = 1) {
    return CoordType::get(&context, dim, fold);
  }

  Value constant(CoordType type, int64_t value) {
    return ConstantOp::create(builder, loc(), type, builder.getI64IntegerAttr(value));
  }

  /// The integer a folded value was materialized as, or nothing.
  std::optional<int64_t> folded(Value v) {
    Attribute attr;
    if (auto c = v.getDefiningOp<ConstantOp>())
      return c.getValue();
    if (auto c = v.getDefiningOp<arith::ConstantOp>())
      attr = c.getValue();
    if (auto i = dyn_cast_if_present<IntegerAttr>(attr))
      return i.getValue().getSExtValue();
    return std::nullopt;
  }

  Location loc() { return builder.getUnknownLoc(); }

  MLIRContext context;
  OpBuilder builder;
  OwningOpRef<ModuleOp> module;
};

TEST_F(SpioFoldTest, FoldIsFloorDivision) {
  for (int64_t fold : {2, 4, 8})
    for (int64_t v = -40; v <= 40; ++v) {
      Value r = builder.createOrFold<FoldOp>(loc(), coord("k", fold), constant(coord("k"), v));
      EXPECT_EQ(folded(r), layout::floorDiv(v, fold)) << v << " / " << fold;
      EXPECT_EQ(cast<CoordType>(r.getType()), coord("k", fold));
    }
}

TEST_F(SpioFoldTest, FoldBetweenFolds) {
  for (int64_t v = -20; v <= 20; ++v) {
    Value r = builder.createOrFold<FoldOp>(loc(), coord("k", 8), constant(coord("k", 2), v));
    EXPECT_EQ(folded(r), layout::floorDiv(2 * v, 8)) << v;
  }
}

TEST_F(SpioFoldTest, UnfoldMultiplies) {
  for (int64_t v = -20; v <= 20; ++v) {
    Value r = builder.createOrFold<UnfoldOp>(loc(), coord("k", 2), constant(coord("k", 8), v));
    EXPECT_EQ(folded(r), 4 * v);
  }
}

TEST_F(SpioFoldTest, CastKeepsTheValue) {
  Value r = builder.createOrFold<CastOp>(loc(), coord("i", 8), constant(coord("x", 8), -7));
  EXPECT_EQ(folded(r), -7);
  EXPECT_EQ(cast<CoordType>(r.getType()), coord("i", 8));
}

TEST_F(SpioFoldTest, AddAndSubComputeAtTheFinerStride) {
  for (int64_t a = -6; a <= 6; ++a)
    for (int64_t b = -6; b <= 6; ++b) {
      Value x = constant(coord("k", 8), a), y = constant(coord("k", 12), b);
      Value sum = builder.createOrFold<AddOp>(loc(), x, y);
      Value diff = builder.createOrFold<SubOp>(loc(), x, y);
      EXPECT_EQ(cast<CoordType>(sum.getType()), coord("k", 4));
      EXPECT_EQ(folded(sum), (8 * a + 12 * b) / 4);
      EXPECT_EQ(folded(diff), (8 * a - 12 * b) / 4);
    }
}

TEST_F(SpioFoldTest, ModIsNeverNegative) {
  for (int64_t m : {1, 3, 8})
    for (int64_t v = -30; v <= 30; ++v) {
      Value r = builder.createOrFold<ModOp>(loc(), constant(coord("k"), v), m);
      EXPECT_EQ(folded(r), layout::floorMod(v, m)) << v << " mod " << m;
    }
}

TEST_F(SpioFoldTest, CompareUsesPositions) {
  struct Case { CmpPredicate p; bool (*f)(int64_t, int64_t); };
  Case cases[] = {
      {CmpPredicate::eq, [](int64_t a, int64_t b) { return a == b; }},
      {CmpPredicate::ne, [](int64_t a, int64_t b) { return a != b; }},
      {CmpPredicate::lt, [](int64_t a, int64_t b) { return a < b; }},
      {CmpPredicate::le, [](int64_t a, int64_t b) { return a <= b; }},
      {CmpPredicate::gt, [](int64_t a, int64_t b) { return a > b; }},
      {CmpPredicate::ge, [](int64_t a, int64_t b) { return a >= b; }}};
  for (const Case &c : cases)
    for (int64_t a = -10; a <= 10; ++a)
      for (int64_t b = -3; b <= 3; ++b) {
        // a counts i, b counts i/4: compare a with 4b.
        Value r = builder.createOrFold<CmpOp>(loc(), builder.getI1Type(), c.p,
                                              constant(coord("i"), a),
                                              constant(coord("i", 4), b));
        EXPECT_EQ(folded(r), c.f(a, 4 * b) ? -1 : 0)
            << stringifyCmpPredicate(c.p).str() << " " << a << " " << b;
      }
}

TEST_F(SpioFoldTest, IndexBridge) {
  Value idx = builder.createOrFold<ToIndexOp>(loc(), builder.getIndexType(),
                                              constant(coord("k", 8), 5));
  EXPECT_EQ(folded(idx), 5);
  Value back = builder.createOrFold<FromIndexOp>(loc(), coord("k", 8), idx);
  EXPECT_EQ(folded(back), 5);
}

TEST_F(SpioFoldTest, NonConstantsDoNotFold) {
  Value lane = LinearIdOp::create(builder, loc(), LinearId::Lane);
  Value k = FromIndexOp::create(builder, loc(), coord("k"), lane);
  Value r = builder.createOrFold<FoldOp>(loc(), coord("k", 8), k);
  EXPECT_FALSE(folded(r));
  EXPECT_TRUE(r.getDefiningOp<FoldOp>());
}

} // namespace

namespace {

TEST_F(SpioFoldTest, OverflowingConstantsStayUnfolded) {
  int64_t huge = std::numeric_limits<int64_t>::max() / 2;
  Value big = constant(coord("k", 8), huge);
  Value unfolded = builder.createOrFold<UnfoldOp>(loc(), coord("k"), big);
  EXPECT_FALSE(folded(unfolded));
  Value sum = builder.createOrFold<AddOp>(loc(), big, constant(coord("k", 8), huge));
  EXPECT_FALSE(folded(sum));
}

} // namespace
