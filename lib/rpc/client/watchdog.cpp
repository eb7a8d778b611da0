// The deadline thread of watchdog.h.
#include "rpc/client/watchdog.h"

namespace tensorir::rpc {

Watchdog::~Watchdog() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void Watchdog::arm(int ms, std::function<void()> action) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!thread_.joinable()) thread_ = std::thread([this] { run(); });
  deadline_ = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
  action_ = std::move(action);
  armed_ = true;
  cv_.notify_all();
}

void Watchdog::disarm() {
  std::unique_lock<std::mutex> lock(mu_);
  armed_ = false;
  cv_.notify_all();
  cv_.wait(lock, [this] { return !firing_; });
}

void Watchdog::run() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stop_) {
    if (!armed_) {
      cv_.wait(lock);
      continue;
    }
    if (cv_.wait_until(lock, deadline_) != std::cv_status::timeout || !armed_ ||
        std::chrono::steady_clock::now() < deadline_)
      continue;
    armed_ = false;
    firing_ = true;
    std::function<void()> action = std::move(action_);
    lock.unlock();
    action();
    lock.lock();
    firing_ = false;
    cv_.notify_all();
  }
}

}  // namespace tensorir::rpc
