// Seeded, machine-independent model weights with torchvision's names and shapes (ResNet-18
// here; ResNet-50 and MobileNetV2 lists come with their reference models).
//
// Recipe (any implementation that follows it reproduces the same floats bit for bit):
//
//   splitmix64(x):  z = x + 0x9E3779B97F4A7C15
//                   z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
//                   z = (z ^ (z >> 27)) * 0x94D049BB133111EB
//                   return z ^ (z >> 31)                  (all arithmetic mod 2^64)
//   fnv1a64(name):  h = 0xCBF29CE484222325; for each byte c of name (no terminator):
//                   h = (h ^ c) * 0x100000001B3
//
//   For a tensor called `name` and the model seed `seed`:
//     s       = splitmix64(seed ^ fnv1a64(name))
//     r_i     = splitmix64(s + i * 0x9E3779B97F4A7C15)   for element i = 0, 1, ... in
//               row-major (C) order of the tensor's shape
//     u_i     = double(r_i >> 40) * 2^-24                 (24 bits, exactly in [0, 1))
//     value_i = float(lo + (hi - lo) * u_i)               (lo, hi, the product and the sum in
//                                                          IEEE double, rounded once to float)
//   Each tensor depends only on (seed, name), so the order of generation does not matter.
//
//   Ranges per tensor kind (u_i is in [0, 1); rounding to float may land exactly on hi).
//   lo and hi are doubles; decimal constants are the nearest doubles, and b is computed in
//   double as 6.0 / fan_in, then sqrt, then * 0.5 (fan_in = Cin/groups*K*K, so 1*K*K for a
//   depthwise conv); a linear layer's bound is 1.0 / sqrt(double(in)), 1/sqrt(512.0) for
//   ResNet-18's fc:
//     conv weights [Cout, Cin/groups, K, K]  lo = -b, hi = b, b = sqrt(6.0 / fan_in) * 0.5
//     BN  weight (gamma)               [0.5, 1.5)
//     BN  bias   (beta)                [-0.1, 0.1)
//     BN  running_mean                 [-0.1, 0.1)
//     BN  running_var                  [0.5, 1.5)
//     linear weight [out, in], bias [out]   lo = -1/sqrt(in), hi = 1/sqrt(in)
//     (ResNet-18: fc.weight [1000, 512], fc.bias [1000])
//
//   The ResNet-18 list order is torchvision's state_dict order without num_batches_tracked: conv1, bn1,
//   then per block conv1, bn1, conv2, bn2, [downsample.0, downsample.1], then fc.weight,
//   fc.bias; every BN contributes weight, bias, running_mean, running_var in that order.
//   That is 20 conv weights + 20 BN x 4 + 2 fc = 102 tensors (62 of them are trainable
//   parameters, 11,689,512 elements in those).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace tensorir::reference {

struct NamedTensor {
  std::string name;
  std::vector<int64_t> shape;
  std::vector<float> data;
};

uint64_t splitmix64(uint64_t x);
uint64_t fnv1a64(const std::string &text);

// `count` values of the recipe above for tensor `name`, uniform in [lo, hi).
std::vector<float> seeded_uniform(uint64_t seed, const std::string &name, int64_t count, double lo, double hi);

// Appends one conv weight `name` [cout, cin_per_group, k, k] (fan-in cin_per_group * k * k).
void append_conv(std::vector<NamedTensor> &out, uint64_t seed, const std::string &name, int64_t cout,
                 int64_t cin_per_group, int64_t k);
// Appends prefix.weight, .bias, .running_mean, .running_var for `channels` channels.
void append_batch_norm(std::vector<NamedTensor> &out, uint64_t seed, const std::string &prefix, int64_t channels);
// Appends prefix.weight [outputs, inputs] and prefix.bias [outputs].
void append_linear(std::vector<NamedTensor> &out, uint64_t seed, const std::string &prefix, int64_t outputs,
                   int64_t inputs);

// All ResNet-18 tensors (see the recipe above), in state_dict order.
std::vector<NamedTensor> resnet18_weights(uint64_t seed);

// The tensor called `name`; throws std::out_of_range when there is none.
const NamedTensor &find_tensor(const std::vector<NamedTensor> &tensors, const std::string &name);

int64_t numel(const std::vector<int64_t> &shape);

}  // namespace tensorir::reference
