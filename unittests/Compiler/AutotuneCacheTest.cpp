//===- AutotuneCacheTest.cpp - Autotuning results kept on disk ------------===//

#include "spio/Compiler/AutotuneCache.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

using namespace mlir::spio;

namespace {

/// A fresh directory, removed with everything in it at the end.
struct TempDir {
  llvm::SmallString<128> path;
  TempDir() { EXPECT_FALSE(llvm::sys::fs::createUniqueDirectory("spio-autotune", path)); }
  ~TempDir() { llvm::sys::fs::remove_directories(path); }
  std::string str() const { return std::string(path); }
};

/// The one entry file in `dir`.
std::string onlyEntry(const std::string &dir) {
  std::error_code ec;
  llvm::sys::fs::directory_iterator it(dir, ec), end;
  EXPECT_FALSE(ec);
  std::string path = it->path();
  it.increment(ec);
  EXPECT_TRUE(it == end);
  return path;
}

TEST(AutotuneCache, KeepsTheFastestForItsKeyAndCount) {
  TempDir dir;
  EXPECT_FALSE(lookupAutotuned("H200", "conv 1", 4, dir.str()));
  storeAutotuned("H200", "conv 1", 4, 2, dir.str());
  EXPECT_EQ(lookupAutotuned("H200", "conv 1", 4, dir.str()), std::optional<size_t>(2));
  // Another key or candidate count reads nothing.
  EXPECT_FALSE(lookupAutotuned("H100", "conv 1", 4, dir.str()));
  EXPECT_FALSE(lookupAutotuned("H200", "conv 1", 5, dir.str()));
  // A later result replaces it; an index past the count is not stored.
  storeAutotuned("H200", "conv 1", 4, 0, dir.str());
  EXPECT_EQ(lookupAutotuned("H200", "conv 1", 4, dir.str()), std::optional<size_t>(0));
  storeAutotuned("H200", "conv 1", 4, 4, dir.str());
  EXPECT_EQ(lookupAutotuned("H200", "conv 1", 4, dir.str()), std::optional<size_t>(0));
}

TEST(AutotuneCache, CorruptOrOddEntriesReadAsMissing) {
  TempDir dir;
  storeAutotuned("H200", "key", 3, 1, dir.str());
  std::string entry = onlyEntry(dir.str());
  for (const char *text :
       {"", "SPIO-AUTOTUNE 1\n", "garbage", "SPIO-AUTOTUNE 1\nx\n3\nkey\n3 7\n"}) {
    {
      std::error_code ec;
      llvm::raw_fd_ostream os(entry, ec);
      ASSERT_FALSE(ec);
      os << text;
    }
    EXPECT_FALSE(lookupAutotuned("H200", "key", 3, dir.str())) << text;
  }
  // A directory in the entry's place is not read, and storing leaves it.
  llvm::sys::fs::remove(entry);
  ASSERT_FALSE(llvm::sys::fs::create_directory(entry));
  EXPECT_FALSE(lookupAutotuned("H200", "key", 3, dir.str()));
  storeAutotuned("H200", "key", 3, 1, dir.str());
  EXPECT_FALSE(lookupAutotuned("H200", "key", 3, dir.str()));
}

TEST(AutotuneCache, AnUnwritableDirectoryOnlyCostsTimingAgain) {
  TempDir dir;
  // A file where the directory should be: nothing stored, nothing found.
  std::string file = dir.str() + "/file";
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(file, ec);
  }
  storeAutotuned("H200", "key", 2, 1, file);
  EXPECT_FALSE(lookupAutotuned("H200", "key", 2, file));
}

} // namespace
