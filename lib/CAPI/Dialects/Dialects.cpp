//===- Dialects.cpp - The spio dialect through MLIR's C API ---------------===//

#include "spio-c/Dialects.h"

#include "spio/Dialect/Spio/IR/SpioDialect.h"
#include "spio/Tools/Registration.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Registration.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"

MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(Spio, spio, mlir::spio::SpioDialect)

void spioRegisterCompiler(MlirContext context) {
  mlir::DialectRegistry registry;
  mlir::spio::registerSpioCompiler(registry);
  unwrap(context)->appendDialectRegistry(registry);
}
