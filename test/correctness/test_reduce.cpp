// Reductions: sum, prod, max, min over one and several axes, conditional reductions,
// reductions with a non-zero start, and argmax through a user-defined comm_reducer.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "correctness/reference.h"

using namespace tensorir;
using namespace tensorir::testing;

namespace {

// Sums of up to ~1000 float terms accumulate rounding error in any order.
template <typename T>
Tolerance sum_tolerance(int terms) {
  if constexpr (std::is_same_v<T, float>)
    return {1e-5 * terms, 1e-5};
  else if constexpr (std::is_same_v<T, double>)
    return {1e-13 * terms, 1e-12};
  else
    return {0, 0};
}

}  // namespace

TEMPLATE_TEST_CASE("sum and max and min over the last axis match plain loops", "[correctness][reduce]", float,
                   double, int32_t) {
  using T = TestType;
  const Type t = dtype_of<T>();
  const std::vector<std::pair<int, int>> shapes{{1, 1}, {7, 33}, {33, 7}, {5, 1023}};
  for (auto [R, K] : shapes) {
    DYNAMIC_SECTION(R << "x" << K) {
      Tensor A = placeholder({R, K}, t, "A");
      IterVar k1 = reduce_axis({0, K}, "k1");
      IterVar k2 = reduce_axis({0, K}, "k2");
      IterVar k3 = reduce_axis({0, K}, "k3");
      Tensor S = compute(
          {R}, [&](Var i) { return sum(A(i, k1), {k1}); }, "S");
      Tensor Mx = compute(
          {R}, [&](Var i) { return max(A(i, k2), {k2}); }, "Mx");
      Tensor Mn = compute(
          {R}, [&](Var i) { return min(A(i, k3), {k3}); }, "Mn");
      Kernel k = build_kernel({S, Mx, Mn}, {A, S, Mx, Mn}, "row_reduce");
      INFO("lowered:\n" << k.lowered);

      NDArray a = random_array<T>({R, K}, 101, -100.0, 100.0);
      NDArray s = NDArray::empty({R}, t), mx = NDArray::empty({R}, t), mn = NDArray::empty({R}, t);
      k(a, s, mx, mn);
      std::vector<T> av = a.to_vector<T>();
      std::vector<T> rs(R), rmx(R), rmn(R);
      for (int i = 0; i < R; ++i) {
        T acc = 0, hi = av[i * K], lo = av[i * K];
        for (int j = 0; j < K; ++j) {
          acc += av[i * K + j];
          hi = std::max(hi, av[i * K + j]);
          lo = std::min(lo, av[i * K + j]);
        }
        rs[i] = acc;
        rmx[i] = hi;
        rmn[i] = lo;
      }
      check_close<T>(s, rs, sum_tolerance<T>(K * 100));
      check_close<T>(mx, rmx, {0, 0});
      check_close<T>(mn, rmn, {0, 0});
    }
  }
}

TEMPLATE_TEST_CASE("prod over an axis matches plain loops", "[correctness][reduce]", float, double, int32_t) {
  using T = TestType;
  const Type t = dtype_of<T>();
  const int R = 9, K = std::is_integral_v<T> ? 13 : 65;
  Tensor A = placeholder({R, K}, t, "A");
  IterVar k = reduce_axis({0, K}, "k");
  Tensor P = compute(
      {R}, [&](Var i) { return prod(A(i, k), {k}); }, "P");
  Kernel kern = build_kernel({P}, {A, P}, "row_prod");
  INFO("lowered:\n" << kern.lowered);
  // Floats near 1 so the product neither overflows nor vanishes; small integers with sign.
  NDArray a = std::is_integral_v<T> ? random_array<T>({R, K}, 111, -2.0, 3.0)
                                    : random_array<T>({R, K}, 111, 0.9, 1.1);
  NDArray p = NDArray::empty({R}, t);
  kern(a, p);
  std::vector<T> av = a.to_vector<T>(), ref(R);
  for (int i = 0; i < R; ++i) {
    T acc = 1;
    for (int j = 0; j < K; ++j) acc *= av[i * K + j];
    ref[i] = acc;
  }
  check_close<T>(p, ref, std::is_same_v<T, float> ? Tolerance{1e-6, 1e-5} : default_tolerance<T>());
}

TEMPLATE_TEST_CASE("sum and max over several axes at once", "[correctness][reduce]", float, double, int32_t) {
  using T = TestType;
  const Type t = dtype_of<T>();
  const int R = 5, K1 = 7, K2 = 33;
  Tensor X = placeholder({R, K1, K2}, t, "X");
  IterVar a1 = reduce_axis({0, K1}, "a1"), a2 = reduce_axis({0, K2}, "a2");
  IterVar b1 = reduce_axis({0, K1}, "b1"), b2 = reduce_axis({0, K2}, "b2");
  IterVar c1 = reduce_axis({0, R}, "c1"), c2 = reduce_axis({0, K1}, "c2"), c3 = reduce_axis({0, K2}, "c3");
  Tensor S = compute(
      {R},
      [&](Var i) {
        return sum(X(i, a1, a2), {a1, a2});
      },
      "S");
  Tensor M = compute(
      {R},
      [&](Var i) {
        return max(X(i, b1, b2), {b1, b2});
      },
      "M");
  // Everything into one element.
  Tensor All = compute(
      {1},
      [&](Var) {
        return sum(X(c1, c2, c3), {c1, c2, c3});
      },
      "All");
  Kernel k = build_kernel({S, M, All}, {X, S, M, All}, "multi_axis");
  INFO("lowered:\n" << k.lowered);

  NDArray x = random_array<T>({R, K1, K2}, 121, -100.0, 100.0);
  NDArray s = NDArray::empty({R}, t), m = NDArray::empty({R}, t), all = NDArray::empty({1}, t);
  k(x, s, m, all);
  std::vector<T> xv = x.to_vector<T>(), rs(R), rm(R), rall(1, T(0));
  for (int i = 0; i < R; ++i) {
    T acc = 0, hi = std::numeric_limits<T>::lowest();
    for (int p = 0; p < K1; ++p)
      for (int q = 0; q < K2; ++q) {
        T v = xv[(i * K1 + p) * K2 + q];
        acc += v;
        hi = std::max(hi, v);
      }
    rs[i] = acc;
    rm[i] = hi;
    rall[0] += acc;
  }
  check_close<T>(s, rs, sum_tolerance<T>(K1 * K2 * 100));
  check_close<T>(m, rm, {0, 0});
  check_close<T>(all, rall, sum_tolerance<T>(R * K1 * K2 * 100));
}

TEST_CASE("reducing over the leading axis gives column sums", "[correctness][reduce]") {
  const int R = 1023, N = 7;
  Tensor A = placeholder({R, N}, Float(32), "A");
  IterVar k = reduce_axis({0, R}, "k");
  Tensor C = compute(
      {N}, [&](Var j) { return sum(A(k, j), {k}); }, "C");
  Kernel kern = build_kernel({C}, {A, C}, "col_sum");
  INFO("lowered:\n" << kern.lowered);
  NDArray a = random_array<float>({R, N}, 131);
  NDArray c = NDArray::empty({N}, Float(32));
  kern(a, c);
  std::vector<float> av = a.to_vector<float>();
  std::vector<double> ref(N, 0.0);
  for (int i = 0; i < R; ++i)
    for (int j = 0; j < N; ++j) ref[j] += av[i * N + j];
  check_close<float>(c, ref, sum_tolerance<float>(R));
}

TEST_CASE("a reduction axis may start above zero", "[correctness][reduce]") {
  const int R = 6, K = 20;
  Tensor A = placeholder({R, K}, Int(32), "A");
  IterVar k = reduce_axis({3, K - 2}, "k");  // [3, 18)
  Tensor C = compute(
      {R}, [&](Var i) { return sum(A(i, k), {k}); }, "C");
  Kernel kern = build_kernel({C}, {A, C}, "offset_sum");
  INFO("lowered:\n" << kern.lowered);
  NDArray a = random_array<int32_t>({R, K}, 141, -100.0, 100.0);
  NDArray c = NDArray::empty({R}, Int(32));
  kern(a, c);
  std::vector<int32_t> av = a.to_vector<int32_t>(), ref(R, 0);
  for (int i = 0; i < R; ++i)
    for (int j = 3; j < K - 2; ++j) ref[i] += av[i * K + j];
  check_close<int32_t>(c, ref);
}

TEMPLATE_TEST_CASE("conditional reductions skip the elements where the condition is false",
                   "[correctness][reduce][condition]", float, double, int32_t) {
  using T = TestType;
  const Type t = dtype_of<T>();
  const int N = 33;
  Tensor A = placeholder({N, N}, t, "A");
  IterVar k1 = reduce_axis({0, N}, "k1"), k2 = reduce_axis({0, N}, "k2"), k3 = reduce_axis({0, N}, "k3");
  // Lower-triangular row sums.
  Tensor Tri = compute(
      {N}, [&](Var i) { return sum(A(i, k1), {k1}, k1 <= i); }, "Tri");
  // Max over even columns only.
  Tensor EvenMax = compute(
      {N}, [&](Var i) { return max(A(i, k2), {k2}, k2 % 2 == 0); }, "EvenMax");
  // A data-dependent condition: the sum of the positive entries.
  Tensor Pos = compute(
      {N}, [&](Var i) { return sum(A(i, k3), {k3}, A(i, k3) > 0); }, "Pos");
  Kernel k = build_kernel({Tri, EvenMax, Pos}, {A, Tri, EvenMax, Pos}, "cond_reduce");
  INFO("lowered:\n" << k.lowered);

  NDArray a = random_array<T>({N, N}, 151, -100.0, 100.0);
  NDArray tri = NDArray::empty({N}, t), em = NDArray::empty({N}, t), pos = NDArray::empty({N}, t);
  k(a, tri, em, pos);
  std::vector<T> av = a.to_vector<T>(), rtri(N, T(0)), rem(N), rpos(N, T(0));
  for (int i = 0; i < N; ++i) {
    rem[i] = std::numeric_limits<T>::lowest();
    for (int j = 0; j < N; ++j) {
      T v = av[i * N + j];
      if (j <= i) rtri[i] += v;
      if (j % 2 == 0) rem[i] = std::max(rem[i], v);
      if (v > 0) rpos[i] += v;
    }
  }
  {
    INFO("triangular sum");
    check_close<T>(tri, rtri, sum_tolerance<T>(N * 100));
  }
  {
    INFO("max over even columns");
    check_close<T>(em, rem, {0, 0});
  }
  {
    INFO("sum of positive entries");
    check_close<T>(pos, rpos, sum_tolerance<T>(N * 100));
  }
}

TEST_CASE("a conditional max over an empty selection yields the identity of max",
          "[correctness][reduce][condition]") {
  const int N = 4, K = 5;
  Tensor A = placeholder({N, K}, Float(32), "A");
  IterVar k = reduce_axis({0, K}, "k");
  // Rows with no element above 10 keep the identity: the lowest finite float.
  Tensor M = compute(
      {N}, [&](Var i) { return max(A(i, k), {k}, A(i, k) > 10.0f); }, "M");
  Kernel kern = build_kernel({M}, {A, M}, "empty_max");
  INFO("lowered:\n" << kern.lowered);
  NDArray a = random_array<float>({N, K}, 161);
  NDArray m = NDArray::empty({N}, Float(32));
  kern(a, m);
  std::vector<float> ref(N, std::numeric_limits<float>::lowest());
  check_close<float>(m, ref, {0, 0});
}

TEMPLATE_TEST_CASE("argmax through comm_reducer returns the index and value of the maximum",
                   "[correctness][reduce][argmax]", float, double, int32_t) {
  using T = TestType;
  const Type t = dtype_of<T>();
  auto argmax = argmax_reducer();
  for (auto [R, K] : std::vector<std::pair<int, int>>{{7, 33}, {3, 1023}}) {
    DYNAMIC_SECTION(R << "x" << K) {
      Tensor X = placeholder({R, K}, t, "X");
      IterVar k = reduce_axis({0, K}, "k");
      std::vector<Tensor> outs = compute(
          {R},
          [&](Var i) {
            return argmax({k, X(i, k)}, {k});
          },
          "argmax");
      REQUIRE(outs.size() == 2);
      REQUIRE(outs[0].dtype() == Int(32));
      REQUIRE(outs[1].dtype() == t);
      Kernel kern = build_kernel(outs, {X, outs[0], outs[1]}, "argmax");
      INFO("lowered:\n" << kern.lowered);

      // Integers from a wide range so that ties are rare; the first maximum wins ties.
      NDArray x = random_array<T>({R, K}, 171, -1e6, 1e6);
      NDArray idx = NDArray::empty({R}, Int(32)), val = NDArray::empty({R}, t);
      kern(x, idx, val);
      std::vector<T> xv = x.to_vector<T>(), rval(R);
      std::vector<int32_t> ridx(R);
      for (int i = 0; i < R; ++i) {
        int best = 0;
        for (int j = 1; j < K; ++j)
          if (xv[i * K + j] > xv[i * K + best]) best = j;
        ridx[i] = best;
        rval[i] = xv[i * K + best];
      }
      check_close<int32_t>(idx, ridx);
      check_close<T>(val, rval, {0, 0});
    }
  }
}

TEST_CASE("a reduction of an expression over two tensors (dot products per row)", "[correctness][reduce]") {
  const int R = 17, K = 129;
  Tensor A = placeholder({R, K}, Float(64), "A");
  Tensor w = placeholder({K}, Float(64), "w");
  IterVar k = reduce_axis({0, K}, "k");
  Tensor C = compute(
      {R}, [&](Var i) { return sum(A(i, k) * w(k) + 1, {k}); }, "C");
  Kernel kern = build_kernel({C}, {A, w, C}, "row_dot");
  INFO("lowered:\n" << kern.lowered);
  NDArray a = random_array<double>({R, K}, 181), wv = random_array<double>({K}, 182);
  NDArray c = NDArray::empty({R}, Float(64));
  kern(a, wv, c);
  std::vector<double> av = a.to_vector<double>(), wvv = wv.to_vector<double>(), ref(R, 0.0);
  for (int i = 0; i < R; ++i)
    for (int j = 0; j < K; ++j) ref[i] += av[i * K + j] * wvv[j] + 1.0;
  check_close<double>(c, ref, sum_tolerance<double>(K));
}
