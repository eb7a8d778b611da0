// Mistakes made while writing tensor expressions are reported as tensorir::Error with a
// message that names what is wrong, at the point where they are made.
#include <tensorir/tensorir.h>

#include <catch2/catch.hpp>

using namespace tensorir;
using Catch::CaseSensitive;
using Catch::Contains;

TEST_CASE("te: a compute lambda with fewer Vars than the shape has dimensions is rejected", "[error][te]") {
  auto make = [] {
    return compute(
        {4, 4}, [](Var i) { return i + 1; }, "C_arity");
  };
  REQUIRE_THROWS_AS(make(), Error);
  REQUIRE_THROWS_WITH(make(), Contains("lambda", CaseSensitive::No));
  REQUIRE_THROWS_WITH(make(), Contains("C_arity"));
  REQUIRE_THROWS_WITH(make(), Contains("dimension", CaseSensitive::No));
}

TEST_CASE("te: a compute lambda with more Vars than the shape has dimensions is rejected", "[error][te]") {
  auto make = [] {
    return compute(
        {8}, [](Var i, Var j) { return i + j; }, "C_arity3");
  };
  REQUIRE_THROWS_AS(make(), Error);
  REQUIRE_THROWS_WITH(make(), Contains("lambda", CaseSensitive::No));
  REQUIRE_THROWS_WITH(make(), Contains("C_arity3"));
}

TEST_CASE("te: adding an int expression to a float expression asks for a cast", "[error][te][types]") {
  Tensor A = placeholder({4}, Float(32), "A");
  auto make = [&] {
    return compute(
        {4}, [&](Var i) { return A(i) + i; }, "C_mix");
  };
  REQUIRE_THROWS_AS(make(), Error);
  REQUIRE_THROWS_WITH(make(), Contains("cast"));
}

TEST_CASE("te: an int expression times a float constant asks for a cast", "[error][te][types]") {
  Var i("i");
  REQUIRE_THROWS_AS(i * 0.5f, Error);
  REQUIRE_THROWS_WITH(i * 0.5f, Contains("cast"));
}

TEST_CASE("te: comparing an int32 tensor element with a float tensor element asks for a cast",
          "[error][te][types]") {
  Tensor A = placeholder({4}, Int(32), "A");
  Tensor B = placeholder({4}, Float(64), "B");
  Var i("i");
  REQUIRE_THROWS_AS(A(i) < B(i), Error);
  REQUIRE_THROWS_WITH(A(i) < B(i), Contains("cast"));
}

TEST_CASE("te: indexing a 2-D tensor with one index names the tensor", "[error][te][index]") {
  Tensor A = placeholder({4, 5}, Float(32), "A_two_d");
  Var i("i");
  REQUIRE_THROWS_AS(A(i), Error);
  REQUIRE_THROWS_WITH(A(i), Contains("A_two_d"));
  REQUIRE_THROWS_AS(A(i, i, i), Error);
  REQUIRE_THROWS_WITH(A(i, i, i), Contains("A_two_d"));
}

TEST_CASE("te: indexing a tensor with a float expression is rejected", "[error][te][index]") {
  Tensor A = placeholder({4}, Float(32), "A_idx");
  Tensor F = placeholder({4}, Float(32), "F");
  Var i("i");
  REQUIRE_THROWS_AS(A(F(i)), Error);
  REQUIRE_THROWS_WITH(A(F(i)), Contains("A_idx"));
}

TEST_CASE("te: a reduction nested inside a larger expression is rejected", "[error][te][reduce]") {
  Tensor A = placeholder({4, 8}, Float(32), "A");
  IterVar k = reduce_axis({0, 8}, "k");
  // Building the compute, or at the latest lowering it, must fail with a clear error.
  auto make = [&] {
    Tensor C = compute(
        {4}, [&](Var i) { return sum(A(i, k), {k}) + 1.0f; }, "C_nested");
    Schedule s = create_schedule({C});
    return lower(s, {A, C}, "nested");
  };
  REQUIRE_THROWS_AS(make(), Error);
  REQUIRE_THROWS_WITH(make(), Contains("reduc", CaseSensitive::No));
}

TEST_CASE("te: a reduction over an empty range is rejected", "[error][te][reduce]") {
  REQUIRE_THROWS_AS(reduce_axis({5, 5}, "k_empty"), Error);
  REQUIRE_THROWS_WITH(reduce_axis({5, 5}, "k_empty"), Contains("k_empty"));
}

TEST_CASE("te: a placeholder with a negative dimension is rejected", "[error][te]") {
  REQUIRE_THROWS_AS(placeholder({4, -1}, Float(32), "P_neg"), Error);
  REQUIRE_THROWS_WITH(placeholder({4, -1}, Float(32), "P_neg"), Contains("P_neg"));
}

TEST_CASE("te: extents above the 32-bit index range are rejected, not wrapped", "[error][te][extent]") {
  const int64_t big = (int64_t(1) << 31) + 64;
  REQUIRE_THROWS_WITH(placeholder({Expr(big)}, UInt(8), "P_big"),
                      Contains("P_big") && Contains("2147483712") && Contains("2147483647"));
  // Each dimension fits; the element count does not.
  REQUIRE_THROWS_WITH(placeholder({65536, 65536}, UInt(8), "P_many"),
                      Contains("P_many") && Contains("more than 2147483647 elements"));
  Tensor A = placeholder({4}, Float(32), "A");
  REQUIRE_THROWS_WITH(compute({Expr(big)}, [&](Var i) { return A(i % 4); }, "C_big"),
                      Contains("C_big") && Contains("2147483712"));
  REQUIRE_THROWS_WITH(reduce_axis({Expr(int64_t(0)), Expr(big)}, "k_big"),
                      Contains("k_big") && Contains("2147483712"));
}

TEST_CASE("te: asking a schedule for a tensor it does not contain names the tensor",
          "[error][te][schedule]") {
  Tensor A = placeholder({4}, Float(32), "A");
  Tensor B = compute(
      {4}, [&](Var i) { return A(i) + 1.0f; }, "B");
  Tensor Other = compute(
      {4}, [&](Var i) { return A(i) * 2.0f; }, "Other_tensor");
  Schedule s = create_schedule({B});
  REQUIRE_THROWS_AS(s[Other], Error);
  REQUIRE_THROWS_WITH(s[Other], Contains("Other_tensor"));
}

TEST_CASE("te: an integer constant that the other operand's type cannot hold is rejected", "[error][te][types]") {
  Tensor A = placeholder({3}, UInt(8), "A");
  Tensor I = placeholder({3}, Int(32), "I");
  // Wrapped, 300 would be 44 in uint8 and 2^40 would be 0 in int32.
  CHECK_THROWS_WITH(A(0) > 300, Contains("the constant 300 is not a value of uint8") && Contains("cast(Int(32), A(0))"));
  CHECK_THROWS_WITH(A(0) + (-1), Contains("the constant -1 is not a value of uint8"));
  CHECK_THROWS_WITH(I(0) + Expr(int64_t(1) << 40), Contains("1099511627776 is not a value of int32") &&
                                                       Contains("cast(Int(64), I(0))"));
  // The limits themselves are values of the type.
  CHECK_NOTHROW(A(0) + 255);
  CHECK_NOTHROW(A(0) + 0);
  CHECK_NOTHROW(I(0) + int32_t(-2147483647 - 1));
  CHECK_NOTHROW(cast(Int(32), A(0)) > 300);
}

TEST_CASE("te: a shape variable narrower than 32 bits is rejected when lowering", "[error][te][types]") {
  Var n("n", Int(8));
  Tensor A = placeholder({n}, Float(32), "A");
  Tensor C = compute({n}, [&](Var i) { return A(i) + 1.0f; }, "C");
  Schedule s = create_schedule({C});
  CHECK_THROWS_WITH(lower(s, {A, C}, "f"), Contains("variable 'n' of type int8") && Contains("int32 or int64"));
}

TEST_CASE("te: a read past a tensor's end is refused where the compute is defined", "[error][te][bounds]") {
  Tensor A = placeholder({8}, Float(32), "A_short");
  auto shifted = [&] { return compute({8}, [&](Var i) { return A(i + 1); }, "C_shift"); };
  REQUIRE_THROWS_AS(shifted(), Error);
  REQUIRE_THROWS_WITH(shifted(), Contains("C_shift") && Contains("A_short") && Contains("index 8") &&
                                     Contains("extent 8") && Contains("axis 0"));
  auto before = [&] { return compute({8}, [&](Var i) { return A(i - 1); }, "C_before"); };
  REQUIRE_THROWS_WITH(before(), Contains("C_before") && Contains("index -1"));
  // A constant index far away, as a typo makes it.
  auto far = [&] { return compute({2}, [&](Var) { return A(100000); }, "C_far"); };
  REQUIRE_THROWS_WITH(far(), Contains("index 100000"));
}

TEST_CASE("te: a reduction over a longer range than the tensor is refused", "[error][te][bounds]") {
  Tensor A = placeholder({4, 6}, Float(32), "A_rows");
  IterVar k = reduce_axis({0, 7}, "k");
  auto make = [&] { return compute({4}, [&](Var i) { return sum(A(i, k), {k}); }, "C_rowsum"); };
  REQUIRE_THROWS_WITH(make(), Contains("C_rowsum") && Contains("index 6") && Contains("axis 1"));
  // Transposed by mistake: the output is 4 x 6 but reads A as [6, 4].
  auto transposed = [&] { return compute({4, 6}, [&](Var i, Var j) { return A(j, i); }, "C_t"); };
  REQUIRE_THROWS_WITH(transposed(), Contains("C_t") && Contains("axis 0") && Contains("index 5"));
}

TEST_CASE("te: indices whose range is not exact and computes with no elements are not refused",
          "[error][te][bounds]") {
  Tensor A = placeholder({8}, Float(32), "A_edge");
  // A float index cast back to int: all reads are 0..7, but its interval is the int range.
  CHECK_NOTHROW(compute({8}, [&](Var i) { return A(cast(Int(32), cast(Float(32), i) + 0.25f)); }, "C_float_index"));
  // Nothing is read by a compute with no elements.
  Tensor E = placeholder({0}, Float(32), "E");
  CHECK_NOTHROW(compute({0}, [&](Var) { return E(0); }, "C_empty"));
}

TEST_CASE("te: guarded, clamped and wrapped reads are not refused and compute the right values",
          "[error][te][bounds]") {
  const int n = 37;
  Tensor A = placeholder({n}, Float(32), "A");
  IterVar k = reduce_axis({0, n + 3}, "k");
  Tensor padded = compute(
      {n + 2}, [&](Var i) { return if_then_else(i >= 1 && i <= n, A(max(min(i - 1, n - 1), 0)), 0.0f); }, "padded");
  Tensor clamped = compute({n}, [&](Var i) { return A(min(i + 1, n - 1)) + A(max(i - 1, 0)); }, "clamped");
  Tensor wrapped = compute({n}, [&](Var i) { return A((i + 5) % n); }, "wrapped");
  Tensor where = compute({1}, [&](Var) { return sum(A(k), {k}, k < n); }, "where");
  Module m = build(create_schedule({padded, clamped, wrapped, where}), {A, padded, clamped, wrapped, where}, "llvm", "f");
  NDArray a = NDArray::random({n}, Float(32), 7);
  NDArray p = NDArray::empty({n + 2}, Float(32)), c = NDArray::empty({n}, Float(32)),
          w = NDArray::empty({n}, Float(32)), s = NDArray::empty({1}, Float(32));
  m("f")(a, p, c, w, s);
  const std::vector<float> x = a.to_vector<float>(), pv = p.to_vector<float>(), cv = c.to_vector<float>(),
                           wv = w.to_vector<float>();
  double total = 0;
  for (int i = 0; i < n; ++i) {
    CHECK(pv[i + 1] == x[i]);
    CHECK(cv[i] == x[std::min(i + 1, n - 1)] + x[std::max(i - 1, 0)]);
    CHECK(wv[i] == x[(i + 5) % n]);
    total += x[i];
  }
  CHECK(pv[0] == 0.0f);
  CHECK(pv[n + 1] == 0.0f);
  CHECK(s.to_vector<float>()[0] == Approx(total).epsilon(1e-5));
}
