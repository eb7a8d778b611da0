// Per-channel affine operators: bias_add and batch_norm (inference).
#include "def_util.h"

namespace tensorir::ops::defs {

namespace {

void check_batch_norm(const Node &n, const std::vector<const Node *> &in) {
  TIR_USER_CHECK(in[0]->shape.size() >= 2) << "input '" << in[0]->name
                                           << "' needs a channel dimension (axis 1) but has shape "
                                           << shape_str(in[0]->shape);
  static const char *roles[] = {"gamma", "beta", "mean", "var"};
  for (size_t i = 1; i < 5; ++i)
    TIR_USER_CHECK(in[i]->shape == std::vector<int64_t>{in[0]->shape[1]})
        << roles[i - 1] << " '" << in[i]->name << "' has shape " << shape_str(in[i]->shape) << " but input '"
        << in[0]->name << "' has " << in[0]->shape[1] << " channels";
  check_same_dtypes(n, in);
}

const bool registered = [] {
  OpDef bias_add;
  bias_add.name = "bias_add";
  bias_add.doc = "x + bias, the vector bias along `axis`";
  bias_add.inputs = {"x", "bias"};
  bias_add.attrs = {{"axis", AttrType::Int, int64_t{1}}};
  bias_add.pattern = graph::OpPattern::kBroadcast;
  bias_add.layout = graph::LayoutRule::kChannelBias;
  bias_add.check = check_same_dtypes;
  bias_add.compute = [](const Node &n, const std::vector<Tensor> &in, const std::string &name) {
    return ops::bias_add(in[0], in[1], static_cast<int>(n.attr_int("axis")), name);
  };
  on_cpu(bias_add, blocked_cpu_strategy());
  graph::register_op(std::move(bias_add));

  OpDef bn;
  bn.name = "batch_norm";
  bn.doc = "(x - mean) / sqrt(var + eps) * gamma + beta along axis 1 (inference)";
  bn.inputs = {"x", "gamma", "beta", "mean", "var"};
  bn.attrs = {{"eps", AttrType::Real, 1e-5}};
  bn.pattern = graph::OpPattern::kBroadcast;
  bn.check = check_batch_norm;
  bn.compute = [](const Node &n, const std::vector<Tensor> &in, const std::string &name) {
    return ops::batch_norm_inference(in[0], in[1], in[2], in[3], in[4], n.attr_double("eps"), 1, name);
  };
  on_cpu(bn, blocked_cpu_strategy());
  graph::register_op(std::move(bn));
  return true;
}();

}  // namespace

}  // namespace tensorir::ops::defs
