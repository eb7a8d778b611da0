// Numerically stable softmax and log-softmax: subtracting the maximum keeps exp() from
// overflowing, and log_softmax never takes the log of an underflowed quotient.
#include "op_util.h"
#include "tensorir/ops/nn.h"

namespace tensorir::ops {

using namespace detail;

namespace {

Tensor softmax_stages(const Tensor &x, int axis, bool log_out, const std::string &name) {
  const std::string op = log_out ? "log_softmax" : "softmax";
  const std::vector<int64_t> s = const_shape(x, op);
  const int nd = static_cast<int>(s.size());
  axis = normalize_axis(axis, nd, x, op);
  std::vector<int64_t> reduced = s;
  reduced.erase(reduced.begin() + axis);
  if (reduced.empty()) reduced.push_back(1);  // a 1-d input reduces to one element
  // The full index with `r` at `axis`, from the indices of the reduced shape.
  auto full_index = [&](const std::vector<Var> &v, Expr r) {
    std::vector<Expr> idx;
    for (int i = 0, j = 0; i < nd; ++i) idx.push_back(i == axis ? r : Expr(v[j++]));
    return idx;
  };
  auto reduced_index = [&](const std::vector<Var> &v) {
    std::vector<Expr> idx;
    for (int i = 0; i < nd; ++i)
      if (i != axis) idx.push_back(v[i]);
    if (idx.empty()) idx.push_back(0);
    return idx;
  };
  IterVar k1 = reduce_axis({0, static_cast<int>(s[axis])}, "k");
  Tensor M = compute(
      to_exprs(reduced), [&](const std::vector<Var> &v) { return max(x(full_index(v, k1)), {k1}); }, name + "_max",
      "softmax_max");
  Tensor E = compute(
      x.shape(),
      [&](const std::vector<Var> &v) {
        return exp(x(std::vector<Expr>(v.begin(), v.end())) - M(reduced_index(v)));
      },
      name + "_exp", "softmax_exp");
  IterVar k2 = reduce_axis({0, static_cast<int>(s[axis])}, "k");
  Tensor S = compute(
      to_exprs(reduced), [&](const std::vector<Var> &v) { return sum(E(full_index(v, k2)), {k2}); }, name + "_sum",
      "softmax_sum");
  if (log_out)
    return compute(
        x.shape(),
        [&](const std::vector<Var> &v) {
          return x(std::vector<Expr>(v.begin(), v.end())) - M(reduced_index(v)) - log(S(reduced_index(v)));
        },
        name, "log_softmax");
  return compute(
      x.shape(),
      [&](const std::vector<Var> &v) { return E(std::vector<Expr>(v.begin(), v.end())) / S(reduced_index(v)); },
      name, "softmax");
}

}  // namespace

Tensor softmax(const Tensor &x, int axis, const std::string &name) { return softmax_stages(x, axis, false, name); }

Tensor log_softmax(const Tensor &x, int axis, const std::string &name) {
  return softmax_stages(x, axis, true, name);
}

}  // namespace tensorir::ops
