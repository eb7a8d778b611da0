// The timing loop (time_calls.h), on a steady clock.
#include "runtime/time_calls.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <memory>

#include "tensorir/error.h"

namespace tensorir::runtime {

namespace {

// Overwrites `bytes` of a buffer kept for the purpose, a different value each time.
std::function<void()> evictor(int64_t bytes) {
  if (bytes == 0) return nullptr;
  auto scratch = std::make_shared<std::vector<uint32_t>>(size_t(bytes) / sizeof(uint32_t));
  return [scratch, value = uint32_t{0}]() mutable { std::fill(scratch->begin(), scratch->end(), ++value); };
}

}  // namespace

void check_time_options(const TimeOptions &o, const std::string &who) {
  TIR_USER_CHECK(o.number >= 1 && o.repeat >= 1 && o.min_repeat_ms >= 0)
      << who << ": number and repeat must be at least 1 and min_repeat_ms not negative (got number=" << o.number
      << ", repeat=" << o.repeat << ", min_repeat_ms=" << o.min_repeat_ms << ")";
  // A repeat runs until it has taken min_repeat_ms: a day's worth is no measurement.
  TIR_USER_CHECK(o.min_repeat_ms <= kMaxRepeatMs)
      << who << ": min_repeat_ms is " << o.min_repeat_ms << "; use at most " << kMaxRepeatMs << " (an hour)";
  TIR_USER_CHECK(o.evict_bytes >= 0 && o.evict_bytes <= kMaxEvictBytes)
      << who << ": evict_bytes is " << o.evict_bytes << "; use 0 (calls back to back) up to 1 GiB";
}

std::vector<double> time_calls(const std::function<void()> &call, const TimeOptions &options,
                               const std::function<void()> &before_each_in) {
  using Clock = std::chrono::steady_clock;
  check_time_options(options, "timing");
  const std::function<void()> before_each = before_each_in ? before_each_in : evictor(options.evict_bytes);
  const bool evicting = !before_each_in && before_each;  // a repeat is `number` calls
  // `number` calls' milliseconds: back to back, or each alone after before_each.
  auto run = [&](int number) {
    if (!before_each) {
      const auto start = Clock::now();
      for (int i = 0; i < number; ++i) call();
      return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    }
    double ms = 0;
    for (int i = 0; i < number; ++i) {
      before_each();
      const auto start = Clock::now();
      call();
      ms += std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    }
    return ms;
  };
  call();  // warm-up: first-call costs stay out of the figures
  std::vector<double> times;
  for (int r = 0; r < options.repeat; ++r) {
    int number = options.number;
    for (;;) {
      const double ms = run(number);
      if (ms >= options.min_repeat_ms || evicting || number > (1 << 24)) {
        times.push_back(ms / number);
        break;
      }
      number *= 2;
    }
  }
  return times;
}

}  // namespace tensorir::runtime
