// The WebAssembly target machine. LLVM's WebAssembly backend is registered on first use.
#include "backends/llvm/wasm_target.h"

#include <mutex>
#include <sstream>

#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Support/CodeGen.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/TargetParser/SubtargetFeature.h>

#include "backends/llvm/target_machine.h"
#include "tensorir/error.h"

extern "C" {
void LLVMInitializeWebAssemblyTargetInfo();
void LLVMInitializeWebAssemblyTarget();
void LLVMInitializeWebAssemblyTargetMC();
void LLVMInitializeWebAssemblyAsmPrinter();
}

namespace tensorir::llvm_backend {

namespace {

constexpr const char *kTriple = "wasm32-unknown-unknown";
// Shipped by Chrome, Firefox and Safari for years; bulk memory turns memset/memcpy into
// instructions instead of calls to a C library the module does not have, and atomics
// let the same objects link into a module over shared memory (for worker threads).
constexpr const char *kFeatures =
    "+simd128,+bulk-memory,+atomics,+nontrapping-fptoint,+sign-ext,+mutable-globals";

void init_wasm() {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeWebAssemblyTargetInfo();
    LLVMInitializeWebAssemblyTarget();
    LLVMInitializeWebAssemblyTargetMC();
    LLVMInitializeWebAssemblyAsmPrinter();
  });
}

}  // namespace

std::unique_ptr<llvm::TargetMachine> wasm_target_machine(const Target &target) {
  init_wasm();
  target.check();  // the options the "wasm" kind registers (register.cpp)
  std::string err;
  const llvm::Target *t = llvm::TargetRegistry::lookupTarget(kTriple, err);
  TIR_USER_CHECK(t != nullptr) << "this LLVM has no WebAssembly backend (" << err
                               << "); the \"wasm\" target needs an LLVM built with it (Debian's llvm-19 has it)";
  // LLVM only warns about a feature it does not know; here it is the user's mistake.
  std::unique_ptr<llvm::MCSubtargetInfo> sti(t->createMCSubtargetInfo(kTriple, "generic", ""));
  llvm::SubtargetFeatures features(kFeatures);
  std::stringstream ss(target.option("mattr"));
  for (std::string f; std::getline(ss, f, ',');) {
    if (f.empty()) continue;
    TIR_USER_CHECK(f[0] == '+' || f[0] == '-')
        << "feature '" << f << "' in -mattr must start with + or - (e.g. -mattr=+relaxed-simd)";
    TIR_USER_CHECK(is_processor_feature(*sti, f.substr(1))) << "unknown WebAssembly feature '" << f.substr(1)
                                       << "' in -mattr (e.g. relaxed-simd, simd128, bulk-memory)";
    features.AddFeature(f);
  }
  llvm::TargetOptions options;
  std::unique_ptr<llvm::TargetMachine> tm(t->createTargetMachine(kTriple, "generic", features.getString(), options,
                                                                 llvm::Reloc::Static, std::nullopt,
                                                                 llvm::CodeGenOptLevel::Aggressive));
  TIR_USER_CHECK(tm != nullptr) << "cannot create the WebAssembly target machine";
  return tm;
}

}  // namespace tensorir::llvm_backend
