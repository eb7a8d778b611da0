// Target machine selection: host detection, -mcpu / -mattr, process-wide LLVM set-up.
#include "backends/llvm/target_machine.h"

#include <map>
#include <mutex>
#include <sstream>

#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Support/Error.h>
#include <llvm/Support/TargetSelect.h>

#include "tensorir/error.h"

namespace tensorir::llvm_backend {

void init_llvm() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    llvm::InitializeNativeTargetAsmParser();
  });
}

namespace {
// LLVM's description of `cpu` with `features` on `triple`, for asking what it supports.
std::unique_ptr<llvm::MCSubtargetInfo> subtarget_info(const llvm::Triple &triple, const std::string &cpu,
                                                      const std::string &features) {
  std::string err;
  const llvm::Target *t = llvm::TargetRegistry::lookupTarget(triple.str(), err);
  TIR_ASSERT(t != nullptr) << "no LLVM target for " << triple.str() << ": " << err;
  return std::unique_ptr<llvm::MCSubtargetInfo>(t->createMCSubtargetInfo(triple.str(), cpu, features));
}
}  // namespace

llvm::orc::JITTargetMachineBuilder machine_builder(const Target &target) {
  init_llvm();
  target.check();  // the options the "llvm" kind registers (register.cpp)
  auto host = llvm::orc::JITTargetMachineBuilder::detectHost();
  TIR_USER_CHECK(static_cast<bool>(host))
      << "cannot describe the host CPU for the llvm backend: " << llvm::toString(host.takeError());
  llvm::orc::JITTargetMachineBuilder jtmb = std::move(*host);

  std::string cpu = target.option("mcpu", "native");
  const bool host_cpu = cpu == "native" || cpu == "host";
  if (!host_cpu) {
    std::unique_ptr<llvm::MCSubtargetInfo> sti = subtarget_info(jtmb.getTargetTriple(), "", "");
    TIR_USER_CHECK(sti && sti->isCPUStringValid(cpu))
        << "unknown CPU '" << cpu << "' in -mcpu=" << cpu
        << "; use -mcpu=native or an LLVM CPU name such as x86-64-v3, skylake-avx512, znver4";
    jtmb.setCPU(cpu);
    jtmb.getFeatures() = llvm::SubtargetFeatures();  // the named CPU's own features
  }
  const std::string cpu_features = jtmb.getFeatures().getString();
  std::string mattr = target.option("mattr");
  std::stringstream ss(mattr);
  std::unique_ptr<llvm::MCSubtargetInfo> any_cpu;  // for the names of the target's features
  for (std::string f; std::getline(ss, f, ',');) {
    if (f.empty()) continue;
    TIR_USER_CHECK(f[0] == '+' || f[0] == '-')
        << "feature '" << f << "' in -mattr must start with + or - (e.g. -mattr=+avx2,-avx512f)";
    if (!any_cpu) any_cpu = subtarget_info(jtmb.getTargetTriple(), "", "");
    TIR_USER_CHECK(is_processor_feature(*any_cpu, f.substr(1))) << "unknown CPU feature '" << f.substr(1) << "' in -mattr=" << mattr
                          << " (LLVM's names, e.g. avx2, avx512f, fma)";
    jtmb.getFeatures().AddFeature(f);
  }
  // The code is 64-bit (the host's triple): LLVM aborts the process, rather than
  // failing, for a CPU or feature set without 64-bit mode. The host's own CPU has it.
  if ((!host_cpu || !mattr.empty()) && jtmb.getTargetTriple().getArch() == llvm::Triple::x86_64) {
    const llvm::Triple &triple = jtmb.getTargetTriple();
    const auto is_64bit = [&](const std::string &features) {
      std::unique_ptr<llvm::MCSubtargetInfo> sti = subtarget_info(triple, jtmb.getCPU(), features);
      return sti && sti->checkFeatures("+64bit") && sti->checkFeatures("+64bit-mode");
    };
    if (!is_64bit(jtmb.getFeatures().getString())) {
      TIR_USER_CHECK(is_64bit(cpu_features))
          << "target '" << target.str() << "': the code is built for " << triple.str() << ", but CPU '"
          << jtmb.getCPU() << "' has no 64-bit mode; choose a 64-bit CPU such as x86-64 or x86-64-v3";
      TIR_THROW() << "target '" << target.str() << "': the code is built for " << triple.str()
                  << ", but -mattr=" << mattr << " turns 64-bit mode off; leave the 64bit features on";
    }
  }
  // The x86-64 calling convention passes floats in SSE registers, and without x87 or SSE
  // (or with soft-float) the float operations become library calls no process provides.
  if (!mattr.empty() && jtmb.getTargetTriple().getArch() == llvm::Triple::x86_64) {
    std::unique_ptr<llvm::MCSubtargetInfo> sti =
        subtarget_info(jtmb.getTargetTriple(), jtmb.getCPU(), jtmb.getFeatures().getString());
    TIR_USER_CHECK(sti && sti->checkFeatures("+sse2") && sti->checkFeatures("+x87") &&
                   !sti->checkFeatures("+soft-float"))
        << "target '" << target.str() << "': -mattr=" << mattr
        << " turns off x87 or SSE2 (or turns on soft-float), which 64-bit x86 code needs; leave them as they are";
  }
  jtmb.setCodeGenOptLevel(llvm::CodeGenOptLevel::Aggressive);
  return jtmb;
}

std::unique_ptr<llvm::TargetMachine> create_target_machine(llvm::orc::JITTargetMachineBuilder &jtmb) {
  auto tm = jtmb.createTargetMachine();
  TIR_USER_CHECK(static_cast<bool>(tm))
      << "cannot create an LLVM target machine: " << llvm::toString(tm.takeError());
  return std::move(*tm);
}

CodeGenTarget codegen_target(const llvm::TargetMachine &tm) {
  CodeGenTarget t;
  t.triple = tm.getTargetTriple().str();
  t.data_layout = tm.createDataLayout().getStringRepresentation();
  t.cpu = tm.getTargetCPU().str();
  t.features = tm.getTargetFeatureString().str();
  // LLVM's tuning for AVX-512 CPUs keeps loop vectorization at 256 bits; tensor loops
  // are long and regular, so let the vectorizers use the full 512-bit registers.
  if (tm.getTargetTriple().isX86() && tm.getMCSubtargetInfo()->checkFeatures("+avx512f"))
    t.prefer_vector_width = 512;
  return t;
}

bool is_processor_feature(const llvm::MCSubtargetInfo &sti, const std::string &name) {
  for (const llvm::SubtargetFeatureKV &kv : sti.getAllProcessorFeatures())
    if (name == kv.Key) return true;
  return false;
}

std::vector<std::string> enabled_features(const llvm::TargetMachine &tm) {
  const llvm::MCSubtargetInfo &sti = *tm.getMCSubtargetInfo();
  std::vector<std::string> features;
  for (const llvm::SubtargetFeatureKV &kv : sti.getAllProcessorFeatures())
    if (sti.checkFeatures(std::string("+") + kv.Key)) features.push_back(std::string("+") + kv.Key);
  return features;
}

bool targets_other_cpu(const Target &target) {
  const std::string cpu = target.option("mcpu", "native");
  if (cpu != "native" && cpu != "host") return true;
  const std::string mattr = target.option("mattr");
  return mattr.find('+') != std::string::npos;
}

int float_vector_lanes(const Target &target) {
  static std::mutex mutex;
  static std::map<std::string, int> lanes;
  const std::string key = target.str();
  {
    std::lock_guard<std::mutex> lock(mutex);
    const auto it = lanes.find(key);
    if (it != lanes.end()) return it->second;
  }
  llvm::orc::JITTargetMachineBuilder jtmb = machine_builder(target);
  std::unique_ptr<llvm::MCSubtargetInfo> sti =
      subtarget_info(jtmb.getTargetTriple(), jtmb.getCPU(), jtmb.getFeatures().getString());
  int n = 4;
  if (jtmb.getTargetTriple().isX86() && sti) n = sti->checkFeatures("+avx512f") ? 16 : sti->checkFeatures("+avx") ? 8 : 4;
  std::lock_guard<std::mutex> lock(mutex);
  lanes[key] = n;
  return n;
}

}  // namespace tensorir::llvm_backend
