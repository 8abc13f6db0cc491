//===- SpioDialect.cpp - The Spio dialect ---------------------------------===//

#include "spio/Dialect/Spio/IR/SpioDialect.h"
#include "spio/Dialect/Spio/IR/SpioOps.h"

using namespace mlir;
using namespace mlir::spio;

#include "spio/Dialect/Spio/IR/SpioDialect.cpp.inc"

void SpioDialect::initialize() {
  registerAttributes();
  registerTypes();
  addOperations<
#define GET_OP_LIST
#include "spio/Dialect/Spio/IR/SpioOps.cpp.inc"
      >();
}

Operation *SpioDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                            Type type, Location loc) {
  auto intAttr = dyn_cast<IntegerAttr>(value);
  if (!intAttr)
    return nullptr;
  if (isa<CoordType>(type))
    return ConstantOp::create(builder, loc, type,
                              builder.getI64IntegerAttr(intAttr.getInt()));
  if (intAttr.getType() == type && (type.isIndex() || type.isInteger(1)))
    return arith::ConstantOp::create(builder, loc, intAttr);
  return nullptr;
}
