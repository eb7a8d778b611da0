// What the importer refuses, and that its messages name what is wrong: files that are
// not models, operators without a converter (every one named at once), opsets outside
// 1 to 22, missing external data, symbolic inputs without a shape, inputs of the wrong
// shape when the model runs, and sizes set by values (OneHot's depth, Range, pads,
// repeats) too large to compute.
#include <tensorir/frontend/onnx.h>
#include <tensorir/graph/executor.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "onnx/onnx_test_util.h"

using namespace tensorir;
using Catch::Matchers::Contains;
using onnx_test::attr;
using onnx_test::ModelBuilder;
using onnx_test::temp_dir;
namespace fs = std::filesystem;
namespace tonnx = tensorir::onnx;

namespace {

void write(const fs::path &p, const std::string &bytes) {
  std::ofstream f(p, std::ios::binary);
  f << bytes;
}

// x [1, 4] -> Relu -> y: a valid model to break.
ModelBuilder relu_model(int64_t opset = 13) {
  ModelBuilder mb(opset);
  mb.input("x", {int64_t{1}, int64_t{4}});
  mb.node("Relu", {"x"}, {"y"}, "act");
  mb.output("y");
  return mb;
}

}  // namespace

TEST_CASE("import errors: a truncated file names the file", "[onnx][error]") {
  const fs::path dir = temp_dir("truncated");
  ModelBuilder mb = relu_model();
  mb.initializer("w", NDArray::random({64, 64}, Float(32), 1));  // bulk, so the cut falls inside the graph
  const std::string bytes = mb.bytes();
  const std::string path = (dir / "cut.onnx").string();
  write(path, bytes.substr(0, bytes.size() / 2));
  REQUIRE_THROWS_WITH(tonnx::import(path), Contains("'" + path + "'") && Contains("truncated or corrupt"));
  REQUIRE_THROWS_WITH(tonnx::inspect(path), Contains("'" + path + "'"));
  REQUIRE_THROWS_WITH(tonnx::import((dir / "missing.onnx").string()),
                      Contains("cannot open model") && Contains("missing.onnx"));
  fs::remove_all(dir);
}

TEST_CASE("import errors: a path that is not a regular file is refused before it is read", "[onnx][error]") {
  // A directory, and a device that would never end (/dev/zero) or gives nothing (/dev/null).
  const fs::path dir = temp_dir("not_regular");
  REQUIRE_THROWS_WITH(tonnx::import(dir.string()), Contains("'" + dir.string() + "' is a directory"));
  REQUIRE_THROWS_WITH(tonnx::import("/dev/null"), Contains("'/dev/null' is not a regular file"));
  REQUIRE_THROWS_WITH(tonnx::read_tensor("/dev/zero"), Contains("'/dev/zero' is not a regular file"));
  fs::remove_all(dir);
}

TEST_CASE("tensor files: the element type declared, as inspect names a model's", "[onnx]") {
  // float16 data reads as float32 arrays; its declared type is still float16.
  const fs::path dir = "/usr/share/libonnx-testdata/data/node/test_cast_FLOAT16_to_DOUBLE";
  const tonnx::ModelInfo info = tonnx::inspect((dir / "model.onnx").string());
  const std::string in = (dir / "test_data_set_0" / "input_0.pb").string();
  const std::string out = (dir / "test_data_set_0" / "output_0.pb").string();
  CHECK(tonnx::read_tensor(in).dtype() == Float(32));
  CHECK(tonnx::tensor_file_type(in) == "float16");
  CHECK(tonnx::tensor_file_type(in) == info.inputs.at(0).dtype);
  CHECK(tonnx::tensor_file_type(out) == "float64");
  CHECK(tonnx::tensor_file_type(out) == info.outputs.at(0).dtype);
  REQUIRE_THROWS_WITH(tonnx::tensor_file_type("/dev/zero"), Contains("not a regular file"));
}

TEST_CASE("import errors: bytes that are not a model", "[onnx][error]") {
  REQUIRE_THROWS_AS(tonnx::import_bytes("this is not a model"), Error);
  REQUIRE_THROWS_WITH(tonnx::import_bytes(std::string("\x08\x07\x12\xff\xff", 5)), Contains("not a valid ONNX model"));
  REQUIRE_THROWS_WITH(tonnx::import_bytes(""), Contains("not an ONNX model (no graph)"));
  // A well-formed TensorProto is a protobuf, but not a model.
  REQUIRE_THROWS_WITH(
      tonnx::import_bytes(onnx_test::tensor_proto("t", NDArray::from_vector<float>({1}, {1})).SerializeAsString()),
      Contains("not"));
}

TEST_CASE("import errors: unknown operators are all named, with their nodes", "[onnx][error]") {
  ModelBuilder mb(13);
  mb.input("x", {int64_t{1}, int64_t{4}});
  mb.node("Frobnicate", {"x"}, {"a"}, "first_odd");
  mb.node("Relu", {"a"}, {"b"});
  mb.node("Twiddle", {"b"}, {"y"});  // unnamed: its output names it
  mb.output("y");
  try {
    tonnx::import_bytes(mb.bytes());
    FAIL("import accepted unknown operators");
  } catch (const tonnx::UnsupportedError &e) {
    const std::string msg = e.what();
    CHECK_THAT(msg, Contains("2 nodes cannot be imported"));
    CHECK_THAT(msg, Contains("node 'first_odd' (Frobnicate): no converter for this operator"));
    CHECK_THAT(msg, Contains("node 'y' (Twiddle): no converter for this operator"));
    REQUIRE(e.nodes().size() == 2);
    CHECK(e.nodes()[0].node == "first_odd");
    CHECK(e.nodes()[1].op == "Twiddle");
  }
  // An operator whose converter refuses the node at conversion: Reshape with a computed shape.
  ModelBuilder dyn(13);
  dyn.input("x", {int64_t{2}, int64_t{3}});
  dyn.input("s", {int64_t{1}}, ::onnx::TensorProto::INT64);
  dyn.node("Reshape", {"x", "s"}, {"y"}, "view");
  dyn.output("y");
  try {
    tonnx::import_bytes(dyn.bytes());
    FAIL("a Reshape to a computed shape was imported");
  } catch (const tonnx::UnsupportedError &e) {
    CHECK_THAT(std::string(e.what()), Contains("node 'view' (Reshape): shape 's' is a graph input; it must be known "
                                               "at import: fix its value with ImportOptions::input_values"));
    REQUIRE(e.nodes().size() == 1);
    CHECK(e.nodes()[0].input == "s");
  }
}

TEST_CASE("import errors: opsets outside 1 to 22 and other domains", "[onnx][error]") {
  for (int64_t opset : {0, 23}) {
    CAPTURE(opset);
    REQUIRE_THROWS_WITH(tonnx::import_bytes(relu_model(opset).bytes()),
                        Contains("ai.onnx opset " + std::to_string(opset) + " is not supported (ai.onnx 1 to 22)"));
  }
  for (int64_t opset : {1, 6, 7, 17, 18, 19, 22}) REQUIRE_NOTHROW(tonnx::import_bytes(relu_model(opset).bytes()));
  ModelBuilder ml = relu_model();
  auto *o = ml.model().add_opset_import();
  o->set_domain("ai.onnx.ml");
  o->set_version(3);
  ml.node("Normalizer", {"y"}, {"z"}, "norm").set_domain("ai.onnx.ml");
  REQUIRE_THROWS_WITH(tonnx::import_bytes(ml.bytes()),
                      Contains("node 'norm' (Normalizer): domain 'ai.onnx.ml' is not supported"));
}

TEST_CASE("import errors: a missing external data file names the tensor and the file", "[onnx][error]") {
  const fs::path dir = temp_dir("external_refused");
  ModelBuilder mb(13);
  mb.input("x", {int64_t{2}, int64_t{3}});
  ::onnx::TensorProto *t = mb.graph().add_initializer();
  t->set_name("fc.weight");
  t->set_data_type(::onnx::TensorProto::FLOAT);
  t->add_dims(3);
  t->add_dims(3);
  t->set_data_location(::onnx::TensorProto::EXTERNAL);
  auto *e = t->add_external_data();
  e->set_key("location");
  e->set_value("weights.bin");
  mb.node("MatMul", {"x", "fc.weight"}, {"y"});
  mb.output("y");
  write(dir / "model.onnx", mb.bytes());
  REQUIRE_THROWS_WITH(tonnx::import((dir / "model.onnx").string()),
                      Contains("tensor 'fc.weight'") && Contains((dir / "weights.bin").string()));
  // A file too short for the tensor.
  write(dir / "weights.bin", std::string(20, '\0'));
  REQUIRE_THROWS_WITH(tonnx::import((dir / "model.onnx").string()), Contains("tensor 'fc.weight'") && Contains("ends"));
  // A directory, or a named pipe (which would block the import until something wrote to
  // it), is no file of data.
  fs::remove(dir / "weights.bin");
  fs::create_directory(dir / "weights.bin");
  REQUIRE_THROWS_WITH(tonnx::import((dir / "model.onnx").string()),
                      Contains("tensor 'fc.weight'") && Contains("is a directory, not a file"));
  fs::remove(dir / "weights.bin");
  REQUIRE(::mkfifo((dir / "weights.bin").c_str(), 0600) == 0);
  REQUIRE_THROWS_WITH(tonnx::import((dir / "model.onnx").string()),
                      Contains("tensor 'fc.weight'") && Contains("is not a regular file"));
  fs::remove(dir / "weights.bin");
  // A location outside the model's directory is refused.
  e->set_value("../weights.bin");
  write(dir / "model.onnx", mb.bytes());
  REQUIRE_THROWS_WITH(tonnx::import((dir / "model.onnx").string()), Contains("must be a relative path inside"));
  fs::remove_all(dir);
}

TEST_CASE("import errors: symbolic inputs need a shape, and bindings must fit", "[onnx][error]") {
  ModelBuilder mb(13);
  mb.input("image", {std::string("batch"), int64_t{3}});
  mb.node("Relu", {"image"}, {"y"});
  mb.output("y");
  REQUIRE_THROWS_WITH(tonnx::import_bytes(mb.bytes()),
                      Contains("input 'image': dimension 0 ('batch') is symbolic") && Contains("input_shapes"));
  tonnx::ImportOptions wrong;
  wrong.input_shapes["image"] = {2, 4};
  REQUIRE_THROWS_WITH(tonnx::import_bytes(mb.bytes(), wrong),
                      Contains("input 'image': dimension 1 is 3 in the model but input_shapes (tensorir --input-shape) gives 4"));
  tonnx::ImportOptions rank;
  rank.input_shapes["image"] = {2, 3, 1};
  REQUIRE_THROWS_WITH(tonnx::import_bytes(mb.bytes(), rank), Contains("has 2 dimensions"));
  tonnx::ImportOptions unknown;
  unknown.input_shapes["imagee"] = {2, 3};
  unknown.input_shapes["image"] = {2, 3};
  REQUIRE_THROWS_WITH(tonnx::import_bytes(mb.bytes(), unknown), Contains("'imagee', which is not an input"));
  // Typed, so that a command line can report it as its own usage error.
  try {
    tonnx::import_bytes(mb.bytes(), unknown);
    FAIL("a misspelt input name was accepted");
  } catch (const tonnx::UnknownInputError &e) {
    CHECK(e.option() == "input_shapes");
    CHECK(e.name() == "imagee");
    CHECK(e.inputs() == std::vector<std::string>{"image"});
  }
}

TEST_CASE("import errors: a wrong input shape at run time names the input", "[onnx][error]") {
  const graph::CompiledModel m = graph::build(tonnx::import_bytes(relu_model().bytes()), "llvm");
  REQUIRE_THROWS_WITH(m.run({{"x", NDArray::random({1, 5}, Float(32), 1)}}), Contains("'x'"));
  REQUIRE_THROWS_WITH(m.run({{"x", NDArray::random({1, 4}, Int(64), 1)}}), Contains("'x'"));
}

TEST_CASE("import errors: element types the graph cannot hold", "[onnx][error]") {
  ModelBuilder mb(13);
  mb.input("s", {int64_t{2}}, ::onnx::TensorProto::STRING);
  mb.node("Identity", {"s"}, {"y"});
  mb.output("y");
  REQUIRE_THROWS_AS(tonnx::import_bytes(mb.bytes()), tonnx::UnsupportedError);
  REQUIRE_THROWS_WITH(tonnx::import_bytes(mb.bytes()), Contains("graph input 's' is string"));
}

TEST_CASE("import errors: malformed tensors and attributes are errors, not crashes", "[onnx][error]") {
  // A tensor whose data does not fill its shape is refused before its storage is made.
  ModelBuilder big = relu_model();
  ::onnx::TensorProto *t = big.graph().add_initializer();
  t->set_name("huge");
  t->set_data_type(::onnx::TensorProto::FLOAT);
  t->add_dims(1 << 29);
  t->set_raw_data(std::string(4, '\0'));
  REQUIRE_THROWS_WITH(tonnx::import_bytes(big.bytes()), Contains("tensor 'huge' holds 4 bytes of data"));
  // A permutation that is not one.
  ModelBuilder perm(13);
  perm.input("x", {int64_t{2}, int64_t{3}});
  attr(perm.node("Transpose", {"x"}, {"y"}, "t"), "perm", std::vector<int64_t>{0, 0});
  perm.output("y");
  REQUIRE_THROWS_WITH(tonnx::import_bytes(perm.bytes()),
                      Contains("node 't' (Transpose): perm [0, 0] is not a permutation"));
  // Split sizes that overrun the dimension.
  ModelBuilder split(11);
  split.input("x", {int64_t{6}});
  attr(split.node("Split", {"x"}, {"a", "b"}, "s"), "split", std::vector<int64_t>{4, 4});
  split.output("a");
  split.output("b");
  REQUIRE_THROWS_WITH(tonnx::import_bytes(split.bytes()),
                      Contains("node 's' (Split): the parts [4, 4] add up to 8 but the dimension is 6"));
  // A node without the output its operator has.
  ModelBuilder none(13);
  none.input("x", {int64_t{2}});
  none.node("Relu", {"x"}, {}, "r");
  none.node("Identity", {"x"}, {"y"});
  none.output("y");
  REQUIRE_THROWS_WITH(tonnx::import_bytes(none.bytes()), Contains("node 'r' (Relu): the node has 0 outputs"));
  // A Split into no outputs (equal parts would divide by zero).
  ModelBuilder split0(13);
  split0.input("x", {int64_t{6}});
  split0.node("Split", {"x"}, {}, "s0");
  split0.node("Identity", {"x"}, {"y"});
  split0.output("y");
  REQUIRE_THROWS_WITH(tonnx::import_bytes(split0.bytes()), Contains("node 's0' (Split): Split has no outputs"));
  // A MatMul of a scalar.
  ModelBuilder scalar(13);
  scalar.input("x", {int64_t{3}});
  scalar.initializer("s", NDArray::from_vector<float>({2.0f}, {}));
  scalar.node("MatMul", {"x", "s"}, {"y"}, "mm");
  scalar.output("y");
  REQUIRE_THROWS_WITH(tonnx::import_bytes(scalar.bytes()), Contains("node 'mm' (MatMul)") && Contains("rank 1 or more"));
  // A node missing an input its operator needs.
  ModelBuilder short_conv(13);
  short_conv.input("x", {int64_t{1}, int64_t{1}, int64_t{4}, int64_t{4}});
  short_conv.node("Conv", {"x"}, {"y"}, "c");
  short_conv.output("y");
  REQUIRE_THROWS_WITH(tonnx::import_bytes(short_conv.bytes()), Contains("node 'c' (Conv): input 1 is missing"));
}

TEST_CASE("import: integer arithmetic folded at import wraps as two's complement", "[onnx][error]") {
  // INT64_MIN / -1 and INT64_MAX + 1 on known tensors: no trap, no undefined behaviour.
  ModelBuilder m(13);
  m.input("x", {int64_t{1}});
  m.initializer("a", NDArray::from_vector<int64_t>({INT64_MIN, INT64_MAX}, {2}));
  m.initializer("b", NDArray::from_vector<int64_t>({-1, 1}, {2}));
  m.node("Div", {"a", "b"}, {"q"});
  m.node("Add", {"a", "b"}, {"s"});
  m.node("Relu", {"x"}, {"y"});
  m.output("y");
  REQUIRE_NOTHROW(tonnx::import_bytes(m.bytes()));
}

namespace {

// A model of one node `op` reading initializers `inits` (and graph input x of `x_shape`
// when given) into output y.
ModelBuilder one_node(const std::string &op, const std::vector<std::pair<std::string, NDArray>> &inits,
                      const std::vector<int64_t> &x_shape = {}, int64_t opset = 13) {
  ModelBuilder mb(opset);
  std::vector<std::string> inputs;
  if (!x_shape.empty()) {
    mb.input("x", onnx_test::dims(x_shape));
    inputs.push_back("x");
  }
  for (const auto &[name, value] : inits) {
    mb.initializer(name, value);
    inputs.push_back(name);
  }
  mb.node(op, inputs, {"y"});
  mb.output("y");
  return mb;
}

NDArray i64(const std::vector<int64_t> &v, const std::vector<int64_t> &shape) {
  return NDArray::from_vector<int64_t>(v, shape);
}

NDArray zeros(const std::vector<int64_t> &shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return NDArray::from_vector<float>(std::vector<float>(size_t(n), 0.0f), shape);
}

}  // namespace

// A model of a few hundred bytes can ask for a tensor of any size: each is refused, saying
// how large, before anything is allocated (these would otherwise take gigabytes or fail
// with std::bad_alloc).
TEST_CASE("import errors: sizes set by values are checked before allocating", "[onnx][error]") {
  const NDArray values = NDArray::from_vector<float>({0, 1}, {2});
  // OneHot: the constant of positions 0 to depth - 1 (int64), then the result itself.
  REQUIRE_THROWS_WITH(
      tonnx::import_bytes(one_node("OneHot", {{"i", i64({1}, {1})}, {"d", i64({1 << 30}, {})}, {"v", values}}).bytes()),
      Contains("node 'y' (OneHot)") && Contains("1073741824 elements (8 GiB of int64") &&
          Contains("more than the limit of 268435456 elements"));
  REQUIRE_THROWS_WITH(
      tonnx::import_bytes(
          one_node("OneHot", {{"i", i64({1}, {1})}, {"d", i64({int64_t{1} << 40}, {})}, {"v", values}}).bytes()),
      Contains("node 'y' (OneHot): the result would have 1099511627776 elements (4096 GiB of float32") &&
          Contains("2147483647"));
  // Range, integer and float.
  REQUIRE_THROWS_WITH(
      tonnx::import_bytes(
          one_node("Range", {{"a", i64({0}, {})}, {"b", i64({1 << 30}, {})}, {"c", i64({1}, {})}}).bytes()),
      Contains("node 'y' (Range): the result (0 to 1073741824 by 1) would have 1073741824 elements (8 GiB of int64"));
  REQUIRE_THROWS_WITH(tonnx::import_bytes(one_node("Range", {{"a", NDArray::from_vector<float>({0}, {})},
                                                            {"b", NDArray::from_vector<float>({1e30f}, {})},
                                                            {"c", NDArray::from_vector<float>({1}, {})}})
                                              .bytes()),
                      Contains("node 'y' (Range)") && Contains("more than the limit"));
  // ConstantOfShape: within the graph's limit but not the host's; and a product that
  // overflows int64.
  REQUIRE_THROWS_WITH(tonnx::import_bytes(one_node("ConstantOfShape", {{"s", i64({1 << 15, 1 << 15}, {2})}}).bytes()),
                      Contains("node 'y' (ConstantOfShape): the result would have 1073741824 elements (4 GiB"));
  REQUIRE_THROWS_WITH(
      tonnx::import_bytes(one_node("ConstantOfShape", {{"s", i64({int64_t{1} << 32, int64_t{1} << 32}, {2})}}).bytes()),
      Contains("more than 2^63 elements"));
  REQUIRE_THROWS_WITH(tonnx::import_bytes(one_node("ConstantOfShape", {{"s", i64({4, -2}, {2})}}).bytes()),
                      Contains("negative dimension -2"));
  // Expand and Tile of a known value; broadcasting in folded arithmetic.
  const NDArray one = NDArray::from_vector<float>({1}, {1});
  REQUIRE_THROWS_WITH(tonnx::import_bytes(one_node("Expand", {{"a", one}, {"s", i64({1 << 30}, {1})}}).bytes()),
                      Contains("node 'y' (Expand): the result would have 1073741824 elements"));
  REQUIRE_THROWS_WITH(tonnx::import_bytes(one_node("Tile", {{"a", one}, {"r", i64({1 << 30}, {1})}}).bytes()),
                      Contains("node 'y' (Tile): the result would have 1073741824 elements"));
  REQUIRE_THROWS_WITH(tonnx::import_bytes(one_node("Add", {{"a", zeros({1 << 15, 1})},
                                                          {"b", zeros({1, 1 << 15})}})
                                              .bytes()),
                      Contains("node 'y' (Add): the result would have 1073741824 elements"));
  // Resize to sizes beyond what a tensor may hold.
  {
    ModelBuilder mb(13);
    mb.input("x", onnx_test::dims({1, 1, 2, 2}));
    mb.initializer("sizes", i64({1, 1, 1 << 20, 1 << 20}, {4}));
    mb.node("Resize", {"x", "", "", "sizes"}, {"y"});
    mb.output("y");
    REQUIRE_THROWS_WITH(tonnx::import_bytes(mb.bytes()),
                        Contains("node 'y' (Resize): the result would have 1099511627776 elements"));
  }
}

// Extents are computed in int64 and checked: a huge pad or repeat is reported as a size
// too large, not as a negative dimension or an empty result after a wrap-around.
TEST_CASE("import errors: pads and repeats too large for a tensor", "[onnx][error]") {
  REQUIRE_THROWS_WITH(
      tonnx::import_bytes(one_node("Pad", {{"p", i64({0, 0, INT32_MAX, 0}, {4})}}, {2, 8}).bytes()),
      Contains("node 'y' (Pad): the result would have 17179869192 elements (64 GiB of float32, shape [2147483649, 8])"));
  REQUIRE_THROWS_WITH(
      tonnx::import_bytes(one_node("Pad", {{"p", i64({0, 0, INT64_MAX, 0}, {4})}}, {2, 8}).bytes()),
      Contains("node 'y' (Pad): the padded extent overflows"));
  {
    ModelBuilder mb = one_node("Conv", {{"w", zeros({1, 1, 1, 1})}}, {1, 1, 8, 8});
    attr(*mb.graph().mutable_node(0), "pads", std::vector<int64_t>{INT32_MAX, 0, 0, 0});
    REQUIRE_THROWS_WITH(tonnx::import_bytes(mb.bytes()),
                        Contains("node 'y' (Conv): spatial dimension 0 padded (8 + 2147483647 + 0") &&
                            Contains("more than the 2147483647 elements a tensor may hold"));
    ModelBuilder dilated = one_node("Conv", {{"w", zeros({1, 1, 3, 3})}}, {1, 1, 8, 8});
    attr(*dilated.graph().mutable_node(0), "dilations", std::vector<int64_t>{int64_t{1} << 62, 1});
    REQUIRE_THROWS_WITH(tonnx::import_bytes(dilated.bytes()), Contains("node 'y' (Conv): dilations") &&
                                                                  Contains("too large"));
  }
  REQUIRE_THROWS_WITH(
      tonnx::import_bytes(one_node("Tile", {{"r", i64({1, 1, int64_t{1} << 32, int64_t{1} << 32}, {4})}}, {1, 3, 2, 2})
                              .bytes()),
      Contains("node 'y' (Tile): the result would have more than 2^63 elements"));
  REQUIRE_THROWS_WITH(
      tonnx::import_bytes(one_node("Tile", {{"r", i64({1, 1, 1 << 30, 1}, {4})}}, {1, 3, 2, 2}).bytes()),
      Contains("node 'y' (Tile): the result would have 12884901888 elements (48 GiB of float32"));
  REQUIRE_THROWS_WITH(
      tonnx::import_bytes(one_node("Tile", {{"r", i64({1, 1, INT64_MAX, 1}, {4})}}, {1, 3, 2, 2}).bytes()),
      Contains("dimension 2 (2) repeated 9223372036854775807 times"));
}

TEST_CASE("import errors: a reduction's axes attribute where the opset takes them as an input",
          "[onnx][error]") {
  // Ignored, it would reduce over every axis: ONNX Runtime refuses the model too.
  for (const auto &[op, opset] : std::vector<std::pair<std::string, int64_t>>{{"ReduceSum", 13}, {"ReduceMax", 18}}) {
    ModelBuilder mb = one_node(op, {}, {2, 3}, opset);
    attr(*mb.graph().mutable_node(0), "axes", std::vector<int64_t>{1});
    try {
      tonnx::import_bytes(mb.bytes());
      FAIL(op << " with an axes attribute at opset " << opset << " was accepted");
    } catch (const tonnx::UnsupportedError &e) {
      CHECK_THAT(e.what(), Contains("node 'y' (" + op + "): axes is an attribute, but from opset"));
    }
    ModelBuilder before = one_node(op, {}, {2, 3}, opset - 1);  // where it is the attribute
    attr(*before.graph().mutable_node(0), "axes", std::vector<int64_t>{1});
    const graph::Graph g = tonnx::import_bytes(before.bytes());
    CHECK(g.node(g.outputs()[0]).shape == std::vector<int64_t>{2, 1});
  }
}
