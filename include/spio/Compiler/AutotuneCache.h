//===- AutotuneCache.h - Autotuning results kept on disk --------*- C++ -*-===//
//
// The fastest candidate autotuning found for a problem on a device, kept
// beside the PTX cache (cacheDirectory()/autotune) so that later processes
// (spio-jit, Python) run it without timing again. Entries are keyed by the
// caller's text (the device, the problem and its candidates) and Spio's
// version: another build or candidate list never reads them.
//
//===----------------------------------------------------------------------===//

#ifndef SPIO_COMPILER_AUTOTUNECACHE_H
#define SPIO_COMPILER_AUTOTUNECACHE_H

#include <cstddef>
#include <optional>
#include <string>

namespace mlir::spio {

/// The fastest of `candidates` recorded for `key` on the device named
/// `device` in `directory` ("": the cache directory's autotune folder), or
/// nothing: no entry, another key, device or count, or an unreadable or
/// corrupt entry.
std::optional<size_t> lookupAutotuned(const std::string &device, const std::string &key,
                                      size_t candidates, const std::string &directory = "");

/// Records `fastest` of `candidates` for `key` on `device` (best effort:
/// an unwritable directory only costs timing again).
void storeAutotuned(const std::string &device, const std::string &key, size_t candidates,
                    size_t fastest, const std::string &directory = "");

} // namespace mlir::spio

#endif // SPIO_COMPILER_AUTOTUNECACHE_H
