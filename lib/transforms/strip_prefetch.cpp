// Prefetches removed, for targets without prefetch instructions: the "prefetch"
// attributes, the tensorir.prefetch calls and the loops left holding nothing.
#include "tensorir/ir/visitor.h"
#include "transforms/passes.h"

namespace tensorir {

namespace {

bool is_nop(const Stmt &s) {
  const auto *e = s.as<EvaluateNode>();
  return e && !e->value.as<CallNode>();
}

class PrefetchStripper : public IRMutator {
 public:
  using IRMutator::mutate;

 protected:
  Stmt visit(const AttrStmtNode *op, const Stmt &self) override {
    return op->key == "prefetch" ? mutate(op->body) : IRMutator::visit(op, self);
  }
  Stmt visit(const EvaluateNode *op, const Stmt &self) override {
    const auto *call = op->value.as<CallNode>();
    return call && call->name == "tensorir.prefetch" ? EvaluateNode::make(0) : self;
  }
  Stmt visit(const ForNode *op, const Stmt &self) override {
    Stmt body = mutate(op->body);
    if (is_nop(body)) return body;
    return body.same_as(op->body) ? self : ForNode::make(op->loop_var, op->min, op->extent, op->for_kind, body);
  }
  Stmt visit(const BlockNode *op, const Stmt &self) override {
    std::vector<Stmt> kept;
    bool changed = false;
    for (const Stmt &s : op->stmts) {
      Stmt m = mutate(s);
      changed = changed || !m.same_as(s);
      if (!is_nop(m)) kept.push_back(m);
      else changed = changed || !is_nop(s);
    }
    if (!changed) return self;
    if (kept.empty()) return EvaluateNode::make(0);
    return kept.size() == 1 ? kept[0] : BlockNode::make(kept);
  }
};

}  // namespace

Stmt strip_prefetch(const Stmt &s) { return PrefetchStripper().mutate(s); }

}  // namespace tensorir
