// Running the external programs that link saved code (cc, wasm-ld).
#pragma once
#include <string>
#include <vector>

namespace tensorir::llvm_backend {

// The full path of `name` (as is when it has a slash) if it is an executable file, else "".
std::string find_program(const std::string &name);

// Runs argv (argv[0] a full path), returning its exit status; everything it printed to
// stdout and stderr is appended to `output`.
int run_program(const std::vector<std::string> &argv, std::string &output);

}  // namespace tensorir::llvm_backend
