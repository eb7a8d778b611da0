// Converters at opset 18, on models built here, against plain loops: Pad's axes input,
// Split's num_outputs (the last part smaller), a reduction's axes as an input, and
// Resize's additions that are refused.
#include <tensorir/frontend/onnx.h>
#include <tensorir/graph/executor.h>

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
  SECTION("Resize with antialias is refused") {
    ModelBuilder mb(18);
    mb.input("x", dims({1, 1, 2, 5}));
    mb.initializer("scales", NDArray::from_vector<float>({1, 1, 2, 2}, {4}));
    attr(mb.node("Resize", {"x", "", "scales"}, {"y"}, "up"), "antialias", int64_t{1});
    mb.output("y");
    REQUIRE_THROWS_WITH(tonnx::import_bytes(mb.bytes()), Contains("node 'up' (Resize): antialias is not supported"));
  }
}
