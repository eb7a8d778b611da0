// Every configuration of a task computes what the operator computes: sampled
// configurations of ResNet-18's convolutions and dense, of a depthwise convolution and of
// a batch_matmul, built for "llvm" and compared on random data with the reference layers
// of test/reference (convolutions) or plain loops.
#include <algorithm>
#include <tuple>
#include <tensorir/graph/graph.h>
#include <tensorir/ir/printer.h>
#include <tensorir/graph/models.h>

#include <random>
#include <sstream>
#include <set>
#include <thread>

#include "autotune/autotune_test_util.h"

using namespace tensorir;
using namespace tensorir::autotune_test;

namespace {

// Configuration `index` of conv2d task `t` against plain loops; within Winograd's
// rounding (BuildOptions::winograd) where the configuration chooses it.
void check_conv(const autotune::Task &t, int64_t index) {
  const std::string config = t.config_json(index);
  INFO("task " << t.name << ", configuration " << index << " " << config);
  const ConvCase c = conv_case(t.workload);
  const std::vector<float> x = random_vector(size_t(c.N * c.C * c.H * c.W), 1 + uint64_t(index));
  const std::vector<float> w = random_vector(size_t(c.K * (c.C / c.groups) * c.R * c.S), 2 + uint64_t(index));
  const std::vector<float> got = run_conv_instance(t.instantiate(index), c, x, w);
  const bool winograd = config.find("\"winograd\":") != std::string::npos && config.find("\"winograd\":0") == std::string::npos;
  CHECK(max_rel_error(got, conv_reference(c, x, w)) < (winograd ? 1e-4 : 1e-5));
}

// Configuration `index` of a dense task against plain loops; its weight packed in
// panels when the kernel takes it so.
void check_dense(const autotune::Task &t, int64_t index) {
  INFO("task " << t.name << ", configuration " << index << " " << t.config_json(index));
  const autotune::Instance inst = t.instantiate(index);
  const std::vector<int64_t> ds = shape_of(inst.args[0]), ws = shape_of(inst.args[1]);
  const int64_t N = ds[0], K = ds[1], M = ws.size() == 3 ? ws[0] * ws[2] : ws[0];
  const std::vector<float> x = random_vector(size_t(N * K), 3), w = random_vector(size_t(M * K), 4);
  std::vector<float> weight = w;
  if (ws.size() == 3) {
    const int64_t b = ws[2];
    for (int64_t j = 0; j < M; ++j)
      for (int64_t k = 0; k < K; ++k) weight[size_t(((j / b) * K + k) * b + j % b)] = w[size_t(j * K + k)];
  }
  std::vector<float> want(size_t(N * M));
  for (int64_t n = 0; n < N; ++n)
    for (int64_t j = 0; j < M; ++j) {
      double acc = 0;
      for (int64_t k = 0; k < K; ++k) acc += double(x[size_t(n * K + k)]) * double(w[size_t(j * K + k)]);
      want[size_t(n * M + j)] = float(acc);
    }
  CHECK(max_rel_error(run_instance(inst, {x, weight}), want) < 1e-5);
}

// Configuration `index` of a pooling task of blocked data (after a blocked convolution)
// against the reference layers.
void check_pool(const autotune::Task &t, int64_t index) {
  INFO("task " << t.name << ", configuration " << index << " " << t.config_json(index));
  const autotune::Instance inst = t.instantiate(index);
  const std::vector<int64_t> ds = shape_of(inst.args[0]), os = shape_of(inst.args[1]);
  REQUIRE((ds.size() == 5 && ds[0] == 1));
  const int64_t C = ds[1] * ds[4], H = ds[2], W = ds[3];
  const std::vector<float> x = random_vector(size_t(C * H * W), 5 + uint64_t(index));
  const std::vector<float> got = unblock_data(run_instance(inst, {block_data(x, 1, C, H * W, ds[4])}), 1, C,
                                              os[2] * os[3], os[4]);
  const json attrs = json::parse(t.workload)["attrs"];
  if (t.name.rfind("global_avg_pool2d", 0) == 0) {
    CHECK(max_rel_error(got, reference::global_avg_pool({C, H, W, x})) < 1e-5);
    return;
  }
  REQUIRE(t.name.rfind("max_pool2d", 0) == 0);
  const auto pool = attrs["pool_size"].get<std::vector<int64_t>>(), st = attrs["strides"].get<std::vector<int64_t>>(),
             pad = attrs["padding"].get<std::vector<int64_t>>();
  REQUIRE((pool[0] == pool[1] && st[0] == st[1] && pad[0] == pad[1]));
  CHECK(max_rel_error(got, reference::max_pool2d({C, H, W, x}, pool[0], st[0], pad[0]).data) < 1e-5);
}

void check(const autotune::Task &t, int64_t index) {
  if (t.name.rfind("conv2d", 0) == 0) return check_conv(t, index);
  if (t.name.find("pool") != std::string::npos) return check_pool(t, index);
  REQUIRE(t.name.rfind("dense", 0) == 0);
  check_dense(t, index);
}

// The index of configuration `base` with knob `name` set to `value` instead.
int64_t with_knob(const autotune::Task &t, int64_t base, const std::string &name, int64_t value) {
  const auto knob = std::find(t.knob_names.begin(), t.knob_names.end(), name);
  REQUIRE(knob != t.knob_names.end());
  const size_t k = size_t(knob - t.knob_names.begin());
  int64_t stride = 1;
  for (size_t i = 0; i < k; ++i) stride *= t.knob_sizes[i];
  const int64_t zero = base - (base / stride) % t.knob_sizes[k] * stride;
  for (int64_t p = 0; p < t.knob_sizes[k]; ++p)
    if (json::parse(t.config_json(zero + p * stride))[name] == value) return zero + p * stride;
  FAIL("knob '" << name << "' has no choice " << value);
  return -1;
}

// The tasks of a 1x1 convolution of `in` channels into `channels`, then of a 3x3
// depthwise one of its blocked result (padding `pad`, `stride`), each with a relu: the
// pair of MobileNetV2.
std::vector<autotune::Task> conv_then_depthwise(int64_t in, int64_t channels, int64_t h, int64_t w, int pad,
                                                int stride) {
  graph::Builder b;
  auto x = b.input("x", {1, in, h, w});
  auto w1 = b.constant("w1", NDArray::random({channels, in, 1, 1}, Float(32), 6));
  auto w2 = b.constant("w2", NDArray::random({channels, 1, 3, 3}, Float(32), 7));
  ops::Conv2dAttrs dw;
  dw.groups = static_cast<int>(channels);
  dw.padding = {pad, pad};
  dw.strides = {stride, stride};
  const std::vector<autotune::Task> tasks =
      autotune::extract_tasks(b.finish(b.relu(b.conv2d(b.relu(b.conv2d(x, w1)), w2, dw))), "llvm");
  REQUIRE(tasks.size() == 2);
  return tasks;
}

// The first and last configurations and `random` more, seeded.
std::vector<int64_t> sample(const autotune::Task &t, int random, uint64_t seed) {
  std::set<int64_t> picks = {0, t.space_size() - 1};
  std::mt19937_64 rng(seed);
  for (int i = 0; i < random; ++i) picks.insert(int64_t(rng() % uint64_t(t.space_size())));
  return {picks.begin(), picks.end()};
}

}  // namespace

TEST_CASE("sampled configurations of ResNet-18's tasks compute the reference", "[autotune][templates]") {
  const std::vector<autotune::Task> tasks = autotune::extract_tasks(graph::resnet18(3), "llvm");
  REQUIRE(!tasks.empty());
  for (const autotune::Task &t : tasks) {
    REQUIRE(t.space_size() > 1);
    for (int64_t index : sample(t, 2, std::hash<std::string>()(t.workload))) check(t, index);
  }
}

namespace {

// batch_matmul of x [batches, m, k] and y [batches, k, n] by plain loops in double.
std::vector<float> batch_matmul_reference(const std::vector<float> &x, const std::vector<float> &y, int batches, int m,
                                          int k, int n) {
  std::vector<float> want(size_t(batches * m * n));
  for (int bt = 0; bt < batches; ++bt)
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j) {
        double acc = 0;
        for (int q = 0; q < k; ++q) acc += double(x[size_t((bt * m + i) * k + q)]) * double(y[size_t((bt * k + q) * n + j)]);
        want[size_t((bt * m + i) * n + j)] = float(acc);
      }
  return want;
}

// The task of a dense layer of `rows` x `in` data and an `out` x `in` constant weight.
autotune::Task dense_task(int64_t rows, int64_t in, int64_t out, uint64_t seed, const std::string &target = "llvm") {
  graph::Builder b;
  auto x = b.input("x", {rows, in});
  auto w = b.constant("w", NDArray::random({out, in}, Float(32), seed));
  const std::vector<autotune::Task> tasks = autotune::extract_tasks(b.finish(b.dense(x, w)), target);
  REQUIRE(tasks.size() == 1);
  return tasks[0];
}

// The task of a 1x1 convolution and ReLU from `in` to `out` channels on h x w.
autotune::Task pointwise_task(int64_t in, int64_t out, int64_t h, int64_t w, uint64_t seed) {
  graph::Builder b;
  auto x = b.input("x", {1, in, h, w});
  auto weight = b.constant("w", NDArray::random({out, in, 1, 1}, Float(32), seed));
  const std::vector<autotune::Task> tasks = autotune::extract_tasks(b.finish(b.relu(b.conv2d(x, weight))), "llvm");
  REQUIRE(tasks.size() == 1);
  return tasks[0];
}

}  // namespace

TEST_CASE("batch_matmul's and dense's default register blocks fit the target's vector registers",
          "[autotune][templates]") {
  // With a register for each vector of the other operand's row and one for the broadcast,
  // 8 x 32 fits AVX-512's 32 registers, but with AVX2 (16) it spills: batch_matmul ran
  // 1.5x and dense 1.8x slower than with blocks of 2 x 32.
  graph::Builder b;
  auto a = b.input("a", {2, 20, 16});
  auto c = b.input("b", {2, 16, 40});
  const graph::Graph g = b.finish(b.make("batch_matmul", {a, c}));
  for (const auto &[target, block] : std::vector<std::pair<std::string, std::string>>{
           {"llvm -mcpu=skylake-avx512", "\"tile_y\":8,\"tile_x\":32"},
           {"llvm -mcpu=haswell", "\"tile_y\":2,\"tile_x\":32"},
           {"wasm", "\"tile_y\":2,\"tile_x\":16"}}) {
    INFO("target " << target);
    const std::vector<autotune::Task> tasks = autotune::extract_tasks(g, target);
    REQUIRE(tasks.size() == 1);
    CHECK(tasks[0].config_json(tasks[0].default_index).find(block) != std::string::npos);
  }
  // The AVX2 default computes the product.
  const std::vector<autotune::Task> tasks = autotune::extract_tasks(g, "llvm -mcpu=haswell");
  const autotune::Task &t = tasks[0];
  const std::vector<float> x = random_vector(2 * 20 * 16, 10), y = random_vector(2 * 16 * 40, 11);
  const std::vector<float> want = batch_matmul_reference(x, y, 2, 20, 16, 40);
  CHECK(max_rel_error(run_instance(t.instantiate(t.default_index), {x, y}, "llvm -mcpu=haswell"), want) < 1e-5);
  // dense: its weight in panels of 32 columns.
  for (const auto &[target, rows] : std::vector<std::pair<std::string, std::string>>{
           {"llvm -mcpu=skylake-avx512", "\"tile_y\":8"}, {"llvm -mcpu=haswell", "\"tile_y\":2"}}) {
    INFO("target " << target);
    const autotune::Task d = dense_task(20, 64, 64, 12, target);
    CHECK(d.config_json(d.default_index).find(rows) != std::string::npos);
  }
}

TEST_CASE("every configuration of a dense task computes the reference", "[autotune][templates]") {
  const autotune::Task t = dense_task(3, 64, 48, 5);
  CHECK(t.name == "dense 3x64 m48");
  for (int64_t i = 0; i < t.space_size(); ++i) check(t, i);
}

TEST_CASE("a dense layer at batch 1 reads several panels side by side by default", "[autotune][templates]") {
  // One row and panels of 8 columns: one panel alone is a single chain of dependent FMAs.
  const autotune::Task t = dense_task(1, 96, 40, 6);
  const json fallback = json::parse(t.config_json(t.default_index));
  CHECK(fallback["panel"] == 8);
  CHECK(fallback["panels"] == 5);
  check(t, t.default_index);
  check(t, with_knob(t, t.default_index, "panels", 1));
}

TEST_CASE("sampled configurations of a depthwise convolution compute the reference", "[autotune][templates]") {
  // After a convolution, as in MobileNetV2: the depthwise one reads blocked data.
  const std::vector<autotune::Task> tasks = conv_then_depthwise(8, 32, 14, 14, 1, 2);
  const autotune::Task &t = tasks[1];
  CHECK(t.name == "conv2d 1x32x14x14 k32 3x3 s2 g32");
  for (int64_t index : sample(t, 6, 11)) check(t, index);
}

TEST_CASE("a task instantiates from several threads at once", "[autotune][templates]") {
  const std::vector<autotune::Task> tasks = autotune::extract_tasks(graph::resnet18(3), "llvm");
  const autotune::Task &t = tasks[2];
  std::vector<std::string> ir(4);
  std::vector<std::thread> threads;
  for (size_t i = 0; i < ir.size(); ++i)
    threads.emplace_back([&, i] {
      const autotune::Instance inst = t.instantiate(t.space_size() / 2);
      std::ostringstream os;
      os << lower(inst.schedule, inst.args, inst.name);
      ir[i] = os.str();
    });
  for (std::thread &th : threads) th.join();
  for (const std::string &s : ir) CHECK(s == ir[0]);
  check(t, t.space_size() / 2);
}

TEST_CASE("every configuration of a batch_matmul task computes the reference", "[autotune][templates]") {
  graph::Builder b;
  auto a = b.input("a", {2, 5, 16});
  auto c = b.input("b", {2, 16, 24});
  const std::vector<autotune::Task> tasks = autotune::extract_tasks(b.finish(b.make("batch_matmul", {a, c})), "llvm");
  REQUIRE(tasks.size() == 1);
  const autotune::Task &t = tasks[0];
  CHECK(t.name == "batch_matmul 2x5x16 2x16x24");
  CHECK(t.flops == 2.0 * 2 * 5 * 24 * 16);
  const std::vector<float> x = random_vector(2 * 5 * 16, 8), y = random_vector(2 * 16 * 24, 9);
  const std::vector<float> want = batch_matmul_reference(x, y, 2, 5, 16, 24);
  for (int64_t i = 0; i < t.space_size(); ++i) {
    INFO("configuration " << t.config_json(i));
    CHECK(max_rel_error(run_instance(t.instantiate(i), {x, y}), want) < 1e-5);
  }
}

TEST_CASE("sampled configurations of convolutions on whole vectors compute the reference", "[autotune][templates]") {
  // 1000 and 24 output channels in blocks of 8: on AVX-512, weights in blocks of 16 with
  // the output channels padded, results in blocks of 8 (NCHW8c, then NCHW).
  graph::Builder b;
  auto x = b.input("x", {1, 16, 13, 13});
  auto w1 = b.constant("w1", NDArray::random({1000, 16, 1, 1}, Float(32), 8));
  auto w2 = b.constant("w2", NDArray::random({24, 1000, 3, 3}, Float(32), 9));
  ops::Conv2dAttrs a;
  a.strides = {2, 2};
  const graph::Graph g = b.finish(b.relu(b.conv2d(b.relu(b.conv2d(x, w1)), w2, a)));
  const std::vector<autotune::Task> tasks = autotune::extract_tasks(g, "llvm");
  REQUIRE(tasks.size() == 2);
  CHECK(tasks[0].name == "conv2d 1x16x13x13 k1000 1x1 s1");
  CHECK(tasks[1].name == "conv2d 1x1000x13x13 k24 3x3 s2");
  CHECK_THAT(tasks[0].workload, Catch::Contains("[1000,16,1,1]") && !Catch::Contains("out_channels"));
  const int64_t co = Target("llvm").caps().cpu_vector_lanes == 16 ? 16 : 8;
  for (const autotune::Task &t : tasks) {
    CHECK(shape_of(t.instantiate(t.default_index).args[1]).back() == co);
    for (int64_t index : sample(t, 3, 13)) check(t, index);
  }
}

TEST_CASE("a depthwise convolution pads its input row by row, or in a pass of its own, to the same result",
          "[autotune][templates]") {
  // Blocked data (after a convolution), padded, at strides 1 and 2: "pad_per_row" is a
  // knob of its own, 1 (and one block per tile) by default.
  for (int stride : {1, 2}) {
    // 64 channels: 4 blocks, which an even tile of 2 would divide.
    const std::vector<autotune::Task> tasks = conv_then_depthwise(8, 64, 11, 13, 1, stride);
    const autotune::Task &t = tasks[1];
    INFO(t.name);
    const json fallback = json::parse(t.config_json(t.default_index));
    CHECK(fallback["pad_per_row"] == 1);
    CHECK(fallback["tile_oc"] == 1);
    CHECK(fallback["parallel"] == 0);
    // Bands of 4 output rows padded together at stride 1, single rows at stride 2.
    CHECK(fallback["pad_rows"] == (stride == 1 ? 4 : 1));
    // Each padding with each parallel loop, and a few more.
    std::vector<int64_t> picks = sample(t, 4, 17 + uint64_t(stride));
    for (int64_t pad_per_row : {0, 1})
      for (int64_t parallel : {0, 1, 2, 3})
        picks.push_back(with_knob(t, with_knob(t, t.default_index, "pad_per_row", pad_per_row), "parallel", parallel));
    // Bands that divide a thread's rows (11, or 6 and 5 in two bands) and that do not.
    for (int64_t rows : {1, 2, 4, 8})
      for (int64_t parallel : {0, 1, 3})
        picks.push_back(with_knob(t, with_knob(t, t.default_index, "pad_rows", rows), "parallel", parallel));
    for (int64_t index : picks) check(t, index);
  }
  // Large depthwise inputs keep the groups outside the rows (each group reads only its
  // own channels) inside two bands of rows, "parallel" 3, from 28 rows on (56 here).
  const std::vector<autotune::Task> large = conv_then_depthwise(16, 96, 112, 112, 1, 2);
  CHECK(json::parse(large[1].config_json(large[1].default_index))["parallel"] == 3);
  CHECK(json::parse(large[1].config_json(large[1].default_index))["pad_per_row"] == 1);
  // 27 rows, the second band one shorter, against the reference; 14 rows are not banded.
  const std::vector<autotune::Task> banded = conv_then_depthwise(8, 32, 27, 10, 1, 1);
  CHECK(json::parse(banded[1].config_json(banded[1].default_index))["parallel"] == 0);
  check(banded[1], with_knob(banded[1], banded[1].default_index, "parallel", 3));
  check(banded[0], with_knob(banded[0], banded[0].default_index, "parallel", 3));
  const std::vector<autotune::Task> at28 = conv_then_depthwise(8, 32, 28, 9, 1, 1);
  CHECK(json::parse(at28[1].config_json(at28[1].default_index))["parallel"] == 3);
  check(at28[1], at28[1].default_index);
  const std::vector<autotune::Task> at14 = conv_then_depthwise(8, 32, 14, 14, 1, 1);
  CHECK(json::parse(at14[1].config_json(at14[1].default_index))["parallel"] == 0);
  // Without padding there is no padded input to place: no knob.
  const std::vector<autotune::Task> tasks = conv_then_depthwise(16, 16, 9, 9, 0, 1);
  const std::vector<std::string> &names = tasks[1].knob_names;
  CHECK(std::find(names.begin(), names.end(), "pad_per_row") == names.end());
  check(tasks[1], tasks[1].default_index);
}

TEST_CASE("a convolution's copy back runs per register tile by default, in every parallel mode",
          "[autotune][templates]") {
  // 16 -> 32 channels at 28x28: 2 tiles of 14 columns per row.
  const autotune::Task t = pointwise_task(16, 32, 28, 28, 7);
  const json fallback = json::parse(t.config_json(t.default_index));
  CHECK(fallback["tile_tail"] == 1);
  CHECK(fallback["tile_ow"] == 14);
  for (int64_t parallel : {0, 1, 2, 3})
    for (int64_t tail : {0, 1}) check(t, with_knob(t, with_knob(t, t.default_index, "parallel", parallel), "tile_tail", tail));
}

TEST_CASE("a convolution whose input outgrows the cache or has many rows runs each row's channel groups in turn, else prefetches its input",
          "[autotune][templates]") {
  // "parallel" 2 by default (rows outside the channel groups) where the weights are at
  // most 640 KB and the input over 1 MB (256 channels at 56x56, 3.2 MB, as ResNet-50's
  // layer1) or the result 14 rows or more; groups outside at 7 rows, and with 1 MB of weights.
  struct Case {
    int64_t in_channels, out_channels, size, parallel;
  };
  for (const Case c : {Case{256, 64, 56, 2}, Case{64, 128, 14, 2}, Case{64, 128, 7, 0}, Case{1024, 256, 14, 0}}) {
    INFO(c.in_channels << " -> " << c.out_channels << " at " << c.size << "x" << c.size);
    const autotune::Task t = pointwise_task(c.in_channels, c.out_channels, c.size, c.size, 6);
    const json fallback = json::parse(t.config_json(t.default_index));
    CHECK(fallback["parallel"] == c.parallel);
    // Threads that split the channel groups read every input channel, half of it written
    // by the other core: they prefetch the input 4 channel blocks ahead.
    CHECK(fallback["prefetch_input"] == (c.parallel == 0 ? 4 : 0));
    for (int64_t parallel : {0, 1, 2, 3}) check(t, with_knob(t, t.default_index, "parallel", parallel));
    for (int64_t ahead : {0, 2, 4}) check(t, with_knob(t, t.default_index, "prefetch_input", ahead));
  }
}

TEST_CASE("a task's default configuration is the schedule of an untuned build", "[autotune][templates]") {
  const std::vector<autotune::Task> tasks = autotune::extract_tasks(graph::resnet18(3), "llvm");
  for (const autotune::Task &t : tasks) {
    INFO(t.name << " " << t.config_json(t.default_index));
    // A configuration naming no knob is a record's of the templates before the
    // prefetches (which it builds without them); every other knob takes its fallback.
    const json fallback = json::parse(t.config_json(t.default_index));
    json prefetches = {{"prefetch", 32}, {"winograd_prefetch", 32}};
    for (const char *knob : {"prefetch_input", "tile_tail", "panels"})
      if (fallback.contains(knob)) prefetches[knob] = fallback[knob];
    const autotune::Instance a = t.instantiate(t.default_index), b = t.instantiate_json(prefetches.dump());
    std::ostringstream sa, sb;
    sa << lower(a.schedule, a.args, a.name);
    sb << lower(b.schedule, b.args, b.name);
    CHECK(sa.str() == sb.str());
  }
  // conv1: 3 input channels in one block, 16 output channels per vector, 2 blocks of them
  // by 14 columns per register tile, each column's blocks in turn, rows in parallel with
  // each row's blocks in turn, the weight prefetched 32 lines ahead, the input not (each
  // thread reads the rows its core wrote), the copy back per register tile.
  CHECK(tasks[0].config_json(tasks[0].default_index) ==
        "{\"tile_oc\":2,\"tile_order\":1,\"tile_ow\":14,\"reduce_order\":0,\"unroll_inner\":0,"
        "\"parallel\":2,\"tile_tail\":1,\"prefetch\":32,\"prefetch_input\":0}");
}

TEST_CASE("every configuration of a depthwise convolution of NCHW data computes the reference",
          "[autotune][templates]") {
  // Of the graph's input, not blocked: the direct schedule, vectors along the columns.
  graph::Builder b;
  auto x = b.input("x", {1, 16, 15, 16});
  auto w = b.constant("w", NDArray::random({16, 1, 3, 3}, Float(32), 12));
  ops::Conv2dAttrs dw;
  dw.groups = 16;
  dw.padding = {1, 1};
  const std::vector<autotune::Task> tasks = autotune::extract_tasks(b.finish(b.conv2d(x, w, dw)), "llvm");
  REQUIRE(tasks.size() == 1);
  CHECK(tasks[0].knob_names == std::vector<std::string>{"vector", "tile_k"});
  for (int64_t i = 0; i < tasks[0].space_size(); ++i) check(tasks[0], i);
}

TEST_CASE("a task's default configuration is its target's untuned schedule", "[autotune][templates]") {
  // On "wasm" (16 vector registers) one block of output channels by 2 columns; on "llvm"
  // 2 blocks by 14 columns, each column's blocks in turn. The same knobs and choices
  // either way, but for "llvm"'s weight prefetches (WebAssembly has no prefetch).
  const graph::Graph g = graph::resnet18(3);
  // The same workload on both: the 3x3 layer of 64 channels at 56x56, by default F(4, 3)
  // on "llvm" and direct on "wasm".
  const autotune::Task llvm = autotune::extract_tasks(g, "llvm")[2];
  const std::vector<autotune::Task> on_wasm = autotune::extract_tasks(g, "wasm");
  const auto same = std::find_if(on_wasm.begin(), on_wasm.end(), [&](const auto &t) { return t.workload == llvm.workload; });
  REQUIRE(same != on_wasm.end());
  const autotune::Task wasm = *same;
  CHECK(llvm.workload == wasm.workload);
  std::vector<std::string> llvm_names = llvm.knob_names;
  std::vector<int64_t> llvm_sizes = llvm.knob_sizes;
  for (const char *knob : {"prefetch", "prefetch_input", "winograd_prefetch"}) {
    const auto at = std::find(llvm_names.begin(), llvm_names.end(), knob);
    REQUIRE(at != llvm_names.end());
    CHECK(llvm_sizes[size_t(at - llvm_names.begin())] == (std::string(knob) == "prefetch_input" ? 3 : 4));
    llvm_sizes.erase(llvm_sizes.begin() + (at - llvm_names.begin()));
    llvm_names.erase(at);
  }
  CHECK(llvm_names == wasm.knob_names);
  CHECK(llvm_sizes == wasm.knob_sizes);
  CHECK(wasm.target.str() == "wasm");
  const json l = json::parse(llvm.config_json(llvm.default_index)), w = json::parse(wasm.config_json(wasm.default_index));
  CHECK(l["tile_oc"] == 2);
  CHECK(l["tile_ow"] == 14);
  CHECK(l["tile_order"] == 1);
  CHECK(w["tile_oc"] == 1);
  CHECK(w["tile_ow"] == 2);
  CHECK(w["tile_order"] == 0);
  CHECK(l["winograd"] == 4);
  CHECK(w["winograd"] == 0);
}

TEST_CASE("the register tile's order and input-channel blocks compute the reference", "[autotune][templates]") {
  // 256 input channels (16 blocks): "tile_ic" offers 4 and 8 blocks; with "parallel" 1
  // they run outside the rows, otherwise inside each row.
  const autotune::Task t = pointwise_task(256, 64, 10, 12, 8);
  const auto knob = std::find(t.knob_names.begin(), t.knob_names.end(), "tile_ic");
  REQUIRE(knob != t.knob_names.end());
  CHECK(t.knob_sizes[size_t(knob - t.knob_names.begin())] == 3);
  CHECK(json::parse(t.config_json(t.default_index))["tile_ic"] == 0);
  for (int64_t order : {0, 1})
    for (int64_t chunk : {0, 4, 8})
      for (int64_t parallel : {0, 1, 2}) {
        INFO("tile_order " << order << " tile_ic " << chunk << " parallel " << parallel);
        check(t, with_knob(t, with_knob(t, with_knob(t, t.default_index, "tile_order", order), "tile_ic", chunk),
                           "parallel", parallel));
      }
  // 64 input channels (4 blocks): no blocks to take fewer of, no knob.
  graph::Builder small;
  auto xs = small.input("x", {1, 64, 10, 12});
  auto ws = small.constant("w", NDArray::random({64, 64, 1, 1}, Float(32), 9));
  const std::vector<std::string> names = autotune::extract_tasks(small.finish(small.conv2d(xs, ws)), "llvm")[0].knob_names;
  CHECK(std::find(names.begin(), names.end(), "tile_ic") == names.end());
}

TEST_CASE("a pointwise convolution's register tile may run across rows", "[autotune][templates]") {
  // 1x1, stride 1, unpadded: "tile_flat" output positions per tile, rows after rows, each
  // parallel iteration a channel group's whole output; by default 28 / "tile_oc" where a
  // row has 7 columns or fewer, so that the tile fills the registers a short row leaves.
  auto pointwise = [](int64_t size, int stride, int64_t kernel) {
    graph::Builder b;
    auto x = b.input("x", {1, 128, size, size});
    auto w = b.constant("w", NDArray::random({64, 128, kernel, kernel}, Float(32), 10));
    ops::Conv2dAttrs a;
    a.strides = {stride, stride};
    a.padding = {int(kernel / 2), int(kernel / 2)};
    return autotune::extract_tasks(b.finish(b.relu(b.conv2d(x, w, a))), "llvm");
  };
  for (int64_t size : {7, 5}) {
    const std::vector<autotune::Task> tasks = pointwise(size, 1, 1);
    REQUIRE(tasks.size() == 1);
    const autotune::Task &t = tasks[0];
    INFO(t.name);
    const json fallback = json::parse(t.config_json(t.default_index));
    CHECK(fallback["tile_flat"] == 28 / fallback["tile_oc"].get<int64_t>());
    // Which thread computes which rows or groups is a partition knob, and so is the input
    // prefetch that depends on it; the others not. A whole group per iteration splits
    // the output channels: the input is prefetched.
    REQUIRE(t.knob_partition.size() == t.knob_names.size());
    for (size_t k = 0; k < t.knob_names.size(); ++k)
      CHECK(t.knob_partition[k] == (t.knob_names[k] == "parallel" || t.knob_names[k] == "prefetch_input"));
    CHECK(fallback["prefetch_input"] == 4);
    check(t, t.default_index);
    // Tiles that divide the positions (7 of 49) and that leave a tail, with blocks of
    // input channels and each parallel loop, which the tiles override.
    for (int64_t flat : {0, 7, 14, 28})
      for (int64_t oc : {1, 4})
        for (int64_t chunk : {0, 4})
          for (int64_t parallel : {0, 2, 3}) {
            INFO("tile_flat " << flat << " tile_oc " << oc << " tile_ic " << chunk << " parallel " << parallel);
            int64_t index = with_knob(t, t.default_index, "tile_flat", flat);
            index = with_knob(t, with_knob(t, index, "tile_oc", oc), "tile_ic", chunk);
            check(t, with_knob(t, index, "parallel", parallel));
          }
  }
  // Longer rows, strides and other kernels have no knob: there the tile's whole channel
  // groups in parallel would move the rows the threads take.
  for (const auto &[size, stride, kernel] : {std::tuple{14, 1, 1}, std::tuple{14, 2, 1}, std::tuple{7, 1, 3}}) {
    const std::vector<std::string> names = pointwise(size, stride, kernel)[0].knob_names;
    CHECK(std::find(names.begin(), names.end(), "tile_flat") == names.end());
  }
  // Three channel blocks a tile: the fallback stays among the choices (the largest tile
  // up to 28 accumulators, 7), so that every configuration decodes the same knobs.
  graph::Builder b;
  auto x = b.input("x", {1, 64, 7, 7});
  auto w = b.constant("w", NDArray::random({48, 64, 1, 1}, Float(32), 11));
  const autotune::Task t48 = autotune::extract_tasks(b.finish(b.conv2d(x, w)), "llvm").at(0);
  CHECK(json::parse(t48.config_json(t48.default_index))["tile_flat"] == 28);  // one block a tile
  // 4 blocks asked, 3 taken: the configuration's kernel is the one its record names.
  const int64_t oc4 = with_knob(t48, with_knob(t48, t48.default_index, "tile_oc", 4), "prefetch", 64);
  const autotune::Instance by_index = t48.instantiate(oc4), by_record = t48.instantiate_json(t48.config_json(oc4));
  std::ostringstream a, r;
  a << lower(by_index.schedule, by_index.args, "k")->body;
  r << lower(by_record.schedule, by_record.args, "k")->body;
  CHECK(a.str() == r.str());
  check(t48, oc4);
}
