// A tuning task: one distinct workload of a graph on one target, and its space of
// configurations (include/tensorir/autotune.h has the whole picture).
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "tensorir/lower.h"
#include "tensorir/target.h"

namespace tensorir::graph {
class Graph;
}

namespace tensorir::autotune {

// One configuration of a task scheduled: the schedule and the kernel's arguments, ready
// for tensorir::lower and tensorir::build.
struct Instance {
  Schedule schedule;
  std::vector<BuildArg> args;
  std::string name;  // the kernel's function name
  // The target to build it for: the task's, with the options its knobs set (knobs named
  // after an option of the target's kind, such as webgl's "draw-buffers"). Empty: the
  // task's target. (Initialized so that {schedule, args, name} stays warning-free.)
  Target target = Target();
};

struct Task {
  std::string name;      // for people: "conv2d 1x64x56x56 k64 3x3 s1", ...
  std::string workload;  // the key of its records: canonical JSON of op, shapes, dtypes, attributes
  Target target;
  double flops = 0;      // per call, for GFLOP/s
  int occurrences = 1;   // the nodes of the graph that run this workload
  std::string first_node;  // the name of the first of them, for messages
  // The number of choices of each knob, in declaration order; a configuration's index is
  // mixed-radix over them (knob 0 varies fastest).
  std::vector<int64_t> knob_sizes;
  std::vector<std::string> knob_names;
  // Per knob: asked by Config::define_partition_knob (which thread computes which part).
  std::vector<bool> knob_partition;
  // The configuration of every knob's fallback: the schedule graph::build uses without a
  // tuning log.
  int64_t default_index = 0;
  // The workload scheduled with configuration `index` in [0, space_size()); thread-safe.
  std::function<Instance(int64_t index)> instantiate;
  // The workload scheduled with the configuration `config_json` describes (a record's, as
  // graph::build applies it; knobs it does not name take their fallbacks, optional knobs
  // their value from before they existed); thread-safe.
  std::function<Instance(const std::string &config_json)> instantiate_json;
  // The configuration's knob values as a JSON object (name -> value), for records.
  std::function<std::string(int64_t index)> config_json;
  // Why a record's configuration `config_json` does not fit this template (a knob it
  // lacks, a value that is not among its knob's choices, not a JSON object of integers),
  // or "" when it fits: logs of another version of the templates hold such records.
  std::function<std::string(const std::string &config_json)> misfit;

  int64_t space_size() const;
};

// One distinct workload per task, in the graph's order, for the target's tunable
// operators (after the graph passes graph::build runs for that target). A convolution
// graph::build may compute by Winograd (graph::winograd_eligible, CPU schedules) is a
// conv2d task whose first knob "winograd" chooses the algorithm: 0 direct, or the tile
// 2, 4 or 6 of conv2d_winograd, reading the transformed weight as an argument (graph::build
// transforms it once); by default the tile graph::build picks without a log. Its other
// knobs are the direct template's and the Winograd schedule's, whichever it builds.
std::vector<Task> extract_tasks(const graph::Graph &g, const Target &target);

}  // namespace tensorir::autotune
