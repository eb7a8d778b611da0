// Tuning: measuring configurations of tasks, guided by a cost model, into a log.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "tensorir/autotune/record.h"
#include "tensorir/autotune/task.h"
#include "tensorir/runtime/module.h"

namespace tensorir::autotune {

struct Progress {
  int task = 0, tasks = 0;
  int trials_done = 0, trials = 0;
  double best_gflops = 0;
  double elapsed_s = 0, estimated_left_s = 0;
  const Task *current = nullptr;
};

// How one built candidate is timed.
struct MeasureOptions {
  // After one untimed call, `repeat` runs of at least `min_repeat_ms` each.
  TimeOptions time{.number = 1, .repeat = 3, .min_repeat_ms = 10};
  double timeout_s = 10;  // for the whole measurement of one candidate (its run, not its build)
  int threads = 0;        // threads the kernel runs on; 0: the runtime's default
  // Time each call cold, as inside a model whose weights pass through the caches once per
  // inference: before every timed call the kernel's buffer arguments are flushed from the
  // CPU caches, untimed (local runners, CPU kernels). A remote cannot be told which lines
  // to flush: for a kernel of its CPU ("llvm", "wasm") the RPC runner asks it to overwrite
  // `remote_evict_bytes` of its own memory instead (TimeOptions::evict_bytes), each call
  // then timed alone, a repeat being `number` calls; so does the local runner for a device
  // that computes in the CPU's caches ("opencl" on a CPU driver).
  bool flush_cache = true;
  int64_t remote_evict_bytes = int64_t{256} << 20;
};

// One candidate's measurement: each repeat's mean milliseconds per call, or why there is
// none (a build error, a crash, a timeout, a wrong result).
struct MeasureResult {
  std::vector<double> times_ms;
  std::string error;
  int threads = 0;  // the CPU threads the kernel ran on; 0 where that is not known (a remote) or not a CPU's
};

// Where built candidates run and are timed. A runner gets the kernel's arguments as host
// arrays (random inputs, the same for every candidate of a task) and, when correctness is
// checked, the arrays after one call of the reference configuration: a candidate whose
// arrays differ from them (checked with check_outputs) is an error.
class Runner {
 public:
  virtual ~Runner() = default;
  virtual MeasureResult run(const Module &module, const std::string &function,
                            const std::vector<NDArray> &args, const std::vector<NDArray> *expected,
                            const MeasureOptions &options) = 0;
  // Calls `function` once on copies of `args` where the runner runs kernels and returns
  // the arrays after the call: the correctness check's reference. By default here, which
  // suits only kinds that run in this process (TargetCaps::runs_in_process).
  virtual std::vector<NDArray> outputs(const Module &module, const std::string &function,
                                       const std::vector<NDArray> &args);
};

// Times each candidate here, in a child process of its own (fork), so that a kernel that
// crashes or hangs costs one trial: the crash's signal or the timeout becomes its error.
// Modules of kinds whose tensors are not in host memory (TargetCaps::device) run in this
// process instead, as their contexts do not survive fork.
std::shared_ptr<Runner> local_runner();

// "" when `got` matches `expected` array by array (floats within 1e-3 relative and
// absolute), else which array and element differ.
std::string check_outputs(const std::vector<NDArray> &got, const std::vector<NDArray> &expected);

struct TuneOptions {
  int trials = 200;             // measured configurations per task, at most
  // > 0: the whole run takes at most this long, as far as its pace tells: a batch (and a
  // task's confirmation after it) that would end past the task's share at the task's
  // seconds per trial so far is not started. Each task first measures one batch (its
  // default among them); the time left is then shared by the time the task takes in the
  // model, its best time so far times Task::occurrences (time_shares; unused time passes
  // on to the next task).
  double time_budget_s = 0;
  std::string log_file;         // records are appended here as they are measured
  std::string tuner = "xgb";    // "xgb" (cost-model guided), "random"
  int batch_size = 8;           // configurations built together, then timed one by one
  int build_threads = 0;        // threads that build a batch; 0: the cores, at most batch_size
  double build_timeout_s = 60;  // a build slower than this is recorded as an error; 0: no limit
  uint64_t seed = 0;            // the search's random choices, and the inputs
  MeasureOptions measure;       // threads, timeout and repeats of each measurement
  // Compare every candidate's arrays after one call with those of the task's default
  // configuration (Task::default_index, the schedule built without a log); a mismatch is
  // recorded as an error. Candidates whose arguments differ from the default's (knobs
  // that block a layout) are timed unchecked.
  bool check_correctness = false;
  // After its search, each task times its `confirm` best configurations and its default
  // again, `confirm_rounds` times each in turn, so that a configuration timed fast once
  // by chance (a quiet moment of a busy machine) is not taken for the best. With a time
  // budget the search leaves room for it. 0: no confirmation.
  int confirm = 3;
  int confirm_rounds = 2;
  // Search the knobs that decide which thread computes which part of a result
  // (Config::define_partition_knob) too. Off by default: timed alone a kernel cannot
  // tell how its partition meets the one the kernel before it wrote its input in, and a
  // partition faster alone can be slower in the model (MobileNetV2's depthwise layers
  // run in bands of rows; whole channel groups in parallel timed 1.04x faster alone and
  // ran 1.6x slower at 2 threads in the model). Each then keeps its fallback.
  bool tune_partition = false;
  // Where candidates are timed; null: local_runner().
  std::shared_ptr<Runner> runner;
  // Called after each batch: task k of n, trials done, best GFLOP/s so far.
  std::function<void(const Progress &)> on_progress;
};

// Tunes each task in turn; returns every record it made (also appended to the log).
std::vector<Record> tune(const std::vector<Task> &tasks, const TuneOptions &options = {});

// The shares of a time budget, one per task, summing to 1: in proportion to the time the
// task takes in the model, `best_ms[k]` (its fastest measurement so far; 0 for none) times
// its occurrences. A task with no measurement counts as the mean of those with one (by
// occurrences alone when none has one).
std::vector<double> time_shares(const std::vector<Task> &tasks, const std::vector<double> &best_ms);

}  // namespace tensorir::autotune
