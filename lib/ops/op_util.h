// Shared by the operator files: constant shapes, axis normalisation, safe padded reads.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "tensorir/autotune/config.h"
#include "tensorir/error.h"
#include "tensorir/ir/op.h"
#include "tensorir/target.h"
#include "tensorir/te/tensor.h"

namespace tensorir::ops::detail {

// The tag schedule_generic inlines.
inline const std::string kInjective = "injective";

// The shape of `t` as integers; `op` names the operator in the error.
inline std::vector<int64_t> const_shape(const Tensor &t, const std::string &op) {
  std::vector<int64_t> out;
  for (size_t i = 0; i < t.shape().size(); ++i) {
    const int64_t *v = as_const_int(t.shape()[i]);
    TIR_USER_CHECK(v) << op << ": tensor " << t.name() << " has a symbolic dimension " << i
                      << "; this operator needs constant shapes";
    out.push_back(*v);
  }
  return out;
}

inline void check_ndim(const Tensor &t, int ndim, const std::string &op, const std::string &layout) {
  TIR_USER_CHECK(t.ndim() == ndim) << op << ": tensor " << t.name() << " must have " << ndim << " dimensions ("
                                   << layout << ") but has " << t.ndim();
}

inline void check_same_dtype(const Tensor &a, const Tensor &b, const std::string &op) {
  TIR_USER_CHECK(a.dtype() == b.dtype()) << op << ": tensors " << a.name() << " (" << a.dtype() << ") and "
                                         << b.name() << " (" << b.dtype() << ") must have the same dtype";
}

// axis in [-ndim, ndim) -> [0, ndim).
inline int normalize_axis(int axis, int ndim, const Tensor &t, const std::string &op) {
  TIR_USER_CHECK(axis >= -ndim && axis < ndim)
      << op << ": axis " << axis << " is out of range for tensor " << t.name() << " of rank " << ndim;
  return axis < 0 ? axis + ndim : axis;
}

// Whether `v` is the extreme a max or min reduction found: equal to it, or NaN where the
// extreme is NaN (float max and min return NaN), so that an arg search finds the NaN.
inline Expr is_extreme(const Expr &v, const Expr &extreme) {
  if (!v.type().is_float()) return v == extreme;
  return v == extreme || (extreme != extreme && v != v);
}

// The least and greatest values of integer type `t`, in double (int64's greatest rounds
// up to 2^63).
inline std::pair<double, double> int_range(Type t) {
  if (t.is_int()) return {-std::ldexp(1.0, t.bits() - 1), std::ldexp(1.0, t.bits() - 1) - 1};
  return {0.0, std::ldexp(1.0, t.bits()) - 1};
}

// `e` clamped into [0, size): select may evaluate its untaken side, which must still
// read inside the buffer.
inline Expr clamp_index(Expr e, int64_t size) { return min(max(e, 0), Expr(static_cast<int>(size - 1))); }

inline std::vector<Expr> to_exprs(const std::vector<int64_t> &v) {
  std::vector<Expr> out;
  for (int64_t d : v) out.push_back(Expr(static_cast<int>(d)));  // int32 indices
  return out;
}

inline std::string shape_str(const std::vector<int64_t> &s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + "]";
}

// ops::pad with the padding value as an expression (e.g. min_value for max pooling).
Tensor pad_with(const Tensor &x, const std::vector<int> &before, const std::vector<int> &after, Expr value,
                const std::string &name);

// f(a, b) element by element with NumPy broadcasting (shapes aligned at the right,
// size-1 dimensions pinned); a and b must share a dtype. `op` names the operator in errors.
Tensor broadcast_map(const Tensor &a, const Tensor &b, const std::string &op, const std::string &name,
                     const std::function<Expr(Expr, Expr)> &f);

// The CPU schedules' weight prefetch (Stage::prefetch), knob `name`: how many 64-byte
// cache lines ahead of its reads a step of the reduction asks for, 0 (none), 16, 32 or
// 64; 32 untuned, and 0 for a record made before the knob (the kernel it measured).
inline int64_t weight_prefetch_lines(autotune::Config &cfg, const std::string &name) {
  return cfg.define_optional_knob(name, {0, 16, 32, 64}, 32, 0);
}

// Float32 lanes of the target's CPU vectors: 4 (128-bit SIMD) where it does not say.
inline int cpu_vector_lanes(const Target &target) {
  const int lanes = target.caps().cpu_vector_lanes;
  return lanes > 0 ? lanes : 4;
}

// The CPU's vector registers: 32 with AVX-512, 16 with AVX2 or 128-bit SIMD.
inline int64_t cpu_vector_registers(int lanes) { return lanes >= 16 ? 32 : 16; }

// Whether a register block of `rows` x `vecs` accumulators fits in the vector registers
// with a register for each of the other operand's `vecs` vectors and one for the
// broadcast. Past that LLVM spills the block inside the reduction.
inline bool block_fits_registers(int64_t rows, int64_t vecs, int lanes) {
  return rows * vecs + vecs + 1 <= cpu_vector_registers(lanes);
}

// `lines` ahead as a Stage::prefetch offset, in steps that each read `step_bytes`.
inline int prefetch_offset(int64_t lines, int64_t step_bytes) {
  return static_cast<int>(std::max<int64_t>(1, lines * 64 / step_bytes));
}

}  // namespace tensorir::ops::detail
