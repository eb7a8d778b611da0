#include <algorithm>
#include <optional>

#include "arith/simplifier.h"
#include "tensorir/arith/simplify.h"
#include "tensorir/ir/op.h"
#include "tensorir/ir/visitor.h"
#include "transforms/passes.h"

namespace tensorir {

namespace {
void split_conjuncts(const Expr &e, std::vector<Expr> &out) {
  if (const AndNode *a = e.as<AndNode>()) {
    split_conjuncts(a->a, out);
    split_conjuncts(a->b, out);
  } else {
    out.push_back(e);
  }
}

struct Guard {
  Expr condition;  // one conjunct of an IfThenElse condition
  VarRanges inner;  // ranges of the loops between the partitioned loop and the guard
};

// Finds the guards (if-without-else conjuncts) below a loop and the loop ranges they sit in.
class GuardFinder : public IRVisitor {
 public:
  std::vector<Guard> guards;
  using IRVisitor::visit;

 protected:
  void visit(const ForNode *op) override {
    // A loop of constant extent from a symbolic start (a block's rows, computed at the
    // loop of blocks) has a range in terms of the loops outside.
    const int64_t *ext = as_const_int(op->extent);
    if (ext && *ext > 0)
      ranges_[op->loop_var.get()] = {op->min, simplify(op->min + make_const(op->min.type(), double(*ext - 1)))};
    IRVisitor::visit(op);
    ranges_.erase(op->loop_var.get());
  }
  void visit(const IfThenElseNode *op) override {
    if (!op->else_case.defined()) {
      std::vector<Expr> cs;
      split_conjuncts(op->condition, cs);
      // A conjunct that may fail the call is never dropped, even where it holds.
      for (const Expr &c : cs)
        if (!arith::may_fail(c)) guards.push_back({c, ranges_});
    }
    IRVisitor::visit(op);
  }

 private:
  VarRanges ranges_;
};

// Drops one conjunct from every guard it appears in.
class DropConjunct : public IRMutator {
 public:
  explicit DropConjunct(Expr c) : c_(std::move(c)) {}
  using IRMutator::mutate;

 protected:
  Stmt visit(const IfThenElseNode *op, const Stmt &self) override {
    Stmt then_case = mutate(op->then_case);
    if (op->else_case.defined()) return IRMutator::visit(op, self);
    std::vector<Expr> cs;
    split_conjuncts(op->condition, cs);
    Expr kept;
    bool dropped = false;
    for (const Expr &c : cs) {
      if (c.same_as(c_)) {
        dropped = true;
        continue;
      }
      kept = kept.defined() ? (kept && c) : c;
    }
    if (!dropped) return then_case.same_as(op->then_case) ? self : IfThenElseNode::make(op->condition, then_case);
    return kept.defined() ? IfThenElseNode::make(kept, then_case) : then_case;
  }

 private:
  Expr c_;
};

// Whether `e` reaches `v` through a remainder (v % c), as the inner of two fused loops
// does.
bool uses_remainder_of(const Expr &e, const Var &v) {
  struct Finder : IRVisitor {
    const Var &v;
    bool found = false;
    explicit Finder(const Var &var) : v(var) {}
    using IRVisitor::visit;
    void visit(const ModNode *op) override {
      found |= uses_var(op->a, {v});
      IRVisitor::visit(op);
    }
  } f(v);
  f.visit(e);
  return f.found;
}

// The variables that loops and lets inside `s` bind.
std::vector<Var> bound_inside(const Stmt &s) {
  struct Collector : IRVisitor {
    std::vector<Var> vars;
    using IRVisitor::visit;
    void visit(const ForNode *op) override {
      vars.push_back(op->loop_var);
      IRVisitor::visit(op);
    }
    void visit(const LetStmtNode *op) override {
      vars.push_back(op->var);
      IRVisitor::visit(op);
    }
  } c;
  c.visit(s);
  return c.vars;
}

// A condition on the loop's variable (and the loops outside) under which `g` holds in
// every iteration of the loops between: the guard's expression at its worst over those
// loops' ranges. Undefined where the guard is not a comparison of integers or its worst
// case has no upper bound.
Expr sufficient_condition(const Guard &g) {
  Expr d;  // the guard is d < 0 (strict) or d <= 0
  bool strict = true;
  if (const auto *n = g.condition.as<LTNode>()) d = n->a - n->b;
  else if (const auto *n = g.condition.as<LENode>()) d = n->a - n->b, strict = false;
  else if (const auto *n = g.condition.as<GTNode>()) d = n->b - n->a;
  else if (const auto *n = g.condition.as<GENode>()) d = n->b - n->a, strict = false;
  if (!d.defined() || !d.type().is_int()) return Expr();
  Interval worst = eval_interval(d, g.inner);
  if (!worst.has_upper()) return Expr();
  Expr zero = make_zero(worst.max.type());
  return simplify(strict ? worst.max < zero : worst.max <= zero);
}

// Whether the guard fails once per iteration of an outer loop fused with `v`'s, in no
// single stretch of `v`: it reaches `v` through a remainder, itself or through the
// range of a loop inside (a block's rows starting at (v % blocks) * rows). `worst` gets
// sufficient_condition(g) where deciding needed it, so that callers need not redo it.
bool periodic_in(const Guard &g, const Var &v, std::optional<Expr> *worst = nullptr) {
  if (uses_remainder_of(g.condition, v)) return true;
  bool via_range = false;
  for (const auto &[var, range] : g.inner) via_range |= uses_remainder_of(range.min, v);
  if (!via_range) return false;
  Expr c = sufficient_condition(g);
  if (worst) *worst = c;
  return c.defined() && uses_remainder_of(c, v);
}

class Partitioner : public IRMutator {
 public:
  using IRMutator::mutate;

 protected:
  Stmt visit(const ForNode *op, const Stmt &self) override {
    if (Stmt split = try_partition(op); split.defined()) return mutate(split);
    // Inner loops see this loop's range when deciding their guards.
    const int64_t *mn = as_const_int(op->min), *ext = as_const_int(op->extent);
    if (!mn || !ext || *ext < 1) return IRMutator::visit(op, self);
    outer_[op->loop_var.get()] = {op->min, make_const(op->min.type(), double(*mn + *ext - 1))};
    Stmt out = unswitch_remainders(op);
    if (!out.defined()) out = IRMutator::visit(op, self);
    outer_.erase(op->loop_var.get());
    return out;
  }

 private:
  Stmt try_partition(const ForNode *op) {
    // (A partitioned vectorized loop keeps its kind: the guard-free head is a narrower vector.)
    const int64_t *mn = as_const_int(op->min), *ext = as_const_int(op->extent);
    if (mn && !ext) return partition_symbolic(op);
    if (!mn || !ext || *ext < 2) return Stmt();
    const int64_t lo = *mn, hi = *mn + *ext - 1;
    GuardFinder finder;
    finder.visit(op->body);
    for (const Guard &g : finder.guards) {
      if (!uses_var(g.condition, {op->loop_var}) || periodic_in(g, op->loop_var)) continue;
      auto holds_up_to = [&](int64_t v) {
        VarRanges r = outer_;
        for (const auto &[var, range] : g.inner) r[var] = range;
        r[op->loop_var.get()] = {op->min, make_const(op->min.type(), double(v))};
        return can_prove(g.condition, r);
      };
      if (!holds_up_to(lo)) continue;
      Stmt body = DropConjunct(g.condition).mutate(op->body);
      if (holds_up_to(hi)) return ForNode::make(op->loop_var, op->min, op->extent, op->for_kind, body);
      int64_t good = lo, bad = hi;  // the guard holds for v <= good, not for all v <= bad
      while (bad - good > 1) {
        int64_t mid = good + (bad - good) / 2;
        (holds_up_to(mid) ? good : bad) = mid;
      }
      Type t = op->min.type();
      Stmt head = ForNode::make(op->loop_var, op->min, make_const(t, double(good - lo + 1)), op->for_kind, body);
      Stmt tail = ForNode::make(op->loop_var, make_const(t, double(good + 1)), make_const(t, double(hi - good)),
                                op->for_kind, op->body);
      return BlockNode::make({head, tail});
    }
    return Stmt();
  }

  // Guards that reach the loop's variable through a remainder (a row block's guard in a
  // loop fusing panels x row blocks: the last block of every panel) hold in most
  // iterations but in no stretch that splitting the loop could separate. The loop body
  // becomes `if (c) body-without-them else body`, c a condition on this iteration under
  // which they all hold everywhere inside: tested once an iteration instead of in every
  // iteration of the loops inside (a GEMM's K loop). The loop's range is in outer_.
  Stmt unswitch_remainders(const ForNode *op) {
    const int64_t *ext = as_const_int(op->extent);
    if (!ext || *ext < 2) return Stmt();
    GuardFinder finder;
    finder.visit(op->body);
    const std::vector<Var> inside = bound_inside(op->body);
    // Per guard expression, the condition of each place it guards (dropping it drops it
    // everywhere); undefined where one of them is not a remainder's guard or cannot be
    // settled per iteration.
    std::vector<std::pair<Expr, Expr>> found;
    for (const Guard &g : finder.guards) {
      std::optional<Expr> worst;
      Expr c;
      if (periodic_in(g, op->loop_var, &worst)) {
        c = worst ? *worst : sufficient_condition(g);
        if (c.defined() && uses_var(c, inside)) c = Expr();  // not settled per iteration
      }
      if (c.defined() && can_prove(!c, outer_)) c = Expr();
      auto it = std::find_if(found.begin(), found.end(), [&](const auto &f) { return f.first.same_as(g.condition); });
      if (it == found.end()) found.emplace_back(g.condition, c);
      else if (it->second.defined()) it->second = c.defined() ? (it->second && c) : Expr();
    }
    Expr cond;
    Stmt clean = op->body;
    for (const auto &[guard, c] : found) {
      if (!c.defined()) continue;
      cond = cond.defined() ? (cond && c) : c;
      clean = DropConjunct(guard).mutate(clean);
    }
    if (!cond.defined()) return Stmt();
    Stmt body = IfThenElseNode::make(cond, mutate(clean), mutate(op->body));
    return ForNode::make(op->loop_var, op->min, op->extent, op->for_kind, body);
  }

  // A loop of symbolic extent (a split of a symbolic shape): a guard `d < 0` with d linear
  // in the loop variable v (d = a*v + r, a > 0) holds for every inner iteration while
  // v <= floordiv(-max(r) - 1, a). Only loops starting at a constant are split, so the
  // tail (which starts at the split point) is not split again.
  Stmt partition_symbolic(const ForNode *op) {
    GuardFinder finder;
    finder.visit(op->body);
    const Var &v = op->loop_var;
    const std::vector<Var> inside = bound_inside(op->body);
    for (const Guard &g : finder.guards) {
      const auto *lt = g.condition.as<LTNode>();
      if (!lt || !lt->a.type().is_int() || !uses_var(g.condition, {v})) continue;
      Expr d = simplify(lt->a - lt->b);
      Expr slope = simplify(substitute(d, {{v, v + 1}}) - d);
      const int64_t *a = as_const_int(slope);
      if (!a || *a <= 0) continue;
      VarRanges r = outer_;
      for (const auto &[var, range] : g.inner) r[var] = range;
      Interval rest = eval_interval(substitute(d, {{v, make_zero(v.type())}}), r);
      // A bound naming a loop inside (one of symbolic extent has no range there) is not
      // a split point: the variable is not defined where the loop splits.
      if (!rest.has_upper() || uses_var(rest.max, inside)) continue;
      Expr end = op->min + op->extent;
      Expr split = simplify(min(max((make_zero(v.type()) - rest.max - 1) / make_const(v.type(), double(*a)) + 1, op->min), end));
      // No iteration is free of the guard: the tail would be this loop again, and split again.
      if (can_prove(split <= op->min, r)) continue;
      Stmt body = DropConjunct(g.condition).mutate(op->body);
      Stmt head = ForNode::make(v, op->min, simplify(split - op->min), op->for_kind, body);
      Stmt tail = ForNode::make(v, split, simplify(end - split), op->for_kind, op->body);
      return BlockNode::make({head, tail});
    }
    return Stmt();
  }

  VarRanges outer_;  // ranges of the enclosing loops
};
}  // namespace

Stmt loop_partition(const Stmt &s) { return Partitioner().mutate(s); }

}  // namespace tensorir
