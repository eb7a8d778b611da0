// The reductions (reduce_sum ... reduce_log_sum_exp, argmax, argmin), comparisons and
// logic with bool results, where, isnan and isinf, layer_norm and batch_matmul, against
// plain loops on "llvm", and their checks.
#include <tensorir/runtime/model_loader.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <functional>
#include <limits>

#include "graph/graph_test_util.h"
#include "tensorir/graph/executor.h"
#include "tensorir/graph/op_registry.h"

using namespace tensorir;
using graph_test::check_near;
using Catch::Matchers::Contains;

namespace {

// The row-major strides of `shape`.
std::vector<int64_t> strides_of(const std::vector<int64_t> &shape) {
  std::vector<int64_t> st(shape.size(), 1);
  for (size_t i = shape.size(); i-- > 1;) st[i - 1] = st[i] * shape[i];
  return st;
}

// The reduction `kind` of x over the flagged axes, written out: every output element
// folds the input elements that map onto it; returned in row-major order.
std::vector<double> reduce_ref(const std::vector<float> &x, const std::vector<int64_t> &shape,
                               const std::vector<bool> &red, const std::string &kind) {
  std::vector<int64_t> out_shape;
  for (size_t i = 0; i < shape.size(); ++i) out_shape.push_back(red[i] ? 1 : shape[i]);
  const std::vector<int64_t> st = strides_of(shape), ost = strides_of(out_shape);
  int64_t out_n = 1, count = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    out_n *= out_shape[i];
    if (red[i]) count *= shape[i];
  }
  const bool is_max = kind == "max", is_min = kind == "min", is_prod = kind == "prod";
  const double init = is_max ? -1e300 : is_min ? 1e300 : is_prod ? 1 : 0;
  std::vector<double> acc(size_t(out_n), init), mx(size_t(out_n), -1e300);
  for (size_t e = 0; e < x.size(); ++e) {  // the maximum first, for log_sum_exp
    int64_t o = 0;
    for (size_t i = 0; i < shape.size(); ++i)
      if (!red[i]) o += (int64_t(e) / st[i] % shape[i]) * ost[i];
    mx[size_t(o)] = std::max(mx[size_t(o)], double(x[e]));
  }
  for (size_t e = 0; e < x.size(); ++e) {
    int64_t o = 0;
    for (size_t i = 0; i < shape.size(); ++i)
      if (!red[i]) o += (int64_t(e) / st[i] % shape[i]) * ost[i];
    double &a = acc[size_t(o)];
    const double v = x[e];
    if (is_max) a = std::max(a, v);
    else if (is_min) a = std::min(a, v);
    else if (is_prod) a *= v;
    else if (kind == "l1") a += std::fabs(v);
    else if (kind == "l2" || kind == "sum_square") a += v * v;
    else if (kind == "log_sum_exp") a += std::exp(v - mx[size_t(o)]);
    else a += v;  // sum, mean, log_sum
  }
  for (size_t o = 0; o < acc.size(); ++o) {
    if (kind == "mean") acc[o] /= double(count);
    if (kind == "l2") acc[o] = std::sqrt(acc[o]);
    if (kind == "log_sum") acc[o] = std::log(acc[o]);
    if (kind == "log_sum_exp") acc[o] = std::log(acc[o]) + mx[o];
  }
  return acc;
}

}  // namespace

TEST_CASE("reductions match plain loops", "[graph][ops]") {
  const std::vector<int64_t> shape = {2, 3, 4};
  const NDArray xa = NDArray::random(shape, Float(32), 3, 0.5, 1.5);
  const std::vector<float> xv = xa.to_vector<float>();
  const std::vector<std::vector<int64_t>> axes_sets = {{1}, {0, 2}, {-1}, {}};
  for (const std::string kind :
       {"sum", "mean", "max", "min", "prod", "l1", "l2", "sum_square", "log_sum", "log_sum_exp"}) {
    for (const std::vector<int64_t> &axes : axes_sets) {
      for (int64_t keepdims : {0, 1}) {
        INFO("reduce_" << kind << " over " << axes.size() << " axes, keepdims " << keepdims);
        graph::Builder b;
        auto x = b.input("x", shape);
        const graph::Graph g =
            b.finish(b.make("reduce_" + kind, {x}, {{"axes", axes}, {"keepdims", keepdims}}, "y"));
        std::vector<bool> red(3, axes.empty());
        for (int64_t a : axes) red[size_t(a < 0 ? a + 3 : a)] = true;
        std::vector<int64_t> want_shape;
        for (size_t i = 0; i < 3; ++i)
          if (!red[i] || keepdims) want_shape.push_back(red[i] ? 1 : shape[i]);
        const NDArray out = graph::build(g, "llvm").run({{"x", xa}});
        CHECK(out.shape() == want_shape);
        const std::vector<double> want = reduce_ref(xv, shape, red, kind);
        check_near(out.to_vector<float>(), std::vector<float>(want.begin(), want.end()), 1e-5);
      }
    }
  }
}

TEST_CASE("integer reductions keep their type", "[graph][ops]") {
  graph::Builder b;
  auto x = b.input("x", {2, 3}, Int(64));
  auto s = b.make("reduce_sum", {x}, {{"axes", std::vector<int64_t>{1}}}, "s");
  auto m = b.make("reduce_max", {x}, {{"axes", std::vector<int64_t>{0}}, {"keepdims", int64_t{1}}}, "m");
  const graph::Graph g = b.finish({s, m});
  const graph::Outputs out =
      graph::build(g, "llvm").run({{"x", NDArray::from_vector<int64_t>({1, -2, 7, 4, 5, -6}, {2, 3})}});
  CHECK(out.at(0).dtype() == Int(64));
  CHECK(out.at(0).to_vector<int64_t>() == std::vector<int64_t>{6, 3});
  CHECK(out.at(1).shape() == std::vector<int64_t>{1, 3});
  CHECK(out.at(1).to_vector<int64_t>() == std::vector<int64_t>{4, 5, 7});
}

TEST_CASE("argmax and argmin match plain loops, ties included", "[graph][ops]") {
  // Values from {0, 1, 2}: many ties, so first and last index differ.
  const std::vector<int64_t> shape = {3, 5, 4};
  const NDArray xa = NDArray::random(shape, Int(32), 7, 0, 3);
  const std::vector<int32_t> xv = xa.to_vector<int32_t>();
  for (const std::string op : {"argmax", "argmin"}) {
    for (int64_t axis : {0, 1, -1}) {
      for (int64_t last : {0, 1}) {
        for (int64_t keepdims : {0, 1}) {
          INFO(op << " axis " << axis << " select_last " << last << " keepdims " << keepdims);
          graph::Builder b;
          auto x = b.input("x", shape, Int(32));
          const graph::Graph g = b.finish(
              b.make(op, {x}, {{"axis", axis}, {"select_last", last}, {"keepdims", keepdims}}, "y"));
          const NDArray out = graph::build(g, "llvm").run({{"x", xa}});
          CHECK(out.dtype() == Int(64));
          const size_t ax = size_t(axis < 0 ? axis + 3 : axis);
          std::vector<int64_t> want_shape = shape;
          want_shape[ax] = 1;
          const std::vector<int64_t> st = strides_of(shape), ost = strides_of(want_shape);
          std::vector<int64_t> want(size_t(xv.size() / size_t(shape[ax])));
          for (size_t o = 0; o < want.size(); ++o) {
            int64_t base = 0;
            for (size_t i = 0; i < 3; ++i) base += (int64_t(o) / ost[i] % want_shape[i]) * st[i];
            int64_t best = 0;
            for (int64_t k = 1; k < shape[ax]; ++k) {
              const int32_t v = xv[size_t(base + k * st[ax])], bv = xv[size_t(base + best * st[ax])];
              const bool better = op == "argmax" ? v > bv : v < bv;
              if (better || (last && v == bv)) best = k;
            }
            want[o] = best;
          }
          if (!keepdims) want_shape.erase(want_shape.begin() + std::ptrdiff_t(ax));
          CHECK(out.shape() == want_shape);
          CHECK(out.to_vector<int64_t>() == want);
        }
      }
    }
  }
}

TEST_CASE("comparisons, logic and where broadcast and give bool", "[graph][ops]") {
  const NDArray a = NDArray::random({2, 3, 4}, Int(32), 1, 0, 3), c = NDArray::random({3, 1}, Int(32), 2, 0, 3);
  const std::vector<int32_t> av = a.to_vector<int32_t>(), cv = c.to_vector<int32_t>();
  struct Case {
    std::string op;
    std::function<bool(int, int)> ref;
  };
  const std::vector<Case> cases = {
      {"equal", [](int x, int y) { return x == y; }},      {"less", [](int x, int y) { return x < y; }},
      {"less_equal", [](int x, int y) { return x <= y; }}, {"greater", [](int x, int y) { return x > y; }},
      {"greater_equal", [](int x, int y) { return x >= y; }},
  };
  for (const Case &k : cases) {
    INFO("operator " << k.op);
    graph::Builder b;
    auto x = b.input("a", {2, 3, 4}, Int(32));
    auto y = b.input("c", {3, 1}, Int(32));
    const graph::Graph g = b.finish(b.make(k.op, {x, y}, {}, "y"));
    const NDArray out = graph::build(g, "llvm").run({{"a", a}, {"c", c}});
    CHECK(out.dtype().is_bool());
    CHECK(out.shape() == std::vector<int64_t>{2, 3, 4});
    const std::vector<uint8_t> got = out.to_vector<uint8_t>();
    for (size_t i = 0; i < got.size(); ++i) CHECK(bool(got[i]) == k.ref(av[i], cv[i / 4 % 3]));
  }

  // Logic on bool tensors, then where choosing between floats by the result.
  const NDArray p = NDArray::random({2, 4}, Bool(), 3), q = NDArray::random({4}, Bool(), 4);
  const NDArray u = NDArray::random({2, 4}, Float(32), 5), w = NDArray::random({1}, Float(32), 6);
  const std::vector<uint8_t> pv = p.to_vector<uint8_t>(), qv = q.to_vector<uint8_t>();
  const std::vector<float> uv = u.to_vector<float>(), wv = w.to_vector<float>();
  for (const std::string op : {"logical_and", "logical_or", "logical_xor"}) {
    INFO("operator " << op);
    graph::Builder b;
    auto x = b.input("p", {2, 4}, Bool());
    auto y = b.input("q", {4}, Bool());
    auto l = b.make(op, {x, y});
    auto n = b.make("logical_not", {l}, {}, "n");
    auto s = b.make("where", {n, b.input("u", {2, 4}), b.input("w", {1})}, {}, "s");
    const graph::Outputs out = graph::build(b.finish({n, s}), "llvm").run({{"p", p}, {"q", q}, {"u", u}, {"w", w}});
    const std::vector<uint8_t> nv = out.at(0).to_vector<uint8_t>();
    const std::vector<float> sv = out.at(1).to_vector<float>();
    for (size_t i = 0; i < 8; ++i) {
      const bool x1 = pv[i], y1 = qv[i % 4];
      const bool l1 = op == "logical_and" ? x1 && y1 : op == "logical_or" ? x1 || y1 : x1 != y1;
      CHECK(bool(nv[i]) == !l1);
      CHECK(sv[i] == (!l1 ? uv[i] : wv[0]));
    }
  }
}

TEST_CASE("isnan and isinf", "[graph][ops]") {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  const NDArray x = NDArray::from_vector<float>({1.5f, inf, -inf, nan, 0.0f, -2.0f}, {6});
  graph::Builder b;
  auto in = b.input("x", {6});
  auto n = b.make("isnan", {in}, {}, "n");
  auto i = b.make("isinf", {in}, {}, "i");
  auto ip = b.make("isinf", {in}, {{"negative", int64_t{0}}}, "ip");
  auto im = b.make("isinf", {in}, {{"positive", int64_t{0}}}, "im");
  const graph::Outputs out = graph::build(b.finish({n, i, ip, im}), "llvm").run({{"x", x}});
  CHECK(out.at(0).to_vector<uint8_t>() == std::vector<uint8_t>{0, 0, 0, 1, 0, 0});
  CHECK(out.at(1).to_vector<uint8_t>() == std::vector<uint8_t>{0, 1, 1, 0, 0, 0});
  CHECK(out.at(2).to_vector<uint8_t>() == std::vector<uint8_t>{0, 1, 0, 0, 0, 0});
  CHECK(out.at(3).to_vector<uint8_t>() == std::vector<uint8_t>{0, 0, 1, 0, 0, 0});
}

TEST_CASE("layer_norm matches a plain loop", "[graph][ops]") {
  const std::vector<int64_t> shape = {2, 3, 8};
  const NDArray xa = NDArray::random(shape, Float(32), 11, -2, 2);
  const std::vector<float> xv = xa.to_vector<float>();
  for (int64_t axis : {-1, 1}) {
    INFO("axis " << axis);
    const int64_t inner = axis == -1 ? 8 : 24;
    const std::vector<int64_t> pshape = axis == -1 ? std::vector<int64_t>{8} : std::vector<int64_t>{3, 8};
    const NDArray scale = NDArray::random(pshape, Float(32), 12), bias = NDArray::random({1}, Float(32), 13);
    const std::vector<float> sv = scale.to_vector<float>(), bv = bias.to_vector<float>();
    graph::Builder b;
    auto x = b.input("x", shape);
    auto y = b.make("layer_norm", {x, b.constant("scale", scale), b.constant("bias", bias)},
                    {{"axis", axis}, {"eps", 1e-3}}, "y");
    const std::vector<float> got = graph::build(b.finish(y), "llvm").run({{"x", xa}}).to_vector<float>();
    std::vector<float> want(xv.size());
    for (size_t row = 0; row < xv.size() / size_t(inner); ++row) {
      double mean = 0, var = 0;
      for (int64_t j = 0; j < inner; ++j) mean += xv[row * size_t(inner) + size_t(j)];
      mean /= double(inner);
      for (int64_t j = 0; j < inner; ++j) var += std::pow(xv[row * size_t(inner) + size_t(j)] - mean, 2);
      var /= double(inner);
      for (int64_t j = 0; j < inner; ++j) {
        const size_t e = row * size_t(inner) + size_t(j);
        want[e] = float((xv[e] - mean) / std::sqrt(var + 1e-3) * sv[size_t(j)] + bv[0]);
      }
    }
    check_near(got, want, 1e-4);
  }
}

TEST_CASE("layer_norm over long rows matches a plain loop", "[graph][ops]") {
  // 64, 197 and 768 columns: the CPU schedule sums rows as 16 partial vectors (197: a
  // partial last one); values offset by 3 so that the mean matters.
  for (int64_t cols : {64, 197, 768}) {
    INFO(cols << " columns");
    const std::vector<int64_t> shape = {3, cols};
    const NDArray xa = NDArray::random(shape, Float(32), 31, 1, 5);
    const NDArray scale = NDArray::random({cols}, Float(32), 32), bias = NDArray::random({cols}, Float(32), 33);
    const std::vector<float> xv = xa.to_vector<float>(), sv = scale.to_vector<float>(), bv = bias.to_vector<float>();
    graph::Builder b;
    auto y = b.make("layer_norm", {b.input("x", shape), b.constant("scale", scale), b.constant("bias", bias)},
                    {{"axis", int64_t{-1}}, {"eps", 1e-5}}, "y");
    const std::vector<float> got = graph::build(b.finish(y), "llvm").run({{"x", xa}}).to_vector<float>();
    std::vector<float> want(xv.size());
    for (size_t row = 0; row < 3; ++row) {
      const float *x = &xv[row * size_t(cols)];
      double mean = 0, var = 0;
      for (int64_t j = 0; j < cols; ++j) mean += x[j];
      mean /= double(cols);
      for (int64_t j = 0; j < cols; ++j) var += (x[j] - mean) * (x[j] - mean);
      var /= double(cols);
      for (int64_t j = 0; j < cols; ++j) {
        const double v = (x[j] - mean) / std::sqrt(var + 1e-5) * sv[size_t(j)] + bv[size_t(j)];
        want[row * size_t(cols) + size_t(j)] = float(v);
      }
    }
    check_near(got, want, 1e-4);
  }
}

TEST_CASE("batch_matmul broadcasts its leading dimensions", "[graph][ops]") {
  // 5 columns: the generic schedule; 16, 45: register blocks of up to 8 rows x 32
  // columns, 13 rows and 45 columns leaving partial blocks at the edges.
  for (int m : {3, 13})
    for (int n : {5, 16, 45}) {
      INFO(m << " rows, " << n << " columns");
      const NDArray a = NDArray::random({2, 1, m, 4}, Float(32), 21), c = NDArray::random({3, 4, n}, Float(32), 22);
      const std::vector<float> av = a.to_vector<float>(), cv = c.to_vector<float>();
      graph::Builder b;
      auto y = b.make("batch_matmul", {b.input("a", {2, 1, m, 4}), b.input("c", {3, 4, n})}, {}, "y");
      const NDArray out = graph::build(b.finish(y), "llvm").run({{"a", a}, {"c", c}});
      CHECK(out.shape() == std::vector<int64_t>{2, 3, m, n});
      std::vector<float> want;
      for (int p = 0; p < 2; ++p)
        for (int q = 0; q < 3; ++q)
          for (int i = 0; i < m; ++i)
            for (int j = 0; j < n; ++j) {
              float s = 0;
              for (int k = 0; k < 4; ++k) s += av[size_t((p * m + i) * 4 + k)] * cv[size_t((q * 4 + k) * n + j)];
              want.push_back(s);
            }
      check_near(out.to_vector<float>(), want, 1e-5);
    }
}

TEST_CASE("reduction and logic operators check their inputs", "[graph][ops]") {
  graph::Builder b;
  auto f = b.input("f", {2, 3});
  auto i = b.input("i", {2, 3}, Int(32));
  CHECK_THROWS_WITH(b.make("logical_and", {f, f}), Contains("bool"));
  CHECK_THROWS_WITH(b.make("reduce_mean", {i}), Contains("float"));
  CHECK_THROWS_WITH(b.make("where", {f, f, f}), Contains("must be bool"));
  CHECK_THROWS_WITH(b.make("batch_matmul", {f, f}), Contains("do not fit"));
  CHECK_THROWS_WITH(b.make("reduce_sum", {f}, {{"axes", std::vector<int64_t>{2}}}), Contains("out of range"));
}

TEST_CASE("the reductions, where and batch_matmul run on OpenGL as on llvm", "[graph][ops][opengl]") {
  // x [2, 3, 8]: layer_norm, batch_matmul with its own transpose (attention scores),
  // reduce_mean, reduce_log_sum_exp, reduce_l2, and a where chosen by greater: one
  // graph, compared with its "llvm" result.
  graph::Builder b;
  auto x = b.input("x", {2, 3, 8});
  auto ln = b.make("layer_norm",
                   {x, b.constant("scale", NDArray::random({8}, Float(32), 31)),
                    b.constant("bias", NDArray::random({8}, Float(32), 32))});
  auto scores = b.make("batch_matmul", {ln, b.make("transpose", {x}, {{"axes", std::vector<int64_t>{0, 2, 1}}})});
  auto mean = b.make("reduce_mean", {scores}, {{"axes", std::vector<int64_t>{-1}}, {"keepdims", int64_t{1}}});
  auto lse = b.make("reduce_log_sum_exp", {scores}, {{"axes", std::vector<int64_t>{1}}, {"keepdims", int64_t{1}}});
  auto sel = b.make("where", {b.make("greater", {scores, mean}), scores, lse});
  const graph::Graph g =
      b.finish(b.make("reduce_l2", {sel}, {{"axes", std::vector<int64_t>{0, 2}}, {"keepdims", int64_t{0}}}, "y"));
  const NDArray xa = NDArray::random({2, 3, 8}, Float(32), 33);
  const std::vector<float> want = graph::build(g, "llvm").run({{"x", xa}}).to_vector<float>();
  check_near(graph::build(g, "opengl").run({{"x", xa}}).to_vector<float>(), want, 1e-4);
}

TEST_CASE("reductions over infinities give ONNX's results", "[graph][ops]") {
  // Masked attention rows are all -inf: their max is -inf, the first index 0, their
  // log-sum-exp -inf; a +inf makes the log-sum-exp +inf.
  const float inf = std::numeric_limits<float>::infinity();
  const NDArray x = NDArray::from_vector<float>({-inf, -inf, -inf, -inf, 0.0f, -inf, 1.0f, inf, 2.0f}, {3, 3});
  graph::Builder b;
  auto in = b.input("x", {3, 3});
  const std::map<std::string, graph::AttrValue> rows = {{"axes", std::vector<int64_t>{1}}};
  auto mx = b.make("reduce_max", {in}, rows, "max");
  auto mn = b.make("reduce_min", {b.make("neg", {in})}, rows, "min");
  auto lse = b.make("reduce_log_sum_exp", {in}, rows, "lse");
  auto am = b.make("argmax", {in}, {{"axis", int64_t{1}}, {"keepdims", int64_t{0}}}, "argmax");
  auto al = b.make("argmax", {in}, {{"axis", int64_t{1}}, {"keepdims", int64_t{0}}, {"select_last", int64_t{1}}},
                   "argmax_last");
  const graph::Outputs out = graph::build(b.finish({mx, mn, lse, am, al}), "llvm").run({{"x", x}});
  CHECK(out.at(0).to_vector<float>() == std::vector<float>{-inf, 0.0f, inf});
  CHECK(out.at(1).to_vector<float>() == std::vector<float>{inf, -0.0f, -inf});
  CHECK(out.at(2).to_vector<float>() == std::vector<float>{-inf, 0.0f, inf});
  CHECK(out.at(3).to_vector<int64_t>() == std::vector<int64_t>{0, 1, 1});
  CHECK(out.at(4).to_vector<int64_t>() == std::vector<int64_t>{2, 1, 1});
}

TEST_CASE("an attention block saves, loads and runs as it builds", "[graph][ops][save]") {
  // x [2, 5, 8] -> layer_norm -> softmax(x x^T / sqrt(8)) x, masked by where, its
  // reduce_mean and argmax: with and without fusion and tuned schedules, and from saved files.
  graph::Builder b;
  auto x = b.input("x", {2, 5, 8});
  auto h = b.make("layer_norm", {x, b.constant("g", NDArray::random({8}, Float(32), 41)),
                                 b.constant("bt", NDArray::random({8}, Float(32), 42))});
  auto ht = b.make("transpose", {h}, {{"axes", std::vector<int64_t>{0, 2, 1}}});
  auto scores = b.make("multiply", {b.make("batch_matmul", {h, ht}),
                                    b.constant("scale", NDArray::from_vector<float>({1 / std::sqrt(8.0f)}, {1}))});
  auto mask = b.make("less", {scores, b.constant("lim", NDArray::from_vector<float>({1.5f}, {1}))});
  auto masked = b.make("where", {mask, scores, b.constant("ninf", NDArray::from_vector<float>({-1e9f}, {1}))});
  auto att = b.make("batch_matmul", {b.make("softmax", {masked}, {{"axis", int64_t{-1}}}), h});
  auto mean = b.make("reduce_mean", {att}, {{"axes", std::vector<int64_t>{1}}}, "mean");
  auto idx = b.make("argmax", {att}, {{"axis", int64_t{-1}}, {"keepdims", int64_t{0}}}, "idx");
  const graph::Graph g = b.finish({mean, idx});
  const NDArray xa = NDArray::random({2, 5, 8}, Float(32), 43);
  graph::BuildOptions plain;
  plain.tuned_schedules = false;
  plain.fuse_operators = false;
  const graph::Outputs want = graph::build(g, "llvm", plain).run({{"x", xa}});
  CHECK(want.at(0).shape() == std::vector<int64_t>{2, 8});
  CHECK(want.at(1).shape() == std::vector<int64_t>{2, 5});
  const graph::CompiledModel m = graph::build(g, "llvm");
  const graph::Outputs got = m.run({{"x", xa}});
  check_near(got.at(0).to_vector<float>(), want.at(0).to_vector<float>(), 1e-5);
  CHECK(got.at(1).to_vector<int64_t>() == want.at(1).to_vector<int64_t>());

  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("tensorir_attention_" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  m.save(dir.string());
  const runtime::LoadedModel loaded = runtime::load_model(dir.string());
  const std::map<std::string, NDArray> saved = loaded.run_all({{"x", xa}});
  std::filesystem::remove_all(dir);
  REQUIRE(saved.size() == 2);
  CHECK(saved.at("mean").to_vector<float>() == got.at(0).to_vector<float>());
  CHECK(saved.at("idx").to_vector<int64_t>() == got.at(1).to_vector<int64_t>());
}
