//===- Conv2dGw8Family.cpp - spio.conv2d_gw8 as its kernel family sees it -===//

#include "spio/Dialect/Spio/Transforms/Conv2dGw8Family.h"

using namespace mlir;
using namespace mlir::spio;
namespace kernels = ::spio::kernels;

kernels::Conv2dGw8Problem mlir::spio::conv2dGw8Problem(Conv2dGw8Op op) {
  kernels::Conv2dGw8Problem p;
  switch (op.getPass()) {
  case ConvPass::Fprop:
    p.pass = kernels::ConvPass::Fprop;
    break;
  case ConvPass::Dgrad:
    p.pass = kernels::ConvPass::Dgrad;
    break;
  case ConvPass::Wgrad:
    p.pass = kernels::ConvPass::Wgrad;
    break;
  }
  // The first input is the image the kernel stages, [n, h, w, channels/8];
  // for dgrad it is dy, and the image sizes come from dx, [n, p, q, c].
  ArrayRef<TensorDim> a = op.getA().getType().getDims();
  ArrayRef<TensorDim> image = p.pass == kernels::ConvPass::Dgrad ? op.getD().getType().getDims() : a;
  p.n = a[0].size;
  p.h = image[1].size;
  p.w = image[2].size;
  p.c = a[3].size * a[3].fold;
  p.r = op.getKernel()[0];
  p.s = op.getKernel()[1];
  p.padH = op.getPadding()[0];
  p.padW = op.getPadding()[1];
  p.stride = op.getStride();
  p.bias = bool(op.getBias());
  Type scalar = cast<VectorType>(op.getA().getType().getElementType()).getElementType();
  p.dtype = scalar.isBF16() ? kernels::DType::BF16 : kernels::DType::F16;
  p.multiprocessors = op.getConfig().getMultiprocessors();
  // wgrad into dw rather than partial sums adds them in a cluster.
  SpioTensorType out = op.getD().getType();
  p.wgradClusterReduce = p.pass == kernels::ConvPass::Wgrad && out.getDims().size() == 4;
  p.wgradF32 = p.wgradClusterReduce && out.getElementType().isF32();
  if (std::optional<WgradParts> parts = op.getParts()) {
    switch (*parts) {
    case WgradParts::Copies:
      p.wgradParts = kernels::WgradParts::Copies;
      break;
    case WgradParts::CopiesWithoutRowHalo:
      p.wgradParts = kernels::WgradParts::CopiesWithoutRowHalo;
      break;
    case WgradParts::Mma:
      p.wgradParts = kernels::WgradParts::Mma;
      break;
    }
  }
  return p;
}

kernels::Conv2dGw8Config mlir::spio::conv2dGw8Config(Conv2dGw8ConfigAttr attr) {
  kernels::Conv2dGw8Config c;
  c.warpsQ = attr.getWarps()[0];
  c.warpsG = attr.getWarps()[1];
  c.rowsP = attr.getRows();
  c.chunks = attr.getChunks();
  c.copyWarps = attr.getCopyWarps();
  c.rowRing = attr.getRowRing();
  c.stages = attr.getStages();
  return c;
}
