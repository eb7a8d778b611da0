// conv3d: NCDHW data and [K, C / groups, KD, KH, KW] weights, padded per side. On the CPU
// it runs under conv2d's direct schedule (output rows in parallel, a local tile of
// channels by a vector of output columns).
#include "def_util.h"

namespace tensorir::ops::defs {

namespace {

using detail::const_shape;

NdWindow conv_window(const Node &n, const std::vector<int64_t> &weight) {
  return nd_window(n, {weight.begin() + 2, weight.end()});
}

void check(const Node &n, const std::vector<const Node *> &in) {
  check_same_dtypes(n, in);
  const std::vector<int64_t> &xs = in[0]->shape, &ws = in[1]->shape;
  TIR_USER_CHECK(xs.size() == 5 && ws.size() == 5)
      << "data '" << in[0]->name << "' (NCDHW) and weight '" << in[1]->name << "' ([K, C/groups, KD, KH, KW]) must "
      << "have rank 5 but have shapes " << shape_str(xs) << " and " << shape_str(ws);
  const int64_t groups = n.attr_int("groups");
  TIR_USER_CHECK(groups >= 1 && ws[0] % groups == 0 && ws[1] * groups == xs[1])
      << "weight '" << in[1]->name << "' " << shape_str(ws) << " does not fit " << xs[1] << " input channels in "
      << groups << " groups";
  const NdWindow w = conv_window(n, ws);
  for (int64_t o : w.out({xs.begin() + 2, xs.end()}))
    TIR_USER_CHECK(o >= 1) << "the kernel is larger than the padded input";
}

Tensor conv3d(const Node &n, const Tensor &x, const Tensor &weight, const std::string &name) {
  const std::vector<int64_t> xs = const_shape(x, "conv3d"), ws = const_shape(weight, "conv3d");
  const NdWindow w = conv_window(n, ws);
  const int64_t groups = n.attr_int("groups");
  const int cg = int(xs[1] / groups), kg = int(ws[0] / groups);
  Tensor P = pad_window(x, w, make_const(x.dtype(), 0), name + "_pad");
  const std::vector<IterVar> r = window_axes(w);
  IterVar rc = reduce_axis({0, cg}, "rc");
  std::vector<int64_t> out = {xs[0], ws[0]}, o = w.out({xs.begin() + 2, xs.end()});
  out.insert(out.end(), o.begin(), o.end());
  return compute(
      detail::to_exprs(out),
      [&](const std::vector<Var> &v) {
        Expr c = groups == 1 ? Expr(rc) : (v[1] / kg) * cg + rc;
        return sum(P(window_read(v, c, r, w)) * weight(v[1], rc, r[0], r[1], r[2]), {rc, r[0], r[1], r[2]});
      },
      name, "conv3d");
}

const bool registered = [] {
  OpDef def;
  def.name = "conv3d";
  def.doc = "3-D convolution: data [N, C, D, H, W], weight [K, C/groups, KD, KH, KW] -> [N, K, OD, OH, OW]";
  def.inputs = {"data", "weight"};
  def.attrs = {{"strides", AttrType::Ints, std::vector<int64_t>{1, 1, 1}},
               {"pads", AttrType::Ints, std::vector<int64_t>{0, 0, 0, 0, 0, 0}, "before (D, H, W), then after"},
               {"dilation", AttrType::Ints, std::vector<int64_t>{1, 1, 1}},
               {"groups", AttrType::Int, int64_t{1}}};
  def.attrs[0].ints_size = def.attrs[2].ints_size = 3;
  def.attrs[1].ints_size = 6;
  def.pattern = graph::OpPattern::kOutFusable;
  def.check = check;
  def.compute = [](const Node &n, const std::vector<Tensor> &in, const std::string &name) {
    return conv3d(n, in[0], in[1], name);
  };
  OpStrategy cpu;
  cpu.schedule = [](const ScheduleContext &ctx) { return ops::schedule_conv2d_llvm(ctx.out, ctx.target); };
  cpu.takes_tail = [](const Node &) { return false; };
  on_cpu(def, cpu);
  graph::register_op(std::move(def));
  return true;
}();

}  // namespace

}  // namespace tensorir::ops::defs
