// Per-channel affine operators: bias_add and batch_norm (inference); lrn, the local
// response normalization across channels.
#include "../op_util.h"
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

// x / (bias + alpha / size * (the sum of squares over the `size` channels around c))^beta;
// the window reaches floor((size - 1) / 2) channels below c and ceil((size - 1) / 2) above.
Tensor lrn(const Node &n, const Tensor &x, const std::string &name) {
  const std::vector<int64_t> s = detail::const_shape(x, "lrn");
  const int64_t size = n.attr_int("size"), channels = s[1];
  const int64_t below = (size - 1) / 2;
  const double alpha = n.attr_double("alpha"), beta = n.attr_double("beta"), bias = n.attr_double("bias");
  IterVar r = reduce_axis({0, int(size)}, "r");
  Tensor sq = compute(
      x.shape(),
      [&](const std::vector<Var> &v) {
        std::vector<Expr> idx(v.begin(), v.end());
        Expr c = v[1] - int(below) + r->var;
        idx[1] = detail::clamp_index(c, channels);
        Expr e = x(idx);
        return sum(select(c >= 0 && c < int(channels), e * e, make_const(x.dtype(), 0)), {r});
      },
      name + "_square_sum");
  return compute(
      x.shape(),
      [&](const std::vector<Var> &v) {
        std::vector<Expr> idx(v.begin(), v.end());
        Expr d = make_const(x.dtype(), bias) + make_const(x.dtype(), alpha / double(size)) * sq(idx);
        return x(idx) / tensorir::pow(d, make_const(x.dtype(), beta));
      },
      name, detail::kInjective);
}

const bool registered = [] {
  OpDef l;
  l.name = "lrn";
  l.doc = "x / (bias + alpha / size * sum of x^2 over `size` channels around each)^beta, of [N, C, ...] float data";
  l.inputs = {"x"};
  l.attrs = {{"size", AttrType::Int},
             {"alpha", AttrType::Real, 1e-4},
             {"beta", AttrType::Real, 0.75},
             {"bias", AttrType::Real, 1.0}};
  l.pattern = graph::OpPattern::kReduction;
  l.check = [](const Node &n, const std::vector<const Node *> &in) {
    TIR_USER_CHECK(in[0]->dtype.is_float() && in[0]->shape.size() >= 2)
        << "input '" << in[0]->name << "' must be a float tensor with channels (axis 1)";
    TIR_USER_CHECK(n.attr_int("size") >= 1) << "size " << n.attr_int("size");
  };
  l.compute = [](const Node &n, const std::vector<Tensor> &in, const std::string &name) { return lrn(n, in[0], name); };
  OpStrategy l_cpu;
  l_cpu.schedule = [](const ScheduleContext &ctx) { return ops::schedule_reduce_llvm(ctx.out); };
  on_cpu(l, l_cpu);
  graph::register_op(std::move(l));

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
