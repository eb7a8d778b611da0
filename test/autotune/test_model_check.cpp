// A tuning log checked inside its model: the workloads timed there, the records that rank
// them from then on, and what cannot be checked.
#include <tensorir/graph/executor.h>
#include <tensorir/runtime/parallel.h>

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


}  // namespace

TEST_CASE("records timed in the model rank their workload alone", "[autotune][log][model_check]") {
  const std::vector<autotune::Task> tasks = autotune::extract_tasks(two_workloads(), "llvm");
  REQUIRE(tasks.size() == 2);
  const autotune::Task &t = tasks[0];
  // Records of `index` timed in the model on `threads` threads.
  const auto in_model = [&](int64_t index, int threads, std::vector<double> times) {
    autotune::Record r = record_of(t, index, std::move(times));
    r.in_model = true;
    r.is_default = index == t.default_index;
    r.threads = threads;
    return r;
  };
  const auto best_of = [&](std::vector<autotune::Record> extra) {
    std::vector<autotune::Record> log = log_preferring_others(tasks);
    log.insert(log.end(), extra.begin(), extra.end());
    const autotune::ApplyHistoryBest best(log);
    // The second task has no such records: the search's best.
    CHECK(best.best(tasks[1].workload, t.target)->index == another(tasks[1]));
    return best.best(t.workload, t.target)->index;
  };
  const int64_t def = t.default_index, other = another(t);
  // In the model the default is the faster: it stays, whatever the search measured.
  CHECK(best_of({in_model(def, 1, {0.50, 0.52}), in_model(other, 1, {0.60, 0.61})}) == def);
  // 5% faster there: the other; 2% faster: within the margin, the default.
  CHECK(best_of({in_model(def, 1, {0.50}), in_model(other, 1, {0.475})}) == other);
  CHECK(best_of({in_model(def, 1, {0.50}), in_model(other, 1, {0.49})}) == def);
  // It must be faster at each thread count the default was timed at.
  CHECK(best_of({in_model(def, 1, {0.50}), in_model(def, 2, {0.30}), in_model(other, 1, {0.45}),
                 in_model(other, 2, {0.28})}) == other);
  CHECK(best_of({in_model(def, 1, {0.50}), in_model(def, 2, {0.30}), in_model(other, 1, {0.40}),
                 in_model(other, 2, {0.35})}) == def);
  CHECK(best_of({in_model(def, 1, {0.50}), in_model(def, 2, {0.30}), in_model(other, 1, {0.40})}) == def);
  // The flags and the thread count are written and read back.
  TempLog file("in_model_flag");
  autotune::append_record(file.path, in_model(def, 2, {0.5}));
  autotune::append_record(file.path, record_of(t, other, {0.4}));
  const std::vector<autotune::Record> back = autotune::read_log(file.path);
  REQUIRE(back.size() == 2);
  CHECK((back[0].in_model && back[0].is_default && back[0].threads == 2));
  CHECK((!back[1].in_model && back[1].threads == 0));
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
  o.threads = {1, 2};
  std::vector<std::string> steps;
  const int threads = num_threads();
  o.on_step = [&](const std::string &s) { steps.push_back(s); };
  const autotune::ModelCheck c = autotune::check_in_model(g, "llvm", log, o);
  CHECK(num_threads() == threads);  // as it was

  REQUIRE(c.workloads.size() == 2);
  REQUIRE(c.records.size() == 2 * 2 * 2);
  CHECK(c.threads == std::vector<int>{1, 2});
  CHECK(steps.size() == 2 + 3);
  REQUIRE(c.default_model_ms.size() == 2);
  REQUIRE(c.tuned_model_ms.size() == 2);
  for (size_t i = 0; i < tasks.size(); ++i) {
    const autotune::Task &t = tasks[i];
    const autotune::CheckedWorkload &w = c.workloads[i];
    INFO(t.name);
    CHECK(w.workload == t.workload);
    CHECK(w.kernels == (i == 0 ? 2 : 1));
    REQUIRE(w.default_ms.size() == 2);
    REQUIRE(w.tuned_ms.size() == 2);
    bool faster = true;
    for (size_t n = 0; n < 2; ++n) {
      INFO("on " << c.threads[n] << " threads");
      CHECK(w.default_ms[n] > 0);
      CHECK(w.tuned_ms[n] > 0);
      // A workload's kernels are part of the model's time.
      CHECK(w.kernels * std::min(w.default_ms[n], w.tuned_ms[n]) <
            std::max(c.default_model_ms[n], c.tuned_model_ms[n]));
      faster = faster && w.tuned_ms[n] < w.default_ms[n] * (1 - autotune::ApplyHistoryBest::kDefaultMargin);
      const autotune::Record &d = c.records[4 * i + 2 * n], &u = c.records[4 * i + 2 * n + 1];
      CHECK((d.in_model && d.is_default && u.in_model && !u.is_default));
      CHECK((d.threads == c.threads[n] && u.threads == c.threads[n]));
      CHECK((d.workload == t.workload && u.workload == t.workload));
      CHECK(d.config_json == t.config_json(t.default_index));
      CHECK(u.config_json == t.config_json(another(t)));
      CHECK(d.times_ms.size() == 3);
      CHECK(u.times_ms.size() == 3);
      CHECK(d.cpu == autotune::host_cpu_features());
    }
    CHECK(w.keeps_tuned == faster);
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
  o.rounds = 1;
  o.threads = {1, 0};
  CHECK_THROWS_WITH(autotune::check_in_model(g, "llvm", log, o), Catch::Contains("thread count must be at least 1"));

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

TEST_CASE("check_in_model times the models where a remote profiles them", "[autotune][model_check]") {
  const graph::Graph g = two_workloads();
  const std::vector<autotune::Task> tasks = autotune::extract_tasks(g, "llvm");
  const std::vector<autotune::Record> log = log_preferring_others(tasks);
  // A remote as the RPC client reports one: the kernels by their result's name alone.
  int loaded = 0, profiles = 0;
  const auto remote = [&](bool drop_one, bool rename) {
    return [&, drop_one, rename](const graph::CompiledModel &m, const std::map<std::string, NDArray> &inputs) {
      ++loaded;
      return autotune::ModelProfiler([&, drop_one, rename](int repeats) {
        ++profiles;
        std::vector<graph::KernelProfile> p = m.profile(inputs, repeats);
        for (graph::KernelProfile &k : p) k.fused.clear();
        if (drop_one) p.pop_back();
        if (rename) p[0].node = "elsewhere";
        return p;
      });
    };
  };
  autotune::ModelCheckOptions o;
  o.rounds = 2;
  o.repeats = 3;
  o.threads = {3};  // the remote's count: only recorded, never set here
  o.remote = remote(false, false);
  const int threads = num_threads();
  const autotune::ModelCheck c = autotune::check_in_model(g, "llvm", log, o);
  CHECK(num_threads() == threads);
  CHECK(loaded == 2);
  CHECK(profiles == 2 * (1 + 2 * 2));  // a first run each, then a warm-up and a timed profile per round
  CHECK(c.threads == std::vector<int>{3});
  REQUIRE(c.workloads.size() == 2);
  CHECK(c.workloads[0].kernels == 2);  // traced through the groups found from the model
  CHECK(c.workloads[1].kernels == 1);
  REQUIRE(c.records.size() == 2 * 2);
  for (const autotune::Record &r : c.records) {
    CHECK((r.in_model && r.threads == 3 && r.times_ms.size() == 2));
    CHECK(r.cpu.empty());  // the remote's vector features are not known here
  }

  o.remote = remote(true, false);
  CHECK_THROWS_WITH(autotune::check_in_model(g, "llvm", log, o),
                    Catch::Contains("profile of the model has 2 kernels, the model 3"));
  o.remote = remote(false, true);
  CHECK_THROWS_WITH(autotune::check_in_model(g, "llvm", log, o),
                    Catch::Contains("names 'elsewhere' as kernel 0"));
  o.threads = {1, 2};
  CHECK_THROWS_WITH(autotune::check_in_model(g, "llvm", log, o), Catch::Contains("one thread count"));
  // A target that runs elsewhere is checked there.
  o.threads = {1};
  o.remote = [](const graph::CompiledModel &, const std::map<std::string, NDArray> &) -> autotune::ModelProfiler {
    throw Error("the remote was asked to load the model");
  };
  CHECK_THROWS_WITH(autotune::check_in_model(g, "wasm", log_preferring_others(autotune::extract_tasks(g, "wasm")), o),
                    Catch::Contains("the remote was asked to load the model"));
}
