//===- SpioAttrs.cpp - Spio enums and attributes --------------------------===//

#include "spio/Dialect/Spio/IR/SpioAttrs.h"
#include "spio/Dialect/Spio/IR/SpioDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/TypeSwitch.h"

#include <limits>

using namespace mlir;
using namespace mlir::spio;

#include "spio/Dialect/Spio/IR/SpioEnums.cpp.inc"
#include "spio/Dialect/Spio/IR/SpioAttrInterfaces.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "spio/Dialect/Spio/IR/SpioAttrs.cpp.inc"

void SpioDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "spio/Dialect/Spio/IR/SpioAttrs.cpp.inc"
      >();
}

static LogicalResult verifySwizzle(function_ref<InFlightDiagnostic()> emitError,
                                   const layout::XorSwizzle &swizzle) {
  if (std::string err = swizzle.verify(); !err.empty())
    return emitError() << err;
  return success();
}

layout::XorSwizzle XorSwizzleAttr::getXorSwizzle() const {
  return layout::XorSwizzle{static_cast<int>(getBits()),
                            static_cast<int>(getBase()),
                            static_cast<int>(getShift())};
}

LogicalResult XorSwizzleAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                     int64_t bits, int64_t base, int64_t shift) {
  if (bits < 0 || base < 0 || shift < 0 || bits + base + shift > 30)
    return emitError() << "xor_swizzle<" << bits << ", " << base << ", "
                       << shift << "> needs non-negative parameters summing to at most 30";
  return verifySwizzle(emitError, layout::XorSwizzle{int(bits), int(base), int(shift)});
}

layout::XorSwizzle CheckerboardAttr::getXorSwizzle() const {
  return *layout::XorSwizzle::checkerboard(getRanks());
}

LogicalResult CheckerboardAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                       int64_t ranks) {
  if (!layout::XorSwizzle::checkerboard(ranks))
    return emitError() << "checkerboard ranks must be a power of two of at least 2, got "
                       << ranks;
  return success();
}

Attribute GemmConfigAttr::parse(AsmParser &parser, Type) {
  SMLoc loc = parser.getCurrentLocation();
  SmallVector<int64_t, 3> block;
  SmallVector<int64_t, 2> warps;
  int64_t stages = 0, raster = 1, persistent = 0, cluster = 1, splitK = 1, kRanges = 1;
  bool wgmma = false, swap = false, pingpong = false, promote = false, streamK = false;
  auto parseSizes = [&](SmallVectorImpl<int64_t> &sizes) {
    return parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, [&]() {
      return parser.parseInteger(sizes.emplace_back());
    });
  };
  if (parser.parseLess() || parser.parseKeyword("block") || parser.parseEqual() ||
      parseSizes(block) || parser.parseComma() || parser.parseKeyword("warps") ||
      parser.parseEqual() || parseSizes(warps) || parser.parseComma() ||
      parser.parseKeyword("stages") || parser.parseEqual() || parser.parseInteger(stages))
    return {};
  llvm::StringMap<std::pair<int64_t *, bool>> counts = {{"raster", {&raster, false}},
                                                        {"persistent", {&persistent, false}},
                                                        {"cluster", {&cluster, false}},
                                                        {"split_k", {&splitK, false}},
                                                        {"k_ranges", {&kRanges, false}}};
  llvm::StringMap<std::pair<bool *, bool>> flags = {{"wgmma", {&wgmma, false}},
                                                    {"swap", {&swap, false}},
                                                    {"pingpong", {&pingpong, false}},
                                                    {"promote", {&promote, false}},
                                                    {"stream_k", {&streamK, false}}};
  while (succeeded(parser.parseOptionalComma())) {
    SMLoc keyLoc = parser.getCurrentLocation();
    StringRef key;
    if (parser.parseKeyword(&key) || parser.parseEqual())
      return {};
    auto count = counts.find(key);
    auto flag = flags.find(key);
    if (count != counts.end() && !count->second.second) {
      count->second.second = true;
      if (parser.parseInteger(*count->second.first))
        return {};
    } else if (flag != flags.end() && !flag->second.second) {
      flag->second.second = true;
      StringRef value;
      SMLoc valueLoc = parser.getCurrentLocation();
      if (parser.parseKeyword(&value))
        return {};
      if (value != "true" && value != "false") {
        parser.emitError(valueLoc, "expected true or false, got '") << value << "'";
        return {};
      }
      *flag->second.first = value == "true";
    } else {
      parser.emitError(keyLoc,
                       "expected 'raster', 'wgmma', 'persistent', 'cluster', 'swap', "
                       "'split_k', 'pingpong', 'promote', 'k_ranges' or 'stream_k' (each at "
                       "most once), "
                       "got '")
          << key << "'";
      return {};
    }
  }
  if (parser.parseGreater())
    return {};
  return GemmConfigAttr::getChecked([&] { return parser.emitError(loc); }, parser.getContext(),
                                    block, warps, stages, raster, wgmma, persistent, cluster, swap,
                                    splitK, pingpong, promote, kRanges, streamK);
}

void GemmConfigAttr::print(AsmPrinter &printer) const {
  printer << "<block = [";
  llvm::interleaveComma(getBlock(), printer);
  printer << "], warps = [";
  llvm::interleaveComma(getWarps(), printer);
  printer << "], stages = " << getStages();
  if (getRaster() != 1)
    printer << ", raster = " << getRaster();
  if (getWgmma())
    printer << ", wgmma = true";
  if (getPersistent() != 0)
    printer << ", persistent = " << getPersistent();
  if (getCluster() != 1)
    printer << ", cluster = " << getCluster();
  if (getSwap())
    printer << ", swap = true";
  if (getSplitK() != 1)
    printer << ", split_k = " << getSplitK();
  if (getPingpong())
    printer << ", pingpong = true";
  if (getPromote())
    printer << ", promote = true";
  if (getKRanges() != 1)
    printer << ", k_ranges = " << getKRanges();
  if (getStreamK())
    printer << ", stream_k = true";
  printer << ">";
}

LogicalResult GemmConfigAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                     ArrayRef<int64_t> block, ArrayRef<int64_t> warps,
                                     int64_t stages, int64_t raster, bool wgmma, int64_t persistent,
                                     int64_t cluster, bool swap, int64_t splitK, bool pingpong,
                                     bool promote, int64_t kRanges, bool streamK) {
  // Bounds a block can meet (1024 threads, a CUDA grid's extents), which
  // also keep every size computed from them far from overflow.
  constexpr int64_t kMaxBlockExtent = 4096, kMaxWarps = 32, kMaxStages = 32;
  if (block.size() != 3 ||
      llvm::any_of(block, [](int64_t v) { return v <= 0 || v > kMaxBlockExtent; }))
    return emitError() << "gemm_config block must be three sizes [M, N, K] from 1 to "
                       << kMaxBlockExtent;
  if (warps.size() != 2 ||
      llvm::any_of(warps, [](int64_t v) { return v <= 0 || v > kMaxWarps; }) ||
      warps[0] * warps[1] + (wgmma ? 4 : 0) > kMaxWarps)
    return emitError() << "gemm_config warps must be two positive counts [M, N] of at most "
                       << kMaxWarps << " warps a block (1024 threads), wgmma's copy "
                       << "warpgroup counted";
  if (stages < 1 || stages > kMaxStages)
    return emitError() << "gemm_config needs 1 to " << kMaxStages << " stages, got " << stages;
  if (raster < 1 || raster > 65535)
    return emitError() << "gemm_config raster groups are 1 to 65535 block rows, got " << raster;
  if (persistent < 0 || persistent > std::numeric_limits<int32_t>::max() ||
      (persistent > 0 && !wgmma))
    return emitError() << "gemm_config persistent blocks are a positive count, with wgmma, got "
                       << persistent;
  if (cluster < 1 || (cluster > 1 && (persistent == 0 || persistent % cluster != 0)))
    return emitError() << "gemm_config clusters are of a positive count of blocks that divides "
                          "the persistent grid's, got "
                       << cluster;
  if (swap && !wgmma)
    return emitError() << "gemm_config swaps A and B only with wgmma";
  if (splitK < 1 || splitK > 8 || (splitK > 1 && (!wgmma || persistent != 0 || cluster != 1)))
    return emitError() << "gemm_config splits K over 1 to 8 blocks of a cluster, with wgmma, "
                          "a block a tile, got "
                       << splitK;
  if (pingpong && persistent == 0)
    return emitError() << "gemm_config takes tiles in turn (pingpong) only on a persistent grid";
  // The running sums and a k-tile's sums are both in registers.
  int64_t wgmmaN = swap ? block[0] : block[1];
  if (promote && (!wgmma || pingpong || wgmmaN > 192))
    return emitError() << "gemm_config promotes k-tiles' sums (promote) with wgmma, not "
                          "ping-pong, wgmma's N at most 192";
  if (kRanges < 1 || kRanges > 8 || (kRanges > 1 && (!wgmma || pingpong || promote || splitK != 1)))
    return emitError() << "gemm_config sums 1 to 8 ranges of k-tiles in a block (k_ranges) with "
                          "wgmma, not ping-pong, promoted or split, got "
                       << kRanges;
  // Over 192 columns the ranges' sums wait in a slot a persistent block.
  if (kRanges > 1 && wgmmaN > 192 && (persistent == 0 || swap))
    return emitError() << "gemm_config sums k ranges (k_ranges) on wgmma's N over 192 on a "
                          "persistent grid, not swapped";
  if (streamK && (persistent == 0 || swap || pingpong || promote || kRanges != 1))
    return emitError() << "gemm_config shares tiles' k-tiles among the blocks (stream_k) on a "
                          "persistent grid without swap, ping-pong, promote or k_ranges";
  return success();
}

Attribute Conv2dGw8ConfigAttr::parse(AsmParser &parser, Type) {
  SMLoc loc = parser.getCurrentLocation();
  int64_t warpsQ, warpsG, rows, chunks = 0, copyWarps = 0, stages = 0, multiprocessors = 0;
  if (parser.parseLess() || parser.parseKeyword("warps") || parser.parseEqual() ||
      parser.parseLSquare() || parser.parseInteger(warpsQ) || parser.parseComma() ||
      parser.parseInteger(warpsG) || parser.parseRSquare() || parser.parseComma() ||
      parser.parseKeyword("rows") || parser.parseEqual() || parser.parseInteger(rows))
    return {};
  llvm::StringMap<std::pair<int64_t *, bool>> optional = {
      {"chunks", {&chunks, false}},
      {"copy_warps", {&copyWarps, false}},
      {"multiprocessors", {&multiprocessors, false}},
      {"stages", {&stages, false}}};
  bool rowRing = false;
  while (succeeded(parser.parseOptionalComma())) {
    StringRef key;
    SMLoc keyLoc = parser.getCurrentLocation();
    if (parser.parseKeyword(&key))
      return {};
    if (key == "row_ring" && !rowRing) {
      rowRing = true;
      continue;
    }
    auto entry = optional.find(key);
    if (entry == optional.end() || entry->second.second) {
      parser.emitError(keyLoc, "expected 'chunks', 'copy_warps', 'multiprocessors', 'stages' "
                               "or 'row_ring', once each");
      return {};
    }
    entry->second.second = true;
    if (parser.parseEqual() || parser.parseInteger(*entry->second.first))
      return {};
  }
  if (parser.parseGreater())
    return {};
  return getChecked([&] { return parser.emitError(loc); }, parser.getContext(),
                    ArrayRef<int64_t>{warpsQ, warpsG}, rows, chunks, copyWarps, multiprocessors,
                    rowRing, stages);
}

void Conv2dGw8ConfigAttr::print(AsmPrinter &printer) const {
  printer << "<warps = [" << getWarps()[0] << ", " << getWarps()[1] << "], rows = " << getRows();
  if (getChunks())
    printer << ", chunks = " << getChunks();
  if (getCopyWarps())
    printer << ", copy_warps = " << getCopyWarps();
  if (getMultiprocessors())
    printer << ", multiprocessors = " << getMultiprocessors();
  if (getStages())
    printer << ", stages = " << getStages();
  if (getRowRing())
    printer << ", row_ring";
  printer << ">";
}

LogicalResult Conv2dGw8ConfigAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                          ArrayRef<int64_t> warps, int64_t rows,
                                          int64_t chunks, int64_t copyWarps,
                                          int64_t multiprocessors, bool rowRing,
                                          int64_t stages) {
  // Bounds a block and a grid can meet (32 warps, a problem's 2^30 rows,
  // a CUDA grid's extents), which keep the rules' arithmetic from
  // overflowing.
  if (warps.size() != 2 || llvm::any_of(warps, [](int64_t v) { return v <= 0 || v > 32; }) ||
      warps[0] * warps[1] > 32)
    return emitError() << "conv2d_gw8_config warps must be two positive counts [Q, groups] of "
                          "at most 32 warps in all";
  if (rows < 1 || rows > (int64_t(1) << 30))
    return emitError() << "conv2d_gw8_config rows must be 1 to 2^30, got " << rows;
  if (chunks < 0 || chunks > std::numeric_limits<int32_t>::max())
    return emitError() << "conv2d_gw8_config chunks must be 0 (choose) to 2^31 - 1, got "
                       << chunks;
  if (copyWarps < 0 || copyWarps > 32)
    return emitError() << "conv2d_gw8_config copy_warps must be 0 (none) to 32, got "
                       << copyWarps;
  if (multiprocessors < 0 || multiprocessors > std::numeric_limits<int32_t>::max())
    return emitError() << "conv2d_gw8_config multiprocessors must be 0 to 2^31 - 1, got "
                       << multiprocessors;
  if (stages < 0)
    return emitError() << "conv2d_gw8_config stages must be 0 (choose) or positive, got "
                       << stages;
  return success();
}

LogicalResult EpilogueAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                   ArrayRef<EpilogueStep> steps) {
  if (steps.empty())
    return emitError() << "an epilogue has at least one step";
  for (auto [i, step] : llvm::enumerate(steps))
    if (llvm::is_contained(steps.take_front(i), step))
      return emitError() << "the epilogue step '" << stringifyEpilogueStep(step)
                         << "' appears twice";
  return success();
}
