//===- AutotuneCache.cpp - Autotuning results kept on disk ----------------===//

#include "spio/Compiler/AutotuneCache.h"
#include "spio/Compiler/Cache.h"
#include "spio/Compiler/Version.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir::spio;

static constexpr const char *kMagic = "SPIO-AUTOTUNE 1";

/// The entry's path for `key`, "" where there is no cache directory.
static std::string entryPath(const std::string &key, const std::string &directory) {
  std::string dir = directory;
  if (dir.empty()) {
    std::string cache = cacheDirectory();
    if (cache.empty())
      return "";
    llvm::SmallString<256> path;
    llvm::sys::path::append(path, cache, "autotune");
    dir = std::string(path);
  }
  std::string full = std::string(versionString()) + "\n" + key;
  llvm::SmallString<256> path;
  llvm::sys::path::append(
      path, dir,
      llvm::toHex(llvm::SHA256::hash(llvm::arrayRefFromStringRef(full)), /*LowerCase=*/true) +
          ".autotune");
  return std::string(path);
}

/// Entry text: magic, version, the key's length and the key, then the
/// candidate count and the fastest's index.
static std::string entryText(const std::string &key, size_t candidates, size_t fastest) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << kMagic << "\n"
     << versionString() << "\n"
     << key.size() << "\n"
     << key << "\n"
     << candidates << " " << fastest << "\n";
  return text;
}

std::optional<size_t> mlir::spio::lookupAutotuned(const std::string &device,
                                                  const std::string &problem, size_t candidates,
                                                  const std::string &directory) {
  std::string key = device + "\n" + problem;
  std::string path = entryPath(key, directory);
  llvm::sys::fs::file_status status;
  if (path.empty() || llvm::sys::fs::status(path, status) ||
      !llvm::sys::fs::is_regular_file(status))
    return std::nullopt;
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer)
    return std::nullopt;
  llvm::StringRef text = (*buffer)->getBuffer();
  // The entry must be exactly what storeAutotuned writes for this key and
  // count, with any fastest index below the count.
  for (size_t fastest = 0; fastest < candidates; ++fastest)
    if (text == entryText(key, candidates, fastest))
      return fastest;
  return std::nullopt;
}

void mlir::spio::storeAutotuned(const std::string &device, const std::string &problem,
                                size_t candidates, size_t fastest, const std::string &directory) {
  std::string key = device + "\n" + problem;
  std::string path = entryPath(key, directory);
  if (path.empty() || fastest >= candidates ||
      llvm::sys::fs::create_directories(llvm::sys::path::parent_path(path)))
    return;
  llvm::SmallString<256> temp;
  int fd;
  if (llvm::sys::fs::createUniqueFile(path + ".tmp-%%%%%%%%", fd, temp))
    return;
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << entryText(key, candidates, fastest);
  }
  // Renamed into place whole: a reader sees the old entry or the new one.
  if (llvm::sys::fs::rename(temp, path))
    llvm::sys::fs::remove(temp);
}
