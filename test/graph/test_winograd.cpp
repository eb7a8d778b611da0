// Winograd F(m x m, 3 x 3): the transform matrices against the 1-D correlation, the
// winograd_conv2d pass, and models built with every tile size against test/reference's
// layers: odd sizes (rows and columns no tile divides), 1 and many channels, padding 0
// and 1, batch 2, NCHW and channel-blocked neighbours, bias, relu and residual tails;
// ResNet-18 against the reference model; on "webgl" (forced: off by default) the stages
// in texels of 4 channels.
#include <tensorir/graph/executor.h>
#include <tensorir/graph/models.h>
#include <tensorir/graph/passes.h>
#include <tensorir/ops/schedule.h>
#include <tensorir/ops/winograd.h>
#include <tensorir/tensorir.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <random>

#include "graph/graph_test_util.h"
#include "reference/layers.h"
#include "reference/resnet18_reference.h"

using namespace tensorir;
using namespace tensorir::graph;

namespace {

struct ConvCase {
  int64_t n, c, k, h, w;
  int pad;
};

// conv2d (3x3, stride 1) of x [N][C][H][W] with w [K][C][3][3], image by image.
std::vector<double> conv_ref(const ConvCase &s, const std::vector<float> &x, const std::vector<float> &w) {
  const reference::NamedTensor weight{"w", {s.k, s.c, 3, 3}, w};
  const size_t image = size_t(s.c * s.h * s.w);
  std::vector<double> out;
  for (int64_t n = 0; n < s.n; ++n) {
    reference::FeatureMap in{s.c, s.h, s.w, std::vector<float>(x.begin() + long(n * image), x.begin() + long((n + 1) * image))};
    const reference::FeatureMap y = reference::conv2d(in, weight, 1, s.pad);
    out.insert(out.end(), y.data.begin(), y.data.end());
  }
  return out;
}

BuildOptions with_tile(int m, bool alter_layout = true) {
  BuildOptions o;
  o.winograd = m;
  o.alter_layout = alter_layout;
  return o;
}

int count_op(const Graph &g, const std::string &op) {
  int k = 0;
  for (const Node &n : g.nodes()) k += n.op == op;
  return k;
}

}  // namespace

TEST_CASE("Winograd matrices compute the 1-D correlation F(m, 3)", "[graph][winograd]") {
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> u(-1, 1);
  for (int m : {2, 4, 6}) {
    const ops::WinogradMatrices t = ops::winograd_matrices(m);
    const int a = t.alpha;
    REQUIRE(a == m + 2);
    std::vector<double> g(3), d(static_cast<size_t>(a));
    for (double &v : g) v = u(rng);
    for (double &v : d) v = u(rng);
    std::vector<double> prod(static_cast<size_t>(a));
    for (int j = 0; j < a; ++j) {
      double gg = 0, dd = 0;
      for (int k = 0; k < 3; ++k) gg += t.G[size_t(j * 3 + k)] * g[size_t(k)];
      for (int l = 0; l < a; ++l) dd += t.BT[size_t(j * a + l)] * d[size_t(l)];
      prod[size_t(j)] = gg * dd;
    }
    for (int i = 0; i < m; ++i) {
      double y = 0, want = 0;
      for (int j = 0; j < a; ++j) y += t.AT[size_t(i * a + j)] * prod[size_t(j)];
      for (int k = 0; k < 3; ++k) want += g[size_t(k)] * d[size_t(i + k)];
      INFO("m = " << m << ", output " << i);
      CHECK(std::fabs(y - want) < 1e-12);
    }
  }
  CHECK_THROWS_WITH(ops::winograd_matrices(3), Catch::Contains("use 2, 4 or 6"));
}

TEST_CASE("winograd_conv2d rewrites eligible convolutions only", "[graph][winograd]") {
  Builder b;
  NodeRef x = b.input("x", {1, 8, 10, 10});
  NodeRef w3 = b.constant("w3", NDArray::random({8, 8, 3, 3}, Float(32), 1));
  NodeRef y = b.conv2d(x, w3, {.padding = {1, 1}}, "c3");
  NodeRef s2 = b.conv2d(y, w3, {.strides = {2, 2}, .padding = {1, 1}}, "strided");
  NodeRef w1 = b.constant("w1", NDArray::random({8, 8, 1, 1}, Float(32), 2));
  NodeRef p = b.conv2d(s2, w1, {}, "pointwise");
  NodeRef wv = b.input("wv", {8, 8, 3, 3});
  NodeRef v = b.conv2d(p, wv, {.padding = {1, 1}}, "weight_input");
  const Graph g = winograd_conv2d(b.finish(v), [](const Graph &, const Node &) { return 4; });
  CHECK(g.node("c3").op == "conv2d_winograd");
  CHECK(g.node("c3").attr_int("tile") == 4);
  CHECK(g.node(g.node("c3").inputs[1]).name == "w3.winograd4");
  CHECK(g.node("w3.winograd4").shape == std::vector<int64_t>{6, 6, 1, 8, 8});
  CHECK(g.node("strided").op == "conv2d");
  CHECK(g.node("pointwise").op == "conv2d");
  CHECK(g.node("weight_input").op == "conv2d");
  CHECK(g.node("c3").shape == std::vector<int64_t>{1, 8, 10, 10});
}

TEST_CASE("Winograd convolutions match plain loops for every tile size", "[graph][winograd]") {
  const std::vector<ConvCase> cases = {
      {1, 1, 3, 7, 9, 1},    // one input channel, sizes no tile divides
      {2, 16, 32, 13, 11, 0},  // batch 2, no padding
      {1, 32, 16, 14, 14, 1},  // blocked data, the output transform's vectors
      {1, 5, 7, 6, 5, 1},    // channels no vector divides
  };
  for (int m : {2, 4, 6})
    for (bool layout : {true, false})
      for (const ConvCase &s : cases) {
        const NDArray x = NDArray::random({s.n, s.c, s.h, s.w}, Float(32), 3);
        const NDArray w = NDArray::random({s.k, s.c, 3, 3}, Float(32), 4, -0.5, 0.5);
        Builder b;
        NodeRef in = b.input("x", {s.n, s.c, s.h, s.w});
        NodeRef y = b.conv2d(in, b.constant("w", w), {.padding = {s.pad, s.pad}}, "conv");
        const CompiledModel model = build(b.finish(y), "llvm", with_tile(m, layout));
        REQUIRE(count_op(model.graph(), "conv2d_winograd") == 1);
        const std::vector<double> ref = conv_ref(s, x.to_vector<float>(), w.to_vector<float>());
        const std::vector<float> got = model.run({{"x", x}}).to_vector<float>();
        const double err = graph_test::max_rel_error(got, std::vector<float>(ref.begin(), ref.end()));
        INFO("m = " << m << ", alter_layout " << layout << ", N C K H W pad " << s.n << " " << s.c << " " << s.k << " "
                    << s.h << " " << s.w << " " << s.pad << ": max |a - b| / max |b| = " << err);
        CHECK(err < 1e-5);
      }
}

namespace {

// conv1 -> bias -> relu -> conv2 -> bias + x -> relu on x [1, 16, 15, 15], and its result
// computed in double from the same weights.
struct ResidualPair {
  Graph g;
  NDArray x;
  std::vector<float> want;
};

ResidualPair residual_pair() {
  const ConvCase s{1, 16, 16, 15, 15, 1};
  ResidualPair p;
  p.x = NDArray::random({1, 16, 15, 15}, Float(32), 5);
  const NDArray w1 = NDArray::random({16, 16, 3, 3}, Float(32), 6, -0.3, 0.3);
  const NDArray w2 = NDArray::random({16, 16, 3, 3}, Float(32), 7, -0.3, 0.3);
  const NDArray b1 = NDArray::random({16}, Float(32), 8), b2 = NDArray::random({16}, Float(32), 9);
  Builder b;
  NodeRef in = b.input("x", {1, 16, 15, 15});
  NodeRef h = b.relu(b.bias_add(b.conv2d(in, b.constant("w1", w1), {.padding = {1, 1}}, "conv1"),
                                b.constant("b1", b1), 1, "bias1"),
                     "relu1");
  NodeRef y = b.conv2d(h, b.constant("w2", w2), {.padding = {1, 1}}, "conv2");
  y = b.relu(b.add(b.bias_add(y, b.constant("b2", b2), 1, "bias2"), in, "residual"), "relu2");
  p.g = b.finish(y);
  const std::vector<float> xv = p.x.to_vector<float>(), b1v = b1.to_vector<float>(), b2v = b2.to_vector<float>();
  std::vector<double> h1 = conv_ref(s, xv, w1.to_vector<float>());
  for (size_t i = 0; i < h1.size(); ++i) h1[i] = std::max(h1[i] + b1v[i / (15 * 15)], 0.0);
  const std::vector<double> y2 = conv_ref(s, std::vector<float>(h1.begin(), h1.end()), w2.to_vector<float>());
  p.want.resize(y2.size());
  for (size_t i = 0; i < y2.size(); ++i) p.want[i] = float(std::max(y2[i] + b2v[i / (15 * 15)] + xv[i], 0.0));
  return p;
}

}  // namespace

TEST_CASE("Winograd convolutions between blocked neighbours with bias, residual and relu tails", "[graph][winograd]") {
  // With the layout pass the activations between the convolutions are NCHW16c.
  const ResidualPair p = residual_pair();
  for (int m : {2, 4, 6})
    for (bool layout : {true, false}) {
      const CompiledModel model = build(p.g, "llvm", with_tile(m, layout));
      CHECK(count_op(model.graph(), "conv2d_winograd") == 2);
      CHECK(count_op(model.graph(), "layout_transform") == 0);
      const double err = graph_test::max_rel_error(model.run({{"x", p.x}}).to_vector<float>(), p.want);
      INFO("m = " << m << ", alter_layout " << layout << ": max |a - b| / max |b| = " << err);
      CHECK(err < 1e-5);
    }
}

TEST_CASE("Winograd on webgl: off by default, in texels of 4 channels when forced", "[graph][winograd][webgl]") {
  const ResidualPair p = residual_pair();
  CHECK(count_op(build(p.g, "webgl").graph(), "conv2d_winograd") == 0);
  for (int m : {2, 4, 6})
    for (bool layout : {true, false}) {
      const CompiledModel model = build(p.g, "webgl", with_tile(m, layout));
      CHECK(count_op(model.graph(), "conv2d_winograd") == 2);
      // The transformed weights [alpha][alpha][K/4][C][4]: a texel holds 4 output channels.
      for (const Node &n : model.graph().nodes())
        if (n.op == "conv2d_winograd")
          CHECK(model.graph().node(n.inputs[1]).shape == std::vector<int64_t>{m + 2, m + 2, 4, 16, 4});
#if TENSORIR_WITH_OPENGL
      const double err = graph_test::max_rel_error(model.run({{"x", p.x}}).to_vector<float>(), p.want);
      INFO("m = " << m << ", alter_layout " << layout << ": max |a - b| / max |b| = " << err);
      CHECK(err < 1e-5);
#endif
    }
  // Input or output channels that are no whole texels (6, NCHW without the layout pass)
  // stay direct.
  for (auto [c, k] : {std::pair<int64_t, int64_t>{6, 8}, {8, 6}}) {
    INFO(c << " -> " << k << " channels");
    Builder b;
    NodeRef x = b.input("x", {1, c, 9, 9});
    const NDArray w = NDArray::random({k, c, 3, 3}, Float(32), 3);
    const Graph g = b.finish(b.conv2d(x, b.constant("w", w), {.padding = {1, 1}}, "conv"));
    CHECK(count_op(build(g, "webgl", with_tile(4, false)).graph(), "conv2d_winograd") == 0);
    CHECK(count_op(build(g, "llvm", with_tile(4, false)).graph(), "conv2d_winograd") == 1);
  }
}

TEST_CASE("Winograd on the GPU compute targets: off by default, forced tiles match the reference",
          "[graph][winograd][opengl][opencl]") {
  std::vector<std::string> targets;
#if TENSORIR_WITH_OPENGL
  targets.push_back("opengl");
#endif
#if TENSORIR_WITH_OPENCL
  // The CPU driver's vectors, narrower ones, and the GPU form (many work-items).
  for (const char *t : {"opencl", "opencl -vector-lanes=4", "opencl -vector-lanes=0"}) targets.push_back(t);
#endif
  REQUIRE_FALSE(targets.empty());
  const ResidualPair p = residual_pair();
  // Odd sizes, channels no vector divides, batch 2, no padding.
  const ConvCase odd{2, 6, 10, 9, 11, 0};
  const NDArray ox = NDArray::random({odd.n, odd.c, odd.h, odd.w}, Float(32), 11);
  const NDArray ow = NDArray::random({odd.k, odd.c, 3, 3}, Float(32), 12);
  Builder ob;
  const Graph og = ob.finish(ob.conv2d(ob.input("x", {odd.n, odd.c, odd.h, odd.w}), ob.constant("w", ow), {}, "conv"));
  const std::vector<double> exact = conv_ref(odd, ox.to_vector<float>(), ow.to_vector<float>());
  const std::vector<float> owant(exact.begin(), exact.end());
  for (const std::string &target : targets) {
    INFO("target " << target);
    CHECK(count_op(build(p.g, target).graph(), "conv2d_winograd") == 0);
    for (int m : {2, 4, 6}) {
      INFO("m = " << m);
      const CompiledModel model = build(p.g, target, with_tile(m));
      CHECK(count_op(model.graph(), "conv2d_winograd") == 2);
      CHECK(graph_test::max_rel_error(model.run({{"x", p.x}}).to_vector<float>(), p.want) < 1e-5);
      const CompiledModel single = build(og, target, with_tile(m));
      CHECK(count_op(single.graph(), "conv2d_winograd") == 1);
      CHECK(graph_test::max_rel_error(single.run({{"x", ox}}).to_vector<float>(), owant) < 1e-5);
    }
  }
}

TEST_CASE("Winograd stages in channel blocks (the fragment form) compute the convolution on llvm",
          "[graph][winograd]") {
  // conv2d_winograd with channel_block 4 and a weight in panels of 4, scheduled plainly:
  // batch 2, 9x11 (no tile divides it), 8 -> 12 channels, NCHW or NCHW4c data, NCHW or
  // NCHW4c result.
  const ConvCase s{2, 8, 12, 9, 11, 1};
  const NDArray x = NDArray::random({2, 8, 9, 11}, Float(32), 61);
  const NDArray w = NDArray::random({12, 8, 3, 3}, Float(32), 62, -0.3, 0.3);
  const std::vector<double> ref = conv_ref(s, x.to_vector<float>(), w.to_vector<float>());
  // [N][C][H][W] <-> [N][C/4][H][W][4], element (n, c, p) of each.
  const auto blocked_at = [](int64_t n, int64_t c, int64_t p, int64_t C, int64_t HW) {
    return ((n * (C / 4) + c / 4) * HW + p) * 4 + c % 4;
  };
  const int64_t HW = 9 * 11;
  const std::vector<float> xv = x.to_vector<float>();
  std::vector<float> xb(xv.size());
  for (int64_t n = 0; n < 2; ++n)
    for (int64_t c = 0; c < 8; ++c)
      for (int64_t p = 0; p < HW; ++p) xb[size_t(blocked_at(n, c, p, 8, HW))] = xv[size_t((n * 8 + c) * HW + p)];
  for (int m : {2, 4, 6}) {
    Tensor W = placeholder({12, 8, 3, 3}, Float(32), "W");
    Tensor Ut = ops::winograd_weight_transform(W, m, "U", 4);
    NDArray u = NDArray::empty({m + 2, m + 2, 3, 8, 4}, Float(32));
    build(ops::schedule_generic({Ut}), {W, Ut}, "llvm", "transform")("transform")(w, u);
    for (bool blocked_in : {false, true})
      for (int out_block : {0, 4}) {
        Tensor D = blocked_in ? placeholder({2, 2, 9, 11, 4}, Float(32), "D") : placeholder({2, 8, 9, 11}, Float(32), "D");
        Tensor U = placeholder({m + 2, m + 2, 3, 8, 4}, Float(32), "U");
        Tensor y = ops::conv2d_winograd(D, U, {1, 1}, m, out_block, "y", 4);
        const NDArray in = blocked_in ? NDArray::from_vector(xb, {2, 2, 9, 11, 4}) : x;
        NDArray out = out_block ? NDArray::empty({2, 3, 9, 11, 4}, Float(32)) : NDArray::empty({2, 12, 9, 11}, Float(32));
        build(ops::schedule_generic({y}), {D, U, y}, "llvm", "y")("y")(in, u, out);
        const std::vector<float> o = out.to_vector<float>();
        std::vector<float> got(ref.size());
        for (int64_t n = 0; n < 2; ++n)
          for (int64_t k = 0; k < 12; ++k)
            for (int64_t p = 0; p < HW; ++p)
              got[size_t((n * 12 + k) * HW + p)] = o[size_t(out_block ? blocked_at(n, k, p, 12, HW) : (n * 12 + k) * HW + p)];
        const double err = graph_test::max_rel_error(got, std::vector<float>(ref.begin(), ref.end()));
        INFO("m = " << m << ", blocked data " << blocked_in << ", out_block " << out_block << ": " << err);
        CHECK(err < 1e-5);
      }
  }
}

TEST_CASE("resnet18 with Winograd convolutions matches the reference model", "[graph][winograd][resnet18]") {
  const uint64_t seed = 2024;
  const Graph g = resnet18(seed);
  NDArray input = NDArray::random({1, 3, 224, 224}, Float(32), 99);
  const std::vector<float> ref = reference::resnet18_forward(reference::resnet18_weights(seed), input.to_vector<float>());
  for (int m : {BuildOptions::kWinogradAuto, 2, 4, 6}) {
    BuildOptions o;
    o.winograd = m;
    const CompiledModel model = build(g, "llvm", o);
    const int convs = count_op(model.graph(), "conv2d_winograd");
    CHECK(convs >= (m == BuildOptions::kWinogradAuto ? 1 : 13));  // 13 3x3 stride-1 convolutions in all
    const double err = graph_test::max_rel_error(model.run({{"data", input}}).to_vector<float>(), ref);
    INFO("winograd = " << m << ", " << convs << " Winograd convolutions: max |a - b| / max |b| = " << err);
    CHECK(err < 1e-4);
  }
}

TEST_CASE("Winograd operators and options refuse bad input", "[graph][winograd][error]") {
  Builder b;
  NodeRef x = b.input("x", {1, 8, 10, 10});
  NodeRef w = b.constant("w", NDArray::random({8, 8, 3, 3}, Float(32), 1));
  CHECK_THROWS_WITH(b.make("winograd_weight_transform", {w}, {{"tile", int64_t{5}}}), Catch::Contains("use 2, 4 or 6"));
  NodeRef w5 = b.constant("w5", NDArray::random({8, 8, 5, 5}, Float(32), 1));
  CHECK_THROWS_WITH(b.make("winograd_weight_transform", {w5}, {}), Catch::Contains("must be a 3x3 kernel"));
  NodeRef u = b.make("winograd_weight_transform", {w}, {{"tile", int64_t{4}}});
  CHECK_THROWS_WITH(b.make("conv2d_winograd", {x, u}, {{"tile", int64_t{2}}}),
                    Catch::Contains("is not a Winograd weight for tile = 2"));
  NodeRef x3 = b.input("x3", {1, 3, 10, 10});
  CHECK_THROWS_WITH(b.make("conv2d_winograd", {x3, u}, {}), Catch::Contains("has 8 input channels but data"));
  CHECK_THROWS_WITH(b.make("conv2d_winograd", {x, u}, {{"out_layout", std::string("NCHW3c")}}),
                    Catch::Contains("does not divide the 8 output channels"));
  CHECK_THROWS_WITH(b.make("conv2d_winograd", {x, u}, {{"out_layout", std::string("NHWC")}}),
                    Catch::Contains("must be NCHW or NCHW<b>c"));
  CHECK_THROWS_WITH(b.make("winograd_weight_transform", {w}, {{"panel", int64_t{3}}}),
                    Catch::Contains("panel = 3 must be 0 (the default) or divide the 8 output channels"));
  // The fragment form: stages in blocks of the weight's panel, which must divide the channels.
  Tensor W = placeholder({8, 8, 3, 3}, Float(32), "W");
  CHECK_THROWS_WITH(ops::winograd_weight_transform(W, 4, "U", 3), Catch::Contains("panel 3 does not divide"));
  Tensor D = placeholder({1, 8, 10, 10}, Float(32), "D"), U8 = placeholder({6, 6, 1, 8, 8}, Float(32), "U8");
  CHECK_THROWS_WITH(ops::conv2d_winograd(D, U8, {1, 1}, 4, 0, "y", 4),
                    Catch::Contains("channel_block 4 must divide the 8 input and 8 output channels and be the panel"));
  Tensor y4 = ops::conv2d_winograd(D, placeholder({6, 6, 2, 8, 4}, Float(32), "U4"), {1, 1}, 4, 0, "y", 4);
  CHECK_THROWS_WITH(ops::schedule_conv2d_winograd_llvm(y4, y4), Catch::Contains("build it with channel_block = 0"));
#if TENSORIR_WITH_OPENCL
  // The GPU compute schedule: the CPU's stages only, knobs of at least 1.
  const Target gpu("opencl -vector-lanes=0");
  CHECK_THROWS_WITH(ops::schedule_conv2d_winograd_gpu(y4, y4, gpu), Catch::Contains("build it with channel_block = 0"));
  CHECK_THROWS_WITH(ops::schedule_conv2d_winograd_gpu(D, D, gpu), Catch::Contains("is not the output of conv2d_winograd"));
  const Tensor y0 = ops::conv2d_winograd(D, placeholder({6, 6, 1, 8, 8}, Float(32), "U0"), {1, 1}, 4);
  ops::WinogradGpuSchedule zero;
  zero.tiles = 0;
  CHECK_THROWS_WITH(ops::schedule_conv2d_winograd_gpu(y0, y0, gpu, zero), Catch::Contains("must be at least 1"));
#endif
  CHECK_THROWS_WITH(ops::schedule_conv2d_winograd_fragment(D, D, Target("webgl"), nullptr),
                    Catch::Contains("is not the output of conv2d_winograd"));

  Builder c;
  NodeRef cx = c.input("x", {1, 8, 10, 10});
  const Graph g = c.finish(c.conv2d(cx, c.constant("w", NDArray::random({8, 8, 3, 3}, Float(32), 1)), {}, "conv"));
  BuildOptions o;
  o.winograd = 3;
  CHECK_THROWS_WITH(build(g, "llvm", o), Catch::Contains("BuildOptions::winograd = 3"));
  BuildOptions f;
  f.winograd_tile_for = [](const Graph &, const Node &) { return 5; };
  CHECK_THROWS_WITH(build(g, "llvm", f), Catch::Contains("the tile chosen for 'conv' is 5"));
}

TEST_CASE("Winograd schedule knobs: per row of tiles or three nests, any register block", "[graph][winograd]") {
  // conv2d_winograd and its schedule directly, blocked data and result, against the
  // graph's direct convolution of the same data.
  const ConvCase s{1, 32, 32, 11, 13, 1};
  const NDArray x = NDArray::random({1, 32, 11, 13}, Float(32), 12);
  const NDArray w = NDArray::random({32, 32, 3, 3}, Float(32), 13, -0.2, 0.2);
  const std::vector<double> ref = conv_ref(s, x.to_vector<float>(), w.to_vector<float>());
  const std::vector<float> xv = x.to_vector<float>();
  NDArray xb = NDArray::empty({1, 2, 11, 13, 16}, Float(32));  // NCHW16c
  float *xbp = xb.data_as<float>();
  for (int c = 0; c < 32; ++c)
    for (int p = 0; p < 11 * 13; ++p) xbp[((c / 16) * 11 * 13 + p) * 16 + c % 16] = xv[size_t(c * 11 * 13 + p)];
  for (int m : {2, 4}) {
    Tensor W = placeholder({32, 32, 3, 3}, Float(32), "W");
    Tensor Ut = ops::winograd_weight_transform(W, m);
    NDArray u = NDArray::empty({m + 2, m + 2, 1, 32, 32}, Float(32));
    build(ops::schedule_generic({Ut}), {W, Ut}, "llvm", "transform")("transform")(w, u);
    for (int per_row : {1, -1})
      for (int rows : {0, 3}) {
        Tensor D = placeholder({1, 2, 11, 13, 16}, Float(32), "D");
        Tensor U = placeholder({m + 2, m + 2, 1, 32, 32}, Float(32), "U");
        Tensor y = ops::conv2d_winograd(D, U, {1, 1}, m, 16, "y");
        ops::WinogradSchedule k;
        k.per_row = per_row;
        k.gemm_rows = rows;
        NDArray out = NDArray::empty({1, 2, 11, 13, 16}, Float(32));
        build(ops::schedule_conv2d_winograd_llvm(y, y, Target("llvm"), k), {D, U, y}, "llvm", "y")("y")(xb, u, out);
        std::vector<float> got(ref.size());
        const float *o = out.data_as<float>();
        for (int c = 0; c < 32; ++c)
          for (int p = 0; p < 11 * 13; ++p) got[size_t(c * 11 * 13 + p)] = o[((c / 16) * 11 * 13 + p) * 16 + c % 16];
        const double err = graph_test::max_rel_error(got, std::vector<float>(ref.begin(), ref.end()));
        INFO("m = " << m << ", per_row " << per_row << ", gemm_rows " << rows << ": " << err);
        CHECK(err < 1e-5);
      }
  }
  Tensor D = placeholder({1, 32, 8, 8}, Float(32), "D");
  CHECK_THROWS_WITH(ops::schedule_conv2d_winograd_llvm(D, D), Catch::Contains("is not the output of conv2d_winograd"));
  Tensor U4 = placeholder({6, 6, 32, 32}, Float(32), "U4");
  CHECK_THROWS_WITH(ops::conv2d_winograd(D, U4, {1, 1}, 4), Catch::Contains("must have 5 dimensions"));
}

TEST_CASE("Winograd on wasm: off by default, compiled when forced", "[graph][winograd][wasm]") {
  Builder b;
  NodeRef x = b.input("x", {1, 16, 28, 28});
  const Graph g = b.finish(b.relu(b.conv2d(x, b.constant("w", NDArray::random({16, 16, 3, 3}, Float(32), 1)),
                                           {.padding = {1, 1}}, "conv")));
  CHECK(count_op(build(g, "wasm").graph(), "conv2d_winograd") == 0);
  CHECK(count_op(build(g, "llvm").graph(), "conv2d_winograd") == 1);
  const CompiledModel forced = build(g, "wasm", with_tile(4));
  CHECK(count_op(forced.graph(), "conv2d_winograd") == 1);
  CHECK(forced.num_kernels() == 1);
}
