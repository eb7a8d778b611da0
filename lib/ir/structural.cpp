// Structural equality and hashing. Variables bound inside the trees (Let, For, LetStmt,
// Allocate, reduction axes, combiner parameters) match up to consistent renaming; free
// variables and producers match by identity.
#include "tensorir/ir/structural.h"

#include <bit>
#include <cstring>
#include <functional>
#include <unordered_map>

#include "tensorir/error.h"

namespace tensorir {

namespace {

// ---------------------------------------------------------------- equality
class Equal {
 public:
  bool expr(const Expr &a, const Expr &b) {
    if (a.same_as(b) && bound_.empty()) return true;
    if (!a.defined() || !b.defined()) return a.defined() == b.defined();
    if (a->kind != b->kind || a.type() != b.type()) return false;
    switch (a->kind) {
      case IRKind::IntImm: return a.as<IntImmNode>()->value == b.as<IntImmNode>()->value;
      case IRKind::FloatImm:
        return std::bit_cast<uint64_t>(a.as<FloatImmNode>()->value) ==
               std::bit_cast<uint64_t>(b.as<FloatImmNode>()->value);
      case IRKind::StringImm: return a.as<StringImmNode>()->value == b.as<StringImmNode>()->value;
      case IRKind::Variable: return var(a.as<VarNode>(), b.as<VarNode>());
      case IRKind::Cast: return expr(a.as<CastNode>()->value, b.as<CastNode>()->value);
#define TIR_BIN(K)                                          \
  case IRKind::K: {                                         \
    auto *x = a.as<BinaryNode<IRKind::K>>();                \
    auto *y = b.as<BinaryNode<IRKind::K>>();                \
    return expr(x->a, y->a) && expr(x->b, y->b);            \
  }
        TIR_BIN(Add) TIR_BIN(Sub) TIR_BIN(Mul) TIR_BIN(Div) TIR_BIN(Mod) TIR_BIN(Min) TIR_BIN(Max)
        TIR_BIN(EQ) TIR_BIN(NE) TIR_BIN(LT) TIR_BIN(LE) TIR_BIN(GT) TIR_BIN(GE) TIR_BIN(And)
        TIR_BIN(Or)
#undef TIR_BIN
      case IRKind::Not: return expr(a.as<NotNode>()->a, b.as<NotNode>()->a);
      case IRKind::Select: {
        auto *x = a.as<SelectNode>(), *y = b.as<SelectNode>();
        return expr(x->condition, y->condition) && expr(x->true_value, y->true_value) &&
               expr(x->false_value, y->false_value);
      }
      case IRKind::Load: {
        auto *x = a.as<LoadNode>(), *y = b.as<LoadNode>();
        return expr(x->buffer, y->buffer) && expr(x->index, y->index);
      }
      case IRKind::Ramp: {
        auto *x = a.as<RampNode>(), *y = b.as<RampNode>();
        return x->lanes == y->lanes && expr(x->base, y->base) && expr(x->stride, y->stride);
      }
      case IRKind::Broadcast: {
        auto *x = a.as<BroadcastNode>(), *y = b.as<BroadcastNode>();
        return x->lanes == y->lanes && expr(x->value, y->value);
      }
      case IRKind::Let: {
        auto *x = a.as<LetNode>(), *y = b.as<LetNode>();
        return expr(x->value, y->value) && bind(x->var, y->var) && expr(x->body, y->body);
      }
      case IRKind::Call: {
        auto *x = a.as<CallNode>(), *y = b.as<CallNode>();
        return x->name == y->name && x->call_type == y->call_type && exprs(x->args, y->args);
      }
      case IRKind::TensorLoad: {
        auto *x = a.as<TensorLoadNode>(), *y = b.as<TensorLoadNode>();
        return x->producer.same_as(y->producer) && x->value_index == y->value_index &&
               exprs(x->args, y->args);
      }
      case IRKind::Reduce: return reduce(a.as<ReduceNode>(), b.as<ReduceNode>());
      default: break;
    }
    TIR_ASSERT(false) << "unknown expression kind";
    return false;
  }

  bool stmt(const Stmt &a, const Stmt &b) {
    if (a.same_as(b) && bound_.empty()) return true;
    if (!a.defined() || !b.defined()) return a.defined() == b.defined();
    if (a->kind != b->kind) return false;
    switch (a->kind) {
      case IRKind::LetStmt: {
        auto *x = a.as<LetStmtNode>(), *y = b.as<LetStmtNode>();
        return expr(x->value, y->value) && bind(x->var, y->var) && stmt(x->body, y->body);
      }
      case IRKind::AttrStmt: {
        auto *x = a.as<AttrStmtNode>(), *y = b.as<AttrStmtNode>();
        return x->key == y->key && attr_node(x->node, y->node) && expr(x->value, y->value) &&
               stmt(x->body, y->body);
      }
      case IRKind::AssertStmt: {
        auto *x = a.as<AssertStmtNode>(), *y = b.as<AssertStmtNode>();
        return x->message == y->message && expr(x->condition, y->condition) && stmt(x->body, y->body);
      }
      case IRKind::For: {
        auto *x = a.as<ForNode>(), *y = b.as<ForNode>();
        return x->same_loop_kind(*y) && expr(x->min, y->min) && expr(x->extent, y->extent) &&
               bind(x->loop_var, y->loop_var) && stmt(x->body, y->body);
      }
      case IRKind::Store: {
        auto *x = a.as<StoreNode>(), *y = b.as<StoreNode>();
        return expr(x->buffer, y->buffer) && expr(x->value, y->value) && expr(x->index, y->index);
      }
      case IRKind::Provide: {
        auto *x = a.as<ProvideNode>(), *y = b.as<ProvideNode>();
        return x->producer.same_as(y->producer) && x->value_index == y->value_index &&
               expr(x->value, y->value) && exprs(x->args, y->args);
      }
      case IRKind::Allocate: {
        auto *x = a.as<AllocateNode>(), *y = b.as<AllocateNode>();
        return x->type == y->type && x->scope == y->scope && exprs(x->extents, y->extents) &&
               bind(x->buffer, y->buffer) && stmt(x->body, y->body);
      }
      case IRKind::Realize: {
        auto *x = a.as<RealizeNode>(), *y = b.as<RealizeNode>();
        if (!x->producer.same_as(y->producer) || x->value_index != y->value_index ||
            x->type != y->type || x->scope != y->scope || x->bounds.size() != y->bounds.size()) {
          return false;
        }
        for (size_t i = 0; i < x->bounds.size(); ++i) {
          if (!range(x->bounds[i], y->bounds[i])) return false;
        }
        return stmt(x->body, y->body);
      }
      case IRKind::IfThenElse: {
        auto *x = a.as<IfThenElseNode>(), *y = b.as<IfThenElseNode>();
        return expr(x->condition, y->condition) && stmt(x->then_case, y->then_case) &&
               stmt(x->else_case, y->else_case);
      }
      case IRKind::Block: {
        auto *x = a.as<BlockNode>(), *y = b.as<BlockNode>();
        if (x->stmts.size() != y->stmts.size()) return false;
        for (size_t i = 0; i < x->stmts.size(); ++i) {
          if (!stmt(x->stmts[i], y->stmts[i])) return false;
        }
        return true;
      }
      case IRKind::Evaluate: return expr(a.as<EvaluateNode>()->value, b.as<EvaluateNode>()->value);
      default: break;
    }
    TIR_ASSERT(false) << "unknown statement kind";
    return false;
  }

 private:
  bool exprs(const std::vector<Expr> &a, const std::vector<Expr> &b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i) {
      if (!expr(a[i], b[i])) return false;
    }
    return true;
  }

  bool range(const Range &a, const Range &b) { return expr(a.min, b.min) && expr(a.extent, b.extent); }

  // Records that a's definition x corresponds to b's definition y.
  bool bind(const Var &x, const Var &y) {
    if (x.type() != y.type()) return false;
    bound_[x.get()] = y.get();
    bound_rev_[y.get()] = x.get();
    return true;
  }

  bool var(const VarNode *x, const VarNode *y) {
    auto it = bound_.find(x);
    auto jt = bound_rev_.find(y);
    if (it != bound_.end() || jt != bound_rev_.end()) {
      return it != bound_.end() && it->second == y && jt != bound_rev_.end() && jt->second == x;
    }
    return x == y;
  }

  bool attr_node(const Ref<const Object> &a, const Ref<const Object> &b) {
    auto *x = dynamic_cast<const VarNode *>(a.get());
    auto *y = dynamic_cast<const VarNode *>(b.get());
    if (x && y) return var(x, y);
    return a.same_as(b);
  }

  bool reduce(const ReduceNode *x, const ReduceNode *y) {
    if (x->value_index != y->value_index || x->axis.size() != y->axis.size()) return false;
    const CommReducerNode *cx = x->combiner.get(), *cy = y->combiner.get();
    if (cx != cy) {
      if (cx->lhs.size() != cy->lhs.size() || cx->rhs.size() != cy->rhs.size()) return false;
      for (size_t i = 0; i < cx->lhs.size(); ++i) {
        if (!bind(cx->lhs[i], cy->lhs[i]) || !bind(cx->rhs[i], cy->rhs[i])) return false;
      }
      if (!exprs(cx->result, cy->result) || !exprs(cx->identity, cy->identity)) return false;
    }
    for (size_t i = 0; i < x->axis.size(); ++i) {
      const IterVar &ax = x->axis[i], &ay = y->axis[i];
      if (ax.iter_type() != ay.iter_type()) return false;
      if (ax.dom().min.defined() != ay.dom().min.defined()) return false;
      if (ax.dom().min.defined() && !range(ax.dom(), ay.dom())) return false;
      if (!bind(ax.var(), ay.var())) return false;
    }
    return exprs(x->source, y->source) && expr(x->condition, y->condition);
  }

  std::unordered_map<const VarNode *, const VarNode *> bound_, bound_rev_;
};

// ---------------------------------------------------------------- hashing
// Bound variables hash by the order they were defined in, free ones by address,
// so the hash agrees with Equal.
class Hasher {
 public:
  size_t expr(const Expr &e) {
    if (!e.defined()) return 0x1234567;
    size_t h = mix(static_cast<size_t>(e->kind) + 1, type(e.type()));
    switch (e->kind) {
      case IRKind::IntImm: return mix(h, static_cast<size_t>(e.as<IntImmNode>()->value));
      case IRKind::FloatImm: return mix(h, std::bit_cast<uint64_t>(e.as<FloatImmNode>()->value));
      case IRKind::StringImm: return mix(h, std::hash<std::string>()(e.as<StringImmNode>()->value));
      case IRKind::Variable: return mix(h, var(e.as<VarNode>()));
      case IRKind::Cast: return mix(h, expr(e.as<CastNode>()->value));
#define TIR_BIN(K)                                       \
  case IRKind::K: {                                      \
    auto *x = e.as<BinaryNode<IRKind::K>>();             \
    return mix(mix(h, expr(x->a)), expr(x->b));          \
  }
        TIR_BIN(Add) TIR_BIN(Sub) TIR_BIN(Mul) TIR_BIN(Div) TIR_BIN(Mod) TIR_BIN(Min) TIR_BIN(Max)
        TIR_BIN(EQ) TIR_BIN(NE) TIR_BIN(LT) TIR_BIN(LE) TIR_BIN(GT) TIR_BIN(GE) TIR_BIN(And)
        TIR_BIN(Or)
#undef TIR_BIN
      case IRKind::Not: return mix(h, expr(e.as<NotNode>()->a));
      case IRKind::Select: {
        auto *x = e.as<SelectNode>();
        return mix(mix(mix(h, expr(x->condition)), expr(x->true_value)), expr(x->false_value));
      }
      case IRKind::Load: {
        auto *x = e.as<LoadNode>();
        return mix(mix(h, expr(x->buffer)), expr(x->index));
      }
      case IRKind::Ramp: {
        auto *x = e.as<RampNode>();
        return mix(mix(mix(h, expr(x->base)), expr(x->stride)), x->lanes);
      }
      case IRKind::Broadcast: {
        auto *x = e.as<BroadcastNode>();
        return mix(mix(h, expr(x->value)), x->lanes);
      }
      case IRKind::Let: {
        auto *x = e.as<LetNode>();
        h = mix(h, expr(x->value));
        bind(x->var);
        return mix(h, expr(x->body));
      }
      case IRKind::Call: {
        auto *x = e.as<CallNode>();
        h = mix(mix(h, std::hash<std::string>()(x->name)), x->call_type);
        return exprs(h, x->args);
      }
      case IRKind::TensorLoad: {
        auto *x = e.as<TensorLoadNode>();
        h = mix(mix(h, reinterpret_cast<size_t>(x->producer.get())), x->value_index);
        return exprs(h, x->args);
      }
      case IRKind::Reduce: {
        auto *x = e.as<ReduceNode>();
        const CommReducerNode *c = x->combiner.get();
        h = mix(h, x->value_index);
        for (size_t i = 0; i < c->lhs.size(); ++i) {
          bind(c->lhs[i]);
          if (i < c->rhs.size()) bind(c->rhs[i]);
        }
        h = exprs(exprs(h, c->result), c->identity);
        for (const IterVar &ax : x->axis) {
          h = mix(h, static_cast<size_t>(ax.iter_type()));
          if (ax.dom().min.defined()) h = mix(mix(h, expr(ax.dom().min)), expr(ax.dom().extent));
          bind(ax.var());
        }
        return mix(exprs(h, x->source), expr(x->condition));
      }
      default: break;
    }
    TIR_ASSERT(false) << "unknown expression kind";
    return h;
  }

  size_t stmt(const Stmt &s) {
    if (!s.defined()) return 0x7654321;
    size_t h = static_cast<size_t>(s->kind) + 101;
    switch (s->kind) {
      case IRKind::LetStmt: {
        auto *x = s.as<LetStmtNode>();
        h = mix(h, expr(x->value));
        bind(x->var);
        return mix(h, stmt(x->body));
      }
      case IRKind::AttrStmt: {
        auto *x = s.as<AttrStmtNode>();
        h = mix(h, std::hash<std::string>()(x->key));
        if (auto *v = dynamic_cast<const VarNode *>(x->node.get())) {
          h = mix(h, var(v));
        } else {
          h = mix(h, reinterpret_cast<size_t>(x->node.get()));
        }
        return mix(mix(h, expr(x->value)), stmt(x->body));
      }
      case IRKind::AssertStmt: {
        auto *x = s.as<AssertStmtNode>();
        h = mix(h, std::hash<std::string>()(x->message));
        return mix(mix(h, expr(x->condition)), stmt(x->body));
      }
      case IRKind::For: {
        auto *x = s.as<ForNode>();
        h = mix(mix(mix(h, static_cast<size_t>(x->for_kind)), expr(x->min)), expr(x->extent));
        h = mix(h, type(x->loop_var.type()));
        bind(x->loop_var);
        return mix(h, stmt(x->body));
      }
      case IRKind::Store: {
        auto *x = s.as<StoreNode>();
        return mix(mix(mix(h, expr(x->buffer)), expr(x->value)), expr(x->index));
      }
      case IRKind::Provide: {
        auto *x = s.as<ProvideNode>();
        h = mix(mix(h, reinterpret_cast<size_t>(x->producer.get())), x->value_index);
        return exprs(mix(h, expr(x->value)), x->args);
      }
      case IRKind::Allocate: {
        auto *x = s.as<AllocateNode>();
        h = mix(mix(h, type(x->type)), std::hash<std::string>()(x->scope));
        h = exprs(h, x->extents);
        bind(x->buffer);
        return mix(h, stmt(x->body));
      }
      case IRKind::Realize: {
        auto *x = s.as<RealizeNode>();
        h = mix(mix(h, reinterpret_cast<size_t>(x->producer.get())), x->value_index);
        h = mix(mix(h, type(x->type)), std::hash<std::string>()(x->scope));
        for (const Range &r : x->bounds) h = mix(mix(h, expr(r.min)), expr(r.extent));
        return mix(h, stmt(x->body));
      }
      case IRKind::IfThenElse: {
        auto *x = s.as<IfThenElseNode>();
        return mix(mix(mix(h, expr(x->condition)), stmt(x->then_case)), stmt(x->else_case));
      }
      case IRKind::Block: {
        for (const Stmt &c : s.as<BlockNode>()->stmts) h = mix(h, stmt(c));
        return h;
      }
      case IRKind::Evaluate: return mix(h, expr(s.as<EvaluateNode>()->value));
      default: break;
    }
    TIR_ASSERT(false) << "unknown statement kind";
    return h;
  }

 private:
  static size_t mix(size_t h, size_t v) {
    // A 64-bit mixing step (splitmix-style) so that order and position matter.
    uint64_t x = static_cast<uint64_t>(h) * 0x9E3779B97F4A7C15ull + static_cast<uint64_t>(v) + 0x632BE59BD9B4E019ull;
    x ^= x >> 31;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 29;
    return static_cast<size_t>(x);
  }
  static size_t type(Type t) { return (size_t(t.code()) << 24) ^ (size_t(t.bits()) << 16) ^ t.lanes(); }

  size_t exprs(size_t h, const std::vector<Expr> &v) {
    h = mix(h, v.size());
    for (const Expr &e : v) h = mix(h, expr(e));
    return h;
  }

  void bind(const Var &v) { bound_[v.get()] = bound_.size() + 1; }

  size_t var(const VarNode *v) {
    auto it = bound_.find(v);
    if (it != bound_.end()) return mix(0xB0B, it->second);
    return mix(0xF4EE, reinterpret_cast<size_t>(v));
  }

  std::unordered_map<const VarNode *, size_t> bound_;
};

}  // namespace

bool structural_equal(const Expr &a, const Expr &b) { return Equal().expr(a, b); }
bool structural_equal(const Stmt &a, const Stmt &b) { return Equal().stmt(a, b); }
size_t structural_hash(const Expr &e) { return Hasher().expr(e); }
size_t structural_hash(const Stmt &s) { return Hasher().stmt(s); }

}  // namespace tensorir
