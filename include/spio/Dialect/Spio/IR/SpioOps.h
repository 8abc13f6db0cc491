//===- SpioOps.h - Spio operations ------------------------------*- C++ -*-===//

#ifndef SPIO_DIALECT_SPIO_IR_SPIOOPS_H
#define SPIO_DIALECT_SPIO_IR_SPIOOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "spio/Dialect/Spio/IR/SpioDialect.h"
#include "spio/Dialect/Spio/IR/SpioTypes.h"

#define GET_OP_CLASSES
#include "spio/Dialect/Spio/IR/SpioOps.h.inc"

#endif // SPIO_DIALECT_SPIO_IR_SPIOOPS_H
