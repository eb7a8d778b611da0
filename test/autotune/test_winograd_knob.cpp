// Winograd as a tuned algorithm: the "winograd" knob of the convolutions Winograd can
// compute, every choice of it computing the convolution, graph::build following a log's
// choice per workload, and the tuner measuring each task's default configuration first;
// on "webgl" the same knob beside the fragment planner's.
#include <tensorir/graph/executor.h>
#include <tensorir/graph/models.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>

#include "autotune/autotune_test_util.h"
#include "autotune/log_test_util.h"
#include "matmul_task.h"

using namespace tensorir;
using namespace tensorir::autotune_test;

namespace {

bool has_knob(const autotune::Task &t, const std::string &name) {
  return std::find(t.knob_names.begin(), t.knob_names.end(), name) != t.knob_names.end();
}

// The value of knob `name` in a configuration's JSON.
int64_t knob_value(const std::string &config_json, const std::string &name) {
  return json::parse(config_json).at(name).get<int64_t>();
}

// The task names of the 3x3, stride-1, dilation-1, ungrouped convolutions of `g` as written.
std::set<std::string> winograd_convs(const graph::Graph &g) {
  std::set<std::string> names;
  for (const graph::Node &n : g.nodes()) {
    if (n.op != "conv2d") continue;
    const std::vector<int64_t> &d = g.node(n.inputs[0]).shape, &w = g.node(n.inputs[1]).shape;
    const bool ones = n.attr_ints("strides") == std::vector<int64_t>{1, 1} &&
                      n.attr_ints("dilation") == std::vector<int64_t>{1, 1};
    if (!ones || n.attr_int("groups") != 1 || w[2] != 3 || w[3] != 3) continue;
    names.insert("conv2d " + std::to_string(d[0]) + "x" + std::to_string(d[1]) + "x" + std::to_string(d[2]) + "x" +
                 std::to_string(d[3]) + " k" + std::to_string(w[0]) + " 3x3 s1");
  }
  return names;
}

// The names of the conv2d nodes of `g` whose data is C x H x H.
std::vector<std::string> convs_of(const graph::Graph &g, int64_t C, int64_t H) {
  std::vector<std::string> names;
  for (const graph::Node &n : g.nodes()) {
    const std::vector<int64_t> &w = n.op == "conv2d" ? g.node(n.inputs[1]).shape : std::vector<int64_t>{};
    if (n.op == "conv2d" && w[2] == 3 && n.attr_ints("strides")[0] == 1 && g.node(n.inputs[0]).shape[1] == C &&
        g.node(n.inputs[0]).shape[2] == H)
      names.push_back(n.name);
  }
  return names;
}

const autotune::Task &task_named(const std::vector<autotune::Task> &tasks, const std::string &name) {
  for (const autotune::Task &t : tasks)
    if (t.name == name) return t;
  FAIL("no task " << name);
  return tasks.front();
}

// A configuration of `t` whose knob "winograd" is m, the others drawn by `rng`.
int64_t random_with_tile(const autotune::Task &t, int64_t m, std::mt19937_64 &rng) {
  for (int tries = 0; tries < 10000; ++tries) {
    const int64_t i = int64_t(rng() % uint64_t(t.space_size()));
    if (knob_value(t.config_json(i), "winograd") == m) return i;
  }
  FAIL("no configuration of " << t.name << " with winograd = " << m);
  return -1;
}

// Times nothing: every candidate takes 1 ms.
class FakeRunner : public autotune::Runner {
 public:
  autotune::MeasureResult run(const Module &, const std::string &, const std::vector<NDArray> &,
                              const std::vector<NDArray> *, const autotune::MeasureOptions &) override {
    return {{1.0}, ""};
  }
};

}  // namespace

TEST_CASE("extract_tasks gives the Winograd knob to exactly ResNet-18's 3x3 stride-1 convolutions",
          "[autotune][winograd]") {
  const graph::Graph g = graph::resnet18(5);
  const std::vector<autotune::Task> tasks = autotune::extract_tasks(g, "llvm");
  const std::set<std::string> expected = winograd_convs(g);
  CHECK(expected.size() == 4);  // 64@56, 128@28, 256@14, 512@7
  std::set<std::string> with_knob;
  for (const autotune::Task &t : tasks) {
    if (!has_knob(t, "winograd")) continue;
    with_knob.insert(t.name);
    // The algorithm first, then the direct template's knobs and the Winograd schedule's,
    // its weight prefetch last.
    CHECK(t.knob_names.front() == "winograd");
    CHECK(has_knob(t, "tile_ow"));
    CHECK(t.knob_names.back() == "winograd_prefetch");
    CHECK(t.knob_names[t.knob_names.size() - 2] == "winograd_per_row");
  }
  CHECK(with_knob == expected);
  // Their fallbacks: graph::build's default policy.
  const std::map<std::string, int64_t> defaults = {{"conv2d 1x64x56x56 k64 3x3 s1", 4},
                                                   {"conv2d 1x128x28x28 k128 3x3 s1", 4},
                                                   {"conv2d 1x256x14x14 k256 3x3 s1", 2},
                                                   {"conv2d 1x512x7x7 k512 3x3 s1", 0}};
  for (const auto &[name, m] : defaults) {
    const autotune::Task &t = task_named(tasks, name);
    CHECK(knob_value(t.config_json(t.default_index), "winograd") == m);
  }
}

TEST_CASE("every Winograd choice of a task computes the convolution", "[autotune][winograd]") {
  graph::Builder b;
  auto x = b.input("x", {1, 16, 14, 14});
  auto w = b.constant("w", NDArray::random({32, 16, 3, 3}, Float(32), 31));
  ops::Conv2dAttrs a;
  a.padding = {1, 1};
  const std::vector<autotune::Task> tasks = autotune::extract_tasks(b.finish(b.relu(b.conv2d(x, w, a))), "llvm");
  REQUIRE(tasks.size() == 1);
  const autotune::Task &t = tasks[0];
  REQUIRE(has_knob(t, "winograd"));
  const ConvCase c = conv_case(t.workload);
  const std::vector<float> xs = random_vector(size_t(16 * 14 * 14), 41), ws = random_vector(size_t(32 * 16 * 9), 42);
  const std::vector<float> want = conv_reference(c, xs, ws);
  std::mt19937_64 rng(7);
  for (int64_t m : {0, 2, 4, 6}) {
    // The other knobs at their fallbacks, then drawn at random.
    const std::string fallbacks = "{\"winograd\":" + std::to_string(m) + "}";
    const int64_t drawn = random_with_tile(t, m, rng);
    for (const std::string &config : {fallbacks, t.config_json(drawn)}) {
      INFO(config);
      const autotune::Instance inst = t.instantiate_json(config);
      CHECK(inst.name == (m ? "tuned_conv2d_winograd" : "tuned_conv2d"));
      // The transformed weight [alpha][alpha][K/b][C][b] is an argument: built once, outside the kernel.
      CHECK(shape_of(inst.args[1]).size() == (m ? 5u : 6u));
      CHECK(max_rel_error(run_conv_instance(inst, c, xs, ws), want) < 1e-4);
    }
  }
}

TEST_CASE("graph::build takes each convolution's algorithm from the log", "[autotune][winograd][build]") {
  TempLog log("winograd_choice");
  const graph::Graph g = graph::resnet18(11);
  const std::vector<autotune::Task> tasks = autotune::extract_tasks(g, "llvm");
  const autotune::Task &t56 = task_named(tasks, "conv2d 1x64x56x56 k64 3x3 s1");
  const autotune::Task &t28 = task_named(tasks, "conv2d 1x128x28x28 k128 3x3 s1");
  // By default F(4, 3) for both; the log says direct for 64@56 and F(6, 3) for 128@28.
  autotune::append_record(log.path, record_of(t56, find_config(t56, {"\"winograd\":0"}), {1.0}));
  autotune::append_record(log.path, record_of(t28, find_config(t28, {"\"winograd\":6"}), {1.0}));
  graph::BuildOptions o;
  o.tuning_log = log.path;
  const graph::CompiledModel tuned = graph::build(g, "llvm", o);
  const std::vector<std::string> c56 = convs_of(g, 64, 56), c28 = convs_of(g, 128, 28), c14 = convs_of(g, 256, 14);
  CHECK(c56.size() == 4);
  CHECK(c28.size() == 3);
  for (const std::string &name : c56) CHECK(tuned.graph().node(name).op == "conv2d");
  for (const std::string &name : c28) {
    const graph::Node &n = tuned.graph().node(name);
    REQUIRE(n.op == "conv2d_winograd");
    CHECK(n.attr_int("tile") == 6);
  }
  // A workload not in the log keeps the default.
  for (const std::string &name : c14) CHECK(tuned.graph().node(name).attr_int("tile") == 2);
  // Forcing Winograd still wins over the log.
  o.winograd = 2;
  const graph::CompiledModel forced = graph::build(g, "llvm", o);
  for (const std::string &name : c56) CHECK(forced.graph().node(name).attr_int("tile") == 2);
  const NDArray input = NDArray::random({1, 3, 224, 224}, Float(32), 5);
  const std::vector<float> want = graph::build(g, "llvm").run({{"data", input}}).to_vector<float>();
  CHECK(max_rel_error(tuned.run({{"data", input}}).to_vector<float>(), want) < 1e-4);
}

TEST_CASE("ResNet-18 built with random configurations and algorithms matches the untuned build",
          "[autotune][winograd][build]") {
  TempLog log("winograd_random");
  const graph::Graph g = graph::resnet18(13);
  const std::vector<autotune::Task> tasks = autotune::extract_tasks(g, "llvm");
  // Each Winograd-eligible workload gets another algorithm than its default.
  const std::map<std::string, int64_t> tiles = {{"conv2d 1x64x56x56 k64 3x3 s1", 6},
                                                {"conv2d 1x128x28x28 k128 3x3 s1", 2},
                                                {"conv2d 1x256x14x14 k256 3x3 s1", 0},
                                                {"conv2d 1x512x7x7 k512 3x3 s1", 4}};
  std::mt19937_64 rng(23);
  for (const autotune::Task &t : tasks) {
    const auto it = tiles.find(t.name);
    const int64_t index = it == tiles.end() ? int64_t(rng() % uint64_t(t.space_size())) : random_with_tile(t, it->second, rng);
    autotune::append_record(log.path, record_of(t, index, {1.0}));
  }
  graph::BuildOptions o;
  o.tuning_log = log.path;
  const graph::CompiledModel tuned = graph::build(g, "llvm", o);
  std::map<int64_t, int> algorithms;  // tile (0: direct) -> 3x3 stride-1 convolutions
  for (const graph::Node &n : tuned.graph().nodes())
    if (n.op == "conv2d_winograd") ++algorithms[n.attr_int("tile")];
  CHECK(algorithms == std::map<int64_t, int>{{2, 3}, {4, 3}, {6, 4}});
  const NDArray input = NDArray::random({1, 3, 224, 224}, Float(32), 19);
  const std::vector<float> want = graph::build(g, "llvm").run({{"data", input}}).to_vector<float>();
  const double err = max_rel_error(tuned.run({{"data", input}}).to_vector<float>(), want);
  INFO("max |a - b| / max |b| = " << err);
  CHECK(err < 1e-4);
}

TEST_CASE("the tuner measures each task's default configuration in its first batch", "[autotune][winograd][tune]") {
  autotune::TuneOptions o;
  o.runner = std::make_shared<FakeRunner>();
  o.batch_size = 4;
  o.trials = 8;
  o.confirm = 0;  // counts the search's own measurements
  for (const char *tuner : {"random", "xgb"}) {
    autotune::Task matmul = test::matmul_task(32);
    matmul.default_index = 37;
    o.tuner = tuner;
    const std::vector<autotune::Record> records = autotune::tune({matmul}, o);
    REQUIRE(records.size() == 8);
    INFO(tuner);
    CHECK(std::count_if(records.begin(), records.begin() + 4, [](const autotune::Record &r) { return r.index == 37; }) == 1);
    CHECK(std::count_if(records.begin(), records.end(), [](const autotune::Record &r) { return r.index == 37; }) == 1);
  }
  // A convolution whose default is Winograd's.
  graph::Builder b;
  auto x = b.input("x", {1, 16, 28, 28});
  auto w = b.constant("w", NDArray::random({16, 16, 3, 3}, Float(32), 3));
  ops::Conv2dAttrs a;
  a.padding = {1, 1};
  const std::vector<autotune::Task> tasks = autotune::extract_tasks(b.finish(b.conv2d(x, w, a)), "llvm");
  REQUIRE(tasks.size() == 1);
  CHECK(knob_value(tasks[0].config_json(tasks[0].default_index), "winograd") == 4);
  o.trials = 2;
  o.batch_size = 2;
  const std::vector<autotune::Record> records = autotune::tune(tasks, o);
  REQUIRE(records.size() == 2);
  CHECK((records[0].index == tasks[0].default_index || records[1].index == tasks[0].default_index));
}

TEST_CASE("a log's algorithm that is no choice warns and builds the default", "[autotune][winograd][error]") {
  const graph::Graph g = conv_graph();  // 12x12: direct by default
  const std::vector<autotune::Task> tasks = autotune::extract_tasks(g, "llvm");
  REQUIRE(tasks.size() == 1);
  autotune::Record r = record_of(tasks[0], tasks[0].default_index, {1.0});
  r.config_json = json_with_knob(r.config_json, "winograd", 3);
  std::vector<std::string> warnings;
  const graph::CompiledModel m = build_with_record(g, r, warnings);
  REQUIRE(warnings.size() == 1);
  CHECK(warnings[0].find("'conv'") != std::string::npos);
  CHECK(warnings[0].find("knob 'winograd' = 3 is not one of its choices") != std::string::npos);
  CHECK(m.graph().node("conv").op == "conv2d");
  // A task asked for it is an error.
  CHECK_THROWS_WITH(tasks[0].instantiate_json("{\"winograd\":3}"), Catch::Contains("'winograd' = 3"));
}

TEST_CASE("a best record that does not fit its template gives way to the best that fits, algorithm and all",
          "[autotune][winograd][log]") {
  // A log appended to after the templates changed: its fastest record (F(2, 3), a tile_oc
  // no longer offered) does not fit; the next, F(4, 3), does and is applied whole: the
  // algorithm the graph pass picks and the kernel's knobs come from the same record.
  TempLog log("stale_best");
  const graph::Graph g = conv_graph();  // 12x12: direct by default
  const std::vector<autotune::Task> tasks = autotune::extract_tasks(g, "llvm");
  REQUIRE(tasks.size() == 1);
  const autotune::Task &t = tasks[0];
  autotune::Record def = record_of(t, t.default_index, {1.0});
  def.is_default = true;
  const autotune::Record f4 = record_of(t, find_config(t, {"\"winograd\":4"}), {0.5});
  autotune::Record stale = record_of(t, find_config(t, {"\"winograd\":2"}), {0.1});
  stale.config_json = json_with_knob(stale.config_json, "tile_oc", 3);
  for (const autotune::Record &r : {def, f4, stale}) autotune::append_record(log.path, r);
  std::vector<std::string> warnings;
  graph::BuildOptions o;
  o.tuning_log = log.path;
  const graph::CompiledModel m = build_warning(g, o, warnings);
  REQUIRE(warnings.size() == 1);
  INFO(warnings[0]);
  CHECK(warnings[0].find("line 3: the configuration") != std::string::npos);
  CHECK(warnings[0].find("node 'conv'") != std::string::npos);
  CHECK(warnings[0].find("knob 'tile_oc' = 3 is not one of its choices") != std::string::npos);
  CHECK(warnings[0].find("the best record that fits is applied instead") != std::string::npos);
  CHECK(warnings[0].find("line 2)") != std::string::npos);
  const graph::Node &conv = m.graph().node("conv");
  REQUIRE(conv.op == "conv2d_winograd");
  CHECK(conv.attr_int("tile") == 4);
  const NDArray x = NDArray::random({1, 16, 12, 12}, Float(32), 41);
  CHECK(max_rel_error(m.run({{"x", x}}).to_vector<float>(), graph::build(g, "llvm").run({{"x", x}}).to_vector<float>()) <
        1e-4);
  // With only the stale record: untuned (direct), one warning saying so.
  warnings.clear();
  const graph::CompiledModel untuned = build_with_record(g, stale, warnings);
  REQUIRE(warnings.size() == 1);
  CHECK(warnings[0].find("this workload is built untuned") != std::string::npos);
  CHECK(untuned.graph().node("conv").op == "conv2d");
}

TEST_CASE("a log with no record for the target applies nothing and says so", "[autotune][log]") {
  const graph::Graph g = conv_graph();
  const std::vector<autotune::Task> tasks = autotune::extract_tasks(g, "llvm -mcpu=native");
  std::vector<std::string> warnings;
  const graph::CompiledModel m =
      build_with_record(g, record_of(tasks[0], find_config(tasks[0], {"\"winograd\":4"}), {0.5}), warnings);
  REQUIRE(warnings.size() == 1);
  INFO(warnings[0]);
  CHECK(warnings[0].find("has no record for target 'llvm'") != std::string::npos);
  CHECK(warnings[0].find("'llvm -mcpu=native'") != std::string::npos);
  CHECK(m.graph().node("conv").op == "conv2d");
}

TEST_CASE("webgl: Winograd is a knob of 3x3 stride-1 convolutions, each choice with the same knobs",
          "[autotune][winograd][webgl]") {
  // x [1, 16, S, S] -> conv to 32 (its result in texels of 4 channels for the next) ->
  // relu -> conv to 16 (an NCHW result: rows of S, whole texels only for S = 16, where the
  // direct convolution has the draw-buffers knob) -> relu.
  const int64_t S = GENERATE(14, 16);
  INFO("S = " << S);
  graph::Builder b;
  auto x = b.input("x", {1, 16, S, S});
  ops::Conv2dAttrs a;
  a.padding = {1, 1};
  auto h = b.relu(b.conv2d(x, b.constant("w1", NDArray::random({32, 16, 3, 3}, Float(32), 51, -0.3, 0.3)), a, "conv1"));
  const graph::Graph g =
      b.finish(b.relu(b.conv2d(h, b.constant("w2", NDArray::random({16, 32, 3, 3}, Float(32), 52, -0.3, 0.3)), a, "conv2")));
  const std::vector<autotune::Task> tasks = autotune::extract_tasks(g, "webgl");
  REQUIRE(tasks.size() == 2);
  const autotune::Task &last = task_named(tasks, "conv2d 1x32x" + std::to_string(S) + "x" + std::to_string(S) + " k16 3x3 s1");
  CHECK(has_knob(last, "draw-buffers") == (S % 4 == 0));
  std::mt19937_64 rng(29);
  std::vector<autotune::Record> records;
  for (const autotune::Task &t : tasks) {
    INFO(t.name << " " << t.config_json(t.default_index));
    REQUIRE(has_knob(t, "winograd"));
    CHECK(knob_value(t.config_json(t.default_index), "winograd") == 0);  // direct until a log says otherwise
    for (int64_t m : {0, 2, 4, 6}) {
      const int64_t index = random_with_tile(t, m, rng);
      INFO(t.config_json(index));
      // instantiate checks that the template asked the knobs it declared.
      const autotune::Instance inst = t.instantiate(index);
      CHECK(inst.name == (m ? "tuned_conv2d_winograd" : "tuned_conv2d"));
      // The transformed weight in texels of 4 output channels: [alpha][alpha][K/4][C][4].
      if (m) CHECK(shape_of(inst.args[1]).back() == 4);
    }
    records.push_back(record_of(t, random_with_tile(t, &t == &last ? 2 : 4, rng), {1.0}));
  }
  // graph::build follows the log without a warning (its knobs fit the Winograd kernels'),
  // and the kernels compute what llvm does.
  graph::BuildOptions o;
  o.tuning = std::make_shared<autotune::ApplyHistoryBest>(records);
  std::vector<std::string> warnings;
  const graph::CompiledModel tuned = build_warning(g, o, warnings, "webgl");
  CHECK(warnings.empty());
  CHECK(tuned.graph().node("conv1").attr_int("tile") == 4);
  CHECK(tuned.graph().node("conv2").attr_int("tile") == 2);
#if TENSORIR_WITH_OPENGL
  const NDArray input = NDArray::random({1, 16, S, S}, Float(32), 53);
  const std::vector<float> want = graph::build(g, "llvm").run({{"x", input}}).to_vector<float>();
  const double err = max_rel_error(tuned.run({{"x", input}}).to_vector<float>(), want);
  INFO("max |a - b| / max |b| = " << err);
  CHECK(err < 1e-4);
#endif
}

TEST_CASE("webgl: a log of the direct template alone builds the direct convolution without a warning",
          "[autotune][winograd][webgl]") {
  // Records from before the algorithm was a knob on webgl: their knobs still fit the
  // direct kernel.
  const graph::Graph g = conv_graph();
  const std::vector<autotune::Task> tasks = autotune::extract_tasks(g, "webgl");
  REQUIRE(tasks.size() == 1);
  autotune::Record r = record_of(tasks[0], find_config(tasks[0], {"\"winograd\":0", "\"unroll\":1024"}), {1.0});
  r.config_json = json_with_knob(r.config_json, "winograd", nullptr);
  graph::BuildOptions o;
  o.tuning = std::make_shared<autotune::ApplyHistoryBest>(std::vector<autotune::Record>{r});
  std::vector<std::string> warnings;
  const graph::CompiledModel m = build_warning(g, o, warnings, "webgl");
  CHECK(warnings.empty());
  CHECK(m.graph().node("conv").op == "conv2d");
}

TEST_CASE("GPU compute targets: every task has register-tile knobs, 3x3 stride-1 convolutions Winograd's too",
          "[autotune][winograd][opengl][opencl]") {
  std::vector<std::string> targets;
#if TENSORIR_WITH_OPENGL
  targets.push_back("opengl");
#endif
#if TENSORIR_WITH_OPENCL
  targets.push_back("opencl");
  targets.push_back("opencl -vector-lanes=0");
#endif
  REQUIRE_FALSE(targets.empty());
  // x [1, 16, 12, 12] -> 3x3 conv to 32 -> relu -> 3x3 conv stride 2 to 32 -> relu ->
  // 3x3 conv to 32 (+ the second's result) -> global average pool -> dense to 10.
  graph::Builder b;
  auto x = b.input("x", {1, 16, 12, 12});
  ops::Conv2dAttrs a;
  a.padding = {1, 1};
  ops::Conv2dAttrs s2 = a;
  s2.strides = {2, 2};
  auto w = [&](const char *name, std::vector<int64_t> shape, uint64_t seed) {
    return b.constant(name, NDArray::random(shape, Float(32), seed, -0.3, 0.3));
  };
  auto h1 = b.relu(b.conv2d(x, w("w1", {32, 16, 3, 3}, 61), a, "conv1"));
  auto h2 = b.relu(b.conv2d(h1, w("w2", {32, 32, 3, 3}, 62), s2, "conv2"));
  auto h3 = b.relu(b.add(b.conv2d(h2, w("w3", {32, 32, 3, 3}, 63), a, "conv3"), h2));
  const graph::Graph g = b.finish(b.dense(b.flatten(b.global_avg_pool2d(h3, "gap")), w("wd", {10, 32}, 64), "fc"));
  const NDArray input = NDArray::random({1, 16, 12, 12}, Float(32), 65);
  const std::vector<float> want = graph::build(g, "llvm").run({{"x", input}}).to_vector<float>();
  for (const std::string &target : targets) {
    INFO("target " << target);
    const std::vector<autotune::Task> tasks = autotune::extract_tasks(g, target);
    std::set<std::string> names;
    for (const autotune::Task &t : tasks) names.insert(t.name);
    CHECK(names == std::set<std::string>{"conv2d 1x16x12x12 k32 3x3 s1", "conv2d 1x32x12x12 k32 3x3 s2",
                                         "conv2d 1x32x6x6 k32 3x3 s1", "dense 1x32 m10"});
    std::mt19937_64 rng(31);
    std::vector<autotune::Record> records;
    for (const autotune::Task &t : tasks) {
      INFO(t.name << " " << t.config_json(t.default_index));
      CHECK(t.space_size() > 1);
      const bool winograd = t.name.find("s1") != std::string::npos;
      REQUIRE(has_knob(t, "winograd") == winograd);
      if (!winograd) {
        records.push_back(record_of(t, int64_t(rng() % uint64_t(t.space_size())), {1.0}));
        continue;
      }
      CHECK(knob_value(t.config_json(t.default_index), "winograd") == 0);  // direct until a log says otherwise
      CHECK(has_knob(t, "winograd_gpu_tiles"));
      for (int64_t m : {0, 2, 4, 6}) {
        const int64_t index = random_with_tile(t, m, rng);
        INFO(t.config_json(index));
        CHECK(t.instantiate(index).name == (m ? "tuned_conv2d_winograd" : "tuned_conv2d"));
      }
      records.push_back(record_of(t, random_with_tile(t, t.name.find("x6x6") != std::string::npos ? 2 : 4, rng), {1.0}));
    }
    // graph::build follows the log without a warning, and the kernels compute what llvm does.
    graph::BuildOptions o;
    o.tuning = std::make_shared<autotune::ApplyHistoryBest>(records);
    std::vector<std::string> warnings;
    const graph::CompiledModel tuned = build_warning(g, o, warnings, target);
    CHECK(warnings.empty());
    CHECK(tuned.graph().node("conv1").attr_int("tile") == 4);
    CHECK(tuned.graph().node("conv3").attr_int("tile") == 2);
    const double err = max_rel_error(tuned.run({{"x", input}}).to_vector<float>(), want);
    INFO("max |a - b| / max |b| = " << err);
    CHECK(err < 1e-4);
  }
}
