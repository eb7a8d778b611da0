// Expression rewrites of the fragment emitter (codegen_fragment_emit.h): clamps a guard
// proves redundant, the single reduction of a body, and replacing one node.
#include "backends/glsl/fragment/codegen_fragment_emit.h"
#include "tensorir/arith/simplify.h"
#include "tensorir/ir/op.h"
#include "tensorir/ir/visitor.h"

namespace tensorir::glsl {

namespace {

// Rewrites what a guard proves redundant: inside select(c, t, f), t runs only where c
// holds, so a clamp min(max(a, lo), hi) of an index that c already bounds to [lo, hi]
// is `a` there (the padding of a convolution reads through such clamps). The index
// then stays affine, and its texel and channel can be worked out statically.
class GuardedClamps : public IRMutator {
 public:
  using IRMutator::mutate;

 protected:
  using IRMutator::visit;
  struct Fact {
    Expr value, lo, hi;  // lo <= value <= hi (either bound may be undefined)
  };
  std::vector<Fact> facts_;

  void learn(const Expr &c) {
    if (const auto *n = c.as<AndNode>()) {
      learn(n->a);
      learn(n->b);
    } else if (const auto *n = c.as<GENode>()) {
      facts_.push_back({n->a, n->b, Expr()});
    } else if (const auto *n = c.as<GTNode>()) {
      facts_.push_back({n->a, simplify(n->b + 1), Expr()});
    } else if (const auto *n = c.as<LTNode>()) {
      facts_.push_back({n->a, Expr(), simplify(n->b - 1)});
    } else if (const auto *n = c.as<LENode>()) {
      facts_.push_back({n->a, Expr(), n->b});
    }
  }
  // (Facts about floats, from a select on a float comparison, never match an int index.)
  static bool equal(const Expr &a, const Expr &b) {
    return a.type() == b.type() && is_const_int(simplify(a - b), 0);
  }
  // lo <= v <= hi under the facts (an undefined bound needs no proof).
  bool proves(const Expr &v, const Expr &lo, const Expr &hi) const {
    bool has_lo = !lo.defined(), has_hi = !hi.defined();
    for (const Fact &f : facts_) {
      if (!equal(f.value, v)) continue;
      has_lo = has_lo || (f.lo.defined() && can_prove(f.lo >= lo));
      has_hi = has_hi || (f.hi.defined() && can_prove(f.hi <= hi));
    }
    return has_lo && has_hi;
  }
  Expr visit(const SelectNode *op, const Expr &self) override {
    Expr c = mutate(op->condition), f = mutate(op->false_value);
    size_t known = facts_.size();
    learn(c);
    Expr t = mutate(op->true_value);
    facts_.resize(known);
    if (c.same_as(op->condition) && t.same_as(op->true_value) && f.same_as(op->false_value)) return self;
    return select(c, t, f);
  }
  Expr visit(const MinNode *op, const Expr &self) override {
    if (op->a.type().is_int()) {
      if (const auto *inner = op->a.as<MaxNode>())
        if (proves(inner->a, inner->b, op->b)) return mutate(inner->a);
      if (proves(op->a, Expr(), op->b)) return mutate(op->a);
    }
    return IRMutator::visit(op, self);
  }
  Expr visit(const MaxNode *op, const Expr &self) override {
    if (op->a.type().is_int()) {
      if (const auto *inner = op->a.as<MinNode>())
        if (proves(inner->a, op->b, inner->b)) return mutate(inner->a);
      if (proves(op->a, op->b, Expr())) return mutate(op->a);
    }
    return IRMutator::visit(op, self);
  }
};

// Replaces one node (by identity) with an expression.
class ReplaceNode : public IRMutator {
 public:
  ReplaceNode(const Object *from, Expr to) : from_(from), to_(std::move(to)) {}
  using IRMutator::mutate;
  Expr mutate(const Expr &e) override { return e.get() == from_ ? to_ : IRMutator::mutate(e); }

 private:
  const Object *from_;
  Expr to_;
};

}  // namespace

Expr remove_guarded_clamps(const Expr &e) { return GuardedClamps().mutate(e); }
Expr replace_node(const Expr &e, const Object *from, const Expr &to) { return ReplaceNode(from, to).mutate(e); }

}  // namespace tensorir::glsl
