//===- Version.h - Which Spio compiled a kernel -----------------*- C++ -*-===//

#ifndef SPIO_COMPILER_VERSION_H
#define SPIO_COMPILER_VERSION_H

namespace mlir::spio {

/// "Spio <version> (compiler sources <12 hex digits>)": the project's
/// version and the start of the fingerprint of the sources that decide what
/// a kernel compiles to (the PTX cache's key), for --version and the C API.
const char *versionString();

} // namespace mlir::spio

#endif // SPIO_COMPILER_VERSION_H
