// Relocatable objects for saved modules: the optimised IR re-read and compiled again as
// position-independent code (the JIT's copy is not relocatable into a shared library).
#include "backends/llvm/object_file.h"

#include <llvm/IR/LegacyPassManager.h>
#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/SourceMgr.h>
#include <llvm/Support/raw_ostream.h>

#include "backends/llvm/diagnostics.h"
#include "backends/llvm/target_machine.h"
#include "tensorir/build.h"
#include "tensorir/error.h"

namespace tensorir::llvm_backend {

namespace {


// Registered extern functions are addresses in this process: a saved library has no
// way to reach them.
void check_no_registered_externs(const llvm::Module &m) {
  for (const llvm::Function &f : m.functions()) {
    if (!f.isDeclaration() || f.isIntrinsic()) continue;
    const std::string name = f.getName().str();
    TIR_USER_CHECK(lookup_extern_function(name) == nullptr)
        << "cannot save the module: its code calls '" << name
        << "', a function registered with register_extern_function, whose address exists only in "
           "this process; build the kernel without that extern call (e.g. without the tensor "
           "intrinsic that calls it) to save it";
  }
}

}  // namespace

void emit_object(llvm::Module &m, llvm::TargetMachine &tm, const std::string &path) {
  std::error_code ec;
  llvm::raw_fd_ostream out(path, ec, llvm::sys::fs::OF_None);
  TIR_USER_CHECK(!ec) << "cannot write the object file " << path << ": " << ec.message();
  llvm::legacy::PassManager pm;
  TIR_ASSERT(!tm.addPassesToEmitFile(pm, out, nullptr, llvm::CodeGenFileType::ObjectFile))
      << "this LLVM target cannot emit object files";
  pm.run(m);
  out.close();
  // A stream destroyed with its error still set ends the process (report_fatal_error):
  // take the error out of it before throwing.
  if (out.has_error()) {
    const std::error_code error = out.error();
    out.clear_error();
    llvm::sys::fs::remove(path);  // a partial object is of no use
    TIR_THROW() << "cannot write the object file " << path << ": " << error.message();
  }
}

ObjectMachine object_machine(const Target &target) {
  llvm::orc::JITTargetMachineBuilder jtmb = machine_builder(target);
  std::unique_ptr<llvm::TargetMachine> tm = create_target_machine(jtmb);
  ObjectMachine m;
  m.cpu = tm->getTargetCPU().str();
  m.features = enabled_features(*tm);
  return m;
}

void write_object(const std::string &ll, const Target &target, const std::string &path) {
  llvm::orc::JITTargetMachineBuilder jtmb = machine_builder(target);
  jtmb.setRelocationModel(llvm::Reloc::PIC_);
  std::unique_ptr<llvm::TargetMachine> tm = create_target_machine(jtmb);
  llvm::LLVMContext ctx;
  const std::shared_ptr<std::string> diagnostics = keep_diagnostics(ctx);
  std::unique_ptr<llvm::Module> m = parse_ir(ll, ctx);
  check_no_registered_externs(*m);
  m->setPICLevel(llvm::PICLevel::BigPIC);

  emit_object(*m, *tm, path);
  if (!diagnostics->empty()) llvm::sys::fs::remove(path);
  throw_if_reported(*diagnostics, "the object file " + path, target.str());
}

}  // namespace tensorir::llvm_backend
