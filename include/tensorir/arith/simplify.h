// The arithmetic simplifier: constant folding, canonical sums of products for integer
// index expressions, floor division and modulo by constants, and min/max/comparisons
// decided under known variable ranges.
#pragma once
#include "tensorir/arith/interval.h"
#include "tensorir/ir/expr.h"

namespace tensorir {

Expr simplify(const Expr &e, const VarRanges &ranges = {});
// Simplifies every expression in `s`, using loop ranges it learns from For nodes,
// and drops branches whose conditions it can decide.
Stmt simplify(const Stmt &s, const VarRanges &ranges = {});

// True when `cond` is provably true (false: unknown or false) under `ranges`.
bool can_prove(const Expr &cond, const VarRanges &ranges = {});

}  // namespace tensorir
