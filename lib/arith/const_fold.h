// Constant folding on integer and float immediates, honouring each type's bit width.
#pragma once
#include <cstdint>

#include "tensorir/ir/expr.h"

namespace tensorir::arith {

// Floor division and modulo (the divisor must be non-zero).
int64_t floor_div(int64_t a, int64_t b);
int64_t floor_mod(int64_t a, int64_t b);

// Wraps `v` to the width of integer type `t` (sign-extends ints, masks uints, 0/1 for bool).
int64_t wrap_int(Type t, int64_t v);
// An integer constant of scalar type `t`, wrapped to its width.
Expr int_const(Type t, int64_t v);
Expr bool_const(bool v, int lanes = 1);

// The scalar value of an integer constant or a broadcast of one.
const int64_t *as_int_scalar(const Expr &e);
// True for an integer constant (or broadcast of one) equal to v.
bool is_int_value(const Expr &e, int64_t v);
// True for a float constant (or broadcast of one) equal to v.
bool is_float_value(const Expr &e, double v);
// True for an IntImm / FloatImm / StringImm.
bool is_const(const Expr &e);

// Folds a binary node on two scalar constants; undefined when it cannot
// (division by zero, mixed kinds, non-constant operands).
Expr fold_binary(IRKind kind, Type result_type, const Expr &a, const Expr &b);
// Folds a cast of a scalar constant; undefined when the result is not representable.
Expr fold_cast(Type t, const Expr &v);
// Float min and max as the backends compute them: NaN when either operand is NaN.
double float_min(double x, double y);
double float_max(double x, double y);
// Rounds a double to the precision of float type t.
double round_float(Type t, double v);

}  // namespace tensorir::arith
