//===- Layout.cpp - Typed-dimension layout math ---------------------------===//

#include "spio/Layout/Layout.h"

#include <algorithm>
#include <map>
#include <utility>

namespace spio::layout {

int64_t floorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0)))
    --q;
  return q;
}

int64_t floorMod(int64_t a, int64_t b) { return a - floorDiv(a, b) * b; }

static std::string entryName(const std::string &dim, int64_t fold) {
  return fold == 1 ? dim : dim + "/" + std::to_string(fold);
}

int64_t XorSwizzle::apply(int64_t offset) const {
  if (isIdentity())
    return offset;
  int64_t mask = ((int64_t(1) << bits) - 1) << (base + shift);
  return offset ^ ((offset & mask) >> shift);
}

std::optional<XorSwizzle> XorSwizzle::checkerboard(int64_t ranks) {
  if (ranks < 2 || (ranks & (ranks - 1)) != 0)
    return std::nullopt;
  int log2 = 0;
  while ((int64_t(1) << log2) < ranks)
    ++log2;
  return XorSwizzle{1, 0, log2};
}

std::string XorSwizzle::verify() const {
  if (bits < 0 || base < 0 || shift < 0)
    return "swizzle parameters must be non-negative";
  if (bits + base + shift > 30)
    return "swizzle period 2^" + std::to_string(bits + base + shift) +
           " is too large";
  if (bits > 0 && shift < bits)
    return "swizzle shift " + std::to_string(shift) +
           " must be at least its bit count " + std::to_string(bits) +
           " so that source and target bits do not overlap";
  return {};
}

Layout::Layout(std::vector<DimEntry> entries, XorSwizzle swizzle)
    : entries_(std::move(entries)), swizzle_(swizzle) {}

std::vector<int64_t> Layout::rowMajorStrides(const std::vector<int64_t> &sizes) {
  std::vector<int64_t> strides(sizes.size(), 1);
  for (size_t i = sizes.size(); i-- > 1;)
    strides[i - 1] = strides[i] * sizes[i];
  return strides;
}

std::string Layout::verify() const {
  if (entries_.empty())
    return "a tensor needs at least one dimension";
  std::map<std::string, std::vector<const DimEntry *>> byDim;
  for (const DimEntry &e : entries_) {
    std::string name = entryName(e.dim, e.fold);
    if (e.fold <= 0)
      return "dimension '" + e.dim + "' has non-positive fold " +
             std::to_string(e.fold);
    if (e.size <= 0)
      return "dimension '" + name + "' has non-positive size " +
             std::to_string(e.size);
    if (e.stride < 0)
      return "dimension '" + name + "' has negative stride " +
             std::to_string(e.stride);
    if (e.size > kMaxExtent || e.stride > kMaxExtent || e.fold > kMaxExtent)
      return "dimension '" + name + "' is larger than " +
             std::to_string(kMaxExtent) + " elements";
    auto &list = byDim[e.dim];
    for (const DimEntry *other : list)
      if (other->fold == e.fold)
        return "dimension '" + name + "' appears twice";
    list.push_back(&e);
  }
  for (auto &[dim, list] : byDim) {
    std::sort(list.begin(), list.end(),
              [](const DimEntry *a, const DimEntry *b) { return a->fold < b->fold; });
    for (size_t i = 0; i + 1 < list.size(); ++i) {
      const DimEntry &fine = *list[i], &coarse = *list[i + 1];
      if (fine.fold * fine.size != coarse.fold)
        return "entries of dimension '" + dim + "' do not tile: '" +
               entryName(dim, fine.fold) + "' of size " +
               std::to_string(fine.size) + " spans " +
               std::to_string(fine.fold * fine.size) +
               " but the next coarser entry is '" +
               entryName(dim, coarse.fold) + "'";
    }
  }
  // Checked before numElements() and cosize() may be computed.
  int64_t elements = 1, span = 1;
  for (const DimEntry &e : entries_) {
    if (elements > kMaxExtent / e.size ||
        (e.stride != 0 && e.size - 1 > (kMaxExtent - span) / e.stride))
      return "tensor spans more than " + std::to_string(kMaxExtent) +
             " elements";
    elements *= e.size;
    span += (e.size - 1) * e.stride;
  }
  return swizzle_.verify();
}

int64_t Layout::numElements() const {
  int64_t n = 1;
  for (const DimEntry &e : entries_)
    n *= e.size;
  return n;
}

int64_t Layout::cosize() const {
  int64_t span = 1;
  for (const DimEntry &e : entries_)
    span += (e.size - 1) * e.stride;
  // A swizzle permutes offsets within whole periods, so the storage holds
  // whole periods: a last, partial one could be swizzled past its end.
  if (swizzle_.isIdentity())
    return span;
  return (span + swizzle_.period() - 1) / swizzle_.period() * swizzle_.period();
}

bool Layout::hasDim(std::string_view dim) const { return finestFold(dim) != 0; }

int64_t Layout::finestFold(std::string_view dim) const {
  int64_t fold = 0;
  for (const DimEntry &e : entries_)
    if (e.dim == dim && (fold == 0 || e.fold < fold))
      fold = e.fold;
  return fold;
}

bool Layout::isCoarsest(size_t index) const {
  const DimEntry &e = entries_[index];
  for (const DimEntry &other : entries_)
    if (other.dim == e.dim && other.fold > e.fold)
      return false;
  return true;
}

std::string Layout::checkSubscript(const std::vector<Coord> &coords,
                                   const std::vector<std::string> &projected) const {
  for (const Coord &c : coords) {
    bool isProjected =
        std::find(projected.begin(), projected.end(), c.dim) != projected.end();
    int64_t finest = finestFold(c.dim);
    if (finest == 0) {
      if (isProjected)
        continue;
      std::string dims;
      for (const DimEntry &e : entries_)
        dims += (dims.empty() ? "" : ", ") + entryName(e.dim, e.fold);
      return "tensor has no dimension '" + c.dim + "' (it has " + dims +
             "); project it explicitly to ignore it";
    }
    if (isProjected)
      return "dimension '" + c.dim +
             "' is projected away but the tensor has it";
    if (c.fold <= 0 || c.fold % finest != 0)
      return "coordinate '" + entryName(c.dim, c.fold) +
             "' is finer than the tensor's finest entry '" +
             entryName(c.dim, finest) +
             "' and would be truncated; fold it explicitly";
  }
  return {};
}

int64_t Layout::position(size_t index, int64_t baseValue) const {
  const DimEntry &e = entries_[index];
  int64_t pos = floorDiv(baseValue, e.fold);
  return isCoarsest(index) ? pos : floorMod(pos, e.size);
}

int64_t Layout::offset(const std::vector<Coord> &coords) const {
  int64_t result = 0;
  for (size_t i = 0; i < entries_.size(); ++i) {
    int64_t value = 0;
    for (const Coord &c : coords)
      if (c.dim == entries_[i].dim)
        value += c.baseValue();
    result += position(i, value) * entries_[i].stride;
  }
  return swizzle_.apply(result);
}

std::vector<int64_t> decompose(int64_t linear, const std::vector<int64_t> &sizes) {
  std::vector<int64_t> positions(sizes.size(), 0);
  for (size_t i = sizes.size(); i-- > 0;) {
    positions[i] = floorMod(linear, sizes[i]);
    linear = floorDiv(linear, sizes[i]);
  }
  return positions;
}

} // namespace spio::layout
