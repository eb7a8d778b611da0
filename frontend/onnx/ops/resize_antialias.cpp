// Resize's antialiasing (opset 18): along an axis that shrinks, the linear or cubic filter
// is stretched by 1 / scale, so that every input element contributes (ONNX's reference:
// the taps around the source position, weighted by the stretched filter and normalized
// to sum to 1, the input's edge repeated beyond its ends). The taps and weights depend
// only on the shapes and scales, known at import: tables of them, [out, taps], and the
// graph's take, multiply and reduce_sum, which every target computes.
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

// Output o reads input elements index[o * taps + t] (clamped to the edge) with weights
// weight[o * taps + t]: [out, taps] tables, taps about 2 support / scale + 2.
struct Filter {
  int64_t taps = 0;
  std::vector<int64_t> index;
  std::vector<double> weight;
};

Filter antialias_filter(int64_t in, int64_t out, double scale, const std::string &mode, const std::string &coord,
                        double cubic_a, bool exclude_outside) {
  const double s = std::min(scale, 1.0);
  const double support = mode == "cubic" ? 2 : 1;
  // The reach in elements, ceil(support / s) (ONNX's first tap is floor(-support / s) + 1):
  // the tables hold out x 2 reach entries, about 2 support x in + 2 out.
  const int64_t reach = int64_t(std::ceil(support / s));
  const int64_t start = 1 - reach, taps = 2 * reach, pad = reach;
  Filter f;
  f.taps = taps;
  check_host_size({out, taps}, Float(64), "the antialiasing filter's weights");
  f.index.reserve(size_t(out * taps));
  f.weight.reserve(size_t(out * taps));
  for (int64_t o = 0; o < out; ++o) {
    const double x = ops::defs::resize_source_coord(double(o), coord, scale, in, out, [](double v) { return v; });
    // The taps sit at base + start ... base + start + taps - 1, where x = base + ratio and
    // ratio is in (0, 1]: at a whole x the element before it is the base.
    double base = std::floor(x), ratio = x - base;
    if (ratio == 0) ratio = 1, base -= 1;
    // The taps stay within the edge padding (taps / 2 elements each side), as the nearest
    // elements to x among the padded ones do.
    const int64_t first = std::clamp(int64_t(base) + start, -pad, in + pad - taps);
    const size_t at = f.weight.size();
    double total = 0;
    for (int64_t t = 0; t < taps; ++t) {
      const double d = s * (double(start + t) - ratio);
      f.weight.push_back(mode == "cubic" ? keys_cubic(d, cubic_a) : std::max(0.0, 1 - std::fabs(d)));
      f.index.push_back(first + t);
      total += f.weight.back();
    }
    for (size_t t = at; t < f.weight.size(); ++t) f.weight[t] /= total;
    if (exclude_outside) {
      total = 0;
      for (size_t t = at; t < f.weight.size(); ++t) {
        if (f.index[t] < 0 || f.index[t] >= in) f.weight[t] = 0;
        total += f.weight[t];
      }
      for (size_t t = at; t < f.weight.size(); ++t) f.weight[t] = total != 0 ? f.weight[t] / total : 0;
    }
    for (size_t t = at; t < f.index.size(); ++t) f.index[t] = std::clamp<int64_t>(f.index[t], 0, in - 1);
  }
  return f;
}

}  // namespace

graph::NodeRef antialias_axis(Context &c, graph::NodeRef x, const std::vector<int64_t> &shape, int axis, int64_t out,
                              double scale, const std::string &mode, const std::string &coord, double cubic_a,
                              bool exclude_outside, Type dtype) {
  const int64_t in = shape[size_t(axis)];
  const Filter f = antialias_filter(in, out, scale, mode, coord, cubic_a, exclude_outside);
  // x taken at the taps ([..., out, taps, ...]), weighted, summed over the taps.
  std::vector<int64_t> wshape = {out, f.taps};
  wshape.insert(wshape.end(), shape.size() - size_t(axis) - 1, 1);
  check_graph_size([&] {
    std::vector<int64_t> g = shape;
    g[size_t(axis)] = out;
    g.insert(g.begin() + axis + 1, f.taps);
    return g;
  }(), dtype, "the antialiasing filter's taps");
  graph::NodeRef taken =
      c.make("take", {x, c.constant(from_int64s(f.index, {out, f.taps}), "antialias_taps")}, {{"axis", int64_t(axis)}});
  graph::NodeRef weighted = c.make("multiply", {taken, c.constant(from_doubles(f.weight, wshape, dtype), "antialias_weights")});
  return c.make("reduce_sum", {weighted}, {{"axes", std::vector<int64_t>{axis + 1}}, {"keepdims", int64_t{0}}});
}

}  // namespace tensorir::onnx::detail
