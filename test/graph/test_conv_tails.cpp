// The tuned CPU convolutions on shapes their register tiles do not divide: grouped and
// depthwise convolutions with their element-wise tail in the same kernel, and blocked
// convolutions on rows that no tile width divides, against plain loops.
#include <tensorir/graph/executor.h>
#include <tensorir/ops/nn.h>
#include <tensorir/ops/schedule.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <map>
#include <string>

#include "graph/graph_test_util.h"

using namespace tensorir;
using Catch::Matchers::Contains;

namespace {

struct Case {
  int C, H, W, K, R, stride, pad, groups;
  int OH() const { return (H + 2 * pad - R) / stride + 1; }
  int OW() const { return (W + 2 * pad - R) / stride + 1; }
};

enum class Act { Relu, Silu };

// act(conv(x, w, groups) + b) by plain loops in double, batch 1.
std::vector<float> reference(const Case &p, Act act, const std::vector<float> &x, const std::vector<float> &w,
                             const std::vector<float> &b) {
  const int cg = p.C / p.groups, kg = p.K / p.groups;
  std::vector<float> out(size_t(p.K) * p.OH() * p.OW());
  for (int k = 0; k < p.K; ++k)
    for (int y = 0; y < p.OH(); ++y)
      for (int z = 0; z < p.OW(); ++z) {
        double s = b[size_t(k)];
        for (int c = 0; c < cg; ++c)
          for (int r = 0; r < p.R; ++r)
            for (int q = 0; q < p.R; ++q) {
              const int iy = y * p.stride + r - p.pad, ix = z * p.stride + q - p.pad;
              if (iy < 0 || iy >= p.H || ix < 0 || ix >= p.W) continue;
              const int ic = k / kg * cg + c;
              s += double(x[size_t((ic * p.H + iy) * p.W + ix)]) * w[size_t(((k * cg + c) * p.R + r) * p.R + q)];
            }
        out[size_t((k * p.OH() + y) * p.OW() + z)] = float(act == Act::Relu ? std::max(s, 0.0) : s / (1 + std::exp(-s)));
      }
  return out;
}

// Builds x -> conv2d -> bias_add -> act for each layer in turn, checks the model against
// the loops and returns the number of kernels it compiled to.
size_t check_chain(const std::vector<std::pair<Case, Act>> &layers, uint64_t seed) {
  graph::Builder b;
  const Case &first = layers[0].first;
  auto y = b.input("x", {1, first.C, first.H, first.W});
  NDArray in = NDArray::random({1, first.C, first.H, first.W}, Float(32), seed, -1, 1);
  std::vector<float> want = in.to_vector<float>();
  for (size_t i = 0; i < layers.size(); ++i) {
    const auto &[p, act] = layers[i];
    const std::string id = std::to_string(i);
    const NDArray w = NDArray::random({p.K, p.C / p.groups, p.R, p.R}, Float(32), seed + 2 * i + 1, -0.5, 0.5);
    const NDArray bias = NDArray::random({p.K}, Float(32), seed + 2 * i + 2, -0.5, 0.5);
    ops::Conv2dAttrs a;
    a.strides = {p.stride, p.stride};
    a.padding = {p.pad, p.pad};
    a.groups = p.groups;
    y = b.bias_add(b.conv2d(y, b.constant("w" + id, w), a, "conv" + id), b.constant("b" + id, bias), 1, "bias" + id);
    y = act == Act::Relu ? b.relu(y, "act" + id) : b.make("silu", {y}, {}, "act" + id);
    want = reference(p, act, want, w.to_vector<float>(), bias.to_vector<float>());
  }
  const graph::CompiledModel m = graph::build(b.finish(y), "llvm");
  CHECK(graph_test::max_rel_error(m.run({{"x", in}}).single().to_vector<float>(), want) < 1e-5);
  return m.num_kernels();
}

size_t check_case(const Case &p, Act act, uint64_t seed) { return check_chain({{p, act}}, seed); }

}  // namespace

TEST_CASE("grouped and depthwise conv2d compute their bias and activation in one kernel", "[graph][conv][fusion]") {
  // Rows of 14, 7 and 11 columns (one vector each), 37 (no vector width divides it),
  // 1 (a single column), 16; stride 2; groups of 2 and 4 channels.
  const std::vector<Case> cases = {
      {24, 14, 14, 24, 3, 1, 1, 24}, {16, 7, 7, 16, 5, 1, 2, 16}, {6, 9, 11, 4, 3, 1, 1, 2},
      {8, 5, 37, 8, 3, 1, 1, 8},     {12, 3, 3, 12, 3, 1, 0, 12}, {8, 32, 31, 8, 3, 2, 1, 8},
      {12, 10, 9, 6, 3, 1, 1, 3},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    for (Act act : {Act::Relu, Act::Silu}) {
      INFO("case " << i << (act == Act::Relu ? " relu" : " silu"));
      // input -> conv -> bias -> act: the layout of the input aside, one kernel.
      CHECK(check_case(cases[i], act, 10 * i) == 1);
    }
  }
}

TEST_CASE("blocked conv2d on rows that no register tile divides", "[graph][conv]") {
  // 13 and 27 columns with one or two blocks of output channels per tile (40 channels:
  // 5 blocks of 8, 32: 2 blocks of 16, 48: 3 blocks of 16), a stride-2 row of 17.
  const std::vector<Case> cases = {
      {16, 13, 13, 40, 1, 1, 0, 1}, {16, 13, 13, 32, 1, 1, 0, 1}, {8, 27, 27, 48, 3, 1, 1, 1},
      {8, 11, 27, 32, 3, 1, 1, 1},  {4, 9, 34, 16, 3, 2, 1, 1},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    INFO("case " << i);
    check_case(cases[i], Act::Relu, 100 + 10 * i);
  }
}

TEST_CASE("depthwise conv2d between blocked convolutions stays in their channel blocks", "[graph][conv][layout]") {
  // 1x1 expansion, depthwise (3x3 stride 1, 5x5 stride 2, odd sizes), 1x1 projection, as
  // in MobileNet and EfficientNet: three kernels, with no layout change in between but
  // the result's.
  for (int stride : {1, 2}) {
    const int C = 8, E = 48, H = 11, W = 13, R = stride == 1 ? 3 : 5, OH = (H - 1) / stride + 1,
              OW = (W - 1) / stride + 1;
    INFO("stride " << stride);
    const size_t kernels = check_chain({{{C, H, W, E, 1, 1, 0, 1}, Act::Relu},
                                        {{E, H, W, E, R, stride, R / 2, E}, Act::Silu},
                                        {{E, OH, OW, 24, 1, 1, 0, 1}, Act::Relu}},
                                       200 + stride);
    CHECK(kernels == 3);
  }
}

TEST_CASE("a fused convolution tail must keep the convolution's shape", "[graph][conv][error]") {
  Tensor x = placeholder({1, 4, 6, 6}, Float(32), "x");
  Tensor w = placeholder({4, 1, 3, 3}, Float(32), "w");
  ops::Conv2dAttrs a;
  a.groups = 4;
  Tensor conv = ops::conv2d(x, w, a, "conv");
  Tensor flat = compute(std::vector<Expr>{4}, [&](Var k) { return conv(0, k, 0, 0); }, "first");
  REQUIRE_THROWS_WITH(ops::schedule_conv2d_llvm(conv, flat), Contains("keeps the convolution's shape"));
  Tensor notconv = compute(std::vector<Expr>{1, 4, 6, 6}, [&](Var n, Var c, Var h, Var v) { return x(n, c, h, v); }, "copy");
  REQUIRE_THROWS_WITH(ops::schedule_conv2d_llvm(notconv, notconv), Contains("is not the output of"));

  // Packed depthwise convolutions: the weight must fit the data's blocks, groups the channels.
  Tensor xb = placeholder({1, 2, 6, 6, 8}, Float(32), "xb");
  ops::Conv2dAttrs g16, g8;
  g16.groups = 16;
  g8.groups = 8;
  REQUIRE_THROWS_WITH(ops::depthwise_conv2d_nchwc_packed(xb, placeholder({2, 1, 3, 3, 1, 4}, Float(32), "wp"), g16),
                      Contains("does not fit data"));
  REQUIRE_THROWS_WITH(ops::depthwise_conv2d_nchwc_packed(xb, placeholder({2, 1, 3, 3, 1, 8}, Float(32), "wp"), g8),
                      Contains("needs groups = 16"));
  graph::Builder b;
  auto bx = b.input("x", {1, 2, 6, 6, 8});
  auto attrs = [](int64_t groups) {
    return std::map<std::string, graph::AttrValue>{{"groups", groups},
                                                    {"data_layout", std::string("NCHW8c")},
                                                    {"kernel_layout", std::string("OIHW1i8o")}};
  };
  auto w1 = b.constant("w1", NDArray::random({2, 1, 3, 3, 1, 8}, Float(32), 1));
  REQUIRE_THROWS_WITH(b.make("conv2d", {bx, w1}, attrs(8)), Contains("needs groups = 16"));
  auto w2 = b.constant("w2", NDArray::random({2, 1, 3, 3, 2, 8}, Float(32), 1));
  REQUIRE_THROWS_WITH(b.make("conv2d", {bx, w2}, attrs(16)), Contains("must be depthwise"));
  auto w3 = b.constant("w3", NDArray::random({2, 1, 3, 3, 1, 8}, Float(32), 1));
  auto bad_layout = attrs(16);
  bad_layout["kernel_layout"] = std::string("OIHW1i4o");
  REQUIRE_THROWS_WITH(b.make("conv2d", {bx, w3}, bad_layout), Contains("do not describe the depthwise weight"));
}
