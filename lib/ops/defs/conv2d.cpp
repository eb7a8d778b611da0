// conv2d: NCHW data and OIHW weights, or the packed layouts alter_conv_layout gives it
// (data NCHW<ci>c, weight OIHW<ci>i<co>o, result NCHW<co>c). On the CPU the tuned
// schedule computes the channel-blocked form (conv2d_nchwc), or for grouped convolutions
// the one-stage form, with its element-wise tail.
#include "def_util.h"

namespace tensorir::ops::defs {

namespace {

ops::Conv2dAttrs conv_attrs(const Node &n) {
  ops::Conv2dAttrs a;
  a.strides = pair_attr(n, "strides");
  a.padding = pair_attr(n, "padding");
  a.dilation = pair_attr(n, "dilation");
  a.groups = static_cast<int>(n.attr_int("groups"));
  a.out_channels = n.attr_int("out_channels");
  return a;
}

// A conv2d whose weight is packed: its "kernel_layout" is OIHW<ci>i<co>o.
bool packed(const Node &n) { return n.attr_string("kernel_layout") != "OIHW"; }
bool blocked_out(const Node &n) { return n.attr_string("out_layout") != "NCHW"; }

// The layouts a packed conv2d's attributes name must be those of its tensors.
void check_packed_layouts(const Node &n, const std::vector<int64_t> &data, const std::vector<int64_t> &weight) {
  TIR_USER_CHECK(n.attr_int("groups") == 1) << "a packed weight needs groups = 1";
  TIR_USER_CHECK(weight.size() == 6) << "kernel_layout '" << n.attr_string("kernel_layout")
                                     << "' needs a weight [K/co][C/ci][R][S][ci][co] but it has shape "
                                     << shape_str(weight);
  const std::string ci = std::to_string(weight[4]), co = std::to_string(weight[5]);
  const std::string kernel = "OIHW" + ci + "i" + co + "o", in = data.size() == 5 ? "NCHW" + ci + "c" : "NCHW";
  TIR_USER_CHECK(n.attr_string("kernel_layout") == kernel)
      << "kernel_layout '" << n.attr_string("kernel_layout") << "' does not describe the weight "
      << shape_str(weight) << " (" << kernel << ")";
  TIR_USER_CHECK(n.attr_string("data_layout") == in)
      << "data_layout '" << n.attr_string("data_layout") << "' does not describe the data " << shape_str(data)
      << " (" << in << " for this weight)";
  // With out_channels, the weight's last block is zero padding; the result's blocks are
  // conv2d_channel_block(out_channels)'s (ops::conv2d_compute_block).
  const int64_t k = n.attr_int("out_channels"), padded = weight[0] * weight[5];
  TIR_USER_CHECK(k == 0 || (k > padded - weight[5] && k <= padded))
      << "out_channels = " << k << " does not fit the weight " << shape_str(weight) << " of " << padded
      << " output channels in blocks of " << co << " (use 0, or more than " << padded - weight[5]
      << " with the rest zero padding)";
  const std::string block = k ? std::to_string(ops::conv2d_channel_block(k)) : co;
  const std::string &out = n.attr_string("out_layout");
  TIR_USER_CHECK(out == "NCHW" || out == "NCHW" + block + "c")
      << "out_layout '" << out << "' must be NCHW or NCHW" << block << "c (the result's block of output channels)";
}

// A packed depthwise convolution: blocked data NCHW<c>c and weight OIHW1i<c>o.
void check_depthwise_layouts(const Node &n, const std::vector<int64_t> &data, const std::vector<int64_t> &weight) {
  TIR_USER_CHECK(data.size() == 5 && weight.size() == 6 && weight[1] == 1 && weight[4] == 1 &&
                 weight[0] == data[1] && weight[5] == data[4])
      << "a packed grouped convolution must be depthwise: data NCHW<c>c [N][C/c][H][W][c] and weight "
         "[C/c][1][R][S][1][c], but they have shapes "
      << shape_str(data) << " and " << shape_str(weight);
  const std::string c = std::to_string(data[4]);
  TIR_USER_CHECK(n.attr_int("groups") == data[1] * data[4])
      << "groups = " << n.attr_int("groups") << " but a packed depthwise convolution of " << data[1] * data[4]
      << " channels needs groups = " << data[1] * data[4];
  TIR_USER_CHECK(n.attr_string("kernel_layout") == "OIHW1i" + c + "o" && n.attr_string("data_layout") == "NCHW" + c + "c")
      << "kernel_layout '" << n.attr_string("kernel_layout") << "' and data_layout '" << n.attr_string("data_layout")
      << "' do not describe the depthwise weight " << shape_str(weight) << " and data " << shape_str(data)
      << " (OIHW1i" << c << "o and NCHW" << c << "c)";
  const std::string &out = n.attr_string("out_layout");
  TIR_USER_CHECK(out == "NCHW" || out == "NCHW" + c + "c")
      << "out_layout '" << out << "' must be NCHW or NCHW" << c << "c (the data's block of channels)";
}

void check(const Node &n, const std::vector<const Node *> &in) {
  check_same_dtypes(n, in);
  TIR_USER_CHECK(n.attr_int("out_channels") == 0 || (packed(n) && n.attr_int("groups") == 1))
      << "out_channels = " << n.attr_int("out_channels")
      << " needs a packed weight (kernel_layout OIHW<ci>i<co>o) and groups = 1; use 0 otherwise";
  if (packed(n) && n.attr_int("groups") > 1) return check_depthwise_layouts(n, in[0]->shape, in[1]->shape);
  if (packed(n)) return check_packed_layouts(n, in[0]->shape, in[1]->shape);
  TIR_USER_CHECK(in[0]->shape.size() == 4)
      << "input '" << in[0]->name << "' must be NCHW (4 dimensions) but has shape " << shape_str(in[0]->shape);
  TIR_USER_CHECK(in[1]->shape.size() == 4)
      << "weight '" << in[1]->name << "' must be OIHW (4 dimensions) but has shape " << shape_str(in[1]->shape);
  const int64_t groups = n.attr_int("groups");
  TIR_USER_CHECK(groups >= 1) << "groups must be at least 1, got " << groups;
  TIR_USER_CHECK(in[1]->shape[1] * groups == in[0]->shape[1])
      << "weight '" << in[1]->name << "' has " << in[1]->shape[1] << " input channels"
      << (groups > 1 ? " per group" : "") << " but input '" << in[0]->name << "' has " << in[0]->shape[1]
      << (groups > 1 ? " (" + std::to_string(groups) + " groups)" : "");
}

// The one-stage forms, for every target.
Tensor compute(const Node &n, const std::vector<Tensor> &in, const std::string &name) {
  const ops::Conv2dAttrs a = conv_attrs(n);
  if (packed(n) && a.groups > 1) return ops::depthwise_conv2d_nchwc_packed(in[0], in[1], a, blocked_out(n), name);
  if (packed(n)) return ops::conv2d_packed_direct(in[0], in[1], a, blocked_out(n), name);
  return ops::conv2d(in[0], in[1], a, name);
}

// The stages of conv2d_nchwc, which the tuned CPU schedule expects.
Tensor compute_cpu(const Node &n, const std::vector<Tensor> &in, const std::string &name) {
  const ops::Conv2dAttrs a = conv_attrs(n);
  if (packed(n) && a.groups > 1) return ops::depthwise_conv2d_nchwc_packed(in[0], in[1], a, blocked_out(n), name);
  if (packed(n)) return ops::conv2d_nchwc_packed(in[0], in[1], a, blocked_out(n), name);
  return a.groups == 1 ? ops::conv2d_nchwc(in[0], in[1], a, name) : ops::conv2d(in[0], in[1], a, name);
}

const bool registered = [] {
  OpDef def;
  def.name = "conv2d";
  def.doc = "2-D convolution: data [N, C, H, W], weight [K, C/groups, R, S] -> [N, K, OH, OW]";
  def.inputs = {"data", "weight"};
  def.attrs = {{"strides", AttrType::Ints, std::vector<int64_t>{1, 1}},
               {"padding", AttrType::Ints, std::vector<int64_t>{0, 0}},
               {"dilation", AttrType::Ints, std::vector<int64_t>{1, 1}},
               {"groups", AttrType::Int, int64_t{1}},
               {"data_layout", AttrType::String, std::string("NCHW")},
               {"kernel_layout", AttrType::String, std::string("OIHW")},
               {"out_layout", AttrType::String, std::string("NCHW")},
               {"out_channels", AttrType::Int, int64_t{0}}};
  for (int i = 0; i < 3; ++i) def.attrs[size_t(i)].ints_size = 2;
  def.pattern = graph::OpPattern::kOutFusable;
  def.layout = graph::LayoutRule::kConvolution;
  def.check = check;
  def.compute = compute;
  OpStrategy cpu;
  cpu.compute = compute_cpu;
  cpu.schedule = [](const ScheduleContext &ctx) {
    return ctx.fused() ? ops::schedule_conv2d_llvm(ctx.op, ctx.out, ctx.target, ctx.config)
                       : ops::schedule_conv2d_llvm(ctx.out, ctx.target, ctx.config);
  };
  on_cpu(def, cpu);
  // The packed layouts (which only the CPU and GPU layout passes make) keep the default
  // schedule, but for a blocked result on a CPU driver, whose blocks are its vectors.
  OpStrategy gpu;
  gpu.schedule = [](const ScheduleContext &ctx) {
    if (!packed(ctx.node)) return ops::schedule_conv2d_gpu(ctx.op, ctx.out, ctx.target, ctx.config);
    const bool vectors = ctx.target.caps().work_item_vector_lanes > 0 && ctx.node.attr_int("groups") == 1 &&
                         ctx.op.ndim() == 5;
    return vectors ? ops::schedule_conv2d_packed_gpu(ctx.op, ctx.out, ctx.target, ctx.config)
                   : ops::schedule_generic({ctx.out});
  };
  on_gpu(def, gpu);
  on_webgl(def);
  graph::register_op(std::move(def));
  return true;
}();

}  // namespace

}  // namespace tensorir::ops::defs
