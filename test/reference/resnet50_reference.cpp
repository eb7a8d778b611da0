// ResNet-50 on the reference layers: its weight list, Bottleneck blocks and forward pass.
#include "reference/resnet50_reference.h"

#include <stdexcept>
#include <string>

namespace tensorir::reference {

namespace {

constexpr int kBlocks[4] = {3, 4, 6, 3};
constexpr int64_t kWidths[4] = {64, 128, 256, 512};
constexpr int64_t kExpansion = 4;

// torchvision: the first block of stages 2-4 downsamples; stage 1 keeps the resolution.
int64_t block_stride(int layer, int block) { return layer > 0 && block == 0 ? 2 : 1; }

std::string block_name(int layer, int block) {
  return "layer" + std::to_string(layer + 1) + "." + std::to_string(block);
}

}  // namespace

std::vector<NamedTensor> resnet50_weights(uint64_t seed) {
  std::vector<NamedTensor> w;
  append_conv(w, seed, "conv1.weight", 64, 3, 7);
  append_batch_norm(w, seed, "bn1", 64);
  int64_t in = 64;
  for (int layer = 0; layer < 4; ++layer)
    for (int block = 0; block < kBlocks[layer]; ++block) {
      const int64_t width = kWidths[layer], out = width * kExpansion;
      const std::string p = block_name(layer, block) + ".";
      append_conv(w, seed, p + "conv1.weight", width, in, 1);
      append_batch_norm(w, seed, p + "bn1", width);
      append_conv(w, seed, p + "conv2.weight", width, width, 3);
      append_batch_norm(w, seed, p + "bn2", width);
      append_conv(w, seed, p + "conv3.weight", out, width, 1);
      append_batch_norm(w, seed, p + "bn3", out);
      if (block_stride(layer, block) != 1 || in != out) {
        append_conv(w, seed, p + "downsample.0.weight", out, in, 1);
        append_batch_norm(w, seed, p + "downsample.1", out);
      }
      in = out;
    }
  append_linear(w, seed, "fc", 1000, 512 * kExpansion);
  return w;
}

FeatureMap bottleneck_block(const FeatureMap &x, const std::vector<NamedTensor> &weights, const std::string &prefix,
                            int64_t width, int64_t stride) {
  const int64_t out = width * kExpansion;
  FeatureMap y = relu(batch_norm(conv2d(x, find_tensor(weights, prefix + ".conv1.weight"), 1, 0), weights,
                                 prefix + ".bn1"));
  y = relu(batch_norm(conv2d(y, find_tensor(weights, prefix + ".conv2.weight"), stride, 1), weights, prefix + ".bn2"));
  y = batch_norm(conv2d(y, find_tensor(weights, prefix + ".conv3.weight"), 1, 0), weights, prefix + ".bn3");
  if (y.c != out) throw std::invalid_argument("bottleneck_block: '" + prefix + "' conv3 must give 4 * width channels");
  if (stride == 1 && x.c == out) return relu(add(std::move(y), x));
  const FeatureMap shortcut = batch_norm(conv2d(x, find_tensor(weights, prefix + ".downsample.0.weight"), stride, 0),
                                         weights, prefix + ".downsample.1");
  return relu(add(std::move(y), shortcut));
}

std::vector<FeatureMap> resnet50_feature_maps(const std::vector<NamedTensor> &weights,
                                              const std::vector<float> &input) {
  if (input.size() != size_t(3 * 224 * 224))
    throw std::invalid_argument("resnet50: input must be 1x3x224x224 (150528 floats)");
  FeatureMap x{3, 224, 224, input};
  x = relu(batch_norm(conv2d(x, find_tensor(weights, "conv1.weight"), 2, 3), weights, "bn1"));
  std::vector<FeatureMap> maps{max_pool2d(x, 3, 2, 1)};
  for (int layer = 0; layer < 4; ++layer)
    for (int block = 0; block < kBlocks[layer]; ++block)
      maps.push_back(
          bottleneck_block(maps.back(), weights, block_name(layer, block), kWidths[layer], block_stride(layer, block)));
  return maps;
}

std::vector<float> resnet50_head(const std::vector<NamedTensor> &weights, const FeatureMap &features) {
  return linear(global_avg_pool(features), find_tensor(weights, "fc.weight"), find_tensor(weights, "fc.bias"));
}

std::vector<float> resnet50_forward(const std::vector<NamedTensor> &weights, const std::vector<float> &input) {
  return resnet50_head(weights, resnet50_feature_maps(weights, input).back());
}

}  // namespace tensorir::reference
