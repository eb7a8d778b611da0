// Every math intrinsic against the C library, in float32 and float64, and math on integers.
#include <cmath>
#include <cstdint>
#include <vector>

#include "correctness/reference.h"

using namespace tensorir;
using namespace tensorir::testing;

TEMPLATE_TEST_CASE("every math intrinsic matches the C library", "[correctness][elementwise][intrinsic]",
                   float, double) {
  using T = TestType;
  const Type t = dtype_of<T>();
  // Intrinsics may use their own approximations: a few ulp, never more.
  const Tolerance tol = std::is_same_v<T, float> ? Tolerance{2e-6, 2e-5} : Tolerance{1e-12, 1e-10};
  for (int n : {7, 1023}) {
    DYNAMIC_SECTION("n = " << n) {
      Tensor X = placeholder({n}, t, "X");  // any sign
      Tensor P = placeholder({n}, t, "P");  // positive
      struct Case {
        const char *name;
        Tensor out;
        T (*ref)(T, T);
      };
      std::vector<Case> cases{
          {"exp",
           compute(
               {n}, [&](Var i) { return exp(X(i)); }, "o_exp"),
           [](T x, T) { return std::exp(x); }},
          {"log",
           compute(
               {n}, [&](Var i) { return log(P(i)); }, "o_log"),
           [](T, T p) { return std::log(p); }},
          {"sqrt",
           compute(
               {n}, [&](Var i) { return sqrt(P(i)); }, "o_sqrt"),
           [](T, T p) { return std::sqrt(p); }},
          {"rsqrt",
           compute(
               {n}, [&](Var i) { return rsqrt(P(i)); }, "o_rsqrt"),
           [](T, T p) { return T(1) / std::sqrt(p); }},
          {"tanh",
           compute(
               {n}, [&](Var i) { return tanh(X(i)); }, "o_tanh"),
           [](T x, T) { return std::tanh(x); }},
          {"sigmoid",
           compute(
               {n}, [&](Var i) { return sigmoid(X(i)); }, "o_sigmoid"),
           [](T x, T) { return T(1) / (T(1) + std::exp(-x)); }},
          {"erf",
           compute(
               {n}, [&](Var i) { return erf(X(i)); }, "o_erf"),
           [](T x, T) { return std::erf(x); }},
          {"pow",
           compute(
               {n}, [&](Var i) { return pow(P(i), X(i)); }, "o_pow"),
           [](T x, T p) { return std::pow(p, x); }},
          {"abs",
           compute(
               {n}, [&](Var i) { return abs(X(i)); }, "o_abs"),
           [](T x, T) { return std::abs(x); }},
          {"fabs",
           compute(
               {n}, [&](Var i) { return fabs(X(i)); }, "o_fabs"),
           [](T x, T) { return std::fabs(x); }},
          {"floor",
           compute(
               {n}, [&](Var i) { return floor(X(i)); }, "o_floor"),
           [](T x, T) { return std::floor(x); }},
          {"ceil",
           compute(
               {n}, [&](Var i) { return ceil(X(i)); }, "o_ceil"),
           [](T x, T) { return std::ceil(x); }},
      };
      std::vector<Tensor> outs;
      std::vector<BuildArg> args{X, P};
      for (const Case &c : cases) {
        outs.push_back(c.out);
        args.push_back(c.out);
      }
      Kernel k = build_kernel(outs, args, "intrinsics");
      INFO("lowered:\n" << k.lowered);

      NDArray x = random_array<T>({n}, 41, -3.0, 3.0);
      NDArray p = random_array<T>({n}, 42, 0.05, 4.0);
      std::vector<T> xv = x.to_vector<T>(), pv = p.to_vector<T>();
      std::vector<Arg> call{x, p};
      std::vector<NDArray> res;
      for (size_t r = 0; r < cases.size(); ++r) {
        res.push_back(NDArray::empty({n}, t));
        call.push_back(res.back());
      }
      k.module(k.name).call(call);
      for (size_t r = 0; r < cases.size(); ++r) {
        std::vector<T> ref(n);
        for (int i = 0; i < n; ++i) ref[i] = cases[r].ref(xv[i], pv[i]);
        INFO("intrinsic " << cases[r].name);
        check_close<T>(res[r], ref, tol);
      }
    }
  }
}

TEST_CASE("abs works on integers and math on integers computes in float32",
          "[correctness][elementwise][intrinsic][int]") {
  const int n = 65;
  Tensor A = placeholder({n}, Int(32), "A");
  Tensor ab = compute(
      {n}, [&](Var i) { return abs(A(i)); }, "iabs");
  Tensor sq = compute(
      {n}, [&](Var i) { return sqrt(abs(A(i))); }, "isqrt");
  REQUIRE(ab.dtype() == Int(32));
  REQUIRE(sq.dtype() == Float(32));
  Kernel k = build_kernel({ab, sq}, {A, ab, sq}, "int_math");
  INFO("lowered:\n" << k.lowered);
  NDArray a = random_array<int32_t>({n}, 51, -1000.0, 1000.0);
  NDArray o1 = NDArray::empty({n}, Int(32)), o2 = NDArray::empty({n}, Float(32));
  k(a, o1, o2);
  std::vector<int32_t> av = a.to_vector<int32_t>(), r1(n);
  std::vector<float> r2(n);
  for (int i = 0; i < n; ++i) {
    r1[i] = std::abs(av[i]);
    r2[i] = std::sqrt(static_cast<float>(std::abs(av[i])));
  }
  check_close<int32_t>(o1, r1);
  check_close<float>(o2, r2);
}
