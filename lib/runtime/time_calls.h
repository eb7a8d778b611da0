// The timing loop of Module::time_evaluator, for anything that can be called: a kernel,
// a whole model.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "tensorir/runtime/module.h"

namespace tensorir::runtime {

// One untimed call, then `options.repeat` runs of `options.number` calls, each run done
// again with twice the calls while it is shorter than `options.min_repeat_ms`: each
// run's mean milliseconds per call. `call` must have finished its work when it returns.
// With `before_each` (e.g. flushing the caches), or else with options.evict_bytes, it
// runs before every timed call and each call is timed alone, so that its cost stays out
// of the figures; with evict_bytes a repeat is `number` calls, min_repeat_ms aside.
std::vector<double> time_calls(const std::function<void()> &call, const TimeOptions &options,
                               const std::function<void()> &before_each = nullptr);

constexpr int64_t kMaxEvictBytes = int64_t{1} << 30;
// The longest min_repeat_ms: an hour.
constexpr double kMaxRepeatMs = 3600e3;
// Throws an Error, prefixed with `who`, unless number and repeat are at least 1,
// min_repeat_ms lies in 0 to kMaxRepeatMs and evict_bytes in 0 to kMaxEvictBytes.
void check_time_options(const TimeOptions &options, const std::string &who);

}  // namespace tensorir::runtime
