// onnx::Session: shape inputs given at run time, compiled once per distinct value
// (cached), the other inputs fed; against plain loops, and its errors.
#include <tensorir/frontend/onnx.h>

#include <fstream>

#include "onnx/onnx_test_util.h"

using namespace tensorir;
using namespace tensorir::onnx_test;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;
namespace tonnx = tensorir::onnx;

namespace {

// y = Slice(Reshape(x, s), starts, ends) on axis 1, and z = Expand(v, e): s, starts, ends
// and e decide shapes.
std::string shape_model() {
  ModelBuilder mb(13);
  mb.input("x", {int64_t{2}, int64_t{6}});
  mb.input("s", {int64_t{2}}, ::onnx::TensorProto::INT64);
  mb.input("starts", {int64_t{1}}, ::onnx::TensorProto::INT64);
  mb.input("ends", {int64_t{1}}, ::onnx::TensorProto::INT64);
  mb.input("v", {int64_t{3}, int64_t{1}});
  mb.input("e", {int64_t{3}}, ::onnx::TensorProto::INT64);
  mb.initializer("axes", NDArray::from_vector<int64_t>({1}, {1}));
  mb.node("Reshape", {"x", "s"}, {"r"}, "view");
  mb.node("Slice", {"r", "starts", "ends", "axes"}, {"y"}, "cut");
  mb.node("Expand", {"v", "e"}, {"z"}, "spread");
  mb.output("y");
  mb.output("z");
  return mb.bytes();
}

NDArray ints(std::vector<int64_t> v) {
  const int64_t n = int64_t(v.size());
  return NDArray::from_vector<int64_t>(std::move(v), {n});
}

struct Values {
  std::vector<int64_t> s;
  int64_t start, end;
  std::vector<int64_t> e;
};

std::map<std::string, NDArray> feed(const Values &v, uint64_t seed) {
  return {{"x", NDArray::random({2, 6}, Float(32), seed)}, {"s", ints(v.s)},
          {"starts", ints({v.start})},                     {"ends", ints({v.end})},
          {"v", NDArray::random({3, 1}, Float(32), seed + 1)}, {"e", ints(v.e)}};
}

// Runs `s` on `v` and checks both outputs against plain loops.
void check_run(tonnx::Session &s, const Values &v, uint64_t seed) {
  const std::map<std::string, NDArray> in = feed(v, seed);
  const graph::Outputs out = s.run(in);
  const std::vector<float> x = in.at("x").to_vector<float>(), vv = in.at("v").to_vector<float>();
  const int64_t rows = v.s[0], cols = v.s[1], width = std::min(v.end, cols) - v.start;
  const NDArray y = out["y"];
  REQUIRE(y.shape() == std::vector<int64_t>{rows, width});
  std::vector<float> want_y;
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < width; ++j) want_y.push_back(x[size_t(i * cols + v.start + j)]);
  CHECK(y.to_vector<float>() == want_y);
  const NDArray z = out["z"];
  REQUIRE(z.shape() == v.e);
  std::vector<float> want_z;
  for (int64_t a = 0; a < v.e[0]; ++a)
    for (int64_t b = 0; b < 3; ++b)
      for (int64_t c = 0; c < v.e[2]; ++c) want_z.push_back(vv[size_t(b)]);
  CHECK(z.to_vector<float>() == want_z);
}

const Values kA{{3, 4}, 1, 4, {2, 3, 2}}, kB{{4, 3}, 0, 2, {1, 3, 4}};

}  // namespace

TEST_CASE("Session: shape inputs given at run time, one compile per distinct value", "[onnx][session]") {
  tonnx::Session s = tonnx::Session::from_bytes(shape_model(), "llvm");
  // Found by importing: the Reshape and the Expand; the Slice is reached once s is fixed.
  CHECK(s.shape_inputs() == std::vector<std::string>{"s", "e"});
  CHECK(s.inputs().size() == 6);
  CHECK(s.compiles() == 0);
  check_run(s, kA, 1);
  CHECK(s.shape_inputs() == std::vector<std::string>{"s", "starts", "ends", "e"});
  CHECK(s.compiles() == 1);
  check_run(s, kA, 3);  // new data, same shape values: the cached model
  CHECK(s.compiles() == 1);
  check_run(s, kB, 5);
  CHECK(s.compiles() == 2);
  check_run(s, kA, 7);
  CHECK(s.compiles() == 2);
  CHECK(s.cached() == 2);
  // What the compiled model takes: the data inputs only.
  const tonnx::Session::Prepared p = s.prepare(feed(kB, 9));
  CHECK(p.feed.size() == 2);
  CHECK(p.feed.count("x") == 1);
  CHECK(p.feed.count("v") == 1);
}

TEST_CASE("Session: info describes the model as inspect does, from the copy it keeps", "[onnx][session]") {
  const fs::path dir = temp_dir("session_info");
  const std::string path = (dir / "shapes.onnx").string();
  {
    std::ofstream f(path, std::ios::binary);
    f << shape_model();
  }
  const tonnx::ModelInfo want = tonnx::inspect(path);
  const tonnx::Session s = tonnx::Session::open(path, "llvm");
  fs::remove_all(dir);  // info() reads no file
  const tonnx::ModelInfo got = s.info();
  CHECK(got.producer == want.producer);
  CHECK(got.ir_version == want.ir_version);
  CHECK(got.opsets == want.opsets);
  REQUIRE(got.inputs.size() == 6);
  REQUIRE(got.inputs.size() == want.inputs.size());
  for (size_t i = 0; i < got.inputs.size(); ++i) {
    CHECK(got.inputs[i].name == want.inputs[i].name);
    CHECK(got.inputs[i].dtype == want.inputs[i].dtype);
    CHECK(got.inputs[i].shape == want.inputs[i].shape);
  }
  REQUIRE(got.outputs.size() == 2);
  CHECK(got.outputs[0].name == "y");
  CHECK(got.outputs[1].name == "z");
  CHECK(got.operators == std::map<std::string, int>{{"Expand", 1}, {"Reshape", 1}, {"Slice", 1}});
  CHECK(got.parameters == 1);  // the axes initializer
  CHECK(got.unsupported.empty());
}

TEST_CASE("Session: the cache keeps the most recent values", "[onnx][session]") {
  tonnx::SessionOptions opt;
  opt.cache_size = 1;
  tonnx::Session s = tonnx::Session::from_bytes(shape_model(), "llvm", opt);
  check_run(s, kA, 1);
  check_run(s, kB, 2);
  check_run(s, kA, 3);  // evicted by kB: compiled again
  CHECK(s.compiles() == 3);
  CHECK(s.cached() == 1);
}

TEST_CASE("Session: inputs fixed at import are not shape inputs", "[onnx][session]") {
  tonnx::SessionOptions opt;
  opt.import.input_values["e"] = ints({2, 3, 2});
  tonnx::Session s = tonnx::Session::from_bytes(shape_model(), "llvm", opt);
  CHECK(s.shape_inputs() == std::vector<std::string>{"s"});
  CHECK(s.inputs().size() == 5);
  std::map<std::string, NDArray> in = feed(kA, 1);
  in.erase("e");
  CHECK(s.run(in)["z"].shape() == std::vector<int64_t>{2, 3, 2});
  in["e"] = ints({2, 3, 2});
  CHECK_THROWS_WITH(s.run(in), Contains("'e' is fixed by ImportOptions::input_values"));
}

TEST_CASE("Session: symbolic dimensions are bound by the arrays given", "[onnx][session]") {
  ModelBuilder mb(13);
  mb.input("x", {std::string("n"), int64_t{4}});
  mb.node("Relu", {"x"}, {"y"});
  mb.output("y");
  tonnx::Session s = tonnx::Session::from_bytes(mb.bytes(), "llvm");
  CHECK(s.shape_inputs().empty());
  CHECK(s.inputs()[0].shape == std::vector<int64_t>{-1, 4});
  for (int64_t n : {2, 5, 2}) {
    const NDArray x = NDArray::random({n, 4}, Float(32), uint64_t(n));
    const std::vector<float> xv = x.to_vector<float>();
    std::vector<float> want;
    for (float f : xv) want.push_back(std::max(f, 0.0f));
    const NDArray y = s.run({{"x", x}});
    REQUIRE(y.shape() == std::vector<int64_t>{n, 4});
    CHECK(y.to_vector<float>() == want);
  }
  CHECK(s.compiles() == 2);
  CHECK_THROWS_WITH(s.run({}), Contains("'x' has symbolic dimensions"));
}

TEST_CASE("Session errors: missing or unknown inputs, wrong types, unfixable nodes", "[onnx][session][error]") {
  tonnx::Session s = tonnx::Session::from_bytes(shape_model(), "llvm");
  std::map<std::string, NDArray> in = feed(kA, 1);
  in.erase("s");
  CHECK_THROWS_WITH(s.run(in), Contains("input 's' decides shapes"));
  in = feed(kA, 1);
  in["w"] = ints({1});
  CHECK_THROWS_WITH(s.run(in), Contains("has no input 'w'") && Contains("'starts'"));
  in = feed(kA, 1);
  in["s"] = NDArray::from_vector<int32_t>({3, 4}, {2});
  CHECK_THROWS_WITH(s.run(in), Contains("input 's' is int64"));
  in = feed(kA, 1);
  in.erase("x");
  CHECK_THROWS_WITH(s.run(in), Contains("'x'"));
  CHECK_THROWS_AS(tonnx::Session::open("/nonexistent/model.onnx", "llvm"), Error);

  // A shape computed at run time cannot be fixed from an input: the Reshape runs between
  // stages, on the host, each run with its own shape.
  ModelBuilder mb(13);
  mb.input("x", {int64_t{2}, int64_t{6}});
  mb.input("f", {int64_t{2}});
  auto &cast = mb.node("Cast", {"f"}, {"fi"});
  attr(cast, "to", int64_t{::onnx::TensorProto::INT64});
  mb.node("Reshape", {"x", "fi"}, {"y"}, "view");
  mb.output("y");
  tonnx::Session staged = tonnx::Session::from_bytes(mb.bytes(), "llvm");
  CHECK(staged.stage_boundary() == "node 'view' (Reshape)");
  const NDArray x = NDArray::random({2, 6}, Float(32), 5);
  for (std::vector<float> shape : {std::vector<float>{3, 4}, {4, 3}}) {
    const NDArray y = staged.run({{"x", x}, {"f", NDArray::from_vector<float>(shape, {2})}})["y"];
    CHECK(y.shape() == std::vector<int64_t>{int64_t(shape[0]), int64_t(shape[1])});
    CHECK(y.to_vector<float>() == x.to_vector<float>());
  }
  // A node that cannot convert for another reason is refused when the session is made.
  ModelBuilder bad(13);
  bad.input("x", {int64_t{2}, int64_t{6}});
  bad.node("Bernoulli", {"x"}, {"y"}, "coin");
  bad.output("y");
  CHECK_THROWS_AS(tonnx::Session::from_bytes(bad.bytes(), "llvm"), tonnx::UnsupportedError);
  // A node missing an input it needs is an error naming it.
  ModelBuilder missing(13);
  missing.input("x", {int64_t{2}, int64_t{6}});
  missing.node("Reshape", {"x"}, {"y"}, "view");
  missing.output("y");
  CHECK_THROWS_WITH(tonnx::Session::from_bytes(missing.bytes(), "llvm"),
                    Contains("node 'view' (Reshape)") && Contains("input 1 is missing"));
}
