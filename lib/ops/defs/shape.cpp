// Data movement with shapes given as attributes: reshape, transpose, concatenate (any
// number of inputs), pad, slice. They read NCHW: blocked activations are transformed
// back first.
#include "../op_util.h"
#include "def_util.h"

namespace tensorir::ops::defs {

namespace {

OpDef injective(const std::string &name, std::vector<std::string> inputs) {
  OpDef def;
  def.name = name;
  def.inputs = std::move(inputs);
  def.pattern = graph::OpPattern::kInjective;
  on_cpu(def, blocked_cpu_strategy());
  return def;
}

std::vector<int> int_list(const std::vector<int64_t> &v) { return std::vector<int>(v.begin(), v.end()); }

// x[begin[i] : end[i] : strides[i]] in every dimension i (a negative stride walks back;
// `end` is exclusive and may be -1 then). Every dimension of the result must be non-empty.
Tensor slice(const Node &n, const Tensor &x, const std::string &name) {
  const std::vector<int64_t> in = ops::detail::const_shape(x, "slice");
  const std::vector<int64_t> &begin = n.attr_ints("begin"), &end = n.attr_ints("end");
  std::vector<int64_t> strides = n.attr_ints("strides");
  if (strides.empty()) strides.assign(in.size(), 1);
  TIR_USER_CHECK(begin.size() == in.size() && end.size() == in.size() && strides.size() == in.size())
      << "begin, end and strides need one value per dimension of " << shape_str(in);
  std::vector<int64_t> out(in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    const int64_t s = strides[i];
    TIR_USER_CHECK(s != 0) << "stride " << i << " is 0";
    out[i] = s > 0 ? (end[i] - begin[i] + s - 1) / s : (begin[i] - end[i] - s - 1) / -s;
    const int64_t last = begin[i] + (out[i] - 1) * s;  // the first and last elements read lie inside
    TIR_USER_CHECK(out[i] > 0 && begin[i] >= 0 && begin[i] < in[i] && last >= 0 && last < in[i])
        << "dimension " << i << " of " << shape_str(in) << " sliced from " << begin[i] << " to " << end[i] << " by "
        << s << " is empty or reads outside";
  }
  return compute(
      ops::detail::to_exprs(out),
      [&](const std::vector<Var> &v) {
        std::vector<Expr> idx;
        for (size_t i = 0; i < in.size(); ++i)
          idx.push_back(v[i] * static_cast<int>(strides[i]) + static_cast<int>(begin[i]));
        return x(idx);
      },
      name, ops::detail::kInjective);
}

const bool registered = [] {
  OpDef reshape = injective("reshape", {"x"});
  reshape.doc = "the elements in row-major order as `shape` (one dimension may be -1, then inferred)";
  reshape.attrs = {{"shape", AttrType::Ints}};
  reshape.compute = [](const Node &n, const std::vector<Tensor> &in, const std::string &name) {
    return ops::reshape(in[0], n.attr_ints("shape"), name);
  };
  graph::register_op(std::move(reshape));

  OpDef transpose = injective("transpose", {"x"});
  transpose.doc = "output dimension i is input dimension axes[i]; no axes: reversed";
  transpose.attrs = {{"axes", AttrType::Ints, std::vector<int64_t>{}}};
  transpose.compute = [](const Node &n, const std::vector<Tensor> &in, const std::string &name) {
    return ops::transpose(in[0], int_list(n.attr_ints("axes")), name);
  };
  graph::register_op(std::move(transpose));

  OpDef concat = injective("concatenate", {"x"});
  concat.doc = "one or more tensors of one rank and dtype joined along `axis`";
  concat.variadic = true;
  concat.attrs = {{"axis", AttrType::Int, int64_t{0}}};
  concat.check = check_same_dtypes;
  concat.compute = [](const Node &n, const std::vector<Tensor> &in, const std::string &name) {
    return ops::concatenate(in, static_cast<int>(n.attr_int("axis")), name);
  };
  graph::register_op(std::move(concat));

  OpDef pad = injective("pad", {"x"});
  pad.doc = "before[i] and after[i] elements of `value` around dimension i";
  pad.attrs = {{"before", AttrType::Ints}, {"after", AttrType::Ints}, {"value", AttrType::Real, 0.0}};
  pad.compute = [](const Node &n, const std::vector<Tensor> &in, const std::string &name) {
    return ops::pad(in[0], int_list(n.attr_ints("before")), int_list(n.attr_ints("after")), n.attr_double("value"),
                    name);
  };
  graph::register_op(std::move(pad));

  OpDef slice_def = injective("slice", {"x"});
  slice_def.doc = "x[begin[i] : end[i] : strides[i]] in every dimension (no strides: 1)";
  slice_def.attrs = {
      {"begin", AttrType::Ints}, {"end", AttrType::Ints}, {"strides", AttrType::Ints, std::vector<int64_t>{}}};
  slice_def.compute = [](const Node &n, const std::vector<Tensor> &in, const std::string &name) {
    return slice(n, in[0], name);
  };
  graph::register_op(std::move(slice_def));
  return true;
}();

}  // namespace

}  // namespace tensorir::ops::defs
