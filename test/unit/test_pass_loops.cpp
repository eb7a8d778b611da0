// The loop passes after flattening, each on a loop nest built here and compared with the
// nest it must produce: loop_partition, vectorize_loops, unroll_loops, and simplify on
// the pipeline's kind of input.
#include <catch2/catch.hpp>

#include "pass_check.h"
#include "tensorir/arith/simplify.h"
#include "tensorir/error.h"
#include "tensorir/ir/op.h"
#include "transforms/passes.h"

using namespace tensorir;

namespace {
Stmt loop(const Var &v, Expr min, Expr extent, Stmt body, ForKind kind = ForKind::Serial) {
  return ForNode::make(v, std::move(min), std::move(extent), kind, std::move(body));
}
}  // namespace

TEST_CASE("loop_partition: the guard of a non-dividing split stays only in the tail", "[pass]") {
  // for i.o in [0, 3): for i.i in [0, 4): if (i.o*4 + i.i < 10) A[i.o*4 + i.i] = 1
  Var A("A", Handle()), io("i.o"), ii("i.i");
  Expr idx = io * 4 + ii;
  Expr cond = idx < 10;
  Stmt store = StoreNode::make(A, 1.0f, idx);
  Stmt guarded = IfThenElseNode::make(cond, store);

  SECTION("the outer loop: i.o < 2 never needs the guard, i.o = 2 does") {
    Stmt in = loop(io, 0, 3, loop(ii, 0, 4, guarded));
    // The tail's inner loop is partitioned in turn: i.i < 2 is in range when i.o = 2.
    Stmt expected = BlockNode::make({
        loop(io, 0, 2, loop(ii, 0, 4, store)),
        loop(io, 2, 1, BlockNode::make({loop(ii, 0, 2, store), loop(ii, 2, 2, guarded)})),
    });
    TIR_CHECK_IR(loop_partition(in), expected);
  }
  SECTION("a guard that always holds is dropped without a tail") {
    Stmt in = loop(io, 0, 2, loop(ii, 0, 4, guarded));
    TIR_CHECK_IR(loop_partition(in), loop(io, 0, 2, loop(ii, 0, 4, store)));
  }
  SECTION("other conjuncts of the guard stay in the head") {
    Var n("n");
    Expr both = AndNode::make(cond, ii < n);
    Stmt in = loop(io, 0, 3, loop(ii, 0, 4, IfThenElseNode::make(both, store)));
    Stmt head_guard = IfThenElseNode::make(ii < n, store);
    Stmt tail_inner = BlockNode::make({loop(ii, 0, 2, head_guard), loop(ii, 2, 2, IfThenElseNode::make(both, store))});
    Stmt expected = BlockNode::make({loop(io, 0, 2, loop(ii, 0, 4, head_guard)), loop(io, 2, 1, tail_inner)});
    TIR_CHECK_IR(loop_partition(in), expected);
  }
  SECTION("a guard that fails on the first iteration, or an if with an else, is left alone") {
    Stmt never = loop(io, 0, 3, IfThenElseNode::make(io > 0, store));
    TIR_CHECK_IR(loop_partition(never), never);
    Stmt with_else = loop(io, 0, 3, IfThenElseNode::make(io < 2, store, StoreNode::make(A, 2.0f, io)));
    TIR_CHECK_IR(loop_partition(with_else), with_else);
  }
}

TEST_CASE("loop_partition: a guard on a remainder is tested once an iteration", "[pass]") {
  // Two fused loops, 2 panels x 3 blocks of 4 rows of 10: the last block of each panel
  // is short, so `(f % 3)*4 + i < 10` fails in iterations 2 and 5, in no single stretch.
  Var A("A", Handle()), f("f"), i("i");
  Expr row = f % 3 * 4 + i;
  Stmt store = StoreNode::make(A, 1.0f, row);
  Stmt guarded = IfThenElseNode::make(row < 10, store);
  // Whole blocks run the inner loop without the guard; the short one partitions it.
  Expr whole = simplify(f % 3 * 4 + 3 - 10 < 0);
  Stmt short_block = BlockNode::make({loop(i, 0, 2, store), loop(i, 2, 2, guarded)});

  SECTION("the guard on the loop's remainder") {
    Stmt in = loop(f, 0, 6, loop(i, 0, 4, guarded), ForKind::Parallel);
    Stmt expected = loop(f, 0, 6, IfThenElseNode::make(whole, loop(i, 0, 4, store), short_block), ForKind::Parallel);
    TIR_CHECK_IR(loop_partition(in), expected);
  }
  SECTION("the rows of a block as a loop starting at the remainder") {
    // for (r in [(f % 3)*4, +4)): if (r < 10): the rows computed at the loop of blocks.
    Var r("r");
    Stmt at_rows = StoreNode::make(A, 1.0f, r);
    Stmt in = loop(f, 0, 6, loop(r, f % 3 * 4, 4, IfThenElseNode::make(r < 10, at_rows)));
    Stmt out = loop_partition(in);
    const auto *outer = out.as<ForNode>();
    REQUIRE(outer);
    const auto *test = outer->body.as<IfThenElseNode>();
    REQUIRE(test);
    CHECK(can_prove(test->condition == whole, {{f.get(), {make_const(Int(32), 0), make_const(Int(32), 5)}}}));
    TIR_CHECK_IR(test->then_case, loop(r, f % 3 * 4, 4, at_rows));
  }
  SECTION("a guard the iteration cannot settle stays where it is") {
    // Whether partitioning put a per-iteration test around the body of the loop `s` is.
    auto tested_per_iteration = [](const Stmt &s) {
      Stmt out = loop_partition(s);
      const ForNode *outer = out.as<ForNode>();
      REQUIRE(outer);
      return outer->body.as<IfThenElseNode>() != nullptr;
    };
    // The worst case over i depends on a variable bound inside the loop.
    Var n("n");
    Stmt inner = LetStmtNode::make(n, f % 3 * 4, loop(i, 0, 4, IfThenElseNode::make(n + i < 10, store)));
    CHECK_FALSE(tested_per_iteration(loop(f, 0, 6, inner)));
    // One guard in two places, the second in a loop of unknown extent: it cannot be
    // dropped from the first place alone.
    CHECK_FALSE(tested_per_iteration(loop(f, 0, 6, BlockNode::make({loop(i, 0, 4, guarded), loop(i, 0, n, guarded)}))));
    // One guard on rows starting at the remainder and on rows that do not: the second
    // place is no remainder's guard.
    Var r("r");
    Stmt at_rows = IfThenElseNode::make(r < 10, StoreNode::make(A, 1.0f, r));
    CHECK_FALSE(tested_per_iteration(loop(f, 0, 6, BlockNode::make({loop(r, f % 3 * 4, 4, at_rows), loop(r, f, 8, at_rows)}))));
  }
}

TEST_CASE("vectorize_loops: a vectorized loop becomes Ramp and Broadcast vector code", "[pass]") {
  Var A("A", Handle()), B("B", Handle()), i("i"), x("x", Float(32));
  Type f4 = Float(32).with_lanes(4);
  Expr ramp = RampNode::make(0, 1, 4);

  SECTION("loads and stores of consecutive elements, a scalar broadcast") {
    // for i in [0, 4) vectorized: B[i] = A[i] * x  ==>  B[ramp] = A[ramp] * x4
    Stmt in = loop(i, 0, 4, StoreNode::make(B, MulNode::make(LoadNode::make(Float(32), A, i), x), i), ForKind::Vectorized);
    Stmt expected = StoreNode::make(B, MulNode::make(LoadNode::make(f4, A, ramp), BroadcastNode::make(x, 4)), ramp);
    TIR_CHECK_IR(vectorize_loops(in), expected);
  }
  SECTION("an offset index folds into the ramp's base") {
    Stmt in = loop(i, 0, 4, StoreNode::make(B, LoadNode::make(Float(32), A, i + 8), i), ForKind::Vectorized);
    Stmt expected = StoreNode::make(B, LoadNode::make(f4, A, RampNode::make(8, 1, 4)), ramp);
    TIR_CHECK_IR(vectorize_loops(in), expected);
  }
  SECTION("a vectorized inner loop under a serial one") {
    Var j("j");
    Stmt in = loop(j, 0, 3, loop(i, 0, 4, StoreNode::make(B, x, j * 4 + i), ForKind::Vectorized));
    Stmt expected = loop(j, 0, 3, StoreNode::make(B, BroadcastNode::make(x, 4), RampNode::make(j * 4, 1, 4)));
    TIR_CHECK_IR(vectorize_loops(in), expected);
  }
  SECTION("every lane writing one address cannot be vector code: the loop runs serially") {
    Stmt body = StoreNode::make(B, LoadNode::make(Float(32), A, i), 0);
    TIR_CHECK_IR(vectorize_loops(loop(i, 0, 4, body, ForKind::Vectorized)), loop(i, 0, 4, body));
  }
  SECTION("a loop of one iteration becomes its body at the loop's start") {
    Stmt in = loop(i, 5, 1, StoreNode::make(B, x, i), ForKind::Vectorized);
    TIR_CHECK_IR(vectorize_loops(in), StoreNode::make(B, x, 5));
  }
  SECTION("a loop of 40 lanes runs as two vectors of 16 and one of 8, written out") {
    // Lane counts that are not powers of two legalise badly; the chunks are written out,
    // not looped over, so that each vector's address is a constant offset.
    Stmt in = loop(i, 0, 40, StoreNode::make(B, x, i), ForKind::Vectorized);
    Stmt expected = BlockNode::make({
        StoreNode::make(B, BroadcastNode::make(x, 16), RampNode::make(0, 1, 16)),
        StoreNode::make(B, BroadcastNode::make(x, 16), RampNode::make(16, 1, 16)),
        StoreNode::make(B, BroadcastNode::make(x, 8), RampNode::make(32, 1, 8)),
    });
    TIR_CHECK_IR(vectorize_loops(in), expected);
  }
  SECTION("serial loops are left as they are") {
    Stmt in = loop(i, 0, 4, StoreNode::make(B, x, i));
    CHECK(vectorize_loops(in).same_as(in));
  }
  SECTION("a symbolic extent is an error") {
    Var n("n");
    CHECK_THROWS_AS(vectorize_loops(loop(i, 0, n, StoreNode::make(B, x, i), ForKind::Vectorized)), Error);
  }
}

TEST_CASE("unroll_loops: an unrolled loop becomes copies of its body", "[pass]") {
  Var A("A", Handle()), i("i"), j("j");

  SECTION("one copy per iteration with the loop variable replaced by its value") {
    // for i in [5, 8) unrolled: A[i] = i * 2
    Stmt in = loop(i, 5, 3, StoreNode::make(A, MulNode::make(i, 2), i), ForKind::Unrolled);
    Stmt expected = BlockNode::make({
        StoreNode::make(A, MulNode::make(5, 2), 5),
        StoreNode::make(A, MulNode::make(6, 2), 6),
        StoreNode::make(A, MulNode::make(7, 2), 7),
    });
    TIR_CHECK_IR(unroll_loops(in), expected);
  }
  SECTION("an unrolled loop inside a serial loop keeps the outer variable") {
    Stmt in = loop(j, 0, 4, loop(i, 0, 2, StoreNode::make(A, j, AddNode::make(MulNode::make(j, 2), i)), ForKind::Unrolled));
    Stmt expected = loop(j, 0, 4, BlockNode::make({
        StoreNode::make(A, j, AddNode::make(MulNode::make(j, 2), 0)),
        StoreNode::make(A, j, AddNode::make(MulNode::make(j, 2), 1)),
    }));
    TIR_CHECK_IR(unroll_loops(in), expected);
  }
  SECTION("a symbolic extent is an error naming the loop") {
    Var n("n");
    CHECK_THROWS_WITH(unroll_loops(loop(i, 0, n, StoreNode::make(A, 0, i), ForKind::Unrolled)),
                      Catch::Contains("cannot unroll loop 'i'"));
  }
}

TEST_CASE("simplify: the statement pass folds the index math flattening leaves", "[pass]") {
  // What storage_flatten gives for T[i, j] over a region starting at (0, 0):
  // ((0 * 4) + (i - 0)) * 8 + (j - 0), inside loops over i in [0, 4), j in [0, 8).
  Var T("T", Handle()), i("i"), j("j");
  Expr raw = AddNode::make(MulNode::make(AddNode::make(MulNode::make(0, 4), SubNode::make(i, 0)), 8),
                           SubNode::make(j, 0));
  Stmt in = loop(i, 0, 4, loop(j, 0, 8, IfThenElseNode::make(i < 4, StoreNode::make(T, 0.0f, raw))));
  Stmt expected = loop(i, 0, 4, loop(j, 0, 8, StoreNode::make(T, 0.0f, i * 8 + j)));
  TIR_CHECK_IR(simplify(in), expected);
}
