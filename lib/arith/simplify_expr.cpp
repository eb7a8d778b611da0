// Simplification of arithmetic: canonical sums for integer indices, constant
// folding, identities for floats and unsigned ints, min/max under ranges, and the
// few vector forms that index math produces (ramps and broadcasts).
#include <algorithm>
#include <memory>

#include "arith/const_fold.h"
#include "arith/simplifier.h"
#include "tensorir/arith/simplify.h"

namespace tensorir::arith {

// int8 and int16 wrap (constant folding wraps them), so the rules that assume no overflow
// leave them alone; int32 and int64 overflow is undefined, as in C.
bool is_index_type(Type t) { return t.is_int() && t.is_scalar() && t.bits() >= 32; }

Expr rebuild_binary(IRKind kind, const Expr &a, const Expr &b) {
  switch (kind) {
    case IRKind::Add: return AddNode::make(a, b);
    case IRKind::Sub: return SubNode::make(a, b);
    case IRKind::Mul: return MulNode::make(a, b);
    case IRKind::Div: return DivNode::make(a, b);
    case IRKind::Mod: return ModNode::make(a, b);
    case IRKind::Min: return MinNode::make(a, b);
    case IRKind::Max: return MaxNode::make(a, b);
    case IRKind::EQ: return EQNode::make(a, b);
    case IRKind::NE: return NENode::make(a, b);
    case IRKind::LT: return LTNode::make(a, b);
    case IRKind::LE: return LENode::make(a, b);
    case IRKind::GT: return GTNode::make(a, b);
    case IRKind::GE: return GENode::make(a, b);
    case IRKind::And: return AndNode::make(a, b);
    case IRKind::Or: return OrNode::make(a, b);
    default: return Expr();
  }
}

Simplifier::ScopedRange::ScopedRange(Simplifier *s, const VarNode *v, Interval r) : s_(s), v_(v) {
  auto it = s->ranges_.find(v);
  if (it != s->ranges_.end()) old_ = it->second;
  s->ranges_[v] = std::move(r);
}

Simplifier::ScopedRange::~ScopedRange() {
  if (old_)
    s_->ranges_[v_] = *old_;
  else
    s_->ranges_.erase(v_);
}

namespace {

// The same node when the children did not change, else a new one.
template <typename N>
Expr keep_or_make(const N *op, const Expr &self, const Expr &a, const Expr &b) {
  if (a.same_as(op->a) && b.same_as(op->b)) return self;
  return N::make(a, b);
}

bool is_zero(const Expr &e) { return is_int_value(e, 0) || is_float_value(e, 0.0); }
bool is_one(const Expr &e) { return is_int_value(e, 1) || is_float_value(e, 1.0); }

}  // namespace

// ---------------------------------------------------------------- canonical sums
Expr Simplifier::canonical(const Expr &self) {
  LinearSum s = to_linear(self, [this](const Expr &e) { return mutate(e); });
  // A constant or coefficient that wrapped: written out, the sum could overflow where the
  // expression does not (signed overflow is undefined): none, the node keeps its form.
  if (s.wrapped) return Expr();
  merge_div_mod(s, [this](const Expr &e) { return mutate(e); });
  Expr r = to_expr(s);
  if (same_expr(r, self)) return self;
  // A checked index cancelled or multiplied by 0 keeps the sum as it was.
  if (keep_failing_ && checked_calls(r) < checked_calls(self)) return self;
  return r;
}

// ---------------------------------------------------------------- + - *
Expr Simplifier::visit(const AddNode *op, const Expr &self) {
  if (is_index_type(op->type))
    if (Expr r = canonical(self); r.defined()) return r;
  Expr a = mutate(op->a), b = mutate(op->b);
  if (Expr f = fold_binary(IRKind::Add, op->type, a, b); f.defined()) return f;
  const auto *ba = a.as<BroadcastNode>(), *bb = b.as<BroadcastNode>();
  const auto *ra = a.as<RampNode>(), *rb = b.as<RampNode>();
  if (ba && bb) return BroadcastNode::make(mutate(AddNode::make(ba->value, bb->value)), ba->lanes);
  if (ra && bb) return RampNode::make(mutate(AddNode::make(ra->base, bb->value)), ra->stride, ra->lanes);
  if (ba && rb) return RampNode::make(mutate(AddNode::make(ba->value, rb->base)), rb->stride, rb->lanes);
  if (ra && rb)
    return mutate(RampNode::make(mutate(AddNode::make(ra->base, rb->base)),
                                 mutate(AddNode::make(ra->stride, rb->stride)), ra->lanes));
  if (is_zero(b)) return a;
  if (is_zero(a)) return b;
  return keep_or_make(op, self, a, b);
}

Expr Simplifier::visit(const SubNode *op, const Expr &self) {
  if (is_index_type(op->type))
    if (Expr r = canonical(self); r.defined()) return r;
  Expr a = mutate(op->a), b = mutate(op->b);
  if (Expr f = fold_binary(IRKind::Sub, op->type, a, b); f.defined()) return f;
  const auto *ba = a.as<BroadcastNode>(), *bb = b.as<BroadcastNode>();
  const auto *ra = a.as<RampNode>(), *rb = b.as<RampNode>();
  if (ba && bb) return BroadcastNode::make(mutate(SubNode::make(ba->value, bb->value)), ba->lanes);
  if (ra && bb) return RampNode::make(mutate(SubNode::make(ra->base, bb->value)), ra->stride, ra->lanes);
  if (ba && rb) {
    Expr zero = make_zero(rb->stride.type());
    return mutate(RampNode::make(mutate(SubNode::make(ba->value, rb->base)),
                                 mutate(SubNode::make(zero, rb->stride)), rb->lanes));
  }
  if (ra && rb)
    return mutate(RampNode::make(mutate(SubNode::make(ra->base, rb->base)),
                                 mutate(SubNode::make(ra->stride, rb->stride)), ra->lanes));
  if (is_zero(b)) return a;
  if (op->type.is_int_or_uint() && same_expr(a, b)) return make_zero(op->type);
  return keep_or_make(op, self, a, b);
}

Expr Simplifier::visit(const MulNode *op, const Expr &self) {
  if (is_index_type(op->type))
    if (Expr r = canonical(self); r.defined()) return r;
  Expr a = mutate(op->a), b = mutate(op->b);
  if (Expr f = fold_binary(IRKind::Mul, op->type, a, b); f.defined()) return f;
  const auto *ba = a.as<BroadcastNode>(), *bb = b.as<BroadcastNode>();
  const auto *ra = a.as<RampNode>(), *rb = b.as<RampNode>();
  if (ba && bb) return BroadcastNode::make(mutate(MulNode::make(ba->value, bb->value)), ba->lanes);
  if (ra && bb && bb->value.type().is_int_or_uint())
    return mutate(RampNode::make(mutate(MulNode::make(ra->base, bb->value)),
                                 mutate(MulNode::make(ra->stride, bb->value)), ra->lanes));
  if (ba && rb && ba->value.type().is_int_or_uint())
    return mutate(RampNode::make(mutate(MulNode::make(ba->value, rb->base)),
                                 mutate(MulNode::make(ba->value, rb->stride)), rb->lanes));
  if (is_one(b)) return a;
  if (is_one(a)) return b;
  // x*0 is not 0 for a float x that is infinite or NaN.
  if (op->type.is_int_or_uint() && ((is_zero(a) && !must_keep(b)) || (is_zero(b) && !must_keep(a))))
    return make_zero(op->type);
  return keep_or_make(op, self, a, b);
}

// ---------------------------------------------------------------- min / max
Expr Simplifier::min_max(bool is_min, const Expr &self, const Expr &a, const Expr &b) {
  IRKind kind = is_min ? IRKind::Min : IRKind::Max;
  Type t = self.type();
  if (Expr f = fold_binary(kind, t, a, b); f.defined()) return f;
  if (same_expr(a, b)) return a;
  const auto *ba = a.as<BroadcastNode>(), *bb = b.as<BroadcastNode>();
  if (ba && bb) return BroadcastNode::make(mutate(rebuild_binary(kind, ba->value, bb->value)), ba->lanes);
  if (is_index_type(t)) {
    LinearSum d = to_linear(a);
    d.add(to_linear(b), -1);
    std::optional<int64_t> hi = upper(d);
    if (hi && *hi <= 0 && !must_keep(is_min ? b : a)) return is_min ? a : b;  // a <= b
    std::optional<int64_t> lo = lower(d);
    if (lo && *lo >= 0 && !must_keep(is_min ? a : b)) return is_min ? b : a;  // a >= b
    // Constants go last: min(x, 4) rather than min(4, x).
    if (is_const(a) && !is_const(b)) return rebuild_binary(kind, b, a);
  }
  const Expr &sa = is_min ? self.as<MinNode>()->a : self.as<MaxNode>()->a;
  const Expr &sb = is_min ? self.as<MinNode>()->b : self.as<MaxNode>()->b;
  if (a.same_as(sa) && b.same_as(sb)) return self;
  return rebuild_binary(kind, a, b);
}

Expr Simplifier::visit(const MinNode *op, const Expr &self) {
  return min_max(true, self, mutate(op->a), mutate(op->b));
}

Expr Simplifier::visit(const MaxNode *op, const Expr &self) {
  return min_max(false, self, mutate(op->a), mutate(op->b));
}

// ---------------------------------------------------------------- cast, vectors, let
Expr Simplifier::visit(const CastNode *op, const Expr &self) {
  Expr v = mutate(op->value);
  Type t = op->type;
  if (v.type() == t) return v;
  if (Expr f = fold_cast(t, v); f.defined()) return f;
  if (const auto *b = v.as<BroadcastNode>())
    return BroadcastNode::make(mutate(CastNode::make(t.element_of(), b->value)), b->lanes);
  // Widening then narrowing back is the identity: int32(int64(x)) = x.
  if (const auto *inner = v.as<CastNode>()) {
    Type mid = inner->type, src = inner->value.type();
    if (src == t && src.is_int_or_uint() && mid.is_int_or_uint() && mid.bits() >= src.bits() &&
        (mid.code() == src.code() || mid.bits() > src.bits()))
      return inner->value;
  }
  if (v.same_as(op->value)) return self;
  return CastNode::make(t, v);
}

Expr Simplifier::visit(const RampNode *op, const Expr &self) {
  Expr base = mutate(op->base), stride = mutate(op->stride);
  if (is_int_value(stride, 0)) return BroadcastNode::make(base, op->lanes);
  if (base.same_as(op->base) && stride.same_as(op->stride)) return self;
  return RampNode::make(base, stride, op->lanes);
}

Expr Simplifier::visit(const LetNode *op, const Expr &self) {
  Expr v = mutate(op->value);
  if (is_const(v) || v.as<VarNode>()) return mutate(substitute(op->body, {{op->var, v}}));
  Expr body;
  {
    ScopedRange scope(this, op->var.get(), Interval::single_point(v));
    body = mutate(op->body);
  }
  if (!uses_var(body, {op->var}) && !must_keep(v)) return body;
  if (v.same_as(op->value) && body.same_as(op->body)) return self;
  return LetNode::make(op->var, v, body);
}

Expr Simplifier::visit(const ReduceNode *op, const Expr &self) {
  std::vector<std::unique_ptr<ScopedRange>> scopes;
  for (const IterVar &iv : op->axis)
    if (iv.defined() && iv.dom().min.defined() && iv.dom().extent.defined())
      scopes.push_back(std::make_unique<ScopedRange>(this, iv.var().get(), interval_of_range(iv.dom())));
  return IRMutator::visit(op, self);
}

}  // namespace tensorir::arith

namespace tensorir {

Expr simplify(const Expr &e, const VarRanges &ranges) {
  if (!e.defined()) return e;
  arith::Simplifier s(ranges);
  return s.mutate(e);
}

bool can_prove(const Expr &cond, const VarRanges &ranges) {
  if (!cond.defined()) return false;
  arith::Simplifier s(ranges, /*keep_failing=*/false);
  return arith::is_int_value(s.mutate(cond), 1);
}

}  // namespace tensorir
