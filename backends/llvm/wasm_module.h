// The "wasm" target: the llvm backend's code generation for WebAssembly (wasm32, SIMD128).
// Its modules are not callable in this process; they are saved as WebAssembly and run by
// a JavaScript engine (the web runtime of graph::export_web).
#pragma once
#include <vector>

#include "tensorir/lower.h"
#include "tensorir/runtime/module.h"
#include "tensorir/target.h"

namespace tensorir::llvm_backend {

Module build_wasm(const std::vector<LoweredFunc> &funcs, const Target &target);

}  // namespace tensorir::llvm_backend
