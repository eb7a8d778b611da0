// Plain C++/Eigen ResNet-50 inference (batch 1, NCHW, float) on the reference layers, written
// without any tensorir code so that it can judge tensorir's own build of the model.
//
// Layers follow torchvision's resnet50: the ResNet-18 stem (conv 7x7/2 pad 3, BN, ReLU,
// maxpool 3x3/2 pad 1), four stages of [3, 4, 6, 3] Bottleneck blocks of width
// 64/128/256/512 and expansion 4 (conv1x1-BN-ReLU, conv3x3-BN-ReLU carrying the stage's
// stride, conv1x1-BN to 4 * width, plus the shortcut, then ReLU; a block whose stride is 2 or
// whose input is not 4 * width wide, i.e. the first of every stage, projects its shortcut
// with a strided 1x1 conv + BN), adaptive average pool to 1x1 and a 2048->1000 fc.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "reference/layers.h"
#include "reference/weights.h"

namespace tensorir::reference {

// All ResNet-50 tensors by the recipe of weights.h, in torchvision's state_dict order (conv1,
// bn1, per block conv1, bn1, conv2, bn2, conv3, bn3, [downsample.0, downsample.1], fc);
// fc uses +-1/sqrt(2048).
std::vector<NamedTensor> resnet50_weights(uint64_t seed);

// One Bottleneck named like "layer2.0" of `width` (output 4 * width channels).
FeatureMap bottleneck_block(const FeatureMap &x, const std::vector<NamedTensor> &weights, const std::string &prefix,
                            int64_t width, int64_t stride);

// For one 3x224x224 image (NCHW, batch 1): the stem's output (after maxpool) and then the
// output of every block, layer1.0 .. layer4.2 (17 maps, the last 2048x7x7), so that a test
// can judge each part of the network on its own.
std::vector<FeatureMap> resnet50_feature_maps(const std::vector<NamedTensor> &weights,
                                              const std::vector<float> &input);

// Average pool and fc on the output of layer4.
std::vector<float> resnet50_head(const std::vector<NamedTensor> &weights, const FeatureMap &features);

// The 1000 logits for one 3x224x224 image (NCHW, batch 1) and weights from resnet50_weights().
std::vector<float> resnet50_forward(const std::vector<NamedTensor> &weights, const std::vector<float> &input);

}  // namespace tensorir::reference
