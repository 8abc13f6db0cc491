//===- GemmFamily.cpp - spio.gemm as the GEMM kernel family sees it -------===//

#include "spio/Dialect/Spio/Transforms/GemmFamily.h"

using namespace mlir;
using namespace mlir::spio;
namespace kernels = ::spio::kernels;

static kernels::DType dtypeOf(Type type) {
  if (type.isF16())
    return kernels::DType::F16;
  if (type.isBF16())
    return kernels::DType::BF16;
  return kernels::DType::F32;
}

kernels::GemmProblem mlir::spio::gemmProblem(GemmOp op) {
  kernels::GemmProblem p;
  StringAttr rows = op.getRowDim(), cols = op.getColDim(), k = op.getReductionDim();
  ArrayRef<TensorDim> a = op.getA().getType().getDims(), b = op.getB().getType().getDims();
  ArrayRef<TensorDim> d = op.getD().getType().getDims();
  p.rowDim = rows.str();
  p.colDim = cols.str();
  p.reductionDim = k.str();
  p.m = d[0].size;
  p.n = d[1].size;
  // The contiguous (inner) entry counts vectors of 8.
  p.k = a[0].dim == k ? a[0].size : a[1].size * a[1].fold;
  p.input = dtypeOf(cast<VectorType>(op.getA().getType().getElementType()).getElementType());
  p.output = dtypeOf(op.getD().getType().getElementType());
  p.a = a[0].dim == rows ? kernels::Layout::RowMajor : kernels::Layout::ColMajor;
  p.b = b[0].dim == cols ? kernels::Layout::ColMajor : kernels::Layout::RowMajor;
  p.readsC = bool(op.getC());
  return p;
}

kernels::GemmConfig mlir::spio::gemmConfig(GemmConfigAttr attr) {
  kernels::GemmConfig c;
  c.blockM = attr.getBlock()[0];
  c.blockN = attr.getBlock()[1];
  c.blockK = attr.getBlock()[2];
  c.warpsM = attr.getWarps()[0];
  c.warpsN = attr.getWarps()[1];
  c.stages = attr.getStages();
  c.raster = attr.getRaster();
  return c;
}

