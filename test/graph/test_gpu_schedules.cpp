// The GPU compute schedules (strategies["gpu"]: conv2d, dense, batch_matmul, pools) on
// "opengl" against the same graphs on "llvm", on shapes that no tile divides: odd sizes,
// strides 2, padding, dilation, groups, depthwise, 1x1, fused bias / relu / residual add.
#include <tensorir/graph/executor.h>
#include <tensorir/ops/nn.h>
#include <tensorir/ops/schedule.h>
#include <tensorir/tensorir.h>

#include <catch2/catch.hpp>
#include <regex>
#include <string>
#include <vector>

#include "graph/graph_test_util.h"

using namespace tensorir;
using Catch::Matchers::Contains;

#if TENSORIR_WITH_OPENGL

namespace {

uint64_t next_seed() {
  static uint64_t seed = 100;
  return ++seed;
}

graph::NodeRef random_constant(graph::Builder &b, const std::string &name, const std::vector<int64_t> &shape) {
  return b.constant(name, NDArray::random(shape, Float(32), next_seed()));
}

// Builds `g` for "opengl" (with `options`) and for "llvm", runs both on the same random
// inputs and compares every output.
void check_against_llvm(const graph::Graph &g, const std::string &options = "") {
  std::map<std::string, NDArray> inputs;
  for (const graph::Node &n : g.nodes())
    if (n.op == "input") inputs[n.name] = NDArray::random(n.shape, Float(32), next_seed());
  const graph::CompiledModel gl = graph::build(g, "opengl" + options), cpu = graph::build(g, "llvm");
  const graph::Outputs got = gl.run(inputs), want = cpu.run(inputs);
  for (int id : g.outputs()) {
    const std::string &name = g.node(id).name;
    INFO("output " << name);
    const double err = graph_test::max_rel_error(got[name].to_vector<float>(), want[name].to_vector<float>());
    INFO("max |a - b| / max |b| = " << err);
    CHECK(err < 1e-5);
  }
}

struct ConvCase {
  std::vector<int64_t> data;  // N, C, H, W
  int64_t K, R, S;
  ops::Conv2dAttrs a;
  bool tail;  // bias_add, add of a second input, relu
};

graph::Graph conv_graph(const ConvCase &c) {
  graph::Builder b;
  auto x = b.input("x", c.data);
  auto w = random_constant(b, "w", {c.K, c.data[1] / c.a.groups, c.R, c.S});
  auto y = b.conv2d(x, w, c.a, "conv");
  if (c.tail) {
    const graph::Node &conv = b.node(y);
    y = b.bias_add(y, random_constant(b, "bias", {c.K}));
    y = b.relu(b.add(y, b.input("residual", conv.shape)), "y");
  }
  return b.finish(y);
}

}  // namespace

TEST_CASE("conv2d's GPU schedule on opengl matches llvm on odd shapes", "[graph][gpu_schedules][opengl]") {
  const ConvCase c = GENERATE(values<ConvCase>({
      {{1, 3, 17, 19}, 5, 3, 3, {{1, 1}, {1, 1}, {1, 1}, 1}, true},       // odd channels and sizes
      {{2, 8, 15, 15}, 12, 3, 3, {{2, 2}, {1, 1}, {1, 1}, 1}, true},      // stride 2, batch 2
      {{1, 16, 9, 9}, 24, 1, 1, {{1, 1}, {0, 0}, {1, 1}, 1}, false},      // 1x1
      {{1, 20, 7, 7}, 36, 1, 1, {{2, 2}, {0, 0}, {1, 1}, 1}, true},       // 1x1, stride 2
      {{1, 6, 11, 13}, 6, 3, 3, {{1, 1}, {1, 1}, {1, 1}, 6}, true},       // depthwise
      {{1, 8, 10, 10}, 12, 3, 3, {{2, 2}, {1, 1}, {1, 1}, 4}, false},     // grouped, stride 2
      {{1, 3, 23, 21}, 16, 7, 7, {{2, 2}, {3, 3}, {1, 1}, 1}, true},      // a 7x7 stem
      {{1, 4, 13, 40}, 16, 3, 3, {{1, 1}, {2, 2}, {2, 2}, 1}, true},      // dilation, 2 columns a thread
      {{1, 5, 3, 300}, 7, 1, 3, {{1, 1}, {0, 1}, {1, 1}, 1}, false},      // a row longer than a work-group
  }));
  INFO("data " << c.data[0] << "x" << c.data[1] << "x" << c.data[2] << "x" << c.data[3] << ", K " << c.K << ", "
               << c.R << "x" << c.S << ", groups " << c.a.groups);
  check_against_llvm(conv_graph(c));
}

TEST_CASE("dense and batch_matmul GPU schedules on opengl match llvm", "[graph][gpu_schedules][opengl]") {
  SECTION("dense with odd M, N, K and a fused bias and relu") {
    for (auto [M, K, N] : std::vector<std::array<int64_t, 3>>{{3, 37, 29}, {1, 512, 1000}, {5, 16, 64}, {8, 7, 1}}) {
      INFO("M " << M << ", K " << K << ", N " << N);
      graph::Builder b;
      auto y = b.dense(b.input("x", {M, K}), random_constant(b, "w", {N, K}));
      check_against_llvm(b.finish(b.relu(b.bias_add(y, random_constant(b, "bias", {N})), "y")));
    }
  }
  SECTION("batch_matmul, batched and broadcast") {
    for (auto [as, bs] : std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>>{
             {{2, 3, 7, 9}, {2, 3, 9, 11}}, {{4, 5, 13}, {13, 6}}, {{1, 16, 8}, {1, 8, 12}}}) {
      graph::Builder b;
      check_against_llvm(b.finish(b.make("batch_matmul", {b.input("a", as), b.input("b", bs)}, {}, "y")));
    }
  }
}

TEST_CASE("pooling GPU schedules on opengl match llvm", "[graph][gpu_schedules][opengl]") {
  graph::Builder b;
  auto x = b.input("x", {2, 5, 13, 11});
  auto mx = b.max_pool2d(x, {3, 3}, {2, 2}, {1, 1}, "max");
  auto avg = b.make("avg_pool2d", {x}, {{"pool_size", std::vector<int64_t>{3, 2}}, {"strides", std::vector<int64_t>{2, 1}},
                                        {"padding", std::vector<int64_t>{1, 1}}}, "avg");
  auto global = b.global_avg_pool2d(x, "global");
  check_against_llvm(b.finish({mx, avg, global}));
}

TEST_CASE("GPU schedules stay within the target's work-group limit", "[graph][gpu_schedules][opengl]") {
  const TargetCaps caps = Target("opengl -max-work-group-size=32 -max-shared-memory=1024").caps();
  CHECK(caps.gpu_schedules);
  CHECK(caps.max_work_group_size == 32);
  CHECK(caps.max_shared_memory_bytes == 1024);
  const TargetCaps device = Target("opengl").caps();
  CHECK(device.gpu_schedules);
  CHECK(device.max_work_group_size >= 32);  // a context's limit (llvmpipe: 1024), else 256
  CHECK(device.max_shared_memory_bytes >= 16384);
  CHECK_FALSE(Target("opengl -mode=fragment").caps().gpu_schedules);

  // Each shader's work-group is at most 32 invocations, and the results still match.
  Tensor data = placeholder({1, 8, 30, 30}, Float(32), "data"), weight = placeholder({16, 8, 3, 3}, Float(32), "w");
  Tensor conv = ops::conv2d(data, weight, {{1, 1}, {1, 1}, {1, 1}, 1}, "conv");
  const Target small("opengl -max-work-group-size=32");
  Module m = build(ops::schedule_conv2d_gpu(conv, conv, small), {data, weight, conv}, small, "conv");
  const std::string src = m.source("glsl");
  const std::regex local(R"(local_size_x = (\d+), local_size_y = (\d+), local_size_z = (\d+))");
  int shaders = 0;
  for (auto it = std::sregex_iterator(src.begin(), src.end(), local); it != std::sregex_iterator(); ++it, ++shaders)
    CHECK(std::stoi((*it)[1]) * std::stoi((*it)[2]) * std::stoi((*it)[3]) <= 32);
  CHECK(shaders > 0);
  ConvCase c{{1, 8, 30, 30}, 16, 3, 3, {{1, 1}, {1, 1}, {1, 1}, 1}, true};
  check_against_llvm(conv_graph(c), " -max-work-group-size=32");
}

#endif

TEST_CASE("GPU schedules refuse tensors of other operators", "[graph][gpu_schedules]") {
  Tensor a = placeholder({4, 8}, Float(32), "a"), w = placeholder({6, 8}, Float(32), "w");
  Tensor d = ops::dense(a, w, "d");
  CHECK_THROWS_WITH(ops::schedule_conv2d_gpu(d, d, Target("opengl -max-work-group-size=64")),
                    Contains("tensor d is not the NCHW output of conv2d"));
  CHECK_THROWS_WITH(ops::schedule_matmul_gpu(a, a, Target("opengl -max-work-group-size=64")),
                    Contains("tensor a is not the output of dense or batch_matmul"));
  CHECK_THROWS_WITH(Target("opengl -max-work-group-size=0"), Contains("max-work-group-size"));
}
