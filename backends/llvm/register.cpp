// Makes "llvm" (and "llvm -mcpu=...") and "wasm" target kinds and build targets.
#include "backends/llvm/llvm_module.h"
#include "backends/llvm/target_machine.h"
#include "backends/llvm/wasm_module.h"
#include "tensorir/build.h"
#include "tensorir/target_kind.h"

namespace {

using tensorir::TargetCaps;
using tensorir::TargetKindInfo;
using tensorir::TargetOption;

const TargetOption kMattr = TargetOption::string(
    "mattr", "CPU features to add or remove, e.g. +avx2,-avx512f");

TargetKindInfo llvm_kind() {
  TargetKindInfo k;
  k.name = "llvm";
  k.help = "native code for this machine's CPU, run in this process";
  k.options = {TargetOption::string("mcpu", "the CPU to compile for: native, the default, or an LLVM CPU name"),
               kMattr};
  k.caps = [](const tensorir::Target &t) {
    TargetCaps c;
    c.device = tensorir::Device::CPU;
    c.runs_in_process = true;
    c.cpu_schedules = true;
    c.prefetch = true;
    c.kernel_errors = true;
    c.in_place_results = true;
    c.cpu_vector_lanes = tensorir::llvm_backend::float_vector_lanes(t);
    return c;
  };
  return k;
}

TargetKindInfo wasm_kind() {
  TargetKindInfo k;
  k.name = "wasm";
  k.help = "WebAssembly with 128-bit SIMD, run by a browser or another JavaScript engine";
  k.options = {kMattr};
  k.caps = [](const tensorir::Target &) {
    TargetCaps c;
    c.device = tensorir::Device::CPU;
    c.cpu_schedules = true;
    c.kernel_errors = true;
    c.small_vector_registers = true;  // 16 SIMD registers in the engines' code generators
    c.cpu_vector_lanes = 4;           // 128-bit SIMD
    return c;
  };
  return k;
}

const bool registered = [] {
  tensorir::register_target_kind(llvm_kind());
  tensorir::register_target_kind(wasm_kind());
  tensorir::register_backend("llvm", tensorir::llvm_backend::build_llvm);
  tensorir::register_backend("wasm", tensorir::llvm_backend::build_wasm);
  return true;
}();

}  // namespace
