// exp of float32 scalars and vectors as inline code: LLVM lowers a vector llvm.exp to
// one C library call per lane, which makes softmax and sigmoid slow.
#pragma once
#include <llvm/IR/IRBuilder.h>

namespace tensorir::llvm_backend {

// e^x for x of type float or <N x float>: Cody-Waite reduction to r in [-ln2/2, ln2/2],
// a degree-7 polynomial (within 2 ulp), scaled by 2^n in two halves so that results
// near the limits (overflow to inf, gradual underflow) come out right; NaN stays NaN.
llvm::Value *emit_exp_f32(llvm::IRBuilder<> &b, llvm::Value *x);

}  // namespace tensorir::llvm_backend
