// The knobs of the webgl kernels (ops::schedule_fragment): a small convnet's tasks have
// them, they change the fragment plans, their fallbacks keep the untuned plans and
// packages, every choice computes what "llvm" does (the kernels run natively on the
// OpenGL context), and a log's value outside a knob's choices is refused.
#include <tensorir/graph/executor.h>
#include <tensorir/graph/export_web.h>
#include <tensorir/tensorir.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>

#include "autotune/features.h"
#include "autotune/log_test_util.h"

using namespace tensorir;
using namespace tensorir::autotune_test;
using Catch::Matchers::Contains;
using json = nlohmann::json;

namespace {

// x [1, 24, 14, 14] -> conv 3x3 to 16 (bias, relu) -> depthwise 3x3 -> conv 1x1 to 32 ->
// max pool 2x2 -> global average pool -> dense to 10.
graph::Graph small_convnet() {
  graph::Builder b;
  auto x = b.input("x", {1, 24, 14, 14});
  ops::Conv2dAttrs pad;
  pad.padding = {1, 1};
  auto c1 = b.conv2d(x, b.constant("w1", NDArray::random({16, 24, 3, 3}, Float(32), 1)), pad, "conv");
  auto r1 = b.relu(b.bias_add(c1, b.constant("b1", NDArray::random({16}, Float(32), 2))));
  ops::Conv2dAttrs dw = pad;
  dw.groups = 16;
  auto c2 = b.relu(b.conv2d(r1, b.constant("w2", NDArray::random({16, 1, 3, 3}, Float(32), 3)), dw, "depthwise"));
  auto c3 = b.relu(b.conv2d(c2, b.constant("w3", NDArray::random({32, 16, 1, 1}, Float(32), 4)), {}, "pointwise"));
  auto p = b.global_avg_pool2d(b.max_pool2d(c3, {2, 2}, {2, 2}));
  return b.finish(b.dense(b.flatten(p), b.constant("wd", NDArray::random({10, 32}, Float(32), 5)), "fc"));
}

bool has_knob(const autotune::Task &t, const std::string &name) {
  return std::find(t.knob_names.begin(), t.knob_names.end(), name) != t.knob_names.end();
}

const autotune::Task &task_starting(const std::vector<autotune::Task> &tasks, const std::string &prefix) {
  for (const autotune::Task &t : tasks)
    if (t.name.rfind(prefix, 0) == 0) return t;
  FAIL("no task named " << prefix << "...");
  return tasks.front();
}

int64_t knob(const autotune::Task &t, int64_t index, const std::string &name) {
  return json::parse(t.config_json(index)).at(name).get<int64_t>();
}

// The first configuration of `t` with these knob values (the others at any value).
int64_t config_with(const autotune::Task &t, const std::map<std::string, int64_t> &values) {
  for (int64_t i = 0; i < t.space_size(); ++i) {
    bool all = true;
    for (const auto &[k, v] : values) all = all && knob(t, i, k) == v;
    if (all) return i;
  }
  FAIL("no configuration of " << t.name << " fits");
  return -1;
}

// The choices of knob `name` of `t`, in order.
std::vector<int64_t> choices(const autotune::Task &t, const std::string &name) {
  std::vector<int64_t> out;
  for (int64_t i = 0; i < t.space_size(); ++i) {
    const int64_t v = knob(t, i, name);
    if (std::find(out.begin(), out.end(), v) == out.end()) out.push_back(v);
  }
  std::sort(out.begin(), out.end());
  return out;
}

// The plan of configuration `index` as its module describes it (webgl-json).
json plan_of(const autotune::Task &t, int64_t index) {
  const autotune::Instance inst = t.instantiate(index);
  const Module m = build(inst.schedule, inst.args, inst.target, inst.name);
  return json::parse(m.source("webgl-json")).at("functions").at(0);
}

// The most render targets of one pass.
size_t most_targets(const json &plan) {
  size_t most = 1;
  for (const json &p : plan.at("passes"))
    if (p.contains("outputs")) most = std::max(most, p.at("outputs").size());
  return most;
}

std::string read_text(const std::filesystem::path &p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Records choosing configuration `pick(task)` for every task.
std::shared_ptr<autotune::ApplyHistoryBest> log_of(const std::vector<autotune::Task> &tasks,
                                                   const std::function<int64_t(const autotune::Task &)> &pick) {
  std::vector<autotune::Record> records;
  for (const autotune::Task &t : tasks) records.push_back(record_of(t, pick(t), {1.0}));
  return std::make_shared<autotune::ApplyHistoryBest>(records);
}

}  // namespace

TEST_CASE("webgl: a convnet's tasks have the fragment planner's knobs", "[autotune][webgl]") {
  const graph::Graph g = small_convnet();
  const std::vector<autotune::Task> tasks = autotune::extract_tasks(g, "webgl");
  // conv, depthwise, pointwise, global average pool and dense; the 2x2 max pool's
  // reduction is too short for any knob to change its plan.
  std::string names;
  for (const autotune::Task &t : tasks) names += t.name + " " + t.config_json(t.default_index) + "\n";
  INFO(names);
  REQUIRE(tasks.size() == 5);
  for (const char *name : {"conv2d 1x24x14x14 k16 3x3", "conv2d 1x16x14x14 k16 3x3 s1 g16", "conv2d 1x16x14x14 k32 1x1",
                           "dense"}) {
    const autotune::Task &t = task_starting(tasks, name);
    INFO(t.name);
    CHECK(has_knob(t, "unroll"));
    // The fallbacks are the planner's constants.
    CHECK(knob(t, t.default_index, "unroll") == 256);
  }
  // Several texels per fragment where the result is in channel blocks (the 1x1
  // convolution, whose consumer is blocked too) and the weights are what they share.
  const autotune::Task &pointwise = task_starting(tasks, "conv2d 1x16x14x14 k32 1x1");
  CHECK(choices(pointwise, "draw-buffers") == std::vector<int64_t>{1, 2, 4, 8});
  CHECK(knob(pointwise, pointwise.default_index, "draw-buffers") == 4);
  // Rows of 14 elements (NCHW) and of 10 are no whole texels: no choice changes those plans.
  for (const char *name : {"conv2d 1x24x14x14 k16 3x3", "conv2d 1x16x14x14 k16 3x3 s1 g16", "dense"})
    CHECK(!has_knob(task_starting(tasks, name), "draw-buffers"));
  // A reduction of 24 x 9 = 216 iterations: halves (54, a quarter, is below the least
  // chunk) next to the fallback.
  const autotune::Task &conv = task_starting(tasks, "conv2d 1x24x14x14");
  CHECK(choices(conv, "reduce-chunk") == std::vector<int64_t>{108, 16384});
  CHECK(choices(conv, "unroll") == std::vector<int64_t>{32, 64, 128, 256, 512, 1024});
  CHECK(knob(conv, conv.default_index, "reduce-chunk") == 16384);
  // A pool reads no tensor that its texels share.
  const autotune::Task &pool = task_starting(tasks, "global_avg_pool2d");
  CHECK(!has_knob(pool, "draw-buffers"));
  CHECK(has_knob(pool, "unroll"));
  // The same choices whatever the target's -draw-buffers, which is the fallback.
  for (int64_t d : {1, 8}) {
    const std::vector<autotune::Task> other = autotune::extract_tasks(g, "webgl -draw-buffers=" + std::to_string(d));
    const autotune::Task &t = task_starting(other, "conv2d 1x16x14x14 k32 1x1");
    CHECK(choices(t, "draw-buffers") == std::vector<int64_t>{1, 2, 4, 8});
    CHECK(knob(t, t.default_index, "draw-buffers") == d);
  }
}

TEST_CASE("webgl: the cost model's features tell the planner's knobs apart", "[autotune][webgl]") {
  const graph::Graph g = small_convnet();
  const std::vector<autotune::Task> tasks = autotune::extract_tasks(g, "webgl");
  const autotune::Task &pointwise = task_starting(tasks, "conv2d 1x16x14x14 k32 1x1");
  // Two configurations that differ in draw-buffers alone (the others at their first
  // choices) lower to one loop nest: the planner reads the knob from the target.
  const int64_t one = config_with(pointwise, {{"draw-buffers", 1}}), eight = config_with(pointwise, {{"draw-buffers", 8}});
  const std::vector<std::vector<float>> f = autotune::config_features(pointwise, {one, eight}, 2);
  std::vector<std::string> options;
  for (const std::string &name : pointwise.knob_names)
    if (name == "draw-buffers" || name == "unroll" || name == "reduce-chunk") options.push_back(name);
  REQUIRE(options.size() == pointwise.knob_names.size());
  REQUIRE(f[0].size() == size_t(autotune::kFeatureLength) + options.size());
  REQUIRE(f[1].size() == f[0].size());
  CHECK(std::equal(f[0].begin(), f[0].begin() + autotune::kFeatureLength, f[1].begin()));
  // Each option knob's choice follows the loop nest's features, in the knobs' order.
  const size_t at = size_t(std::find(options.begin(), options.end(), "draw-buffers") - options.begin());
  for (size_t k = 0; k < options.size(); ++k) {
    INFO(options[k]);
    CHECK(f[0][autotune::kFeatureLength + k] == 0.f);
    CHECK(f[1][autotune::kFeatureLength + k] == (k == at ? 3.f : 0.f));
  }
  // A CPU kernel's knobs all shape its loop nest: the features are the loop nest's alone.
  const std::vector<autotune::Task> cpu = autotune::extract_tasks(g, "llvm");
  const autotune::Task &conv = task_starting(cpu, "conv2d 1x16x14x14 k32 1x1");
  CHECK(autotune::config_features(conv, {conv.default_index}, 1)[0].size() == size_t(autotune::kFeatureLength));
}

TEST_CASE("webgl: the knobs change the fragment plan", "[autotune][webgl]") {
  const std::vector<autotune::Task> tasks = autotune::extract_tasks(small_convnet(), "webgl");
  const autotune::Task &pointwise = task_starting(tasks, "conv2d 1x16x14x14 k32 1x1");
  const json blocked = plan_of(pointwise, pointwise.default_index);
  CHECK(most_targets(blocked) == 4);
  // Texels per fragment: as many render targets in the convolution's pass.
  // 8 on a target whose default is 4: a tuned kernel may use what the device has.
  for (int64_t d : {1, 2, 8}) {
    const json p = plan_of(pointwise, config_with(pointwise, {{"draw-buffers", d}, {"unroll", 256}}));
    CHECK(most_targets(p) == size_t(d));
    // One target: no interleave pass after it.
    CHECK(p.at("passes").size() == blocked.at("passes").size() - (d == 1 ? 1 : 0));
  }
  const autotune::Task &conv = task_starting(tasks, "conv2d 1x24x14x14");
  const json base = plan_of(conv, conv.default_index);
  // A chunked reduction: a pass of partial sums first, then their sum.
  const json chunked = plan_of(conv, config_with(conv, {{"unroll", 256}, {"reduce-chunk", 108}}));
  CHECK(chunked.at("passes").size() > base.at("passes").size());
  CHECK(chunked.at("tensors").size() > base.at("tensors").size());
  // A smaller unroll budget keeps a loop that the fallback unrolls.
  const auto loops = [](const json &plan) {
    size_t n = 0;
    for (const json &p : plan.at("passes")) {
      const std::string src = p.at("source").get<std::string>();
      for (size_t at = src.find("for ("); at != std::string::npos; at = src.find("for (", at + 1)) ++n;
    }
    return n;
  };
  const json rolled = plan_of(conv, config_with(conv, {{"unroll", 32}, {"reduce-chunk", 16384}}));
  CHECK(loops(rolled) > loops(base));
}

TEST_CASE("webgl: the knobs' fallbacks keep the untuned plans and packages", "[autotune][webgl]") {
  const graph::Graph g = small_convnet();
  const std::vector<autotune::Task> tasks = autotune::extract_tasks(g, "webgl");
  for (const autotune::Task &t : tasks) {
    INFO(t.name);
    const autotune::Instance inst = t.instantiate(t.default_index);
    CHECK(build(inst.schedule, inst.args, inst.target, inst.name).source("webgl-json") ==
          build(inst.schedule, inst.args, "webgl", inst.name).source("webgl-json"));
  }
  graph::BuildOptions defaults;
  defaults.tuning = log_of(tasks, [](const autotune::Task &t) { return t.default_index; });
  graph_test::TempDir dir("webgl_knob_defaults");
  graph::WebExportOptions o;
  o.name = "net";
  o.copy_runtime = false;
  graph::export_web(graph::build(g, "webgl"), dir.str("untuned"), o);
  graph::export_web(graph::build(g, "webgl", defaults), dir.str("defaults"), o);
  CHECK(read_text(dir.path / "untuned" / "model.json") == read_text(dir.path / "defaults" / "model.json"));
}

#if TENSORIR_WITH_OPENGL
TEST_CASE("webgl: kernels built with other knob values compute what llvm does", "[autotune][webgl][opengl]") {
  const graph::Graph g = small_convnet();
  const std::vector<autotune::Task> tasks = autotune::extract_tasks(g, "webgl");
  const NDArray x = NDArray::random({1, 24, 14, 14}, Float(32), 11);
  const std::vector<float> want = graph::build(g, "llvm").run({{"x", x}}).to_vector<float>();
  // The least of every knob (one target, the smallest budget and chunk), the largest,
  // then configurations drawn at random.
  std::mt19937_64 rng(3);
  const std::vector<std::function<int64_t(const autotune::Task &)>> picks = {
      [](const autotune::Task &) { return int64_t(0); },
      [](const autotune::Task &t) { return t.space_size() - 1; },
      [&](const autotune::Task &t) { return int64_t(rng() % uint64_t(t.space_size())); },
      [&](const autotune::Task &t) { return int64_t(rng() % uint64_t(t.space_size())); },
  };
  for (size_t k = 0; k < picks.size(); ++k) {
    graph::BuildOptions o;
    o.tuning = log_of(tasks, picks[k]);
    std::string configs;
    for (const autotune::Task &t : tasks) configs += t.name + " " + o.tuning->best(t.workload, t.target)->config_json + "\n";
    INFO("pick " << k << ":\n" << configs);
    const std::vector<float> got = graph::build(g, "webgl", o).run({{"x", x}}).to_vector<float>();
    CHECK(graph_test::max_rel_error(got, want) < 1e-4);
  }
}
#endif

TEST_CASE("webgl: a log's knob value outside its choices is refused", "[autotune][webgl][error]") {
  const graph::Graph g = small_convnet();
  const std::vector<autotune::Task> tasks = autotune::extract_tasks(g, "webgl");
  const autotune::Task &conv = task_starting(tasks, "conv2d 1x16x14x14 k32 1x1");
  CHECK_THROWS_WITH(conv.instantiate_json("{\"draw-buffers\":3}"), Contains("'draw-buffers' = 3"));
  CHECK_THROWS_WITH(conv.instantiate_json("{\"unroll\":100}"), Contains("'unroll' = 100"));
  // graph::build warns and keeps that workload's untuned plan.
  autotune::Record r = record_of(conv, conv.default_index, {1.0});
  r.config_json = "{\"draw-buffers\":16}";
  graph::BuildOptions o;
  o.tuning = std::make_shared<autotune::ApplyHistoryBest>(std::vector<autotune::Record>{r});
  std::vector<std::string> warnings;
  const WarningHandler previous = set_warning_handler([&](const std::string &m) { warnings.push_back(m); });
  graph::CompiledModel m = graph::build(g, "webgl", o);
  set_warning_handler(previous);
  REQUIRE(warnings.size() == 1);
  CHECK_THAT(warnings[0], Contains("'draw-buffers' = 16") && Contains("untuned"));
}
