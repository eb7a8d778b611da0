// The arithmetic simplifier: exact short forms for index math, floor division and
// modulo, decisions under ranges, constant folding, statements, and a randomized
// comparison against a reference interpreter.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <map>
#include <sstream>

#include "arith_reference.h"
#include "tensorir/arith/simplify.h"
#include "tensorir/ir/op.h"
#include "tensorir/ir/printer.h"
#include "tensorir/ir/structural.h"

using namespace tensorir;

namespace {

// [lo, hi] for a variable.
Interval iv(Expr lo, Expr hi) { return {lo, hi}; }

void check_simplifies(const Expr &in, const Expr &expected, const VarRanges &ranges = {}) {
  Expr out = simplify(in, ranges);
  INFO("input:    " << in);
  INFO("result:   " << out);
  INFO("expected: " << expected);
  CHECK(structural_equal(out, expected));
}

Expr t() { return make_const(Bool(), 1); }
Expr f() { return make_const(Bool(), 0); }

}  // namespace

TEST_CASE("simplify: floor division and modulo of affine sums", "[arith]") {
  Var x("x"), y("y");
  // floor((4x + 3) / 4) = x for every integer x, negative ones included.
  check_simplifies(DivNode::make(AddNode::make(MulNode::make(x, 4), 3), 4), x);
  check_simplifies(DivNode::make(AddNode::make(MulNode::make(x, 4), 3), 4), x, {{x.get(), iv(0, Expr())}});
  VarRanges ry{{y.get(), iv(0, 7)}};
  check_simplifies(floormod(x * 8 + y, 8), y, ry);
  check_simplifies(floordiv(x * 8 + y, 8), x, ry);
  // Without the range of y only the divisible part comes out.
  check_simplifies(floordiv(x * 8 + y, 8), x + floordiv(y, 8));
  check_simplifies(floormod(x * 8 + y, 8), floormod(y, 8));
  // An offset below the terms' common factor g never carries past a multiple of g, for
  // any x: (4x + 3) / 32 = x / 8 and (4x + 3) % 32 = (x % 8)*4 + 3.
  check_simplifies(floordiv(x * 4 + 3, 32), floordiv(x, 8));
  check_simplifies(floormod(x * 4 + 3, 32), floormod(x, 8) * 4 + 3);
  check_simplifies(floordiv(x * 8 + y * 4 + 1, 16), floordiv(x * 2 + y, 4));
  // g is the common factor of the terms and the divisor; an offset of g or more carries.
  check_simplifies(floordiv(x * 4 + 1, 6), floordiv(x * 2, 3));
  check_simplifies(floordiv(x * 4 + 4, 32), floordiv(x + 1, 8));
  check_simplifies(floordiv(x * 4 + 1, 3), floordiv(x * 4 + 1, 3));
}

TEST_CASE("simplify: canonical sums for index math", "[arith]") {
  Var i("i"), j("j"), k("k"), x("x"), a("a"), b("b");
  // The flattened form i*96 + j*1 + 0 comes out as ((i*96) + j).
  Expr flat = AddNode::make(AddNode::make(MulNode::make(i, 96), MulNode::make(j, 1)), 0);
  Expr out = simplify(flat);
  CHECK(to_string(out) == "((i*96) + j)");
  check_simplifies(SubNode::make(AddNode::make(MulNode::make(i, 96), j), MulNode::make(i, 96)), j);
  check_simplifies(SubNode::make(AddNode::make(MulNode::make(x, 4), 3), MulNode::make(x, 4)), Expr(3));
  check_simplifies(AddNode::make(AddNode::make(k, 0), 1), k + 1);
  check_simplifies(MulNode::make(x, 1), x);
  check_simplifies(AddNode::make(x, 0), x);
  check_simplifies(MulNode::make(Expr(0), x), Expr(0));
  // Like terms merge; constants go last; products of a variable and constants merge.
  check_simplifies(AddNode::make(AddNode::make(MulNode::make(MulNode::make(x, 2), 3), 5), AddNode::make(x, 1)),
                   x * 7 + 6);
  // Negative coefficients read as subtraction.
  check_simplifies(SubNode::make(a, MulNode::make(b, 2)), SubNode::make(a, MulNode::make(b, 2)));
  check_simplifies(AddNode::make(MulNode::make(b, -2), a), SubNode::make(a, MulNode::make(b, 2)));
  check_simplifies(AddNode::make(3, MulNode::make(b, -2)), SubNode::make(3, MulNode::make(b, 2)));
  check_simplifies(SubNode::make(AddNode::make(a, 5), 7), SubNode::make(a, 2));
  // Distribution lets products cancel: (i + 1)*n - i*n = n.
  Var n("n");
  check_simplifies(SubNode::make(MulNode::make(AddNode::make(i, 1), n), MulNode::make(i, n)), n);
  check_simplifies(SubNode::make(MulNode::make(i, n), MulNode::make(n, i)), Expr(0));
  // Fused then split loops: (f/16)*16 + f%16 = f, and f - (f/16)*16 = f%16.
  check_simplifies(floordiv(x, 16) * 16 + floormod(x, 16), x);
  check_simplifies(x - floordiv(x, 16) * 16, floormod(x, 16));
  // Term order follows first appearance, so results are stable.
  CHECK(to_string(simplify(AddNode::make(j, MulNode::make(i, 3)))) == "(j + (i*3))");
  CHECK(to_string(simplify(AddNode::make(MulNode::make(i, 3), j))) == "((i*3) + j)");
  // Simplifying twice changes nothing.
  Expr e = simplify(floordiv(x * 6 + a * 4 - 3, 2) + min(a, b) * 3 - b);
  CHECK(structural_equal(simplify(e), e));
}

TEST_CASE("simplify: division and modulo rules", "[arith]") {
  Var x("x"), y("y"), z("z");
  check_simplifies(floordiv(floordiv(x, 4), 8), floordiv(x, 32));
  check_simplifies(floormod(floormod(x, 8), 4), floormod(x, 4));
  check_simplifies(floordiv(MulNode::make(y, 6), 6), y);
  check_simplifies(floormod(MulNode::make(y, 6), 6), Expr(0));
  check_simplifies(floordiv(x * 6 + y * 4, 2), x * 3 + y * 2);
  // A common factor of numerator and divisor cancels.
  check_simplifies(floordiv(x * 2, 4), floordiv(x, 2));
  check_simplifies(floormod(x * 2, 4), floormod(x, 2) * 2);
  VarRanges r{{x.get(), iv(0, 15)}, {z.get(), iv(-8, -1)}};
  check_simplifies(floordiv(x, 16), Expr(0), r);
  check_simplifies(floormod(x, 16), x, r);
  check_simplifies(floordiv(x, 32), Expr(0), r);
  check_simplifies(floordiv(z, 8), Expr(-1), r);
  check_simplifies(floormod(z, 8), z + 8, r);
  check_simplifies(floordiv(x + 16, 16), Expr(1), r);
  // Divisors of 1, constant operands, and a symbolic divisor known to be positive.
  check_simplifies(floordiv(x, 1), x);
  check_simplifies(floormod(x, 1), Expr(0));
  check_simplifies(floordiv(Expr(-7), Expr(2)), Expr(-4));
  check_simplifies(floormod(Expr(-7), Expr(2)), Expr(1));
  Var n("n"), i("i"), j("j");
  VarRanges rn{{i.get(), iv(0, n - 1)}, {j.get(), iv(0, n - 1)}};
  check_simplifies(floordiv(i * n + j, n), i, rn);
  check_simplifies(floormod(i * n + j, n), j, rn);
  check_simplifies(floordiv(j, n), Expr(0), rn);
  check_simplifies(floormod(j, n), j, rn);
  // x / 0 and x % 0 are 0, as at run time.
  check_simplifies(DivNode::make(Expr(4), Expr(0)), Expr(0));
  check_simplifies(ModNode::make(i * 3, Expr(0)), Expr(0));
}

TEST_CASE("simplify: min, max and comparisons under ranges", "[arith]") {
  Var i("i"), x("x"), y("y"), n("n");
  VarRanges r{{i.get(), iv(0, 63)}};
  check_simplifies(min(i, 100), i, r);
  check_simplifies(max(i, 100), Expr(100), r);
  check_simplifies(LTNode::make(i, 128), t(), {{i.get(), iv(0, 127)}});
  check_simplifies(LTNode::make(i, 127), LTNode::make(i, 127), {{i.get(), iv(0, 127)}});
  check_simplifies(GENode::make(i, 0), t(), r);
  check_simplifies(GTNode::make(i, 63), f(), r);
  check_simplifies(max(x, x), x);
  check_simplifies(min(x + 1, x), x);
  check_simplifies(max(x + 1, x), x + 1);
  check_simplifies(min(min(x, 3), 5), min(x, 3));
  check_simplifies(min(Expr(4), x), min(x, 4));
  check_simplifies(EQNode::make(x, x), t());
  check_simplifies(NENode::make(x, x), f());
  check_simplifies(LTNode::make(x + 1, x), f());
  // Like terms cancel across the comparison.
  check_simplifies(LTNode::make(x * 4 + y, x * 4 + 8), LTNode::make(y, 8));
  // No integer solution: 2x == 2y + 1 is false.
  check_simplifies(EQNode::make(x * 2, y * 2 + 1), f());
  // Symbolic ranges: i in [0, n - 1] gives i < n.
  VarRanges rn{{i.get(), iv(0, n - 1)}};
  check_simplifies(LTNode::make(i, n), t(), rn);
  check_simplifies(min(i, n - 1), i, rn);
  // A range that depends on another ranged variable (a triangle).
  Var j("j");
  VarRanges tri{{i.get(), iv(0, n - 1)}, {j.get(), iv(0, i)}, {n.get(), iv(1, 1024)}};
  CHECK(can_prove(LTNode::make(j, n), tri));
  CHECK(can_prove(LENode::make(j + 1, 1024), tri));
  CHECK_FALSE(can_prove(LTNode::make(j, 1023), tri));
  // The main part of a split loop: io < n/8 and ii < 8 give io*8 + ii < n; the tail does not.
  Var io("io"), ii("ii");
  CHECK(can_prove(io * 8 + ii < n, {{io.get(), iv(0, floordiv(n, 8) - 1)}, {ii.get(), iv(0, 7)}}));
  CHECK_FALSE(can_prove(io * 8 + ii < n, {{io.get(), iv(0, floordiv(n + 7, 8) - 1)}, {ii.get(), iv(0, 7)}}));
  CHECK(can_prove(LTNode::make(floormod(x, 8), 8)));
  CHECK(can_prove(GENode::make(floormod(x, 8), 0)));
  CHECK_FALSE(can_prove(LTNode::make(x, 8)));
}

TEST_CASE("simplify: logic and select", "[arith]") {
  Var x("x"), y("y");
  Expr c = LTNode::make(x, y);
  check_simplifies(AndNode::make(c, t()), c);
  check_simplifies(AndNode::make(c, f()), f());
  check_simplifies(OrNode::make(c, t()), t());
  check_simplifies(OrNode::make(f(), c), c);
  check_simplifies(NotNode::make(NotNode::make(c)), c);
  check_simplifies(NotNode::make(c), GENode::make(x, y));
  check_simplifies(AndNode::make(c, NotNode::make(c)), f());
  check_simplifies(SelectNode::make(t(), x, y), x);
  check_simplifies(SelectNode::make(f(), x, y), y);
  check_simplifies(SelectNode::make(c, x + 1, 1 + x), x + 1);
  VarRanges r{{x.get(), iv(0, 9)}};
  check_simplifies(SelectNode::make(LTNode::make(x, 10), x, y), x, r);
  check_simplifies(SelectNode::make(GENode::make(x, 10), x, y), y, r);
}

TEST_CASE("simplify: constant folding", "[arith]") {
  check_simplifies(AddNode::make(Expr(2), Expr(3)), Expr(5));
  check_simplifies(MulNode::make(Expr(-7), Expr(6)), Expr(-42));
  // int32 wraps at its width.
  check_simplifies(AddNode::make(Expr(2147483647), Expr(1)), Expr(-2147483647 - 1));
  Expr u8a = IntImmNode::make(UInt(8), 250), u8b = IntImmNode::make(UInt(8), 10);
  check_simplifies(AddNode::make(u8a, u8b), IntImmNode::make(UInt(8), 4));
  Expr i8a = IntImmNode::make(Int(8), 100);
  check_simplifies(AddNode::make(i8a, i8a), IntImmNode::make(Int(8), -56));
  check_simplifies(AddNode::make(Expr(1.5f), Expr(2.25f)), Expr(3.75f));
  check_simplifies(DivNode::make(Expr(1.0f), Expr(4.0f)), Expr(0.25f));
  check_simplifies(MinNode::make(Expr(1.5f), Expr(-2.0f)), Expr(-2.0f));
  check_simplifies(LTNode::make(Expr(1.5f), Expr(2.0f)), t());
  check_simplifies(LENode::make(Expr(3), Expr(2)), f());
  check_simplifies(AndNode::make(t(), f()), f());
  check_simplifies(OrNode::make(t(), f()), t());
  check_simplifies(NotNode::make(f()), t());
  check_simplifies(CastNode::make(Float(32), Expr(3)), Expr(3.0f));
  check_simplifies(CastNode::make(Int(32), Expr(-3.75f)), Expr(-3));
  check_simplifies(CastNode::make(Int(8), Expr(300)), IntImmNode::make(Int(8), 44));
  check_simplifies(CastNode::make(Int(64), Expr(7)), IntImmNode::make(Int(64), 7));
  check_simplifies(MaxNode::make(Expr(-3), Expr(4)), Expr(4));
  check_simplifies(SelectNode::make(LTNode::make(Expr(1), Expr(2)), Expr(10), Expr(20)), Expr(10));
  // float32 rounding: 0.1f + 0.2f is computed in float, not double.
  Expr sum = simplify(AddNode::make(Expr(0.1f), Expr(0.2f)));
  REQUIRE(sum.as<FloatImmNode>());
  CHECK(sum.as<FloatImmNode>()->value == static_cast<double>(0.1f + 0.2f));
}

TEST_CASE("simplify: floats keep their order of operations", "[arith]") {
  Var a("a", Float(32)), b("b", Float(32));
  check_simplifies(MulNode::make(a, Expr(1.0f)), a);
  check_simplifies(AddNode::make(a, Expr(0.0f)), a);
  // No reassociation: (a + b) - b stays.
  Expr e = SubNode::make(AddNode::make(a, b), b);
  check_simplifies(e, e);
  // a*0 is NaN for an infinite a: kept.
  Expr z = MulNode::make(a, Expr(0.0f));
  check_simplifies(z, z);
  check_simplifies(AddNode::make(AddNode::make(Expr(1.0f), Expr(2.0f)), a), AddNode::make(Expr(3.0f), a));
}

TEST_CASE("simplify: vector forms", "[arith]") {
  Var x("x"), y("y");
  check_simplifies(BroadcastNode::make(2, 4) + BroadcastNode::make(3, 4), BroadcastNode::make(5, 4));
  check_simplifies(AddNode::make(RampNode::make(x, 1, 4), BroadcastNode::make(y, 4)),
                   RampNode::make(x + y, 1, 4));
  check_simplifies(MulNode::make(RampNode::make(x, 1, 4), BroadcastNode::make(Expr(4), 4)),
                   RampNode::make(x * 4, 4, 4));
  check_simplifies(AddNode::make(RampNode::make(x, 1, 4), RampNode::make(y, 2, 4)), RampNode::make(x + y, 3, 4));
  check_simplifies(RampNode::make(x, 0, 4), BroadcastNode::make(x, 4));
  // A vectorized inner loop of a split: (xo*8 + ramp(0, 1, 8)) / 8 and % 8.
  Expr ramp = RampNode::make(x * 8, 1, 8);
  check_simplifies(DivNode::make(ramp, BroadcastNode::make(8, 8)), BroadcastNode::make(x, 8));
  check_simplifies(ModNode::make(ramp, BroadcastNode::make(8, 8)), RampNode::make(0, 1, 8));
  // A vector loop's tail guard, decided for every lane at once.
  VarRanges r{{x.get(), {0, 10}}};
  check_simplifies(LTNode::make(RampNode::make(x * 8, 1, 8), BroadcastNode::make(88, 8)), make_const(Bool(8), 1), r);
  check_simplifies(GENode::make(RampNode::make(x * 8, 1, 8), BroadcastNode::make(88, 8)), make_const(Bool(8), 0), r);
  Expr open = LTNode::make(RampNode::make(x * 8, 1, 8), BroadcastNode::make(80, 8));
  check_simplifies(open, open, r);
}

TEST_CASE("simplify: let", "[arith]") {
  Var x("x"), y("y"), v("v");
  check_simplifies(LetNode::make(v, Expr(3), v * 2 + x), x + 6);
  check_simplifies(LetNode::make(v, y, v + x), y + x);
  // A let whose variable is not used disappears.
  check_simplifies(LetNode::make(v, x * y, x + 1), x + 1);
  // The let variable's value is known inside: v > x*4, so min(v, x*4) = x*4 and v is unused.
  check_simplifies(LetNode::make(v, x * 4 + 1, min(v, x * 4)), x * 4);
  Expr kept = LetNode::make(v, x * y, v * v);
  check_simplifies(kept, kept);
}

TEST_CASE("simplify: a fold the ranges decide keeps a checked index, which may fail the call", "[arith]") {
  Var k("k", Int(64)), v("v"), i("i");
  const Expr one = checked_index(k, 1, "one"), four = checked_index(k, 4, "four");
  // checked_index(k, 1) is 0 whenever the call goes on, but k must still be checked.
  check_simplifies(EQNode::make(one, v), EQNode::make(one, v), {{v.get(), iv(0, 0)}});
  check_simplifies(LTNode::make(four, 4), LTNode::make(four, 4));
  check_simplifies(MinNode::make(four, -1), MinNode::make(four, -1));
  check_simplifies(MulNode::make(four, 0), MulNode::make(four, 0));
  check_simplifies(SubNode::make(four, four), SubNode::make(four, four));
  check_simplifies(DivNode::make(four, 4), DivNode::make(four, 4));
  check_simplifies(DivNode::make(AddNode::make(MulNode::make(i, 8), four), 8),
                   AddNode::make(i, DivNode::make(four, 8)));
  check_simplifies(LetNode::make(v, four, i), LetNode::make(v, four, i));
  check_simplifies(LTNode::make(AddNode::make(four, i), AddNode::make(four, 4)),
                   LTNode::make(AddNode::make(four, i), AddNode::make(four, 4)));
  check_simplifies(SubNode::make(AddNode::make(four, one), four), SubNode::make(AddNode::make(four, one), four));
  // A remainder without a check is still dropped: (8i + j) / 8 is i for j in [0, 8),
  // and (8 four + j) / 8 is four.
  check_simplifies(DivNode::make(AddNode::make(MulNode::make(four, 8), v), 8), four, {{v.get(), iv(0, 7)}});
  // The folds that keep it still apply: min(four, 3) is four, and so is max(four, -1).
  check_simplifies(MinNode::make(four, 3), four);
  check_simplifies(MaxNode::make(four, -1), four);
  // A question about a condition uses the range: the proof of a read in bounds.
  CHECK(can_prove(LTNode::make(four, 4)));
  CHECK(can_prove(GENode::make(AddNode::make(MulNode::make(i, 4), four), 0), {{i.get(), iv(0, 9)}}));
  CHECK(can_prove(EQNode::make(one, v), {{v.get(), iv(0, 0)}}));
}

TEST_CASE("simplify: statements", "[arith]") {
  Var A("A", Handle()), i("i"), j("j"), n("n");
  auto store = [&](Expr v, Expr idx) { return StoreNode::make(A, v, idx); };

  SECTION("loop ranges reach the body") {
    Stmt body = IfThenElseNode::make(LTNode::make(i, 16), store(floordiv(i * 4 + j, 4), j + i * 0));
    Stmt s = ForNode::make(i, 0, 16, ForKind::Serial, ForNode::make(j, 0, 4, ForKind::Serial, body));
    Stmt expect = ForNode::make(i, 0, 16, ForKind::Serial, ForNode::make(j, 0, 4, ForKind::Serial, store(i, j)));
    Stmt out = simplify(s);
    INFO(out);
    CHECK(structural_equal(out, expect));
  }
  SECTION("loops of extent 0 vanish, loops of extent 1 become their body") {
    Stmt zero = ForNode::make(i, 0, 0, ForKind::Serial, store(1, i));
    Stmt one = ForNode::make(j, 5, 1, ForKind::Serial, store(2, j + 1));
    Stmt s = BlockNode::make({zero, one, store(3, 0)});
    Stmt out = simplify(s);
    INFO(out);
    CHECK(structural_equal(out, BlockNode::make({store(2, 6), store(3, 0)})));
    Stmt only_zero = simplify(zero);
    REQUIRE(only_zero.as<EvaluateNode>());
    CHECK(is_const_int(only_zero.as<EvaluateNode>()->value, 0));
  }
  SECTION("branches decided by ranges are removed") {
    Stmt s = ForNode::make(i, 0, n, ForKind::Serial,
                           IfThenElseNode::make(LTNode::make(i, n), store(1, i), store(2, i)));
    Stmt out = simplify(s);
    INFO(out);
    CHECK(structural_equal(out, ForNode::make(i, 0, n, ForKind::Serial, store(1, i))));
    Stmt never = IfThenElseNode::make(GENode::make(i, 8), store(1, i), store(2, i));
    Stmt out2 = simplify(never, {{i.get(), iv(0, 7)}});
    CHECK(structural_equal(out2, store(2, i)));
  }
  SECTION("the then-branch may assume its condition") {
    Stmt s = ForNode::make(i, 0, 100, ForKind::Serial,
                           IfThenElseNode::make(LTNode::make(i, 10), store(min(i, 20), 0), store(max(i, 5), 1)));
    Stmt out = simplify(s);
    INFO(out);
    CHECK(structural_equal(out, ForNode::make(i, 0, 100, ForKind::Serial,
                                              IfThenElseNode::make(LTNode::make(i, 10), store(i, 0), store(i, 1)))));
  }
  SECTION("asserts that hold are dropped, let statements record their value") {
    Var v("v");
    Stmt s = AssertStmtNode::make(GENode::make(i, 0), "i is negative",
                                  LetStmtNode::make(v, i * 4, store(min(v, i * 4 + 8), j)));
    Stmt out = simplify(s, {{i.get(), iv(0, 7)}});
    INFO(out);
    CHECK(structural_equal(out, LetStmtNode::make(v, i * 4, store(v, j))));
    Stmt kept = AssertStmtNode::make(LTNode::make(i, n), "i out of range", store(1, i));
    CHECK(structural_equal(simplify(kept), kept));
  }
  SECTION("thread extents bound their index") {
    Var tx("threadIdx.x");
    IterVar iv = IterVar::make(Range(0, 64), tx, IterVarType::ThreadIndex, "threadIdx.x");
    Stmt s = AttrStmtNode::make(iv, "thread_extent", Expr(64),
                                IfThenElseNode::make(LTNode::make(tx, 64), store(floormod(tx, 64), tx)));
    Stmt out = simplify(s);
    INFO(out);
    CHECK(structural_equal(out, AttrStmtNode::make(iv, "thread_extent", Expr(64), store(tx, tx))));
  }
  SECTION("tensor-level statements and reductions") {
    Var k("k");
    IterVar rk = IterVar::make(Range(0, 16), k, IterVarType::Reduce);
    Stmt p = ProvideNode::make(nullptr, 0, "C", Expr(1), {floordiv(i * 8 + 3, 8), AddNode::make(j, 0)});
    Stmt out = simplify(p);
    const auto *pn = out.as<ProvideNode>();
    REQUIRE(pn);
    CHECK(structural_equal(pn->args[0], i));
    CHECK(structural_equal(pn->args[1], j));
    // A reduction's axes bound its source: min(k, 100) is k for k in [0, 16).
    Var l("l"), r("r");
    CommReducer sum(new CommReducerNode({l}, {r}, {l + r}, {Expr(0)}));
    Expr red = ReduceNode::make(sum, {min(k, 100)}, {rk}, Expr(), 0);
    Expr sr = simplify(red);
    REQUIRE(sr.as<ReduceNode>());
    CHECK(structural_equal(sr.as<ReduceNode>()->source[0], k));
  }
  SECTION("allocations and loops with nothing inside go away") {
    Var B("B", Handle());
    Stmt s = AllocateNode::make(B, Float(32), {Expr(16) * 4}, "global",
                                ForNode::make(i, 0, 4, ForKind::Serial, ForNode::make(j, 0, 0, ForKind::Serial, store(1, j))));
    Stmt out = simplify(s);
    REQUIRE(out.as<EvaluateNode>());
    Stmt alloc = AllocateNode::make(B, Float(32), {AddNode::make(Expr(16), Expr(48))}, "global", store(1, 0));
    Stmt out2 = simplify(alloc);
    REQUIRE(out2.as<AllocateNode>());
    CHECK(is_const_int(out2.as<AllocateNode>()->extents[0], 64));
  }
}

// ---------------------------------------------------------------- randomized comparison
TEST_CASE("simplify: random integer expressions keep their values", "[arith][random]") {
  using namespace arith_ref;
  Var x("x"), y("y"), z("z"), n("n"), w("w");
  std::vector<RangedVar> vars = {
      {x, -10, 10, true}, {y, 0, 7, true}, {z, 0, 15, true}, {n, 1, 9, true}, {w, -20, 20, false}};
  int changed = 0, checked = 0;
  for (uint32_t seed = 1; seed <= 3000; ++seed) {
    ExprGen gen(seed, vars);
    Expr e = gen.gen(4);
    Expr s = simplify(e, gen.ranges());
    if (!structural_equal(e, s)) ++changed;
    for (int k = 0; k < 24; ++k) {
      Env env = gen.sample();
      bool bad = false;
      int64_t want = eval(e, env, &bad);
      if (bad) continue;
      bool bad_s = false;
      int64_t got = eval(s, env, &bad_s);
      INFO("seed " << seed << "\n  input:      " << e << "\n  simplified: " << s);
      INFO("x=" << env[x.get()] << " y=" << env[y.get()] << " z=" << env[z.get()] << " n=" << env[n.get()]
                << " w=" << env[w.get()]);
      REQUIRE_FALSE(bad_s);
      REQUIRE(got == want);
      ++checked;
    }
  }
  // The test must exercise the simplifier, not just evaluate untouched trees.
  CHECK(changed > 1000);
  CHECK(checked > 30000);
}

TEST_CASE("simplify: random boolean expressions keep their values", "[arith][random]") {
  using namespace arith_ref;
  Var x("x"), y("y"), w("w");
  std::vector<RangedVar> vars = {{x, 0, 12, true}, {y, -5, 5, true}, {w, -20, 20, false}};
  int decided = 0;
  for (uint32_t seed = 1; seed <= 1500; ++seed) {
    ExprGen gen(seed, vars);
    Expr e = gen.gen_bool(3);
    Expr s = simplify(e, gen.ranges());
    if (s.as<IntImmNode>()) ++decided;
    // can_prove never claims what a sample refutes.
    bool proved = can_prove(e, gen.ranges());
    for (int k = 0; k < 16; ++k) {
      Env env = gen.sample();
      bool bad = false;
      int64_t want = eval(e, env, &bad);
      if (bad) continue;
      bool bad_s = false;
      int64_t got = eval(s, env, &bad_s);
      INFO("seed " << seed << "\n  input:      " << e << "\n  simplified: " << s);
      REQUIRE(got == want);
      if (proved) REQUIRE(want == 1);
    }
  }
  CHECK(decided > 50);
}

// ---------------------------------------------------------------- randomized statements
namespace {

using StoreLog = std::vector<std::pair<int64_t, int64_t>>;

// Runs a statement, recording every store (index, value) in order.
void run(const Stmt &s, arith_ref::Env &env, StoreLog &log, bool *bad) {
  if (!s.defined()) return;
  if (auto *n = s.as<BlockNode>()) {
    for (const Stmt &x : n->stmts) run(x, env, log, bad);
  } else if (auto *n = s.as<ForNode>()) {
    int64_t mn = arith_ref::eval(n->min, env, bad), ext = arith_ref::eval(n->extent, env, bad);
    for (int64_t v = mn; v < mn + ext; ++v) {
      env[n->loop_var.get()] = v;
      run(n->body, env, log, bad);
    }
    env.erase(n->loop_var.get());
  } else if (auto *n = s.as<IfThenElseNode>()) {
    if (arith_ref::eval(n->condition, env, bad))
      run(n->then_case, env, log, bad);
    else
      run(n->else_case, env, log, bad);
  } else if (auto *n = s.as<LetStmtNode>()) {
    env[n->var.get()] = arith_ref::eval(n->value, env, bad);
    run(n->body, env, log, bad);
    env.erase(n->var.get());
  } else if (auto *n = s.as<StoreNode>()) {
    int64_t v = arith_ref::eval(n->value, env, bad), i = arith_ref::eval(n->index, env, bad);
    log.push_back({i, v});
  } else if (auto *n = s.as<AssertStmtNode>()) {
    if (!arith_ref::eval(n->condition, env, bad)) log.push_back({-999999, -999999});
    run(n->body, env, log, bad);
  } else if (!s.as<EvaluateNode>()) {
    FAIL("unexpected statement " << s);
  }
}

class StmtGen {
 public:
  StmtGen(uint32_t seed, std::vector<arith_ref::RangedVar> params) : g_(seed, std::move(params)) {}
  arith_ref::ExprGen &exprs() { return g_; }

  Stmt gen(int depth) {
    int k = depth <= 0 ? 4 : g_.pick(7);
    switch (k) {
      case 0: case 1: {
        Var v("i" + std::to_string(depth));
        Expr mn = g_.pick(2) ? Expr(static_cast<int>(g_.in(-3, 3))) : g_.gen(1);
        Expr ext = g_.pick(3) ? Expr(static_cast<int>(g_.in(0, 4))) : min(max(g_.gen(1), 0), 5);
        g_.push({v, 0, 0, false});
        Stmt body = gen(depth - 1);
        g_.pop();
        return ForNode::make(v, mn, ext, ForKind::Serial, body);
      }
      case 2: {
        Expr c = g_.gen_bool(1);
        Stmt t = gen(depth - 1);
        Stmt e = g_.pick(2) ? gen(depth - 1) : Stmt();
        return IfThenElseNode::make(c, t, e);
      }
      case 3: {
        Var v("v" + std::to_string(depth));
        Expr val = g_.gen(2);
        g_.push({v, 0, 0, false});
        Stmt body = gen(depth - 1);
        g_.pop();
        return LetStmtNode::make(v, val, body);
      }
      case 4: return StoreNode::make(buf_, g_.gen(2), g_.gen(2));
      case 5: return AssertStmtNode::make(g_.gen_bool(1), "check", gen(depth - 1));
      default: return BlockNode::make({gen(depth - 1), gen(depth - 1)});
    }
  }

 private:
  arith_ref::ExprGen g_;
  Var buf_{"buf", Handle()};
};

}  // namespace

TEST_CASE("simplify: random statements store the same values", "[arith][random]") {
  using namespace arith_ref;
  Var x("x"), w("w");
  int changed = 0, compared = 0;
  for (uint32_t seed = 1; seed <= 1500; ++seed) {
    StmtGen gen(seed, {{x, -5, 5, true}, {w, -9, 9, false}});
    Stmt s = gen.gen(4);
    VarRanges ranges = gen.exprs().ranges();
    Stmt out = simplify(s, ranges);
    if (!structural_equal(s, out)) ++changed;
    for (int k = 0; k < 6; ++k) {
      Env env = gen.exprs().sample();
      StoreLog want, got;
      bool bad = false, bad_s = false;
      Env env2 = env;
      run(s, env, want, &bad);
      if (bad) continue;
      run(out, env2, got, &bad_s);
      INFO("seed " << seed << "\ninput:\n" << s << "simplified:\n" << out);
      INFO("x=" << env[x.get()] << " w=" << env[w.get()]);
      REQUIRE(got == want);
      ++compared;
    }
  }
  CHECK(changed > 500);
  CHECK(compared > 4000);
}

TEST_CASE("simplify: bounds at the edge of the type do not wrap", "[arith]") {
  // An int32 cast of a float spans all of int32: x + 1 may be INT32_MIN after wrapping, but
  // its bound INT32_MAX + 1 must not wrap and "prove" x + 1 <= 0 or x + 1 >= 7.
  Var i("i");
  const VarRanges ri{{i.get(), iv(0, 15)}};
  const Expr x = cast(Int(32), floor(cast(Float(32), i) * 0.5f - 0.25f));
  const Expr clamp = min(max(x + 1, 0), 7);
  check_simplifies(clamp, clamp, ri);
  check_simplifies(min(x + 1, 7), min(x + 1, 7), ri);
  // An int32 of an int64 value against a loop variable: INT32_MIN - 15 must not wrap into a
  // positive lower bound that decides the comparison.
  Var v("v", Int(64));
  const Expr eq = EQNode::make(cast(Int(32), v), i);
  check_simplifies(eq, eq, ri);
  // Bounds well inside the type still decide: the clamp of a value known in [1, 8].
  const Expr small = cast(Int(32), cast(Int(8), i)) + 1;
  check_simplifies(max(small, 0), small, ri);
}

TEST_CASE("float min and max of constants fold to NaN when either is NaN", "[simplify][ir]") {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  auto folded = [](const Expr &e) {
    const auto *f = e.as<FloatImmNode>();
    REQUIRE(f);
    return f->value;
  };
  for (bool nan_first : {true, false}) {
    const Expr a = nan_first ? Expr(nan) : Expr(1.0f), b = nan_first ? Expr(1.0f) : Expr(nan);
    INFO((nan_first ? "NaN first" : "NaN second"));
    CHECK(std::isnan(folded(max(a, b))));
    CHECK(std::isnan(folded(min(a, b))));
    CHECK(std::isnan(folded(simplify(MaxNode::make(a, b)))));
    CHECK(std::isnan(folded(simplify(MinNode::make(a, b)))));
  }
  CHECK(folded(max(Expr(-2.0f), Expr(1.0f))) == 1.0);
  CHECK(folded(simplify(MinNode::make(Expr(-2.0f), Expr(1.0f)))) == -2.0);
}
