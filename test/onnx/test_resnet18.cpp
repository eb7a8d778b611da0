// ResNet-18 as PyTorch exports it to ONNX (opset 13, eval mode: Conv, BatchNormalization,
// Relu, MaxPool, Add, GlobalAveragePool, x.view(x.size(0), -1) as Shape -> Gather ->
// Unsqueeze -> Concat -> Reshape, Gemm; a symbolic batch), built here from the seeded
// torchvision weights of test/reference, imported, and compared with the independent
// Eigen reference model on the same image.
#include <tensorir/frontend/onnx.h>
#include <tensorir/graph/executor.h>

#include "onnx/onnx_test_util.h"
#include "reference/resnet18_reference.h"

using namespace tensorir;
using onnx_test::attr;
using onnx_test::ModelBuilder;
namespace tonnx = tensorir::onnx;
namespace ref = tensorir::reference;

namespace {

class ResNetExporter {
 public:
  explicit ResNetExporter(const std::vector<ref::NamedTensor> &weights) : weights_(weights) {}

  ModelBuilder &model() { return mb_; }

  void param(const std::string &name) {
    const ref::NamedTensor &t = ref::find_tensor(weights_, name);
    NDArray a = NDArray::empty(t.shape, Float(32));
    std::copy(t.data.begin(), t.data.end(), a.data_as<float>());
    mb_.initializer(name, a);
  }

  // conv (no bias) -> BatchNormalization [-> Relu]; returns the output's name.
  std::string conv_bn(const std::string &x, const std::string &conv, const std::string &bn, int64_t k, int64_t stride,
                      int64_t pad, bool relu) {
    param(conv + ".weight");
    auto &c = mb_.node("Conv", {x, conv + ".weight"}, {conv + "_out"}, "/" + conv + "/Conv");
    attr(c, "kernel_shape", std::vector<int64_t>{k, k});
    attr(c, "strides", std::vector<int64_t>{stride, stride});
    attr(c, "pads", std::vector<int64_t>{pad, pad, pad, pad});
    for (const char *p : {".weight", ".bias", ".running_mean", ".running_var"}) param(bn + p);
    auto &b = mb_.node("BatchNormalization",
                       {conv + "_out", bn + ".weight", bn + ".bias", bn + ".running_mean", bn + ".running_var"},
                       {bn + "_out"}, "/" + bn + "/BatchNormalization");
    attr(b, "epsilon", 1e-5f);
    if (!relu) return bn + "_out";
    mb_.node("Relu", {bn + "_out"}, {bn + "_relu"});
    return bn + "_relu";
  }

  std::string block(const std::string &x, const std::string &prefix, int64_t stride, bool downsample) {
    std::string y = conv_bn(x, prefix + ".conv1", prefix + ".bn1", 3, stride, 1, true);
    y = conv_bn(y, prefix + ".conv2", prefix + ".bn2", 3, 1, 1, false);
    std::string shortcut = x;
    if (downsample) shortcut = conv_bn(x, prefix + ".downsample.0", prefix + ".downsample.1", 1, stride, 0, false);
    mb_.node("Add", {y, shortcut}, {prefix + "_add"});
    mb_.node("Relu", {prefix + "_add"}, {prefix + "_out"});
    return prefix + "_out";
  }

  void build() {
    mb_.input("input", {std::string("batch_size"), int64_t{3}, int64_t{224}, int64_t{224}});
    std::string x = conv_bn("input", "conv1", "bn1", 7, 2, 3, true);
    auto &pool = mb_.node("MaxPool", {x}, {"maxpool_out"}, "/maxpool/MaxPool");
    attr(pool, "kernel_shape", std::vector<int64_t>{3, 3});
    attr(pool, "strides", std::vector<int64_t>{2, 2});
    attr(pool, "pads", std::vector<int64_t>{1, 1, 1, 1});
    x = "maxpool_out";
    for (int s = 0; s < 4; ++s)
      for (int b = 0; b < 2; ++b) {
        const std::string prefix = "layer" + std::to_string(s + 1) + "." + std::to_string(b);
        const int64_t stride = s > 0 && b == 0 ? 2 : 1;
        x = block(x, prefix, stride, s > 0 && b == 0);
      }
    mb_.node("GlobalAveragePool", {x}, {"avgpool_out"}, "/avgpool/GlobalAveragePool");
    // x.view(x.size(0), -1)
    mb_.node("Shape", {"avgpool_out"}, {"shape"});
    mb_.initializer("zero", NDArray::from_vector<int64_t>({0}, {}));
    mb_.initializer("axes0", NDArray::from_vector<int64_t>({0}, {1}));
    mb_.initializer("minus_one", NDArray::from_vector<int64_t>({-1}, {1}));
    attr(mb_.node("Gather", {"shape", "zero"}, {"batch"}), "axis", int64_t{0});
    mb_.node("Unsqueeze", {"batch", "axes0"}, {"batch1"});
    attr(mb_.node("Concat", {"batch1", "minus_one"}, {"view_shape"}), "axis", int64_t{0});
    mb_.node("Reshape", {"avgpool_out", "view_shape"}, {"flat"});
    param("fc.weight");
    param("fc.bias");
    auto &fc = mb_.node("Gemm", {"flat", "fc.weight", "fc.bias"}, {"output"}, "/fc/Gemm");
    attr(fc, "transB", int64_t{1});
    mb_.output("output", {std::string("batch_size"), int64_t{1000}});
  }

 private:
  const std::vector<ref::NamedTensor> &weights_;
  ModelBuilder mb_{13, "torch_jit"};
};

}  // namespace

TEST_CASE("ResNet-18 as PyTorch exports it matches the reference model", "[onnx][resnet18]") {
  const uint64_t seed = 2024;
  const std::vector<ref::NamedTensor> weights = ref::resnet18_weights(seed);
  ResNetExporter exporter(weights);
  exporter.build();
  const std::string bytes = exporter.model().bytes();

  tonnx::ImportOptions opt;
  opt.input_shapes["input"] = {1, 3, 224, 224};
  const graph::Graph g = tonnx::import_bytes(bytes, opt);
  // The view's target shape is known at import: no shape arithmetic is left in the graph.
  CHECK(g.node("flat").op == "reshape");
  CHECK(g.node("flat").attr_ints("shape") == std::vector<int64_t>{1, 512});
  for (const graph::Node &n : g.nodes()) CHECK(n.dtype == Float(32));

  const graph::CompiledModel m = graph::build(g, "llvm");
  const NDArray input = NDArray::random({1, 3, 224, 224}, Float(32), 99);
  const NDArray got = m.run({{"input", input}})["output"];
  REQUIRE(got.shape() == std::vector<int64_t>{1, 1000});
  const std::vector<float> want = ref::resnet18_forward(weights, input.to_vector<float>());
  const std::vector<float> out = got.to_vector<float>();
  double diff = 0, scale = 0;
  for (size_t i = 0; i < out.size(); ++i) {
    diff = std::max(diff, std::fabs(double(out[i]) - want[i]));
    scale = std::max(scale, std::fabs(double(want[i])));
  }
  INFO("max |a - b| / max |b| = " << diff / scale);
  CHECK(diff / scale < 1e-4);
}
