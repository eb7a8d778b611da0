// Plain C++/Eigen ResNet-18 inference (batch 1, NCHW, float), written without any tensorir
// code so that it can judge tensorir's own build of the model.
//
// Layers follow torchvision's resnet18: conv 7x7/2 pad 3, BN, ReLU, maxpool 3x3/2 pad 1,
// four stages of two BasicBlocks (conv3x3-BN-ReLU-conv3x3-BN, plus the shortcut, then ReLU;
// the first block of stages 2-4 has stride 2 and a 1x1/2 conv + BN shortcut), adaptive
// average pool to 1x1 and a 512->1000 fully connected layer. BN uses running statistics
// with eps = 1e-5. Everything accumulates in float, as an ordinary implementation would.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "reference/layers.h"
#include "reference/weights.h"

namespace tensorir::reference {

// One BasicBlock named like "layer2.0"; the shortcut projects when `prefix.downsample.0.weight` exists.
FeatureMap basic_block(const FeatureMap &x, const std::vector<NamedTensor> &weights, const std::string &prefix,
                       int64_t stride);

// The 1000 logits for one 3x224x224 image (NCHW, batch 1) and weights from resnet18_weights().
std::vector<float> resnet18_forward(const std::vector<NamedTensor> &weights, const std::vector<float> &input);

}  // namespace tensorir::reference
