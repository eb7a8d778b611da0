// Structural equality and hashing: two trees are equal when they have the same shape,
// types and constants, and use the same variables (by identity) where free, or
// consistently renamed variables where bound (Let, For, LetStmt, Allocate).
#pragma once
#include <cstddef>

#include "tensorir/ir/expr.h"

namespace tensorir {

bool structural_equal(const Expr &a, const Expr &b);
bool structural_equal(const Stmt &a, const Stmt &b);
size_t structural_hash(const Expr &e);
size_t structural_hash(const Stmt &s);

}  // namespace tensorir
