// ResNet-50 as a Graph: torchvision's Bottleneck network (blocks [3, 4, 6, 3], expansion 4,
// stride on the 3x3 conv) with the seeded weight recipe described in models.h.
#include "models/seeded_builder.h"
#include "tensorir/graph/models.h"

namespace tensorir::graph {

namespace {

class ResNet50Builder : public detail::SeededModelBuilder {
 public:
  explicit ResNet50Builder(uint64_t seed) : SeededModelBuilder(seed) {}

  NodeRef bottleneck(NodeRef x, const std::string &p, int64_t planes, int stride) {
    NodeRef y = b.relu(bn(conv(x, p + ".conv1", planes, 1, 1, 0), p + ".bn1"), p + ".relu1");
    y = b.relu(bn(conv(y, p + ".conv2", planes, 3, stride, 1), p + ".bn2"), p + ".relu2");
    y = bn(conv(y, p + ".conv3", planes * 4, 1, 1, 0), p + ".bn3");
    NodeRef shortcut = x;
    if (stride != 1 || b.node(x).shape[1] != planes * 4)
      shortcut = bn(conv(x, p + ".downsample.0", planes * 4, 1, stride, 0), p + ".downsample.1");
    return b.relu(b.add(y, shortcut, p + ".add"), p + ".relu3");
  }

  Graph build() {
    NodeRef x = b.input("data", {1, 3, 224, 224});
    x = b.relu(bn(conv(x, "conv1", 64, 7, 2, 3), "bn1"), "relu");
    x = b.max_pool2d(x, {3, 3}, {2, 2}, {1, 1}, "maxpool");
    const int64_t planes[] = {64, 128, 256, 512};
    const int blocks[] = {3, 4, 6, 3};
    for (int layer = 0; layer < 4; ++layer)
      for (int block = 0; block < blocks[layer]; ++block) {
        const int stride = layer > 0 && block == 0 ? 2 : 1;
        x = bottleneck(x, "layer" + std::to_string(layer + 1) + "." + std::to_string(block), planes[layer], stride);
      }
    x = b.flatten(b.global_avg_pool2d(x, "avgpool"), "flatten");
    x = linear(x, "fc", 1000);
    return b.finish(x);
  }

};

}  // namespace

Graph resnet50(uint64_t seed) { return ResNet50Builder(seed).build(); }

}  // namespace tensorir::graph
