// ResNet-18 and ResNet-50 as Graphs: torchvision's stem, four stages of residual blocks
// (BasicBlock for 18, Bottleneck with expansion 4 and the stride on the 3x3 conv for
// 50), global average pooling and fc, with the seeded weight recipe described in models.h.
#include <array>

#include "models/seeded_builder.h"
#include "tensorir/graph/models.h"

namespace tensorir::graph {

namespace {

class ResNetBuilder : public detail::SeededModelBuilder {
 public:
  enum class Block { Basic, Bottleneck };

  explicit ResNetBuilder(uint64_t seed) : SeededModelBuilder(seed) {}

  Graph build(Block style, const std::array<int, 4> &blocks) {
    NodeRef x = b.input("data", {1, 3, 224, 224});
    x = b.relu(bn(conv(x, "conv1", 64, 7, 2, 3), "bn1"), "relu");
    x = b.max_pool2d(x, {3, 3}, {2, 2}, {1, 1}, "maxpool");
    const int64_t widths[] = {64, 128, 256, 512};
    for (int layer = 0; layer < 4; ++layer)
      for (int block = 0; block < blocks[layer]; ++block) {
        const int stride = layer > 0 && block == 0 ? 2 : 1;
        const std::string p = "layer" + std::to_string(layer + 1) + "." + std::to_string(block);
        x = style == Block::Basic ? basic_block(x, p, widths[layer], stride) : bottleneck(x, p, widths[layer], stride);
      }
    x = b.flatten(b.global_avg_pool2d(x, "avgpool"), "flatten");
    x = linear(x, "fc", 1000);
    return b.finish(x);
  }

 private:
  NodeRef basic_block(NodeRef x, const std::string &p, int64_t width, int stride) {
    NodeRef y = b.relu(bn(conv(x, p + ".conv1", width, 3, stride, 1), p + ".bn1"), p + ".relu1");
    y = bn(conv(y, p + ".conv2", width, 3, 1, 1), p + ".bn2");
    return b.relu(b.add(y, shortcut(x, p, width, stride), p + ".add"), p + ".relu2");
  }

  NodeRef bottleneck(NodeRef x, const std::string &p, int64_t planes, int stride) {
    NodeRef y = b.relu(bn(conv(x, p + ".conv1", planes, 1, 1, 0), p + ".bn1"), p + ".relu1");
    y = b.relu(bn(conv(y, p + ".conv2", planes, 3, stride, 1), p + ".bn2"), p + ".relu2");
    y = bn(conv(y, p + ".conv3", planes * 4, 1, 1, 0), p + ".bn3");
    return b.relu(b.add(y, shortcut(x, p, planes * 4, stride), p + ".add"), p + ".relu3");
  }

  // The input itself, or a strided 1x1 conv + bn where the shape changes.
  NodeRef shortcut(NodeRef x, const std::string &p, int64_t width, int stride) {
    if (stride == 1 && b.node(x).shape[1] == width) return x;
    return bn(conv(x, p + ".downsample.0", width, 1, stride, 0), p + ".downsample.1");
  }
};

}  // namespace

Graph resnet18(uint64_t seed) { return ResNetBuilder(seed).build(ResNetBuilder::Block::Basic, {2, 2, 2, 2}); }
Graph resnet50(uint64_t seed) { return ResNetBuilder(seed).build(ResNetBuilder::Block::Bottleneck, {3, 4, 6, 3}); }

}  // namespace tensorir::graph
