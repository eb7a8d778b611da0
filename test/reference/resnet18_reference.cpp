// ResNet-18 on the reference layers: BasicBlocks and the whole forward pass.
#include "reference/resnet18_reference.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace tensorir::reference {

namespace {

void require(bool ok, const std::string &message) {
  if (!ok) throw std::invalid_argument(message);
}

}  // namespace

FeatureMap basic_block(const FeatureMap &x, const std::vector<NamedTensor> &weights, const std::string &prefix,
                       int64_t stride) {
  FeatureMap y = conv2d(x, find_tensor(weights, prefix + ".conv1.weight"), stride, 1);
  y = relu(batch_norm(y, weights, prefix + ".bn1"));
  y = conv2d(y, find_tensor(weights, prefix + ".conv2.weight"), 1, 1);
  y = batch_norm(y, weights, prefix + ".bn2");
  FeatureMap shortcut = x;
  const std::string projection = prefix + ".downsample.0.weight";
  const bool projects =
      std::any_of(weights.begin(), weights.end(), [&](const NamedTensor &t) { return t.name == projection; });
  if (projects)
    shortcut = batch_norm(conv2d(x, find_tensor(weights, projection), stride, 0), weights, prefix + ".downsample.1");
  require(shortcut.data.size() == y.data.size(),
          "basic_block: '" + prefix + "' shortcut shape differs from the residual");
  for (size_t i = 0; i < y.data.size(); ++i) y.data[i] += shortcut.data[i];
  return relu(std::move(y));
}

std::vector<float> resnet18_forward(const std::vector<NamedTensor> &weights, const std::vector<float> &input) {
  require(input.size() == size_t(3 * 224 * 224), "resnet18_forward: input must be 1x3x224x224 (150528 floats)");
  FeatureMap x{3, 224, 224, input};
  x = conv2d(x, find_tensor(weights, "conv1.weight"), 2, 3);
  x = relu(batch_norm(x, weights, "bn1"));
  x = max_pool2d(x, 3, 2, 1);
  for (int layer = 1; layer <= 4; ++layer)
    for (int block = 0; block < 2; ++block) {
      const int64_t stride = (layer > 1 && block == 0) ? 2 : 1;
      x = basic_block(x, weights, "layer" + std::to_string(layer) + "." + std::to_string(block), stride);
    }
  return linear(global_avg_pool(x), find_tensor(weights, "fc.weight"), find_tensor(weights, "fc.bias"));
}

}  // namespace tensorir::reference
