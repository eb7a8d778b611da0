// LLVM reports some code generation failures as diagnostics (a return in SSE registers
// with SSE turned off by -mattr, say) and, by default, prints them and ends the process.
// A context given to keep_diagnostics keeps its errors instead, for the caller to raise
// as an Error.
#pragma once
#include <memory>
#include <string>

namespace llvm {
class LLVMContext;
}

namespace tensorir::llvm_backend {

// The errors LLVM reports on `ctx` from now on, one per line (empty while there are none).
std::shared_ptr<std::string> keep_diagnostics(llvm::LLVMContext &ctx);

// Throws an Error "cannot compile <what> for <target>: <errors>" when `errors` holds any.
void throw_if_reported(const std::string &errors, const std::string &what, const std::string &target);

}  // namespace tensorir::llvm_backend
