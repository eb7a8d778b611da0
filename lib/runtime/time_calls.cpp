// The timing loop (time_calls.h), on a steady clock.
#include "runtime/time_calls.h"

#include <chrono>

namespace tensorir::runtime {

std::vector<double> time_calls(const std::function<void()> &call, const TimeOptions &options) {
  using Clock = std::chrono::steady_clock;
  call();  // warm-up: first-call costs stay out of the figures
  std::vector<double> times;
  for (int r = 0; r < options.repeat; ++r) {
    int number = options.number;
    for (;;) {
      const auto start = Clock::now();
      for (int i = 0; i < number; ++i) call();
      const double ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
      if (ms >= options.min_repeat_ms || number > (1 << 24)) {
        times.push_back(ms / number);
        break;
      }
      number *= 2;
    }
  }
  return times;
}

}  // namespace tensorir::runtime
