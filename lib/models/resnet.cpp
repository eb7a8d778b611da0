// ResNet-18 as a Graph, with the seeded weight recipe described in models.h.
#include "models/seeded_builder.h"
#include "tensorir/graph/models.h"

namespace tensorir::graph {

namespace {

class ResNetBuilder : public detail::SeededModelBuilder {
 public:
  explicit ResNetBuilder(uint64_t seed) : SeededModelBuilder(seed) {}

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
    x = linear(x, "fc", 1000);
    return b.finish(x);
  }

};

}  // namespace

Graph resnet18(uint64_t seed) { return ResNetBuilder(seed).build(); }

}  // namespace tensorir::graph
