// The llvm backend's entry point: LoweredFuncs in, a callable Module out.
#pragma once
#include <vector>

#include "tensorir/lower.h"
#include "tensorir/runtime/module.h"
#include "tensorir/target.h"

namespace tensorir::llvm_backend {

Module build_llvm(const std::vector<LoweredFunc> &funcs, const Target &target);

}  // namespace tensorir::llvm_backend
