// A tuning log checked inside its model: the workloads timed there, the records that rank
// them from then on, and what cannot be checked.
#include <tensorir/graph/executor.h>

#include <algorithm>

#include "autotune/log_test_util.h"

using namespace tensorir;
using namespace tensorir::autotune_test;

namespace {

// x [1, 16, 12, 12] -> conv 3x3 -> relu -> conv 3x3 (the same workload) -> relu -> conv
// 1x1 to 32 channels: two tasks, the first run by two kernels.
graph::Graph two_workloads() {
  graph::Builder b;
  auto x = b.input("x", {1, 16, 12, 12});
  ops::Conv2dAttrs same;
  same.padding = {1, 1};
  auto a = b.relu(b.conv2d(x, b.constant("wa", NDArray::random({16, 16, 3, 3}, Float(32), 31)), same, "a"));
  auto c = b.relu(b.conv2d(a, b.constant("wb", NDArray::random({16, 16, 3, 3}, Float(32), 32)), same, "b"));
  return b.finish(b.conv2d(c, b.constant("wc", NDArray::random({32, 16, 1, 1}, Float(32), 33)), {}, "c"));
}

int64_t another(const autotune::Task &t) { return t.default_index == 0 ? 1 : 0; }

// A log in which another configuration than the default measured far faster, per task.
std::vector<autotune::Record> log_preferring_others(const std::vector<autotune::Task> &tasks) {
  std::vector<autotune::Record> log;
  for (const autotune::Task &t : tasks) {
    autotune::Record def = record_of(t, t.default_index, {1.0});
    def.is_default = true;
    log.push_back(def);
    log.push_back(record_of(t, another(t), {0.01}));
  }
  return log;
}

}  // namespace

TEST_CASE("records timed in the model rank their workload alone", "[autotune][log][model_check]") {
  const std::vector<autotune::Task> tasks = autotune::extract_tasks(two_workloads(), "llvm");
  REQUIRE(tasks.size() == 2);
  std::vector<autotune::Record> log = log_preferring_others(tasks);
  // In the model the default of the first task is the faster; the second has no such records.
  const autotune::Task &t = tasks[0];
  autotune::Record def = record_of(t, t.default_index, {0.50, 0.52});
  def.is_default = def.in_model = true;
  autotune::Record other = record_of(t, another(t), {0.60, 0.61});
  other.in_model = true;
  log.push_back(def);
  log.push_back(other);
  const autotune::ApplyHistoryBest best(log);
  CHECK(best.best(t.workload, t.target)->index == t.default_index);
  CHECK(best.best(tasks[1].workload, t.target)->index == another(tasks[1]));
  // And the other way: 5% faster in the model than the default there, so it stays.
  other.times_ms = {0.475};
  log.back() = other;
  CHECK(autotune::ApplyHistoryBest(log).best(t.workload, t.target)->index == another(t));
  // The flag is written and read back.
  TempLog file("in_model_flag");
  autotune::append_record(file.path, def);
  autotune::append_record(file.path, log.front());
  const std::vector<autotune::Record> back = autotune::read_log(file.path);
  REQUIRE(back.size() == 2);
  CHECK((back[0].in_model && back[0].is_default));
  CHECK_FALSE(back[1].in_model);
}

TEST_CASE("check_in_model times each tuned workload in the model against its default", "[autotune][model_check]") {
  const graph::Graph g = two_workloads();
  const std::vector<autotune::Task> tasks = autotune::extract_tasks(g, "llvm");
  REQUIRE(tasks.size() == 2);
  std::vector<autotune::Record> log = log_preferring_others(tasks);
  // Records of an earlier check that favour the defaults: this check still times the
  // search's best against them.
  for (const autotune::Task &t : tasks) {
    autotune::Record r = record_of(t, t.default_index, {0.001});
    r.in_model = r.is_default = true;
    log.push_back(r);
  }
  autotune::ModelCheckOptions o;
  o.rounds = 3;
  o.repeats = 5;
  std::vector<std::string> steps;
  o.on_step = [&](const std::string &s) { steps.push_back(s); };
  const autotune::ModelCheck c = autotune::check_in_model(g, "llvm", log, o);

  REQUIRE(c.workloads.size() == 2);
  REQUIRE(c.records.size() == 4);
  CHECK(steps.size() == 2 + 3);
  CHECK(c.default_model_ms > 0);
  CHECK(c.tuned_model_ms > 0);
  for (size_t i = 0; i < tasks.size(); ++i) {
    const autotune::Task &t = tasks[i];
    const autotune::CheckedWorkload &w = c.workloads[i];
    INFO(t.name);
    CHECK(w.workload == t.workload);
    CHECK(w.kernels == (i == 0 ? 2 : 1));
    CHECK(w.default_ms > 0);
    CHECK(w.tuned_ms > 0);
    // A workload's kernels are part of the model's time.
    CHECK(w.kernels * std::min(w.default_ms, w.tuned_ms) < std::max(c.default_model_ms, c.tuned_model_ms));
    CHECK(w.keeps_tuned == (w.tuned_ms < w.default_ms * (1 - autotune::ApplyHistoryBest::kDefaultMargin)));
    const autotune::Record &d = c.records[2 * i], &u = c.records[2 * i + 1];
    CHECK((d.in_model && d.is_default && u.in_model && !u.is_default));
    CHECK((d.workload == t.workload && u.workload == t.workload));
    CHECK(d.config_json == t.config_json(t.default_index));
    CHECK(u.config_json == t.config_json(another(t)));
    CHECK(d.times_ms.size() == 3);
    CHECK(u.times_ms.size() == 3);
    CHECK(d.cpu == autotune::host_cpu_features());
  }

  // The log with the check's records picks by them, and the model computes the same.
  std::vector<autotune::Record> checked = log_preferring_others(tasks);
  checked.insert(checked.end(), c.records.begin(), c.records.end());
  auto best = std::make_shared<const autotune::ApplyHistoryBest>(checked);
  for (size_t i = 0; i < tasks.size(); ++i)
    CHECK(best->best(tasks[i].workload, tasks[i].target)->index ==
          (c.workloads[i].keeps_tuned ? another(tasks[i]) : tasks[i].default_index));
  graph::BuildOptions with;
  with.tuning = best;
  const NDArray x = NDArray::random({1, 16, 12, 12}, Float(32), 7);
  const std::vector<float> got = graph::build(g, "llvm", with).run({{"x", x}}).to_vector<float>();
  const std::vector<float> want = graph::build(g, "llvm").run({{"x", x}}).to_vector<float>();
  CHECK(graph_test::max_rel_error(got, want) < 1e-5);
}

TEST_CASE("check_in_model has nothing to time where the log's best are the defaults", "[autotune][model_check]") {
  const graph::Graph g = two_workloads();
  const std::vector<autotune::Task> tasks = autotune::extract_tasks(g, "llvm");
  std::vector<autotune::Record> log;
  for (const autotune::Task &t : tasks) {
    log.push_back(record_of(t, t.default_index, {0.5}));
    log.push_back(record_of(t, another(t), {0.9}));
  }
  int steps = 0;
  autotune::ModelCheckOptions o;
  o.on_step = [&](const std::string &) { ++steps; };
  const autotune::ModelCheck c = autotune::check_in_model(g, "llvm", log, o);
  CHECK(c.workloads.empty());
  CHECK(c.records.empty());
  CHECK(steps == 0);  // nothing built
}

TEST_CASE("what check_in_model cannot check is an error saying why", "[autotune][model_check][error]") {
  const graph::Graph g = two_workloads();
  const std::vector<autotune::Task> tasks = autotune::extract_tasks(g, "llvm");
  const std::vector<autotune::Record> log = log_preferring_others(tasks);
  CHECK_THROWS_WITH(autotune::check_in_model(g, "webgl", log), Catch::Contains("do not run in this process"));
  autotune::ModelCheckOptions o;
  o.rounds = 0;
  CHECK_THROWS_WITH(autotune::check_in_model(g, "llvm", log, o), Catch::Contains("rounds and repeats"));

  graph::Builder b;
  auto ids = b.input("ids", {4}, Int(32));
  auto x = b.input("x", {4});
  (void)ids;
  graph::Graph mixed = b.finish(b.relu(x));
  CHECK_THROWS_WITH(autotune::seeded_inputs(mixed, {}, 0),
                    Catch::Contains("'ids'") && Catch::Contains("int32") && Catch::Contains("give its values"));
  const NDArray given = NDArray::from_vector(std::vector<int32_t>{1, 2, 3, 4}, {4});
  const std::map<std::string, NDArray> in = autotune::seeded_inputs(mixed, {{"ids", given}}, 0);
  CHECK(in.at("ids").to_vector<int32_t>() == std::vector<int32_t>{1, 2, 3, 4});
  CHECK(in.at("x").shape() == std::vector<int64_t>{4});
}
