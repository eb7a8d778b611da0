// Converters of Resize in cubic mode and of GridSample, on models built here, against
// plain loops that follow the ONNX reference's definitions on random data.
#include <tensorir/frontend/onnx.h>
#include <tensorir/graph/executor.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "onnx/onnx_test_util.h"

using namespace tensorir;
using onnx_test::attr;
using onnx_test::check_close;
using onnx_test::dims;
using onnx_test::ModelBuilder;
using onnx_test::run;
using Catch::Matchers::Contains;
namespace tonnx = tensorir::onnx;

namespace {

// Cubic convolution weights of the neighbours floor(p) - 1 ... floor(p) + 2 for fraction t.
std::vector<double> cubic(double t, double a) {
  auto k = [a](double x) {
    x = std::fabs(x);
    if (x <= 1) return ((a + 2) * x - (a + 3)) * x * x + 1;
    if (x < 2) return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a;
    return 0.0;
  };
  return {k(1 + t), k(t), k(1 - t), k(2 - t)};
}

// One axis of a cubic Resize: for output position o, the input positions and weights.
struct Taps {
  std::vector<int64_t> at;
  std::vector<double> w;
};
Taps resize_taps(int64_t o, int64_t in, int64_t out, double scale, const std::string &coord, double a, bool exclude) {
  double p;
  if (coord == "align_corners")
    p = out == 1 ? 0 : double(o) * double(in - 1) / double(out - 1);
  else if (coord == "asymmetric")
    p = double(o) / scale;
  else
    p = (double(o) + 0.5) / scale - 0.5;
  const double f = std::floor(p);
  Taps t;
  t.w = cubic(p - f, a);
  double total = 0;
  for (int k = 0; k < 4; ++k) {
    const int64_t i = int64_t(f) - 1 + k;
    if (exclude && (i < 0 || i >= in)) t.w[size_t(k)] = 0;
    total += t.w[size_t(k)];
    t.at.push_back(std::clamp<int64_t>(i, 0, in - 1));
  }
  if (exclude)
    for (double &w : t.w) w /= total;
  return t;
}

}  // namespace

TEST_CASE("converters: Resize in cubic mode matches plain loops", "[onnx][converters][sampling]") {
  const struct {
    std::vector<float> scales;
    std::string coord;
    float a;
    int64_t exclude;
  } cases[] = {{{1, 1, 1.6f, 2.5f}, "half_pixel", -0.75f, 0},
               {{1, 1, 0.6f, 0.75f}, "half_pixel", -0.5f, 1},
               {{1, 1, 2, 1.5f}, "align_corners", -0.75f, 0},
               {{1, 1, 1.5f, 0.5f}, "asymmetric", -0.75f, 1},
               {{1, 1, 0.8f, 1.25f}, "pytorch_half_pixel", -0.5f, 0},
               {{1, 1, 1.1f, 1.2f}, "half_pixel", -0.75f, 0}};  // sizes kept, samples moved
  const int64_t h = 5, w = 4;
  const NDArray x = NDArray::random({2, 3, h, w}, Float(32), 9, -2, 2);
  const std::vector<float> xv = x.to_vector<float>();
  for (const auto &cs : cases) {
    INFO(cs.coord << " a " << cs.a << " exclude_outside " << cs.exclude << " scales " << cs.scales[2] << ", "
                  << cs.scales[3]);
    ModelBuilder mb(13);
    mb.input("x", dims({2, 3, h, w}));
    mb.initializer("scales", NDArray::from_vector<float>(cs.scales, {4}));
    auto &node = mb.node("Resize", {"x", "", "scales"}, {"y"});
    attr(node, "mode", std::string("cubic"));
    attr(node, "coordinate_transformation_mode", cs.coord);
    attr(node, "cubic_coeff_a", cs.a);
    attr(node, "exclude_outside", cs.exclude);
    mb.output("y");
    const int64_t oh = int64_t(std::floor(h * double(cs.scales[2])));
    const int64_t ow = int64_t(std::floor(w * double(cs.scales[3])));
    const NDArray y = run(mb, {{"x", x}}).at(0);
    REQUIRE(y.shape() == std::vector<int64_t>{2, 3, oh, ow});
    std::vector<double> want;
    for (int64_t b = 0; b < 6; ++b)
      for (int64_t i = 0; i < oh; ++i)
        for (int64_t j = 0; j < ow; ++j) {
          // pytorch_half_pixel is half_pixel for outputs longer than 1.
          const std::string coord = cs.coord == "pytorch_half_pixel" ? "half_pixel" : cs.coord;
          const Taps ti = resize_taps(i, h, oh, cs.scales[2], coord, cs.a, cs.exclude);
          const Taps tj = resize_taps(j, w, ow, cs.scales[3], coord, cs.a, cs.exclude);
          double v = 0;
          for (int k = 0; k < 4; ++k)
            for (int l = 0; l < 4; ++l)
              v += ti.w[size_t(k)] * tj.w[size_t(l)] * xv[size_t((b * h + ti.at[size_t(k)]) * w + tj.at[size_t(l)])];
          want.push_back(v);
        }
    check_close(y, want, 1e-5, 1e-5);
  }
}

namespace {

// The ONNX reference's GridSample, element by element, in double.
struct GridRef {
  const std::vector<float> &x;
  int64_t h, w;
  std::string mode, padding;
  bool align;

  double lo(int64_t len) const { return align ? 0 : -0.5; }
  double hi(int64_t len) const { return align ? double(len - 1) : double(len) - 0.5; }

  double reflect(double p, double a, double b) const {
    const double range = b - a;
    if (p < a) {
      const double d = a - p;
      const int64_t n = int64_t(d / range);
      const double r = d - double(n) * range;
      return n % 2 == 0 ? a + r : b - r;
    }
    if (p > b) {
      const double d = p - b;
      const int64_t n = int64_t(d / range);
      const double r = d - double(n) * range;
      return n % 2 == 0 ? b - r : a + r;
    }
    return p;
  }

  double pixel(int64_t plane, int64_t r, int64_t c) const {
    if (padding == "zeros") {
      if (r < 0 || r >= h || c < 0 || c >= w) return 0;
    } else if (padding == "border") {
      r = std::clamp<int64_t>(r, 0, h - 1);
      c = std::clamp<int64_t>(c, 0, w - 1);
    } else {
      r = int64_t(reflect(double(r), lo(h), hi(h)));
      c = int64_t(reflect(double(c), lo(w), hi(w)));
    }
    return x[size_t((plane * h + r) * w + c)];
  }

  double at(int64_t plane, double gx, double gy) const {
    double px = align ? (gx + 1) / 2 * double(w - 1) : ((gx + 1) * double(w) - 1) / 2;
    double py = align ? (gy + 1) / 2 * double(h - 1) : ((gy + 1) * double(h) - 1) / 2;
    if (mode == "nearest") {
      px = std::nearbyint(px);
      py = std::nearbyint(py);
    }
    // Axis by axis: a coordinate inside the image stays where it is, even when the other is
    // outside (and bicubic's taps then differ from those of the clamped coordinate).
    if (px < lo(w) || px > hi(w)) {
      if (padding == "border") px = std::clamp(px, 0.0, double(w - 1));
      if (padding == "reflection") px = reflect(px, lo(w), hi(w));
    }
    if (py < lo(h) || py > hi(h)) {
      if (padding == "border") py = std::clamp(py, 0.0, double(h - 1));
      if (padding == "reflection") py = reflect(py, lo(h), hi(h));
    }
    if (mode == "nearest") return pixel(plane, int64_t(py), int64_t(px));
    const double fx = std::floor(px), fy = std::floor(py);
    const int64_t x0 = int64_t(fx), y0 = int64_t(fy);
    if (mode == "bilinear") {
      const double tx = px - fx, ty = py - fy;
      return (1 - ty) * ((1 - tx) * pixel(plane, y0, x0) + tx * pixel(plane, y0, x0 + 1)) +
             ty * ((1 - tx) * pixel(plane, y0 + 1, x0) + tx * pixel(plane, y0 + 1, x0 + 1));
    }
    const std::vector<double> wx = cubic(px - fx, -0.75), wy = cubic(py - fy, -0.75);
    double v = 0;
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 4; ++j) v += wy[size_t(i)] * wx[size_t(j)] * pixel(plane, y0 - 1 + i, x0 - 1 + j);
    return v;
  }
};

}  // namespace

TEST_CASE("converters: Resize and Upsample resample at a scale other than 1 that keeps the size",
          "[onnx][converters][sampling]") {
  const NDArray x = NDArray::from_vector<float>({0, 1, 2, 3}, {1, 1, 1, 4});
  const NDArray scales = NDArray::from_vector<float>({1, 1, 1, 1.2f}, {4});
  // Half-pixel linear: x_orig = (x + 0.5) / 1.2 - 0.5, the first clamped to 0.
  {
    ModelBuilder mb(13);
    mb.input("x", dims({1, 1, 1, 4}));
    mb.initializer("scales", scales);
    attr(mb.node("Resize", {"x", "", "scales"}, {"y"}), "mode", std::string("linear"));
    mb.output("y");
    check_close(run(mb, {{"x", x}}).at(0), {0, 0.75, 2.5 / 1.2 - 0.5, 3.5 / 1.2 - 0.5}, 1e-6, 1e-6);
  }
  // Nearest, asymmetric, rounding down: floor(x / 1.2).
  {
    ModelBuilder mb(13);
    mb.input("x", dims({1, 1, 1, 4}));
    mb.initializer("scales", scales);
    auto &node = mb.node("Resize", {"x", "", "scales"}, {"y"});
    attr(node, "coordinate_transformation_mode", std::string("asymmetric"));
    attr(node, "nearest_mode", std::string("floor"));
    mb.output("y");
    check_close(run(mb, {{"x", x}}).at(0), {0, 0, 1, 2}, 0, 0);
  }
  {
    ModelBuilder mb(9);
    mb.input("x", dims({1, 1, 1, 4}));
    mb.initializer("scales", scales);
    mb.node("Upsample", {"x", "scales"}, {"y"});
    mb.output("y");
    check_close(run(mb, {{"x", x}}).at(0), {0, 0, 1, 2}, 0, 0);
  }
  // A leading dimension longer than 1 at a scale other than 1 is resampled, not ignored:
  // 3 channels x 1.7 are 5, whose half-pixel centres round (half down) to 0 0 1 2 2.
  {
    ModelBuilder mb(13);
    mb.input("x", dims({1, 3, 1, 4}));
    mb.initializer("scales", NDArray::from_vector<float>({1, 1.7f, 1, 1}, {4}));
    mb.node("Resize", {"x", "", "scales"}, {"y"});
    mb.output("y");
    const NDArray c3 = NDArray::random({1, 3, 1, 4}, Float(32), 11);
    const std::vector<float> cv = c3.to_vector<float>();
    std::vector<double> want;
    for (size_t ch : {0, 0, 1, 2, 2})
      for (size_t i = 0; i < 4; ++i) want.push_back(cv[ch * 4 + i]);
    const NDArray y = run(mb, {{"x", c3}}).at(0);
    CHECK(y.shape() == std::vector<int64_t>{1, 5, 1, 4});
    check_close(y, want, 0, 0);
  }
}

TEST_CASE("converters: GridSample in every mode and padding matches plain loops", "[onnx][converters][sampling]") {
  const int64_t n = 2, ch = 3, h = 4, w = 5, oh = 3, ow = 6;
  const NDArray x = NDArray::random({n, ch, h, w}, Float(32), 10, -2, 2);
  // Positions inside and well outside the image.
  const NDArray grid = NDArray::random({n, oh, ow, 2}, Float(32), 11, -1.7, 1.7);
  const std::vector<float> xv = x.to_vector<float>(), gv = grid.to_vector<float>();
  for (const std::string mode : {"nearest", "bilinear", "bicubic"})
    for (const std::string padding : {"zeros", "border", "reflection"})
      for (int64_t align : {0, 1}) {
        INFO(mode << ", " << padding << ", align_corners " << align);
        ModelBuilder mb(16);
        mb.input("x", dims({n, ch, h, w}));
        mb.input("grid", dims({n, oh, ow, 2}));
        auto &node = mb.node("GridSample", {"x", "grid"}, {"y"});
        attr(node, "mode", mode);
        attr(node, "padding_mode", padding);
        attr(node, "align_corners", align);
        mb.output("y");
        const NDArray y = run(mb, {{"x", x}, {"grid", grid}}).at(0);
        REQUIRE(y.shape() == std::vector<int64_t>{n, ch, oh, ow});
        const GridRef ref{xv, h, w, mode, padding, align != 0};
        std::vector<double> want;
        for (int64_t b = 0; b < n; ++b)
          for (int64_t c = 0; c < ch; ++c)
            for (int64_t i = 0; i < oh; ++i)
              for (int64_t j = 0; j < ow; ++j) {
                const size_t g = size_t(((b * oh + i) * ow + j) * 2);
                want.push_back(ref.at(b * ch + c, gv[g], gv[g + 1]));
              }
        check_close(y, want, 1e-5, 1e-5);
      }
}

TEST_CASE("converters: GridSample refuses what it cannot sample", "[onnx][converters][sampling][error]") {
  ModelBuilder mb(16);
  mb.input("x", dims({1, 1, 4, 4}));
  mb.input("grid", dims({1, 2, 2, 2}));
  attr(mb.node("GridSample", {"x", "grid"}, {"y"}, "gs"), "mode", std::string("area"));
  mb.output("y");
  CHECK_THROWS_AS(tonnx::import_bytes(mb.bytes()), tonnx::UnsupportedError);
  CHECK_THROWS_WITH(tonnx::import_bytes(mb.bytes()), Contains("gs") && Contains("mode 'area'"));
}
