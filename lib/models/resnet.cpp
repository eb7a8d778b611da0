// ResNet-18 as a Graph, with the seeded weight recipe described in models.h.
#include <cmath>

#include "tensorir/graph/models.h"

namespace tensorir::graph {

namespace {

constexpr uint64_t kGolden = 0x9E3779B97F4A7C15ull;

uint64_t splitmix64(uint64_t x) {
  uint64_t z = x + kGolden;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

uint64_t fnv1a64(const std::string &s) {
  uint64_t h = 0xCBF29CE484222325ull;
  for (unsigned char c : s) h = (h ^ c) * 0x100000001B3ull;
  return h;
}

class ResNetBuilder {
 public:
  explicit ResNetBuilder(uint64_t seed) : seed_(seed) {}

  NodeRef param(const std::string &name, const std::vector<int64_t> &shape, double lo, double hi) {
    int64_t count = 1;
    for (int64_t d : shape) count *= d;
    std::vector<float> v(static_cast<size_t>(count));
    const uint64_t s = splitmix64(seed_ ^ fnv1a64(name));
    for (int64_t i = 0; i < count; ++i) {
      const double u = double(splitmix64(s + uint64_t(i) * kGolden) >> 40) * 0x1.0p-24;
      v[size_t(i)] = float(lo + (hi - lo) * u);
    }
    return b.constant(name, NDArray::from_vector(v, shape));
  }

  NodeRef conv(NodeRef x, const std::string &name, int64_t cout, int k, int stride, int pad) {
    const int64_t cin = b.node(x).shape[1];
    const double bound = std::sqrt(6.0 / double(cin * k * k)) * 0.5;
    NodeRef w = param(name + ".weight", {cout, cin, k, k}, -bound, bound);
    ops::Conv2dAttrs a;
    a.strides = {stride, stride};
    a.padding = {pad, pad};
    return b.conv2d(x, w, a, name);
  }

  NodeRef bn(NodeRef x, const std::string &name) {
    const int64_t c = b.node(x).shape[1];
    NodeRef gamma = param(name + ".weight", {c}, 0.5, 1.5);
    NodeRef beta = param(name + ".bias", {c}, -0.1, 0.1);
    NodeRef mean = param(name + ".running_mean", {c}, -0.1, 0.1);
    NodeRef var = param(name + ".running_var", {c}, 0.5, 1.5);
    return b.batch_norm(x, gamma, beta, mean, var, 1e-5, name);
  }

  NodeRef basic_block(NodeRef x, const std::string &p, int64_t width, int stride) {
    NodeRef y = b.relu(bn(conv(x, p + ".conv1", width, 3, stride, 1), p + ".bn1"), p + ".relu1");
    y = bn(conv(y, p + ".conv2", width, 3, 1, 1), p + ".bn2");
    NodeRef shortcut = x;
    if (stride != 1 || b.node(x).shape[1] != width)
      shortcut = bn(conv(x, p + ".downsample.0", width, 1, stride, 0), p + ".downsample.1");
    return b.relu(b.add(y, shortcut, p + ".add"), p + ".relu2");
  }

  Graph build() {
    NodeRef x = b.input("data", {1, 3, 224, 224});
    x = b.relu(bn(conv(x, "conv1", 64, 7, 2, 3), "bn1"), "relu");
    x = b.max_pool2d(x, {3, 3}, {2, 2}, {1, 1}, "maxpool");
    const int64_t widths[] = {64, 128, 256, 512};
    for (int layer = 0; layer < 4; ++layer)
      for (int block = 0; block < 2; ++block) {
        const int stride = layer > 0 && block == 0 ? 2 : 1;
        x = basic_block(x, "layer" + std::to_string(layer + 1) + "." + std::to_string(block), widths[layer], stride);
      }
    x = b.flatten(b.global_avg_pool2d(x, "avgpool"), "flatten");
    const double bound = 1.0 / std::sqrt(512.0);
    NodeRef w = param("fc.weight", {1000, 512}, -bound, bound);
    NodeRef bias = param("fc.bias", {1000}, -bound, bound);
    x = b.bias_add(b.dense(x, w, "fc"), bias, 1, "fc.bias_add");
    return b.finish(x);
  }

 private:
  uint64_t seed_;
  Builder b;
};

}  // namespace

Graph resnet18(uint64_t seed) { return ResNetBuilder(seed).build(); }

}  // namespace tensorir::graph
