// tune() end to end on a matmul task built by hand: candidates that crash, hang or
// compute a wrong result are recorded as errors and tuning goes on; records reach the
// log; the cost model's ranking of real measurements is printed (not asserted: timings).
#include <catch2/catch.hpp>

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>
#include <thread>

#include "autotune/cost_model.h"
#include "autotune/features.h"
#include "matmul_task.h"
#include "spearman.h"
#include "tensorir/autotune.h"
#include "tensorir/build.h"
#include "tensorir/ir/op.h"
#include "tensorir/runtime/parallel.h"

using namespace tensorir;
using namespace tensorir::autotune;

namespace {

extern "C" float tir_autotune_test_segv(float x) {
  raise(SIGSEGV);
  return x;
}

extern "C" float tir_autotune_test_hang(float x) {
  for (;;) pause();
  return x;
}

// C = A x B + f(A[i, 0]) with an extern f: the same arguments as the matmul task's kernel.
Instance extern_kernel(int64_t n, const std::string &fn) {
  Tensor A = placeholder({n, n}, Float(32), "A");
  Tensor B = placeholder({n, n}, Float(32), "B");
  IterVar k = reduce_axis({0, n}, "k");
  Tensor P = compute({n, n}, [&](Var i, Var j) { return sum(A(i, k) * B(k, j), {k}); }, "P");
  Tensor C = compute({n, n}, [&](Var i, Var j) {
    return fn.empty() ? P(i, j) + 1.0f : P(i, j) + call_extern(Float(32), fn, {A(i, 0)});
  }, "C");
  return {create_schedule({C}), {A, B, C}, "matmul"};
}

std::string temp_log(const char *name) {
  const std::string path = (std::filesystem::temp_directory_path() /
                            (std::string(name) + "_" + std::to_string(::getpid()) + ".log")).string();
  std::filesystem::remove(path);
  return path;
}

TuneOptions quick_options() {
  TuneOptions o;
  o.measure.time = {.number = 1, .repeat = 2, .min_repeat_ms = 1};
  o.measure.timeout_s = 2;
  o.measure.threads = 1;
  o.confirm = 0;  // the tests count the search's own measurements
  return o;
}

}  // namespace

TEST_CASE("candidates that crash, hang or compute garbage are errors and tuning goes on", "[autotune]") {
  register_extern_function("tir_autotune_test_segv", reinterpret_cast<void *>(&tir_autotune_test_segv));
  register_extern_function("tir_autotune_test_hang", reinterpret_cast<void *>(&tir_autotune_test_hang));
  Task task = test::matmul_task(32);
  task.knob_sizes = {6, 4};  // 24 configurations: the tiles of i and j
  const auto tiled = task.instantiate;
  task.instantiate = [tiled](int64_t index) {
    if (index == 5) return extern_kernel(32, "tir_autotune_test_segv");
    if (index == 9) return extern_kernel(32, "tir_autotune_test_hang");
    if (index == 14) return extern_kernel(32, "");  // off by one
    return tiled(index);
  };
  TuneOptions o = quick_options();
  o.tuner = "random";
  o.trials = 24;
  o.check_correctness = true;
  o.log_file = temp_log("tir_autotune_errors");
  std::vector<int> progress;
  o.on_progress = [&](const Progress &p) {
    REQUIRE(p.tasks == 1);
    REQUIRE(p.current->workload == task.workload);
    progress.push_back(p.trials_done);
  };
  // The parent's pool has threads when the children fork: they must not wait for them.
  set_num_threads(2);
  const std::vector<Record> records = tune({task}, o);
  REQUIRE(records.size() == 24);
  REQUIRE(progress == std::vector<int>{8, 16, 24});
  std::set<int64_t> seen;
  for (const Record &r : records) {
    INFO("configuration " << r.index << ": " << r.error);
    REQUIRE(seen.insert(r.index).second);
    REQUIRE(r.workload == task.workload);
    REQUIRE(r.target == Target("llvm").str());
    if (r.index == 5) {
      REQUIRE_THAT(r.error, Catch::Contains("SIGSEGV"));
    } else if (r.index == 9) {
      REQUIRE_THAT(r.error, Catch::Contains("timeout"));
    } else if (r.index == 14) {
      REQUIRE_THAT(r.error, Catch::Contains("wrong result"));
    } else {
      REQUIRE(r.error.empty());
      REQUIRE(r.times_ms.size() == 2);
      REQUIRE(r.times_ms[0] > 0);
    }
  }
  // The log holds what tune() returned, in order.
  const std::vector<Record> logged = read_log(o.log_file);
  REQUIRE(logged.size() == records.size());
  for (size_t i = 0; i < logged.size(); ++i) {
    const Record &a = logged[i], &b = records[i];
    REQUIRE(a.workload == b.workload);
    REQUIRE(a.target == b.target);
    REQUIRE(a.cpu == b.cpu);
    REQUIRE(a.cpu == host_cpu_features());
    REQUIRE(a.index == b.index);
    REQUIRE(a.config_json == b.config_json);
    REQUIRE(a.times_ms == b.times_ms);
    REQUIRE(a.error == b.error);
    REQUIRE(a.timestamp == Approx(b.timestamp));
  }
  std::filesystem::remove(o.log_file);
}

TEST_CASE("a kernel run multi-threaded in the measuring child", "[autotune]") {
  Task task = test::matmul_task(64);
  const auto tiled = task.instantiate;
  task.instantiate = [tiled](int64_t index) {
    Instance inst = tiled(index);
    Tensor C = inst.args[2].tensor();
    inst.schedule[C].parallel(inst.schedule[C]->leaf_iter_vars[0]);
    return inst;
  };
  TuneOptions o = quick_options();
  o.trials = 4;
  o.tuner = "random";
  o.check_correctness = true;
  o.measure.threads = 2;
  for (const Record &r : tune({task}, o)) {
    INFO(r.error);
    REQUIRE(r.error.empty());
    CHECK(r.threads == 2);  // kept in the log: a 1-thread and a 2-thread log may be merged
  }
  // Unset, the count is the runtime's.
  o.measure.threads = 0;
  o.trials = 1;
  for (const Record &r : tune({task}, o)) CHECK(r.threads == num_threads());
}

TEST_CASE("bad tuning options are errors", "[autotune]") {
  Task task = test::matmul_task(16);
  TuneOptions o = quick_options();
  o.trials = 0;
  REQUIRE_THROWS_WITH(tune({task}, o), Catch::Contains("trials > 0") && Catch::Contains("time_budget_s"));
  o.trials = 2;
  o.tuner = "grid";
  REQUIRE_THROWS_WITH(tune({task}, o), Catch::Contains("unknown tuner 'grid'"));
  o.tuner = "random";
  o.batch_size = 0;
  REQUIRE_THROWS_WITH(tune({task}, o), Catch::Contains("batch_size"));
  o.batch_size = 2;
  for (const double bad : {-1.0, std::nan("")}) {
    INFO(bad);
    o.time_budget_s = bad;
    REQUIRE_THROWS_WITH(tune({task}, o), Catch::Contains("time_budget_s is"));
    o.time_budget_s = 0;
    o.build_timeout_s = bad;
    REQUIRE_THROWS_WITH(tune({task}, o), Catch::Contains("build_timeout_s is"));
    o.build_timeout_s = 60;
  }
}

TEST_CASE("a time budget or timeout past what the clock can count is no limit", "[autotune]") {
  // Infinity, or 10^12 s, added to the clock's int64 nanoseconds would overflow into a
  // deadline already past: nothing would be measured.
  Task task = test::matmul_task(16);
  TuneOptions o = quick_options();
  o.trials = 2;
  o.batch_size = 2;
  o.confirm = 0;
  for (const double huge : {1e12, std::numeric_limits<double>::infinity()}) {
    INFO(huge);
    o.time_budget_s = huge;
    o.build_timeout_s = huge;
    o.measure.timeout_s = huge;
    const std::vector<Record> records = tune({task}, o);
    REQUIRE(records.size() == 2);
    for (const Record &r : records) CHECK(r.error.empty());
  }
}

TEST_CASE("a time budget is shared by the time each task takes in the model", "[autotune]") {
  std::vector<Task> tasks = {test::matmul_task(16), test::matmul_task(32), test::matmul_task(16)};
  tasks[1].occurrences = 4;
  tasks[2].occurrences = 2;
  // 2 ms once, 1 ms four times, unmeasured twice (the mean of the others, 1.5 ms).
  const std::vector<double> shares = time_shares(tasks, {2.0, 1.0, 0.0});
  REQUIRE(shares.size() == 3);
  CHECK(shares[0] == Approx(2.0 / 9));
  CHECK(shares[1] == Approx(4.0 / 9));
  CHECK(shares[2] == Approx(3.0 / 9));
  // Nothing measured: by occurrences alone.
  const std::vector<double> none = time_shares(tasks, {0.0, 0.0, 0.0});
  CHECK(none[0] == Approx(1.0 / 7));
  CHECK(none[1] == Approx(4.0 / 7));
  REQUIRE_THROWS_WITH(time_shares(tasks, {1.0}), Catch::Contains("1 times for 3 tasks"));
}

TEST_CASE("under a time budget every task measures its default in a first batch", "[autotune]") {
  // A budget ample on a loaded machine, and a cap of two batches a task so that the test
  // ends early: a 0.5 s budget could be spent by the first task's batch alone.
  TuneOptions o = quick_options();
  o.trials = 4;
  o.time_budget_s = 60;
  o.batch_size = 2;
  o.confirm = 0;
  const std::vector<Task> tasks = {test::matmul_task(32), test::matmul_task(16)};
  const std::vector<Record> records = tune(tasks, o);
  // The first two batches are the tasks' first, each with its default.
  REQUIRE(records.size() >= 4);
  for (size_t k = 0; k < 2; ++k) {
    INFO("task " << k);
    CHECK(records[2 * k].workload == tasks[k].workload);
    CHECK(records[2 * k + 1].workload == tasks[k].workload);
    CHECK((records[2 * k].index == tasks[k].default_index || records[2 * k + 1].index == tasks[k].default_index));
  }
}

TEST_CASE("a time budget stops tuning", "[autotune]") {
  TuneOptions o = quick_options();
  o.trials = 0;
  o.time_budget_s = 1;
  o.batch_size = 2;
  const std::vector<Record> records = tune({test::matmul_task(32), test::matmul_task(16)}, o);
  REQUIRE(!records.empty());
  REQUIRE(records.size() < 2 * 288);
}

// Times nothing and takes `ms` a candidate, as a slow kernel's measurement would.
class SlowRunner : public Runner {
 public:
  explicit SlowRunner(int ms) : ms_(ms) {}
  MeasureResult run(const Module &, const std::string &, const std::vector<NDArray> &, const std::vector<NDArray> *,
                    const MeasureOptions &) override {
    std::this_thread::sleep_for(std::chrono::milliseconds(ms_));
    return {{1.0}, ""};
  }

 private:
  int ms_;
};

TEST_CASE("a time budget does not start a batch that would end past it", "[autotune]") {
  // Batches of four 300 ms measurements (1.2 s and the builds) in 3 s: the third would
  // end near 3.75 s, so tuning stops after two. Stopping only once the budget has passed
  // ran that third batch.
  TuneOptions o = quick_options();
  o.trials = 0;
  o.time_budget_s = 3;
  o.batch_size = 4;
  o.tuner = "random";
  o.runner = std::make_shared<SlowRunner>(300);
  const auto start = std::chrono::steady_clock::now();
  const std::vector<Record> records = tune({test::matmul_task(16)}, o);
  const double elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  CHECK(records.size() >= 4);
  CHECK(records.size() % 4 == 0);
  // A third of a batch of slack: a batch may run slower than those before it.
  CHECK(elapsed_s < o.time_budget_s + 0.4);
}

TEST_CASE("a partition knob keeps its default while tuning unless asked", "[autotune]") {
  // Mark "tile_j" (knob 1) a partition knob and give the task a default with tile_j 16.
  Task task = test::matmul_task(16);
  task.knob_partition = {false, true, false, false, false};
  task.default_index = 1 + 6 * 2 + 24 * 1;  // tile_i 2, tile_j 16, tile_k 4
  const int64_t kept = task.default_index / 6 % 4;
  TuneOptions o = quick_options();
  o.tuner = GENERATE(as<std::string>{}, "random", "xgb");
  o.trials = 16;
  o.batch_size = 8;
  o.confirm = 0;
  INFO("tuner " << o.tuner);
  std::set<int64_t> indices, others;
  for (const Record &r : tune({task}, o)) {
    indices.insert(r.index);
    others.insert(r.index % 6 + r.index / 24 * 6);  // every knob but tile_j
    CHECK(r.index / 6 % 4 == kept);
  }
  CHECK(indices.size() == 16);  // all different, and the default among them
  CHECK(indices.count(task.default_index) == 1);
  CHECK(others.size() == 16);
  // Asked to, the search moves it too: 16 of 288 configurations, 72 with tile_j 16.
  o.tune_partition = true;
  std::set<int64_t> tiles;
  for (const Record &r : tune({task}, o)) tiles.insert(r.index / 6 % 4);
  CHECK(tiles.size() > 1);
}

TEST_CASE("each task's best configurations and its default are timed again after the search", "[autotune]") {
  const Task task = test::matmul_task(16);
  TuneOptions o = quick_options();
  o.tuner = "random";
  o.trials = 6;
  o.batch_size = 3;
  o.confirm = 0;
  REQUIRE(tune({task}, o).size() == 6);

  o.confirm = 2;
  o.confirm_rounds = 2;
  const std::vector<Record> records = tune({task}, o);
  std::map<int64_t, int> count;
  std::vector<std::pair<double, int64_t>> first;  // the search's times, fastest first
  for (size_t i = 0; i < records.size(); ++i) {
    INFO(records[i].error);
    REQUIRE(records[i].error.empty());
    if (i < 6) first.emplace_back(TimeResult::of(records[i].times_ms).median_ms, records[i].index);
    ++count[records[i].index];
  }
  REQUIRE(count.size() == 6);  // confirmation measures nothing new
  std::sort(first.begin(), first.end());
  // The two fastest and the default (the search's first) get two more records each.
  std::set<int64_t> confirmed = {first[0].second, first[1].second, task.default_index};
  CHECK(records.size() == 6 + 2 * confirmed.size());
  for (const auto &[index, n] : count) CHECK(n == (confirmed.count(index) ? 3 : 1));
}

TEST_CASE("the cost model ranks real measurements of held-out matmul configurations", "[autotune]") {
  Task task = test::matmul_task(128);
  TuneOptions o = quick_options();
  o.measure.time = {.number = 1, .repeat = 3, .min_repeat_ms = 5};
  o.tuner = "random";
  o.trials = 96;
  o.seed = 21;
  const std::vector<Record> records = tune({task}, o);
  std::vector<float> x;
  std::vector<double> y;
  for (const Record &r : records) {
    INFO(r.error);
    REQUIRE(r.error.empty());
    const Instance inst = task.instantiate(r.index);
    const std::vector<float> f = extract_features(lower(inst.schedule, inst.args, inst.name));
    x.insert(x.end(), f.begin(), f.end());
    y.push_back(task.flops / TimeResult::of(r.times_ms).median_ms * 1e-6);
  }
  const size_t train = 64, cols = kFeatureLength;
  CostModel m(kFeatureLength, 0);
  m.fit({x.begin(), x.begin() + train * cols}, {y.begin(), y.begin() + train});
  const std::vector<float> p = m.predict({x.begin() + train * cols, x.end()});
  const std::vector<double> held_out(y.begin() + train, y.end());
  const double rho = test::spearman(p, held_out);
  std::printf("cost model on measured matmul 128 configurations: Spearman %.3f on %zu held out (trained on %zu), "
              "GFLOP/s from %.2f to %.2f\n",
              rho, held_out.size(), train, *std::min_element(y.begin(), y.end()), *std::max_element(y.begin(), y.end()));
  REQUIRE(std::isfinite(rho));
}
