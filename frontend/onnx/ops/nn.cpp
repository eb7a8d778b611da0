// Convolution, transposed convolution, pooling, batch normalization and LRN over NCHW
// (2-D) data. ONNX pads each side on its own; the graph's conv2d and pools pad both sides
// alike, so uneven padding (auto_pad SAME_*, explicit pads, ceil_mode) becomes a pad node
// in front.
#include <algorithm>
#include <cfloat>

#include "frontend/onnx/ops/ops_util.h"

namespace tensorir::onnx::detail {

namespace {

// The window of a 2-D convolution or pool, per spatial dimension (H, W).
struct Window {
  int64_t kernel[2], stride[2], dilation[2], begin[2], end[2];  // end: padding after
  int64_t out[2];
  bool even() const { return begin[0] == end[0] && begin[1] == end[1]; }
};

std::string check_auto_pad(const Attributes &a) {
  const std::string p = a.s("auto_pad", "NOTSET");
  if (p != "NOTSET" && p != "VALID" && p != "SAME_UPPER" && p != "SAME_LOWER") return "auto_pad '" + p + "' is unknown";
  return "";
}

// Checks shared by Conv and the pools: 2-D windows only.
std::string check_window(const Attributes &a, bool dilations) {
  if (std::string r = check_auto_pad(a); !r.empty()) return r;
  const std::vector<int64_t> k = a.ints("kernel_shape");
  if (a.has("kernel_shape") && k.size() != 2) return std::to_string(k.size()) + "-D windows (only 2-D is supported)";
  if (!dilations && a.has("dilations")) return all_equal(a.ints("dilations"), 1, "dilations");
  return "";
}

// The window over `in` (H, W) for `kernel`, from the node's strides, dilations, pads,
// auto_pad and (pools) ceil_mode.
Window window(const Context &c, const std::vector<int64_t> &in, const std::vector<int64_t> &kernel, bool ceil_mode) {
  const Attributes &a = c.attrs();
  Window w;
  const std::vector<int64_t> strides = a.ints("strides", {1, 1}), dil = a.ints("dilations", {1, 1});
  const std::vector<int64_t> pads = a.ints("pads", {0, 0, 0, 0});
  TIR_USER_CHECK(strides.size() == 2 && dil.size() == 2 && pads.size() == 4)
      << "strides, dilations and pads must have 2, 2 and 4 values for a 2-D window";
  TIR_USER_CHECK(kernel.size() == 2) << "kernel_shape must have 2 values, got " << kernel.size();
  const std::string auto_pad = a.s("auto_pad", "NOTSET");
  for (int i = 0; i < 2; ++i) {
    w.kernel[i] = kernel[size_t(i)];
    w.stride[i] = strides[size_t(i)];
    w.dilation[i] = dil[size_t(i)];
    TIR_USER_CHECK(w.stride[i] > 0 && w.dilation[i] > 0 && w.kernel[i] > 0)
        << "strides, dilations and kernel must be positive";
    const int64_t span = (w.kernel[i] - 1) * w.dilation[i] + 1;
    if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      const int64_t out = (in[size_t(i)] + w.stride[i] - 1) / w.stride[i];
      const int64_t total = std::max<int64_t>((out - 1) * w.stride[i] + span - in[size_t(i)], 0);
      w.begin[i] = auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
      w.end[i] = total - w.begin[i];
    } else if (auto_pad == "VALID") {
      w.begin[i] = w.end[i] = 0;
    } else {
      w.begin[i] = pads[size_t(i)];
      w.end[i] = pads[size_t(i) + 2];
      TIR_USER_CHECK(w.begin[i] >= 0 && w.end[i] >= 0) << "negative pads";
    }
    const int64_t room = in[size_t(i)] + w.begin[i] + w.end[i] - span;
    TIR_USER_CHECK(room >= 0) << "the window " << span << " is larger than the padded input";
    w.out[i] = room / w.stride[i] + 1;
    if (ceil_mode && room % w.stride[i]) {
      // One more window, unless it would start in the padding after the input.
      if (w.out[i] * w.stride[i] < in[size_t(i)] + w.begin[i]) ++w.out[i];
    }
  }
  return w;
}

// Padding after the input that ceil_mode's extra windows read beyond `end`.
int64_t ceil_extra(const Window &w, const std::vector<int64_t> &in, int i) {
  const int64_t span = (w.kernel[i] - 1) * w.dilation[i] + 1;
  return std::max<int64_t>((w.out[i] - 1) * w.stride[i] + span - (in[size_t(i)] + w.begin[i] + w.end[i]), 0);
}

// x padded with `value` by the window's padding (and ceil_mode's extra).
graph::NodeRef pad_input(Context &c, graph::NodeRef x, const Window &w, const std::vector<int64_t> &in, double value) {
  return c.make(
      "pad", {x},
      {{"before", std::vector<int64_t>{0, 0, w.begin[0], w.begin[1]}},
       {"after", std::vector<int64_t>{0, 0, w.end[0] + ceil_extra(w, in, 0), w.end[1] + ceil_extra(w, in, 1)}},
       {"value", value}});
}

std::vector<int64_t> spatial(const Context &c, size_t i) { return {c.shape(i)[2], c.shape(i)[3]}; }

void need_4d(const Context &c, size_t i) {
  if (c.rank(i) != 4)
    unsupported("input '" + c.input_name(i) + "' has rank " + std::to_string(c.rank(i)) +
                "; only 2-D (NCHW) is supported");
}

}  // namespace

graph::NodeRef conv2d(Context &c, graph::NodeRef x, const std::vector<int64_t> &xs, graph::NodeRef weight,
                      const std::vector<int64_t> &ws) {
  if (xs.size() != 4)
    unsupported("the data has rank " + std::to_string(xs.size()) + "; only 2-D (NCHW) is supported");
  TIR_USER_CHECK(ws.size() == 4) << "the weight must have rank 4, got " << shape_str(ws);
  const std::vector<int64_t> k = {ws[2], ws[3]}, in = {xs[2], xs[3]};
  if (c.attrs().has("kernel_shape")) {
    TIR_USER_CHECK(c.attrs().ints("kernel_shape") == k) << "kernel_shape does not match the weight " << shape_str(ws);
  }
  const Window w = window(c, in, k, false);
  std::vector<int64_t> padding = {w.begin[0], w.begin[1]};
  if (!w.even()) {
    x = pad_input(c, x, w, in, 0.0);
    padding = {0, 0};
  }
  return c.make("conv2d", {x, weight},
                {{"strides", std::vector<int64_t>{w.stride[0], w.stride[1]}},
                 {"padding", padding},
                 {"dilation", std::vector<int64_t>{w.dilation[0], w.dilation[1]}},
                 {"groups", c.attrs().i("group", 1)}});
}

std::string check_conv(const Attributes &a) { return check_window(a, true); }

namespace {

void conv(Context &c) {
  need_float32(c, 0);
  need_float32(c, 1);
  graph::NodeRef y = conv2d(c, c.node(0), c.shape(0), c.node(1), c.shape(1));
  if (!c.has_input(2)) return void(c.set_output(0, y));
  need_float32(c, 2);
  c.output(0, "bias_add", {y, c.node(2)}, {{"axis", int64_t{1}}});
}

void max_pool(Context &c) {
  if (c.wants_output(1)) unsupported("the Indices output is not supported");
  need_4d(c, 0);
  need_float32(c, 0);
  const Window w = window(c, spatial(c, 0), c.attrs().ints("kernel_shape"), c.attrs().i("ceil_mode", 0) != 0);
  graph::NodeRef x = c.node(0);
  const bool plain = w.even() && !ceil_extra(w, spatial(c, 0), 0) && !ceil_extra(w, spatial(c, 0), 1);
  std::vector<int64_t> padding = {w.begin[0], w.begin[1]};
  if (!plain) {
    x = pad_input(c, x, w, spatial(c, 0), -FLT_MAX);  // padding never wins
    padding = {0, 0};
  }
  c.output(0, "max_pool2d", {x},
           {{"pool_size", std::vector<int64_t>{w.kernel[0], w.kernel[1]}},
            {"strides", std::vector<int64_t>{w.stride[0], w.stride[1]}},
            {"padding", padding}});
}

// Average pooling. Even padding without ceil_mode's extra windows is avg_pool2d itself;
// otherwise the sum over each window of the padded input divided by the number of
// elements that count (a constant per output position).
void avg_pool(Context &c) {
  need_4d(c, 0);
  need_float32(c, 0);
  const std::vector<int64_t> in = spatial(c, 0);
  const bool include_pad = c.attrs().i("count_include_pad", 0) != 0;
  const Window w = window(c, in, c.attrs().ints("kernel_shape"), c.attrs().i("ceil_mode", 0) != 0);
  const int64_t extra[2] = {ceil_extra(w, in, 0), ceil_extra(w, in, 1)};
  const std::vector<int64_t> pool = {w.kernel[0], w.kernel[1]}, strides = {w.stride[0], w.stride[1]};
  if (w.even() && !extra[0] && !extra[1])
    return void(c.output(0, "avg_pool2d", {c.node(0)},
                         {{"pool_size", pool},
                          {"strides", strides},
                          {"padding", std::vector<int64_t>{w.begin[0], w.begin[1]}},
                          {"count_include_pad", int64_t(include_pad)}}));
  if (include_pad && (extra[0] || extra[1]))
    unsupported("ceil_mode with count_include_pad: the divisor of windows past the padding is not defined here");
  graph::NodeRef x = pad_input(c, c.node(0), w, in, 0.0);
  graph::NodeRef mean = c.make("avg_pool2d", {x},
                               {{"pool_size", pool},
                                {"strides", strides},
                                {"padding", std::vector<int64_t>{0, 0}},
                                {"count_include_pad", int64_t{1}}});
  // Per output position, the window's size over the number of elements it counts.
  std::vector<double> factor;
  for (int64_t oh = 0; oh < w.out[0]; ++oh)
    for (int64_t ow = 0; ow < w.out[1]; ++ow) {
      int64_t count = 1;
      const int64_t pos[2] = {oh, ow};
      for (int i = 0; i < 2; ++i) {
        const int64_t lo = include_pad ? -w.begin[i] : 0, hi = in[size_t(i)] + (include_pad ? w.end[i] : 0);
        const int64_t start = pos[i] * w.stride[i] - w.begin[i];
        count *= std::max<int64_t>(std::min(start + w.kernel[i], hi) - std::max(start, lo), 0);
      }
      TIR_USER_CHECK(count > 0) << "a window covers no element of the input";
      factor.push_back(double(w.kernel[0] * w.kernel[1]) / double(count));
    }
  c.output(0, "multiply", {mean, c.constant(from_doubles(factor, {w.out[0], w.out[1]}, Float(32)), "divisor")});
}

void global_pool(Context &c, bool max) {
  need_4d(c, 0);
  need_float32(c, 0);
  if (!max) return void(c.output(0, "global_avg_pool2d", {c.node(0)}));
  const std::vector<int64_t> hw = spatial(c, 0);
  c.output(0, "max_pool2d", {c.node(0)},
           {{"pool_size", hw}, {"strides", std::vector<int64_t>{1, 1}}, {"padding", std::vector<int64_t>{0, 0}}});
}

void batch_norm(Context &c) {
  for (size_t i = 1; i < c.num_outputs(); ++i)
    if (c.wants_output(i)) unsupported("training outputs (running mean and variance) are not supported");
  if (c.rank(0) < 2) unsupported("input of rank " + std::to_string(c.rank(0)));
  for (size_t i = 0; i < 5; ++i) need_float32(c, i);
  std::vector<graph::NodeRef> in;
  for (size_t i = 0; i < 5; ++i) in.push_back(c.node(i));
  c.output(0, "batch_norm", in, {{"eps", double(c.attrs().f("epsilon", 1e-5f))}});
}

std::string check_avg_pool(const Attributes &a) { return check_window(a, false); }

std::string check_max_pool(const Attributes &a) {
  if (std::string r = check_window(a, false); !r.empty()) return r;
  return a.i("storage_order", 0) ? "storage_order 1 is not supported" : "";
}

std::string check_batch_norm(const Attributes &a) {
  if (a.i("spatial", 1) != 1) return "spatial = 0 is not supported";
  if (a.i("training_mode", 0) != 0) return "training_mode is not supported";
  return "";
}

// ConvTranspose of 1-D (as 2-D with a unit height) or 2-D data. Explicit pads trim the
// full result; output_shape or auto_pad SAME_* set the total trim, split as ONNX says.
void conv_transpose(Context &c) {
  const int r = c.rank(0);
  if (r != 3 && r != 4) unsupported("input of rank " + std::to_string(r) + " (1-D and 2-D only)");
  need_float32(c, 0);
  need_float32(c, 1);
  TIR_USER_CHECK(c.rank(1) == r) << "weight '" << c.input_name(1) << "' must have rank " << r;
  const size_t nd = size_t(r - 2);
  const Attributes &a = c.attrs();
  const std::vector<int64_t> one(nd, 1), zero(nd, 0);
  const std::vector<int64_t> st = a.ints("strides", one), dil = a.ints("dilations", one);
  std::vector<int64_t> op = a.ints("output_padding", zero), pads = a.ints("pads", std::vector<int64_t>(2 * nd, 0));
  TIR_USER_CHECK(st.size() == nd && dil.size() == nd && op.size() == nd && pads.size() == 2 * nd)
      << "strides, dilations, output_padding or pads do not fit " << nd << " spatial dimensions";
  std::vector<int64_t> in(c.shape(0).begin() + 2, c.shape(0).end()), k(c.shape(1).begin() + 2, c.shape(1).end());
  if (a.has("kernel_shape")) {
    TIR_USER_CHECK(a.ints("kernel_shape") == k) << "kernel_shape does not match the weight";
  }
  const std::string auto_pad = a.s("auto_pad", "NOTSET");
  std::vector<int64_t> out_shape = a.ints("output_shape");
  if (out_shape.size() == nd + 2) out_shape.erase(out_shape.begin(), out_shape.begin() + 2);
  if (out_shape.empty() && (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER"))
    for (size_t i = 0; i < nd; ++i) out_shape.push_back(in[i] * st[i]);
  else if (auto_pad != "NOTSET" && auto_pad != "VALID" && out_shape.empty())
    unsupported("auto_pad " + auto_pad);
  if (!out_shape.empty()) {
    TIR_USER_CHECK(out_shape.size() == nd) << "output_shape has " << out_shape.size() << " values";
    for (size_t i = 0; i < nd; ++i) {
      const int64_t total = st[i] * (in[i] - 1) + op[i] + (k[i] - 1) * dil[i] + 1 - out_shape[i];
      if (total < 0) {  // beyond the full result: zeros after it
        op[i] -= total;
        pads[i] = pads[i + nd] = 0;
        continue;
      }
      const int64_t small = total / 2, large = total - small;
      pads[i] = auto_pad == "SAME_UPPER" ? small : large;
      pads[i + nd] = auto_pad == "SAME_UPPER" ? large : small;
    }
  }
  graph::NodeRef x = c.node(0), w = c.node(1);
  std::vector<int64_t> st2 = st, dil2 = dil, op2 = op, pads2 = pads;
  if (nd == 1) {  // [N, C, L] as [N, C, 1, L]
    std::vector<int64_t> xs = c.shape(0), ws = c.shape(1);
    xs.insert(xs.begin() + 2, 1);
    ws.insert(ws.begin() + 2, 1);
    x = c.make("reshape", {x}, {{"shape", xs}});
    w = c.make("reshape", {w}, {{"shape", ws}});
    st2 = {1, st[0]};
    dil2 = {1, dil[0]};
    op2 = {0, op[0]};
    pads2 = {0, pads[0], 0, pads[1]};
  }
  graph::NodeRef y = c.make("conv2d_transpose", {x, w},
                            {{"strides", st2},
                             {"pads", pads2},
                             {"dilation", dil2},
                             {"output_padding", op2},
                             {"groups", a.i("group", 1)}});
  std::vector<int64_t> ys = c.graph_node(y).shape;
  const bool bias = c.num_inputs() > 2 && c.has_input(2);
  if (bias) need_float32(c, 2);
  if (nd == 1) {
    ys.erase(ys.begin() + 2);
    if (!bias) return void(c.output(0, "reshape", {y}, {{"shape", ys}}));
    y = c.make("reshape", {y}, {{"shape", ys}});
  }
  if (!bias) return c.set_output(0, y);
  c.output(0, "bias_add", {y, c.node(2)}, {{"axis", int64_t{1}}});
}

void lrn(Context &c) {
  need_float(c, 0);
  if (c.rank(0) < 3) unsupported("input of rank " + std::to_string(c.rank(0)));
  const Attributes &a = c.attrs();
  c.output(0, "lrn", {c.node(0)},
           {{"size", a.i("size", 0)},
            {"alpha", double(a.f("alpha", 1e-4f))},
            {"beta", double(a.f("beta", 0.75f))},
            {"bias", double(a.f("bias", 1.0f))}});
}

const bool registered = [] {
  register_converter({"Conv", kMinOpset, kLatest, check_conv, conv});
  register_converter({"ConvTranspose", kMinOpset, kLatest, nullptr, conv_transpose});
  register_converter({"LRN", kMinOpset, kLatest, nullptr, lrn});
  register_converter({"MaxPool", kMinOpset, kLatest, check_max_pool, max_pool});
  register_converter({"AveragePool", kMinOpset, kLatest, check_avg_pool, avg_pool});
  register_converter({"GlobalAveragePool", kMinOpset, kLatest, nullptr, [](Context &c) { global_pool(c, false); }});
  register_converter({"GlobalMaxPool", kMinOpset, kLatest, nullptr, [](Context &c) { global_pool(c, true); }});
  register_converter({"BatchNormalization", kMinOpset, kLatest, check_batch_norm, batch_norm});
  return true;
}();

}  // namespace

}  // namespace tensorir::onnx::detail
