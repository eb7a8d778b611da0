// Converters of the reductions (axes as an attribute or, from ReduceSum 13, an input;
// noop_with_empty_axes), ArgMax/ArgMin, the comparisons and logic, Where, MatMul with
// batched operands computed at run time, and LayerNormalization with its Mean and
// InvStdDev outputs, on models built here, against plain loops.
#include <tensorir/frontend/onnx.h>
#include <tensorir/graph/executor.h>

#include <cmath>

#include "onnx/onnx_test_util.h"

using namespace tensorir;
using Catch::Matchers::Contains;
using onnx_test::attr;
using onnx_test::Dim;
using onnx_test::dims;
using onnx_test::ModelBuilder;
using onnx_test::check_close;
using onnx_test::run;
namespace tonnx = tensorir::onnx;

TEST_CASE("converters: reductions with axes as attribute or input", "[onnx][converters]") {
  const NDArray x = NDArray::random({2, 3, 4}, Float(32), 1, 0.5, 1.5);
  const std::vector<float> xv = x.to_vector<float>();
  // Sums over axis 1: [2, 4], or [2, 1, 4] kept.
  std::vector<float> sum1(8, 0.0f), max_all = {-1e30f}, mean02(3, 0.0f);
  for (size_t e = 0; e < xv.size(); ++e) {
    sum1[e / 12 * 4 + e % 4] += xv[e];
    max_all[0] = std::max(max_all[0], xv[e]);
    mean02[e / 4 % 3] += xv[e] / 8;
  }
  {  // ReduceSum 13: axes an input, known at import.
    ModelBuilder mb(13);
    mb.input("x", dims({2, 3, 4}));
    mb.initializer("axes", NDArray::from_vector<int64_t>({-2}, {1}));
    attr(mb.node("ReduceSum", {"x", "axes"}, {"y"}), "keepdims", int64_t{0});
    mb.output("y");
    const NDArray y = run(mb, {{"x", x}}).at(0);
    CHECK(y.shape() == std::vector<int64_t>{2, 4});
    check_close(y, sum1);
  }
  {  // ReduceSum 11: axes an attribute; keepdims by default.
    ModelBuilder mb(11);
    mb.input("x", dims({2, 3, 4}));
    attr(mb.node("ReduceSum", {"x"}, {"y"}), "axes", std::vector<int64_t>{1});
    mb.output("y");
    const NDArray y = run(mb, {{"x", x}}).at(0);
    CHECK(y.shape() == std::vector<int64_t>{2, 1, 4});
    check_close(y, sum1);
  }
  {  // ReduceSum 13 without axes: all of them, or the identity with noop_with_empty_axes.
    for (int64_t noop : {0, 1}) {
      ModelBuilder mb(13);
      mb.input("x", dims({2, 3, 4}));
      attr(mb.node("ReduceSum", {"x"}, {"y"}), "noop_with_empty_axes", noop);
      mb.output("y");
      const NDArray y = run(mb, {{"x", x}}).at(0);
      if (noop) {
        check_close(y, xv);
      } else {
        CHECK(y.shape() == std::vector<int64_t>{1, 1, 1});
        double s = 0;
        for (float v : xv) s += v;
        check_close(y, {float(s)});
      }
    }
  }
  {  // ReduceMax over every axis without keepdims: a scalar; ReduceMean over two axes.
    ModelBuilder mb(17);
    mb.input("x", dims({2, 3, 4}));
    attr(mb.node("ReduceMax", {"x"}, {"m"}), "keepdims", int64_t{0});
    auto &mean = mb.node("ReduceMean", {"x"}, {"a"});
    attr(mean, "axes", std::vector<int64_t>{0, -1});
    attr(mean, "keepdims", int64_t{0});
    mb.output("m");
    mb.output("a");
    const graph::Outputs out = run(mb, {{"x", x}});
    CHECK(out.at(0).shape().empty());
    check_close(out.at(0), max_all);
    CHECK(out.at(1).shape() == std::vector<int64_t>{3});
    check_close(out.at(1), mean02);
  }
  {  // Axes computed at run time cannot be imported.
    ModelBuilder mb(13);
    mb.input("x", dims({2, 3, 4}));
    mb.input("axes", {int64_t{1}}, ::onnx::TensorProto::INT64);
    mb.node("ReduceSum", {"x", "axes"}, {"y"});
    mb.output("y");
    REQUIRE_THROWS_AS(tonnx::import_bytes(mb.bytes()), tonnx::UnsupportedError);
  }
}

TEST_CASE("converters: ArgMax and ArgMin give int64 indices", "[onnx][converters]") {
  const NDArray x = NDArray::from_vector<float>({1, 3, 3, 0, 2, 2, 5, 5, 0}, {3, 3});
  ModelBuilder mb(13);
  mb.input("x", dims({3, 3}));
  auto &amax = mb.node("ArgMax", {"x"}, {"a"});
  attr(amax, "axis", int64_t{1});
  attr(amax, "keepdims", int64_t{0});
  auto &amax_last = mb.node("ArgMax", {"x"}, {"b"});
  attr(amax_last, "axis", int64_t{-1});
  attr(amax_last, "select_last_index", int64_t{1});
  mb.node("ArgMin", {"x"}, {"c"});  // axis 0, keepdims
  mb.output("a", {}, ::onnx::TensorProto::INT64);
  mb.output("b", {}, ::onnx::TensorProto::INT64);
  mb.output("c", {}, ::onnx::TensorProto::INT64);
  const graph::Outputs out = run(mb, {{"x", x}});
  CHECK(out.at(0).to_vector<int64_t>() == std::vector<int64_t>{1, 1, 0});
  CHECK(out.at(1).shape() == std::vector<int64_t>{3, 1});
  CHECK(out.at(1).to_vector<int64_t>() == std::vector<int64_t>{2, 2, 1});
  CHECK(out.at(2).shape() == std::vector<int64_t>{1, 3});
  CHECK(out.at(2).to_vector<int64_t>() == std::vector<int64_t>{1, 1, 2});
}

TEST_CASE("converters: comparisons, logic and Where", "[onnx][converters]") {
  const NDArray a = NDArray::from_vector<float>({1, 2, 3, 4, 5, 6}, {2, 3});
  const NDArray b = NDArray::from_vector<float>({2, 2, 5}, {3});
  ModelBuilder mb(13);
  mb.input("a", dims({2, 3}));
  mb.input("b", dims({3}));
  mb.node("Greater", {"a", "b"}, {"gt"});
  mb.node("LessOrEqual", {"a", "b"}, {"le"});
  mb.node("Equal", {"a", "b"}, {"eq"});
  mb.node("Or", {"gt", "eq"}, {"ge"});
  mb.node("Not", {"ge"}, {"lt"});
  mb.node("Xor", {"lt", "le"}, {"x"});  // lt xor le is eq
  mb.node("Where", {"gt", "a", "b"}, {"m"});
  for (const char *o : {"le", "lt", "x"}) mb.output(o, {}, ::onnx::TensorProto::BOOL);
  mb.output("m");
  const graph::Outputs out = run(mb, {{"a", a}, {"b", b}});
  CHECK(out.at(0).to_vector<uint8_t>() == std::vector<uint8_t>{1, 1, 1, 0, 0, 0});
  CHECK(out.at(1).to_vector<uint8_t>() == std::vector<uint8_t>{1, 0, 1, 0, 0, 0});
  CHECK(out.at(2).to_vector<uint8_t>() == std::vector<uint8_t>{0, 1, 0, 0, 0, 0});
  check_close(out.at(3), {2, 2, 5, 4, 5, 6});

  // LessOrEqual came with opset 12.
  ModelBuilder old(11);
  old.input("a", dims({3}));
  old.node("LessOrEqual", {"a", "a"}, {"y"});
  old.output("y", {}, ::onnx::TensorProto::BOOL);
  REQUIRE_THROWS_AS(tonnx::import_bytes(old.bytes()), tonnx::UnsupportedError);
}

TEST_CASE("converters: comparisons and Where on known shapes fold at import", "[onnx][converters]") {
  // PyTorch's pattern: a target shape with -1 replaced through Equal and Where; the
  // Reshape needs it known.
  ModelBuilder mb(13);
  mb.input("x", dims({2, 3, 4}));
  mb.initializer("c", NDArray::from_vector<int64_t>({6, -1}, {2}));
  mb.initializer("minus_one", NDArray::from_vector<int64_t>({-1}, {}));
  mb.initializer("fill", NDArray::from_vector<int64_t>({0, 4}, {2}));
  mb.node("Equal", {"c", "minus_one"}, {"m"});
  mb.node("Not", {"m"}, {"n"});
  mb.node("Xor", {"n", "m"}, {"all"});  // true everywhere
  mb.node("And", {"all", "m"}, {"m2"});
  mb.node("Where", {"m2", "fill", "c"}, {"shape"});
  mb.node("Reshape", {"x", "shape"}, {"y"});
  mb.output("y");
  const NDArray x = NDArray::random({2, 3, 4}, Float(32), 3);
  const NDArray y = run(mb, {{"x", x}}).at(0);
  CHECK(y.shape() == std::vector<int64_t>{6, 4});
  check_close(y, x.to_vector<float>());
}

TEST_CASE("converters: reductions of known integers fold at import", "[onnx][converters]") {
  // The element count of a shape (ReduceProd of Shape) as the target of a Reshape, which
  // needs it known; and the sums, extremes and L1 of a known int32 matrix, as outputs.
  ModelBuilder mb(13);
  mb.input("x", dims({2, 3, 4}));
  mb.node("Shape", {"x"}, {"s"});
  mb.node("ReduceProd", {"s"}, {"n"});  // keepdims: [24]
  mb.node("Reshape", {"x", "n"}, {"y"});
  mb.initializer("k", NDArray::from_vector<int32_t>({3, -7, 2, 5, 0, -1}, {2, 3}));
  mb.initializer("axis1", NDArray::from_vector<int64_t>({1}, {1}));
  mb.node("ReduceSum", {"k", "axis1"}, {"sum"});
  attr(mb.node("ReduceMax", {"k"}, {"max"}), "keepdims", int64_t{0});
  attr(mb.node("ReduceMin", {"k"}, {"min"}), "axes", std::vector<int64_t>{0});
  attr(mb.node("ReduceL1", {"k"}, {"l1"}), "axes", std::vector<int64_t>{-1});
  attr(mb.node("ReduceSumSquare", {"k"}, {"sq"}), "axes", std::vector<int64_t>{0});
  mb.output("y");
  for (const char *o : {"sum", "max", "min", "l1", "sq"}) mb.output(o, {}, ::onnx::TensorProto::INT32);
  const NDArray x = NDArray::random({2, 3, 4}, Float(32), 4);
  const graph::Outputs out = run(mb, {{"x", x}});
  CHECK(out.at(0).shape() == std::vector<int64_t>{24});
  check_close(out.at(0), x.to_vector<float>());
  CHECK(out.at(1).shape() == std::vector<int64_t>{2, 1});
  CHECK(out.at(1).to_vector<int32_t>() == std::vector<int32_t>{-2, 4});
  CHECK(out.at(2).shape().empty());
  CHECK(out.at(2).to_vector<int32_t>() == std::vector<int32_t>{5});
  CHECK(out.at(3).to_vector<int32_t>() == std::vector<int32_t>{3, -7, -1});
  CHECK(out.at(4).to_vector<int32_t>() == std::vector<int32_t>{12, 6});
  CHECK(out.at(5).to_vector<int32_t>() == std::vector<int32_t>{34, 49, 5});
}

TEST_CASE("converters: what the reduction and logic converters refuse", "[onnx][converters]") {
  auto refuses = [](const std::string &op, int64_t opset, int32_t type, const std::string &why) {
    ModelBuilder mb(opset);
    mb.input("x", {int64_t{2}, int64_t{3}}, type);
    const size_t n = op == "Where" ? 3 : op == "And" || op == "LayerNormalization" ? 2 : 1;
    mb.node(op, std::vector<std::string>(n, "x"), {"y"});
    mb.output("y");
    INFO(op);
    REQUIRE_THROWS_WITH(tonnx::import_bytes(mb.bytes()), Contains(why));
  };
  refuses("ReduceMean", 13, ::onnx::TensorProto::INT64, "only float types");
  refuses("ReduceSum", 13, ::onnx::TensorProto::BOOL, "bool input");
  refuses("ArgMax", 13, ::onnx::TensorProto::BOOL, "bool input");
  refuses("And", 13, ::onnx::TensorProto::FLOAT, "not bool");
  refuses("Where", 13, ::onnx::TensorProto::FLOAT, "not bool");
  refuses("IsNaN", 13, ::onnx::TensorProto::INT64, "only float types");
  refuses("LayerNormalization", 16, ::onnx::TensorProto::FLOAT, "no converter");
  // Statistics in another type than float: refused by the attributes alone, by inspect too.
  ModelBuilder mb(17);
  mb.input("x", {int64_t{2}, int64_t{3}});
  attr(mb.node("LayerNormalization", {"x", "x"}, {"y"}), "stash_type", int64_t{11});
  mb.output("y");
  REQUIRE_THROWS_WITH(tonnx::import_bytes(mb.bytes()), Contains("stash_type"));
}

TEST_CASE("converters: batched MatMul of two computed operands", "[onnx][converters]") {
  const NDArray a = NDArray::random({2, 3, 4}, Float(32), 5), b = NDArray::random({1, 4, 5}, Float(32), 6),
                v = NDArray::random({4}, Float(32), 7);
  const std::vector<float> av = a.to_vector<float>(), bv = b.to_vector<float>(), vv = v.to_vector<float>();
  ModelBuilder mb(13);
  mb.input("a", dims({2, 3, 4}));
  mb.input("b", dims({1, 4, 5}));
  mb.input("v", dims({4}));
  mb.node("MatMul", {"a", "b"}, {"y"});
  mb.node("MatMul", {"v", "b"}, {"z"});  // a 1-D A: [4] x [1, 4, 5] -> [1, 5]
  mb.output("y");
  mb.output("z");
  const graph::Outputs out = run(mb, {{"a", a}, {"b", b}, {"v", v}});
  std::vector<float> want, wz;
  for (int p = 0; p < 2; ++p)
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 5; ++j) {
        float s = 0;
        for (int k = 0; k < 4; ++k) s += av[size_t((p * 3 + i) * 4 + k)] * bv[size_t(k * 5 + j)];
        want.push_back(s);
      }
  for (int j = 0; j < 5; ++j) {
    float s = 0;
    for (int k = 0; k < 4; ++k) s += vv[size_t(k)] * bv[size_t(k * 5 + j)];
    wz.push_back(s);
  }
  CHECK(out.at(0).shape() == std::vector<int64_t>{2, 3, 5});
  check_close(out.at(0), want);
  CHECK(out.at(1).shape() == std::vector<int64_t>{1, 5});
  check_close(out.at(1), wz);
}

TEST_CASE("converters: LayerNormalization with its Mean and InvStdDev", "[onnx][converters]") {
  const NDArray x = NDArray::random({2, 3, 4}, Float(32), 8, -2, 2), scale = NDArray::random({3, 4}, Float(32), 9);
  const std::vector<float> xv = x.to_vector<float>(), sv = scale.to_vector<float>();
  ModelBuilder mb(17);
  mb.input("x", dims({2, 3, 4}));
  mb.initializer("scale", scale);
  auto &n = mb.node("LayerNormalization", {"x", "scale"}, {"y", "mean", "inv"});
  attr(n, "axis", int64_t{1});
  attr(n, "epsilon", 1e-2f);
  mb.output("y");
  mb.output("mean");
  mb.output("inv");
  const graph::Outputs out = run(mb, {{"x", x}});
  std::vector<float> y(24), mean(2), inv(2);
  for (size_t r = 0; r < 2; ++r) {
    double m = 0, var = 0;
    for (size_t j = 0; j < 12; ++j) m += xv[r * 12 + j] / 12.0;
    for (size_t j = 0; j < 12; ++j) var += std::pow(xv[r * 12 + j] - m, 2) / 12.0;
    mean[r] = float(m);
    inv[r] = float(1 / std::sqrt(var + 1e-2));
    for (size_t j = 0; j < 12; ++j) y[r * 12 + j] = float((xv[r * 12 + j] - m) * inv[r] * sv[j]);
  }
  check_close(out.at(0), y);
  CHECK(out.at(1).shape() == std::vector<int64_t>{2, 1, 1});
  check_close(out.at(1), mean);
  check_close(out.at(2), inv);
}
