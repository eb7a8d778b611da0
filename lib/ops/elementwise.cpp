// Element-wise activations and per-channel affine maps (bias, batch norm).
#include <cmath>
#include <functional>

#include "op_util.h"
#include "tensorir/ops/nn.h"

namespace tensorir::ops {

using namespace detail;

namespace {

Tensor unary(const Tensor &x, const std::string &name, const std::function<Expr(Expr)> &f) {
  return compute(x.shape(), [&](const std::vector<Var> &v) { return f(x(std::vector<Expr>(v.begin(), v.end()))); },
                 name, kInjective);
}

// Checks that `vec` is a vector of x.shape[axis] elements of x's dtype.
void check_channel_vector(const Tensor &x, const Tensor &vec, int axis, const std::string &op) {
  const std::vector<int64_t> sx = const_shape(x, op), sv = const_shape(vec, op);
  TIR_USER_CHECK(sv.size() == 1 && sv[0] == sx[axis])
      << op << ": " << vec.name() << " has shape " << shape_str(sv) << " but must be [" << sx[axis]
      << "], the size of axis " << axis << " of " << x.name() << " " << shape_str(sx);
  check_same_dtype(x, vec, op);
}

}  // namespace

Tensor relu(const Tensor &x, const std::string &name) {
  const Type t = x.dtype();
  return unary(x, name, [&](Expr v) { return max(v, make_const(t, 0)); });
}

Tensor clip(const Tensor &x, double lo, double hi, const std::string &name) {
  TIR_USER_CHECK(lo <= hi) << "clip of " << x.name() << ": lower bound " << lo << " exceeds upper bound " << hi;
  const Type t = x.dtype();
  if (!t.is_float()) {
    // Bounds past the type's range would wrap as constants of it (1000 as int8 is -24):
    // those the type's values all lie within are dropped instead.
    const auto [tmin, tmax] = detail::int_range(t);
    TIR_USER_CHECK(hi >= tmin && lo <= tmax && std::ceil(lo) <= std::floor(hi))
        << "clip of " << x.name() << ": no " << t << " value lies in [" << lo << ", " << hi << "]";
    const bool clamps_lo = lo > tmin, clamps_hi = hi < tmax;
    TIR_USER_CHECK(!(clamps_lo && lo >= 0x1p63) && !(clamps_hi && hi >= 0x1p63))
        << "clip of " << x.name() << ": a bound of 2^63 or more (" << (lo >= 0x1p63 ? lo : hi)
        << ") is not supported for " << t;
    return unary(x, name, [&](Expr v) {
      if (clamps_lo) v = max(v, make_const(t, std::ceil(lo)));
      if (clamps_hi) v = min(v, make_const(t, std::floor(hi)));
      return v;
    });
  }
  return unary(x, name, [&](Expr v) { return min(max(v, make_const(t, lo)), make_const(t, hi)); });
}

Tensor sigmoid(const Tensor &x, const std::string &name) {
  return unary(x, name, [](Expr v) { return tensorir::sigmoid(v); });
}

Tensor tanh(const Tensor &x, const std::string &name) {
  return unary(x, name, [](Expr v) { return tensorir::tanh(v); });
}

Tensor bias_add(const Tensor &data, const Tensor &bias, int axis, const std::string &name) {
  axis = normalize_axis(axis, data.ndim(), data, "bias_add");
  check_channel_vector(data, bias, axis, "bias_add");
  return compute(
      data.shape(),
      [&](const std::vector<Var> &v) { return data(std::vector<Expr>(v.begin(), v.end())) + bias(v[axis]); }, name,
      kInjective);
}

Tensor batch_norm_inference(const Tensor &x, const Tensor &gamma, const Tensor &beta, const Tensor &mean,
                            const Tensor &var, double eps, int axis, const std::string &name) {
  axis = normalize_axis(axis, x.ndim(), x, "batch_norm_inference");
  for (const Tensor *t : {&gamma, &beta, &mean, &var}) check_channel_vector(x, *t, axis, "batch_norm_inference");
  const Type t = x.dtype();
  return compute(
      x.shape(),
      [&](const std::vector<Var> &v) {
        Expr c = v[axis];
        Expr scale = gamma(c) / sqrt(var(c) + make_const(t, eps));
        return (x(std::vector<Expr>(v.begin(), v.end())) - mean(c)) * scale + beta(c);
      },
      name, kInjective);
}

}  // namespace tensorir::ops
