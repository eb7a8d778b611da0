// Emitting WebAssembly objects and linking them with wasm-ld.
#include "backends/llvm/wasm_link.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>

#include <llvm/IR/LLVMContext.h>
#include <llvm/Support/FileSystem.h>

#include "backends/llvm/diagnostics.h"
#include "backends/llvm/programs.h"
#include "backends/llvm/target_machine.h"
#include "tensorir/error.h"
#include "backends/llvm/wasm_target.h"

namespace tensorir::llvm_backend {

namespace {

std::string find_wasm_ld() {
  if (const char *ld = std::getenv("TENSORIR_WASM_LD"); ld && *ld) {
    const std::string p = find_program(ld);
    TIR_USER_CHECK(!p.empty()) << "TENSORIR_WASM_LD is '" << ld
                               << "', which is not an executable program; point it at wasm-ld";
    return p;
  }
  for (const char *name : {"wasm-ld-19", "wasm-ld"})
    if (std::string p = find_program(name); !p.empty()) return p;
  TIR_THROW() << "cannot link a WebAssembly module: wasm-ld was not found on PATH; install it "
                 "(Debian: lld-19) or set TENSORIR_WASM_LD to its path";
}

// What the web runtime gives a module (web/runtime/wasm_imports.js): anything else the
// code calls is a link error here rather than a failure when a page loads the model.
const char *const kRuntimeImports[] = {
    "tensorir_parallel_for", "tensorir_set_last_error", "aligned_alloc", "free",
    "expf", "exp2f", "logf", "log2f", "log10f", "powf", "sinf", "cosf", "tanf", "tanhf", "erff", "fmodf", "roundf",
    "fmaf", "asinf", "acosf", "atanf", "sinhf", "coshf", "asinhf", "acoshf", "atanhf",
    "exp", "exp2", "log", "log2", "log10", "pow", "sin", "cos", "tan", "tanh", "erf", "fmod", "round", "fma",
    "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh"};

}  // namespace

const std::vector<std::string> &wasm_runtime_imports() {
  static const std::vector<std::string> names(std::begin(kRuntimeImports), std::end(kRuntimeImports));
  return names;
}

namespace {

// What an undefined-symbol log names, with what to do about it.
std::string undefined_symbol_hint(const std::string &log) {
  if (log.find("undefined symbol") == std::string::npos) return "";
  std::string provided;
  for (const std::string &name : wasm_runtime_imports())
    if (name.size() > 1 && name.back() == 'f' && name != "free") provided += (provided.empty() ? "" : ", ") + name;
  return " (WebAssembly has no instruction for that call and the web runtime does not provide it; kernels for "
         "\"wasm\" can call the math functions " + provided +
         " (and their double versions); functions registered with register_extern_function exist only in this "
         "process)";
}

}  // namespace

void write_wasm_object(const std::string &ll, const Target &target, const std::string &path) {
  std::unique_ptr<llvm::TargetMachine> tm = wasm_target_machine(target);
  llvm::LLVMContext ctx;
  const std::shared_ptr<std::string> diagnostics = keep_diagnostics(ctx);
  std::unique_ptr<llvm::Module> m = parse_ir(ll, ctx);
  emit_object(*m, *tm, path);
  if (!diagnostics->empty()) llvm::sys::fs::remove(path);
  throw_if_reported(*diagnostics, "the WebAssembly object " + path, target.str());
}

void link_wasm(const std::vector<std::string> &objects, const std::vector<std::string> &exports,
               const std::string &output, bool shared_memory) {
  TIR_USER_CHECK(!objects.empty()) << "cannot link " << output << " from no object files";
  const std::string imports = output + ".imports";
  {
    std::ofstream list(imports);
    for (const std::string &name : wasm_runtime_imports()) list << name << "\n";
    TIR_USER_CHECK(list.good()) << "cannot write " << imports;
  }
  struct Remove {
    const std::string &p;
    ~Remove() { std::remove(p.c_str()); }
  } cleanup{imports};
  // The stack holds the kernels' local buffers: up to 2 MiB in a function and 2 MiB more
  // in a parallel body it calls (codegen_stmt.cpp), so 8 MiB leaves room.
  std::vector<std::string> argv = {find_wasm_ld(), "--no-entry", "--import-memory", "--export-table",
                                   "--allow-undefined-file=" + imports, "--stack-first", "-z", "stack-size=8388608",
                                   "--export=__heap_base", "-O2", "-o", output};
  if (shared_memory)
    argv.insert(argv.end(), {"--shared-memory", "--max-memory=" + std::to_string(kWasmSharedMaxMemory),
                             "--export=__stack_pointer"});
  for (const std::string &e : exports) argv.push_back("--export=" + e);
  argv.insert(argv.end(), objects.begin(), objects.end());
  std::string log;
  const int rc = run_program(argv, log);
  TIR_USER_CHECK(rc == 0) << "linking " << output << " with " << argv[0] << " failed (exit status " << rc
                          << "): " << log << undefined_symbol_hint(log);
}

}  // namespace tensorir::llvm_backend
