// Helpers shared by the operator definitions in this folder.
#pragma once
#include <array>
#include <string>
#include <vector>

#include "../op_util.h"
#include "../schedule_fragment.h"
#include "tensorir/graph/op_registry.h"
#include "tensorir/ops/nn.h"
#include "tensorir/ops/schedule.h"
#include "tensorir/ops/transform.h"

namespace tensorir::ops::defs {

using graph::AttrType;
using graph::Node;
using graph::OpDef;
using graph::OpStrategy;
using graph::ScheduleContext;

// A 2-value integer attribute as an array (the schema checked its size).
inline std::array<int, 2> pair_attr(const Node &n, const std::string &key) {
  const std::vector<int64_t> &v = n.attr_ints(key);
  return {static_cast<int>(v[0]), static_cast<int>(v[1])};
}


// The sliding window of a convolution or pool over the last k dimensions of [N, C, ...],
// from the node's "strides", "dilation" and "pads" (k values before, then k after) and the
// kernel's extents; nd_window checks their sizes and values against the node.
struct NdWindow {
  std::vector<int64_t> kernel, strides, dilation, before, after;
  size_t rank() const { return kernel.size(); }
  // The window's extent in dimension i, from its first element to its last.
  int64_t span(size_t i) const { return (kernel[i] - 1) * dilation[i] + 1; }
  // The number of window positions over `in`, the spatial extents (0 where none fits).
  std::vector<int64_t> out(const std::vector<int64_t> &in) const {
    std::vector<int64_t> o;
    for (size_t i = 0; i < rank(); ++i) {
      const int64_t room = in[i] + before[i] + after[i] - span(i);
      o.push_back(room < 0 ? 0 : room / strides[i] + 1);
    }
    return o;
  }
};

// x [N, C, ...] padded by the window with `value`: output position v reads
// v * stride + r * dilation (window_read).
inline Tensor pad_window(const Tensor &x, const NdWindow &w, Expr value, const std::string &name) {
  std::vector<int> lo = {0, 0}, hi = {0, 0};
  for (size_t i = 0; i < w.rank(); ++i) {
    lo.push_back(int(w.before[i]));
    hi.push_back(int(w.after[i]));
  }
  return detail::pad_with(x, lo, hi, value, name);
}

// One reduction axis per window dimension.
inline std::vector<IterVar> window_axes(const NdWindow &w) {
  std::vector<IterVar> r;
  for (size_t i = 0; i < w.rank(); ++i) r.push_back(reduce_axis({0, int(w.kernel[i])}, "r" + std::to_string(i)));
  return r;
}

// The index into pad_window's result that output index v ([N, C, ...]) reads at window
// offsets r, with `c` for the channel.
inline std::vector<Expr> window_read(const std::vector<Var> &v, Expr c, const std::vector<IterVar> &r,
                                     const NdWindow &w) {
  std::vector<Expr> idx = {v[0], c};
  for (size_t i = 0; i < w.rank(); ++i)
    idx.push_back(v[2 + i] * int(w.strides[i]) + r[i]->var * int(w.dilation[i]));
  return idx;
}

inline NdWindow nd_window(const Node &n, const std::vector<int64_t> &kernel) {
  NdWindow w{kernel, n.attr_ints("strides"), n.attr_ints("dilation"), {}, {}};
  const std::vector<int64_t> &pads = n.attr_ints("pads");
  const size_t k = kernel.size();
  TIR_USER_CHECK(w.strides.size() == k && w.dilation.size() == k && pads.size() == 2 * k)
      << "strides, dilation and pads must have " << k << ", " << k << " and " << 2 * k << " values for a " << k
      << "-D window";
  w.before.assign(pads.begin(), pads.begin() + long(k));
  w.after.assign(pads.begin() + long(k), pads.end());
  for (size_t i = 0; i < k; ++i) {
    TIR_USER_CHECK(kernel[i] >= 1 && w.strides[i] >= 1 && w.dilation[i] >= 1)
        << "the kernel, strides and dilation must be positive";
    TIR_USER_CHECK(w.before[i] >= 0 && w.after[i] >= 0) << "negative pads";
  }
  return w;
}

// `s` as the strategy of every kind the CPU schedules apply to (OpDef::strategies).
inline void on_cpu(OpDef &def, const OpStrategy &s) { def.strategies["cpu"] = s; }
// `s` as the strategy of every GPU compute kind (TargetCaps::gpu_schedules).
inline void on_gpu(OpDef &def, const OpStrategy &s) { def.strategies["gpu"] = s; }
// The "webgl" strategy: the generic schedule with the fragment planner's knobs
// (ops::schedule_fragment), read as the kernel's target options.
inline void on_webgl(OpDef &def) {
  OpStrategy s;
  s.schedule = [](const ScheduleContext &ctx) { return ops::schedule_fragment(ctx.out, ctx.target, ctx.config); };
  def.strategies["webgl"] = s;
}

// The GPU strategy of an out-fusable operator scheduled by `fn(op, out, target)`.
template <typename F>
OpStrategy gpu_strategy(F fn) {
  OpStrategy s;
  s.schedule = [fn](const ScheduleContext &ctx) { return fn(ctx.op, ctx.out, ctx.target, ctx.config); };
  return s;
}

// The GPU strategy of pooling and other window reductions.
inline OpStrategy pool_gpu_strategy() {
  OpStrategy s;
  s.schedule = [](const ScheduleContext &ctx) { return ops::schedule_pool_gpu(ctx.out, ctx.target); };
  return s;
}

// The CPU schedule of operators without one of their own: blocked results as vectors
// of their channel block, in parallel; others by schedule_injective_cpu.
inline OpStrategy blocked_cpu_strategy() {
  OpStrategy s;
  s.schedule = [](const ScheduleContext &ctx) {
    return ctx.out.ndim() == 5 ? ops::schedule_blocked_llvm(ctx.out) : ops::schedule_injective_cpu(ctx.out, ctx.target);
  };
  return s;
}

// Registers the element-wise unary operator `name` computing f(x) on each element (on
// channel-blocked data as it comes); float_only: float inputs only, else any but bool.
// Defined in math.cpp.
void register_unary(const std::string &name, const std::string &doc, bool float_only, std::function<Expr(Expr)> f);

// A one-input operator computed by `fn(x, name)`.
template <typename F>
graph::ComputeFn unary(F fn) {
  return [fn](const Node &, const std::vector<Tensor> &in, const std::string &name) { return fn(in[0], name); };
}

}  // namespace tensorir::ops::defs

namespace tensorir::ops::defs {

// Round half to even: floor(x), plus 1 above the half, plus floor(x) mod 2 at it.
inline Expr round_even(Expr x) {
  Expr r = floor(x), d = x - r;
  Expr one = make_const(x.type(), 1), half = make_const(x.type(), 0.5), two = make_const(x.type(), 2);
  // An infinity's fraction is NaN: neither above nor at one half, it stays as it is.
  return select(d > half, r + one, select(d == half, r + (r - two * floor(r / two)), r));
}

// The weights of cubic convolution with coefficient a (-0.75 or -0.5, as in image
// resizing) of the neighbours floor(p) - 1 ... floor(p) + 2 of a position p whose
// fraction is t, in t's type: at distance x <= 1, (a + 2)x^3 - (a + 3)x^2 + 1; at
// 1 < x < 2, ax^3 - 5ax^2 + 8ax - 4a.
inline void cubic_weights(Expr t, double a, Expr w[4]) {
  auto c = [&](double v) { return make_const(t.type(), v); };
  auto near = [&](Expr x) { return (c(a + 2) * x - c(a + 3)) * x * x + c(1); };
  auto far = [&](Expr x) { return ((c(a) * x - c(5 * a)) * x + c(8 * a)) * x - c(4 * a); };
  w[0] = far(c(1) + t);
  w[1] = near(t);
  w[2] = near(c(1) - t);
  w[3] = far(c(2) - t);
}

// Every input of `n` has the first input's dtype.
inline void check_same_dtypes(const Node &, const std::vector<const Node *> &in) {
  for (size_t i = 1; i < in.size(); ++i)
    TIR_USER_CHECK(in[i]->dtype == in[0]->dtype)
        << "input '" << in[i]->name << "' is " << in[i]->dtype << " but input '" << in[0]->name << "' is "
        << in[0]->dtype;
}

}  // namespace tensorir::ops::defs
