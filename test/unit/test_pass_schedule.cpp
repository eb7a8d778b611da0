// The passes that read a schedule, each compared with what it must produce: inline_stages
// (the bodies with inlined stages substituted), infer_bounds (the region a producer
// computes at its attach point) and schedule_ops (the loop nest, with a split's guard).
#include <catch2/catch.hpp>

#include "pass_check.h"
#include "schedule/schedule_internal.h"
#include "tensorir/arith/simplify.h"
#include "tensorir/ir/op.h"
#include "tensorir/te/schedule.h"

using namespace tensorir;

namespace {
Stmt loop(const IterVar &iv, Expr min, Expr extent, Stmt body) {
  return ForNode::make(iv.var(), std::move(min), std::move(extent), ForKind::Serial, std::move(body));
}
Stmt provide(const Tensor &t, Expr value, std::vector<Expr> args) {
  return ProvideNode::make(Ref<const Object>(t.op().get()), t.value_index(), t.name(), std::move(value), std::move(args));
}
}  // namespace

TEST_CASE("inline_stages: reads of an inlined stage become its body at the read's indices", "[pass]") {
  Tensor A = placeholder({16}, Float(32), "A");
  Tensor T = compute({16}, [&](Var i) { return A(i) * 2.0f; }, "T");
  Tensor B = compute({16}, [&](Var i) { return T(i) + 1.0f; }, "B");
  Schedule s = create_schedule({B});
  s[T].compute_inline();
  EffectiveBodies bodies = inline_stages(s);
  Var i = B.axis(0).var();
  REQUIRE(bodies.at(B.op().get()).size() == 1);
  TIR_CHECK_IR(bodies.at(B.op().get())[0], A(i) * 2.0f + 1.0f);
  // A stage that is not inlined stays a load.
  s[T].compute_root();
  TIR_CHECK_IR(inline_stages(s).at(B.op().get())[0], T(i) + 1.0f);
}

TEST_CASE("infer_bounds: a producer computed inside a tile covers the tile", "[pass]") {
  Tensor A = placeholder({16}, Float(32), "A");
  Tensor T = compute({16}, [&](Var i) { return A(i) * 2.0f; }, "T");
  Tensor B = compute({15}, [&](Var i) { return T(i) + T(i + 1); }, "B");
  Schedule s = create_schedule({B});
  auto [o, in] = s[B].split(B.axis(0), 4);
  s[T].compute_at(s[B], o);
  ScheduleBounds bounds = infer_bounds(s, inline_stages(s));
  // B reads T(o*4 + in) and T(o*4 + in + 1) for in in [0, 4): five elements from o*4.
  const std::vector<Range> &region = bounds.realize.at(T.op().get());
  REQUIRE(region.size() == 1);
  TIR_CHECK_IR(simplify(region[0].min), o.var() * 4);
  TIR_CHECK_IR(simplify(region[0].extent), Expr(5));
  const Range &t_axis = bounds.ranges.at(T.axis(0).get());
  TIR_CHECK_IR(simplify(t_axis.min), o.var() * 4);
  TIR_CHECK_IR(simplify(t_axis.extent), Expr(5));
  // The consumer's own loops: ceil(15 / 4) tiles of 4.
  TIR_CHECK_IR(bounds.ranges.at(o.get()).extent, Expr(4));
  TIR_CHECK_IR(bounds.ranges.at(in.get()).extent, Expr(4));
}

TEST_CASE("schedule_ops: a split loop nest guards the tail of a non-dividing split", "[pass]") {
  Tensor A = placeholder({10}, Float(32), "A");
  Tensor B = compute({10}, [&](Var i) { return A(i) + 1.0f; }, "B");
  Schedule s = create_schedule({B});
  auto [o, in] = s[B].split(B.axis(0), 4);
  EffectiveBodies bodies = inline_stages(s);
  Stmt out = schedule_ops(s, bodies, infer_bounds(s, bodies));
  // for o in [0, 3): for in in [0, 4): if (o*4 + in < 10) B[o*4 + in] = A[o*4 + in] + 1
  Expr idx = o.var() * 4 + in.var();
  Stmt expected = loop(o, 0, 3, loop(in, 0, 4, IfThenElseNode::make(idx < 10, provide(B, A(idx) + 1.0f, {idx}))));
  TIR_CHECK_IR(out, expected);
}

TEST_CASE("schedule_ops: an intermediate stage is realized around its consumer", "[pass]") {
  Tensor A = placeholder({8}, Float(32), "A");
  Tensor T = compute({8}, [&](Var i) { return A(i) * 2.0f; }, "T");
  Tensor B = compute({8}, [&](Var i) { return T(i) + 1.0f; }, "B");
  Schedule s = create_schedule({B});
  EffectiveBodies bodies = inline_stages(s);
  Stmt out = schedule_ops(s, bodies, infer_bounds(s, bodies));
  IterVar ti = T.axis(0), bi = B.axis(0);
  Stmt expected = RealizeNode::make(
      Ref<const Object>(T.op().get()), 0, "T", Float(32), {Range::from_min_extent(0, 8)}, "global",
      BlockNode::make({loop(ti, 0, 8, provide(T, A(ti.var()) * 2.0f, {ti.var()})),
                       loop(bi, 0, 8, provide(B, T(bi.var()) + 1.0f, {bi.var()}))}));
  TIR_CHECK_IR(out, expected);
}
