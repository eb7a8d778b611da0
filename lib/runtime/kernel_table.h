// The one symbol a saved model's model.so exports: a table of its kernels, each with its
// function and its arguments' dtypes and constant shapes. The loader finds kernels only
// here, never by name through the dynamic linker (which would also find libc's abort or
// free), and checks the plan's calls against the shapes the kernels were compiled for.
// The saver writes it as LLVM IR (backends/llvm/kernel_table.cpp) with these layouts.
//
// A library that Module::save(path, "so") writes carries the same table under a name of
// its own (so that it is never taken for a saved model's), with the fingerprint 0 and
// what a module's functions may have besides: scalar arguments (ndim -1, no shape),
// symbolic extents (-1) and shape symbols (num_symbols values after the arguments).
#pragma once
#include <cstdint>

#include "tensorir/runtime/module.h"

namespace tensorir::runtime {

inline constexpr const char *kKernelTableSymbol = "tensorir_model_kernels";
inline constexpr const char *kModuleTableSymbol = "tensorir_module_kernels";
// A module's library also says what it was compiled for: "CPU +feature,-feature,..." (LLVM
// names, as a saved model's model.json records them), a NUL-terminated string.
inline constexpr const char *kModuleMachineSymbol = "tensorir_module_machine";
inline constexpr uint32_t kKernelTableMagic = 0x4b524954;  // "TIRK", little-endian
// 2: the table carries the plan's fingerprint (runtime::plan_fingerprint).
inline constexpr uint32_t kKernelTableVersion = 2;

extern "C" {
// LLVM: { i32, i32, i32, i32, ptr }
struct TirKernelArg {
  int32_t code, bits, lanes;  // Type's
  int32_t ndim;          // -1: a scalar (module tables only)
  const int64_t *shape;  // ndim extents; -1: symbolic (module tables only)
};
// LLVM: { ptr, ptr, i32, i32, ptr }
struct TirKernel {
  const char *name;  // NUL-terminated
  RawFunction fn;
  int32_t num_args;
  int32_t num_symbols;       // 0 in a saved model's table
  const TirKernelArg *args;  // num_args, the result last
};
// LLVM: { i32, i32, i32, i32, ptr }
struct TirKernelTable {
  uint32_t magic, version, count;
  uint32_t plan_fnv1a32;  // the plan saved with this library (plan_fingerprint)
  const TirKernel *kernels;
};
}

static_assert(sizeof(void *) == 8 && sizeof(TirKernelArg) == 24 && sizeof(TirKernel) == 32 &&
              sizeof(TirKernelTable) == 24, "the layouts the saver writes in LLVM IR");

}  // namespace tensorir::runtime
