// Floor division and modulo. For a positive constant c the numerator's canonical sum
// splits into the terms that c divides and a remainder r:
//   (c*q + r) / c = q + r / c        (c*q + r) % c = r % c
// and the remainder's range often decides r / c and r % c outright.
#include <algorithm>
#include <numeric>

#include "arith/const_fold.h"
#include "arith/simplifier.h"

namespace tensorir::arith {

namespace {

// Splits s into q (terms c divides, divided by c) and r (the rest, with the constant).
void split_by(const LinearSum &s, int64_t c, LinearSum &q, LinearSum &r) {
  q.wrapped = r.wrapped = s.wrapped;  // parts of a wrapped sum bound nothing either
  for (const Monomial &m : s.terms) {
    if (m.coeff % c == 0)
      q.add_term(m.factors, m.coeff / c);
    else
      r.add_term(m.factors, m.coeff);
  }
  r.add_const(s.constant);
}

int64_t gcd_of(const LinearSum &r, int64_t c) {
  return std::gcd(std::gcd(r.coeff_gcd(), r.constant < 0 ? -r.constant : r.constant), c);
}

LinearSum divided(const LinearSum &r, int64_t g) {
  LinearSum out(r.type);
  out.wrapped = r.wrapped;
  for (const Monomial &m : r.terms) out.add_term(m.factors, m.coeff / g);
  out.add_const(r.constant / g);
  return out;
}

// The positive constant divisor of x (a constant or a broadcast of one).
const int64_t *positive_const(const Expr &x) {
  const int64_t *c = as_int_scalar(x);
  return c && *c > 0 ? c : nullptr;
}

// The single factor of a one-term sum with coefficient 1 and no constant.
const Expr *single_atom(const LinearSum &s) {
  if (s.terms.size() != 1 || s.constant != 0 || s.terms[0].coeff != 1 || s.terms[0].factors.size() != 1)
    return nullptr;
  return &s.terms[0].factors[0];
}

}  // namespace

Expr Simplifier::div_by_const(const Expr &a, int64_t c) {
  Type t = a.type();
  const LinearSum la = to_linear(a);
  // A wrapped constant is not the value's: dividing it would divide another number.
  if (la.wrapped) return DivNode::make(a, int_const(t, c));
  LinearSum q(t), r(t);
  split_by(la, c, q, r);
  if (r.is_const()) {
    q.add_const(floor_div(r.constant, c));
    return to_expr(q);
  }
  std::optional<int64_t> lo = lower(r), hi = upper(r);
  // The remainder's range decides the quotient, and r is dropped (unless it must be evaluated).
  if (lo && hi && floor_div(*lo, c) == floor_div(*hi, c) && !must_keep(to_expr(r))) {
    q.add_const(floor_div(*lo, c));
    return to_expr(q);
  }
  // (g*u) / (g*d) = u / d
  if (int64_t g = gcd_of(r, c); g > 1) {
    r = divided(r, g);
    c /= g;
  }
  // (g*u + k) / (g*d) = u / d for 0 <= k < g: the terms are multiples of g, so k never
  // carries them past a multiple of g*d (a register tile's offsets within a panel).
  if (const int64_t g = std::gcd(r.coeff_gcd(), c); g > 1 && r.constant > 0 && r.constant < g) {
    r.constant = 0;
    r = divided(r, g);
    c /= g;
  }
  Expr part;
  const Expr *atom = single_atom(r);
  const DivNode *inner = atom ? atom->as<DivNode>() : nullptr;
  const int64_t *c1 = inner ? as_const_int(inner->b) : nullptr;
  int64_t c1c;
  if (c1 && *c1 > 0 && !__builtin_mul_overflow(*c1, c, &c1c) && wrap_int(t, c1c) == c1c) {
    // (u / c1) / c = u / (c1*c)
    part = mutate(DivNode::make(inner->a, int_const(t, c1c)));
  } else if (c == 1) {
    part = to_expr(r);
  } else {
    part = DivNode::make(to_expr(r), int_const(t, c));
  }
  q.add(to_linear(part));
  return to_expr(q);
}

Expr Simplifier::mod_by_const(const Expr &a, int64_t c) {
  Type t = a.type();
  const LinearSum la = to_linear(a);
  if (la.wrapped) return ModNode::make(a, int_const(t, c));  // as in div_by_const
  LinearSum q(t), r(t);
  split_by(la, c, q, r);
  if (r.is_const()) return int_const(t, floor_mod(r.constant, c));
  std::optional<int64_t> lo = lower(r), hi = upper(r);
  if (lo && hi && floor_div(*lo, c) == floor_div(*hi, c)) {
    r.add_const(-floor_div(*lo, c) * c);
    return to_expr(r);
  }
  // Multiples of c in the constant change nothing: keep it smaller than c.
  if (r.constant >= c || r.constant <= -c) r.constant -= c * (r.constant / c);
  const Expr *atom = single_atom(r);
  if (const ModNode *inner = atom ? atom->as<ModNode>() : nullptr) {
    // (u % c1) % c = u % c when c divides c1
    const int64_t *c1 = as_const_int(inner->b);
    if (c1 && *c1 > 0 && *c1 % c == 0) return mutate(ModNode::make(inner->a, int_const(t, c)));
  }
  // (g*u + k) % (g*d) = (u % d) * g + k for 0 <= k < g
  if (const int64_t g = std::gcd(r.coeff_gcd(), c); g > 1 && r.constant > 0 && r.constant < g) {
    const int64_t k = r.constant;
    r.constant = 0;
    LinearSum out(t);
    out.add_term({ModNode::make(to_expr(divided(r, g)), int_const(t, c / g))}, g);
    out.add_const(k);
    return to_expr(out);
  }
  // (g*u) % (g*d) = (u % d) * g
  if (int64_t g = gcd_of(r, c); g > 1) {
    LinearSum out(t);
    out.add_term({ModNode::make(to_expr(divided(r, g)), int_const(t, c / g))}, g);
    return to_expr(out);
  }
  return ModNode::make(to_expr(r), int_const(t, c));
}

Expr Simplifier::visit(const DivNode *op, const Expr &self) {
  Expr a = mutate(op->a), b = mutate(op->b);
  Type t = op->type;
  if (Expr f = fold_binary(IRKind::Div, t, a, b); f.defined()) return f;
  if (t.is_int_or_uint() && is_int_value(b, 0) && !must_keep(a)) return make_zero(t);  // x / 0 is 0
  if (t.is_float()) {
    if (is_float_value(b, 1.0)) return a;
  } else if (is_int_value(b, 1)) {
    return a;
  }
  const auto *ba = a.as<BroadcastNode>(), *bb = b.as<BroadcastNode>();
  if (ba && bb) return BroadcastNode::make(mutate(DivNode::make(ba->value, bb->value)), ba->lanes);
  const int64_t *c = positive_const(b);
  if (t.is_int() && t.bits() >= 32 && c) {  // as is_index_type: int8 and int16 wrap
    if (t.is_scalar()) {
      Expr r = div_by_const(a, *c);
      return same_expr(r, self) ? self : r;
    }
    if (const auto *ramp = a.as<RampNode>()) {
      const int64_t *s = as_const_int(ramp->stride);
      if (s && *s % *c == 0)
        return mutate(RampNode::make(div_by_const(ramp->base, *c), int_const(ramp->stride.type(), *s / *c),
                                     ramp->lanes));
      if (s && *s > 0) {
        // Every lane lands in one quotient: a broadcast.
        Type et = ramp->base.type();
        LinearSum q(et), r(et);
        split_by(to_linear(ramp->base), *c, q, r);
        std::optional<int64_t> lo = lower(r), hi = upper(r);
        int64_t last;
        if (lo && hi && !__builtin_mul_overflow(*s, ramp->lanes - 1, &last) &&
            !__builtin_add_overflow(*hi, last, &last) && floor_div(*lo, *c) == floor_div(last, *c) &&
            !must_keep(to_expr(r))) {
          q.add_const(floor_div(*lo, *c));
          return BroadcastNode::make(to_expr(q), ramp->lanes);
        }
      }
    }
  }
  if (is_index_type(t) && !c) {
    // (b*q + r) / b = q when r is 0, or when 0 <= r < b.
    LinearSum lb = to_linear(b);
    const Expr *den = lb.wrapped ? nullptr : single_atom(lb);
    const LinearSum la = den ? to_linear(a) : LinearSum(t);
    if (den && !la.wrapped) {
      LinearSum q(t), r(t);
      for (const Monomial &m : la.terms) {
        auto it = std::find_if(m.factors.begin(), m.factors.end(), [&](const Expr &f) { return same_expr(f, *den); });
        if (it == m.factors.end()) {
          r.add_term(m.factors, m.coeff);
          continue;
        }
        std::vector<Expr> rest(m.factors.begin(), it);
        rest.insert(rest.end(), it + 1, m.factors.end());
        if (rest.empty())
          q.add_const(m.coeff);
        else
          q.add_term(rest, m.coeff);
      }
      r.add_const(la.constant);
      // Only for a b that cannot be 0: x / 0 is 0, not q (x / x is 1 only where x != 0).
      const std::optional<int64_t> b_lo = lower(lb), b_hi = upper(lb);
      const bool b_nonzero = (b_lo && *b_lo > 0) || (b_hi && *b_hi < 0);
      if (b_nonzero && r.is_const() && r.constant == 0 && !(q.is_const() && q.constant == 0)) return to_expr(q);
      LinearSum r_minus_b = r;
      r_minus_b.add(lb, -1);
      std::optional<int64_t> lo = lower(r), hi = upper(r_minus_b);
      if (lo && *lo >= 0 && hi && *hi < 0 && !must_keep(to_expr(r))) return to_expr(q);
    }
  }
  if (a.same_as(op->a) && b.same_as(op->b)) return self;
  return DivNode::make(a, b);
}

Expr Simplifier::visit(const ModNode *op, const Expr &self) {
  Expr a = mutate(op->a), b = mutate(op->b);
  Type t = op->type;
  if (Expr f = fold_binary(IRKind::Mod, t, a, b); f.defined()) return f;
  // x % 1 and x % 0 are 0.
  if (t.is_int_or_uint() && (is_int_value(b, 1) || (is_int_value(b, 0) && !must_keep(a)))) return make_zero(t);
  const auto *ba = a.as<BroadcastNode>(), *bb = b.as<BroadcastNode>();
  if (ba && bb) return BroadcastNode::make(mutate(ModNode::make(ba->value, bb->value)), ba->lanes);
  const int64_t *c = positive_const(b);
  if (t.is_int() && t.bits() >= 32 && c) {  // as is_index_type: int8 and int16 wrap
    if (t.is_scalar()) {
      Expr r = mod_by_const(a, *c);
      return same_expr(r, self) ? self : r;
    }
    if (const auto *ramp = a.as<RampNode>()) {
      const int64_t *s = as_const_int(ramp->stride);
      if (s && *s % *c == 0) return BroadcastNode::make(mod_by_const(ramp->base, *c), ramp->lanes);
      if (s && *s > 0) {
        // No lane wraps around: the remainders form a ramp.
        Type et = ramp->base.type();
        LinearSum q(et), r(et);
        split_by(to_linear(ramp->base), *c, q, r);
        std::optional<int64_t> lo = lower(r), hi = upper(r);
        int64_t last;
        if (lo && hi && !__builtin_mul_overflow(*s, ramp->lanes - 1, &last) &&
            !__builtin_add_overflow(*hi, last, &last) && floor_div(*lo, *c) == floor_div(last, *c)) {
          r.add_const(-floor_div(*lo, *c) * *c);
          return RampNode::make(to_expr(r), ramp->stride, ramp->lanes);
        }
      }
    }
  }
  if (is_index_type(t) && !c) {
    // (b*q + r) % b = r when 0 <= r < b; b*q % b = 0.
    LinearSum lb = to_linear(b);
    const Expr *den = lb.wrapped ? nullptr : single_atom(lb);
    const LinearSum la = den ? to_linear(a) : LinearSum(t);
    if (den && !la.wrapped) {
      LinearSum r(t);
      bool dropped = false;
      for (const Monomial &m : la.terms) {
        bool has = std::any_of(m.factors.begin(), m.factors.end(), [&](const Expr &f) { return same_expr(f, *den); });
        if (has)
          dropped = true;
        else
          r.add_term(m.factors, m.coeff);
      }
      r.add_const(la.constant);
      if (r.is_const() && r.constant == 0) return make_zero(t);
      LinearSum r_minus_b = r;
      r_minus_b.add(lb, -1);
      std::optional<int64_t> lo = lower(r), hi = upper(r_minus_b);
      if (lo && *lo >= 0 && hi && *hi < 0) return to_expr(r);
      if (dropped) return ModNode::make(to_expr(r), b);
    }
  }
  if (a.same_as(op->a) && b.same_as(op->b)) return self;
  return ModNode::make(a, b);
}

}  // namespace tensorir::arith
