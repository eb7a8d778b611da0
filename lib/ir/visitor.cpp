// Default traversal for IRVisitor and default rebuilding for IRMutator.
#include "tensorir/ir/visitor.h"

#include <unordered_map>
#include <unordered_set>

#include "tensorir/error.h"
#include "tensorir/ir/op.h"

namespace tensorir {

// ---------------------------------------------------------------- dispatch
#define TIR_EXPR_KINDS(X)                                                                     \
  X(IntImm, IntImmNode) X(FloatImm, FloatImmNode) X(StringImm, StringImmNode)                 \
  X(Variable, VarNode) X(Cast, CastNode) X(Add, AddNode) X(Sub, SubNode) X(Mul, MulNode)      \
  X(Div, DivNode) X(Mod, ModNode) X(Min, MinNode) X(Max, MaxNode) X(EQ, EQNode) X(NE, NENode) \
  X(LT, LTNode) X(LE, LENode) X(GT, GTNode) X(GE, GENode) X(And, AndNode) X(Or, OrNode)       \
  X(Not, NotNode) X(Select, SelectNode) X(Load, LoadNode) X(Ramp, RampNode)                   \
  X(Broadcast, BroadcastNode) X(Let, LetNode) X(Call, CallNode) X(TensorLoad, TensorLoadNode) \
  X(Reduce, ReduceNode)
#define TIR_STMT_KINDS(X)                                                                     \
  X(LetStmt, LetStmtNode) X(AttrStmt, AttrStmtNode) X(AssertStmt, AssertStmtNode)             \
  X(For, ForNode) X(Store, StoreNode) X(Provide, ProvideNode) X(Allocate, AllocateNode)       \
  X(Realize, RealizeNode) X(IfThenElse, IfThenElseNode) X(Block, BlockNode)                   \
  X(Evaluate, EvaluateNode)

void IRVisitor::visit(const Expr &e) {
  if (!e.defined()) return;
  switch (e->kind) {
#define X(K, N) \
  case IRKind::K: return visit(static_cast<const N *>(e.get()));
    TIR_EXPR_KINDS(X)
#undef X
    default: TIR_ASSERT(false) << "statement kind in an expression";
  }
}

void IRVisitor::visit(const Stmt &s) {
  if (!s.defined()) return;
  switch (s->kind) {
#define X(K, N) \
  case IRKind::K: return visit(static_cast<const N *>(s.get()));
    TIR_STMT_KINDS(X)
#undef X
    default: TIR_ASSERT(false) << "expression kind in a statement";
  }
}

Expr IRMutator::mutate(const Expr &e) {
  if (!e.defined()) return e;
  switch (e->kind) {
#define X(K, N) \
  case IRKind::K: return visit(static_cast<const N *>(e.get()), e);
    TIR_EXPR_KINDS(X)
#undef X
    default: TIR_ASSERT(false) << "statement kind in an expression";
  }
  return e;
}

Stmt IRMutator::mutate(const Stmt &s) {
  if (!s.defined()) return s;
  switch (s->kind) {
#define X(K, N) \
  case IRKind::K: return visit(static_cast<const N *>(s.get()), s);
    TIR_STMT_KINDS(X)
#undef X
    default: TIR_ASSERT(false) << "expression kind in a statement";
  }
  return s;
}

// ---------------------------------------------------------------- IRVisitor
// The visitor walks uses: buffer variables of Load and Store are visited, while
// variables being defined (loop variables, Let variables, Allocate buffers) are not.
void IRVisitor::visit(const IntImmNode *) {}
void IRVisitor::visit(const FloatImmNode *) {}
void IRVisitor::visit(const StringImmNode *) {}
void IRVisitor::visit(const VarNode *) {}
void IRVisitor::visit(const CastNode *op) { visit(op->value); }
#define TIR_BIN(N)                      \
  void IRVisitor::visit(const N *op) {  \
    visit(op->a);                       \
    visit(op->b);                       \
  }
TIR_BIN(AddNode) TIR_BIN(SubNode) TIR_BIN(MulNode) TIR_BIN(DivNode) TIR_BIN(ModNode)
TIR_BIN(MinNode) TIR_BIN(MaxNode) TIR_BIN(EQNode) TIR_BIN(NENode) TIR_BIN(LTNode)
TIR_BIN(LENode) TIR_BIN(GTNode) TIR_BIN(GENode) TIR_BIN(AndNode) TIR_BIN(OrNode)
#undef TIR_BIN
void IRVisitor::visit(const NotNode *op) { visit(op->a); }
void IRVisitor::visit(const SelectNode *op) {
  visit(op->condition);
  visit(op->true_value);
  visit(op->false_value);
}
void IRVisitor::visit(const LoadNode *op) {
  visit(static_cast<const Expr &>(op->buffer));
  visit(op->index);
}
void IRVisitor::visit(const RampNode *op) {
  visit(op->base);
  visit(op->stride);
}
void IRVisitor::visit(const BroadcastNode *op) { visit(op->value); }
void IRVisitor::visit(const LetNode *op) {
  visit(op->value);
  visit(op->body);
}
void IRVisitor::visit(const CallNode *op) {
  for (const Expr &a : op->args) visit(a);
}
void IRVisitor::visit(const TensorLoadNode *op) {
  for (const Expr &a : op->args) visit(a);
}
void IRVisitor::visit(const ReduceNode *op) {
  for (const Expr &s : op->source) visit(s);
  visit(op->condition);
}
void IRVisitor::visit(const LetStmtNode *op) {
  visit(op->value);
  visit(op->body);
}
void IRVisitor::visit(const AttrStmtNode *op) {
  visit(op->value);
  visit(op->body);
}
void IRVisitor::visit(const AssertStmtNode *op) {
  visit(op->condition);
  visit(op->body);
}
void IRVisitor::visit(const ForNode *op) {
  visit(op->min);
  visit(op->extent);
  visit(op->body);
}
void IRVisitor::visit(const StoreNode *op) {
  visit(static_cast<const Expr &>(op->buffer));
  visit(op->value);
  visit(op->index);
}
void IRVisitor::visit(const ProvideNode *op) {
  visit(op->value);
  for (const Expr &a : op->args) visit(a);
}
void IRVisitor::visit(const AllocateNode *op) {
  for (const Expr &e : op->extents) visit(e);
  visit(op->body);
}
void IRVisitor::visit(const RealizeNode *op) {
  for (const Range &r : op->bounds) {
    visit(r.min);
    visit(r.extent);
  }
  visit(op->body);
}
void IRVisitor::visit(const IfThenElseNode *op) {
  visit(op->condition);
  visit(op->then_case);
  visit(op->else_case);
}
void IRVisitor::visit(const BlockNode *op) {
  for (const Stmt &s : op->stmts) visit(s);
}
void IRVisitor::visit(const EvaluateNode *op) { visit(op->value); }

// ---------------------------------------------------------------- IRMutator
namespace {
// Mutates every element; reports whether any changed.
template <typename M>
bool mutate_all(M &m, const std::vector<Expr> &in, std::vector<Expr> &out) {
  bool changed = false;
  out.reserve(in.size());
  for (const Expr &e : in) {
    out.push_back(m(e));
    changed |= !out.back().same_as(e);
  }
  return changed;
}

// A buffer variable may only be replaced by another variable.
Var as_buffer_var(const Expr &e, const Var &old) {
  if (e.same_as(old)) return old;
  const VarNode *v = e.as<VarNode>();
  TIR_ASSERT(v) << "buffer variable " << old.name() << " was replaced by a non-variable";
  return Var(v);
}

// Rebuilds a binary node; if mutation changed the operand types, the operators re-match them.
template <IRKind K>
Expr rebuild(const Expr &a, const Expr &b) {
  if (a.type() == b.type()) return BinaryNode<K>::make(a, b);
  switch (K) {
    case IRKind::Add: return a + b;
    case IRKind::Sub: return a - b;
    case IRKind::Mul: return a * b;
    case IRKind::Div: return a / b;
    case IRKind::Mod: return a % b;
    case IRKind::Min: return min(a, b);
    case IRKind::Max: return max(a, b);
    case IRKind::EQ: return a == b;
    case IRKind::NE: return a != b;
    case IRKind::LT: return a < b;
    case IRKind::LE: return a <= b;
    case IRKind::GT: return a > b;
    case IRKind::GE: return a >= b;
    case IRKind::And: return a && b;
    case IRKind::Or: return a || b;
    default: break;
  }
  return BinaryNode<K>::make(a, b);
}
}  // namespace

Expr IRMutator::visit(const IntImmNode *, const Expr &self) { return self; }
Expr IRMutator::visit(const FloatImmNode *, const Expr &self) { return self; }
Expr IRMutator::visit(const StringImmNode *, const Expr &self) { return self; }
Expr IRMutator::visit(const VarNode *, const Expr &self) { return self; }
Expr IRMutator::visit(const CastNode *op, const Expr &self) {
  Expr v = mutate(op->value);
  if (v.same_as(op->value)) return self;
  return cast(op->type, v);
}
#define TIR_BIN(N)                                                    \
  Expr IRMutator::visit(const N *op, const Expr &self) {              \
    Expr a = mutate(op->a), b = mutate(op->b);                        \
    if (a.same_as(op->a) && b.same_as(op->b)) return self;            \
    return rebuild<N::kKind>(a, b);                                   \
  }
TIR_BIN(AddNode) TIR_BIN(SubNode) TIR_BIN(MulNode) TIR_BIN(DivNode) TIR_BIN(ModNode)
TIR_BIN(MinNode) TIR_BIN(MaxNode) TIR_BIN(EQNode) TIR_BIN(NENode) TIR_BIN(LTNode)
TIR_BIN(LENode) TIR_BIN(GTNode) TIR_BIN(GENode) TIR_BIN(AndNode) TIR_BIN(OrNode)
#undef TIR_BIN
Expr IRMutator::visit(const NotNode *op, const Expr &self) {
  Expr a = mutate(op->a);
  if (a.same_as(op->a)) return self;
  return NotNode::make(a);
}
Expr IRMutator::visit(const SelectNode *op, const Expr &self) {
  Expr c = mutate(op->condition), t = mutate(op->true_value), f = mutate(op->false_value);
  if (c.same_as(op->condition) && t.same_as(op->true_value) && f.same_as(op->false_value)) return self;
  return SelectNode::make(c, t, f);
}
Expr IRMutator::visit(const LoadNode *op, const Expr &self) {
  Expr buf = mutate(static_cast<const Expr &>(op->buffer));
  Expr idx = mutate(op->index);
  if (buf.same_as(op->buffer) && idx.same_as(op->index)) return self;
  return LoadNode::make(op->type, as_buffer_var(buf, op->buffer), idx);
}
Expr IRMutator::visit(const RampNode *op, const Expr &self) {
  Expr b = mutate(op->base), s = mutate(op->stride);
  if (b.same_as(op->base) && s.same_as(op->stride)) return self;
  return RampNode::make(b, s, op->lanes);
}
Expr IRMutator::visit(const BroadcastNode *op, const Expr &self) {
  Expr v = mutate(op->value);
  if (v.same_as(op->value)) return self;
  return BroadcastNode::make(v, op->lanes);
}
Expr IRMutator::visit(const LetNode *op, const Expr &self) {
  Expr v = mutate(op->value), b = mutate(op->body);
  if (v.same_as(op->value) && b.same_as(op->body)) return self;
  return LetNode::make(op->var, v, b);
}
Expr IRMutator::visit(const CallNode *op, const Expr &self) {
  std::vector<Expr> args;
  auto m = [this](const Expr &e) { return mutate(e); };
  if (!mutate_all(m, op->args, args)) return self;
  return CallNode::make(op->type, op->name, std::move(args), op->call_type);
}
Expr IRMutator::visit(const TensorLoadNode *op, const Expr &self) {
  std::vector<Expr> args;
  auto m = [this](const Expr &e) { return mutate(e); };
  if (!mutate_all(m, op->args, args)) return self;
  return TensorLoadNode::make(op->type, op->producer, op->value_index, op->name, std::move(args));
}
Expr IRMutator::visit(const ReduceNode *op, const Expr &self) {
  std::vector<Expr> src;
  auto m = [this](const Expr &e) { return mutate(e); };
  bool changed = mutate_all(m, op->source, src);
  Expr cond = mutate(op->condition);
  if (!changed && cond.same_as(op->condition)) return self;
  return ReduceNode::make(op->combiner, std::move(src), op->axis, cond, op->value_index);
}

// A statement whose body was removed disappears too: it would guard or scope nothing.
Stmt IRMutator::visit(const LetStmtNode *op, const Stmt &self) {
  Expr v = mutate(op->value);
  Stmt b = mutate(op->body);
  if (v.same_as(op->value) && b.same_as(op->body)) return self;
  if (!b.defined()) return Stmt();
  return LetStmtNode::make(op->var, v, b);
}
Stmt IRMutator::visit(const AttrStmtNode *op, const Stmt &self) {
  Expr v = mutate(op->value);
  Stmt b = mutate(op->body);
  if (v.same_as(op->value) && b.same_as(op->body)) return self;
  if (!b.defined()) return Stmt();
  return AttrStmtNode::make(op->node, op->key, v, b);
}
Stmt IRMutator::visit(const AssertStmtNode *op, const Stmt &self) {
  Expr c = mutate(op->condition);
  Stmt b = mutate(op->body);
  if (c.same_as(op->condition) && b.same_as(op->body)) return self;
  return AssertStmtNode::make(c, op->message, b);
}
Stmt IRMutator::visit(const ForNode *op, const Stmt &self) {
  Expr mn = mutate(op->min), ext = mutate(op->extent);
  Stmt b = mutate(op->body);
  if (mn.same_as(op->min) && ext.same_as(op->extent) && b.same_as(op->body)) return self;
  if (!b.defined()) return Stmt();
  return ForNode::make(op->loop_var, mn, ext, op->for_kind, b);
}
Stmt IRMutator::visit(const StoreNode *op, const Stmt &self) {
  Expr buf = mutate(static_cast<const Expr &>(op->buffer));
  Expr v = mutate(op->value), idx = mutate(op->index);
  if (buf.same_as(op->buffer) && v.same_as(op->value) && idx.same_as(op->index)) return self;
  return StoreNode::make(as_buffer_var(buf, op->buffer), v, idx);
}
Stmt IRMutator::visit(const ProvideNode *op, const Stmt &self) {
  Expr v = mutate(op->value);
  std::vector<Expr> args;
  auto m = [this](const Expr &e) { return mutate(e); };
  bool changed = mutate_all(m, op->args, args);
  if (!changed && v.same_as(op->value)) return self;
  return ProvideNode::make(op->producer, op->value_index, op->name, v, std::move(args));
}
Stmt IRMutator::visit(const AllocateNode *op, const Stmt &self) {
  std::vector<Expr> ext;
  auto m = [this](const Expr &e) { return mutate(e); };
  bool changed = mutate_all(m, op->extents, ext);
  Stmt b = mutate(op->body);
  if (!changed && b.same_as(op->body)) return self;
  if (!b.defined()) return Stmt();
  return AllocateNode::make(op->buffer, op->type, std::move(ext), op->scope, b);
}
Stmt IRMutator::visit(const RealizeNode *op, const Stmt &self) {
  std::vector<Range> bounds;
  bool changed = false;
  for (const Range &r : op->bounds) {
    Expr mn = mutate(r.min), ext = mutate(r.extent);
    changed |= !mn.same_as(r.min) || !ext.same_as(r.extent);
    bounds.push_back(Range::from_min_extent(mn, ext));
  }
  Stmt b = mutate(op->body);
  if (!changed && b.same_as(op->body)) return self;
  if (!b.defined()) return Stmt();
  return RealizeNode::make(op->producer, op->value_index, op->name, op->type, std::move(bounds),
                           op->scope, b);
}
Stmt IRMutator::visit(const IfThenElseNode *op, const Stmt &self) {
  Expr c = mutate(op->condition);
  Stmt t = mutate(op->then_case), e = mutate(op->else_case);
  if (c.same_as(op->condition) && t.same_as(op->then_case) && e.same_as(op->else_case)) return self;
  if (!t.defined() && !e.defined()) return Stmt();
  if (!t.defined()) return IfThenElseNode::make(!c, e);
  return IfThenElseNode::make(c, t, e);
}
Stmt IRMutator::visit(const BlockNode *op, const Stmt &self) {
  std::vector<Stmt> stmts;
  bool changed = false;
  for (const Stmt &s : op->stmts) {
    stmts.push_back(mutate(s));
    changed |= !stmts.back().same_as(s);
  }
  if (!changed) return self;
  return BlockNode::make(std::move(stmts));
}
Stmt IRMutator::visit(const EvaluateNode *op, const Stmt &self) {
  Expr v = mutate(op->value);
  if (v.same_as(op->value)) return self;
  return EvaluateNode::make(v);
}

// ---------------------------------------------------------------- substitute, uses_var
namespace {
class Substituter : public IRMutator {
 public:
  explicit Substituter(const std::vector<std::pair<Var, Expr>> &map) {
    for (const auto &[v, e] : map) map_[v.get()] = e;
  }

 protected:
  using IRMutator::visit;
  Expr visit(const VarNode *op, const Expr &self) override {
    auto it = map_.find(op);
    return it == map_.end() ? self : it->second;
  }

 private:
  std::unordered_map<const VarNode *, Expr> map_;
};

class VarUseFinder : public IRVisitor {
 public:
  explicit VarUseFinder(const std::vector<Var> &vars) {
    for (const Var &v : vars) vars_.insert(v.get());
  }
  bool found = false;

  using IRVisitor::visit;
  void visit(const Expr &e) override {
    if (!found) IRVisitor::visit(e);
  }

 protected:
  void visit(const VarNode *op) override {
    if (vars_.count(op)) found = true;
  }

 private:
  std::unordered_set<const VarNode *> vars_;
};
}  // namespace

Expr substitute(const Expr &e, const std::vector<std::pair<Var, Expr>> &map) {
  if (map.empty()) return e;
  Substituter s(map);
  return s.mutate(e);
}

Stmt substitute(const Stmt &st, const std::vector<std::pair<Var, Expr>> &map) {
  if (map.empty()) return st;
  Substituter s(map);
  return s.mutate(st);
}

bool uses_var(const Expr &e, const std::vector<Var> &vars) {
  if (vars.empty()) return false;
  VarUseFinder f(vars);
  f.visit(e);
  return f.found;
}

}  // namespace tensorir
