// The CPU schedules of a transformer's attention and activations on odd shapes (partial
// vectors and register blocks at every edge), against plain loops: batch_matmul with a
// transposed operand, softmax and log_softmax along the last axis, exp and sigmoid
// (inline float32 code) near their limits, and gelu.
#include <tensorir/graph/executor.h>
#include <tensorir/graph/graph.h>

#include <cmath>
#include <limits>

#include "graph/graph_test_util.h"

using namespace tensorir;
using graph_test::check_near;

namespace {

std::vector<float> run_unary(const std::string &op, const NDArray &x) {
  graph::Builder b;
  auto y = b.make(op, {b.input("x", x.shape())}, {}, "y");
  return graph::build(b.finish(y), "llvm").run({{"x", x}}).to_vector<float>();
}

}  // namespace

TEST_CASE("batch_matmul of q and a transposed k matches a plain loop on odd shapes", "[graph][ops]") {
  // q [h, m, k] times transpose(kt [n, h, k]) as attention scores; 37 columns leave a
  // partial column block, 13 rows a partial row block, 4 columns the generic schedule.
  for (int n : {4, 37, 70}) {
    CAPTURE(n);
    const int h = 3, m = 13, k = 9;
    const NDArray q = NDArray::random({h, m, k}, Float(32), 1), kt = NDArray::random({n, h, k}, Float(32), 2);
    graph::Builder b;
    auto kk = b.make("transpose", {b.input("kt", {n, h, k})}, {{"axes", std::vector<int64_t>{1, 2, 0}}});
    auto y = b.make("batch_matmul", {b.input("q", {h, m, k}), kk}, {}, "y");
    const std::vector<float> got = graph::build(b.finish(y), "llvm").run({{"q", q}, {"kt", kt}}).to_vector<float>();
    const std::vector<float> qv = q.to_vector<float>(), kv = kt.to_vector<float>();
    std::vector<float> want;
    for (int p = 0; p < h; ++p)
      for (int i = 0; i < m; ++i)
        for (int j = 0; j < n; ++j) {
          double s = 0;
          for (int c = 0; c < k; ++c) s += double(qv[size_t((p * m + i) * k + c)]) * kv[size_t((j * h + p) * k + c)];
          want.push_back(float(s));
        }
    check_near(got, want, 1e-5);
  }
}

TEST_CASE("softmax and log_softmax along the last axis match a plain loop on odd shapes", "[graph][ops]") {
  // Rows of 19 (two vectors and a partial one), 5 (no vector), and 64, 128 and 197
  // columns (maxima and sums as 16 partial vectors, the last one partial at 197), values
  // spread over +-60 so that exponentials underflow.
  for (const std::vector<int64_t> &shape : {std::vector<int64_t>{3, 5, 19}, std::vector<int64_t>{4, 5},
                                            std::vector<int64_t>{3, 64}, std::vector<int64_t>{2, 3, 128},
                                            std::vector<int64_t>{2, 197}}) {
    const int64_t cols = shape.back();
    const NDArray x = NDArray::random(shape, Float(32), 3, -60, 60);
    const std::vector<float> xv = x.to_vector<float>();
    for (const char *op : {"softmax", "log_softmax"}) {
      CAPTURE(op, cols);
      graph::Builder b;
      auto y = b.make(op, {b.input("x", shape)}, {{"axis", int64_t{-1}}}, "y");
      const std::vector<float> got = graph::build(b.finish(y), "llvm").run({{"x", x}}).to_vector<float>();
      std::vector<float> want(xv.size());
      for (size_t r = 0; r < xv.size() / size_t(cols); ++r) {
        const float *row = &xv[r * size_t(cols)];
        double mx = row[0], sum = 0;
        for (int64_t j = 0; j < cols; ++j) mx = std::max(mx, double(row[j]));
        for (int64_t j = 0; j < cols; ++j) sum += std::exp(row[j] - mx);
        for (int64_t j = 0; j < cols; ++j)
          want[r * size_t(cols) + size_t(j)] =
              float(std::string(op) == "softmax" ? std::exp(row[j] - mx) / sum : row[j] - mx - std::log(sum));
      }
      check_near(got, want, 1e-5);
    }
  }
}

TEST_CASE("exp and sigmoid in float32 match the C library near their limits", "[graph][ops]") {
  // Across the whole range, into gradual underflow (below -87.3) and overflow (above 88.7).
  std::vector<float> xs;
  for (int i = 0; i <= 2000; ++i) xs.push_back(-110.0f + 0.1f * float(i));
  for (float v : {-0.0f, 88.72f, 88.73f, 1e30f, -1e30f}) xs.push_back(v);
  const float inf = std::numeric_limits<float>::infinity();
  xs.push_back(inf);
  xs.push_back(-inf);
  const NDArray x = NDArray::from_vector(xs, {int64_t(xs.size())});
  const std::vector<float> e = run_unary("exp", x), s = run_unary("sigmoid", x);
  for (size_t i = 0; i < xs.size(); ++i) {
    CAPTURE(xs[i]);
    const double want = std::exp(double(xs[i]));
    if (want > std::numeric_limits<float>::max())
      CHECK(e[i] == inf);
    else  // within 2 ulp, or a denormal within its spacing
      CHECK(std::fabs(e[i] - want) <= 2.5e-7 * want + 1e-44);
    CHECK(std::fabs(s[i] - 1 / (1 + std::exp(-double(xs[i])))) <= 3e-7);
  }
  const std::vector<float> nan = run_unary("exp", NDArray::from_vector(std::vector<float>{NAN, 1.0f}, {2}));
  CHECK(std::isnan(nan[0]));
  CHECK(std::fabs(nan[1] - std::exp(1.0)) <= 1e-6);
}

TEST_CASE("gelu matches x * (1 + erf(x / sqrt(2))) / 2", "[graph][ops]") {
  const NDArray x = NDArray::random({5, 41}, Float(32), 4, -9, 9);
  std::vector<float> want;
  for (float v : x.to_vector<float>()) want.push_back(float(0.5 * v * (1 + std::erf(double(v) / std::sqrt(2.0)))));
  check_near(run_unary("gelu", x), want, 1e-6);
  graph::Builder b;
  CHECK_THROWS_WITH(b.make("gelu", {b.input("i", {2}, Int(32))}), Catch::Matchers::Contains("float"));
}
