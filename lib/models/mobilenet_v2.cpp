// MobileNetV2 as a Graph: torchvision's layout (features.0 .. features.18, classifier.1),
// ReLU6 as clip(0, 6), with the seeded weight recipe described in models.h.
#include "models/seeded_builder.h"
#include "tensorir/graph/models.h"

namespace tensorir::graph {

namespace {

class MobileNetV2Builder : public detail::SeededModelBuilder {
 public:
  explicit MobileNetV2Builder(uint64_t seed) : SeededModelBuilder(seed) {}

  // torchvision's Conv2dNormActivation: p.0 conv, p.1 bn, p.2 ReLU6.
  NodeRef conv_bn_relu6(NodeRef x, const std::string &p, int64_t cout, int k, int stride, int groups = 1) {
    NodeRef y = bn(conv(x, p + ".0", cout, k, stride, -1, groups), p + ".1");
    return b.make("clip", {y}, {{"lo", 0.0}, {"hi", 6.0}}, p + ".2");
  }

  NodeRef inverted_residual(NodeRef x, const std::string &p, int64_t expand, int64_t cout, int stride) {
    const int64_t cin = b.node(x).shape[1];
    const int64_t hidden = cin * expand;
    NodeRef y = x;
    int m = 0;  // index into torchvision's block.conv Sequential
    if (expand != 1) y = conv_bn_relu6(y, p + ".conv." + std::to_string(m++), hidden, 1, 1);
    y = conv_bn_relu6(y, p + ".conv." + std::to_string(m++), hidden, 3, stride, int(hidden));
    const std::string proj = p + ".conv." + std::to_string(m++);
    y = bn(conv(y, proj, cout, 1, 1), p + ".conv." + std::to_string(m));
    if (stride == 1 && cin == cout) y = b.add(y, x, p + ".add");
    return y;
  }

  Graph build() {
    NodeRef x = b.input("data", {1, 3, 224, 224});
    x = conv_bn_relu6(x, "features.0", 32, 3, 2);
    // (expansion t, channels c, repeats n, first stride s), as in the paper's table 2.
    const int64_t settings[7][4] = {{1, 16, 1, 1}, {6, 24, 2, 2}, {6, 32, 3, 2}, {6, 64, 4, 2},
                                    {6, 96, 3, 1}, {6, 160, 3, 2}, {6, 320, 1, 1}};
    int index = 1;
    for (const auto &s : settings)
      for (int64_t i = 0; i < s[2]; ++i)
        x = inverted_residual(x, "features." + std::to_string(index++), s[0], s[1], i == 0 ? int(s[3]) : 1);
    x = conv_bn_relu6(x, "features.18", 1280, 1, 1);
    x = b.flatten(b.global_avg_pool2d(x, "avgpool"), "flatten");
    x = linear(x, "classifier.1", 1000);
    return b.finish(x);
  }

};

}  // namespace

Graph mobilenet_v2(uint64_t seed) { return MobileNetV2Builder(seed).build(); }

}  // namespace tensorir::graph
