// Symbolic shapes and scalar arguments: one build, called at several sizes.
#include <Eigen/Dense>
#include <cstdint>
#include <tuple>
#include <vector>

#include "correctness/reference.h"

using namespace tensorir;
using namespace tensorir::testing;

TEMPLATE_TEST_CASE("an element-wise kernel over symbolic n x m runs at any size", "[correctness][symbolic]",
                   float, double, int32_t) {
  using T = TestType;
  const Type t = dtype_of<T>();
  Var n("n"), m("m");
  Tensor A = placeholder({n, m}, t, "A");
  Tensor B = placeholder({n, m}, t, "B");
  Tensor C = compute(
      {n, m}, [&](Var i, Var j) { return A(i, j) * B(i, j) + A(i, j) - cast(t, j); }, "C");
  Kernel k = build_kernel({C}, {A, B, C}, "sym_ew");
  INFO("lowered:\n" << k.lowered);
  for (auto [N, M] : std::vector<std::pair<int, int>>{{5, 7}, {33, 17}, {1, 1}}) {
    INFO("n = " << N << ", m = " << M);
    NDArray a = random_array<T>({N, M}, 501 + N, -100.0, 100.0),
            b = random_array<T>({N, M}, 502 + N, -100.0, 100.0);
    NDArray c = NDArray::empty({N, M}, t);
    k(a, b, c);
    std::vector<T> av = a.to_vector<T>(), bv = b.to_vector<T>(), ref(N * M);
    for (int i = 0; i < N; ++i)
      for (int j = 0; j < M; ++j) ref[i * M + j] = av[i * M + j] * bv[i * M + j] + av[i * M + j] - T(j);
    check_close<T>(c, ref);
  }
}

TEMPLATE_TEST_CASE("a row sum over a symbolic reduction extent", "[correctness][symbolic][reduce]", float,
                   int32_t) {
  using T = TestType;
  const Type t = dtype_of<T>();
  Var n("n"), m("m");
  Tensor A = placeholder({n, m}, t, "A");
  IterVar k = reduce_axis({0, m}, "k");
  Tensor S = compute(
      {n}, [&](Var i) { return sum(A(i, k), {k}); }, "S");
  Kernel kern = build_kernel({S}, {A, S}, "sym_rowsum");
  INFO("lowered:\n" << kern.lowered);
  for (auto [N, M] : std::vector<std::pair<int, int>>{{5, 7}, {33, 17}, {2, 1023}}) {
    INFO("n = " << N << ", m = " << M);
    NDArray a = random_array<T>({N, M}, 511 + M, -100.0, 100.0);
    NDArray s = NDArray::empty({N}, t);
    kern(a, s);
    std::vector<T> av = a.to_vector<T>(), ref(N, T(0));
    for (int i = 0; i < N; ++i)
      for (int j = 0; j < M; ++j) ref[i] += av[i * M + j];
    Tolerance tol = std::is_integral_v<T> ? Tolerance{0, 0} : Tolerance{1e-3 * M, 1e-5};
    check_close<T>(s, ref, tol);
  }
}

TEST_CASE("a symbolic stencil whose output has n - 2 elements", "[correctness][symbolic][pipeline]") {
  Var n("n");
  Tensor A = placeholder({n}, Float(32), "A");
  Tensor B = compute(
      {n}, [&](Var i) { return A(i) * 2.0f; }, "B");
  Tensor C = compute(
      {n - 2}, [&](Var i) { return B(i) + B(i + 1) + B(i + 2); }, "C");
  Kernel k = build_kernel({C}, {A, C}, "sym_stencil");
  INFO("lowered:\n" << k.lowered);
  for (int N : {3, 10, 1025}) {
    INFO("n = " << N);
    NDArray a = random_array<float>({N}, 521 + N);
    NDArray c = NDArray::empty({N - 2}, Float(32));
    k(a, c);
    std::vector<float> av = a.to_vector<float>(), ref(N - 2);
    for (int i = 0; i < N - 2; ++i) ref[i] = av[i] * 2.0f + av[i + 1] * 2.0f + av[i + 2] * 2.0f;
    check_close<float>(c, ref);
  }
}

TEST_CASE("a symbolic matmul matches Eigen at two sizes", "[correctness][symbolic][matmul]") {
  using RowMajor = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  Var n("n"), l("l"), m("m");
  Tensor A = placeholder({n, l}, Float(32), "A");
  Tensor B = placeholder({l, m}, Float(32), "B");
  IterVar k = reduce_axis({0, l}, "k");
  Tensor C = compute(
      {n, m}, [&](Var i, Var j) { return sum(A(i, k) * B(k, j), {k}); }, "C");
  Kernel kern = build_kernel({C}, {A, B, C}, "sym_matmul");
  INFO("lowered:\n" << kern.lowered);
  for (auto [N, L, M] : std::vector<std::tuple<int, int, int>>{{5, 3, 7}, {33, 65, 17}}) {
    INFO(N << "x" << L << "x" << M);
    NDArray a = random_array<float>({N, L}, 531), b = random_array<float>({L, M}, 532);
    NDArray c = NDArray::empty({N, M}, Float(32));
    kern(a, b, c);
    RowMajor ref = Eigen::Map<const RowMajor>(a.data_as<float>(), N, L) *
                   Eigen::Map<const RowMajor>(b.data_as<float>(), L, M);
    check_close<float>(c, std::vector<float>(ref.data(), ref.data() + ref.size()), {2e-6 * L, 1e-5});
  }
}

TEST_CASE("scalar float and int arguments are passed by value", "[correctness][symbolic][scalar]") {
  const int n = 33;
  Var alpha("alpha", Float(32));
  Var offset("offset", Int(32));
  Tensor A = placeholder({n}, Float(32), "A");
  Tensor I = placeholder({n}, Int(32), "I");
  Tensor C = compute(
      {n}, [&](Var i) { return A(i) * alpha; }, "C");
  Tensor D = compute(
      {n}, [&](Var i) { return I(i) + offset; }, "D");
  Kernel k = build_kernel({C, D}, {A, I, alpha, offset, C, D}, "scalars");
  INFO("lowered:\n" << k.lowered);
  NDArray a = random_array<float>({n}, 541);
  NDArray iv = random_array<int32_t>({n}, 542, -100.0, 100.0);
  for (auto [al, off] : std::vector<std::pair<float, int>>{{2.5f, 7}, {-0.25f, -1000}}) {
    INFO("alpha = " << al << ", offset = " << off);
    NDArray c = NDArray::empty({n}, Float(32)), d = NDArray::empty({n}, Int(32));
    k(a, iv, al, off, c, d);
    std::vector<float> av = a.to_vector<float>(), rc(n);
    std::vector<int32_t> ivv = iv.to_vector<int32_t>(), rd(n);
    for (int i = 0; i < n; ++i) {
      rc[i] = av[i] * al;
      rd[i] = ivv[i] + off;
    }
    check_close<float>(c, rc);
    check_close<int32_t>(d, rd);
  }
}

TEST_CASE("a symbolic shape variable may also be used as a value in the body", "[correctness][symbolic]") {
  Var n("n");
  Tensor A = placeholder({n}, Int(32), "A");
  Tensor C = compute(
      {n}, [&](Var i) { return A(i) + (n - 1 - i) * 10; }, "C");
  Kernel k = build_kernel({C}, {A, C}, "sym_value");
  INFO("lowered:\n" << k.lowered);
  for (int N : {4, 77}) {
    INFO("n = " << N);
    NDArray a = random_array<int32_t>({N}, 551, -100.0, 100.0);
    NDArray c = NDArray::empty({N}, Int(32));
    k(a, c);
    std::vector<int32_t> av = a.to_vector<int32_t>(), ref(N);
    for (int i = 0; i < N; ++i) ref[i] = av[i] + (N - 1 - i) * 10;
    check_close<int32_t>(c, ref);
  }
}

TEST_CASE("a split by a factor given at run time, reordered and checked", "[correctness][symbolic][schedule]") {
  // The inner loop outside the outer one: the tail split of the symbolic loop must not
  // name a loop variable defined inside it.
  Var n("n"), f("f");
  Tensor A = placeholder({n}, Float(32), "A");
  Tensor C = compute({n}, [&](Var i) { return A(i) * 2.0f + 1.0f; }, "C");
  Schedule s = create_schedule({C});
  auto [outer, inner] = s[C].split(C.axis(0), f);
  s[C].reorder({inner, outer});
  Kernel k = build_kernel(s, {A, C, f}, "split_by_f");
  INFO("lowered:\n" << k.lowered);
  for (auto [N, F] : std::vector<std::pair<int, int64_t>>{{10, 3}, {16, 4}, {7, 20}, {1, 1}}) {
    INFO("n = " << N << ", f = " << F);
    const NDArray a = random_array<float>({N}, 531 + N);
    NDArray c = NDArray::empty({N}, Float(32));
    k(a, c, F);
    std::vector<double> ref;
    for (float x : a.to_vector<float>()) ref.push_back(double(x) * 2 + 1);
    check_close<float>(c, ref);
  }
  // A factor of 0 or less would run no iteration and leave C unwritten: the call fails.
  for (int64_t F : {int64_t(0), int64_t(-2)}) {
    NDArray c = NDArray::empty({8}, Float(32));
    CHECK_THROWS_WITH(k(random_array<float>({8}, 539), c, F),
                      Catch::Matchers::Contains("split by the factor f") && Catch::Matchers::Contains("at least 1"));
  }
}
