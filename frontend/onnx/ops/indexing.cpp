// Indexed reads and writes, running sums and rearrangements: GatherElements, GatherND,
// Scatter, ScatterElements, ScatterND, Resize (nearest, linear, cubic; antialias in
// resize_antialias.cpp), Upsample
// (nearest, linear), GridSample, TopK (known k), ReverseSequence, Trilu, CumSum,
// Hardmax, Round, Sign, Mod, Range (known inputs, folded at import), DepthToSpace and
// SpaceToDepth (a reshape, a transpose and a reshape), ThresholdedRelu, EyeLike (known
// at import) and OneHot (a comparison with the positions along the new axis).
#include <cmath>
#include <sstream>

#include "frontend/onnx/ops/ops_util.h"

namespace tensorir::onnx::detail {

namespace {

using Shape = std::vector<int64_t>;

void need_numeric(const Context &c, size_t i) {
  if (c.dtype(i).is_bool()) unsupported("input '" + c.input_name(i) + "' is bool");
}

void gather_elements(Context &c) {
  const int axis = normalize_axis(c.attrs().i("axis", 0), c.rank(0));
  TIR_USER_CHECK(c.rank(1) == c.rank(0)) << "indices '" << c.input_name(1) << "' and data '" << c.input_name(0)
                                         << "' differ in rank";
  if (c.rank(0) == 0) unsupported("a scalar input");
  c.output(0, "gather_elements", {c.node(0), c.node(1)}, {{"axis", int64_t(axis)}});
}

void gather_nd(Context &c) {
  const int64_t b = c.attrs().i("batch_dims", 0);
  if (c.rank(1) == 0) unsupported("scalar indices");
  const int64_t k = c.shape(1).back();
  TIR_USER_CHECK(b >= 0 && k >= 1 && b + k <= c.rank(0)) << "indices " << shape_str(c.shape(1))
                                                          << " do not fit data " << shape_str(c.shape(0));
  if (c.rank(1) - 1 + c.rank(0) - b - k == 0) unsupported("a scalar result");
  c.output(0, "gather_nd", {c.node(0), c.node(1)}, {{"batch_dims", b}});
}

// The reductions of a scatter at `opset`: add and mul from 16, max and min from 18.
std::string scatter_reduction(const Attributes &a, int opset) {
  const std::string r = a.s("reduction", "none");
  if (r != "none" && r != "add" && r != "mul" && r != "max" && r != "min")
    return "reduction '" + r + "' is not supported";
  const int since = r == "none" ? 0 : r == "add" || r == "mul" ? 16 : 18;
  return opset >= since ? "" : "reduction '" + r + "' needs opset " + std::to_string(since);
}

void scatter_elements(Context &c) {
  const int axis = normalize_axis(c.attrs().i("axis", 0), c.rank(0));
  if (element_count(c.shape(1)) == 0) return c.forward(0, 0);
  c.output(0, "scatter_elements", {c.node(0), c.node(1), c.node(2)},
           {{"axis", int64_t(axis)}, {"reduction", c.attrs().s("reduction", "none")}});
}

void scatter_nd(Context &c) {
  if (c.rank(1) == 0) unsupported("scalar indices");
  if (element_count(c.shape(1)) == 0) return c.forward(0, 0);
  c.output(0, "scatter_nd", {c.node(0), c.node(1), c.node(2)}, {{"reduction", c.attrs().s("reduction", "none")}});
}

// The optional k is an input: known at import, the graph's trilu; computed, a where of x
// and 0 by a comparison of k with the constant j - i of the last two dimensions.
void trilu(Context &c) {
  TIR_USER_CHECK(c.rank(0) >= 2) << "input '" << c.input_name(0) << "' has rank " << c.rank(0) << "; Trilu needs 2";
  const bool upper = c.attrs().i("upper", 1) != 0;
  if (c.num_inputs() > 1 && c.has_input(1))
    TIR_USER_CHECK(c.dtype(1) == Int(64) && element_count(c.shape(1)) == 1) << "k must be one int64";
  if (element_count(c.shape(0)) == 0)
    return empty_output(c, 0, c.shape(0), c.dtype(0));
  if (c.num_inputs() > 1 && c.has_input(1) && !c.known(1)) {
    const int64_t rows = c.shape(0)[size_t(c.rank(0) - 2)], cols = c.shape(0)[size_t(c.rank(0) - 1)];
    check_host_size({rows, cols}, Int(64), "the constant of diagonal offsets");
    Shape diff(static_cast<size_t>(rows * cols));
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j) diff[size_t(i * cols + j)] = j - i;
    graph::NodeRef k = c.make("reshape", {c.node(1)}, {{"shape", Shape{1}}});
    graph::NodeRef d = c.constant(from_int64s(diff, {rows, cols}), "diagonal");
    graph::NodeRef keep = c.make(upper ? "greater_equal" : "less_equal", {d, k});
    return void(c.output(0, "where", {keep, c.node(0), c.constant(scalar(0, c.dtype(0)), "zero")}));
  }
  int64_t k = 0;
  if (c.num_inputs() > 1 && c.has_input(1)) {
    const Shape v = c.ints(1, "k");
    TIR_USER_CHECK(v.size() == 1) << "k has " << v.size() << " values";
    k = v[0];
  }
  c.output(0, "trilu", {c.node(0)}, {{"upper", int64_t(upper)}, {"k", k}});
}

// The axis is an input, known at import (or implied by a 1-D input).
void cumsum(Context &c) {
  need_numeric(c, 0);
  if (c.rank(0) == 0) unsupported("a scalar input");
  // A computed axis of a 1-D input can only be 0 (or -1).
  const Shape a = c.rank(0) == 1 && !c.known(1) ? Shape{0} : c.ints(1, "axis");
  TIR_USER_CHECK(a.size() == 1) << "axis has " << a.size() << " values";
  const int axis = normalize_axis(a[0], c.rank(0));
  c.output(0, "cumsum", {c.node(0)},
           {{"axis", int64_t(axis)},
            {"exclusive", int64_t(c.attrs().i("exclusive", 0) != 0)},
            {"reverse", int64_t(c.attrs().i("reverse", 0) != 0)}});
}

// Up to opset 12 the input is taken as 2-D, [the dimensions before axis, the rest]; from
// 13 the axis alone.
void hardmax(Context &c, bool coerce) {
  need_numeric(c, 0);
  const Shape &in = c.shape(0);
  const int r = c.rank(0);
  if (r == 0) unsupported("a scalar input");
  const int axis = normalize_axis(c.attrs().i("axis", coerce ? 1 : -1), r);
  if (!coerce || axis == r - 1) {  // the 2-D view reduces the last axis too
    c.output(0, "hardmax", {c.node(0)}, {{"axis", int64_t(axis)}});
    return;
  }
  int64_t outer = 1, inner = 1;
  for (int i = 0; i < r; ++i) (i < axis ? outer : inner) *= in[size_t(i)];
  graph::NodeRef x = c.make("reshape", {c.node(0)}, {{"shape", Shape{outer, inner}}});
  graph::NodeRef h = c.make("hardmax", {x}, {{"axis", int64_t{1}}});
  c.output(0, "reshape", {h}, {{"shape", in}});
}

void unary(Context &c, const std::string &op, bool float_only) {
  if (float_only) need_float(c, 0);
  need_numeric(c, 0);
  c.output(0, op, {c.node(0)});
}

void mod(Context &c) {
  TIR_USER_CHECK(c.dtype(0) == c.dtype(1)) << "inputs '" << c.input_name(0) << "' (" << c.dtype(0) << ") and '"
                                           << c.input_name(1) << "' (" << c.dtype(1) << ") differ in type";
  need_numeric(c, 0);
  const bool fmod = c.attrs().i("fmod", 0) != 0;
  TIR_USER_CHECK(fmod || !c.dtype(0).is_float()) << "fmod = 0 on float inputs (" << c.dtype(0) << ")";
  c.output(0, "mod", {c.node(0), c.node(1)}, {{"fmod", int64_t(fmod)}});
}

// start, start + delta, ... below limit (above it for a negative delta): known inputs only.
void range(Context &c) {
  const Type t = c.dtype(0);
  for (size_t i = 0; i < 3; ++i) {
    TIR_USER_CHECK(c.dtype(i) == t) << "inputs of Range differ in type";
    const NDArray &v = c.value(i, i == 0 ? "start" : i == 1 ? "limit" : "delta");
    TIR_USER_CHECK(v.numel() == 1) << "input '" << c.input_name(i) << "' is not a scalar";
  }
  if (t.is_int()) {
    const int64_t start = to_int64s(c.input(0).known)[0], limit = to_int64s(c.input(1).known)[0],
                  delta = to_int64s(c.input(2).known)[0];
    TIR_USER_CHECK(delta != 0) << "a delta of 0";
    const double span = (double(limit) - double(start)) / double(delta);
    // Compared as a double first: beyond int64 the conversion is undefined.
    const int64_t n = span <= 0 ? 0 : span >= 0x1p62 ? int64_t{1} << 62 : int64_t(std::ceil(span));
    check_host_size({n}, t, "the result (" + std::to_string(start) + " to " + std::to_string(limit) + " by " +
                                std::to_string(delta) + ")");
    Shape out(static_cast<size_t>(n));
    // Unsigned: the rounding of `span` may let the last value step past int64 (then it wraps).
    for (int64_t i = 0; i < n; ++i) out[size_t(i)] = int64_t(uint64_t(start) + uint64_t(i) * uint64_t(delta));
    return c.set_output(0, from_int64s(out, {n}, t));
  }
  const double start = to_doubles(c.input(0).known)[0], limit = to_doubles(c.input(1).known)[0],
               delta = to_doubles(c.input(2).known)[0];
  TIR_USER_CHECK(delta != 0 && std::isfinite(start) && std::isfinite(limit) && std::isfinite(delta))
      << "Range from " << start << " to " << limit << " by " << delta << ": the inputs must be finite, delta not 0";
  const double span = std::ceil((limit - start) / delta);
  const int64_t n = !(span > 0) ? 0 : span >= 0x1p62 ? int64_t{1} << 62 : int64_t(span);
  std::ostringstream what;
  what << "the result (" << start << " to " << limit << " by " << delta << ")";
  check_host_size({n}, t, what.str());
  std::vector<double> out(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) out[size_t(i)] = start + double(i) * delta;
  c.set_output(0, from_doubles(out, {n}, t));
}

int64_t blocksize(const Context &c) {
  const int64_t b = c.attrs().i("blocksize", 0);
  TIR_USER_CHECK(b >= 1) << "blocksize " << b;
  if (c.rank(0) != 4) unsupported("input of rank " + std::to_string(c.rank(0)) + " (4 only)");
  return b;
}

// [N, C, H, W] -> [N, C / b^2, H * b, W * b]: DCR takes the blocks from the outer
// channels, CRD from the inner.
void depth_to_space(Context &c, bool crd) {
  const int64_t b = blocksize(c);
  const Shape &s = c.shape(0);
  const int64_t n = s[0], ch = s[1], h = s[2], w = s[3];
  TIR_USER_CHECK(ch % (b * b) == 0) << "channels " << ch << " do not divide by blocksize^2 " << b * b;
  const int64_t oc = ch / (b * b);
  const Shape split = crd ? Shape{n, oc, b, b, h, w} : Shape{n, b, b, oc, h, w};
  const Shape perm = crd ? Shape{0, 1, 4, 2, 5, 3} : Shape{0, 3, 4, 1, 5, 2};
  graph::NodeRef x = c.make("reshape", {c.node(0)}, {{"shape", split}});
  x = c.make("transpose", {x}, {{"axes", perm}});
  c.output(0, "reshape", {x}, {{"shape", Shape{n, oc, h * b, w * b}}});
}

// [N, C, H, W] -> [N, C * b^2, H / b, W / b].
void space_to_depth(Context &c) {
  const int64_t b = blocksize(c);
  const Shape &s = c.shape(0);
  const int64_t n = s[0], ch = s[1], h = s[2], w = s[3];
  TIR_USER_CHECK(h % b == 0 && w % b == 0) << "H " << h << " and W " << w << " do not divide by blocksize " << b;
  graph::NodeRef x = c.make("reshape", {c.node(0)}, {{"shape", Shape{n, ch, h / b, b, w / b, b}}});
  x = c.make("transpose", {x}, {{"axes", Shape{0, 3, 5, 1, 2, 4}}});
  c.output(0, "reshape", {x}, {{"shape", Shape{n, ch * b * b, h / b, w / b}}});
}

// x where x > alpha, else 0.
void thresholded_relu(Context &c) {
  need_float(c, 0);
  graph::NodeRef x = c.node(0);
  graph::NodeRef above = c.make("greater", {x, c.constant(scalar(c.attrs().f("alpha", 1.0f), c.dtype(0)), "alpha")});
  c.output(0, "where", {above, x, c.constant(scalar(0, c.dtype(0)), "zero")});
}

// Ones on diagonal k of a 2-D shape: known at import (only the input's shape is read).
void eye_like(Context &c) {
  TIR_USER_CHECK(c.rank(0) == 2) << "input '" << c.input_name(0) << "' has rank " << c.rank(0) << "; EyeLike needs 2";
  const Type t = c.attrs().has("dtype") ? onnx_dtype(c.attrs().i("dtype", 0), "dtype") : c.dtype(0);
  const int64_t k = c.attrs().i("k", 0), rows = c.shape(0)[0], cols = c.shape(0)[1];
  check_host_size(c.shape(0), t);
  std::vector<double> v(static_cast<size_t>(rows * cols), 0.0);
  for (int64_t i = 0; i < rows; ++i)
    if (k >= -i && k < cols - i) v[size_t(i * cols + i + k)] = 1;
  c.set_output(0, from_doubles(v, c.shape(0), t));
}

// on_value where an index (negative ones count from the end) equals the position along
// the new axis, else off_value: depth and values known at import.
void one_hot(Context &c) {
  const NDArray &d = c.value(1, "depth");  // of any numeric type
  TIR_USER_CHECK(d.numel() == 1) << "depth has " << d.numel() << " values";
  const double depth_value = to_doubles(d)[0];
  TIR_USER_CHECK(depth_value >= 1) << "depth " << depth_value << " must be positive";
  // Clamped before the conversion, which beyond int64 is undefined; the size checks below refuse it.
  const int64_t depth = int64_t(std::min(depth_value, 0x1p62));
  const NDArray &values = c.value(2, "values");
  TIR_USER_CHECK(values.numel() == 2) << "values has " << values.numel() << " elements; OneHot needs 2";
  const std::vector<double> vs = to_doubles(values);
  const Type vt = c.dtype(2);
  if (vt.is_bool()) unsupported("bool values");
  const int r = c.rank(0) + 1;
  const int axis = normalize_axis(c.attrs().i("axis", -1), r);
  Shape out = c.shape(0);
  out.insert(out.begin() + axis, depth);
  if (element_count(c.shape(0)) == 0) return empty_output(c, 0, out, vt);
  check_graph_size(out, vt);
  check_host_size({depth}, Int(64), "the constant of positions 0 to depth - 1");
  graph::NodeRef idx = c.node(0);
  if (c.dtype(0) != Int(64)) idx = c.make("cast", {idx}, {{"dtype", Int(64).str()}});
  graph::NodeRef zero = c.constant(scalar(0, Int(64)), "zero");
  graph::NodeRef wrapped = c.make("add", {idx, c.constant(scalar(double(depth), Int(64)), "depth")});
  idx = c.make("where", {c.make("less", {idx, zero}), wrapped, idx});
  Shape expanded = c.shape(0), positions(size_t(r), 1);
  expanded.insert(expanded.begin() + axis, 1);
  positions[size_t(axis)] = depth;
  idx = c.make("reshape", {idx}, {{"shape", expanded}});
  NDArray iota = NDArray::empty(positions, Int(64));
  for (int64_t i = 0; i < depth; ++i) static_cast<int64_t *>(iota.data())[i] = i;
  graph::NodeRef hit = c.make("equal", {idx, c.constant(iota, "positions")});
  c.output(0, "where", {hit, c.constant(scalar(vs[1], vt), "on"), c.constant(scalar(vs[0], vt), "off")});
}

// Resize and Upsample of any dimensions: the scales or sizes known at import. The last
// two are the graph's resize2d; interpolation being separable (ONNX's reference resizes
// axis by axis), each other dimension that changes goes through resize2d on its own,
// moved last beside a unit axis (resized from 1 to 1, which every mode leaves as it is).
// With `antialias` (opset 18), linear and cubic resampling stretch the filter along each
// axis that shrinks (antialias_axis); the other axes interpolate as without it.
void resize(Context &c, const std::vector<double> &scales_in, const Shape &sizes_in, const std::string &mode,
            const std::string &coord, const std::string &nearest, double cubic_a = -0.75,
            bool exclude_outside = false, bool antialias = false) {
  need_float(c, 0);
  const Shape &in = c.shape(0);
  const size_t r = in.size();
  if (r < 2) unsupported("input of rank " + std::to_string(r));
  if (element_count(in) == 0) unsupported("an empty input");
  std::vector<double> scales(r, 1.0);
  Shape out = in;
  if (!sizes_in.empty()) {
    TIR_USER_CHECK(sizes_in.size() == r) << "sizes has " << sizes_in.size() << " values for rank " << r;
    out = sizes_in;
    // Sizes and scales both (a kept aspect ratio): the samples move by the one scale.
    for (size_t i = 0; i < r; ++i) scales[i] = scales_in.empty() ? double(out[i]) / double(in[i]) : scales_in[i];
  } else {
    TIR_USER_CHECK(scales_in.size() == r) << "scales has " << scales_in.size() << " values for rank " << r;
    scales = scales_in;
    for (size_t i = 0; i < r; ++i) {
      TIR_USER_CHECK(scales[i] > 0 && std::isfinite(scales[i])) << "scale " << scales[i];
      // Clamped before the conversion, which beyond int64 is undefined; the size check refuses it.
      out[i] = int64_t(std::min(std::floor(double(in[i]) * scales[i]), 0x1p62));
    }
  }
  for (int64_t d : out)
    if (d < 1) unsupported("an empty result " + shape_str(out));
  check_graph_size(out, c.dtype(0));
  const std::string m = mode == "bilinear" ? "linear" : mode;
  if (m != "nearest" && m != "linear" && m != "cubic") unsupported("mode '" + mode + "'");
  auto attrs = [&](int64_t h, int64_t w, double sh, double sw) -> std::map<std::string, graph::AttrValue> {
    return {{"size", Shape{h, w}},
            {"scale_h", sh},
            {"scale_w", sw},
            {"mode", m},
            {"coordinate_transformation_mode", coord},
            {"nearest_mode", nearest},
            {"cubic_coeff_a", cubic_a},
            {"exclude_outside", int64_t{exclude_outside}}};
  };
  graph::NodeRef x = c.node(0);
  Shape now = in;
  TIR_USER_CHECK(!antialias || coord != "tf_half_pixel_for_nn")
      << "coordinate_transformation_mode tf_half_pixel_for_nn is not a mode of Resize 18 and later";
  for (size_t a = 0; antialias && m != "nearest" && a < r; ++a) {
    if (scales[a] >= 1.0) continue;
    x = antialias_axis(c, x, now, int(a), out[a], scales[a], m, coord, cubic_a, exclude_outside, c.dtype(0));
    now[a] = out[a];
    scales[a] = 1.0;  // done: what follows leaves it as it is
  }
  // A leading dimension is resampled when its size changes, or its scale is not 1 (one
  // element long, it stays as it is).
  for (size_t a = 0; a + 2 < r; ++a) {
    if (out[a] == now[a] && (scales[a] == 1.0 || in[a] == 1)) continue;
    Shape perm, moved;
    for (size_t i = 0; i < r; ++i)
      if (i != a) perm.push_back(int64_t(i));
    perm.push_back(int64_t(a));
    for (int64_t p : perm) moved.push_back(now[size_t(p)]);
    moved.push_back(1);
    x = c.make("reshape", {c.make("transpose", {x}, {{"axes", perm}})}, {{"shape", moved}});
    x = c.make("resize2d", {x}, attrs(out[a], 1, scales[a], 1.0));
    moved.pop_back();
    moved.back() = out[a];
    x = c.make("transpose", {c.make("reshape", {x}, {{"shape", moved}})}, {{"axes", inverse_permutation(perm)}});
    now[a] = out[a];
  }
  // At scale 1 every transform but tf_half_pixel_for_nn's (x + 0.5) is the identity. A size
  // that does not change at another scale (4 x 1.2 is 4) still moves the samples.
  if (scales[r - 2] == 1.0 && scales[r - 1] == 1.0 && coord != "tf_half_pixel_for_nn") {
    if (now == in) return c.forward(0, 0);
    return c.set_output(0, x);
  }
  c.output(0, "resize2d", {x}, attrs(out[r - 2], out[r - 1], scales[r - 2], scales[r - 1]));
}

std::vector<double> known_floats(Context &c, size_t i, const std::string &what) {
  return to_doubles(c.value(i, what));
}

// Opset 18's axes: scales or sizes of the axes listed, made whole (the others keep their
// size); then keep_aspect_ratio_policy's one scale for every listed axis, the smallest
// (not_larger) or the largest (not_smaller) of sizes / input, the sizes rounded half up.
void apply_axes_and_policy(Context &c, std::vector<double> &scales, Shape &sizes) {
  const Attributes &a = c.attrs();
  const Shape &in = c.shape(0);
  const int r = c.rank(0);
  Shape axes;
  for (int i = 0; i < r; ++i) axes.push_back(i);
  if (a.has("axes")) {
    axes = a.ints("axes");
    std::vector<bool> seen(size_t(r), false);
    for (int64_t &d : axes) {
      d = normalize_axis(d, r, "axes");
      TIR_USER_CHECK(!seen[size_t(d)]) << "axes lists axis " << d << " twice";
      seen[size_t(d)] = true;
    }
    const size_t given = sizes.empty() ? scales.size() : sizes.size();
    TIR_USER_CHECK(given == axes.size()) << (sizes.empty() ? "scales" : "sizes") << " has " << given
                                         << " values for the " << axes.size() << " axes";
    std::vector<double> all_scales(size_t(r), 1.0);
    Shape all_sizes = in;
    for (size_t i = 0; i < axes.size(); ++i) {
      if (sizes.empty()) all_scales[size_t(axes[i])] = scales[i];
      else all_sizes[size_t(axes[i])] = sizes[i];
    }
    if (sizes.empty()) scales = all_scales;
    else sizes = all_sizes;
  }
  const std::string policy = a.s("keep_aspect_ratio_policy", "stretch");
  if (sizes.empty() || policy == "stretch") return;
  TIR_USER_CHECK(sizes.size() == size_t(r)) << "sizes has " << sizes.size() << " values for rank " << r;
  double scale = policy == "not_larger" ? INFINITY : 0;
  for (int64_t d : axes) {
    const double s = double(sizes[size_t(d)]) / double(in[size_t(d)]);
    scale = policy == "not_larger" ? std::min(scale, s) : std::max(scale, s);
  }
  scales.assign(size_t(r), 1.0);
  for (int64_t d : axes) {
    scales[size_t(d)] = scale;
    sizes[size_t(d)] = int64_t(scale * double(in[size_t(d)]) + 0.5);
  }
}

// Opset 11 on: X, roi, scales, sizes; one of scales and sizes not empty.
void resize11(Context &c) {
  const Attributes &a = c.attrs();
  const std::string coord = a.s("coordinate_transformation_mode", "half_pixel");
  if (coord == "tf_crop_and_resize") unsupported("coordinate_transformation_mode tf_crop_and_resize");
  Shape sizes;
  std::vector<double> scales;
  if (c.num_inputs() > 3 && c.has_input(3)) sizes = c.ints(3, "sizes");
  if (sizes.empty() && c.num_inputs() > 2 && c.has_input(2)) scales = known_floats(c, 2, "scales");
  if (c.opset() >= 18) apply_axes_and_policy(c, scales, sizes);
  resize(c, scales, sizes, a.s("mode", "nearest"), coord, a.s("nearest_mode", "round_prefer_floor"),
         a.f("cubic_coeff_a", -0.75), a.i("exclude_outside", 0) != 0, c.opset() >= 18 && a.i("antialias", 0) != 0);
}

// Where Resize 10 and Upsample find their scales: Upsample's attributes height_scale and
// width_scale of 4-D data before opset 7, its attribute scales to 8, then an input.
enum class Scales { kHeightWidth, kAttribute, kInput };

// Resize 10 and Upsample: asymmetric coordinates; nearest rounds down along an axis that
// grows and up along one that shrinks (ONNX's resize_downsample_nearest test, ONNX Runtime).
void resize_scales(Context &c, Scales from) {
  std::vector<double> scales;
  if (from == Scales::kHeightWidth) {
    const Attributes &a = c.attrs();
    TIR_USER_CHECK(a.has("height_scale") && a.has("width_scale")) << "height_scale or width_scale is missing";
    if (c.rank(0) != 4) unsupported("input of rank " + std::to_string(c.rank(0)) + " (4-D only before opset 7)");
    scales = {1.0, 1.0, a.f("height_scale", 1), a.f("width_scale", 1)};
  } else if (from == Scales::kAttribute) {
    for (float f : c.attrs().floats("scales")) scales.push_back(f);
  } else {
    scales = known_floats(c, 1, "scales");
  }
  resize(c, scales, {}, c.attrs().s("mode", "nearest"), "asymmetric", "simple");
}

std::string resize_mode(const Attributes &a) {
  const std::string m = a.s("mode", "nearest");
  return m == "nearest" || m == "linear" || m == "bilinear" ? "" : "mode '" + m + "' is not supported";
}

// From opset 11 Resize also interpolates cubically.
std::string resize11_mode(const Attributes &a) { return a.s("mode", "nearest") == "cubic" ? "" : resize_mode(a); }

// GridSample's mode in the graph's words ("" for none it has): from opset 20 "linear" and
// "cubic" (which then also take volumes) name opset 16's "bilinear" and "bicubic".
std::string grid_sample_mode(const Attributes &a, bool opset20) {
  const std::string m = a.s("mode", opset20 ? "linear" : "bilinear");
  if (m == "nearest") return m;
  if (opset20) return m == "linear" ? "bilinear" : m == "cubic" ? "bicubic" : "";
  return m == "bilinear" || m == "bicubic" ? m : "";
}

// GridSample: the graph's grid_sample over 4-D images.
void grid_sample(Context &c, bool opset20) {
  need_float(c, 0);
  const Attributes &a = c.attrs();
  if (c.rank(0) != 4) unsupported("input of rank " + std::to_string(c.rank(0)) + " (only 4-D images)");
  if (c.dtype(1) != c.dtype(0)) unsupported("grid '" + c.input_name(1) + "' is " + c.dtype(1).str());
  if (element_count(c.shape(0)) == 0 || element_count(c.shape(1)) == 0) unsupported("an empty input");
  c.output(0, "grid_sample", {c.node(0), c.node(1)},
           {{"mode", grid_sample_mode(a, opset20)},
            {"padding_mode", a.s("padding_mode", "zeros")},
            {"align_corners", a.i("align_corners", 0)}});
}

std::string grid_sample_attrs(const Attributes &a, bool opset20) {
  const std::string m = grid_sample_mode(a, opset20), p = a.s("padding_mode", "zeros");
  if (m.empty())
    return "mode '" + a.s("mode", "") + "' is not supported (" +
           (opset20 ? "nearest, linear and cubic" : "nearest, bilinear and bicubic") + " from this opset)";
  if (p != "zeros" && p != "border" && p != "reflection") return "padding_mode '" + p + "' is not supported";
  return "";
}

// Resize 19's coordinate transformation, refused in a model of an opset before it.
std::string before19_coords(const Attributes &a) {
  return a.s("coordinate_transformation_mode", "half_pixel") == "half_pixel_symmetric"
             ? "coordinate_transformation_mode half_pixel_symmetric needs opset 19"
             : "";
}

std::string resize11_check(const Attributes &a) {
  if (std::string r = resize11_mode(a); !r.empty()) return r;
  return before19_coords(a);
}

// Resize 18's additions, where they change the result.
std::string resize18_check(const Attributes &a) {
  if (std::string r = resize11_mode(a); !r.empty()) return r;
  const std::string policy = a.s("keep_aspect_ratio_policy", "stretch");
  return policy == "stretch" || policy == "not_larger" || policy == "not_smaller"
             ? ""
             : "keep_aspect_ratio_policy '" + policy + "' is not supported";
}

// TopK with k known at import: the graph's topk_indices, the values gathered at them.
void topk(Context &c, bool k_input) {
  need_numeric(c, 0);
  if (c.rank(0) == 0) unsupported("a scalar input");
  const int axis = normalize_axis(c.attrs().i("axis", -1), c.rank(0));
  int64_t k = c.attrs().i("k", 0);
  if (k_input) {
    const Shape v = c.ints(1, "K");
    TIR_USER_CHECK(v.size() == 1) << "K has " << v.size() << " values";
    k = v[0];
  }
  const int64_t n = c.shape(0)[size_t(axis)];
  TIR_USER_CHECK(k >= 0 && k <= n) << "k " << k << " is beyond the axis' " << n << " elements";
  if (k == 0 || element_count(c.shape(0)) == 0) {
    Shape out = c.shape(0);
    out[size_t(axis)] = k;
    if (c.wants_output(0)) empty_output(c, 0, out, c.dtype(0));
    if (c.num_outputs() > 1 && c.wants_output(1)) empty_output(c, 1, out, Int(64));
    return;
  }
  graph::NodeRef idx = c.make("topk_indices", {c.node(0)},
                              {{"axis", int64_t(axis)}, {"k", k}, {"largest", int64_t(c.attrs().i("largest", 1) != 0)}});
  if (c.wants_output(0)) c.output(0, "gather_elements", {c.node(0), idx}, {{"axis", int64_t(axis)}});
  if (c.num_outputs() > 1 && c.wants_output(1)) c.set_output(1, idx);
}

void reverse_sequence(Context &c) {
  const int64_t t = c.attrs().i("time_axis", 0), b = c.attrs().i("batch_axis", 1);
  TIR_USER_CHECK((t == 0 || t == 1) && (b == 0 || b == 1) && t != b)
      << "time_axis " << t << " and batch_axis " << b << " must be 0 and 1, one each";
  if (element_count(c.shape(0)) == 0) return empty_output(c, 0, c.shape(0), c.dtype(0));
  c.output(0, "reverse_sequence", {c.node(0), c.node(1)}, {{"time_axis", t}, {"batch_axis", b}});
}

std::string d2s_mode(const Attributes &a) {
  const std::string m = a.s("mode", "DCR");
  return m == "DCR" || m == "CRD" ? "" : "mode '" + m + "' is not DCR or CRD";
}

const bool registered = [] {
  register_converter({"GatherElements", 11, kLatest, nullptr, gather_elements});
  register_converter({"GatherND", 11, kLatest, nullptr, gather_nd});
  register_converter({"Scatter", 9, 10, nullptr, scatter_elements});
  for (const auto &[since, until] : {std::pair{11, 15}, std::pair{16, 17}, std::pair{18, kLatest}}) {
    auto check = [opset = since](const Attributes &a) { return scatter_reduction(a, opset); };
    register_converter({"ScatterElements", since, until, check, scatter_elements});
    register_converter({"ScatterND", since, until, check, scatter_nd});
  }
  register_converter({"Trilu", 14, kLatest, nullptr, trilu});
  register_converter({"CumSum", 11, kLatest, nullptr, cumsum});
  register_converter({"Hardmax", kMinOpset, 12, nullptr, [](Context &c) { hardmax(c, true); }});
  register_converter({"Hardmax", 13, kLatest, nullptr, [](Context &c) { hardmax(c, false); }});
  register_converter({"Round", 11, kLatest, nullptr, [](Context &c) { unary(c, "round", true); }});
  register_converter({"Sign", 9, kLatest, nullptr, [](Context &c) { unary(c, "sign", false); }});
  register_converter({"Mod", 10, kLatest, nullptr, mod});
  register_converter({"Range", 11, kLatest, nullptr, range});
  register_converter({"DepthToSpace", kMinOpset, 10, nullptr, [](Context &c) { depth_to_space(c, false); }});
  register_converter({"DepthToSpace", 11, kLatest, d2s_mode,
                      [](Context &c) { depth_to_space(c, c.attrs().s("mode", "DCR") == "CRD"); }});
  register_converter({"ThresholdedRelu", 10, kLatest, nullptr, thresholded_relu});
  register_converter({"EyeLike", 9, kLatest, nullptr, eye_like});
  register_converter({"OneHot", 9, kLatest, nullptr, one_hot});
  register_converter(
      {"Upsample", kMinOpset, 6, resize_mode, [](Context &c) { resize_scales(c, Scales::kHeightWidth); }});
  register_converter({"Upsample", 7, 8, resize_mode, [](Context &c) { resize_scales(c, Scales::kAttribute); }});
  register_converter({"Upsample", 9, 9, resize_mode, [](Context &c) { resize_scales(c, Scales::kInput); }});
  register_converter({"Resize", 10, 10, resize_mode, [](Context &c) { resize_scales(c, Scales::kInput); }});
  register_converter({"Resize", 11, 17, resize11_check, resize11});
  register_converter({"Resize", 18, 18, [](const Attributes &a) {
                        if (std::string r = resize18_check(a); !r.empty()) return r;
                        return before19_coords(a);
                      }, resize11});
  register_converter({"Resize", 19, kLatest, resize18_check, resize11});
  register_converter({"GridSample", 16, 19, [](const Attributes &a) { return grid_sample_attrs(a, false); },
                      [](Context &c) { grid_sample(c, false); }});
  register_converter({"GridSample", 20, kLatest, [](const Attributes &a) { return grid_sample_attrs(a, true); },
                      [](Context &c) { grid_sample(c, true); }});
  register_converter({"TopK", kMinOpset, 9, nullptr, [](Context &c) { topk(c, false); }});
  register_converter({"TopK", 10, kLatest, nullptr, [](Context &c) { topk(c, true); }});
  register_converter({"ReverseSequence", 10, kLatest, nullptr, reverse_sequence});
  register_converter({"SpaceToDepth", kMinOpset, kLatest, nullptr, space_to_depth});
  return true;
}();

}  // namespace

}  // namespace tensorir::onnx::detail
