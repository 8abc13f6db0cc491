//===- MutatorTest.cpp - The fuzzer's mutations ---------------------------===//

#include "spio/Fuzzing/Mutator.h"

#include <gtest/gtest.h>

#include <set>

using namespace spio::fuzzing;

TEST(Mutator, SplitsLikeSplitInputFile) {
  std::string input = "a\n// -----\nb\n  // ----- trailing words\nc";
  std::vector<std::string_view> pieces = splitInputFile(input);
  ASSERT_EQ(pieces.size(), 3u);
  EXPECT_EQ(pieces[0], "a\n");
  EXPECT_EQ(pieces[1], "b\n");
  EXPECT_EQ(pieces[2], "c");
  EXPECT_EQ(splitInputFile("no separator").size(), 1u);
}

TEST(Mutator, IsDeterministicForASeedAndEdits) {
  std::string input = "%x = spio.alloc : !spio.tensor<[i: 32, j: 8] x f16, shared>\n";
  int changed = 0;
  for (uint64_t seed = 0; seed < 200; ++seed) {
    std::mt19937_64 first(seed), second(seed);
    std::string a = mutate(input, first, 4096), b = mutate(input, second, 4096);
    EXPECT_EQ(a, b);
    changed += a != input;
  }
  // An edit may write back what was there (an integer for itself); most do not.
  EXPECT_GT(changed, 180);
}

TEST(Mutator, StaysWithinMaxBytes) {
  std::string input = "rows = 4\nrows = 4\nrows = 4\n";
  for (uint64_t seed = 0; seed < 200; ++seed) {
    std::mt19937_64 rng(seed);
    EXPECT_LE(mutate(input, rng, 20).size(), 20u);
  }
}

TEST(Mutator, ReachesEdgeValuesAndNeighbours) {
  std::set<std::string> mutants;
  for (uint64_t seed = 0; seed < 3000; ++seed) {
    std::mt19937_64 rng(seed);
    mutants.insert(mutate("rows = 4", rng, 4096, 1));
  }
  for (const char *expected :
       {"rows = 9223372036854775807", "rows = -9223372036854775808", "rows = 4294967296",
        "rows = 0", "rows = 5", "rows = 3", "rows = 8", "rows = 2"})
    EXPECT_TRUE(mutants.count(expected)) << expected;
}

TEST(Mutator, LeavesDigitsInsideNamesAlone) {
  // `%c16` and `f16` hold no integer of their own to edit.
  for (uint64_t seed = 0; seed < 500; ++seed) {
    std::mt19937_64 rng(seed);
    std::string mutant = mutate("%c16 = f16", rng, 4096);
    for (const std::string &edge : edgeIntegers()) {
      if (edge.size() > 2)
        EXPECT_EQ(mutant.find(edge), std::string::npos) << mutant;
    }
  }
}
