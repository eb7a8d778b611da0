#include "backends/llvm/fast_exp.h"

#include <llvm/IR/Intrinsics.h>

namespace tensorir::llvm_backend {

llvm::Value *emit_exp_f32(llvm::IRBuilder<> &b, llvm::Value *x) {
  llvm::Type *ft = x->getType();
  llvm::Type *it = ft->isVectorTy()
                       ? llvm::VectorType::get(b.getInt32Ty(), llvm::cast<llvm::VectorType>(ft)->getElementCount())
                       : static_cast<llvm::Type *>(b.getInt32Ty());
  auto f = [&](double v) { return llvm::ConstantFP::get(ft, v); };
  auto i = [&](int64_t v) { return llvm::ConstantInt::get(it, uint64_t(v), true); };
  // Beyond [-104, 89] the result is 0 or inf anyway; the clamp keeps n in int range. It
  // compares and selects: maxnum/minnum become fmaxf/fminf calls on WebAssembly.
  llvm::Value *xc = b.CreateSelect(b.CreateFCmpOLT(x, f(-104.0)), f(-104.0), x);
  xc = b.CreateSelect(b.CreateFCmpOGT(xc, f(89.0)), f(89.0), xc);
  llvm::Value *n = b.CreateUnaryIntrinsic(llvm::Intrinsic::floor, b.CreateFAdd(b.CreateFMul(xc, f(1.44269504088896341)), f(0.5)));
  // r = x - n ln2, with ln2 in two parts so that n * hi is exact.
  llvm::Value *r = b.CreateFSub(xc, b.CreateFMul(n, f(0.693359375)));
  r = b.CreateFSub(r, b.CreateFMul(n, f(-2.12194440e-4)));
  const double c[] = {1.9875691500e-4, 1.3981999507e-3, 8.3334519073e-3, 4.1665795894e-2, 1.6666665459e-1, 5.0000001201e-1};
  llvm::Value *p = f(c[0]);
  for (size_t k = 1; k < 6; ++k) p = b.CreateFAdd(b.CreateFMul(p, r), f(c[k]));
  llvm::Value *y = b.CreateFAdd(b.CreateFAdd(b.CreateFMul(p, b.CreateFMul(r, r)), r), f(1.0));
  // 2^n as 2^(n/2) * 2^(n - n/2): each factor a normal float for n in [-150, 129].
  llvm::Value *ni = b.CreateFPToSI(n, it);
  llvm::Value *n1 = b.CreateAShr(ni, i(1)), *n2 = b.CreateSub(ni, n1);
  auto pow2 = [&](llvm::Value *e) { return b.CreateBitCast(b.CreateShl(b.CreateAdd(e, i(127)), i(23)), ft); };
  y = b.CreateFMul(b.CreateFMul(y, pow2(n1)), pow2(n2));
  return b.CreateSelect(b.CreateFCmpUNO(x, x), x, y);
}

}  // namespace tensorir::llvm_backend
