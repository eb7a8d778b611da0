// The core correctness cases on every target: "llvm", "opengl" (GLSL compute shaders) and
// "opengl -mode=fragment" (GLSL ES fragment shaders, as on WebGL), each against one plain
// C++ reference. The OpenGL targets run on the headless context (Mesa llvmpipe here);
// without an OpenGL context every OpenGL case fails.
//
// What a target cannot express stays with that target's own tests: float64, 8/16-bit,
// bool and uint32 tensors, bound threads and shared memory in test_opengl_compute.cpp
// (the fragment target stores float32 and int32 only and binds no loops itself), and
// the fragment target's own layouts in test_opengl_fragment.cpp.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "correctness/reference.h"
#include "correctness/target_runner.h"

using namespace tensorir;
using namespace tensorir::testing;

#if TENSORIR_WITH_OPENGL

namespace {

#define ALL_TARGETS GENERATE(as<std::string>{}, "llvm", "opengl", "opengl -mode=fragment", "opencl")

template <typename T>
std::vector<T> host(const NDArray &a) {
  return a.to_vector<T>();
}

}  // namespace

TEST_CASE("every target: element-wise float arithmetic, select, min and max",
          "[correctness][targets][opengl][fragment][opencl]") {
  const std::string target = ALL_TARGETS;
  INFO("target " << target);
  const int n = 1000;  // not a multiple of the work-group size
  Tensor A = placeholder({n}, Float(32), "A");
  Tensor B = placeholder({n}, Float(32), "B");
  Tensor C = compute(
      {n},
      [&](Var i) {
        Expr a = A(i), b = B(i);
        return select(a > b, a * b - 1.5f, a / (b + 3.0f)) + min(a, b) * max(a, b);
      },
      "C");
  NDArray a = random_array<float>({n}, 1), b = random_array<float>({n}, 2);
  auto out = run_on_target(target, create_schedule({C}), {A, B, C}, "ew", {a, b, NDArray::empty({n}, Float(32))});
  auto av = host<float>(a), bv = host<float>(b);
  std::vector<double> ref(n);
  for (int i = 0; i < n; ++i) {
    double x = av[i], y = bv[i];
    ref[i] = (x > y ? x * y - 1.5 : x / (y + 3.0)) + std::min(x, y) * std::max(x, y);
  }
  check_close<float>(out[2], ref, tolerance_for<float>(target));
}

TEST_CASE("every target: integer floor division and modulo, casts and comparisons",
          "[correctness][targets][opengl][fragment][opencl]") {
  const std::string target = ALL_TARGETS;
  INFO("target " << target);
  const int n = 777;
  Tensor A = placeholder({n}, Int(32), "A");
  Tensor B = placeholder({n}, Int(32), "B");
  Tensor Q = compute({n}, [&](Var i) { return A(i) / B(i) + A(i) % B(i) * 1000; }, "Q");
  // Constant divisors: powers of two become shifts and masks.
  Tensor P = compute({n}, [&](Var i) { return A(i) / 8 + (A(i) % 16) * 100 + (A(i) / 7) * 10000; }, "P");
  Tensor F = compute(
      {n}, [&](Var i) { return cast(Float(32), A(i)) * 0.5f + cast(Float(32), cast(Int(32), cast(Float(32), B(i)) * 1.7f)); },
      "F");
  Tensor L = compute({n}, [&](Var i) { return cast(Int(32), A(i) < B(i)) + cast(Int(32), A(i) == B(i) || A(i) > 90) * 2; }, "L");
  NDArray a = random_array<int32_t>({n}, 3, -100, 100);
  NDArray b = random_array<int32_t>({n}, 4, 1, 20);
  {  // negative divisors too
    auto bv = b.to_vector<int32_t>();
    for (int i = 0; i < n; i += 3) bv[i] = -bv[i];
    b = NDArray::from_vector(bv, {n});
  }
  auto out = run_on_target(target, create_schedule({Q, P, F, L}), {A, B, Q, P, F, L}, "ints",
                           {a, b, NDArray::empty({n}, Int(32)), NDArray::empty({n}, Int(32)),
                            NDArray::empty({n}, Float(32)), NDArray::empty({n}, Int(32))});
  auto av = host<int32_t>(a), bv = host<int32_t>(b);
  std::vector<int32_t> q(n), p(n), l(n);
  std::vector<double> f(n);
  for (int i = 0; i < n; ++i) {
    q[i] = floordiv_ref(av[i], bv[i]) + floormod_ref(av[i], bv[i]) * 1000;
    p[i] = floordiv_ref(av[i], 8) + floormod_ref(av[i], 16) * 100 + floordiv_ref(av[i], 7) * 10000;
    f[i] = float(av[i]) * 0.5f + float(int32_t(float(bv[i]) * 1.7f));
    l[i] = int(av[i] < bv[i]) + int(av[i] == bv[i] || av[i] > 90) * 2;
  }
  check_close<int32_t>(out[2], q);
  check_close<int32_t>(out[3], p);
  check_close<float>(out[4], f, tolerance_for<float>(target));
  check_close<int32_t>(out[5], l);
}

TEST_CASE("every target: math intrinsics match the C library", "[correctness][targets][opengl][fragment][opencl]") {
  const std::string target = ALL_TARGETS;
  INFO("target " << target);
  const int n = 1031;
  Tensor X = placeholder({n}, Float(32), "X");  // in [-4, 4)
  Tensor P = placeholder({n}, Float(32), "P");  // in [0.01, 3)
  struct Case {
    const char *name;
    Expr (*f)(Expr, Expr);
    double (*ref)(double, double);
    Tolerance tol;
  };
  const Tolerance t{2e-6, 1e-5};
  std::vector<Case> cases{
      {"exp", [](Expr x, Expr) { return exp(x); }, [](double x, double) { return std::exp(x); }, t},
      {"log", [](Expr, Expr p) { return log(p); }, [](double, double p) { return std::log(p); }, t},
      {"sqrt", [](Expr, Expr p) { return sqrt(p); }, [](double, double p) { return std::sqrt(p); }, t},
      {"rsqrt", [](Expr, Expr p) { return rsqrt(p); }, [](double, double p) { return 1 / std::sqrt(p); }, t},
      {"tanh", [](Expr x, Expr) { return tanh(x); }, [](double x, double) { return std::tanh(x); }, t},
      {"sigmoid", [](Expr x, Expr) { return sigmoid(x); }, [](double x, double) { return 1 / (1 + std::exp(-x)); }, t},
      {"erf", [](Expr x, Expr) { return erf(x); }, [](double x, double) { return std::erf(x); }, {1e-6, 1e-5}},
      {"pow", [](Expr x, Expr p) { return pow(p, x); }, [](double x, double p) { return std::pow(p, x); }, {1e-5, 1e-5}},
      {"pow of negatives", [](Expr x, Expr) { return pow(x, floor(x)); },
       [](double x, double) { return std::pow(double(float(x)), std::floor(x)); }, {1e-5, 1e-5}},
      {"fmod", [](Expr x, Expr p) { return fmod(x * 3.0f, p); },
       [](double x, double p) { return std::fmod(double(float(x * 3)), p); }, t},
      {"abs", [](Expr x, Expr) { return abs(x); }, [](double x, double) { return std::abs(x); }, {0, 0}},
      {"floor", [](Expr x, Expr) { return floor(x * 3.0f); }, [](double x, double) { return std::floor(double(float(x * 3))); }, {0, 0}},
      {"ceil", [](Expr x, Expr) { return ceil(x * 3.0f); }, [](double x, double) { return std::ceil(double(float(x * 3))); }, {0, 0}},
      {"sin", [](Expr x, Expr) { return sin(x); }, [](double x, double) { return std::sin(x); }, t},
      {"cos", [](Expr x, Expr) { return cos(x); }, [](double x, double) { return std::cos(x); }, t},
      {"tan", [](Expr x, Expr) { return tan(x * 0.35f); },
       [](double x, double) { return std::tan(double(float(x * 0.35f))); }, t},
      {"asin", [](Expr x, Expr) { return asin(x * 0.25f); }, [](double x, double) { return std::asin(x / 4); }, t},
      {"acos", [](Expr x, Expr) { return acos(x * 0.25f); }, [](double x, double) { return std::acos(x / 4); }, t},
      {"atan", [](Expr x, Expr) { return atan(x * 2.0f); }, [](double x, double) { return std::atan(x * 2); }, t},
      {"sinh", [](Expr x, Expr) { return sinh(x); }, [](double x, double) { return std::sinh(x); }, t},
      {"cosh", [](Expr x, Expr) { return cosh(x); }, [](double x, double) { return std::cosh(x); }, t},
      {"asinh", [](Expr x, Expr) { return asinh(x); }, [](double x, double) { return std::asinh(x); }, t},
      {"acosh", [](Expr, Expr p) { return acosh(p + 1.0f); },
       [](double, double p) { return std::acosh(double(float(p + 1))); }, t},
      {"atanh", [](Expr x, Expr) { return atanh(x * 0.25f); }, [](double x, double) { return std::atanh(x / 4); }, t},
  };
  for (const Case &c : cases) {
    DYNAMIC_SECTION(c.name) {
      Tensor Y = compute({n}, [&](Var i) { return c.f(X(i), P(i)); }, "Y");
      NDArray x = random_array<float>({n}, 11, -4.0, 4.0), p = random_array<float>({n}, 12, 0.01, 3.0);
      auto out = run_on_target(target, create_schedule({Y}), {X, P, Y}, "intrin", {x, p, NDArray::empty({n}, Float(32))});
      auto xv = host<float>(x), pv = host<float>(p);
      std::vector<double> ref(n);
      for (int i = 0; i < n; ++i) ref[i] = c.ref(xv[i], pv[i]);
      check_close<float>(out[2], ref, c.tol);
    }
  }
}

TEST_CASE("every target: broadcasting with a scalar argument", "[correctness][targets][opengl][fragment][opencl]") {
  const std::string target = ALL_TARGETS;
  INFO("target " << target);
  const int R = 37, K = 53;
  Tensor A = placeholder({R, K}, Float(32), "A");
  Tensor b = placeholder({K}, Float(32), "b");
  Var alpha("alpha", Float(32));
  Var shift("shift", Int(32));
  Tensor C = compute({R, K}, [&](Var i, Var j) { return A(i, j) * alpha + b(j) + cast(Float(32), i * shift); }, "C");
  NDArray a = random_array<float>({R, K}, 21), bb = random_array<float>({K}, 22);
  auto out = run_on_target(target, create_schedule({C}), {A, b, alpha, shift, C}, "bcast",
                           {a, bb, 0.75, int64_t(-2), NDArray::empty({R, K}, Float(32))});
  auto av = host<float>(a), bv = host<float>(bb);
  std::vector<double> ref(R * K);
  for (int i = 0; i < R; ++i)
    for (int j = 0; j < K; ++j) ref[i * K + j] = av[i * K + j] * 0.75 + bv[j] + i * -2.0;
  check_close<float>(out[4], ref, tolerance_for<float>(target));
}

TEST_CASE("every target: sum, max and argmax reductions", "[correctness][targets][opengl][fragment][opencl]") {
  const std::string target = ALL_TARGETS;
  INFO("target " << target);
  const int R = 45, K = 129;
  Tensor A = placeholder({R, K}, Float(32), "A");
  IterVar k1 = reduce_axis({0, K}, "k1"), k2 = reduce_axis({0, K}, "k2"), k3 = reduce_axis({0, K}, "k3");
  Tensor S = compute({R}, [&](Var i) { return sum(A(i, k1), {k1}); }, "S");
  Tensor M = compute({R}, [&](Var i) { return max(A(i, k2), {k2}); }, "M");
  Reducer argmax = argmax_reducer();
  std::vector<Tensor> am = compute({R}, [&](Var i) { return argmax({Expr(k3.var()), A(i, k3)}, {k3}); }, "AM");
  NDArray a = random_array<float>({R, K}, 31);
  auto out = run_on_target(target, create_schedule({S, M, am[0], am[1]}), {A, S, M, am[0], am[1]}, "red",
                           {a, NDArray::empty({R}, Float(32)), NDArray::empty({R}, Float(32)), NDArray::empty({R}, Int(32)),
                            NDArray::empty({R}, Float(32))});
  auto av = host<float>(a);
  std::vector<double> s(R), m(R), v(R);
  std::vector<int32_t> idx(R);
  for (int i = 0; i < R; ++i) {
    double acc = 0;
    float best = -std::numeric_limits<float>::max();
    int at = -1;
    for (int j = 0; j < K; ++j) {
      acc += av[i * K + j];
      if (av[i * K + j] > best) best = av[i * K + j], at = j;
    }
    s[i] = acc;
    m[i] = best;
    v[i] = best;
    idx[i] = at;
  }
  check_close<float>(out[1], s, {1e-5 * K, 1e-5});
  check_close<float>(out[2], m, {0, 0});
  check_close<int32_t>(out[3], idx);
  check_close<float>(out[4], v, {0, 0});
}

TEST_CASE("every target: matmul with the default schedule", "[correctness][targets][opengl][fragment][opencl]") {
  const std::string target = ALL_TARGETS;
  INFO("target " << target);
  const int M = 67, N = 45, K = 80;
  Tensor A = placeholder({M, K}, Float(32), "A");
  Tensor B = placeholder({K, N}, Float(32), "B");
  IterVar k = reduce_axis({0, K}, "k");
  Tensor C = compute({M, N}, [&](Var i, Var j) { return sum(A(i, k) * B(k, j), {k}); }, "C");
  NDArray a = random_array<float>({M, K}, 41), b = random_array<float>({K, N}, 42);
  auto out = run_on_target(target, create_schedule({C}), {A, B, C}, "mm", {a, b, NDArray::empty({M, N}, Float(32))});
  auto av = host<float>(a), bv = host<float>(b);
  std::vector<double> ref(M * N, 0.0);
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j)
      for (int kk = 0; kk < K; ++kk) ref[i * N + j] += double(av[i * K + kk]) * bv[kk * N + j];
  check_close<float>(out[2], ref, {2e-6 * K, 1e-5});
}

TEST_CASE("every target: conv2d with zero padding", "[correctness][targets][opengl][fragment][opencl]") {
  const std::string target = ALL_TARGETS;
  INFO("target " << target);
  const int N = 2, C = 3, H = 11, W = 9, F = 4, KH = 3, KW = 3, pad = 1;
  Tensor X = placeholder({N, C, H, W}, Float(32), "X");
  Tensor Wt = placeholder({F, C, KH, KW}, Float(32), "Wt");
  Tensor Xp = compute(
      {N, C, H + 2 * pad, W + 2 * pad},
      [&](Var n, Var c, Var y, Var x) {
        Expr inside = y >= pad && y < H + pad && x >= pad && x < W + pad;
        return select(inside, X(n, c, y - pad, x - pad), 0.0f);
      },
      "Xp");
  IterVar rc = reduce_axis({0, C}, "rc"), ry = reduce_axis({0, KH}, "ry"), rx = reduce_axis({0, KW}, "rx");
  Tensor Y = compute(
      {N, F, H, W},
      [&](Var n, Var f, Var y, Var x) { return sum(Xp(n, rc, y + ry, x + rx) * Wt(f, rc, ry, rx), {rc, ry, rx}); }, "Y");
  Schedule s = create_schedule({Y});
  s[Xp].compute_inline();
  NDArray x = random_array<float>({N, C, H, W}, 51), w = random_array<float>({F, C, KH, KW}, 52);
  auto out = run_on_target(target, s, {X, Wt, Y}, "conv", {x, w, NDArray::empty({N, F, H, W}, Float(32))});
  auto xv = host<float>(x), wv = host<float>(w);
  std::vector<double> ref(N * F * H * W, 0.0);
  for (int n = 0; n < N; ++n)
    for (int f = 0; f < F; ++f)
      for (int y = 0; y < H; ++y)
        for (int xx = 0; xx < W; ++xx) {
          double acc = 0;
          for (int c = 0; c < C; ++c)
            for (int ky = 0; ky < KH; ++ky)
              for (int kx = 0; kx < KW; ++kx) {
                int iy = y + ky - pad, ix = xx + kx - pad;
                if (iy < 0 || iy >= H || ix < 0 || ix >= W) continue;
                acc += double(xv[((n * C + c) * H + iy) * W + ix]) * wv[((f * C + c) * KH + ky) * KW + kx];
              }
          ref[((n * F + f) * H + y) * W + xx] = acc;
        }
  check_close<float>(out[2], ref, {1e-5, 1e-5});
}

TEST_CASE("every target: a two-stage stencil pipeline runs as two kernels",
          "[correctness][targets][opengl][fragment][opencl]") {
  const std::string target = ALL_TARGETS;
  INFO("target " << target);
  const int H = 40, W = 70;
  Tensor A = placeholder({H, W}, Float(32), "A");
  Tensor Bx = compute({H, W - 2}, [&](Var y, Var x) { return (A(y, x) + A(y, x + 1) + A(y, x + 2)) / 3.0f; }, "Bx");
  Tensor By = compute({H - 2, W - 2}, [&](Var y, Var x) { return (Bx(y, x) + Bx(y + 1, x) + Bx(y + 2, x)) / 3.0f; }, "By");
  Schedule s = create_schedule({By});
  Module m = build(s, {A, By}, target, "blur");
  if (target == "opencl") {  // one program of both kernels
    std::string src = m.source("cl");
    INFO(src);
    CHECK(src.find("__kernel") != std::string::npos);
    CHECK(src.find("blur_kernel0") != std::string::npos);
    CHECK(src.find("blur_kernel1") != std::string::npos);
  } else if (target != "llvm") {  // each OpenGL mode prints its own shaders
    std::string src = m.source("glsl");
    INFO(src);
    bool compute = target == "opengl";
    CHECK(src.find(compute ? "#version 430" : "#version 300 es") != std::string::npos);
    if (compute) {
      CHECK(src.find("blur_kernel0") != std::string::npos);
      CHECK(src.find("blur_kernel1") != std::string::npos);
    }
  }
  NDArray a = random_array<float>({H, W}, 61);
  auto out = call_on_target(m, target, "blur", {a, NDArray::empty({H - 2, W - 2}, Float(32))});
  auto av = host<float>(a);
  std::vector<double> bx(H * (W - 2)), ref((H - 2) * (W - 2));
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W - 2; ++x) bx[y * (W - 2) + x] = (av[y * W + x] + av[y * W + x + 1] + av[y * W + x + 2]) / 3.0;
  for (int y = 0; y < H - 2; ++y)
    for (int x = 0; x < W - 2; ++x)
      ref[y * (W - 2) + x] = (bx[y * (W - 2) + x] + bx[(y + 1) * (W - 2) + x] + bx[(y + 2) * (W - 2) + x]) / 3.0;
  check_close<float>(out[1], ref, tolerance_for<float>(target));
}

TEST_CASE("every target: symbolic shapes, called at two sizes", "[correctness][targets][opengl][fragment][opencl]") {
  const std::string target = ALL_TARGETS;
  INFO("target " << target);
  Var n("n"), m("m");
  Tensor A = placeholder({n, m}, Float(32), "A");
  Tensor B = compute({n, m}, [&](Var i, Var j) { return A(i, j) * 2.0f + cast(Float(32), j - i); }, "B");
  Module mod = build(create_schedule({B}), {A, B}, target, "sym");
  for (auto [N, M] : {std::pair{3, 5}, std::pair{130, 77}}) {
    DYNAMIC_SECTION(N << "x" << M) {
      NDArray a = random_array<float>({N, M}, 71);
      auto out = call_on_target(mod, target, "sym", {a, NDArray::empty({N, M}, Float(32))});
      auto av = host<float>(a);
      std::vector<double> ref(N * M);
      for (int i = 0; i < N * M; ++i) ref[i] = av[i] * 2.0 + (i % M - i / M);
      check_close<float>(out[1], ref, tolerance_for<float>(target));
    }
  }
}

TEST_CASE("every target: a reduction over a symbolic extent", "[correctness][targets][opengl][fragment][opencl]") {
  const std::string target = ALL_TARGETS;
  INFO("target " << target);
  Var n("n"), m("m");
  Tensor A = placeholder({n, m}, Float(32), "A");
  IterVar k = reduce_axis({0, m}, "k");
  Tensor S = compute({n}, [&](Var i) { return sum(A(i, k) * A(i, k), {k}); }, "S");
  Module mod = build(create_schedule({S}), {A, S}, target, "rows");
  for (auto [N, M] : {std::pair{1, 1}, std::pair{70, 33}, std::pair{5, 300}}) {
    DYNAMIC_SECTION(N << "x" << M) {
      NDArray a = random_array<float>({N, M}, 75);
      auto out = call_on_target(mod, target, "rows", {a, NDArray::empty({N}, Float(32))});
      auto av = host<float>(a);
      std::vector<double> ref(N, 0.0);
      for (int i = 0; i < N; ++i)
        for (int j = 0; j < M; ++j) ref[i] += double(av[i * M + j]) * av[i * M + j];
      check_close<float>(out[1], ref, {2e-6 * M, 1e-5});
    }
  }
}

TEST_CASE("every target: reductions longer than a shader invocation's loop limit",
          "[correctness][targets][opengl][fragment][opencl]") {
  // Mesa llvmpipe ends a shader invocation's loops after 65535 passes in all; the compute
  // target runs such loops with fewer passes and the fragment target splits the reduction.
  const std::string target = ALL_TARGETS;
  INFO("target " << target);
  // Small integers: every partial sum is exact in float32, whatever the order.
  auto ints = [](int64_t n, uint64_t seed) {
    auto v = random_array<int32_t>({n}, seed, 0, 4).to_vector<int32_t>();
    return std::vector<float>(v.begin(), v.end());
  };
  SECTION("one axis of 200,000") {
    const int R = 3, K = 200000;
    Tensor A = placeholder({R, K}, Float(32), "A");
    IterVar k = reduce_axis({0, K}, "k");
    Tensor S = compute({R}, [&](Var i) { return sum(A(i, k), {k}); }, "S");
    std::vector<float> av = ints(int64_t(R) * K, 101);
    auto out = run_on_target(target, create_schedule({S}), {A, S}, "long_sum",
                             {NDArray::from_vector(av, {R, K}), NDArray::empty({R}, Float(32))});
    std::vector<double> ref(R, 0.0);
    for (int i = 0; i < R; ++i)
      for (int j = 0; j < K; ++j) ref[i] += av[size_t(i) * K + j];
    check_close<float>(out[1], ref, {0, 0});
  }
  SECTION("two nested axes, 1000 x 65") {
    // 65,000 passes of the inner loop and 1,000 of the outer one: over the limit only
    // when the outer loop's passes count too.
    const int R = 2, K1 = 1000, K2 = 65;
    Tensor A = placeholder({R, K1, K2}, Float(32), "A");
    IterVar k1 = reduce_axis({0, K1}, "k1"), k2 = reduce_axis({0, K2}, "k2");
    Tensor S = compute({R}, [&](Var i) { return sum(A(i, k1, k2), {k1, k2}); }, "S");
    std::vector<float> av = ints(int64_t(R) * K1 * K2, 102);
    auto out = run_on_target(target, create_schedule({S}), {A, S}, "nested_sum",
                             {NDArray::from_vector(av, {R, K1, K2}), NDArray::empty({R}, Float(32))});
    std::vector<double> ref(R, 0.0);
    for (int i = 0; i < R; ++i)
      for (int j = 0; j < K1 * K2; ++j) ref[i] += av[size_t(i) * K1 * K2 + j];
    check_close<float>(out[1], ref, {0, 0});
  }
}

#endif  // TENSORIR_WITH_OPENGL

TEST_CASE("every target: a reduction split by a factor given at run time", "[correctness][targets][opengl][opencl]") {
  // The CPU kernels check the factor when called; the GPU kernels, which cannot fail a
  // call, build without the check.
  const std::string target = GENERATE(as<std::string>{}, "llvm", "opengl", "opencl");
  INFO("target " << target);
  const int R = 9, K = 37;
  Tensor A = placeholder({R, K}, Float(32), "A");
  Var f("f");
  IterVar k = reduce_axis({0, K}, "k");
  Tensor S = compute({R}, [&](Var i) { return sum(A(i, k), {k}); }, "S");
  Schedule s = create_schedule({S});
  s[S].split(S.reduce_axis(0), f);
  const NDArray a = random_array<float>({R, K}, 41);
  const std::vector<float> av = host<float>(a);
  std::vector<double> ref(R, 0.0);
  for (int i = 0; i < R; ++i)
    for (int j = 0; j < K; ++j) ref[size_t(i)] += av[size_t(i * K + j)];
  for (int64_t factor : {int64_t(5), int64_t(64)}) {
    INFO("f = " << factor);
    auto out = run_on_target(target, s, {A, S, f}, "split_f", {a, NDArray::empty({R}, Float(32)), factor});
    check_close<float>(out[1], ref, tolerance_for<float>(target));
  }
}
