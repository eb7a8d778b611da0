// Tuning logs in tests: temporary log files, records of a task's configurations.
#pragma once
#include <tensorir/autotune.h>
#include <tensorir/graph/executor.h>
#include <tensorir/graph/graph.h>
#include <tensorir/warning.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "graph/graph_test_util.h"

namespace tensorir::autotune_test {

// A log file in a fresh temporary directory, removed with the object.
struct TempLog {
  graph_test::TempDir dir;
  std::string path;
  explicit TempLog(const std::string &name) : dir("autotune_" + name) {
    std::filesystem::create_directories(dir.path);
    path = dir.str("tuning.log");
  }
};

// data [1, 16, 12, 12] -> conv 3x3 to 32 channels -> bias -> relu.
inline graph::Graph conv_graph() {
  graph::Builder b;
  auto x = b.input("x", {1, 16, 12, 12});
  auto w = b.constant("w", NDArray::random({32, 16, 3, 3}, Float(32), 21));
  auto bias = b.constant("bias", NDArray::random({32}, Float(32), 22));
  ops::Conv2dAttrs a;
  a.padding = {1, 1};
  return b.finish(b.relu(b.bias_add(b.conv2d(x, w, a, "conv"), bias)));
}

inline autotune::Record record_of(const autotune::Task &t, int64_t index, std::vector<double> times) {
  autotune::Record r;
  r.workload = t.workload;
  r.target = t.target.str();
  r.cpu = autotune::host_cpu_features();
  r.index = index;
  r.config_json = t.config_json(index);
  r.times_ms = std::move(times);
  r.timestamp = 1.5e9;
  return r;
}

// A configuration of `t` other than its default.
inline int64_t another(const autotune::Task &t) { return t.default_index == 0 ? 1 : 0; }

// A log in which another configuration than the default measured far faster, for each
// task that has another; its records carry `cpu` as vector features ("" as a search on a
// remote writes them).
inline std::vector<autotune::Record> log_preferring_others(const std::vector<autotune::Task> &tasks,
                                                          const std::string &cpu = autotune::host_cpu_features()) {
  std::vector<autotune::Record> log;
  for (const autotune::Task &t : tasks) {
    if (t.space_size() < 2) continue;
    autotune::Record def = record_of(t, t.default_index, {1.0});
    def.is_default = true;
    autotune::Record other = record_of(t, another(t), {0.01});
    def.cpu = other.cpu = cpu;
    log.push_back(def);
    log.push_back(other);
  }
  return log;
}

// Configuration JSON `config` with knob `name` set to `value` (null: removed).
inline std::string json_with_knob(const std::string &config, const std::string &name, const nlohmann::json &value) {
  nlohmann::json j = nlohmann::json::parse(config);
  if (value.is_null())
    j.erase(name);
  else
    j[name] = value;
  return j.dump();
}

// The first configuration of `t` whose JSON holds every one of `parts`.
inline int64_t find_config(const autotune::Task &t, const std::vector<std::string> &parts) {
  for (int64_t i = 0; i < t.space_size(); ++i) {
    const std::string j = t.config_json(i);
    bool all = true;
    for (const std::string &p : parts) all = all && j.find(p) != std::string::npos;
    if (all) return i;
  }
  FAIL("no configuration of " << t.name << " has all of the given values");
  return -1;
}

// graph::build of `g` for `target` with `o`, the warnings it gives in `warnings`.
inline graph::CompiledModel build_warning(const graph::Graph &g, const graph::BuildOptions &o,
                                          std::vector<std::string> &warnings, const std::string &target = "llvm") {
  const WarningHandler previous = set_warning_handler([&](const std::string &m) { warnings.push_back(m); });
  try {
    graph::CompiledModel m = graph::build(g, target, o);
    set_warning_handler(previous);
    return m;
  } catch (...) {
    set_warning_handler(previous);
    throw;
  }
}

// graph::build of `g` for "llvm" with a log of the one record `r`, the warnings it gives
// in `warnings`.
inline graph::CompiledModel build_with_record(const graph::Graph &g, const autotune::Record &r,
                                              std::vector<std::string> &warnings) {
  TempLog log("one_record");
  autotune::append_record(log.path, r);
  graph::BuildOptions o;
  o.tuning_log = log.path;
  return build_warning(g, o, warnings);
}

}  // namespace tensorir::autotune_test
