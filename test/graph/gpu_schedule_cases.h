// Graphs for the GPU compute schedules (strategies["gpu"]), built for a GPU target and
// for "llvm" and compared: convolutions on shapes that no tile divides, and the check.
#pragma once
#include <tensorir/graph/executor.h>
#include <tensorir/ops/nn.h>

#include <catch2/catch.hpp>
#include <map>
#include <string>
#include <vector>

#include "graph/graph_test_util.h"

namespace tensorir::graph_test {

inline uint64_t next_seed() {
  static uint64_t seed = 100;
  return ++seed;
}

inline graph::NodeRef random_constant(graph::Builder &b, const std::string &name, const std::vector<int64_t> &shape) {
  return b.constant(name, NDArray::random(shape, Float(32), next_seed()));
}

// Builds `g` for `target` and for "llvm", runs both on the same random inputs and
// compares every output.
inline void check_against_llvm(const graph::Graph &g, const std::string &target) {
  INFO("target " << target);
  std::map<std::string, NDArray> inputs;
  for (const graph::Node &n : g.nodes())
    if (n.op == "input") inputs[n.name] = NDArray::random(n.shape, Float(32), next_seed());
  const graph::CompiledModel gpu = graph::build(g, target), cpu = graph::build(g, "llvm");
  const graph::Outputs got = gpu.run(inputs), want = cpu.run(inputs);
  for (int id : g.outputs()) {
    const std::string &name = g.node(id).name;
    INFO("output " << name);
    const double err = max_rel_error(got[name].to_vector<float>(), want[name].to_vector<float>());
    INFO("max |a - b| / max |b| = " << err);
    CHECK(err < 1e-5);
  }
}

struct ConvCase {
  std::vector<int64_t> data;  // N, C, H, W
  int64_t K, R, S;
  ops::Conv2dAttrs a;
  bool tail;  // bias_add, add of a second input, relu
};

inline graph::Graph conv_graph(const ConvCase &c) {
  graph::Builder b;
  auto x = b.input("x", c.data);
  auto w = random_constant(b, "w", {c.K, c.data[1] / c.a.groups, c.R, c.S});
  auto y = b.conv2d(x, w, c.a, "conv");
  if (c.tail) {
    const graph::Node &conv = b.node(y);
    y = b.bias_add(y, random_constant(b, "bias", {c.K}));
    y = b.relu(b.add(y, b.input("residual", conv.shape)), "y");
  }
  return b.finish(y);
}

// Odd channels and sizes, strides, groups, depthwise, 1x1, a 7x7 stem, dilation, a row
// longer than a work-group.
inline std::vector<ConvCase> odd_conv_cases() {
  return {
      {{1, 3, 17, 19}, 5, 3, 3, {{1, 1}, {1, 1}, {1, 1}, 1}, true},       // odd channels and sizes
      {{2, 8, 15, 15}, 12, 3, 3, {{2, 2}, {1, 1}, {1, 1}, 1}, true},      // stride 2, batch 2
      {{1, 16, 9, 9}, 24, 1, 1, {{1, 1}, {0, 0}, {1, 1}, 1}, false},      // 1x1
      {{1, 20, 7, 7}, 36, 1, 1, {{2, 2}, {0, 0}, {1, 1}, 1}, true},       // 1x1, stride 2
      {{1, 6, 11, 13}, 6, 3, 3, {{1, 1}, {1, 1}, {1, 1}, 6}, true},       // depthwise
      {{1, 8, 10, 10}, 12, 3, 3, {{2, 2}, {1, 1}, {1, 1}, 4}, false},     // grouped, stride 2
      {{1, 3, 23, 21}, 16, 7, 7, {{2, 2}, {3, 3}, {1, 1}, 1}, true},      // a 7x7 stem
      {{1, 4, 13, 40}, 16, 3, 3, {{1, 1}, {2, 2}, {2, 2}, 1}, true},      // dilation, 2 columns a thread
      {{1, 5, 3, 300}, 7, 1, 3, {{1, 1}, {0, 1}, {1, 1}, 1}, false},      // a row longer than a work-group
  };
}

}  // namespace tensorir::graph_test
