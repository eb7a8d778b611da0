// Compiling a module: codegen, optimisation, and an ORC LLJIT that owns the machine code.
#include "backends/llvm/jit.h"

#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/ExecutionEngine/Orc/ThreadSafeModule.h>
#include <llvm/Support/raw_ostream.h>

#include <set>

#include "backends/llvm/codegen_llvm.h"
#include "backends/llvm/diagnostics.h"
#include "backends/llvm/target_machine.h"
#include "runtime/cpu_features.h"
#include "tensorir/error.h"
#include "tensorir/build.h"
#include "tensorir/ir/visitor.h"
#include "tensorir/runtime/parallel.h"
#include "tensorir/runtime/workspace.h"

namespace tensorir::llvm_backend {

struct JitCode {
  std::unique_ptr<llvm::orc::LLJIT> jit;
};

namespace {

void check(llvm::Error err, const char *what) {
  if (err) TIR_THROW() << what << ": " << llvm::toString(std::move(err));
}

template <typename T>
T unwrap(llvm::Expected<T> v, const char *what) {
  if (!v) TIR_THROW() << what << ": " << llvm::toString(v.takeError());
  return std::move(*v);
}

// Names of the extern C functions the kernels call.
std::set<std::string> extern_calls(const std::vector<LoweredFunc> &funcs) {
  struct Finder : IRVisitor {
    std::set<std::string> names;
    using IRVisitor::visit;
    void visit(const CallNode *op) override {
      if (op->call_type == CallNode::Extern) names.insert(op->name);
      IRVisitor::visit(op);
    }
  } finder;
  for (const LoweredFunc &f : funcs) finder.visit(f->body);
  return finder.names;
}

// The runtime functions kernels call, given by address: they resolve even when the
// library does not export them to the dynamic symbol table.
void define_runtime_symbols(llvm::orc::LLJIT &jit, const std::set<std::string> &extern_names) {
  llvm::orc::SymbolMap symbols;
  auto add = [&](const char *name, auto *fn) {
    symbols[jit.mangleAndIntern(name)] = {
        llvm::orc::ExecutorAddr::fromPtr(reinterpret_cast<void *>(fn)),
        llvm::JITSymbolFlags::Exported | llvm::JITSymbolFlags::Callable};
  };
  add("tensorir_parallel_for", &tensorir_parallel_for);
  add("tensorir_set_last_error", &tensorir_set_last_error);
  add("tensorir_workspace_alloc", &tensorir_workspace_alloc);
  add("tensorir_workspace_free", &tensorir_workspace_free);
  for (const std::string &name : extern_names)
    if (void *fn = lookup_extern_function(name)) add(name.c_str(), fn);
  check(jit.getMainJITDylib().define(llvm::orc::absoluteSymbols(std::move(symbols))),
        "cannot register the runtime functions with the JIT");
}

}  // namespace

CompiledModule compile(const std::vector<LoweredFunc> &funcs, const Target &target) {
  llvm::orc::JITTargetMachineBuilder jtmb = machine_builder(target);
  std::unique_ptr<llvm::TargetMachine> tm = create_target_machine(jtmb);

  auto ctx = std::make_unique<llvm::LLVMContext>();
  const std::shared_ptr<std::string> diagnostics = keep_diagnostics(*ctx);
  std::unique_ptr<llvm::Module> mod;
  {
    CodeGenLLVM cg(*ctx, codegen_target(*tm));
    for (const LoweredFunc &f : funcs) cg.add_function(f);
    mod = cg.finish();
  }
  optimize_module(*mod, *tm);

  CompiledModule out;
  // Checked once here with the saved-model loader's test; the host's own machine
  // has every feature by definition.
  if (targets_other_cpu(target)) out.missing_features = runtime::missing_cpu_features(enabled_features(*tm));
  {
    llvm::raw_string_ostream os(out.ll);
    mod->print(os, nullptr);
  }

  auto code = std::make_shared<JitCode>();
  code->jit = unwrap(llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(std::move(jtmb)).create(),
                     "cannot start the LLVM JIT");
  llvm::orc::LLJIT &jit = *code->jit;
  // Keep what the session reports (it would print to stderr) for the error we raise.
  auto reported = std::make_shared<std::string>();
  jit.getExecutionSession().setErrorReporter([reported](llvm::Error err) {
    *reported += llvm::toString(std::move(err)) + "\n";
  });
  // C functions (libm, malloc, extern calls) come from the process itself.
  jit.getMainJITDylib().addGenerator(
      unwrap(llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
                 jit.getDataLayout().getGlobalPrefix()),
             "cannot open the process's symbols for the JIT"));
  define_runtime_symbols(jit, extern_calls(funcs));
  check(jit.addIRModule(llvm::orc::ThreadSafeModule(std::move(mod), std::move(ctx))),
        "cannot add the module to the JIT");

  for (const LoweredFunc &f : funcs) {
    // Materialising the first symbol compiles the module; an unresolved extern fails here.
    auto addr = jit.lookup(f->name);
    TIR_USER_CHECK(static_cast<bool>(addr))
        << "cannot compile kernel '" << f->name << "': " << llvm::toString(addr.takeError())
        << (reported->empty() ? "" : "; ") << *reported
        << " (an extern function must be a C symbol visible in this process)";
    throw_if_reported(*diagnostics, "kernel '" + f->name + "'", target.str());
    out.functions.push_back(addr->toPtr<RawFunction>());
  }
  out.code = std::move(code);
  return out;
}

std::string assembly_for(const std::string &ll, const Target &target) {
  return emit_assembly(ll, target);
}

}  // namespace tensorir::llvm_backend
