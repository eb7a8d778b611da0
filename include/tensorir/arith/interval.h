// Interval analysis: the range of values an integer expression takes when its
// variables range over known intervals. Bounds are Exprs so symbolic shapes work;
// an undefined bound means unbounded on that side.
#pragma once
#include <unordered_map>

#include "tensorir/ir/expr.h"

namespace tensorir {

struct Interval {
  Expr min, max;  // inclusive; undefined = -inf / +inf
  static Interval everything() { return {}; }
  static Interval single_point(Expr e) { return {e, e}; }
  bool has_lower() const { return min.defined(); }
  bool has_upper() const { return max.defined(); }
  bool is_bounded() const { return has_lower() && has_upper(); }
};

// Ranges of variables, keyed by the variable node.
using VarRanges = std::unordered_map<const VarNode *, Interval>;

// The interval of `e` given `ranges` (variables not in `ranges` are treated as points:
// themselves). Results are simplified.
Interval eval_interval(const Expr &e, const VarRanges &ranges);
// The smallest interval that holds both.
Interval interval_union(const Interval &a, const Interval &b);

// Convenience: a variable ranging over [min, min + extent).
Interval interval_of_range(const Range &r);

}  // namespace tensorir
