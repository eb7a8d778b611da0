// WasmModuleNode: optimised LLVM IR for wasm32, saved as objects or linked modules.
#include "backends/llvm/wasm_module.h"

#include <cstdio>

#include <llvm/Support/raw_ostream.h>

#include "codegen/signature.h"
#include "backends/llvm/codegen_llvm.h"
#include "backends/llvm/diagnostics.h"
#include "backends/llvm/target_machine.h"
#include "tensorir/error.h"
#include "backends/llvm/wasm_link.h"
#include "backends/llvm/wasm_target.h"

namespace tensorir::llvm_backend {

namespace {

class WasmModuleNode : public ModuleNode {
 public:
  WasmModuleNode(std::string ll, std::vector<FuncSignature> sigs, Target target)
      : ll_(std::move(ll)), sigs_(std::move(sigs)), target_(std::move(target)) {}

  const std::vector<FuncSignature> &signatures() const override { return sigs_; }

  void invoke(size_t index, const std::vector<ArgValue> &, const std::vector<NDArray> &) const override {
    TIR_USER_CHECK(false) << "'" << sigs_.at(index).name
                          << "' was built for \"wasm\" and runs in a JavaScript engine, not in this process: "
                             "save it with save(path, \"wasm\"), or export a model with graph::export_web and "
                             "run it with the web runtime; build for \"llvm\" to run it here";
  }

  std::string source(const std::string &format) const override {
    if (format == "ll") return ll_;
    if (format == "asm") return emit_assembly(ll_, *wasm_target_machine(target_));
    TIR_THROW() << "the wasm backend has no source format '" << format << "'; available formats: ll, asm";
  }

  std::string backend() const override { return "wasm"; }

  void save(const std::string &path, const std::string &format) const override {
    if (format == "o") {
      write_wasm_object(ll_, target_, path);
      return;
    }
    TIR_USER_CHECK(format == "wasm" || format == "wasm-threads")
        << "the wasm backend cannot save as '" << format
        << "'; formats: wasm (a linked module), wasm-threads (linked over shared memory, for worker "
           "threads), o (a relocatable object)";
    const std::string object = path + ".tmp.o";
    struct Remove {
      const std::string &p;
      ~Remove() { std::remove(p.c_str()); }
    } cleanup{object};
    write_wasm_object(ll_, target_, object);
    std::vector<std::string> exports;
    for (const FuncSignature &s : sigs_) exports.push_back(s.name);
    link_wasm({object}, exports, path, format == "wasm-threads");
  }

 private:
  std::string ll_;
  std::vector<FuncSignature> sigs_;
  Target target_;
};

}  // namespace

Module build_wasm(const std::vector<LoweredFunc> &funcs, const Target &target) {
  TIR_USER_CHECK(target.kind == "wasm") << "the wasm backend was asked to build for target '" << target.kind << "'";
  std::vector<FuncSignature> sigs;
  for (const LoweredFunc &f : funcs) {
    TIR_USER_CHECK(f.defined()) << "build() got an undefined LoweredFunc";
    sigs.push_back(make_signature(f, Device::CPU));
  }
  std::unique_ptr<llvm::TargetMachine> tm = wasm_target_machine(target);
  llvm::LLVMContext ctx;
  const std::shared_ptr<std::string> diagnostics = keep_diagnostics(ctx);
  std::unique_ptr<llvm::Module> mod;
  {
    CodeGenLLVM cg(ctx, codegen_target(*tm));
    for (const LoweredFunc &f : funcs) cg.add_function(f);
    mod = cg.finish();
  }
  optimize_module(*mod, *tm);
  throw_if_reported(*diagnostics, "the WebAssembly module", target.str());
  std::string ll;
  llvm::raw_string_ostream os(ll);
  mod->print(os, nullptr);
  os.flush();
  return Module(Ref<const ModuleNode>(new WasmModuleNode(std::move(ll), std::move(sigs), target)));
}

}  // namespace tensorir::llvm_backend
