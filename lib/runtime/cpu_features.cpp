// Host CPU features through the compiler's cpu-supports builtins (x86 only; elsewhere
// nothing can be told and nothing is checked).
#include "runtime/cpu_features.h"

#include <cstring>

namespace tensorir::runtime {

int host_has_cpu_feature(const std::string &feature) {
#if defined(__x86_64__) || defined(__i386__)
  // The builtin takes string literals: one entry per feature, LLVM's name first.
#define TIR_CPU_FEATURE(llvm_name, gcc_name) \
  if (feature == llvm_name) return __builtin_cpu_supports(gcc_name) ? 1 : 0;
  TIR_CPU_FEATURE("sse3", "sse3")
  TIR_CPU_FEATURE("ssse3", "ssse3")
  TIR_CPU_FEATURE("sse4.1", "sse4.1")
  TIR_CPU_FEATURE("sse4.2", "sse4.2")
  TIR_CPU_FEATURE("popcnt", "popcnt")
  TIR_CPU_FEATURE("avx", "avx")
  TIR_CPU_FEATURE("avx2", "avx2")
  TIR_CPU_FEATURE("fma", "fma")
  TIR_CPU_FEATURE("bmi", "bmi")
  TIR_CPU_FEATURE("bmi2", "bmi2")
  TIR_CPU_FEATURE("aes", "aes")
  TIR_CPU_FEATURE("pclmul", "pclmul")
  TIR_CPU_FEATURE("avx512f", "avx512f")
  TIR_CPU_FEATURE("avx512vl", "avx512vl")
  TIR_CPU_FEATURE("avx512bw", "avx512bw")
  TIR_CPU_FEATURE("avx512dq", "avx512dq")
  TIR_CPU_FEATURE("avx512cd", "avx512cd")
  TIR_CPU_FEATURE("avx512vnni", "avx512vnni")
  TIR_CPU_FEATURE("avx512bf16", "avx512bf16")
  TIR_CPU_FEATURE("avx512vbmi", "avx512vbmi")
  TIR_CPU_FEATURE("avx512vbmi2", "avx512vbmi2")
  TIR_CPU_FEATURE("avx512ifma", "avx512ifma")
  TIR_CPU_FEATURE("avx512bitalg", "avx512bitalg")
  TIR_CPU_FEATURE("avx512vpopcntdq", "avx512vpopcntdq")
  TIR_CPU_FEATURE("gfni", "gfni")
  TIR_CPU_FEATURE("vpclmulqdq", "vpclmulqdq")
  // AMD's own (Bulldozer family): -mcpu=bdver2 implies them, current CPUs lack them.
  TIR_CPU_FEATURE("sse4a", "sse4a")
  TIR_CPU_FEATURE("fma4", "fma4")
  TIR_CPU_FEATURE("xop", "xop")
#undef TIR_CPU_FEATURE
#endif
  (void)feature;
  return -1;
}

std::vector<std::string> missing_cpu_features(const std::vector<std::string> &features,
                                              const std::function<int(const std::string &)> &has) {
  std::vector<std::string> missing;
  for (const std::string &f : features)
    if (f.size() > 1 && f[0] == '+' && has(f.substr(1)) == 0) missing.push_back(f.substr(1));
  return missing;
}

}  // namespace tensorir::runtime
