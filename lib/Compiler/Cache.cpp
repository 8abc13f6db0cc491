//===- Cache.cpp - Cache of compiled PTX ----------------------------------===//

#include "spio/Compiler/Cache.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <functional>
#include <map>
#include <mutex>

using namespace mlir::spio;

// SPIO_SOURCE_FINGERPRINT: a hash of every source of the compiler, so that a
// changed lowering never gets PTX an older one produced.
#include "SourceFingerprint.h"
static constexpr const char *kMagic = "SPIO-PTX-CACHE 1";

const char *mlir::spio::describe(CacheOutcome outcome) {
  switch (outcome) {
  case CacheOutcome::MemoryHit:
    return "memory cache hit";
  case CacheOutcome::DiskHit:
    return "disk cache hit";
  case CacheOutcome::Compiled:
    return "compiled";
  case CacheOutcome::Recompiled:
    return "corrupt cache entry, recompiled";
  }
  return "?";
}

static std::string sha256Hex(llvm::StringRef data) {
  return llvm::toHex(llvm::SHA256::hash(llvm::arrayRefFromStringRef(data)),
                     /*LowerCase=*/true);
}

std::string mlir::spio::cacheDirectory() {
  if (const char *dir = std::getenv("SPIO_CACHE_DIR"); dir && *dir)
    return dir;
  llvm::SmallString<256> path;
  if (const char *xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
    path = xdg;
  else if (const char *home = std::getenv("HOME"); home && *home)
    llvm::sys::path::append(path, home, ".cache");
  else
    return "";
  llvm::sys::path::append(path, "spio");
  return std::string(path);
}

/// Entry text: magic, key, kernel lines, PTX size and checksum, then PTX.
static std::string serialize(const std::string &key, const CompiledModule &module) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << kMagic << "\n" << key << "\n" << module.kernels.size() << "\n";
  for (const CompiledKernel &k : module.kernels)
    os << k.name << " " << k.sharedBytes << " " << k.blockSize << "\n";
  os << module.ptx.size() << " " << sha256Hex(module.ptx) << "\n" << module.ptx;
  return text;
}

static bool deserialize(llvm::StringRef text, const std::string &key,
                        CompiledModule &module) {
  auto line = [&](llvm::StringRef &out) {
    size_t newline = text.find('\n');
    if (newline == llvm::StringRef::npos)
      return false;
    out = text.take_front(newline);
    text = text.drop_front(newline + 1);
    return true;
  };
  llvm::StringRef magic, storedKey, count, checksum;
  unsigned kernels = 0;
  if (!line(magic) || magic != kMagic || !line(storedKey) || storedKey != key ||
      !line(count) || count.getAsInteger(10, kernels) || kernels > 1024)
    return false;
  module.kernels.clear();
  for (unsigned i = 0; i < kernels; ++i) {
    llvm::StringRef entry;
    if (!line(entry))
      return false;
    llvm::SmallVector<llvm::StringRef, 3> fields;
    entry.split(fields, ' ');
    CompiledKernel k;
    if (fields.size() != 3 || fields[1].getAsInteger(10, k.sharedBytes) ||
        fields[2].getAsInteger(10, k.blockSize))
      return false;
    k.name = fields[0].str();
    module.kernels.push_back(k);
  }
  llvm::StringRef sizeAndSum;
  size_t size = 0;
  if (!line(sizeAndSum))
    return false;
  auto [sizeText, sum] = sizeAndSum.split(' ');
  if (sizeText.getAsInteger(10, size) || text.size() != size || sha256Hex(text) != sum)
    return false;
  module.ptx = text.str();
  return true;
}

/// The cache around `compile`, which compiles `source` into `result`.
static bool compileCached(const std::string &source, const CompileOptions &options,
                          CompiledModule &result, CacheOutcome &outcome, bool useDisk,
                          const std::function<bool()> &compile) {
  std::string keyText;
  llvm::raw_string_ostream keyStream(keyText);
  keyStream << "spio " << SPIO_SOURCE_FINGERPRINT << "\nLLVM " << LLVM_VERSION_STRING << "\nchip "
            << options.chip << "\nfeatures " << options.features << "\nO"
            << options.optLevel << "\n"
            << source;
  std::string key = sha256Hex(keyText);

  static std::mutex mutex;
  static std::map<std::string, CompiledModule> memory;
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (auto it = memory.find(key); it != memory.end()) {
      result = it->second;
      outcome = CacheOutcome::MemoryHit;
      return true;
    }
  }

  std::string dir = useDisk ? cacheDirectory() : "";
  llvm::SmallString<256> path;
  outcome = CacheOutcome::Compiled;
  if (!dir.empty()) {
    llvm::sys::path::append(path, dir, key + ".ptxcache");
    llvm::sys::fs::file_status status;
    if (!llvm::sys::fs::status(path, status) && llvm::sys::fs::exists(status)) {
      // Only a regular file is read: a FIFO or a device in the entry's place
      // would block or never end; it is replaced like a corrupt entry.
      if (llvm::sys::fs::is_regular_file(status))
        if (auto buffer = llvm::MemoryBuffer::getFile(path))
          if (deserialize((*buffer)->getBuffer(), key, result)) {
            outcome = CacheOutcome::DiskHit;
            std::lock_guard<std::mutex> lock(mutex);
            memory[key] = result;
            return true;
          }
      outcome = CacheOutcome::Recompiled;
    }
  }

  if (!compile())
    return false;
  {
    std::lock_guard<std::mutex> lock(mutex);
    memory[key] = result;
  }
  if (!dir.empty() && !options.printIRAfterAll) {
    // Best effort: an unwritable cache directory only costs recompiles.
    if (!llvm::sys::fs::create_directories(dir)) {
      llvm::SmallString<256> temp;
      int fd;
      if (!llvm::sys::fs::createUniqueFile(path + ".tmp-%%%%%%%%", fd, temp)) {
        {
          llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
          os << serialize(key, result);
        }
        if (llvm::sys::fs::rename(temp, path))
          llvm::sys::fs::remove(temp);
      }
    }
  }
  return true;
}

bool mlir::spio::compileToPTXCached(const std::string &source, const CompileOptions &options,
                                    CompiledModule &result, std::string &error,
                                    CacheOutcome &outcome, bool useDisk,
                                    const std::string &sourceName) {
  return compileCached(source, options, result, outcome, useDisk,
                       [&] { return compileToPTX(source, options, result, error, sourceName); });
}

bool mlir::spio::compileModuleToPTXCached(ModuleOp module, const CompileOptions &options,
                                          CompiledModule &result, std::string &error,
                                          CacheOutcome &outcome, std::string &source, bool useDisk,
                                          const std::string &sourceName) {
  source.clear();
  llvm::raw_string_ostream os(source);
  module.print(os);
  return compileCached(source, options, result, outcome, useDisk, [&] {
    return compileModuleToPTX(module, options, result, error, sourceName, source);
  });
}
