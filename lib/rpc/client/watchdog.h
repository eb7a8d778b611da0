// Runs an action when a deadline passes before it is disarmed: a request's timeout
// (ConnectOptions::request_timeout_ms). One thread per watchdog, started on first use,
// waits for the deadlines armed one at a time.
#pragma once
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

namespace tensorir::rpc {

class Watchdog {
 public:
  Watchdog() = default;
  Watchdog(const Watchdog &) = delete;
  Watchdog &operator=(const Watchdog &) = delete;
  ~Watchdog();

  // Calls `action` on the watchdog's thread `ms` milliseconds from now unless disarm()
  // comes first. Replaces a deadline armed before.
  void arm(int ms, std::function<void()> action);
  // Cancels the deadline; once it returns, the action is not running and will not run.
  void disarm();

 private:
  void run();

  std::mutex mu_;
  std::condition_variable cv_;
  std::thread thread_;
  bool armed_ = false, firing_ = false, stop_ = false;
  std::chrono::steady_clock::time_point deadline_;
  std::function<void()> action_;
};

// Arms `dog` for one scope (ms <= 0: not at all).
class ArmedWatchdog {
 public:
  ArmedWatchdog(Watchdog &dog, int ms, std::function<void()> action) : dog_(ms > 0 ? &dog : nullptr) {
    if (dog_) dog_->arm(ms, std::move(action));
  }
  ~ArmedWatchdog() {
    if (dog_) dog_->disarm();
  }
  ArmedWatchdog(const ArmedWatchdog &) = delete;
  ArmedWatchdog &operator=(const ArmedWatchdog &) = delete;

 private:
  Watchdog *dog_;
};

}  // namespace tensorir::rpc
