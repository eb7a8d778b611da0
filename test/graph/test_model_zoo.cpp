// ResNet-50 and MobileNetV2 graphs: torchvision's parameter totals and names, the seeded
// recipe against the independent reference generator, and one run each on "llvm".
#include <tensorir/graph/executor.h>
#include <tensorir/graph/models.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <cmath>
#include <cstdio>

#include "reference/weights.h"

using namespace tensorir;

namespace {

struct ParamCounts {
  int64_t learnable = 0;
  int64_t running = 0;  // BN running_mean / running_var: state, not parameters
};

bool ends_with(const std::string &s, const std::string &tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

ParamCounts count_params(const graph::Graph &g) {
  ParamCounts c;
  for (const graph::Node &n : g.nodes()) {
    if (n.op != "constant") continue;
    const int64_t k = reference::numel(n.shape);
    (ends_with(n.name, ".running_mean") || ends_with(n.name, ".running_var") ? c.running : c.learnable) += k;
  }
  return c;
}

// The tensor `name` in the graph equals the reference generator's values bit for bit.
void check_recipe(const graph::Graph &g, uint64_t seed, const std::string &name, double lo, double hi) {
  INFO(name);
  const graph::Node &n = g.node(name);
  REQUIRE(n.op == "constant");
  CHECK(n.value.to_vector<float>() == reference::seeded_uniform(seed, name, reference::numel(n.shape), lo, hi));
}

// One run on llvm: finite logits with a spread, and a different input gives others.
void run_once(const graph::Graph &g, const char *model) {
  const auto t0 = std::chrono::steady_clock::now();
  graph::CompiledModel m = graph::build(g, "llvm");
  const auto t1 = std::chrono::steady_clock::now();
  NDArray input = NDArray::random({1, 3, 224, 224}, Float(32), 5);
  const std::vector<float> out = m.run({{"data", input}}).to_vector<float>();
  const auto t2 = std::chrono::steady_clock::now();
  auto ms = [](auto a, auto b) { return std::chrono::duration<double, std::milli>(b - a).count(); };
  std::printf("%s on llvm: compile %.0f ms, first run %.1f ms\n", model, ms(t0, t1), ms(t1, t2));
  REQUIRE(out.size() == 1000);
  double sum = 0, sq = 0;
  for (float v : out) {
    REQUIRE(std::isfinite(v));
    sum += v;
    sq += double(v) * v;
  }
  const double mean = sum / 1000, stddev = std::sqrt(std::max(0.0, sq / 1000 - mean * mean));
  INFO(model << ": mean " << mean << ", stddev " << stddev);
  CHECK(stddev > 1e-3);
  CHECK(stddev < 1e4);
  const std::vector<float> other = m.run({{"data", NDArray::random({1, 3, 224, 224}, Float(32), 6)}}).to_vector<float>();
  CHECK(other != out);
}

}  // namespace

TEST_CASE("resnet50 graph has torchvision's parameters and shapes", "[graph][model_zoo]") {
  const graph::Graph g = graph::resnet50(11);
  const ParamCounts c = count_params(g);
  CHECK(c.learnable == 25557032);
  CHECK(c.running == 2 * 26560);  // 53 BNs over 26,560 channels
  CHECK(g.node("fc.bias_add").shape == std::vector<int64_t>{1, 1000});
  CHECK(g.node("layer4.2.relu3").shape == std::vector<int64_t>{1, 2048, 7, 7});
  CHECK(g.node("layer1.0.downsample.0.weight").shape == std::vector<int64_t>{256, 64, 1, 1});
  CHECK(g.node("layer3.5.conv2.weight").shape == std::vector<int64_t>{256, 256, 3, 3});
  const double b3 = std::sqrt(6.0 / (256.0 * 9)) * 0.5;
  check_recipe(g, 11, "layer3.5.conv2.weight", -b3, b3);
  check_recipe(g, 11, "layer2.0.bn3.running_var", 0.5, 1.5);
  check_recipe(g, 11, "fc.weight", -1 / std::sqrt(2048.0), 1 / std::sqrt(2048.0));
}

TEST_CASE("mobilenet_v2 graph has torchvision's parameters and shapes", "[graph][model_zoo]") {
  const graph::Graph g = graph::mobilenet_v2(11);
  const ParamCounts c = count_params(g);
  CHECK(c.learnable == 3504872);
  CHECK(c.running == 2 * 17056);  // 52 BNs over 17,056 channels
  CHECK(g.node("classifier.1.bias_add").shape == std::vector<int64_t>{1, 1000});
  CHECK(g.node("features.18.2").shape == std::vector<int64_t>{1, 1280, 7, 7});
  CHECK(g.node("features.1.conv.0.0.weight").shape == std::vector<int64_t>{32, 1, 3, 3});
  CHECK(g.node("features.1.conv.1.weight").shape == std::vector<int64_t>{16, 32, 1, 1});
  CHECK(g.node("features.5.conv.1.0.weight").shape == std::vector<int64_t>{192, 1, 3, 3});
  CHECK(g.node("features.5.conv.1.0").attr_int("groups") == 192);
  CHECK(g.node("features.5.add").shape == std::vector<int64_t>{1, 32, 28, 28});
  CHECK(g.node("features.5.conv.2.weight").shape == std::vector<int64_t>{32, 192, 1, 1});
  CHECK(g.node("features.5.conv.0.2").op == "clip");
  // Depthwise fan-in is 1 * 3 * 3.
  const double dw = std::sqrt(6.0 / 9.0) * 0.5;
  check_recipe(g, 11, "features.5.conv.1.0.weight", -dw, dw);
  check_recipe(g, 11, "features.17.conv.3.bias", -0.1, 0.1);
  check_recipe(g, 11, "classifier.1.weight", -1 / std::sqrt(1280.0), 1 / std::sqrt(1280.0));
}

TEST_CASE("resnet50 runs on llvm", "[graph][model_zoo]") { run_once(graph::resnet50(3), "resnet50"); }

TEST_CASE("mobilenet_v2 runs on llvm", "[graph][model_zoo]") { run_once(graph::mobilenet_v2(3), "mobilenet_v2"); }

