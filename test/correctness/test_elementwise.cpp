// Element-wise kernels: arithmetic, floor division and modulo, comparisons, logic and
// select, in several element types, each compared with a plain C++ loop on random data.
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

TEST_CASE("uint8 arithmetic wraps around and int64 division rounds towards minus infinity",
          "[correctness][elementwise][int]") {
  const int n = 255;
  Tensor U = placeholder({n}, UInt(8), "U");
  Tensor V = placeholder({n}, UInt(8), "V");
  Tensor L = placeholder({n}, Int(64), "L");
  Tensor add = compute(
      {n}, [&](Var i) { return U(i) + V(i); }, "u_add");
  Tensor div = compute(
      {n}, [&](Var i) { return U(i) / (V(i) + 1); }, "u_div");
  Tensor mod = compute(
      {n}, [&](Var i) { return U(i) % (V(i) + 1); }, "u_mod");
  Tensor ldiv = compute(
      {n}, [&](Var i) { return L(i) / int64_t(-3) + L(i) % int64_t(7); }, "l_divmod");
  Kernel k = build_kernel({add, div, mod, ldiv}, {U, V, L, add, div, mod, ldiv}, "int_types");
  INFO("lowered:\n" << k.lowered);
  NDArray u = random_array<uint8_t>({n}, 611, 0.0, 255.0), v = random_array<uint8_t>({n}, 612, 0.0, 254.0);
  NDArray l = random_array<int64_t>({n}, 613, -1e12, 1e12);
  NDArray o_add = NDArray::empty({n}, UInt(8)), o_div = NDArray::empty({n}, UInt(8)),
          o_mod = NDArray::empty({n}, UInt(8)), o_l = NDArray::empty({n}, Int(64));
  k(u, v, l, o_add, o_div, o_mod, o_l);
  std::vector<uint8_t> uv = u.to_vector<uint8_t>(), vv = v.to_vector<uint8_t>(), r_add(n), r_div(n), r_mod(n);
  std::vector<int64_t> lv = l.to_vector<int64_t>(), r_l(n);
  for (int i = 0; i < n; ++i) {
    r_add[i] = static_cast<uint8_t>(uv[i] + vv[i]);
    r_div[i] = static_cast<uint8_t>(uv[i] / (vv[i] + 1));
    r_mod[i] = static_cast<uint8_t>(uv[i] % (vv[i] + 1));
    r_l[i] = floordiv_ref<int64_t>(lv[i], -3) + floormod_ref<int64_t>(lv[i], 7);
  }
  check_close<uint8_t>(o_add, r_add);
  check_close<uint8_t>(o_div, r_div);
  check_close<uint8_t>(o_mod, r_mod);
  check_close<int64_t>(o_l, r_l);
}

TEST_CASE("a comparison computed into a bool tensor stores one byte per element",
          "[correctness][elementwise][bool]") {
  const int n = 37;
  Tensor A = placeholder({n}, Float(32), "A");
  Tensor B = placeholder({n}, Float(32), "B");
  Tensor C = compute(
      {n}, [&](Var i) { return A(i) < B(i) || i == 0; }, "C");
  REQUIRE(C.dtype() == Bool());
  Kernel k = build_kernel({C}, {A, B, C}, "cmp_bool");
  INFO("lowered:\n" << k.lowered);
  NDArray a = random_array<float>({n}, 621), b = random_array<float>({n}, 622);
  NDArray c = NDArray::empty({n}, Bool());
  k(a, b, c);
  std::vector<float> av = a.to_vector<float>(), bv = b.to_vector<float>();
  std::vector<uint8_t> ref(n);
  for (int i = 0; i < n; ++i) ref[i] = av[i] < bv[i] || i == 0;
  check_close<uint8_t>(c, ref);
  CHECK(c.to_vector<bool>() == std::vector<bool>(ref.begin(), ref.end()));
}

TEST_CASE("integer division by a run-time 0 or -1 gives the documented values rather than trapping",
          "[correctness][elementwise][int]") {
  // x / 0 = x % 0 = 0; x / -1 = -x (wrapping: INT_MIN stays INT_MIN), x % -1 = 0; other
  // divisors round towards minus infinity. Scalar and vector code, signed and unsigned.
  const int n = 64;
  Tensor A = placeholder({n}, Int(32), "A"), B = placeholder({n}, Int(32), "B");
  Tensor U = placeholder({n}, UInt(32), "U"), V = placeholder({n}, UInt(32), "V");
  Tensor div = compute({n}, [&](Var i) { return A(i) / B(i); }, "div");
  Tensor mod = compute({n}, [&](Var i) { return A(i) % B(i); }, "mod");
  Tensor udiv = compute({n}, [&](Var i) { return U(i) / V(i); }, "udiv");
  Tensor umod = compute({n}, [&](Var i) { return U(i) % V(i); }, "umod");
  std::vector<int32_t> a = random_array<int32_t>({n}, 621, -1e9, 1e9).to_vector<int32_t>();
  std::vector<int32_t> b = random_array<int32_t>({n}, 622, -5.0, 6.0).to_vector<int32_t>();
  std::vector<uint32_t> u = random_array<uint32_t>({n}, 623, 0.0, 4e9).to_vector<uint32_t>();
  std::vector<uint32_t> v = random_array<uint32_t>({n}, 624, 0.0, 3.0).to_vector<uint32_t>();
  for (int i = 0; i < n; i += 5) a[size_t(i)] = INT32_MIN;
  b[0] = 0, b[1] = -1, b[5] = -1, v[0] = 0;
  std::vector<int32_t> r_div(n), r_mod(n);
  std::vector<uint32_t> r_udiv(n), r_umod(n);
  for (size_t i = 0; i < size_t(n); ++i) {
    const int64_t x = a[i], y = b[i];
    r_div[i] = y == 0 ? 0 : y == -1 ? int32_t(uint32_t(0) - uint32_t(x)) : int32_t(floordiv_ref<int64_t>(x, y));
    r_mod[i] = y == 0 || y == -1 ? 0 : int32_t(floormod_ref<int64_t>(x, y));
    r_udiv[i] = v[i] == 0 ? 0 : u[i] / v[i];
    r_umod[i] = v[i] == 0 ? 0 : u[i] % v[i];
  }
  for (bool vector : {false, true}) {
    DYNAMIC_SECTION((vector ? "vectorized" : "scalar")) {
      Schedule s = create_schedule({div, mod, udiv, umod});
      if (vector)
        for (const Tensor &t : {div, mod, udiv, umod}) {
          auto [o, in] = s[t].split(t.axis(0), 8);
          s[t].vectorize(in);
        }
      Kernel k = build_kernel(s, {A, B, U, V, div, mod, udiv, umod}, "div_by_runtime");
      INFO("lowered:\n" << k.lowered);
      NDArray o_div = NDArray::empty({n}, Int(32)), o_mod = NDArray::empty({n}, Int(32));
      NDArray o_udiv = NDArray::empty({n}, UInt(32)), o_umod = NDArray::empty({n}, UInt(32));
      k(NDArray::from_vector<int32_t>(a, {n}), NDArray::from_vector<int32_t>(b, {n}), NDArray::from_vector<uint32_t>(u, {n}),
        NDArray::from_vector<uint32_t>(v, {n}), o_div, o_mod, o_udiv, o_umod);
      CHECK(o_div.to_vector<int32_t>() == r_div);
      CHECK(o_mod.to_vector<int32_t>() == r_mod);
      CHECK(o_udiv.to_vector<uint32_t>() == r_udiv);
      CHECK(o_umod.to_vector<uint32_t>() == r_umod);
    }
  }
}
