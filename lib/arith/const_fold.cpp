// Constant folding: integer arithmetic wraps to the type's width, Div/Mod use floor
// semantics, floats are computed in double and rounded to their own precision.
#include "arith/const_fold.h"

#include <cmath>
#include <limits>

namespace tensorir::arith {

int64_t floor_div(int64_t a, int64_t b) {
  if (b == -1) return static_cast<int64_t>(0ULL - static_cast<uint64_t>(a));  // avoids INT64_MIN / -1
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

int64_t floor_mod(int64_t a, int64_t b) {
  if (b == -1) return 0;
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

int64_t wrap_int(Type t, int64_t v) {
  int bits = t.bits();
  if (t.is_bool()) return v != 0;
  if (bits >= 64) return v;
  uint64_t mask = (1ULL << bits) - 1;
  uint64_t u = static_cast<uint64_t>(v) & mask;
  if (t.is_uint()) return static_cast<int64_t>(u);
  if (u & (1ULL << (bits - 1))) u |= ~mask;  // sign-extend
  return static_cast<int64_t>(u);
}

Expr int_const(Type t, int64_t v) { return IntImmNode::make(t.element_of(), wrap_int(t, v)); }

Expr bool_const(bool v, int lanes) {
  Expr s = IntImmNode::make(Bool(), v ? 1 : 0);
  return lanes > 1 ? BroadcastNode::make(s, lanes) : s;
}

const int64_t *as_int_scalar(const Expr &e) {
  if (const auto *b = e.as<BroadcastNode>()) return as_const_int(b->value);
  return as_const_int(e);
}

bool is_int_value(const Expr &e, int64_t v) {
  const int64_t *p = as_int_scalar(e);
  return p && *p == v;
}

bool is_float_value(const Expr &e, double v) {
  Expr s = e;
  if (const auto *b = e.as<BroadcastNode>()) s = b->value;
  const auto *f = s.as<FloatImmNode>();
  return f && f->value == v;
}

bool is_const(const Expr &e) {
  return e.as<IntImmNode>() || e.as<FloatImmNode>() || e.as<StringImmNode>();
}

double round_float(Type t, double v) {
  if (t.bits() == 64) return v;
  return static_cast<double>(static_cast<float>(v));
}

namespace {

// Wrapping integer arithmetic: computed on uint64 to avoid signed overflow.
int64_t add_w(int64_t a, int64_t b) { return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b)); }
int64_t sub_w(int64_t a, int64_t b) { return static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b)); }
int64_t mul_w(int64_t a, int64_t b) { return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b)); }

Expr fold_int(IRKind kind, Type rt, Type ot, int64_t x, int64_t y) {
  // Unsigned comparisons and division see the operands as unsigned numbers.
  bool u = ot.is_uint() && ot.bits() == 64;
  switch (kind) {
    case IRKind::Add: return int_const(rt, add_w(x, y));
    case IRKind::Sub: return int_const(rt, sub_w(x, y));
    case IRKind::Mul: return int_const(rt, mul_w(x, y));
    case IRKind::Div:
      if (y == 0) return Expr();
      if (u) return int_const(rt, static_cast<int64_t>(static_cast<uint64_t>(x) / static_cast<uint64_t>(y)));
      return int_const(rt, floor_div(x, y));
    case IRKind::Mod:
      if (y == 0) return Expr();
      if (u) return int_const(rt, static_cast<int64_t>(static_cast<uint64_t>(x) % static_cast<uint64_t>(y)));
      return int_const(rt, floor_mod(x, y));
    case IRKind::Min:
      if (u) return int_const(rt, static_cast<uint64_t>(x) < static_cast<uint64_t>(y) ? x : y);
      return int_const(rt, x < y ? x : y);
    case IRKind::Max:
      if (u) return int_const(rt, static_cast<uint64_t>(x) > static_cast<uint64_t>(y) ? x : y);
      return int_const(rt, x > y ? x : y);
    case IRKind::EQ: return bool_const(x == y);
    case IRKind::NE: return bool_const(x != y);
    case IRKind::LT: return bool_const(u ? static_cast<uint64_t>(x) < static_cast<uint64_t>(y) : x < y);
    case IRKind::LE: return bool_const(u ? static_cast<uint64_t>(x) <= static_cast<uint64_t>(y) : x <= y);
    case IRKind::GT: return bool_const(u ? static_cast<uint64_t>(x) > static_cast<uint64_t>(y) : x > y);
    case IRKind::GE: return bool_const(u ? static_cast<uint64_t>(x) >= static_cast<uint64_t>(y) : x >= y);
    case IRKind::And: return bool_const(x != 0 && y != 0);
    case IRKind::Or: return bool_const(x != 0 || y != 0);
    default: return Expr();
  }
}

Expr fold_float(IRKind kind, Type rt, double x, double y) {
  auto mk = [&](double v) { return FloatImmNode::make(rt.element_of(), round_float(rt, v)); };
  switch (kind) {
    case IRKind::Add: return mk(x + y);
    case IRKind::Sub: return mk(x - y);
    case IRKind::Mul: return mk(x * y);
    case IRKind::Div: return mk(x / y);
    case IRKind::Mod: return mk(x - y * std::floor(x / y));
    case IRKind::Min: return mk(float_min(x, y));
    case IRKind::Max: return mk(float_max(x, y));
    case IRKind::EQ: return bool_const(x == y);
    case IRKind::NE: return bool_const(x != y);
    case IRKind::LT: return bool_const(x < y);
    case IRKind::LE: return bool_const(x <= y);
    case IRKind::GT: return bool_const(x > y);
    case IRKind::GE: return bool_const(x >= y);
    default: return Expr();
  }
}

}  // namespace

double float_min(double x, double y) { return std::isnan(x) || std::isnan(y) ? x + y : std::fmin(x, y); }
double float_max(double x, double y) { return std::isnan(x) || std::isnan(y) ? x + y : std::fmax(x, y); }

Expr fold_binary(IRKind kind, Type rt, const Expr &a, const Expr &b) {
  if (!rt.is_scalar()) return Expr();
  const auto *ia = a.as<IntImmNode>(), *ib = b.as<IntImmNode>();
  if (ia && ib) return fold_int(kind, rt, a.type(), ia->value, ib->value);
  const auto *fa = a.as<FloatImmNode>(), *fb = b.as<FloatImmNode>();
  if (fa && fb) return fold_float(kind, rt, fa->value, fb->value);
  return Expr();
}

Expr fold_cast(Type t, const Expr &v) {
  if (!t.is_scalar()) return Expr();
  if (const auto *i = v.as<IntImmNode>()) {
    int64_t x = i->value;
    if (t.is_bool()) return bool_const(x != 0);
    if (t.is_int_or_uint()) return int_const(t, x);
    if (t.is_float()) {
      double d = v.type().is_uint() && v.type().bits() == 64 ? static_cast<double>(static_cast<uint64_t>(x))
                                                             : static_cast<double>(x);
      return FloatImmNode::make(t, round_float(t, d));
    }
    return Expr();
  }
  if (const auto *f = v.as<FloatImmNode>()) {
    double x = f->value;
    if (t.is_float()) return FloatImmNode::make(t, round_float(t, x));
    if (t.is_bool()) return bool_const(x != 0);
    if (t.is_int_or_uint()) {
      // Out-of-range conversions have no defined value: leave them to run time.
      if (!std::isfinite(x)) return Expr();
      double tr = std::trunc(x);
      int bits = t.bits();
      double lo = t.is_uint() ? 0.0 : -std::ldexp(1.0, bits - 1);
      double hi = t.is_uint() ? std::ldexp(1.0, bits) : std::ldexp(1.0, bits - 1);
      if (tr < lo || tr >= hi) return Expr();
      if (t.is_uint() && bits == 64) return int_const(t, static_cast<int64_t>(static_cast<uint64_t>(tr)));
      return int_const(t, static_cast<int64_t>(tr));
    }
  }
  return Expr();
}

}  // namespace tensorir::arith
