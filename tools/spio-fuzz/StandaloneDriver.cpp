//===- StandaloneDriver.cpp - spio-fuzz without libFuzzer -----------------===//
//
// The fuzzer target behind a driver of its own, for compilers without
// libFuzzer (CI's g++): runs every seed, then `-runs` mutants of them from
// `-seed`, deterministic for a seed. A crash or a hang past `-timeout`
// prints the input that caused it. Flags are spelled as libFuzzer's.
//
//===----------------------------------------------------------------------===//

#include "spio/Fuzzing/Mutator.h"
#include "spio/Fuzzing/Target.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <csignal>
#include <map>
#include <unistd.h>

using namespace spio::fuzzing;

namespace {

/// The input being run, for the crash and timeout reports.
std::string current;

void printCurrent(void *) {
  llvm::errs() << "spio-fuzz: the input that crashed:\n" << current << "\n-- end of input\n";
}

void onTimeout(int) {
  llvm::errs() << "spio-fuzz: an input ran past -timeout:\n" << current << "\n-- end of input\n";
  _exit(70);
}

/// Reads `path` (a file, or every .mlir file under a folder) into `seeds`.
bool addSeeds(llvm::StringRef path, std::vector<std::string> &seeds) {
  if (llvm::sys::fs::is_directory(path)) {
    std::error_code ec;
    std::vector<std::string> files;
    for (llvm::sys::fs::recursive_directory_iterator it(path, ec), end; it != end && !ec;
         it.increment(ec))
      if (llvm::StringRef(it->path()).ends_with(".mlir"))
        files.push_back(it->path());
    // Directory order is the file system's; the seeds' is the names'.
    std::sort(files.begin(), files.end());
    for (const std::string &file : files)
      if (!addSeeds(file, seeds))
        return false;
    return !ec;
  }
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer) {
    llvm::errs() << "spio-fuzz: error: cannot read " << path << ": " << buffer.getError().message()
                 << "\n";
    return false;
  }
  for (std::string_view piece : splitInputFile((*buffer)->getBuffer()))
    seeds.emplace_back(piece);
  return true;
}

const char *outcomeName(Outcome outcome) {
  switch (outcome) {
  case Outcome::Invalid:
    return "invalid";
  case Outcome::Refused:
    return "refused by a pass";
  case Outcome::Lowered:
    return "lowered";
  }
  return "";
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  llvm::sys::AddSignalHandler(printCurrent, nullptr);
  uint64_t seed = 1, runs = 1000, maxLength = 65536;
  double maxSeconds = 0;
  unsigned timeout = 10;
  std::vector<std::string> seeds;
  for (int i = 1; i < argc; ++i) {
    llvm::StringRef arg = argv[i];
    auto flag = [&](llvm::StringRef name, auto &value) {
      if (!arg.consume_front(name))
        return false;
      if (arg.getAsInteger(10, value)) {
        llvm::errs() << "spio-fuzz: error: " << name << " takes a non-negative integer\n";
        std::exit(2);
      }
      return true;
    };
    uint64_t seconds = 0;
    if (flag("-seed=", seed) || flag("-runs=", runs) || flag("-timeout=", timeout) ||
        flag("-max_len=", maxLength))
      continue;
    if (flag("-max_total_time=", seconds)) {
      maxSeconds = double(seconds);
      continue;
    }
    if (arg.starts_with("-")) {
      llvm::errs() << "spio-fuzz: error: unknown flag " << arg
                   << " (-seed=, -runs=, -max_total_time=, -timeout=, -max_len=)\n";
      return 2;
    }
    if (!addSeeds(arg, seeds))
      return 2;
  }
  if (seeds.empty()) {
    llvm::errs() << "usage: spio-fuzz [-seed=N] [-runs=N] [-max_total_time=S] [-timeout=S] "
                    "[-max_len=N] FILE_OR_FOLDER...\n";
    return 2;
  }
  struct sigaction alarmAction = {};
  alarmAction.sa_handler = onTimeout;
  sigaction(SIGALRM, &alarmAction, nullptr);

  std::map<Outcome, uint64_t> counts;
  auto start = std::chrono::steady_clock::now();
  auto run = [&](std::string input) {
    current = std::move(input);
    alarm(timeout);
    ++counts[runInput(current)];
    alarm(0);
  };
  for (const std::string &input : seeds)
    run(input);
  std::mt19937_64 rng(seed);
  uint64_t mutants = 0;
  for (; mutants < runs; ++mutants) {
    if (maxSeconds > 0 &&
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() >
            maxSeconds)
      break;
    // Mutants of mutants now and then, so that edits add up.
    std::string input = seeds[rng() % seeds.size()];
    do
      input = mutate(input, rng, maxLength);
    while (rng() % 4 == 0);
    run(std::move(input));
  }
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  llvm::outs() << "spio-fuzz: " << seeds.size() << " seeds and " << mutants << " mutants (seed "
               << seed << ") in " << llvm::format("%.1f", seconds) << " s, no crash or hang";
  for (auto [outcome, count] : counts)
    llvm::outs() << "; " << outcomeName(outcome) << " " << count;
  llvm::outs() << "\n";
  return 0;
}
