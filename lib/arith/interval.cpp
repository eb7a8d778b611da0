// eval_interval and the bound analysis behind it (see bound.h).
#include <unordered_set>

#include "arith/bound.h"
#include "arith/const_fold.h"
#include "tensorir/arith/simplify.h"
#include "tensorir/ir/op.h"
#include "tensorir/ir/visitor.h"

namespace tensorir::arith {

namespace {

// Collects the variables of `ranges` that an expression mentions.
class RangedVars : public IRVisitor {
 public:
  explicit RangedVars(const VarRanges &r) : ranges_(r) {}
  std::vector<const VarNode *> found;
  using IRVisitor::visit;

 protected:
  void visit(const VarNode *op) override {
    if (ranges_.count(op) && seen_.insert(op).second) found.push_back(op);
  }

 private:
  const VarRanges &ranges_;
  std::unordered_set<const VarNode *> seen_;
};

constexpr int kCycleDepth = 1000;
constexpr int kMaxSteps = 256;
constexpr int kMaxNest = 64;

Expr simp(const Expr &e) { return simplify(e, VarRanges{}); }

// Gives a bound the type of the sum it is substituted into.
Expr fit_type(const Expr &b, Type t) {
  if (!b.defined() || b.type() == t) return b;
  return simp(CastNode::make(t, b));
}

// The full range of an integer type (for casts that may wrap).
Interval type_range(Type t) {
  if (!t.is_int_or_uint() || (t.is_int() && t.bits() >= 64)) return Interval::everything();
  const std::optional<int64_t> hi = t.max_int();
  return {int_const(t, t.min_int()), hi ? int_const(t, *hi) : Expr()};
}

// int8, int16 and unsigned arithmetic wraps (int32 and int64 overflow is undefined):
// bounds of such a type hold only where both are constants of the type, else its full
// range does (int8(i) + 100 is not at least -28 for i in [0, 200)).
Interval wrapped(Type t, Interval r) {
  if (!t.is_scalar() || !t.is_int_or_uint() || (t.is_int() && t.bits() >= 32)) return r;
  const auto fits = [&](const Expr &b) {
    const int64_t *c = b.defined() ? as_const_int(b) : nullptr;
    return c && t.holds_int(*c);
  };
  return fits(r.min) && fits(r.max) ? r : type_range(t);
}

// True when every value of integer type `from` is a value of `to`.
bool cast_preserves(Type from, Type to) {
  if (!from.is_int_or_uint() || !to.is_int_or_uint()) return false;
  if (from.is_uint() && to.is_int()) return to.bits() > from.bits();
  if (from.is_int() && to.is_uint()) return false;
  return to.bits() >= from.bits();
}

bool fits_value(Type t, int64_t v) { return !t.is_int_or_uint() || t.holds_int(v); }

bool fits(Type t, const Expr &e) {
  const int64_t *v = e.defined() ? as_const_int(e) : nullptr;
  return v && fits_value(t, *v);
}

}  // namespace

int BoundAnalyzer::var_depth(const VarNode *v) {
  auto it = ranges_.find(v);
  if (it == ranges_.end()) return 0;
  auto d = depth_.find(v);
  if (d != depth_.end()) return d->second < 0 ? kCycleDepth : d->second;
  depth_[v] = -1;  // in progress: a range that refers back to itself
  int m = std::max(expr_depth(it->second.min), expr_depth(it->second.max));
  depth_[v] = std::min(m + 1, kCycleDepth);
  return depth_[v];
}

int BoundAnalyzer::expr_depth(const Expr &e) {
  if (!e.defined() || ranges_.empty()) return 0;
  auto it = depth_cache_.find(e.get());
  if (it != depth_cache_.end()) return it->second.second;
  RangedVars rv(ranges_);
  rv.visit(e);
  int d = 0;
  for (const VarNode *v : rv.found) d = std::max(d, var_depth(v));
  depth_cache_[e.get()] = {e, d};
  return d;
}

Expr BoundAnalyzer::bound(const LinearSum &s, bool upper) {
  LinearSum cur = s;
  for (int step = 0; step < kMaxSteps; ++step) {
    if (cur.wrapped) return Expr();  // its constant is not the value's: it bounds nothing
    int best = -1, best_depth = 0;
    for (size_t i = 0; i < cur.terms.size(); ++i) {
      int d = 0;
      for (const Expr &f : cur.terms[i].factors) d = std::max(d, expr_depth(f));
      if (d > best_depth) {
        best = static_cast<int>(i);
        best_depth = d;
      }
    }
    // A constant bound outside the type bounds nothing: as a constant of the type it would
    // wrap (INT32_MAX + 1 to INT32_MIN) and claim the opposite.
    if (best < 0) return cur.is_const() && !fits_value(s.type, cur.constant) ? Expr() : to_expr(cur);
    // Ranges that refer to each other in a cycle bound nothing.
    if (best_depth >= kCycleDepth) return Expr();
    Monomial m = cur.terms[best];
    cur.remove(static_cast<size_t>(best));
    bool want_upper = (m.coeff > 0) == upper;
    Expr b;
    const VarNode *v = m.factors.size() == 1 ? m.factors[0].as<VarNode>() : nullptr;
    if (v && ranges_.count(v)) {
      const Interval &r = ranges_.at(v);
      b = want_upper ? r.max : r.min;
    } else {
      Interval iv = m.factors.size() == 1 ? atom_interval(m.factors[0]) : product_interval(m.factors);
      b = want_upper ? iv.max : iv.min;
    }
    b = fit_type(b, s.type);
    if (!b.defined()) return Expr();
    // LinearSum wraps its constant as the type does, which is right for values and wrong
    // for bounds: x <= INT32_MAX gives x + 1 <= INT32_MAX + 1, which must not wrap to
    // INT32_MIN and "prove" x + 1 <= 0. A constant bound leaving the type bounds nothing.
    if (const int64_t *c = as_const_int(b)) {
      int64_t term = 0, sum = 0;
      if (__builtin_mul_overflow(m.coeff, *c, &term) || __builtin_add_overflow(cur.constant, term, &sum) ||
          !fits_value(s.type, sum))
        return Expr();
    }
    cur.add(to_linear(b), m.coeff);
    // (n/8)*8 - n is -(n%8): keeps such bounds decidable.
    merge_div_mod(cur);
  }
  return Expr();
}

std::optional<int64_t> BoundAnalyzer::const_bound(const LinearSum &s, bool upper) {
  if (s.wrapped) return std::nullopt;
  if (s.is_const()) return s.constant;
  Expr b = bound(s, upper);
  if (!b.defined()) return std::nullopt;
  if (const int64_t *c = as_const_int(b)) return *c;
  // What is left mentions no ranged variable; its structure may still bound it (x % 8 < 8).
  ConstRange r = const_range(b);
  return upper ? r.hi : r.lo;
}

Interval BoundAnalyzer::interval(const Expr &e) {
  auto it = interval_cache_.find(e.get());
  if (it != interval_cache_.end()) return it->second.second;
  Interval r = compute_interval(e);
  if (expr_depth(e) > 0 && !e.type().is_bool()) r = wrapped(e.type(), r);
  interval_cache_[e.get()] = {e, r};
  return r;
}

Interval BoundAnalyzer::compute_interval(const Expr &e) {
  if (expr_depth(e) == 0) return Interval::single_point(e);
  // Ranges that refer to each other in a cycle must not recurse forever.
  if (nest_ > kMaxNest) return Interval::everything();
  struct Nest {
    int &n;
    explicit Nest(int &x) : n(x) { ++n; }
    ~Nest() { --n; }
  } nest(nest_);
  Type t = e.type();
  if (t.is_int() && t.is_scalar()) {
    LinearSum s = to_linear(e);
    if (s.wrapped) return generic_interval(e);  // the sum's constant is not the value's
    return {bound(s, false), bound(s, true)};
  }
  return generic_interval(e);
}

Interval BoundAnalyzer::product_interval(const std::vector<Expr> &factors) {
  Interval r = interval(factors[0]);
  for (size_t i = 1; i < factors.size(); ++i) r = interval_mul(r, interval(factors[i]));
  return r;
}

// Types other than scalar ints: plain interval arithmetic, node by node.
Interval BoundAnalyzer::generic_interval(const Expr &e) {
  Type t = e.type();
  if (!t.is_int_or_uint()) return Interval::everything();
  switch (e->kind) {
    case IRKind::Variable: {
      auto it = ranges_.find(e.as<VarNode>());
      if (it == ranges_.end()) return Interval::single_point(e);
      Interval r = it->second;
      Expr lo = r.min.defined() ? interval(fit_type(r.min, t.element_of())).min : Expr();
      Expr hi = r.max.defined() ? interval(fit_type(r.max, t.element_of())).max : Expr();
      return {lo, hi};
    }
    case IRKind::Add: {
      const auto *n = e.as<AddNode>();
      return interval_add(interval(n->a), interval(n->b));
    }
    case IRKind::Sub: {
      const auto *n = e.as<SubNode>();
      return interval_sub(interval(n->a), interval(n->b));
    }
    case IRKind::Mul: {
      const auto *n = e.as<MulNode>();
      return interval_mul(interval(n->a), interval(n->b));
    }
    default: return atom_interval(e);
  }
}

Interval BoundAnalyzer::atom_interval(const Expr &a) {
  Type t = a.type();
  switch (a->kind) {
    case IRKind::Div: {
      const auto *n = a.as<DivNode>();
      if (!t.is_int_or_uint()) return Interval::everything();
      return interval_div(interval(n->a), interval(n->b));
    }
    case IRKind::Mod: {
      const auto *n = a.as<ModNode>();
      if (!t.is_int_or_uint()) return Interval::everything();
      return interval_mod(interval(n->a), interval(n->b));
    }
    case IRKind::Min: {
      const auto *n = a.as<MinNode>();
      return interval_min(interval(n->a), interval(n->b));
    }
    case IRKind::Max: {
      const auto *n = a.as<MaxNode>();
      return interval_max(interval(n->a), interval(n->b));
    }
    case IRKind::Select: {
      const auto *n = a.as<SelectNode>();
      return interval_union(interval(n->true_value), interval(n->false_value));
    }
    case IRKind::Cast: {
      const auto *n = a.as<CastNode>();
      Type from = n->value.type();
      if (!t.is_int_or_uint()) return Interval::everything();
      if (from.is_int_or_uint()) {
        Interval v = interval(n->value);
        auto cast = [&](const Expr &x) { return x.defined() ? simp(CastNode::make(t.element_of(), x)) : Expr(); };
        if (cast_preserves(from.element_of(), t.element_of())) return {cast(v.min), cast(v.max)};
        if (fits(t, v.min) && fits(t, v.max)) return {cast(v.min), cast(v.max)};
      }
      return type_range(t.element_of());
    }
    case IRKind::Let: {
      const auto *n = a.as<LetNode>();
      VarRanges inner = ranges_;
      inner[n->var.get()] = interval(n->value);
      BoundAnalyzer sub(inner, nest_);
      return sub.interval(n->body);
    }
    case IRKind::Broadcast: return interval(a.as<BroadcastNode>()->value);
    case IRKind::Ramp: {
      const auto *n = a.as<RampNode>();
      Expr last = simp(AddNode::make(n->base, MulNode::make(n->stride, int_const(n->stride.type(), n->lanes - 1))));
      return interval_union(interval(n->base), interval(last));
    }
    case IRKind::EQ: case IRKind::NE: case IRKind::LT: case IRKind::LE: case IRKind::GT:
    case IRKind::GE: case IRKind::And: case IRKind::Or: case IRKind::Not:
      return type_range(Bool());
    case IRKind::Variable: case IRKind::Add: case IRKind::Sub: case IRKind::Mul:
      return generic_interval(a);
    case IRKind::Call: {
      const auto *n = a.as<CallNode>();
      if (n->name == kCheckedIndex)
        return {int_const(t.element_of(), 0), int_const(t.element_of(), checked_index_extent(n) - 1)};
      [[fallthrough]];
    }
    default:
      // Loads, calls and the like: only their type says anything.
      if (t.is_bool()) return type_range(Bool());
      if (t.is_uint()) return {int_const(t.element_of(), 0), Expr()};
      return Interval::everything();
  }
}

}  // namespace tensorir::arith

namespace tensorir {

Interval eval_interval(const Expr &e, const VarRanges &ranges) {
  Expr s = simplify(e, ranges);
  return arith::BoundAnalyzer(ranges).interval(s);
}

}  // namespace tensorir
