// Cody-Waite range reduction and a degree-6 polynomial (the Cephes expf coefficients):
// x = n ln2 + r, |r| <= ln2 / 2, e^x = 2^n p(r), with 2^n applied in two halves so
// that n from -150 to 128 gives subnormals and infinity without overflowing the exponent.
#include "backends/llvm/fast_exp.h"

#include <llvm/IR/Intrinsics.h>

namespace tensorir::llvm_backend {

llvm::Value *emit_exp_f32(llvm::IRBuilder<> &b, llvm::Value *x) {
  llvm::Type *ft = x->getType();
  auto *vt = llvm::dyn_cast<llvm::VectorType>(ft);
  llvm::Type *it = vt ? llvm::Type::getInt32Ty(b.getContext()) : b.getInt32Ty();
  if (vt) it = llvm::VectorType::get(it, vt->getElementCount());
  auto c = [&](double v) { return llvm::ConstantFP::get(ft, v); };
  auto ci = [&](int v) { return llvm::ConstantInt::get(it, uint64_t(int64_t(v)), true); };
  auto fmuladd = [&](llvm::Value *a, llvm::Value *m, llvm::Value *s) {
    return b.CreateIntrinsic(llvm::Intrinsic::fmuladd, {ft}, {a, m, s});
  };
  // Past these bounds e^x is inf or 0 in float32 anyway; inside them n fits the halves.
  llvm::Value *xc = b.CreateBinaryIntrinsic(llvm::Intrinsic::maxnum, x, c(-104.0));
  xc = b.CreateBinaryIntrinsic(llvm::Intrinsic::minnum, xc, c(89.0));
  llvm::Value *n = b.CreateUnaryIntrinsic(llvm::Intrinsic::rint, b.CreateFMul(xc, c(1.44269504088896341)));
  llvm::Value *r = fmuladd(n, c(-0.693359375), xc);
  r = fmuladd(n, c(2.12194440e-4), r);
  llvm::Value *p = c(1.9875691500e-4);
  for (double k : {1.3981999507e-3, 8.3334519073e-3, 4.1665795894e-2, 1.6666665459e-1, 5.0000001201e-1})
    p = fmuladd(p, r, c(k));
  p = fmuladd(b.CreateFMul(p, r), r, b.CreateFAdd(r, c(1.0)));
  // 2^n = 2^n1 * 2^n2, each built from its exponent bits.
  llvm::Value *ni = b.CreateFPToSI(n, it);
  llvm::Value *n1 = b.CreateAShr(ni, ci(1));
  llvm::Value *n2 = b.CreateSub(ni, n1);
  auto pow2 = [&](llvm::Value *k) { return b.CreateBitCast(b.CreateShl(b.CreateAdd(k, ci(127)), ci(23)), ft); };
  llvm::Value *e = b.CreateFMul(b.CreateFMul(p, pow2(n1)), pow2(n2));
  return b.CreateSelect(b.CreateFCmpUNO(x, x), x, e);
}

}  // namespace tensorir::llvm_backend
