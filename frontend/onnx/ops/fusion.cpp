// Patterns that exporters spell out in several ONNX nodes, recognised when their last
// node converts and replaced by one graph operator with a fast schedule. The nodes of
// the pattern stay in the graph and are removed as dead unless something else reads them.
#include <cmath>

#include "frontend/onnx/ops/ops_util.h"

namespace tensorir::onnx::detail {

namespace {

const graph::Node &at(const Context &c, int id) { return c.graph_node(graph::NodeRef{id}); }

bool is_op(const graph::Node &n, const std::string &op, size_t inputs) {
  return n.op == op && n.inputs.size() == inputs;
}

// The value of a one-element float array, else false.
bool scalar_value(const NDArray &a, double *v) {
  if (!a.defined() || element_count(a.shape()) != 1 || !a.dtype().is_float()) return false;
  *v = to_doubles(a)[0];
  return true;
}

bool scalar_constant(const graph::Node &n, double *v) { return n.op == "constant" && scalar_value(n.value, v); }

// The first normalized axis of a reduce_mean over the trailing axes of x, keeping them
// as 1; -1 for anything else.
int trailing_mean_axis(const graph::Node &mean, int x, int rank) {
  if (!is_op(mean, "reduce_mean", 1) || mean.inputs[0] != x || mean.attr_int("keepdims") != 1) return -1;
  const std::vector<int64_t> &axes = mean.attr_ints("axes");
  if (axes.empty()) return -1;
  for (size_t i = 0; i < axes.size(); ++i)
    if (axes[i] != rank - int64_t(axes.size()) + int64_t(i)) return -1;
  return rank - int(axes.size());
}

// A scale or bias that layer_norm broadcasts over the dimensions from `axis` on: no more
// dimensions than those, each equal to its dimension of x or 1.
bool fits_normalized(const graph::Node &p, const std::vector<int64_t> &xs, int axis) {
  if (p.shape.size() > xs.size() - size_t(axis)) return false;
  for (size_t i = 0; i < p.shape.size(); ++i) {
    const int64_t d = xs[xs.size() - p.shape.size() + i];
    if (p.shape[i] != d && p.shape[i] != 1) return false;
  }
  return true;
}

}  // namespace

// (x - mean(x)) / sqrt(mean((x - mean(x))^2) + eps) * scale + bias, the means over the
// trailing axes, as PyTorch exports LayerNorm before opset 17 (ReduceMean, Sub, Pow,
// ReduceMean, Add, Sqrt, Div, Mul, Add): one layer_norm node, at the final Add.
bool fuse_layer_norm(Context &c) {
  if (!c.dtype(0).is_float() || c.dtype(1) != c.dtype(0)) return false;
  for (size_t s : {size_t{0}, size_t{1}}) {
    if (c.known(s)) continue;
    const graph::Node &mul = at(c, c.node(s).id);
    if (!is_op(mul, "multiply", 2)) continue;
    for (size_t t : {size_t{0}, size_t{1}}) {
      const graph::Node &div = at(c, mul.inputs[t]);
      if (!is_op(div, "divide", 2)) continue;
      const graph::Node &sub = at(c, div.inputs[0]), &sqrt = at(c, div.inputs[1]);
      if (!is_op(sub, "subtract", 2) || !is_op(sqrt, "sqrt", 1)) continue;
      const graph::Node &x = at(c, sub.inputs[0]);
      const int rank = int(x.shape.size());
      const int axis = trailing_mean_axis(at(c, sub.inputs[1]), x.id, rank);
      if (axis < 0 || x.shape != sub.shape || x.shape != c.shape(s)) continue;
      const graph::Node &add_eps = at(c, sqrt.inputs[0]);
      double eps = 0, two = 0;
      if (!is_op(add_eps, "add", 2) || !scalar_constant(at(c, add_eps.inputs[1]), &eps)) continue;
      const graph::Node &var = at(c, add_eps.inputs[0]);
      if (trailing_mean_axis(var, var.inputs.empty() ? -1 : var.inputs[0], rank) != axis) continue;
      const graph::Node &sq = at(c, var.inputs[0]);
      const bool squares = (is_op(sq, "pow", 2) && sq.inputs[0] == sub.id &&
                            scalar_constant(at(c, sq.inputs[1]), &two) && two == 2) ||
                           (is_op(sq, "multiply", 2) && sq.inputs[0] == sub.id && sq.inputs[1] == sub.id);
      const graph::NodeRef scale{mul.inputs[1 - t]}, bias = c.node(1 - s);
      if (!squares || !fits_normalized(at(c, scale.id), x.shape, axis) ||
          !fits_normalized(c.graph_node(bias), x.shape, axis))
        continue;
      c.output(0, "layer_norm", {graph::NodeRef{x.id}, scale, bias}, {{"axis", int64_t(axis)}, {"eps", eps}});
      return true;
    }
  }
  return false;
}

// x * (1 + erf(x / sqrt(2))) * 0.5, as PyTorch exports GELU (Div, Erf, Add, Mul, Mul):
// one gelu node, at the final Mul.
bool fuse_gelu(Context &c) {
  if (c.dtype(0) != Float(32) && c.dtype(0) != Float(64)) return false;
  auto erf_term = [&](const graph::Node &one_plus, int x) {  // 1 + erf(x / sqrt(2))
    double one = 0, root2 = 0;
    if (!is_op(one_plus, "add", 2)) return false;
    for (size_t u : {size_t{0}, size_t{1}}) {
      const graph::Node &erf = at(c, one_plus.inputs[u]);
      if (!scalar_constant(at(c, one_plus.inputs[1 - u]), &one) || one != 1 || !is_op(erf, "erf", 1)) continue;
      const graph::Node &div = at(c, erf.inputs[0]);
      if (is_op(div, "divide", 2) && div.inputs[0] == x && scalar_constant(at(c, div.inputs[1]), &root2) &&
          std::abs(root2 - 1.4142135623730951) < 1e-6)
        return true;
    }
    return false;
  };
  for (size_t s : {size_t{0}, size_t{1}}) {
    double half = 0;
    // A 0.5 of more dimensions than the product broadcasts it to them: no GELU then.
    if (c.known(s) || !c.known(1 - s) || !scalar_value(c.input(1 - s).known, &half) || half != 0.5 ||
        c.rank(1 - s) > c.rank(s))
      continue;
    const graph::Node &mul = at(c, c.node(s).id);
    if (!is_op(mul, "multiply", 2) || mul.shape != c.shape(s)) continue;
    for (size_t t : {size_t{0}, size_t{1}}) {
      const int x = mul.inputs[t];
      if (at(c, x).shape != mul.shape || !erf_term(at(c, mul.inputs[1 - t]), x)) continue;
      c.output(0, "gelu", {graph::NodeRef{x}});
      return true;
    }
  }
  return false;
}

}  // namespace tensorir::onnx::detail
