// Convolution and transposed convolution over 1-D, 2-D and 3-D data, batch and instance
// normalization, LRN. ONNX pads each side on its own; the graph's conv2d pads both sides
// alike, so uneven padding (auto_pad SAME_*, explicit pads) becomes a pad node in front;
// conv3d takes pads per side.
#include "frontend/onnx/ops/window.h"

namespace tensorir::onnx::detail {

namespace {

// x padded with zeros by the window (both sides may differ).
graph::NodeRef pad_input(Context &c, graph::NodeRef x, const Window &w) {
  std::vector<int64_t> before = {0, 0}, after = {0, 0};
  before.insert(before.end(), w.begin.begin(), w.begin.end());
  after.insert(after.end(), w.end.begin(), w.end.end());
  std::vector<int64_t> padded = c.graph_node(x).shape;
  for (size_t i = 0; i < padded.size(); ++i) padded[i] += before[i] + after[i];  // each below 2^31 (window)
  check_graph_size(padded, c.graph_node(x).dtype, "the padded input");
  return c.make("pad", {x}, {{"before", before}, {"after", after}, {"value", 0.0}});
}

// `shape` with a 1 inserted before dimension 2 (1-D data as 2-D with a unit height).
std::vector<int64_t> lift_shape(std::vector<int64_t> shape) {
  shape.insert(shape.begin() + 2, 1);
  return shape;
}

// conv2d of 4-D x and weight; padding on each side alike, else a pad node in front.
graph::NodeRef conv2d(Context &c, graph::NodeRef x, graph::NodeRef weight, const Window &w) {
  std::vector<int64_t> padding = w.begin;
  if (!w.even()) {
    x = pad_input(c, x, w);
    padding = {0, 0};
  }
  return c.make("conv2d", {x, weight},
                {{"strides", w.stride},
                 {"padding", padding},
                 {"dilation", w.dilation},
                 {"groups", c.attrs().i("group", 1)}});
}

}  // namespace

graph::NodeRef conv2d(Context &c, graph::NodeRef x, const std::vector<int64_t> &xs, graph::NodeRef weight,
                      const std::vector<int64_t> &ws) {
  if (xs.size() != 4)
    unsupported("the data has rank " + std::to_string(xs.size()) + "; only 2-D (NCHW) is supported");
  TIR_USER_CHECK(ws.size() == 4) << "the weight must have rank 4, got " << shape_str(ws);
  const std::vector<int64_t> k = {ws[2], ws[3]};
  if (c.attrs().has("kernel_shape")) {
    TIR_USER_CHECK(c.attrs().ints("kernel_shape") == k) << "kernel_shape does not match the weight " << shape_str(ws);
  }
  return conv2d(c, x, weight, window(c, {xs[2], xs[3]}, k, false));
}

std::string check_conv(const Attributes &a) { return check_window(a, true); }

namespace {

// Conv over 1-D (as 2-D with a unit height), 2-D (conv2d) and 3-D (conv3d) data.
void conv(Context &c) {
  need_spatial(c, 0);
  need_float32(c, 0);
  need_float32(c, 1);
  const int r = c.rank(0);
  TIR_USER_CHECK(c.rank(1) == r) << "weight '" << c.input_name(1) << "' must have rank " << r;
  const std::vector<int64_t> k = spatial(c, 1);
  if (c.attrs().has("kernel_shape")) {
    TIR_USER_CHECK(c.attrs().ints("kernel_shape") == k)
        << "kernel_shape does not match the weight " << shape_str(c.shape(1));
  }
  const Window w = window(c, spatial(c, 0), k, false);
  graph::NodeRef y;
  if (r == 5) {
    y = c.make("conv3d", {c.node(0), c.node(1)},
               {{"strides", w.stride},
                {"pads", w.pads()},
                {"dilation", w.dilation},
                {"groups", c.attrs().i("group", 1)}});
  } else if (r == 4) {
    y = conv2d(c, c.node(0), c.node(1), w);
  } else {
    graph::NodeRef x = c.make("reshape", {c.node(0)}, {{"shape", lift_shape(c.shape(0))}});
    graph::NodeRef weight = c.make("reshape", {c.node(1)}, {{"shape", lift_shape(c.shape(1))}});
    y = conv2d(c, x, weight, w.lifted());
    std::vector<int64_t> ys = c.graph_node(y).shape;
    ys.erase(ys.begin() + 2);
    y = c.make("reshape", {y}, {{"shape", ys}});
  }
  if (!c.has_input(2)) return c.set_output(0, y);
  need_float32(c, 2);
  c.output(0, "bias_add", {y, c.node(2)}, {{"axis", int64_t{1}}});
}

// Training mode (opset 14 on): normalizes by the batch's own mean and (population)
// variance per channel, and outputs the running statistics moved towards them:
// running = input * momentum + batch * (1 - momentum).
void batch_norm_training(Context &c, std::vector<graph::NodeRef> in) {
  const int rank = c.rank(0);
  std::vector<int64_t> axes = {0};
  for (int i = 2; i < rank; ++i) axes.push_back(i);
  const std::vector<int64_t> channels = {c.shape(0)[1]};
  const std::map<std::string, graph::AttrValue> stat = {{"axes", axes}, {"keepdims", int64_t{1}}};
  graph::NodeRef mean = c.make("reduce_mean", {in[0]}, stat);
  graph::NodeRef d = c.make("subtract", {in[0], mean});
  graph::NodeRef var = c.make("reduce_mean", {c.make("multiply", {d, d})}, stat);
  in[3] = c.make("reshape", {mean}, {{"shape", channels}});
  in[4] = c.make("reshape", {var}, {{"shape", channels}});
  c.output(0, "batch_norm", in, {{"eps", double(c.attrs().f("epsilon", 1e-5f))}});
  const double momentum = c.attrs().f("momentum", 0.9f);
  graph::NodeRef keep = c.constant(scalar(momentum, Float(32)), "momentum");
  graph::NodeRef take = c.constant(scalar(1 - momentum, Float(32)), "one_minus_momentum");
  for (size_t i : {size_t{1}, size_t{2}}) {
    if (!c.wants_output(i)) continue;
    graph::NodeRef old = c.make("multiply", {c.node(i + 2), keep});
    c.output(i, "add", {old, c.make("multiply", {in[i + 2], take})});
  }
}

void batch_norm(Context &c) {
  const bool training = c.opset() >= 14 && c.attrs().i("training_mode", 0) != 0;
  for (size_t i = 1; i < c.num_outputs() && !training; ++i)
    if (c.wants_output(i)) unsupported("training outputs (running mean and variance) are not supported");
  if (c.rank(0) < 2) unsupported("input of rank " + std::to_string(c.rank(0)));
  for (size_t i = 0; i < 5; ++i) need_float32(c, i);
  std::vector<graph::NodeRef> in;
  for (size_t i = 0; i < 5; ++i) in.push_back(c.node(i));
  if (training) return batch_norm_training(c, in);
  c.output(0, "batch_norm", in, {{"eps", double(c.attrs().f("epsilon", 1e-5f))}});
}

// scale * (x - mean) / sqrt(var + epsilon) + B, the statistics per instance and channel:
// layer_norm over the spatial dimensions, then the scale and bias per channel.
void instance_norm(Context &c) {
  if (c.rank(0) < 3) unsupported("input of rank " + std::to_string(c.rank(0)) + " (no spatial dimensions)");
  for (size_t i = 0; i < 3; ++i) need_float32(c, i);
  const std::vector<int64_t> channels = {c.shape(0)[1]};
  for (size_t i : {size_t{1}, size_t{2}}) {
    TIR_USER_CHECK(c.shape(i) == channels) << "input '" << c.input_name(i) << "' " << shape_str(c.shape(i))
                                           << " must be a vector of the " << channels[0] << " channels";
  }
  graph::NodeRef one = c.constant(scalar(1.0, Float(32)), "one"), zero = c.constant(scalar(0.0, Float(32)), "zero");
  graph::NodeRef y = c.make("layer_norm", {c.node(0), one, zero},
                            {{"axis", int64_t{2}}, {"eps", double(c.attrs().f("epsilon", 1e-5f))}});
  y = c.make("multiply", {y, channel_vector(c, 1, c.rank(0))});
  c.output(0, "bias_add", {y, c.node(2)}, {{"axis", int64_t{1}}});
}

// GroupNormalization: the channels in num_groups groups, each group of each sample
// normalized over its channels and positions, then scaled and shifted per group (opset
// 18: scale and bias of num_groups values) or per channel (from opset 21).
void group_norm(Context &c, bool per_channel) {
  if (c.rank(0) < 3) unsupported("input of rank " + std::to_string(c.rank(0)) + " (no spatial dimensions)");
  for (size_t i = 0; i < 3; ++i) need_float32(c, i);
  const std::vector<int64_t> &x = c.shape(0);
  if (element_count(x) == 0) unsupported("an empty input");
  const Attributes &a = c.attrs();
  const int64_t groups = a.i("num_groups", 0), channels = x[1];
  TIR_USER_CHECK(a.has("num_groups") && groups >= 1 && channels % groups == 0)
      << "num_groups " << groups << " must divide the " << channels << " channels";
  const std::vector<int64_t> params = {per_channel ? channels : groups};
  for (size_t i : {size_t{1}, size_t{2}})
    TIR_USER_CHECK(c.shape(i) == params) << "input '" << c.input_name(i) << "' " << shape_str(c.shape(i))
                                         << " must be a vector of the " << params[0]
                                         << (per_channel ? " channels" : " groups");
  graph::NodeRef one = c.constant(scalar(1.0, Float(32)), "one"), zero = c.constant(scalar(0.0, Float(32)), "zero");
  const std::vector<int64_t> grouped = {x[0], groups, element_count(x) / (x[0] * groups)};
  graph::NodeRef y = c.make("reshape", {c.node(0)}, {{"shape", grouped}});
  y = c.make("layer_norm", {y, one, zero}, {{"axis", int64_t{2}}, {"eps", double(a.f("epsilon", 1e-5f))}});
  if (per_channel) {
    y = c.make("multiply", {c.make("reshape", {y}, {{"shape", x}}), channel_vector(c, 1, c.rank(0))});
    return void(c.output(0, "bias_add", {y, c.node(2)}, {{"axis", int64_t{1}}}));
  }
  const std::vector<int64_t> column = {groups, 1};
  y = c.make("multiply", {y, c.make("reshape", {c.node(1)}, {{"shape", column}})});
  y = c.make("add", {y, c.make("reshape", {c.node(2)}, {{"shape", column}})});
  c.output(0, "reshape", {y}, {{"shape", x}});
}

std::string check_batch_norm(const Attributes &a) {
  if (a.i("spatial", 1) != 1) return "spatial = 0 is not supported";
  return "";
}

std::string check_batch_norm_6(const Attributes &a) {
  const std::string r = check_is_test(a);
  return r.empty() ? check_batch_norm(a) : r;
}

// ConvTranspose of 1-D (as 2-D with a unit height), 2-D or 3-D data. Explicit pads trim
// the full result; output_shape or auto_pad SAME_* set the total trim, split as ONNX says.
void conv_transpose(Context &c) {
  need_spatial(c, 0);
  const int r = c.rank(0);
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
  check_extents(st, "strides", 1);
  check_extents(dil, "dilations", 1);
  check_extents(op, "output_padding", 0);
  check_extents(pads, "pads", 0);
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
    check_extents(out_shape, "output_shape", 1);
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
  // The full result's extents less the pads; every term is below 2^31, so int64 holds them.
  std::vector<int64_t> result = {c.shape(0)[0], checked_mul(c.shape(1)[1], a.i("group", 1), "the output channels")};
  for (size_t i = 0; i < nd; ++i)
    result.push_back(st[i] * (in[i] - 1) + op[i] + (k[i] - 1) * dil[i] + 1 - pads[i] - pads[i + nd]);
  check_graph_size(result, c.dtype(0));
  graph::NodeRef x = c.node(0), w = c.node(1);
  std::vector<int64_t> st2 = st, dil2 = dil, op2 = op, pads2 = pads;
  if (nd == 1) {  // [N, C, L] as [N, C, 1, L]
    x = c.make("reshape", {x}, {{"shape", lift_shape(c.shape(0))}});
    w = c.make("reshape", {w}, {{"shape", lift_shape(c.shape(1))}});
    st2 = {1, st[0]};
    dil2 = {1, dil[0]};
    op2 = {0, op[0]};
    pads2 = {0, pads[0], 0, pads[1]};
  }
  graph::NodeRef y = c.make(nd == 3 ? "conv3d_transpose" : "conv2d_transpose", {x, w},
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
  register_converter({"BatchNormalization", kMinOpset, 6, check_batch_norm_6, batch_norm});
  register_converter({"BatchNormalization", 7, kLatest, check_batch_norm, batch_norm});
  register_converter({"InstanceNormalization", kMinOpset, kLatest, nullptr, instance_norm});
  register_converter({"GroupNormalization", 18, 20, nullptr, [](Context &c) { group_norm(c, false); }});
  register_converter({"GroupNormalization", 21, kLatest, check_stash_type, [](Context &c) { group_norm(c, true); }});
  return true;
}();

}  // namespace

}  // namespace tensorir::onnx::detail
