// The timing loop (time_calls.h), on a steady clock.
#include "runtime/time_calls.h"

#include <chrono>

namespace tensorir::runtime {

std::vector<double> time_calls(const std::function<void()> &call, const TimeOptions &options,
                               const std::function<void()> &before_each) {
  using Clock = std::chrono::steady_clock;
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
