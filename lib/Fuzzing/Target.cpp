//===- Target.cpp - One fuzzer input through the compiler -----------------===//

#include "spio/Fuzzing/Target.h"

#include "spio/Conversion/Passes.h"
#include "spio/Dialect/Spio/Transforms/Passes.h"
#include "spio/Fuzzing/Mutator.h"
#include "spio/Tools/Registration.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

using namespace mlir;
using ::spio::fuzzing::Outcome;

namespace {

const DialectRegistry &registry() {
  static const DialectRegistry instance = [] {
    DialectRegistry r;
    mlir::spio::registerSpioCompiler(r);
    return r;
  }();
  return instance;
}

/// MLIR 22's parser dereferences null on a dense array of index
/// (`array<index: 1>`, in Parser::parseDenseArrayAttr): upstream's crash,
/// which Spio's compile path recovers from. The fuzzer skips such inputs so
/// as to look for Spio's own.
bool hitsUpstreamParserCrash(std::string_view text) {
  for (size_t at = text.find("array"); at != std::string_view::npos;
       at = text.find("array", at + 1)) {
    size_t next = text.find_first_not_of(" \t\n", at + 5);
    if (next == std::string_view::npos || text[next] != '<')
      continue;
    next = text.find_first_not_of(" \t\n", next + 1);
    if (next != std::string_view::npos && text.substr(next, 5) == "index")
      return true;
  }
  return false;
}

Outcome runPiece(std::string_view text) {
  if (hitsUpstreamParserCrash(text))
    return Outcome::Invalid;
  // A context a piece: nothing an input uniques outlives it, so a run's
  // memory stays flat and each input is reproduced alone.
  MLIRContext context(registry(), MLIRContext::Threading::DISABLED);
  std::string lastError;
  ScopedDiagnosticHandler keepLast(&context, [&](Diagnostic &diagnostic) {
    if (diagnostic.getSeverity() == DiagnosticSeverity::Error)
      lastError = diagnostic.str();
    return success();
  });
  // MLIR's lexer reads up to a terminating NUL, as every source a caller
  // holds in a std::string has: a piece of the fuzzer's buffer has none.
  std::string source(text);
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(source, ParserConfig(&context), "fuzz-input");
  if (!module)
    return Outcome::Invalid;
  const std::pair<const char *, std::unique_ptr<Pass> (*)()> passes[] = {
      {"spio-tile", [] { return mlir::spio::createSpioTile(); }},
      {"spio-pipeline", [] { return mlir::spio::createSpioPipeline(); }},
      {"convert-spio-to-gpu", [] { return mlir::spio::createConvertSpioToGPU(); }},
  };
  for (auto [name, create] : passes) {
    PassManager pm(&context);
    pm.enableVerifier(false);
    pm.addPass(create());
    if (failed(pm.run(*module)))
      return Outcome::Refused;
    if (failed(verify(*module))) {
      llvm::errs() << "spio-fuzz: " << name
                   << " succeeded but left IR that does not verify: " << lastError << "\n";
      std::abort();
    }
  }
  return Outcome::Lowered;
}

} // namespace

namespace spio::fuzzing {

Outcome runInput(std::string_view text) {
  Outcome outcome = Outcome::Invalid;
  for (std::string_view piece : splitInputFile(text))
    outcome = runPiece(piece);
  return outcome;
}

} // namespace spio::fuzzing
