//===- LayoutTest.cpp - Layout math against brute-force models ------------===//

#include "spio/Layout/Layout.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <set>

using namespace spio::layout;

namespace {

//===----------------------------------------------------------------------===//
// Reference models, written independently of Layout.cpp.
//===----------------------------------------------------------------------===//

/// Offset of per-dimension base values by peeling mixed-radix digits off from
/// the finest entry of each dimension up, with repeated subtraction instead of
/// division so that it shares no arithmetic with the implementation.
int64_t referenceOffset(const std::vector<DimEntry> &entries,
                        const std::map<std::string, int64_t> &values) {
  int64_t offset = 0;
  for (const auto &[dim, total] : values) {
    std::vector<const DimEntry *> mine;
    for (const DimEntry &e : entries)
      if (e.dim == dim)
        mine.push_back(&e);
    std::sort(mine.begin(), mine.end(),
              [](auto *a, auto *b) { return a->fold < b->fold; });
    // Value in units of the finest entry (the tests only use exact values).
    int64_t units = total / mine.front()->fold;
    for (size_t i = 0; i < mine.size(); ++i) {
      int64_t digit = units;
      if (i + 1 < mine.size()) {
        int64_t radix = mine[i]->size;
        digit = units;
        int64_t quotient = 0;
        while (digit >= radix) {
          digit -= radix;
          ++quotient;
        }
        units = quotient;
      }
      offset += digit * mine[i]->stride;
    }
  }
  return offset;
}

/// Bit-by-bit XOR swizzle.
int64_t referenceSwizzle(int64_t offset, int bits, int base, int shift) {
  int64_t result = offset;
  for (int b = 0; b < bits; ++b) {
    int64_t source = (offset >> (base + shift + b)) & 1;
    result ^= source << (base + b);
  }
  return result;
}

//===----------------------------------------------------------------------===//
// Arithmetic
//===----------------------------------------------------------------------===//

TEST(FloorArithmetic, MatchesMathematicalDefinition) {
  for (int64_t a = -50; a <= 50; ++a)
    for (int64_t b : {1, 2, 3, 7, 8, 16}) {
      int64_t q = floorDiv(a, b), r = floorMod(a, b);
      EXPECT_EQ(q * b + r, a);
      EXPECT_GE(r, 0);
      EXPECT_LT(r, b);
    }
}

TEST(FloorArithmetic, FoldsCompose) {
  for (int64_t x = -100; x <= 100; ++x)
    for (int64_t a : {2, 4, 8})
      for (int64_t b : {2, 3, 4})
        EXPECT_EQ(floorDiv(floorDiv(x, a), b), floorDiv(x, a * b)) << x;
}

TEST(FloorArithmetic, NegativeHaloCoordinates) {
  EXPECT_EQ(floorDiv(-1, 8), -1);
  EXPECT_EQ(floorMod(-1, 8), 7);
  EXPECT_EQ(floorDiv(-8, 8), -1);
  EXPECT_EQ(floorDiv(-9, 8), -2);
}

//===----------------------------------------------------------------------===//
// Verification
//===----------------------------------------------------------------------===//

TEST(LayoutVerify, AcceptsRowMajorAndFoldedLayouts) {
  EXPECT_EQ(Layout({{"i", 1, 64, 32}, {"k", 1, 32, 1}}).verify(), "");
  EXPECT_EQ(Layout({{"k", 16, 4, 256}, {"i", 1, 128, 2}, {"k", 8, 2, 1}}).verify(), "");
}

TEST(LayoutVerify, RejectsEmptyLayout) {
  EXPECT_NE(Layout({}).verify(), "");
}

TEST(LayoutVerify, RejectsNonPositiveSizeNamingTheEntry) {
  std::string err = Layout({{"i", 1, 4, 1}, {"k", 8, 0, 1}}).verify();
  EXPECT_NE(err.find("'k/8'"), std::string::npos) << err;
  EXPECT_NE(err.find("non-positive size"), std::string::npos) << err;
}

TEST(LayoutVerify, RejectsNonPositiveFold) {
  EXPECT_NE(Layout({{"i", 0, 4, 1}}).verify().find("non-positive fold"),
            std::string::npos);
}

TEST(LayoutVerify, RejectsNegativeStride) {
  EXPECT_NE(Layout({{"i", 1, 4, -1}}).verify().find("negative stride"),
            std::string::npos);
}

TEST(LayoutVerify, AcceptsBroadcastStride) {
  EXPECT_EQ(Layout({{"i", 1, 4, 0}, {"j", 1, 4, 1}}).verify(), "");
}

TEST(LayoutVerify, RejectsDuplicateEntry) {
  std::string err = Layout({{"k", 8, 2, 8}, {"k", 8, 2, 1}}).verify();
  EXPECT_NE(err.find("'k/8' appears twice"), std::string::npos) << err;
}

TEST(LayoutVerify, RejectsEntriesThatDoNotTile) {
  // k/8 of size 2 spans 16, but the next coarser entry is k/32.
  std::string err = Layout({{"k", 32, 2, 2}, {"k", 8, 2, 1}}).verify();
  EXPECT_NE(err.find("do not tile"), std::string::npos) << err;
  EXPECT_NE(err.find("'k/32'"), std::string::npos) << err;
}

TEST(LayoutVerify, RejectsHugeEntries) {
  EXPECT_NE(Layout({{"i", 1, kMaxExtent + 1, 1}}).verify().find("larger than"),
            std::string::npos);
  EXPECT_NE(Layout({{"i", 1, 4, kMaxExtent + 1}}).verify().find("larger than"),
            std::string::npos);
}

TEST(LayoutVerify, RejectsProductsBeyondTheLimitWithoutOverflow) {
  int64_t big = int64_t(1) << 30;
  std::string err = Layout({{"i", 1, big, big}, {"j", 1, big, 1}}).verify();
  EXPECT_NE(err.find("spans more than"), std::string::npos) << err;
  err = Layout({{"i", 1, big, 1}, {"j", 1, big, 1}, {"k", 1, big, 1}}).verify();
  EXPECT_NE(err.find("spans more than"), std::string::npos) << err;
}

TEST(LayoutCosize, SwizzledStorageHoldsWholePeriods) {
  Layout partial({{"i", 1, 24, 1}}, XorSwizzle{1, 0, 3});
  EXPECT_EQ(partial.verify(), "");
  EXPECT_EQ(partial.cosize(), 32);
  // Every offset the layout reaches stays inside the storage.
  for (int64_t i = 0; i < 24; ++i)
    EXPECT_LT(partial.offset({{"i", 1, i}}), partial.cosize());
  // Aliasing entries (a window that steps one row) count their reach too.
  Layout window({{"i", 1, 8, 2}, {"w", 1, 2, 2}, {"c", 1, 2, 1}}, XorSwizzle{1, 0, 3});
  EXPECT_EQ(window.cosize(), 32);
  EXPECT_EQ(Layout({{"i", 1, 24, 1}}).cosize(), 24);
}

TEST(LayoutVerify, RejectsOverlappingSwizzle) {
  EXPECT_NE((XorSwizzle{3, 0, 2}.verify()), "");
  EXPECT_EQ((XorSwizzle{3, 0, 3}.verify()), "");
}

//===----------------------------------------------------------------------===//
// Sizes and strides
//===----------------------------------------------------------------------===//

TEST(LayoutShape, RowMajorStrides) {
  EXPECT_EQ(Layout::rowMajorStrides({4, 128, 2}), (std::vector<int64_t>{256, 2, 1}));
  EXPECT_EQ(Layout::rowMajorStrides({7}), (std::vector<int64_t>{1}));
}

TEST(LayoutShape, NumElementsAndCosize) {
  Layout dense({{"i", 1, 4, 8}, {"j", 1, 8, 1}});
  EXPECT_EQ(dense.numElements(), 32);
  EXPECT_EQ(dense.cosize(), 32);
  Layout padded({{"i", 1, 4, 9}, {"j", 1, 8, 1}});
  EXPECT_EQ(padded.cosize(), 35);
}

TEST(LayoutShape, FinestFoldAndCoarsest) {
  Layout l({{"k", 16, 4, 256}, {"i", 1, 128, 2}, {"k", 8, 2, 1}});
  EXPECT_EQ(l.finestFold("k"), 8);
  EXPECT_EQ(l.finestFold("i"), 1);
  EXPECT_EQ(l.finestFold("j"), 0);
  EXPECT_TRUE(l.isCoarsest(0));
  EXPECT_TRUE(l.isCoarsest(1));
  EXPECT_FALSE(l.isCoarsest(2));
}

//===----------------------------------------------------------------------===//
// Offsets and carries
//===----------------------------------------------------------------------===//

TEST(LayoutOffset, FoldCarriesIntoCoarserEntry) {
  // k=7 then k=5 on [k/8: 2, k: 8] lands at k/8=1, k=4.
  Layout l({{"k", 8, 2, 8}, {"k", 1, 8, 1}});
  EXPECT_EQ(l.offset({{"k", 1, 7}, {"k", 1, 5}}), 1 * 8 + 4);
  EXPECT_EQ(l.offset({{"k", 8, 1}, {"k", 1, 4}}), 1 * 8 + 4);
}

TEST(LayoutOffset, CoordinatesResolveByDimensionInAnyOrder) {
  Layout l({{"i", 1, 16, 32}, {"k", 1, 32, 1}});
  EXPECT_EQ(l.offset({{"i", 1, 3}, {"k", 1, 5}}), 3 * 32 + 5);
  EXPECT_EQ(l.offset({{"k", 1, 5}, {"i", 1, 3}}), 3 * 32 + 5);
}

TEST(LayoutOffset, FoldedCoordinateScales) {
  Layout l({{"i", 1, 16, 32}, {"k", 1, 32, 1}});
  EXPECT_EQ(l.offset({{"k", 8, 2}}), 16);
  EXPECT_EQ(l.offset({{"i", 4, 2}}), 8 * 32);
}

TEST(LayoutOffset, CoarsestEntryDoesNotWrap) {
  Layout l({{"k", 8, 2, 8}, {"k", 1, 8, 1}});
  // k = 17 is past the tensor; the coarsest entry keeps counting rather than
  // silently wrapping back to the start.
  EXPECT_EQ(l.offset({{"k", 1, 17}}), 2 * 8 + 1);
}

TEST(LayoutOffset, MissingDimensionsAreZero) {
  Layout l({{"i", 1, 16, 32}, {"k", 1, 32, 1}});
  EXPECT_EQ(l.offset({{"i", 1, 2}}), 64);
  EXPECT_EQ(l.offset({}), 0);
}

struct LayoutCase {
  const char *name;
  std::vector<DimEntry> entries;
};

class LayoutBruteForce : public ::testing::TestWithParam<LayoutCase> {};

/// Every in-range combination of per-dimension values, split over two
/// coordinates each so that carries are exercised, against the reference.
TEST_P(LayoutBruteForce, OffsetMatchesReference) {
  const std::vector<DimEntry> &entries = GetParam().entries;
  Layout l(entries);
  ASSERT_EQ(l.verify(), "");
  std::map<std::string, int64_t> extent, finest;
  for (const DimEntry &e : entries) {
    extent[e.dim] = std::max(extent[e.dim], e.fold * e.size);
    finest[e.dim] = finest.count(e.dim) ? std::min(finest[e.dim], e.fold) : e.fold;
  }
  std::vector<std::string> dims;
  for (auto &[d, _] : extent)
    dims.push_back(d);
  std::function<void(size_t, std::map<std::string, int64_t> &)> visit =
      [&](size_t i, std::map<std::string, int64_t> &values) {
        if (i == dims.size()) {
          std::vector<Coord> coords;
          for (auto &[d, v] : values) {
            int64_t step = finest[d];
            int64_t units = v / step;
            coords.push_back({d, step, units / 2});
            coords.push_back({d, step, units - units / 2});
          }
          ASSERT_EQ(l.offset(coords), referenceOffset(entries, values));
          return;
        }
        for (int64_t v = 0; v < extent[dims[i]]; v += finest[dims[i]]) {
          values[dims[i]] = v;
          visit(i + 1, values);
        }
      };
  std::map<std::string, int64_t> values;
  visit(0, values);
}

/// A row-major layout addresses every element of its storage exactly once.
TEST_P(LayoutBruteForce, DenseLayoutIsABijection) {
  std::vector<DimEntry> entries = GetParam().entries;
  std::vector<int64_t> sizes;
  for (const DimEntry &e : entries)
    sizes.push_back(e.size);
  std::vector<int64_t> strides = Layout::rowMajorStrides(sizes);
  for (size_t i = 0; i < entries.size(); ++i)
    entries[i].stride = strides[i];
  Layout l(entries);
  std::set<int64_t> seen;
  for (int64_t linear = 0; linear < l.numElements(); ++linear) {
    std::vector<int64_t> pos = decompose(linear, sizes);
    std::vector<Coord> coords;
    for (size_t i = 0; i < entries.size(); ++i)
      coords.push_back({entries[i].dim, entries[i].fold, pos[i]});
    int64_t off = l.offset(coords);
    EXPECT_EQ(off, linear);
    seen.insert(off);
  }
  EXPECT_EQ(int64_t(seen.size()), l.cosize());
}

INSTANTIATE_TEST_SUITE_P(
    Layouts, LayoutBruteForce,
    ::testing::Values(
        LayoutCase{"matrix", {{"i", 1, 6, 5}, {"k", 1, 5, 1}}},
        LayoutCase{"column_major", {{"i", 1, 6, 1}, {"k", 1, 5, 6}}},
        LayoutCase{"k_split", {{"k", 8, 2, 8}, {"k", 1, 8, 1}}},
        LayoutCase{"k_split_transposed", {{"k", 1, 8, 2}, {"k", 8, 2, 1}}},
        LayoutCase{"smem_a", {{"k", 16, 2, 16}, {"i", 1, 8, 2}, {"k", 8, 2, 1}}},
        LayoutCase{"three_level", {{"i", 16, 2, 1}, {"i", 4, 4, 2}, {"i", 1, 4, 8}}},
        LayoutCase{"padded", {{"i", 1, 4, 7}, {"j", 4, 2, 3}, {"j", 1, 4, 0}}},
        LayoutCase{"nhwc", {{"n", 1, 2, 48}, {"h", 1, 3, 16}, {"w", 1, 2, 8}, {"c", 1, 8, 1}}}),
    [](const ::testing::TestParamInfo<LayoutCase> &info) { return info.param.name; });

//===----------------------------------------------------------------------===//
// Subscript checks
//===----------------------------------------------------------------------===//

TEST(LayoutSubscript, RejectsMissingDimensionNamingIt) {
  Layout l({{"i", 1, 16, 8}, {"k", 8, 8, 1}});
  std::string err = l.checkSubscript({{"j", 1, 0}});
  EXPECT_NE(err.find("no dimension 'j'"), std::string::npos) << err;
  EXPECT_NE(err.find("i, k/8"), std::string::npos) << err;
}

TEST(LayoutSubscript, ProjectionIgnoresMissingDimension) {
  Layout l({{"i", 1, 16, 8}, {"k", 8, 8, 1}});
  EXPECT_EQ(l.checkSubscript({{"j", 1, 0}}, {"j"}), "");
  EXPECT_EQ(l.offset({{"j", 1, 5}, {"i", 1, 1}}), 8);
}

TEST(LayoutSubscript, RejectsProjectingAPresentDimension) {
  Layout l({{"i", 1, 16, 8}, {"k", 8, 8, 1}});
  EXPECT_NE(l.checkSubscript({{"i", 1, 0}}, {"i"}), "");
}

TEST(LayoutSubscript, RejectsCoordinateFinerThanTensor) {
  Layout l({{"i", 1, 16, 8}, {"k", 8, 8, 1}});
  std::string err = l.checkSubscript({{"k", 1, 0}});
  EXPECT_NE(err.find("truncated"), std::string::npos) << err;
  EXPECT_EQ(l.checkSubscript({{"k", 8, 0}}), "");
  EXPECT_EQ(l.checkSubscript({{"k", 16, 0}}), "");
  EXPECT_NE(l.checkSubscript({{"k", 12, 0}}), "");
}

//===----------------------------------------------------------------------===//
// Swizzles
//===----------------------------------------------------------------------===//

class SwizzleCase : public ::testing::TestWithParam<XorSwizzle> {};

TEST_P(SwizzleCase, MatchesBitwiseReference) {
  XorSwizzle s = GetParam();
  for (int64_t off = 0; off < 4 * s.period(); ++off)
    ASSERT_EQ(s.apply(off), referenceSwizzle(off, s.bits, s.base, s.shift)) << off;
}

TEST_P(SwizzleCase, PermutesEachPeriod) {
  XorSwizzle s = GetParam();
  for (int64_t start = 0; start < 3 * s.period(); start += s.period()) {
    std::set<int64_t> image;
    for (int64_t off = start; off < start + s.period(); ++off) {
      int64_t out = s.apply(off);
      EXPECT_GE(out, start);
      EXPECT_LT(out, start + s.period());
      image.insert(out);
    }
    EXPECT_EQ(int64_t(image.size()), s.period());
  }
}

TEST_P(SwizzleCase, IsAnInvolution) {
  XorSwizzle s = GetParam();
  for (int64_t off = 0; off < 2 * s.period(); ++off)
    EXPECT_EQ(s.apply(s.apply(off)), off);
}

INSTANTIATE_TEST_SUITE_P(Swizzles, SwizzleCase,
                         ::testing::Values(XorSwizzle{1, 0, 1}, XorSwizzle{1, 0, 3},
                                           XorSwizzle{2, 0, 3}, XorSwizzle{3, 3, 3},
                                           XorSwizzle{3, 4, 3}, XorSwizzle{2, 1, 4}));

TEST(Checkerboard, MatchesSpioFormula) {
  for (int64_t ranks : {2, 4, 8, 16}) {
    XorSwizzle s = *XorSwizzle::checkerboard(ranks);
    for (int64_t pair = 0; pair < 64; ++pair)
      for (int64_t color = 0; color < 2; ++color) {
        int64_t row = pair / (ranks / 2);
        int64_t expected = ((pair << 1) | color) ^ (row & 1);
        EXPECT_EQ(s.apply(pair * 2 + color), expected)
            << "ranks " << ranks << " pair " << pair << " color " << color;
      }
  }
}

TEST(Checkerboard, RejectsRanksThatAreNotPowersOfTwo) {
  EXPECT_FALSE(XorSwizzle::checkerboard(0));
  EXPECT_FALSE(XorSwizzle::checkerboard(1));
  EXPECT_FALSE(XorSwizzle::checkerboard(6));
  EXPECT_TRUE(XorSwizzle::checkerboard(8));
}

TEST(Checkerboard, ColumnReadsAreConflictFree) {
  // Pairs of 16-byte vectors (two colors), 8 banks of 16 bytes. Reading one
  // color down 8 consecutive pairs hits only 4 banks unswizzled; the
  // checkerboard spreads it over all 8. Row reads stay conflict-free too.
  auto banks = [](const Layout &l, int64_t firstPair, int64_t color) {
    std::set<int64_t> result;
    for (int64_t pair = firstPair; pair < firstPair + 8; ++pair)
      result.insert(l.offset({{"pair", 1, pair}, {"color", 1, color}}) % 8);
    return result.size();
  };
  std::vector<DimEntry> entries = {{"pair", 1, 16, 2}, {"color", 1, 2, 1}};
  Layout plain(entries), board(entries, *XorSwizzle::checkerboard(8));
  for (int64_t color = 0; color < 2; ++color)
    for (int64_t first : {0, 8}) {
      EXPECT_EQ(banks(plain, first, color), 4u);
      EXPECT_EQ(banks(board, first, color), 8u);
    }
  for (int64_t pair = 0; pair < 16; pair += 4) {
    std::set<int64_t> rowBanks;
    for (int64_t p = pair; p < pair + 4; ++p)
      for (int64_t c = 0; c < 2; ++c)
        rowBanks.insert(board.offset({{"pair", 1, p}, {"color", 1, c}}) % 8);
    EXPECT_EQ(rowBanks.size(), 8u);
  }
}

TEST(LayoutOffset, SwizzleAppliesToTheFinalOffset) {
  Layout l({{"i", 1, 8, 2}, {"c", 1, 2, 1}}, *XorSwizzle::checkerboard(8));
  EXPECT_EQ(l.offset({{"i", 1, 4}, {"c", 1, 0}}), 9);
  EXPECT_EQ(l.offset({{"i", 1, 4}, {"c", 1, 1}}), 8);
  EXPECT_EQ(l.offset({{"i", 1, 3}, {"c", 1, 1}}), 7);
}

//===----------------------------------------------------------------------===//
// Linear id decomposition
//===----------------------------------------------------------------------===//

TEST(Decompose, MatchesNestedLoops) {
  std::vector<int64_t> sizes = {3, 4, 2};
  int64_t linear = 0;
  for (int64_t a = 0; a < 3; ++a)
    for (int64_t b = 0; b < 4; ++b)
      for (int64_t c = 0; c < 2; ++c, ++linear)
        EXPECT_EQ(decompose(linear, sizes), (std::vector<int64_t>{a, b, c}));
}

TEST(Decompose, WrapsEveryDigit) {
  EXPECT_EQ(decompose(35, {4, 8}), (std::vector<int64_t>{0, 3}));
}

} // namespace
