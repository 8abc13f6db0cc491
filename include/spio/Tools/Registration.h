//===- Registration.h - What every Spio tool registers ----------*- C++ -*-===//
//
// One place that says which dialects and passes Spio's tools know, so that
// spio-opt, spio-jit and embedders agree. No registerAll*: each upstream
// piece is named, which keeps static links small.
//
//===----------------------------------------------------------------------===//

#ifndef SPIO_TOOLS_REGISTRATION_H
#define SPIO_TOOLS_REGISTRATION_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace mlir::spio {

/// Adds the Spio dialect and the upstream dialects its pipelines produce to
/// `registry`, and registers the passes they use with the global pass
/// registry (idempotent).
void registerSpioCompiler(DialectRegistry &registry);

} // namespace mlir::spio

#endif // SPIO_TOOLS_REGISTRATION_H
