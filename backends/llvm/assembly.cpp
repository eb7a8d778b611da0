// Assembly listings, produced on request from the module's optimised IR.
#include <llvm/ADT/SmallString.h>
#include <llvm/AsmParser/Parser.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/Support/SourceMgr.h>
#include <llvm/Support/raw_ostream.h>

#include "backends/llvm/diagnostics.h"
#include "backends/llvm/target_machine.h"
#include "tensorir/error.h"

namespace tensorir::llvm_backend {

std::unique_ptr<llvm::Module> parse_ir(const std::string &ll, llvm::LLVMContext &ctx) {
  llvm::SMDiagnostic diag;
  std::unique_ptr<llvm::Module> m = llvm::parseAssemblyString(ll, diag, ctx);
  if (!m) {
    std::string msg;
    llvm::raw_string_ostream os(msg);
    diag.print("tensorir", os);
    TIR_ASSERT(false) << "cannot re-read the module's LLVM IR: " << os.str();
  }
  return m;
}

std::string emit_assembly(const std::string &ll, const Target &target) {
  llvm::orc::JITTargetMachineBuilder jtmb = machine_builder(target);
  std::unique_ptr<llvm::TargetMachine> tm = create_target_machine(jtmb);
  return emit_assembly(ll, *tm);
}

std::string emit_assembly(const std::string &ll, llvm::TargetMachine &tm) {
  llvm::LLVMContext ctx;
  const std::shared_ptr<std::string> diagnostics = keep_diagnostics(ctx);
  std::unique_ptr<llvm::Module> m = parse_ir(ll, ctx);
  llvm::SmallString<0> text;
  llvm::raw_svector_ostream os(text);
  llvm::legacy::PassManager pm;
  TIR_ASSERT(!tm.addPassesToEmitFile(pm, os, nullptr, llvm::CodeGenFileType::AssemblyFile))
      << "this LLVM target cannot emit assembly";
  pm.run(*m);
  throw_if_reported(*diagnostics, "the module's assembly", tm.getTargetTriple().str());
  return std::string(text.str());
}

}  // namespace tensorir::llvm_backend
