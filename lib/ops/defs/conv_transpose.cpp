// conv2d_transpose and conv3d_transpose: the transposed (fractionally strided)
// convolution of NCHW (NCDHW) data with an [C_in, C_out / groups, k...] weight, computed
// as a gather: each output element sums the input elements whose strided windows cover
// it.
#include "../op_util.h"
#include "def_util.h"

namespace tensorir::ops::defs {

namespace {

using detail::const_shape;

// One spatial dimension: in, kernel, stride, dilation, pad before and after, output padding.
int64_t transposed_extent(int64_t in, int64_t k, int64_t s, int64_t d, int64_t pb, int64_t pe, int64_t op) {
  return s * (in - 1) + op + (k - 1) * d + 1 - pb - pe;
}

NdWindow transposed_window(const Node &n, const std::vector<int64_t> &weight) {
  return nd_window(n, {weight.begin() + 2, weight.end()});
}

Tensor conv_transpose(const Node &n, const Tensor &x, const Tensor &w, const std::string &name) {
  const std::vector<int64_t> xs = const_shape(x, n.op), ws = const_shape(w, n.op);
  const NdWindow win = transposed_window(n, ws);
  const std::vector<int64_t> &op = n.attr_ints("output_padding");
  const int64_t groups = n.attr_int("groups");
  const int64_t cin_g = xs[1] / groups, cout_g = ws[1];
  std::vector<int64_t> out = {xs[0], groups * cout_g};
  for (size_t i = 0; i < win.rank(); ++i)
    out.push_back(transposed_extent(xs[2 + i], ws[2 + i], win.strides[i], win.dilation[i], win.before[i],
                                    win.after[i], op[i]));
  IterVar rc = reduce_axis({0, int(cin_g)}, "rc");
  const std::vector<IterVar> r = window_axes(win);
  std::vector<IterVar> axes = {rc};
  axes.insert(axes.end(), r.begin(), r.end());
  return compute(
      detail::to_exprs(out),
      [&](const std::vector<Var> &v) {
        Expr c = v[1] / int(cout_g) * int(cin_g) + rc->var;
        std::vector<Expr> xi = {v[0], c}, wi = {c, v[1] % int(cout_g)};
        Expr ok;
        for (size_t i = 0; i < win.rank(); ++i) {
          // The input element whose strided window puts weight offset r[i] here, if any.
          const int st = int(win.strides[i]);
          Expr t = v[2 + i] + int(win.before[i]) - r[i]->var * int(win.dilation[i]), q = t / st;  // floor division
          Expr fits = t >= 0 && t % st == 0 && q < int(xs[2 + i]);
          ok = ok.defined() ? ok && fits : fits;
          xi.push_back(detail::clamp_index(q, xs[2 + i]));
          wi.push_back(r[i]->var);
        }
        return sum(select(ok, x(xi) * w(wi), make_const(x.dtype(), 0)), axes);
      },
      name);
}

void check(const Node &n, const std::vector<const Node *> &in) {
  check_same_dtypes(n, in);
  const std::vector<int64_t> &xs = in[0]->shape, &ws = in[1]->shape;
  const size_t rank = n.attr_ints("strides").size() + 2;
  TIR_USER_CHECK(xs.size() == rank && ws.size() == rank)
      << "data '" << in[0]->name << "' and weight '" << in[1]->name << "' must have rank " << rank;
  const int64_t groups = n.attr_int("groups");
  TIR_USER_CHECK(groups >= 1 && xs[1] % groups == 0 && ws[0] == xs[1])
      << "weight " << in[1]->name << " does not fit " << xs[1] << " input channels in " << groups << " groups";
  const NdWindow win = transposed_window(n, ws);
  const std::vector<int64_t> &op = n.attr_ints("output_padding");
  for (size_t i = 0; i < win.rank(); ++i) {
    TIR_USER_CHECK(op[i] >= 0) << "negative output_padding";
    TIR_USER_CHECK(transposed_extent(xs[2 + i], ws[2 + i], win.strides[i], win.dilation[i], win.before[i],
                                     win.after[i], op[i]) >= 1)
        << "the pads leave no output";
  }
}

// The operator over k spatial dimensions.
void register_transpose(const std::string &name, size_t k, const std::string &doc) {
  OpDef def;
  def.name = name;
  def.doc = doc;
  def.inputs = {"data", "weight"};
  const std::vector<int64_t> one(k, 1), zero(k, 0);
  def.attrs = {{"strides", AttrType::Ints, one},
               {"pads", AttrType::Ints, std::vector<int64_t>(2 * k, 0)},
               {"dilation", AttrType::Ints, one},
               {"output_padding", AttrType::Ints, zero},
               {"groups", AttrType::Int, int64_t{1}}};
  for (size_t i = 0; i < 4; ++i) def.attrs[i].ints_size = int(i == 1 ? 2 * k : k);
  def.pattern = graph::OpPattern::kReduction;
  def.check = check;
  def.compute = [](const Node &n, const std::vector<Tensor> &in, const std::string &name) {
    return conv_transpose(n, in[0], in[1], name);
  };
  OpStrategy cpu;
  cpu.schedule = [](const ScheduleContext &ctx) { return ops::schedule_reduce_llvm(ctx.out); };
  on_cpu(def, cpu);
  graph::register_op(std::move(def));
}

const bool registered = [] {
  register_transpose("conv2d_transpose", 2,
                     "the transposed 2-D convolution of NCHW data with an [C_in, C_out / groups, kH, kW] weight; "
                     "pads [top, left, bottom, right] trim the full result, output_padding adds zeros below and "
                     "right of it");
  register_transpose("conv3d_transpose", 3,
                     "the transposed 3-D convolution of NCDHW data with an [C_in, C_out / groups, kD, kH, kW] "
                     "weight; pads (3 before, 3 after) trim the full result, output_padding adds zeros after it");
  return true;
}();

}  // namespace

}  // namespace tensorir::ops::defs
