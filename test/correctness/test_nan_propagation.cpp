// NaN through max and min: relu, clip, max pooling, max/min reductions and arg
// reductions return NaN (the arg search its first or last index) where an input they
// read is NaN, as NumPy and PyTorch do, against plain loops on random data with NaNs and
// infinities scattered through it.
#include <tensorir/ops/nn.h>
#include <tensorir/ops/schedule.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "correctness/reference.h"
#include "correctness/target_runner.h"

using namespace tensorir;
using namespace tensorir::testing;

namespace {

using Shape = std::vector<int64_t>;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

double nan_max(double a, double b) { return std::isnan(a) || std::isnan(b) ? kNaN : std::max(a, b); }
double nan_min(double a, double b) { return std::isnan(a) || std::isnan(b) ? kNaN : std::min(a, b); }

// Random floats in [-1, 1) with a NaN at about one position in `every` and an infinity of
// either sign at about one in 3 * `every` (positions drawn from the seed).
NDArray with_nans(const Shape &shape, uint64_t seed, int every) {
  NDArray x = random_array<float>(shape, seed);
  const std::vector<int64_t> pick = NDArray::random({numel(shape)}, Int(64), seed + 1, 0, 3 * every).to_vector<int64_t>();
  float *p = x.data_as<float>();
  for (size_t i = 0; i < pick.size(); ++i) {
    if (pick[i] < 3) p[i] = std::numeric_limits<float>::quiet_NaN();
    else if (pick[i] == 3) p[i] = std::numeric_limits<float>::infinity();
    else if (pick[i] == 4) p[i] = -std::numeric_limits<float>::infinity();
  }
  return x;
}

std::vector<double> as_double(const NDArray &x) {
  const std::vector<float> v = x.to_vector<float>();
  return {v.begin(), v.end()};
}

NDArray run(const Schedule &s, const Tensor &in, const Tensor &out, const NDArray &x) {
  Shape shape;
  for (const Expr &d : out.shape()) shape.push_back(*as_const_int(d));
  const std::vector<BuildArg> args{in, out};
  INFO("lowered:\n" << lowered_text(s, args, "op"));
  return run_on_target("llvm", s, args, "op", {x, NDArray::empty(shape, out.dtype())}).back();
}

// The number of NaNs, so that a test shows its data has some.
size_t nans(const std::vector<double> &v) {
  size_t n = 0;
  for (double d : v) n += std::isnan(d);
  return n;
}

}  // namespace

TEST_CASE("NaN: relu and clip return NaN for NaN, scalar and vectorized", "[correctness][nan]") {
  const Shape shape{3, 37};
  Tensor X = placeholder({shape.begin(), shape.end()}, Float(32), "x");
  const NDArray x = with_nans(shape, 11, 6);
  const std::vector<double> xv = as_double(x);
  REQUIRE(nans(xv) > 3);
  std::vector<double> relu, clip;
  for (double v : xv) {
    relu.push_back(nan_max(v, 0.0));
    clip.push_back(nan_min(nan_max(v, 0.0), 0.5));
  }
  for (bool vectorized : {false, true}) {
    INFO((vectorized ? "schedule_injective_cpu" : "schedule_generic"));
    auto sched = [&](const Tensor &t) {
      return vectorized ? ops::schedule_injective_cpu(t, Target("llvm")) : ops::schedule_generic({t});
    };
    Tensor r = ops::relu(X), c = ops::clip(X, 0.0, 0.5);
    check_close<float>(run(sched(r), X, r, x), relu);
    check_close<float>(run(sched(c), X, c, x), clip);
  }
}

TEST_CASE("NaN: max_pool2d returns NaN for a window holding one", "[correctness][nan][pool]") {
  const int N = 2, C = 3, H = 9, W = 10;
  Tensor X = placeholder({N, C, H, W}, Float(32), "x");
  const NDArray x = with_nans({N, C, H, W}, 21, 12);
  const std::vector<double> xv = as_double(x);
  for (int pad : {0, 1}) {
    INFO("3x3 pool, stride 2, padding " << pad);
    const int OH = (H + 2 * pad - 3) / 2 + 1, OW = (W + 2 * pad - 3) / 2 + 1;
    std::vector<double> want;
    for (int nc = 0; nc < N * C; ++nc)
      for (int y = 0; y < OH; ++y)
        for (int z = 0; z < OW; ++z) {
          double m = -kInf;
          for (int r = 0; r < 3; ++r)
            for (int q = 0; q < 3; ++q) {
              const int iy = y * 2 + r - pad, ix = z * 2 + q - pad;
              if (iy >= 0 && iy < H && ix >= 0 && ix < W) m = nan_max(m, xv[size_t((nc * H + iy) * W + ix)]);
            }
          want.push_back(m);
        }
    REQUIRE(nans(want) > 3);
    REQUIRE(nans(want) < want.size());
    Tensor p = ops::max_pool2d(X, {3, 3}, {2, 2}, {pad, pad});
    check_close<float>(run(ops::schedule_generic({p}), X, p, x), want);
  }
}

TEST_CASE("NaN: max and min reductions return NaN for a row holding one", "[correctness][nan][reduce]") {
  const Shape shape{5, 4, 19};
  Tensor X = placeholder({shape.begin(), shape.end()}, Float(32), "x");
  const NDArray x = with_nans(shape, 31, 40);
  const std::vector<double> xv = as_double(x);
  for (const std::string r : {"max", "min"}) {
    std::vector<double> want(20, r == "max" ? -kInf : kInf);
    for (size_t i = 0; i < xv.size(); ++i)
      want[i / 19] = r == "max" ? nan_max(want[i / 19], xv[i]) : nan_min(want[i / 19], xv[i]);
    REQUIRE(nans(want) > 2);
    REQUIRE(nans(want) < want.size());
    Tensor t = ops::reduce(X, r, {-1}, false);
    INFO(r << " along the last axis");
    check_close<float>(run(ops::schedule_generic({t}), X, t, x), want);
    check_close<float>(run(ops::schedule_reduce_llvm(t), X, t, x), want);
    // Over every axis: one NaN anywhere makes the result NaN.
    Tensor all = ops::reduce(X, r, {}, false);
    check_close<float>(run(ops::schedule_generic({all}), X, all, x), std::vector<double>{kNaN});
  }
}

TEST_CASE("NaN: argmax and argmin find the first (or last) NaN", "[correctness][nan][reduce]") {
  const Shape shape{24, 13};
  Tensor X = placeholder({shape.begin(), shape.end()}, Float(32), "x");
  const NDArray x = with_nans(shape, 41, 30);
  const std::vector<double> xv = as_double(x);
  for (bool is_max : {true, false})
    for (bool last : {false, true}) {
      std::vector<int64_t> want;
      size_t rows_with_nan = 0;
      for (int i = 0; i < 24; ++i) {
        int64_t at = -1, nan_at = -1;
        for (int k = 0; k < 13; ++k) {
          const double v = xv[size_t(i * 13 + k)];
          if (std::isnan(v)) {
            if (nan_at < 0 || last) nan_at = k;
          } else if (at < 0) {
            at = k;
          } else {
            const double best = xv[size_t(i * 13 + at)];
            if (is_max ? (v > best || (last && v == best)) : (v < best || (last && v == best))) at = k;
          }
        }
        rows_with_nan += nan_at >= 0;
        want.push_back(nan_at >= 0 ? nan_at : at);
      }
      REQUIRE(rows_with_nan > 3);
      REQUIRE(rows_with_nan < 24);
      INFO((is_max ? "argmax" : "argmin") << (last ? ", last index" : ", first index"));
      Tensor t = ops::arg_reduce(X, 1, false, last, is_max);
      CHECK(run(ops::schedule_generic({t}), X, t, x).to_vector<int64_t>() == want);
    }
}

TEST_CASE("NaN: the wasm build uses WebAssembly's min and max, which return NaN for NaN", "[correctness][nan][wasm]") {
  // Node runs no kernel here; the instructions are the specification's (f32.max of a NaN
  // operand is NaN), where the x86 build's compare-and-blend is tested above.
  Tensor X = placeholder({4, 64}, Float(32), "x");
  Tensor r = ops::relu(X), m = ops::reduce(X, "min", {-1}, false);
  const std::string relu_asm = build(ops::schedule_injective_cpu(r, Target("wasm")), {X, r}, "wasm", "relu").source("asm");
  CHECK_THAT(relu_asm, Catch::Contains("f32x4.max"));
  CHECK_THAT(relu_asm, !Catch::Contains("fmaxf"));
  const std::string min_asm = build(ops::schedule_generic({m}), {X, m}, "wasm", "rmin").source("asm");
  CHECK_THAT(min_asm, Catch::Contains("f32.min"));
  CHECK_THAT(min_asm, !Catch::Contains("fminf"));
}
