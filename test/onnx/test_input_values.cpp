// ImportOptions::input_values: graph inputs fixed at import become constants, so that
// nodes needing their values (shapes, axes, bounds) convert; bad values are Errors.
#include <tensorir/frontend/onnx.h>
#include <tensorir/graph/executor.h>

#include "onnx/onnx_test_util.h"

using namespace tensorir;
using namespace tensorir::onnx_test;
using Catch::Matchers::Contains;
namespace tonnx = tensorir::onnx;

namespace {

// y = Reshape(x, s) + b with the target shape s a graph input, and a Slice whose starts
// are another.
ModelBuilder reshape_slice_model() {
  ModelBuilder mb(13);
  mb.input("x", {int64_t{2}, int64_t{6}});
  mb.input("s", {int64_t{2}}, ::onnx::TensorProto::INT64);
  mb.input("starts", {int64_t{1}}, ::onnx::TensorProto::INT64);
  mb.initializer("ends", NDArray::from_vector<int64_t>({4}, {1}));
  mb.initializer("axes", NDArray::from_vector<int64_t>({1}, {1}));
  mb.node("Reshape", {"x", "s"}, {"r"}, "view");
  mb.node("Slice", {"r", "starts", "ends", "axes"}, {"y"}, "cut");
  mb.output("y");
  return mb;
}

}  // namespace

TEST_CASE("input_values: fixed inputs become constants and the graph no longer takes them", "[onnx]") {
  const ModelBuilder mb = reshape_slice_model();
  // Without the values: the Reshape needs s (the Slice reading its result is not checked).
  try {
    tonnx::import_bytes(mb.bytes());
    FAIL("imported without the shape");
  } catch (const tonnx::UnsupportedError &e) {
    REQUIRE(e.nodes().size() >= 1);
    CHECK(e.nodes()[0].input == "s");
  }
  tonnx::ImportOptions opt;
  opt.input_values["s"] = NDArray::from_vector<int64_t>({3, 4}, {2});
  try {
    tonnx::import_bytes(mb.bytes(), opt);
    FAIL("imported without starts");
  } catch (const tonnx::UnsupportedError &e) {
    REQUIRE(e.nodes().size() == 1);
    CHECK(e.nodes()[0].node == "cut");
    CHECK(e.nodes()[0].input == "starts");
  }
  opt.input_values["starts"] = NDArray::from_vector<int64_t>({1}, {1});
  const graph::Graph g = tonnx::import_bytes(mb.bytes(), opt);
  REQUIRE(g.input_ids().size() == 1);
  CHECK(g.node(g.input_ids()[0]).name == "x");
  const NDArray x = NDArray::random({2, 6}, Float(32), 7);
  const NDArray y = graph::build(g, "llvm").run({{"x", x}});
  REQUIRE(y.shape() == std::vector<int64_t>{3, 3});
  // x viewed as 3x4, columns 1 to 3.
  const std::vector<float> xv = x.to_vector<float>();
  std::vector<double> want;
  for (int i = 0; i < 3; ++i)
    for (int j = 1; j < 4; ++j) want.push_back(xv[size_t(i * 4 + j)]);
  check_close(y, want, 0, 0);
}

TEST_CASE("input_values: values that do not fit the input are Errors naming it", "[onnx][error]") {
  const std::string bytes = reshape_slice_model().bytes();
  auto import_with = [&](const std::string &name, const NDArray &v) {
    tonnx::ImportOptions opt;
    opt.input_values[name] = v;
    tonnx::import_bytes(bytes, opt);
  };
  REQUIRE_THROWS_WITH(import_with("shape", NDArray::from_vector<int64_t>({3, 4}, {2})),
                      Contains("ImportOptions::input_values (tensorir --input-value) names 'shape', which is not an input of the model "
                               "(its inputs: 'x', 's', 'starts')"));
  REQUIRE_THROWS_WITH(import_with("s", NDArray::from_vector<int32_t>({3, 4}, {2})),
                      Contains("input 's' is int64 but the value given in ImportOptions::input_values (tensorir --input-value or "
                               "--input) is int32"));
  REQUIRE_THROWS_WITH(import_with("s", NDArray::from_vector<int64_t>({3, 4, 1}, {3})),
                      Contains("input 's': the value given in ImportOptions::input_values (tensorir --input-value or --input) has "
                               "shape [3], which "
                               "does not fit the input's shape in the model"));
  REQUIRE_THROWS_WITH(import_with("ends", NDArray::from_vector<int64_t>({4}, {1})),
                      Contains("names 'ends', which is not an input of the model"));
  tonnx::ImportOptions both;
  both.input_values["s"] = NDArray::from_vector<int64_t>({3, 4}, {2});
  both.input_shapes["s"] = {2};
  REQUIRE_THROWS_WITH(tonnx::import_bytes(bytes, both), Contains("is given both a shape (input_shapes, tensorir --input-shape) and a value"));
}
