// Interval arithmetic on symbolic bounds. An undefined bound is infinite; every
// bound built here is simplified, so constants fold and comparable bounds collapse.
#include <algorithm>
#include <cstdint>

#include "arith/bound.h"
#include "arith/const_fold.h"
#include "tensorir/arith/simplify.h"
#include "tensorir/error.h"
#include "tensorir/ir/op.h"

namespace tensorir::arith {

namespace {

Expr simp(const Expr &e) { return simplify(e, VarRanges{}); }
const int64_t *cst(const Expr &e) { return e.defined() ? as_const_int(e) : nullptr; }
// The value of an interval that is one constant.
const int64_t *point(const Interval &a) {
  const int64_t *lo = cst(a.min), *hi = cst(a.max);
  return lo && hi && *lo == *hi ? lo : nullptr;
}
bool all_const(const Interval &a) { return cst(a.min) && cst(a.max); }

// A constant bound of type t; none (infinite) where the value is outside t, as a constant
// of t it would wrap into a claim of the opposite (int16 -32768 * -32768 is not 0).
Expr bound_const(Type t, int64_t v) { return !t.is_int_or_uint() || t.holds_int(v) ? int_const(t, v) : Expr(); }

// x op y of two bounds: constants combined exactly (bound_const), others folded as nodes.
Expr combine(IRKind op, const Expr &x, const Expr &y) {
  if (!x.defined() || !y.defined()) return Expr();
  const int64_t *a = cst(x), *b = cst(y);
  if (a && b) {
    int64_t r = 0;
    bool over = false;
    switch (op) {
      case IRKind::Add: over = __builtin_add_overflow(*a, *b, &r); break;
      case IRKind::Sub: over = __builtin_sub_overflow(*a, *b, &r); break;
      case IRKind::Mul: over = __builtin_mul_overflow(*a, *b, &r); break;
      case IRKind::Div:
        if (*b == 0 || (*b == -1 && *a == INT64_MIN)) return Expr();
        r = floor_div(*a, *b);
        break;
      default: TIR_ASSERT(false) << "combine: not an arithmetic operation";
    }
    return over ? Expr() : bound_const(x.type(), r);
  }
  switch (op) {
    case IRKind::Add: return simp(AddNode::make(x, y));
    case IRKind::Sub: return simp(SubNode::make(x, y));
    case IRKind::Mul: return simp(MulNode::make(x, y));
    default: return simp(DivNode::make(x, y));
  }
}

Interval scale(const Interval &a, int64_t k, Type t) {
  if (k == 0) return Interval::single_point(int_const(t, 0));
  auto mul = [&](const Expr &e) { return combine(IRKind::Mul, e, int_const(t, k)); };
  if (k > 0) return {mul(a.min), mul(a.max)};
  return {mul(a.max), mul(a.min)};
}

// The type of the bounds, from whichever bound is defined.
Type bound_type(const Interval &a, const Interval &b) {
  for (const Expr *e : {&a.min, &a.max, &b.min, &b.max})
    if (e->defined()) return e->type();
  return Int(32);
}

}  // namespace

Interval interval_add(const Interval &a, const Interval &b) {
  return {combine(IRKind::Add, a.min, b.min), combine(IRKind::Add, a.max, b.max)};
}

Interval interval_sub(const Interval &a, const Interval &b) {
  return {combine(IRKind::Sub, a.min, b.max), combine(IRKind::Sub, a.max, b.min)};
}

Interval interval_mul(const Interval &a, const Interval &b) {
  Type t = bound_type(a, b);
  if (const int64_t *k = point(b)) return scale(a, *k, t);
  if (const int64_t *k = point(a)) return scale(b, *k, t);
  if (all_const(a) && all_const(b)) {
    int64_t x[2] = {*cst(a.min), *cst(a.max)}, y[2] = {*cst(b.min), *cst(b.max)}, p[4];
    for (int k = 0; k < 4; ++k)
      if (__builtin_mul_overflow(x[k / 2], y[k % 2], &p[k])) return Interval::everything();
    return {bound_const(t, *std::min_element(p, p + 4)), bound_const(t, *std::max_element(p, p + 4))};
  }
  auto mul = [](const Expr &x, const Expr &y) { return combine(IRKind::Mul, x, y); };
  const int64_t *la = cst(a.min), *lb = cst(b.min), *ha = cst(a.max), *hb = cst(b.max);
  // Both factors non-negative: the product grows with each.
  if (la && lb && *la >= 0 && *lb >= 0) return {mul(a.min, b.min), mul(a.max, b.max)};
  // Both non-positive: the product shrinks as either grows.
  if (ha && hb && *ha <= 0 && *hb <= 0) return {mul(a.max, b.max), mul(a.min, b.min)};
  return Interval::everything();
}

Interval interval_div(const Interval &a, const Interval &b) {
  Type t = bound_type(a, b);
  auto div = [&](const Expr &x, const Expr &y) { return combine(IRKind::Div, x, y); };
  if (const int64_t *c = point(b)) {
    if (*c > 0) return {div(a.min, b.min), div(a.max, b.min)};
    if (*c < 0) return {div(a.max, b.min), div(a.min, b.min)};
    return Interval::everything();
  }
  const int64_t *d1 = cst(b.min), *d2 = cst(b.max);
  if (d1 && d2 && *d1 > 0) {
    if (all_const(a)) {
      int64_t lo = *cst(a.min), hi = *cst(a.max);
      int64_t p[4] = {floor_div(lo, *d1), floor_div(lo, *d2), floor_div(hi, *d1), floor_div(hi, *d2)};
      return {bound_const(t, *std::min_element(p, p + 4)), bound_const(t, *std::max_element(p, p + 4))};
    }
    const int64_t *lo = cst(a.min);
    if (lo && *lo >= 0) return {bound_const(t, floor_div(*lo, *d2)), div(a.max, b.min)};
  }
  return Interval::everything();
}

Interval interval_mod(const Interval &a, const Interval &b) {
  Type t = bound_type(a, b);
  if (const int64_t *c = point(b)) {
    if (*c > 0) {
      if (all_const(a)) {
        int64_t lo = *cst(a.min), hi = *cst(a.max);
        if (floor_div(lo, *c) == floor_div(hi, *c))
          return {int_const(t, floor_mod(lo, *c)), int_const(t, floor_mod(hi, *c))};
      }
      return {int_const(t, 0), int_const(t, *c - 1)};
    }
    if (*c < 0) return {int_const(t, *c + 1), int_const(t, 0)};
    return Interval::everything();
  }
  const int64_t *d1 = cst(b.min), *d2 = cst(b.max);
  if (d1 && d2 && *d1 > 0) {
    int64_t hi = *d2 - 1;
    const int64_t *la = cst(a.min), *ha = cst(a.max);
    if (la && ha && *la >= 0) hi = std::min(hi, *ha);
    return {int_const(t, 0), int_const(t, hi)};
  }
  return Interval::everything();
}

Interval interval_min(const Interval &a, const Interval &b) {
  auto mn = [](const Expr &x, const Expr &y) { return simp(MinNode::make(x, y)); };
  Expr lo = a.min.defined() && b.min.defined() ? mn(a.min, b.min) : Expr();
  Expr hi = a.max.defined() && b.max.defined() ? mn(a.max, b.max) : (a.max.defined() ? a.max : b.max);
  return {lo, hi};
}

Interval interval_max(const Interval &a, const Interval &b) {
  auto mx = [](const Expr &x, const Expr &y) { return simp(MaxNode::make(x, y)); };
  Expr lo = a.min.defined() && b.min.defined() ? mx(a.min, b.min) : (a.min.defined() ? a.min : b.min);
  Expr hi = a.max.defined() && b.max.defined() ? mx(a.max, b.max) : Expr();
  return {lo, hi};
}

}  // namespace tensorir::arith

namespace tensorir {

Interval interval_union(const Interval &a, const Interval &b) {
  auto simp = [](const Expr &e) { return simplify(e, VarRanges{}); };
  Expr lo = a.min.defined() && b.min.defined() ? simp(MinNode::make(a.min, b.min)) : Expr();
  Expr hi = a.max.defined() && b.max.defined() ? simp(MaxNode::make(a.max, b.max)) : Expr();
  return {lo, hi};
}

Interval interval_of_range(const Range &r) {
  Expr mn = simplify(r.min, VarRanges{});
  if (!r.extent.defined()) return {mn, Expr()};
  // The operators promote mismatched widths (an int64 min with an int32 extent).
  return {mn, simplify(r.min + r.extent - 1, VarRanges{})};
}

}  // namespace tensorir
