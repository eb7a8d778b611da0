// conv2d_transpose against a plain scatter loop on "llvm": strides, dilations, uneven
// pads, output padding and groups.
#include <catch2/catch.hpp>
#include <cmath>

#include "tensorir/graph/executor.h"
#include "tensorir/graph/op_registry.h"

using namespace tensorir;
using Catch::Matchers::Contains;

namespace {

struct Params {
  std::vector<int64_t> strides, pads, dilation, output_padding;
  int64_t groups;
};

// Every input element times the weight, added where its window lands in the full
// result; the result is then trimmed by the pads (and extended by the output padding).
std::vector<float> reference(const std::vector<float> &x, const std::vector<int64_t> &xs, const std::vector<float> &w,
                             const std::vector<int64_t> &ws, const Params &p, std::vector<int64_t> *out_shape) {
  const int64_t n = xs[0], c = xs[1], h = xs[2], wd = xs[3], cout_g = ws[1], kh = ws[2], kw = ws[3];
  const int64_t cin_g = c / p.groups, oc = cout_g * p.groups;
  const int64_t oh = p.strides[0] * (h - 1) + p.output_padding[0] + (kh - 1) * p.dilation[0] + 1 - p.pads[0] - p.pads[2];
  const int64_t ow =
      p.strides[1] * (wd - 1) + p.output_padding[1] + (kw - 1) * p.dilation[1] + 1 - p.pads[1] - p.pads[3];
  *out_shape = {n, oc, oh, ow};
  std::vector<double> out(size_t(n * oc * oh * ow), 0.0);
  for (int64_t b = 0; b < n; ++b)
    for (int64_t ci = 0; ci < c; ++ci)
      for (int64_t y = 0; y < h; ++y)
        for (int64_t xx = 0; xx < wd; ++xx)
          for (int64_t m = 0; m < cout_g; ++m)
            for (int64_t i = 0; i < kh; ++i)
              for (int64_t j = 0; j < kw; ++j) {
                const int64_t oy = y * p.strides[0] + i * p.dilation[0] - p.pads[0];
                const int64_t ox = xx * p.strides[1] + j * p.dilation[1] - p.pads[1];
                if (oy < 0 || ox < 0 || oy >= oh || ox >= ow) continue;
                const int64_t o = ci / cin_g * cout_g + m;
                out[size_t(((b * oc + o) * oh + oy) * ow + ox)] +=
                    double(x[size_t(((b * c + ci) * h + y) * wd + xx)]) * w[size_t(((ci * cout_g + m) * kh + i) * kw + j)];
              }
  return std::vector<float>(out.begin(), out.end());
}

}  // namespace

TEST_CASE("conv2d_transpose matches a plain scatter loop", "[graph][ops]") {
  const std::vector<Params> cases = {
      {{1, 1}, {0, 0, 0, 0}, {1, 1}, {0, 0}, 1},
      {{2, 3}, {1, 0, 0, 2}, {1, 1}, {1, 2}, 1},
      {{2, 2}, {0, 1, 1, 0}, {2, 1}, {0, 0}, 2},
      {{3, 1}, {2, 2, 1, 1}, {1, 2}, {2, 0}, 4},
  };
  const std::vector<int64_t> xs = {2, 4, 3, 4}, ws = {4, 2, 3, 2};
  const NDArray x = NDArray::random(xs, Float(32), 1), w = NDArray::random(ws, Float(32), 2);
  for (size_t k = 0; k < cases.size(); ++k) {
    INFO("case " << k);
    const Params &p = cases[k];
    graph::Builder b;
    auto xi = b.input("x", xs);
    auto wi = b.input("w", ws);
    const graph::Graph g = b.finish(b.make("conv2d_transpose", {xi, wi},
                                           {{"strides", p.strides},
                                            {"pads", p.pads},
                                            {"dilation", p.dilation},
                                            {"output_padding", p.output_padding},
                                            {"groups", p.groups}},
                                           "y"));
    std::vector<int64_t> want_shape;
    const std::vector<float> want =
        reference(x.to_vector<float>(), xs, w.to_vector<float>(), ws, p, &want_shape);
    for (bool tuned : {false, true}) {
      graph::BuildOptions opts;
      opts.tuned_schedules = tuned;
      const NDArray out = graph::build(g, "llvm", opts).run({{"x", x}, {"w", w}});
      REQUIRE(out.shape() == want_shape);
      const std::vector<float> got = out.to_vector<float>();
      for (size_t i = 0; i < got.size(); ++i) {
        INFO("element " << i << " tuned " << tuned);
        CHECK(std::fabs(got[i] - want[i]) <= 1e-4 * (1 + std::fabs(want[i])));
      }
    }
  }
}

TEST_CASE("conv2d_transpose checks its weight and pads", "[graph][ops]") {
  graph::Builder b;
  auto x = b.input("x", {1, 4, 3, 3});
  auto w = b.input("w", {3, 2, 3, 3});
  CHECK_THROWS_WITH(b.make("conv2d_transpose", {x, w}), Contains("does not fit"));
  auto w2 = b.input("w2", {4, 2, 3, 3});
  CHECK_THROWS_WITH(b.make("conv2d_transpose", {x, w2}, {{"pads", std::vector<int64_t>{3, 3, 3, 3}}}),
                    Contains("leave no output"));
}
