// Comparisons, logic and select. Integer comparisons are decided from the bounds of
// a - b under the known ranges; those left open are rewritten with like terms
// cancelled (i*4 + j < i*4 + 8 becomes j < 8).
#include "arith/const_fold.h"
#include "arith/simplifier.h"

namespace tensorir::arith {

namespace {

bool is_const_bool(const Expr &e, bool *value) {
  const int64_t *v = as_int_scalar(e);
  if (!v || !e.type().is_bool()) return false;
  *value = *v != 0;
  return true;
}

// The comparison that holds exactly when `kind` does not (integers only: NaN breaks it for floats).
IRKind negated(IRKind kind) {
  switch (kind) {
    case IRKind::EQ: return IRKind::NE;
    case IRKind::NE: return IRKind::EQ;
    case IRKind::LT: return IRKind::GE;
    case IRKind::LE: return IRKind::GT;
    case IRKind::GT: return IRKind::LE;
    case IRKind::GE: return IRKind::LT;
    default: return kind;
  }
}

// The comparison with its operands swapped: a < b is b > a.
IRKind flipped(IRKind kind) {
  switch (kind) {
    case IRKind::LT: return IRKind::GT;
    case IRKind::LE: return IRKind::GE;
    case IRKind::GT: return IRKind::LT;
    case IRKind::GE: return IRKind::LE;
    default: return kind;
  }
}

bool is_comparison(IRKind k) {
  return k == IRKind::EQ || k == IRKind::NE || k == IRKind::LT || k == IRKind::LE || k == IRKind::GT ||
         k == IRKind::GE;
}

// The operands of a comparison node.
bool comparison_operands(const Expr &e, Expr *a, Expr *b) {
  switch (e->kind) {
#define CASE(K, N)                \
  case IRKind::K: {               \
    const auto *n = e.as<N>();    \
    *a = n->a;                    \
    *b = n->b;                    \
    return true;                  \
  }
    CASE(EQ, EQNode) CASE(NE, NENode) CASE(LT, LTNode) CASE(LE, LENode) CASE(GT, GTNode) CASE(GE, GENode)
#undef CASE
    default: return false;
  }
}

}  // namespace

std::optional<bool> Simplifier::decide(IRKind op, const Expr &a, const Expr &b) {
  LinearSum d = to_linear(a);
  d.add(to_linear(b), -1);
  std::optional<int64_t> lo = lower(d), hi = upper(d);
  switch (op) {
    case IRKind::LT:
      if (hi && *hi < 0) return true;
      if (lo && *lo >= 0) return false;
      break;
    case IRKind::LE:
      if (hi && *hi <= 0) return true;
      if (lo && *lo > 0) return false;
      break;
    case IRKind::GT:
      if (lo && *lo > 0) return true;
      if (hi && *hi <= 0) return false;
      break;
    case IRKind::GE:
      if (lo && *lo >= 0) return true;
      if (hi && *hi < 0) return false;
      break;
    case IRKind::EQ:
    case IRKind::NE: {
      bool eq = lo && hi && *lo == 0 && *hi == 0;
      // No integer solution: the coefficients' gcd does not divide the constant.
      int64_t g = d.coeff_gcd();
      bool ne = (lo && *lo > 0) || (hi && *hi < 0) || (g > 1 && d.constant % g != 0);
      if (eq) return op == IRKind::EQ;
      if (ne) return op == IRKind::NE;
      break;
    }
    default: break;
  }
  return std::nullopt;
}

// A ramp against a broadcast (or another ramp): a - b is linear in the lane, so an
// ordering that holds at the first and the last lane holds at every lane.
Expr Simplifier::compare_lanes(IRKind op, const Expr &a, const Expr &b) {
  if (!a.type().is_vector() || !a.type().element_of().is_int()) return Expr();
  if (op == IRKind::EQ || op == IRKind::NE || !is_comparison(op)) return Expr();
  int lanes = a.type().lanes();
  // The scalar value of lane `k` of a ramp or broadcast.
  auto lane = [&](const Expr &v, int k) -> Expr {
    if (const auto *r = v.as<RampNode>())
      return AddNode::make(r->base, MulNode::make(r->stride, IntImmNode::make(r->stride.type(), k)));
    if (const auto *bc = v.as<BroadcastNode>()) return bc->value;
    return Expr();
  };
  Expr a0 = lane(a, 0), b0 = lane(b, 0);
  if (!a0.defined() || !b0.defined() || !is_index_type(a0.type())) return Expr();
  std::optional<bool> first = decide(op, mutate(a0), mutate(b0));
  if (!first || must_keep(a) || must_keep(b)) return Expr();
  std::optional<bool> last = decide(op, mutate(lane(a, lanes - 1)), mutate(lane(b, lanes - 1)));
  if (!last || *last != *first) return Expr();
  return bool_const(*first, lanes);
}

Expr Simplifier::compare(IRKind op, const Expr &self, const Expr &a, const Expr &b) {
  Type t = a.type();
  if (Expr f = fold_binary(op, self.type(), a, b); f.defined()) return f;
  const auto *ba = a.as<BroadcastNode>(), *bb = b.as<BroadcastNode>();
  if (ba && bb) return BroadcastNode::make(mutate(rebuild_binary(op, ba->value, bb->value)), ba->lanes);
  if (Expr r = compare_lanes(op, a, b); r.defined()) return r;
  if (is_index_type(t)) {
    if (std::optional<bool> r = decide(op, a, b); r && !must_keep(a) && !must_keep(b)) return bool_const(*r);
    // Rewrite a - b = P - N + c as P op N - c (terms of P and N have positive
    // coefficients), or as N op' c when P is empty: variables left, constants right.
    LinearSum d = to_linear(a);
    d.add(to_linear(b), -1);
    if (d.wrapped) return rebuild_binary(op, a, b);
    LinearSum p(t), n(t);
    for (const Monomial &m : d.terms) {
      if (m.coeff > 0)
        p.add_term(m.factors, m.coeff);
      else
        n.add_term(m.factors, -m.coeff);
    }
    if (p.is_const()) {
      op = flipped(op);
      std::swap(p, n);
      p.constant = 0;
      n.constant = d.constant;
    } else {
      n.constant = -d.constant;
    }
    Expr lhs = to_expr(p), rhs = to_expr(n);
    if (same_expr(lhs, a) && same_expr(rhs, b)) lhs = a, rhs = b;
    Expr sa, sb;
    comparison_operands(self, &sa, &sb);
    if (lhs.same_as(sa) && rhs.same_as(sb) && op == self->kind) return self;
    // Terms that cancel (k + x < k + 4) go, unless one is a checked index.
    if (keep_failing_ && checked_calls(lhs) + checked_calls(rhs) < checked_calls(a) + checked_calls(b))
      return a.same_as(sa) && b.same_as(sb) ? self : rebuild_binary(self->kind, a, b);
    return rebuild_binary(op, lhs, rhs);
  }
  if (t.is_int_or_uint() && same_expr(a, b) && !must_keep(a))
    return bool_const(op == IRKind::EQ || op == IRKind::LE || op == IRKind::GE, t.lanes());
  Expr sa, sb;
  comparison_operands(self, &sa, &sb);
  if (a.same_as(sa) && b.same_as(sb)) return self;
  return rebuild_binary(op, a, b);
}

#define TIR_COMPARE(N, K) \
  Expr Simplifier::visit(const N *op, const Expr &self) { return compare(IRKind::K, self, mutate(op->a), mutate(op->b)); }
TIR_COMPARE(EQNode, EQ)
TIR_COMPARE(NENode, NE)
TIR_COMPARE(LTNode, LT)
TIR_COMPARE(LENode, LE)
TIR_COMPARE(GTNode, GT)
TIR_COMPARE(GENode, GE)
#undef TIR_COMPARE

bool Simplifier::contradicts(const Expr &a, const Expr &b) {
  if (const auto *na = a.as<NotNode>(); na && same_expr(na->a, b)) return true;
  if (const auto *nb = b.as<NotNode>(); nb && same_expr(nb->a, a)) return true;
  // x < y against x >= y: the negation of one comparison is the other.
  if (is_comparison(a->kind) && is_comparison(b->kind)) {
    Expr x, y;
    comparison_operands(a, &x, &y);
    if (x.type().is_int_or_uint()) return same_expr(mutate(NotNode::make(a)), b);
  }
  return false;
}

Expr Simplifier::visit(const AndNode *op, const Expr &self) {
  Expr a = mutate(op->a), b = mutate(op->b);
  if (Expr f = fold_binary(IRKind::And, op->type, a, b); f.defined()) return f;
  bool v;
  int lanes = op->type.lanes();
  if (is_const_bool(a, &v)) return v ? b : bool_const(false, lanes);
  if (is_const_bool(b, &v)) return v ? a : bool_const(false, lanes);
  if (same_expr(a, b)) return a;
  if (contradicts(a, b)) return bool_const(false, lanes);
  if (a.same_as(op->a) && b.same_as(op->b)) return self;
  return AndNode::make(a, b);
}

Expr Simplifier::visit(const OrNode *op, const Expr &self) {
  Expr a = mutate(op->a), b = mutate(op->b);
  if (Expr f = fold_binary(IRKind::Or, op->type, a, b); f.defined()) return f;
  bool v;
  int lanes = op->type.lanes();
  if (is_const_bool(a, &v)) return v ? bool_const(true, lanes) : b;
  if (is_const_bool(b, &v)) return v ? bool_const(true, lanes) : a;
  if (same_expr(a, b)) return a;
  if (contradicts(a, b)) return bool_const(true, lanes);
  if (a.same_as(op->a) && b.same_as(op->b)) return self;
  return OrNode::make(a, b);
}

Expr Simplifier::visit(const NotNode *op, const Expr &self) {
  Expr a = mutate(op->a);
  bool v;
  if (is_const_bool(a, &v)) return bool_const(!v, op->type.lanes());
  if (const auto *n = a.as<NotNode>()) return n->a;
  Expr x, y;
  if (is_comparison(a->kind) && comparison_operands(a, &x, &y) && x.type().is_int_or_uint())
    return mutate(rebuild_binary(negated(a->kind), x, y));
  if (a.same_as(op->a)) return self;
  return NotNode::make(a);
}

Expr Simplifier::visit(const SelectNode *op, const Expr &self) {
  Expr c = mutate(op->condition);
  bool v;
  if (is_const_bool(c, &v)) return mutate(v ? op->true_value : op->false_value);
  Expr t = mutate(op->true_value), f = mutate(op->false_value);
  if (same_expr(t, f)) return t;
  if (c.same_as(op->condition) && t.same_as(op->true_value) && f.same_as(op->false_value)) return self;
  return SelectNode::make(c, t, f);
}

}  // namespace tensorir::arith
