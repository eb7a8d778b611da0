// ResNet-50 and MobileNetV2 built as Graphs and compiled for "llvm", against the plain Eigen
// models in test/reference with the same seeded weights; and the reference's grouped
// (depthwise) convolution, which only these models use, against direct loops.
//
// With the seeded weights each conv roughly halves the signal's second moment, so deep in a
// network the BN shifts dominate: MobileNetV2's logits move by only ~1e-5 of their size
// from one image to another, and ResNet-50's by ~1e-2. Comparing the logits alone would not
// see a wrong early layer. So each model is also cut into a few consecutive parts, every part
// is compiled as a graph of its own and fed the reference's map at its start, and its
// result is held to the reference's map at its end.
#include <tensorir/graph/executor.h>
#include <tensorir/graph/models.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "graph/graph_test_util.h"
#include "reference/layers.h"
#include "reference/mobilenet_v2_reference.h"
#include "reference/resnet50_reference.h"
#include "reference/weights.h"

using namespace tensorir;

namespace {

using Forward = std::vector<float> (*)(const std::vector<reference::NamedTensor> &, const std::vector<float> &);

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// Every constant of `g` is a reference tensor of the same name, shape and bits, and back.
void check_weights(const graph::Graph &g, const std::vector<reference::NamedTensor> &ref) {
  size_t constants = 0;
  for (const graph::Node &n : g.nodes())
    if (n.op == "constant") ++constants;
  CHECK(constants == ref.size());
  for (const reference::NamedTensor &t : ref) {
    INFO(t.name);
    const graph::Node &n = g.node(t.name);
    REQUIRE(n.op == "constant");
    REQUIRE(n.shape == t.shape);
    REQUIRE(n.value.to_vector<float>() == t.data);  // bit for bit
  }
}

// The graph on llvm and the reference on one seeded random image, max |a - b| / max |b| < 1e-4.
void check_against_reference(const graph::Graph &g, const std::vector<reference::NamedTensor> &weights,
                             Forward forward, const char *model) {
  auto t0 = std::chrono::steady_clock::now();
  graph::CompiledModel m = graph::build(g, "llvm");
  const double compile_ms = ms_since(t0);
  NDArray input = NDArray::random({1, 3, 224, 224}, Float(32), 99);
  t0 = std::chrono::steady_clock::now();
  NDArray got = m.run({{"data", input}});
  const double run_ms = ms_since(t0);
  REQUIRE(got.shape() == std::vector<int64_t>{1, 1000});
  t0 = std::chrono::steady_clock::now();
  const std::vector<float> ref = forward(weights, input.to_vector<float>());
  const double ref_ms = ms_since(t0);
  const std::vector<float> out = got.to_vector<float>();
  const double err = graph_test::max_rel_error(out, ref);
  std::printf("%s: llvm compile %.0f ms, run %.1f ms; reference %.1f ms; max rel error %.3g\n", model, compile_ms,
              run_ms, ref_ms, err);
  INFO(model << ": max |a - b| / max |b| = " << err);
  CHECK(err < 1e-4);
  // Another image gives other logits, so the comparison above could tell inputs apart.
  CHECK(m.run({{"data", NDArray::random({1, 3, 224, 224}, Float(32), 100)}}).to_vector<float>() != out);
}

// One cut point: a graph node and the index of the same map in the reference's list
// (-1 for the image itself).
struct Cut {
  std::string node;
  int map;
};

// The nodes of `g` from `from` (which becomes an input of the same name and shape) up to
// `to` (the output). `to` must depend on the image only through `from`.
graph::Graph slice(const graph::Graph &g, const std::string &from, const std::string &to) {
  const int start = g.node(from).id, end = g.node(to).id;
  std::vector<char> keep(g.nodes().size(), 0);
  std::vector<int> pending{end};
  while (!pending.empty()) {
    const int id = pending.back();
    pending.pop_back();
    if (keep[size_t(id)]) continue;
    keep[size_t(id)] = 1;
    if (id != start)
      for (int i : g.node(id).inputs) pending.push_back(i);
  }
  REQUIRE(keep[size_t(start)]);
  graph::Graph part;
  std::vector<int> remap(g.nodes().size(), -1);
  for (const graph::Node &n : g.nodes()) {  // nodes come after their inputs
    if (!keep[size_t(n.id)]) continue;
    graph::Node copy = n;
    if (n.id == start) {
      copy.op = "input";
      copy.attrs.clear();
      copy.inputs.clear();
      copy.value = NDArray();
    } else {
      INFO(from << " does not cut " << to << " off the image at " << n.name);
      REQUIRE(n.op != "input");
      for (int &i : copy.inputs) i = remap[size_t(i)];
    }
    remap[size_t(n.id)] = part.add_node(copy);
  }
  part.set_output(remap[size_t(end)]);
  part.validate();
  return part;
}

// Each part between consecutive cuts on llvm, fed the reference's map (or the image) at its
// start, against the reference's map at its end.
void check_parts(const graph::Graph &g, const std::vector<Cut> &cuts, const NDArray &image,
                 const std::vector<reference::FeatureMap> &maps, const char *model) {
  for (size_t i = 0; i + 1 < cuts.size(); ++i) {
    const Cut &from = cuts[i], &to = cuts[i + 1];
    INFO(model << " from " << from.node << " to " << to.node);
    const graph::Graph part = slice(g, from.node, to.node);
    graph::CompiledModel m = graph::build(part, "llvm");
    NDArray input = image;
    if (from.map >= 0) {
      const reference::FeatureMap &x = maps[size_t(from.map)];
      input = NDArray::from_vector(x.data, {1, x.c, x.h, x.w});
    }
    const reference::FeatureMap &want = maps[size_t(to.map)];
    NDArray got = m.run({{from.node, input}});
    REQUIRE(got.shape() == std::vector<int64_t>{1, want.c, want.h, want.w});
    const double err = graph_test::max_rel_error(got.to_vector<float>(), want.data);
    std::printf("%s %s -> %s: max rel error %.3g\n", model, from.node.c_str(), to.node.c_str(), err);
    INFO("max |a - b| / max |b| = " << err);
    CHECK(err < 1e-4);
  }
}

// Direct loops in double: output channel co reads only its group's input channels.
reference::FeatureMap naive_grouped_conv(const reference::FeatureMap &x, const reference::NamedTensor &w,
                                         int64_t stride, int64_t pad, int64_t groups) {
  const int64_t cout = w.shape[0], cin_g = w.shape[1], k = w.shape[2], cout_g = cout / groups;
  reference::FeatureMap y{cout, (x.h + 2 * pad - k) / stride + 1, (x.w + 2 * pad - k) / stride + 1, {}};
  y.data.assign(size_t(y.c * y.h * y.w), 0.0f);
  for (int64_t co = 0; co < cout; ++co)
    for (int64_t oy = 0; oy < y.h; ++oy)
      for (int64_t ox = 0; ox < y.w; ++ox) {
        double acc = 0;
        for (int64_t j = 0; j < cin_g; ++j) {
          const int64_t ci = co / cout_g * cin_g + j;
          for (int64_t ky = 0; ky < k; ++ky)
            for (int64_t kx = 0; kx < k; ++kx) {
              const int64_t iy = oy * stride - pad + ky, ix = ox * stride - pad + kx;
              if (iy < 0 || iy >= x.h || ix < 0 || ix >= x.w) continue;
              acc += double(x.data[size_t((ci * x.h + iy) * x.w + ix)]) *
                     double(w.data[size_t(((co * cin_g + j) * k + ky) * k + kx)]);
            }
        }
        y.data[size_t((co * y.h + oy) * y.w + ox)] = float(acc);
      }
  return y;
}

}  // namespace

TEST_CASE("reference grouped conv2d matches direct loops", "[reference]") {
  struct Case {
    int64_t cin, cout, k, stride, pad, groups;
  };
  const Case cases[] = {{6, 6, 3, 1, 1, 6}, {8, 8, 3, 2, 1, 8}, {6, 12, 3, 1, 0, 2}, {8, 4, 1, 1, 0, 4}};
  for (const Case &c : cases) {
    INFO("cin " << c.cin << " cout " << c.cout << " k " << c.k << " stride " << c.stride << " groups " << c.groups);
    const reference::FeatureMap x{c.cin, 9, 11, reference::seeded_uniform(3, "x", c.cin * 9 * 11, -1.0, 1.0)};
    const int64_t cin_g = c.cin / c.groups;
    const reference::NamedTensor w{
        "w", {c.cout, cin_g, c.k, c.k}, reference::seeded_uniform(4, "w", c.cout * cin_g * c.k * c.k, -1.0, 1.0)};
    const reference::FeatureMap got = reference::conv2d(x, w, c.stride, c.pad, c.groups);
    const reference::FeatureMap want = naive_grouped_conv(x, w, c.stride, c.pad, c.groups);
    REQUIRE(got.c == want.c);
    REQUIRE(got.h == want.h);
    REQUIRE(got.w == want.w);
    CHECK(graph_test::max_rel_error(got.data, want.data) < 1e-6);
  }
  // A weight whose input channels do not fit the groups is refused.
  const reference::FeatureMap x{4, 5, 5, std::vector<float>(100, 1.0f)};
  CHECK_THROWS(reference::conv2d(x, {"w", {4, 2, 3, 3}, std::vector<float>(72, 1.0f)}, 1, 1, 4));
}

TEST_CASE("resnet50 graph parameters equal the reference weights", "[reference][resnet50]") {
  check_weights(graph::resnet50(7), reference::resnet50_weights(7));
}

TEST_CASE("mobilenet_v2 graph parameters equal the reference weights", "[reference][mobilenet_v2]") {
  check_weights(graph::mobilenet_v2(7), reference::mobilenet_v2_weights(7));
}

TEST_CASE("resnet50 on llvm matches the reference model", "[graph][reference][resnet50]") {
  const uint64_t seed = 2024;
  const graph::Graph g = graph::resnet50(seed);
  const auto weights = reference::resnet50_weights(seed);
  check_against_reference(g, weights, reference::resnet50_forward, "resnet50");
  // The stem, then one part per stage (maps: 0 the stem, 1 + k block k of layer1.0 .. layer4.2).
  const NDArray image = NDArray::random({1, 3, 224, 224}, Float(32), 99);
  const std::vector<Cut> cuts = {{"data", -1},           {"maxpool", 0},        {"layer1.2.relu3", 3},
                                 {"layer2.3.relu3", 7}, {"layer3.5.relu3", 13}, {"layer4.2.relu3", 16}};
  check_parts(g, cuts, image, reference::resnet50_feature_maps(weights, image.to_vector<float>()), "resnet50");
}

TEST_CASE("mobilenet_v2 on llvm matches the reference model", "[graph][reference][mobilenet_v2]") {
  const uint64_t seed = 2024;
  const graph::Graph g = graph::mobilenet_v2(seed);
  const auto weights = reference::mobilenet_v2_weights(seed);
  check_against_reference(g, weights, reference::mobilenet_v2_forward, "mobilenet_v2");
  // Parts of three or four blocks (map k is the output of features.k); the ends are residual
  // adds or, where a block changes width or resolution, its last BN.
  const NDArray image = NDArray::random({1, 3, 224, 224}, Float(32), 99);
  const std::vector<Cut> cuts = {{"data", -1},
                                 {"features.3.add", 3},
                                 {"features.7.conv.3", 7},
                                 {"features.11.conv.3", 11},
                                 {"features.14.conv.3", 14},
                                 {"features.18.2", 18}};
  check_parts(g, cuts, image, reference::mobilenet_v2_feature_maps(weights, image.to_vector<float>()),
              "mobilenet_v2");
}
