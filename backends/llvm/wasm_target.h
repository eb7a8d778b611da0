// The machine the "wasm" target generates code for: wasm32 with 128-bit SIMD, bulk
// memory and the other features every current browser engine has.
#pragma once
#include <memory>

#include <llvm/Target/TargetMachine.h>

#include "tensorir/target.h"

namespace tensorir::llvm_backend {

// Validates the target's options (-mattr=+relaxed-simd,... adds features).
std::unique_ptr<llvm::TargetMachine> wasm_target_machine(const Target &target);

}  // namespace tensorir::llvm_backend
