// grid_sample: the image x [N, C, H, W] read at the positions of grid [N, Ho, Wo, 2]
// (x, y in [-1, 1] spanning the image), by nearest, bilinear or bicubic interpolation,
// with zeros, the border's values or a reflection outside the image (ONNX's GridSample).
#include "../op_util.h"
#include "def_util.h"

namespace tensorir::ops::defs {

namespace {

// Coordinates are computed in float32, which every target has (WebGL has no float64).
Expr f32(double v) { return make_const(Float(32), v); }

// Whether the float n is an even integer.
Expr is_even(Expr n) { return n - f32(2) * floor(n / f32(2)) == f32(0); }

// p reflected into [lo, hi] as many times as it takes.
Expr reflect(Expr p, double lo, double hi) {
  const double range = hi - lo;
  auto fold = [&](Expr d, double from, double to) {  // d >= 0 past `from`, towards `to`
    Expr n = floor(d / f32(range)), r = d - n * f32(range);
    return select(is_even(n), f32(from) + (to > from ? r : -r), f32(to) + (to > from ? -r : r));
  };
  return select(p < f32(lo), fold(f32(lo) - p, lo, hi), select(p > f32(hi), fold(p - f32(hi), hi, lo), p));
}

struct Axis {
  int64_t len;
  double lo, hi;  // the image's extent in pixel coordinates
};

Tensor grid_sample(const Node &n, const Tensor &x, const Tensor &grid, const std::string &name) {
  const std::vector<int64_t> xs = detail::const_shape(x, "grid_sample"), gs = detail::const_shape(grid, "grid_sample");
  const std::string mode = n.attr_string("mode"), padding = n.attr_string("padding_mode");
  const bool align = n.attr_int("align_corners") != 0;
  const Axis axes[2] = {{xs[2], align ? 0.0 : -0.5, align ? double(xs[2] - 1) : double(xs[2]) - 0.5},
                        {xs[3], align ? 0.0 : -0.5, align ? double(xs[3] - 1) : double(xs[3]) - 0.5}};
  return compute(
      detail::to_exprs({xs[0], xs[1], gs[1], gs[2]}),
      [&](const std::vector<Var> &v) {
        // Pixel coordinates (y, x) of this output element.
        Expr pos[2];
        for (int a = 0; a < 2; ++a) {
          Expr g = cast(Float(32), grid({v[0], v[2], v[3], Expr(1 - a)}));
          const double len = double(axes[a].len);
          pos[a] = align ? (g + f32(1)) / f32(2) * f32(len - 1) : ((g + f32(1)) * f32(len) - f32(1)) / f32(2);
          if (mode == "nearest") pos[a] = round_even(pos[a]);
        }
        // A coordinate outside the image is clamped to the pixels' centres (border) or
        // reflected into it (reflection), axis by axis as ONNX's reference does: one
        // inside (in the half-pixel margin, say) stays where it is, as bicubic's taps see.
        for (int a = 0; a < 2; ++a) {
          const Expr outside = pos[a] < f32(axes[a].lo) || pos[a] > f32(axes[a].hi);
          if (padding == "border")
            pos[a] = select(outside, min(max(pos[a], f32(0)), f32(double(axes[a].len - 1))), pos[a]);
          if (padding == "reflection") pos[a] = reflect(pos[a], axes[a].lo, axes[a].hi);
        }
        // The pixel at integer coordinates (as floats) under the padding mode.
        auto pixel = [&](Expr py, Expr px) {
          Expr p[2] = {py, px}, inside = make_const(Bool(), 1);
          Expr idx[2];
          for (int a = 0; a < 2; ++a) {
            const double len = double(axes[a].len);
            if (padding == "zeros") inside = inside && p[a] >= f32(0) && p[a] <= f32(len - 1);
            if (padding == "reflection") p[a] = reflect(p[a], axes[a].lo, axes[a].hi);
            idx[a] = detail::clamp_index(cast(Int(32), p[a]), axes[a].len);
          }
          Expr value = x({v[0], v[1], idx[0], idx[1]});
          return padding == "zeros" ? select(inside, value, make_const(x.dtype(), 0)) : value;
        };
        if (mode == "nearest") return pixel(pos[0], pos[1]);
        Expr f[2] = {floor(pos[0]), floor(pos[1])}, t[2] = {pos[0] - f[0], pos[1] - f[1]};
        if (mode == "bilinear") {
          Expr acc;
          for (int i = 0; i < 2; ++i)
            for (int j = 0; j < 2; ++j) {
              Expr w = (i ? t[0] : f32(1) - t[0]) * (j ? t[1] : f32(1) - t[1]);
              Expr term = cast(x.dtype(), w) * pixel(f[0] + f32(i), f[1] + f32(j));
              acc = acc.defined() ? acc + term : term;
            }
          return acc;
        }
        Expr w[2][4];
        for (int a = 0; a < 2; ++a) cubic_weights(t[a], -0.75, w[a]);
        Expr acc;
        for (int i = 0; i < 4; ++i)
          for (int j = 0; j < 4; ++j) {
            Expr term = cast(x.dtype(), w[0][i] * w[1][j]) * pixel(f[0] + f32(i - 1), f[1] + f32(j - 1));
            acc = acc.defined() ? acc + term : term;
          }
        return acc;
      },
      name, detail::kInjective);
}

const bool registered = [] {
  OpDef def;
  def.name = "grid_sample";
  def.doc = "x [N, C, H, W] sampled at grid [N, Ho, Wo, 2] (x, y in [-1, 1]): mode nearest (halves to even), "
            "bilinear or bicubic; padding_mode zeros, border or reflection; align_corners: -1 and 1 are the "
            "centres of the corner pixels rather than their outer edges (ONNX's GridSample)";
  def.inputs = {"x", "grid"};
  def.attrs = {{"mode", AttrType::String, std::string("bilinear")},
               {"padding_mode", AttrType::String, std::string("zeros")},
               {"align_corners", AttrType::Int, int64_t{0}}};
  def.pattern = graph::OpPattern::kInjective;
  def.check = [](const Node &n, const std::vector<const Node *> &in) {
    const std::vector<int64_t> &xs = in[0]->shape, &gs = in[1]->shape;
    TIR_USER_CHECK(in[0]->dtype.is_float() && xs.size() == 4)
        << "input '" << in[0]->name << "' must be a float tensor [N, C, H, W]";
    TIR_USER_CHECK(in[1]->dtype == in[0]->dtype && gs.size() == 4 && gs[0] == xs[0] && gs[3] == 2)
        << "grid '" << in[1]->name << "' must be [N, Ho, Wo, 2] of the input's type";
    const std::string &m = n.attr_string("mode"), &p = n.attr_string("padding_mode");
    TIR_USER_CHECK(m == "nearest" || m == "bilinear" || m == "bicubic")
        << "mode '" << m << "' is not nearest, bilinear or bicubic";
    TIR_USER_CHECK(p == "zeros" || p == "border" || p == "reflection")
        << "padding_mode '" << p << "' is not zeros, border or reflection";
  };
  def.compute = [](const Node &n, const std::vector<Tensor> &in, const std::string &name) {
    return grid_sample(n, in[0], in[1], name);
  };
  on_cpu(def, blocked_cpu_strategy());
  graph::register_op(std::move(def));
  return true;
}();

}  // namespace

}  // namespace tensorir::ops::defs
