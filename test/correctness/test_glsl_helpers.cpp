// The GLSL helper functions (backends/glsl/glsl_helpers.h) on both GLSL paths, compute
// shaders (GLSL 4.30) and fragment shaders (GLSL ES 3.00), at the values where GLSL
// leaves the built-ins undefined or where the helpers switch formulas, against the C++
// standard library. Without an OpenGL context every test fails.
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "correctness/reference.h"
#include "correctness/target_runner.h"

using namespace tensorir;
using namespace tensorir::testing;

#if TENSORIR_WITH_OPENGL

namespace {

#define GLSL_TARGETS GENERATE(as<std::string>{}, "opengl", "opengl -mode=fragment", "opencl")

// Edge values of a unary float helper, both signs, plus random ones.
std::vector<float> unary_inputs(std::vector<float> edges, uint64_t seed) {
  std::vector<float> out;
  for (float e : edges) {
    out.push_back(e);
    out.push_back(-e);
  }
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> dist(-6.0f, 6.0f);
  for (int i = 0; i < 64; ++i) out.push_back(dist(rng));
  return out;
}

// Runs out = f(X) on `target` and compares with ref(x) at every input.
void check_unary(const std::string &target, const std::string &name, const std::function<Expr(Expr)> &f,
                 float (*ref)(float), const std::vector<float> &xs, Tolerance tol) {
  INFO("target " << target << ", " << name);
  const int64_t n = static_cast<int64_t>(xs.size());
  Tensor X = placeholder({n}, Float(32), "X");
  Tensor Y = compute({n}, [&](Var i) { return f(X(i)); }, "Y");
  Schedule s = create_schedule({Y});
  NDArray x = NDArray::from_vector<float>(xs, {n});
  std::vector<NDArray> out = run_on_target(target, s, {X, Y}, name, {x, NDArray::empty({n}, Float(32))});
  std::vector<float> expect;
  for (float v : xs) expect.push_back(ref(v));
  check_close<float>(out[1], expect, tol);
}

}  // namespace

TEST_CASE("GLSL tanh, erf and sigmoid match the C library at their edges", "[opengl][fragment][intrinsic][opencl]") {
  const std::string target = GLSL_TARGETS;
  const Tolerance tol = tolerance_for<float>(target);
  // 0; tiny; both sides of the switch from series to exponential form (tanh 0.4, erf
  // 0.5); where exp overflows or underflows; beyond float's range of exp.
  std::vector<float> xs = unary_inputs({0.0f, 1e-8f, 1e-3f, 0.125f, 0.3999f, 0.4f, 0.4001f, 0.4999f, 0.5f, 0.5001f,
                                        1.0f, 3.0f, 9.0f, 20.0f, 50.0f, 88.0f, 89.0f, 104.0f, 1e4f, 1e30f},
                                       11);
  check_unary(target, "tir_tanh", [](Expr x) { return tanh(x); }, [](float x) { return std::tanh(x); }, xs, tol);
  check_unary(target, "tir_erf", [](Expr x) { return erf(x); }, [](float x) { return std::erf(x); }, xs, tol);
  check_unary(
      target, "tir_sigmoid", [](Expr x) { return sigmoid(x); },
      [](float x) { return 1.0f / (1.0f + std::exp(-x)); }, xs, tol);
}

TEST_CASE("GLSL inverse and hyperbolic functions match the C library at their edges", "[opengl][fragment][intrinsic][opencl]") {
  const std::string target = GLSL_TARGETS;
  const Tolerance tol = tolerance_for<float>(target);
  // Both sides of each switch of formula (asin 0.5, atan tan(pi/8) and tan(3pi/8), sinh 1,
  // asinh 0.5 and 1500, acosh 1.5, atanh 0.5), the ends of the domains, and outside them.
  std::vector<float> xs = unary_inputs({0.0f, 1e-8f, 1e-3f, 0.25f, 0.4142f, 0.4143f, 0.4999f, 0.5f, 0.5001f, 0.9f,
                                        0.999f, 1.0f, 1.001f, 1.4999f, 1.5f, 1.5001f, 2.4142f, 2.4143f, 3.0f, 20.0f,
                                        80.0f, 1499.0f, 1501.0f, 1e6f, 1e30f},
                                       13);
  using F = float (*)(float);
  const struct {
    const char *name;
    Expr (*f)(Expr);
    F ref;
  } cases[] = {
      {"tir_asin", [](Expr x) { return asin(x); }, [](float x) { return std::asin(x); }},
      {"tir_acos", [](Expr x) { return acos(x); }, [](float x) { return std::acos(x); }},
      {"tir_atan", [](Expr x) { return atan(x); }, [](float x) { return std::atan(x); }},
      {"tir_asinh", [](Expr x) { return asinh(x); }, [](float x) { return std::asinh(x); }},
      {"tir_acosh", [](Expr x) { return acosh(x); }, [](float x) { return std::acosh(x); }},
      {"tir_atanh", [](Expr x) { return atanh(x); }, [](float x) { return std::atanh(x); }},
  };
  for (const auto &c : cases) check_unary(target, c.name, c.f, c.ref, xs, tol);
  // sinh and cosh up to where float overflows (89.42), past where exp does (88.73), and
  // beyond (infinity).
  std::vector<float> hyper = xs;
  for (float x : {40.0f, 88.0f, 88.7f, 88.8f, 89.0f, 89.4f, 89.5f, 100.0f}) {
    hyper.push_back(x);
    hyper.push_back(-x);
  }
  check_unary(target, "tir_sinh", [](Expr x) { return sinh(x); }, [](float x) { return std::sinh(x); }, hyper, tol);
  check_unary(target, "tir_cosh", [](Expr x) { return cosh(x); }, [](float x) { return std::cosh(x); }, hyper, tol);
}

TEST_CASE("GLSL pow matches C's pow for zero and negative bases", "[opengl][fragment][intrinsic][opencl]") {
  const std::string target = GLSL_TARGETS;
  INFO("target " << target);
  const std::vector<float> bases{0.0f, -0.0f, 1.0f, -1.0f, 0.5f, -0.5f, 2.0f, -2.0f, 3.0f, -3.0f, 10.0f, 1e-3f};
  const std::vector<float> exps{0.0f, -0.0f, 1.0f, -1.0f, 2.0f, -2.0f, 3.0f, -3.0f, 0.5f, -0.5f, 2.5f, 10.0f, -7.0f};
  std::vector<float> xs, ys;
  for (float b : bases)
    for (float e : exps) xs.push_back(b), ys.push_back(e);
  std::mt19937_64 rng(12);
  std::uniform_real_distribution<float> base(0.05f, 4.0f), expo(-3.0f, 3.0f);
  for (int i = 0; i < 64; ++i) xs.push_back(base(rng)), ys.push_back(expo(rng));
  const int64_t n = static_cast<int64_t>(xs.size());
  Tensor X = placeholder({n}, Float(32), "X");
  Tensor Y = placeholder({n}, Float(32), "Y");
  Tensor P = compute({n}, [&](Var i) { return pow(X(i), Y(i)); }, "P");
  Schedule s = create_schedule({P});
  std::vector<NDArray> out =
      run_on_target(target, s, {X, Y, P}, "tir_pow",
                    {NDArray::from_vector<float>(xs, {n}), NDArray::from_vector<float>(ys, {n}),
                     NDArray::empty({n}, Float(32))});
  std::vector<float> expect, got = out[2].to_vector<float>();
  for (size_t i = 0; i < xs.size(); ++i) expect.push_back(std::pow(xs[i], ys[i]));
  check_close<float>(got, expect, tolerance_for<float>(target));
  // The sign of zeros and infinities: pow(-0, odd) keeps the sign, pow(-0, even) does not.
  size_t bad_sign = 0;
  for (size_t i = 0; i < xs.size(); ++i)
    if ((expect[i] == 0.0f || std::isinf(expect[i])) && std::signbit(got[i]) != std::signbit(expect[i])) {
      UNSCOPED_INFO("pow(" << xs[i] << ", " << ys[i] << "): got " << got[i] << ", expected " << expect[i]);
      ++bad_sign;
    }
  CHECK(bad_sign == 0);
}

TEST_CASE("GLSL floordiv and floormod round towards minus infinity on every int32", "[opengl][fragment][opencl]") {
  const std::string target = GLSL_TARGETS;
  INFO("target " << target);
  const int32_t lo = std::numeric_limits<int32_t>::min(), hi = std::numeric_limits<int32_t>::max();
  const std::vector<int32_t> as{0, 1, -1, 6, -6, 7, -7, 100, -100, hi, lo, lo + 1};
  const std::vector<int32_t> bs{1, -1, 2, -2, 3, -3, 7, -7, hi, lo};
  std::vector<int32_t> av, bv;
  for (int32_t a : as)
    for (int32_t b : bs)
      if (!(a == lo && b == -1)) av.push_back(a), bv.push_back(b);  // overflows in C as well
  std::mt19937_64 rng(13);
  std::uniform_int_distribution<int32_t> dist(-1000, 1000);
  for (int i = 0; i < 64; ++i) {
    int32_t b = dist(rng);
    av.push_back(dist(rng)), bv.push_back(b == 0 ? 5 : b);
  }
  const int64_t n = static_cast<int64_t>(av.size());
  Tensor A = placeholder({n}, Int(32), "A");
  Tensor B = placeholder({n}, Int(32), "B");
  Tensor Q = compute({n}, [&](Var i) { return floordiv(A(i), B(i)); }, "Q");
  Tensor R = compute({n}, [&](Var i) { return floormod(A(i), B(i)); }, "R");
  Schedule s = create_schedule({Q, R});
  std::vector<NDArray> out = run_on_target(
      target, s, {A, B, Q, R}, "tir_floordiv",
      {NDArray::from_vector<int32_t>(av, {n}), NDArray::from_vector<int32_t>(bv, {n}), NDArray::empty({n}, Int(32)),
       NDArray::empty({n}, Int(32))});
  std::vector<int64_t> q, r;
  for (size_t i = 0; i < av.size(); ++i) {
    // In 64 bits, then wrapped to 32 as the shader's int arithmetic wraps.
    q.push_back(static_cast<int32_t>(floordiv_ref<int64_t>(av[i], bv[i])));
    r.push_back(static_cast<int32_t>(floormod_ref<int64_t>(av[i], bv[i])));
  }
  check_close<int32_t>(out[2], q);
  check_close<int32_t>(out[3], r);
}

#endif  // TENSORIR_WITH_OPENGL
