// Converters at the edges of their attributes, each checked against the values the ONNX
// specification (and ONNX Runtime) give: Slice reversing a whole axis, Round of
// infinities, Resize to a single element with float32 scales, and the reductions with
// noop_with_empty_axes.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "onnx/onnx_test_util.h"

using namespace tensorir;
using namespace tensorir::onnx_test;

TEST_CASE("converters: Slice with step -1 over a whole axis reverses it", "[onnx][converters]") {
  // torch.flip and x[::-1] export as this; the result has the input's shape.
  const NDArray x = NDArray::from_vector<float>({0, 1, 2, 3, 4, 5}, {2, 3});
  const int64_t lowest = std::numeric_limits<int64_t>::min();
  struct Case {
    std::vector<int64_t> starts, ends, axes;
    std::vector<double> want;
  };
  for (const Case &k : {Case{{-1}, {lowest}, {1}, {2, 1, 0, 5, 4, 3}}, Case{{-1}, {-100}, {0}, {3, 4, 5, 0, 1, 2}},
                        Case{{-1, 2}, {-100, lowest}, {0, 1}, {5, 4, 3, 2, 1, 0}}}) {
    INFO("axes " << k.axes.size() << ", first " << k.axes[0]);
    ModelBuilder mb(13);
    mb.input("x", dims({2, 3}));
    const int64_t n = int64_t(k.axes.size());
    mb.initializer("starts", NDArray::from_vector<int64_t>(k.starts, {n}));
    mb.initializer("ends", NDArray::from_vector<int64_t>(k.ends, {n}));
    mb.initializer("axes", NDArray::from_vector<int64_t>(k.axes, {n}));
    mb.initializer("steps", NDArray::from_vector<int64_t>(std::vector<int64_t>(size_t(n), -1), {n}));
    mb.node("Slice", {"x", "starts", "ends", "axes", "steps"}, {"y"});
    mb.output("y");
    const NDArray y = run(mb, {{"x", x}}).at(0);
    CHECK(y.shape() == std::vector<int64_t>{2, 3});
    check_close(y, k.want, 0, 0);
  }
}

TEST_CASE("converters: Round keeps infinities and NaN and rounds halves to even", "[onnx][converters]") {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  const NDArray x = NDArray::from_vector<float>({inf, -inf, nan, 2.5f, 0.5f, -1.5f, -2.5f, 1.7f, -0.2f}, {9});
  ModelBuilder mb(11);
  mb.input("x", dims({9}));
  mb.node("Round", {"x"}, {"y"});
  mb.output("y");
  check_close(run(mb, {{"x", x}}).at(0), std::vector<double>{inf, -inf, nan, 2, 0, -2, -2, 2, 0}, 0, 0);
}

TEST_CASE("converters: Resize to one element with pytorch_half_pixel reads the first", "[onnx][converters]") {
  // 4 x 0.25f and 5 x 0.2f are 1 in float32, ONNX's type for scales (5 x 0.2f is
  // 1.00000003 in double): a resized length of 1, which maps to coordinate 0.
  std::vector<float> xv(20);
  for (int i = 0; i < 20; ++i) xv[size_t(i)] = float(i);
  const NDArray x = NDArray::from_vector<float>(xv, {1, 1, 4, 5});
  for (const std::string mode : {"nearest", "linear", "cubic"}) {
    INFO(mode);
    ModelBuilder mb(13);
    mb.input("x", dims({1, 1, 4, 5}));
    mb.initializer("scales", NDArray::from_vector<float>({1, 1, 0.25f, 0.2f}, {4}));
    auto &n = mb.node("Resize", {"x", "", "scales"}, {"y"});
    attr(n, "mode", mode);
    attr(n, "coordinate_transformation_mode", std::string("pytorch_half_pixel"));
    mb.output("y");
    const NDArray y = run(mb, {{"x", x}}).at(0);
    CHECK(y.shape() == std::vector<int64_t>{1, 1, 1, 1});
    check_close(y, std::vector<double>{0}, 0, 1e-6);
  }
}

TEST_CASE("converters: reductions with noop_with_empty_axes keep their element-wise part", "[onnx][converters]") {
  // As ONNX's reference and ONNX Runtime compute them: each element reduced alone.
  const std::vector<float> xv{-2, 1.5f, 3, -0.5f};
  const NDArray x = NDArray::from_vector<float>(xv, {2, 2});
  struct Case {
    const char *op;
    double (*f)(double);
  };
  for (const Case &k : {Case{"ReduceL1", [](double v) { return std::fabs(v); }},
                        Case{"ReduceL2", [](double v) { return std::fabs(v); }},
                        Case{"ReduceSumSquare", [](double v) { return v * v; }},
                        Case{"ReduceLogSum", [](double v) { return std::log(v); }},
                        Case{"ReduceLogSumExp", [](double v) { return v; }},
                        Case{"ReduceMean", [](double v) { return v; }}, Case{"ReduceMax", [](double v) { return v; }},
                        Case{"ReduceProd", [](double v) { return v; }}}) {
    INFO(k.op);
    ModelBuilder mb(18);
    mb.input("x", dims({2, 2}));
    attr(mb.node(k.op, {"x"}, {"y"}), "noop_with_empty_axes", int64_t{1});
    mb.output("y");
    std::vector<double> want;
    for (float v : xv) want.push_back(k.f(std::string(k.op) == "ReduceLogSum" ? std::fabs(v) : v));
    const NDArray in = std::string(k.op) == "ReduceLogSum"
                           ? NDArray::from_vector<float>({2, 1.5f, 3, 0.5f}, {2, 2})
                           : x;
    const NDArray y = run(mb, {{"x", in}}).at(0);
    CHECK(y.shape() == std::vector<int64_t>{2, 2});
    check_close(y, want, 1e-6, 1e-7);
  }
}
