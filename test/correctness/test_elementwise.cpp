// Element-wise kernels: arithmetic, comparisons, select, casts and every math intrinsic,
// each compared with a plain C++ loop on random data.
#include <cmath>
#include <cstdint>
#include <vector>

#include "correctness/reference.h"

using namespace tensorir;
using namespace tensorir::testing;

namespace {

// Divisors that are never zero: integers in [-9, 9] \ {0}, floats with |b| >= 0.25.
// Every third element equals the first operand so that == and <= see equal pairs.
template <typename T>
std::vector<T> second_operand(const std::vector<T> &a, uint64_t seed) {
  std::vector<T> b =
      random_array<T>({static_cast<int64_t>(a.size())}, seed, -9.0, 10.0).template to_vector<T>();
  for (size_t i = 0; i < b.size(); ++i) {
    if constexpr (std::is_integral_v<T>) {
      if (b[i] == 0) b[i] = 3;
    } else {
      b[i] = b[i] / T(9);
      if (std::abs(b[i]) < T(0.25)) b[i] += b[i] < 0 ? T(-0.5) : T(0.5);
    }
    if (i % 3 == 0 && a[i] != T(0)) b[i] = a[i];
  }
  return b;
}

}  // namespace

TEMPLATE_TEST_CASE("element-wise add sub mul div mod min max and negation match plain loops",
                   "[correctness][elementwise]", float, double, int32_t) {
  using T = TestType;
  const Type t = dtype_of<T>();
  for (int n : {1, 7, 33, 1023}) {
    DYNAMIC_SECTION("n = " << n) {
      Tensor A = placeholder({n}, t, "A");
      Tensor B = placeholder({n}, t, "B");
      Tensor add = compute(
          {n}, [&](Var i) { return A(i) + B(i); }, "add");
      Tensor sub = compute(
          {n}, [&](Var i) { return A(i) - B(i); }, "sub");
      Tensor mul = compute(
          {n}, [&](Var i) { return A(i) * B(i); }, "mul");
      Tensor div = compute(
          {n}, [&](Var i) { return A(i) / B(i); }, "div");
      Tensor mod = compute(
          {n}, [&](Var i) { return A(i) % B(i); }, "mod");
      Tensor mn = compute(
          {n}, [&](Var i) { return min(A(i), B(i)); }, "mn");
      Tensor mx = compute(
          {n}, [&](Var i) { return max(A(i), B(i)); }, "mx");
      Tensor neg = compute(
          {n}, [&](Var i) { return -A(i); }, "neg");
      // Literal constants adopt the tensor's type.
      Tensor lit = compute(
          {n}, [&](Var i) { return A(i) * 3 + 2; }, "lit");
      std::vector<Tensor> outs{add, sub, mul, div, mod, mn, mx, neg, lit};
      std::vector<BuildArg> args{A, B};
      for (const Tensor &o : outs) args.push_back(o);
      Kernel k = build_kernel(outs, args, "ew_arith");
      INFO("lowered:\n" << k.lowered);

      NDArray a = random_array<T>({n}, 11, -100.0, 100.0);
      std::vector<T> av = a.to_vector<T>();
      std::vector<T> bv = second_operand(av, 12);
      NDArray b = NDArray::from_vector(bv, {n});
      std::vector<NDArray> o;
      for (int r = 0; r < 9; ++r) o.push_back(NDArray::empty({n}, t));
      k(a, b, o[0], o[1], o[2], o[3], o[4], o[5], o[6], o[7], o[8]);

      std::vector<T> r_add(n), r_sub(n), r_mul(n), r_div(n), r_mod(n), r_mn(n), r_mx(n), r_neg(n), r_lit(n);
      for (int i = 0; i < n; ++i) {
        T x = av[i], y = bv[i];
        r_add[i] = x + y;
        r_sub[i] = x - y;
        r_mul[i] = x * y;
        if constexpr (std::is_integral_v<T>) {
          r_div[i] = floordiv_ref(x, y);
          r_mod[i] = floormod_ref(x, y);
        } else {
          r_div[i] = x / y;
          r_mod[i] = x - y * std::floor(x / y);
        }
        r_mn[i] = std::min(x, y);
        r_mx[i] = std::max(x, y);
        r_neg[i] = -x;
        r_lit[i] = x * T(3) + T(2);
      }
      {
        INFO("add");
        check_close<T>(o[0], r_add);
      }
      {
        INFO("sub");
        check_close<T>(o[1], r_sub);
      }
      {
        INFO("mul");
        check_close<T>(o[2], r_mul);
      }
      {
        INFO("div (floor division on integers)");
        check_close<T>(o[3], r_div);
      }
      {
        INFO("mod (floor modulo on integers)");
        // Float modulo may round differently right at a multiple of the divisor.
        Tolerance tol = default_tolerance<T>();
        if constexpr (!std::is_integral_v<T>) tol = {1e-4, 1e-4};
        check_close<T>(o[4], r_mod, tol);
      }
      {
        INFO("min");
        check_close<T>(o[5], r_mn);
      }
      {
        INFO("max");
        check_close<T>(o[6], r_mx);
      }
      {
        INFO("negation");
        check_close<T>(o[7], r_neg);
      }
      {
        INFO("literal constants");
        check_close<T>(o[8], r_lit);
      }
    }
  }
}

TEST_CASE("integer division and modulo by constants round towards minus infinity",
          "[correctness][elementwise][int]") {
  const int n = 257;
  Tensor A = placeholder({n}, Int(32), "A");
  std::vector<int> divisors{1, 2, 3, 4, 7, 8, -1, -3, -4};
  std::vector<Tensor> outs;
  for (size_t d = 0; d < divisors.size(); ++d) {
    int dv = divisors[d];
    outs.push_back(compute(
        {n}, [&](Var i) { return A(i) / dv; }, "div" + std::to_string(d)));
    outs.push_back(compute(
        {n}, [&](Var i) { return A(i) % dv; }, "mod" + std::to_string(d)));
  }
  // Index arithmetic with floor semantics on loop variables (may be simplified at compile time).
  outs.push_back(compute(
      {n}, [&](Var i) { return (i - 100) / 7 + (i - 100) % 7 * 1000; }, "idx"));
  std::vector<BuildArg> args{A};
  for (const Tensor &o : outs) args.push_back(o);
  Kernel k = build_kernel(outs, args, "int_div_const");
  INFO("lowered:\n" << k.lowered);

  NDArray a = random_array<int32_t>({n}, 21, -1000.0, 1000.0);
  std::vector<int32_t> av = a.to_vector<int32_t>();
  av[0] = -7;  // exact negative multiples and their neighbours
  av[1] = -8;
  av[2] = -6;
  av[3] = 0;
  a = NDArray::from_vector(av, {n});
  std::vector<Arg> call{a};
  std::vector<NDArray> res;
  for (size_t r = 0; r < outs.size(); ++r) {
    res.push_back(NDArray::empty({n}, Int(32)));
    call.push_back(res.back());
  }
  k.module(k.name).call(call);

  for (size_t d = 0; d < divisors.size(); ++d) {
    int dv = divisors[d];
    std::vector<int32_t> rd(n), rm(n);
    for (int i = 0; i < n; ++i) {
      rd[i] = floordiv_ref(av[i], dv);
      rm[i] = floormod_ref(av[i], dv);
    }
    INFO("divisor " << dv);
    check_close<int32_t>(res[2 * d], rd);
    check_close<int32_t>(res[2 * d + 1], rm);
  }
  std::vector<int32_t> ridx(n);
  for (int i = 0; i < n; ++i) ridx[i] = floordiv_ref(i - 100, 7) + floormod_ref(i - 100, 7) * 1000;
  check_close<int32_t>(res.back(), ridx);
}

TEMPLATE_TEST_CASE("comparisons and logic and select match plain loops", "[correctness][elementwise]", float,
                   double, int32_t) {
  using T = TestType;
  const Type t = dtype_of<T>();
  const int n = 33;
  Tensor A = placeholder({n}, t, "A");
  Tensor B = placeholder({n}, t, "B");
  auto flag = [&](auto cond, const char *name) {
    return compute(
        {n}, [&](Var i) { return select(cond(i), 1, 0); }, name);
  };
  std::vector<Tensor> outs{
      flag([&](Var i) { return A(i) == B(i); }, "eq"),
      flag([&](Var i) { return A(i) != B(i); }, "ne"),
      flag([&](Var i) { return A(i) < B(i); }, "lt"),
      flag([&](Var i) { return A(i) <= B(i); }, "le"),
      flag([&](Var i) { return A(i) > B(i); }, "gt"),
      flag([&](Var i) { return A(i) >= B(i); }, "ge"),
      flag([&](Var i) { return (A(i) > 0 && B(i) > 0) || !(A(i) < B(i)); }, "logic"),
      compute(
          {n}, [&](Var i) { return cast(Int(32), A(i) < B(i)); }, "cast_bool"),
  };
  Tensor sel = compute(
      {n}, [&](Var i) { return select(A(i) > B(i), A(i) - B(i), B(i) * 2); }, "sel");
  Tensor ite = compute(
      {n}, [&](Var i) { return if_then_else(i % 2 == 0, A(i), B(i)); }, "ite");
  std::vector<Tensor> all = outs;
  all.push_back(sel);
  all.push_back(ite);
  std::vector<BuildArg> args{A, B};
  for (const Tensor &o : all) args.push_back(o);
  Kernel k = build_kernel(all, args, "ew_cmp");
  INFO("lowered:\n" << k.lowered);

  NDArray a = random_array<T>({n}, 31, -100.0, 100.0);
  std::vector<T> av = a.to_vector<T>();
  std::vector<T> bv = second_operand(av, 32);
  NDArray b = NDArray::from_vector(bv, {n});
  std::vector<Arg> call{a, b};
  std::vector<NDArray> res;
  for (size_t r = 0; r < outs.size(); ++r) res.push_back(NDArray::empty({n}, Int(32)));
  res.push_back(NDArray::empty({n}, t));
  res.push_back(NDArray::empty({n}, t));
  for (const NDArray &r : res) call.push_back(r);
  k.module(k.name).call(call);

  std::vector<std::vector<int32_t>> ref(outs.size(), std::vector<int32_t>(n));
  std::vector<T> rsel(n), rite(n);
  for (int i = 0; i < n; ++i) {
    T x = av[i], y = bv[i];
    ref[0][i] = x == y;
    ref[1][i] = x != y;
    ref[2][i] = x < y;
    ref[3][i] = x <= y;
    ref[4][i] = x > y;
    ref[5][i] = x >= y;
    ref[6][i] = (x > 0 && y > 0) || !(x < y);
    ref[7][i] = x < y;
    rsel[i] = x > y ? x - y : y * T(2);
    rite[i] = i % 2 == 0 ? x : y;
  }
  const char *names[] = {"==", "!=", "<", "<=", ">", ">=", "&& || !", "cast(bool)"};
  for (size_t r = 0; r < outs.size(); ++r) {
    INFO("comparison " << names[r]);
    check_close<int32_t>(res[r], ref[r]);
  }
  check_close<T>(res[outs.size()], rsel);
  check_close<T>(res[outs.size() + 1], rite);
}

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

TEST_CASE("casts between integer and float types follow C conversions", "[correctness][elementwise][cast]") {
  const int n = 101;
  Tensor X = placeholder({n}, Float(32), "X");
  Tensor I = placeholder({n}, Int(32), "I");
  Tensor D = placeholder({n}, Float(64), "D");
  Tensor f2i = compute(
      {n}, [&](Var i) { return cast(Int(32), X(i)); }, "f2i");
  Tensor f2d = compute(
      {n}, [&](Var i) { return cast(Float(64), X(i)); }, "f2d");
  Tensor d2f = compute(
      {n}, [&](Var i) { return cast(Float(32), D(i)); }, "d2f");
  Tensor i2f = compute(
      {n}, [&](Var i) { return cast(Float(32), I(i)) * 0.5f; }, "i2f");
  Tensor i2l = compute(
      {n}, [&](Var i) { return cast(Int(64), I(i)) * int64_t(3000000000LL); }, "i2l");
  Tensor i2b = compute(
      {n}, [&](Var i) { return cast(Int(8), I(i)); }, "i2b");
  Tensor mix = compute(
      {n}, [&](Var i) { return X(i) + cast(Float(32), I(i)) + cast(Float(32), i); }, "mix");
  std::vector<Tensor> outs{f2i, f2d, d2f, i2f, i2l, i2b, mix};
  Kernel k = build_kernel(outs, {X, I, D, f2i, f2d, d2f, i2f, i2l, i2b, mix}, "casts");
  INFO("lowered:\n" << k.lowered);

  NDArray x = random_array<float>({n}, 61, -100.0, 100.0);
  NDArray iv = random_array<int32_t>({n}, 62, -100.0, 100.0);
  NDArray d = random_array<double>({n}, 63, -1e3, 1e3);
  NDArray o_f2i = NDArray::empty({n}, Int(32)), o_f2d = NDArray::empty({n}, Float(64)),
          o_d2f = NDArray::empty({n}, Float(32)), o_i2f = NDArray::empty({n}, Float(32)),
          o_i2l = NDArray::empty({n}, Int(64)), o_i2b = NDArray::empty({n}, Int(8)),
          o_mix = NDArray::empty({n}, Float(32));
  k(x, iv, d, o_f2i, o_f2d, o_d2f, o_i2f, o_i2l, o_i2b, o_mix);

  std::vector<float> xv = x.to_vector<float>();
  std::vector<int32_t> ivv = iv.to_vector<int32_t>();
  std::vector<double> dv = d.to_vector<double>();
  std::vector<int32_t> r_f2i(n);
  std::vector<double> r_f2d(n);
  std::vector<float> r_d2f(n), r_i2f(n), r_mix(n);
  std::vector<int64_t> r_i2l(n);
  std::vector<int8_t> r_i2b(n);
  for (int i = 0; i < n; ++i) {
    r_f2i[i] = static_cast<int32_t>(xv[i]);  // truncation towards zero
    r_f2d[i] = static_cast<double>(xv[i]);
    r_d2f[i] = static_cast<float>(dv[i]);
    r_i2f[i] = static_cast<float>(ivv[i]) * 0.5f;
    r_i2l[i] = static_cast<int64_t>(ivv[i]) * 3000000000LL;
    r_i2b[i] = static_cast<int8_t>(ivv[i]);
    r_mix[i] = xv[i] + static_cast<float>(ivv[i]) + static_cast<float>(i);
  }
  {
    INFO("float32 -> int32 truncates");
    check_close<int32_t>(o_f2i, r_f2i);
  }
  {
    INFO("float32 -> float64 is exact");
    check_close<double>(o_f2d, r_f2d, {0, 0});
  }
  {
    INFO("float64 -> float32 rounds");
    check_close<float>(o_d2f, r_d2f, {0, 0});
  }
  {
    INFO("int32 -> float32");
    check_close<float>(o_i2f, r_i2f, {0, 0});
  }
  {
    INFO("int32 -> int64 keeps 64-bit products");
    check_close<int64_t>(o_i2l, r_i2l);
  }
  {
    INFO("int32 -> int8");
    check_close<int8_t>(o_i2b, r_i2b);
  }
  {
    INFO("mixed expression with explicit casts");
    check_close<float>(o_mix, r_mix);
  }
}

TEMPLATE_TEST_CASE("broadcasting a row vector over a matrix", "[correctness][broadcast]", float, double,
                   int32_t) {
  using T = TestType;
  const Type t = dtype_of<T>();
  const int M = 33, N = 17;
  Tensor A = placeholder({M, N}, t, "A");
  Tensor b = placeholder({N}, t, "b");
  Tensor C = compute(
      {M, N}, [&](Var i, Var j) { return A(i, j) + b(j); }, "C");
  Kernel k = build_kernel({C}, {A, b, C}, "bias_add");
  INFO("lowered:\n" << k.lowered);
  NDArray a = random_array<T>({M, N}, 71, -50.0, 50.0), bb = random_array<T>({N}, 72, -50.0, 50.0);
  NDArray c = NDArray::empty({M, N}, t);
  k(a, bb, c);
  std::vector<T> av = a.to_vector<T>(), bv = bb.to_vector<T>(), ref(M * N);
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) ref[i * N + j] = av[i * N + j] + bv[j];
  check_close<T>(c, ref);
}

TEMPLATE_TEST_CASE("NCHW bias add broadcasts over batch and height and width", "[correctness][broadcast]",
                   float, double, int32_t) {
  using T = TestType;
  const Type t = dtype_of<T>();
  const int N = 2, C = 3, H = 7, W = 5;
  Tensor X = placeholder({N, C, H, W}, t, "X");
  Tensor bias = placeholder({C}, t, "bias");
  Tensor Y = compute(
      {N, C, H, W}, [&](Var n, Var c, Var h, Var w) { return X(n, c, h, w) + bias(c); }, "Y");
  Kernel k = build_kernel({Y}, {X, bias, Y}, "nchw_bias");
  INFO("lowered:\n" << k.lowered);
  NDArray x = random_array<T>({N, C, H, W}, 81, -50.0, 50.0), bb = random_array<T>({C}, 82, -50.0, 50.0);
  NDArray y = NDArray::empty({N, C, H, W}, t);
  k(x, bb, y);
  std::vector<T> xv = x.to_vector<T>(), bv = bb.to_vector<T>(), ref(xv.size());
  for (int n = 0; n < N; ++n)
    for (int c = 0; c < C; ++c)
      for (int h = 0; h < H; ++h)
        for (int w = 0; w < W; ++w) {
          int idx = ((n * C + c) * H + h) * W + w;
          ref[idx] = xv[idx] + bv[c];
        }
  check_close<T>(y, ref);
}

TEST_CASE("a six-dimensional compute and the vector-of-Vars lambda form agree",
          "[correctness][elementwise]") {
  std::vector<Expr> shape{2, 3, 1, 4, 5, 3};
  std::vector<int64_t> shp{2, 3, 1, 4, 5, 3};
  Tensor A = placeholder(shape, Float(32), "A");
  Tensor B6 = compute(
      shape, [&](Var a, Var b, Var c, Var d, Var e, Var f) { return A(a, b, c, d, e, f) * 2.0f; }, "B6");
  Tensor BV = compute(
      shape,
      [&](const std::vector<Var> &v) {
        std::vector<Expr> idx(v.begin(), v.end());
        return A(idx) * 2.0f;
      },
      "BV");
  Kernel k = build_kernel({B6, BV}, {A, B6, BV}, "rank6");
  INFO("lowered:\n" << k.lowered);
  NDArray a = random_array<float>(shp, 91);
  NDArray b6 = NDArray::empty(shp, Float(32)), bv = NDArray::empty(shp, Float(32));
  k(a, b6, bv);
  std::vector<float> av = a.to_vector<float>(), ref(av.size());
  for (size_t i = 0; i < av.size(); ++i) ref[i] = av[i] * 2.0f;
  check_close<float>(b6, ref);
  check_close<float>(bv, ref);
}
