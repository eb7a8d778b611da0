// Multi-stage pipelines: a producer read by a stencil consumer, a separable 2-D blur,
// an intermediate that is also an output, a transposing consumer and a softmax.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "correctness/reference.h"

using namespace tensorir;
using namespace tensorir::testing;

TEMPLATE_TEST_CASE("a producer read at three offsets by a 1-D stencil consumer", "[correctness][pipeline]",
                   float, double, int32_t) {
  using T = TestType;
  const Type t = dtype_of<T>();
  for (int n : {1, 7, 1023}) {
    DYNAMIC_SECTION("n = " << n) {
      Tensor A = placeholder({n + 2}, t, "A");
      Tensor B = compute(
          {n + 2}, [&](Var i) { return A(i) * 2; }, "B");
      Tensor C2 = compute(
          {n}, [&](Var i) { return B(i) + B(i + 1); }, "C2");
      Tensor C3 = compute(
          {n}, [&](Var i) { return B(i) + B(i + 1) + B(i + 2); }, "C3");
      Kernel k = build_kernel({C2, C3}, {A, C2, C3}, "stencil1d");
      INFO("lowered:\n" << k.lowered);
      NDArray a = random_array<T>({n + 2}, 401, -100.0, 100.0);
      NDArray c2 = NDArray::empty({n}, t), c3 = NDArray::empty({n}, t);
      k(a, c2, c3);
      std::vector<T> av = a.to_vector<T>(), r2(n), r3(n);
      for (int i = 0; i < n; ++i) {
        r2[i] = av[i] * T(2) + av[i + 1] * T(2);
        r3[i] = av[i] * T(2) + av[i + 1] * T(2) + av[i + 2] * T(2);
      }
      check_close<T>(c2, r2);
      check_close<T>(c3, r3);
    }
  }
}

TEST_CASE("a separable 3x3 blur in two stages matches a direct 3x3 average", "[correctness][pipeline]") {
  const int H = 33, W = 17;
  Tensor A = placeholder({H + 2, W + 2}, Float(32), "A");
  Tensor Bx = compute(
      {H + 2, W}, [&](Var i, Var j) { return (A(i, j) + A(i, j + 1) + A(i, j + 2)) / 3.0f; }, "Bx");
  Tensor By = compute(
      {H, W}, [&](Var i, Var j) { return (Bx(i, j) + Bx(i + 1, j) + Bx(i + 2, j)) / 3.0f; }, "By");
  Kernel k = build_kernel({By}, {A, By}, "blur");
  INFO("lowered:\n" << k.lowered);
  NDArray a = random_array<float>({H + 2, W + 2}, 411);
  NDArray b = NDArray::empty({H, W}, Float(32));
  k(a, b);
  std::vector<float> av = a.to_vector<float>(), ref(H * W);
  for (int i = 0; i < H; ++i)
    for (int j = 0; j < W; ++j) {
      double acc = 0;
      for (int di = 0; di < 3; ++di)
        for (int dj = 0; dj < 3; ++dj) acc += av[(i + di) * (W + 2) + j + dj];
      ref[i * W + j] = static_cast<float>(acc / 9.0);
    }
  check_close<float>(b, ref, {1e-6, 1e-5});
}

TEST_CASE("an intermediate stage that is also an output is written to its argument",
          "[correctness][pipeline]") {
  const int n = 65;
  Tensor A = placeholder({n}, Float(64), "A");
  Tensor B = compute(
      {n}, [&](Var i) { return A(i) * A(i); }, "B");
  Tensor C = compute(
      {n}, [&](Var i) { return B(i) + A(i); }, "C");
  Kernel k = build_kernel({B, C}, {A, B, C}, "two_outputs");
  INFO("lowered:\n" << k.lowered);
  NDArray a = random_array<double>({n}, 421);
  NDArray b = NDArray::empty({n}, Float(64)), c = NDArray::empty({n}, Float(64));
  k(a, b, c);
  std::vector<double> av = a.to_vector<double>(), rb(n), rc(n);
  for (int i = 0; i < n; ++i) {
    rb[i] = av[i] * av[i];
    rc[i] = rb[i] + av[i];
  }
  check_close<double>(b, rb);
  check_close<double>(c, rc);
}

TEST_CASE("a consumer that reads its producer transposed", "[correctness][pipeline]") {
  const int M = 7, N = 33;
  Tensor A = placeholder({M, N}, Int(32), "A");
  Tensor B = compute(
      {M, N}, [&](Var i, Var j) { return A(i, j) * 3; }, "B");
  Tensor C = compute(
      {N, M}, [&](Var i, Var j) { return B(j, i) - i; }, "C");
  Kernel k = build_kernel({C}, {A, C}, "transpose");
  INFO("lowered:\n" << k.lowered);
  NDArray a = random_array<int32_t>({M, N}, 431, -100.0, 100.0);
  NDArray c = NDArray::empty({N, M}, Int(32));
  k(a, c);
  std::vector<int32_t> av = a.to_vector<int32_t>(), ref(N * M);
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < M; ++j) ref[i * M + j] = av[j * N + i] * 3 - i;
  check_close<int32_t>(c, ref);
}

TEST_CASE("row softmax in four stages (max then exp then sum then divide)",
          "[correctness][pipeline][reduce]") {
  const int R = 9, K = 257;
  Tensor X = placeholder({R, K}, Float(32), "X");
  IterVar k1 = reduce_axis({0, K}, "k1"), k2 = reduce_axis({0, K}, "k2");
  Tensor Mx = compute(
      {R}, [&](Var i) { return max(X(i, k1), {k1}); }, "Mx");
  Tensor E = compute(
      {R, K}, [&](Var i, Var j) { return exp(X(i, j) - Mx(i)); }, "E");
  Tensor S = compute(
      {R}, [&](Var i) { return sum(E(i, k2), {k2}); }, "S");
  Tensor Y = compute(
      {R, K}, [&](Var i, Var j) { return E(i, j) / S(i); }, "Y");
  Kernel k = build_kernel({Y}, {X, Y}, "softmax");
  INFO("lowered:\n" << k.lowered);
  NDArray x = random_array<float>({R, K}, 441, -5.0, 5.0);
  NDArray y = NDArray::empty({R, K}, Float(32));
  k(x, y);
  std::vector<float> xv = x.to_vector<float>(), ref(R * K);
  for (int i = 0; i < R; ++i) {
    double m = xv[i * K], s = 0;
    for (int j = 0; j < K; ++j) m = std::max<double>(m, xv[i * K + j]);
    for (int j = 0; j < K; ++j) s += std::exp(xv[i * K + j] - m);
    for (int j = 0; j < K; ++j) ref[i * K + j] = static_cast<float>(std::exp(xv[i * K + j] - m) / s);
  }
  check_close<float>(y, ref, {1e-7, 1e-4});
}

TEST_CASE("a chain of ten element-wise stages", "[correctness][pipeline]") {
  const int n = 100;
  Tensor A = placeholder({n}, Float(32), "A");
  Tensor cur = A;
  for (int s = 0; s < 10; ++s) {
    Tensor prev = cur;
    std::string name = std::to_string(s);
    name.insert(name.begin(), 'S');  // not "S" + ...: GCC 12 warns falsely (-Wrestrict) on that
    cur = compute({n}, [&](Var i) { return prev(i) * 0.5f + float(s); }, name);
  }
  Kernel k = build_kernel({cur}, {A, cur}, "chain");
  INFO("lowered:\n" << k.lowered);
  NDArray a = random_array<float>({n}, 451);
  NDArray out = NDArray::empty({n}, Float(32));
  k(a, out);
  std::vector<float> ref = a.to_vector<float>();
  for (int s = 0; s < 10; ++s)
    for (float &v : ref) v = v * 0.5f + float(s);
  check_close<float>(out, ref);
}

TEST_CASE("a stencil producer computed inside or inlined into its consumer gives the same result",
          "[correctness][pipeline][schedule]") {
  const int n = 1023;
  Tensor A = placeholder({n + 2}, Float(32), "A");
  Tensor B = compute(
      {n + 2}, [&](Var i) { return A(i) * 2.0f; }, "B");
  Tensor C = compute(
      {n}, [&](Var i) { return B(i) + B(i + 1) + B(i + 2); }, "C");
  NDArray a = random_array<float>({n + 2}, 461);
  std::vector<float> av = a.to_vector<float>(), ref(n);
  for (int i = 0; i < n; ++i) ref[i] = av[i] * 2.0f + av[i + 1] * 2.0f + av[i + 2] * 2.0f;
  for (const char *where : {"compute_at outer", "compute_at inner", "inline"}) {
    DYNAMIC_SECTION(where) {
      Schedule s = create_schedule({C});
      auto [co, ci] = s[C].split(C.axis(0), 64);
      if (std::string(where) == "compute_at outer")
        s[B].compute_at(s[C], co);
      else if (std::string(where) == "compute_at inner")
        s[B].compute_at(s[C], ci);
      else
        s[B].compute_inline();
      Kernel k = build_kernel(s, {A, C}, "stencil_sched");
      INFO("lowered:\n" << k.lowered);
      NDArray c = NDArray::empty({n}, Float(32));
      k(a, c);
      check_close<float>(c, ref);
    }
  }
}

TEST_CASE("a two-stage blur with the horizontal pass computed per output row",
          "[correctness][pipeline][schedule]") {
  const int H = 33, W = 17;
  Tensor A = placeholder({H + 2, W + 2}, Float(32), "A");
  Tensor Bx = compute(
      {H + 2, W}, [&](Var i, Var j) { return (A(i, j) + A(i, j + 1) + A(i, j + 2)) / 3.0f; }, "Bx");
  Tensor By = compute(
      {H, W}, [&](Var i, Var j) { return (Bx(i, j) + Bx(i + 1, j) + Bx(i + 2, j)) / 3.0f; }, "By");
  Schedule s = create_schedule({By});
  s[Bx].compute_at(s[By], By.axis(0));
  Kernel k = build_kernel(s, {A, By}, "blur_at");
  INFO("lowered:\n" << k.lowered);
  NDArray a = random_array<float>({H + 2, W + 2}, 471);
  NDArray b = NDArray::empty({H, W}, Float(32));
  k(a, b);
  std::vector<float> av = a.to_vector<float>(), ref(H * W);
  for (int i = 0; i < H; ++i)
    for (int j = 0; j < W; ++j) {
      double acc = 0;
      for (int di = 0; di < 3; ++di)
        for (int dj = 0; dj < 3; ++dj) acc += av[(i + di) * (W + 2) + j + dj];
      ref[i * W + j] = static_cast<float>(acc / 9.0);
    }
  check_close<float>(b, ref, {1e-6, 1e-5});
}
