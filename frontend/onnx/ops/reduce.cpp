// Reductions (ReduceSum ... ReduceSumSquare, ArgMax, ArgMin), LayerNormalization and
// MeanVarianceNormalization.
// The axes of a reduction are an attribute up to opset 12 for ReduceSum and up to 17 for
// the others, then an optional input (known at import) with noop_with_empty_axes: no
// axes then means the identity instead of every axis. Reductions of known integers fold
// at import.
#include <algorithm>
#include <climits>
#include <limits>

#include "frontend/onnx/ops/ops_util.h"

namespace tensorir::onnx::detail {

namespace {

struct Reduction {
  std::string onnx_op, kind;
  bool float_only;
  int axes_input_since;  // the opset from which axes are an input
};

// Max and min take bool from opset 20 (false < true): as uint8.
bool bool_extremum(const Context &c, const Reduction &r) {
  return c.dtype(0).is_bool() && c.opset() >= 20 && (r.kind == "max" || r.kind == "min");
}

void check_reduce_input(const Context &c, const Reduction &r) {
  if (c.dtype(0).is_bool() && !bool_extremum(c, r)) unsupported("bool input '" + c.input_name(0) + "'");
  if (r.float_only) need_float(c, 0);
  if (c.rank(0) == 0) unsupported("a scalar input");
}

// The reduction of a known integer tensor (a shape, say) over the axes flagged in `red`,
// on the host; integers wrap as the graph's do. Only sum, max, min, prod, l1, sum_square.
NDArray fold_reduce(const NDArray &x, const std::string &kind, const std::vector<bool> &red, bool keepdims) {
  const std::vector<int64_t> &s = x.shape();
  std::vector<int64_t> kept, out_shape;  // kept: the shape with reduced axes as 1
  for (size_t i = 0; i < s.size(); ++i) {
    kept.push_back(red[i] ? 1 : s[i]);
    if (!red[i] || keepdims) out_shape.push_back(red[i] ? 1 : s[i]);
  }
  std::vector<int64_t> stride(s.size(), 1), kstride(s.size(), 1);
  for (size_t i = s.size(); i-- > 1;) {
    stride[i - 1] = stride[i] * s[i];
    kstride[i - 1] = kstride[i] * kept[i];
  }
  const std::vector<int64_t> v = to_int64s(x);
  const bool is_max = kind == "max", is_min = kind == "min", is_prod = kind == "prod";
  std::vector<uint64_t> acc(size_t(element_count(kept)),
                            is_max ? uint64_t(INT64_MIN) : is_min ? uint64_t(INT64_MAX) : is_prod ? 1 : 0);
  for (size_t e = 0; e < v.size(); ++e) {
    int64_t o = 0;
    for (size_t i = 0; i < s.size(); ++i)
      if (!red[i]) o += int64_t(e) / stride[i] % s[i] * kstride[i];
    uint64_t &a = acc[size_t(o)];
    const int64_t x1 = v[e];
    if (is_max) a = uint64_t(std::max(int64_t(a), x1));
    else if (is_min) a = uint64_t(std::min(int64_t(a), x1));
    else if (is_prod) a *= uint64_t(x1);
    else if (kind == "l1") a += uint64_t(x1 < 0 ? -x1 : x1);
    else if (kind == "sum_square") a += uint64_t(x1) * uint64_t(x1);
    else a += uint64_t(x1);
  }
  return from_int64s(std::vector<int64_t>(acc.begin(), acc.end()), out_shape, x.dtype());
}

// noop_with_empty_axes: each element reduced alone. Its element-wise part stays, as in
// ONNX's reference and ONNX Runtime: |x| (l1, l2), x * x (sum_square), log x (log_sum).
void reduce_nothing(Context &c, const std::string &kind) {
  if (kind == "l1" || kind == "l2") c.output(0, "abs", {c.node(0)});
  else if (kind == "sum_square") c.output(0, "multiply", {c.node(0), c.node(0)});
  else if (kind == "log_sum") c.output(0, "log", {c.node(0)});
  else c.forward(0, 0);  // sum, mean, max, min, prod, log_sum_exp: x itself
}

// The reduction of an empty input over the axes flagged in `red`: empty where the result
// is, else ONNX's value for no elements:
// 0 for sums (and L1, L2, squares), 1 for products, the lowest value for max (-inf in
// floats) and the highest for min, -inf for the logarithms; the mean is undefined.
void reduce_empty(Context &c, const Reduction &r, const std::vector<bool> &red, bool keepdims) {
  const std::vector<int64_t> &in = c.shape(0);
  std::vector<int64_t> out;
  for (size_t i = 0; i < in.size(); ++i)
    if (!red[i] || keepdims) out.push_back(red[i] ? 1 : in[i]);
  if (element_count(out) == 0) return empty_output(c, 0, out, c.dtype(0));
  if (r.kind == "mean") unsupported("the mean of no elements, which ONNX leaves undefined");
  const Type t = c.dtype(0);
  const size_t n = size_t(check_host_size(out, t));
  const bool high = r.kind == "min", low = r.kind == "max" || r.kind == "log_sum" || r.kind == "log_sum_exp";
  if (t.is_float()) {
    const double inf = std::numeric_limits<double>::infinity();
    return c.set_output(0, from_doubles(std::vector<double>(n, high ? inf : low ? -inf : r.kind == "prod"), out, t));
  }
  // Integers (bool as 0 and 1): the type's extremes; uint64's highest is -1 as int64.
  const int bits = t.bits();
  const bool is_signed = t.is_int();
  const int64_t top = bits == 64 ? (is_signed ? INT64_MAX : -1)
                                 : is_signed ? (int64_t(1) << (bits - 1)) - 1 : (int64_t(1) << bits) - 1;
  const int64_t bottom = is_signed ? -top - 1 : 0;
  const int64_t v = high ? top : low ? bottom : r.kind == "prod";
  c.set_output(0, from_int64s(std::vector<int64_t>(n, v), out, t));
}

void reduce(Context &c, const Reduction &r) {
  check_reduce_input(c, r);
  const Attributes &a = c.attrs();
  std::vector<int64_t> axes;
  if (c.opset() < r.axes_input_since) {
    axes = a.ints("axes");
  } else {
    if (c.num_inputs() > 1 && c.has_input(1)) axes = c.ints(1, "axes");
    if (axes.empty() && a.i("noop_with_empty_axes", 0) != 0) return reduce_nothing(c, r.kind);
  }
  for (int64_t &ax : axes) ax = normalize_axis(ax, c.rank(0), "axis");
  const bool keepdims = a.i("keepdims", 1) != 0;
  std::vector<bool> red(size_t(c.rank(0)), axes.empty());
  for (int64_t ax : axes) red[size_t(ax)] = true;
  if (element_count(c.shape(0)) == 0) return reduce_empty(c, r, red, keepdims);
  // Known integers (shape computations: the element count of a shape) fold on the host.
  if (c.known(0) && !c.dtype(0).is_float() && !r.float_only && !c.dtype(0).is_uint())
    return c.set_output(0, fold_reduce(c.input(0).known, r.kind, red, keepdims));
  const std::map<std::string, graph::AttrValue> over = {{"axes", axes}, {"keepdims", int64_t(keepdims)}};
  if (bool_extremum(c, r)) {
    graph::NodeRef bytes = c.make("cast", {c.node(0)}, {{"dtype", UInt(8).str()}});
    return void(c.output(0, "cast", {c.make("reduce_" + r.kind, {bytes}, over)}, {{"dtype", Bool().str()}}));
  }
  c.output(0, "reduce_" + r.kind, {c.node(0)}, over);
}

void register_reduction(const Reduction &r) {
  auto convert = [r](Context &c) { reduce(c, r); };
  register_converter({r.onnx_op, kMinOpset, r.axes_input_since - 1, nullptr, convert});
  // From that opset an `axes` attribute is not part of the operator: ignoring it would
  // reduce over every axis.
  const int since = r.axes_input_since;
  auto check = [since](const Attributes &a) { return attribute_now_input(a, "axes", since, 1); };
  register_converter({r.onnx_op, r.axes_input_since, kLatest, check, convert});
}

void arg_reduce(Context &c, const std::string &op) {
  if (c.dtype(0).is_bool()) unsupported("bool input '" + c.input_name(0) + "'");
  if (c.rank(0) == 0) unsupported("a scalar input");
  const Attributes &a = c.attrs();
  const int axis = normalize_axis(a.i("axis", 0), c.rank(0));
  c.output(0, op, {c.node(0)},
           {{"axis", int64_t(axis)},
            {"keepdims", int64_t(a.i("keepdims", 1) != 0)},
            {"select_last", int64_t(a.i("select_last_index", 0) != 0)}});
}

// Y = (X - mean) / sqrt(var + epsilon) * Scale + B over the dimensions from axis on; the
// optional Mean and InvStdDev outputs (those dimensions kept as 1) by reductions of
// their own.
void layer_norm(Context &c) {
  need_float(c, 0);
  if (c.rank(0) == 0) unsupported("a scalar input");
  const Attributes &a = c.attrs();
  const int rank = c.rank(0);
  const int axis = normalize_axis(a.i("axis", -1), rank);
  const double eps = a.f("epsilon", 1e-5f);
  TIR_USER_CHECK(c.dtype(1) == c.dtype(0)) << "Scale '" << c.input_name(1) << "' is " << c.dtype(1) << " but X is "
                                           << c.dtype(0);
  graph::NodeRef bias;
  if (c.num_inputs() > 2 && c.has_input(2)) {
    TIR_USER_CHECK(c.dtype(2) == c.dtype(0)) << "B '" << c.input_name(2) << "' is " << c.dtype(2) << " but X is "
                                             << c.dtype(0);
    bias = c.node(2);
  } else {
    bias = c.constant(scalar(0.0, c.dtype(0)), "bias");
  }
  graph::NodeRef x = c.node(0);
  if (c.wants_output(0))
    c.output(0, "layer_norm", {x, c.node(1), bias}, {{"axis", int64_t(axis)}, {"eps", eps}});
  if (!c.wants_output(1) && !(c.num_outputs() > 2 && c.wants_output(2))) return;
  std::vector<int64_t> axes;
  for (int i = axis; i < rank; ++i) axes.push_back(i);
  const std::map<std::string, graph::AttrValue> stat = {{"axes", axes}, {"keepdims", int64_t{1}}};
  graph::NodeRef mean = c.make("reduce_mean", {x}, stat);
  if (c.wants_output(1)) c.set_output(1, mean);
  if (c.num_outputs() > 2 && c.wants_output(2)) {
    graph::NodeRef d = c.make("subtract", {x, mean});
    graph::NodeRef var = c.make("reduce_mean", {c.make("multiply", {d, d})}, stat);
    graph::NodeRef sd = c.make("sqrt", {c.make("add", {var, c.constant(scalar(eps, c.dtype(0)), "epsilon")})});
    c.set_output(2, c.make("reciprocal", {sd}));
  }
}

// (x - mean) / (sqrt(var) + 1e-9), the means over axes (default N, H, W). ONNX writes
// var as mean(x^2) - mean^2; computed as mean((x - mean)^2) it does not cancel to noise
// (or below zero, a NaN) when the mean is large against the spread.
void mean_variance_normalization(Context &c) {
  need_float(c, 0);
  const std::vector<int64_t> axes = c.attrs().ints("axes", {0, 2, 3});
  for (int64_t a : axes) normalize_axis(a, c.rank(0));
  if (axes.empty()) unsupported("no axes");
  const std::map<std::string, graph::AttrValue> stat = {{"axes", axes}, {"keepdims", int64_t{1}}};
  graph::NodeRef x = c.node(0);
  graph::NodeRef mean = c.make("reduce_mean", {x}, stat);
  graph::NodeRef d = c.make("subtract", {x, mean});
  graph::NodeRef var = c.make("reduce_mean", {c.make("multiply", {d, d})}, stat);
  graph::NodeRef sd = c.make("add", {c.make("sqrt", {var}), c.constant(scalar(1e-9, c.dtype(0)), "epsilon")});
  c.output(0, "divide", {d, sd});
}

// x / (the L1 or L2 norm of x along axis); 0 where the norm is 0, as ONNX's reference
// and ONNX Runtime give.
void lp_normalization(Context &c) {
  need_float(c, 0);
  if (c.rank(0) == 0) unsupported("a scalar input");
  const int64_t p = c.attrs().i("p", 2);
  TIR_USER_CHECK(p == 1 || p == 2) << "p is " << p << "; it must be 1 or 2";
  const int64_t axis = normalize_axis(c.attrs().i("axis", -1), c.rank(0), "axis");
  graph::NodeRef norm = c.make(p == 1 ? "reduce_l1" : "reduce_l2", {c.node(0)},
                               {{"axes", std::vector<int64_t>{axis}}, {"keepdims", int64_t{1}}});
  graph::NodeRef zero = c.constant(scalar(0.0, c.dtype(0)), "zero");
  c.output(0, "where", {c.make("equal", {norm, zero}), zero, c.make("divide", {c.node(0), norm})});
}

const bool registered = [] {
  register_converter({"LpNormalization", kMinOpset, kLatest, nullptr, lp_normalization});
  const std::vector<Reduction> reductions = {
      {"ReduceSum", "sum", false, 13},
      {"ReduceMean", "mean", true, 18},
      {"ReduceMax", "max", false, 18},
      {"ReduceMin", "min", false, 18},
      {"ReduceProd", "prod", false, 18},
      {"ReduceL1", "l1", false, 18},
      {"ReduceL2", "l2", true, 18},
      {"ReduceLogSum", "log_sum", true, 18},
      {"ReduceLogSumExp", "log_sum_exp", true, 18},
      {"ReduceSumSquare", "sum_square", false, 18},
  };
  for (const Reduction &r : reductions) register_reduction(r);
  register_converter({"MeanVarianceNormalization", 9, kLatest, nullptr, mean_variance_normalization});
  register_converter({"ArgMax", kMinOpset, kLatest, nullptr, [](Context &c) { arg_reduce(c, "argmax"); }});
  register_converter({"ArgMin", kMinOpset, kLatest, nullptr, [](Context &c) { arg_reduce(c, "argmin"); }});
  register_converter({"LayerNormalization", 17, kLatest, check_stash_type, layer_norm});
  return true;
}();

}  // namespace

}  // namespace tensorir::onnx::detail
