// onnx::Session running If and Loop nodes whose condition or trip count the model
// computes: against plain loops on random data, and the compile count (each branch and
// the body compiled once per shape, not once per run).
#include <tensorir/frontend/onnx.h>

#include <cmath>
#include <numeric>

#include "onnx/onnx_test_util.h"

using namespace tensorir;
using namespace tensorir::onnx_test;
using Catch::Matchers::Contains;
namespace tonnx = tensorir::onnx;

namespace {

constexpr int32_t kFloat = ::onnx::TensorProto::FLOAT, kInt64 = ::onnx::TensorProto::INT64,
                  kBool = ::onnx::TensorProto::BOOL;

// y = x [R, K] x w [K, N], row-major, in double.
std::vector<float> matmul(const std::vector<float> &x, const std::vector<float> &w, int64_t rows, int64_t k,
                          int64_t n) {
  std::vector<float> y(size_t(rows * n));
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t j = 0; j < n; ++j) {
      double acc = 0;
      for (int64_t q = 0; q < k; ++q) acc += double(x[size_t(r * k + q)]) * w[size_t(q * n + j)];
      y[size_t(r * n + j)] = float(acc);
    }
  return y;
}

// cond = ReduceSum(x) > 0; If(cond) gives (x W, x) or (Relu(-x W), |x|): a branch that reads
// an initializer of the model around it, one output passed through from outside.
ModelBuilder if_model(const NDArray &w) {
  ModelBuilder mb(13);
  mb.input("x", dims({3, 4}));
  mb.initializer("w", w);
  mb.initializer("zero", NDArray::from_vector<float>({0.0f}, {}));
  attr(mb.node("ReduceSum", {"x"}, {"total"}), "keepdims", int64_t{0});
  mb.node("Greater", {"total", "zero"}, {"cond"});
  ::onnx::NodeProto &n = mb.node("If", {"cond"}, {"y", "z"}, "decide");
  graph_attr(n, "then_branch", {}, {"ty", "x"}, [](ModelBuilder &g) { g.node("MatMul", {"x", "w"}, {"ty"}); });
  graph_attr(n, "else_branch", {}, {"ey", "ez"}, [](ModelBuilder &g) {
    g.node("Neg", {"x"}, {"nx"});
    g.node("MatMul", {"nx", "w"}, {"m"});
    g.node("Relu", {"m"}, {"ey"});
    g.node("Abs", {"x"}, {"ez"});
  });
  mb.output("y", dims({3, 5}));
  mb.output("z", dims({3, 4}));
  return mb;
}

// trips = int64(ReduceMax(n)); h = x; each iteration h = tanh(h W + x + i), and a scan
// output 2 h of every iteration. The body reads the iteration number as data and passes
// its condition through.
ModelBuilder loop_model(const NDArray &w) {
  ModelBuilder mb(13);
  mb.input("x", dims({4}));
  mb.input("n", dims({1}));
  mb.initializer("w", w);
  mb.initializer("go", bool_scalar(true));
  mb.initializer("two", NDArray::from_vector<float>({2.0f}, {}));
  attr(mb.node("ReduceMax", {"n"}, {"nmax"}), "keepdims", int64_t{0});
  attr(mb.node("Cast", {"nmax"}, {"trips"}), "to", int64_t{kInt64});
  ::onnx::NodeProto &n = mb.node("Loop", {"trips", "go", "x"}, {"h_final", "scan"}, "recur");
  graph_attr(n, "body", {{"i", kInt64}, {"c", kBool}, {"h", kFloat}}, {"c", "h_out", "s_out"}, [](ModelBuilder &g) {
    attr(g.node("Cast", {"i"}, {"fi"}), "to", int64_t{kFloat});
    g.node("MatMul", {"h", "w"}, {"hw"});
    g.node("Add", {"hw", "x"}, {"a"});
    g.node("Add", {"a", "fi"}, {"b"});
    g.node("Tanh", {"b"}, {"h_out"});
    g.node("Mul", {"h_out", "two"}, {"s_out"});
  });
  mb.output("h_final", dims({4}));
  mb.output("scan", {});
  return mb;
}

struct Recurrence {
  std::vector<float> h;
  std::vector<std::vector<float>> scan;
};
Recurrence recur(const std::vector<float> &x, const std::vector<float> &w, int64_t trips) {
  Recurrence r{x, {}};
  for (int64_t i = 0; i < trips; ++i) {
    std::vector<float> hw = matmul(r.h, w, 1, 4, 4);
    for (size_t j = 0; j < 4; ++j) r.h[j] = std::tanh(hw[j] + x[j] + float(i));
    std::vector<float> s(4);
    for (size_t j = 0; j < 4; ++j) s[j] = 2 * r.h[j];
    r.scan.push_back(s);
  }
  return r;
}

// A while loop: go = ReduceSum(x) < limit; while go: h += x, go = ReduceSum(h) < limit.
// Neither the trip count nor the condition is known before the run. With `grow`, each
// iteration also appends h to a loop-carried value whose shape grows.
ModelBuilder while_model(bool grow) {
  ModelBuilder mb(13);
  mb.input("x", dims({4}));
  mb.initializer("limit", NDArray::from_vector<float>({10.0f}, {}));
  attr(mb.node("ReduceSum", {"x"}, {"start"}), "keepdims", int64_t{0});
  mb.node("Less", {"start", "limit"}, {"go"});
  std::vector<std::string> in = {"", "go", "x"}, out = {"h_final"}, body_out = {"c_out", "h_out"};
  std::vector<std::pair<std::string, int32_t>> body_in = {{"i", kInt64}, {"c", kBool}, {"h", kFloat}};
  if (grow) in.push_back("x"), out.push_back("all"), body_out.push_back("all_out"), body_in.push_back({"all", kFloat});
  ::onnx::NodeProto &n = mb.node("Loop", in, out, "until");
  graph_attr(n, "body", body_in, body_out, [&](ModelBuilder &g) {
    g.node("Add", {"h", "x"}, {"h_out"});
    attr(g.node("ReduceSum", {"h_out"}, {"sum"}), "keepdims", int64_t{0});
    g.node("Less", {"sum", "limit"}, {"c_out"});
    if (grow) attr(g.node("Concat", {"all", "h_out"}, {"all_out"}), "axis", int64_t{0});
  });
  mb.output("h_final", dims({4}));
  if (grow) mb.output("all", {});
  return mb;
}

}  // namespace

TEST_CASE("a Session runs an If of a computed condition from its branches compiled once", "[onnx][session][control]") {
  const NDArray w = NDArray::random({4, 5}, Float(32), 11);
  tonnx::Session session = tonnx::Session::from_bytes(if_model(w).bytes(), "llvm");
  REQUIRE(session.staged());
  CHECK_THAT(session.stage_boundary(), Contains("'decide' (If)"));
  size_t after_both = 0;
  for (int run = 0; run < 6; ++run) {
    // Runs 0, 2, 4 take the then-branch, 1, 3, 5 the else-branch.
    const float shift = run % 2 ? -0.75f : 0.75f;
    const std::vector<float> v = NDArray::random({3, 4}, Float(32), 20 + run).to_vector<float>();
    std::vector<float> xs(v.size());
    for (size_t i = 0; i < v.size(); ++i) xs[i] = v[i] + shift;
    const NDArray x = NDArray::from_vector<float>(xs, {3, 4});
    const graph::Outputs out = session.run({{"x", x}});
    const std::vector<float> wv = w.to_vector<float>();
    std::vector<float> y, z = xs;
    if (std::accumulate(xs.begin(), xs.end(), 0.0) > 0) {
      y = matmul(xs, wv, 3, 4, 5);
    } else {
      std::vector<float> neg(xs.size());
      for (size_t i = 0; i < xs.size(); ++i) neg[i] = -xs[i], z[i] = std::fabs(xs[i]);
      y = matmul(neg, wv, 3, 4, 5);
      for (float &e : y) e = std::max(e, 0.0f);
    }
    REQUIRE((run % 2 == 0) == (std::accumulate(xs.begin(), xs.end(), 0.0) > 0));
    CHECK(out["y"].shape() == std::vector<int64_t>{3, 5});
    check_close(out["y"], y, 1e-5, 1e-6);
    CHECK(out["z"].to_vector<float>() == z);
    if (run == 1) after_both = session.compiles();
  }
  CHECK(after_both > 0);
  CHECK(session.compiles() == after_both);  // no compile once each branch has run
}

TEST_CASE("a Session runs a Loop of a computed trip count from its body compiled once", "[onnx][session][control]") {
  const NDArray w = NDArray::random({4, 4}, Float(32), 5, -0.5, 0.5);
  tonnx::Session session = tonnx::Session::from_bytes(loop_model(w).bytes(), "llvm");
  REQUIRE(session.staged());
  size_t first = 0;
  int64_t run = 0;
  for (int64_t trips : {3, 5, 1, 4}) {
    const NDArray x = NDArray::random({4}, Float(32), 30 + uint64_t(trips));
    const graph::Outputs out =
        session.run({{"x", x}, {"n", NDArray::from_vector<float>({float(trips) + 0.25f}, {1})}});
    const Recurrence want = recur(x.to_vector<float>(), w.to_vector<float>(), trips);
    check_close(out["h_final"], want.h, 1e-5, 1e-6);
    CHECK(out["scan"].shape() == std::vector<int64_t>{trips, 4});
    std::vector<float> flat;
    for (const std::vector<float> &s : want.scan) flat.insert(flat.end(), s.begin(), s.end());
    check_close(out["scan"], flat, 1e-5, 1e-6);
    if (run++ == 0) first = session.compiles();
  }
  CHECK(first > 0);
  CHECK(session.compiles() == first);
}

TEST_CASE("a Session runs a while Loop whose body computes its condition", "[onnx][session][control]") {
  tonnx::Session session = tonnx::Session::from_bytes(while_model(false).bytes(), "llvm");
  REQUIRE(session.staged());
  size_t first = 0;
  for (uint64_t seed : {1, 2, 3}) {
    const NDArray x = NDArray::random({4}, Float(32), seed, 0.1, 1.0);
    std::vector<float> h = x.to_vector<float>();
    const std::vector<float> xs = h;
    auto sum = [](const std::vector<float> &v) { return std::accumulate(v.begin(), v.end(), 0.0f); };
    int iterations = 0;
    for (bool go = sum(h) < 10.0f; go; go = sum(h) < 10.0f, ++iterations)
      for (size_t j = 0; j < 4; ++j) h[j] += xs[j];
    REQUIRE(iterations > 1);
    check_close(session.run({{"x", x}})["h_final"], h, 1e-6, 0.0);
    if (seed == 1) first = session.compiles();
  }
  CHECK(session.compiles() == first);
  // No iterations: the condition is false before the first; the values pass through.
  const NDArray big = NDArray::from_vector<float>({4, 3, 2, 5}, {4});
  CHECK(session.run({{"x", big}})["h_final"].to_vector<float>() == std::vector<float>{4, 3, 2, 5});
  CHECK(session.compiles() == first);
}

TEST_CASE("a Loop whose loop-carried value grows is unrolled on the host, and still right", "[onnx][session][control]") {
  tonnx::Session session = tonnx::Session::from_bytes(while_model(true).bytes(), "llvm");
  for (uint64_t seed : {4, 5}) {
    const NDArray x = NDArray::random({4}, Float(32), seed, 0.5, 1.0);
    std::vector<float> h = x.to_vector<float>(), all = h;
    const std::vector<float> xs = h;
    while (std::accumulate(h.begin(), h.end(), 0.0f) < 10.0f) {
      for (size_t j = 0; j < 4; ++j) h[j] += xs[j];
      all.insert(all.end(), h.begin(), h.end());
    }
    const graph::Outputs out = session.run({{"x", x}});
    check_close(out["h_final"], h, 1e-6, 0.0);
    CHECK(out["all"].shape() == std::vector<int64_t>{int64_t(all.size())});
    check_close(out["all"], all, 1e-6, 0.0);
  }
}

TEST_CASE("an If whose computed condition has more than one element is an Error naming the node",
          "[onnx][session][control]") {
  ModelBuilder mb(13);
  mb.input("x", dims({2}));
  mb.initializer("zero", NDArray::from_vector<float>({0.0f}, {}));
  mb.node("Greater", {"x", "zero"}, {"cond"});
  ::onnx::NodeProto &n = mb.node("If", {"cond"}, {"y"}, "decide");
  graph_attr(n, "then_branch", {}, {"t"}, [](ModelBuilder &g) { g.node("Neg", {"x"}, {"t"}); });
  graph_attr(n, "else_branch", {}, {"e"}, [](ModelBuilder &g) { g.node("Abs", {"x"}, {"e"}); });
  mb.output("y", dims({2}));
  tonnx::Session session = tonnx::Session::from_bytes(mb.bytes(), "llvm");
  const NDArray x = NDArray::from_vector<float>({1, -1}, {2});
  CHECK_THROWS_WITH(session.run({{"x", x}}), Contains("'decide' (If)") && Contains("one element, not [2]"));
}

TEST_CASE("a Loop whose body holds an If of a computed condition runs both from their own sessions",
          "[onnx][session][control]") {
  // trips = int64(ReduceMax(n)); each iteration: h = If(ReduceSum(h) > 0) then h - 1.5 x
  // else h + x, with a scan output of the sums.
  ModelBuilder mb(13);
  mb.input("x", dims({4}));
  mb.input("n", dims({1}));
  mb.initializer("go", bool_scalar(true));
  mb.initializer("zero", NDArray::from_vector<float>({0.0f}, {}));
  mb.initializer("k", NDArray::from_vector<float>({1.5f}, {}));
  attr(mb.node("ReduceMax", {"n"}, {"nmax"}), "keepdims", int64_t{0});
  attr(mb.node("Cast", {"nmax"}, {"trips"}), "to", int64_t{kInt64});
  ::onnx::NodeProto &n = mb.node("Loop", {"trips", "go", "x"}, {"h_final", "sums"}, "walk");
  graph_attr(n, "body", {{"i", kInt64}, {"c", kBool}, {"h", kFloat}}, {"c", "h_out", "sum"}, [](ModelBuilder &g) {
    attr(g.node("ReduceSum", {"h"}, {"sum"}), "keepdims", int64_t{0});
    g.node("Greater", {"sum", "zero"}, {"positive"});
    ::onnx::NodeProto &f = g.node("If", {"positive"}, {"h_out"}, "step");
    graph_attr(f, "then_branch", {}, {"down"}, [](ModelBuilder &t) {
      t.node("Mul", {"x", "k"}, {"kx"});
      t.node("Sub", {"h", "kx"}, {"down"});
    });
    graph_attr(f, "else_branch", {}, {"up"}, [](ModelBuilder &e) { e.node("Add", {"h", "x"}, {"up"}); });
  });
  mb.output("h_final", dims({4}));
  mb.output("sums", {});
  tonnx::Session session = tonnx::Session::from_bytes(mb.bytes(), "llvm");
  size_t first = 0;
  for (int64_t trips : {6, 9}) {
    const NDArray x = NDArray::random({4}, Float(32), 50 + uint64_t(trips), 0.1, 1.0);
    const std::vector<float> xs = x.to_vector<float>();
    std::vector<float> h = xs, sums;
    int downs = 0;
    for (int64_t it = 0; it < trips; ++it) {
      const float sum = std::accumulate(h.begin(), h.end(), 0.0f);
      sums.push_back(sum);
      downs += sum > 0;
      for (size_t j = 0; j < 4; ++j) h[j] = sum > 0 ? h[j] - 1.5f * xs[j] : h[j] + xs[j];
    }
    REQUIRE(downs > 0);
    REQUIRE(downs < trips);  // both branches taken
    const graph::Outputs out = session.run({{"x", x}, {"n", NDArray::from_vector<float>({float(trips)}, {1})}});
    check_close(out["h_final"], h, 1e-5, 1e-6);
    CHECK(out["sums"].shape() == std::vector<int64_t>{trips});
    check_close(out["sums"], sums, 1e-5, 1e-6);
    if (trips == 6) first = session.compiles();
  }
  CHECK(session.compiles() == first);
}

TEST_CASE("a Loop of a negative or zero computed trip count runs no iterations", "[onnx][session][control]") {
  const NDArray w = NDArray::random({4, 4}, Float(32), 5, -0.5, 0.5);
  tonnx::Session session = tonnx::Session::from_bytes(loop_model(w).bytes(), "llvm");
  const NDArray x = NDArray::random({4}, Float(32), 8);
  auto trips = [](float n) { return NDArray::from_vector<float>({n}, {1}); };
  check_close(session.run({{"x", x}, {"n", trips(2)}})["h_final"], recur(x.to_vector<float>(), w.to_vector<float>(), 2).h,
              1e-5, 1e-6);
  const size_t compiles = session.compiles();
  // No iterations: the scan output's shape is unknown, which this run refuses, naming it.
  CHECK_THROWS_WITH(session.run({{"x", x}, {"n", trips(-3)}}),
                    Contains("'recur' (Loop)") && Contains("no iterations") &&
                        Contains("converted on the host: no iterations: the scan outputs' shapes"));
  // The refusal was this run's: the next one runs from the body's session, compiling nothing.
  const graph::Outputs out = session.run({{"x", x}, {"n", trips(3)}});
  check_close(out["h_final"], recur(x.to_vector<float>(), w.to_vector<float>(), 3).h, 1e-5, 1e-6);
  CHECK(session.compiles() == compiles);
}

TEST_CASE("an If whose branches give outer values as they are", "[onnx][session][control]") {
  // a = |x| is read by no node of either branch: the then-branch gives it, the else-branch x.
  ModelBuilder mb(13);
  mb.input("x", dims({3}));
  mb.initializer("zero", NDArray::from_vector<float>({0.0f}, {}));
  mb.node("Abs", {"x"}, {"a"});
  attr(mb.node("ReduceSum", {"x"}, {"total"}), "keepdims", int64_t{0});
  mb.node("Greater", {"total", "zero"}, {"cond"});
  ::onnx::NodeProto &n = mb.node("If", {"cond"}, {"y"}, "pick");
  graph_attr(n, "then_branch", {}, {"a"}, [](ModelBuilder &) {});
  graph_attr(n, "else_branch", {}, {"x"}, [](ModelBuilder &) {});
  mb.output("y", dims({3}));
  tonnx::Session session = tonnx::Session::from_bytes(mb.bytes(), "llvm");
  const NDArray pos = NDArray::from_vector<float>({2, -1, 0.5f}, {3}), neg = NDArray::from_vector<float>({-2, 1, 0.5f}, {3});
  CHECK(session.run({{"x", pos}})["y"].to_vector<float>() == std::vector<float>{2, 1, 0.5f});
  CHECK(session.run({{"x", neg}})["y"].to_vector<float>() == std::vector<float>{-2, 1, 0.5f});
}

TEST_CASE("a Loop whose body needs the iteration number to compile runs from its sessions while they keep it",
          "[onnx][session][control]") {
  // acc += ReduceSum(x[0 : i + 1]) for i < int64(ReduceMax(n)): the Slice's end is the
  // iteration number, so the body compiles once per iteration. A short loop's models stay
  // cached; one longer than the cache holds (8) is unrolled on the host from then on.
  ModelBuilder mb(13);
  mb.input("x", dims({16}));
  mb.input("n", dims({1}));
  mb.initializer("go", bool_scalar(true));
  mb.initializer("acc0", NDArray::from_vector<float>({0.0f}, {}));
  mb.initializer("one", int64_scalar(1));
  mb.initializer("zero1", NDArray::from_vector<int64_t>({0}, {1}));
  mb.initializer("axis0", NDArray::from_vector<int64_t>({0}, {1}));
  attr(mb.node("ReduceMax", {"n"}, {"nmax"}), "keepdims", int64_t{0});
  attr(mb.node("Cast", {"nmax"}, {"trips"}), "to", int64_t{kInt64});
  ::onnx::NodeProto &n = mb.node("Loop", {"trips", "go", "acc0"}, {"acc"}, "prefix_sums");
  graph_attr(n, "body", {{"i", kInt64}, {"c", kBool}, {"a", kFloat}}, {"c", "a_out"}, [](ModelBuilder &g) {
    g.node("Add", {"i", "one"}, {"end"});
    g.node("Unsqueeze", {"end", "axis0"}, {"end1"});
    g.node("Slice", {"x", "zero1", "end1"}, {"head"});
    attr(g.node("ReduceSum", {"head"}, {"t"}), "keepdims", int64_t{0});
    g.node("Add", {"a", "t"}, {"a_out"});
  });
  mb.output("acc", {});
  tonnx::Session session = tonnx::Session::from_bytes(mb.bytes(), "llvm");
  const NDArray x = NDArray::random({16}, Float(32), 12);
  const std::vector<float> xv = x.to_vector<float>();
  auto want = [&](int64_t trips) {
    double acc = 0;
    for (int64_t i = 0; i < trips; ++i) acc += std::accumulate(xv.begin(), xv.begin() + i + 1, 0.0);
    return std::vector<double>{acc};
  };
  auto run = [&](int64_t trips) {
    return session.run({{"x", x}, {"n", NDArray::from_vector<float>({float(trips)}, {1})}})["acc"];
  };
  check_close(run(3), want(3), 1e-5, 1e-6);
  const size_t compiles = session.compiles();
  check_close(run(3), want(3), 1e-5, 1e-6);
  CHECK(session.compiles() == compiles);  // the three bodies are cached
  check_close(run(12), want(12), 1e-5, 1e-6);
  const size_t unrolled = session.compiles();
  check_close(run(3), want(3), 1e-5, 1e-6);
  CHECK(session.compiles() > unrolled);  // on the host now: a compile every run
}
