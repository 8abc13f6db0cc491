//===- Layout.h - Typed-dimension layout math -------------------*- C++ -*-===//
//
// The arithmetic behind Spio's tensor layouts, with no LLVM or MLIR
// dependency so that the verifiers, the lowering and the runtime share one
// model of it.
//
// A layout is an ordered list of entries. Each entry counts one logical
// dimension (`k`) in steps of a fold factor (`k/8`) and has a size and a
// stride. The entries of one dimension form a mixed radix: the entry `k/8` of
// size 2 spans 16 units of `k`, so the next coarser entry of `k` must be
// `k/16`. Subscripting adds coordinates per dimension in base units, then
// resolves every entry: position = floor(value / fold), wrapped modulo the
// size for all but the coarsest entry of the dimension. That is how
// `k=7` then `k=5` on `[k/8: 2, k: 8]` lands at `k/8=1, k=4`.
//
//===----------------------------------------------------------------------===//

#ifndef SPIO_LAYOUT_LAYOUT_H
#define SPIO_LAYOUT_LAYOUT_H

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace spio::layout {

/// The largest size, stride, fold or element count a layout may have
/// (2^40): far beyond any GPU buffer, and small enough that offset
/// arithmetic on valid layouts cannot overflow int64_t.
constexpr int64_t kMaxExtent = int64_t(1) << 40;

/// Whether a tensor of these positive sizes spans at most kMaxExtent
/// elements (without overflowing on the way).
inline bool withinExtent(std::initializer_list<int64_t> sizes) {
  int64_t elements = 1;
  for (int64_t size : sizes) {
    if (elements > kMaxExtent / size)
      return false;
    elements *= size;
  }
  return true;
}

/// Division and remainder rounding toward negative infinity, so that folds
/// compose (`(x/a)/b == x/(a*b)`) for negative coordinates too (halos).
int64_t floorDiv(int64_t a, int64_t b);
int64_t floorMod(int64_t a, int64_t b);

/// A coordinate: `value` steps of `fold` units of dimension `dim`.
struct Coord {
  std::string dim;
  int64_t fold = 1;
  int64_t value = 0;
  int64_t baseValue() const { return value * fold; }
};

/// One entry of a layout: dimension `dim` counted in steps of `fold`.
struct DimEntry {
  std::string dim;
  int64_t fold = 1;
  int64_t size = 1;
  int64_t stride = 1;
};

/// CuTe's Swizzle<B, M, S> on element offsets: the `bits` bits found
/// `base + shift` bits up are XORed into the `bits` bits found `base` bits up.
/// spio's checkerboard with `ranks` banks is XorSwizzle{1, 0, log2(ranks)}.
struct XorSwizzle {
  int bits = 0;
  int base = 0;
  int shift = 0;

  bool isIdentity() const { return bits == 0; }
  /// Elements after which the pattern repeats.
  int64_t period() const { return int64_t(1) << (bits + base + shift); }
  int64_t apply(int64_t offset) const;
  /// The swizzle equal to spio's checkerboard over `ranks` 16-byte banks, or
  /// nothing when `ranks` is not a power of two of at least 2.
  static std::optional<XorSwizzle> checkerboard(int64_t ranks);
  /// Empty when the parameters are usable, else why not.
  std::string verify() const;
};

class Layout {
public:
  Layout(std::vector<DimEntry> entries, XorSwizzle swizzle = {});

  /// Strides of a row-major layout of `sizes` (last entry contiguous).
  static std::vector<int64_t> rowMajorStrides(const std::vector<int64_t> &sizes);

  /// Empty when the layout is well formed, else a message that names the
  /// entry at fault: non-positive sizes or folds, negative strides, a
  /// duplicated entry, entries of one dimension that do not tile, or a
  /// swizzle with bad parameters.
  std::string verify() const;

  const std::vector<DimEntry> &entries() const { return entries_; }
  const XorSwizzle &swizzle() const { return swizzle_; }

  /// Number of elements the layout addresses and of elements its storage
  /// spans (1 + sum (size-1)*stride, rounded up to whole swizzle periods).
  int64_t numElements() const;
  int64_t cosize() const;

  bool hasDim(std::string_view dim) const;
  /// The smallest fold of `dim` in this layout; 0 when absent.
  int64_t finestFold(std::string_view dim) const;
  /// Whether entry `index` is the coarsest entry of its dimension.
  bool isCoarsest(size_t index) const;

  /// Empty when every coordinate can subscript this layout, else why not:
  /// a dimension the layout lacks (unless listed in `projected`), or a
  /// coordinate finer than the layout's finest entry of its dimension.
  std::string checkSubscript(const std::vector<Coord> &coords,
                             const std::vector<std::string> &projected = {}) const;

  /// Position along entry `index` of a dimension value in base units.
  int64_t position(size_t index, int64_t baseValue) const;

  /// Element offset of the given coordinates (summed per dimension, missing
  /// dimensions are 0, projected ones ignored), swizzle applied.
  int64_t offset(const std::vector<Coord> &coords) const;

private:
  std::vector<DimEntry> entries_;
  XorSwizzle swizzle_;
};

/// Row-major decomposition of a linear id into per-entry positions:
/// the last entry varies fastest and every position is wrapped by its size.
std::vector<int64_t> decompose(int64_t linear, const std::vector<int64_t> &sizes);

} // namespace spio::layout

#endif // SPIO_LAYOUT_LAYOUT_H
