//===- spio-opt.cpp - Spio's mlir-opt -------------------------------------===//
//
// Parses, verifies and transforms IR in the spio dialect and the upstream
// dialects its pipelines use, like mlir-opt.
//
//===----------------------------------------------------------------------===//

#include "spio/Compiler/Version.h"
#include "spio/Tools/Registration.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/CommandLine.h"

int main(int argc, char **argv) {
  llvm::cl::AddExtraVersionPrinter(
      [](llvm::raw_ostream &os) { os << mlir::spio::versionString() << "\n"; });
  mlir::DialectRegistry registry;
  mlir::spio::registerSpioCompiler(registry);
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "Spio optimizer driver\n", registry));
}
