// Convolutions whose output channels split into blocks of 8 only (1000, 72, 24, 40) on
// CPUs with 16-lane vectors: graph::build computes them on whole vectors, the weight
// padded with zero channels, and keeps their NCHW8c results; against plain loops.
#include <tensorir/graph/executor.h>
#include <tensorir/graph/passes.h>
#include <tensorir/ops/nn.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <string>

#include "graph/graph_test_util.h"

using namespace tensorir;
using Catch::Matchers::Contains;

namespace {

struct Layer {
  int C, K, R, stride;
  int pad() const { return R / 2; }
};

// relu(conv(x, w) + b) by plain loops in double; x is [C][H][W], batch 1.
std::vector<float> reference(const Layer &p, int H, int W, const std::vector<float> &x, const std::vector<float> &w,
                             const std::vector<float> &b) {
  const int OH = (H + 2 * p.pad() - p.R) / p.stride + 1, OW = (W + 2 * p.pad() - p.R) / p.stride + 1;
  std::vector<float> out(size_t(p.K) * OH * OW);
  for (int k = 0; k < p.K; ++k)
    for (int y = 0; y < OH; ++y)
      for (int z = 0; z < OW; ++z) {
        double s = b[size_t(k)];
        for (int c = 0; c < p.C; ++c)
          for (int r = 0; r < p.R; ++r)
            for (int q = 0; q < p.R; ++q) {
              const int iy = y * p.stride + r - p.pad(), ix = z * p.stride + q - p.pad();
              if (iy < 0 || iy >= H || ix < 0 || ix >= W) continue;
              s += double(x[size_t((c * H + iy) * W + ix)]) * w[size_t(((k * p.C + c) * p.R + r) * p.R + q)];
            }
        out[size_t((k * OH + y) * OW + z)] = float(std::max(s, 0.0));
      }
  return out;
}

// x -> (conv -> bias_add -> relu) per layer, [1, C, H, W] input, and its reference.
struct Chain {
  graph::Graph graph;
  NDArray input;
  std::vector<float> want;
};

Chain chain(const std::vector<Layer> &layers, int H, int W, uint64_t seed) {
  graph::Builder b;
  auto y = b.input("x", {1, layers[0].C, H, W});
  Chain c;
  c.input = NDArray::random({1, layers[0].C, H, W}, Float(32), seed, -1, 1);
  c.want = c.input.to_vector<float>();
  for (size_t i = 0; i < layers.size(); ++i) {
    const Layer &p = layers[i];
    const std::string id = std::to_string(i);
    const NDArray w = NDArray::random({p.K, p.C, p.R, p.R}, Float(32), seed + 2 * i + 1, -0.5, 0.5);
    const NDArray bias = NDArray::random({p.K}, Float(32), seed + 2 * i + 2, -0.5, 0.5);
    ops::Conv2dAttrs a;
    a.strides = {p.stride, p.stride};
    a.padding = {p.pad(), p.pad()};
    y = b.relu(b.bias_add(b.conv2d(y, b.constant("w" + id, w), a, "conv" + id), b.constant("b" + id, bias), 1),
               "relu" + id);
    c.want = reference(p, H, W, c.want, w.to_vector<float>(), bias.to_vector<float>());
    H = (H + 2 * p.pad() - p.R) / p.stride + 1;
    W = (W + 2 * p.pad() - p.R) / p.stride + 1;
  }
  c.graph = b.finish(y);
  return c;
}

// The conv2d nodes of a built graph computing on whole vectors (attribute out_channels).
int wide_convs(const graph::Graph &g) {
  int n = 0;
  for (const graph::Node &node : g.nodes())
    if (node.op == "conv2d" && node.attr_int("out_channels")) ++n;
  return n;
}

}  // namespace

TEST_CASE("conv2d with output channels in blocks of 8 computes on whole vectors", "[graph][conv][wide_conv]") {
  const bool wide = Target("llvm").caps().cpu_vector_lanes == 16;
  // 1x1 and 3x3, strides 1 and 2, on NCHW data (the first layer) and on blocked data (a
  // layer after a first one). 13x13 as SqueezeNet's classifier; 3x3 stride 1 at 7x7.
  const std::vector<std::vector<Layer>> cases = {
      {{32, 1000, 1, 1}},
      {{16, 32, 1, 1}, {32, 1000, 1, 1}},
      {{24, 72, 3, 2}},
      {{16, 24, 1, 1}, {24, 72, 3, 1}},
      {{16, 40, 3, 2}, {40, 24, 1, 1}},
      {{8, 72, 1, 1}, {72, 40, 3, 1}, {40, 72, 1, 2}},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    INFO("case " << i);
    const Chain c = chain(cases[i], 13, 13, 300 + 10 * i);
    graph::BuildOptions o;
    o.winograd = 0;  // the 3x3 stride-1 layers too
    const graph::CompiledModel m = graph::build(c.graph, "llvm", o);
    CHECK(graph_test::max_rel_error(m.run({{"x", c.input}}).single().to_vector<float>(), c.want) < 1e-4);
    int expected = 0;
    // Not the 3x3 stride-1 ones, which Winograd may take (as it does with its defaults).
    for (const Layer &p : cases[i]) expected += wide && p.K % 16 == 8 && p.K > 16 && (p.R != 3 || p.stride != 1);
    CHECK(wide_convs(m.graph()) == expected);
  }
}

TEST_CASE("a fire-module network with a 1000-channel classifier matches plain loops", "[graph][conv][wide_conv]") {
  // SqueezeNet 1.1's classifier end: squeeze 1x1, expand 1x1 and 3x3 (concatenated),
  // the 1000-channel 1x1 convolution, global average pool.
  graph::Builder b;
  const int C = 32, S = 16, E = 32, K = 1000, H = 13;
  auto x = b.input("x", {1, C, H, H});
  const NDArray in = NDArray::random({1, C, H, H}, Float(32), 7, -1, 1);
  auto conv = [&](graph::NodeRef d, int c, int k, int r, const std::string &name, uint64_t seed,
                  std::vector<float> &w, std::vector<float> &bias) {
    const NDArray wt = NDArray::random({k, c, r, r}, Float(32), seed, -0.5, 0.5);
    const NDArray bt = NDArray::random({k}, Float(32), seed + 1, -0.5, 0.5);
    w = wt.to_vector<float>();
    bias = bt.to_vector<float>();
    ops::Conv2dAttrs a;
    a.padding = {r / 2, r / 2};
    return b.relu(b.bias_add(b.conv2d(d, b.constant(name + ".w", wt), a, name), b.constant(name + ".b", bt), 1));
  };
  std::vector<float> w[4], bias[4];
  auto sq = conv(x, C, S, 1, "squeeze", 11, w[0], bias[0]);
  auto e1 = conv(sq, S, E, 1, "expand1", 13, w[1], bias[1]);
  auto e3 = conv(sq, S, E, 3, "expand3", 15, w[2], bias[2]);
  auto cat = b.make("concatenate", {e1, e3}, {{"axis", int64_t{1}}});
  auto cls = conv(cat, 2 * E, K, 1, "classifier", 17, w[3], bias[3]);
  auto y = b.global_avg_pool2d(cls);
  const graph::CompiledModel m = graph::build(b.finish(y), "llvm");

  const std::vector<float> s = reference({C, S, 1, 1}, H, H, in.to_vector<float>(), w[0], bias[0]);
  std::vector<float> c = reference({S, E, 1, 1}, H, H, s, w[1], bias[1]);
  const std::vector<float> c3 = reference({S, E, 3, 1}, H, H, s, w[2], bias[2]);
  c.insert(c.end(), c3.begin(), c3.end());
  const std::vector<float> k = reference({2 * E, K, 1, 1}, H, H, c, w[3], bias[3]);
  std::vector<float> want(K);
  for (int i = 0; i < K; ++i) {
    double sum = 0;
    for (int p = 0; p < H * H; ++p) sum += k[size_t(i * H * H + p)];
    want[size_t(i)] = float(sum / (H * H));
  }
  CHECK(graph_test::max_rel_error(m.run({{"x", in}}).single().to_vector<float>(), want) < 1e-4);
  CHECK(wide_convs(m.graph()) == (Target("llvm").caps().cpu_vector_lanes == 16 ? 1 : 0));
}

TEST_CASE("alter_conv_layout_cpu widens blocks of half a vector only", "[graph][alter_layout][wide_conv]") {
  // 16 lanes: 1000, 72 and 24 channels on whole vectors, 32 as before.
  const Chain c = chain({{16, 1000, 1, 1}, {1000, 32, 1, 1}, {32, 72, 3, 2}, {72, 24, 1, 1}}, 9, 9, 5);
  const graph::Graph wide = alter_conv_layout_cpu(c.graph, true, 16);
  std::vector<std::string> kernels;
  for (const graph::Node &n : wide.nodes())
    if (n.op == "conv2d") {
      kernels.push_back(n.attr_string("kernel_layout") + " " + n.attr_string("out_layout") + " " +
                        std::to_string(n.attr_int("out_channels")) + " " +
                        std::to_string(wide.node(n.inputs[1]).shape[0]));
    }
  CHECK(kernels == std::vector<std::string>{"OIHW16i16o NCHW8c 1000 63", "OIHW8i16o NCHW16c 0 2",
                                           "OIHW16i16o NCHW8c 72 5", "OIHW8i16o NCHW 24 2"});
  // The rest of the graph is the same as with the blocks alone; so is all of it for
  // vectors of 8 or 4 lanes ("wasm": Target caps say 4).
  const graph::Graph plain = alter_conv_layout(c.graph, true);
  REQUIRE(plain.nodes().size() == wide.nodes().size());
  for (size_t i = 0; i < plain.nodes().size(); ++i) {
    const graph::Node &p = plain.nodes()[i], &q = wide.nodes()[i];
    INFO(p.name);
    CHECK(p.op == q.op);
    if (q.op == "conv2d" && !q.attr_int("out_channels")) CHECK(p.attrs == q.attrs);
    if (p.op != "conv2d" && p.op != "layout_transform" && p.op != "constant") {
      CHECK(p.name == q.name);
      CHECK(p.shape == q.shape);
    }
  }
  CHECK(Target("wasm").caps().cpu_vector_lanes == 4);
  for (int lanes : {0, 4, 8}) {
    const graph::Graph g = alter_conv_layout_cpu(c.graph, true, lanes);
    CHECK(wide_convs(g) == 0);
    for (size_t i = 0; i < plain.nodes().size(); ++i) {
      CHECK(plain.nodes()[i].attrs == g.nodes()[i].attrs);
      CHECK(plain.nodes()[i].shape == g.nodes()[i].shape);
    }
  }
  REQUIRE_THROWS_WITH(alter_conv_layout_cpu(c.graph, true, -1), Contains("vector_lanes must be 0"));
}

TEST_CASE("a packed conv2d's out_channels must fit its weight", "[graph][conv][wide_conv][error]") {
  Tensor x = placeholder({1, 2, 5, 5, 8}, Float(32), "x");
  Tensor w = placeholder({2, 2, 1, 1, 8, 16}, Float(32), "wp");
  ops::Conv2dAttrs a;
  for (int64_t k : {int64_t{16}, int64_t{33}}) {
    a.out_channels = k;
    REQUIRE_THROWS_WITH(ops::conv2d_nchwc_packed(x, w, a, true), Contains("out_channels = " + std::to_string(k)));
    REQUIRE_THROWS_WITH(ops::conv2d_packed_direct(x, w, a, true), Contains("the rest zero padding"));
  }
  // 12 channels in blocks of 6, of which 9 are used: blocks of 9 do not divide 6.
  a.out_channels = 9;
  REQUIRE_THROWS_WITH(ops::conv2d_nchwc_packed(x, placeholder({2, 2, 1, 1, 8, 6}, Float(32), "w6"), a),
                      Contains("do not divide the weight's blocks of 6"));
  a.out_channels = 24;
  CHECK(ops::conv2d_nchwc_packed(x, w, a, true).ndim() == 5);
  CHECK(*as_const_int(ops::conv2d_nchwc_packed(x, w, a, true).shape()[1]) == 3);

  graph::Builder b;
  auto d = b.input("x", {1, 16, 5, 5, 8});
  auto wc = b.constant("w", NDArray::random({2, 16, 1, 1, 8, 16}, Float(32), 1, -1, 1));
  auto conv = [&](int64_t k, const std::string &out) {
    return b.make("conv2d", {d, wc},
                  {{"data_layout", std::string("NCHW8c")}, {"kernel_layout", std::string("OIHW8i16o")},
                   {"out_layout", out}, {"out_channels", k}});
  };
  REQUIRE_THROWS_WITH(conv(40, "NCHW8c"), Contains("out_channels = 40 does not fit the weight"));
  REQUIRE_THROWS_WITH(conv(24, "NCHW16c"), Contains("must be NCHW or NCHW8c"));
  auto plain = b.input("p", {1, 16, 5, 5});
  REQUIRE_THROWS_WITH(b.make("conv2d", {plain, b.constant("w4", NDArray::random({24, 16, 1, 1}, Float(32), 2, -1, 1))},
                             {{"out_channels", int64_t{24}}}),
                      Contains("needs a packed weight"));
  CHECK(b.node(conv(24, "NCHW8c")).shape == std::vector<int64_t>{1, 3, 5, 5, 8});
}
