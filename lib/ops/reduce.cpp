// Reductions over any set of axes (sum, mean, max, min, prod, L1, L2, log-sum,
// log-sum-exp, sum of squares), the index of the largest or smallest element along an
// axis, layer normalization, and the batched matrix product.
#include <algorithm>
#include <cmath>

#include "op_util.h"
#include "tensorir/ops/nn.h"

namespace tensorir::ops {

using namespace detail;

namespace {

// The axes in [0, nd), sorted, each once; empty `axes` names them all.
std::vector<bool> reduced_axes(const std::vector<int> &axes, int nd, const Tensor &x, const std::string &op) {
  std::vector<bool> r(size_t(nd), axes.empty());
  for (int a : axes) r[size_t(normalize_axis(a, nd, x, op))] = true;
  return r;
}

// The reduction of `x` over the axes flagged in `r`: `body(element)` is reduced by
// `reducer(value, axes)`; the result keeps the reduced axes as 1 when `keepdims`.
Tensor reduce_stage(const Tensor &x, const std::vector<bool> &r, bool keepdims,
                    const std::function<Expr(Expr)> &body,
                    const std::function<Expr(Expr, const std::vector<IterVar> &)> &reducer, const std::string &name,
                    const std::string &tag, const std::string &op) {
  const std::vector<int64_t> s = const_shape(x, op);
  const int nd = int(s.size());
  std::vector<int64_t> out;
  std::vector<IterVar> rv(static_cast<size_t>(nd));
  std::vector<IterVar> all;
  for (int i = 0; i < nd; ++i) {
    if (r[size_t(i)]) {
      rv[size_t(i)] = reduce_axis({0, static_cast<int>(s[size_t(i)])}, "k" + std::to_string(i));
      all.push_back(rv[size_t(i)]);
      if (keepdims) out.push_back(1);
    } else {
      out.push_back(s[size_t(i)]);
    }
  }
  return compute(
      to_exprs(out),
      [&](const std::vector<Var> &v) {
        std::vector<Expr> idx;
        for (int i = 0, j = 0; i < nd; ++i) {
          if (r[size_t(i)]) {
            idx.push_back(rv[size_t(i)]->var);
            if (keepdims) ++j;
          } else {
            idx.push_back(v[size_t(j++)]);
          }
        }
        return reducer(body(x(idx)), all);
      },
      name, tag);
}

// An element-wise map of `t` (inlined by schedule_generic when not the output).
Tensor map(const Tensor &t, const std::function<Expr(Expr)> &f, const std::string &name, bool output) {
  return compute(
      t.shape(), [&](const std::vector<Var> &v) { return f(t(std::vector<Expr>(v.begin(), v.end()))); }, name,
      output ? std::string("reduce_map") : kInjective);
}

// The largest or smallest element, of floats from -inf or +inf (the identities of te's max
// and min are the finite extremes, which a slice of infinities would not reach).
Reducer extreme_reducer(bool is_max) {
  return comm_reducer(
      [is_max](const std::vector<Expr> &a, const std::vector<Expr> &b) {
        return std::vector<Expr>{is_max ? max(a[0], b[0]) : min(a[0], b[0])};
      },
      [is_max](const std::vector<Type> &t) {
        return std::vector<Expr>{make_const(t[0], is_max ? -HUGE_VAL : HUGE_VAL)};
      },
      is_max ? "max" : "min");
}

Expr do_sum(Expr e, const std::vector<IterVar> &a) { return sum(e, a); }
Expr do_max(Expr e, const std::vector<IterVar> &a) {
  if (!e.type().is_float()) return max(e, a);
  static const Reducer r = extreme_reducer(true);
  return r.reduce({e}, a)[0];
}
Expr do_min(Expr e, const std::vector<IterVar> &a) {
  if (!e.type().is_float()) return min(e, a);
  static const Reducer r = extreme_reducer(false);
  return r.reduce({e}, a)[0];
}
Expr do_prod(Expr e, const std::vector<IterVar> &a) { return prod(e, a); }

}  // namespace

Tensor reduce(const Tensor &x, const std::string &reduction, const std::vector<int> &axes, bool keepdims,
              const std::string &name) {
  const std::string op = "reduce_" + reduction;
  const std::vector<int64_t> s = const_shape(x, op);
  const int nd = int(s.size());
  const std::vector<bool> r = reduced_axes(axes, nd, x, op);
  const Type t = x.dtype();
  const bool float_only = reduction == "mean" || reduction == "l2" || reduction == "log_sum" || reduction == "log_sum_exp";
  TIR_USER_CHECK(!float_only || t.is_float()) << op << ": " << x.name() << " is " << t << "; " << op
                                              << " takes float tensors";
  TIR_USER_CHECK(!t.is_bool()) << op << ": " << x.name() << " is bool; reductions take numbers";
  int64_t count = 1;
  for (int i = 0; i < nd; ++i)
    if (r[size_t(i)]) count *= s[size_t(i)];
  auto id = [](Expr e) { return e; };
  auto square = [](Expr e) { return e * e; };
  if (reduction == "sum") return reduce_stage(x, r, keepdims, id, do_sum, name, "reduce", op);
  if (reduction == "max") return reduce_stage(x, r, keepdims, id, do_max, name, "reduce", op);
  if (reduction == "min") return reduce_stage(x, r, keepdims, id, do_min, name, "reduce", op);
  if (reduction == "prod") return reduce_stage(x, r, keepdims, id, do_prod, name, "reduce", op);
  if (reduction == "l1")
    return reduce_stage(x, r, keepdims, [](Expr e) { return tensorir::abs(e); }, do_sum, name, "reduce", op);
  if (reduction == "sum_square") return reduce_stage(x, r, keepdims, square, do_sum, name, "reduce", op);
  if (reduction == "mean") {
    Tensor sm = reduce_stage(x, r, keepdims, id, do_sum, name + "_sum", "reduce", op);
    return map(sm, [&](Expr e) { return e / make_const(t, double(count)); }, name, true);
  }
  if (reduction == "l2") {
    Tensor sm = reduce_stage(x, r, keepdims, square, do_sum, name + "_sum", "reduce", op);
    return map(sm, [](Expr e) { return tensorir::sqrt(e); }, name, true);
  }
  if (reduction == "log_sum") {
    Tensor sm = reduce_stage(x, r, keepdims, id, do_sum, name + "_sum", "reduce", op);
    return map(sm, [](Expr e) { return tensorir::log(e); }, name, true);
  }
  if (reduction == "log_sum_exp") {
    // max + log(sum(exp(x - max))), so that exp() does not overflow; an infinite max
    // shifts by 0 instead (all -inf gives -inf, any +inf gives +inf, as without a shift).
    Tensor mx = reduce_stage(x, r, true, id, do_max, name + "_max", "reduce", op);
    Tensor m = compute(
        mx.shape(),
        [&](const std::vector<Var> &v) {
          Expr e = mx(std::vector<Expr>(v.begin(), v.end()));
          const Expr inf = make_const(t, HUGE_VAL);
          return select(e == inf || e == -inf, make_const(t, 0), e);
        },
        name + "_shift", kInjective);
    auto max_of = [&](const std::vector<Var> &v) {  // m at the reduced index of full index v
      std::vector<Expr> idx;
      for (int i = 0; i < nd; ++i) idx.push_back(r[size_t(i)] ? Expr(0) : Expr(v[size_t(i)]));
      return m(idx);
    };
    Tensor shifted = compute(
        x.shape(),
        [&](const std::vector<Var> &v) {
          return tensorir::exp(x(std::vector<Expr>(v.begin(), v.end())) - max_of(v));
        },
        name + "_exp", kInjective);
    Tensor sm = reduce_stage(shifted, r, keepdims, id, do_sum, name + "_sum", "reduce", op);
    return compute(
        sm.shape(),
        [&](const std::vector<Var> &v) {
          std::vector<Expr> midx;  // the index of m: reduced axes are 1 there
          for (int i = 0, j = 0; i < nd; ++i) {
            if (r[size_t(i)]) {
              midx.push_back(0);
              if (keepdims) ++j;
            } else {
              midx.push_back(v[size_t(j++)]);
            }
          }
          return tensorir::log(sm(std::vector<Expr>(v.begin(), v.end()))) + m(midx);
        },
        name, "reduce_map");
  }
  TIR_USER_CHECK(false) << "reduce: unknown reduction '" << reduction << "'";
  return Tensor();
}

Tensor arg_reduce(const Tensor &x, int axis, bool keepdims, bool select_last, bool is_max, const std::string &name,
                  Type index_type) {
  const std::string op = is_max ? "argmax" : "argmin";
  const std::vector<int64_t> s = const_shape(x, op);
  const int nd = int(s.size());
  TIR_USER_CHECK(nd > 0) << op << ": " << x.name() << " is a scalar";
  TIR_USER_CHECK(!x.dtype().is_bool()) << op << ": " << x.name() << " is bool; " << op << " takes numbers";
  axis = normalize_axis(axis, nd, x, op);
  std::vector<bool> r(size_t(nd), false);
  r[size_t(axis)] = true;
  // The extreme value (keeping the axis as 1), then the first (or last) index holding it.
  Tensor m = reduce_stage(x, r, true, [](Expr e) { return e; }, is_max ? do_max : do_min, name + "_value", "reduce",
                          op);
  const int64_t n = s[size_t(axis)];
  // The index type holds every index and the search's start exactly: n (first) or -1
  // (last). A float type is allowed for targets that store only floats (hardmax).
  TIR_USER_CHECK((index_type.is_int_or_uint() || index_type.is_float()) && !index_type.is_bool() &&
                 index_type.is_scalar())
      << op << ": the index type must be a scalar integer (or float) type such as int64, not " << index_type;
  TIR_USER_CHECK(!select_last || !index_type.is_uint())
      << op << ": with select_last the index type must be signed, not " << index_type << "; use int32 or int64";
  const bool is_bf16 = index_type.code() == Type::BFloat && index_type.bits() == 16;
  TIR_USER_CHECK(!index_type.is_float() || is_bf16 || index_type.bits() == 16 || index_type.bits() == 32 ||
                 index_type.bits() == 64)
      << op << ": the index type " << index_type << " is no float type tensorir computes in; use int32 or int64";
  // Integers up to 2^bits are exact: the value bits of an integer, the significand of a float.
  const int exact_bits = !index_type.is_float()    ? index_type.bits() - (index_type.is_int() ? 1 : 0)
                         : is_bf16                  ? 8
                         : index_type.bits() == 16 ? 11
                         : index_type.bits() == 32 ? 24
                                                   : 53;
  const int64_t largest = select_last ? n - 1 : n;  // the largest value the search stores
  const int64_t limit = exact_bits >= 63 ? INT64_MAX
                                         : (int64_t(1) << exact_bits) - (index_type.is_float() ? 0 : 1);
  TIR_USER_CHECK(largest <= limit) << op << ": the index type " << index_type << " cannot hold "
                                   << (select_last ? "the index " : "") << largest << (select_last ? " of" : ", the length of")
                                   << " axis " << axis << " of " << x.name() << "; use int32 or int64";
  IterVar k = reduce_axis({0, static_cast<int>(n)}, "k");
  std::vector<int64_t> out = s;
  if (keepdims)
    out[size_t(axis)] = 1;
  else
    out.erase(out.begin() + axis);
  return compute(
      to_exprs(out),
      [&](const std::vector<Var> &v) {
        std::vector<Expr> idx, midx;
        for (int i = 0, j = 0; i < nd; ++i) {
          if (i == axis) {
            idx.push_back(k->var);
            midx.push_back(0);
            if (keepdims) ++j;
          } else {
            idx.push_back(v[size_t(j)]);
            midx.push_back(v[size_t(j++)]);
          }
        }
        Expr at = cast(index_type, k->var);
        Expr hit = is_extreme(x(idx), m(midx));
        if (select_last) return max(select(hit, at, make_const(index_type, -1)), {k});
        return min(select(hit, at, make_const(index_type, double(n))), {k});
      },
      name, "arg_reduce");
}

Tensor layer_norm(const Tensor &x, const Tensor &scale, const Tensor &bias, int axis, double eps,
                  const std::string &name) {
  const std::string op = "layer_norm";
  const std::vector<int64_t> s = const_shape(x, op);
  const int nd = int(s.size());
  TIR_USER_CHECK(nd > 0) << op << ": " << x.name() << " is a scalar";
  TIR_USER_CHECK(x.dtype().is_float()) << op << ": " << x.name() << " is " << x.dtype() << "; " << op
                                       << " takes float tensors";
  check_same_dtype(x, scale, op);
  check_same_dtype(x, bias, op);
  axis = normalize_axis(axis, nd, x, op);
  // scale and bias broadcast to the normalized dimensions [axis, nd), aligned at the right.
  for (const Tensor *p : {&scale, &bias}) {
    const std::vector<int64_t> ps = const_shape(*p, op);
    TIR_USER_CHECK(int(ps.size()) <= nd - axis)
        << op << ": " << p->name() << " " << shape_str(ps) << " has more dimensions than the normalized ones";
    for (size_t i = 0; i < ps.size(); ++i) {
      const int64_t d = s[size_t(nd) - ps.size() + i];
      TIR_USER_CHECK(ps[i] == d || ps[i] == 1)
          << op << ": " << p->name() << " " << shape_str(ps) << " does not broadcast to " << shape_str(s);
    }
  }
  std::vector<bool> r(size_t(nd), false);
  int64_t count = 1;
  for (int i = axis; i < nd; ++i) {
    r[size_t(i)] = true;
    count *= s[size_t(i)];
  }
  const Type t = x.dtype();
  auto stat_index = [&](const std::vector<Var> &v) {
    std::vector<Expr> idx;
    for (int i = 0; i < nd; ++i) idx.push_back(i < axis ? Expr(v[size_t(i)]) : Expr(0));
    return idx;
  };
  auto param = [&](const Tensor &p, const std::vector<Var> &v) {
    std::vector<Expr> idx;
    const size_t skip = size_t(nd - p.ndim());
    for (int i = 0; i < p.ndim(); ++i)
      idx.push_back(is_const_int(p.shape()[size_t(i)], 1) ? Expr(0) : Expr(v[skip + size_t(i)]));
    return p(idx);
  };
  const Expr n = make_const(t, double(count));
  Tensor total = reduce_stage(x, r, true, [](Expr e) { return e; }, do_sum, name + "_sum", "reduce", op);
  Tensor mean = compute(
      total.shape(),
      [&](const std::vector<Var> &v) { return total(std::vector<Expr>(v.begin(), v.end())) / n; }, name + "_mean",
      kInjective);
  // The variance: the mean of (x - mean)^2 over the same axes.
  std::vector<IterVar> rv;
  std::vector<int64_t> stat_shape;
  for (int i = 0; i < nd; ++i) {
    stat_shape.push_back(r[size_t(i)] ? 1 : s[size_t(i)]);
    if (r[size_t(i)]) rv.push_back(reduce_axis({0, static_cast<int>(s[size_t(i)])}, "k" + std::to_string(i)));
  }
  Tensor sq = compute(
      to_exprs(stat_shape),
      [&](const std::vector<Var> &v) {
        std::vector<Expr> idx, midx;
        for (int i = 0, j = 0; i < nd; ++i) {
          idx.push_back(i < axis ? Expr(v[size_t(i)]) : Expr(rv[size_t(j++)]->var));
          midx.push_back(i < axis ? Expr(v[size_t(i)]) : Expr(0));
        }
        Expr d = x(idx) - mean(midx);
        return sum(d * d, rv);
      },
      name + "_var", "reduce");
  return compute(
      x.shape(),
      [&](const std::vector<Var> &v) {
        const std::vector<Expr> si = stat_index(v);
        Expr inv = tensorir::rsqrt(sq(si) / n + make_const(t, eps));
        return (x(std::vector<Expr>(v.begin(), v.end())) - mean(si)) * inv * param(scale, v) + param(bias, v);
      },
      name, "layer_norm");
}

Tensor batch_matmul(const Tensor &a, const Tensor &b, const std::string &name) {
  const std::string op = "batch_matmul";
  check_same_dtype(a, b, op);
  const std::vector<int64_t> as = const_shape(a, op), bs = const_shape(b, op);
  TIR_USER_CHECK(as.size() >= 2 && bs.size() >= 2)
      << op << ": " << a.name() << " " << shape_str(as) << " and " << b.name() << " " << shape_str(bs)
      << " need 2 dimensions or more";
  const int64_t m = as[as.size() - 2], k = as.back(), kb = bs[bs.size() - 2], n = bs.back();
  TIR_USER_CHECK(k == kb) << op << ": " << a.name() << " " << shape_str(as) << " and " << b.name() << " "
                          << shape_str(bs) << ": inner dimensions differ";
  const size_t na = as.size() - 2, nb = bs.size() - 2, nbatch = std::max(na, nb);
  std::vector<int64_t> out(nbatch);
  for (size_t i = 0; i < nbatch; ++i) {
    const int64_t da = i < nbatch - na ? 1 : as[i - (nbatch - na)];
    const int64_t db = i < nbatch - nb ? 1 : bs[i - (nbatch - nb)];
    TIR_USER_CHECK(da == db || da == 1 || db == 1)
        << op << ": the batch dimensions of " << shape_str(as) << " and " << shape_str(bs) << " do not broadcast";
    out[i] = std::max(da, db);
  }
  out.push_back(m);
  out.push_back(n);
  IterVar kv = reduce_axis({0, static_cast<int>(k)}, "k");
  auto batch = [&](const std::vector<int64_t> &sh, size_t nx, const std::vector<Var> &v) {
    std::vector<Expr> idx;
    for (size_t i = 0; i < nx; ++i) idx.push_back(sh[i] == 1 ? Expr(0) : Expr(v[nbatch - nx + i]));
    return idx;
  };
  return compute(
      to_exprs(out),
      [&](const std::vector<Var> &v) {
        std::vector<Expr> ia = batch(as, na, v), ib = batch(bs, nb, v);
        ia.push_back(v[nbatch]);
        ia.push_back(kv->var);
        ib.push_back(kv->var);
        ib.push_back(v[nbatch + 1]);
        return sum(a(ia) * b(ib), {kv});
      },
      name, "batch_matmul");
}

}  // namespace tensorir::ops
