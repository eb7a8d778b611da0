// The operator library's shape and broadcasting ops (ops/transform.h) against plain C++
// index arithmetic on random data.
#include <tensorir/ops/schedule.h>
#include <tensorir/ops/transform.h>

#include <string>
#include <vector>

#include "correctness/reference.h"
#include "correctness/target_runner.h"

using namespace tensorir;
using namespace tensorir::testing;
using Catch::Contains;

namespace {

using Shape = std::vector<int64_t>;

NDArray run_generic(const std::vector<Tensor> &ins, const Tensor &out, const std::vector<NDArray> &inputs,
                    const std::string &target = "llvm") {
  std::vector<BuildArg> args(ins.begin(), ins.end());
  args.push_back(out);
  Shape shape;
  for (const Expr &d : out.shape()) shape.push_back(*as_const_int(d));
  std::vector<Arg> host(inputs.begin(), inputs.end());
  host.push_back(NDArray::empty(shape, out.dtype()));
  Schedule s = ops::schedule_generic({out});
  INFO("lowered:\n" << lowered_text(s, args, "op"));
  return run_on_target(target, s, args, "op", host).back();
}

Shape shape_of(const Tensor &t) {
  Shape s;
  for (const Expr &d : t.shape()) s.push_back(*as_const_int(d));
  return s;
}

std::vector<int64_t> strides(const Shape &s) {
  std::vector<int64_t> st(s.size(), 1);
  for (int i = int(s.size()) - 2; i >= 0; --i) st[i] = st[i + 1] * s[i + 1];
  return st;
}

// Multi-index of flat position i in `shape`.
std::vector<int64_t> unravel(int64_t i, const Shape &shape) {
  std::vector<int64_t> idx(shape.size());
  for (int d = int(shape.size()) - 1; d >= 0; --d) {
    idx[d] = i % shape[d];
    i /= shape[d];
  }
  return idx;
}

}  // namespace

TEST_CASE("ops add, subtract, multiply and divide broadcast like NumPy", "[correctness][ops][broadcast]") {
  struct Case {
    Shape a, b, out;
  };
  for (const Case &c : {Case{{3, 1, 5}, {4, 1}, {3, 4, 5}}, Case{{7}, {2, 3, 7}, {2, 3, 7}},
                        Case{{2, 3}, {2, 3}, {2, 3}}, Case{{1, 6, 1}, {5, 1, 1, 3}, {5, 1, 6, 3}}}) {
    Tensor A = placeholder(std::vector<Expr>(c.a.begin(), c.a.end()), Float(32), "a");
    Tensor B = placeholder(std::vector<Expr>(c.b.begin(), c.b.end()), Float(32), "b");
    NDArray a = random_array<float>(c.a, 501), b = random_array<float>(c.b, 502, 0.5, 2.0);
    auto av = a.to_vector<float>(), bv = b.to_vector<float>();
    auto read = [&](const std::vector<float> &v, const Shape &s, const std::vector<int64_t> &idx) {
      const auto st = strides(s);
      int64_t off = 0;
      const size_t skip = idx.size() - s.size();
      for (size_t d = 0; d < s.size(); ++d) off += (s[d] == 1 ? 0 : idx[skip + d]) * st[d];
      return double(v[off]);
    };
    std::vector<double> sum, diff, prod, quot;
    for (int64_t i = 0; i < numel(c.out); ++i) {
      auto idx = unravel(i, c.out);
      double x = read(av, c.a, idx), y = read(bv, c.b, idx);
      sum.push_back(x + y), diff.push_back(x - y), prod.push_back(x * y), quot.push_back(x / y);
    }
    Tensor S = ops::add(A, B);
    REQUIRE(shape_of(S) == c.out);
    check_close<float>(run_generic({A, B}, S, {a, b}), sum);
    check_close<float>(run_generic({A, B}, ops::subtract(A, B), {a, b}), diff);
    check_close<float>(run_generic({A, B}, ops::multiply(A, B), {a, b}), prod);
    check_close<float>(run_generic({A, B}, ops::divide(A, B), {a, b}), quot);
  }
}

TEST_CASE("ops reshape, flatten and transpose move elements like NumPy", "[correctness][ops][transform]") {
  const Shape in = {2, 3, 5, 7};
  Tensor X = placeholder({2, 3, 5, 7}, Float(32), "x");
  NDArray x = random_array<float>(in, 511);
  auto xv = x.to_vector<float>();
  std::vector<double> same(xv.begin(), xv.end());
  Tensor R = ops::reshape(X, {6, -1, 5});
  REQUIRE(shape_of(R) == Shape{6, 7, 5});
  check_close<float>(run_generic({X}, R, {x}), same, {0, 0});
  Tensor F = ops::flatten(X);
  REQUIRE(shape_of(F) == Shape{2, 105});
  check_close<float>(run_generic({X}, F, {x}), same, {0, 0});

  for (const std::vector<int> &axes : {std::vector<int>{0, 2, 3, 1}, std::vector<int>{}, std::vector<int>{3, -3, 0, 2}}) {
    Tensor T = ops::transpose(X, axes);
    std::vector<int> ax = axes;
    if (ax.empty()) ax = {3, 2, 1, 0};
    for (int &a : ax) a = a < 0 ? a + 4 : a;
    Shape out;
    for (int a : ax) out.push_back(in[a]);
    REQUIRE(shape_of(T) == out);
    const auto st = strides(in);
    std::vector<double> ref;
    for (int64_t i = 0; i < numel(out); ++i) {
      auto idx = unravel(i, out);
      int64_t off = 0;
      for (int d = 0; d < 4; ++d) off += idx[d] * st[ax[d]];
      ref.push_back(xv[off]);
    }
    check_close<float>(run_generic({X}, T, {x}), ref, {0, 0});
  }
  // Two injective stages in a row: the generic schedule inlines the inner one.
  Tensor TT = ops::transpose(ops::reshape(X, {30, 7}), {1, 0});
  std::vector<double> ref;
  for (int j = 0; j < 7; ++j)
    for (int i = 0; i < 30; ++i) ref.push_back(xv[i * 7 + j]);
  check_close<float>(run_generic({X}, TT, {x}), ref, {0, 0});
}

TEST_CASE("ops concatenate and pad match index arithmetic", "[correctness][ops][transform]") {
  Tensor A = placeholder({2, 3, 4}, Float(32), "a"), B = placeholder({2, 5, 4}, Float(32), "b"),
         C = placeholder({2, 1, 4}, Float(32), "c");
  NDArray a = random_array<float>({2, 3, 4}, 521), b = random_array<float>({2, 5, 4}, 522),
          c = random_array<float>({2, 1, 4}, 523);
  auto av = a.to_vector<float>(), bv = b.to_vector<float>(), cv = c.to_vector<float>();
  std::vector<double> ref;
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 4; ++k) ref.push_back(av[(i * 3 + j) * 4 + k]);
    for (int j = 0; j < 5; ++j)
      for (int k = 0; k < 4; ++k) ref.push_back(bv[(i * 5 + j) * 4 + k]);
    for (int k = 0; k < 4; ++k) ref.push_back(cv[i * 4 + k]);
  }
  Tensor Cat = ops::concatenate({A, B, C}, -2);
  REQUIRE(shape_of(Cat) == Shape{2, 9, 4});
  check_close<float>(run_generic({A, B, C}, Cat, {a, b, c}), ref, {0, 0});

  Tensor P = ops::pad(B, {1, 0, 2}, {0, 3, 1}, -2.5);
  REQUIRE(shape_of(P) == Shape{3, 8, 7});
  std::vector<double> pref;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 8; ++j)
      for (int k = 0; k < 7; ++k) {
        int si = i - 1, sj = j, sk = k - 2;
        bool in = si >= 0 && si < 2 && sj < 5 && sk >= 0 && sk < 4;
        pref.push_back(in ? bv[(si * 5 + sj) * 4 + sk] : -2.5);
      }
  check_close<float>(run_generic({B}, P, {b}), pref, {0, 0});
#if TENSORIR_WITH_OPENGL
  check_close<float>(run_generic({B}, ops::pad(B, {1, 0, 2}, {0, 3, 1}, -2.5), {b}, "opengl"), pref, {0, 0});
  check_close<float>(run_generic({A, B, C}, ops::concatenate({A, B, C}, 1), {a, b, c}, "opengl -mode=fragment"), ref,
                     {0, 0});
#endif
}

TEST_CASE("ops transform errors name the tensors", "[correctness][ops][error]") {
  Tensor A = placeholder({3, 4}, Float(32), "lhs"), B = placeholder({2, 4}, Float(32), "rhs");
  REQUIRE_THROWS_WITH(ops::add(A, B), Contains("cannot broadcast lhs [3, 4] with rhs [2, 4]"));
  Tensor I = placeholder({3, 4}, Int(32), "ints");
  REQUIRE_THROWS_WITH(ops::multiply(A, I), Contains("lhs (float32) and ints (int32) must have the same dtype"));
  REQUIRE_THROWS_WITH(ops::reshape(A, {5, -1}), Contains("reshape of lhs [3, 4]"));
  REQUIRE_THROWS_WITH(ops::reshape(A, {2, 5}), Contains("element counts differ"));
  REQUIRE_THROWS_WITH(ops::transpose(A, {0, 0}), Contains("axis 0 appears twice"));
  REQUIRE_THROWS_WITH(ops::concatenate({A, B}, 1), Contains("dimension 0 of rhs is 2 but that of lhs is 3"));
  REQUIRE_THROWS_WITH(ops::pad(A, {1, 1, 1}, {}), Contains("tensor lhs has 2 dimensions"));
}
