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
