// Converters of NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss (weights,
// ignore_index, each reduction), ConvTranspose with output_shape, and Clip with bounds
// computed at run time, Celu, Shrink, MeanVarianceNormalization and CastLike, on models
// built here, against plain loops.
#include <tensorir/frontend/onnx.h>
#include <tensorir/graph/executor.h>

#include <cmath>
#include <limits>
#include <string>

#include "onnx/onnx_test_util.h"

using namespace tensorir;
using onnx_test::attr;
using onnx_test::dims;
using onnx_test::ModelBuilder;
using onnx_test::check_close;
using onnx_test::run;
namespace tonnx = tensorir::onnx;

TEST_CASE("converters: NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss", "[onnx][converters]") {
  // Input [2, 3, 2] (N, C, d), targets [2, 2] with one ignored: a class (1), or -100 as
  // PyTorch's exports have it, outside the classes' range.
  const int64_t n = 2, cl = 3, d = 2;
  const NDArray x = NDArray::random({n, cl, d}, Float(32), 1);
  const NDArray w = NDArray::from_vector<float>({0.5f, 2.0f, 1.5f}, {cl});
  const std::vector<float> xv = x.to_vector<float>(), wv = w.to_vector<float>();
  for (const int64_t ignore : {int64_t{1}, int64_t{-100}})
  for (const std::string op : {"NegativeLogLikelihoodLoss", "SoftmaxCrossEntropyLoss"}) {
    const NDArray t = NDArray::from_vector<int64_t>({2, ignore, 0, 2}, {n, d});
    const std::vector<int64_t> tv = t.to_vector<int64_t>();
    // The log-probabilities the loss reads: x itself, or its log_softmax over the classes.
    std::vector<double> lp(xv.begin(), xv.end());
    if (op == "SoftmaxCrossEntropyLoss") {
      for (int64_t b = 0; b < n; ++b)
        for (int64_t j = 0; j < d; ++j) {
          double s = 0;
          for (int64_t k = 0; k < cl; ++k) s += std::exp(double(xv[size_t((b * cl + k) * d + j)]));
          for (int64_t k = 0; k < cl; ++k) lp[size_t((b * cl + k) * d + j)] -= std::log(s);
        }
    }
    for (const std::string reduction : {"none", "sum", "mean"}) {
      for (bool weighted : {false, true}) {
        INFO(op << " reduction " << reduction << " weighted " << weighted << " ignore_index " << ignore);
        ModelBuilder mb(13);
        mb.input("x", dims({n, cl, d}));
        mb.input("t", dims({n, d}), ::onnx::TensorProto::INT64);
        if (weighted) mb.input("w", dims({cl}));
        std::vector<std::string> in = {"x", "t"};
        if (weighted) in.push_back("w");
        auto &node = mb.node(op, in, {"y"});
        attr(node, "reduction", reduction);
        attr(node, "ignore_index", ignore);
        mb.output("y");
        std::map<std::string, NDArray> feed = {{"x", x}, {"t", t}};
        if (weighted) feed["w"] = w;
        const NDArray y = run(mb, feed).at(0);
        std::vector<double> loss;
        double sum = 0, total = 0;
        for (int64_t b = 0; b < n; ++b)
          for (int64_t j = 0; j < d; ++j) {
            const int64_t k = tv[size_t(b * d + j)];
            const double wk = k == ignore ? 0.0 : weighted ? double(wv[size_t(k)]) : 1.0;
            loss.push_back(k == ignore ? 0.0 : -lp[size_t((b * cl + k) * d + j)] * wk);
            sum += loss.back();
            total += wk;
          }
        if (reduction == "none") {
          CHECK(y.shape() == std::vector<int64_t>{n, d});
          check_close(y, loss);
        } else {
          CHECK(y.shape().empty());
          check_close(y, {reduction == "sum" ? sum : sum / total});
        }
      }
    }
  }
}

TEST_CASE("converters: ConvTranspose with an output_shape beyond the full result", "[onnx][converters]") {
  // [1, 1, 2, 2] by a [1, 1, 2, 2] kernel at stride 2: the full result is 4 x 4; 5 x 5 adds zeros.
  ModelBuilder mb(13);
  mb.input("x", dims({1, 1, 2, 2}));
  mb.initializer("w", NDArray::from_vector<float>({1, 2, 3, 4}, {1, 1, 2, 2}));
  auto &node = mb.node("ConvTranspose", {"x", "w"}, {"y"});
  attr(node, "strides", std::vector<int64_t>{2, 2});
  attr(node, "output_shape", std::vector<int64_t>{5, 5});
  mb.output("y");
  const NDArray y = run(mb, {{"x", NDArray::from_vector<float>({1, 10, 100, 1000}, {1, 1, 2, 2})}}).at(0);
  REQUIRE(y.shape() == std::vector<int64_t>{1, 1, 5, 5});
  const std::vector<float> want = {1,   2,   10,   20,   0, 3,   4,   30,   40,   0, 100, 200, 1000,
                                   2000, 0, 300, 400, 3000, 4000, 0, 0,   0,   0,    0,    0};
  CHECK(y.to_vector<float>() == want);
}

TEST_CASE("converters: Clip with computed bounds and of integers", "[onnx][converters]") {
  {
    ModelBuilder mb(13);
    mb.input("x", dims({4}));
    mb.input("lo", dims({}));
    mb.input("hi", dims({}));
    mb.node("Clip", {"x", "lo", "hi"}, {"y"});
    mb.output("y");
    const NDArray y = run(mb, {{"x", NDArray::from_vector<float>({-3, 0.5f, 2, 9}, {4})},
                               {"lo", NDArray::from_vector<float>({-1}, {})},
                               {"hi", NDArray::from_vector<float>({3}, {})}})
                          .at(0);
    CHECK(y.to_vector<float>() == std::vector<float>{-1, 0.5f, 2, 3});
  }
  {  // int32 with a known upper bound only.
    ModelBuilder mb(13);
    mb.input("x", dims({4}), ::onnx::TensorProto::INT32);
    mb.initializer("hi", NDArray::from_vector<int32_t>({5}, {}));
    mb.node("Clip", {"x", "", "hi"}, {"y"});
    mb.output("y");
    const NDArray y = run(mb, {{"x", NDArray::from_vector<int32_t>({-7, 3, 5, 8}, {4})}}).at(0);
    CHECK(y.to_vector<int32_t>() == std::vector<int32_t>{-7, 3, 5, 5});
  }
  // Known bounds: an infinite one clips nothing, so infinities pass; an absent one is the
  // type's lowest or largest value, where infinities stop.
  const float inf = std::numeric_limits<float>::infinity(), big = std::numeric_limits<float>::max();
  const NDArray xs = NDArray::from_vector<float>({-inf, -2, 0.5f, 2, inf}, {5});
  const struct {
    float lo, hi;
    bool has_lo, has_hi;
    std::vector<float> want;
  } cases[] = {{-inf, inf, true, true, {-inf, -2, 0.5f, 2, inf}},
               {-1, inf, true, true, {-1, -1, 0.5f, 2, inf}},
               {-inf, 1, true, true, {-inf, -2, 0.5f, 1, 1}},
               {-1, 1, true, true, {-1, -1, 0.5f, 1, 1}},
               {0, -inf, false, false, {-big, -2, 0.5f, 2, big}},
               {-1, 0, true, false, {-1, -1, 0.5f, 2, big}},
               {1, -1, true, true, {-1, -1, -1, -1, -1}}};  // min above max: every value is max
  for (const auto &cs : cases) {
    INFO("min " << (cs.has_lo ? std::to_string(cs.lo) : "absent") << ", max "
                << (cs.has_hi ? std::to_string(cs.hi) : "absent"));
    ModelBuilder mb(13);
    mb.input("x", dims({5}));
    if (cs.has_lo) mb.initializer("lo", NDArray::from_vector<float>({cs.lo}, {}));
    if (cs.has_hi) mb.initializer("hi", NDArray::from_vector<float>({cs.hi}, {}));
    mb.node("Clip", {"x", cs.has_lo ? "lo" : "", cs.has_hi ? "hi" : ""}, {"y"});
    mb.output("y");
    CHECK(run(mb, {{"x", xs}}).at(0).to_vector<float>() == cs.want);
  }
}

TEST_CASE("converters: Celu, Shrink, MeanVarianceNormalization and CastLike", "[onnx][converters]") {
  const NDArray x = NDArray::random({2, 3, 2, 2}, Float(32), 5, -2, 2);
  const std::vector<float> xv = x.to_vector<float>();
  {
    ModelBuilder mb(13);
    mb.input("x", dims({2, 3, 2, 2}));
    attr(mb.node("Celu", {"x"}, {"y"}), "alpha", 2.0f);
    mb.output("y");
    std::vector<double> want;
    for (float v : xv) want.push_back(std::max(0.0, double(v)) + std::min(0.0, 2.0 * (std::exp(v / 2.0) - 1)));
    check_close(run(mb, {{"x", x}}).at(0), want);
  }
  {
    ModelBuilder mb(13);
    mb.input("x", dims({2, 3, 2, 2}));
    auto &node = mb.node("Shrink", {"x"}, {"y"});
    attr(node, "lambd", 0.7f);
    attr(node, "bias", 0.25f);
    mb.output("y");
    std::vector<double> want;
    for (float v : xv) want.push_back(v < -0.7f ? v + 0.25 : v > 0.7f ? v - 0.25 : 0.0);
    check_close(run(mb, {{"x", x}}).at(0), want);
  }
  {  // Over N, H and W: each channel's 8 values.
    ModelBuilder mb(13);
    mb.input("x", dims({2, 3, 2, 2}));
    mb.node("MeanVarianceNormalization", {"x"}, {"y"});
    mb.output("y");
    std::vector<double> want(xv.size());
    for (int64_t c = 0; c < 3; ++c) {
      double s = 0, s2 = 0;
      for (int64_t b = 0; b < 2; ++b)
        for (int64_t i = 0; i < 4; ++i) {
          const double v = xv[size_t((b * 3 + c) * 4 + i)];
          s += v / 8;
          s2 += v * v / 8;
        }
      for (int64_t b = 0; b < 2; ++b)
        for (int64_t i = 0; i < 4; ++i) {
          const size_t e = size_t((b * 3 + c) * 4 + i);
          want[e] = (xv[e] - s) / (std::sqrt(s2 - s * s) + 1e-9);
        }
    }
    check_close(run(mb, {{"x", x}}).at(0), want);
    // Data far from zero: float32's mean(x^2) - mean^2 would lose the variance to
    // rounding (6% at a mean of 1000); the reference is in double.
    std::vector<float> far(xv);
    for (float &v : far) v += 1000.0f;
    for (int64_t c = 0; c < 3; ++c) {
      double s = 0, s2 = 0;
      for (int64_t b = 0; b < 2; ++b)
        for (int64_t i = 0; i < 4; ++i) s += double(far[size_t((b * 3 + c) * 4 + i)]) / 8;
      for (int64_t b = 0; b < 2; ++b)
        for (int64_t i = 0; i < 4; ++i) {
          const double d = double(far[size_t((b * 3 + c) * 4 + i)]) - s;
          s2 += d * d / 8;
        }
      for (int64_t b = 0; b < 2; ++b)
        for (int64_t i = 0; i < 4; ++i) {
          const size_t e = size_t((b * 3 + c) * 4 + i);
          want[e] = (double(far[e]) - s) / (std::sqrt(s2) + 1e-9);
        }
    }
    check_close(run(mb, {{"x", NDArray::from_vector<float>(far, {2, 3, 2, 2})}}).at(0), want, 1e-3, 1e-3);
  }
  {
    ModelBuilder mb(15);
    mb.input("x", dims({3}));
    mb.input("like", dims({1}), ::onnx::TensorProto::INT32);
    mb.node("CastLike", {"x", "like"}, {"y"});
    mb.output("y");
    const NDArray y = run(mb, {{"x", NDArray::from_vector<float>({1.7f, -2.5f, 3.f}, {3})},
                               {"like", NDArray::from_vector<int32_t>({0}, {1})}})
                          .at(0);
    CHECK(y.to_vector<int32_t>() == std::vector<int32_t>{1, -2, 3});
  }
}
