// Converters at opset 18, on models built here, against plain loops: Pad's axes input,
// Split's num_outputs (the last part smaller), a reduction's axes as an input, and
// Resize's axes and keep_aspect_ratio_policy (antialias: test_converters_antialias.cpp).
#include <tensorir/frontend/onnx.h>
#include <tensorir/graph/executor.h>

#include <algorithm>
#include <cmath>
#include <tuple>

#include "onnx/onnx_test_util.h"

using namespace tensorir;
using Catch::Matchers::Contains;
using onnx_test::attr;
using onnx_test::check_close;
using onnx_test::dims;
using onnx_test::ModelBuilder;
using onnx_test::run;
namespace tonnx = tensorir::onnx;

TEST_CASE("converters: opset 18", "[onnx][converters]") {
  const NDArray x = NDArray::random({2, 5}, Float(32), 71);
  const std::vector<float> xv = x.to_vector<float>();
  SECTION("Pad pads only the axes given") {
    ModelBuilder mb(18);
    mb.input("x", dims({2, 5}));
    mb.initializer("pads", NDArray::from_vector<int64_t>({1, 2}, {2}));
    mb.initializer("value", NDArray::from_vector<float>({-1.0f}, {}));
    mb.initializer("axes", NDArray::from_vector<int64_t>({-1}, {1}));
    mb.node("Pad", {"x", "pads", "value", "axes"}, {"y"});
    mb.output("y");
    std::vector<double> want;
    for (size_t r = 0; r < 2; ++r)
      for (int64_t k = -1; k < 7; ++k) want.push_back(k >= 0 && k < 5 ? xv[r * 5 + size_t(k)] : -1.0);
    const NDArray y = run(mb, {{"x", x}}).at(0);
    CHECK(y.shape() == std::vector<int64_t>{2, 8});
    check_close(y, want);
  }
  SECTION("Split into num_outputs parts, the last one smaller") {
    ModelBuilder mb(18);
    mb.input("x", dims({2, 5}));
    auto &n = mb.node("Split", {"x"}, {"p", "q"}, "split");
    attr(n, "axis", int64_t{1});
    attr(n, "num_outputs", int64_t{2});
    mb.output("p");
    mb.output("q");
    const graph::Outputs out = run(mb, {{"x", x}});
    check_close(out.at(0), {xv[0], xv[1], xv[2], xv[5], xv[6], xv[7]});
    check_close(out.at(1), {xv[3], xv[4], xv[8], xv[9]});
    ModelBuilder bad(18);
    bad.input("x", dims({2, 5}));
    attr(bad.node("Split", {"x"}, {"p", "q"}, "split"), "num_outputs", int64_t{3});
    bad.output("p");
    bad.output("q");
    REQUIRE_THROWS_WITH(tonnx::import_bytes(bad.bytes()), Contains("num_outputs is 3 but the node has 2 outputs"));
  }
  SECTION("ReduceMean takes its axes as an input") {
    ModelBuilder mb(18);
    mb.input("x", dims({2, 5}));
    mb.initializer("axes", NDArray::from_vector<int64_t>({1}, {1}));
    attr(mb.node("ReduceMean", {"x", "axes"}, {"y"}), "keepdims", int64_t{0});
    mb.output("y");
    std::vector<double> want(2, 0.0);
    for (size_t e = 0; e < xv.size(); ++e) want[e / 5] += xv[e] / 5.0;
    check_close(run(mb, {{"x", x}}).at(0), want);
  }
  SECTION("Resize of the axes listed, and sizes that keep the aspect ratio") {
    // [1, 1, 4, 6], nearest with half-pixel centres rounded half down, against a loop.
    const NDArray img = NDArray::random({1, 1, 4, 6}, Float(32), 72);
    const std::vector<float> iv = img.to_vector<float>();
    auto nearest = [&](int64_t oh, int64_t ow, double sh, double sw) {
      std::vector<double> want;
      auto pick = [](int64_t o, double s, int64_t n) {
        return std::clamp<int64_t>(int64_t(std::ceil((double(o) + 0.5) / s - 0.5 - 0.5)), 0, n - 1);
      };
      for (int64_t i = 0; i < oh; ++i)
        for (int64_t j = 0; j < ow; ++j) want.push_back(iv[size_t(pick(i, sh, 4) * 6 + pick(j, sw, 6))]);
      return want;
    };
    auto model = [](const std::string &input, const NDArray &value, const std::vector<int64_t> &axes,
                    const std::string &policy) {
      ModelBuilder mb(18);
      mb.input("x", dims({1, 1, 4, 6}));
      mb.initializer(input, value);
      auto &n = mb.node("Resize", {"x", "", input == "scales" ? "scales" : "", input == "sizes" ? "sizes" : ""},
                        {"y"}, "rs");
      attr(n, "axes", axes);
      if (!policy.empty()) attr(n, "keep_aspect_ratio_policy", policy);
      mb.output("y");
      return mb;
    };
    const NDArray xs = img;
    {  // scales of axes 3 and 2 (in that order): width x 0.5, height x 2
      const NDArray y = run(model("scales", NDArray::from_vector<float>({0.5f, 2.0f}, {2}), {3, -2}, ""), {{"x", xs}}).at(0);
      CHECK(y.shape() == std::vector<int64_t>{1, 1, 8, 3});
      check_close(y, nearest(8, 3, 2.0, 0.5), 0, 0);
    }
    // sizes 3 x 3: not_larger takes min(3/4, 3/6) = 0.5 for both (2 x 3), not_smaller
    // max = 0.75 (3 x 5, 4.5 rounded half up).
    for (const auto &[policy, scale, oh, ow] : std::vector<std::tuple<std::string, double, int64_t, int64_t>>{
             {"not_larger", 0.5, 2, 3}, {"not_smaller", 0.75, 3, 5}}) {
      CAPTURE(policy);
      const NDArray y = run(model("sizes", NDArray::from_vector<int64_t>({3, 3}, {2}), {2, 3}, policy), {{"x", xs}}).at(0);
      CHECK(y.shape() == std::vector<int64_t>{1, 1, oh, ow});
      check_close(y, nearest(oh, ow, scale, scale), 0, 0);
    }
    REQUIRE_THROWS_WITH(tonnx::import_bytes(model("scales", NDArray::from_vector<float>({2.0f}, {1}), {2, 3}, "").bytes()),
                        Contains("scales has 1 values for the 2 axes"));
    REQUIRE_THROWS_WITH(tonnx::import_bytes(model("sizes", NDArray::from_vector<int64_t>({3, 3}, {2}), {2, 3}, "fit").bytes()),
                        Contains("keep_aspect_ratio_policy 'fit' is not supported"));
  }
}
