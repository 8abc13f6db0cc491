//===- Fragment.h - mma.sync fragment and ldmatrix lane maps ----*- C++ -*-===//
//
// Which element of an mma.sync operand tile each lane of a warp holds, and
// which row each lane addresses in an ldmatrix that loads it, for the shapes
// m16n8k8 and m16n8k16 with 16-bit inputs and f32 accumulators (PTX ISA,
// "Matrix Fragments for mma.m16n8k8/k16"). Coordinates are in the fragment's
// own [rows, columns]: A is [m, k], B is [k, n], C is [m, n].
//
//===----------------------------------------------------------------------===//

#ifndef SPIO_LAYOUT_FRAGMENT_H
#define SPIO_LAYOUT_FRAGMENT_H

#include <cstdint>

namespace spio::layout {

enum class MmaOperand { A, B, C };

struct FragmentCoord {
  int64_t row = 0;
  int64_t col = 0;
  bool operator==(const FragmentCoord &o) const { return row == o.row && col == o.col; }
};

/// Rows and columns of the warp-wide tile, and elements per lane.
int64_t fragmentRows(MmaOperand operand, int64_t k);
int64_t fragmentCols(MmaOperand operand, int64_t k);
int64_t fragmentElementsPerLane(MmaOperand operand, int64_t k);

/// The tile position of element `element` (0-based, in register order) held
/// by `lane`, for an m16n8`k` mma.
FragmentCoord fragmentElement(MmaOperand operand, int64_t k, int64_t lane,
                              int64_t element);

/// 8x8 matrices an ldmatrix of an A or B fragment loads (its .x1/.x2/.x4).
int64_t ldmatrixTiles(MmaOperand operand, int64_t k);

/// The tile position of the first of the 8 consecutive elements whose
/// address `lane` supplies to ldmatrix. The 8 elements run along the
/// reduction dimension k for a plain load, along the other dimension for a
/// transposed one. Lanes beyond the tiles an ldmatrix uses repeat the used
/// ones, so every lane's address is valid.
FragmentCoord ldmatrixRowOrigin(MmaOperand operand, int64_t k, bool transpose,
                                int64_t lane);

/// Whether the 8 elements of an ldmatrix row run along the tile's columns.
bool ldmatrixRowsAlongCols(MmaOperand operand, bool transpose);

} // namespace spio::layout

#endif // SPIO_LAYOUT_FRAGMENT_H
