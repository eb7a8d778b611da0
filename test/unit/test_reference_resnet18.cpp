// The plain Eigen ResNet-18 reference: its layers against direct loops, its weight recipe
// against torchvision's names and shapes, and the whole forward pass for sanity and determinism.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "reference/resnet18_reference.h"
#include "reference/weights.h"

using namespace tensorir::reference;

namespace {

FeatureMap random_map(int64_t c, int64_t h, int64_t w, uint64_t seed) {
  return {c, h, w, seeded_uniform(seed, "map", c * h * w, -1.0, 1.0)};
}

NamedTensor random_conv_weight(int64_t cout, int64_t cin, int64_t k, uint64_t seed) {
  return {"w", {cout, cin, k, k}, seeded_uniform(seed, "w", cout * cin * k * k, -1.0, 1.0)};
}

// Seven loops, double accumulation.
FeatureMap naive_conv(const FeatureMap &x, const NamedTensor &w, int64_t stride, int64_t pad) {
  const int64_t cout = w.shape[0], k = w.shape[2];
  FeatureMap y{cout, (x.h + 2 * pad - k) / stride + 1, (x.w + 2 * pad - k) / stride + 1, {}};
  y.data.assign(size_t(y.c * y.h * y.w), 0.0f);
  for (int64_t co = 0; co < cout; ++co)
    for (int64_t oy = 0; oy < y.h; ++oy)
      for (int64_t ox = 0; ox < y.w; ++ox) {
        double acc = 0;
        for (int64_t ci = 0; ci < x.c; ++ci)
          for (int64_t ky = 0; ky < k; ++ky)
            for (int64_t kx = 0; kx < k; ++kx) {
              const int64_t iy = oy * stride - pad + ky, ix = ox * stride - pad + kx;
              if (iy < 0 || iy >= x.h || ix < 0 || ix >= x.w) continue;
              acc += double(x.data[size_t((ci * x.h + iy) * x.w + ix)]) *
                     double(w.data[size_t(((co * x.c + ci) * k + ky) * k + kx)]);
            }
        y.data[size_t((co * y.h + oy) * y.w + ox)] = float(acc);
      }
  return y;
}

void require_close(const std::vector<float> &got, const std::vector<float> &want, double tol) {
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    INFO("element " << i << ": got " << got[i] << ", want " << want[i]);
    REQUIRE(std::abs(double(got[i]) - double(want[i])) <= tol * (1.0 + std::abs(double(want[i]))));
  }
}

bool is_running_stat(const std::string &name) {
  return name.find("running_") != std::string::npos;
}

uint32_t bits_of(float v) {
  uint32_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

}  // namespace

TEST_CASE("reference conv2d (im2col + GEMM) matches direct loops", "[reference]") {
  struct Shape {
    int64_t cin, cout, h, w, k, stride, pad;
  };
  std::vector<Shape> shapes = {{3, 4, 9, 11, 7, 2, 3}, {3, 5, 12, 12, 7, 1, 3}, {5, 6, 8, 8, 3, 1, 1},
                               {5, 6, 9, 7, 3, 2, 1},  {8, 4, 7, 7, 1, 1, 0},   {8, 4, 8, 9, 1, 2, 0},
                               {2, 3, 5, 5, 3, 1, 0},  {4, 2, 6, 6, 3, 2, 2},   {1, 1, 1, 1, 1, 1, 0}};
  // Plus seeded random shapes, so the set is not only hand-picked.
  const int64_t kernels[] = {1, 3, 7};
  for (uint64_t i = 0; i < 12; ++i) {
    const uint64_t r = splitmix64(1000 + i);
    const int64_t k = kernels[r % 3], stride = 1 + int64_t((r >> 8) % 2),
                  pad = int64_t((r >> 16) % uint64_t(k / 2 + 2));
    shapes.push_back({1 + int64_t((r >> 24) % 6), 1 + int64_t((r >> 32) % 7), k + int64_t((r >> 40) % 9),
                      k + int64_t((r >> 48) % 9), k, stride, pad});
  }
  uint64_t seed = 1;
  for (const Shape &s : shapes) {
    INFO("cin " << s.cin << " cout " << s.cout << " h " << s.h << " w " << s.w << " k " << s.k << " stride " << s.stride
                << " pad " << s.pad);
    const FeatureMap x = random_map(s.cin, s.h, s.w, seed++);
    const NamedTensor w = random_conv_weight(s.cout, s.cin, s.k, seed++);
    const FeatureMap got = conv2d(x, w, s.stride, s.pad);
    const FeatureMap want = naive_conv(x, w, s.stride, s.pad);
    REQUIRE(got.c == want.c);
    REQUIRE(got.h == want.h);
    REQUIRE(got.w == want.w);
    require_close(got.data, want.data, 1e-5);
  }
}

TEST_CASE("reference max_pool2d and global_avg_pool match direct loops", "[reference]") {
  const FeatureMap x = random_map(3, 9, 8, 42);
  const FeatureMap got = max_pool2d(x, 3, 2, 1);
  REQUIRE(got.c == 3);
  REQUIRE(got.h == 5);
  REQUIRE(got.w == 4);
  for (int64_t c = 0; c < 3; ++c)
    for (int64_t oy = 0; oy < got.h; ++oy)
      for (int64_t ox = 0; ox < got.w; ++ox) {
        float best = -1e30f;
        for (int64_t iy = 2 * oy - 1; iy <= 2 * oy + 1; ++iy)
          for (int64_t ix = 2 * ox - 1; ix <= 2 * ox + 1; ++ix)
            if (iy >= 0 && iy < x.h && ix >= 0 && ix < x.w)
              best = std::max(best, x.data[size_t((c * 9 + iy) * 8 + ix)]);
        REQUIRE(got.data[size_t((c * got.h + oy) * got.w + ox)] == best);
      }

  // A window over padding only near a corner would be -inf; torchvision's pad <= k/2 rule avoids it.
  const FeatureMap negative{1, 2, 2, {-4.0f, -3.0f, -2.0f, -1.0f}};
  REQUIRE(max_pool2d(negative, 3, 2, 1).data == std::vector<float>{-1.0f});

  const FeatureMap y = random_map(5, 7, 6, 43);
  const std::vector<float> means = global_avg_pool(y);
  REQUIRE(means.size() == 5);
  std::vector<float> want(5);
  for (int64_t c = 0; c < 5; ++c) {
    double sum = 0;
    for (int64_t i = 0; i < 42; ++i) sum += y.data[size_t(c * 42 + i)];
    want[size_t(c)] = float(sum / 42.0);
  }
  require_close(means, want, 1e-6);
}

TEST_CASE("reference batch_norm and linear match their formulas", "[reference]") {
  const FeatureMap x = random_map(4, 3, 5, 7);
  const std::vector<NamedTensor> bn = {{"bn.weight", {4}, seeded_uniform(1, "g", 4, 0.5, 1.5)},
                                       {"bn.bias", {4}, seeded_uniform(1, "b", 4, -0.1, 0.1)},
                                       {"bn.running_mean", {4}, seeded_uniform(1, "m", 4, -0.1, 0.1)},
                                       // Small variances, so that eps visibly matters.
                                       {"bn.running_var", {4}, seeded_uniform(1, "v", 4, 1e-5, 1e-4)}};
  const FeatureMap got = batch_norm(x, bn, "bn");
  std::vector<float> want(x.data.size());
  for (size_t c = 0; c < 4; ++c)
    for (size_t i = 0; i < 15; ++i)
      want[c * 15 + i] =
          float((double(x.data[c * 15 + i]) - bn[2].data[c]) / std::sqrt(double(bn[3].data[c]) + 1e-5) * bn[0].data[c] +
                bn[1].data[c]);
  require_close(got.data, want, 1e-5);

  const std::vector<float> v = seeded_uniform(3, "v", 6, -1.0, 1.0);
  const NamedTensor w{"fc.weight", {4, 6}, seeded_uniform(3, "w", 24, -1.0, 1.0)};
  const NamedTensor b{"fc.bias", {4}, seeded_uniform(3, "b", 4, -1.0, 1.0)};
  std::vector<float> lin_want(4);
  for (size_t o = 0; o < 4; ++o) {
    double acc = b.data[o];
    for (size_t i = 0; i < 6; ++i) acc += double(w.data[o * 6 + i]) * v[i];
    lin_want[o] = float(acc);
  }
  require_close(linear(v, w, b), lin_want, 1e-5);
}

TEST_CASE("reference resnet18 weights have torchvision's names and shapes", "[reference]") {
  const std::vector<NamedTensor> w = resnet18_weights(1);
  // 20 convs (17 in the main path + 3 projections), 20 BN x 4 tensors, fc weight and bias.
  REQUIRE(w.size() == 102);
  int64_t convs = 0, bn_tensors = 0, parameters = 0, parameter_elements = 0;
  for (const NamedTensor &t : w) {
    INFO(t.name);
    REQUIRE(int64_t(t.data.size()) == numel(t.shape));
    if (t.shape.size() == 4) ++convs;
    if (t.name.find("bn") != std::string::npos || t.name.find("downsample.1") != std::string::npos) ++bn_tensors;
    if (!is_running_stat(t.name)) {
      ++parameters;
      parameter_elements += numel(t.shape);
    }
  }
  REQUIRE(convs == 20);
  REQUIRE(bn_tensors == 80);
  REQUIRE(parameters == 62);                // len(list(torchvision resnet18().parameters()))
  REQUIRE(parameter_elements == 11689512);  // torchvision's parameter count

  REQUIRE(w.front().name == "conv1.weight");
  REQUIRE(w[1].name == "bn1.weight");
  REQUIRE(w[4].name == "bn1.running_var");
  REQUIRE(w[5].name == "layer1.0.conv1.weight");
  REQUIRE(w[w.size() - 2].name == "fc.weight");
  REQUIRE(w.back().name == "fc.bias");
  using Shape = std::vector<int64_t>;
  REQUIRE(find_tensor(w, "conv1.weight").shape == Shape{64, 3, 7, 7});
  REQUIRE(find_tensor(w, "layer1.1.conv2.weight").shape == Shape{64, 64, 3, 3});
  REQUIRE(find_tensor(w, "layer2.0.conv1.weight").shape == Shape{128, 64, 3, 3});
  REQUIRE(find_tensor(w, "layer2.0.downsample.0.weight").shape == Shape{128, 64, 1, 1});
  REQUIRE(find_tensor(w, "layer3.0.downsample.1.running_var").shape == Shape{256});
  REQUIRE(find_tensor(w, "layer4.1.bn2.bias").shape == Shape{512});
  REQUIRE(find_tensor(w, "fc.weight").shape == Shape{1000, 512});
  REQUIRE(find_tensor(w, "fc.bias").shape == Shape{1000});
  REQUIRE_THROWS(find_tensor(w, "layer1.0.downsample.0.weight"));

  // Block order inside a projecting block follows torchvision's state_dict.
  size_t conv2 = 0, down = 0;
  for (size_t i = 0; i < w.size(); ++i) {
    if (w[i].name == "layer3.0.bn2.running_var") conv2 = i;
    if (w[i].name == "layer3.0.downsample.0.weight") down = i;
  }
  REQUIRE(down == conv2 + 1);
}

TEST_CASE("reference resnet18 weight recipe is pinned", "[reference]") {
  // Published splitmix64 and FNV-1a test values.
  REQUIRE(splitmix64(0) == 0xE220A8397B1DCDAFull);
  REQUIRE(fnv1a64("") == 0xCBF29CE484222325ull);
  REQUIRE(fnv1a64("a") == 0xAF63DC4C8601EC8Cull);

  const std::vector<NamedTensor> w = resnet18_weights(1);
  for (const NamedTensor &t : w) {
    double lo = 0, hi = 0;
    if (t.shape.size() == 4) {
      hi = std::sqrt(6.0 / double(t.shape[1] * t.shape[2] * t.shape[3])) * 0.5;
      lo = -hi;
    } else if (t.name.rfind("fc.", 0) == 0) {
      hi = 1.0 / std::sqrt(512.0);
      lo = -hi;
    } else if (t.name.find("running_var") != std::string::npos || t.name.find(".weight") != std::string::npos) {
      lo = 0.5, hi = 1.5;
    } else {
      lo = -0.1, hi = 0.1;
    }
    INFO(t.name);
    int64_t outside = 0;
    for (float v : t.data) outside += (v >= float(lo) && v <= float(hi)) ? 0 : 1;
    REQUIRE(outside == 0);
  }

  // Exact bits of a few values, so that another implementation of the recipe can check itself.
  REQUIRE(bits_of(find_tensor(w, "conv1.weight").data[0]) == 0x3DB21ED7u);
  REQUIRE(bits_of(find_tensor(w, "layer2.0.downsample.1.running_var").data[5]) == 0x3F0699FFu);
  REQUIRE(bits_of(find_tensor(w, "fc.bias").data[999]) == 0x3D18A5C7u);

  // Different seeds and different names give different streams.
  REQUIRE(resnet18_weights(2)[0].data != w[0].data);
  REQUIRE(seeded_uniform(1, "a", 4, 0, 1) != seeded_uniform(1, "b", 4, 0, 1));
}

TEST_CASE("reference resnet18 forward gives finite, spread, repeatable logits", "[reference]") {
  const std::vector<NamedTensor> w = resnet18_weights(1);
  const std::vector<float> input = seeded_uniform(7, "input", 3 * 224 * 224, -1.0, 1.0);
  const std::vector<float> logits = resnet18_forward(w, input);
  REQUIRE(logits.size() == 1000);
  double sum = 0, sq = 0;
  for (float v : logits) {
    REQUIRE(std::isfinite(v));
    sum += v;
    sq += double(v) * v;
  }
  const double mean = sum / 1000.0, stddev = std::sqrt(sq / 1000.0 - mean * mean);
  INFO("logit mean " << mean << ", std " << stddev);
  REQUIRE(stddev > 1e-3);
  REQUIRE(stddev < 100.0);

  const std::vector<float> again = resnet18_forward(w, input);
  for (size_t i = 0; i < logits.size(); ++i) REQUIRE(bits_of(again[i]) == bits_of(logits[i]));

  // The logits depend on the input.
  const std::vector<float> other = resnet18_forward(w, seeded_uniform(8, "input", 3 * 224 * 224, -1.0, 1.0));
  REQUIRE(other != logits);

  REQUIRE_THROWS(resnet18_forward(w, std::vector<float>(10, 0.0f)));
}
