// conv2d_transpose: the transposed (fractionally strided) 2-D convolution of NCHW data
// with an [C_in, C_out / groups, kH, kW] weight, computed as a gather: each output
// element sums the input elements whose strided windows cover it.
#include "../op_util.h"
#include "def_util.h"

namespace tensorir::ops::defs {

namespace {

using detail::const_shape;

// One spatial dimension: in, kernel, stride, dilation, pad before and after, output padding.
int64_t transposed_extent(int64_t in, int64_t k, int64_t s, int64_t d, int64_t pb, int64_t pe, int64_t op) {
  return s * (in - 1) + op + (k - 1) * d + 1 - pb - pe;
}

Tensor conv2d_transpose(const Node &n, const Tensor &x, const Tensor &w, const std::string &name) {
  const std::vector<int64_t> xs = const_shape(x, "conv2d_transpose"), ws = const_shape(w, "conv2d_transpose");
  const std::vector<int64_t> &st = n.attr_ints("strides"), &pads = n.attr_ints("pads"), &dil = n.attr_ints("dilation"),
                             &op = n.attr_ints("output_padding");
  const int64_t groups = n.attr_int("groups");
  const int64_t cin_g = xs[1] / groups, cout_g = ws[1];
  const int64_t oh = transposed_extent(xs[2], ws[2], st[0], dil[0], pads[0], pads[2], op[0]);
  const int64_t ow = transposed_extent(xs[3], ws[3], st[1], dil[1], pads[1], pads[3], op[1]);
  IterVar rc = reduce_axis({0, int(cin_g)}, "rc"), rh = reduce_axis({0, int(ws[2])}, "rh"),
          rw = reduce_axis({0, int(ws[3])}, "rw");
  return compute(
      detail::to_exprs({xs[0], groups * cout_g, oh, ow}),
      [&](const std::vector<Var> &v) {
        Expr g = v[1] / int(cout_g), oc = v[1] % int(cout_g);
        Expr c = g * int(cin_g) + rc->var;
        Expr ty = v[2] + int(pads[0]) - rh->var * int(dil[0]), tx = v[3] + int(pads[1]) - rw->var * int(dil[1]);
        Expr iy = ty / int(st[0]), ix = tx / int(st[1]);  // floor division; checked below
        Expr ok = ty >= 0 && tx >= 0 && ty % int(st[0]) == 0 && tx % int(st[1]) == 0 && iy < int(xs[2]) &&
                  ix < int(xs[3]);
        Expr val = x(v[0], c, detail::clamp_index(iy, xs[2]), detail::clamp_index(ix, xs[3])) * w(c, oc, rh, rw);
        return sum(select(ok, val, make_const(x.dtype(), 0)), {rc, rh, rw});
      },
      name);
}

const bool registered = [] {
  OpDef def;
  def.name = "conv2d_transpose";
  def.doc = "the transposed 2-D convolution of NCHW data with an [C_in, C_out / groups, kH, kW] weight; pads "
            "[top, left, bottom, right] trim the full result, output_padding adds zeros below and right of it";
  def.inputs = {"data", "weight"};
  def.attrs = {{"strides", AttrType::Ints, std::vector<int64_t>{1, 1}},
               {"pads", AttrType::Ints, std::vector<int64_t>{0, 0, 0, 0}},
               {"dilation", AttrType::Ints, std::vector<int64_t>{1, 1}},
               {"output_padding", AttrType::Ints, std::vector<int64_t>{0, 0}},
               {"groups", AttrType::Int, int64_t{1}}};
  def.attrs[0].ints_size = 2;
  def.attrs[1].ints_size = 4;
  def.attrs[2].ints_size = 2;
  def.attrs[3].ints_size = 2;
  def.pattern = graph::OpPattern::kReduction;
  def.check = [](const Node &n, const std::vector<const Node *> &in) {
    check_same_dtypes(n, in);
    const std::vector<int64_t> &xs = in[0]->shape, &ws = in[1]->shape;
    TIR_USER_CHECK(xs.size() == 4 && ws.size() == 4)
        << "data '" << in[0]->name << "' and weight '" << in[1]->name << "' must have rank 4";
    const int64_t groups = n.attr_int("groups");
    TIR_USER_CHECK(groups >= 1 && xs[1] % groups == 0 && ws[0] == xs[1])
        << "weight " << in[1]->name << " does not fit " << xs[1] << " input channels in " << groups << " groups";
    for (int64_t v : n.attr_ints("strides")) TIR_USER_CHECK(v >= 1) << "a stride below 1";
    for (int64_t v : n.attr_ints("dilation")) TIR_USER_CHECK(v >= 1) << "a dilation below 1";
    for (int64_t v : n.attr_ints("pads")) TIR_USER_CHECK(v >= 0) << "negative pads";
    const std::vector<int64_t> &st = n.attr_ints("strides"), &pads = n.attr_ints("pads"),
                               &dil = n.attr_ints("dilation"), &op = n.attr_ints("output_padding");
    for (int i = 0; i < 2; ++i) {
      TIR_USER_CHECK(op[size_t(i)] >= 0) << "negative output_padding";
      TIR_USER_CHECK(transposed_extent(xs[size_t(2 + i)], ws[size_t(2 + i)], st[size_t(i)], dil[size_t(i)],
                                       pads[size_t(i)], pads[size_t(i + 2)], op[size_t(i)]) >= 1)
          << "the pads leave no output";
    }
  };
  def.compute = [](const Node &n, const std::vector<Tensor> &in, const std::string &name) {
    return conv2d_transpose(n, in[0], in[1], name);
  };
  OpStrategy cpu;
  cpu.schedule = [](const ScheduleContext &ctx) { return ops::schedule_reduce_llvm(ctx.out); };
  on_cpu(def, cpu);
  graph::register_op(std::move(def));
  return true;
}();

}  // namespace

}  // namespace tensorir::ops::defs
