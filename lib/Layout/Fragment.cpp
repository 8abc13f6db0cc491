//===- Fragment.cpp - mma.sync fragment and ldmatrix lane maps ------------===//

#include "spio/Layout/Fragment.h"

namespace spio::layout {

int64_t fragmentRows(MmaOperand operand, int64_t k) {
  return operand == MmaOperand::B ? k : 16;
}

int64_t fragmentCols(MmaOperand operand, int64_t k) {
  return operand == MmaOperand::A ? k : 8;
}

int64_t fragmentElementsPerLane(MmaOperand operand, int64_t k) {
  return fragmentRows(operand, k) * fragmentCols(operand, k) / 32;
}

FragmentCoord fragmentElement(MmaOperand operand, int64_t k, int64_t lane,
                              int64_t element) {
  // Lanes form 8 groups of 4: the group picks a row (or B column), the
  // thread in the group a pair of consecutive elements.
  int64_t group = lane / 4, pair = 2 * (lane % 4) + element % 2;
  switch (operand) {
  case MmaOperand::A:
    // Pairs cycle through row halves first, then k halves (k16 only).
    return {group + 8 * ((element / 2) % 2), pair + 8 * (element / 4)};
  case MmaOperand::B:
    return {pair + 8 * (element / 2), group};
  case MmaOperand::C:
    return {group + 8 * (element / 2), pair};
  }
  return {};
}

int64_t ldmatrixTiles(MmaOperand operand, int64_t k) {
  return fragmentElementsPerLane(operand, k) / 2;
}

bool ldmatrixRowsAlongCols(MmaOperand operand, bool transpose) {
  // A's reduction dimension is its columns, B's its rows.
  return (operand == MmaOperand::A) != transpose;
}

FragmentCoord ldmatrixRowOrigin(MmaOperand operand, int64_t k, bool transpose,
                                int64_t lane) {
  // Lanes 8q..8q+7 address the rows of matrix q, which holds fragment
  // elements 2q and 2q+1; lane 0's element 2q is that matrix's corner.
  int64_t tile = (lane / 8) % ldmatrixTiles(operand, k), row = lane % 8;
  FragmentCoord corner = fragmentElement(operand, k, 0, 2 * tile);
  if (ldmatrixRowsAlongCols(operand, transpose))
    return {corner.row + row, corner.col};
  return {corner.row, corner.col + row};
}

} // namespace spio::layout
