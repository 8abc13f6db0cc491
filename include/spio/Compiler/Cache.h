//===- Cache.h - Cache of compiled PTX --------------------------*- C++ -*-===//
//
// Compiled modules keyed by everything that decides the PTX: the source,
// the compile options, the LLVM version and a fingerprint of Spio's own
// compiler sources. Entries live in
// memory for the process and on disk across processes, in $SPIO_CACHE_DIR,
// else $XDG_CACHE_HOME/spio, else ~/.cache/spio. Files are written to a
// temporary name and renamed, so concurrent writers never expose a partial
// entry; an entry that fails its checksum or does not parse is recompiled
// and replaced, never trusted.
//
//===----------------------------------------------------------------------===//

#ifndef SPIO_COMPILER_CACHE_H
#define SPIO_COMPILER_CACHE_H

#include "spio/Compiler/Compiler.h"

#include <string>

namespace mlir::spio {

enum class CacheOutcome {
  MemoryHit,
  DiskHit,
  Compiled,
  /// A disk entry was corrupt: compiled again and rewritten.
  Recompiled,
};

const char *describe(CacheOutcome outcome);

/// The directory the disk cache uses ("" when no home can be found).
std::string cacheDirectory();

/// compileToPTX through the cache. `useDisk` = false keeps to memory.
bool compileToPTXCached(const std::string &source, const CompileOptions &options,
                        CompiledModule &result, std::string &error,
                        CacheOutcome &outcome, bool useDisk = true,
                        const std::string &sourceName = "<source>");

/// compileModuleToPTX through the same cache, keyed by the module as it
/// prints (`source` gets that text: what compileToPTXCached takes for the
/// same kernels, --emit-spio's output); on a miss the module is lowered as
/// built, not parsed back.
bool compileModuleToPTXCached(ModuleOp module, const CompileOptions &options,
                              CompiledModule &result, std::string &error, CacheOutcome &outcome,
                              std::string &source, bool useDisk = true,
                              const std::string &sourceName = "<module>");

} // namespace mlir::spio

#endif // SPIO_COMPILER_CACHE_H
