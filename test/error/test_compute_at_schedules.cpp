// compute_at with a parent stage taken from another schedule (a second create_schedule
// or a copy): an Error at the call naming both stages, not a puzzling one from lowering.
#include <tensorir/tensorir.h>

#include <catch2/catch.hpp>

using namespace tensorir;
using Catch::Contains;

namespace {

// B = A + 1, C = B * 2 over 8 x 8.
struct Pair {
  Tensor A = placeholder({8, 8}, Float(32), "A_in");
  Tensor B = compute(
      {8, 8}, [&](Var i, Var j) { return A(i, j) + 1.0f; }, "B_mid");
  Tensor C = compute(
      {8, 8}, [&](Var i, Var j) { return B(i, j) * 2.0f; }, "C_out");
};

}  // namespace

TEST_CASE("compute_at: a parent from another create_schedule is an error at the call",
          "[error][schedule][compute_at]") {
  Pair p;
  Schedule s1 = create_schedule({p.C}), s2 = create_schedule({p.C});
  REQUIRE_THROWS_AS(s1[p.B].compute_at(s2[p.C], p.C.axis(0)), Error);
  REQUIRE_THROWS_WITH(s1[p.B].compute_at(s2[p.C], p.C.axis(0)), Contains("'B_mid'") && Contains("'C_out'") &&
                          Contains("different schedules"));
  // Nothing changed: s1 still builds, with B at root.
  CHECK(build(s1, {p.A, p.C}, "llvm", "still_root").defined());
}

TEST_CASE("compute_at: a parent from a copy of the schedule is an error too", "[error][schedule][compute_at]") {
  Pair p;
  Schedule s = create_schedule({p.C});
  Schedule copy = s.copy();
  REQUIRE_THROWS_WITH(copy[p.B].compute_at(s[p.C], p.C.axis(0)), Contains("'B_mid'") && Contains("'C_out'") &&
                          Contains("different schedules"));
  // A stage cache_write adds belongs to its schedule as well.
  Tensor CC = copy.cache_write(p.C, "local");
  REQUIRE_THROWS_WITH(s[p.B].compute_at(copy[CC], CC.axis(0)), Contains("different schedules"));
}

TEST_CASE("compute_at: within one schedule (and within a copy) it works", "[error][schedule][compute_at]") {
  Pair p;
  Schedule s = create_schedule({p.C});
  Schedule copy = s.copy();
  copy[p.B].compute_at(copy[p.C], p.C.axis(0));
  Module m = build(copy, {p.A, p.C}, "llvm", "at_row");
  NDArray a = NDArray::empty({8, 8}, Float(32)), c = NDArray::empty({8, 8}, Float(32));
  float *pa = static_cast<float *>(a.data());
  for (int k = 0; k < 64; ++k) pa[k] = float(k);
  m("at_row")(a, c);
  const float *pc = static_cast<const float *>(c.data());
  for (int k = 0; k < 64; ++k) CHECK(pc[k] == (float(k) + 1.0f) * 2.0f);
}
