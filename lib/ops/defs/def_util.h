// Helpers shared by the operator definitions in this folder.
#pragma once
#include <array>
#include <string>
#include <vector>

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


// `s` as the strategy of every kind the CPU schedules apply to (OpDef::strategies).
inline void on_cpu(OpDef &def, const OpStrategy &s) { def.strategies["cpu"] = s; }

// The CPU schedule of operators without one of their own: blocked results as vectors
// of their channel block, in parallel.
inline OpStrategy blocked_cpu_strategy() {
  OpStrategy s;
  s.schedule = [](const ScheduleContext &ctx) { return ops::schedule_blocked_llvm(ctx.out); };
  return s;
}

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
  return select(d > half, r + one, select(d < half, r, r + (r - two * floor(r / two))));
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
