// ResNet-18 built as a Graph and compiled for "llvm", against the plain Eigen model in
// test/reference with the same seeded weights.
#include <tensorir/graph/executor.h>
#include <tensorir/graph/models.h>

#include <algorithm>
#include <catch2/catch.hpp>

#include "graph/graph_test_util.h"
#include <cmath>
#include <cstdio>
#include <string>

#include "reference/resnet18_reference.h"

using namespace tensorir;

TEST_CASE("resnet18 graph parameters follow the seeded recipe", "[graph][resnet18]") {
  const graph::Graph g = graph::resnet18(7);
  const auto ref = reference::resnet18_weights(7);
  size_t constants = 0;
  for (const graph::Node &n : g.nodes())
    if (n.op == "constant") ++constants;
  CHECK(constants == ref.size());
  for (const reference::NamedTensor &t : ref) {
    const graph::Node &n = g.node(t.name);
    REQUIRE(n.shape == t.shape);
    REQUIRE(n.value.to_vector<float>() == t.data);  // bit for bit
  }
  CHECK(g.node("fc.bias_add").shape == std::vector<int64_t>{1, 1000});
  CHECK(g.node("layer4.1.relu2").shape == std::vector<int64_t>{1, 512, 7, 7});
}

TEST_CASE("resnet18 on llvm matches the reference model", "[graph][resnet18]") {
  const uint64_t seed = 2024;
  const graph::Graph g = graph::resnet18(seed);
  graph::CompiledModel m = graph::build(g, "llvm");
  NDArray input = NDArray::random({1, 3, 224, 224}, Float(32), 99);
  NDArray got = m.run({{"data", input}});
  REQUIRE(got.shape() == std::vector<int64_t>{1, 1000});
  const std::vector<float> ref =
      reference::resnet18_forward(reference::resnet18_weights(seed), input.to_vector<float>());
  const std::vector<float> out = got.to_vector<float>();
  const double err = graph_test::max_rel_error(out, ref);
  INFO("max |a - b| / max |b| = " << err);
  CHECK(err < 1e-4);
  // A second input gives other logits through the same preallocated storage.
  NDArray again = m.run({{"data", NDArray::random({1, 3, 224, 224}, Float(32), 100)}});
  CHECK(again.to_vector<float>() != out);
  CHECK(m.run({{"data", input}}).to_vector<float>() == out);
}

#if TENSORIR_WITH_OPENGL
// Generic schedules on the GPU backends, one shader or OpenCL kernel per fused group;
// on OpenGL results stay in one buffer per kernel (no storage views there), on OpenCL
// shared results are sub-buffers.
TEST_CASE("resnet18 on opengl matches the reference model", "[graph][resnet18][opengl][opencl]") {
  const std::string target = GENERATE(as<std::string>{}, "opengl", "opengl -mode=fragment", "opencl");
  INFO("target " << target);
  const uint64_t seed = 2024;
  graph::CompiledModel m = graph::build(graph::resnet18(seed), target);
  NDArray input = NDArray::random({1, 3, 224, 224}, Float(32), 99);
  const std::vector<float> out = m.run({{"data", input}}).to_vector<float>();
  const std::vector<float> ref =
      reference::resnet18_forward(reference::resnet18_weights(seed), input.to_vector<float>());
  REQUIRE(out.size() == ref.size());
  const double err = graph_test::max_rel_error(out, ref);
  INFO("max |a - b| / max |b| = " << err);
  CHECK(err < 1e-4);
}
#endif
