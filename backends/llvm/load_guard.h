// LoadGuard: which loads under a select might read outside their buffer.
//
// `select(c, t, f)` and `if_then_else` pick one value, and a read in the value not
// picked must not run when it would fault: `if_then_else(j >= 0 && j < n, T[j], 0)`
// with data-dependent j reads T only where j is inside. Code generation asks, for each
// load under a select, whether its index provably stays in the buffer (loop ranges,
// argument shapes, allocation extents); only the loads it cannot prove are guarded
// (a branch, or a masked load per lane), so clamped reads keep plain vector loads.
#pragma once
#include <unordered_map>
#include <vector>

#include "tensorir/arith/interval.h"
#include "tensorir/ir/expr.h"

namespace tensorir::llvm_backend {

// The number of elements of a buffer of these extents, as an int64 expression.
Expr element_count(const std::vector<Expr> &extents);

class LoadGuard {
 public:
  // While alive, `v` takes `range` (a loop), or the interval of `value` when that is a
  // scalar integer (a let; other lets give no range).
  class Scope {
   public:
    Scope(LoadGuard &guard, const VarNode *v, const Interval &range);
    Scope(LoadGuard &guard, const VarNode *v, const Expr &value);
    ~Scope();
    Scope(const Scope &) = delete;
    Scope &operator=(const Scope &) = delete;

   private:
    LoadGuard &guard_;
    const VarNode *v_ = nullptr;
  };

  // A buffer of `count` elements of `elem` (an argument's shape, an allocation).
  void add_buffer(const VarNode *buffer, Type elem, Expr count);
  // True when every element `load` reads provably lies inside its buffer.
  bool in_bounds(const LoadNode *load) const;
  // True when `e` reads, anywhere, through a load that in_bounds cannot vouch for, or
  // checks an index (checked_index): either must run only where a select picks `e`.
  bool has_unproven_load(const Expr &e);

 private:
  void enter(const VarNode *v, const Interval &range);
  void leave(const VarNode *v);

  struct Extent {
    Type elem;
    Expr count;
  };
  std::unordered_map<const VarNode *, Extent> buffers_;
  VarRanges ranges_;
  // Shadowed ranges of variables bound again in an inner scope.
  std::unordered_map<const VarNode *, std::vector<Interval>> shadowed_;
};

}  // namespace tensorir::llvm_backend
