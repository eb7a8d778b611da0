// Checking a tuning log inside its model: each workload's best configuration timed where
// it runs, between the model's other kernels, against the default configuration.
//
//   autotune::ModelCheck c = autotune::check_in_model(graph, "llvm", autotune::read_log("m.log"));
//   for (const autotune::Record &r : c.records) autotune::append_record("m.log", r);
//
// A task is timed alone, its inputs and weights flushed from the caches before each call.
// Inside a model the kernel before it has just written its input, so a configuration can
// rank otherwise there: one faster alone can be slower in the model (MobileNetV2's 7x7
// expansion layers measured 0.044 against 0.048 ms alone, and 0.161 against 0.083 in the
// model). The records this makes (Record::in_model) rank their workload from then on.
#pragma once
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "tensorir/autotune/record.h"
#include "tensorir/graph/executor.h"
#include "tensorir/runtime/ndarray.h"
#include "tensorir/target.h"

namespace tensorir::autotune {

// A model loaded where it is timed: each kernel's time per call over `repeats` profiled
// runs, in the model's kernel order (the mean here, the median on a browser page). KernelProfile::fused may be left empty: the check finds it
// from the model by KernelProfile::node.
using ModelProfiler = std::function<std::vector<graph::KernelProfile>(int repeats)>;

struct ModelCheckOptions {
  // The two models run in turns, `rounds` times `repeats` profiled runs each, so that a
  // busy moment of the machine falls on both; a record has one time per round.
  int rounds = 5;
  int repeats = 20;
  // The thread counts the models are timed at, each in every round. Empty: 1 and the
  // runtime's default (num_threads()), once where they are the same: a model built once
  // runs at whatever count its program sets, and a configuration faster on every core can
  // be slower on one.
  std::vector<int> threads;
  // The graph's inputs by name; inputs not given are seeded random (floating-point inputs
  // only: another dtype must be given).
  std::map<std::string, NDArray> inputs;
  uint64_t seed = 0;
  // The options both models are built with; their `tuning` and `tuning_log` are set here.
  graph::BuildOptions build;
  // The model built already from the same graph, target and `build` without a log, or null.
  const graph::CompiledModel *without_log = nullptr;
  // Where the models are timed. Unset: here, at each of `threads` (set_num_threads). Set
  // (tensorir tune --rpc): called once per model with the check's inputs, it loads the
  // model where it runs (a browser page, a server) and returns how to profile it there;
  // `threads` must then name the one count the remote runs its models at, which the
  // records carry. The records of a remote's CPU kernels carry no vector features
  // (Record::cpu), as the search's records made there.
  std::function<ModelProfiler(const graph::CompiledModel &, const std::map<std::string, NDArray> &)> remote;
  // Told what is being done ("building the model with the log", ...).
  std::function<void(const std::string &)> on_step;
};

// One checked workload: its kernels' mean time per call inside the model, with the
// default and with the log's configuration (the median over rounds), per thread count
// (ModelCheck::threads).
struct CheckedWorkload {
  std::string workload;
  std::string name;  // the task's, for people
  int kernels = 0;   // the model's kernels that run it
  std::vector<double> default_ms, tuned_ms;
  // ApplyHistoryBest of the check's records keeps the log's configuration: it ran faster
  // at every thread count.
  bool keeps_tuned = false;
};

struct ModelCheck {
  std::vector<int> threads;  // the thread counts timed
  // Per checked workload and thread count, two records (Record::in_model): the default
  // configuration's (Record::is_default), then the log's best.
  std::vector<Record> records;
  std::vector<CheckedWorkload> workloads;  // in the graph's order
  // Per thread count, the whole model's run time (the sum of its kernels' times, median
  // over rounds) built without a log, and with `log`.
  std::vector<double> default_model_ms, tuned_model_ms;
};

// Every input of `g` by name: from `given`, else seeded random (seed, seed + 1, ... in the
// graph's order) where its dtype is a floating-point one; another throws an Error naming it.
std::map<std::string, NDArray> seeded_inputs(const graph::Graph &g, const std::map<std::string, NDArray> &given,
                                             uint64_t seed);

// Builds `g` for `target` without a log and with `log` (ApplyHistoryBest of it, leaving
// out records made by an earlier check), profiles the two in turns at each thread count,
// and times in the model each workload whose best configuration in the log is not its
// default. Without ModelCheckOptions::remote, targets whose models do not run in this
// process (TargetCaps::runs_in_process) throw an Error; so does a workload of the log that
// the model's kernels cannot be traced to.
ModelCheck check_in_model(const graph::Graph &g, const Target &target, const std::vector<Record> &log,
                          const ModelCheckOptions &options = {});

}  // namespace tensorir::autotune
