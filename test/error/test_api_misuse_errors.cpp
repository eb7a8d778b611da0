// Misuse of the C++ API that once crashed the process, reached an internal check or gave
// wrong values in silence: each is now a tensorir::Error naming what is wrong (or, for
// clip's bounds, the right values, checked against plain loops).
#include <tensorir/autotune/config.h>
#include <tensorir/ops/nn.h>
#include <tensorir/ops/transform.h>
#include <tensorir/tensorir.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <climits>

using namespace tensorir;
using Catch::Contains;

TEST_CASE("api misuse: element types no array holds are refused where tensors are made", "[error][te][types]") {
  for (Type t : {Float(33), Int(7), Int(0), UInt(3), Float(32, 4)}) {
    INFO(t.str());
    CHECK_THROWS_WITH(placeholder({8}, t, "A"), Contains("placeholder 'A': element type") &&
                                                    Contains("is none that arrays hold"));
  }
  Tensor A = placeholder({8}, Float(32), "A");
  CHECK_THROWS_WITH(compute({8}, [&](Var i) { return cast(Float(32, 4), A(i)); }, "B"),
                    Contains("compute 'B': value 0 is float32x4, which no tensor holds"));
  CHECK_THROWS_WITH(compute({8}, [&](Var i) { return cast(Int(24), A(i)); }, "B"), Contains("which no tensor holds"));
}

TEST_CASE("api misuse: undefined handles are errors, not crashes", "[error][te]") {
  const Tensor undefined;
  CHECK_THROWS_WITH(undefined.name(), Contains("name() of an undefined tensor"));
  CHECK_THROWS_WITH(undefined.dtype(), Contains("dtype() of an undefined tensor"));
  CHECK_THROWS_WITH(undefined.axis(0), Contains("axis() of an undefined tensor"));
  CHECK_THROWS_WITH(undefined.reduce_axis(0), Contains("reduce_axis() of an undefined tensor"));
  Tensor A = placeholder({4}, Float(32), "A");
  Tensor B = compute({4}, [&](Var i) { return A(i) * 2.0f; }, "B");
  CHECK_THROWS_WITH(B.op().output(5), Contains("operation 'B' has 1 output(s); there is no output 5"));
  CHECK_THROWS_WITH(Operation().output(0), Contains("undefined operation"));
  const Tensor past(B.op(), -1);
  CHECK_THROWS_WITH(past.shape(), Contains("output -1 of 'B', which has 1 output(s)"));
  CHECK_THROWS_WITH(past(0), Contains("output -1 of 'B'"));
  CHECK_THROWS_WITH(Schedule().stages(), Contains("schedule is undefined"));
  CHECK_THROWS_WITH(Schedule().outputs(), Contains("schedule is undefined"));
  CHECK_THROWS_WITH(Stage().op(), Contains("stage is undefined"));
  CHECK_THROWS_WITH(build(Schedule(), {A, B}, "llvm", "f"), Contains("build('f'): the schedule is undefined"));
}

TEST_CASE("api misuse: a reducer's undefined results and reductions nested out of sight", "[error][te]") {
  Tensor A = placeholder({8, 8}, Float(32), "A");
  IterVar k = reduce_axis({0, 8}, "k"), k2 = reduce_axis({0, 8}, "k2");
  auto undefined_combine = comm_reducer([](const std::vector<Expr> &, const std::vector<Expr> &) { return std::vector<Expr>{Expr()}; },
                                        [](const std::vector<Type> &) { return std::vector<Expr>{Expr(0.0f)}; }, "r");
  CHECK_THROWS_WITH(compute({8}, [&](Var i) { return undefined_combine(A(i, k), {k}); }, "B"),
                    Contains("reducer 'r': combine returns an undefined value 0"));
  CHECK_THROWS_WITH(compute({8}, [&](Var i) { return sum(A(i, k), {k}, sum(A(i, k2), {k2}) > 0.0f); }, "B"),
                    Contains("compute 'B': a reduction inside a reduction (in the condition)"));
  auto nested_combine = comm_reducer(
      [&](const std::vector<Expr> &a, const std::vector<Expr> &b) { return std::vector<Expr>{a[0] + b[0] + sum(A(0, k2), {k2})}; },
      [](const std::vector<Type> &) { return std::vector<Expr>{Expr(0.0f)}; }, "nested");
  CHECK_THROWS_WITH(compute({8}, [&](Var i) { return nested_combine(A(i, k), {k}); }, "B"),
                    Contains("a reduction inside a reduction (in the reducer's combine)"));
}

TEST_CASE("api misuse: clip and pad bounds outside an integer type", "[error][ops]") {
  Tensor x = placeholder({4}, Int(8), "x");
  // Bounds wider than int8 leave its values as they are; a bound inside applies.
  for (auto [lo, hi] : std::vector<std::pair<double, double>>{{-1000, 1000}, {-1e10, 1e10}, {-1000, 5}, {-3.5, 1e9}}) {
    Tensor y = ops::clip(x, lo, hi, "y");
    Function f = build(create_schedule({y}), {x, y}, "llvm", "clip")("clip");
    const std::vector<int8_t> in = {-128, -5, 5, 127};
    NDArray a = NDArray::from_vector<int8_t>(in, {4}), out = NDArray::empty({4}, Int(8));
    f(a, out);
    std::vector<int8_t> want;
    for (int8_t v : in) want.push_back(int8_t(std::clamp<double>(v, std::max(lo, -128.0), std::min(hi, 127.0))));
    if (lo == -3.5) want = {-3, -3, 5, 127};  // bounds round inward to the type's values
    INFO(lo << " " << hi);
    CHECK(out.to_vector<int8_t>() == want);
  }
  CHECK_THROWS_WITH(ops::clip(x, 200, 300), Contains("no int8 value lies in [200, 300]"));
  CHECK_THROWS_WITH(ops::clip(x, 0.2, 0.8), Contains("no int8 value lies in [0.2, 0.8]"));
  Tensor u = placeholder({4}, UInt(64), "u");
  CHECK_THROWS_WITH(ops::clip(u, 0, 1e19), Contains("a bound of 2^63 or more"));
  CHECK_THROWS_WITH(ops::pad(u, {1}, {1}, 0x1p63), Contains("2^63 and above are not supported"));
  CHECK_THROWS_WITH(ops::pad(x, {1}, {1}, 1000), Contains("the value 1000 is not a int8 value"));
  CHECK_THROWS_WITH(ops::pad(x, {1}, {1}, 0.5), Contains("is not a int8 value"));
  Tensor f32 = placeholder({4}, Float(32), "f");
  CHECK_THROWS_WITH(ops::pad(f32, {INT_MAX}, {INT_MAX}), Contains("exceeds 2147483647"));
}

TEST_CASE("api misuse: a split factor past 32 bits, autotune configurations out of range", "[error][schedule]") {
  Tensor A = placeholder({64}, Float(32), "A");
  Tensor B = compute({64}, [&](Var i) { return A(i) + 1.0f; }, "B");
  Schedule s = create_schedule({B});
  for (int64_t f : {int64_t(1) << 31, int64_t(1) << 40, (int64_t(1) << 32) + 4}) {
    CHECK_THROWS_WITH(s[B].split(B.axis(0), Expr(f)), Contains("above 2147483647"));
    CHECK_THROWS_WITH(s[B].split_by_nparts(B.axis(0), Expr(f)), Contains("above 2147483647"));
  }
  autotune::Config c;
  CHECK_THROWS_WITH(c.optional(0), Contains("knob 0 of a configuration of 0 knob(s)"));
  CHECK_THROWS_WITH(c.partition(3), Contains("knob 3 of a configuration of 0 knob(s)"));
  CHECK_THROWS_WITH(autotune::config_json({"a", "b"}, {1}), Contains("a value per name: 2 names, 1 values"));
}
