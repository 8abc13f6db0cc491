//===- SpioAttrs.h - Spio enums and attributes ------------------*- C++ -*-===//

#ifndef SPIO_DIALECT_SPIO_IR_SPIOATTRS_H
#define SPIO_DIALECT_SPIO_IR_SPIOATTRS_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "spio/Layout/Layout.h"
#include "spio/Target/Chip.h"

#include "spio/Dialect/Spio/IR/SpioEnums.h.inc"
#include "spio/Dialect/Spio/IR/SpioAttrInterfaces.h.inc"

#define GET_ATTRDEF_CLASSES
#include "spio/Dialect/Spio/IR/SpioAttrs.h.inc"

namespace mlir::spio {
namespace layout = ::spio::layout;
} // namespace mlir::spio

#endif // SPIO_DIALECT_SPIO_IR_SPIOATTRS_H
