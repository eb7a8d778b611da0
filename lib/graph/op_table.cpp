// Each graph operator as a call into ops::, plus the checks that name graph nodes.
// Channel-blocked tensors (alter_conv_layout) are NCHW<c>c, 5 dimensions: the
// element-wise operators and the pools take them as they are, and a conv2d with a
// "kernel_layout" other than OIHW reads a packed weight (ops::conv2d_nchwc_packed for
// the tuned CPU schedule, else ops::conv2d_packed_direct).
#include "op_table.h"

#include <sstream>

#include "tensorir/ops/nn.h"
#include "tensorir/ops/transform.h"

namespace tensorir::graph::detail {

namespace {

std::array<int, 2> pair_attr(const Node &n, const std::string &key) {
  const std::vector<int64_t> &v = n.attr_ints(key);
  TIR_USER_CHECK(v.size() == 2) << node_prefix(n) << "attribute '" << key << "' must hold 2 values, got "
                                << v.size();
  return {static_cast<int>(v[0]), static_cast<int>(v[1])};
}

const std::string &string_attr(const Node &n, const std::string &key) {
  auto it = n.attrs.find(key);
  TIR_USER_CHECK(it != n.attrs.end()) << node_prefix(n) << "missing attribute '" << key << "'";
  const std::string *v = std::get_if<std::string>(&it->second);
  TIR_USER_CHECK(v) << node_prefix(n) << "attribute '" << key << "' must be a string";
  return *v;
}

ops::Conv2dAttrs conv_attrs(const Node &n) {
  ops::Conv2dAttrs a;
  a.strides = pair_attr(n, "strides");
  a.padding = pair_attr(n, "padding");
  a.dilation = pair_attr(n, "dilation");
  a.groups = static_cast<int>(n.attr_int("groups"));
  return a;
}

// A conv2d whose weight is packed for conv2d_nchwc_packed: its "kernel_layout" is
// OIHW<ci>i<co>o (alter_conv_layout sets it, with "data_layout" and "out_layout").
bool packed_conv(const Node &n) {
  auto it = n.attrs.find("kernel_layout");
  return it != n.attrs.end() && it->second != AttrValue(std::string("OIHW"));
}

// The layouts a packed conv2d's attributes name must be those of its tensors.
void check_packed_layouts(const Node &n, const std::vector<int64_t> &data, const std::vector<int64_t> &weight) {
  TIR_USER_CHECK(n.attr_int("groups") == 1) << node_prefix(n) << "a packed weight needs groups = 1";
  TIR_USER_CHECK(weight.size() == 6) << node_prefix(n) << "kernel_layout '" << string_attr(n, "kernel_layout")
                                     << "' needs a weight [K/co][C/ci][R][S][ci][co] but it has shape "
                                     << shape_str(weight);
  const std::string ci = std::to_string(weight[4]), co = std::to_string(weight[5]);
  const std::string kernel = "OIHW" + ci + "i" + co + "o", in = data.size() == 5 ? "NCHW" + ci + "c" : "NCHW";
  TIR_USER_CHECK(string_attr(n, "kernel_layout") == kernel)
      << node_prefix(n) << "kernel_layout '" << string_attr(n, "kernel_layout") << "' does not describe the weight "
      << shape_str(weight) << " (" << kernel << ")";
  TIR_USER_CHECK(string_attr(n, "data_layout") == in)
      << node_prefix(n) << "data_layout '" << string_attr(n, "data_layout") << "' does not describe the data "
      << shape_str(data) << " (" << in << " for this weight)";
  const std::string &out = string_attr(n, "out_layout");
  TIR_USER_CHECK(out == "NCHW" || out == "NCHW" + co + "c")
      << node_prefix(n) << "out_layout '" << out << "' must be NCHW or NCHW" << co
      << "c (the weight's block of output channels)";
}

Tensor dispatch(const Node &n, const std::vector<Tensor> &in, const std::string &name, bool blocked_conv) {
  const std::string &op = n.op;
  if (op == "conv2d") {
    const ops::Conv2dAttrs a = conv_attrs(n);
    if (packed_conv(n)) {  // the layouts checked by precheck
      // The tuned CPU schedule wants conv2d_nchwc's stages; others the one-stage form.
      const bool blocked_out = string_attr(n, "out_layout") != "NCHW";
      return blocked_conv ? ops::conv2d_nchwc_packed(in[0], in[1], a, blocked_out, name)
                          : ops::conv2d_packed_direct(in[0], in[1], a, blocked_out, name);
    }
    return blocked_conv && a.groups == 1 ? ops::conv2d_nchwc(in[0], in[1], a, name)
                                         : ops::conv2d(in[0], in[1], a, name);
  }
  if (op == "layout_transform") {
    // "pad" = 1: channels that do not fill the last block are padded with zeros.
    const bool pad = n.attrs.count("pad") && n.attr_int("pad") != 0;
    return pad ? ops::layout_transform_pad(in[0], string_attr(n, "src_layout"), string_attr(n, "dst_layout"), name)
               : ops::layout_transform(in[0], string_attr(n, "src_layout"), string_attr(n, "dst_layout"), name);
  }
  if (op == "batch_norm")
    return ops::batch_norm_inference(in[0], in[1], in[2], in[3], in[4], n.attr_double("eps"), 1, name);
  if (op == "relu") return ops::relu(in[0], name);
  if (op == "clip") return ops::clip(in[0], n.attr_double("lo"), n.attr_double("hi"), name);
  if (op == "add") return ops::add(in[0], in[1], name);
  if (op == "multiply") return ops::multiply(in[0], in[1], name);
  if (op == "max_pool2d")
    return ops::max_pool2d(in[0], pair_attr(n, "pool_size"), pair_attr(n, "strides"), pair_attr(n, "padding"), name);
  if (op == "avg_pool2d")
    return ops::avg_pool2d(in[0], pair_attr(n, "pool_size"), pair_attr(n, "strides"), pair_attr(n, "padding"),
                           n.attr_int("count_include_pad") != 0, name);
  if (op == "global_avg_pool2d") return ops::global_avg_pool2d(in[0], name);
  if (op == "flatten") return ops::flatten(in[0], name);
  if (op == "dense") return ops::dense(in[0], in[1], name);
  if (op == "bias_add") return ops::bias_add(in[0], in[1], static_cast<int>(n.attr_int("axis")), name);
  if (op == "softmax") return ops::softmax(in[0], static_cast<int>(n.attr_int("axis")), name);
  TIR_ASSERT(false) << "operator '" << op << "' has an arity but no lowering";
}

// Checks that read better in graph terms than the operator's own message.
void precheck(const Node &n, const std::vector<const Node *> &in) {
  auto dims = [](const Node *x) { return static_cast<int>(x->shape.size()); };
  if (n.op == "conv2d" && packed_conv(n)) {
    check_packed_layouts(n, in[0]->shape, in[1]->shape);
  } else if (n.op == "conv2d") {
    TIR_USER_CHECK(dims(in[0]) == 4) << node_prefix(n) << "input '" << in[0]->name
                                     << "' must be NCHW (4 dimensions) but has shape " << shape_str(in[0]->shape);
    TIR_USER_CHECK(dims(in[1]) == 4) << node_prefix(n) << "weight '" << in[1]->name
                                     << "' must be OIHW (4 dimensions) but has shape " << shape_str(in[1]->shape);
    const int64_t groups = n.attr_int("groups");
    TIR_USER_CHECK(groups >= 1 && in[1]->shape[1] * groups == in[0]->shape[1])
        << node_prefix(n) << "weight '" << in[1]->name << "' has " << in[1]->shape[1] << " input channels"
        << (groups > 1 ? " per group" : "") << " but input '" << in[0]->name << "' has " << in[0]->shape[1]
        << (groups > 1 ? " (" + std::to_string(groups) + " groups)" : "");
  } else if (n.op == "batch_norm") {
    TIR_USER_CHECK(dims(in[0]) >= 2) << node_prefix(n) << "input '" << in[0]->name
                                     << "' needs a channel dimension (axis 1) but has shape " << shape_str(in[0]->shape);
    static const char *roles[] = {"gamma", "beta", "mean", "var"};
    for (int i = 1; i < 5; ++i)
      TIR_USER_CHECK(in[i]->shape == std::vector<int64_t>{in[0]->shape[1]})
          << node_prefix(n) << roles[i - 1] << " '" << in[i]->name << "' has shape " << shape_str(in[i]->shape)
          << " but input '" << in[0]->name << "' has " << in[0]->shape[1] << " channels";
  } else if (n.op == "dense") {
    TIR_USER_CHECK(dims(in[0]) == 2 && dims(in[1]) == 2 && in[0]->shape[1] == in[1]->shape[1])
        << node_prefix(n) << "input '" << in[0]->name << "' " << shape_str(in[0]->shape) << " and weight '"
        << in[1]->name << "' " << shape_str(in[1]->shape)
        << " do not fit: dense needs data [N, K] and weight [M, K]";
  }
  for (size_t i = 1; i < in.size(); ++i)
    TIR_USER_CHECK(in[i]->dtype == in[0]->dtype)
        << node_prefix(n) << "input '" << in[i]->name << "' is " << in[i]->dtype << " but input '" << in[0]->name
        << "' is " << in[0]->dtype;
}

}  // namespace

std::string node_prefix(const Node &n) { return "node '" + n.name + "' (" + n.op + "): "; }

int op_arity(const Node &n) {
  static const std::map<std::string, int> arity = {
      {"conv2d", 2},  {"batch_norm", 5}, {"relu", 1},    {"add", 2},
      {"multiply", 2}, {"max_pool2d", 1}, {"avg_pool2d", 1}, {"global_avg_pool2d", 1},
      {"flatten", 1}, {"dense", 2},      {"bias_add", 2}, {"softmax", 1},
      {"clip", 1},    {"layout_transform", 1}};
  auto it = arity.find(n.op);
  if (it == arity.end()) {
    std::ostringstream known;
    for (const std::string &o : op_names()) known << " " << o;
    TIR_THROW() << node_prefix(n) << "unknown operator '" << n.op << "'; known operators: input constant"
                << known.str();
  }
  return it->second;
}

Tensor make_tensor(const Node &n, const std::vector<Tensor> &inputs, const std::string &out_name,
                   bool blocked_conv) {
  TIR_ASSERT(static_cast<int>(inputs.size()) == op_arity(n)) << node_prefix(n);
  try {
    return dispatch(n, inputs, out_name, blocked_conv);
  } catch (const Error &e) {
    const std::string prefix = node_prefix(n);
    if (std::string(e.what()).rfind(prefix, 0) == 0) throw;
    throw Error(prefix + e.what());
  }
}

void infer_shape(Node &n, const std::vector<const Node *> &inputs) {
  const int arity = op_arity(n);
  TIR_USER_CHECK(static_cast<int>(inputs.size()) == arity)
      << node_prefix(n) << "takes " << arity << " inputs but was given " << inputs.size();
  precheck(n, inputs);
  std::vector<Tensor> ph;
  for (const Node *in : inputs) {
    std::vector<Expr> shape(in->shape.begin(), in->shape.end());
    ph.push_back(placeholder(shape, in->dtype, in->name));
  }
  const Tensor out = make_tensor(n, ph, n.name);
  n.shape.clear();
  for (const Expr &e : out.shape()) {
    const int64_t *v = as_const_int(e);
    TIR_ASSERT(v) << node_prefix(n) << "inferred a symbolic dimension";
    n.shape.push_back(*v);
  }
  n.dtype = out.dtype();
}

}  // namespace tensorir::graph::detail
