// Saving compiled code: relocatable objects from a module's IR, and shared libraries
// linked from them by the system's C compiler driver. Free of LLVM types.
#pragma once
#include <string>
#include <vector>

#include "runtime/kernel_table.h"
#include "tensorir/runtime/module.h"
#include "tensorir/target.h"

namespace tensorir::llvm_backend {

// Compiles optimised IR text (CompiledModule::ll) for `target` as position-independent
// code into an ELF object at `path`. Throws an Error naming any function registered
// with register_extern_function that the code calls: its address lives only in this
// process, so a saved file cannot reach it.
void write_object(const std::string &ll, const Target &target, const std::string &path);

// The CPU and features write_object compiles for `target` (LLVM names; features such as
// "+avx2" and "-avx512f"), which a saved model records for its loader to check.
struct ObjectMachine {
  std::string cpu;
  std::vector<std::string> features;
};
ObjectMachine object_machine(const Target &target);

// Links `objects` into the shared library `output` with the system's C compiler driver
// (TENSORIR_CC if set, else cc, gcc, clang or clang-19 on PATH; ld.lld as a last
// resort). The runtime functions the code calls (tensorir_parallel_for, ...) stay
// undefined and resolve from libtensorir_runtime when the library is loaded; libm is
// linked. Throws an Error when no linker is found or the link fails, with its output.
// `exports`, when not empty, are the only symbols the library exports (a version script
// makes every other one local).
void link_shared_library(const std::vector<std::string> &objects, const std::string &output,
                         const std::vector<std::string> &exports = {});

// An object defining `symbol` over `kernels` and the fingerprint of the plan saved with
// them (runtime/kernel_table.h): runtime::kKernelTableSymbol for a saved model (constant
// shapes only), runtime::kModuleTableSymbol for a module's library (fingerprint 0).
void write_kernel_table(const std::vector<FuncSignature> &kernels, uint32_t plan_fnv1a32, const Target &target,
                        const std::string &path, const char *symbol = runtime::kKernelTableSymbol);

}  // namespace tensorir::llvm_backend
