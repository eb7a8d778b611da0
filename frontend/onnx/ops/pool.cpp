// MaxPool (with its Indices), AveragePool, LpPool and the global pools over 1 to 3
// spatial dimensions, and MaxUnpool. Windows on 2-D float32 data without dilation, padded
// alike on both sides, are the graph's max_pool2d and avg_pool2d (which the layout pass
// can block); the rest is pool_nd, padded per side, an average being its sum times a
// constant 1 / count per output position. MaxUnpool scatters the values to the indices.
#include <algorithm>
#include <cmath>
#include <string>

#include "frontend/onnx/ops/window.h"

namespace tensorir::onnx::detail {

namespace {

// The window of a pool, kernel_shape required.
Window pool_window(const Context &c) {
  TIR_USER_CHECK(c.attrs().has("kernel_shape")) << "kernel_shape is required";
  return window(c, spatial(c, 0), c.attrs().ints("kernel_shape"), c.attrs().i("ceil_mode", 0) != 0);
}

// Whether max_pool2d and avg_pool2d take the window (they pad less than a window).
bool plain_2d(const Context &c, const Window &w) {
  if (c.rank(0) != 4 || c.dtype(0) != Float(32) || !w.even() || w.has_extra()) return false;
  for (size_t i = 0; i < 2; ++i)
    if (w.dilation[i] != 1 || w.begin[i] >= w.kernel[i]) return false;
  return true;
}

// pool_nd's attributes for the window and `reduction` (max or sum).
std::map<std::string, graph::AttrValue> pool_attrs(const Window &w, const std::string &reduction) {
  std::map<std::string, graph::AttrValue> attrs = w.nd_attrs();
  attrs["reduction"] = reduction;
  return attrs;
}

void max_pool(Context &c) {
  need_spatial(c, 0);
  const Type t = c.dtype(0);
  if (t != Float(32) && t != Float(64) && t != Int(8) && t != UInt(8))
    unsupported("input '" + c.input_name(0) + "' is " + t.str() + "; float32, float64, int8 and uint8 are supported");
  const Window w = pool_window(c);
  if (c.num_outputs() > 1 && c.wants_output(1)) {
    std::map<std::string, graph::AttrValue> attrs = w.nd_attrs();
    attrs["storage_order"] = c.attrs().i("storage_order", 0);
    c.output(1, "max_pool_indices", {c.node(0)}, attrs);
  }
  if (!plain_2d(c, w)) return void(c.output(0, "pool_nd", {c.node(0)}, pool_attrs(w, "max")));
  c.output(0, "max_pool2d", {c.node(0)}, {{"pool_size", w.kernel}, {"strides", w.stride}, {"padding", w.begin}});
}

// 1 / (the number of elements each window counts), per output position: those inside the
// input, or with count_include_pad those inside the explicit padding too (not those of
// ceil_mode's last windows past it, as ONNX Runtime and PyTorch count).
NDArray reciprocal_counts(const Window &w, const std::vector<int64_t> &in, bool include_pad) {
  std::vector<double> factor = {1.0};
  for (size_t i = 0; i < w.rank(); ++i) {
    std::vector<double> next;
    for (double f : factor)
      for (int64_t p = 0; p < w.out[i]; ++p) {
        const int64_t lo = include_pad ? -w.begin[i] : 0, hi = in[i] + (include_pad ? w.end[i] : 0);
        const int64_t start = p * w.stride[i] - w.begin[i], d = w.dilation[i];
        // The taps start + t * d, t in [0, kernel), that fall in [lo, hi).
        const int64_t first = start >= lo ? 0 : (lo - start + d - 1) / d;
        const int64_t last = std::min(w.kernel[i] - 1, hi - 1 - start < 0 ? -1 : (hi - 1 - start) / d);
        const int64_t count = last - first + 1;
        TIR_USER_CHECK(count > 0) << "a window covers no element of the input";
        next.push_back(f / double(count));
      }
    factor = std::move(next);
  }
  return from_doubles(factor, w.out, Float(32));
}

void avg_pool(Context &c) {
  need_spatial(c, 0);
  need_float32(c, 0);
  const bool include_pad = c.attrs().i("count_include_pad", 0) != 0;
  const Window w = pool_window(c);
  if (plain_2d(c, w))
    return void(c.output(0, "avg_pool2d", {c.node(0)},
                         {{"pool_size", w.kernel},
                          {"strides", w.stride},
                          {"padding", w.begin},
                          {"count_include_pad", int64_t(include_pad)}}));
  graph::NodeRef sum = c.make("pool_nd", {c.node(0)}, pool_attrs(w, "sum"));
  c.output(0, "multiply", {sum, c.constant(reciprocal_counts(w, spatial(c, 0), include_pad), "divisor")});
}

// |x| to the power p (p >= 1).
graph::NodeRef abs_pow(Context &c, graph::NodeRef x, int64_t p) {
  if (p == 2) return c.make("multiply", {x, x});
  graph::NodeRef a = c.make("abs", {x});
  return p == 1 ? a : c.make("pow", {a, c.constant(scalar(double(p), Float(32)), "p")});
}

// s to the power 1 / p.
void root_output(Context &c, graph::NodeRef s, int64_t p) {
  if (p == 1) return c.set_output(0, s);
  if (p == 2) return void(c.output(0, "sqrt", {s}));
  c.output(0, "pow", {s, c.constant(scalar(1.0 / double(p), Float(32)), "inverse_p")});
}

// p: an integer attribute from opset 2, a float before (a whole number is taken).
int64_t lp_order(const Context &c) {
  const ::onnx::AttributeProto *a = c.attrs().get("p");
  int64_t p = 2;
  if (a && a->type() == ::onnx::AttributeProto::FLOAT) {
    const float f = a->f();
    if (f != std::floor(f)) unsupported("p = " + std::to_string(f) + ", not a whole number");
    TIR_USER_CHECK(f >= 1 && f <= 1e9) << "p must be at least 1, got " << f;
    p = int64_t(f);
  } else {
    p = c.attrs().i("p", 2);
  }
  TIR_USER_CHECK(p >= 1) << "p must be at least 1, got " << p;
  return p;
}

// (the sum of |x| ^ p over each window) ^ (1 / p); padding adds nothing.
void lp_pool(Context &c) {
  need_spatial(c, 0);
  need_float32(c, 0);
  const int64_t p = lp_order(c);
  const Window w = pool_window(c);
  root_output(c, c.make("pool_nd", {abs_pow(c, c.node(0), p)}, pool_attrs(w, "sum")), p);
}

void global_pool(Context &c, bool max) {
  need_spatial(c, 0);
  need_float32(c, 0);
  if (c.rank(0) == 4) {
    if (!max) return void(c.output(0, "global_avg_pool2d", {c.node(0)}));
    const std::vector<int64_t> hw = spatial(c, 0);
    return void(c.output(0, "max_pool2d", {c.node(0)},
                         {{"pool_size", hw},
                          {"strides", std::vector<int64_t>{1, 1}},
                          {"padding", std::vector<int64_t>{0, 0}}}));
  }
  c.output(0, max ? "reduce_max" : "reduce_mean", {c.node(0)},
           {{"axes", spatial_axes(c, 0)}, {"keepdims", int64_t{1}}});
}

void global_lp_pool(Context &c) {
  need_spatial(c, 0);
  need_float32(c, 0);
  const int64_t p = lp_order(c);
  const std::map<std::string, graph::AttrValue> over = {{"axes", spatial_axes(c, 0)}, {"keepdims", int64_t{1}}};
  if (p <= 2) return void(c.output(0, p == 1 ? "reduce_l1" : "reduce_l2", {c.node(0)}, over));
  root_output(c, c.make("reduce_sum", {abs_pow(c, c.node(0), p)}, over), p);
}

// X written at the flattened positions of the output that Indices name, zeros elsewhere,
// over (in - 1) * stride + kernel - pads in each spatial dimension; an output_shape
// larger than that adds zeros after it, as ONNX's example of the operator does.
void max_unpool(Context &c) {
  need_spatial(c, 0);
  need_float32(c, 0);
  TIR_USER_CHECK(c.shape(1) == c.shape(0))
      << "indices '" << c.input_name(1) << "' must have the shape of X " << shape_str(c.shape(0));
  if (!c.dtype(1).is_int()) unsupported("indices '" + c.input_name(1) + "' are not integers");
  const std::vector<int64_t> in = spatial(c, 0);
  const size_t nd = in.size();
  const Attributes &a = c.attrs();
  TIR_USER_CHECK(a.has("kernel_shape")) << "kernel_shape is required";
  const std::vector<int64_t> k = a.ints("kernel_shape"), st = a.ints("strides", std::vector<int64_t>(nd, 1));
  const std::vector<int64_t> pads = a.ints("pads", std::vector<int64_t>(2 * nd, 0));
  TIR_USER_CHECK(k.size() == nd && st.size() == nd && pads.size() == 2 * nd)
      << "kernel_shape, strides and pads must have " << nd << ", " << nd << " and " << 2 * nd << " values";
  check_extents(k, "kernel_shape", 1);
  check_extents(st, "strides", 1);
  check_extents(pads, "pads", 0);
  std::vector<int64_t> out = {c.shape(0)[0], c.shape(0)[1]};
  for (size_t i = 0; i < nd; ++i) out.push_back((in[i] - 1) * st[i] + k[i] - pads[i] - pads[i + nd]);
  for (int64_t d : out) TIR_USER_CHECK(d >= 1) << "the output shape " << shape_str(out) << " is empty";
  std::vector<int64_t> shape = out;
  if (c.num_inputs() > 2 && c.has_input(2)) {
    shape = c.ints(2, "output_shape");
    TIR_USER_CHECK(shape.size() == nd + 2 && shape[0] == out[0] && shape[1] == out[1])
        << "output_shape " << shape_str(shape) << " does not fit X " << shape_str(c.shape(0));
    for (size_t i = 2; i < shape.size(); ++i)
      if (shape[i] < out[i])
        unsupported("output_shape " + shape_str(shape) + " smaller than the unpooled " + shape_str(out));
  }
  check_graph_size(shape, c.dtype(0));
  const std::vector<int64_t> flat = {element_count(c.shape(0))};
  const std::vector<int64_t> total = {check_host_size(out, c.dtype(0), "the constant of zeros to scatter into")};
  graph::NodeRef zeros =
      c.constant(from_doubles(std::vector<double>(size_t(total[0]), 0.0), total, c.dtype(0)), "zeros");
  graph::NodeRef y = c.make("scatter_elements", {zeros, c.make("reshape", {c.node(1)}, {{"shape", flat}}),
                                                 c.make("reshape", {c.node(0)}, {{"shape", flat}})});
  if (shape == out) return void(c.output(0, "reshape", {y}, {{"shape", out}}));
  std::vector<int64_t> after(out.size(), 0);
  for (size_t i = 2; i < out.size(); ++i) after[i] = shape[i] - out[i];
  c.output(0, "pad", {c.make("reshape", {y}, {{"shape", out}})},
           {{"before", std::vector<int64_t>(out.size(), 0)}, {"after", after}, {"value", 0.0}});
}

std::string check_avg_pool(const Attributes &a) { return check_window(a, false); }
std::string check_dilated_pool(const Attributes &a) { return check_window(a, true); }

const bool registered = [] {
  register_converter({"MaxPool", kMinOpset, kLatest, check_dilated_pool, max_pool});
  register_converter({"AveragePool", kMinOpset, 18, check_avg_pool, avg_pool});
  register_converter({"AveragePool", 19, kLatest, check_dilated_pool, avg_pool});  // dilations from 19
  register_converter({"LpPool", kMinOpset, kLatest, check_dilated_pool, lp_pool});
  register_converter({"GlobalAveragePool", kMinOpset, kLatest, nullptr, [](Context &c) { global_pool(c, false); }});
  register_converter({"GlobalMaxPool", kMinOpset, kLatest, nullptr, [](Context &c) { global_pool(c, true); }});
  register_converter({"GlobalLpPool", kMinOpset, kLatest, nullptr, global_lp_pool});
  register_converter({"MaxUnpool", 9, kLatest, nullptr, max_unpool});
  return true;
}();

}  // namespace

}  // namespace tensorir::onnx::detail
