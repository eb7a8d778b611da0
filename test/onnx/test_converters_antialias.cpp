// Resize 18's antialias against ONNX's published results and against a port of ONNX's
// reference (onnx/reference/ops/op_resize.py: per axis, the n elements nearest the source
// position in the edge-padded input, weighted by the stretched filter) on random data.
#include <tensorir/frontend/onnx.h>
#include <tensorir/graph/executor.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "onnx/onnx_test_util.h"

using namespace tensorir;
using Catch::Matchers::Contains;
using onnx_test::attr;
using onnx_test::check_close;
using onnx_test::dims;
using onnx_test::ModelBuilder;
namespace tonnx = tensorir::onnx;

namespace {

struct Case {
  std::string mode = "linear", coord = "half_pixel";
  double cubic_a = -0.75;
  bool exclude_outside = false;
};

// The reference's filter taps for `ratio` in (0, 1] at `scale`.
std::vector<double> reference_coeffs(const Case &k, double ratio, double scale) {
  const double s = std::min(scale, 1.0);
  std::vector<double> c;
  if (k.mode == "linear") {
    const int start = int(std::floor(-1 / s) + 1), footprint = 2 - 2 * start;
    for (int i = start; i < start + footprint; ++i) c.push_back(std::clamp(1 - std::fabs((i - ratio) * s), 0.0, 1.0));
  } else {
    const double a = k.cubic_a;
    const int start = int(std::floor(-2 / s) + 1), end = 2 - start;
    for (int i = start; i < end; ++i) {
      const double x = std::fabs(s * (i - ratio)), x2 = x * x, x3 = x2 * x;
      c.push_back(x <= 1 ? (a + 2) * x3 - (a + 3) * x2 + 1 : x < 2 ? a * x3 - 5 * a * x2 + 8 * a * x - 4 * a : 0.0);
    }
  }
  const double total = std::accumulate(c.begin(), c.end(), 0.0);
  for (double &v : c) v /= total;
  return c;
}

// One output element along an axis: data is the axis' values, x the output coordinate.
double reference_1d(const Case &k, const std::vector<double> &data, double scale, int64_t out, int64_t x) {
  const double in = double(data.size()), width = scale * in;
  double xo;
  if (k.coord == "align_corners") xo = width == 1 ? 0 : double(x) * (in - 1) / (width - 1);
  else if (k.coord == "asymmetric") xo = double(x) / scale;
  // One element: ONNX's operator text (and ONNX Runtime) read from 0; the Python reference
  // from -0.5, which differs once the filter is stretched.
  else if (k.coord == "pytorch_half_pixel") xo = width == 1 ? 0 : (double(x) + 0.5) / scale - 0.5;
  else if (k.coord == "half_pixel_symmetric") xo = in / 2 * (1 - double(out) / width) + (double(x) + 0.5) / scale - 0.5;
  else xo = (double(x) + 0.5) / scale - 0.5;
  const double ratio = xo == std::floor(xo) ? 1 : xo - std::floor(xo);
  std::vector<double> c = reference_coeffs(k, ratio, scale);
  const int64_t n = int64_t(c.size()), pad = (n + 1) / 2;
  // The n indexes of the padded input nearest xo (ties to the smaller), in order. The
  // distances are taken from xo itself: the reference's xo + pad rounds (1 + 2^-52 + 2 is
  // 3), which at such a position moves the window one element from its coefficients (the
  // cases here keep xo away from such ties).
  std::vector<int64_t> idx(size_t(data.size() + 2 * size_t(pad)));
  std::iota(idx.begin(), idx.end(), 0);
  std::stable_sort(idx.begin(), idx.end(), [&](int64_t a, int64_t b) {
    return std::fabs(xo - double(a - pad)) < std::fabs(xo - double(b - pad));
  });
  idx.resize(size_t(n));
  std::sort(idx.begin(), idx.end());
  if (k.exclude_outside) {
    for (int64_t i = 0; i < n; ++i)
      if (idx[size_t(i)] - pad < 0 || idx[size_t(i)] - pad >= int64_t(data.size())) c[size_t(i)] = 0;
    const double total = std::accumulate(c.begin(), c.end(), 0.0);
    for (double &v : c) v /= total;
  }
  double acc = 0;
  for (int64_t i = 0; i < n; ++i)
    acc += c[size_t(i)] * data[size_t(std::clamp<int64_t>(idx[size_t(i)] - pad, 0, int64_t(data.size()) - 1))];
  return acc;
}

// `v` (row-major `shape`) resampled along every axis in turn, as the reference does.
std::vector<double> reference(const Case &k, std::vector<double> v, std::vector<int64_t> shape,
                              const std::vector<double> &scales, const std::vector<int64_t> &out) {
  for (size_t a = 0; a < shape.size(); ++a) {
    int64_t outer = 1, inner = 1;
    for (size_t d = 0; d < a; ++d) outer *= shape[d];
    for (size_t d = a + 1; d < shape.size(); ++d) inner *= shape[d];
    const int64_t n = shape[a], m = out[a];
    std::vector<double> next(size_t(outer * m * inner));
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < inner; ++i) {
        std::vector<double> line;
        for (int64_t j = 0; j < n; ++j) line.push_back(v[size_t((o * n + j) * inner + i)]);
        for (int64_t j = 0; j < m; ++j)
          next[size_t((o * m + j) * inner + i)] =
              scales[a] == 1.0 && m == n ? line[size_t(j)] : reference_1d(k, line, scales[a], m, j);
      }
    v = std::move(next);
    shape[a] = m;
  }
  return v;
}

// Resize (opset 18 or 19) with antialias of x [shape] by `scales` or, when given, `sizes`.
ModelBuilder antialias_model(const Case &k, const std::vector<int64_t> &shape, const std::vector<float> &scales,
                             const std::vector<int64_t> &sizes, int64_t opset = 18) {
  ModelBuilder mb(opset);
  mb.input("x", dims(shape));
  const int64_t r = int64_t(shape.size());
  if (sizes.empty()) mb.initializer("scales", NDArray::from_vector<float>(scales, {r}));
  else mb.initializer("sizes", NDArray::from_vector<int64_t>(sizes, {r}));
  auto &n = mb.node("Resize", {"x", "", sizes.empty() ? "scales" : "", sizes.empty() ? "" : "sizes"}, {"y"}, "shrink");
  attr(n, "antialias", int64_t{1});
  attr(n, "mode", k.mode);
  attr(n, "coordinate_transformation_mode", k.coord);
  attr(n, "cubic_coeff_a", float(k.cubic_a));
  attr(n, "exclude_outside", int64_t{k.exclude_outside});
  mb.output("y");
  return mb;
}

NDArray run_on(const ModelBuilder &mb, const NDArray &x, const std::string &target = "llvm") {
  return graph::build(tonnx::import_bytes(mb.bytes()), target).run({{"x", x}}).at(0).to(Device::cpu());
}

}  // namespace

TEST_CASE("converters: Resize with antialias gives ONNX's published results", "[onnx][converters][antialias]") {
  std::vector<float> v(16);
  std::iota(v.begin(), v.end(), 1.0f);
  const NDArray x = NDArray::from_vector<float>(v, {1, 1, 4, 4});
  Case linear, cubic;
  cubic.mode = "cubic";
  check_close(run_on(antialias_model(linear, {1, 1, 4, 4}, {1, 1, 0.6f, 0.6f}, {}), x), {2.875, 4.5, 9.375, 11.0});
  check_close(run_on(antialias_model(cubic, {1, 1, 4, 4}, {1, 1, 0.6f, 0.6f}, {}), x),
              {2.5180721, 4.2858863, 9.589329, 11.357142});
  check_close(run_on(antialias_model(linear, {1, 1, 4, 4}, {}, {1, 1, 3, 3}), x),
              {2.3636363, 3.590909, 4.818182, 7.2727275, 8.5, 9.727273, 12.181818, 13.409091, 14.636364});
  check_close(run_on(antialias_model(cubic, {1, 1, 4, 4}, {}, {1, 1, 3, 3}), x),
              {1.7750092, 3.1200073, 4.4650054, 7.1550016, 8.5, 9.844998, 12.534994, 13.8799925, 15.224991});
}

TEST_CASE("converters: Resize with antialias against ONNX's reference on random data", "[onnx][converters][antialias]") {
  struct Run {
    Case k;
    std::vector<int64_t> shape;
    std::vector<float> scales;
    std::vector<int64_t> sizes;
    int64_t opset;
  };
  Case cubic_excl{"cubic", "half_pixel", -0.5, true}, align{"linear", "align_corners", -0.75, false},
      pytorch{"cubic", "pytorch_half_pixel", -0.75, false}, asym{"linear", "asymmetric", -0.75, true},
      symmetric{"linear", "half_pixel_symmetric", -0.75, false};
  const std::vector<Run> runs = {
      {Case{}, {1, 2, 9, 11}, {1, 1, 0.6f, 0.45f}, {}, 18},   // both axes shrink, unequally
      {cubic_excl, {1, 2, 9, 11}, {}, {1, 2, 4, 5}, 18},      // sizes; taps beyond the edge weigh 0
      {align, {1, 1, 7, 5}, {}, {1, 1, 3, 9}, 18},            // one axis shrinks, one grows
      {pytorch, {2, 13, 6}, {}, {2, 5, 1}, 18},               // down to one column
      {asym, {6, 7, 8}, {0.5f, 1, 0.7f}, {}, 18},             // a leading axis shrinks
      {symmetric, {1, 1, 10, 9}, {1, 1, 0.35f, 0.5f}, {}, 19},  // the output's rounding shared out
      {Case{}, {1, 3, 40, 30}, {}, {1, 3, 7, 8}, 18},         // a factor of 5: 10 taps and more
  };
  uint64_t seed = 90;
  for (const Run &run : runs) {
    CAPTURE(run.k.mode, run.k.coord, run.shape);
    const NDArray x = NDArray::random(run.shape, Float(32), seed++);
    std::vector<double> scales(run.shape.size(), 1.0);
    std::vector<int64_t> out = run.sizes;
    if (out.empty()) {
      for (size_t a = 0; a < run.shape.size(); ++a) {
        scales[a] = double(run.scales[a]);
        out.push_back(int64_t(std::floor(double(run.shape[a]) * scales[a])));
      }
    } else {
      for (size_t a = 0; a < run.shape.size(); ++a) scales[a] = double(out[a]) / double(run.shape[a]);
    }
    const std::vector<float> xv = x.to_vector<float>();
    const std::vector<double> want =
        reference(run.k, std::vector<double>(xv.begin(), xv.end()), run.shape, scales, out);
    const NDArray y = run_on(antialias_model(run.k, run.shape, run.scales, run.sizes, run.opset), x);
    CHECK(y.shape() == out);
    check_close(y, want, 1e-5, 1e-6);
  }
}

TEST_CASE("converters: Resize with antialias of the axes listed, keeping the aspect ratio",
          "[onnx][converters][antialias]") {
  // sizes 7 x 9 of axes 2 and 3, not_larger: one scale, min(7 / 20, 9 / 15) = 0.35, for
  // both (7 x 5, 15 x 0.35 = 5.25 rounded).
  const std::vector<int64_t> shape = {1, 2, 20, 15};
  ModelBuilder mb(18);
  mb.input("x", dims(shape));
  mb.initializer("sizes", NDArray::from_vector<int64_t>({7, 9}, {2}));
  auto &n = mb.node("Resize", {"x", "", "", "sizes"}, {"y"}, "shrink");
  attr(n, "antialias", int64_t{1});
  attr(n, "mode", std::string("cubic"));
  attr(n, "axes", std::vector<int64_t>{2, 3});
  attr(n, "keep_aspect_ratio_policy", std::string("not_larger"));
  mb.output("y");
  const NDArray x = NDArray::random(shape, Float(32), 21);
  const std::vector<float> xv = x.to_vector<float>();
  const NDArray y = run_on(mb, x);
  CHECK(y.shape() == std::vector<int64_t>{1, 2, 7, 5});
  check_close(y, reference(Case{"cubic"}, std::vector<double>(xv.begin(), xv.end()), shape, {1, 1, 0.35, 0.35},
                           {1, 2, 7, 5}),
              1e-5, 1e-6);
}

TEST_CASE("converters: Resize with antialias on the OpenGL targets", "[onnx][converters][antialias][opengl]") {
  const NDArray x = NDArray::random({1, 2, 12, 10}, Float(32), 3);
  Case k{"cubic", "half_pixel", -0.75, false};
  const ModelBuilder mb = antialias_model(k, {1, 2, 12, 10}, {}, {1, 2, 5, 4});
  const NDArray want = run_on(mb, x);
  const std::vector<float> w = want.to_vector<float>();
  for (const char *target : {"opengl", "opengl -mode=fragment"}) {
    CAPTURE(target);
    check_close(run_on(mb, x, target), std::vector<double>(w.begin(), w.end()), 1e-5, 1e-6);
  }
}

TEST_CASE("converters: Resize's antialias leaves nearest as it is", "[onnx][converters][antialias]") {
  const NDArray x = NDArray::random({1, 1, 6, 8}, Float(32), 4);
  Case nearest{"nearest", "asymmetric", -0.75, false};
  ModelBuilder with = antialias_model(nearest, {1, 1, 6, 8}, {1, 1, 0.5f, 0.5f}, {});
  ModelBuilder without = with;
  without.graph().mutable_node(0)->mutable_attribute(0)->set_i(0);
  REQUIRE(without.graph().node(0).attribute(0).name() == "antialias");
  CHECK(run_on(with, x).to_vector<float>() == run_on(without, x).to_vector<float>());
}
