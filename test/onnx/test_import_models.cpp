// Models built here with ONNX's protobuf classes, imported, built for "llvm" and compared
// with plain loops over the same random data: a small CNN (Conv -> Relu -> MaxPool ->
// Flatten -> Gemm), broadcasting element-wise graphs, a PyTorch-style Shape -> Gather ->
// Concat -> Reshape chain folded at import, float16 and external-data initializers,
// bound input shapes, inspect() and read_tensor().
#include <tensorir/frontend/onnx.h>
#include <tensorir/graph/executor.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "onnx/onnx_test_util.h"

using namespace tensorir;
using onnx_test::attr;
using onnx_test::ModelBuilder;
using onnx_test::temp_dir;
namespace fs = std::filesystem;
namespace tonnx = tensorir::onnx;

namespace {

std::vector<double> doubles(const NDArray &a) {
  const std::vector<float> v = a.to_vector<float>();
  return std::vector<double>(v.begin(), v.end());
}

void check_close(const NDArray &got, const std::vector<float> &want, double rtol = 1e-4, double atol = 1e-5) {
  std::string why;
  const bool ok = onnx_test::allclose(doubles(got), std::vector<double>(want.begin(), want.end()), rtol, atol, &why);
  INFO(why);
  CHECK(ok);
}

NDArray rand(const std::vector<int64_t> &shape, uint64_t seed, double lo = -1, double hi = 1) {
  return NDArray::random(shape, Float(32), seed, lo, hi);
}

// conv 3x3 (pad 1) + bias -> relu -> maxpool 2x2 -> flatten -> x W^T + b, on [1, C, H, W].
std::vector<float> cnn_reference(const std::vector<float> &x, const std::vector<float> &w, const std::vector<float> &b,
                                 const std::vector<float> &fw, const std::vector<float> &fb, int C, int K, int H, int W,
                                 int M) {
  std::vector<float> conv(static_cast<size_t>(K * H * W));
  for (int k = 0; k < K; ++k)
    for (int i = 0; i < H; ++i)
      for (int j = 0; j < W; ++j) {
        float acc = b[size_t(k)];
        for (int c = 0; c < C; ++c)
          for (int r = 0; r < 3; ++r)
            for (int s = 0; s < 3; ++s) {
              const int y = i + r - 1, z = j + s - 1;
              if (y >= 0 && y < H && z >= 0 && z < W)
                acc += x[size_t((c * H + y) * W + z)] * w[size_t(((k * C + c) * 3 + r) * 3 + s)];
            }
        conv[size_t((k * H + i) * W + j)] = std::max(acc, 0.0f);
      }
  const int PH = H / 2, PW = W / 2, F = K * PH * PW;
  std::vector<float> pooled(static_cast<size_t>(F));
  for (int k = 0; k < K; ++k)
    for (int i = 0; i < PH; ++i)
      for (int j = 0; j < PW; ++j) {
        float m = -1e30f;
        for (int di = 0; di < 2; ++di)
          for (int dj = 0; dj < 2; ++dj) m = std::max(m, conv[size_t((k * H + 2 * i + di) * W + 2 * j + dj)]);
        pooled[size_t((k * PH + i) * PW + j)] = m;
      }
  std::vector<float> out(static_cast<size_t>(M));
  for (int m = 0; m < M; ++m) {
    float acc = fb[size_t(m)];
    for (int f = 0; f < F; ++f) acc += pooled[size_t(f)] * fw[size_t(m * F + f)];
    out[size_t(m)] = acc;
  }
  return out;
}

}  // namespace

TEST_CASE("a small CNN imports and matches plain loops", "[onnx]") {
  const int C = 3, K = 8, H = 12, W = 12, M = 10, F = K * (H / 2) * (W / 2);
  const NDArray x = rand({1, C, H, W}, 1), w = rand({K, C, 3, 3}, 2), b = rand({K}, 3);
  const NDArray fw = rand({M, F}, 4, -0.1, 0.1), fb = rand({M}, 5);
  const bool trans_b = GENERATE(true, false);
  CAPTURE(trans_b);
  ModelBuilder mb(13);
  mb.input("image", {int64_t{1}, int64_t{C}, int64_t{H}, int64_t{W}});
  mb.initializer("conv.weight", w);
  mb.initializer("conv.bias", b);
  // Gemm's B as [M, F] with transB, or as [F, M] without (transposed at import).
  NDArray fw_t = NDArray::empty({F, M}, Float(32));
  {
    const std::vector<float> v = fw.to_vector<float>();
    float *p = fw_t.data_as<float>();
    for (int m = 0; m < M; ++m)
      for (int f = 0; f < F; ++f) p[f * M + m] = v[size_t(m * F + f)];
  }
  mb.initializer("fc.weight", trans_b ? fw : fw_t);
  mb.initializer("fc.bias", fb);
  auto &conv = mb.node("Conv", {"image", "conv.weight", "conv.bias"}, {"conv"}, "conv1");
  attr(conv, "pads", std::vector<int64_t>{1, 1, 1, 1});
  attr(conv, "kernel_shape", std::vector<int64_t>{3, 3});
  mb.node("Relu", {"conv"}, {"act"});
  auto &pool = mb.node("MaxPool", {"act"}, {"pool"});
  attr(pool, "kernel_shape", std::vector<int64_t>{2, 2});
  attr(pool, "strides", std::vector<int64_t>{2, 2});
  mb.node("Flatten", {"pool"}, {"flat"});
  auto &gemm = mb.node("Gemm", {"flat", "fc.weight", "fc.bias"}, {"logits"}, "fc");
  attr(gemm, "transB", int64_t(trans_b ? 1 : 0));
  mb.output("logits", {int64_t{1}, int64_t{M}});

  const graph::Graph g = tonnx::import_bytes(mb.bytes());
  CHECK(g.node("conv/conv2d").op == "conv2d");  // intermediate nodes are named after the value
  CHECK(g.node("conv").op == "bias_add");
  CHECK(g.node("logits").op == "bias_add");  // the output keeps the model's name
  const graph::CompiledModel m = graph::build(g, "llvm");
  const NDArray y = m.run({{"image", x}})["logits"];
  REQUIRE(y.shape() == std::vector<int64_t>{1, M});
  check_close(y, cnn_reference(x.to_vector<float>(), w.to_vector<float>(), b.to_vector<float>(), fw.to_vector<float>(),
                               fb.to_vector<float>(), C, K, H, W, M));
}

TEST_CASE("broadcasting element-wise graphs match plain loops", "[onnx]") {
  // a [2, 3, 4], b [3, 1], c [4] (an initializer), two outputs:
  //   s = (a + b) * c - a          t = sqrt(|max(s / 2, b, -0.25)|) ** e (e = 1.5)
  //   u = sigmoid(min(a, b)) + tanh(-a) * exp(b) / reciprocal(c + 2)
  ModelBuilder mb(13);
  mb.input("a", {int64_t{2}, int64_t{3}, int64_t{4}});
  mb.input("b", {int64_t{3}, int64_t{1}});
  const NDArray a = rand({2, 3, 4}, 11), b = rand({3, 1}, 12), c = rand({4}, 13, 0.5, 2);
  mb.initializer("c", c);
  mb.initializer("two", NDArray::from_vector<float>({2.0f}, {}));
  mb.initializer("floor", NDArray::from_vector<float>({-0.25f}, {1}));
  mb.initializer("e", NDArray::from_vector<float>({1.5f}, {}));
  mb.node("Add", {"a", "b"}, {"ab"});
  mb.node("Mul", {"ab", "c"}, {"abc"});
  mb.node("Sub", {"abc", "a"}, {"s"});
  mb.node("Div", {"s", "two"}, {"half"});
  mb.node("Max", {"half", "b", "floor"}, {"mx"});
  mb.node("Abs", {"mx"}, {"abs"});
  mb.node("Sqrt", {"abs"}, {"root"});
  mb.node("Pow", {"root", "e"}, {"t"});
  mb.node("Min", {"a", "b"}, {"mn"});
  mb.node("Sigmoid", {"mn"}, {"sig"});
  mb.node("Neg", {"a"}, {"na"});
  mb.node("Tanh", {"na"}, {"th"});
  mb.node("Exp", {"b"}, {"eb"});
  mb.node("Mul", {"th", "eb"}, {"prod"});
  mb.node("Add", {"c", "two"}, {"c2"});  // both known: folded at import
  mb.node("Reciprocal", {"c2"}, {"rc"});
  mb.node("Div", {"prod", "rc"}, {"q"});
  mb.node("Add", {"sig", "q"}, {"u"});
  mb.output("s");
  mb.output("t");
  mb.output("u");
  const graph::Graph g = tonnx::import_bytes(mb.bytes());
  const graph::Outputs out = graph::build(g, "llvm").run({{"a", a}, {"b", b}});
  REQUIRE(out.names() == std::vector<std::string>{"s", "t", "u"});
  const std::vector<float> av = a.to_vector<float>(), bv = b.to_vector<float>(), cv = c.to_vector<float>();
  std::vector<float> s(24), t(24), u(24);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 4; ++k) {
        const size_t n = size_t((i * 3 + j) * 4 + k);
        const float x = av[n], y = bv[size_t(j)], z = cv[size_t(k)];
        s[n] = (x + y) * z - x;
        t[n] = std::pow(std::sqrt(std::fabs(std::max({s[n] / 2, y, -0.25f}))), 1.5f);
        u[n] = 1 / (1 + std::exp(-std::min(x, y))) + std::tanh(-x) * std::exp(y) / (1 / (z + 2));
      }
  check_close(out["s"], s);
  check_close(out["t"], t);
  check_close(out["u"], u);
}

TEST_CASE("Shape -> Gather -> Concat -> Reshape folds into a constant target", "[onnx]") {
  // PyTorch's x.view(x.size(0), -1): the target shape is computed from x's shape.
  ModelBuilder mb(13);
  mb.input("x", {int64_t{2}, int64_t{3}, int64_t{4}, int64_t{5}});
  mb.initializer("zero", NDArray::from_vector<int64_t>({0}, {}));
  mb.initializer("axes", NDArray::from_vector<int64_t>({0}, {1}));
  mb.initializer("minus_one", NDArray::from_vector<int64_t>({-1}, {1}));
  mb.node("Shape", {"x"}, {"shape"});
  auto &gather = mb.node("Gather", {"shape", "zero"}, {"batch"});
  attr(gather, "axis", int64_t{0});
  mb.node("Unsqueeze", {"batch", "axes"}, {"batch1"});
  auto &concat = mb.node("Concat", {"batch1", "minus_one"}, {"target"});
  attr(concat, "axis", int64_t{0});
  mb.node("Reshape", {"x", "target"}, {"flat"});
  mb.node("Relu", {"flat"}, {"y"});
  mb.output("y");
  const graph::Graph g = tonnx::import_bytes(mb.bytes());
  // Nothing of the shape computation is left: an input, the reshape, the relu.
  std::vector<std::string> ops;
  for (const graph::Node &n : g.nodes()) ops.push_back(n.op);
  CHECK(ops == std::vector<std::string>{"input", "reshape", "relu"});
  CHECK(g.node("flat").attr_ints("shape") == std::vector<int64_t>{2, 60});
  const NDArray x = rand({2, 3, 4, 5}, 21);
  const NDArray y = graph::build(g, "llvm").run({{"x", x}});
  REQUIRE(y.shape() == std::vector<int64_t>{2, 60});
  std::vector<float> want = x.to_vector<float>();
  for (float &v : want) v = std::max(v, 0.0f);
  check_close(y, want, 0, 0);
}

TEST_CASE("float16 initializers are read as float32", "[onnx]") {
  // 1.5, -2, 65504 (the largest half), 2^-24 (the smallest subnormal), -0, inf.
  const std::vector<uint16_t> bits = {0x3e00, 0xc000, 0x7bff, 0x0001, 0x8000, 0x7c00};
  ::onnx::TensorProto t;
  t.set_name("h");
  t.set_data_type(::onnx::TensorProto::FLOAT16);
  t.add_dims(6);
  t.set_raw_data(std::string(reinterpret_cast<const char *>(bits.data()), bits.size() * 2));
  ModelBuilder mb(13);
  mb.input("x", {int64_t{6}});
  *mb.graph().add_initializer() = t;
  mb.node("Add", {"x", "h"}, {"y"});
  mb.output("y");
  const NDArray y = graph::build(tonnx::import_bytes(mb.bytes()), "llvm")
                        .run({{"x", NDArray::from_vector<float>({0, 0, 0, 0, 0, 0}, {6})}});
  const std::vector<float> v = y.to_vector<float>();
  CHECK(v[0] == 1.5f);
  CHECK(v[1] == -2.0f);
  CHECK(v[2] == 65504.0f);
  CHECK(v[3] == std::ldexp(1.0f, -24));
  CHECK(v[4] == 0.0f);
  CHECK(std::isinf(v[5]));
}

TEST_CASE("external data is read from the model's directory", "[onnx]") {
  const fs::path dir = temp_dir("external");
  const NDArray w = rand({4, 3}, 31);
  {  // 16 bytes of something else first: the offset must be honoured
    std::ofstream f(dir / "weights.bin", std::ios::binary);
    f << std::string(16, 'x');
    f.write(static_cast<const char *>(w.data()), std::streamsize(w.nbytes()));
  }
  ModelBuilder mb(13);
  mb.input("x", {int64_t{2}, int64_t{3}});
  ::onnx::TensorProto *t = mb.graph().add_initializer();
  t->set_name("w");
  t->set_data_type(::onnx::TensorProto::FLOAT);
  t->add_dims(4);
  t->add_dims(3);
  t->set_data_location(::onnx::TensorProto::EXTERNAL);
  for (auto [k, v] :
       {std::pair<std::string, std::string>{"location", "weights.bin"}, {"offset", "16"}, {"length", "48"}}) {
    auto *e = t->add_external_data();
    e->set_key(k);
    e->set_value(v);
  }
  auto &gemm = mb.node("Gemm", {"x", "w"}, {"y"});
  attr(gemm, "transB", int64_t{1});
  mb.output("y");
  {
    std::ofstream f(dir / "model.onnx", std::ios::binary);
    f << mb.bytes();
  }
  const NDArray x = rand({2, 3}, 32);
  const NDArray y = graph::build(tonnx::import((dir / "model.onnx").string()), "llvm").run({{"x", x}});
  const std::vector<float> xv = x.to_vector<float>(), wv = w.to_vector<float>();
  std::vector<float> want(8);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 4; ++j)
      for (int k = 0; k < 3; ++k) want[size_t(i * 4 + j)] += xv[size_t(i * 3 + k)] * wv[size_t(j * 3 + k)];
  check_close(y, want);
  // From bytes, external_data_dir says where to look.
  tonnx::ImportOptions opt;
  opt.external_data_dir = dir.string();
  CHECK_NOTHROW(tonnx::import_bytes(mb.bytes(), opt));
  fs::remove_all(dir);
}

TEST_CASE("input_shapes binds symbolic dimensions", "[onnx]") {
  ModelBuilder mb(13);
  mb.input("x", {std::string("batch"), int64_t{3}});
  mb.node("Relu", {"x"}, {"y"});
  mb.output("y");
  tonnx::ImportOptions opt;
  opt.input_shapes["x"] = {5, 3};
  const graph::Graph g = tonnx::import_bytes(mb.bytes(), opt);
  CHECK(g.node("x").shape == std::vector<int64_t>{5, 3});
  CHECK(g.node("y").shape == std::vector<int64_t>{5, 3});
}

TEST_CASE("inspect describes a model without converting it", "[onnx]") {
  const fs::path dir = temp_dir("inspect");
  ModelBuilder mb(13);
  mb.input("x", {std::string("N"), int64_t{4}});
  mb.initializer("w", rand({2, 4}, 41));
  mb.node("MatMul", {"x", "w"}, {"m"});  // [N, 4] x [2, 4]: wrong, but inspect does not convert
  mb.node("Relu", {"m"}, {"r"});
  mb.node("Frobnicate", {"r"}, {"y"}, "odd");
  mb.output("y", {std::string("N"), int64_t{2}});
  {
    std::ofstream f(dir / "m.onnx", std::ios::binary);
    f << mb.bytes();
  }
  const tonnx::ModelInfo info = tonnx::inspect((dir / "m.onnx").string());
  CHECK(info.producer == "tensorir-test");
  CHECK(info.ir_version == 8);
  CHECK(info.opsets.at("") == 13);
  REQUIRE(info.inputs.size() == 1);  // the initializer is not an input
  CHECK(info.inputs[0].name == "x");
  CHECK(info.inputs[0].dtype == "float32");
  CHECK(info.inputs[0].shape == std::vector<std::string>{"N", "4"});
  CHECK(info.outputs[0].shape == std::vector<std::string>{"N", "2"});
  CHECK(info.operators == std::map<std::string, int>{{"Frobnicate", 1}, {"MatMul", 1}, {"Relu", 1}});
  CHECK(info.parameters == 8);
  REQUIRE(info.unsupported.size() == 1);
  CHECK(info.unsupported[0].node == "odd");
  CHECK(info.unsupported[0].op == "Frobnicate");
  fs::remove_all(dir);
}

TEST_CASE("read_tensor reads TensorProto files", "[onnx]") {
  const fs::path dir = temp_dir("read_tensor");
  const NDArray a = NDArray::from_vector<int64_t>({1, -2, 3, 1LL << 40}, {2, 2});
  {
    std::ofstream f(dir / "t.pb", std::ios::binary);
    f << onnx_test::tensor_proto("t", a).SerializeAsString();
  }
  const NDArray b = tonnx::read_tensor((dir / "t.pb").string());
  CHECK(b.dtype() == Int(64));
  CHECK(b.shape() == std::vector<int64_t>{2, 2});
  CHECK(b.to_vector<int64_t>() == a.to_vector<int64_t>());
  // Typed fields instead of raw data.
  ::onnx::TensorProto t;
  t.set_data_type(::onnx::TensorProto::FLOAT);
  t.add_dims(3);
  for (float v : {0.5f, -1.0f, 2.0f}) t.add_float_data(v);
  {
    std::ofstream f(dir / "f.pb", std::ios::binary);
    f << t.SerializeAsString();
  }
  CHECK(tonnx::read_tensor((dir / "f.pb").string()).to_vector<float>() == std::vector<float>{0.5f, -1.0f, 2.0f});
  fs::remove_all(dir);
}
