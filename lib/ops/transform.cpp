// Injective shape operators: pad, reshape, flatten, transpose, concatenate.
#include "tensorir/ops/transform.h"

#include <cstdint>
#include <numeric>

#include "op_util.h"

namespace tensorir::ops {

using namespace detail;

Tensor pad(const Tensor &x, const std::vector<int> &before, const std::vector<int> &after, double value,
           const std::string &name) {
  const Type t = x.dtype();
  if (!t.is_float()) {  // as a constant of the type, 1000 would wrap (int8: -24)
    const auto [tmin, tmax] = detail::int_range(t);
    TIR_USER_CHECK(value >= tmin && value <= tmax && value == std::trunc(value) && value < 0x1p63)
        << "pad of " << x.name() << ": the value " << value << " is not a " << t << " value"
        << (value >= 0x1p63 && value <= tmax ? " tensorir pads with (2^63 and above are not supported)" : "");
  }
  return pad_with(x, before, after, make_const(t, value), name);
}

Tensor detail::pad_with(const Tensor &x, const std::vector<int> &before, const std::vector<int> &after, Expr value,
                        const std::string &name) {
  const std::vector<int64_t> in = const_shape(x, "pad");
  const size_t nd = in.size();
  TIR_USER_CHECK(before.size() <= nd && after.size() <= nd)
      << "pad: tensor " << x.name() << " has " << nd << " dimensions but the padding lists have " << before.size()
      << " and " << after.size() << " entries";
  std::vector<int64_t> lo(nd, 0), hi(nd, 0), out(nd);
  for (size_t i = 0; i < nd; ++i) {
    if (i < before.size()) lo[i] = before[i];
    if (i < after.size()) hi[i] = after[i];
    TIR_USER_CHECK(lo[i] >= 0 && hi[i] >= 0) << "pad: negative padding for dimension " << i << " of tensor "
                                             << x.name();
    out[i] = in[i] + lo[i] + hi[i];
    TIR_USER_CHECK(out[i] <= INT32_MAX) << "pad: dimension " << i << " of tensor " << x.name() << " padded ("
                                        << in[i] << " + " << lo[i] << " + " << hi[i] << ") exceeds 2147483647, "
                                        << "the largest extent tensorir indexes";
  }
  return compute(
      to_exprs(out),
      [&](const std::vector<Var> &v) {
        std::vector<Expr> idx;
        Expr inside;
        for (size_t i = 0; i < nd; ++i) {
          if (lo[i] == 0 && hi[i] == 0) {
            idx.push_back(v[i]);
            continue;
          }
          Expr shifted = v[i] - static_cast<int>(lo[i]);
          Expr ok = shifted >= 0 && shifted < static_cast<int>(in[i]);
          inside = inside.defined() ? (inside && ok) : ok;
          idx.push_back(clamp_index(shifted, in[i]));
        }
        if (!inside.defined()) return x(idx);
        return select(inside, x(idx), value);
      },
      name, kInjective);
}

namespace {

// Row-major strides of a shape.
std::vector<int64_t> strides_of(const std::vector<int64_t> &s) {
  std::vector<int64_t> st(s.size(), 1);
  for (int i = static_cast<int>(s.size()) - 2; i >= 0; --i) st[i] = st[i + 1] * s[i + 1];
  return st;
}

int64_t product(const std::vector<int64_t> &s) {
  return std::accumulate(s.begin(), s.end(), int64_t(1), std::multiplies<>());
}

}  // namespace

Tensor reshape(const Tensor &x, const std::vector<int64_t> &shape, const std::string &name) {
  const std::vector<int64_t> in = const_shape(x, "reshape");
  std::vector<int64_t> out = shape;
  int infer = -1;
  int64_t known = 1;
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i] == -1) {
      TIR_USER_CHECK(infer < 0) << "reshape of " << x.name() << ": only one dimension may be -1";
      infer = static_cast<int>(i);
    } else {
      TIR_USER_CHECK(out[i] > 0) << "reshape of " << x.name() << ": dimension " << i << " is " << out[i]
                                 << "; dimensions must be positive or -1";
      TIR_USER_CHECK(!__builtin_mul_overflow(known, out[i], &known) && known <= INT32_MAX)
          << "reshape of " << x.name() << " to " << shape_str(shape) << ": more than 2147483647 elements";
    }
  }
  const int64_t total = product(in);
  if (infer >= 0) {
    TIR_USER_CHECK(total % known == 0) << "reshape of " << x.name() << " " << shape_str(in) << ": " << total
                                       << " elements do not fill " << shape_str(shape);
    out[infer] = total / known;
  }
  TIR_USER_CHECK(product(out) == total) << "reshape of " << x.name() << " " << shape_str(in) << " to "
                                        << shape_str(out) << ": the element counts differ";
  const std::vector<int64_t> in_st = strides_of(in), out_st = strides_of(out);
  return compute(
      to_exprs(out),
      [&](const std::vector<Var> &v) {
        Expr flat = 0;
        for (size_t i = 0; i < out.size(); ++i) flat = flat + v[i] * static_cast<int>(out_st[i]);
        std::vector<Expr> idx;
        for (size_t i = 0; i < in.size(); ++i) {
          Expr e = flat / static_cast<int>(in_st[i]);
          idx.push_back(i == 0 ? e : e % static_cast<int>(in[i]));
        }
        return x(idx);
      },
      name, kInjective);
}

Tensor flatten(const Tensor &x, const std::string &name) {
  const std::vector<int64_t> in = const_shape(x, "flatten");
  TIR_USER_CHECK(!in.empty()) << "flatten: tensor " << x.name() << " has no dimensions";
  return reshape(x, {in[0], product(in) / in[0]}, name);
}

Tensor transpose(const Tensor &x, const std::vector<int> &axes_in, const std::string &name) {
  const std::vector<int64_t> in = const_shape(x, "transpose");
  const int nd = static_cast<int>(in.size());
  std::vector<int> axes = axes_in;
  if (axes.empty())
    for (int i = nd - 1; i >= 0; --i) axes.push_back(i);
  TIR_USER_CHECK(static_cast<int>(axes.size()) == nd)
      << "transpose of " << x.name() << ": " << axes.size() << " axes given for a tensor of rank " << nd;
  std::vector<bool> seen(nd, false);
  for (int &a : axes) {
    a = normalize_axis(a, nd, x, "transpose");
    TIR_USER_CHECK(!seen[a]) << "transpose of " << x.name() << ": axis " << a << " appears twice";
    seen[a] = true;
  }
  std::vector<int64_t> out(nd);
  for (int i = 0; i < nd; ++i) out[i] = in[axes[i]];
  return compute(
      to_exprs(out),
      [&](const std::vector<Var> &v) {
        std::vector<Expr> idx(nd);
        for (int i = 0; i < nd; ++i) idx[axes[i]] = v[i];
        return x(idx);
      },
      name, kInjective);
}

Tensor concatenate(const std::vector<Tensor> &tensors, int axis, const std::string &name) {
  TIR_USER_CHECK(!tensors.empty()) << "concatenate: no tensors given";
  const Tensor &first = tensors[0];
  std::vector<int64_t> out = const_shape(first, "concatenate");
  const int nd = static_cast<int>(out.size());
  axis = normalize_axis(axis, nd, first, "concatenate");
  std::vector<int64_t> offsets = {0};
  out[axis] = 0;
  for (const Tensor &t : tensors) {
    std::vector<int64_t> s = const_shape(t, "concatenate");
    check_same_dtype(first, t, "concatenate");
    TIR_USER_CHECK(static_cast<int>(s.size()) == nd)
        << "concatenate: tensor " << t.name() << " has rank " << s.size() << " but " << first.name() << " has "
        << nd;
    for (int i = 0; i < nd; ++i)
      TIR_USER_CHECK(i == axis || s[i] == out[i])
          << "concatenate along axis " << axis << ": dimension " << i << " of " << t.name() << " is " << s[i]
          << " but that of " << first.name() << " is " << out[i];
    out[axis] += s[axis];
    offsets.push_back(out[axis]);
  }
  return compute(
      to_exprs(out),
      [&](const std::vector<Var> &v) {
        // Walk from the last tensor back: each earlier one takes the indices below its end.
        Expr result;
        for (int k = static_cast<int>(tensors.size()) - 1; k >= 0; --k) {
          std::vector<Expr> idx(v.begin(), v.end());
          const int64_t len = offsets[k + 1] - offsets[k];
          idx[axis] = clamp_index(v[axis] - static_cast<int>(offsets[k]), len);
          Expr read = tensors[k](idx);
          result = result.defined() ? select(v[axis] < static_cast<int>(offsets[k + 1]), read, result) : read;
        }
        return result;
      },
      name, kInjective);
}

}  // namespace tensorir::ops
