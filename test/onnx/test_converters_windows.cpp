// Conv, ConvTranspose and the pools over 1-D, 2-D and 3-D windows, InstanceNormalization
// over any spatial rank, against plain loops (reference/windows.h) on random data:
// groups, dilations, strides, pads per side, ceil_mode, count_include_pad, LpPool, the
// global pools and MaxPool's Indices; and the errors of malformed nodes.
#include <tensorir/frontend/onnx.h>
#include <tensorir/graph/executor.h>

#include <cmath>
#include <functional>

#include "onnx/onnx_test_util.h"
#include "reference/windows.h"

using namespace tensorir;
using Catch::Matchers::Contains;
using onnx_test::attr;
using onnx_test::check_close;
using onnx_test::dims;
using onnx_test::ModelBuilder;
using reference::PoolParams;
using reference::WindowParams;
namespace tonnx = tensorir::onnx;

namespace {

using Attrs = std::function<void(::onnx::NodeProto &)>;

// One node `op` on input x (and constant weight w, bias b when given), outputs `outs`.
graph::Outputs run_node(const std::string &op, const NDArray &x, const Attrs &attrs, const NDArray &w = {},
                        const NDArray &b = {}, const std::vector<std::string> &outs = {"y"}, int64_t opset = 13) {
  ModelBuilder mb(opset);
  mb.input("x", dims(x.shape()), onnx_test::onnx_type(x.dtype()));
  std::vector<std::string> ins = {"x"};
  if (w.defined()) mb.initializer("w", w), ins.push_back("w");
  if (b.defined()) mb.initializer("b", b), ins.push_back("b");
  attrs(mb.node(op, ins, outs));
  for (const std::string &o : outs) mb.output(o);
  return graph::build(tonnx::import_bytes(mb.bytes()), "llvm").run({{"x", x}});
}

void window_attrs(::onnx::NodeProto &n, const WindowParams &p) {
  attr(n, "strides", p.strides);
  attr(n, "dilations", p.dilation);
  attr(n, "pads", p.pads);
}

// want + bias along axis 1 of `shape`.
std::vector<double> add_bias(std::vector<double> want, const std::vector<int64_t> &shape, const NDArray &b) {
  const std::vector<float> bv = b.to_vector<float>();
  int64_t inner = 1;
  for (size_t i = 2; i < shape.size(); ++i) inner *= shape[i];
  for (size_t i = 0; i < want.size(); ++i) want[i] += bv[size_t(int64_t(i) / inner % shape[1])];
  return want;
}

// The pool `op` of ONNX against the reference for p.
void check_pool(const std::string &op, const std::vector<int64_t> &xs, const PoolParams &p) {
  const NDArray x = NDArray::random(xs, Float(32), 11);
  const reference::PoolResult want = reference::pool_nd(x.to_vector<float>(), xs, p);
  const NDArray y = run_node(op, x, [&](auto &n) {
    attr(n, "kernel_shape", p.kernel);
    attr(n, "strides", p.window.strides);
    attr(n, "pads", p.window.pads);
    if (p.kind == PoolParams::kMax || p.kind == PoolParams::kLp) attr(n, "dilations", p.window.dilation);
    if (p.kind != PoolParams::kLp) attr(n, "ceil_mode", int64_t(p.ceil_mode));
    if (p.kind == PoolParams::kAvg) attr(n, "count_include_pad", int64_t(p.count_include_pad));
    if (p.kind == PoolParams::kLp) attr(n, "p", p.p);
  })["y"];
  REQUIRE(y.shape() == want.shape);
  check_close(y, want.values, 1e-4, 1e-5);
}

}  // namespace

TEST_CASE("converters: Conv over 1-D and 3-D data", "[onnx][converters][windows]") {
  struct Case {
    std::vector<int64_t> xs, ws;
    WindowParams p;
  };
  const std::vector<Case> cases = {
      {{2, 4, 13}, {6, 2, 3}, {{2}, {2}, {1, 2}, 2}},
      {{1, 3, 9}, {4, 3, 4}, {{1}, {1}, {0, 0}, 1}},
      {{1, 4, 5, 6, 7}, {4, 2, 2, 3, 2}, {{1, 2, 2}, {2, 1, 1}, {1, 0, 1, 0, 2, 1}, 2}},
      {{2, 2, 4, 4, 8}, {3, 2, 3, 3, 3}, {{1, 1, 1}, {1, 1, 1}, {1, 1, 1, 1, 1, 1}, 1}},
  };
  for (size_t k = 0; k < cases.size(); ++k) {
    INFO("case " << k);
    const Case &c = cases[k];
    const NDArray x = NDArray::random(c.xs, Float(32), 1), w = NDArray::random(c.ws, Float(32), 2);
    const NDArray b = NDArray::random({c.ws[0]}, Float(32), 3);
    std::vector<int64_t> shape;
    const std::vector<double> want =
        reference::conv_nd(x.to_vector<float>(), c.xs, w.to_vector<float>(), c.ws, c.p, &shape);
    const graph::Outputs out = run_node("Conv", x, [&](auto &n) {
      window_attrs(n, c.p);
      attr(n, "group", c.p.groups);
    }, w, b);
    REQUIRE(out["y"].shape() == shape);
    check_close(out["y"], add_bias(want, shape, b), 1e-4, 1e-5);
  }
}

TEST_CASE("converters: Conv 3-D with auto_pad SAME_LOWER", "[onnx][converters][windows]") {
  const std::vector<int64_t> xs = {1, 2, 5, 4, 6}, ws = {3, 2, 2, 3, 2};
  const NDArray x = NDArray::random(xs, Float(32), 4), w = NDArray::random(ws, Float(32), 5);
  // Output ceil(in / stride) = [3, 2, 3]; total padding (out - 1) * stride + k - in, the
  // larger half before.
  const WindowParams p{{2, 2, 2}, {1, 1, 1}, {1, 1, 0, 0, 0, 0}};
  std::vector<int64_t> shape;
  const std::vector<double> want = reference::conv_nd(x.to_vector<float>(), xs, w.to_vector<float>(), ws, p, &shape);
  REQUIRE(shape == std::vector<int64_t>{1, 3, 3, 2, 3});
  const NDArray y = run_node("Conv", x, [&](auto &n) {
    attr(n, "strides", p.strides);
    attr(n, "auto_pad", std::string("SAME_LOWER"));
  }, w)["y"];
  REQUIRE(y.shape() == shape);
  check_close(y, want, 1e-4, 1e-5);
}

TEST_CASE("converters: ConvTranspose over 3-D data", "[onnx][converters][windows]") {
  const std::vector<int64_t> xs = {1, 4, 3, 3, 2}, ws = {4, 3, 2, 2, 3};
  WindowParams p{{2, 1, 2}, {1, 2, 1}, {0, 1, 1, 1, 0, 0}, 2, {1, 0, 1}};
  const NDArray x = NDArray::random(xs, Float(32), 6), w = NDArray::random(ws, Float(32), 7);
  const NDArray b = NDArray::random({6}, Float(32), 8);
  std::vector<int64_t> shape;
  const std::vector<double> want =
      reference::conv_transpose_nd(x.to_vector<float>(), xs, w.to_vector<float>(), ws, p, &shape);
  const NDArray y = run_node("ConvTranspose", x, [&](auto &n) {
    window_attrs(n, p);
    attr(n, "group", p.groups);
    attr(n, "output_padding", p.output_padding);
  }, w, b)["y"];
  REQUIRE(y.shape() == shape);
  check_close(y, add_bias(want, shape, b), 1e-4, 1e-5);
}

TEST_CASE("converters: MaxPool over 1-D, 2-D and 3-D windows", "[onnx][converters][windows]") {
  check_pool("MaxPool", {2, 3, 12}, PoolParams(PoolParams::kMax, {3}, {{2}, {2}, {1, 2}}, true));
  check_pool("MaxPool", {1, 2, 7, 8}, PoolParams(PoolParams::kMax, {3, 2}, {{2, 3}, {1, 1}, {1, 0, 0, 1}}, true));
  check_pool("MaxPool", {1, 2, 5, 6, 7},
             PoolParams(PoolParams::kMax, {2, 3, 2}, {{2, 1, 2}, {2, 1, 1}, {1, 0, 1, 0, 1, 1}}));
  check_pool("MaxPool", {1, 2, 6, 6, 6},
             PoolParams(PoolParams::kMax, {3, 3, 3}, {{2, 2, 2}, {1, 1, 1}, {0, 0, 0, 0, 0, 0}}, true));
}

TEST_CASE("converters: AveragePool with ceil_mode and count_include_pad", "[onnx][converters][windows]") {
  check_pool("AveragePool", {2, 3, 12}, PoolParams(PoolParams::kAvg, {4}, {{3}, {1}, {1, 1}}, true));
  check_pool("AveragePool", {2, 3, 12}, PoolParams(PoolParams::kAvg, {4}, {{3}, {1}, {2, 1}}, false, true));
  check_pool("AveragePool", {1, 2, 7, 8}, PoolParams(PoolParams::kAvg, {3, 2}, {{2, 3}, {1, 1}, {1, 0, 0, 1}}, true));
  check_pool("AveragePool", {1, 2, 7, 8},
             PoolParams(PoolParams::kAvg, {3, 3}, {{2, 2}, {1, 1}, {2, 0, 1, 2}}, false, true));
  check_pool("AveragePool", {1, 2, 5, 6, 7},
             PoolParams(PoolParams::kAvg, {2, 3, 2}, {{2, 1, 2}, {1, 1, 1}, {1, 0, 1, 0, 2, 1}}, false, true));
  check_pool("AveragePool", {1, 2, 5, 6, 7},
             PoolParams(PoolParams::kAvg, {2, 3, 3}, {{2, 2, 2}, {1, 1, 1}, {0, 1, 1, 1, 0, 0}}, true));
  // Both, with last windows that reach past the padding: the divisor counts the padding
  // but not what lies beyond it (ONNX Runtime gives 0.5 and 0.25 in the last row of the
  // first on ones, PyTorch the same).
  check_pool("AveragePool", {1, 2, 6, 6},
             PoolParams(PoolParams::kAvg, {3, 3}, {{2, 2}, {1, 1}, {1, 1, 1, 1}}, true, true));
  check_pool("AveragePool", {1, 2, 7, 7},
             PoolParams(PoolParams::kAvg, {3, 3}, {{3, 3}, {1, 1}, {1, 1, 1, 1}}, true, true));
  check_pool("AveragePool", {2, 3, 12}, PoolParams(PoolParams::kAvg, {4}, {{3}, {1}, {0, 2}}, true, true));
  check_pool("AveragePool", {1, 2, 5, 6, 7},
             PoolParams(PoolParams::kAvg, {2, 2, 3}, {{2, 3, 2}, {1, 1, 1}, {1, 0, 0, 1, 1, 1}}, true, true));
}

TEST_CASE("converters: LpPool and GlobalLpPool", "[onnx][converters][windows]") {
  for (int64_t order : {1, 2, 3}) {
    INFO("p " << order);
    PoolParams p = PoolParams(PoolParams::kLp, {3}, {{2}, {1}, {1, 1}});
    p.p = order;
    check_pool("LpPool", {2, 3, 10}, p);
    p = PoolParams(PoolParams::kLp, {2, 3}, {{1, 2}, {1, 1}, {0, 1, 1, 0}});
    p.p = order;
    check_pool("LpPool", {1, 2, 5, 7}, p);
    p = PoolParams(PoolParams::kLp, {2, 2, 2}, {{2, 1, 2}, {1, 1, 1}, {1, 0, 0, 0, 1, 1}});
    p.p = order;
    check_pool("LpPool", {1, 2, 4, 3, 5}, p);

    const std::vector<int64_t> xs = {2, 3, 3, 4, 2};
    const NDArray x = NDArray::random(xs, Float(32), 12);
    const std::vector<float> xv = x.to_vector<float>();
    std::vector<double> want(6, 0.0);
    for (size_t i = 0; i < xv.size(); ++i) want[i / 24] += std::pow(std::fabs(double(xv[i])), double(order));
    for (double &v : want) v = std::pow(v, 1.0 / double(order));
    const NDArray y = run_node("GlobalLpPool", x, [&](auto &n) { attr(n, "p", order); })["y"];
    CHECK(y.shape() == std::vector<int64_t>{2, 3, 1, 1, 1});
    check_close(y, want, 1e-4, 1e-5);
    // Opset 1 gives p as a float.
    const auto float_p = [&](auto &n) { attr(n, "p", float(order)); };
    check_close(run_node("GlobalLpPool", x, float_p, {}, {}, {"y"}, 1)["y"], want, 1e-4, 1e-5);
  }
  const NDArray x = NDArray::random({1, 2, 4, 4}, Float(32), 14);
  CHECK_THROWS_WITH(run_node("GlobalLpPool", x, [](auto &n) { attr(n, "p", 2.5f); }, {}, {}, {"y"}, 1),
                    Contains("not a whole number"));
}

TEST_CASE("converters: global pools over 1-D and 3-D data", "[onnx][converters][windows]") {
  for (const std::vector<int64_t> &xs : {std::vector<int64_t>{2, 3, 7}, std::vector<int64_t>{1, 3, 2, 3, 4}}) {
    const NDArray x = NDArray::random(xs, Float(32), 13);
    const std::vector<float> xv = x.to_vector<float>();
    const size_t inner = xv.size() / size_t(xs[0] * xs[1]);
    std::vector<double> avg, mx;
    for (size_t nc = 0; nc < xv.size() / inner; ++nc) {
      double s = 0, m = -1e30;
      for (size_t i = 0; i < inner; ++i) s += xv[nc * inner + i], m = std::max(m, double(xv[nc * inner + i]));
      avg.push_back(s / double(inner));
      mx.push_back(m);
    }
    std::vector<int64_t> shape = xs;
    for (size_t i = 2; i < shape.size(); ++i) shape[i] = 1;
    const NDArray a = run_node("GlobalAveragePool", x, [](auto &) {})["y"];
    CHECK(a.shape() == shape);
    check_close(a, avg);
    check_close(run_node("GlobalMaxPool", x, [](auto &) {})["y"], mx);
  }
}

TEST_CASE("converters: MaxPool's Indices in both storage orders", "[onnx][converters][windows]") {
  const std::vector<int64_t> xs = {2, 2, 6, 7};
  const NDArray x = NDArray::random(xs, Float(32), 14);
  for (int64_t order : {0, 1}) {
    INFO("storage_order " << order);
    PoolParams p = PoolParams(PoolParams::kMax, {3, 2}, {{2, 2}, {1, 1}, {1, 0, 1, 1}}, true);
    p.storage_order = order;
    const reference::PoolResult want = reference::pool_nd(x.to_vector<float>(), xs, p);
    const graph::Outputs out = run_node(
        "MaxPool", x,
        [&](auto &n) {
          attr(n, "kernel_shape", p.kernel);
          attr(n, "strides", p.window.strides);
          attr(n, "pads", p.window.pads);
          attr(n, "ceil_mode", int64_t{1});
          attr(n, "storage_order", order);
        },
        {}, {}, {"y", "i"});
    REQUIRE(out["y"].shape() == want.shape);
    check_close(out["y"], want.values);
    REQUIRE(out["i"].dtype() == Int(64));
    CHECK(out["i"].to_vector<int64_t>() == want.indices);
  }
}

TEST_CASE("converters: MaxUnpool of MaxPool's values and indices", "[onnx][converters][windows]") {
  for (const std::vector<int64_t> &xs : {std::vector<int64_t>{2, 3, 6, 8}, std::vector<int64_t>{1, 2, 4, 6, 4}}) {
    const size_t nd = xs.size() - 2;
    const NDArray x = NDArray::random(xs, Float(32), 20);
    const PoolParams p(PoolParams::kMax, std::vector<int64_t>(nd, 2),
                       {std::vector<int64_t>(nd, 2), std::vector<int64_t>(nd, 1), std::vector<int64_t>(2 * nd, 0)});
    const reference::PoolResult pooled = reference::pool_nd(x.to_vector<float>(), xs, p);
    std::vector<double> want(size_t(x.numel()), 0.0);
    for (size_t i = 0; i < pooled.indices.size(); ++i) want[size_t(pooled.indices[i])] = pooled.values[i];
    ModelBuilder mb(13);
    mb.input("x", dims(xs));
    for (::onnx::NodeProto *n : {&mb.node("MaxPool", {"x"}, {"v", "i"}), &mb.node("MaxUnpool", {"v", "i"}, {"y"})}) {
      attr(*n, "kernel_shape", p.kernel);
      attr(*n, "strides", p.window.strides);
    }
    mb.output("y");
    const NDArray y = graph::build(tonnx::import_bytes(mb.bytes()), "llvm").run({{"x", x}});
    REQUIRE(y.shape() == xs);
    check_close(y, want);
  }
}

TEST_CASE("converters: MaxPool of int8 and uint8 data", "[onnx][converters][windows]") {
  for (Type t : {Int(8), UInt(8)}) {
    INFO(t);
    const std::vector<int64_t> xs = {1, 2, 5, 6};
    const NDArray x = t == Int(8) ? NDArray::random(xs, t, 15, -128, 127) : NDArray::random(xs, t, 15, 0, 255);
    std::vector<float> xf;
    if (t == Int(8))
      for (int8_t v : x.to_vector<int8_t>()) xf.push_back(v);
    else
      for (uint8_t v : x.to_vector<uint8_t>()) xf.push_back(v);
    const PoolParams p = PoolParams(PoolParams::kMax, {2, 2}, {{2, 2}, {1, 1}, {1, 1, 0, 1}});
    const reference::PoolResult want = reference::pool_nd(xf, xs, p);
    const NDArray y = run_node("MaxPool", x, [&](auto &n) {
      attr(n, "kernel_shape", p.kernel);
      attr(n, "strides", p.window.strides);
      attr(n, "pads", p.window.pads);
    })["y"];
    REQUIRE(y.dtype() == t);
    std::vector<double> got;
    if (t == Int(8))
      for (int8_t v : y.to_vector<int8_t>()) got.push_back(v);
    else
      for (uint8_t v : y.to_vector<uint8_t>()) got.push_back(v);
    CHECK(got == want.values);
  }
}

TEST_CASE("converters: InstanceNormalization over 1-D and 3-D data", "[onnx][converters][windows]") {
  for (const std::vector<int64_t> &xs : {std::vector<int64_t>{2, 3, 9}, std::vector<int64_t>{2, 3, 2, 3, 4}}) {
    const NDArray x = NDArray::random(xs, Float(32), 16, -2, 3);
    const NDArray scale = NDArray::random({3}, Float(32), 17), bias = NDArray::random({3}, Float(32), 18);
    const std::vector<float> xv = x.to_vector<float>(), sv = scale.to_vector<float>(), bv = bias.to_vector<float>();
    const size_t inner = xv.size() / 6;
    const double eps = 0.01;
    std::vector<double> want;
    for (size_t nc = 0; nc < 6; ++nc) {
      double mean = 0, var = 0;
      for (size_t i = 0; i < inner; ++i) mean += xv[nc * inner + i];
      mean /= double(inner);
      for (size_t i = 0; i < inner; ++i) var += std::pow(xv[nc * inner + i] - mean, 2);
      var /= double(inner);
      for (size_t i = 0; i < inner; ++i)
        want.push_back((xv[nc * inner + i] - mean) / std::sqrt(var + eps) * sv[nc % 3] + bv[nc % 3]);
    }
    ModelBuilder mb(13);
    mb.input("x", dims(xs));
    mb.initializer("s", scale);
    mb.initializer("b", bias);
    attr(mb.node("InstanceNormalization", {"x", "s", "b"}, {"y"}), "epsilon", float(eps));
    mb.output("y");
    check_close(graph::build(tonnx::import_bytes(mb.bytes()), "llvm").run({{"x", x}}), want, 1e-4, 1e-5);
  }
}

TEST_CASE("converters: malformed and unsupported windows", "[onnx][converters][windows]") {
  const NDArray x = NDArray::random({1, 2, 4, 4, 4}, Float(32), 19);
  const Attrs none = [](auto &) {};
  // A weight of another rank, a kernel larger than the input, a kernel_shape that
  // contradicts the weight.
  CHECK_THROWS_WITH(run_node("Conv", x, none, NDArray::random({2, 2, 3, 3}, Float(32), 1)),
                    Contains("must have rank 5"));
  CHECK_THROWS_WITH(run_node("Conv", x, none, NDArray::random({2, 2, 5, 1, 1}, Float(32), 1)),
                    Contains("larger than the padded input"));
  CHECK_THROWS_WITH(run_node("Conv", x, [](auto &n) { attr(n, "kernel_shape", std::vector<int64_t>{1, 1, 2}); },
                             NDArray::random({2, 2, 1, 1, 1}, Float(32), 1)),
                    Contains("kernel_shape does not match"));
  CHECK_THROWS_WITH(run_node("MaxPool", x, [](auto &n) { attr(n, "kernel_shape", std::vector<int64_t>{2, 2}); }),
                    Contains("kernel_shape must have 3 values"));
  CHECK_THROWS_WITH(run_node("AveragePool", x, [](auto &n) {
                      attr(n, "kernel_shape", std::vector<int64_t>{2, 2, 2});
                      attr(n, "pads", std::vector<int64_t>{1, 1});
                    }),
                    Contains("pads must have 3, 3 and 6 values"));
  CHECK_THROWS_WITH(run_node("LpPool", x, [](auto &n) {
                      attr(n, "kernel_shape", std::vector<int64_t>{2, 2, 2});
                      attr(n, "p", int64_t{0});
                    }),
                    Contains("p must be at least 1"));
  CHECK_THROWS_WITH(run_node("MaxPool", x, none), Contains("kernel_shape is required"));
  // Four spatial dimensions.
  CHECK_THROWS_AS(run_node("MaxPool", NDArray::random({1, 1, 2, 2, 2, 2}, Float(32), 1),
                           [](auto &n) { attr(n, "kernel_shape", std::vector<int64_t>{1, 1, 1, 1}); }),
                  tonnx::UnsupportedError);
}
