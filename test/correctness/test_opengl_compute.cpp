// Target "opengl": kernels run as GLSL compute shaders on the headless OpenGL context
// (Mesa llvmpipe here), checked against plain C++ loops. Each body also runs on "llvm",
// which checks the test itself. Without an OpenGL context every opengl case fails.
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

#define TARGETS GENERATE(as<std::string>{}, "llvm", "opengl")

template <typename T>
std::vector<T> host(const NDArray &a) {
  return a.to_vector<T>();
}

}  // namespace

TEST_CASE("opengl: element-wise float arithmetic, select, min and max", "[correctness][opengl]") {
  const std::string target = TARGETS;
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

TEST_CASE("opengl: integer floor division and modulo, casts and comparisons", "[correctness][opengl]") {
  const std::string target = TARGETS;
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
  Tensor U = compute({n}, [&](Var i) { return cast(UInt(32), A(i) + 200) / cast(UInt(32), 3) ; }, "U");
  Tensor L = compute({n}, [&](Var i) { return cast(Int(32), A(i) < B(i)) + cast(Int(32), A(i) == B(i) || A(i) > 90) * 2; }, "L");
  NDArray a = random_array<int32_t>({n}, 3, -100, 100);
  NDArray b = random_array<int32_t>({n}, 4, 1, 20);
  {  // negative divisors too
    auto bv = b.to_vector<int32_t>();
    for (int i = 0; i < n; i += 3) bv[i] = -bv[i];
    b = NDArray::from_vector(bv, {n});
  }
  auto out = run_on_target(target, create_schedule({Q, P, F, U, L}), {A, B, Q, P, F, U, L}, "ints",
                           {a, b, NDArray::empty({n}, Int(32)), NDArray::empty({n}, Int(32)),
                            NDArray::empty({n}, Float(32)), NDArray::empty({n}, UInt(32)), NDArray::empty({n}, Int(32))});
  auto av = host<int32_t>(a), bv = host<int32_t>(b);
  std::vector<int32_t> q(n), p(n), l(n);
  std::vector<uint32_t> u(n);
  std::vector<double> f(n);
  for (int i = 0; i < n; ++i) {
    q[i] = floordiv_ref(av[i], bv[i]) + floormod_ref(av[i], bv[i]) * 1000;
    p[i] = floordiv_ref(av[i], 8) + floormod_ref(av[i], 16) * 100 + floordiv_ref(av[i], 7) * 10000;
    f[i] = float(av[i]) * 0.5f + float(int32_t(float(bv[i]) * 1.7f));
    u[i] = uint32_t(av[i] + 200) / 3u;
    l[i] = int(av[i] < bv[i]) + int(av[i] == bv[i] || av[i] > 90) * 2;
  }
  check_close<int32_t>(out[2], q);
  check_close<int32_t>(out[3], p);
  check_close<float>(out[4], f, tolerance_for<float>(target));
  check_close<uint32_t>(out[5], u);
  check_close<int32_t>(out[6], l);
}

TEST_CASE("opengl: float64 arithmetic", "[correctness][opengl]") {
  const std::string target = TARGETS;
  INFO("target " << target);
  const int n = 300;
  Tensor A = placeholder({n}, Float(64), "A");
  Tensor B = compute({n}, [&](Var i) { return sqrt(A(i) * A(i) + 1.0) / 3.0 + floor(A(i) * 10.0) - fabs(A(i)); }, "B");
  NDArray a = random_array<double>({n}, 5);
  auto out = run_on_target(target, create_schedule({B}), {A, B}, "f64", {a, NDArray::empty({n}, Float(64))});
  auto av = host<double>(a);
  std::vector<double> ref(n);
  for (int i = 0; i < n; ++i) ref[i] = std::sqrt(av[i] * av[i] + 1.0) / 3.0 + std::floor(av[i] * 10.0) - std::fabs(av[i]);
  check_close<double>(out[1], ref, {1e-12, 1e-12});
}

TEST_CASE("opengl: 8-bit, 16-bit and bool tensors", "[correctness][opengl]") {
  const std::string target = TARGETS;
  INFO("target " << target);
  const int n = 203;  // odd: the last word is partly used
  Tensor A = placeholder({n}, Int(8), "A");
  Tensor B = placeholder({n}, UInt(8), "B");
  Tensor H = placeholder({n}, Int(16), "H");
  Tensor S = compute({n}, [&](Var i) { return A(i) + A(i); }, "S");  // wraps around in int8
  Tensor M = compute({n}, [&](Var i) { return B(i) / cast(UInt(8), 3) + cast(UInt(8), 7); }, "M");
  Tensor G = compute({n}, [&](Var i) { return A(i) > cast(Int(8), 0); }, "G");  // bool
  Tensor W = compute({n}, [&](Var i) { return H(i) * cast(Int(16), 3) - cast(Int(16), A(i)); }, "W");
  NDArray a = random_array<int8_t>({n}, 6, -128, 128), b = random_array<uint8_t>({n}, 7, 0, 256);
  NDArray h = random_array<int16_t>({n}, 8, -20000, 20000);
  auto out = run_on_target(target, create_schedule({S, M, G, W}), {A, B, H, S, M, G, W}, "narrow",
                           {a, b, h, NDArray::empty({n}, Int(8)), NDArray::empty({n}, UInt(8)), NDArray::empty({n}, Bool()),
                            NDArray::empty({n}, Int(16))});
  auto av = host<int8_t>(a);
  auto bv = host<uint8_t>(b);
  auto hv = host<int16_t>(h);
  std::vector<int8_t> s(n);
  std::vector<uint8_t> m(n), g(n);
  std::vector<int16_t> w(n);
  for (int i = 0; i < n; ++i) {
    s[i] = static_cast<int8_t>(av[i] + av[i]);
    m[i] = static_cast<uint8_t>(bv[i] / 3 + 7);
    g[i] = av[i] > 0;
    w[i] = static_cast<int16_t>(hv[i] * 3 - av[i]);
  }
  check_close<int8_t>(out[3], s);
  check_close<uint8_t>(out[4], m);
  check_close<uint8_t>(out[5].to_vector<uint8_t>(), g);
  check_close<int16_t>(out[6], w);
}

TEST_CASE("opengl: math intrinsics match the C library", "[correctness][opengl]") {
  const std::string target = TARGETS;
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
      {"abs", [](Expr x, Expr) { return abs(x); }, [](double x, double) { return std::abs(x); }, {0, 0}},
      {"floor", [](Expr x, Expr) { return floor(x * 3.0f); }, [](double x, double) { return std::floor(double(float(x * 3))); }, {0, 0}},
      {"ceil", [](Expr x, Expr) { return ceil(x * 3.0f); }, [](double x, double) { return std::ceil(double(float(x * 3))); }, {0, 0}},
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

TEST_CASE("opengl: broadcasting with a scalar argument", "[correctness][opengl]") {
  const std::string target = TARGETS;
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

TEST_CASE("opengl: sum, max and argmax reductions", "[correctness][opengl]") {
  const std::string target = TARGETS;
  INFO("target " << target);
  const int R = 45, K = 129;
  Tensor A = placeholder({R, K}, Float(32), "A");
  IterVar k1 = reduce_axis({0, K}, "k1"), k2 = reduce_axis({0, K}, "k2"), k3 = reduce_axis({0, K}, "k3");
  Tensor S = compute({R}, [&](Var i) { return sum(A(i, k1), {k1}); }, "S");
  Tensor M = compute({R}, [&](Var i) { return max(A(i, k2), {k2}); }, "M");
  Reducer argmax = comm_reducer(
      [](const std::vector<Expr> &a, const std::vector<Expr> &b) {
        Expr take_b = b[1] > a[1];
        return std::vector<Expr>{select(take_b, b[0], a[0]), select(take_b, b[1], a[1])};
      },
      [](const std::vector<Type> &t) { return std::vector<Expr>{make_const(t[0], -1), min_value(t[1])}; }, "argmax");
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

TEST_CASE("opengl: matmul with the default schedule", "[correctness][opengl]") {
  const std::string target = TARGETS;
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

TEST_CASE("opengl: conv2d with zero padding", "[correctness][opengl]") {
  const std::string target = TARGETS;
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

TEST_CASE("opengl: a two-stage stencil pipeline runs as two kernels", "[correctness][opengl]") {
  const std::string target = TARGETS;
  INFO("target " << target);
  const int H = 40, W = 70;
  Tensor A = placeholder({H, W}, Float(32), "A");
  Tensor Bx = compute({H, W - 2}, [&](Var y, Var x) { return (A(y, x) + A(y, x + 1) + A(y, x + 2)) / 3.0f; }, "Bx");
  Tensor By = compute({H - 2, W - 2}, [&](Var y, Var x) { return (Bx(y, x) + Bx(y + 1, x) + Bx(y + 2, x)) / 3.0f; }, "By");
  Schedule s = create_schedule({By});
  Module m = build(s, {A, By}, target, "blur");
  if (target == "opengl") {
    std::string src = m.source("glsl");
    INFO(src);
    CHECK(src.find("blur_kernel0") != std::string::npos);
    CHECK(src.find("blur_kernel1") != std::string::npos);
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

TEST_CASE("opengl: symbolic shapes, called at two sizes", "[correctness][opengl]") {
  const std::string target = TARGETS;
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

TEST_CASE("opengl: a reduction over a symbolic extent", "[correctness][opengl]") {
  const std::string target = TARGETS;
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

TEST_CASE("opengl: more work groups than one launch allows", "[correctness][opengl]") {
  // 64 invocations per group: 65538 groups along x, past the usual limit of 65535.
  const int64_t n = 65538LL * 64 - 7;
  Var len("len");
  Tensor A = placeholder({len}, Float(32), "A");
  Tensor B = compute({len}, [&](Var i) { return A(i) + 1.0f; }, "B");
  Module m = build(create_schedule({B}), {A, B}, "opengl", "big");
  std::vector<float> av(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) av[static_cast<size_t>(i)] = static_cast<float>(i % 1000);
  NDArray a = NDArray::from_vector(av, {n}).to(Device::opengl());
  NDArray b = NDArray::empty({n}, Float(32), Device::opengl());
  m("big")(a, b);
  std::vector<float> bv = b.to(Device::cpu()).to_vector<float>();
  int64_t bad = 0;
  for (int64_t i = 0; i < n; ++i) bad += bv[static_cast<size_t>(i)] != static_cast<float>(i % 1000) + 1.0f;
  CHECK(bad == 0);
}

namespace {

// C = A * B with A and B staged through shared memory per 16x16 tile of C: blocks over
// tiles of C, one invocation per element, the reduction split into chunks of 16.
// With k_outer_inside, the chunk loop runs inside the thread loops: the shared tiles
// must still cover what the whole work group reads.
Schedule shared_tiled_matmul(const Tensor &A, const Tensor &B, const Tensor &C, int tile, bool k_outer_inside = false) {
  Schedule s = create_schedule({C});
  Tensor As = s.cache_read(A, "shared", {C});
  Tensor Bs = s.cache_read(B, "shared", {C});
  auto [bi, bj, ti, tj] = s[C].tile(C.axis(0), C.axis(1), tile, tile);
  auto [ko, ki] = s[C].split(C.reduce_axis(0), tile);
  if (k_outer_inside) {
    s[C].reorder({bi, bj, ti, tj, ko, ki});
  } else {
    s[C].reorder({bi, bj, ko, ti, tj, ki});
  }
  s[C].bind(bi, thread_axis("blockIdx.y"));
  s[C].bind(bj, thread_axis("blockIdx.x"));
  s[C].bind(ti, thread_axis("threadIdx.y"));
  s[C].bind(tj, thread_axis("threadIdx.x"));
  for (const Tensor &T : {As, Bs}) {
    s[T].compute_at(s[C], ko);
    // Each invocation of the group copies one element of the tile.
    s[T].bind(s[T]->leaf_iter_vars[0], thread_axis("threadIdx.y"));
    s[T].bind(s[T]->leaf_iter_vars[1], thread_axis("threadIdx.x"));
  }
  return s;
}

// The same tiles of C, with A and B cached at the block loop: a whole strip of K per
// group, copied cooperatively (the strip's columns split by 16 over threadIdx.x).
Schedule shared_strip_matmul(const Tensor &A, const Tensor &B, const Tensor &C, int tile) {
  Schedule s = create_schedule({C});
  Tensor As = s.cache_read(A, "shared", {C});
  Tensor Bs = s.cache_read(B, "shared", {C});
  auto [bi, bj, ti, tj] = s[C].tile(C.axis(0), C.axis(1), tile, tile);
  s[C].bind(bi, thread_axis("blockIdx.y"));
  s[C].bind(bj, thread_axis("blockIdx.x"));
  s[C].bind(ti, thread_axis("threadIdx.y"));
  s[C].bind(tj, thread_axis("threadIdx.x"));
  for (const Tensor &T : {As, Bs}) {
    s[T].compute_at(s[C], bj);
    IterVar rows = s[T]->leaf_iter_vars[0], cols = s[T]->leaf_iter_vars[1];
    auto [ro, ri] = s[T].split(rows, tile);
    auto [co, ci] = s[T].split(cols, tile);
    s[T].reorder({ro, co, ri, ci});
    s[T].bind(ri, thread_axis("threadIdx.y"));
    s[T].bind(ci, thread_axis("threadIdx.x"));
  }
  return s;
}

}  // namespace

TEST_CASE("opengl: shared-memory strips cached at the block loop", "[correctness][opengl]") {
  for (auto [M, N, K] : {std::tuple{64, 64, 64}, std::tuple{48, 80, 96}}) {
    DYNAMIC_SECTION(M << "x" << N << "x" << K) {
      Tensor A = placeholder({M, K}, Float(32), "A");
      Tensor B = placeholder({K, N}, Float(32), "B");
      IterVar k = reduce_axis({0, K}, "k");
      Tensor C = compute({M, N}, [&](Var i, Var j) { return sum(A(i, k) * B(k, j), {k}); }, "C");
      Schedule s = shared_strip_matmul(A, B, C, 16);
      INFO("lowered:\n" << lower(s, {A, B, C}, "strips"));
      Module m = build(s, {A, B, C}, "opengl", "strips");
      std::string src = m.source("glsl");
      INFO("glsl:\n" << src);
      CHECK(src.find("shared float") != std::string::npos);
      NDArray a = random_array<float>({M, K}, 83), b = random_array<float>({K, N}, 84);
      auto out = call_on_target(m, "opengl", "strips", {a, b, NDArray::empty({M, N}, Float(32))});
      auto av = host<float>(a), bv = host<float>(b);
      std::vector<double> ref(M * N, 0.0);
      for (int i = 0; i < M; ++i)
        for (int j = 0; j < N; ++j)
          for (int kk = 0; kk < K; ++kk) ref[i * N + j] += double(av[i * K + kk]) * bv[kk * N + j];
      check_close<float>(out[2], ref, {2e-6 * K, 1e-5});
    }
  }
}

TEST_CASE("opengl: bound thread indices and a shared-memory tiled matmul", "[correctness][opengl]") {
  for (auto [M, N, K] : {std::tuple{64, 64, 64}, std::tuple{80, 48, 112}, std::tuple{50, 70, 40}})
  for (bool k_outer_inside : {false, true}) {
    DYNAMIC_SECTION(M << "x" << N << "x" << K << (k_outer_inside ? " chunks inside the thread loops" : "")) {
      Tensor A = placeholder({M, K}, Float(32), "A");
      Tensor B = placeholder({K, N}, Float(32), "B");
      IterVar k = reduce_axis({0, K}, "k");
      Tensor C = compute({M, N}, [&](Var i, Var j) { return sum(A(i, k) * B(k, j), {k}); }, "C");
      Schedule s = shared_tiled_matmul(A, B, C, 16, k_outer_inside);
      INFO("lowered:\n" << lower(s, {A, B, C}, "tiled"));
      Module m = build(s, {A, B, C}, "opengl", "tiled");
      std::string src = m.source("glsl");
      INFO("glsl:\n" << src);
      CHECK(src.find("shared float") != std::string::npos);
      CHECK(src.find("barrier();") != std::string::npos);
      CHECK(src.find("local_size_x = 16, local_size_y = 16") != std::string::npos);
      NDArray a = random_array<float>({M, K}, 81), b = random_array<float>({K, N}, 82);
      auto out = call_on_target(m, "opengl", "tiled", {a, b, NDArray::empty({M, N}, Float(32))});
      auto av = host<float>(a), bv = host<float>(b);
      std::vector<double> ref(M * N, 0.0);
      for (int i = 0; i < M; ++i)
        for (int j = 0; j < N; ++j)
          for (int kk = 0; kk < K; ++kk) ref[i * N + j] += double(av[i * K + kk]) * bv[kk * N + j];
      check_close<float>(out[2], ref, {2e-6 * K, 1e-5});
    }
  }
}

TEST_CASE("opengl: a local accumulator per invocation (cache_write to local)", "[correctness][opengl]") {
  const int M = 64, N = 96, K = 50;
  Tensor A = placeholder({M, K}, Float(32), "A");
  Tensor B = placeholder({K, N}, Float(32), "B");
  IterVar k = reduce_axis({0, K}, "k");
  Tensor C = compute({M, N}, [&](Var i, Var j) { return sum(A(i, k) * B(k, j), {k}); }, "C");
  Schedule s = create_schedule({C});
  Tensor CL = s.cache_write(C, "local");
  // Each invocation computes a 1x4 strip of C in a local array.
  auto [io, ii] = s[C].split(C.axis(0), 8);
  auto [jo, ji] = s[C].split(C.axis(1), 4);
  auto [jt, jv] = s[C].split(jo, 8);
  s[C].reorder({io, jt, ii, jv, ji});
  s[C].bind(io, thread_axis("blockIdx.y"));
  s[C].bind(jt, thread_axis("blockIdx.x"));
  s[C].bind(ii, thread_axis("threadIdx.y"));
  s[C].bind(jv, thread_axis("threadIdx.x"));
  s[CL].compute_at(s[C], jv);
  INFO("lowered:\n" << lower(s, {A, B, C}, "local_acc"));
  Module m = build(s, {A, B, C}, "opengl", "local_acc");
  INFO("glsl:\n" << m.source("glsl"));
  NDArray a = random_array<float>({M, K}, 91), b = random_array<float>({K, N}, 92);
  auto out = call_on_target(m, "opengl", "local_acc", {a, b, NDArray::empty({M, N}, Float(32))});
  auto av = host<float>(a), bv = host<float>(b);
  std::vector<double> ref(M * N, 0.0);
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j)
      for (int kk = 0; kk < K; ++kk) ref[i * N + j] += double(av[i * K + kk]) * bv[kk * N + j];
  check_close<float>(out[2], ref, {2e-6 * K, 1e-5});
}

TEST_CASE("opengl: vectorized, unrolled and parallel loops run as plain loops", "[correctness][opengl]") {
  const int R = 24, K = 64;
  Tensor A = placeholder({R, K}, Float(32), "A");
  Tensor B = compute({R, K}, [&](Var i, Var j) { return A(i, j) * 3.0f + 1.0f; }, "B");
  Schedule s = create_schedule({B});
  auto [jo, ji] = s[B].split(B.axis(1), 8);
  auto [jo2, jm] = s[B].split(jo, 2);
  s[B].bind(B.axis(0), thread_axis("blockIdx.x"));
  s[B].bind(jo2, thread_axis("threadIdx.x"));
  s[B].unroll(jm);
  s[B].vectorize(ji);
  Module m = build(s, {A, B}, "opengl", "kinds");
  NDArray a = random_array<float>({R, K}, 95);
  auto out = call_on_target(m, "opengl", "kinds", {a, NDArray::empty({R, K}, Float(32))});
  auto av = host<float>(a);
  std::vector<double> ref(R * K);
  for (int i = 0; i < R * K; ++i) ref[i] = av[i] * 3.0 + 1.0;
  check_close<float>(out[1], ref, tolerance_for<float>("opengl"));
}

#endif  // TENSORIR_WITH_OPENGL
