// NaN through a small network on "llvm": Conv, Relu, MaxPool, ReduceMax and ArgMax with
// the schedules graph::build picks (blocked layouts, fused activations, vectorized pools)
// keep a NaN input visible, as PyTorch does, against plain loops in double precision.
#include <cmath>
#include <limits>
#include <vector>

#include "onnx/onnx_test_util.h"

using namespace tensorir;
using namespace tensorir::onnx_test;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

double nan_max(double a, double b) { return std::isnan(a) || std::isnan(b) ? kNaN : std::max(a, b); }

}  // namespace

TEST_CASE("converters: a NaN input stays NaN through conv, relu, max pool, ReduceMax and ArgMax",
          "[onnx][converters][nan]") {
  const int C = 4, H = 12, K = 16, OH = 6, PH = 3;
  NDArray x = NDArray::random({1, C, H, H}, Float(32), 5);
  float *xp = x.data_as<float>();
  // NaNs at two pixels of one channel: the conv spreads each to the outputs whose window
  // reads it, in every output channel; after pooling, rows 1 and 2 of each channel hold a
  // NaN, row 0 none.
  for (int at : {6 * H + 1, 9 * H + 11}) xp[1 * H * H + at] = std::numeric_limits<float>::quiet_NaN();
  const NDArray w = NDArray::random({K, C, 3, 3}, Float(32), 6), b = NDArray::random({K}, Float(32), 7);

  ModelBuilder mb(13);
  mb.input("x", dims({1, C, H, H}));
  mb.initializer("w", w);
  mb.initializer("b", b);
  auto &conv = mb.node("Conv", {"x", "w", "b"}, {"c"});
  attr(conv, "strides", std::vector<int64_t>{2, 2});
  attr(conv, "pads", std::vector<int64_t>{1, 1, 1, 1});
  mb.node("Relu", {"c"}, {"r"});
  auto &pool = mb.node("MaxPool", {"r"}, {"p"});
  attr(pool, "kernel_shape", std::vector<int64_t>{2, 2});
  attr(pool, "strides", std::vector<int64_t>{2, 2});
  auto &rmax = mb.node("ReduceMax", {"p"}, {"m"});
  attr(rmax, "axes", std::vector<int64_t>{-1});
  attr(rmax, "keepdims", int64_t{0});
  auto &amax = mb.node("ArgMax", {"m"}, {"a"});
  attr(amax, "axis", int64_t{-1});
  attr(amax, "keepdims", int64_t{0});
  mb.output("p");
  mb.output("m");
  mb.output("a", {}, ::onnx::TensorProto::INT64);
  const graph::Outputs out = run(mb, {{"x", x}});

  const std::vector<float> xv = x.to_vector<float>(), wv = w.to_vector<float>(), bv = b.to_vector<float>();
  std::vector<double> r(size_t(K) * OH * OH);
  for (int k = 0; k < K; ++k)
    for (int y = 0; y < OH; ++y)
      for (int z = 0; z < OH; ++z) {
        double s = bv[size_t(k)];
        for (int c = 0; c < C; ++c)
          for (int u = 0; u < 3; ++u)
            for (int v = 0; v < 3; ++v) {
              const int iy = 2 * y + u - 1, ix = 2 * z + v - 1;
              if (iy >= 0 && iy < H && ix >= 0 && ix < H)
                s += double(xv[size_t((c * H + iy) * H + ix)]) * wv[size_t(((k * C + c) * 3 + u) * 3 + v)];
            }
        r[size_t((k * OH + y) * OH + z)] = nan_max(s, 0.0);
      }
  std::vector<double> p(size_t(K) * PH * PH), m(size_t(K) * PH, -INFINITY);
  for (int k = 0; k < K; ++k)
    for (int y = 0; y < PH; ++y)
      for (int z = 0; z < PH; ++z) {
        double v = -INFINITY;
        for (int u = 0; u < 2; ++u)
          for (int q = 0; q < 2; ++q) v = nan_max(v, r[size_t((k * OH + 2 * y + u) * OH + 2 * z + q)]);
        p[size_t((k * PH + y) * PH + z)] = v;
        m[size_t(k * PH + y)] = nan_max(m[size_t(k * PH + y)], v);
      }
  std::vector<int64_t> a;
  for (int k = 0; k < K; ++k) {
    int64_t best = 0;
    for (int y = 0; y < PH; ++y) {
      const double v = m[size_t(k * PH + y)], cur = m[size_t(k * PH + best)];
      if (std::isnan(v) ? !std::isnan(cur) : (!std::isnan(cur) && v > cur)) best = y;
    }
    a.push_back(best);
  }
  size_t nan_rows = 0;
  for (double v : m) nan_rows += std::isnan(v);
  REQUIRE(nan_rows > 0);
  REQUIRE(nan_rows < m.size());
  check_close(out.at(0), p);
  check_close(out.at(1), m);
  CHECK(out.at(2).to_vector<int64_t>() == a);
}

TEST_CASE("converters: Max and Min of constants folded at import keep NaN", "[onnx][converters][nan]") {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  ModelBuilder mb(13);
  mb.initializer("a", NDArray::from_vector<float>({1, nan, 3}, {3}));
  mb.initializer("b", NDArray::from_vector<float>({nan, 2, 1}, {3}));
  mb.node("Max", {"a", "b"}, {"hi"});
  mb.node("Min", {"a", "b"}, {"lo"});
  mb.output("hi");
  mb.output("lo");
  const graph::Outputs out = run(mb, {});
  check_close(out.at(0), std::vector<double>{kNaN, kNaN, 3}, 0, 0);
  check_close(out.at(1), std::vector<double>{kNaN, kNaN, 1}, 0, 0);
}

TEST_CASE("converters: Sign is NaN for NaN, 1, 0 or -1 otherwise, computed and folded", "[onnx][converters][nan]") {
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  const std::vector<float> xs = {nan, -2.5f, 0.0f, -0.0f, 3.0f, inf, -inf, 1e-40f};
  const std::vector<double> want = {kNaN, -1, 0, 0, 1, 1, -1, 1};
  const NDArray x = NDArray::from_vector<float>(xs, {int64_t(xs.size())});
  for (bool folded : {false, true}) {
    ModelBuilder mb(13);
    if (folded) mb.initializer("x", x);
    else mb.input("x", dims({int64_t(xs.size())}));
    mb.node("Sign", {"x"}, {"y"});
    mb.output("y");
    INFO((folded ? "folded at import" : "computed"));
    check_close(run(mb, folded ? std::map<std::string, NDArray>{} : std::map<std::string, NDArray>{{"x", x}}).at(0),
                want, 0, 0);
  }
}
