// Integer expressions that simplifying or LLVM's no-wrap reasoning could get wrong: a
// divisor that simplifies to 0, x / x where x may be 0, int8 and int16 arithmetic that
// wraps, and a divisor whose computation overflows. Each against plain loops that apply
// the documented rules (x / 0 = x % 0 = 0, floor division, int8/int16 wrap around), in
// scalar and vector code.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "correctness/reference.h"

using namespace tensorir;
using namespace tensorir::testing;

namespace {

int64_t div_ref(int64_t a, int64_t b) { return b == 0 ? 0 : floordiv_ref<int64_t>(a, b); }
int64_t mod_ref(int64_t a, int64_t b) { return b == 0 ? 0 : floormod_ref<int64_t>(a, b); }

// `outs` built with every stage scalar, or split by 8 with the inner loop vectorized.
Kernel build_both(const std::vector<Tensor> &outs, const std::vector<BuildArg> &args, bool vector,
                  const std::string &name) {
  Schedule s = create_schedule(outs);
  if (vector)
    for (const Tensor &t : outs) {
      auto [o, in] = s[t].split(t.axis(t.ndim() - 1), 8);
      s[t].vectorize(in);
    }
  return build_kernel(s, args, name);
}

}  // namespace

TEST_CASE("integers: a divisor that simplifies to 0 gives 0, as a run-time 0 does", "[correctness][int]") {
  const int n = 40;
  Tensor A = placeholder({n}, Int(32), "A"), B = placeholder({n}, Int(32), "B");
  // j takes only the value 0; B(i) - B(i) is 0 once simplified.
  Tensor by_j = compute({n, 1}, [&](Var i, Var j) { return A(i) + A(i) / j + A(i) % j; }, "by_j");
  Tensor by_diff = compute({n}, [&](Var i) { return A(i) + A(i) / (B(i) - B(i)) + A(i) % (i - i); }, "by_diff");
  const NDArray a = random_array<int32_t>({n}, 711, -1000, 1000), b = random_array<int32_t>({n}, 712, -1000, 1000);
  const std::vector<int32_t> want = a.to_vector<int32_t>();
  for (bool vector : {false, true}) {
    INFO((vector ? "vectorized" : "scalar"));
    Kernel k = build_both({by_diff}, {A, B, by_diff}, vector, "by_diff");
    INFO("lowered:\n" << k.lowered);
    NDArray out = NDArray::empty({n}, Int(32));
    k(a, b, out);
    CHECK(out.to_vector<int32_t>() == want);
  }
  Kernel k = build_both({by_j}, {A, by_j}, false, "by_j");
  INFO("lowered:\n" << k.lowered);
  NDArray out = NDArray::empty({n, 1}, Int(32));
  k(a, out);
  CHECK(out.to_vector<int32_t>() == want);
}

TEST_CASE("integers: constants that merge past the type's range keep the expression's form",
          "[correctness][int]") {
  // (x + INT_MAX) + 1 and x - INT_MIN never overflow for the x given here; merged into
  // x + INT_MIN they would (signed overflow is undefined, and LLVM takes it so).
  const int n = 40;
  const int32_t lo = std::numeric_limits<int32_t>::min(), hi = std::numeric_limits<int32_t>::max();
  Tensor A = placeholder({n}, Int(32), "A");
  Tensor up = compute({n}, [&](Var i) { return (A(i) + hi) + 1; }, "up");
  Tensor neg = compute({n}, [&](Var i) { return min(A(i), -1) + 1 - Expr(lo); }, "neg");
  // Their remainders and signs are those of the value, not of the wrapped constant.
  const auto wide = [&](Expr x) { return (min(x, -1) + hi) + 1; };
  Tensor rem = compute({n}, [&](Var i) { return wide(A(i)) % 3 + cast(Int(32), wide(A(i)) < 0) * 10; }, "rem");
  Tensor A64 = placeholder({n}, Int(64), "A64");
  Tensor up64 = compute({n}, [&](Var i) { return (A64(i) + Expr(std::numeric_limits<int64_t>::max())) + Expr(int64_t{1}); },
                        "up64");
  std::vector<int32_t> av(n);
  std::vector<int64_t> av64(n);
  for (int i = 0; i < n; ++i) {
    av[size_t(i)] = lo + 1 + i * 7919;  // negative: x + INT_MAX + 1 stays in range
    av64[size_t(i)] = std::numeric_limits<int64_t>::min() + 1 + int64_t(i) * 104729;
  }
  const NDArray a = NDArray::from_vector<int32_t>(av, {n}), a64 = NDArray::from_vector<int64_t>(av64, {n});
  for (bool vector : {false, true}) {
    INFO((vector ? "vectorized" : "scalar"));
    Kernel k = build_both({up, neg, rem}, {A, up, neg, rem}, vector, "merge");
    INFO("lowered:\n" << k.lowered);
    NDArray u = NDArray::empty({n}, Int(32)), m = NDArray::empty({n}, Int(32)), r = NDArray::empty({n}, Int(32));
    k(a, u, m, r);
    Kernel k64 = build_both({up64}, {A64, up64}, vector, "merge64");
    NDArray u64 = NDArray::empty({n}, Int(64));
    k64(a64, u64);
    for (int i = 0; i < n; ++i) {
      const int64_t x = av[size_t(i)];
      CHECK(u.to_vector<int32_t>()[size_t(i)] == x + hi + 1);
      CHECK(m.to_vector<int32_t>()[size_t(i)] == std::min<int64_t>(x, -1) + 1 - lo);
      CHECK(r.to_vector<int32_t>()[size_t(i)] == floormod_ref<int64_t>(std::min<int64_t>(x, -1) + hi + 1, 3));
      CHECK(u64.to_vector<int64_t>()[size_t(i)] == av64[size_t(i)] + std::numeric_limits<int64_t>::max() + 1);
    }
  }
}

TEST_CASE("integers: the simplifier writes no constant past the type's range", "[correctness][int]") {
  Var x("x"), y("y");
  const int32_t hi = std::numeric_limits<int32_t>::max();
  for (const Expr &e : {(x + hi) + 1, (x + hi) + (y + 1), ((x + hi) + 1) % 3, ((x + hi) + 1) / 3, (x + hi) + 1 < 0}) {
    const std::string text = to_string(simplify(e));
    INFO(e << " simplifies to " << text);
    CHECK(text.find("2147483648") == std::string::npos);
  }
  // Sums whose constants stay in range still merge.
  CHECK(to_string(simplify((x + 5) + 1)) == to_string(simplify(x + 6)));
}

TEST_CASE("integers: x / x and (x * 3) / x are 0 where x is 0", "[correctness][int]") {
  const int n = 48;
  Tensor A = placeholder({n}, Int(32), "A"), B = placeholder({n}, Int(32), "B");
  Tensor self = compute({n}, [&](Var i) { return A(i) / A(i); }, "self");
  Tensor times = compute({n}, [&](Var i) { return (A(i) * 3) / A(i) + (A(i) * B(i)) / B(i); }, "times");
  Tensor index = compute({n}, [&](Var i) { return A(i) + i / i; }, "index");
  // About a third of each operand 0.
  const NDArray a = random_array<int32_t>({n}, 721, -1, 2), b = random_array<int32_t>({n}, 722, -1, 2);
  const std::vector<int32_t> av = a.to_vector<int32_t>(), bv = b.to_vector<int32_t>();
  std::vector<int32_t> r_self, r_times, r_index;
  for (int i = 0; i < n; ++i) {
    const int64_t x = av[size_t(i)], y = bv[size_t(i)];
    r_self.push_back(int32_t(div_ref(x, x)));
    r_times.push_back(int32_t(div_ref(x * 3, x) + div_ref(x * y, y)));
    r_index.push_back(int32_t(x + div_ref(i, i)));
  }
  REQUIRE(std::count(av.begin(), av.end(), 0) > 5);
  for (bool vector : {false, true}) {
    INFO((vector ? "vectorized" : "scalar"));
    Kernel k = build_both({self, times, index}, {A, B, self, times, index}, vector, "self_div");
    INFO("lowered:\n" << k.lowered);
    NDArray o1 = NDArray::empty({n}, Int(32)), o2 = NDArray::empty({n}, Int(32)), o3 = NDArray::empty({n}, Int(32));
    k(a, b, o1, o2, o3);
    CHECK(o1.to_vector<int32_t>() == r_self);
    CHECK(o2.to_vector<int32_t>() == r_times);
    CHECK(o3.to_vector<int32_t>() == r_index);
  }
}

TEMPLATE_TEST_CASE("integers: int8 and int16 arithmetic wraps around inside expressions", "[correctness][int]",
                   int8_t, int16_t) {
  using T = TestType;
  const Type t = dtype_of<T>();
  const int n = 96;
  const T big = T(std::numeric_limits<T>::max() / 4 * 3);  // 95 or 24575: a + big overflows for a > max / 4
  Tensor A = placeholder({n}, t, "A");
  Tensor halve = compute({n}, [&](Var i) { return (A(i) * 2) / 2; }, "halve");
  Tensor larger = compute({n}, [&](Var i) { return max(A(i) + big, A(i)); }, "larger");
  Tensor less = compute({n}, [&](Var i) { return cast(t, A(i) + big < A(i)); }, "less");
  Tensor rem = compute({n}, [&](Var i) { return cast(t, i) % max(A(i) * 3, make_zero(t)); }, "rem");
  const NDArray a = random_array<T>({n}, 731, double(std::numeric_limits<T>::min()), double(std::numeric_limits<T>::max()));
  const std::vector<T> av = a.to_vector<T>();
  auto wrap = [](int64_t v) { return T(v); };  // two's complement, as C++20 defines the conversion
  std::vector<T> r_halve, r_larger, r_less, r_rem;
  size_t wrapped = 0;
  for (int i = 0; i < n; ++i) {
    const int64_t x = av[size_t(i)];
    r_halve.push_back(wrap(div_ref(wrap(x * 2), 2)));
    const T sum = wrap(x + big);
    r_larger.push_back(std::max<T>(sum, T(x)));
    r_less.push_back(T(sum < x));
    r_rem.push_back(wrap(mod_ref(wrap(i), std::max<int64_t>(wrap(x * 3), 0))));
    wrapped += sum < x;
  }
  REQUIRE(wrapped > 5);
  for (bool vector : {false, true}) {
    INFO((vector ? "vectorized" : "scalar"));
    Kernel k = build_both({halve, larger, less, rem}, {A, halve, larger, less, rem}, vector, "wrap");
    INFO("lowered:\n" << k.lowered);
    NDArray o1 = NDArray::empty({n}, t), o2 = NDArray::empty({n}, t), o3 = NDArray::empty({n}, t),
            o4 = NDArray::empty({n}, t);
    k(a, o1, o2, o3, o4);
    CHECK(o1.to_vector<T>() == r_halve);
    CHECK(o2.to_vector<T>() == r_larger);
    CHECK(o3.to_vector<T>() == r_less);
    CHECK(o4.to_vector<T>() == r_rem);
  }
}

TEST_CASE("integers: an int32 divisor whose computation overflows does not trap", "[correctness][int]") {
  // int32 overflow is undefined (the element's value is unspecified), but the division's
  // guard sees the value the division divides by: no SIGFPE, and the other elements exact.
  const int n = 16;
  Tensor A = placeholder({n}, Int(32), "A");
  Tensor rem = compute({n}, [&](Var i) { return i % max(A(i) * 65536, 0) + i / max(A(i) * 65536, 0); }, "rem");
  std::vector<int32_t> av(n);
  for (int i = 0; i < n; ++i) av[size_t(i)] = i % 4 == 2 ? 65536 : i - 4;  // 65536 * 65536 wraps to 0
  for (bool vector : {false, true}) {
    INFO((vector ? "vectorized" : "scalar"));
    Kernel k = build_both({rem}, {A, rem}, vector, "overflow");
    INFO("lowered:\n" << k.lowered);
    NDArray out = NDArray::empty({n}, Int(32));
    k(NDArray::from_vector<int32_t>(av, {n}), out);
    const std::vector<int32_t> got = out.to_vector<int32_t>();
    for (int i = 0; i < n; ++i) {
      if (i % 4 == 2) continue;
      const int64_t d = std::max<int64_t>(int64_t(av[size_t(i)]) * 65536, 0);
      INFO("element " << i);
      CHECK(got[size_t(i)] == mod_ref(i, d) + div_ref(i, d));
    }
  }
}

TEST_CASE("integers: bounds of int8 arithmetic that wraps prove nothing", "[correctness][int]") {
  // int8(i) + 100 wraps for i in [28, 128): its bounds are int8's, so the max stays.
  const int n = 200;
  Tensor C = compute({n}, [&](Var i) {
    return max(cast(Int(32), cast(Int(8), i) + make_const(Int(8), 100)), Expr(-50));
  }, "C");
  std::vector<int32_t> want;
  for (int i = 0; i < n; ++i) want.push_back(std::max<int32_t>(int8_t(int8_t(i) + 100), -50));
  for (bool vector : {false, true}) {
    INFO((vector ? "vectorized" : "scalar"));
    Kernel k = build_both({C}, {C}, vector, "wrap_bounds");
    INFO("lowered:\n" << k.lowered);
    NDArray out = NDArray::empty({n}, Int(32));
    k(out);
    CHECK(out.to_vector<int32_t>() == want);
  }
}

TEST_CASE("integers: bounds of products, negations and differences that leave the type prove nothing",
          "[correctness][int]") {
  // The bounds of an int16 product ([-32768, 32767]^2), of int8 / -1 (-128 / -1) and of
  // uint16 0 - b leave their type; folded as constants of it they would wrap and decide
  // the max, min and comparisons below at compile time.
  const int n = 64;
  Tensor A = placeholder({n}, Int(16), "A"), B = placeholder({n}, Int(16), "B");
  Tensor S = placeholder({n}, Int(8), "S"), U = placeholder({n}, UInt(16), "U"), V = placeholder({n}, UInt(8), "V");
  Tensor W = placeholder({n}, UInt(16), "W");
  const auto i32 = [](Expr e) { return cast(Int(32), e); };
  Tensor relu = compute({n}, [&](Var i) { return max(i32(A(i) * B(i)), Expr(0)); }, "relu");
  Tensor positive = compute({n}, [&](Var i) { return i32(i32(A(i) * B(i)) > 0); }, "positive");
  Tensor square = compute({n}, [&](Var i) { return i32(i32(V(i) * V(i)) > 1); }, "square");
  // uint16 x uint16 in int32: bounds up to 65535^2 leave int32 (values below 46341 do not).
  Tensor wide = compute({n}, [&](Var i) { return max(i32(W(i)) * i32(W(i)), Expr(1)); }, "wide");
  Tensor negated = compute({n}, [&](Var i) { return min(i32(S(i) / make_const(Int(8), -1)), i32(S(i))); }, "negated");
  Tensor below = compute({n}, [&](Var i) { return i32(i32(S(i) / make_const(Int(8), -1)) < -100); }, "below");
  Tensor diff = compute({n}, [&](Var i) { return min(i32(make_const(UInt(16), 0) - U(i)), i32(U(i))); }, "diff");
  const NDArray a = random_array<int16_t>({n}, 741, -300, 300), b = random_array<int16_t>({n}, 742, -300, 300);
  const NDArray s = random_array<int8_t>({n}, 743, -128, 127), u = random_array<uint16_t>({n}, 744, 0, 65535);
  const NDArray v = random_array<uint8_t>({n}, 745, 0, 255), w = random_array<uint16_t>({n}, 746, 0, 46340);
  const std::vector<int16_t> av = a.to_vector<int16_t>(), bv = b.to_vector<int16_t>();
  const std::vector<int8_t> sv = s.to_vector<int8_t>();
  const std::vector<uint16_t> uv = u.to_vector<uint16_t>();
  const std::vector<uint8_t> vv = v.to_vector<uint8_t>();
  const std::vector<uint16_t> wv = w.to_vector<uint16_t>();
  std::vector<int32_t> r_relu, r_positive, r_square, r_wide, r_negated, r_below, r_diff;
  for (size_t i = 0; i < size_t(n); ++i) {
    const int32_t p = int16_t(av[i] * bv[i]), neg = int8_t(-sv[i]);  // wrapping, as int16 and int8 do
    r_relu.push_back(std::max(p, 0));
    r_positive.push_back(p > 0);
    r_square.push_back(int32_t(uint8_t(vv[i] * vv[i])) > 1);
    r_wide.push_back(std::max(int32_t(wv[i]) * int32_t(wv[i]), 1));
    r_negated.push_back(std::min(neg, int32_t(sv[i])));
    r_below.push_back(neg < -100);
    r_diff.push_back(std::min(int32_t(uint16_t(-uv[i])), int32_t(uv[i])));
  }
  const std::vector<Tensor> outs{relu, positive, square, wide, negated, below, diff};
  const std::vector<std::vector<int32_t>> want{r_relu, r_positive, r_square, r_wide, r_negated, r_below, r_diff};
  for (bool vector : {false, true}) {
    INFO((vector ? "vectorized" : "scalar"));
    std::vector<BuildArg> args{A, B, S, U, V, W};
    for (const Tensor &t : outs) args.push_back(t);
    Kernel k = build_both(outs, args, vector, "bounds");
    INFO("lowered:\n" << k.lowered);
    std::vector<NDArray> results;
    for (size_t j = 0; j < outs.size(); ++j) results.push_back(NDArray::empty({n}, Int(32)));
    k(a, b, s, u, v, w, results[0], results[1], results[2], results[3], results[4], results[5], results[6]);
    for (size_t j = 0; j < outs.size(); ++j) {
      INFO(outs[j].name());
      CHECK(results[j].to_vector<int32_t>() == want[j]);
    }
  }
}

TEST_CASE("integers: a vector divisor that is a select of constants divides lane by lane", "[correctness][int]") {
  // Per lane -2, 0 (x / 0 = x % 0 = 0), j or 2j: with the outer loop of extent 1 the
  // divisor is a select of constant vectors.
  const int n = 16;
  Tensor A = placeholder({n}, Int(32), "A");
  const auto divisor = [&](Var j) { return select(A(j) < 0, Expr(-2), Expr(j)) + j; };
  Tensor M = compute({n}, [&](Var j) { return A(j) % divisor(j); }, "M");
  Tensor D = compute({n}, [&](Var j) { return A(j) / divisor(j); }, "D");
  const NDArray a = random_array<int32_t>({n}, 751, -100, 100);
  const std::vector<int32_t> av = a.to_vector<int32_t>();
  std::vector<int32_t> r_mod, r_div;
  for (int j = 0; j < n; ++j) {
    const int64_t d = (av[size_t(j)] < 0 ? -2 : j) + j;
    r_mod.push_back(int32_t(mod_ref(av[size_t(j)], d)));
    r_div.push_back(int32_t(div_ref(av[size_t(j)], d)));
  }
  for (bool vector : {false, true}) {
    INFO((vector ? "vectorized" : "scalar"));
    Schedule sch = create_schedule({M, D});
    if (vector) {
      sch[M].vectorize(M.axis(0));
      sch[D].vectorize(D.axis(0));
    }
    Kernel k = build_kernel(sch, {A, M, D}, "select_divisor");
    INFO("lowered:\n" << k.lowered);
    NDArray m = NDArray::empty({n}, Int(32)), d = NDArray::empty({n}, Int(32));
    k(a, m, d);
    CHECK(m.to_vector<int32_t>() == r_mod);
    CHECK(d.to_vector<int32_t>() == r_div);
  }
}
