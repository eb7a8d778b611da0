// MobileNetV2 on the reference layers: its weight list, inverted residual blocks and forward pass.
#include "reference/mobilenet_v2_reference.h"

#include <stdexcept>
#include <string>

namespace tensorir::reference {

namespace {

// One row of the MobileNetV2 paper's table 2, as torchvision uses it.
struct Stage {
  int64_t expansion, channels, repeats, stride;
};
constexpr Stage kStages[7] = {{1, 16, 1, 1}, {6, 24, 2, 2}, {6, 32, 3, 2}, {6, 64, 4, 2},
                              {6, 96, 3, 1}, {6, 160, 3, 2}, {6, 320, 1, 1}};
constexpr int64_t kStemChannels = 32, kLastChannels = 1280, kClasses = 1000;

// Visits features.1 .. features.17 in order with (prefix, expansion, in, out, stride).
template <typename Visit>
void for_each_block(Visit visit) {
  int64_t in = kStemChannels;
  int index = 1;
  for (const Stage &s : kStages)
    for (int64_t i = 0; i < s.repeats; ++i) {
      visit("features." + std::to_string(index++), s.expansion, in, s.channels, i == 0 ? s.stride : 1);
      in = s.channels;
    }
}

// The name of sub-module m of a block's `conv` Sequential.
std::string part(const std::string &block, int m) { return block + ".conv." + std::to_string(m); }

FeatureMap conv_bn_relu6(const FeatureMap &x, const std::vector<NamedTensor> &weights, const std::string &prefix,
                         int64_t stride, int64_t groups) {
  const NamedTensor &w = find_tensor(weights, prefix + ".0.weight");
  return relu6(batch_norm(conv2d(x, w, stride, w.shape[2] / 2, groups), weights, prefix + ".1"));
}

}  // namespace

std::vector<NamedTensor> mobilenet_v2_weights(uint64_t seed) {
  std::vector<NamedTensor> w;
  append_conv(w, seed, "features.0.0.weight", kStemChannels, 3, 3);
  append_batch_norm(w, seed, "features.0.1", kStemChannels);
  for_each_block([&](const std::string &p, int64_t t, int64_t in, int64_t out, int64_t) {
    const int64_t hidden = in * t;
    int m = 0;
    if (t != 1) {
      append_conv(w, seed, part(p, m) + ".0.weight", hidden, in, 1);
      append_batch_norm(w, seed, part(p, m++) + ".1", hidden);
    }
    append_conv(w, seed, part(p, m) + ".0.weight", hidden, 1, 3);  // depthwise: one input channel per group
    append_batch_norm(w, seed, part(p, m++) + ".1", hidden);
    append_conv(w, seed, part(p, m++) + ".weight", out, hidden, 1);
    append_batch_norm(w, seed, part(p, m), out);
  });
  append_conv(w, seed, "features.18.0.weight", kLastChannels, 320, 1);
  append_batch_norm(w, seed, "features.18.1", kLastChannels);
  append_linear(w, seed, "classifier.1", kClasses, kLastChannels);
  return w;
}

FeatureMap inverted_residual(const FeatureMap &x, const std::vector<NamedTensor> &weights, const std::string &prefix,
                             int64_t expansion, int64_t out_channels, int64_t stride) {
  const int64_t hidden = x.c * expansion;
  FeatureMap y = x;
  int m = 0;
  if (expansion != 1) y = conv_bn_relu6(y, weights, part(prefix, m++), 1, 1);
  if (y.c != hidden) throw std::invalid_argument("inverted_residual: '" + prefix + "' expansion width mismatch");
  y = conv_bn_relu6(y, weights, part(prefix, m++), stride, hidden);
  y = conv2d(y, find_tensor(weights, part(prefix, m++) + ".weight"), 1, 0);
  y = batch_norm(y, weights, part(prefix, m));
  if (y.c != out_channels) throw std::invalid_argument("inverted_residual: '" + prefix + "' output width mismatch");
  if (stride == 1 && x.c == out_channels) return add(std::move(y), x);
  return y;
}

std::vector<FeatureMap> mobilenet_v2_feature_maps(const std::vector<NamedTensor> &weights,
                                                  const std::vector<float> &input) {
  if (input.size() != size_t(3 * 224 * 224))
    throw std::invalid_argument("mobilenet_v2: input must be 1x3x224x224 (150528 floats)");
  std::vector<FeatureMap> maps;
  maps.push_back(conv_bn_relu6(FeatureMap{3, 224, 224, input}, weights, "features.0", 2, 1));
  for_each_block([&](const std::string &p, int64_t t, int64_t, int64_t out, int64_t stride) {
    maps.push_back(inverted_residual(maps.back(), weights, p, t, out, stride));
  });
  maps.push_back(conv_bn_relu6(maps.back(), weights, "features.18", 1, 1));
  return maps;
}

std::vector<float> mobilenet_v2_head(const std::vector<NamedTensor> &weights, const FeatureMap &features) {
  // Dropout(0.2) before the classifier is the identity at inference.
  return linear(global_avg_pool(features), find_tensor(weights, "classifier.1.weight"),
                find_tensor(weights, "classifier.1.bias"));
}

std::vector<float> mobilenet_v2_forward(const std::vector<NamedTensor> &weights, const std::vector<float> &input) {
  return mobilenet_v2_head(weights, mobilenet_v2_feature_maps(weights, input).back());
}

}  // namespace tensorir::reference
