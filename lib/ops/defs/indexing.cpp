// Indexed reads and writes, running sums: take and gather_elements (data read at indices
// along an axis), gather_nd, scatter_elements and scatter_nd (writes as gathers),
// resize2d (nearest, linear or cubic), topk_indices, reverse_sequence, trilu (the upper
// or lower triangle of the last two dimensions), cumsum (running sums along an axis),
// hardmax (1 at the first largest element along an axis, else 0), and the element-wise
// round (half to even), sign and mod (floored, or truncated with fmod = 1).
#include <cmath>

#include "../op_util.h"
#include "def_util.h"
#include "resize_coord.h"

namespace tensorir::ops::defs {

namespace {

using detail::const_shape;
using detail::kInjective;

std::vector<Expr> exprs(const std::vector<Var> &v) { return std::vector<Expr>(v.begin(), v.end()); }

OpStrategy reduce_cpu_strategy() {
  OpStrategy s;
  s.schedule = [](const ScheduleContext &ctx) { return ops::schedule_reduce_llvm(ctx.out); };
  return s;
}

void check_numeric(const Node &, const std::vector<const Node *> &in) {
  TIR_USER_CHECK(!in[0]->dtype.is_bool()) << "input '" << in[0]->name << "' is bool; this operator takes numbers";
}

// The axis of `n` in [0, rank); the node is named in the error.
int node_axis(const Node &n, int rank) {
  const int64_t a = n.attr_int("axis");
  TIR_USER_CHECK(a >= -rank && a < rank) << "node '" << n.name << "': axis " << a << " is out of range for rank "
                                         << rank;
  return int(a < 0 ? a + rank : a);
}

// An index read from `indices` into axis `axis` of `data` (`n` long), negative ones
// counted from the end: checked where kernels can fail (checked_index), else clamped.
Expr checked_position(Expr raw, int64_t n, const char *op, const std::string &name, const Tensor &indices,
                      const Tensor &data, int axis) {
  std::string what = std::string(op) + " '" + name + "': an index in '" + indices.name() + "' is outside [" +
                     std::to_string(-n) + ", " + std::to_string(n) + "), the extent of axis " + std::to_string(axis) +
                     " of '" + data.name() + "'";
  // Unsigned indices, and int8 or int16 ones on an axis longer than their type, widened.
  if (!raw.type().is_int() || !raw.type().holds_int(n)) raw = cast(Int(64, raw.type().lanes()), raw);
  return checked_index(raw, n, what);
}

// out[i] = data[i with i[axis] replaced by indices[i]] (negative indices count from the end).
Tensor gather_elements(const Tensor &data, const Tensor &indices, int axis, const std::string &name) {
  const std::vector<int64_t> ds = const_shape(data, "gather_elements");
  const int64_t n = ds[size_t(axis)];
  return compute(
      indices.shape(),
      [&](const std::vector<Var> &v) {
        std::vector<Expr> idx = exprs(v);
        idx[size_t(axis)] = checked_position(indices(exprs(v)), n, "gather_elements", name, indices, data, axis);
        return data(idx);
      },
      name, kInjective);
}

// data read along `axis` at each of `indices`: [data before axis..., indices..., data after].
Tensor take(const Tensor &data, const Tensor &indices, int axis, const std::string &name) {
  const std::vector<int64_t> ds = const_shape(data, "take"), is = const_shape(indices, "take");
  const int64_t n = ds[size_t(axis)];
  std::vector<int64_t> out(ds.begin(), ds.begin() + axis);
  out.insert(out.end(), is.begin(), is.end());
  out.insert(out.end(), ds.begin() + axis + 1, ds.end());
  return compute(
      detail::to_exprs(out),
      [&](const std::vector<Var> &v) {
        std::vector<Expr> ii(v.begin() + axis, v.begin() + axis + long(is.size()));
        std::vector<Expr> idx(v.begin(), v.begin() + axis);
        idx.push_back(checked_position(indices(ii), n, "take", name, indices, data, axis));
        idx.insert(idx.end(), v.begin() + axis + long(is.size()), v.end());
        return data(idx);
      },
      name, kInjective);
}

// data[b..., indices[q..., 0..k-1], rest...] for each q: [q..., rest...] (b = batch_dims).
Tensor gather_nd(const Tensor &data, const Tensor &indices, int batch, const std::string &name) {
  const std::vector<int64_t> ds = const_shape(data, "gather_nd"), is = const_shape(indices, "gather_nd");
  const size_t k = size_t(is.back()), q = is.size() - 1;
  std::vector<int64_t> out(is.begin(), is.end() - 1);
  out.insert(out.end(), ds.begin() + batch + long(k), ds.end());
  return compute(
      detail::to_exprs(out),
      [&](const std::vector<Var> &v) {
        std::vector<Expr> idx(v.begin(), v.begin() + batch);
        for (size_t j = 0; j < k; ++j) {
          std::vector<Expr> ii(v.begin(), v.begin() + long(q));
          ii.push_back(int(j));
          const int64_t n = ds[size_t(batch) + j];
          idx.push_back(checked_position(indices(ii), n, "gather_nd", name, indices, data, batch + int(j)));
        }
        idx.insert(idx.end(), v.begin() + long(q), v.end());
        return data(idx);
      },
      name, kInjective);
}

// Scatter as a gather: each output element finds the updates aimed at it. "none" takes
// the last such update (in row-major order of the indices), "add", "mul", "max" and "min"
// combine them all with the data element.
Tensor scatter_combine(const Tensor &data, const Tensor &updates, const std::string &reduction,
                       const std::function<Expr(const std::vector<Var> &, const std::vector<IterVar> &)> &match,
                       const std::function<std::vector<Expr>(const std::vector<Var> &, const std::vector<Expr> &)> &at,
                       const std::vector<int64_t> &rshape, const std::string &name) {
  std::vector<IterVar> rs;
  for (size_t i = 0; i < rshape.size(); ++i) rs.push_back(reduce_axis({0, int(rshape[i])}, "r" + std::to_string(i)));
  const Type t = data.dtype();
  if (reduction == "max" || reduction == "min") {
    // The data element stands in for the updates not aimed at it: no identity value that
    // would differ from it when it is an infinity.
    const bool larger = reduction == "max";
    Tensor acc = compute(
        data.shape(),
        [&](const std::vector<Var> &v) {
          std::vector<Expr> r(rs.begin(), rs.end()), i(v.begin(), v.end());
          Expr x = select(match(v, rs), updates(at(v, r)), data(i));
          return larger ? max(x, rs) : min(x, rs);
        },
        name + "_updates");
    return compute(
        data.shape(), [&](const std::vector<Var> &v) { return acc(std::vector<Expr>(v.begin(), v.end())); }, name,
        kInjective);
  }
  if (reduction != "none") {
    const bool add = reduction == "add";
    Tensor acc = compute(
        data.shape(),
        [&](const std::vector<Var> &v) {
          std::vector<Expr> r(rs.begin(), rs.end());
          Expr u = updates(at(v, r));
          return add ? sum(select(match(v, rs), u, make_const(t, 0)), rs)
                     : prod(select(match(v, rs), u, make_const(t, 1)), rs);
        },
        name + "_updates");
    return compute(
        data.shape(),
        [&](const std::vector<Var> &v) {
          std::vector<Expr> i(v.begin(), v.end());
          return add ? data(i) + acc(i) : data(i) * acc(i);
        },
        name, kInjective);
  }
  // The row-major number of the last matching update, -1 for none.
  Tensor last = compute(
      data.shape(),
      [&](const std::vector<Var> &v) {
        Expr lin = make_const(Int(32), 0);
        for (size_t i = 0; i < rs.size(); ++i) lin = lin * int(rshape[i]) + rs[i]->var;
        return max(select(match(v, rs), lin, make_const(Int(32), -1)), rs);
      },
      name + "_last");
  return compute(
      data.shape(),
      [&](const std::vector<Var> &v) {
        std::vector<Expr> i(v.begin(), v.end());
        Expr l = last(i);
        std::vector<Expr> r(rshape.size());
        Expr rem = max(l, 0);
        for (size_t j = rshape.size(); j-- > 0;) {
          r[j] = rem % int(rshape[j]);
          rem = rem / int(rshape[j]);
        }
        return select(l >= 0, updates(at(v, r)), data(i));
      },
      name, kInjective);
}

// ScatterElements: updates[q] goes to data[q with q[axis] replaced by indices[q]].
Tensor scatter_elements(const Tensor &data, const Tensor &indices, const Tensor &updates, int axis,
                        const std::string &reduction, const std::string &name) {
  const std::vector<int64_t> ds = const_shape(data, "scatter_elements"), is = const_shape(indices, "scatter_elements");
  // Reduced over the indices' extent along axis; the other coordinates are the output's.
  auto at = [&, axis](const std::vector<Var> &v, const std::vector<Expr> &r) {
    std::vector<Expr> q;
    for (size_t j = 0; j < v.size(); ++j)
      q.push_back(int(j) == axis ? r[0] : detail::clamp_index(v[j], is[j]));
    return q;
  };
  auto match = [&, axis](const std::vector<Var> &v, const std::vector<IterVar> &rs) {
    std::vector<Expr> r = {rs[0]->var};
    Expr ok = checked_position(indices(at(v, r)), ds[size_t(axis)], "scatter_elements", name, indices, data, axis) ==
              v[size_t(axis)];
    for (size_t j = 0; j < v.size(); ++j)
      if (int(j) != axis && is[j] < ds[j]) ok = ok && v[j] < int(is[j]);
    return ok;
  };
  return scatter_combine(data, updates, reduction, match, at, {is[size_t(axis)]}, name);
}

// ScatterND: updates[q..., rest...] goes to data[indices[q..., :], rest...].
Tensor scatter_nd(const Tensor &data, const Tensor &indices, const Tensor &updates, const std::string &reduction,
                  const std::string &name) {
  const std::vector<int64_t> ds = const_shape(data, "scatter_nd"), is = const_shape(indices, "scatter_nd");
  const size_t k = size_t(is.back());
  const std::vector<int64_t> qshape(is.begin(), is.end() - 1);
  auto at = [&, k](const std::vector<Var> &v, const std::vector<Expr> &r) {
    std::vector<Expr> u(r.begin(), r.end());
    u.insert(u.end(), v.begin() + long(k), v.end());
    return u;
  };
  auto match = [&, k](const std::vector<Var> &v, const std::vector<IterVar> &rs) {
    Expr ok = make_const(Bool(), 1);
    for (size_t j = 0; j < k; ++j) {
      std::vector<Expr> ii(rs.begin(), rs.end());
      ii.push_back(int(j));
      ok = ok && checked_position(indices(ii), ds[j], "scatter_nd", name, indices, data, int(j)) == v[j];
    }
    return ok;
  };
  return scatter_combine(data, updates, reduction, match, at, qshape, name);
}

// The input coordinate (of float type `ct`) that output coordinate x maps to along one
// axis of `in` elements resized to `out` (resize_coord.h).
Expr source_coord(Expr x, const std::string &mode, double scale, int64_t in, int64_t out, Type ct) {
  return resize_source_coord(cast(ct, x), mode, scale, in, out, [ct](double v) { return make_const(ct, v); });
}

Expr nearest_index(Expr xo, const std::string &mode, int64_t in) {
  Expr half = make_const(xo.type(), 0.5);
  Expr r = mode == "floor"               ? floor(xo)
           : mode == "ceil"              ? ceil(xo)
           : mode == "round_prefer_ceil" ? floor(xo + half)
                                         : ceil(xo - half);  // round_prefer_floor
  return detail::clamp_index(cast(Int(32), r), in);
}

// The four neighbours of source position p along an axis of length len (floor(p) - 1 to
// floor(p) + 2, clamped to the edge) and their weights in cubic convolution with
// coefficient a; with exclude_outside, those outside the axis weigh 0 and the others are
// scaled to sum to 1.
void cubic_taps(Expr p, int64_t len, double a, bool exclude_outside, Type t, Expr idx[4], Expr w[4]) {
  auto c = [&p](double v) { return make_const(p.type(), v); };
  Expr f = floor(p), ws[4], total = c(0);
  cubic_weights(p - f, a, ws);
  for (int k = 0; k < 4; ++k) {
    Expr pos = f + c(k - 1);
    idx[k] = detail::clamp_index(cast(Int(32), pos), len);
    if (exclude_outside) ws[k] = select(pos >= c(0) && pos <= c(double(len - 1)), ws[k], c(0));
    total = total + ws[k];
  }
  for (int k = 0; k < 4; ++k) w[k] = cast(t, exclude_outside ? ws[k] / total : ws[k]);
}

// The last two dimensions resized to `size` by nearest, (bi)linear or (bi)cubic
// interpolation, with source coordinates of float type `ct`: float64 under the CPU
// strategy (graph::build's tuned schedules, the default), where it matches ONNX's
// reference at ties; float32 otherwise, which the fragment targets need, and where Mesa's
// llvmpipe mis-converts int(floor(p) + 1.0) in float64.
Tensor resize2d(const Node &n, const Tensor &x, const std::string &name, Type ct) {
  const std::vector<int64_t> xs = const_shape(x, "resize2d");
  const std::vector<int64_t> &size = n.attr_ints("size");
  const std::string mode = n.attr_string("mode"), coord = n.attr_string("coordinate_transformation_mode"),
                    nearest = n.attr_string("nearest_mode");
  const double scales[2] = {n.attr_double("scale_h"), n.attr_double("scale_w")};
  const size_t r = xs.size();
  std::vector<int64_t> out = xs;
  out[r - 2] = size[0];
  out[r - 1] = size[1];
  return compute(
      detail::to_exprs(out),
      [&](const std::vector<Var> &v) {
        std::vector<Expr> base(v.begin(), v.end());
        Expr pos[2];
        for (int a = 0; a < 2; ++a)
          pos[a] = source_coord(v[r - 2 + size_t(a)], coord, scales[a], xs[r - 2 + size_t(a)], size[size_t(a)], ct);
        if (mode == "nearest") {
          for (int a = 0; a < 2; ++a) {
            // "simple" (ONNX Resize 10, Upsample): up along an axis that shrinks, else down.
            const std::string rounding = nearest != "simple" ? nearest : scales[a] < 1 ? "ceil" : "floor";
            base[r - 2 + size_t(a)] = nearest_index(pos[a], rounding, xs[r - 2 + size_t(a)]);
          }
          return x(base);
        }
        auto at = [&](Expr h, Expr w) {
          std::vector<Expr> idx = base;
          idx[r - 2] = h;
          idx[r - 1] = w;
          return x(idx);
        };
        if (mode == "cubic") {
          Expr idx[2][4], w[2][4];
          for (int a = 0; a < 2; ++a)
            cubic_taps(pos[a], xs[r - 2 + size_t(a)], n.attr_double("cubic_coeff_a"),
                       n.attr_int("exclude_outside") != 0, x.dtype(), idx[a], w[a]);
          Expr acc;
          for (int i = 0; i < 4; ++i) {
            Expr row = at(idx[0][i], idx[1][0]) * w[1][0];
            for (int j = 1; j < 4; ++j) row = row + at(idx[0][i], idx[1][j]) * w[1][j];
            acc = i == 0 ? row * w[0][0] : acc + row * w[0][i];
          }
          return acc;
        }
        Expr lo[2], hi[2], t[2];
        for (int a = 0; a < 2; ++a) {
          const int64_t len = xs[r - 2 + size_t(a)];
          Expr f = floor(pos[a]);
          t[a] = cast(x.dtype(), pos[a] - f);
          // Both neighbours cast from the float: the simplifier misjudges the bounds of
          // int32(floor(p)) + 1 and folds its clamp.
          lo[a] = detail::clamp_index(cast(Int(32), f), len);
          hi[a] = detail::clamp_index(cast(Int(32), f + make_const(ct, 1)), len);
        }
        Expr one = make_const(x.dtype(), 1);
        Expr top = at(lo[0], lo[1]) * (one - t[1]) + at(lo[0], hi[1]) * t[1];
        Expr bottom = at(hi[0], lo[1]) * (one - t[1]) + at(hi[0], hi[1]) * t[1];
        return top * (one - t[0]) + bottom * t[0];
      },
      name, kInjective);
}

// The int64 positions along `axis` of the k largest (or smallest) elements, in order; of
// equal elements the lower position first. NaN counts as larger than any number (first
// when largest, last otherwise, as NumPy sorts), NaNs among themselves by position: the
// order must be total, or ranks repeat and some are never taken. Each element's rank
// counts those before it in that order; position j of the result holds the element of
// rank j.
Tensor topk_indices(const Tensor &x, int axis, int64_t k, bool largest, const std::string &name) {
  const std::vector<int64_t> s = const_shape(x, "topk_indices");
  const int64_t n = s[size_t(axis)];
  IterVar m = reduce_axis({0, int(n)}, "m");
  Tensor rank = compute(
      x.shape(),
      [&](const std::vector<Var> &v) {
        std::vector<Expr> self(v.begin(), v.end()), other = self;
        other[size_t(axis)] = m->var;
        Expr a = x(other), b = x(self);
        Expr ahead = largest ? a > b : a < b, same = a == b;
        if (x.dtype().is_float()) {
          Expr a_nan = a != a, b_nan = b != b;
          ahead = ahead || (largest ? a_nan && !b_nan : !a_nan && b_nan);
          same = same || (a_nan && b_nan);
        }
        Expr before = ahead || (same && m->var < v[size_t(axis)]);
        return sum(select(before, 1, 0), {m});
      },
      name + "_rank");
  IterVar q = reduce_axis({0, int(n)}, "q");
  std::vector<int64_t> out = s;
  out[size_t(axis)] = k;
  return compute(
      detail::to_exprs(out),
      [&](const std::vector<Var> &v) {
        std::vector<Expr> idx(v.begin(), v.end());
        idx[size_t(axis)] = q->var;
        return sum(select(rank(idx) == v[size_t(axis)], cast(Int(64), q->var), make_const(Int(64), 0)), {q});
      },
      name);
}

// The first lens[b] elements along time_axis of each batch b reversed, the rest kept.
// Compared in the lengths' own type: the simplifier folds a comparison of a narrowing
// cast of a loaded value with a loop variable to false.
Tensor reverse_sequence(const Tensor &x, const Tensor &lens, int time_axis, int batch_axis,
                        const std::string &name) {
  const std::vector<int64_t> s = const_shape(x, "reverse_sequence");
  const int64_t steps = s[size_t(time_axis)];
  return compute(
      x.shape(),
      [&](const std::vector<Var> &v) {
        Expr len = lens(v[size_t(batch_axis)]);
        Expr t = cast(len.type(), v[size_t(time_axis)]);
        Expr from = select(t < len, len - make_const(len.type(), 1) - t, t);
        std::vector<Expr> idx(v.begin(), v.end());
        idx[size_t(time_axis)] = detail::clamp_index(cast(Int(32), from), steps);
        return x(idx);
      },
      name, kInjective);
}

// Running sums along `axis`: element i adds the elements up to i (from i on with
// reverse), itself left out with exclusive.
Tensor cumsum(const Tensor &x, int axis, bool exclusive, bool reverse, const std::string &name) {
  const std::vector<int64_t> s = const_shape(x, "cumsum");
  IterVar r = reduce_axis({0, int(s[size_t(axis)])}, "r");
  return compute(
      x.shape(),
      [&](const std::vector<Var> &v) {
        std::vector<Expr> idx = exprs(v);
        idx[size_t(axis)] = r->var;
        Expr i = v[size_t(axis)], k = r->var;
        Expr in = reverse ? (exclusive ? k > i : k >= i) : (exclusive ? k < i : k <= i);
        return sum(select(in, x(idx), make_const(x.dtype(), 0)), {r});
      },
      name);
}

// 1 where x is the first largest element along `axis`, else 0. The index is kept in x's
// float type where that holds it exactly (webgl stores only float32), else in int32 (an
// axis is shorter than 2^31); never int64, which the texture targets do not store.
Tensor hardmax(const Tensor &x, int axis, const std::string &name) {
  const int64_t n = const_shape(x, "hardmax")[size_t(axis)];
  const Type index = x.dtype().is_float() && x.dtype().bits() >= 32 && n <= (int64_t{1} << 24) ? x.dtype() : Int(32);
  Tensor am = ops::arg_reduce(x, axis, true, false, true, name + "_argmax", index);
  return compute(
      x.shape(),
      [&](const std::vector<Var> &v) {
        std::vector<Expr> idx = exprs(v);
        idx[size_t(axis)] = 0;
        return select(am(idx) == cast(index, v[size_t(axis)]), make_const(x.dtype(), 1), make_const(x.dtype(), 0));
      },
      name, kInjective);
}

// NaN stays NaN (as numpy's and ONNX Runtime's): it is neither above, below nor at zero.
Expr sign(Expr x) {
  Expr zero = make_const(x.type(), 0);
  Expr rest = x.type().is_float() ? select(x == zero, zero, x) : zero;
  return select(x > zero, make_const(x.type(), 1), select(x < zero, make_const(x.type(), -1), rest));
}

// a mod b: floored (the divisor's sign) or, with fmod, truncated (the dividend's sign).
Expr mod(Expr a, Expr b, bool fmod) {
  const Type t = a.type();
  Expr zero = make_const(t, 0);
  if (t.is_float()) return fmod ? tensorir::fmod(a, b) : a % b;
  Expr safe_b = select(b == zero, make_const(t, 1), b);
  Expr r = floormod(a, safe_b);
  if (!fmod || t.is_uint()) return r;
  return select(r != zero && ((a < zero) != (safe_b < zero)), r - safe_b, r);
}

const bool registered = [] {
  OpDef ge;
  ge.name = "gather_elements";
  ge.doc = "data read at `indices` along `axis` (the result has the indices' shape; negative indices count from "
           "the end; an index out of range fails the run on the CPU targets and is clamped to the nearest end on the GPU "
           "targets, whose kernels cannot fail)";
  ge.inputs = {"data", "indices"};
  ge.attrs = {{"axis", AttrType::Int, int64_t{0}}};
  ge.pattern = graph::OpPattern::kInjective;
  ge.check = [](const Node &n, const std::vector<const Node *> &in) {
    TIR_USER_CHECK(in[1]->dtype.is_int()) << "indices '" << in[1]->name << "' are " << in[1]->dtype
                                          << "; they must be integers";
    TIR_USER_CHECK(in[0]->shape.size() == in[1]->shape.size())
        << "data '" << in[0]->name << "' and indices '" << in[1]->name << "' differ in rank";
    const int axis = node_axis(n, int(in[0]->shape.size()));
    for (size_t i = 0; i < in[0]->shape.size(); ++i)
      TIR_USER_CHECK(int(i) == axis || in[1]->shape[i] <= in[0]->shape[i])
          << "indices '" << in[1]->name << "' exceed data '" << in[0]->name << "' in dimension " << i;
  };
  ge.compute = [](const Node &n, const std::vector<Tensor> &in, const std::string &name) {
    return gather_elements(in[0], in[1], node_axis(n, in[0].ndim()), name);
  };
  on_cpu(ge, blocked_cpu_strategy());
  graph::register_op(std::move(ge));

  OpDef tk;
  tk.name = "take";
  tk.doc = "data read along `axis` at each of `indices` (integers; negative ones count from the end, one out of "
           "range fails the run on the CPU targets and is clamped to the nearest end on the GPU targets): the "
           "result's shape is data's with that dimension replaced by the indices' shape";
  tk.inputs = {"data", "indices"};
  tk.attrs = {{"axis", AttrType::Int, int64_t{0}}};
  tk.pattern = graph::OpPattern::kInjective;
  tk.check = [](const Node &n, const std::vector<const Node *> &in) {
    TIR_USER_CHECK(in[1]->dtype.is_int()) << "indices '" << in[1]->name << "' are " << in[1]->dtype
                                          << "; they must be integers";
    TIR_USER_CHECK(!in[0]->shape.empty()) << "data '" << in[0]->name << "' is a scalar";
    node_axis(n, int(in[0]->shape.size()));
  };
  tk.compute = [](const Node &n, const std::vector<Tensor> &in, const std::string &name) {
    return take(in[0], in[1], node_axis(n, in[0].ndim()), name);
  };
  on_cpu(tk, blocked_cpu_strategy());
  graph::register_op(std::move(tk));

  OpDef gnd;
  gnd.name = "gather_nd";
  gnd.doc = "data read at the index tuples of the last dimension of `indices` (after `batch_dims` shared leading "
            "dimensions): [indices' leading dimensions..., the data dimensions the tuples leave]; an index out of "
            "range fails the run on the CPU targets and is clamped on the GPU targets";
  gnd.inputs = {"data", "indices"};
  gnd.attrs = {{"batch_dims", AttrType::Int, int64_t{0}}};
  gnd.pattern = graph::OpPattern::kInjective;
  gnd.check = [](const Node &n, const std::vector<const Node *> &in) {
    const std::vector<int64_t> &ds = in[0]->shape, &is = in[1]->shape;
    const int64_t b = n.attr_int("batch_dims");
    TIR_USER_CHECK(in[1]->dtype.is_int()) << "indices '" << in[1]->name << "' must be integers";
    TIR_USER_CHECK(!is.empty() && b >= 0 && size_t(b) < is.size() && size_t(b) + size_t(is.back()) <= ds.size())
        << "indices " << in[1]->name << " do not fit data '" << in[0]->name << "' with batch_dims " << b;
    for (int64_t i = 0; i < b; ++i)
      TIR_USER_CHECK(is[size_t(i)] == ds[size_t(i)]) << "batch dimension " << i << " differs";
  };
  gnd.compute = [](const Node &n, const std::vector<Tensor> &in, const std::string &name) {
    return gather_nd(in[0], in[1], int(n.attr_int("batch_dims")), name);
  };
  on_cpu(gnd, blocked_cpu_strategy());
  graph::register_op(std::move(gnd));

  auto check_reduction = [](const Node &n) {
    const std::string &r = n.attr_string("reduction");
    TIR_USER_CHECK(r == "none" || r == "add" || r == "mul" || r == "max" || r == "min")
        << "reduction '" << r << "' is not none, add, mul, max or min";
  };
  OpDef se;
  se.name = "scatter_elements";
  se.doc = "data with updates[q] written at q with q[axis] replaced by indices[q] (negative ones count from the "
           "end; one out of range fails the run on the CPU targets and is clamped on the GPU targets); duplicates: "
           "the last one (reduction none) or all of them combined with the data (add, mul, max, min)";
  se.inputs = {"data", "indices", "updates"};
  se.attrs = {{"axis", AttrType::Int, int64_t{0}}, {"reduction", AttrType::String, std::string("none")}};
  se.pattern = graph::OpPattern::kReduction;
  se.check = [check_reduction](const Node &n, const std::vector<const Node *> &in) {
    check_reduction(n);
    TIR_USER_CHECK(in[1]->dtype.is_int()) << "indices '" << in[1]->name << "' must be integers";
    TIR_USER_CHECK(in[2]->dtype == in[0]->dtype && in[2]->shape == in[1]->shape)
        << "updates '" << in[2]->name << "' must have the indices' shape and the data's type";
    const int axis = node_axis(n, int(in[0]->shape.size()));
    TIR_USER_CHECK(in[1]->shape.size() == in[0]->shape.size()) << "indices and data differ in rank";
    for (size_t i = 0; i < in[0]->shape.size(); ++i)
      TIR_USER_CHECK(int(i) == axis || in[1]->shape[i] <= in[0]->shape[i]) << "indices exceed data in dimension " << i;
  };
  se.compute = [](const Node &n, const std::vector<Tensor> &in, const std::string &name) {
    return scatter_elements(in[0], in[1], in[2], node_axis(n, in[0].ndim()), n.attr_string("reduction"), name);
  };
  on_cpu(se, reduce_cpu_strategy());
  graph::register_op(std::move(se));

  OpDef snd;
  snd.name = "scatter_nd";
  snd.doc = "data with updates[q..., rest...] written at data[indices[q..., :], rest...]; indices and "
            "duplicates as scatter_elements";
  snd.inputs = {"data", "indices", "updates"};
  snd.attrs = {{"reduction", AttrType::String, std::string("none")}};
  snd.pattern = graph::OpPattern::kReduction;
  snd.check = [check_reduction](const Node &n, const std::vector<const Node *> &in) {
    check_reduction(n);
    const std::vector<int64_t> &ds = in[0]->shape, &is = in[1]->shape;
    TIR_USER_CHECK(in[1]->dtype.is_int()) << "indices '" << in[1]->name << "' must be integers";
    TIR_USER_CHECK(!is.empty() && is.back() >= 1 && size_t(is.back()) <= ds.size())
        << "indices " << in[1]->name << " do not fit data '" << in[0]->name << "'";
    std::vector<int64_t> us(is.begin(), is.end() - 1);
    us.insert(us.end(), ds.begin() + is.back(), ds.end());
    TIR_USER_CHECK(in[2]->shape == us && in[2]->dtype == in[0]->dtype)
        << "updates '" << in[2]->name << "' do not have the shape the indices and data give";
  };
  snd.compute = [](const Node &n, const std::vector<Tensor> &in, const std::string &name) {
    return scatter_nd(in[0], in[1], in[2], n.attr_string("reduction"), name);
  };
  on_cpu(snd, reduce_cpu_strategy());
  graph::register_op(std::move(snd));

  OpDef rs;
  rs.name = "resize2d";
  rs.doc = "the last two dimensions resized to `size` by nearest, linear or cubic interpolation; scale_h and "
           "scale_w and coordinate_transformation_mode (half_pixel, half_pixel_symmetric, pytorch_half_pixel, "
           "align_corners, asymmetric, tf_half_pixel_for_nn) map output to input coordinates, nearest_mode "
           "(round_prefer_floor, round_prefer_ceil, floor, ceil, or simple: ceil along an axis that shrinks, floor "
           "along the other) "
           "rounds them; cubic_coeff_a and exclude_outside shape the cubic "
           "kernel (ONNX's Resize)";
  rs.inputs = {"x"};
  rs.attrs = {{"size", AttrType::Ints},
              {"scale_h", AttrType::Real},
              {"scale_w", AttrType::Real},
              {"mode", AttrType::String, std::string("nearest")},
              {"coordinate_transformation_mode", AttrType::String, std::string("half_pixel")},
              {"nearest_mode", AttrType::String, std::string("round_prefer_floor")},
              {"cubic_coeff_a", AttrType::Real, -0.75},
              {"exclude_outside", AttrType::Int, int64_t{0}}};
  rs.attrs[0].ints_size = 2;
  rs.pattern = graph::OpPattern::kInjective;
  rs.check = [](const Node &n, const std::vector<const Node *> &in) {
    TIR_USER_CHECK(in[0]->dtype.is_float() && in[0]->shape.size() >= 2)
        << "input '" << in[0]->name << "' must be a float tensor of rank 2 or more";
    const std::string &m = n.attr_string("mode"), &c = n.attr_string("coordinate_transformation_mode"),
                      &r = n.attr_string("nearest_mode");
    TIR_USER_CHECK(m == "nearest" || m == "linear" || m == "cubic")
        << "mode '" << m << "' is not nearest, linear or cubic";
    TIR_USER_CHECK(c == "half_pixel" || c == "half_pixel_symmetric" || c == "pytorch_half_pixel" ||
                   c == "align_corners" || c == "asymmetric" || c == "tf_half_pixel_for_nn")
        << "coordinate_transformation_mode '" << c << "' is not supported";
    TIR_USER_CHECK(r == "round_prefer_floor" || r == "round_prefer_ceil" || r == "floor" || r == "ceil" ||
                   r == "simple")
        << "nearest_mode '" << r << "' is not supported";
    for (int64_t s : n.attr_ints("size")) TIR_USER_CHECK(s >= 1) << "a size below 1";
    TIR_USER_CHECK(n.attr_double("scale_h") > 0 && n.attr_double("scale_w") > 0) << "scales must be positive";
  };
  rs.compute = [](const Node &n, const std::vector<Tensor> &in, const std::string &name) {
    return resize2d(n, in[0], name, Float(32));
  };
  OpStrategy resize_cpu = blocked_cpu_strategy();
  resize_cpu.compute = [](const Node &n, const std::vector<Tensor> &in, const std::string &name) {
    return resize2d(n, in[0], name, Float(64));
  };
  on_cpu(rs, resize_cpu);
  graph::register_op(std::move(rs));

  OpDef tk2;
  tk2.name = "topk_indices";
  tk2.doc = "the int64 positions along `axis` of the k largest (largest = 1) or smallest elements, in that "
            "order, equal elements by position; NaN is larger than any number";
  tk2.inputs = {"x"};
  tk2.attrs = {{"axis", AttrType::Int, int64_t{-1}}, {"k", AttrType::Int}, {"largest", AttrType::Int, int64_t{1}}};
  tk2.pattern = graph::OpPattern::kReduction;
  tk2.check = [](const Node &n, const std::vector<const Node *> &in) {
    check_numeric(n, in);
    const int axis = node_axis(n, int(in[0]->shape.size()));
    const int64_t k = n.attr_int("k");
    TIR_USER_CHECK(k >= 1 && k <= in[0]->shape[size_t(axis)])
        << "k " << k << " is not in [1, " << in[0]->shape[size_t(axis)] << "]";
  };
  tk2.compute = [](const Node &n, const std::vector<Tensor> &in, const std::string &name) {
    return topk_indices(in[0], node_axis(n, in[0].ndim()), n.attr_int("k"), n.attr_int("largest") != 0, name);
  };
  on_cpu(tk2, reduce_cpu_strategy());
  graph::register_op(std::move(tk2));

  OpDef rv;
  rv.name = "reverse_sequence";
  rv.doc = "x with the first lens[b] elements along time_axis of each batch b (along batch_axis) reversed";
  rv.inputs = {"x", "lens"};
  rv.attrs = {{"time_axis", AttrType::Int, int64_t{0}}, {"batch_axis", AttrType::Int, int64_t{1}}};
  rv.pattern = graph::OpPattern::kInjective;
  rv.check = [](const Node &n, const std::vector<const Node *> &in) {
    const int64_t t = n.attr_int("time_axis"), b = n.attr_int("batch_axis");
    const std::vector<int64_t> &xs = in[0]->shape;
    TIR_USER_CHECK(xs.size() >= 2 && t >= 0 && b >= 0 && t < int64_t(xs.size()) && b < int64_t(xs.size()) && t != b)
        << "time_axis " << t << " and batch_axis " << b << " do not fit rank " << xs.size();
    TIR_USER_CHECK(in[1]->dtype.is_int() && in[1]->shape == std::vector<int64_t>{xs[size_t(b)]})
        << "lens '" << in[1]->name << "' must be " << xs[size_t(b)] << " integers";
  };
  rv.compute = [](const Node &n, const std::vector<Tensor> &in, const std::string &name) {
    return reverse_sequence(in[0], in[1], int(n.attr_int("time_axis")), int(n.attr_int("batch_axis")), name);
  };
  on_cpu(rv, blocked_cpu_strategy());
  graph::register_op(std::move(rv));

  OpDef tr;
  tr.name = "trilu";
  tr.doc = "x with the elements off its upper (upper = 1: j - i >= k) or lower (j - i <= k) triangle of the last "
           "two dimensions set to 0";
  tr.inputs = {"x"};
  tr.attrs = {{"upper", AttrType::Int, int64_t{1}}, {"k", AttrType::Int, int64_t{0}}};
  tr.pattern = graph::OpPattern::kElementWise;
  tr.check = [](const Node &, const std::vector<const Node *> &in) {
    TIR_USER_CHECK(in[0]->shape.size() >= 2) << "input '" << in[0]->name << "' has fewer than 2 dimensions";
  };
  tr.compute = [](const Node &n, const std::vector<Tensor> &in, const std::string &name) {
    const bool upper = n.attr_int("upper") != 0;
    const int64_t k = n.attr_int("k");
    const Tensor &x = in[0];
    return compute(
        x.shape(),
        [&](const std::vector<Var> &v) {
          Expr d = cast(Int(64), v[v.size() - 1]) - cast(Int(64), v[v.size() - 2]);
          Expr keep = upper ? d >= make_const(Int(64), k) : d <= make_const(Int(64), k);
          return select(keep, x(exprs(v)), make_const(x.dtype(), 0));
        },
        name, kInjective);
  };
  on_cpu(tr, blocked_cpu_strategy());
  graph::register_op(std::move(tr));

  OpDef cs;
  cs.name = "cumsum";
  cs.doc = "running sums along `axis`: up to each element (reverse = 1: from it to the end), the element itself "
           "left out with exclusive = 1";
  cs.inputs = {"x"};
  cs.attrs = {{"axis", AttrType::Int, int64_t{0}},
              {"exclusive", AttrType::Int, int64_t{0}},
              {"reverse", AttrType::Int, int64_t{0}}};
  cs.pattern = graph::OpPattern::kReduction;
  cs.check = [](const Node &n, const std::vector<const Node *> &in) {
    check_numeric(n, in);
    node_axis(n, int(in[0]->shape.size()));
  };
  cs.compute = [](const Node &n, const std::vector<Tensor> &in, const std::string &name) {
    return cumsum(in[0], node_axis(n, in[0].ndim()), n.attr_int("exclusive") != 0, n.attr_int("reverse") != 0,
                  name);
  };
  on_cpu(cs, reduce_cpu_strategy());
  graph::register_op(std::move(cs));

  OpDef hm;
  hm.name = "hardmax";
  hm.doc = "1 at the first largest element along `axis`, 0 elsewhere";
  hm.inputs = {"x"};
  hm.attrs = {{"axis", AttrType::Int, int64_t{-1}}};
  hm.pattern = graph::OpPattern::kReduction;
  hm.check = [](const Node &n, const std::vector<const Node *> &in) {
    check_numeric(n, in);
    node_axis(n, int(in[0]->shape.size()));
  };
  hm.compute = [](const Node &n, const std::vector<Tensor> &in, const std::string &name) {
    return hardmax(in[0], node_axis(n, in[0].ndim()), name);
  };
  on_cpu(hm, reduce_cpu_strategy());
  graph::register_op(std::move(hm));

  register_unary("round", "x rounded to the nearest integer, halves to the even one", true, round_even);
  register_unary("sign", "1, 0 or -1 as x is positive, zero or negative (NaN for NaN)", false, sign);

  OpDef md;
  md.name = "mod";
  md.doc = "a mod b, broadcasting as NumPy does: the result takes the divisor's sign, or with fmod = 1 the "
           "dividend's (float tensors need fmod = 1; an integer b of 0 gives 0)";
  md.inputs = {"a", "b"};
  md.attrs = {{"fmod", AttrType::Int, int64_t{0}}};
  md.pattern = graph::OpPattern::kElementWise;
  md.check = [](const Node &n, const std::vector<const Node *> &in) {
    check_same_dtypes(n, in);
    check_numeric(n, in);
    TIR_USER_CHECK(!in[0]->dtype.is_float() || n.attr_int("fmod") != 0)
        << "node '" << n.name << "': float inputs need fmod = 1";
  };
  md.compute = [](const Node &n, const std::vector<Tensor> &in, const std::string &name) {
    const bool fmod = n.attr_int("fmod") != 0;
    return detail::broadcast_map(in[0], in[1], "mod", name, [fmod](Expr a, Expr b) { return mod(a, b, fmod); });
  };
  on_cpu(md, blocked_cpu_strategy());
  graph::register_op(std::move(md));
  return true;
}();

}  // namespace

}  // namespace tensorir::ops::defs
