//===- FragmentTest.cpp - Fragment maps against simulated hardware --------===//
//
// Simulates ldmatrix as the PTX ISA describes it (each lane receives, from
// matrix q, the pair at row lane/4 and columns 2*(lane%4) of the rows the
// lanes 8q..8q+7 addressed; transposed, the pair at rows 2*(lane%4) and
// column lane/4) and checks that loading through ldmatrixRowOrigin gives every
// lane exactly the fragment elements fragmentElement says mma.sync expects.
//
//===----------------------------------------------------------------------===//

#include "spio/Layout/Fragment.h"

#include <gtest/gtest.h>

#include <set>
#include <tuple>

using namespace spio::layout;

namespace {

struct Case {
  MmaOperand operand;
  int64_t k;
  bool transpose;
};

class LdmatrixSimulation : public ::testing::TestWithParam<Case> {};

TEST_P(LdmatrixSimulation, DeliversTheMmaFragment) {
  auto [operand, k, transpose] = GetParam();
  bool alongCols = ldmatrixRowsAlongCols(operand, transpose);
  int64_t tiles = ldmatrixTiles(operand, k);
  for (int64_t lane = 0; lane < 32; ++lane) {
    for (int64_t q = 0; q < tiles; ++q) {
      for (int64_t half = 0; half < 2; ++half) {
        // Which addressed row (8 lanes per matrix) and which of its 8
        // elements this lane receives for register (q, half).
        int64_t rowLane, within;
        if (!transpose) {
          rowLane = 8 * q + lane / 4;
          within = 2 * (lane % 4) + half;
        } else {
          rowLane = 8 * q + 2 * (lane % 4) + half;
          within = lane / 4;
        }
        FragmentCoord origin = ldmatrixRowOrigin(operand, k, transpose, rowLane);
        FragmentCoord got = alongCols ? FragmentCoord{origin.row, origin.col + within}
                                      : FragmentCoord{origin.row + within, origin.col};
        FragmentCoord want = fragmentElement(operand, k, lane, 2 * q + half);
        EXPECT_EQ(got, want) << "lane " << lane << " register " << q << "." << half;
      }
    }
  }
}

TEST_P(LdmatrixSimulation, UnusedLanesRepeatValidRows) {
  auto [operand, k, transpose] = GetParam();
  int64_t used = 8 * ldmatrixTiles(operand, k);
  for (int64_t lane = used; lane < 32; ++lane)
    EXPECT_EQ(ldmatrixRowOrigin(operand, k, transpose, lane),
              ldmatrixRowOrigin(operand, k, transpose, lane % used));
}

INSTANTIATE_TEST_SUITE_P(
    Fragments, LdmatrixSimulation,
    ::testing::Values(Case{MmaOperand::A, 16, false}, Case{MmaOperand::A, 16, true},
                      Case{MmaOperand::B, 16, false}, Case{MmaOperand::B, 16, true},
                      Case{MmaOperand::A, 8, false}, Case{MmaOperand::A, 8, true},
                      Case{MmaOperand::B, 8, false}, Case{MmaOperand::B, 8, true}));

class FragmentCoverage
    : public ::testing::TestWithParam<std::tuple<MmaOperand, int64_t>> {};

/// The lanes of a warp hold every element of the tile exactly once.
TEST_P(FragmentCoverage, EveryElementOnce) {
  auto [operand, k] = GetParam();
  std::set<std::pair<int64_t, int64_t>> seen;
  for (int64_t lane = 0; lane < 32; ++lane)
    for (int64_t e = 0; e < fragmentElementsPerLane(operand, k); ++e) {
      FragmentCoord c = fragmentElement(operand, k, lane, e);
      EXPECT_GE(c.row, 0);
      EXPECT_LT(c.row, fragmentRows(operand, k));
      EXPECT_GE(c.col, 0);
      EXPECT_LT(c.col, fragmentCols(operand, k));
      EXPECT_TRUE(seen.insert({c.row, c.col}).second);
    }
  EXPECT_EQ(int64_t(seen.size()), fragmentRows(operand, k) * fragmentCols(operand, k));
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, FragmentCoverage,
    ::testing::Combine(::testing::Values(MmaOperand::A, MmaOperand::B, MmaOperand::C),
                       ::testing::Values(8, 16)));

/// Spot checks against the PTX ISA tables.
TEST(FragmentElement, PtxTables) {
  // m16n8k16 A: a2,a3 are row g+8; a4,a5 are column 2t+8.
  EXPECT_EQ(fragmentElement(MmaOperand::A, 16, 5, 2), (FragmentCoord{9, 2}));
  EXPECT_EQ(fragmentElement(MmaOperand::A, 16, 5, 5), (FragmentCoord{1, 11}));
  // m16n8k16 B: b2,b3 are rows 2t+8, column g.
  EXPECT_EQ(fragmentElement(MmaOperand::B, 16, 6, 3), (FragmentCoord{13, 1}));
  // C: c2,c3 are row g+8.
  EXPECT_EQ(fragmentElement(MmaOperand::C, 16, 31, 3), (FragmentCoord{15, 7}));
}

} // namespace
