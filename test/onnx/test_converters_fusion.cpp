// LayerNorm and GELU as PyTorch exports them before opset 17 (several nodes each) become
// one layer_norm and one gelu node; near misses stay the operators they are. All against
// plain loops.
#include <tensorir/frontend/onnx.h>
#include <tensorir/graph/executor.h>

#include <cmath>

#include "onnx/onnx_test_util.h"

using namespace tensorir;
using namespace tensorir::onnx_test;
namespace tonnx = tensorir::onnx;

namespace {

int count_op(const graph::Graph &g, const std::string &op) {
  int n = 0;
  for (const graph::Node &node : g.nodes()) n += node.op == op;
  return n;
}

NDArray scalar_f32(float v) { return NDArray::from_vector(std::vector<float>{v}, {}); }

// ReduceMean, Sub, Pow, ReduceMean, Add, Sqrt, Div, Mul, Add over the last `axes` of x
// [2, 3, 20]; `exponent` 2 is a layer norm, any other is not.
ModelBuilder layer_norm_model(const std::vector<int64_t> &axes, float exponent, const NDArray &scale,
                              const NDArray &bias) {
  ModelBuilder mb(13);
  mb.input("x", {int64_t{2}, int64_t{3}, int64_t{20}});
  mb.initializer("scale", scale);
  mb.initializer("bias", bias);
  mb.initializer("two", scalar_f32(exponent));
  mb.initializer("eps", scalar_f32(1e-5f));
  attr(mb.node("ReduceMean", {"x"}, {"mean"}), "axes", axes);
  mb.node("Sub", {"x", "mean"}, {"d"});
  mb.node("Pow", {"d", "two"}, {"sq"});
  attr(mb.node("ReduceMean", {"sq"}, {"var"}), "axes", axes);
  mb.node("Add", {"var", "eps"}, {"ve"});
  mb.node("Sqrt", {"ve"}, {"sd"});
  mb.node("Div", {"d", "sd"}, {"n"});
  mb.node("Mul", {"n", "scale"}, {"s"});
  mb.node("Add", {"s", "bias"}, {"y"});
  mb.output("y");
  return mb;
}

// The same computation in double, over rows of `inner` elements, scale and bias [inner].
std::vector<double> layer_norm_reference(const std::vector<float> &x, size_t inner, float exponent,
                                         const std::vector<float> &scale, const std::vector<float> &bias) {
  std::vector<double> y(x.size());
  for (size_t row = 0; row < x.size() / inner; ++row) {
    const float *xr = &x[row * inner];
    double mean = 0, var = 0;
    for (size_t j = 0; j < inner; ++j) mean += xr[j];
    mean /= double(inner);
    for (size_t j = 0; j < inner; ++j) var += std::pow(xr[j] - mean, double(exponent));
    var /= double(inner);
    for (size_t j = 0; j < inner; ++j)
      y[row * inner + j] = (xr[j] - mean) / std::sqrt(var + 1e-5) * scale[j] + bias[j];
  }
  return y;
}

}  // namespace

TEST_CASE("converters: LayerNorm spelled out in ReduceMean..Add is one layer_norm", "[converters][onnx]") {
  // Over the last axis (scale [20]) and the last two (scale [3, 20]).
  for (int naxes : {1, 2}) {
    CAPTURE(naxes);
    const std::vector<int64_t> pshape = naxes == 1 ? std::vector<int64_t>{20} : std::vector<int64_t>{3, 20};
    const std::vector<int64_t> axes = naxes == 1 ? std::vector<int64_t>{-1} : std::vector<int64_t>{1, 2};
    const NDArray scale = NDArray::random(pshape, Float(32), 2), bias = NDArray::random(pshape, Float(32), 3);
    const graph::Graph g = tonnx::import_bytes(layer_norm_model(axes, 2, scale, bias).bytes());
    CHECK(g.node(g.output()).op == "layer_norm");
    const NDArray x = NDArray::random({2, 3, 20}, Float(32), 1, -3, 5);
    const size_t inner = naxes == 1 ? 20 : 60;
    // scale and bias repeat per row of `inner` elements.
    std::vector<float> sv = scale.to_vector<float>(), bv = bias.to_vector<float>();
    check_close(graph::build(g, "llvm").run({{"x", x}}),
                layer_norm_reference(x.to_vector<float>(), inner, 2, sv, bv));
  }
}

TEST_CASE("converters: a LayerNorm pattern with another exponent or a middle axis stays as it is",
          "[converters][onnx]") {
  const NDArray scale = NDArray::random({20}, Float(32), 2), bias = NDArray::random({20}, Float(32), 3);
  const NDArray x = NDArray::random({2, 3, 20}, Float(32), 1, 0.5, 3);
  {  // Pow 3: not a variance.
    const graph::Graph g = tonnx::import_bytes(layer_norm_model({-1}, 3, scale, bias).bytes());
    CHECK(count_op(g, "layer_norm") == 0);
    check_close(graph::build(g, "llvm").run({{"x", x}}),
                layer_norm_reference(x.to_vector<float>(), 20, 3, scale.to_vector<float>(), bias.to_vector<float>()),
                1e-3, 1e-5);
  }
  {  // Means over axis 1 only: not the trailing axes.
    const NDArray s1 = NDArray::random({1}, Float(32), 4), b1 = NDArray::random({1}, Float(32), 5);
    const graph::Graph g = tonnx::import_bytes(layer_norm_model({1}, 2, s1, b1).bytes());
    CHECK(count_op(g, "layer_norm") == 0);
    const std::vector<float> xv = x.to_vector<float>();
    std::vector<double> want(xv.size());
    for (int b = 0; b < 2; ++b)
      for (int j = 0; j < 20; ++j) {
        double mean = 0, var = 0;
        for (int c = 0; c < 3; ++c) mean += xv[size_t((b * 3 + c) * 20 + j)] / 3.0;
        for (int c = 0; c < 3; ++c) var += std::pow(xv[size_t((b * 3 + c) * 20 + j)] - mean, 2) / 3.0;
        for (int c = 0; c < 3; ++c) {
          const size_t e = size_t((b * 3 + c) * 20 + j);
          want[e] = (xv[e] - mean) / std::sqrt(var + 1e-5) * s1.to_vector<float>()[0] + b1.to_vector<float>()[0];
        }
      }
    check_close(graph::build(g, "llvm").run({{"x", x}}), want);
  }
}

TEST_CASE("converters: GELU spelled out with Erf is one gelu node", "[converters][onnx]") {
  // 1 + erf first or second, the product with x either way round; a halving by 0.25 is
  // not GELU, nor one by a 0.5 of more dimensions than x (which broadcasts x to them).
  for (int variant = 0; variant < 4; ++variant) {
    CAPTURE(variant);
    const float half = variant == 2 ? 0.25f : 0.5f;
    ModelBuilder mb(13);
    mb.input("x", {int64_t{3}, int64_t{37}});
    mb.initializer("root2", scalar_f32(1.41421353816986083984375f));
    mb.initializer("one", scalar_f32(1));
    mb.initializer("half", variant == 3 ? NDArray::from_vector<float>({half}, {1, 1, 1}) : scalar_f32(half));
    mb.node("Div", {"x", "root2"}, {"u"});
    mb.node("Erf", {"u"}, {"e"});
    mb.node("Add", variant == 1 ? std::vector<std::string>{"one", "e"} : std::vector<std::string>{"e", "one"}, {"p"});
    mb.node("Mul", variant == 1 ? std::vector<std::string>{"p", "x"} : std::vector<std::string>{"x", "p"}, {"q"});
    mb.node("Mul", {"q", "half"}, {"y"});
    mb.output("y");
    const graph::Graph g = tonnx::import_bytes(mb.bytes());
    CHECK(count_op(g, "gelu") == (variant >= 2 ? 0 : 1));
    // Beyond |x| = 4 / sqrt(2) the rational erf is clamped: cover both sides.
    const NDArray x = NDArray::random({3, 37}, Float(32), 7, -8, 8);
    std::vector<double> want;
    for (float v : x.to_vector<float>()) want.push_back(double(v) * (1 + std::erf(double(v) / std::sqrt(2.0))) * half);
    const NDArray y = graph::build(g, "llvm").run({{"x", x}}).at(0);
    CHECK(y.shape() == (variant == 3 ? std::vector<int64_t>{1, 3, 37} : std::vector<int64_t>{3, 37}));
    check_close(y, want, 1e-5, 1e-6);
  }
}
