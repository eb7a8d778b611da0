// The kernel table of a saved model's or a module's library (runtime/kernel_table.h),
// written as LLVM IR and compiled with the kernels' target: no C compiler is needed, and
// the layouts are the ones the header's static_assert fixes.
#include <cstdio>
#include <set>
#include <sstream>

#include "backends/llvm/object_file.h"
#include "runtime/kernel_table.h"
#include "tensorir/error.h"

namespace tensorir::llvm_backend {

namespace {

// `s` inside an LLVM IR string or quoted name: anything but plain characters as \XX.
std::string ir_escape(const std::string &s) {
  std::string out;
  for (unsigned char c : s) {
    if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
      out += char(c);
    } else {
      char buf[4];
      std::snprintf(buf, sizeof buf, "\\%02X", c);
      out += buf;
    }
  }
  return out;
}

// The extents of a buffer argument, -1 for a symbolic one; a saved model's table
// (`open` false) has constant shapes only.
std::string shape_ir(const FuncSignature &s, const ArgSpec &arg, bool open) {
  std::string out = "[";
  for (size_t d = 0; d < arg.shape.size(); ++d) {
    const bool symbolic = arg.shape[d].symbol >= 0 && arg.shape[d].coeff != 0;
    TIR_ASSERT(open || !symbolic) << "kernel " << s.name << " has a symbolic dimension";
    out += (d ? ", i64 " : "i64 ") + std::to_string(symbolic ? -1 : arg.shape[d].offset);
  }
  return out + "]";
}

std::string kernel_table_ir(const std::vector<FuncSignature> &sigs, uint32_t plan_fnv1a32, const char *symbol,
                            bool open) {
  std::ostringstream ir;
  ir << "%arg = type { i32, i32, i32, i32, ptr }\n"
     << "%kernel = type { ptr, ptr, i32, i32, ptr }\n"
     << "%table = type { i32, i32, i32, i32, ptr }\n";
  std::ostringstream entries;
  for (size_t k = 0; k < sigs.size(); ++k) {
    const FuncSignature &s = sigs[k];
    TIR_ASSERT(open || s.symbols.empty())
        << "kernel " << s.name << " has shape symbols; saved kernels have constant shapes";
    const std::string id = std::to_string(k);
    ir << "declare i32 @\"" << ir_escape(s.name) << "\"(ptr)\n";
    ir << "@name." << id << " = private unnamed_addr constant [" << s.name.size() + 1 << " x i8] c\""
       << ir_escape(s.name) << "\\00\"\n";
    std::ostringstream args;
    for (size_t a = 0; a < s.args.size(); ++a) {
      const ArgSpec &arg = s.args[a];
      TIR_ASSERT(open || arg.is_buffer()) << "kernel " << s.name << " has a scalar argument '" << arg.name << "'";
      std::string shape = "null";
      if (arg.is_buffer() && !arg.shape.empty()) {
        shape = "@shape." + id + "." + std::to_string(a);
        ir << shape << " = private unnamed_addr constant [" << arg.shape.size() << " x i64] " << shape_ir(s, arg, open)
           << "\n";
      }
      const int ndim = arg.is_buffer() ? int(arg.shape.size()) : -1;
      args << (a ? ", " : "") << "%arg { i32 " << int(arg.dtype.code()) << ", i32 " << arg.dtype.bits() << ", i32 "
           << arg.dtype.lanes() << ", i32 " << ndim << ", ptr " << shape << " }";
    }
    ir << "@args." << id << " = private unnamed_addr constant [" << s.args.size() << " x %arg] [" << args.str()
       << "]\n";
    entries << (k ? ", " : "") << "%kernel { ptr @name." << id << ", ptr @\"" << ir_escape(s.name) << "\", i32 "
            << s.args.size() << ", i32 " << s.symbols.size() << ", ptr @args." << id << " }";
  }
  ir << "@kernels = private unnamed_addr constant [" << sigs.size() << " x %kernel] [" << entries.str() << "]\n";
  ir << "@" << symbol << " = constant %table { i32 " << runtime::kKernelTableMagic << ", i32 "
     << runtime::kKernelTableVersion << ", i32 " << sigs.size() << ", i32 " << int32_t(plan_fnv1a32) << ", ptr @kernels }\n";
  return ir.str();
}

}  // namespace

void write_kernel_table(const std::vector<FuncSignature> &kernels, uint32_t plan_fnv1a32, const Target &target,
                        const std::string &path, const char *symbol) {
  std::vector<FuncSignature> unique;
  std::set<std::string> seen;
  for (const FuncSignature &s : kernels)
    if (seen.insert(s.name).second) unique.push_back(s);
  const bool open = std::string(symbol) == runtime::kModuleTableSymbol;
  std::string ir = kernel_table_ir(unique, plan_fnv1a32, symbol, open);
  if (open) {
    const ObjectMachine machine = object_machine(target);
    std::string text = machine.cpu;
    for (size_t i = 0; i < machine.features.size(); ++i) text += (i ? "," : " ") + machine.features[i];
    ir += "@" + std::string(runtime::kModuleMachineSymbol) + " = constant [" + std::to_string(text.size() + 1) +
          " x i8] c\"" + ir_escape(text) + "\\00\"\n";
  }
  write_object(ir, target, path);
}

}  // namespace tensorir::llvm_backend
