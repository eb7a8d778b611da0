// The unary maps (neg ... erf, sin ... atanh, cast), the broadcasting binary maps (subtract, divide,
// maximum, minimum, pow), log_softmax, and the data movement operators with shapes as
// attributes (reshape, transpose, concatenate with any number of inputs, pad, slice),
// against plain loops on "llvm", one graph of them on OpenGL, and their checks.
#include <catch2/catch.hpp>
#include <cmath>
#include <functional>

#include "graph_test_util.h"
#include "tensorir/graph/executor.h"
#include "tensorir/graph/op_registry.h"

using namespace tensorir;
using graph_test::check_near;
using Catch::Matchers::Contains;

namespace {

std::vector<float> run1(const graph::Graph &g, const std::map<std::string, NDArray> &in, const Target &t = "llvm") {
  return graph::build(g, t).run(in).to_vector<float>();
}

}  // namespace

TEST_CASE("unary math operators match plain loops", "[graph][ops]") {
  struct Case {
    std::string op;
    std::function<float(float)> ref;
    double lo = -2, hi = 2;
  };
  const std::vector<Case> cases = {
      {"neg", [](float x) { return -x; }},
      {"abs", [](float x) { return std::fabs(x); }},
      {"exp", [](float x) { return std::exp(x); }},
      {"log", [](float x) { return std::log(x); }, 0.1, 3},
      {"sqrt", [](float x) { return std::sqrt(x); }, 0, 3},
      {"reciprocal", [](float x) { return 1 / x; }, 0.5, 3},
      {"sigmoid", [](float x) { return 1 / (1 + std::exp(-x)); }},
      {"silu", [](float x) { return x / (1 + std::exp(-x)); }, -6, 6},
      {"tanh", [](float x) { return std::tanh(x); }},
      {"floor", [](float x) { return std::floor(x); }},
      {"ceil", [](float x) { return std::ceil(x); }},
      {"erf", [](float x) { return std::erf(x); }},
      {"sin", [](float x) { return std::sin(x); }, -4, 4},
      {"cos", [](float x) { return std::cos(x); }, -4, 4},
      {"tan", [](float x) { return std::tan(x); }, -1.4, 1.4},
      {"asin", [](float x) { return std::asin(x); }, -1, 1},
      {"acos", [](float x) { return std::acos(x); }, -1, 1},
      {"atan", [](float x) { return std::atan(x); }, -5, 5},
      {"sinh", [](float x) { return std::sinh(x); }, -4, 4},
      {"cosh", [](float x) { return std::cosh(x); }, -4, 4},
      {"asinh", [](float x) { return std::asinh(x); }, -5, 5},
      {"acosh", [](float x) { return std::acosh(x); }, 1, 5},
      {"atanh", [](float x) { return std::atanh(x); }, -0.99, 0.99},
  };
  for (const Case &c : cases) {
    INFO("operator " << c.op);
    graph::Builder b;
    auto x = b.input("x", {2, 3, 17});
    const graph::Graph g = b.finish(b.make(c.op, {x}, {}, "y"));
    const NDArray xa = NDArray::random({2, 3, 17}, Float(32), 5, c.lo, c.hi);
    std::vector<float> want = xa.to_vector<float>();
    for (float &v : want) v = c.ref(v);
    check_near(run1(g, {{"x", xa}}), want);
  }
  // neg and abs take integers as they are.
  graph::Builder b;
  auto x = b.input("x", {4}, Int(64));
  const graph::Graph g = b.finish(b.make("abs", {b.make("neg", {x})}, {}, "y"));
  const NDArray out = graph::build(g, "llvm").run({{"x", NDArray::from_vector<int64_t>({-3, 0, 5, -7}, {4})}});
  CHECK(out.to_vector<int64_t>() == std::vector<int64_t>{3, 0, 5, 7});
}

TEST_CASE("broadcasting binary operators match plain loops", "[graph][ops]") {
  struct Case {
    std::string op;
    std::function<float(float, float)> ref;
  };
  const std::vector<Case> cases = {
      {"subtract", [](float a, float b) { return a - b; }},
      {"divide", [](float a, float b) { return a / b; }},
      {"maximum", [](float a, float b) { return std::max(a, b); }},
      {"minimum", [](float a, float b) { return std::min(a, b); }},
      {"pow", [](float a, float b) { return std::pow(a, b); }},
  };
  const NDArray a = NDArray::random({2, 3, 4}, Float(32), 1, 0.5, 2),
                bv = NDArray::random({3, 1}, Float(32), 2, 0.5, 2);
  for (const Case &c : cases) {
    INFO("operator " << c.op);
    graph::Builder b;
    auto x = b.input("a", {2, 3, 4});
    auto y = b.input("b", {3, 1});
    const graph::Graph g = b.finish(b.make(c.op, {x, y}, {}, "y"));
    const std::vector<float> av = a.to_vector<float>(), bvv = bv.to_vector<float>();
    std::vector<float> want;
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 3; ++j)
        for (int k = 0; k < 4; ++k) want.push_back(c.ref(av[size_t((i * 3 + j) * 4 + k)], bvv[size_t(j)]));
    check_near(run1(g, {{"a", a}, {"b", bv}}), want);
  }
  // A scalar (rank 0) operand broadcasts against anything.
  graph::Builder b;
  auto x = b.input("a", {2, 3, 4});
  const graph::Graph g = b.finish(b.make("subtract", {x, b.constant("k", NDArray::from_vector<float>({1.5f}, {}))}));
  std::vector<float> want = a.to_vector<float>();
  for (float &v : want) v -= 1.5f;
  check_near(run1(g, {{"a", a}}), want);
}

TEST_CASE("reshape, transpose, pad, slice, cast and log_softmax match plain loops", "[graph][ops]") {
  const NDArray xa = NDArray::random({2, 3, 4}, Float(32), 3);
  const std::vector<float> x = xa.to_vector<float>();
  auto at = [&](int i, int j, int k) { return x[size_t((i * 3 + j) * 4 + k)]; };
  graph::Builder b;
  auto in = b.input("x", {2, 3, 4});
  auto r = b.make("reshape", {in}, {{"shape", std::vector<int64_t>{4, -1}}}, "r");
  CHECK(b.node(r).shape == std::vector<int64_t>{4, 6});
  auto t = b.make("transpose", {in}, {{"axes", std::vector<int64_t>{2, 0, 1}}}, "t");
  auto p = b.make("pad", {in},
                  {{"before", std::vector<int64_t>{0, 1, 0}}, {"after", std::vector<int64_t>{1, 0, 2}}, {"value", 7.0}},
                  "p");
  auto s = b.make("slice", {in},
                  {{"begin", std::vector<int64_t>{1, 2, 3}},
                   {"end", std::vector<int64_t>{2, -1, -1}},
                   {"strides", std::vector<int64_t>{1, -1, -2}}},
                  "s");
  CHECK(b.node(s).shape == std::vector<int64_t>{1, 3, 2});
  auto c = b.make("cast", {in}, {{"dtype", std::string("int32")}}, "c");
  auto l = b.make("log_softmax", {in}, {{"axis", int64_t{1}}}, "l");
  const graph::Outputs out = graph::build(b.finish({r, t, p, s, c, l}), "llvm").run({{"x", xa}});
  check_near(out["r"].to_vector<float>(), x, 0);
  std::vector<float> tw, pw, sw, lw;
  for (int k = 0; k < 4; ++k)
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 3; ++j) tw.push_back(at(i, j, k));
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j)
      for (int k = 0; k < 6; ++k) pw.push_back(i < 2 && j >= 1 && k < 4 ? at(i, j - 1, k) : 7.0f);
  for (int j = 2; j > -1; --j)
    for (int k = 3; k > -1; k -= 2) sw.push_back(at(1, j, k));
  std::vector<int32_t> cw;
  for (float v : x) cw.push_back(int32_t(v));  // toward zero
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 4; ++k) {
        double sum = 0;
        for (int q = 0; q < 3; ++q) sum += std::exp(double(at(i, q, k)));
        lw.push_back(float(at(i, j, k) - std::log(sum)));
      }
  check_near(out["t"].to_vector<float>(), tw, 0);
  check_near(out["p"].to_vector<float>(), pw, 0);
  check_near(out["s"].to_vector<float>(), sw, 0);
  CHECK(out["c"].to_vector<int32_t>() == cw);
  check_near(out["l"].to_vector<float>(), lw);
}

TEST_CASE("variadic operators take any number of inputs in their last role", "[graph][ops][registry]") {
  const NDArray a = NDArray::random({2, 1, 3}, Float(32), 1), c = NDArray::random({2, 4, 3}, Float(32), 2);
  graph::Builder b;
  auto x = b.input("a", {2, 1, 3});
  auto y = b.input("c", {2, 4, 3});
  auto one = b.make("concatenate", {x}, {{"axis", int64_t{1}}}, "one");
  auto three = b.make("concatenate", {x, y, x}, {{"axis", int64_t{-2}}}, "three");
  CHECK(b.node(three).shape == std::vector<int64_t>{2, 6, 3});
  REQUIRE_THROWS_WITH(b.make("concatenate", {}, {}, "none"),
                      Contains("node 'none' (concatenate): takes 1 or more inputs but was given 0"));
  graph::Builder other;
  REQUIRE_THROWS_WITH(other.make("concatenate", {other.input("a", {2}), other.input("i", {2}, Int(32))}, {}, "mixed"),
                      Contains("node 'mixed' (concatenate): input 'i' is int32 but input 'a' is float32"));
  const graph::Graph g = b.finish({one, three});
  graph::Graph copy = g;
  CHECK_NOTHROW(copy.validate());
  const graph::Outputs out = graph::build(g, "llvm").run({{"a", a}, {"c", c}});
  check_near(out["one"].to_vector<float>(), a.to_vector<float>(), 0);
  const std::vector<float> av = a.to_vector<float>(), cv = c.to_vector<float>();
  std::vector<float> want;
  for (int n = 0; n < 2; ++n)
    for (int j = 0; j < 6; ++j)
      for (int k = 0; k < 3; ++k)
        want.push_back(j == 0 || j == 5 ? av[size_t(n * 3 + k)] : cv[size_t((n * 4 + j - 1) * 3 + k)]);
  check_near(out["three"].to_vector<float>(), want, 0);

  // A program's variadic operator, with a fixed role before the repeated one.
  graph::OpDef weighted;
  weighted.name = "test.weighted_sum";
  weighted.inputs = {"weight", "x"};
  weighted.variadic = true;
  weighted.pattern = graph::OpPattern::kElementWise;
  weighted.compute = [](const graph::Node &, const std::vector<Tensor> &in, const std::string &name) {
    return compute(
        in[1].shape(),
        [&](const std::vector<Var> &v) {
          std::vector<Expr> idx(v.begin(), v.end());
          Expr s = in[1](idx);
          for (size_t i = 2; i < in.size(); ++i) s = s + in[i](idx);
          return s * in[0](std::vector<Expr>{0});
        },
        name);
  };
  graph::register_op(weighted);
  graph::Builder wb;
  auto w = wb.constant("w", NDArray::from_vector<float>({2.0f}, {1}));
  auto p = wb.input("p", {4});
  REQUIRE_THROWS_WITH(wb.make("test.weighted_sum", {w}, {}, "short"),
                      Contains("takes 2 or more inputs but was given 1"));
  const graph::Graph wg = wb.finish(wb.make("test.weighted_sum", {w, p, p, p}, {}, "ws"));
  const NDArray pa = NDArray::from_vector<float>({1, 2, 3, 4}, {4});
  check_near(run1(wg, {{"p", pa}}), {6, 12, 18, 24}, 0);

  graph::OpDef empty = weighted;
  empty.name = "test.variadic_without_roles";
  empty.inputs.clear();
  REQUIRE_THROWS_WITH(graph::register_op(empty), Contains("a variadic operator needs a role for its inputs"));
}

TEST_CASE("the new operators' checks name the node", "[graph][ops][error]") {
  graph::Builder b;
  auto i = b.input("i", {4}, Int(32));
  auto f = b.input("f", {4});
  REQUIRE_THROWS_WITH(b.make("exp", {i}, {}, "e"),
                      Contains("node 'e' (exp): input 'i' is int32; this operator takes float tensors"));
  REQUIRE_THROWS_WITH(b.make("pow", {i, i}, {}, "p"), Contains("node 'p' (pow): input 'i' is int32"));
  REQUIRE_THROWS_WITH(b.make("subtract", {i, f}, {}, "s"), Contains("node 's' (subtract): input 'f' is float32"));
  REQUIRE_THROWS_WITH(b.make("cast", {f}, {{"dtype", std::string("quaternion")}}, "c"), Contains("node 'c' (cast): "));
  REQUIRE_THROWS_WITH(
      b.make("slice", {f}, {{"begin", std::vector<int64_t>{2}}, {"end", std::vector<int64_t>{9}}}, "sl"),
      Contains("node 'sl' (slice): dimension 0 of [4] sliced from 2 to 9"));
  REQUIRE_THROWS_WITH(b.make("reshape", {f}, {{"shape", std::vector<int64_t>{3}}}, "r"),
                      Contains("node 'r' (reshape): "));
  // Dimensions each within int whose product is not: refused, not wrapped to a division by 0.
  REQUIRE_THROWS_WITH(
      b.make("reshape", {f}, {{"shape", std::vector<int64_t>{65536, 65536, 65536, 65536, -1}}}, "big"),
      Contains("node 'big' (reshape): ") && Contains("more than 2147483647 elements"));
  REQUIRE_THROWS_WITH(b.make("transpose", {f}, {{"axes", std::vector<int64_t>{0, 1}}}, "t"),
                      Contains("node 't' (transpose): "));
}

TEST_CASE("the new operators run on OpenGL as on llvm", "[graph][ops][opengl]") {
  // x [1, 4, 6, 6] -> subtract, divide, maximum, tanh, erf, pad, transpose, reshape,
  // concatenate, slice, log_softmax: one graph, compared with its "llvm" result.
  graph::Builder b;
  auto x = b.input("x", {1, 4, 6, 6});
  auto k = b.constant("k", NDArray::random({4, 1, 1}, Float(32), 9, 0.5, 1.5));
  auto d = b.make("divide", {b.make("subtract", {x, k}), k});
  auto m = b.make("maximum", {b.make("tanh", {d}), b.make("erf", {x})});
  auto p = b.make(
      "pad", {m},
      {{"before", std::vector<int64_t>{0, 0, 1, 1}}, {"after", std::vector<int64_t>{0, 0, 1, 1}}, {"value", -1.0}});
  auto t = b.make("transpose", {p}, {{"axes", std::vector<int64_t>{0, 2, 3, 1}}});
  auto r = b.make("reshape", {t}, {{"shape", std::vector<int64_t>{1, 64, 4}}});
  auto c = b.make("concatenate", {r, b.make("sqrt", {b.make("abs", {r})})}, {{"axis", int64_t{2}}});
  auto s = b.make("slice", {c},
                  {{"begin", std::vector<int64_t>{0, 1, 0}},
                   {"end", std::vector<int64_t>{1, 64, 8}},
                   {"strides", std::vector<int64_t>{1, 2, 1}}});
  const graph::Graph g = b.finish(b.make("log_softmax", {s}, {{"axis", int64_t{-1}}}, "y"));
  const NDArray xa = NDArray::random({1, 4, 6, 6}, Float(32), 4);
  const std::vector<float> want = run1(g, {{"x", xa}});
  check_near(run1(g, {{"x", xa}}, "opengl"), want, 1e-4);
}
