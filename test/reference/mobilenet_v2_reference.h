// Plain C++/Eigen MobileNetV2 inference (batch 1, NCHW, float, width multiplier 1.0) on the
// reference layers, written without any tensorir code so that it can judge tensorir's own
// build of the model.
//
// Layers follow torchvision's mobilenet_v2: features.0 is conv 3x3/2 pad 1 (3->32), BN,
// ReLU6; features.1-17 are inverted residual blocks from the table (expansion t, output c,
// repeats n, first stride s) = (1,16,1,1) (6,24,2,2) (6,32,3,2) (6,64,4,2) (6,96,3,1)
// (6,160,3,2) (6,320,1,1). A block with input width `in` and hidden width in * t runs
//   [1x1 conv to the hidden width, BN, ReLU6]   (only when t != 1)
//   3x3 depthwise conv (groups = hidden) with the block's stride, pad 1, BN, ReLU6
//   1x1 conv to c, BN (linear bottleneck: no activation)
// and adds its input when stride == 1 and in == c. features.18 is a 1x1 conv 320->1280, BN,
// ReLU6; then adaptive average pool to 1x1, flatten, dropout (identity at inference) and
// classifier.1, a 1280->1000 linear layer. All convs are bias-free; BN eps = 1e-5.
//
// Names: features.0.0 / .0.1 (conv, BN); in a block features.N.conv.M: with t != 1, M = 0 is
// the expansion (.0 conv, .1 BN), M = 1 the depthwise (.0, .1), M = 2 the projection conv and
// M = 3 its BN; with t == 1 the depthwise is M = 0, projection conv M = 1, BN M = 2.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "reference/layers.h"
#include "reference/weights.h"

namespace tensorir::reference {

// All MobileNetV2 tensors by the recipe of weights.h (depthwise fan-in 1 * 3 * 3,
// classifier.1 +-1/sqrt(1280)), in torchvision's state_dict order.
std::vector<NamedTensor> mobilenet_v2_weights(uint64_t seed);

// One inverted residual block named like "features.5".
FeatureMap inverted_residual(const FeatureMap &x, const std::vector<NamedTensor> &weights, const std::string &prefix,
                             int64_t expansion, int64_t out_channels, int64_t stride);

// The outputs of features.0 .. features.18 (19 maps, the last 1280x7x7, which the classifier
// pools) for one 3x224x224 image (NCHW, batch 1). The intermediate maps let a test judge
// each part of the network on its own: with the seeded weights the logits depend on the
// image only faintly.
std::vector<FeatureMap> mobilenet_v2_feature_maps(const std::vector<NamedTensor> &weights,
                                                  const std::vector<float> &input);

// The classifier on the output of features.18: average pool, (dropout,) classifier.1.
std::vector<float> mobilenet_v2_head(const std::vector<NamedTensor> &weights, const FeatureMap &features);

// The 1000 logits for one 3x224x224 image (NCHW, batch 1) and weights from mobilenet_v2_weights().
std::vector<float> mobilenet_v2_forward(const std::vector<NamedTensor> &weights, const std::vector<float> &input);

}  // namespace tensorir::reference
