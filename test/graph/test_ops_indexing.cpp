// gather_elements, gather_nd, scatter_elements, scatter_nd, resize2d, topk_indices,
// reverse_sequence, trilu, cumsum, hardmax, round, sign, mod and lrn against plain loops
// or worked examples on "llvm", and their checks.
#include <catch2/catch.hpp>
#include <algorithm>
#include <cmath>

#include "graph/graph_test_util.h"
#include "tensorir/graph/executor.h"
#include "tensorir/graph/op_registry.h"

using namespace tensorir;
using graph_test::check_near;
using Catch::Matchers::Contains;

namespace {

NDArray run1(const std::string &op, const NDArray &x, std::map<std::string, graph::AttrValue> attrs = {},
             const std::string &target = "llvm") {
  graph::Builder b;
  auto in = b.input("x", x.shape(), x.dtype());
  const graph::Graph g = b.finish(b.make(op, {in}, std::move(attrs), "y"));
  return graph::build(g, target).run({{"x", x}});
}

// `v` as an array of integer type `t`.
NDArray as_type(const std::vector<int64_t> &v, const std::vector<int64_t> &shape, Type t) {
  if (t == Int(8)) return NDArray::from_vector(std::vector<int8_t>(v.begin(), v.end()), shape);
  if (t == Int(32)) return NDArray::from_vector(std::vector<int32_t>(v.begin(), v.end()), shape);
  return NDArray::from_vector(v, shape);
}

}  // namespace

TEST_CASE("gather_elements matches plain loops on every axis, negative indices included", "[graph][ops]") {
  const std::vector<int64_t> shape = {3, 4, 5}, ishape = {2, 3, 4};
  const NDArray data = NDArray::random(shape, Float(32), 1);
  const std::vector<float> dv = data.to_vector<float>();
  for (int64_t axis : {0, 1, 2, -1}) {
    INFO("axis " << axis);
    const size_t ax = size_t(axis < 0 ? axis + 3 : axis);
    const int64_t n = shape[ax];
    const NDArray idx = NDArray::random(ishape, Int(64), 10 + uint64_t(ax), double(-n), double(n));
    const std::vector<int64_t> iv = idx.to_vector<int64_t>();
    graph::Builder b;
    auto d = b.input("data", shape);
    auto i = b.input("indices", ishape, Int(64));
    const graph::Graph g = b.finish(b.make("gather_elements", {d, i}, {{"axis", axis}}, "y"));
    const NDArray out = graph::build(g, "llvm").run({{"data", data}, {"indices", idx}});
    REQUIRE(out.shape() == ishape);
    std::vector<float> want;
    for (int64_t a = 0; a < 2; ++a)
      for (int64_t c = 0; c < 3; ++c)
        for (int64_t e = 0; e < 4; ++e) {
          int64_t pos[3] = {a, c, e};
          int64_t k = iv[size_t((a * 3 + c) * 4 + e)];
          pos[ax] = k < 0 ? k + n : k;
          want.push_back(dv[size_t((pos[0] * 4 + pos[1]) * 5 + pos[2])]);
        }
    CHECK(out.to_vector<float>() == want);
  }
}

TEST_CASE("trilu keeps the upper or lower triangle of the last two dimensions", "[graph][ops]") {
  const std::vector<int64_t> shape = {2, 3, 5};
  const NDArray x = NDArray::random(shape, Int(32), 2, 1, 9);
  const std::vector<int32_t> xv = x.to_vector<int32_t>();
  for (int64_t upper : {0, 1}) {
    for (int64_t k : {-4, -1, 0, 2, 6}) {
      INFO("upper " << upper << " k " << k);
      const NDArray out = run1("trilu", x, {{"upper", upper}, {"k", k}});
      std::vector<int32_t> want(xv.size());
      for (size_t e = 0; e < xv.size(); ++e) {
        const int64_t i = int64_t(e) / 5 % 3, j = int64_t(e) % 5;
        const bool keep = upper ? j - i >= k : j - i <= k;
        want[e] = keep ? xv[e] : 0;
      }
      CHECK(out.to_vector<int32_t>() == want);
    }
  }
}

TEST_CASE("cumsum matches plain loops, exclusive and reverse", "[graph][ops]") {
  const std::vector<int64_t> shape = {3, 4, 2};
  const NDArray x = NDArray::random(shape, Float(32), 3);
  const std::vector<float> xv = x.to_vector<float>();
  const int64_t st[3] = {8, 2, 1};
  for (int64_t axis : {0, 1, -1}) {
    for (int64_t exclusive : {0, 1}) {
      for (int64_t reverse : {0, 1}) {
        INFO("axis " << axis << " exclusive " << exclusive << " reverse " << reverse);
        const size_t ax = size_t(axis < 0 ? axis + 3 : axis);
        const NDArray out = run1("cumsum", x, {{"axis", axis}, {"exclusive", exclusive}, {"reverse", reverse}});
        std::vector<float> want(xv.size());
        for (size_t e = 0; e < xv.size(); ++e) {
          const int64_t i = int64_t(e) / st[ax] % shape[ax], base = int64_t(e) - i * st[ax];
          double s = 0;
          for (int64_t r = 0; r < shape[ax]; ++r) {
            const bool in = reverse ? (exclusive ? r > i : r >= i) : (exclusive ? r < i : r <= i);
            if (in) s += xv[size_t(base + r * st[ax])];
          }
          want[e] = float(s);
        }
        check_near(out.to_vector<float>(), want);
      }
    }
  }
  // Integers keep their type.
  const NDArray out = run1("cumsum", NDArray::from_vector<int64_t>({1, 2, 3, 4}, {4}));
  CHECK(out.dtype() == Int(64));
  CHECK(out.to_vector<int64_t>() == std::vector<int64_t>{1, 3, 6, 10});
}

TEST_CASE("hardmax marks the first largest element along the axis", "[graph][ops][opengl][opencl]") {
  // Values from {0, 1, 2}: ties, where the first one wins. Float inputs also on the
  // texture targets, which store no int64 index.
  const std::vector<int64_t> shape = {3, 4, 5};
  const NDArray x = NDArray::random(shape, Int(32), 4, 0, 3);
  const std::vector<int32_t> xv = x.to_vector<int32_t>();
  const NDArray xf = NDArray::from_vector<float>(std::vector<float>(xv.begin(), xv.end()), shape);
  auto as_ints = [](const NDArray &a) {
    if (a.dtype() == Int(32)) return a.to_vector<int32_t>();
    const std::vector<float> v = a.to_vector<float>();
    return std::vector<int32_t>(v.begin(), v.end());
  };
  const int64_t st[3] = {20, 5, 1};
  const std::vector<std::pair<NDArray, std::string>> runs = {
      {x, "llvm"}, {xf, "llvm"}, {xf, "opengl"}, {xf, "opengl -mode=fragment"}, {xf, "opencl"}, {x, "opencl"}};
  for (const auto &[input, target] : runs) {
    for (int64_t axis : {0, 1, -1}) {
      INFO(input.dtype() << " on " << target << ", axis " << axis);
      const size_t ax = size_t(axis < 0 ? axis + 3 : axis);
      const std::vector<int32_t> got = as_ints(run1("hardmax", input, {{"axis", axis}}, target));
      std::vector<int32_t> want(xv.size());
      for (size_t e = 0; e < xv.size(); ++e) {
        const int64_t i = int64_t(e) / st[ax] % shape[ax], base = int64_t(e) - i * st[ax];
        int64_t best = 0;
        for (int64_t r = 1; r < shape[ax]; ++r)
          if (xv[size_t(base + r * st[ax])] > xv[size_t(base + best * st[ax])]) best = r;
        want[e] = best == i ? 1 : 0;
      }
      CHECK(got == want);
    }
  }
}

TEST_CASE("round halves to even, sign, and mod floored or truncated", "[graph][ops]") {
  const std::vector<float> rv = {-2.5f, -1.5f, -0.5f, 0.5f, 1.5f, 2.5f, 0.4f, -0.6f, 2.51f, 3.f, -7.49f};
  const NDArray r = run1("round", NDArray::from_vector<float>(rv, {int64_t(rv.size())}));
  std::vector<float> want;
  for (float v : rv) want.push_back(std::nearbyint(v));  // the default mode: to nearest, ties to even
  CHECK(r.to_vector<float>() == want);

  const NDArray s = run1("sign", NDArray::from_vector<int32_t>({-5, 0, 3, -1}, {4}));
  CHECK(s.to_vector<int32_t>() == std::vector<int32_t>{-1, 0, 1, -1});
  const NDArray sf = run1("sign", NDArray::from_vector<float>({-0.5f, 0.f, 2.f}, {3}));
  CHECK(sf.to_vector<float>() == std::vector<float>{-1, 0, 1});

  // Integers broadcast against a row of divisors of both signs.
  const NDArray a = NDArray::random({3, 4}, Int(32), 5, -20, 20);
  const std::vector<int32_t> av = a.to_vector<int32_t>(), bv = {3, -3, 7, -5};
  for (int64_t fmod : {0, 1}) {
    INFO("fmod " << fmod);
    graph::Builder b;
    auto x = b.input("a", {3, 4}, Int(32));
    auto y = b.input("b", {4}, Int(32));
    const graph::Graph g = b.finish(b.make("mod", {x, y}, {{"fmod", fmod}}, "y"));
    const NDArray out =
        graph::build(g, "llvm").run({{"a", a}, {"b", NDArray::from_vector<int32_t>(bv, {4})}});
    std::vector<int32_t> w;
    for (size_t e = 0; e < av.size(); ++e) {
      const int32_t d = bv[e % 4];
      int32_t m = av[e] % d;  // C++ truncates
      if (!fmod && m != 0 && ((m < 0) != (d < 0))) m += d;
      w.push_back(m);
    }
    CHECK(out.to_vector<int32_t>() == w);
  }
  // Floats take fmod = 1: std::fmod.
  const NDArray fa = NDArray::random({6}, Float(32), 6, -10, 10), fb = NDArray::random({6}, Float(32), 7, 1, 4);
  graph::Builder b;
  auto x = b.input("a", {6});
  auto y = b.input("b", {6});
  auto nb = b.make("neg", {y});
  const graph::Graph g = b.finish(b.make("mod", {x, nb}, {{"fmod", int64_t{1}}}, "y"));
  const NDArray out = graph::build(g, "llvm").run({{"a", fa}, {"b", fb}});
  std::vector<float> fw;
  const std::vector<float> fav = fa.to_vector<float>(), fbv = fb.to_vector<float>();
  for (size_t e = 0; e < 6; ++e) fw.push_back(std::fmod(fav[e], -fbv[e]));
  check_near(out.to_vector<float>(), fw, 1e-4);
}

TEST_CASE("the indexing operators' checks name what is wrong", "[graph][ops]") {
  graph::Builder b;
  auto x = b.input("x", {4});
  auto i = b.input("i", {4}, Float(32));
  CHECK_THROWS_WITH(b.make("gather_elements", {x, i}), Contains("must be integers"));
  CHECK_THROWS_WITH(b.make("trilu", {x}), Contains("fewer than 2 dimensions"));
  CHECK_THROWS_WITH(b.make("cumsum", {x}, {{"axis", int64_t{1}}}), Contains("out of range"));
  CHECK_THROWS_WITH(b.make("mod", {x, x}), Contains("fmod = 1"));
  auto n = b.input("n", {4}, Int(32));
  CHECK_THROWS_WITH(b.make("round", {n}), Contains("float tensors"));
}

TEST_CASE("lrn matches plain loops, even and odd window sizes", "[graph][ops]") {
  const std::vector<int64_t> shape = {2, 5, 3, 2};
  const NDArray x = NDArray::random(shape, Float(32), 8);
  const std::vector<float> xv = x.to_vector<float>();
  for (int64_t size : {1, 2, 3, 4}) {
    INFO("size " << size);
    const double alpha = 0.3, beta = 0.6, bias = 1.5;
    const NDArray out = run1("lrn", x, {{"size", size}, {"alpha", alpha}, {"beta", beta}, {"bias", bias}});
    std::vector<float> want(xv.size());
    for (size_t e = 0; e < xv.size(); ++e) {
      const int64_t c = int64_t(e) / 6 % 5, base = int64_t(e) - c * 6;
      double s = 0;
      for (int64_t k = c - (size - 1) / 2; k <= c + size / 2; ++k)
        if (k >= 0 && k < 5) s += double(xv[size_t(base + k * 6)]) * xv[size_t(base + k * 6)];
      want[e] = float(xv[e] / std::pow(bias + alpha / double(size) * s, beta));
    }
    check_near(out.to_vector<float>(), want);
  }
}

TEST_CASE("scatter_elements and scatter_nd write updates, the last of duplicates or combined", "[graph][ops]") {
  const NDArray data = NDArray::from_vector<float>({1, 2, 3, 4, 5, 6}, {2, 3});
  const NDArray idx = NDArray::from_vector<int64_t>({2, 0, -3, 1}, {2, 2});  // along axis 1
  const NDArray upd = NDArray::from_vector<float>({10, 20, 30, 40}, {2, 2});
  const std::map<std::string, std::vector<float>> want = {
      {"none", {20, 2, 10, 30, 40, 6}}, {"add", {21, 2, 13, 34, 45, 6}}, {"mul", {20, 2, 30, 120, 200, 6}},
      {"max", {20, 2, 10, 30, 40, 6}},  {"min", {1, 2, 3, 4, 5, 6}}};
  for (const auto &[reduction, w] : want) {
    INFO("scatter_elements reduction " << reduction);
    graph::Builder b;
    auto d = b.input("d", {2, 3});
    auto i = b.input("i", {2, 2}, Int(64));
    auto u = b.input("u", {2, 2});
    const graph::Graph g = b.finish(
        b.make("scatter_elements", {d, i, u}, {{"axis", int64_t{1}}, {"reduction", reduction}}, "y"));
    const NDArray out = graph::build(g, "llvm").run({{"d", data}, {"i", idx}, {"u", upd}});
    CHECK(out.to_vector<float>() == w);
  }
  // scatter_nd: rows 1 and then 1 again (the last wins), of a [3, 2] tensor.
  const NDArray d3 = NDArray::from_vector<float>({1, 2, 3, 4, 5, 6}, {3, 2});
  const NDArray i3 = NDArray::from_vector<int64_t>({1, -2, 0}, {3, 1});
  const NDArray u3 = NDArray::from_vector<float>({10, 20, 30, 40, 50, 60}, {3, 2});
  const std::map<std::string, std::vector<float>> want3 = {
      {"none", {50, 60, 30, 40, 5, 6}}, {"add", {51, 62, 43, 64, 5, 6}}, {"mul", {50, 120, 900, 3200, 5, 6}},
      {"max", {50, 60, 30, 40, 5, 6}},  {"min", {1, 2, 3, 4, 5, 6}}};
  for (const auto &[reduction, w] : want3) {
    INFO("scatter_nd reduction " << reduction);
    graph::Builder b;
    auto d = b.input("d", {3, 2});
    auto i = b.input("i", {3, 1}, Int(64));
    auto u = b.input("u", {3, 2});
    const graph::Graph g = b.finish(b.make("scatter_nd", {d, i, u}, {{"reduction", reduction}}, "y"));
    const NDArray out = graph::build(g, "llvm").run({{"d", d3}, {"i", i3}, {"u", u3}});
    CHECK(out.to_vector<float>() == w);
  }
}

TEST_CASE("scatter_elements on random data matches plain loops for every index type, and checks its indices",
          "[graph][ops]") {
  // Along axis 0 of [5, 37]: 37 columns take the vectorized loop and its tail; each of the
  // 4 rows of indices hits random rows, so duplicates occur and the last one must win.
  const std::vector<int64_t> ds = {5, 37}, is = {4, 37};
  const NDArray data = NDArray::random(ds, Float(32), 31), upd = NDArray::random(is, Float(32), 32);
  const std::vector<float> dv = data.to_vector<float>(), uv = upd.to_vector<float>();
  for (Type it : {Int(8), Int(32), Int(64)}) {
    const NDArray idx = NDArray::random(is, it, 33, -5, 5);
    const std::vector<int64_t> iv = NDArray::random(is, Int(64), 33, -5, 5).to_vector<int64_t>();
    for (const std::string reduction : {"none", "add", "mul", "max", "min"}) {
      INFO(it << " indices, reduction " << reduction);
      std::vector<float> want = dv;
      for (size_t q = 0; q < iv.size(); ++q) {
        float &w = want[size_t(iv[q] < 0 ? iv[q] + 5 : iv[q]) * 37 + q % 37];
        w = reduction == "none"  ? uv[q]
            : reduction == "add" ? w + uv[q]
            : reduction == "mul" ? w * uv[q]
            : reduction == "max" ? std::max(w, uv[q])
                                 : std::min(w, uv[q]);
      }
      graph::Builder b;
      auto d = b.input("d", ds);
      auto i = b.input("i", is, it);
      auto u = b.input("u", is);
      const graph::Graph g = b.finish(
          b.make("scatter_elements", {d, i, u}, {{"axis", int64_t{0}}, {"reduction", reduction}}, "y"));
      const graph::CompiledModel cg = graph::build(g, "llvm");
      check_near(cg.run({{"d", data}, {"i", idx}, {"u", upd}}).to_vector<float>(), want);
      // One index out of range, anywhere, fails the call.
      for (size_t at : {size_t{0}, size_t{77}, iv.size() - 1}) {
        std::vector<int64_t> bad = iv;
        bad[at] = at % 2 ? 5 : -6;
        CHECK_THROWS_WITH(cg.run({{"d", data}, {"i", as_type(bad, is, it)}, {"u", upd}}),
                          Contains("scatter_elements 'y': an index in 'i' is outside [-5, 5), the extent of axis 0 of 'd'"));
      }
    }
  }
}

TEST_CASE("scatter_nd on random data matches plain loops, and an axis of length 1 or beyond int8 is checked",
          "[graph][ops]") {
  // Pairs into the first two dimensions of [1, 150, 9]: the first axis has one position
  // (where a fold could decide the comparison and drop the check), the second more than
  // int8 holds (its indices are widened).
  const std::vector<int64_t> ds = {1, 150, 9};
  const NDArray data = NDArray::random(ds, Float(32), 41), upd = NDArray::random({6, 9}, Float(32), 42);
  const std::vector<float> dv = data.to_vector<float>(), uv = upd.to_vector<float>();
  const std::vector<int64_t> rows = NDArray::random({6}, Int(64), 43, -150, 150).to_vector<int64_t>();
  for (Type it : {Int(8), Int(32), Int(64)}) {
    std::vector<int64_t> iv;
    for (size_t q = 0; q < rows.size(); ++q) {
      iv.push_back(q % 2 ? -1 : 0);
      iv.push_back(it == Int(8) ? std::clamp<int64_t>(rows[q], -128, 127) : rows[q]);
    }
    INFO(it << " indices");
    std::vector<float> want = dv;
    for (size_t q = 0; q < rows.size(); ++q) {
      const int64_t r = iv[2 * q + 1] < 0 ? iv[2 * q + 1] + 150 : iv[2 * q + 1];
      for (size_t c = 0; c < 9; ++c) want[size_t(r) * 9 + c] += uv[q * 9 + c];
    }
    graph::Builder b;
    auto d = b.input("d", ds);
    auto i = b.input("i", {6, 2}, it);
    auto u = b.input("u", {6, 9});
    const graph::CompiledModel cg =
        graph::build(b.finish(b.make("scatter_nd", {d, i, u}, {{"reduction", std::string("add")}}, "y")), "llvm");
    check_near(cg.run({{"d", data}, {"i", as_type(iv, {6, 2}, it)}, {"u", upd}}).to_vector<float>(), want);
    for (const auto &[at, bad, axis] : {std::tuple{size_t{0}, int64_t{1}, 0}, std::tuple{size_t{4}, int64_t{-2}, 0},
                                        std::tuple{size_t{11}, int64_t{it == Int(8) ? -128 : 150}, 1}}) {
      if (it == Int(8) && axis == 1) continue;  // int8 cannot hold an index past [-150, 150)
      std::vector<int64_t> w = iv;
      w[at] = bad;
      const std::string range = axis == 0 ? "[-1, 1), the extent of axis 0" : "[-150, 150), the extent of axis 1";
      CHECK_THROWS_WITH(cg.run({{"d", data}, {"i", as_type(w, {6, 2}, it)}, {"u", upd}}),
                        Contains("scatter_nd 'y': an index in 'i' is outside " + range + " of 'd'"));
    }
  }
  // scatter_elements along an axis of length 1.
  graph::Builder b;
  auto d = b.input("d", {1, 5});
  auto i = b.input("i", {1, 5}, Int(32));
  auto u = b.input("u", {1, 5});
  const graph::CompiledModel cg = graph::build(
      b.finish(b.make("scatter_elements", {d, i, u}, {{"axis", int64_t{0}}, {"reduction", std::string("none")}}, "y")),
      "llvm");
  const NDArray d5 = NDArray::random({1, 5}, Float(32), 44), u5 = NDArray::random({1, 5}, Float(32), 45);
  CHECK(cg.run({{"d", d5}, {"i", as_type({0, -1, 0, -1, 0}, {1, 5}, Int(32))}, {"u", u5}}).to_vector<float>() ==
        u5.to_vector<float>());
  CHECK_THROWS_WITH(cg.run({{"d", d5}, {"i", as_type({0, 0, 1, 0, 0}, {1, 5}, Int(32))}, {"u", u5}}),
                    Contains("scatter_elements 'y': an index in 'i' is outside [-1, 1), the extent of axis 0 of 'd'"));
}

TEST_CASE("gather_nd reads index tuples, with batch dimensions", "[graph][ops]") {
  const NDArray data = NDArray::random({2, 3, 4}, Float(32), 9);
  const std::vector<float> dv = data.to_vector<float>();
  {  // Pairs into the first two dimensions: [3, 4] rows of data.
    const NDArray idx = NDArray::from_vector<int64_t>({1, 2, 0, -1, -2, 0}, {3, 2});
    graph::Builder b;
    auto d = b.input("d", {2, 3, 4});
    auto i = b.input("i", {3, 2}, Int(64));
    const graph::Graph g = b.finish(b.make("gather_nd", {d, i}, {}, "y"));
    const NDArray out = graph::build(g, "llvm").run({{"d", data}, {"i", idx}});
    REQUIRE(out.shape() == std::vector<int64_t>{3, 4});
    const int64_t rows[3][2] = {{1, 2}, {0, 2}, {0, 0}};
    std::vector<float> want;
    for (const auto &r : rows)
      for (int64_t k = 0; k < 4; ++k) want.push_back(dv[size_t((r[0] * 3 + r[1]) * 4 + k)]);
    CHECK(out.to_vector<float>() == want);
  }
  {  // batch_dims 1: one index into dimension 1 per batch: [2, 4].
    const NDArray idx = NDArray::from_vector<int64_t>({2, 1}, {2, 1});
    graph::Builder b;
    auto d = b.input("d", {2, 3, 4});
    auto i = b.input("i", {2, 1}, Int(64));
    const graph::Graph g = b.finish(b.make("gather_nd", {d, i}, {{"batch_dims", int64_t{1}}}, "y"));
    const NDArray out = graph::build(g, "llvm").run({{"d", data}, {"i", idx}});
    REQUIRE(out.shape() == std::vector<int64_t>{2, 4});
    std::vector<float> want;
    for (int64_t k = 0; k < 4; ++k) want.push_back(dv[size_t((0 * 3 + 2) * 4 + k)]);
    for (int64_t k = 0; k < 4; ++k) want.push_back(dv[size_t((1 * 3 + 1) * 4 + k)]);
    CHECK(out.to_vector<float>() == want);
  }
}

namespace {

// The input coordinate of output coordinate x, as resize2d documents it.
double source(double x, const std::string &coord, double scale, int64_t in, int64_t out) {
  if (coord == "asymmetric") return x / scale;
  if (coord == "tf_half_pixel_for_nn") return (x + 0.5) / scale;
  if (coord == "align_corners") return out == 1 ? 0 : x * double(in - 1) / double(out - 1);
  if (coord == "pytorch_half_pixel" && out == 1) return 0;
  return (x + 0.5) / scale - 0.5;
}

struct ResizeCase {
  int64_t oh, ow;
  std::string mode, coord, nearest;
};

// resize2d of x [2, 4, 5] on `target` against plain loops in double precision.
void check_resize(const NDArray &x, const ResizeCase &k, const std::string &target) {
  INFO(k.mode << " " << k.coord << " " << k.nearest << " to " << k.oh << " x " << k.ow << " on " << target);
  const std::vector<float> xv = x.to_vector<float>();
  const double sh = double(k.oh) / 4, sw = double(k.ow) / 5;
  const NDArray out = run1("resize2d", x,
                           {{"size", std::vector<int64_t>{k.oh, k.ow}},
                            {"scale_h", sh},
                            {"scale_w", sw},
                            {"mode", k.mode},
                            {"coordinate_transformation_mode", k.coord},
                            {"nearest_mode", k.nearest}},
                           target);
  REQUIRE(out.shape() == std::vector<int64_t>{2, k.oh, k.ow});
  std::vector<float> want;
  auto at = [&](int64_t b, int64_t i, int64_t j) {
    i = std::clamp<int64_t>(i, 0, 3);
    j = std::clamp<int64_t>(j, 0, 4);
    return double(xv[size_t((b * 4 + i) * 5 + j)]);
  };
  auto round = [&](double v) {
    if (k.nearest == "floor") return std::floor(v);
    if (k.nearest == "ceil") return std::ceil(v);
    if (k.nearest == "round_prefer_ceil") return std::floor(v + 0.5);
    return std::ceil(v - 0.5);
  };
  for (int64_t b = 0; b < 2; ++b)
    for (int64_t i = 0; i < k.oh; ++i)
      for (int64_t j = 0; j < k.ow; ++j) {
        const double y = source(double(i), k.coord, sh, 4, k.oh), xx = source(double(j), k.coord, sw, 5, k.ow);
        if (k.mode == "nearest") {
          want.push_back(float(at(b, int64_t(round(y)), int64_t(round(xx)))));
          continue;
        }
        const double fy = std::floor(y), fx = std::floor(xx), ty = y - fy, tx = xx - fx;
        const int64_t iy = int64_t(fy), ix = int64_t(fx);
        const double top = at(b, iy, ix) * (1 - tx) + at(b, iy, ix + 1) * tx;
        const double bottom = at(b, iy + 1, ix) * (1 - tx) + at(b, iy + 1, ix + 1) * tx;
        want.push_back(float(top * (1 - ty) + bottom * ty));
      }
  check_near(out.to_vector<float>(), want);
}

}  // namespace

TEST_CASE("resize2d matches plain loops, nearest and linear", "[graph][ops]") {
  const NDArray x = NDArray::random({2, 4, 5}, Float(32), 10);
  const std::vector<ResizeCase> cases = {
      {7, 3, "linear", "half_pixel", "round_prefer_floor"},      {3, 1, "linear", "pytorch_half_pixel", "floor"},
      {8, 10, "linear", "align_corners", "floor"},                {2, 9, "linear", "asymmetric", "floor"},
      {8, 10, "nearest", "asymmetric", "floor"},                  {3, 7, "nearest", "half_pixel", "round_prefer_floor"},
      {6, 8, "nearest", "align_corners", "round_prefer_ceil"},   {6, 2, "nearest", "tf_half_pixel_for_nn", "ceil"},
  };
  for (const ResizeCase &k : cases) check_resize(x, k, "llvm");
}

#if TENSORIR_WITH_OPENGL
// The GPU targets compute source coordinates in float32 (the fragment ones have no
// float64; llvmpipe converted int(floor(p) + 1.0) wrongly in float64 at scales 3 and 2.5).
TEST_CASE("resize2d on the GPU targets matches plain loops, and cubic the CPU", "[graph][ops][opengl][opencl]") {
  const std::string target = GENERATE(as<std::string>{}, "opengl", "opengl -mode=fragment", "opencl");
  const NDArray x = NDArray::random({2, 4, 5}, Float(32), 12);
  const std::vector<ResizeCase> cases = {
      {12, 15, "linear", "half_pixel", "floor"},  {10, 5, "linear", "half_pixel", "floor"},
      {7, 9, "linear", "align_corners", "floor"}, {8, 10, "nearest", "asymmetric", "floor"},
      {12, 15, "nearest", "half_pixel", "round_prefer_ceil"},
  };
  for (const ResizeCase &k : cases) check_resize(x, k, target);
  const std::map<std::string, graph::AttrValue> cubic = {{"size", std::vector<int64_t>{10, 5}},
                                                          {"scale_h", 2.5},
                                                          {"scale_w", 1.0},
                                                          {"mode", std::string("cubic")}};
  check_near(run1("resize2d", x, cubic, target).to_vector<float>(), run1("resize2d", x, cubic).to_vector<float>());
}
#endif

TEST_CASE("topk_indices matches a stable sort, largest and smallest", "[graph][ops]") {
  // Values from {0, ..., 3}: many ties, which go by position.
  const std::vector<int64_t> shape = {3, 6, 2};
  const NDArray x = NDArray::random(shape, Int(32), 11, 0, 4);
  const std::vector<int32_t> xv = x.to_vector<int32_t>();
  const int64_t st[3] = {12, 2, 1};
  for (int64_t axis : {0, 1, -1}) {
    for (int64_t largest : {0, 1}) {
      const size_t ax = size_t(axis < 0 ? axis + 3 : axis);
      const int64_t k = std::max<int64_t>(1, shape[ax] - 1);
      INFO("axis " << axis << " largest " << largest << " k " << k);
      const NDArray out = run1("topk_indices", x, {{"axis", axis}, {"k", k}, {"largest", largest}});
      std::vector<int64_t> want_shape = shape;
      want_shape[ax] = k;
      REQUIRE(out.shape() == want_shape);
      const std::vector<int64_t> got = out.to_vector<int64_t>();
      const int64_t ost[3] = {want_shape[1] * want_shape[2], want_shape[2], 1};
      for (size_t o = 0; o < got.size(); ++o) {
        int64_t pos[3] = {int64_t(o) / ost[0], int64_t(o) / ost[1] % want_shape[1], int64_t(o) % want_shape[2]};
        const int64_t j = pos[ax];
        pos[ax] = 0;
        const int64_t base = pos[0] * st[0] + pos[1] * st[1] + pos[2] * st[2];
        std::vector<int64_t> order(size_t(shape[ax]));
        for (size_t m = 0; m < order.size(); ++m) order[m] = int64_t(m);
        std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
          const int32_t va = xv[size_t(base + a * st[ax])], vb = xv[size_t(base + b * st[ax])];
          return largest ? va > vb : va < vb;
        });
        CHECK(got[o] == order[size_t(j)]);
      }
    }
  }
}

TEST_CASE("reverse_sequence reverses each batch's first lens elements", "[graph][ops]") {
  // [time 4, batch 3, 2], lengths 4, 1 and 3; then batch first.
  const NDArray x = NDArray::random({4, 3, 2}, Float(32), 12);
  const std::vector<float> xv = x.to_vector<float>();
  const std::vector<int64_t> lens = {4, 1, 3};
  graph::Builder b;
  auto in = b.input("x", {4, 3, 2});
  auto l = b.input("l", {3}, Int(64));
  const graph::Graph g = b.finish(b.make("reverse_sequence", {in, l}, {}, "y"));
  const NDArray out = graph::build(g, "llvm").run({{"x", x}, {"l", NDArray::from_vector<int64_t>(lens, {3})}});
  std::vector<float> want;
  for (int64_t t = 0; t < 4; ++t)
    for (int64_t bt = 0; bt < 3; ++bt)
      for (int64_t k = 0; k < 2; ++k) {
        const int64_t from = t < lens[size_t(bt)] ? lens[size_t(bt)] - 1 - t : t;
        want.push_back(xv[size_t((from * 3 + bt) * 2 + k)]);
      }
  CHECK(out.to_vector<float>() == want);
  CHECK_THROWS_WITH(b.make("reverse_sequence", {in, l}, {{"batch_axis", int64_t{0}}}), Contains("do not fit"));
}

TEST_CASE("take with int8 indices into an axis longer than int8 reaches", "[graph][ops]") {
  // 200 rows: -128 counts from the end (row 72), 127 is row 127.
  const NDArray data = NDArray::random({200, 3}, Float(32), 21);
  const std::vector<float> dv = data.to_vector<float>();
  const std::vector<int8_t> ids = {-128, 127, -1, 0, 5};
  NDArray idx = NDArray::empty({5}, Int(8));
  std::copy(ids.begin(), ids.end(), static_cast<int8_t *>(idx.data()));
  graph::Builder b;
  auto d = b.input("data", {200, 3});
  auto i = b.input("indices", {5}, Int(8));
  const graph::Graph g = b.finish(b.make("take", {d, i}, {{"axis", int64_t{0}}}, "y"));
  const NDArray out = graph::build(g, "llvm").run({{"data", data}, {"indices", idx}});
  std::vector<float> want;
  for (int8_t k : ids)
    for (int c = 0; c < 3; ++c) want.push_back(dv[size_t((k < 0 ? k + 200 : k) * 3 + c)]);
  CHECK(out.to_vector<float>() == want);
}
