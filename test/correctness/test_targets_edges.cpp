// Integer and float edge cases every target computes as "llvm" does (the documented
// rules: x / 0 = x % 0 = 0 at run time, floor division, C's pow), each against a plain C++
// reference: division by zero and by INT_MIN, 8- and 16-bit reductions and min/max with a
// constant, 64-bit shifts, and pow's special cases. The fragment target takes the float32
// and int32 cases; without an OpenGL context the OpenGL cases fail.
#include <algorithm>
#include <cmath>
#include <functional>
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

// The result of `e` (a function of i over A and B, int32) for each pair.
std::vector<int32_t> run_int_pairs(const std::string &target, const std::vector<int32_t> &a,
                                   const std::vector<int32_t> &b, const std::function<Expr(Expr, Expr)> &e) {
  const int n = int(a.size());
  Tensor A = placeholder({n}, Int(32), "A"), B = placeholder({n}, Int(32), "B");
  Tensor C = compute({n}, [&](Var i) { return e(A(i), B(i)); }, "C");
  auto out = run_on_target(target, create_schedule({C}), {A, B, C}, "pairs",
                           {NDArray::from_vector(a, {n}), NDArray::from_vector(b, {n}), NDArray::empty({n}, Int(32))});
  return out[2].to_vector<int32_t>();
}

// An 8- or 16-bit integer array of `t` holding `v`, and such an array's values.
template <typename T>
NDArray typed(const std::vector<int64_t> &v, const std::vector<int64_t> &shape) {
  return NDArray::from_vector(std::vector<T>(v.begin(), v.end()), shape);
}
NDArray narrow_array(Type t, const std::vector<int64_t> &v, const std::vector<int64_t> &shape) {
  if (t == Int(8)) return typed<int8_t>(v, shape);
  if (t == UInt(8)) return typed<uint8_t>(v, shape);
  if (t == Int(16)) return typed<int16_t>(v, shape);
  return typed<uint16_t>(v, shape);
}
template <typename T>
std::vector<int64_t> widened(const NDArray &a) {
  const std::vector<T> v = a.to_vector<T>();
  return {v.begin(), v.end()};
}
std::vector<int64_t> values(const NDArray &a) {
  const Type t = a.dtype();
  if (t == Int(8)) return widened<int8_t>(a);
  if (t == UInt(8)) return widened<uint8_t>(a);
  if (t == Int(16)) return widened<int16_t>(a);
  return widened<uint16_t>(a);
}

}  // namespace

TEST_CASE("every target: x / 0 and x % 0 are 0 at run time, and INT_MIN divides by floor",
          "[correctness][targets][opengl][fragment][opencl]") {
  const std::string target = GENERATE(as<std::string>{}, "llvm", "opengl", "opengl -mode=fragment", "opencl");
  INFO("target " << target);
  const int32_t lo = std::numeric_limits<int32_t>::min();
  const std::vector<int32_t> a = {7, -7, 0, 5, -1, 1, -5, 7, lo, lo, 9, -9};
  const std::vector<int32_t> b = {0, 0, 0, 0, lo, lo, lo, lo, 3, -3, lo, 1};
  const std::vector<int32_t> q = run_int_pairs(target, a, b, [](Expr x, Expr y) { return x / y; });
  const std::vector<int32_t> r = run_int_pairs(target, a, b, [](Expr x, Expr y) { return x % y; });
  for (size_t i = 0; i < a.size(); ++i) {
    INFO(a[i] << " and " << b[i]);
    CHECK(q[i] == (b[i] == 0 ? 0 : floordiv_ref<int64_t>(a[i], b[i])));
    CHECK(r[i] == (b[i] == 0 ? 0 : floormod_ref<int64_t>(a[i], b[i])));
  }
  if (target == "opengl -mode=fragment") return;  // int32 and float32 only
  const int n = 4;
  Tensor U = placeholder({n}, UInt(32), "U"), W = placeholder({n}, UInt(32), "W");
  Tensor D = compute({n}, [&](Var i) { return U(i) / W(i) + U(i) % W(i) * make_const(UInt(32), 1000); }, "D");
  auto out = run_on_target(target, create_schedule({D}), {U, W, D}, "udiv",
                           {NDArray::from_vector<uint32_t>({7, 100, 0, 4000000000u}, {n}),
                            NDArray::from_vector<uint32_t>({0, 7, 0, 3}, {n}), NDArray::empty({n}, UInt(32))});
  CHECK(out[2].to_vector<uint32_t>() == std::vector<uint32_t>{0, 14 + 2 * 1000, 0, 1333333333u + 1 * 1000});
}

TEST_CASE("every target: 8- and 16-bit reductions and min and max with a constant",
          "[correctness][targets][opengl][opencl]") {
  const std::string target = GENERATE(as<std::string>{}, "llvm", "opengl", "opencl");
  const Type t = GENERATE(Int(8), UInt(8), Int(16), UInt(16));
  INFO("target " << target << ", " << t);
  const int rows = 6, k = 5;
  Tensor A = placeholder({rows, k}, t, "A");
  IterVar r = reduce_axis({0, k}, "r");
  Tensor S = compute({rows}, [&](Var i) { return sum(A(i, r), {r}); }, "S");
  IterVar r2 = reduce_axis({0, k}, "r2");
  Tensor M = compute({rows}, [&](Var i) { return max(A(i, r2), {r2}); }, "M");
  Tensor R = compute({rows, k}, [&](Var i, Var j) { return min(max(A(i, j), make_const(t, 2)), make_const(t, 90)); }, "R");
  std::vector<int64_t> v;
  for (int e = 0; e < rows * k; ++e) v.push_back(t.is_uint() ? (e * 37) % 100 : (e * 37) % 100 - 50);
  const NDArray a = narrow_array(t, v, {rows, k});
  auto out = run_on_target(target, create_schedule({S, M, R}), {A, S, M, R}, "narrow",
                           {a, NDArray::empty({rows}, t), NDArray::empty({rows}, t), NDArray::empty({rows, k}, t)});
  const std::vector<int64_t> sums = values(out[1]), maxes = values(out[2]), clamped = values(out[3]);
  const int bits = t.bits();
  auto wrap = [&](int64_t x) {  // to the type, as the sum wraps
    const int64_t m = int64_t(1) << bits, u = ((x % m) + m) % m;
    return t.is_uint() || u < m / 2 ? u : u - m;
  };
  for (int i = 0; i < rows; ++i) {
    int64_t s = 0, mx = v[size_t(i * k)];
    for (int j = 0; j < k; ++j) s += v[size_t(i * k + j)], mx = std::max(mx, v[size_t(i * k + j)]);
    INFO("row " << i);
    CHECK(sums[size_t(i)] == wrap(s));
    CHECK(maxes[size_t(i)] == mx);
    for (int j = 0; j < k; ++j) {
      const size_t e = size_t(i * k + j);
      CHECK(clamped[e] == std::min<int64_t>(std::max<int64_t>(v[e], 2), 90));
    }
  }
}

TEST_CASE("every target: 64-bit shifts by a 64-bit count", "[correctness][targets][opengl][opencl]") {
  const std::string target = GENERATE(as<std::string>{}, "llvm", "opengl", "opencl");
  INFO("target " << target);
  const int n = 5;
  Tensor A = placeholder({n}, Int(64), "A"), B = placeholder({n}, Int(64), "B");
  Tensor L = compute({n}, [&](Var i) { return shift_left(A(i), B(i)); }, "L");
  Tensor R = compute({n}, [&](Var i) { return shift_right(A(i), B(i)) + shift_right(A(i), make_const(Int(64), 3)); }, "R");
  const std::vector<int64_t> a = {1, -1, 123456789012, -98765432109, 7}, b = {0, 5, 20, 33, 62};
  auto out = run_on_target(target, create_schedule({L, R}), {A, B, L, R}, "shifts",
                           {NDArray::from_vector(a, {n}), NDArray::from_vector(b, {n}), NDArray::empty({n}, Int(64)),
                            NDArray::empty({n}, Int(64))});
  for (int i = 0; i < n; ++i) {
    INFO(a[size_t(i)] << " by " << b[size_t(i)]);
    CHECK(out[2].to_vector<int64_t>()[size_t(i)] == int64_t(uint64_t(a[size_t(i)]) << b[size_t(i)]));
    CHECK(out[3].to_vector<int64_t>()[size_t(i)] == (a[size_t(i)] >> b[size_t(i)]) + (a[size_t(i)] >> 3));
  }
}

TEST_CASE("every target: pow's special cases are C's", "[correctness][targets][opengl][fragment][opencl]") {
  const std::string target = GENERATE(as<std::string>{}, "llvm", "opengl", "opengl -mode=fragment", "opencl");
  INFO("target " << target);
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> x = {-inf, -inf, 1, -1, 1, 0.5f, 0.5f, 2, -2, nan, nan, -8, 0, -0.0f};
  const std::vector<float> y = {0.5f, -0.5f, inf, inf, nan, inf, -inf, -inf, 3, 2, 0, 1.0f / 3, -1, -3};
  const int n = int(x.size());
  Tensor X = placeholder({n}, Float(32), "X"), Y = placeholder({n}, Float(32), "Y");
  Tensor P = compute({n}, [&](Var i) { return pow(X(i), Y(i)); }, "P");
  auto out = run_on_target(target, create_schedule({P}), {X, Y, P}, "pow",
                           {NDArray::from_vector(x, {n}), NDArray::from_vector(y, {n}), NDArray::empty({n}, Float(32))});
  const std::vector<float> got = out[2].to_vector<float>();
  for (int i = 0; i < n; ++i) {
    const float want = std::pow(x[size_t(i)], y[size_t(i)]);
    INFO("pow(" << x[size_t(i)] << ", " << y[size_t(i)] << ") = " << got[size_t(i)] << ", C: " << want);
    if (std::isnan(want)) CHECK(std::isnan(got[size_t(i)]));
    else CHECK(got[size_t(i)] == Approx(want));
  }
}

#endif
