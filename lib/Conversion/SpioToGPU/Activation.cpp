//===- Activation.cpp - spio.activation to f32 arithmetic -----------------===//

#include "Activation.h"

#include "spio/Dialect/Spio/IR/SpioOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <cmath>

using namespace mlir;
using namespace mlir::spio;

namespace {

/// f32 arithmetic on a scalar or a vector of one type.
class F32Math {
public:
  F32Math(OpBuilder &b, Location loc, Type type) : b(b), loc(loc), type(type) {}

  Value constant(double value) {
    auto f = FloatAttr::get(Float32Type::get(b.getContext()), value);
    if (auto vector = dyn_cast<VectorType>(type))
      return arith::ConstantOp::create(b, loc, DenseElementsAttr::get(vector, f.getValue()));
    return arith::ConstantOp::create(b, loc, f);
  }
  Value add(Value x, Value y) { return arith::AddFOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return arith::SubFOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulFOp::create(b, loc, x, y); }
  Value neg(Value x) { return arith::NegFOp::create(b, loc, x); }
  Value fma(Value x, Value y, Value z) { return LLVM::FMAOp::create(b, loc, x, y, z); }
  Value fma(Value x, Value y, double z) { return fma(x, y, constant(z)); }
  Value less(Value x, double bound) {
    return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x, constant(bound));
  }
  Value greater(Value x, double bound) {
    return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, x, constant(bound));
  }
  Value select(Value condition, Value x, Value y) {
    return arith::SelectOp::create(b, loc, condition, x, y);
  }
  // Absolute value and sign by comparison: GPU-to-NVVM takes llvm.fabs and
  // llvm.copysign for libdevice calls.
  Value abs(Value x) { return select(less(x, 0.0), neg(x), x); }
  /// `magnitude` (not negative) with the sign of `sign`.
  Value withSign(Value magnitude, Value sign) {
    return select(less(sign, 0.0), neg(magnitude), magnitude);
  }
  /// f applied to each element, for the NVVM operations that take f32 only.
  Value eachElement(Value x, function_ref<Value(Value)> f) {
    auto vector = dyn_cast<VectorType>(type);
    if (!vector)
      return f(x);
    Value result = x;
    for (int64_t i = 0; i < vector.getNumElements(); ++i)
      result = vector::InsertOp::create(b, loc, f(vector::ExtractOp::create(b, loc, x, i)),
                                        result, i);
    return result;
  }
  /// 2^x by the hardware's ex2.approx.ftz.f32 (2 ulp): GPU-to-NVVM would
  /// make llvm.exp2 a libdevice call. Flushing results below 2^-126 to zero
  /// changes nothing here (each is added to or subtracted from 1) and spares
  /// the non-ftz form's scaling around the instruction.
  Value exp2(Value x) {
    return eachElement(x, [&](Value v) {
      return LLVM::CallIntrinsicOp::create(b, loc, v.getType(),
                                           b.getStringAttr("llvm.nvvm.ex2.approx.ftz.f32"), v)
          .getResult(0);
    });
  }
  /// x / (1 + 2^y) through the hardware's reciprocal (rcp.approx.ftz.f32,
  /// 1 ulp; its argument is at least 1), exact at both tails (x or 0).
  Value overOnePlusExp2(Value x, Value y) {
    Value denominator = add(constant(1.0), exp2(y));
    return mul(x, eachElement(denominator, [&](Value v) {
                 return NVVM::RcpApproxFtzF32Op::create(b, loc, v.getType(), v);
               }));
  }
  /// tanh(x) by the hardware's tanh.approx.f32 (sm_75 and later; PTX bounds
  /// its error by 2^-11 of tanh, an H200's stays near 2^-17): one MUFU
  /// operation where e^x and a reciprocal take two. llvm.tanh with `afn`,
  /// which NVPTX selects to it.
  Value tanh(Value x) {
    auto approximate = LLVM::FastmathFlagsAttr::get(b.getContext(), LLVM::FastmathFlags::afn);
    return eachElement(x, [&](Value v) {
      return LLVM::TanhOp::create(b, loc, v.getType(), v, approximate).getResult();
    });
  }
  /// erf(x) within about 1 ulp: N. Juffa's minimax approximations, a
  /// polynomial in x^2 up to 0.9277 and 1 - e^p(|x|) above.
  Value erf(Value x) {
    Value t = abs(x), s = mul(x, x);
    Value r = fma(fma(constant(-1.72853470e-5), t, 3.83197126e-4), s,
                  fma(constant(-3.88396438e-3), t, 2.42546219e-2));
    for (double c : {-1.06777877e-1, -6.34846687e-1, -1.28717512e-1})
      r = fma(r, t, c);
    r = fma(r, t, neg(t));
    Value large = withSign(sub(constant(1.0), exp2(mul(r, constant(M_LOG2E)))), x);
    Value p = constant(-5.96761703e-4);
    for (double c : {4.99119423e-3, -2.67681349e-2, 1.12819925e-1, -3.76125336e-1,
                     1.28379166e-1})
      p = fma(p, s, c);
    Value small = fma(p, x, x);
    return select(greater(t, 0.927734375), large, small);
  }

private:
  OpBuilder &b;
  Location loc;
  Type type;
};

Value activate(OpBuilder &b, Location loc, Activation kind, Value x) {
  F32Math m(b, loc, x.getType());
  switch (kind) {
  case Activation::Relu:
    // max(x, 0) with NaN propagated, as torch.relu.
    return arith::MaximumFOp::create(b, loc, x, m.constant(0.0));
  case Activation::GeluTanh: {
    // 0.5 x (1 + tanh(u)) = 0.5 x tanh(u) + 0.5 x, u = x (c + 0.044715 c
    // x^2), c = sqrt(2 / pi): one MUFU operation an element, whose cost
    // the short reductions' epilogues do not hide.
    double c = std::sqrt(2.0 / M_PI);
    Value u = m.mul(x, m.fma(m.mul(x, x), m.constant(0.044715 * c), c));
    Value half = m.mul(x, m.constant(0.5));
    return m.fma(half, m.tanh(u), half);
  }
  case Activation::GeluErf: {
    Value e = m.erf(m.mul(x, m.constant(M_SQRT1_2)));
    return m.mul(m.mul(x, m.constant(0.5)), m.add(e, m.constant(1.0)));
  }
  case Activation::Silu:
    // x / (1 + e^-x) = x / (1 + 2^(-x log2 e)).
    return m.overOnePlusExp2(x, m.mul(x, m.constant(-M_LOG2E)));
  }
  llvm_unreachable("an activation");
}

struct ActivationLowering : OpRewritePattern<ActivationOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ActivationOp op, PatternRewriter &r) const override {
    r.replaceOp(op, activate(r, op.getLoc(), op.getKind(), op.getInput()));
    return success();
  }
};

} // namespace

void mlir::spio::populateActivationLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<ActivationLowering>(patterns.getContext());
}
