//===- downstream-opt.cpp - Another project's opt tool, with Spio ---------===//
//
// The project registers its own dialects (here upstream's math dialect,
// which Spio does not use) and Spio's dialect, passes and spio-to-ptx
// pipeline into one registry.
//
//===----------------------------------------------------------------------===//

#include "spio/Tools/Registration.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  registry.insert<mlir::math::MathDialect>();
  mlir::spio::registerSpioCompiler(registry);
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "downstream-opt: a project's opt tool with Spio in it\n", registry));
}
