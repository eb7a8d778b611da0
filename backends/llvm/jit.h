// The llvm backend's compile step, behind an interface free of LLVM types.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "tensorir/lower.h"
#include "tensorir/runtime/module.h"
#include "tensorir/target.h"

namespace tensorir::llvm_backend {

// The JIT session that owns the machine code (opaque here).
struct JitCode;

struct CompiledModule {
  std::shared_ptr<JitCode> code;       // keeps `functions` callable
  std::vector<RawFunction> functions;  // one per LoweredFunc, in order
  std::string ll;                      // the LLVM IR after optimisation
  // The features the code may use that this CPU lacks (a target for another CPU): the
  // functions must not be called here, though the code can still be saved.
  std::vector<std::string> missing_features;
};

// LoweredFuncs -> LLVM IR -> O3 for the target machine -> machine code in a fresh JIT.
CompiledModule compile(const std::vector<LoweredFunc> &funcs, const Target &target);

// Assembly for IR text from compile() (see target_machine.h).
std::string assembly_for(const std::string &ll, const Target &target);

}  // namespace tensorir::llvm_backend
