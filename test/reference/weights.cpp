// The seeded weight recipe documented in weights.h, and the ResNet-18 weight list.
#include "reference/weights.h"

#include <cmath>
#include <stdexcept>

namespace tensorir::reference {

namespace {

constexpr uint64_t kGolden = 0x9E3779B97F4A7C15ull;

}  // namespace

uint64_t splitmix64(uint64_t x) {
  uint64_t z = x + kGolden;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

uint64_t fnv1a64(const std::string &text) {
  uint64_t h = 0xCBF29CE484222325ull;
  for (unsigned char c : text) h = (h ^ c) * 0x100000001B3ull;
  return h;
}

std::vector<float> seeded_uniform(uint64_t seed, const std::string &name, int64_t count, double lo, double hi) {
  const uint64_t s = splitmix64(seed ^ fnv1a64(name));
  std::vector<float> values(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) {
    const uint64_t r = splitmix64(s + uint64_t(i) * kGolden);
    const double u = double(r >> 40) * 0x1.0p-24;
    values[size_t(i)] = float(lo + (hi - lo) * u);
  }
  return values;
}

void append_batch_norm(std::vector<NamedTensor> &out, uint64_t seed, const std::string &prefix, int64_t channels) {
  struct Part {
    const char *suffix;
    double lo, hi;
  };
  const Part parts[] = {
      {"weight", 0.5, 1.5}, {"bias", -0.1, 0.1}, {"running_mean", -0.1, 0.1}, {"running_var", 0.5, 1.5}};
  for (const Part &p : parts) {
    std::string name = prefix + "." + p.suffix;
    out.push_back({name, {channels}, seeded_uniform(seed, name, channels, p.lo, p.hi)});
  }
}

void append_conv(std::vector<NamedTensor> &out, uint64_t seed, const std::string &name, int64_t cout,
                 int64_t cin_per_group, int64_t k) {
  const double bound = std::sqrt(6.0 / double(cin_per_group * k * k)) * 0.5;
  out.push_back({name,
                 {cout, cin_per_group, k, k},
                 seeded_uniform(seed, name, cout * cin_per_group * k * k, -bound, bound)});
}

void append_linear(std::vector<NamedTensor> &out, uint64_t seed, const std::string &prefix, int64_t outputs,
                   int64_t inputs) {
  const double bound = 1.0 / std::sqrt(double(inputs));
  const std::string w = prefix + ".weight", b = prefix + ".bias";
  out.push_back({w, {outputs, inputs}, seeded_uniform(seed, w, outputs * inputs, -bound, bound)});
  out.push_back({b, {outputs}, seeded_uniform(seed, b, outputs, -bound, bound)});
}

std::vector<NamedTensor> resnet18_weights(uint64_t seed) {
  std::vector<NamedTensor> w;
  append_conv(w, seed, "conv1.weight", 64, 3, 7);
  append_batch_norm(w, seed, "bn1", 64);
  int64_t in = 64;
  const int64_t widths[] = {64, 128, 256, 512};
  for (int layer = 0; layer < 4; ++layer) {
    const int64_t out = widths[layer];
    for (int block = 0; block < 2; ++block) {
      const std::string p = "layer" + std::to_string(layer + 1) + "." + std::to_string(block) + ".";
      const int64_t block_in = block == 0 ? in : out;
      append_conv(w, seed, p + "conv1.weight", out, block_in, 3);
      append_batch_norm(w, seed, p + "bn1", out);
      append_conv(w, seed, p + "conv2.weight", out, out, 3);
      append_batch_norm(w, seed, p + "bn2", out);
      // The first block of layers 2-4 halves the resolution and widens, so its shortcut projects.
      if (block == 0 && layer > 0) {
        append_conv(w, seed, p + "downsample.0.weight", out, block_in, 1);
        append_batch_norm(w, seed, p + "downsample.1", out);
      }
    }
    in = out;
  }
  append_linear(w, seed, "fc", 1000, 512);
  return w;
}

const NamedTensor &find_tensor(const std::vector<NamedTensor> &tensors, const std::string &name) {
  for (const NamedTensor &t : tensors)
    if (t.name == name) return t;
  throw std::out_of_range("no tensor named '" + name + "' in the weight list");
}

int64_t numel(const std::vector<int64_t> &shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

}  // namespace tensorir::reference
