// Misused schedule primitives: each is a tensorir::Error naming the stage and the axis (or
// scope, or intrinsic) involved, raised by the primitive itself or, where only lowering
// can tell, by lower() and build().
#include <tensorir/ops/transform.h>
#include <tensorir/tensorir.h>

#include <catch2/catch.hpp>

using namespace tensorir;
using Catch::CaseSensitive;
using Catch::Contains;

namespace {

// B = A * 2, C = B + 1 over n x m, with distinct names for the messages.
struct Chain {
  Tensor A = placeholder({16, 12}, Float(32), "A_in");
  Tensor B = compute(
      {16, 12}, [&](Var i, Var j) { return A(i, j) * 2.0f; }, "B_mid");
  Tensor C = compute(
      {16, 12}, [&](Var i, Var j) { return B(i, j) + 1.0f; }, "C_out");
};

// D = X + Y + Z, with X, Y, Z each reading A and not each other.
struct Fan {
  Tensor A = placeholder({16}, Float(32), "A_in");
  Tensor X = compute(
      {16}, [&](Var i) { return A(i) + 1.0f; }, "X_st");
  Tensor Y = compute(
      {16}, [&](Var i) { return A(i) * 2.0f; }, "Y_st");
  Tensor Z = compute(
      {16}, [&](Var i) { return A(i) - 3.0f; }, "Z_st");
  Tensor D = compute(
      {16}, [&](Var i) { return X(i) + Y(i) + Z(i); }, "D_out");
};

struct Mm {
  Tensor A = placeholder({32, 16}, Float(32), "A_mm");
  Tensor B = placeholder({16, 24}, Float(32), "B_mm");
  IterVar k = reduce_axis({0, 16}, "k_red");
  Tensor C = compute(
      {32, 24}, [&](Var i, Var j) { return sum(A(i, k) * B(k, j), {k}); }, "C_mm");
};

// An 8x8 matmul intrinsic over a reduction of 16, implemented by a call.
TensorIntrin gemm_intrin(int K) {
  Tensor a = placeholder({8, K}, Float(32), "ia"), b = placeholder({K, 8}, Float(32), "ib");
  IterVar kk = reduce_axis({0, K}, "kk");
  Tensor c = compute(
      {8, 8}, [&](Var i, Var j) { return sum(a(i, kk) * b(kk, j), {kk}); }, "ic");
  return decl_tensor_intrin(
      c,
      [](const std::vector<TensorRegion> &ins, const TensorRegion &out) {
        return call_extern_stmt("never_called", {out.address, ins[0].address, ins[1].address});
      },
      "gemm8x8_intrin");
}

// An element-wise intrinsic over 8 elements: a * b.
TensorIntrin mul8_intrin() {
  Tensor a = placeholder({8}, Float(32), "ia"), b = placeholder({8}, Float(32), "ib");
  Tensor c = compute(
      {8}, [&](Var i) { return a(i) * b(i); }, "ic");
  return decl_tensor_intrin(
      c,
      [](const std::vector<TensorRegion> &ins, const TensorRegion &out) {
        return call_extern_stmt("never_called", {out.address, ins[0].address, ins[1].address});
      },
      "mul8_intrin");
}

}  // namespace

TEST_CASE("schedule: splitting an axis of another stage names both", "[error][schedule][split]") {
  Chain p;
  Schedule s = create_schedule({p.C});
  auto [o, i] = s[p.B].split(p.B.axis(0), 4);
  REQUIRE_THROWS_AS(s[p.C].split(p.B.axis(1), 4), Error);
  REQUIRE_THROWS_WITH(s[p.C].split(p.B.axis(1), 4), Contains("C_out"));
  REQUIRE_THROWS_WITH(s[p.C].split(p.B.axis(1), 4), Contains("'j'"));
  REQUIRE_THROWS_WITH(s[p.C].split(p.B.axis(1), 4), Contains("not an axis of this stage"));
  // Axes that split() returned belong to their stage too.
  REQUIRE_THROWS_AS(s[p.C].split(o, 2), Error);
  REQUIRE_THROWS_WITH(s[p.C].split(o, 2), Contains(o.name()));
  // The stage is unchanged by the failed calls.
  CHECK(s[p.C]->leaf_iter_vars.size() == 2);
}

TEST_CASE("schedule: a split factor must be a positive integer", "[error][schedule][split]") {
  Chain p;
  Schedule s = create_schedule({p.C});
  REQUIRE_THROWS_AS(s[p.C].split(p.C.axis(0), 0), Error);
  REQUIRE_THROWS_WITH(s[p.C].split(p.C.axis(0), 0), Contains("C_out") && Contains("positive"));
  REQUIRE_THROWS_AS(s[p.C].split_by_nparts(p.C.axis(0), -2), Error);
  REQUIRE_THROWS_WITH(s[p.C].split_by_nparts(p.C.axis(0), -2), Contains("positive"));
  REQUIRE_THROWS_AS(s[p.C].split(p.C.axis(0), Expr(2.5f)), Error);
  REQUIRE_THROWS_WITH(s[p.C].split(p.C.axis(0), Expr(2.5f)), Contains("integer"));
}

TEST_CASE("schedule: a placeholder has no loops to split", "[error][schedule][split]") {
  Chain p;
  Schedule s = create_schedule({p.C});
  REQUIRE_THROWS_AS(s[p.A].split(p.C.axis(0), 4), Error);
  REQUIRE_THROWS_WITH(s[p.A].split(p.C.axis(0), 4), Contains("A_in") && Contains("placeholder"));
}

TEST_CASE("schedule: using an axis after it was split", "[error][schedule][split]") {
  Chain p;
  Schedule s = create_schedule({p.C});
  IterVar i = p.C.axis(0);
  s[p.C].split(i, 4);
  for (auto use : std::vector<std::function<void()>>{
           [&] { s[p.C].split(i, 2); }, [&] { s[p.C].vectorize(i); }, [&] { s[p.C].unroll(i); },
           [&] { s[p.C].parallel(i); }, [&] { s[p.C].reorder({p.C.axis(1), i}); },
           [&] { s[p.B].compute_at(s[p.C], i); }}) {
    REQUIRE_THROWS_AS(use(), Error);
    REQUIRE_THROWS_WITH(use(), Contains("already split"));
    REQUIRE_THROWS_WITH(use(), Contains("'i'"));
    REQUIRE_THROWS_WITH(use(), Contains("C_out"));
  }
  SECTION("or after it was fused") {
    IterVar j = p.B.axis(1);
    s[p.B].fuse(p.B.axis(0), j);
    REQUIRE_THROWS_AS(s[p.B].split(j, 2), Error);
    REQUIRE_THROWS_WITH(s[p.B].split(j, 2), Contains("fused") && Contains("'j'") && Contains("B_mid"));
  }
}

TEST_CASE("schedule: reorder with a duplicate axis", "[error][schedule][reorder]") {
  Chain p;
  Schedule s = create_schedule({p.C});
  auto [o, i] = s[p.C].split(p.C.axis(0), 4);
  auto reorder = [&] { s[p.C].reorder({i, p.C.axis(1), i}); };
  REQUIRE_THROWS_AS(reorder(), Error);
  REQUIRE_THROWS_WITH(reorder(), Contains("twice"));
  REQUIRE_THROWS_WITH(reorder(), Contains(i.name()));
  REQUIRE_THROWS_WITH(reorder(), Contains("C_out"));
  // The loop order is untouched.
  const auto &leaves = s[p.C]->leaf_iter_vars;
  REQUIRE(leaves.size() == 3);
  CHECK(leaves[0].same_as(o));
  CHECK(leaves[1].same_as(i));
}

TEST_CASE("schedule: fuse of non-adjacent or misordered axes", "[error][schedule][fuse]") {
  Tensor A = placeholder({4, 5, 6}, Float(32), "A_in");
  Tensor C = compute(
      {4, 5, 6}, [&](Var i, Var j, Var l) { return A(i, j, l) + 1.0f; }, "C3");
  Schedule s = create_schedule({C});
  REQUIRE_THROWS_AS(s[C].fuse(C.axis(0), C.axis(2)), Error);
  REQUIRE_THROWS_WITH(s[C].fuse(C.axis(0), C.axis(2)), Contains("C3"));
  REQUIRE_THROWS_WITH(s[C].fuse(C.axis(0), C.axis(2)), Contains("'i'") && Contains("'k'"));
  REQUIRE_THROWS_WITH(s[C].fuse(C.axis(0), C.axis(2)), Contains("directly outside"));
  // Inner before outer is not adjacent in that order either.
  REQUIRE_THROWS_AS(s[C].fuse(C.axis(1), C.axis(0)), Error);
  REQUIRE_THROWS_WITH(s[C].fuse(C.axis(1), C.axis(0)), Contains("reorder"));
  CHECK(s[C]->leaf_iter_vars.size() == 3);
}

TEST_CASE("schedule: fusing a reduction axis with a data-parallel axis", "[error][schedule][fuse]") {
  Mm p;
  Schedule s = create_schedule({p.C});
  REQUIRE_THROWS_AS(s[p.C].fuse(p.C.axis(1), p.k), Error);
  REQUIRE_THROWS_WITH(s[p.C].fuse(p.C.axis(1), p.k), Contains("k_red") && Contains("C_mm"));
}

TEST_CASE("schedule: compute_at a stage's own producer makes a cycle", "[error][schedule][compute_at]") {
  Tensor A = placeholder({16}, Float(32), "A_in");
  Tensor B = compute(
      {16}, [&](Var i) { return A(i) * 2.0f; }, "B_st");
  Tensor C = compute(
      {16}, [&](Var i) { return B(i) + 1.0f; }, "C_st");
  Tensor D = compute(
      {16}, [&](Var i) { return C(i) - 1.0f; }, "D_out");
  SECTION("a consumer computed inside its producer") {
    Schedule s = create_schedule({D});
    auto at = [&] { s[C].compute_at(s[B], B.axis(0)); };
    REQUIRE_THROWS_AS(at(), Error);
    REQUIRE_THROWS_WITH(at(), Contains("cycle"));
    REQUIRE_THROWS_WITH(at(), Contains("'C_st'") && Contains("'B_st'"));
  }
  SECTION("a producer computed at its consumer, then the consumer at the producer") {
    Schedule s = create_schedule({D});
    s[B].compute_at(s[C], C.axis(0));
    auto at = [&] { s[C].compute_at(s[B], B.axis(0)); };
    REQUIRE_THROWS_AS(at(), Error);
    REQUIRE_THROWS_WITH(at(), Contains("cycle"));
    REQUIRE_THROWS_WITH(at(), Contains("'C_st'") && Contains("'B_st'"));
    // The first attachment still stands and builds.
    CHECK(s[B]->attach_type == AttachType::Scope);
    CHECK(s[C]->attach_type == AttachType::Root);
    CHECK_NOTHROW(build(s, {A, D}, "llvm", "after_cycle"));
  }
  SECTION("a consumer computed inside an indirect producer") {
    Schedule s = create_schedule({D});
    auto at = [&] { s[C].compute_at(s[B], B.axis(0)); };
    s[B].compute_inline();
    REQUIRE_THROWS_AS(at(), Error);
    REQUIRE_THROWS_WITH(at(), Contains("cycle"));
  }
  SECTION("a stage computed inside itself") {
    Schedule s = create_schedule({D});
    auto at = [&] { s[C].compute_at(s[C], C.axis(0)); };
    REQUIRE_THROWS_AS(at(), Error);
    REQUIRE_THROWS_WITH(at(), Contains("'C_st'") && Contains("itself"));
  }
}

TEST_CASE("schedule: compute_at cycles between stages that do not read each other", "[error][schedule][compute_at]") {
  Fan p;
  SECTION("two stages") {
    Schedule s = create_schedule({p.D});
    s[p.X].compute_at(s[p.Y], p.Y.axis(0));
    auto at = [&] { s[p.Y].compute_at(s[p.X], p.X.axis(0)); };
    REQUIRE_THROWS_AS(at(), Error);
    REQUIRE_THROWS_WITH(at(), Contains("cycle"));
    REQUIRE_THROWS_WITH(at(), Contains("'X_st'") && Contains("'Y_st'"));
  }
  SECTION("three stages") {
    Schedule s = create_schedule({p.D});
    s[p.X].compute_at(s[p.Y], p.Y.axis(0));
    s[p.Y].compute_at(s[p.Z], p.Z.axis(0));
    auto at = [&] { s[p.Z].compute_at(s[p.X], p.X.axis(0)); };
    REQUIRE_THROWS_AS(at(), Error);
    REQUIRE_THROWS_WITH(at(), Contains("cycle"));
    REQUIRE_THROWS_WITH(at(), Contains("'Z_st'"));
  }
}

TEST_CASE("schedule: compute_at an axis that is not the parent's", "[error][schedule][compute_at]") {
  Chain p;
  Schedule s = create_schedule({p.C});
  auto at = [&] { s[p.B].compute_at(s[p.C], p.B.axis(0)); };
  REQUIRE_THROWS_AS(at(), Error);
  REQUIRE_THROWS_WITH(at(), Contains("compute_at") && Contains("C_out") && Contains("'i'"));
}

TEST_CASE("schedule: outputs stay at root and are not inlined", "[error][schedule][compute_at][compute_inline]") {
  Chain p;
  Schedule s = create_schedule({p.C});
  REQUIRE_THROWS_AS(s[p.C].compute_inline(), Error);
  REQUIRE_THROWS_WITH(s[p.C].compute_inline(), Contains("C_out") && Contains("output"));
  Tensor E = compute(
      {16, 12}, [&](Var i, Var j) { return p.C(i, j) * 3.0f; }, "E_out");
  Schedule s2 = create_schedule({p.C, E});
  REQUIRE_THROWS_AS(s2[p.C].compute_at(s2[E], E.axis(0)), Error);
  REQUIRE_THROWS_WITH(s2[p.C].compute_at(s2[E], E.axis(0)), Contains("C_out") && Contains("output"));
}

TEST_CASE("schedule: a reduction cannot be inlined", "[error][schedule][compute_inline]") {
  Mm p;
  Tensor R = compute(
      {32, 24}, [&](Var i, Var j) { return max(p.C(i, j), 0.0f); }, "R_out");
  Schedule s = create_schedule({R});
  REQUIRE_THROWS_AS(s[p.C].compute_inline(), Error);
  REQUIRE_THROWS_WITH(s[p.C].compute_inline(), Contains("C_mm") && Contains("reduction"));
}

TEST_CASE("schedule: vectorize over a symbolic extent fails at lower and build time", "[error][schedule][vectorize]") {
  Var n("n");
  Tensor A = placeholder({n}, Float(32), "A_sym");
  Tensor C = compute(
      {n}, [&](Var i) { return A(i) + 1.0f; }, "C_sym");
  Schedule s = create_schedule({C});
  IterVar i = C.axis(0);
  REQUIRE_NOTHROW(s[C].vectorize(i));  // the extent is only known to be symbolic when lowering
  REQUIRE_THROWS_AS(lower(s, {A, C}, "vec_sym"), Error);
  REQUIRE_THROWS_WITH(lower(s, {A, C}, "vec_sym"), Contains("vectorize") && Contains("'i'"));
  REQUIRE_THROWS_WITH(lower(s, {A, C}, "vec_sym"), Contains("constant"));
  REQUIRE_THROWS_AS(build(s, {A, C}, "llvm", "vec_sym"), Error);
  REQUIRE_THROWS_WITH(build(s, {A, C}, "llvm", "vec_sym"), Contains("vectorize") && Contains("'i'"));
  SECTION("the fix the message suggests works") {
    Schedule s2 = create_schedule({C});
    auto [o, in] = s2[C].split(C.axis(0), 8);
    s2[C].vectorize(in);
    REQUIRE_NOTHROW(build(s2, {A, C}, "llvm", "vec_sym_split"));
  }
}

TEST_CASE("schedule: unroll over a symbolic extent fails at lower time", "[error][schedule][unroll]") {
  Var n("n");
  Tensor A = placeholder({n}, Float(32), "A_sym");
  Tensor C = compute(
      {n}, [&](Var i) { return A(i) + 1.0f; }, "C_sym");
  Schedule s = create_schedule({C});
  s[C].unroll(C.axis(0));
  REQUIRE_THROWS_AS(lower(s, {A, C}, "unroll_sym"), Error);
  REQUIRE_THROWS_WITH(lower(s, {A, C}, "unroll_sym"), Contains("unroll") && Contains("'i'"));
}

TEST_CASE("schedule: vectorize over more lanes than a vector holds", "[error][schedule][vectorize]") {
  Tensor A = placeholder({1000}, Float(32), "A_in");
  Tensor C = compute(
      {1000}, [&](Var i) { return A(i) + 1.0f; }, "C_long");
  Schedule s = create_schedule({C});
  s[C].vectorize(C.axis(0));
  REQUIRE_THROWS_AS(lower(s, {A, C}, "vec_long"), Error);
  REQUIRE_THROWS_WITH(lower(s, {A, C}, "vec_long"), Contains("1000") && Contains("split"));
}

TEST_CASE("schedule: parallel over a reduction axis asks for rfactor", "[error][schedule][parallel]") {
  Mm p;
  Schedule s = create_schedule({p.C});
  REQUIRE_THROWS_AS(s[p.C].parallel(p.k), Error);
  REQUIRE_THROWS_WITH(s[p.C].parallel(p.k), Contains("k_red") && Contains("C_mm") && Contains("rfactor"));
}

TEST_CASE("schedule: rfactor needs a reduction loop of the stage", "[error][schedule][rfactor]") {
  Mm p;
  Chain q;
  Schedule s = create_schedule({p.C});
  REQUIRE_THROWS_AS(s.rfactor(p.C, p.C.axis(0)), Error);
  REQUIRE_THROWS_WITH(s.rfactor(p.C, p.C.axis(0)), Contains("C_mm") && Contains("not a reduction axis"));
  auto [ko, ki] = s[p.C].split(p.k, 4);
  REQUIRE_THROWS_AS(s.rfactor(p.C, p.k), Error);  // replaced by ko and ki
  REQUIRE_THROWS_WITH(s.rfactor(p.C, p.k), Contains("k_red") && Contains("current loops"));
  Schedule s2 = create_schedule({q.C});
  REQUIRE_THROWS_AS(s2.rfactor(q.C, q.C.axis(0)), Error);
  REQUIRE_THROWS_WITH(s2.rfactor(q.C, q.C.axis(0)), Contains("C_out") && Contains("not a reduction"));
}

TEST_CASE("schedule: unknown cache scope", "[error][schedule][cache_read][cache_write]") {
  Chain p;
  Schedule s = create_schedule({p.C});
  REQUIRE_THROWS_AS(s.cache_read(p.A, "texture", {p.B}), Error);
  REQUIRE_THROWS_WITH(s.cache_read(p.A, "texture", {p.B}), Contains("'texture'") && Contains("A_in"));
  REQUIRE_THROWS_WITH(s.cache_read(p.A, "texture", {p.B}), Contains("scope"));
  REQUIRE_THROWS_AS(s.cache_write(p.C, "registers"), Error);
  REQUIRE_THROWS_WITH(s.cache_write(p.C, "registers"), Contains("'registers'") && Contains("C_out"));
  // Nothing was added by the failed calls.
  CHECK(s.stages().size() == 3);
}

TEST_CASE("schedule: cache_read for a tensor that does not read it", "[error][schedule][cache_read]") {
  Chain p;
  Schedule s = create_schedule({p.C});
  REQUIRE_THROWS_AS(s.cache_read(p.A, "global", {p.C}), Error);
  REQUIRE_THROWS_WITH(s.cache_read(p.A, "global", {p.C}), Contains("'C_out'") && Contains("does not read"));
}

TEST_CASE("schedule: cache_write after the stage was split", "[error][schedule][cache_write]") {
  Chain p;
  Schedule s = create_schedule({p.C});
  s[p.C].split(p.C.axis(0), 4);
  REQUIRE_THROWS_AS(s.cache_write(p.C, "local"), Error);
  REQUIRE_THROWS_WITH(s.cache_write(p.C, "local"), Contains("C_out") && Contains("before splitting"));
}

TEST_CASE("schedule: tensorize on loops with the wrong extents", "[error][schedule][tensorize]") {
  Mm p;
  Schedule s = create_schedule({p.C});
  auto [io, jo, ii, ji] = s[p.C].tile(p.C.axis(0), p.C.axis(1), 4, 4);
  s[p.C].tensorize(ii, gemm_intrin(16));
  REQUIRE_THROWS_AS(lower(s, {p.A, p.B, p.C}, "tz_extent"), Error);
  REQUIRE_THROWS_WITH(lower(s, {p.A, p.B, p.C}, "tz_extent"), Contains("'C_mm'") && Contains("gemm8x8_intrin"));
  REQUIRE_THROWS_WITH(lower(s, {p.A, p.B, p.C}, "tz_extent"), Contains("(4, 4)") && Contains("(8, 8)"));
  REQUIRE_THROWS_AS(build(s, {p.A, p.B, p.C}, "llvm", "tz_extent"), Error);

  SECTION("or a reduction of the wrong length") {
    Schedule s2 = create_schedule({p.C});
    auto [io2, jo2, ii2, ji2] = s2[p.C].tile(p.C.axis(0), p.C.axis(1), 8, 8);
    s2[p.C].tensorize(ii2, gemm_intrin(8));
    REQUIRE_THROWS_AS(lower(s2, {p.A, p.B, p.C}, "tz_k"), Error);
    REQUIRE_THROWS_WITH(lower(s2, {p.A, p.B, p.C}, "tz_k"), Contains("(16)") && Contains("(8)"));
  }
  SECTION("or a tile that does not divide the tensor") {
    Tensor A = placeholder({30, 16}, Float(32), "A_odd"), B = placeholder({16, 24}, Float(32), "B_odd");
    IterVar k = reduce_axis({0, 16}, "k_odd");
    Tensor C = compute(
        {30, 24}, [&](Var i, Var j) { return sum(A(i, k) * B(k, j), {k}); }, "C_odd");
    Schedule s3 = create_schedule({C});
    auto [io3, jo3, ii3, ji3] = s3[C].tile(C.axis(0), C.axis(1), 8, 8);
    s3[C].tensorize(ii3, gemm_intrin(16));
    REQUIRE_THROWS_AS(lower(s3, {A, B, C}, "tz_odd"), Error);
    REQUIRE_THROWS_WITH(lower(s3, {A, B, C}, "tz_odd"), Contains("'C_odd'") && Contains("divide"));
  }
}

TEST_CASE("schedule: tensorize with an intrinsic that computes something else", "[error][schedule][tensorize]") {
  Tensor A = placeholder({64}, Float(32), "A_add"), B = placeholder({64}, Float(32), "B_add");
  Tensor C = compute(
      {64}, [&](Var i) { return A(i) + B(i); }, "C_add");
  Schedule s = create_schedule({C});
  auto [o, i] = s[C].split(C.axis(0), 8);
  s[C].tensorize(i, mul8_intrin());
  REQUIRE_THROWS_AS(lower(s, {A, B, C}, "tz_op"), Error);
  REQUIRE_THROWS_WITH(lower(s, {A, B, C}, "tz_op"), Contains("'C_add'") && Contains("mul8_intrin"));
  REQUIRE_THROWS_WITH(lower(s, {A, B, C}, "tz_op"), Contains("computes"));
  REQUIRE_THROWS_AS(build(s, {A, B, C}, "llvm", "tz_op"), Error);

  SECTION("a reduction intrinsic on an element-wise stage") {
    Tensor E = compute(
        {64, 64}, [&](Var x, Var y) { return A(x) * B(y); }, "E_outer");
    Schedule s2 = create_schedule({E});
    auto [xo, yo, xi, yi] = s2[E].tile(E.axis(0), E.axis(1), 8, 8);
    s2[E].tensorize(xi, gemm_intrin(16));
    REQUIRE_THROWS_AS(lower(s2, {A, B, E}, "tz_kind"), Error);
    REQUIRE_THROWS_WITH(lower(s2, {A, B, E}, "tz_kind"), Contains("'E_outer'"));
  }
}

TEST_CASE("schedule: tensorize inside a longer reduction needs reset and update", "[error][schedule][tensorize]") {
  Mm p;
  Schedule s = create_schedule({p.C});
  auto [io, jo, ii, ji] = s[p.C].tile(p.C.axis(0), p.C.axis(1), 8, 8);
  auto [ko, ki] = s[p.C].split(p.k, 8);
  s[p.C].reorder({io, jo, ko, ii, ji, ki});
  s[p.C].tensorize(ii, gemm_intrin(8));  // declared without reset and update
  REQUIRE_THROWS_AS(lower(s, {p.A, p.B, p.C}, "tz_reset"), Error);
  REQUIRE_THROWS_WITH(lower(s, {p.A, p.B, p.C}, "tz_reset"), Contains("C_mm") && Contains("reset and update"));
}

TEST_CASE("schedule: a stage of a tensor the schedule does not hold", "[error][schedule]") {
  Chain p;
  Mm q;
  Schedule s = create_schedule({p.C});
  REQUIRE_THROWS_AS(s[q.C], Error);
  REQUIRE_THROWS_WITH(s[q.C], Contains("C_mm"));
}

TEST_CASE("schedule: compute_at a loop of a stage that does not read it, while another stage does",
          "[error][schedule][compute_at]") {
  Fan p;
  Schedule s = create_schedule({p.D});
  s[p.X].compute_at(s[p.Y], p.Y.axis(0));  // D reads X outside Y's loop
  REQUIRE_THROWS_AS(lower(s, {p.A, p.D}, "at_non_reader"), Error);
  REQUIRE_THROWS_WITH(lower(s, {p.A, p.D}, "at_non_reader"),
                      Contains("'X_st'") && Contains("'Y_st'") && Contains("'D_out'"));
  REQUIRE_THROWS_AS(build(s, {p.A, p.D}, "llvm", "at_non_reader"), Error);
}

TEST_CASE("schedule: compute_at a loop of an inlined stage", "[error][schedule][compute_at][compute_inline]") {
  // X -> Y -> Z with Y inlined into Z: Y has no loops, whichever primitive came first.
  Tensor A = placeholder({16}, Float(32), "A_in");
  Tensor X = compute({16}, [&](Var i) { return A(i) + 1.0f; }, "X_st");
  Tensor Y = compute({16}, [&](Var i) { return X(i) * 2.0f; }, "Y_inl");
  Tensor Z = compute({16}, [&](Var i) { return Y(i) - 3.0f; }, "Z_out");
  for (bool inline_first : {true, false}) {
    Schedule s = create_schedule({Z});
    if (inline_first) s[Y].compute_inline();
    s[X].compute_at(s[Y], Y.axis(0));
    if (!inline_first) s[Y].compute_inline();
    CHECK_THROWS_WITH(build(s, {A, Z}, "llvm", "at_inlined"),
                      Contains("stage 'X_st' is computed at a loop of 'Y_inl', but 'Y_inl' is inlined") &&
                          Contains("at a loop of a stage that reads 'Y_inl', or at root"));
  }
  // At the loop of Z, where Y is inlined, it builds and computes A * 2 + 2 - 3.
  Schedule s = create_schedule({Z});
  s[Y].compute_inline();
  s[X].compute_at(s[Z], Z.axis(0));
  NDArray a = NDArray::random({16}, Float(32), 5), z = NDArray::empty({16}, Float(32));
  build(s, {A, Z}, "llvm", "at_reader")("at_reader")(a, z);
  for (int q = 0; q < 16; ++q) REQUIRE(z.data_as<float>()[q] == (a.data_as<float>()[q] + 1.0f) * 2.0f - 3.0f);
}

TEST_CASE("schedule: compute_at a loop of the reader's consumer that the reader is not computed inside",
          "[error][schedule][compute_at]") {
  Chain p;
  Schedule s = create_schedule({p.C});
  Tensor AL = s.cache_read(p.A, "local", {p.B});
  s[p.B].compute_at(s[p.C], p.C.axis(0));   // B made once per row of C
  s[AL].compute_at(s[p.C], p.C.axis(1));    // AL once per element: inside, not around, B's row
  REQUIRE_THROWS_AS(lower(s, {p.A, p.C}, "at_inner_loop"), Error);
  REQUIRE_THROWS_WITH(lower(s, {p.A, p.C}, "at_inner_loop"),
                      Contains("'" + AL.op()->name + "'") && Contains("'C_out'") && Contains("'B_mid'") &&
                          Contains("not computed inside that loop"));
  SECTION("around the reader's loop it is fine") {
    Schedule t = create_schedule({p.C});
    Tensor AL2 = t.cache_read(p.A, "local", {p.B});
    t[p.B].compute_at(t[p.C], p.C.axis(1));
    t[AL2].compute_at(t[p.C], p.C.axis(0));
    REQUIRE_NOTHROW(lower(t, {p.A, p.C}, "at_outer_loop"));
  }
}

TEST_CASE("schedule: a stage vectorizes one loop", "[error][schedule][vectorize]") {
  Tensor A = placeholder({64}, Float(32), "A");
  Tensor C = compute({64}, [&](Var i) { return A(i) + 1.0f; }, "C");
  Schedule s = create_schedule({C});
  auto [o, in] = s[C].split(C.axis(0), 8);
  s[C].vectorize(in);
  CHECK_THROWS_WITH(s[C].vectorize(o), Catch::Contains("stage 'C'") && Catch::Contains("loop 'i.inner' is vectorized") &&
                                           Catch::Contains("fuse"));
  CHECK_NOTHROW(s[C].vectorize(in));  // the same loop again
}

TEST_CASE("schedule: a loop has one kind", "[error][schedule][vectorize][parallel][unroll]") {
  Tensor A = placeholder({64, 16}, Float(32), "A");
  Tensor C = compute({64, 16}, [&](Var i, Var j) { return A(i, j) + 1.0f; }, "C");
  Schedule s = create_schedule({C});
  IterVar i = C.axis(0), j = C.axis(1);
  s[C].vectorize(j);
  CHECK_THROWS_WITH(s[C].parallel(j), Contains("parallel on stage 'C'") && Contains("loop 'j' is vectorized already") &&
                                          Contains("split it"));
  CHECK_THROWS_WITH(s[C].unroll(j), Contains("unroll on stage 'C'") && Contains("loop 'j' is vectorized already"));
  s[C].parallel(i);
  CHECK_THROWS_WITH(s[C].unroll(i), Contains("unroll on stage 'C'") && Contains("loop 'i' is parallel already"));
  CHECK_NOTHROW(s[C].parallel(i));  // the same kind again
  // The kinds asked first are the ones built: each row on a thread, each row's 16 a vector.
  NDArray a = NDArray::random({64, 16}, Float(32), 3), c = NDArray::empty({64, 16}, Float(32));
  build(s, {A, C}, "llvm", "kinds")("kinds")(a, c);
  for (int q = 0; q < 64 * 16; ++q) REQUIRE(c.data_as<float>()[q] == a.data_as<float>()[q] + 1.0f);
}

TEST_CASE("schedule: a layout block too large for any tensor and an endless repeat time are errors",
          "[error][schedule]") {
  Tensor a = placeholder({1, 8, 2, 2}, Float(32), "a");
  CHECK_THROWS_WITH(ops::layout_transform(a, "NCHW", "NCHW99999999999999999999c"),
                    Catch::Contains("99999999999999999999") && Catch::Contains("larger than any tensor"));
  Tensor C = compute({4}, [&](Var i) { return a(0, i, 0, 0) + 1.0f; }, "C");
  Module m = build(create_schedule({C}), {a, C}, "llvm", "f");
  TimeOptions o;
  o.min_repeat_ms = 1e300;
  const NDArray in = NDArray::random({1, 8, 2, 2}, Float(32), 1), out = NDArray::empty({4}, Float(32));
  CHECK_THROWS_WITH(m.time_evaluator("f", o)(in, out), Catch::Contains("min_repeat_ms is 1e+300"));
}

TEST_CASE("cache_write or rfactor of a stage another is computed at is an Error naming both", "[error][schedule]") {
  const int N = 8, K = 4;
  Tensor A = placeholder({N, K}, Float(32), "A");
  Tensor B = compute({N, K}, [&](Var i, Var j) { return A(i, j) * 2.0f; }, "B");
  IterVar k = reduce_axis({0, K}, "k");
  Tensor C = compute({N}, [&](Var i) { return sum(B(i, k), {k}); }, "C");
  {
    Schedule s = create_schedule({C});
    s[B].compute_at(s[C], k);  // a reduction loop, which the cache stage takes
    CHECK_THROWS_WITH(s.cache_write(C, "local"), Contains("cache_write of 'C': stage 'B' is computed at its loop 'k'") &&
                                                     Contains("call cache_write first, then compute_at"));
  }
  {
    Schedule s = create_schedule({C});
    s[B].compute_at(s[C], k);
    CHECK_THROWS_WITH(s.rfactor(C, k), Contains("rfactor of 'C': stage 'B' is computed at its loop 'k'") &&
                                           Contains("call rfactor first"));
  }
  {  // a data-parallel loop too: the cache stage, not C, reads B then
    Schedule s = create_schedule({C});
    s[B].compute_at(s[C], C.op().as<ComputeOpNode>()->axis[0]);
    CHECK_THROWS_WITH(s.cache_write(C, "local"), Contains("stage 'B' is computed at its loop 'i'"));
  }
  {  // computed at the cache's loops instead, after cache_write: it builds
    Schedule s = create_schedule({C});
    Tensor local = s.cache_write(C, "local");
    s[B].compute_at(s[local], local.op().as<ComputeOpNode>()->axis[0]);
    CHECK_NOTHROW(build(s, {A, C}, "llvm", "f"));
  }
}
