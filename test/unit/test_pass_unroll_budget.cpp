// unroll_loops' budget: the extents of nested unrolled loops multiply, and past 1024
// copies of a statement in all the build stops with an Error naming the loops.
#include <tensorir/tensorir.h>

#include <catch2/catch.hpp>

#include <chrono>

#include "tensorir/ir/op.h"
#include "transforms/passes.h"

using namespace tensorir;
using Catch::Contains;

namespace {

// C = A * 2 + 1 over n x n floats with both axes unrolled.
struct UnrolledNest {
  Tensor A, C;
  Schedule s;
  explicit UnrolledNest(int n) {
    A = placeholder({n, n}, Float(32), "A");
    C = compute(
        {n, n}, [&](Var i, Var j) { return A(i, j) * 2.0f + 1.0f; }, "C");
    s = create_schedule({C});
    s[C].unroll(C.axis(0));
    s[C].unroll(C.axis(1));
  }
};

}  // namespace

TEST_CASE("unroll_loops: a 64 x 64 unrolled nest is an error naming both loops", "[pass][unroll]") {
  UnrolledNest nest(64);
  const auto start = std::chrono::steady_clock::now();
  REQUIRE_THROWS_AS(build(nest.s, {nest.A, nest.C}, "llvm", "nest64"), Error);
  REQUIRE_THROWS_WITH(build(nest.s, {nest.A, nest.C}, "llvm", "nest64"),
                      Contains("'i' (extent 64)") && Contains("'j' (extent 64)") && Contains("4096 times") &&
                          Contains("unroll the inner loop only"));
  // It fails before any copy is made.
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(5));
}

TEST_CASE("unroll_loops: a 16 x 16 unrolled nest builds and computes", "[pass][unroll]") {
  UnrolledNest nest(16);
  Module m = build(nest.s, {nest.A, nest.C}, "llvm", "nest16");
  NDArray a = NDArray::empty({16, 16}, Float(32)), c = NDArray::empty({16, 16}, Float(32));
  float *pa = static_cast<float *>(a.data());
  for (int k = 0; k < 256; ++k) pa[k] = float(k) * 0.5f;
  m("nest16")(a, c);
  const float *pc = static_cast<const float *>(c.data());
  for (int k = 0; k < 256; ++k) CHECK(pc[k] == float(k) + 1.0f);
}

TEST_CASE("unroll_loops: serial loops between unrolled ones do not reset the count", "[pass][unroll]") {
  // unrolled io (64) { serial s (4) { unrolled ii (32) { A[...] = 0 } } }: 2048 copies.
  Var A("A", Handle()), io("io"), s("s"), ii("ii");
  Stmt store = StoreNode::make(A, 0.0f, io * 32 + ii);
  Stmt inner = ForNode::make(ii, 0, 32, ForKind::Unrolled, store);
  Stmt nest = ForNode::make(io, 0, 64, ForKind::Unrolled, ForNode::make(s, 0, 4, ForKind::Serial, inner));
  CHECK_THROWS_WITH(unroll_loops(nest), Contains("'io' (extent 64) and 'ii' (extent 32)") && Contains("2048 times"));
  // One unrolled loop of 1024 alone is within the budget.
  CHECK_NOTHROW(unroll_loops(ForNode::make(ii, 0, 1024, ForKind::Unrolled, store)));
}
