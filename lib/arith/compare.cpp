// A deterministic structural order on expressions, used to merge like terms and to
// sort the factors of a product.
#include <algorithm>

#include "arith/linear.h"

namespace tensorir::arith {

namespace {

int cmp_int(int64_t a, int64_t b) { return a < b ? -1 : (a > b ? 1 : 0); }

int cmp_ptr(const void *a, const void *b) {
  return std::less<const void *>()(a, b) ? -1 : (std::less<const void *>()(b, a) ? 1 : 0);
}

int cmp_type(Type a, Type b) {
  if (int c = cmp_int(a.code(), b.code())) return c;
  if (int c = cmp_int(a.bits(), b.bits())) return c;
  return cmp_int(a.lanes(), b.lanes());
}

int cmp_list(const std::vector<Expr> &a, const std::vector<Expr> &b) {
  if (int c = cmp_int(static_cast<int64_t>(a.size()), static_cast<int64_t>(b.size()))) return c;
  for (size_t i = 0; i < a.size(); ++i)
    if (int c = compare_expr(a[i], b[i])) return c;
  return 0;
}

template <typename N>
int cmp_binary(const Expr &a, const Expr &b) {
  const N *x = a.as<N>(), *y = b.as<N>();
  if (int c = compare_expr(x->a, y->a)) return c;
  return compare_expr(x->b, y->b);
}

}  // namespace

int compare_expr(const Expr &a, const Expr &b) {
  if (a.same_as(b)) return 0;
  if (!a.defined() || !b.defined()) return a.defined() ? 1 : -1;
  if (int c = cmp_int(static_cast<int>(a->kind), static_cast<int>(b->kind))) return c;
  if (int c = cmp_type(a.type(), b.type())) return c;
  switch (a->kind) {
    case IRKind::IntImm: return cmp_int(a.as<IntImmNode>()->value, b.as<IntImmNode>()->value);
    case IRKind::FloatImm: {
      double x = a.as<FloatImmNode>()->value, y = b.as<FloatImmNode>()->value;
      return x < y ? -1 : (x > y ? 1 : 0);
    }
    case IRKind::StringImm: return a.as<StringImmNode>()->value.compare(b.as<StringImmNode>()->value);
    case IRKind::Variable: {
      // Names give a stable order; identity separates distinct variables of one name.
      const auto *x = a.as<VarNode>(), *y = b.as<VarNode>();
      if (int c = x->name.compare(y->name)) return c < 0 ? -1 : 1;
      return cmp_ptr(x, y);
    }
    case IRKind::Cast: return compare_expr(a.as<CastNode>()->value, b.as<CastNode>()->value);
    case IRKind::Add: return cmp_binary<AddNode>(a, b);
    case IRKind::Sub: return cmp_binary<SubNode>(a, b);
    case IRKind::Mul: return cmp_binary<MulNode>(a, b);
    case IRKind::Div: return cmp_binary<DivNode>(a, b);
    case IRKind::Mod: return cmp_binary<ModNode>(a, b);
    case IRKind::Min: return cmp_binary<MinNode>(a, b);
    case IRKind::Max: return cmp_binary<MaxNode>(a, b);
    case IRKind::EQ: return cmp_binary<EQNode>(a, b);
    case IRKind::NE: return cmp_binary<NENode>(a, b);
    case IRKind::LT: return cmp_binary<LTNode>(a, b);
    case IRKind::LE: return cmp_binary<LENode>(a, b);
    case IRKind::GT: return cmp_binary<GTNode>(a, b);
    case IRKind::GE: return cmp_binary<GENode>(a, b);
    case IRKind::And: return cmp_binary<AndNode>(a, b);
    case IRKind::Or: return cmp_binary<OrNode>(a, b);
    case IRKind::Not: return compare_expr(a.as<NotNode>()->a, b.as<NotNode>()->a);
    case IRKind::Select: {
      const auto *x = a.as<SelectNode>(), *y = b.as<SelectNode>();
      if (int c = compare_expr(x->condition, y->condition)) return c;
      if (int c = compare_expr(x->true_value, y->true_value)) return c;
      return compare_expr(x->false_value, y->false_value);
    }
    case IRKind::Load: {
      const auto *x = a.as<LoadNode>(), *y = b.as<LoadNode>();
      if (int c = compare_expr(x->buffer, y->buffer)) return c;
      return compare_expr(x->index, y->index);
    }
    case IRKind::Ramp: {
      const auto *x = a.as<RampNode>(), *y = b.as<RampNode>();
      if (int c = compare_expr(x->base, y->base)) return c;
      return compare_expr(x->stride, y->stride);
    }
    case IRKind::Broadcast: return compare_expr(a.as<BroadcastNode>()->value, b.as<BroadcastNode>()->value);
    case IRKind::Let: {
      const auto *x = a.as<LetNode>(), *y = b.as<LetNode>();
      if (int c = compare_expr(x->var, y->var)) return c;
      if (int c = compare_expr(x->value, y->value)) return c;
      return compare_expr(x->body, y->body);
    }
    case IRKind::Call: {
      const auto *x = a.as<CallNode>(), *y = b.as<CallNode>();
      if (int c = x->name.compare(y->name)) return c < 0 ? -1 : 1;
      if (int c = cmp_int(x->call_type, y->call_type)) return c;
      return cmp_list(x->args, y->args);
    }
    case IRKind::TensorLoad: {
      const auto *x = a.as<TensorLoadNode>(), *y = b.as<TensorLoadNode>();
      if (int c = x->name.compare(y->name)) return c < 0 ? -1 : 1;
      if (int c = cmp_ptr(x->producer.get(), y->producer.get())) return c;
      if (int c = cmp_int(x->value_index, y->value_index)) return c;
      return cmp_list(x->args, y->args);
    }
    default:
      // Reductions are compared by identity: merging them is never needed.
      return cmp_ptr(a.get(), b.get());
  }
}

}  // namespace tensorir::arith
