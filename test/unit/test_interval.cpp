// Interval analysis: exact bounds for index math, symbolic bounds, and a randomized
// check that every sampled value lies inside the computed interval.
#include <catch2/catch.hpp>

#include "arith_reference.h"
#include "tensorir/arith/interval.h"
#include "tensorir/arith/simplify.h"
#include "tensorir/ir/op.h"
#include "tensorir/ir/printer.h"
#include "tensorir/ir/structural.h"
#include "tensorir/ir/visitor.h"

using namespace tensorir;

namespace {

void check_interval(const Expr &e, const VarRanges &r, const Expr &lo, const Expr &hi) {
  Interval got = eval_interval(e, r);
  INFO("expr: " << e);
  INFO("got:  [" << (got.min.defined() ? to_string(got.min) : "-inf") << ", "
                 << (got.max.defined() ? to_string(got.max) : "+inf") << "]");
  if (lo.defined()) {
    REQUIRE(got.min.defined());
    CHECK(structural_equal(got.min, lo));
  } else {
    CHECK_FALSE(got.min.defined());
  }
  if (hi.defined()) {
    REQUIRE(got.max.defined());
    CHECK(structural_equal(got.max, hi));
  } else {
    CHECK_FALSE(got.max.defined());
  }
}

}  // namespace

TEST_CASE("interval: constant ranges", "[arith][interval]") {
  Var x("x"), y("y");
  VarRanges r{{x.get(), {0, 3}}, {y.get(), {0, 7}}};
  check_interval(x * 8 + y, r, 0, 31);
  check_interval(x - y, r, -7, 3);
  check_interval(x * -2, r, -6, 0);
  check_interval(x * y, r, 0, 21);
  check_interval(floordiv(x * 8 + y, 8), r, 0, 3);
  check_interval(floormod(x * 8 + y, 8), r, 0, 7);
  check_interval(floordiv(y - 8, 4), r, -2, -1);
  check_interval(floormod(y, 16), r, 0, 7);
  check_interval(min(x, y), r, 0, 3);
  check_interval(max(x, y - 5), r, 0, 3);
  check_interval(select(x < y, x, y + 10), r, 0, 17);
  check_interval(Expr(42), r, 42, 42);
  // A variable without a range is a point: itself.
  Var w("w");
  check_interval(w + x, r, w, w + 3);
  // The same variable twice is not two independent values.
  check_interval(x - x, r, 0, 0);
  check_interval(x * 4 + y - x * 4, r, 0, 7);
}

TEST_CASE("interval: symbolic bounds", "[arith][interval]") {
  Var i("i"), n("n"), j("j"), m("m");
  VarRanges r{{i.get(), {0, n - 1}}};
  check_interval(i + 1, r, 1, n);
  check_interval(i * 4 + 3, r, 3, n * 4 - 1);
  check_interval(n - i, r, 1, n);
  // A loop nest: i in [0, n), j in [0, 8): i*8 + j in [0, n*8 - 1].
  VarRanges r2{{i.get(), {0, n - 1}}, {j.get(), {0, 7}}};
  check_interval(i * 8 + j, r2, 0, n * 8 - 1);
  // Triangular: j in [0, i], i in [0, n - 1], so j - i in [-(n - 1), 0] and j in [0, n - 1].
  VarRanges tri{{i.get(), {0, n - 1}}, {j.get(), {0, i}}};
  check_interval(j, tri, 0, n - 1);
  check_interval(j - i, tri, 1 - n, 0);
  // A fused axis split back: f in [0, n*16 - 1] gives f/16 in [0, n - 1].
  Var f("f");
  check_interval(floordiv(f, 16), {{f.get(), {0, n * 16 - 1}}}, 0, n - 1);
  check_interval(floormod(f, 16), {{f.get(), {0, n * 16 - 1}}}, 0, 15);
  // Bounds that cannot be ordered stay as min/max.
  VarRanges r3{{i.get(), {0, n}}, {j.get(), {0, m}}};
  check_interval(min(i, j), r3, 0, min(n, m));
  check_interval(max(i, j), r3, 0, max(n, m));
  // Unknown sides are unbounded.
  VarRanges half{{i.get(), {0, Expr()}}};
  check_interval(i + 1, half, 1, Expr());
  check_interval(0 - i, half, Expr(), 0);
  Var A("A", Handle());
  check_interval(LoadNode::make(Int(32), A, i), half, Expr(), Expr());
}

TEST_CASE("interval: union, ranges and casts", "[arith][interval]") {
  Var n("n");
  Interval u = interval_union({Expr(0), Expr(5)}, {Expr(3), Expr(9)});
  CHECK(is_const_int(u.min, 0));
  CHECK(is_const_int(u.max, 9));
  Interval s = interval_union({Expr(0), n}, {Expr(1), n + 1});
  CHECK(is_const_int(s.min, 0));
  CHECK(structural_equal(s.max, n + 1));
  Var m("m");
  Interval mm = interval_union({Expr(0), n}, {Expr(0), m});
  CHECK(structural_equal(mm.max, max(n, m)));
  Interval open = interval_union({Expr(), Expr(3)}, {Expr(0), Expr(1)});
  CHECK_FALSE(open.min.defined());
  CHECK(is_const_int(open.max, 3));

  Interval r = interval_of_range(Range(Expr(2), Expr(10)));
  CHECK(is_const_int(r.min, 2));
  CHECK(is_const_int(r.max, 9));
  Interval rn = interval_of_range(Range::from_min_extent(Expr(0), n));
  CHECK(structural_equal(rn.max, n - 1));

  Var x("x");
  VarRanges rx{{x.get(), {0, 100}}};
  Interval c = eval_interval(cast(Int(64), x), rx);
  CHECK(structural_equal(c.min, IntImmNode::make(Int(64), 0)));
  CHECK(structural_equal(c.max, IntImmNode::make(Int(64), 100)));
  Interval narrow = eval_interval(cast(Int(8), x * 10), rx);
  CHECK(is_const_int(narrow.min, -128));
  CHECK(is_const_int(narrow.max, 127));
  // An int64 variable whose range was written with int32 literals.
  Var x64("x64", Int(64));
  VarRanges r64{{x64.get(), {0, 7}}};
  Interval w = eval_interval(x64 * 2 + 1, r64);
  CHECK(structural_equal(w.min, IntImmNode::make(Int(64), 1)));
  CHECK(structural_equal(w.max, IntImmNode::make(Int(64), 15)));
  CHECK(can_prove(x64 < IntImmNode::make(Int(64), 8), r64));
  Interval b = eval_interval(x < 5, rx);
  CHECK(is_const_int(b.min, 0));
  CHECK(is_const_int(b.max, 1));
}

TEST_CASE("interval: circular ranges do not hang", "[arith][interval]") {
  Var a("a"), b("b"), c("c");
  // a in [b, b], b in [a - 1, a + 1]: nothing sensible to conclude, but an answer comes back.
  VarRanges r{{a.get(), {b, b}}, {b.get(), {a - 1, a + 1}}, {c.get(), {0, c + 1}}};
  Interval i1 = eval_interval(a + b, r);
  Interval i2 = eval_interval(c * 2, r);
  CHECK((!i2.min.defined() || is_const_int(i2.min, 0)));
  CHECK_FALSE(i2.max.defined());
  CHECK_FALSE(can_prove(a < b + 5, r));
  Expr s = simplify(min(a, b + 1) + c, r);
  CHECK(s.defined());
  (void)i1;
}

TEST_CASE("interval: random expressions stay inside their intervals", "[arith][interval][random]") {
  using namespace arith_ref;
  Var x("x"), y("y"), z("z"), n("n"), w("w");
  std::vector<RangedVar> vars = {
      {x, -10, 10, true}, {y, 0, 7, true}, {z, 0, 15, true}, {n, 1, 9, true}, {w, -20, 20, false}};
  int bounded = 0, checked = 0;
  for (uint32_t seed = 1; seed <= 3000; ++seed) {
    ExprGen gen(seed, vars);
    Expr e = gen.gen(4);
    VarRanges ranges = gen.ranges();
    Interval iv = eval_interval(e, ranges);
    if (iv.is_bounded()) ++bounded;
    // Bounds may mention only variables without a range.
    for (const Expr &b : {iv.min, iv.max}) {
      if (!b.defined()) continue;
      INFO("seed " << seed << ": bound " << b << " of " << e);
      REQUIRE_FALSE(uses_var(b, {x, y, z, n}));
    }
    for (int k = 0; k < 24; ++k) {
      Env env = gen.sample();
      bool bad = false;
      int64_t v = eval(e, env, &bad);
      if (bad) continue;
      INFO("seed " << seed << "\n  expr: " << e << "\n  value: " << v);
      if (iv.min.defined()) {
        bool bad_b = false;
        int64_t lo = eval(iv.min, env, &bad_b);
        INFO("  lower bound: " << iv.min << " = " << lo);
        REQUIRE(lo <= v);
      }
      if (iv.max.defined()) {
        bool bad_b = false;
        int64_t hi = eval(iv.max, env, &bad_b);
        INFO("  upper bound: " << iv.max << " = " << hi);
        REQUIRE(v <= hi);
      }
      ++checked;
    }
  }
  CHECK(bounded > 1500);
  CHECK(checked > 30000);
}

TEST_CASE("interval: random ranges that depend on each other", "[arith][interval][random]") {
  using namespace arith_ref;
  // i in [0, n - 1], j in [i, i + 3], n in [1, 12]: sampled consistently.
  Var i("i"), j("j"), n("n");
  VarRanges ranges{{n.get(), {1, 12}}, {i.get(), {0, n - 1}}, {j.get(), {i, i + 3}}};
  std::mt19937 rng(7);
  auto in = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  std::vector<RangedVar> vars = {{i, 0, 0, false}, {j, 0, 0, false}, {n, 0, 0, false}};
  int tight = 0;
  for (uint32_t seed = 1; seed <= 1500; ++seed) {
    ExprGen gen(seed, vars);
    Expr e = gen.gen(3);
    Interval iv = eval_interval(e, ranges);
    if (iv.is_bounded() && iv.min.as<IntImmNode>() && iv.max.as<IntImmNode>()) ++tight;
    for (int k = 0; k < 24; ++k) {
      Env env;
      env[n.get()] = in(1, 12);
      env[i.get()] = in(0, env[n.get()] - 1);
      env[j.get()] = in(env[i.get()], env[i.get()] + 3);
      bool bad = false;
      int64_t v = eval(e, env, &bad);
      if (bad) continue;
      INFO("seed " << seed << "\n  expr: " << e << "\n  value: " << v << " at i=" << env[i.get()]
                   << " j=" << env[j.get()] << " n=" << env[n.get()]);
      if (iv.min.defined()) {
        REQUIRE(iv.min.as<IntImmNode>());
        REQUIRE(iv.min.as<IntImmNode>()->value <= v);
      }
      if (iv.max.defined()) {
        REQUIRE(iv.max.as<IntImmNode>());
        REQUIRE(v <= iv.max.as<IntImmNode>()->value);
      }
    }
  }
  CHECK(tight > 700);
}
