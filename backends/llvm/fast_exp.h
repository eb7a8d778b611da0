// exp of float32 scalars and vectors in straight-line IR, so that vector lanes need no
// call of expf each (llvm.exp has no vector form on most targets and is scalarized).
#pragma once
#include <llvm/IR/IRBuilder.h>

namespace tensorir::llvm_backend {

// e^x for x of type float or <N x float>: within 2 ulp of expf, inf above 88.72, 0 below
// -103.97 (subnormal results in between), NaN for NaN.
llvm::Value *emit_exp_f32(llvm::IRBuilder<> &b, llvm::Value *x);

}  // namespace tensorir::llvm_backend
