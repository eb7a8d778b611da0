// Constant bounds of an expression from its structure alone: x % 8 is in [0, 7],
// min(x, 3) is at most 3. Used to decide comparisons once symbolic bounds run out.
#include <algorithm>

#include "arith/bound.h"
#include "arith/const_fold.h"
#include "tensorir/ir/op.h"

namespace tensorir::arith {

namespace {

using Opt = std::optional<int64_t>;

Opt add(Opt a, Opt b) {
  int64_t r;
  if (!a || !b || __builtin_add_overflow(*a, *b, &r)) return std::nullopt;
  return r;
}

Opt mul(Opt a, Opt b) {
  int64_t r;
  if (!a || !b || __builtin_mul_overflow(*a, *b, &r)) return std::nullopt;
  return r;
}

Opt neg(Opt a) { return a && *a != INT64_MIN ? Opt(-*a) : std::nullopt; }

ConstRange point(int64_t v) { return {v, v}; }

ConstRange scale(const ConstRange &a, int64_t k) {
  if (k == 0) return point(0);
  if (k > 0) return {mul(a.lo, k), mul(a.hi, k)};
  return {mul(a.hi, k), mul(a.lo, k)};
}

ConstRange range_mul(const ConstRange &a, const ConstRange &b) {
  if (b.lo && b.hi && *b.lo == *b.hi) return scale(a, *b.lo);
  if (a.lo && a.hi && *a.lo == *a.hi) return scale(b, *a.lo);
  if (a.lo && a.hi && b.lo && b.hi) {
    Opt p[4] = {mul(a.lo, b.lo), mul(a.lo, b.hi), mul(a.hi, b.lo), mul(a.hi, b.hi)};
    if (std::all_of(p, p + 4, [](Opt x) { return x.has_value(); })) {
      int64_t v[4] = {*p[0], *p[1], *p[2], *p[3]};
      return {*std::min_element(v, v + 4), *std::max_element(v, v + 4)};
    }
    return {};
  }
  if (a.lo && b.lo && *a.lo >= 0 && *b.lo >= 0) return {mul(a.lo, b.lo), mul(a.hi, b.hi)};
  return {};
}

ConstRange type_bounds(Type t) {
  if (!t.is_int_or_uint() || (t.is_int() && t.bits() >= 64)) return {};
  return {t.min_int(), t.max_int()};
}

Opt min_opt(Opt a, Opt b, bool take_known) {
  if (a && b) return std::min(*a, *b);
  return take_known ? (a ? a : b) : std::nullopt;
}
Opt max_opt(Opt a, Opt b, bool take_known) {
  if (a && b) return std::max(*a, *b);
  return take_known ? (a ? a : b) : std::nullopt;
}

}  // namespace

namespace {
ConstRange structural_range(const Expr &e);
}  // namespace

// int8, int16 and unsigned arithmetic wraps: a range that leaves the type's says nothing.
ConstRange const_range(const Expr &e) {
  const Type t = e.type();
  const ConstRange r = structural_range(e);
  if (!t.is_int_or_uint() || (t.is_int() && t.bits() >= 32)) return r;
  const bool fits = r.lo && r.hi && t.holds_int(*r.lo) && t.holds_int(*r.hi);
  return fits ? r : type_bounds(t);
}

namespace {

ConstRange structural_range(const Expr &e) {
  Type t = e.type();
  if (!t.is_int_or_uint()) return {};
  switch (e->kind) {
    case IRKind::IntImm: return point(e.as<IntImmNode>()->value);
    case IRKind::Broadcast: return const_range(e.as<BroadcastNode>()->value);
    case IRKind::Add: {
      const auto *n = e.as<AddNode>();
      ConstRange a = const_range(n->a), b = const_range(n->b);
      return {add(a.lo, b.lo), add(a.hi, b.hi)};
    }
    case IRKind::Sub: {
      const auto *n = e.as<SubNode>();
      ConstRange a = const_range(n->a), b = const_range(n->b);
      return {add(a.lo, neg(b.hi)), add(a.hi, neg(b.lo))};
    }
    case IRKind::Mul: {
      const auto *n = e.as<MulNode>();
      return range_mul(const_range(n->a), const_range(n->b));
    }
    case IRKind::Div: {
      const auto *n = e.as<DivNode>();
      const int64_t *c = as_int_scalar(n->b);
      if (!c || *c <= 0 || !t.is_int()) return {};
      ConstRange a = const_range(n->a);
      return {a.lo ? Opt(floor_div(*a.lo, *c)) : std::nullopt, a.hi ? Opt(floor_div(*a.hi, *c)) : std::nullopt};
    }
    case IRKind::Mod: {
      const auto *n = e.as<ModNode>();
      ConstRange d = const_range(n->b);
      if (!d.lo || !d.hi || *d.lo <= 0) return {};
      ConstRange a = const_range(n->a);
      if (*d.lo == *d.hi && a.lo && a.hi && floor_div(*a.lo, *d.lo) == floor_div(*a.hi, *d.lo))
        return {floor_mod(*a.lo, *d.lo), floor_mod(*a.hi, *d.lo)};
      int64_t hi = *d.hi - 1;
      if (a.lo && a.hi && *a.lo >= 0) hi = std::min(hi, *a.hi);
      return {0, hi};
    }
    case IRKind::Min: {
      const auto *n = e.as<MinNode>();
      ConstRange a = const_range(n->a), b = const_range(n->b);
      return {min_opt(a.lo, b.lo, false), min_opt(a.hi, b.hi, true)};
    }
    case IRKind::Max: {
      const auto *n = e.as<MaxNode>();
      ConstRange a = const_range(n->a), b = const_range(n->b);
      return {max_opt(a.lo, b.lo, true), max_opt(a.hi, b.hi, false)};
    }
    case IRKind::Select: {
      const auto *n = e.as<SelectNode>();
      ConstRange a = const_range(n->true_value), b = const_range(n->false_value);
      return {min_opt(a.lo, b.lo, false), max_opt(a.hi, b.hi, false)};
    }
    case IRKind::Cast: {
      const auto *n = e.as<CastNode>();
      ConstRange v = const_range(n->value);
      ConstRange tr = type_bounds(t.element_of());
      bool lo_ok = v.lo && (!tr.lo || *v.lo >= *tr.lo) && (!tr.hi || *v.lo <= *tr.hi);
      bool hi_ok = v.hi && (!tr.lo || *v.hi >= *tr.lo) && (!tr.hi || *v.hi <= *tr.hi);
      return lo_ok && hi_ok ? v : tr;
    }
    case IRKind::EQ: case IRKind::NE: case IRKind::LT: case IRKind::LE: case IRKind::GT:
    case IRKind::GE: case IRKind::And: case IRKind::Or: case IRKind::Not:
      return {0, 1};
    case IRKind::Call: {
      const auto *n = e.as<CallNode>();
      if (n->name == kCheckedIndex) return {0, checked_index_extent(n) - 1};
      break;
    }
    default: break;
  }
  if (t.is_uint()) return type_bounds(t.element_of());
  return {};
}

}  // namespace

}  // namespace tensorir::arith
