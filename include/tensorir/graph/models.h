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

}  // namespace tensorir::graph
