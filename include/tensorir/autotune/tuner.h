// Tuning: measuring configurations of tasks, guided by a cost model, into a log.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "tensorir/autotune/record.h"
#include "tensorir/autotune/task.h"

namespace tensorir::autotune {

struct Progress {
  int task = 0, tasks = 0;
  int trials_done = 0, trials = 0;
  double best_gflops = 0;
  double elapsed_s = 0, estimated_left_s = 0;
  const Task *current = nullptr;
};

struct TuneOptions {
  int trials = 200;             // measured configurations per task, at most
  double time_budget_s = 0;     // > 0: stop when the whole run has taken this long
  std::string log_file;         // records are appended here as they are measured
  std::string tuner = "xgb";    // "xgb" (cost-model guided), "random"
  int threads = 0;              // threads the kernels run on; 0: the runtime's default
  double timeout_s = 10;        // per candidate, build and run each
  std::string rpc_address;      // measure on a remote ("HOST:PORT") instead of here
  std::string rpc_key;
  // Called after each batch: task k of n, trials done, best GFLOP/s so far.
  std::function<void(const Progress &)> on_progress;
};

// Tunes each task in turn; returns every record it made (also appended to the log).
std::vector<Record> tune(const std::vector<Task> &tasks, const TuneOptions &options = {});

}  // namespace tensorir::autotune
