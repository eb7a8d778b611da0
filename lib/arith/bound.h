// Bounds of integer expressions under variable ranges.
//
// A range's bounds may mention other ranged variables (j in [0, i], i in [0, n)).
// Bounds of a sum are found by substituting, one term at a time, the term whose
// variables sit deepest in that chain by its bound, re-collecting like terms after
// each step: i - n with i in [0, n) gives (n - 1) - n = -1 instead of losing the link.
#pragma once
#include <cstdint>
#include <optional>
#include <unordered_map>

#include "arith/linear.h"
#include "tensorir/arith/interval.h"

namespace tensorir::arith {

class BoundAnalyzer {
 public:
  // `nest` carries the recursion depth of an enclosing analysis (for let bodies).
  explicit BoundAnalyzer(const VarRanges &ranges, int nest = 0) : ranges_(ranges), nest_(nest) {}

  // The interval of `e`; its bounds mention no variable of the ranges.
  Interval interval(const Expr &e);
  // The upper (or lower) bound of a sum; undefined when unbounded.
  Expr bound(const LinearSum &s, bool upper);
  // The bound when it is a constant.
  std::optional<int64_t> const_bound(const LinearSum &s, bool upper);

 private:
  Interval compute_interval(const Expr &e);
  int var_depth(const VarNode *v);
  int expr_depth(const Expr &e);
  Interval atom_interval(const Expr &a);
  Interval product_interval(const std::vector<Expr> &factors);
  Interval generic_interval(const Expr &e);

  const VarRanges &ranges_;
  std::unordered_map<const VarNode *, int> depth_;
  // Results per node: bounds of nested atoms are asked for again and again, and
  // without these the work grows exponentially with nesting. The Expr keeps the key alive.
  std::unordered_map<const ExprNode *, std::pair<Expr, Interval>> interval_cache_;
  std::unordered_map<const ExprNode *, std::pair<Expr, int>> depth_cache_;
  int nest_ = 0;
};

// Constant bounds from an expression's structure alone (variables are unbounded).
struct ConstRange {
  std::optional<int64_t> lo, hi;
};
ConstRange const_range(const Expr &e);

// Interval arithmetic on bounds (undefined = infinite); results are simplified.
Interval interval_add(const Interval &a, const Interval &b);
Interval interval_sub(const Interval &a, const Interval &b);
Interval interval_mul(const Interval &a, const Interval &b);
Interval interval_div(const Interval &a, const Interval &b);
Interval interval_mod(const Interval &a, const Interval &b);
Interval interval_min(const Interval &a, const Interval &b);
Interval interval_max(const Interval &a, const Interval &b);

}  // namespace tensorir::arith
