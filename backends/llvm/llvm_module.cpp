// LLVMModuleNode: JIT-compiled CPU functions behind the runtime's ModuleNode interface.
#include "backends/llvm/llvm_module.h"

#include <cstdio>
#include <mutex>

#include "codegen/signature.h"
#include "backends/llvm/jit.h"
#include "backends/llvm/object_file.h"
#include "tensorir/error.h"
#include "tensorir/runtime/parallel.h"

namespace tensorir::llvm_backend {

namespace {

class LLVMModuleNode : public ModuleNode {
 public:
  LLVMModuleNode(CompiledModule code, std::vector<FuncSignature> sigs, Target target)
      : code_(std::move(code)), sigs_(std::move(sigs)), target_(std::move(target)) {}

  const std::vector<FuncSignature> &signatures() const override { return sigs_; }

  void invoke(size_t index, const std::vector<ArgValue> &args,
              const std::vector<NDArray> &buffers) const override {
    TIR_ASSERT(index < code_.functions.size()) << "function index " << index << " out of range";
    const FuncSignature &sig = sigs_[index];
    TIR_ASSERT(args.size() == sig.args.size() + sig.symbols.size())
        << sig.name << " expects " << sig.args.size() + sig.symbols.size() << " packed values, got "
        << args.size();
    if (!code_.missing_features.empty()) throw_foreign_cpu(sig.name);
    int32_t rc = code_.functions[index](args.data());
    if (rc != 0) {
      const char *msg = take_last_error();
      TIR_THROW() << sig.name << ": "
                  << (msg && *msg ? msg : "the kernel failed with status " + std::to_string(rc));
    }
  }

  std::string source(const std::string &format) const override {
    if (format == "ll") return code_.ll;
    if (format == "asm") {
      std::lock_guard<std::mutex> lock(asm_mutex_);
      if (asm_.empty()) asm_ = assembly_for(code_.ll, target_);
      return asm_;
    }
    TIR_THROW() << "the llvm backend has no source format '" << format
                << "'; available formats: ll, asm";
  }

  std::string backend() const override { return "llvm"; }

  void save(const std::string &path, const std::string &format) const override {
    if (format == "o") {
      write_object(code_.ll, target_, path);
      return;
    }
    TIR_USER_CHECK(format == "so") << "the llvm backend cannot save as '" << format
                                   << "'; formats: o (relocatable object), so (shared library)";
    // The objects go next to the library and are removed whatever happens. The table
    // lets the runtime alone load the library (runtime::LibraryModuleNode); every
    // function stays exported too.
    const std::string object = path + ".tmp.o", table = path + ".table.tmp.o";
    struct Remove {
      const std::string &a, &b;
      ~Remove() {
        std::remove(a.c_str());
        std::remove(b.c_str());
      }
    } cleanup{object, table};
    write_object(code_.ll, target_, object);
    write_kernel_table(sigs_, 0, target_, table, runtime::kModuleTableSymbol);
    link_shared_library({object, table}, path);
  }

 private:
  // Running code for features the CPU lacks ends the process with SIGILL: refuse instead.
  [[noreturn]] void throw_foreign_cpu(const std::string &name) const {
    std::string list;
    for (const std::string &f : code_.missing_features) list += (list.empty() ? "" : ", ") + f;
    const std::string cpu = target_.option("mcpu", "native");
    const std::string attrs = target_.option("mattr");
    std::string what = cpu != "native" && cpu != "host" ? "-mcpu=" + cpu : "";
    if (!attrs.empty()) what += (what.empty() ? "" : " ") + ("-mattr=" + attrs);
    TIR_THROW() << "function '" << name << "' was compiled for " << what << ", whose features " << list
                << " this CPU lacks; build for \"llvm\" (the host) to run it here (a module for another "
                << "CPU can still be saved with Module::save or shown with source(\"asm\"))";
  }

  CompiledModule code_;
  std::vector<FuncSignature> sigs_;
  Target target_;
  mutable std::mutex asm_mutex_;
  mutable std::string asm_;  // made on first request
};

}  // namespace

Module build_llvm(const std::vector<LoweredFunc> &funcs, const Target &target) {
  TIR_USER_CHECK(target.kind == "llvm")
      << "the llvm backend was asked to build for target '" << target.kind << "'";
  std::vector<FuncSignature> sigs;
  for (const LoweredFunc &f : funcs) {
    TIR_USER_CHECK(f.defined()) << "build() got an undefined LoweredFunc";
    sigs.push_back(make_signature(f, Device::CPU));
  }
  CompiledModule code = compile(funcs, target);
  return Module(Ref<const ModuleNode>(new LLVMModuleNode(std::move(code), std::move(sigs), target)));
}

}  // namespace tensorir::llvm_backend
