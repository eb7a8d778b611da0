// WebAssembly files from a "wasm" module's IR: relocatable objects, and modules linked
// from them with wasm-ld. Free of LLVM types (lib/graph uses it to export packages).
#pragma once
#include <string>
#include <vector>

#include "tensorir/target.h"

namespace tensorir::llvm_backend {

// The functions the web runtime provides to modules as imports from "env".
const std::vector<std::string> &wasm_runtime_imports();

// Compiles optimised IR text of a "wasm" module into a WebAssembly object at `path`.
void write_wasm_object(const std::string &ll, const Target &target, const std::string &path);

// Links `objects` into the module `output` exporting `exports` (the kernels), the
// function table (parallel loops hand their bodies to the runtime by table index) and
// __heap_base (where the runtime's memory starts). The memory is imported, so the
// runtime owns it. With `shared_memory` it is a shared memory of at most 2 GiB, for
// worker threads running one instance each over it; __stack_pointer is then exported, so
// that each thread's instance gets a stack of its own. In either case calls of wasm_runtime_imports() become imports from "env", any other
// undefined function is an error. wasm-ld comes from TENSORIR_WASM_LD, else wasm-ld-19 or
// wasm-ld on PATH; without it, or when the link fails, throws an Error saying so.
void link_wasm(const std::vector<std::string> &objects, const std::vector<std::string> &exports,
               const std::string &output, bool shared_memory = false);

// The largest memory of a module linked with shared memory, in bytes.
constexpr unsigned long long kWasmSharedMaxMemory = 2ull << 30;

}  // namespace tensorir::llvm_backend
