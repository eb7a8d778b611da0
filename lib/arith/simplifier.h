// The simplifier: one mutator for expressions and statements, split over
// simplify_expr.cpp (arithmetic), simplify_divmod.cpp (division and modulo),
// simplify_logic.cpp (comparisons, logic, select) and simplify_stmt.cpp.
#pragma once
#include <optional>

#include "arith/bound.h"
#include "arith/linear.h"
#include "tensorir/arith/interval.h"
#include "tensorir/ir/visitor.h"

namespace tensorir::arith {

class Simplifier : public IRMutator {
 public:
  // `keep_failing`: folds keep operands that may fail (may_fail below), as a rewrite of
  // the IR must; a question about a condition (can_prove) may fold them away.
  explicit Simplifier(VarRanges ranges, bool keep_failing = true)
      : ranges_(std::move(ranges)), keep_failing_(keep_failing) {}
  using IRMutator::mutate;

  // Constant bounds of a sum under the current ranges.
  std::optional<int64_t> upper(const LinearSum &s) { return BoundAnalyzer(ranges_).const_bound(s, true); }
  std::optional<int64_t> lower(const LinearSum &s) { return BoundAnalyzer(ranges_).const_bound(s, false); }
  // The decided value of an integer comparison a OP b, when the ranges decide it.
  std::optional<bool> decide(IRKind op, const Expr &a, const Expr &b);

 protected:
  using IRMutator::visit;
  // arithmetic
  Expr visit(const CastNode *op, const Expr &self) override;
  Expr visit(const AddNode *op, const Expr &self) override;
  Expr visit(const SubNode *op, const Expr &self) override;
  Expr visit(const MulNode *op, const Expr &self) override;
  Expr visit(const MinNode *op, const Expr &self) override;
  Expr visit(const MaxNode *op, const Expr &self) override;
  Expr visit(const RampNode *op, const Expr &self) override;
  Expr visit(const LetNode *op, const Expr &self) override;
  Expr visit(const ReduceNode *op, const Expr &self) override;
  // division and modulo
  Expr visit(const DivNode *op, const Expr &self) override;
  Expr visit(const ModNode *op, const Expr &self) override;
  // comparisons and logic
  Expr visit(const EQNode *op, const Expr &self) override;
  Expr visit(const NENode *op, const Expr &self) override;
  Expr visit(const LTNode *op, const Expr &self) override;
  Expr visit(const LENode *op, const Expr &self) override;
  Expr visit(const GTNode *op, const Expr &self) override;
  Expr visit(const GENode *op, const Expr &self) override;
  Expr visit(const AndNode *op, const Expr &self) override;
  Expr visit(const OrNode *op, const Expr &self) override;
  Expr visit(const NotNode *op, const Expr &self) override;
  Expr visit(const SelectNode *op, const Expr &self) override;
  // statements
  Stmt visit(const LetStmtNode *op, const Stmt &self) override;
  Stmt visit(const AttrStmtNode *op, const Stmt &self) override;
  Stmt visit(const AssertStmtNode *op, const Stmt &self) override;
  Stmt visit(const ForNode *op, const Stmt &self) override;
  Stmt visit(const IfThenElseNode *op, const Stmt &self) override;
  Stmt visit(const BlockNode *op, const Stmt &self) override;
  Stmt visit(const AllocateNode *op, const Stmt &self) override;
  Stmt visit(const EvaluateNode *op, const Stmt &self) override;

  // The canonical form of a scalar integer +, -, * tree rooted at `self`; none where its
  // canonical sum wrapped (LinearSum::wrapped): the node is then simplified as it is.
  Expr canonical(const Expr &self);
  Expr div_by_const(const Expr &a, int64_t c);
  Expr mod_by_const(const Expr &a, int64_t c);
  Expr compare(IRKind op, const Expr &self, const Expr &a, const Expr &b);
  Expr compare_lanes(IRKind op, const Expr &a, const Expr &b);
  // True when b is the negation of a (so a && b is false and a || b is true).
  bool contradicts(const Expr &a, const Expr &b);
  Expr min_max(bool is_min, const Expr &self, const Expr &a, const Expr &b);
  // True when a fold may not drop e (see keep_failing).
  bool must_keep(const Expr &e) const;

  // Sets a variable's range for the duration of a scope, restoring the old one after.
  class ScopedRange {
   public:
    ScopedRange(Simplifier *s, const VarNode *v, Interval r);
    ~ScopedRange();
    ScopedRange(const ScopedRange &) = delete;
    ScopedRange &operator=(const ScopedRange &) = delete;

   private:
    Simplifier *s_;
    const VarNode *v_;
    std::optional<Interval> old_;
  };

  VarRanges ranges_;
  bool keep_failing_;
};

// Helpers shared by the simplifier's files.
bool is_index_type(Type t);  // a scalar int32 or int64: canonical sums apply
Expr rebuild_binary(IRKind kind, const Expr &a, const Expr &b);
// True when e has no side effects and reads no memory.
bool is_pure(const Expr &e);
// True when evaluating e can fail the call (it holds a checked_index). A fold that the
// operands' ranges decide must keep such an operand: checked_index(k, 1) == 0 holds for
// every k the call lets through, but the call must still see k.
bool may_fail(const Expr &e);
// How many checked_index calls e holds.
int checked_calls(const Expr &e);
// A no-op statement (Evaluate of a constant) or nothing at all.
bool is_no_op(const Stmt &s);

}  // namespace tensorir::arith
