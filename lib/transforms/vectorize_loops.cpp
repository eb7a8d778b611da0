#include <algorithm>
#include <optional>
#include <vector>

#include "tensorir/arith/simplify.h"
#include "tensorir/error.h"
#include "tensorir/ir/op.h"
#include "tensorir/ir/printer.h"
#include "tensorir/ir/visitor.h"
#include "transforms/passes.h"

namespace tensorir {

namespace {
// Thrown inside the widener when a body cannot become vector code.
struct CannotVectorize {};

// Rewrites a loop body with the loop variable replaced by a Ramp of `lanes` lanes.
class Widen : public IRMutator {
 public:
  Widen(const Var &var, Expr ramp) { vars_.emplace_back(var, std::move(ramp)); }
  using IRMutator::mutate;

 protected:
  Expr visit(const VarNode *op, const Expr &self) override {
    for (auto it = vars_.rbegin(); it != vars_.rend(); ++it)
      if (it->first.get() == op) return it->second;
    return self;
  }
  Expr visit(const LoadNode *op, const Expr &self) override {
    Expr index = mutate(op->index);
    if (index.same_as(op->index)) return self;
    return LoadNode::make(op->type.with_lanes(index.type().lanes()), op->buffer, index);
  }
  Expr visit(const CastNode *op, const Expr &self) override {
    Expr v = mutate(op->value);
    if (v.same_as(op->value)) return self;
    return CastNode::make(op->type.with_lanes(v.type().lanes()), v);
  }
  Expr visit(const CallNode *op, const Expr &self) override {
    std::vector<Expr> args;
    int lanes = 1;
    for (const Expr &a : op->args) {
      args.push_back(mutate(a));
      lanes = std::max(lanes, args.back().type().lanes());
    }
    if (lanes == 1) return self;
    if (op->call_type != CallNode::PureIntrinsic) throw CannotVectorize{};
    for (Expr &a : args)  // a string (a message) stays one
      if (a.type().lanes() != lanes && !a.as<StringImmNode>()) a = BroadcastNode::make(a, lanes);
    return CallNode::make(op->type.with_lanes(lanes), op->name, args, op->call_type);
  }
  Expr visit(const LetNode *op, const Expr &self) override {
    Expr value = mutate(op->value);
    if (value.type().lanes() == 1) {
      Expr body = mutate(op->body);
      return value.same_as(op->value) && body.same_as(op->body) ? self : LetNode::make(op->var, value, body);
    }
    Var wide(op->var.name(), value.type());
    vars_.emplace_back(op->var, wide);
    Expr body = mutate(op->body);
    vars_.pop_back();
    return LetNode::make(wide, value, body);
  }
  Expr visit(const SelectNode *op, const Expr &self) override {
    Expr c = mutate(op->condition), t = mutate(op->true_value), f = mutate(op->false_value);
    if (c.same_as(op->condition) && t.same_as(op->true_value) && f.same_as(op->false_value)) return self;
    return select(c, t, f);
  }
  // x / 0 and x % 0 are 0. The operators refuse a literal 0 divisor, written by a user,
  // but simplifying a loop of one iteration can make one (x % min(j, 8) with j = 0).
  static Expr divide(const Expr &a, const Expr &b, bool mod) {
    const auto *wide = b.as<BroadcastNode>();
    if (a.type().is_int_or_uint() && is_const_int(wide ? wide->value : b, 0))
      return make_zero(a.type().with_lanes(std::max(a.type().lanes(), b.type().lanes())));
    return mod ? a % b : a / b;
  }
#define TIR_WIDEN_BINARY(Node, expr)                                   \
  Expr visit(const Node *op, const Expr &self) override {              \
    Expr a = mutate(op->a), b = mutate(op->b);                         \
    if (a.same_as(op->a) && b.same_as(op->b)) return self;             \
    return expr;                                                       \
  }
  TIR_WIDEN_BINARY(AddNode, a + b)
  TIR_WIDEN_BINARY(SubNode, a - b)
  TIR_WIDEN_BINARY(MulNode, a * b)
  TIR_WIDEN_BINARY(DivNode, divide(a, b, false))
  TIR_WIDEN_BINARY(ModNode, divide(a, b, true))
  TIR_WIDEN_BINARY(MinNode, min(a, b))
  TIR_WIDEN_BINARY(MaxNode, max(a, b))
  TIR_WIDEN_BINARY(EQNode, a == b)
  TIR_WIDEN_BINARY(NENode, a != b)
  TIR_WIDEN_BINARY(LTNode, a < b)
  TIR_WIDEN_BINARY(LENode, a <= b)
  TIR_WIDEN_BINARY(GTNode, a > b)
  TIR_WIDEN_BINARY(GENode, a >= b)
  TIR_WIDEN_BINARY(AndNode, a && b)
  TIR_WIDEN_BINARY(OrNode, a || b)
#undef TIR_WIDEN_BINARY

  Stmt visit(const StoreNode *op, const Stmt &self) override {
    Expr value = mutate(op->value), index = mutate(op->index);
    if (value.same_as(op->value) && index.same_as(op->index)) return self;
    int lanes = std::max(value.type().lanes(), index.type().lanes());
    // Every lane writing one address is a reduction across lanes: not expressible here.
    if (index.type().lanes() != lanes) throw CannotVectorize{};
    if (value.type().lanes() != lanes) value = BroadcastNode::make(value, lanes);
    return StoreNode::make(op->buffer, value, index);
  }
  Stmt visit(const IfThenElseNode *op, const Stmt &self) override {
    Expr c = mutate(op->condition);
    if (c.type().lanes() > 1) throw CannotVectorize{};
    return IRMutator::visit(op, self);
  }
  Stmt visit(const ForNode *op, const Stmt &self) override {
    Expr mn = mutate(op->min), ext = mutate(op->extent);
    if (mn.type().lanes() > 1 || ext.type().lanes() > 1) throw CannotVectorize{};
    return IRMutator::visit(op, self);
  }
  Stmt visit(const LetStmtNode *op, const Stmt &self) override {
    Expr value = mutate(op->value);
    if (value.type().lanes() == 1) return IRMutator::visit(op, self);
    Var wide(op->var.name(), value.type());
    vars_.emplace_back(op->var, wide);
    Stmt body = mutate(op->body);
    vars_.pop_back();
    return LetStmtNode::make(wide, value, body);
  }
  Stmt visit(const AllocateNode *, const Stmt &) override { throw CannotVectorize{}; }
  Stmt visit(const AssertStmtNode *, const Stmt &) override { throw CannotVectorize{}; }

 private:
  std::vector<std::pair<Var, Expr>> vars_;
};

class Vectorizer : public IRMutator {
 public:
  using IRMutator::mutate;

 protected:
  static constexpr int64_t kChunk = 16;

  // for v in [min, min + extent): body  ==>  vector(kChunk) body at min, at min + kChunk, ...;
  // vector(rest) body. The chunks are written out rather than looped over, so that each
  // vector's address is a constant offset: LLVM then keeps a register tile of 48 columns
  // in registers across its reduction, as it does one of 64 (a loop over the chunks hid
  // that the tile's stores and loads meet).
  static Stmt chunked(const ForNode *op, const Stmt &body, int64_t extent) {
    Type t = op->min.type();
    Var lane(op->loop_var.name() + ".v", t);
    std::vector<Stmt> parts;
    for (int64_t start = 0; start < extent; start += kChunk) {
      const int64_t lanes = std::min(kChunk, extent - start);
      Expr at = op->min + make_const(t, double(start)) + lane;
      parts.push_back(ForNode::make(lane, make_zero(t), make_const(t, double(lanes)), ForKind::Vectorized,
                                    substitute(body, {{op->loop_var, at}})));
    }
    return BlockNode::make(parts);
  }

  Stmt visit(const ForNode *op, const Stmt &self) override {
    Stmt body = mutate(op->body);  // inner vectorized loops first
    if (op->for_kind != ForKind::Vectorized) {
      return body.same_as(op->body) ? self : ForNode::make(op->loop_var, op->min, op->extent, op->for_kind, body);
    }
    const int64_t *extent = as_const_int(op->extent);
    TIR_USER_CHECK(extent) << "cannot vectorize loop '" << op->loop_var.name() << "': its extent `" << op->extent
                           << "` is not a constant; split it by a constant factor and vectorize the inner loop";
    TIR_USER_CHECK(*extent >= 1 && *extent <= 256)
        << "cannot vectorize loop '" << op->loop_var.name() << "' of extent " << *extent
        << ": vectors have 1 to 256 lanes; split it first";
    if (*extent == 1) return substitute(body, {{op->loop_var, op->min}});
    // A body that does not read the loop's variable is the same work repeated: its lanes
    // would all be one, and an update (C[i] = C[i] + x, a sum over an axis it ignores)
    // must run once per iteration. It stays a loop.
    if (substitute(body, {{op->loop_var, op->min}}).same_as(body))
      return ForNode::make(op->loop_var, op->min, op->extent, ForKind::Serial, body);
    // Vector types whose lane count is not a power of two legalise badly (a <56 x float>
    // spills): such a loop longer than kChunk runs as vectors of kChunk lanes plus one
    // vector for the rest.
    if (*extent > kChunk && (*extent & (*extent - 1)) != 0) return mutate(chunked(op, body, *extent));
    Expr ramp = RampNode::make(op->min, make_const(op->min.type(), 1), static_cast<int>(*extent));
    try {
      return simplify(Widen(op->loop_var, ramp).mutate(body));
    } catch (const CannotVectorize &) {
      return ForNode::make(op->loop_var, op->min, op->extent, ForKind::Serial, body);
    }
  }
};
}  // namespace

Stmt vectorize_loops(const Stmt &s) { return Vectorizer().mutate(s); }

}  // namespace tensorir
