// Makes "llvm" (and "llvm -mcpu=...") a build target.
#include "llvm_module.h"
#include "tensorir/build.h"

namespace {

const bool registered = [] {
  tensorir::register_backend("llvm", tensorir::llvm_backend::build_llvm);
  return true;
}();

}  // namespace
