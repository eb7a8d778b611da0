// Element-wise binary operators with NumPy broadcasting.
#include <functional>

#include "op_util.h"
#include "tensorir/ops/transform.h"

namespace tensorir::ops {

using namespace detail;

namespace {

// The broadcast shape of a and b, aligned at the right.
std::vector<int64_t> broadcast_shape(const Tensor &a, const Tensor &b, const std::string &op) {
  const std::vector<int64_t> sa = const_shape(a, op), sb = const_shape(b, op);
  const size_t nd = std::max(sa.size(), sb.size());
  std::vector<int64_t> out(nd);
  for (size_t i = 0; i < nd; ++i) {
    // Dimension i of the result, counted from the right in each input.
    const int64_t da = i < nd - sa.size() ? 1 : sa[i - (nd - sa.size())];
    const int64_t db = i < nd - sb.size() ? 1 : sb[i - (nd - sb.size())];
    TIR_USER_CHECK(da == db || da == 1 || db == 1)
        << op << ": cannot broadcast " << a.name() << " " << shape_str(sa) << " with " << b.name() << " "
        << shape_str(sb) << " (dimension " << i << " of the result: " << da << " vs " << db << ")";
    out[i] = std::max(da, db);
  }
  return out;
}

// The element of `t` that output index `v` reads: leading dimensions dropped, size-1
// dimensions pinned to 0.
Expr broadcast_read(const Tensor &t, const std::vector<Var> &v) {
  const size_t skip = v.size() - t.ndim();
  std::vector<Expr> idx;
  for (int i = 0; i < t.ndim(); ++i) idx.push_back(is_const_int(t.shape()[i], 1) ? Expr(0) : Expr(v[skip + i]));
  return t(idx);
}

Tensor binary(const Tensor &a, const Tensor &b, const std::string &op, const std::string &name,
              const std::function<Expr(Expr, Expr)> &f) {
  return detail::broadcast_map(a, b, op, name, f);
}

}  // namespace

Tensor detail::broadcast_map(const Tensor &a, const Tensor &b, const std::string &op, const std::string &name,
                             const std::function<Expr(Expr, Expr)> &f) {
  check_same_dtype(a, b, op);
  std::vector<int64_t> out = broadcast_shape(a, b, op);
  return compute(
      to_exprs(out), [&](const std::vector<Var> &v) { return f(broadcast_read(a, v), broadcast_read(b, v)); }, name,
      kInjective);
}

Tensor add(const Tensor &a, const Tensor &b, const std::string &name) {
  return binary(a, b, "add", name, [](Expr x, Expr y) { return x + y; });
}
Tensor subtract(const Tensor &a, const Tensor &b, const std::string &name) {
  return binary(a, b, "subtract", name, [](Expr x, Expr y) { return x - y; });
}
Tensor multiply(const Tensor &a, const Tensor &b, const std::string &name) {
  return binary(a, b, "multiply", name, [](Expr x, Expr y) { return x * y; });
}
Tensor divide(const Tensor &a, const Tensor &b, const std::string &name) {
  return binary(a, b, "divide", name, [](Expr x, Expr y) { return x / y; });
}

Tensor maximum(const Tensor &a, const Tensor &b, const std::string &name) {
  return binary(a, b, "maximum", name, [](Expr x, Expr y) { return max(x, y); });
}
Tensor minimum(const Tensor &a, const Tensor &b, const std::string &name) {
  return binary(a, b, "minimum", name, [](Expr x, Expr y) { return min(x, y); });
}
Tensor power(const Tensor &a, const Tensor &b, const std::string &name) {
  TIR_USER_CHECK(a.dtype().is_float()) << "power: " << a.name() << " is " << a.dtype()
                                       << "; power takes float tensors";
  return binary(a, b, "power", name, [](Expr x, Expr y) { return pow(x, y); });
}

namespace {

Tensor shift(const Tensor &a, const Tensor &b, const std::string &op, const std::string &name, bool left) {
  TIR_USER_CHECK(a.dtype().is_int_or_uint()) << op << ": " << a.name() << " is " << a.dtype() << "; " << op
                                             << " takes integers";
  return binary(a, b, op, name, [left](Expr x, Expr n) {
    const Type t = x.type();
    const Expr bits = make_const(t, t.bits());
    Expr in_range = n < bits;
    if (t.is_int()) in_range = in_range && n >= make_const(t, 0);
    if (left) return select(in_range, tensorir::shift_left(x, n), make_const(t, 0));
    // Past the last bit a right shift leaves the sign bits.
    const Expr all = t.is_int() ? select(x < make_const(t, 0), make_const(t, -1), make_const(t, 0)) : make_const(t, 0);
    return select(in_range, tensorir::shift_right(x, n), all);
  });
}

}  // namespace

Tensor shift_left(const Tensor &a, const Tensor &b, const std::string &name) {
  return shift(a, b, "shift_left", name, true);
}
Tensor shift_right(const Tensor &a, const Tensor &b, const std::string &name) {
  return shift(a, b, "shift_right", name, false);
}

namespace {

Tensor compare(const Tensor &a, const Tensor &b, const std::string &op, const std::string &name,
               const std::function<Expr(Expr, Expr)> &f) {
  TIR_USER_CHECK(!a.dtype().is_bool() || op == "equal")
      << op << ": " << a.name() << " is bool; " << op << " takes numbers";
  return binary(a, b, op, name, f);
}

Tensor logic(const Tensor &a, const Tensor &b, const std::string &op, const std::string &name,
             const std::function<Expr(Expr, Expr)> &f) {
  TIR_USER_CHECK(a.dtype().is_bool() && b.dtype().is_bool())
      << op << ": " << a.name() << " is " << a.dtype() << " and " << b.name() << " is " << b.dtype() << "; " << op
      << " takes bool tensors";
  return binary(a, b, op, name, f);
}

}  // namespace

Tensor equal(const Tensor &a, const Tensor &b, const std::string &name) {
  return compare(a, b, "equal", name, [](Expr x, Expr y) { return x == y; });
}
Tensor less(const Tensor &a, const Tensor &b, const std::string &name) {
  return compare(a, b, "less", name, [](Expr x, Expr y) { return x < y; });
}
Tensor less_equal(const Tensor &a, const Tensor &b, const std::string &name) {
  return compare(a, b, "less_equal", name, [](Expr x, Expr y) { return x <= y; });
}
Tensor greater(const Tensor &a, const Tensor &b, const std::string &name) {
  return compare(a, b, "greater", name, [](Expr x, Expr y) { return x > y; });
}
Tensor greater_equal(const Tensor &a, const Tensor &b, const std::string &name) {
  return compare(a, b, "greater_equal", name, [](Expr x, Expr y) { return x >= y; });
}
Tensor logical_and(const Tensor &a, const Tensor &b, const std::string &name) {
  return logic(a, b, "logical_and", name, [](Expr x, Expr y) { return x && y; });
}
Tensor logical_or(const Tensor &a, const Tensor &b, const std::string &name) {
  return logic(a, b, "logical_or", name, [](Expr x, Expr y) { return x || y; });
}
Tensor logical_xor(const Tensor &a, const Tensor &b, const std::string &name) {
  return logic(a, b, "logical_xor", name, [](Expr x, Expr y) { return x != y; });
}

Tensor where(const Tensor &cond, const Tensor &a, const Tensor &b, const std::string &name) {
  TIR_USER_CHECK(cond.dtype().is_bool()) << "where: the condition " << cond.name() << " is " << cond.dtype()
                                         << "; it must be bool";
  check_same_dtype(a, b, "where");
  // The broadcast shape of the three: of a and b, then of that and cond.
  const std::vector<int64_t> ab = broadcast_shape(a, b, "where");
  const std::vector<int64_t> sc = const_shape(cond, "where");
  const size_t nd = std::max(ab.size(), sc.size());
  std::vector<int64_t> out(nd);
  for (size_t i = 0; i < nd; ++i) {
    const int64_t d1 = i < nd - ab.size() ? 1 : ab[i - (nd - ab.size())];
    const int64_t d2 = i < nd - sc.size() ? 1 : sc[i - (nd - sc.size())];
    TIR_USER_CHECK(d1 == d2 || d1 == 1 || d2 == 1)
        << "where: cannot broadcast " << cond.name() << " " << shape_str(sc) << " with " << shape_str(ab);
    out[i] = std::max(d1, d2);
  }
  return compute(
      to_exprs(out),
      [&](const std::vector<Var> &v) {
        return select(broadcast_read(cond, v), broadcast_read(a, v), broadcast_read(b, v));
      },
      name, kInjective);
}

}  // namespace tensorir::ops
