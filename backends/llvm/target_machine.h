// The machine code is generated for: the host CPU with all its features, or the CPU
// and features a Target names (-mcpu=, -mattr=). LLVM is initialised once per process.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/IR/Module.h>
#include <llvm/Target/TargetMachine.h>

#include "backends/llvm/codegen_target.h"
#include "tensorir/target.h"

namespace tensorir::llvm_backend {

// Registers the native target, its assembly printer and parser (thread-safe, once).
void init_llvm();
// Validates the target's options and describes the machine (aggressive codegen).
llvm::orc::JITTargetMachineBuilder machine_builder(const Target &target);
std::unique_ptr<llvm::TargetMachine> create_target_machine(llvm::orc::JITTargetMachineBuilder &jtmb);
// What codegen stamps on the module and its functions for this machine.
CodeGenTarget codegen_target(const llvm::TargetMachine &tm);
// Every feature the machine has, as "+name", those a named CPU implies included
// (-mcpu=x86-64-v3 lists none of its own): what its code may use.
std::vector<std::string> enabled_features(const llvm::TargetMachine &tm);
// Whether `name` ("avx2", "simd128") is a feature LLVM knows for `sti`'s target: for -mattr,
// whose unknown names LLVM only warns about.
bool is_processor_feature(const llvm::MCSubtargetInfo &sti, const std::string &name);
// Whether `target` asks for something other than the host CPU (an -mcpu other than
// native, or an -mattr that adds a feature).
bool targets_other_cpu(const Target &target);
// float32 lanes of the widest vector registers of the machine `target` names (16 with
// AVX-512, 8 with AVX, else 4), computed once per target.
int float_vector_lanes(const Target &target);

// The O3 pipeline, with the machine's cost model so the vectorizers know its registers.
void optimize_module(llvm::Module &m, llvm::TargetMachine &tm);
// Parses LLVM IR text the backend printed itself (a failure is an internal error).
std::unique_ptr<llvm::Module> parse_ir(const std::string &ll, llvm::LLVMContext &ctx);
// Assembly text for LLVM IR text (already optimised), for the machine `target` names or `tm`.
std::string emit_assembly(const std::string &ll, const Target &target);
std::string emit_assembly(const std::string &ll, llvm::TargetMachine &tm);
// Compiles module `m` for `tm` into the object file `path` (a failed write is an Error, the
// partial file removed).
void emit_object(llvm::Module &m, llvm::TargetMachine &tm, const std::string &path);

}  // namespace tensorir::llvm_backend
