// Makes "llvm" (and "llvm -mcpu=...") and "wasm" build targets.
#include "llvm_module.h"
#include "wasm_module.h"
#include "tensorir/build.h"

namespace {

const bool registered = [] {
  tensorir::register_backend("llvm", tensorir::llvm_backend::build_llvm);
  tensorir::register_backend("wasm", tensorir::llvm_backend::build_wasm);
  return true;
}();

}  // namespace
