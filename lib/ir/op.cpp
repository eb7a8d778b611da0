// Operators on Expr: type matching, light constant folding, intrinsics.
#include "tensorir/ir/op.h"

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <limits>

#include "arith/const_fold.h"
#include "tensorir/error.h"
#include "tensorir/ir/printer.h"

namespace tensorir {

namespace {

// Wrapping arithmetic without signed-overflow undefined behaviour.
int64_t wadd(int64_t a, int64_t b) { return static_cast<int64_t>(uint64_t(a) + uint64_t(b)); }
int64_t wsub(int64_t a, int64_t b) { return static_cast<int64_t>(uint64_t(a) - uint64_t(b)); }
int64_t wmul(int64_t a, int64_t b) { return static_cast<int64_t>(uint64_t(a) * uint64_t(b)); }

// A scalar constant, or a broadcast of one.
struct ConstInfo {
  bool ok = false;
  bool is_int = false;
  int64_t i = 0;
  double f = 0;
};

ConstInfo const_info(const Expr &e) {
  ConstInfo c;
  Expr s = e;
  if (const BroadcastNode *b = e.as<BroadcastNode>()) s = b->value;
  if (const IntImmNode *n = s.as<IntImmNode>()) {
    c.ok = c.is_int = true;
    c.i = n->value;
    c.f = static_cast<double>(n->value);
  } else if (const FloatImmNode *n = s.as<FloatImmNode>()) {
    c.ok = true;
    c.f = n->value;
  }
  return c;
}

// Re-types a constant to element type t, keeping its lanes.
Expr retype_const(const ConstInfo &c, Type t, int lanes) {
  Expr s = c.is_int ? (t.is_float() ? FloatImmNode::make(t, c.f) : IntImmNode::make(t, c.i))
                    : FloatImmNode::make(t, c.f);
  return BroadcastNode::make(s, lanes);
}

void check_not_handle(const Expr &e, const char *op) {
  TIR_USER_CHECK(e.defined()) << "operator " << op << " applied to an undefined expression";
  TIR_USER_CHECK(!e.type().is_handle())
      << "operator " << op << " cannot take the handle (pointer) `" << e << "`";
}

std::string cast_hint(Type t) {
  std::string s = t.element_of().str();
  // Spell the cast the way a user writes it: cast(Float(32), ...).
  if (s.rfind("float", 0) == 0) return "Float(" + s.substr(5) + ")";
  if (s.rfind("uint", 0) == 0) return "UInt(" + s.substr(4) + ")";
  if (s.rfind("int", 0) == 0) return "Int(" + s.substr(3) + ")";
  return s;
}

// The element type two non-constant operands meet at, or an error.
Type unify_elements(const Expr &a, const Expr &b, const char *op) {
  Type ta = a.type().element_of(), tb = b.type().element_of();
  if (ta == tb) return ta;
  if (ta.is_float() != tb.is_float()) {
    const Expr &ie = ta.is_float() ? b : a;
    const Expr &fe = ta.is_float() ? a : b;
    TIR_THROW() << "cannot combine " << ie.type() << " expression `" << ie << "` with "
                << fe.type() << " expression `" << fe << "` in `" << op << "`: use cast("
                << cast_hint(fe.type()) << ", " << ie << ") or cast(" << cast_hint(ie.type())
                << ", " << fe << ") to make the types agree";
  }
  int bits = std::max(ta.bits(), tb.bits());
  if (ta.is_float()) {
    // Two float kinds of one width (float16 vs bfloat16) meet at float32.
    if (ta.code() != tb.code()) return Float(std::max(bits, 32));
    return Type(ta.code(), bits);
  }
  if (ta.code() == tb.code()) return Type(ta.code(), bits);
  // int vs uint (or bool): the signed type of the wider width.
  return Int(bits);
}

// Gives a and b one type (the type rules at the top of op.h).
void match_types(Expr &a, Expr &b, const char *op) {
  check_not_handle(a, op);
  check_not_handle(b, op);
  if (a.type() == b.type()) return;
  int la = a.type().lanes(), lb = b.type().lanes();
  TIR_USER_CHECK(la == lb || la == 1 || lb == 1)
      << "operator " << op << " on vectors of different lengths: `" << a << "` (" << a.type()
      << ") and `" << b << "` (" << b.type() << ")";
  int lanes = std::max(la, lb);
  ConstInfo ca = const_info(a), cb = const_info(b);
  Type ta = a.type().element_of(), tb = b.type().element_of();
  if (ta != tb) {
    if (ca.ok != cb.ok) {
      // A constant adopts the other side's type.
      const Expr &var = ca.ok ? b : a;
      const ConstInfo &c = ca.ok ? ca : cb;
      Type vt = var.type().element_of();
      if (!c.is_int && !vt.is_float()) {
        TIR_THROW() << "cannot combine " << vt << " expression `" << var << "` with float constant "
                    << c.f << " in `" << op << "`: use cast(Float(32), " << var
                    << ") or an integer constant";
      }
      // Wrapped into a narrower type the constant would be another number: A(i) > 300 on
      // uint8 would become A(i) > 44.
      TIR_USER_CHECK(!c.is_int || vt.is_float() || vt.holds_int(c.i))
          << "the constant " << c.i << " is not a value of " << vt << ", the type of `" << var << "` in `" << op
          << "`: use cast(" << cast_hint(vt.bits() < 32 ? Int(32) : Int(64)) << ", " << var
          << ") to compute in a wider type";
      Expr k = retype_const(c, vt, ca.ok ? la : lb);
      (ca.ok ? a : b) = k;
    } else if (ca.ok && cb.ok && ca.is_int != cb.is_int) {
      // Two literals: the int one becomes the float one's type.
      Type ft = ca.is_int ? tb : ta;
      if (ca.is_int) a = retype_const(ca, ft, la);
      else b = retype_const(cb, ft, lb);
    } else {
      Type t = unify_elements(a, b, op);
      if (ta != t) a = cast(t.with_lanes(la), a);
      if (tb != t) b = cast(t.with_lanes(lb), b);
    }
  }
  if (a.type().lanes() != lanes) a = BroadcastNode::make(a, lanes);
  if (b.type().lanes() != lanes) b = BroadcastNode::make(b, lanes);
  TIR_ASSERT(a.type() == b.type()) << "type matching failed for " << a.type() << " and " << b.type();
}

const IntImmNode *as_int(const Expr &e) { return e.as<IntImmNode>(); }
const FloatImmNode *as_float(const Expr &e) { return e.as<FloatImmNode>(); }

bool is_int_type(const Expr &e) { return e.type().is_int_or_uint(); }

// Folds when both sides are scalar constants; returns undefined otherwise.
template <typename FI, typename FF>
Expr fold(const Expr &a, const Expr &b, Type rt, FI fi, FF ff) {
  const IntImmNode *ia = as_int(a), *ib = as_int(b);
  if (ia && ib) return IntImmNode::make(rt, fi(ia->value, ib->value));
  const FloatImmNode *fa = as_float(a), *fb = as_float(b);
  if (fa && fb) {
    double r = ff(fa->value, fb->value);
    return rt.is_float() ? FloatImmNode::make(rt, r) : IntImmNode::make(rt, r != 0);
  }
  return Expr();
}

int64_t floordiv_i(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
int64_t floormod_i(int64_t a, int64_t b) { return a - floordiv_i(a, b) * b; }
double floormod_f(double a, double b) { return a - b * std::floor(a / b); }

// uint64 values live in int64: compare them as unsigned.
bool less_than(Type t, int64_t a, int64_t b) {
  return t.is_uint() ? static_cast<uint64_t>(a) < static_cast<uint64_t>(b) : a < b;
}

void check_divisor(const Expr &a, const Expr &b, const char *op) {
  if (!is_int_type(b)) return;
  ConstInfo cb = const_info(b);
  TIR_USER_CHECK(!(cb.ok && cb.i == 0))
      << "integer division by zero in `" << a << " " << op << " " << b << "`";
}

}  // namespace


Expr operator+(Expr a, Expr b) {
  match_types(a, b, "+");
  Type t = a.type();
  if (Expr r = fold(a, b, t, wadd, [](double x, double y) { return x + y; }); r.defined()) return r;
  if (t.is_int_or_uint()) {
    if (is_const_int(b, 0)) return a;
    if (is_const_int(a, 0)) return b;
  }
  return AddNode::make(a, b);
}

Expr operator-(Expr a, Expr b) {
  match_types(a, b, "-");
  Type t = a.type();
  if (Expr r = fold(a, b, t, wsub, [](double x, double y) { return x - y; }); r.defined()) return r;
  if (t.is_int_or_uint() && is_const_int(b, 0)) return a;
  return SubNode::make(a, b);
}

Expr operator*(Expr a, Expr b) {
  match_types(a, b, "*");
  Type t = a.type();
  if (Expr r = fold(a, b, t, wmul, [](double x, double y) { return x * y; }); r.defined()) return r;
  if (t.is_int_or_uint()) {
    if (is_const_int(b, 1)) return a;
    if (is_const_int(a, 1)) return b;
    if (is_const_int(a, 0) || is_const_int(b, 0)) return make_zero(t);
  }
  return MulNode::make(a, b);
}

Expr floordiv(Expr a, Expr b) {
  match_types(a, b, "/");
  Type t = a.type();
  if (t.is_float()) {
    if (const FloatImmNode *fa = as_float(a), *fb = as_float(b); fa && fb && fb->value != 0) {
      return FloatImmNode::make(t, std::floor(fa->value / fb->value));
    }
    return floor(DivNode::make(a, b));
  }
  return a / b;
}

Expr operator/(Expr a, Expr b) {
  match_types(a, b, "/");
  Type t = a.type();
  if (t.is_int_or_uint()) {
    check_divisor(a, b, "/");
    const IntImmNode *ia = as_int(a), *ib = as_int(b);
    if (ia && ib) {
      if (t.is_uint()) return IntImmNode::make(t, int64_t(uint64_t(ia->value) / uint64_t(ib->value)));
      if (ib->value == -1) return IntImmNode::make(t, wsub(0, ia->value));
      return IntImmNode::make(t, floordiv_i(ia->value, ib->value));
    }
    if (is_const_int(b, 1)) return a;
  } else if (const FloatImmNode *fa = as_float(a), *fb = as_float(b); fa && fb && fb->value != 0) {
    return FloatImmNode::make(t, fa->value / fb->value);
  }
  return DivNode::make(a, b);
}

Expr floormod(Expr a, Expr b) { return a % b; }

Expr operator%(Expr a, Expr b) {
  match_types(a, b, "%");
  Type t = a.type();
  if (t.is_int_or_uint()) {
    check_divisor(a, b, "%");
    const IntImmNode *ia = as_int(a), *ib = as_int(b);
    if (ia && ib) {
      if (t.is_uint()) return IntImmNode::make(t, int64_t(uint64_t(ia->value) % uint64_t(ib->value)));
      if (ib->value == -1) return make_zero(t);
      return IntImmNode::make(t, floormod_i(ia->value, ib->value));
    }
    if (is_const_int(b, 1)) return make_zero(t);
  } else if (const FloatImmNode *fa = as_float(a), *fb = as_float(b); fa && fb && fb->value != 0) {
    return FloatImmNode::make(t, floormod_f(fa->value, fb->value));
  }
  return ModNode::make(a, b);
}

Expr operator-(Expr a) {
  check_not_handle(a, "-");
  if (const IntImmNode *n = as_int(a)) return IntImmNode::make(a.type(), wsub(0, n->value));
  if (const FloatImmNode *n = as_float(a)) return FloatImmNode::make(a.type(), -n->value);
  return SubNode::make(make_zero(a.type()), a);
}

Expr min(Expr a, Expr b) {
  match_types(a, b, "min");
  Type t = a.type();
  auto fi = [t](int64_t x, int64_t y) { return less_than(t, y, x) ? y : x; };
  if (Expr r = fold(a, b, t, fi, arith::float_min); r.defined()) return r;
  if (a.same_as(b)) return a;
  return MinNode::make(a, b);
}

Expr max(Expr a, Expr b) {
  match_types(a, b, "max");
  Type t = a.type();
  auto fi = [t](int64_t x, int64_t y) { return less_than(t, x, y) ? y : x; };
  if (Expr r = fold(a, b, t, fi, arith::float_max); r.defined()) return r;
  if (a.same_as(b)) return a;
  return MaxNode::make(a, b);
}

// Comparisons fold to a bool constant.
#define TIR_COMPARE(OP, NODE, NAME, PI, PF)                                     \
  Expr operator OP(Expr a, Expr b) {                                            \
    match_types(a, b, NAME);                                                    \
    Type t = a.type();                                                          \
    auto fi = [t](int64_t x, int64_t y) -> int64_t { return PI; };              \
    auto ff = [](double x, double y) -> double { return PF; };                  \
    if (Expr r = fold(a, b, Bool(t.lanes()), fi, ff); r.defined()) return r;    \
    return NODE::make(a, b);                                                    \
  }
TIR_COMPARE(==, EQNode, "==", x == y, x == y)
TIR_COMPARE(!=, NENode, "!=", x != y, x != y)
TIR_COMPARE(<, LTNode, "<", less_than(t, x, y), x < y)
TIR_COMPARE(<=, LENode, "<=", !less_than(t, y, x), x <= y)
TIR_COMPARE(>, GTNode, ">", less_than(t, y, x), x > y)
TIR_COMPARE(>=, GENode, ">=", !less_than(t, x, y), x >= y)
#undef TIR_COMPARE

namespace {
void check_bool(const Expr &e, const char *op) {
  TIR_USER_CHECK(e.defined()) << "operator " << op << " applied to an undefined expression";
  TIR_USER_CHECK(e.type().is_bool()) << "operator " << op << " needs bool operands, but `" << e
                                     << "` is " << e.type() << ": compare it first (e.g. `x != 0`)";
}
}  // namespace

Expr operator&&(Expr a, Expr b) {
  check_bool(a, "&&");
  check_bool(b, "&&");
  match_types(a, b, "&&");
  if (const IntImmNode *n = as_int(a)) return n->value ? b : a;
  if (const IntImmNode *n = as_int(b)) return n->value ? a : b;
  return AndNode::make(a, b);
}

Expr operator||(Expr a, Expr b) {
  check_bool(a, "||");
  check_bool(b, "||");
  match_types(a, b, "||");
  if (const IntImmNode *n = as_int(a)) return n->value ? a : b;
  if (const IntImmNode *n = as_int(b)) return n->value ? b : a;
  return OrNode::make(a, b);
}

Expr operator!(Expr a) {
  check_bool(a, "!");
  if (const IntImmNode *n = as_int(a)) return IntImmNode::make(a.type(), !n->value);
  if (const NotNode *n = a.as<NotNode>()) return n->a;
  return NotNode::make(a);
}

Expr cast(Type t, Expr v) {
  TIR_USER_CHECK(v.defined()) << "cast to " << t << " of an undefined expression";
  // A scalar target type applies to every lane of a vector.
  if (t.lanes() == 1 && v.type().lanes() > 1) t = t.with_lanes(v.type().lanes());
  if (v.type() == t) return v;
  TIR_USER_CHECK(!t.is_handle() && !v.type().is_handle())
      << "cannot cast `" << v << "` from " << v.type() << " to " << t << ": handles do not convert";
  if (t.lanes() > 1 && v.type().lanes() == 1) {
    return BroadcastNode::make(cast(t.element_of(), v), t.lanes());
  }
  TIR_USER_CHECK(t.lanes() == v.type().lanes())
      << "cannot cast `" << v << "` from " << v.type() << " to " << t << ": lane counts differ";
  if (const BroadcastNode *b = v.as<BroadcastNode>()) {
    return BroadcastNode::make(cast(t.element_of(), b->value), t.lanes());
  }
  if (const IntImmNode *n = as_int(v)) {
    if (t.is_float()) {
      double d = v.type().is_uint() ? double(uint64_t(n->value)) : double(n->value);
      return FloatImmNode::make(t, d);
    }
    return IntImmNode::make(t, n->value);
  }
  if (const FloatImmNode *n = as_float(v)) {
    if (t.is_float()) return FloatImmNode::make(t, n->value);
    if (t.is_bool()) return IntImmNode::make(t, n->value != 0);
    if (std::isfinite(n->value) && std::fabs(n->value) < 9.2e18) {
      return IntImmNode::make(t, static_cast<int64_t>(n->value));
    }
  }
  return CastNode::make(t, v);
}

Expr select(Expr cond, Expr t, Expr f) {
  TIR_USER_CHECK(cond.defined()) << "select with an undefined condition";
  TIR_USER_CHECK(cond.type().is_bool())
      << "select needs a bool condition, but `" << cond << "` is " << cond.type();
  match_types(t, f, "select");
  if (const IntImmNode *n = as_int(cond)) return n->value ? t : f;
  int lanes = std::max(cond.type().lanes(), t.type().lanes());
  TIR_USER_CHECK(cond.type().lanes() == 1 || cond.type().lanes() == lanes)
      << "select condition `" << cond << "` has " << cond.type().lanes() << " lanes but its values have "
      << t.type().lanes();
  if (t.type().lanes() != lanes) {
    t = BroadcastNode::make(t, lanes);
    f = BroadcastNode::make(f, lanes);
  }
  return SelectNode::make(cond, t, f);
}

Expr if_then_else(Expr cond, Expr t, Expr f) { return select(std::move(cond), std::move(t), std::move(f)); }

namespace {
// Math intrinsics work on floats: ints become float32 first.
Expr to_float(Expr x, const char *name) {
  TIR_USER_CHECK(x.defined()) << name << "() of an undefined expression";
  TIR_USER_CHECK(!x.type().is_handle()) << name << "() cannot take the handle `" << x << "`";
  if (!x.type().is_float()) x = cast(Float(32, x.type().lanes()), x);
  return x;
}

Expr unary_intrinsic(const char *name, Expr x, double (*f)(double)) {
  x = to_float(x, name);
  if (const FloatImmNode *n = as_float(x)) return FloatImmNode::make(x.type(), f(n->value));
  return CallNode::make(x.type(), name, {x}, CallNode::PureIntrinsic);
}
}  // namespace

Expr exp(Expr x) { return unary_intrinsic("exp", x, [](double v) { return std::exp(v); }); }
Expr log(Expr x) { return unary_intrinsic("log", x, [](double v) { return std::log(v); }); }
Expr sqrt(Expr x) { return unary_intrinsic("sqrt", x, [](double v) { return std::sqrt(v); }); }
Expr rsqrt(Expr x) { return unary_intrinsic("rsqrt", x, [](double v) { return 1.0 / std::sqrt(v); }); }
Expr tanh(Expr x) { return unary_intrinsic("tanh", x, [](double v) { return std::tanh(v); }); }
Expr sigmoid(Expr x) {
  return unary_intrinsic("sigmoid", x, [](double v) { return 1.0 / (1.0 + std::exp(-v)); });
}
Expr erf(Expr x) { return unary_intrinsic("erf", x, [](double v) { return std::erf(v); }); }
Expr floor(Expr x) { return unary_intrinsic("floor", x, [](double v) { return std::floor(v); }); }
Expr ceil(Expr x) { return unary_intrinsic("ceil", x, [](double v) { return std::ceil(v); }); }
Expr fabs(Expr x) { return unary_intrinsic("fabs", x, [](double v) { return std::fabs(v); }); }
Expr sin(Expr x) { return unary_intrinsic("sin", x, [](double v) { return std::sin(v); }); }
Expr cos(Expr x) { return unary_intrinsic("cos", x, [](double v) { return std::cos(v); }); }
Expr tan(Expr x) { return unary_intrinsic("tan", x, [](double v) { return std::tan(v); }); }
Expr asin(Expr x) { return unary_intrinsic("asin", x, [](double v) { return std::asin(v); }); }
Expr acos(Expr x) { return unary_intrinsic("acos", x, [](double v) { return std::acos(v); }); }
Expr atan(Expr x) { return unary_intrinsic("atan", x, [](double v) { return std::atan(v); }); }
Expr sinh(Expr x) { return unary_intrinsic("sinh", x, [](double v) { return std::sinh(v); }); }
Expr cosh(Expr x) { return unary_intrinsic("cosh", x, [](double v) { return std::cosh(v); }); }
Expr asinh(Expr x) { return unary_intrinsic("asinh", x, [](double v) { return std::asinh(v); }); }
Expr acosh(Expr x) { return unary_intrinsic("acosh", x, [](double v) { return std::acosh(v); }); }
Expr atanh(Expr x) { return unary_intrinsic("atanh", x, [](double v) { return std::atanh(v); }); }

namespace {
Expr binary_intrinsic(const char *name, Expr x, Expr y, double (*f)(double, double)) {
  x = to_float(x, name);
  y = to_float(y, name);
  match_types(x, y, name);
  const FloatImmNode *a = as_float(x), *b = as_float(y);
  if (a && b) return FloatImmNode::make(x.type(), f(a->value, b->value));
  return CallNode::make(x.type(), name, {x, y}, CallNode::PureIntrinsic);
}
}  // namespace

Expr pow(Expr x, Expr y) { return binary_intrinsic("pow", x, y, [](double a, double b) { return std::pow(a, b); }); }
Expr fmod(Expr x, Expr y) {
  return binary_intrinsic("fmod", x, y, [](double a, double b) { return std::fmod(a, b); });
}

namespace {
// x << n and x >> n on integers; n in [0, bits) (other amounts are the caller's to handle).
Expr shift(const char *name, Expr x, Expr n) {
  TIR_USER_CHECK(x.defined() && n.defined()) << name << "() of an undefined expression";
  TIR_USER_CHECK(x.type().is_int_or_uint() && n.type().is_int_or_uint())
      << name << "() takes integers, not " << x.type() << " and " << n.type();
  match_types(x, n, name);
  return CallNode::make(x.type(), name, {x, n}, CallNode::PureIntrinsic);
}
}  // namespace

Expr shift_left(Expr x, Expr n) { return shift("shift_left", std::move(x), std::move(n)); }
Expr shift_right(Expr x, Expr n) { return shift("shift_right", std::move(x), std::move(n)); }

Expr abs(Expr x) {
  TIR_USER_CHECK(x.defined()) << "abs() of an undefined expression";
  TIR_USER_CHECK(!x.type().is_handle()) << "abs() cannot take the handle `" << x << "`";
  if (x.type().is_float()) return fabs(x);
  if (x.type().is_uint()) return x;
  if (const IntImmNode *n = as_int(x)) return IntImmNode::make(x.type(), n->value < 0 ? wsub(0, n->value) : n->value);
  return CallNode::make(x.type(), "abs", {x}, CallNode::PureIntrinsic);
}

Expr call_extern(Type t, const std::string &name, std::vector<Expr> args) {
  TIR_USER_CHECK(!name.empty()) << "call_extern needs a function name";
  for (const Expr &a : args) TIR_USER_CHECK(a.defined()) << "call_extern " << name << " with an undefined argument";
  return CallNode::make(t, name, std::move(args), CallNode::Extern);
}

Expr checked_index(Expr index, int64_t extent, const std::string &what) {
  TIR_USER_CHECK(index.defined() && index.type().is_int())
      << "checked_index: the index must be a signed integer expression, not "
      << (index.defined() ? index.type().str() : "undefined") << " (" << what << ")";
  const Type t = index.type().element_of();
  TIR_USER_CHECK(extent > 0 && extent <= std::numeric_limits<int32_t>::max() && t.holds_int(extent))
      << "checked_index: the extent " << extent << " must be in [1, 2^31) and an " << t << " (" << what << ")";
  return CallNode::make(Int(32, index.type().lanes()), kCheckedIndex,
                        {index, IntImmNode::make(t, extent), StringImmNode::make(what)}, CallNode::PureIntrinsic);
}

int64_t checked_index_extent(const CallNode *call) {
  TIR_ASSERT(call->name == kCheckedIndex && call->args.size() == 3) << "not a checked_index call";
  Expr n = call->args[1];
  if (const auto *b = n.as<BroadcastNode>()) n = b->value;  // widened by vectorize_loops
  const auto *imm = n.as<IntImmNode>();
  TIR_ASSERT(imm) << "checked_index: the extent is not a constant: " << call->args[1];
  return imm->value;
}


const std::vector<std::string> &intrinsic_names() {
  static const std::vector<std::string> names = {
      "exp",  "log", "sqrt", "rsqrt", "tanh", "sigmoid", "erf",  "floor", "ceil",  "fabs",  "pow",  "fmod", "abs",
      "sin",  "cos", "tan",  "asin",  "acos", "atan",    "sinh", "cosh",  "asinh", "acosh", "atanh",
      "shift_left", "shift_right"};
  return names;
}

namespace {
// Largest finite value of a float type.
double float_max(Type t) {
  if (t.code() == Type::BFloat) return 3.3895313892515355e38;
  switch (t.bits()) {
    case 16: return 65504.0;
    case 32: return static_cast<double>(FLT_MAX);
    default: return DBL_MAX;
  }
}

Expr extreme(Type t, bool want_max) {
  TIR_USER_CHECK(!t.is_handle()) << "handles have no " << (want_max ? "max" : "min") << " value";
  Type e = t.element_of();
  Expr s;
  if (e.is_float()) {
    s = FloatImmNode::make(e, want_max ? float_max(e) : -float_max(e));
  } else if (e.is_uint()) {
    // uint64's maximum is stored as the int64 bit pattern -1.
    int64_t mx = e.bits() >= 64 ? -1 : int64_t((uint64_t(1) << e.bits()) - 1);
    s = IntImmNode::make(e, want_max ? mx : 0);
  } else {
    int64_t mx = e.bits() >= 64 ? INT64_MAX : (int64_t(1) << (e.bits() - 1)) - 1;
    s = IntImmNode::make(e, want_max ? mx : -mx - 1);
  }
  return BroadcastNode::make(s, t.lanes());
}
}  // namespace

Expr max_value(Type t) { return extreme(t, true); }
Expr min_value(Type t) { return extreme(t, false); }

}  // namespace tensorir
