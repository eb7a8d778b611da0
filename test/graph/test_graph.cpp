// The graph layer: builder shape inference and errors, the executor on a small network
// against plain loops, and ResNet-18 against the independent reference model.
#include <tensorir/graph/executor.h>
#include <tensorir/graph/graph.h>

#include <algorithm>
#include <catch2/catch.hpp>

#include "graph/graph_test_util.h"
#include <chrono>
#include <cmath>
#include <cstdio>

using namespace tensorir;
using Catch::Matchers::Contains;

namespace {

NDArray rand_array(const std::vector<int64_t> &shape, uint64_t seed, double lo = -1, double hi = 1) {
  return NDArray::random(shape, Float(32), seed, lo, hi);
}

ops::Conv2dAttrs conv_attrs(int stride, int pad) {
  ops::Conv2dAttrs a;
  a.strides = {stride, stride};
  a.padding = {pad, pad};
  return a;
}

}  // namespace

TEST_CASE("graph builder infers shapes and dtypes", "[graph]") {
  graph::Builder b;
  auto x = b.input("x", {1, 3, 32, 32});
  auto w = b.constant("conv.weight", rand_array({16, 3, 3, 3}, 1));
  auto c = b.conv2d(x, w, conv_attrs(2, 1), "conv");
  CHECK(b.node(c).shape == std::vector<int64_t>{1, 16, 16, 16});
  auto p = b.max_pool2d(c, {3, 3}, {2, 2}, {1, 1}, "pool");
  CHECK(b.node(p).shape == std::vector<int64_t>{1, 16, 8, 8});
  auto g = b.global_avg_pool2d(p);
  CHECK(b.node(g).shape == std::vector<int64_t>{1, 16, 1, 1});
  auto f = b.flatten(g);
  CHECK(b.node(f).shape == std::vector<int64_t>{1, 16});
  auto d = b.dense(f, b.constant("fc.weight", rand_array({10, 16}, 2)), "fc");
  CHECK(b.node(d).shape == std::vector<int64_t>{1, 10});
  auto s = b.softmax(b.bias_add(d, b.constant("fc.bias", rand_array({10}, 3))));
  CHECK(b.node(s).shape == std::vector<int64_t>{1, 10});
  CHECK(b.node(s).dtype == Float(32));
  CHECK(b.node(g).name == "global_avg_pool2d_4");  // default names: op and id
  graph::Graph graph = b.finish(s);
  CHECK_NOTHROW(graph.validate());
  CHECK(graph.node("conv").op == "conv2d");
  CHECK(graph.topological_order().size() == graph.nodes().size());
  CHECK_THAT(graph.str(), Contains("conv2d(%0, %1) name=conv shape=[1, 16, 16, 16]"));
}

TEST_CASE("graph builder errors name the nodes involved", "[graph][error]") {
  graph::Builder b;
  auto x = b.input("x", {1, 64, 8, 8});
  auto w = b.constant("layer1.0.conv1.weight", rand_array({64, 32, 3, 3}, 1));
  REQUIRE_THROWS_WITH(b.conv2d(x, w, conv_attrs(1, 1), "layer1.0.conv1"),
                      Contains("node 'layer1.0.conv1' (conv2d): weight 'layer1.0.conv1.weight' has 32 input "
                               "channels but input 'x' has 64"));

  auto y = b.relu(x, "act");
  REQUIRE_THROWS_WITH(b.relu(x, "act"), Contains("node 'act' (relu): the name is already used"));
  REQUIRE_THROWS_WITH(b.make("erfinv", {y}, {}, "g"), Contains("node 'g' (erfinv): unknown operator 'erfinv'"));
  REQUIRE_THROWS_WITH(b.make("relu", {x, y}, {}, "r2"), Contains("node 'r2' (relu): takes 1 inputs but was given 2"));
  auto v = b.constant("bn.var", rand_array({32}, 2));
  auto m = b.constant("bn.mean", rand_array({64}, 3));
  REQUIRE_THROWS_WITH(b.batch_norm(x, m, m, m, v, 1e-5, "bn"),
                      Contains("node 'bn' (batch_norm): var 'bn.var' has shape [32] but input 'x' has 64 channels"));
  auto fw = b.constant("fc.weight", rand_array({10, 32}, 4));
  REQUIRE_THROWS_WITH(b.dense(b.flatten(x, "flat"), fw, "fc"),
                      Contains("node 'fc' (dense): input 'flat' [1, 4096] and weight 'fc.weight' [10, 32]"));
  // Errors raised inside ops:: carry the node's name too.
  REQUIRE_THROWS_WITH(b.add(x, b.constant("c", rand_array({3}, 5)), "sum"), Contains("node 'sum' (add): "));
  REQUIRE_THROWS_WITH(b.max_pool2d(x, {9, 9}, {1, 1}, {0, 0}, "big_pool"), Contains("node 'big_pool' (max_pool2d): "));
  // Element types no array holds: refused where they are named, not when a kernel is built.
  for (const Type t : {Float(8), Int(4), Float(32, 4)}) {
    INFO(t);
    REQUIRE_THROWS_WITH(b.input("odd", {4}, t), Contains("no array holds elements of type"));
    REQUIRE_THROWS_WITH(b.make("cast", {x}, {{"dtype", t.str()}}, "to_odd"), Contains("which no array holds"));
  }
}

TEST_CASE("graph validation finds cycles and unknown operators", "[graph][error]") {
  graph::Graph g;
  graph::Node in;
  in.name = "x";
  in.op = "input";
  in.shape = {4};
  g.add_node(in);
  graph::Node a;
  a.name = "a";
  a.op = "relu";
  a.inputs = {2};
  a.shape = {4};
  g.add_node(a);
  graph::Node c = a;
  c.name = "c";
  c.inputs = {1};
  g.add_node(c);
  g.set_output(2);
  REQUIRE_THROWS_WITH(g.validate(), Contains("is on a cycle through node"));
  REQUIRE_THROWS_WITH(g.topological_order(), Contains("cycle"));

  graph::Graph h;
  h.add_node(in);
  graph::Node u;
  u.name = "u";
  u.op = "frobnicate";
  u.inputs = {0};
  h.add_node(u);
  h.set_output(1);
  REQUIRE_THROWS_WITH(h.validate(), Contains("node 'u' (frobnicate): unknown operator"));
  REQUIRE_THROWS_WITH(graph::build(h, "llvm"), Contains("unknown operator 'frobnicate'"));

  graph::Graph self;
  self.add_node(in);
  graph::Node s = a;
  s.inputs = {1};
  self.add_node(s);
  self.set_output(1);
  REQUIRE_THROWS_WITH(self.validate(), Contains("node 'a' (relu): reads its own output"));
  REQUIRE_THROWS_WITH(graph::Graph().validate(), Contains("no output set"));
}

namespace {

// conv 3x3 pad 1 -> batch norm -> relu -> max pool 2x2/2 -> flatten -> dense + bias, in plain loops.
std::vector<float> small_net_reference(const std::vector<float> &x, const std::vector<float> &w,
                                       const std::vector<float> &gamma, const std::vector<float> &beta,
                                       const std::vector<float> &mean, const std::vector<float> &var,
                                       const std::vector<float> &fw, const std::vector<float> &fb) {
  const int C = 3, K = 8, H = 12, W = 12, PH = 6, PW = 6, M = 10;
  std::vector<float> act(K * H * W);
  for (int k = 0; k < K; ++k)
    for (int y = 0; y < H; ++y)
      for (int xx = 0; xx < W; ++xx) {
        double s = 0;
        for (int c = 0; c < C; ++c)
          for (int r = 0; r < 3; ++r)
            for (int q = 0; q < 3; ++q) {
              const int iy = y + r - 1, ix = xx + q - 1;
              if (iy < 0 || iy >= H || ix < 0 || ix >= W) continue;
              s += double(x[(c * H + iy) * W + ix]) * w[((k * C + c) * 3 + r) * 3 + q];
            }
        const double bn = (s - mean[k]) / std::sqrt(double(var[k]) + 1e-5) * gamma[k] + beta[k];
        act[(k * H + y) * W + xx] = float(std::max(bn, 0.0));
      }
  std::vector<float> pooled(K * PH * PW);
  for (int k = 0; k < K; ++k)
    for (int y = 0; y < PH; ++y)
      for (int xx = 0; xx < PW; ++xx) {
        float m = -INFINITY;
        for (int r = 0; r < 2; ++r)
          for (int q = 0; q < 2; ++q) m = std::max(m, act[(k * H + 2 * y + r) * W + 2 * xx + q]);
        pooled[(k * PH + y) * PW + xx] = m;
      }
  std::vector<float> out(M);
  for (int j = 0; j < M; ++j) {
    double s = fb[j];
    for (size_t i = 0; i < pooled.size(); ++i) s += double(pooled[i]) * fw[j * pooled.size() + i];
    out[j] = float(s);
  }
  return out;
}

// The small network as a graph, with its parameters kept for the reference.
struct SmallNet {
  NDArray w = rand_array({8, 3, 3, 3}, 11), gamma = rand_array({8}, 12, 0.5, 1.5), beta = rand_array({8}, 13),
          mean = rand_array({8}, 14), var = rand_array({8}, 15, 0.5, 1.5), fw = rand_array({10, 288}, 16),
          fb = rand_array({10}, 17);
  graph::Graph graph() const {
    graph::Builder b;
    auto x = b.input("x", {1, 3, 12, 12});
    auto c = b.conv2d(x, b.constant("conv.weight", w), conv_attrs(1, 1), "conv");
    auto n = b.batch_norm(c, b.constant("bn.weight", gamma), b.constant("bn.bias", beta),
                          b.constant("bn.running_mean", mean), b.constant("bn.running_var", var), 1e-5, "bn");
    auto p = b.max_pool2d(b.relu(n, "relu"), {2, 2}, {2, 2}, {0, 0}, "pool");
    auto d = b.dense(b.flatten(p, "flatten"), b.constant("fc.weight", fw), "fc");
    return b.finish(b.bias_add(d, b.constant("fc.bias", fb), 1, "fc.bias_add"));
  }
  std::vector<float> reference(const NDArray &input) const {
    return small_net_reference(input.to_vector<float>(), w.to_vector<float>(), gamma.to_vector<float>(),
                               beta.to_vector<float>(), mean.to_vector<float>(), var.to_vector<float>(),
                               fw.to_vector<float>(), fb.to_vector<float>());
  }
};

}  // namespace

TEST_CASE("graph executor runs a small network like plain loops", "[graph][executor]") {
  const bool tuned = GENERATE(true, false);
  CAPTURE(tuned);
  const SmallNet net;
  graph::BuildOptions opts;
  opts.tuned_schedules = tuned;
  opts.fuse_operators = false;  // one kernel per node here; fusion has its own tests
  graph::CompiledModel m = graph::build(net.graph(), "llvm", opts);
  CHECK(m.num_kernels() == 7);

  for (uint64_t seed : {21, 22}) {
    NDArray input = rand_array({1, 3, 12, 12}, seed);
    NDArray got = m.run({{"x", input}});
    REQUIRE(got.shape() == std::vector<int64_t>{1, 10});
    CHECK(graph_test::max_rel_error(got.to_vector<float>(), net.reference(input)) < 1e-5);
  }

  const auto prof = m.profile({{"x", rand_array({1, 3, 12, 12}, 23)}}, 2);
  REQUIRE(prof.size() == 7);
  CHECK(prof[0].node == "conv");
  CHECK(prof[0].op == "conv2d");
  for (const auto &k : prof) CHECK(k.ms >= 0);

  REQUIRE_THROWS_WITH(m.run({}), Contains("input 'x' [1, 3, 12, 12] float32 was not given"));
  REQUIRE_THROWS_WITH(m.run({{"x", rand_array({1, 3, 12, 13}, 1)}}),
                      Contains("input 'x' must be [1, 3, 12, 12] float32 but is [1, 3, 12, 13]"));
  REQUIRE_THROWS_WITH(m.run({{"x", rand_array({1, 3, 12, 12}, 1)}, {"y", rand_array({1}, 2)}}),
                      Contains("no input called 'y'"));
}

#if TENSORIR_WITH_OPENGL
TEST_CASE("graph executor runs a small network on OpenGL", "[graph][executor][opengl][opencl]") {
  const std::string target = GENERATE(as<std::string>{}, "opengl", "opengl -mode=fragment", "opencl");
  INFO("target " << target);
  const SmallNet net;
  graph::CompiledModel m = graph::build(net.graph(), target);
  NDArray input = rand_array({1, 3, 12, 12}, 31);
  CHECK(graph_test::max_rel_error(m.run({{"x", input}}).to_vector<float>(), net.reference(input)) < 1e-5);
}
#endif
