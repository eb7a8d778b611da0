// Shape arithmetic that reaches a converter needing a value known at import (pads, a
// shape) through operators the importer does not compute on the host (Mod, Ceil, TopK):
// computed at import from the constants it depends on, against the same shapes worked
// out here; computed from a graph input's data, it is still refused.
#include <tensorir/frontend/onnx.h>
#include <tensorir/graph/executor.h>

#include <string>
#include <vector>

#include "onnx/onnx_test_util.h"

using namespace tensorir;
using Catch::Matchers::Contains;
using onnx_test::attr;
using onnx_test::ModelBuilder;
using onnx_test::run;
namespace tonnx = tensorir::onnx;

namespace {

NDArray ints(const std::vector<int64_t> &v, const std::vector<int64_t> &shape) {
  return NDArray::from_vector<int64_t>(v, shape);
}

}  // namespace

TEST_CASE("import: pads computed from the input's shape through Mod pad a length to a multiple",
          "[onnx][import][fold]") {
  // As Swin and tf2onnx's FloorMod write it: pad = (w - L % w) % w, along axis 1.
  for (const int64_t length : {13, 16, 1}) {
    INFO("length " << length);
    ModelBuilder mb(13);
    mb.input("x", {int64_t{1}, length, int64_t{4}});
    mb.initializer("one", ints({1}, {}));
    mb.initializer("w", ints({8}, {}));
    mb.initializer("before", ints({0, 0, 0, 0}, {4}));
    mb.initializer("after", ints({0}, {1}));
    mb.initializer("axes", ints({0}, {1}));
    mb.node("Shape", {"x"}, {"s"});
    mb.node("Gather", {"s", "one"}, {"L"});
    mb.node("Mod", {"L", "w"}, {"r0"});
    mb.node("Sub", {"w", "r0"}, {"r1"});
    mb.node("Mod", {"r1", "w"}, {"r"});
    mb.node("Unsqueeze", {"r", "axes"}, {"ru"});
    attr(mb.node("Concat", {"before", "ru", "after"}, {"pads"}), "axis", int64_t{0});
    mb.node("Pad", {"x", "pads"}, {"y"});
    mb.output("y");
    const NDArray x = NDArray::random({1, length, 4}, Float(32), 3);
    const NDArray y = run(mb, {{"x", x}}).at(0);
    const int64_t padded = (length + 7) / 8 * 8;
    REQUIRE(y.shape() == std::vector<int64_t>{1, padded, 4});
    const std::vector<float> xv = x.to_vector<float>(), yv = y.to_vector<float>();
    for (int64_t i = 0; i < padded * 4; ++i) CHECK(yv[size_t(i)] == (i < length * 4 ? xv[size_t(i)] : 0.0f));
  }
}

TEST_CASE("import: a Reshape's shape computed through Ceil and TopK of constants is known at import",
          "[onnx][import][fold]") {
  // rows = ceil(numel / 6) from float arithmetic; cols from the largest of a constant
  // list (TopK): [2, 6] ... -> [rows, cols] = [2, 6] for 12 elements.
  ModelBuilder mb(13);
  mb.input("x", {int64_t{3}, int64_t{4}});
  mb.initializer("six", NDArray::from_vector<float>({6.0f}, {1}));
  mb.initializer("choices", ints({4, 6, 3}, {3}));
  mb.initializer("k", ints({1}, {1}));
  mb.node("Size", {"x"}, {"n"});
  attr(mb.node("Cast", {"n"}, {"nf"}), "to", int64_t{::onnx::TensorProto::FLOAT});
  mb.node("Div", {"nf", "six"}, {"q"});
  mb.node("Ceil", {"q"}, {"qc"});
  attr(mb.node("Cast", {"qc"}, {"rows"}), "to", int64_t{::onnx::TensorProto::INT64});
  mb.node("TopK", {"choices", "k"}, {"cols", "where"});
  attr(mb.node("Concat", {"rows", "cols"}, {"shape"}), "axis", int64_t{0});
  mb.node("Reshape", {"x", "shape"}, {"y"});
  mb.output("y");
  const NDArray x = NDArray::random({3, 4}, Float(32), 5);
  const NDArray y = run(mb, {{"x", x}}).at(0);
  REQUIRE(y.shape() == std::vector<int64_t>{2, 6});
  CHECK(y.to_vector<float>() == x.to_vector<float>());
}

TEST_CASE("import: a shape computed from an input's values is still refused", "[onnx][import][fold]") {
  ModelBuilder mb(13);
  mb.input("x", {int64_t{12}});
  mb.input("n", {int64_t{2}}, ::onnx::TensorProto::INT64);
  mb.initializer("two", ints({2}, {}));
  mb.node("Mod", {"n", "two"}, {"m"});
  mb.node("Reshape", {"x", "m"}, {"y"});
  mb.output("y");
  REQUIRE_THROWS_WITH(tonnx::import_bytes(mb.bytes()), Contains("'m' is computed at run time"));
}

TEST_CASE("import: a shape whose computation from constants fails at import is refused, naming why",
          "[onnx][import][fold]") {
  // ScatterElements (no host folding) of constants with an index out of range: the run at
  // import fails, and the Reshape is refused with the other nodes, not as a crash of the import.
  ModelBuilder mb(13);
  mb.input("x", {int64_t{12}});
  mb.initializer("d", ints({3, 4}, {2}));
  mb.initializer("i", ints({5}, {1}));
  mb.initializer("u", ints({6}, {1}));
  mb.node("ScatterElements", {"d", "i", "u"}, {"shape"});
  mb.node("Reshape", {"x", "shape"}, {"y"});
  mb.output("y");
  try {
    tonnx::import_bytes(mb.bytes());
    FAIL("the import succeeded");
  } catch (const tonnx::UnsupportedError &e) {
    REQUIRE(e.nodes().size() == 1);
    CHECK_THAT(e.nodes()[0].reason, Contains("shape 'shape' is computed from constants, but computing it at import failed") &&
                                        Contains("outside [-2, 2)"));
  }
}
