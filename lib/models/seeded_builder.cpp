#include "models/seeded_builder.h"

#include <cmath>

namespace tensorir::graph::detail {

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
}  // namespace

NodeRef SeededModelBuilder::param(const std::string &name, const std::vector<int64_t> &shape, double lo, double hi) {
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

NodeRef SeededModelBuilder::conv(NodeRef x, const std::string &name, int64_t cout, int k, int stride, int pad,
                                 int groups) {
  const int64_t per_group = b.node(x).shape[1] / groups;
  const double bound = std::sqrt(6.0 / double(per_group * k * k)) * 0.5;
  NodeRef w = param(name + ".weight", {cout, per_group, k, k}, -bound, bound);
  ops::Conv2dAttrs a;
  a.strides = {stride, stride};
  a.padding = {pad < 0 ? k / 2 : pad, pad < 0 ? k / 2 : pad};
  a.groups = groups;
  return b.conv2d(x, w, a, name);
}

NodeRef SeededModelBuilder::bn(NodeRef x, const std::string &name) {
  const int64_t c = b.node(x).shape[1];
  NodeRef gamma = param(name + ".weight", {c}, 0.5, 1.5);
  NodeRef beta = param(name + ".bias", {c}, -0.1, 0.1);
  NodeRef mean = param(name + ".running_mean", {c}, -0.1, 0.1);
  NodeRef var = param(name + ".running_var", {c}, 0.5, 1.5);
  return b.batch_norm(x, gamma, beta, mean, var, 1e-5, name);
}

NodeRef SeededModelBuilder::linear(NodeRef x, const std::string &name, int64_t out) {
  const int64_t in = b.node(x).shape[1];
  const double bound = 1.0 / std::sqrt(double(in));
  NodeRef w = param(name + ".weight", {out, in}, -bound, bound);
  NodeRef bias = param(name + ".bias", {out}, -bound, bound);
  return b.bias_add(b.dense(x, w, name), bias, 1, name + ".bias_add");
}

}  // namespace tensorir::graph::detail
