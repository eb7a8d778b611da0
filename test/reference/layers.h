// Plain C++/Eigen inference layers (batch 1, NCHW, float) for the reference models, written
// without any tensorir code so that they can judge tensorir's own builds of those models.
// Everything accumulates in float, as an ordinary implementation would.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "reference/weights.h"

namespace tensorir::reference {

// One image's feature map, channel-major: data[(c * h + y) * w + x].
struct FeatureMap {
  int64_t c = 0, h = 0, w = 0;
  std::vector<float> data;
};

// Bias-free 2-D convolution; `weight` is [Cout, Cin / groups, K, K] (square kernel), and
// output channels [g * Cout / groups, (g + 1) * Cout / groups) see only input channels
// [g * Cin / groups, (g + 1) * Cin / groups). Computed as im2col followed by one Eigen GEMM
// per group (groups == Cin is a depthwise convolution).
FeatureMap conv2d(const FeatureMap &x, const NamedTensor &weight, int64_t stride, int64_t pad, int64_t groups = 1);

// Inference batch norm with the four tensors of `prefix` (prefix.weight, .bias, .running_mean,
// .running_var) from `weights`.
FeatureMap batch_norm(const FeatureMap &x, const std::vector<NamedTensor> &weights, const std::string &prefix,
                      float eps = 1e-5f);

FeatureMap relu(FeatureMap x);

// min(max(x, 0), 6).
FeatureMap relu6(FeatureMap x);

// Elementwise a + b (the residual connection); both maps must have the same shape.
FeatureMap add(FeatureMap a, const FeatureMap &b);

// Max pooling with a square window; padded positions never win (they act as -inf).
FeatureMap max_pool2d(const FeatureMap &x, int64_t kernel, int64_t stride, int64_t pad);

// Adaptive average pool to 1x1: one mean per channel.
std::vector<float> global_avg_pool(const FeatureMap &x);

// y = W x + b with W [out, in] row-major.
std::vector<float> linear(const std::vector<float> &x, const NamedTensor &weight, const NamedTensor &bias);

}  // namespace tensorir::reference
