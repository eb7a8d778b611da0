// Converters of opsets before 7, on models built here, against plain loops: the binary
// operators' limited broadcasting (broadcast, axis), BatchNormalization and Dropout in
// test mode, the older forms of Reshape, Concat, Pad, Split, Tile, Cast, Selu, Upsample,
// PRelu, Gemm and Sum, and InstanceNormalization. Bad nodes are clear errors.
#include <tensorir/frontend/onnx.h>
#include <tensorir/graph/executor.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>

#include "onnx/onnx_test_util.h"

using namespace tensorir;
using Catch::Matchers::Contains;
using onnx_test::attr;
using onnx_test::check_close;
using onnx_test::dims;
using onnx_test::ModelBuilder;
using onnx_test::run;
namespace tonnx = tensorir::onnx;

namespace {

using Shape = std::vector<int64_t>;

// The row-major offset into b of shape `bs`, placed in A's dimensions from `axis` on, of
// A's element at `idx` (dimensions of B that are 1 repeat).
int64_t legacy_offset(const Shape &idx, const Shape &bs, int64_t axis) {
  int64_t off = 0;
  for (size_t j = 0; j < bs.size(); ++j) off = off * bs[j] + (bs[j] == 1 ? 0 : idx[size_t(axis) + j]);
  return off;
}

// Every index of `shape` in row-major order.
std::vector<Shape> indices(const Shape &shape) {
  std::vector<Shape> out;
  Shape idx(shape.size(), 0);
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  for (int64_t e = 0; e < n; ++e) {
    out.push_back(idx);
    for (size_t k = shape.size(); k-- > 0;) {
      if (++idx[k] < shape[k]) break;
      idx[k] = 0;
    }
  }
  return out;
}

// A one-node model of opset 6: z = op(a, b) with broadcast = 1 (and axis when >= 0) and
// b an input, or an initializer when `b_known`.
ModelBuilder legacy_binary(const std::string &op, const Shape &as, const NDArray &b, int64_t broadcast, int64_t axis,
                           bool b_known, int32_t out_type = ::onnx::TensorProto::FLOAT) {
  ModelBuilder mb(6);
  mb.input("a", dims(as));
  if (b_known)
    mb.initializer("b", b);
  else
    mb.input("b", dims(b.shape()));
  auto &n = mb.node(op, {"a", "b"}, {"z"}, "legacy");
  attr(n, "broadcast", broadcast);
  if (axis >= 0) attr(n, "axis", axis);
  mb.output("z", {}, out_type);
  return mb;
}

}  // namespace

TEST_CASE("converters: binary operators broadcast as before opset 7", "[onnx][converters][legacy]") {
  const Shape as = {2, 3, 4, 5};
  struct Case {
    Shape bs;
    int64_t axis;  // -1: not set (suffix matching)
  };
  const std::vector<Case> cases = {{{}, -1},        {{1, 1}, -1},  {{5}, -1},   {{4, 5}, -1},
                                   {{3, 4}, 1},     {{2}, 0},      {{3, 1}, 1}, {{2, 1, 4}, 0},
                                   {{2, 3, 4, 5}, 0}};
  struct Op {
    std::string name;
    std::function<double(double, double)> ref;
  };
  const std::vector<Op> ops = {{"Add", [](double x, double y) { return x + y; }},
                               {"Sub", [](double x, double y) { return x - y; }},
                               {"Mul", [](double x, double y) { return x * y; }},
                               {"Div", [](double x, double y) { return x / y; }},
                               {"Pow", [](double x, double y) { return std::pow(x, y); }}};
  // Positive operands keep Pow real and Div away from zero.
  const NDArray a = NDArray::random(as, Float(32), 7, 0.5, 2);
  const std::vector<float> av = a.to_vector<float>();
  uint64_t seed = 8;
  for (const Case &k : cases) {
    const NDArray b = NDArray::random(k.bs, Float(32), seed++, 0.5, 2);
    const std::vector<float> bv = b.to_vector<float>();
    const int64_t axis = k.axis >= 0 ? k.axis : int64_t(as.size() - k.bs.size());
    for (const Op &op : ops) {
      for (bool known : {false, true}) {
        INFO(op.name << " of " << shape_str(as) << " and " << shape_str(k.bs) << " axis " << k.axis << " known "
                     << known);
        std::vector<double> want;
        size_t e = 0;
        for (const Shape &idx : indices(as))
          want.push_back(op.ref(av[e++], bv[size_t(legacy_offset(idx, k.bs, axis))]));
        const ModelBuilder mb = legacy_binary(op.name, as, b, 1, k.axis, known);
        std::map<std::string, NDArray> feed = {{"a", a}};
        if (!known) feed["b"] = b;
        const NDArray z = run(mb, feed).at(0);
        CHECK(z.shape() == as);
        check_close(z, want);
      }
    }
  }
  SECTION("comparisons and logic broadcast the same way") {
    const NDArray b = NDArray::random({3, 4}, Float(32), 20, 0.5, 2);
    const std::vector<float> bv = b.to_vector<float>();
    const NDArray z = run(legacy_binary("Greater", as, b, 1, 1, false, ::onnx::TensorProto::BOOL),
                          {{"a", a}, {"b", b}})
                          .at(0);
    const std::vector<uint8_t> got = z.to_vector<uint8_t>();
    size_t e = 0;
    for (const Shape &idx : indices(as)) {
      CHECK((got[e] != 0) == (av[e] > bv[size_t(legacy_offset(idx, {3, 4}, 1))]));
      ++e;
    }
  }
  SECTION("both operands known fold at import") {
    const NDArray b = NDArray::random({3, 1}, Float(32), 21, 0.5, 2);
    const std::vector<float> bv = b.to_vector<float>();
    ModelBuilder mb(6);
    mb.initializer("a", a);
    mb.initializer("b", b);
    auto &n = mb.node("Sub", {"a", "b"}, {"z"});
    attr(n, "broadcast", int64_t{1});
    attr(n, "axis", int64_t{1});
    mb.output("z");
    std::vector<double> want;
    size_t e = 0;
    for (const Shape &idx : indices(as)) want.push_back(double(av[e++]) - bv[size_t(legacy_offset(idx, {3, 1}, 1))]);
    check_close(run(mb, {}).at(0), want);
  }
}

TEST_CASE("converters: bad legacy broadcasts are errors naming the node", "[onnx][converters][legacy][error]") {
  const Shape as = {2, 3, 4};
  auto import = [&](const Shape &bs, int64_t broadcast, int64_t axis) {
    return tonnx::import_bytes(legacy_binary("Add", as, NDArray::empty(bs, Float(32)), broadcast, axis, false).bytes());
  };
  REQUIRE_THROWS_WITH(import({4}, 0, -1), Contains("node 'legacy' (Add)") && Contains("broadcast is not set"));
  REQUIRE_THROWS_WITH(import({3}, 1, -1), Contains("B does not match A from axis 2"));
  REQUIRE_THROWS_WITH(import({3, 4}, 1, 2), Contains("B does not fit in A from axis 2"));
  REQUIRE_THROWS_WITH(import({1, 2, 3, 4}, 1, -1), Contains("B has more dimensions than A"));
  REQUIRE_NOTHROW(import({2, 3, 4}, 0, -1));
}

TEST_CASE("converters: BatchNormalization before opset 7 in test mode", "[onnx][converters][legacy]") {
  const int64_t n = 2, c = 3, h = 4, w = 5;
  const NDArray x = NDArray::random({n, c, h, w}, Float(32), 31, -2, 2);
  const NDArray scale = NDArray::random({c}, Float(32), 32, 0.5, 1.5), bias = NDArray::random({c}, Float(32), 33);
  const NDArray mean = NDArray::random({c}, Float(32), 34), var = NDArray::random({c}, Float(32), 35, 0.1, 2);
  const std::vector<float> xv = x.to_vector<float>(), sv = scale.to_vector<float>(), bv = bias.to_vector<float>(),
                           mv = mean.to_vector<float>(), vv = var.to_vector<float>();
  const float eps = 1e-3f;
  std::vector<double> want;
  for (int64_t b = 0; b < n; ++b)
    for (int64_t ch = 0; ch < c; ++ch)
      for (int64_t k = 0; k < h * w; ++k) {
        const double v = xv[size_t((b * c + ch) * h * w + k)];
        const size_t i = size_t(ch);
        want.push_back((v - mv[i]) / std::sqrt(double(vv[i]) + eps) * sv[i] + bv[i]);
      }
  auto model = [&](int64_t opset, int64_t is_test, bool computed_params) {
    ModelBuilder mb(opset);
    mb.input("x", dims({n, c, h, w}));
    const std::vector<std::pair<std::string, NDArray>> params = {
        {"scale", scale}, {"bias", bias}, {"mean", mean}, {"var", var}};
    for (const auto &[name, value] : params) {
      if (computed_params)
        mb.input(name, dims({c}));
      else
        mb.initializer(name, value);
    }
    auto &node = mb.node("BatchNormalization", {"x", "scale", "bias", "mean", "var"}, {"y"}, "bn");
    attr(node, "epsilon", eps);
    attr(node, "momentum", 0.9f);
    attr(node, "is_test", is_test);
    if (opset < 6) attr(node, "consumed_inputs", Shape{0, 0, 0, 1, 1});
    mb.output("y");
    return mb;
  };
  for (int64_t opset : {1, 6}) {
    for (bool computed : {false, true}) {
      INFO("opset " << opset << " parameters computed " << computed);
      std::map<std::string, NDArray> feed = {{"x", x}};
      if (computed) feed.insert({{"scale", scale}, {"bias", bias}, {"mean", mean}, {"var", var}});
      check_close(run(model(opset, 1, computed), feed).at(0), want);
    }
  }
  // Without is_test the node normalizes by the batch's own statistics (training).
  REQUIRE_THROWS_WITH(tonnx::import_bytes(model(6, 0, false).bytes()),
                      Contains("node 'bn' (BatchNormalization): is_test = 0 (training mode) is not supported"));
  const tonnx::ModelInfo info = [&] {
    const std::string path = (std::filesystem::temp_directory_path() / "tensorir_legacy_bn.onnx").string();
    std::ofstream(path, std::ios::binary) << model(6, 0, false).bytes();
    return tonnx::inspect(path);
  }();
  REQUIRE(info.unsupported.size() == 1);
  CHECK(info.unsupported[0].reason == "is_test = 0 (training mode) is not supported");
}

TEST_CASE("converters: the attribute forms of opsets before 7", "[onnx][converters][legacy]") {
  const NDArray x = NDArray::random({2, 3}, Float(32), 41, -3, 3);
  const std::vector<float> xv = x.to_vector<float>();
  SECTION("Reshape 1 takes the shape as an attribute") {
    ModelBuilder mb(4);
    mb.input("x", dims({2, 3}));
    attr(mb.node("Reshape", {"x"}, {"y"}), "shape", Shape{3, -1});
    mb.output("y");
    const NDArray y = run(mb, {{"x", x}}).at(0);
    CHECK(y.shape() == Shape{3, 2});
    check_close(y, xv);
  }
  SECTION("Concat before 4 joins along axis 1 by default") {
    const NDArray b = NDArray::random({2, 2}, Float(32), 42);
    const std::vector<float> bv = b.to_vector<float>();
    ModelBuilder mb(3);
    mb.input("x", dims({2, 3}));
    mb.input("b", dims({2, 2}));
    mb.node("Concat", {"x", "b"}, {"y"});
    mb.output("y");
    std::vector<double> want;
    for (size_t r = 0; r < 2; ++r) {
      for (size_t k = 0; k < 3; ++k) want.push_back(xv[r * 3 + k]);
      for (size_t k = 0; k < 2; ++k) want.push_back(bv[r * 2 + k]);
    }
    check_close(run(mb, {{"x", x}, {"b", b}}).at(0), want);
  }
  SECTION("Pad 1 reads paddings") {
    ModelBuilder mb(1);
    mb.input("x", dims({2, 3}));
    auto &n = mb.node("Pad", {"x"}, {"y"});
    attr(n, "paddings", Shape{0, 1, 1, 2});
    attr(n, "value", 1.5f);
    mb.output("y");
    std::vector<double> want;
    for (int64_t r = 0; r < 3; ++r)
      for (int64_t k = -1; k < 5; ++k) want.push_back(r < 2 && k >= 0 && k < 3 ? xv[size_t(r * 3 + k)] : 1.5);
    const NDArray y = run(mb, {{"x", x}}).at(0);
    CHECK(y.shape() == Shape{3, 6});
    check_close(y, want);
  }
  SECTION("Split 1 takes the sizes as an input") {
    ModelBuilder mb(1);
    mb.input("x", dims({2, 3}));
    mb.initializer("sizes", NDArray::from_vector<float>({1, 2}, {2}));
    attr(mb.node("Split", {"x", "sizes"}, {"p", "q"}), "axis", int64_t{1});
    mb.output("p");
    mb.output("q");
    const graph::Outputs out = run(mb, {{"x", x}});
    check_close(out.at(0), {xv[0], xv[3]});
    check_close(out.at(1), {xv[1], xv[2], xv[4], xv[5]});
    ModelBuilder bad(1);
    bad.input("x", dims({2, 3}));
    bad.initializer("sizes", NDArray::from_vector<float>({1.5f, 1.5f}, {2}));
    attr(bad.node("Split", {"x", "sizes"}, {"p", "q"}), "axis", int64_t{1});
    bad.output("p");
    bad.output("q");
    REQUIRE_THROWS_WITH(tonnx::import_bytes(bad.bytes()),
                        Contains("split 'sizes' holds 1.5, which is not a whole number"));
  }
  SECTION("Tile 1 repeats along one axis") {
    ModelBuilder mb(5);
    mb.input("x", dims({2, 3}));
    mb.initializer("tiles", NDArray::from_vector<int64_t>({2}, {}));
    mb.initializer("axis", NDArray::from_vector<int64_t>({1}, {}));
    mb.node("Tile", {"x", "tiles", "axis"}, {"y"});
    mb.output("y");
    std::vector<double> want;
    for (size_t r = 0; r < 2; ++r)
      for (size_t k = 0; k < 6; ++k) want.push_back(xv[r * 3 + k % 3]);
    check_close(run(mb, {{"x", x}}).at(0), want);
  }
  SECTION("Cast 1 names the type") {
    ModelBuilder mb(5);
    mb.input("x", dims({2, 3}));
    attr(mb.node("Cast", {"x"}, {"y"}), "to", std::string("INT32"));
    mb.output("y", {}, ::onnx::TensorProto::INT32);
    std::vector<int32_t> want;
    for (float v : xv) want.push_back(int32_t(std::trunc(v)));
    CHECK(run(mb, {{"x", x}}).at(0).to_vector<int32_t>() == want);
    ModelBuilder bad(5);
    bad.input("x", dims({2, 3}));
    attr(bad.node("Cast", {"x"}, {"y"}), "to", std::string("REAL"));
    bad.output("y");
    REQUIRE_THROWS_WITH(tonnx::import_bytes(bad.bytes()), Contains("to 'REAL' is not a type"));
  }
  SECTION("Selu before 6 has defaults of 5 digits") {
    ModelBuilder mb(5);
    mb.input("x", dims({2, 3}));
    mb.node("Selu", {"x"}, {"y"});
    mb.output("y");
    std::vector<double> want;
    for (float v : xv) want.push_back(1.0507f * (v > 0 ? v : 1.6732f * (std::exp(v) - 1)));
    check_close(run(mb, {{"x", x}}).at(0), want);
  }
}

TEST_CASE("converters: Upsample 1, PRelu 6, Gemm 6 and InstanceNormalization", "[onnx][converters][legacy]") {
  SECTION("Upsample 1 scales height and width") {
    const NDArray x = NDArray::random({1, 2, 2, 3}, Float(32), 51);
    const std::vector<float> xv = x.to_vector<float>();
    ModelBuilder mb(1);
    mb.input("x", dims({1, 2, 2, 3}));
    auto &n = mb.node("Upsample", {"x"}, {"y"});
    attr(n, "height_scale", 2.0f);
    attr(n, "width_scale", 3.0f);
    mb.output("y");
    std::vector<double> want;
    for (size_t ch = 0; ch < 2; ++ch)
      for (size_t h = 0; h < 4; ++h)
        for (size_t w = 0; w < 9; ++w) want.push_back(xv[(ch * 2 + h / 2) * 3 + w / 3]);
    const NDArray y = run(mb, {{"x", x}}).at(0);
    CHECK(y.shape() == Shape{1, 2, 4, 9});
    check_close(y, want);
  }
  SECTION("PRelu 6 has a slope per channel") {
    const NDArray x = NDArray::random({2, 3, 4}, Float(32), 52), s = NDArray::random({3}, Float(32), 53);
    const std::vector<float> xv = x.to_vector<float>(), sv = s.to_vector<float>();
    for (bool known : {false, true}) {
      ModelBuilder mb(6);
      mb.input("x", dims({2, 3, 4}));
      if (known)
        mb.initializer("s", s);
      else
        mb.input("s", dims({3}));
      mb.node("PRelu", {"x", "s"}, {"y"});
      mb.output("y");
      std::vector<double> want;
      for (size_t e = 0; e < xv.size(); ++e) want.push_back(xv[e] >= 0 ? xv[e] : sv[e / 4 % 3] * xv[e]);
      std::map<std::string, NDArray> feed = {{"x", x}};
      if (!known) feed["s"] = s;
      check_close(run(mb, feed).at(0), want);
    }
  }
  SECTION("Gemm 6 broadcasts C only when asked") {
    const NDArray a = NDArray::random({2, 3}, Float(32), 54), b = NDArray::random({3, 4}, Float(32), 55);
    const NDArray cv = NDArray::random({4}, Float(32), 56);
    const std::vector<float> av = a.to_vector<float>(), bv = b.to_vector<float>(), cvv = cv.to_vector<float>();
    auto model = [&](int64_t broadcast) {
      ModelBuilder mb(6);
      mb.input("a", dims({2, 3}));
      mb.input("b", dims({3, 4}));
      mb.input("c", dims({4}));
      auto &n = mb.node("Gemm", {"a", "b", "c"}, {"y"}, "fc");
      attr(n, "broadcast", broadcast);
      attr(n, "beta", 0.5f);
      mb.output("y");
      return mb;
    };
    std::vector<double> want;
    for (size_t i = 0; i < 2; ++i)
      for (size_t j = 0; j < 4; ++j) {
        double acc = 0.5 * cvv[j];
        for (size_t k = 0; k < 3; ++k) acc += double(av[i * 3 + k]) * bv[k * 4 + j];
        want.push_back(acc);
      }
    check_close(run(model(1), {{"a", a}, {"b", b}, {"c", cv}}).at(0), want);
    REQUIRE_THROWS_WITH(tonnx::import_bytes(model(0).bytes()),
                        Contains("node 'fc' (Gemm)") && Contains("broadcast is not set"));
  }
  SECTION("InstanceNormalization normalizes each instance and channel") {
    const int64_t n = 2, c = 3, hw = 6;
    const NDArray x = NDArray::random({n, c, 2, 3}, Float(32), 57, -2, 2);
    const NDArray scale = NDArray::random({c}, Float(32), 58), bias = NDArray::random({c}, Float(32), 59);
    const std::vector<float> xv = x.to_vector<float>(), sv = scale.to_vector<float>(), bv = bias.to_vector<float>();
    ModelBuilder mb(6);
    mb.input("x", dims({n, c, 2, 3}));
    mb.initializer("scale", scale);
    mb.input("bias", dims({c}));
    attr(mb.node("InstanceNormalization", {"x", "scale", "bias"}, {"y"}), "epsilon", 1e-2f);
    mb.output("y");
    std::vector<double> want;
    for (int64_t i = 0; i < n * c; ++i) {
      double mean = 0, var = 0;
      for (int64_t k = 0; k < hw; ++k) mean += xv[size_t(i * hw + k)] / double(hw);
      for (int64_t k = 0; k < hw; ++k) var += std::pow(xv[size_t(i * hw + k)] - mean, 2) / double(hw);
      for (int64_t k = 0; k < hw; ++k)
        want.push_back((xv[size_t(i * hw + k)] - mean) / std::sqrt(var + 1e-2) * sv[size_t(i % c)] + bv[size_t(i % c)]);
    }
    check_close(run(mb, {{"x", x}, {"bias", bias}}).at(0), want);
  }
}

TEST_CASE("converters: Dropout and the variadic operators before opsets 7 and 8", "[onnx][converters][legacy][error]") {
  const NDArray x = NDArray::random({2, 3}, Float(32), 61);
  auto dropout = [](int64_t is_test, bool mask) {
    ModelBuilder mb(6);
    mb.input("x", dims({2, 3}));
    std::vector<std::string> out = {"y"};
    if (mask) out.push_back("m");
    attr(mb.node("Dropout", {"x"}, out, "drop"), "is_test", is_test);
    mb.output("y");
    if (mask) mb.output("m");
    return mb;
  };
  check_close(run(dropout(1, false), {{"x", x}}).at(0), x.to_vector<float>());
  REQUIRE_THROWS_WITH(tonnx::import_bytes(dropout(0, false).bytes()),
                      Contains("node 'drop' (Dropout): is_test = 0 (training mode) is not supported"));
  REQUIRE_THROWS_WITH(tonnx::import_bytes(dropout(1, true).bytes()),
                      Contains("the mask output, which test mode does not set"));
  // From opset 7 the mask is all ones, in the input's type until opset 10.
  for (int64_t opset : {7, 10}) {
    ModelBuilder mb(opset);
    mb.input("x", dims({2, 3}));
    mb.node("Dropout", {"x"}, {"y", "m"});
    mb.output("y");
    mb.output("m", {}, opset < 10 ? ::onnx::TensorProto::FLOAT : ::onnx::TensorProto::BOOL);
    const NDArray m = run(mb, {{"x", x}}).at(1);
    CHECK(m.dtype() == (opset < 10 ? Float(32) : Bool()));
    CHECK(m.shape() == Shape{2, 3});
    if (opset < 10) check_close(m, std::vector<double>(6, 1.0));
  }
  // Sum broadcasts from opset 8 only.
  for (int64_t opset : {6, 8}) {
    ModelBuilder mb(opset);
    mb.input("x", dims({2, 3}));
    mb.input("b", dims({3}));
    mb.node("Sum", {"x", "b"}, {"y"}, "sum");
    mb.output("y");
    if (opset < 8)
      REQUIRE_THROWS_WITH(tonnx::import_bytes(mb.bytes()), Contains("node 'sum' (Sum)") && Contains("differ in shape"));
    else
      REQUIRE_NOTHROW(tonnx::import_bytes(mb.bytes()));
  }
}
