// The CPU features a saved model's machine code uses, checked against the CPU it is
// loaded on, so that a model saved on a newer machine fails to load with a message
// instead of dying of an illegal instruction in its first kernel. The JIT checks a
// module built for another CPU (-mcpu=, -mattr=+...) the same way before calling it.
#pragma once
#include <functional>
#include <string>
#include <vector>

namespace tensorir::runtime {

// Whether this CPU has `feature` (an LLVM feature name such as "avx2"): 1 or 0, or -1
// when this build cannot tell (then the feature is not checked).
int host_has_cpu_feature(const std::string &feature);

// The features of `features` ("+avx2", "-avx512f", ...) that are enabled ("+") and that
// `has` reports missing (0); features it cannot tell about (-1) are skipped.
std::vector<std::string> missing_cpu_features(const std::vector<std::string> &features,
                                              const std::function<int(const std::string &)> &has = host_has_cpu_feature);

class LoadedModel;
// runtime::load_model with `has_cpu_feature` in place of the host's features (for tests).
LoadedModel load_model(const std::string &dir, const std::function<int(const std::string &)> &has_cpu_feature);

}  // namespace tensorir::runtime
