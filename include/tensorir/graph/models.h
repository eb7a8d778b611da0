// Ready-made networks as Graphs, with seeded weights.
#pragma once
#include <cstdint>

#include "tensorir/graph/graph.h"

namespace tensorir::graph {

// torchvision's resnet18 for one 3x224x224 image (input "data", NCHW float32) in
// inference mode, giving [1, 1000] logits. Nodes and parameters carry torchvision's
// names (conv1, bn1, layer1.0.conv1, ..., fc; parameters like "layer1.0.bn1.running_var").
// Weights follow a seeded recipe that any implementation can reproduce: for parameter
// `name`, s = splitmix64(seed ^ fnv1a64(name)) and element i is
// lo + (hi - lo) * (splitmix64(s + i * 0x9E3779B97F4A7C15) >> 40) * 2^-24 in double,
// rounded to float; conv weights use +-sqrt(6 / fan_in) / 2, BN gamma and running_var
// [0.5, 1.5), beta and running_mean [-0.1, 0.1), fc +-1/sqrt(512).
Graph resnet18(uint64_t seed);

// torchvision's resnet50 (Bottleneck blocks [3, 4, 6, 3], expansion 4) with the same
// input, output, naming (layer1.0.conv1/bn1/conv2/bn2/conv3/bn3, downsample.0/1, fc) and
// recipe; fc [1000, 2048] uses +-1/sqrt(2048). 25,557,032 learnable parameters.
Graph resnet50(uint64_t seed);

// torchvision's mobilenet_v2 (width 1.0) with the same input, output and recipe. Names
// follow torchvision: features.0.0 / features.0.1 (stem conv and BN), features.N.conv.M.*
// for the inverted residual blocks 1..17, features.18.0 / .1, classifier.1 (linear
// [1000, 1280], +-1/sqrt(1280)); ReLU6 nodes are clip(0, 6) named like torchvision's
// activation (features.0.2, features.N.conv.M.2). A grouped conv's fan-in is
// in_channels / groups * kh * kw. 3,504,872 learnable parameters.
Graph mobilenet_v2(uint64_t seed);

}  // namespace tensorir::graph
