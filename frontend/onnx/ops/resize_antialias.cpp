// Resize's antialiasing (opset 18): along an axis that shrinks, the linear or cubic filter
// is stretched by 1 / scale, so that every input element contributes (ONNX's reference:
// the taps around the source position, weighted by the stretched filter and normalized
// to sum to 1, the input's edge repeated beyond its ends). The weights depend only on the
// shapes and scales, known at import: the axis is resampled as a product with them, an
// [in, out] matrix, which every target computes.
#include <algorithm>
#include <cmath>

#include "frontend/onnx/ops/ops_util.h"
#include "ops/defs/resize_coord.h"

namespace tensorir::onnx::detail {

namespace {

// Keys' cubic convolution kernel with coefficient a, at distance d.
double keys_cubic(double d, double a) {
  d = std::fabs(d);
  if (d <= 1) return ((a + 2) * d - (a + 3)) * d * d + 1;
  if (d < 2) return ((a * d - 5 * a) * d + 8 * a) * d - 4 * a;
  return 0;
}

// The weights as a matrix [in, out]: column o holds what each input element adds to output o.
std::vector<double> antialias_weights(int64_t in, int64_t out, double scale, const std::string &mode,
                                      const std::string &coord, double cubic_a, bool exclude_outside) {
  const double s = std::min(scale, 1.0);
  const double support = mode == "cubic" ? 2 : 1;
  const int64_t start = int64_t(std::floor(-support / s)) + 1, taps = 2 - 2 * start, pad = 1 - start;
  check_host_size({in, out}, Float(64), "the antialiasing filter's weights");
  std::vector<double> m(static_cast<size_t>(in * out), 0.0), w(static_cast<size_t>(taps));
  for (int64_t o = 0; o < out; ++o) {
    const double x = ops::defs::resize_source_coord(double(o), coord, scale, in, out, [](double v) { return v; });
    // The taps sit at base + start ... base + start + taps - 1, where x = base + ratio and
    // ratio is in (0, 1]: at a whole x the element before it is the base.
    double base = std::floor(x), ratio = x - base;
    if (ratio == 0) ratio = 1, base -= 1;
    // The taps stay within the edge padding (taps / 2 elements each side), as the nearest
    // elements to x among the padded ones do.
    const int64_t first = std::clamp(int64_t(base) + start, -pad, in + pad - taps);
    double total = 0;
    for (int64_t t = 0; t < taps; ++t) {
      const double d = s * (double(start + t) - ratio);
      w[size_t(t)] = mode == "cubic" ? keys_cubic(d, cubic_a) : std::max(0.0, 1 - std::fabs(d));
      total += w[size_t(t)];
    }
    for (double &v : w) v /= total;
    if (exclude_outside) {
      total = 0;
      for (int64_t t = 0; t < taps; ++t) {
        const int64_t i = first + t;
        if (i < 0 || i >= in) w[size_t(t)] = 0;
        total += w[size_t(t)];
      }
      for (double &v : w) v = total != 0 ? v / total : 0;
    }
    for (int64_t t = 0; t < taps; ++t) m[size_t(std::clamp<int64_t>(first + t, 0, in - 1) * out + o)] += w[size_t(t)];
  }
  return m;
}

}  // namespace

graph::NodeRef antialias_axis(Context &c, graph::NodeRef x, const std::vector<int64_t> &shape, int axis, int64_t out,
                              double scale, const std::string &mode, const std::string &coord, double cubic_a,
                              bool exclude_outside, Type dtype) {
  const int r = int(shape.size());
  const int64_t in = shape[size_t(axis)];
  const NDArray weights =
      from_doubles(antialias_weights(in, out, scale, mode, coord, cubic_a, exclude_outside), {in, out}, dtype);
  std::vector<int64_t> perm, moved;
  for (int i = 0; i < r; ++i)
    if (i != axis) perm.push_back(i);
  perm.push_back(axis);
  for (int64_t p : perm) moved.push_back(shape[size_t(p)]);
  const bool last = axis == r - 1;
  if (!last) x = c.make("transpose", {x}, {{"axes", perm}});
  x = numpy_matmul(c, x, moved, c.constant(weights, "antialias_weights"), {in, out});
  return last ? x : c.make("transpose", {x}, {{"axes", inverse_permutation(perm)}});
}

}  // namespace tensorir::onnx::detail
