// Converters that ONNX's backend cases leave out at opsets 7 to 17 (they test them at
// opset 1 or 6, or with batched operands), against plain loops: the composed
// activations, global pooling, MatMul of other ranks, Softmax's 2-D view before opset 13,
// and a grouped, dilated convolution with SAME padding and a bias.
#include <tensorir/frontend/onnx.h>
#include <tensorir/graph/executor.h>

#include <algorithm>
#include <functional>

#include "onnx/onnx_test_util.h"

using namespace tensorir;
using onnx_test::attr;
using onnx_test::Dim;
using onnx_test::dims;
using onnx_test::ModelBuilder;
using onnx_test::check_close;
namespace tonnx = tensorir::onnx;

namespace {

// A one-node model y = op(x) on x of `shape`, run on `x`.
NDArray run_unary(const std::string &op, const NDArray &x, const std::function<void(::onnx::NodeProto &)> &attrs,
                  int64_t opset = 13) {
  ModelBuilder mb(opset);
  mb.input("x", dims(x.shape()));
  attrs(mb.node(op, {"x"}, {"y"}));
  mb.output("y");
  return graph::build(tonnx::import_bytes(mb.bytes()), "llvm").run({{"x", x}});
}

}  // namespace

TEST_CASE("converters: composed activations", "[onnx][converters]") {
  const NDArray x = NDArray::random({2, 3, 5}, Float(32), 1, -3, 3);
  const std::vector<float> xv = x.to_vector<float>();
  struct Case {
    std::string op;
    std::function<void(::onnx::NodeProto &)> attrs;
    std::function<float(float)> ref;
  };
  const float selu_a = 1.67326319217681884765625f, selu_g = 1.05070102214813232421875f;
  const std::vector<Case> cases = {
      {"Elu", [](auto &n) { attr(n, "alpha", 0.5f); }, [](float v) { return v >= 0 ? v : 0.5f * (std::exp(v) - 1); }},
      {"Selu", [](auto &) {}, [=](float v) { return selu_g * (v >= 0 ? v : selu_a * (std::exp(v) - 1)); }},
      {"HardSigmoid", [](auto &n) { attr(n, "alpha", 0.3f); },
       [](float v) { return std::clamp(0.3f * v + 0.5f, 0.0f, 1.0f); }},
      {"Softplus", [](auto &) {}, [](float v) { return std::log(std::exp(v) + 1); }},
      {"Softsign", [](auto &) {}, [](float v) { return v / (1 + std::fabs(v)); }},
      {"LeakyRelu", [](auto &n) { attr(n, "alpha", 1.5f); }, [](float v) { return v >= 0 ? v : 1.5f * v; }},
      {"HardSwish", [](auto &) {}, [](float v) { return v * std::clamp(v / 6 + 0.5f, 0.0f, 1.0f); }},
  };
  for (const Case &c : cases) {
    INFO("operator " << c.op);
    std::vector<float> want = xv;
    for (float &v : want) v = c.ref(v);
    check_close(run_unary(c.op, x, c.attrs, 14), want);
  }
  // Softplus far from 0 against double, within ONNX's tolerances: about x where exp(x)
  // overflows float32, and about exp(x) (under atol) where 1 + exp(x) rounds to 1.
  const NDArray far = NDArray::from_vector<float>({-100, -30, 30, 88, 89, 100, 1e30f}, {7});
  std::vector<double> want;
  for (float v : far.to_vector<float>()) want.push_back(std::log1p(std::exp(double(v))));
  want.back() = 1e30;
  check_close(run_unary("Softplus", far, [](auto &) {}, 14), want, 1e-6, 1e-7);
}

TEST_CASE("converters: global pooling", "[onnx][converters]") {
  const NDArray x = NDArray::random({2, 3, 4, 5}, Float(32), 2);
  const std::vector<float> xv = x.to_vector<float>();
  std::vector<float> avg, mx;
  for (int nc = 0; nc < 6; ++nc) {
    float s = 0, m = -1e30f;
    for (int p = 0; p < 20; ++p) {
      s += xv[size_t(nc * 20 + p)];
      m = std::max(m, xv[size_t(nc * 20 + p)]);
    }
    avg.push_back(s / 20);
    mx.push_back(m);
  }
  const NDArray a = run_unary("GlobalAveragePool", x, [](auto &) {});
  CHECK(a.shape() == std::vector<int64_t>{2, 3, 1, 1});
  check_close(a, avg);
  check_close(run_unary("GlobalMaxPool", x, [](auto &) {}), mx);
}

TEST_CASE("converters: MatMul of 3-D and 1-D operands with a 2-D or 1-D B", "[onnx][converters]") {
  struct Case {
    std::vector<int64_t> a, b;
    bool b_known;
  };
  for (const Case &c : {Case{{2, 3, 4}, {4, 5}, true}, Case{{2, 3, 4}, {4, 5}, false}, Case{{4}, {4, 5}, true},
                        Case{{2, 3, 4}, {4}, true}, Case{{3, 4}, {4}, false}}) {
    INFO("A " << shape_str(c.a) << " B " << shape_str(c.b) << (c.b_known ? " known" : " computed"));
    const NDArray a = NDArray::random(c.a, Float(32), 3), b = NDArray::random(c.b, Float(32), 4);
    ModelBuilder mb(13);
    mb.input("a", dims(c.a));
    if (c.b_known)
      mb.initializer("b", b);
    else
      mb.input("b", dims(c.b));
    mb.node("MatMul", {"a", "b"}, {"y"});
    mb.output("y");
    std::map<std::string, NDArray> feed = {{"a", a}};
    if (!c.b_known) feed["b"] = b;
    const NDArray y = graph::build(tonnx::import_bytes(mb.bytes()), "llvm").run(feed);
    const int64_t k = c.a.back(), n = c.b.size() == 2 ? c.b[1] : 1, rows = a.numel() / k;
    std::vector<int64_t> shape(c.a.begin(), c.a.end() - 1);
    if (c.b.size() == 2) shape.push_back(n);
    CHECK(y.shape() == shape);
    const std::vector<float> av = a.to_vector<float>(), bv = b.to_vector<float>();
    std::vector<float> want;
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t j = 0; j < n; ++j) {
        float s = 0;
        for (int64_t q = 0; q < k; ++q) s += av[size_t(r * k + q)] * bv[size_t(q * n + j)];
        want.push_back(s);
      }
    check_close(y, want);
  }
}

TEST_CASE("converters: Softmax and LogSoftmax before opset 13 normalize whole rows", "[onnx][converters]") {
  // Opset 11, axis 1 on [2, 3, 4]: each of the 2 rows of 12 elements sums to one.
  const NDArray x = NDArray::random({2, 3, 4}, Float(32), 5, -2, 2);
  const std::vector<float> xv = x.to_vector<float>();
  std::vector<float> soft, logsoft;
  for (int r = 0; r < 2; ++r) {
    double sum = 0;
    for (int i = 0; i < 12; ++i) sum += std::exp(double(xv[size_t(r * 12 + i)]));
    for (int i = 0; i < 12; ++i) {
      soft.push_back(float(std::exp(double(xv[size_t(r * 12 + i)])) / sum));
      logsoft.push_back(float(xv[size_t(r * 12 + i)] - std::log(sum)));
    }
  }
  auto axis1 = [](::onnx::NodeProto &n) { attr(n, "axis", int64_t{1}); };
  check_close(run_unary("Softmax", x, axis1, 11), soft);
  check_close(run_unary("LogSoftmax", x, axis1, 11), logsoft);
  // From opset 13, axis 1 is the one axis.
  const NDArray y = run_unary("Softmax", x, axis1, 13);
  const std::vector<float> yv = y.to_vector<float>();
  CHECK(std::fabs(yv[0] + yv[4] + yv[8] - 1) < 1e-5);
}

TEST_CASE("converters: a grouped, dilated convolution with SAME_UPPER padding and a bias", "[onnx][converters]") {
  // x [1, 4, 7, 6], w [6, 2, 3, 3] (2 groups), dilation 2, stride 2, SAME_UPPER:
  // out 4 x 3, total padding per axis (out - 1) * 2 + 5 - in, the odd one after.
  const int C = 4, K = 6, G = 2, H = 7, W = 6, R = 3, D = 2, S = 2;
  const NDArray x = NDArray::random({1, C, H, W}, Float(32), 6), w = NDArray::random({K, C / G, R, R}, Float(32), 7);
  const NDArray b = NDArray::random({K}, Float(32), 8);
  ModelBuilder mb(13);
  mb.input("x", dims({1, C, H, W}));
  mb.initializer("w", w);
  mb.initializer("b", b);
  auto &conv = mb.node("Conv", {"x", "w", "b"}, {"y"});
  attr(conv, "group", int64_t{G});
  attr(conv, "dilations", std::vector<int64_t>{D, D});
  attr(conv, "strides", std::vector<int64_t>{S, S});
  attr(conv, "auto_pad", std::string("SAME_UPPER"));
  mb.output("y");
  const NDArray y = graph::build(tonnx::import_bytes(mb.bytes()), "llvm").run({{"x", x}});
  const int OH = (H + S - 1) / S, OW = (W + S - 1) / S, span = (R - 1) * D + 1;
  const int ph = std::max((OH - 1) * S + span - H, 0) / 2, pw = std::max((OW - 1) * S + span - W, 0) / 2;
  CHECK(y.shape() == std::vector<int64_t>{1, K, OH, OW});
  const std::vector<float> xv = x.to_vector<float>(), wv = w.to_vector<float>(), bv = b.to_vector<float>();
  std::vector<float> want;
  for (int k = 0; k < K; ++k)
    for (int i = 0; i < OH; ++i)
      for (int j = 0; j < OW; ++j) {
        float s = bv[size_t(k)];
        const int g = k / (K / G);
        for (int c = 0; c < C / G; ++c)
          for (int r = 0; r < R; ++r)
            for (int q = 0; q < R; ++q) {
              const int yy = i * S + r * D - ph, xx = j * S + q * D - pw;
              if (yy < 0 || yy >= H || xx < 0 || xx >= W) continue;
              s += xv[size_t(((g * (C / G) + c) * H + yy) * W + xx)] * wv[size_t(((k * (C / G) + c) * R + r) * R + q)];
            }
        want.push_back(s);
      }
  check_close(y, want);
}
