// Statement simplification: loops add their variable's range while their body is
// simplified, branches the ranges decide disappear, empty loops and single-iteration
// loops go away, and the expressions inside every statement are simplified.
#include <limits>
#include <unordered_set>

#include "arith/const_fold.h"
#include "arith/simplifier.h"
#include "tensorir/arith/simplify.h"
#include "tensorir/ir/op.h"

namespace tensorir::arith {

namespace {

class PurityCheck : public IRVisitor {
 public:
  bool pure = true;
  using IRVisitor::visit;
  void visit(const Expr &e) override {
    if (pure) IRVisitor::visit(e);
  }

 protected:
  void visit(const LoadNode *) override { pure = false; }
  void visit(const TensorLoadNode *) override { pure = false; }
  void visit(const CallNode *op) override {
    if (op->call_type == CallNode::Extern)
      pure = false;
    else
      IRVisitor::visit(op);
  }
};

// Counts checked_index calls, stopping at `limit`.
class FailureCheck : public IRVisitor {
 public:
  explicit FailureCheck(int limit) : limit_(limit) {}
  int found = 0;
  using IRVisitor::visit;
  void visit(const Expr &e) override {
    if (found < limit_) IRVisitor::visit(e);
  }

 protected:
  void visit(const CallNode *op) override {
    if (op->name == kCheckedIndex) ++found;
    IRVisitor::visit(op);
  }

 private:
  int limit_;
};

class StmtUsesVar : public IRVisitor {
 public:
  explicit StmtUsesVar(const VarNode *v) : var_(v) {}
  bool found = false;
  using IRVisitor::visit;
  void visit(const Expr &e) override {
    if (!found) IRVisitor::visit(e);
  }
  void visit(const Stmt &s) override {
    if (!found) IRVisitor::visit(s);
  }

 protected:
  void visit(const VarNode *op) override { found |= op == var_; }

 private:
  const VarNode *var_;
};

class VarCollector : public IRVisitor {
 public:
  std::vector<const VarNode *> vars;
  using IRVisitor::visit;

 protected:
  void visit(const VarNode *op) override { vars.push_back(op); }
};

std::vector<const VarNode *> free_vars(const Expr &e) {
  VarCollector c;
  c.visit(e);
  return c.vars;
}

bool stmt_uses(const Stmt &s, const Var &v) {
  StmtUsesVar f(v.get());
  f.visit(s);
  return f.found;
}

bool is_const_bool(const Expr &e, bool *value) {
  const int64_t *v = as_int_scalar(e);
  if (!v) return false;
  *value = *v != 0;
  return true;
}

}  // namespace

bool is_pure(const Expr &e) {
  PurityCheck p;
  p.visit(e);
  return p.pure;
}

bool may_fail(const Expr &e) {
  FailureCheck f(1);
  f.visit(e);
  return f.found > 0;
}

int checked_calls(const Expr &e) {
  FailureCheck f(std::numeric_limits<int>::max());
  f.visit(e);
  return f.found;
}

bool Simplifier::must_keep(const Expr &e) const { return keep_failing_ && may_fail(e); }

bool is_no_op(const Stmt &s) {
  if (!s.defined()) return true;
  const auto *ev = s.as<EvaluateNode>();
  return ev && is_const(ev->value);
}

// Ranges implied by a condition holding: v < e, v <= e, v > e, v >= e, v == e
// (either way round) and conjunctions of them.
class Assumptions {
 public:
  Assumptions(Simplifier *s, VarRanges &ranges) : s_(s), ranges_(ranges) {}
  ~Assumptions() {
    for (auto it = saved_.rbegin(); it != saved_.rend(); ++it) {
      if (it->second)
        ranges_[it->first] = *it->second;
      else
        ranges_.erase(it->first);
    }
  }

  void assume(const Expr &cond) {
    if (const auto *n = cond.as<AndNode>()) {
      assume(n->a);
      assume(n->b);
      return;
    }
#define CASE(N, K) \
  if (const auto *n = cond.as<N>()) return bound(IRKind::K, n->a, n->b);
    CASE(LTNode, LT) CASE(LENode, LE) CASE(GTNode, GT) CASE(GENode, GE) CASE(EQNode, EQ)
#undef CASE
  }

 private:
  void bound(IRKind k, const Expr &a, const Expr &b) {
    if (!is_index_type(a.type())) return;
    // Put the variable on the left: e > v is v < e.
    if (!a.as<VarNode>() && b.as<VarNode>()) {
      IRKind flipped = k == IRKind::LT ? IRKind::GT
                       : k == IRKind::LE ? IRKind::GE
                       : k == IRKind::GT ? IRKind::LT
                       : k == IRKind::GE ? IRKind::LE
                                         : k;
      return bound(flipped, b, a);
    }
    const auto *v = a.as<VarNode>();
    if (!v || !is_pure(b) || depends_on(b, v)) return;
    Type t = a.type();
    Expr one = int_const(t, 1);
    Expr lo, hi;
    switch (k) {
      case IRKind::LT: hi = SubNode::make(b, one); break;
      case IRKind::LE: hi = b; break;
      case IRKind::GT: lo = AddNode::make(b, one); break;
      case IRKind::GE: lo = b; break;
      case IRKind::EQ: lo = hi = b; break;
      default: return;
    }
    Interval cur;
    std::optional<Interval> old;
    if (auto it = ranges_.find(v); it != ranges_.end()) cur = *(old = it->second);
    saved_.push_back({v, old});
    if (lo.defined()) cur.min = cur.min.defined() ? s_->mutate(MaxNode::make(cur.min, lo)) : s_->mutate(lo);
    if (hi.defined()) cur.max = cur.max.defined() ? s_->mutate(MinNode::make(cur.max, hi)) : s_->mutate(hi);
    ranges_[v] = cur;
  }

  // True when e mentions v, directly or through the ranges of the variables it
  // mentions: bounding v by such an e would make the ranges circular.
  bool depends_on(const Expr &e, const VarNode *v) {
    std::vector<Expr> todo{e};
    std::unordered_set<const VarNode *> seen;
    while (!todo.empty()) {
      Expr x = todo.back();
      todo.pop_back();
      if (!x.defined()) continue;
      for (const VarNode *u : free_vars(x)) {
        if (u == v) return true;
        if (!seen.insert(u).second) continue;
        if (auto it = ranges_.find(u); it != ranges_.end()) {
          todo.push_back(it->second.min);
          todo.push_back(it->second.max);
        }
      }
    }
    return false;
  }

  Simplifier *s_;
  VarRanges &ranges_;
  std::vector<std::pair<const VarNode *, std::optional<Interval>>> saved_;
};

Stmt Simplifier::visit(const ForNode *op, const Stmt &self) {
  Expr mn = mutate(op->min), ext = mutate(op->extent);
  if (is_index_type(ext.type())) {
    std::optional<int64_t> hi = upper(to_linear(ext));
    if (hi && *hi <= 0) return Stmt();
  }
  if (is_int_value(ext, 1)) return mutate(substitute(op->body, {{op->loop_var, mn}}));
  Expr lo = is_pure(mn) ? mn : Expr();
  Expr last = lo.defined() && is_pure(ext) ? mutate(mn + ext - 1) : Expr();
  Stmt body;
  {
    ScopedRange scope(this, op->loop_var.get(), {lo, last});
    body = mutate(op->body);
  }
  if (is_no_op(body)) return Stmt();
  if (mn.same_as(op->min) && ext.same_as(op->extent) && body.same_as(op->body)) return self;
  return ForNode::make(op->loop_var, mn, ext, op->for_kind, body);
}

Stmt Simplifier::visit(const LetStmtNode *op, const Stmt &self) {
  Expr v = mutate(op->value);
  if (is_const(v) || v.as<VarNode>()) return mutate(substitute(op->body, {{op->var, v}}));
  bool pure = is_pure(v);
  Stmt body;
  if (pure && is_index_type(v.type())) {
    ScopedRange scope(this, op->var.get(), Interval::single_point(v));
    body = mutate(op->body);
  } else {
    body = mutate(op->body);
  }
  if (!body.defined()) return Stmt();
  if (pure && !stmt_uses(body, op->var) && !must_keep(v)) return body;
  if (v.same_as(op->value) && body.same_as(op->body)) return self;
  return LetStmtNode::make(op->var, v, body);
}

Stmt Simplifier::visit(const AttrStmtNode *op, const Stmt &self) {
  Expr v = mutate(op->value);
  Stmt body;
  const auto *iv = dynamic_cast<const IterVarNode *>(op->node.get());
  if (iv && (op->key == "thread_extent" || op->key == "virtual_thread") && is_index_type(v.type()) &&
      iv->var.type() == v.type()) {
    ScopedRange scope(this, iv->var.get(), {make_zero(v.type()), mutate(v - 1)});
    body = mutate(op->body);
  } else {
    body = mutate(op->body);
  }
  if (!body.defined()) return Stmt();
  if (v.same_as(op->value) && body.same_as(op->body)) return self;
  return AttrStmtNode::make(op->node, op->key, v, body);
}

Stmt Simplifier::visit(const AssertStmtNode *op, const Stmt &self) {
  Expr c = mutate(op->condition);
  bool v;
  if (is_const_bool(c, &v) && v) return mutate(op->body);
  Stmt body = mutate(op->body);
  // An assertion guards nothing but still checks: give it an empty body.
  if (!body.defined()) body = EvaluateNode::make(make_zero(Int(32)));
  if (c.same_as(op->condition) && body.same_as(op->body)) return self;
  return AssertStmtNode::make(c, op->message, body);
}

Stmt Simplifier::visit(const IfThenElseNode *op, const Stmt &self) {
  Expr c = mutate(op->condition);
  bool v;
  if (is_const_bool(c, &v)) {
    if (v) return mutate(op->then_case);
    return op->else_case.defined() ? mutate(op->else_case) : Stmt();
  }
  Stmt t, e;
  {
    Assumptions scope(this, ranges_);
    scope.assume(c);
    t = mutate(op->then_case);
  }
  if (op->else_case.defined()) {
    Expr not_c = mutate(NotNode::make(c));
    Assumptions scope(this, ranges_);
    scope.assume(not_c);
    e = mutate(op->else_case);
  }
  if (is_no_op(t) && is_no_op(e)) return Stmt();
  if (is_no_op(e)) e = Stmt();
  if (is_no_op(t)) return IfThenElseNode::make(mutate(NotNode::make(c)), e);
  if (c.same_as(op->condition) && t.same_as(op->then_case) && e.same_as(op->else_case)) return self;
  return IfThenElseNode::make(c, t, e);
}

Stmt Simplifier::visit(const BlockNode *op, const Stmt &self) {
  std::vector<Stmt> stmts;
  bool changed = false;
  for (const Stmt &s : op->stmts) {
    Stmt r = mutate(s);
    changed |= !r.same_as(s);
    if (is_no_op(r)) {
      changed = true;
      continue;
    }
    stmts.push_back(r);
  }
  if (!changed) return self;
  if (stmts.empty()) return Stmt();
  return BlockNode::make(std::move(stmts));
}

Stmt Simplifier::visit(const AllocateNode *op, const Stmt &self) {
  std::vector<Expr> ext;
  bool changed = false;
  for (const Expr &e : op->extents) {
    ext.push_back(mutate(e));
    changed |= !ext.back().same_as(e);
  }
  Stmt body = mutate(op->body);
  if (is_no_op(body)) return Stmt();
  if (!changed && body.same_as(op->body)) return self;
  return AllocateNode::make(op->buffer, op->type, std::move(ext), op->scope, body);
}

Stmt Simplifier::visit(const EvaluateNode *op, const Stmt &self) {
  Expr v = mutate(op->value);
  if (v.same_as(op->value)) return self;
  return EvaluateNode::make(v);
}

}  // namespace tensorir::arith

namespace tensorir {

Stmt simplify(const Stmt &s, const VarRanges &ranges) {
  if (!s.defined()) return s;
  arith::Simplifier simp(ranges);
  Stmt r = simp.mutate(s);
  // Everything was removed: what is left does nothing.
  return r.defined() ? r : EvaluateNode::make(arith::int_const(Int(32), 0));
}

}  // namespace tensorir
