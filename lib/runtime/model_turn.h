// A model's turn for one call (run, profile): its results live in storage of its own, so
// calls from several threads take turns. A call from the thread whose call holds the turn
// (an extern function a kernel calls, running the same model again) would wait for itself
// for ever: that is an Error instead.
#pragma once
#include <atomic>
#include <mutex>
#include <thread>

#include "tensorir/error.h"

namespace tensorir::runtime {

class ModelTurns {
 public:
  class Turn {
   public:
    Turn(ModelTurns &turns, const char *what) : turns_(turns) {
      TIR_USER_CHECK(turns.owner_.load() != std::this_thread::get_id())
          << what << ": the model is already running on this thread (an extern function a kernel calls runs it "
          << "again?); a model's results are in its own storage, which that run is using: build or load the "
          << "model a second time for the inner call";
      turns.mu_.lock();
      turns.owner_.store(std::this_thread::get_id());
    }
    ~Turn() {
      turns_.owner_.store(std::thread::id());
      turns_.mu_.unlock();
    }
    Turn(const Turn &) = delete;
    Turn &operator=(const Turn &) = delete;

   private:
    ModelTurns &turns_;
  };

 private:
  std::mutex mu_;
  std::atomic<std::thread::id> owner_{};
};

}  // namespace tensorir::runtime
