#include "backends/llvm/load_guard.h"

#include <vector>

#include "tensorir/arith/simplify.h"
#include "tensorir/ir/op.h"
#include "tensorir/ir/visitor.h"

namespace tensorir::llvm_backend {

namespace {

// Lane `lane` of a vector index as a scalar expression: a ramp becomes base + stride *
// lane, a broadcast its value; a load, call or let inside becomes an unknown (a fresh
// variable). Undefined when a vector is left.
Expr lane_of(const Expr &index, const Var &lane) {
  struct Lanes : IRMutator {
    Var lane;
    Expr unknown(Type t) { return Var("unknown", t.element_of()); }
    Expr visit(const RampNode *op, const Expr &) override {
      return mutate(op->base) + mutate(op->stride) * cast(op->base.type(), lane);
    }
    Expr visit(const BroadcastNode *op, const Expr &) override { return mutate(op->value); }
    Expr visit(const CastNode *op, const Expr &) override { return cast(op->type.element_of(), mutate(op->value)); }
    Expr visit(const LoadNode *op, const Expr &) override { return unknown(op->type); }
    Expr visit(const CallNode *op, const Expr &) override {
      // A checked index of an unknown index: still within its range.
      if (op->name == kCheckedIndex)
        return checked_index(unknown(op->args[0].type()), checked_index_extent(op), "lane");
      return unknown(op->type);
    }
    Expr visit(const LetNode *op, const Expr &) override { return unknown(op->type); }
    Expr visit(const VarNode *op, const Expr &self) override {
      return op->type.is_scalar() ? self : unknown(op->type);  // a widened let variable
    }
  } lanes;
  lanes.lane = lane;
  Expr r = lanes.mutate(index);
  return r.type().is_scalar() ? r : Expr();
}

}  // namespace

Expr element_count(const std::vector<Expr> &extents) {
  Expr n = make_const(Int(64), 1);
  for (const Expr &e : extents) n = n * cast(Int(64), e);
  return simplify(n);
}

void LoadGuard::add_buffer(const VarNode *buffer, Type elem, Expr count) {
  buffers_[buffer] = {elem, std::move(count)};
}

void LoadGuard::enter(const VarNode *v, const Interval &range) {
  auto it = ranges_.find(v);
  if (it != ranges_.end()) shadowed_[v].push_back(it->second);
  ranges_[v] = range;
}

void LoadGuard::leave(const VarNode *v) {
  auto it = shadowed_.find(v);
  if (it == shadowed_.end() || it->second.empty()) {
    ranges_.erase(v);
    return;
  }
  ranges_[v] = it->second.back();
  it->second.pop_back();
}

LoadGuard::Scope::Scope(LoadGuard &guard, const VarNode *v, const Interval &range) : guard_(guard), v_(v) {
  guard_.enter(v, range);
}

LoadGuard::Scope::Scope(LoadGuard &guard, const VarNode *v, const Expr &value) : guard_(guard) {
  if (!value.type().is_scalar() || !value.type().is_int_or_uint()) return;
  v_ = v;
  guard_.enter(v, eval_interval(value, guard_.ranges_));
}

LoadGuard::Scope::~Scope() {
  if (v_) guard_.leave(v_);
}

bool LoadGuard::in_bounds(const LoadNode *load) const {
  auto it = buffers_.find(load->buffer.get());
  if (it == buffers_.end() || !it->second.count.defined()) return false;
  const Type buf = it->second.elem;
  if (load->type.element_of() != buf.element_of()) return false;
  Expr count = it->second.count;
  if (buf.lanes() > 1) count = count * make_const(count.type(), buf.lanes());

  // A vector index is bounded as the index of one lane, the lane ranging over them all.
  auto inside = [&](const Expr &index, const VarRanges &ranges) {
    const Interval idx = eval_interval(index, ranges);
    if (!idx.is_bounded()) return false;
    const Expr lo = cast(count.type(), idx.min), hi = cast(count.type(), idx.max);
    return can_prove(lo >= make_zero(count.type()), ranges) && can_prove(hi < count, ranges);
  };
  if (load->index.type().is_scalar()) return inside(load->index, ranges_);
  Var lane("lane", Int(32));
  const Expr index = lane_of(load->index, lane);
  if (!index.defined()) return false;
  VarRanges ranges = ranges_;
  ranges[lane.get()] = {make_zero(Int(32)), make_const(Int(32), load->index.type().lanes() - 1)};
  return inside(index, ranges);
}

bool LoadGuard::has_unproven_load(const Expr &e) {
  struct Finder : IRVisitor {
    using IRVisitor::visit;
    LoadGuard *guard;
    bool found = false;
    void visit(const LoadNode *op) override {
      if (found) return;
      if (!guard->in_bounds(op)) found = true;
      else IRVisitor::visit(op);
    }
    // An index check under a select runs only where the select picks it, as a read does.
    void visit(const CallNode *op) override {
      if (op->name == kCheckedIndex) found = true;
      else IRVisitor::visit(op);
    }
    // A let inside binds its variable for its body, as code generation will.
    void visit(const LetNode *op) override {
      visit(op->value);
      Scope scope(*guard, op->var.get(), op->value);
      visit(op->body);
    }
  } finder;
  finder.guard = this;
  finder.visit(e);
  return finder.found;
}

}  // namespace tensorir::llvm_backend
