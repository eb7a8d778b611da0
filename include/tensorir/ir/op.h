// The user-facing arithmetic on Expr: overloaded operators, intrinsics, casts.
//
// Type rules: both sides of a binary operator get one type. A constant adopts the
// other side's type (x_float + 1 is float, i + 1 stays int32), narrower ints and floats
// widen, a scalar broadcasts to a vector. Mixing an int expression with a float
// expression (or a float constant) is a tensorir::Error asking for an explicit cast().
#pragma once
#include "tensorir/ir/expr.h"

namespace tensorir {

Expr operator+(Expr a, Expr b);
Expr operator-(Expr a, Expr b);
Expr operator*(Expr a, Expr b);
// Floor division and modulo on integers. A constant divisor of 0 is an error; at run time
// x / 0 and x % 0 give 0, and x / -1 gives -x (wrapping) where the hardware would trap.
Expr operator/(Expr a, Expr b);
Expr operator%(Expr a, Expr b);
Expr operator-(Expr a);
Expr operator==(Expr a, Expr b);
Expr operator!=(Expr a, Expr b);
Expr operator<(Expr a, Expr b);
Expr operator<=(Expr a, Expr b);
Expr operator>(Expr a, Expr b);
Expr operator>=(Expr a, Expr b);
Expr operator&&(Expr a, Expr b);
Expr operator||(Expr a, Expr b);
Expr operator!(Expr a);

Expr floordiv(Expr a, Expr b);
Expr floormod(Expr a, Expr b);
Expr min(Expr a, Expr b);
Expr max(Expr a, Expr b);

Expr cast(Type t, Expr v);
// cond ? t : f, element-wise. On the CPU targets a read in the value not picked does not
// run, so the condition may guard an index that would fall outside its buffer (as the
// left side of && and || guards reads on the right).
Expr select(Expr cond, Expr t, Expr f);
// Same as select; the name TVM users know.
Expr if_then_else(Expr cond, Expr t, Expr f);

// Math intrinsics on float expressions (ints are cast to float32 first).
Expr exp(Expr x);
Expr log(Expr x);
Expr sqrt(Expr x);
Expr rsqrt(Expr x);
Expr tanh(Expr x);
Expr sigmoid(Expr x);
Expr erf(Expr x);
Expr floor(Expr x);
Expr ceil(Expr x);
Expr fabs(Expr x);
// Trigonometric and hyperbolic functions and their inverses.
Expr sin(Expr x);
Expr cos(Expr x);
Expr tan(Expr x);
Expr asin(Expr x);
Expr acos(Expr x);
Expr atan(Expr x);
Expr sinh(Expr x);
Expr cosh(Expr x);
Expr asinh(Expr x);
Expr acosh(Expr x);
Expr atanh(Expr x);
Expr pow(Expr x, Expr y);
// The remainder of x / y truncated, with x's sign, as C's fmod: exact on the CPU targets
// and OpenCL (NaN for y = 0 or infinite x, x for infinite y); on OpenGL and WebGL
// x - y * trunc(x / y), x for infinite y.
Expr fmod(Expr x, Expr y);
// x << n and x >> n (arithmetic on signed types) on integers, for n in [0, bits).
Expr shift_left(Expr x, Expr n);
Expr shift_right(Expr x, Expr n);
// |x| for ints and floats alike.
Expr abs(Expr x);

// A position along an axis of `extent` elements read from data (Gather's indices):
// `index`, a signed integer whose type holds `extent`, counted from the end when negative,
// so [-extent, extent) gives [0, extent) as int32. Kernels of the targets that can fail a
// call ("llvm", "wasm": TargetCaps::kernel_errors) fail with an Error that says `what`
// when an index is outside that range (under a select, only where the select picks it);
// the GPU targets, whose kernels cannot, clamp it into [0, extent) after narrowing it to
// int32. A call of the intrinsic kCheckedIndex.
Expr checked_index(Expr index, int64_t extent, const std::string &what);
inline constexpr const char *kCheckedIndex = "tensorir.checked_index";
// The extent a kCheckedIndex call checks against (its vectorized form too).
int64_t checked_index_extent(const CallNode *call);

// Calls a C function `name(args...)` returning `t`; it must be visible to the JIT.
Expr call_extern(Type t, const std::string &name, std::vector<Expr> args);

// The names of the pure intrinsics above, for backends that must support all of them.
const std::vector<std::string> &intrinsic_names();

// Largest and smallest finite values of a type (the identities of max and min).
Expr max_value(Type t);
Expr min_value(Type t);

}  // namespace tensorir
