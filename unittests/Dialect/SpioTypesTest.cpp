//===- SpioTypesTest.cpp - Spio type API and textual round trips ----------===//

#include "spio/Dialect/Spio/IR/SpioAttrs.h"
#include "spio/Dialect/Spio/IR/SpioDialect.h"
#include "spio/Dialect/Spio/IR/SpioTypes.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

#include <random>

using namespace mlir;
using namespace mlir::spio;

namespace {

class SpioTypesTest : public ::testing::Test {
protected:
  SpioTypesTest() { context.loadDialect<SpioDialect>(); }

  std::string print(Type type) {
    std::string text;
    llvm::raw_string_ostream os(text);
    os << type;
    return text;
  }

  /// Parses `text`, returning the type and collecting any diagnostic.
  Type parse(const std::string &text) {
    diagnostics.clear();
    ScopedDiagnosticHandler handler(&context, [&](Diagnostic &d) {
      diagnostics += d.str();
      return success();
    });
    return parseType(text, &context);
  }

  MLIRContext context;
  std::string diagnostics;
};

TEST_F(SpioTypesTest, CoordNames) {
  EXPECT_EQ(CoordType::get(&context, "k").getDimName(), "k");
  EXPECT_EQ(CoordType::get(&context, "k", 8).getDimName(), "k/8");
  EXPECT_EQ(print(CoordType::get(&context, "block_i", 128)), "!spio.coord<block_i/128>");
}

TEST_F(SpioTypesTest, CoordRejectsBadFoldWithDiagnostic) {
  EXPECT_FALSE(parse("!spio.coord<k/0>"));
  EXPECT_NE(diagnostics.find("must be positive"), std::string::npos) << diagnostics;
}

TEST_F(SpioTypesTest, TensorLayoutMatchesType) {
  auto type = cast<SpioTensorType>(
      parse("!spio.tensor<[k/16: 4, i: 128, k/8: 2] x vector<8xf16>, shared>"));
  ASSERT_TRUE(type) << diagnostics;
  EXPECT_EQ(type.getDims().size(), 3u);
  EXPECT_EQ(type.getDims()[0].stride, 256);
  EXPECT_EQ(type.getDims()[1].stride, 2);
  EXPECT_EQ(type.getFinestFold("k"), 8);
  EXPECT_EQ(type.getFinestFold("i"), 1);
  EXPECT_FALSE(type.hasDim("j"));
  EXPECT_EQ(type.getCosize(), 1024);
  EXPECT_EQ(type.getElementBytes(), 16);
  // k = 24 is k/16 = 1, k/8 = 1; i = 3.
  EXPECT_EQ(type.getLayout().offset({{"k", 1, 24}, {"i", 1, 3}}), 256 + 3 * 2 + 1);
}

TEST_F(SpioTypesTest, ElementBytes) {
  auto bytes = [&](const char *text) {
    return cast<SpioTensorType>(parse(text)).getElementBytes();
  };
  EXPECT_EQ(bytes("!spio.tensor<[i: 4] x f16, global>"), 2);
  EXPECT_EQ(bytes("!spio.tensor<[i: 4] x bf16, global>"), 2);
  EXPECT_EQ(bytes("!spio.tensor<[i: 4] x f32, global>"), 4);
  EXPECT_EQ(bytes("!spio.tensor<[i: 4] x i8, global>"), 1);
  EXPECT_EQ(bytes("!spio.tensor<[i: 4] x vector<4xf32>, global>"), 16);
  EXPECT_EQ(bytes("!spio.tensor<[i/16: 4] x !spio.fragment<C, m16n8k16, f32, [i, j]>, register>"), 16);
  EXPECT_EQ(bytes("!spio.tensor<[i/16: 4] x !spio.fragment<A, m16n8k16, f16, [i, k]>, register>"), 16);
}

struct FragmentCase {
  const char *text;
  int64_t rows, cols, perLane;
  const char *reduction;
};

class FragmentShapes : public SpioTypesTest,
                       public ::testing::WithParamInterface<FragmentCase> {};

TEST_P(FragmentShapes, TileAndLaneCounts) {
  const FragmentCase &c = GetParam();
  auto type = cast<FragmentType>(parse(c.text));
  ASSERT_TRUE(type) << diagnostics;
  EXPECT_EQ(type.getNumRows(), c.rows);
  EXPECT_EQ(type.getNumCols(), c.cols);
  EXPECT_EQ(type.getElementsPerLane(), c.perLane);
  StringAttr reduction = type.getReductionDim();
  EXPECT_EQ(reduction ? reduction.getValue().str() : std::string(), c.reduction);
}

// The per-lane counts are those of PTX's mma.sync fragments.
INSTANTIATE_TEST_SUITE_P(
    Mma, FragmentShapes,
    ::testing::Values(
        FragmentCase{"!spio.fragment<A, m16n8k16, f16, [i, k]>", 16, 16, 8, "k"},
        FragmentCase{"!spio.fragment<B, m16n8k16, bf16, [k, j]>", 16, 8, 4, "k"},
        FragmentCase{"!spio.fragment<C, m16n8k16, f32, [i, j]>", 16, 8, 4, ""},
        FragmentCase{"!spio.fragment<A, m16n8k8, f16, [i, k]>", 16, 8, 4, "k"},
        FragmentCase{"!spio.fragment<B, m16n8k8, f16, [k, j]>", 8, 8, 2, "k"},
        FragmentCase{"!spio.fragment<C, m16n8k8, f32, [i, j]>", 16, 8, 4, ""}));

/// A random valid tensor type: each dimension split into up to three tiling
/// entries, entries shuffled, strides row major or padded (given
/// explicitly), and, in unpadded shared memory, sometimes a swizzle.
std::string randomTensorType(std::mt19937 &rng) {
  auto pick = [&](int n) { return int(rng() % n); };
  const char *names[] = {"i", "j", "k", "n", "c"};
  struct Entry { std::string dim; int64_t fold, size; };
  std::vector<Entry> entries;
  int numDims = 1 + pick(3);
  for (int d = 0; d < numDims; ++d) {
    int64_t fold = int64_t(1) << pick(3);
    int levels = 1 + pick(3);
    for (int l = 0; l < levels; ++l) {
      int64_t size = int64_t(1) << (1 + pick(3));
      entries.push_back({names[d], fold, size});
      fold *= size;
    }
  }
  std::shuffle(entries.begin(), entries.end(), rng);
  bool padded = pick(2);
  std::string space = pick(2) ? "shared" : "global";
  std::string text = "!spio.tensor<[";
  int64_t stride = 1;
  std::vector<std::string> parts;
  for (size_t e = entries.size(); e-- > 0;) {
    std::string part = entries[e].dim;
    if (entries[e].fold != 1)
      part += "/" + std::to_string(entries[e].fold);
    part += ": " + std::to_string(entries[e].size);
    if (padded)
      part += ":" + std::to_string(stride);
    parts.insert(parts.begin(), part);
    stride *= entries[e].size + (padded ? 1 : 0);
  }
  for (size_t p = 0; p < parts.size(); ++p)
    text += (p ? ", " : "") + parts[p];
  const char *elements[] = {"f16", "vector<8xf16>", "vector<4xf32>", "i8", "bf16"};
  text += std::string("] x ") + elements[pick(5)] + ", " + space;
  // Row-major strides cover a power of two, so small swizzles divide it.
  if (space == "shared" && !padded && stride >= 16 && pick(2))
    text += pick(2) ? ", #spio.checkerboard<8>" : ", #spio.xor_swizzle<1, 1, 2>";
  return text + ">";
}

// Text cannot spell an empty epilogue (the parser wants a step); a builder
// can, and the verifier refuses it.
TEST_F(SpioTypesTest, EpilogueOfNoStepsIsRefused) {
  std::string error;
  auto emitError = [&] {
    return InFlightDiagnostic(mlir::emitError(UnknownLoc::get(&context)));
  };
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &d) {
    error += d.str();
    return success();
  });
  EXPECT_FALSE(EpilogueAttr::getChecked(emitError, &context, ArrayRef<EpilogueStep>()));
  EXPECT_EQ(error, "an epilogue has at least one step");
  EXPECT_TRUE(EpilogueAttr::getChecked(emitError, &context, {EpilogueStep::Bias}));
}

class RandomTensorTypes : public SpioTypesTest,
                          public ::testing::WithParamInterface<unsigned> {};

TEST_P(RandomTensorTypes, PrintParseRoundTrip) {
  std::mt19937 rng(GetParam());
  for (int n = 0; n < 50; ++n) {
    std::string text = randomTensorType(rng);
    Type type = parse(text);
    ASSERT_TRUE(type) << text << "\n" << diagnostics;
    std::string printed = print(type);
    EXPECT_EQ(parse(printed), type) << text << " printed as " << printed;
  }
}

INSTANTIATE_TEST_SUITE_P(Seeds, RandomTensorTypes, ::testing::Range(0u, 8u));

} // namespace
