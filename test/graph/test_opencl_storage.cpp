// The executor's planned storage on "opencl": results that share a slot of the plan are
// sub-buffers of one device buffer, and the results stay those of one buffer per tensor.
#include <tensorir/graph/executor.h>

#include <catch2/catch.hpp>

#include "graph/graph_test_util.h"

using namespace tensorir;

TEST_CASE("executor storage on opencl: shared slots as sub-buffers", "[graph][executor][opencl]") {
  // x -> relu (a) -> 2x2 max pool (p) -> relu (q) -> relu (r) -> add(r, p): q takes a's
  // slot once a is dead, at offset 0 of that buffer.
  graph::Builder b;
  auto x = b.input("x", {1, 4, 16, 16});
  auto a = b.relu(x, "a");
  auto p = b.max_pool2d(a, {2, 2}, {2, 2}, {0, 0}, "p");
  auto q = b.relu(p, "q");
  auto r = b.relu(q, "r");
  const graph::Graph g = b.finish(b.add(r, p, "out"));
  graph::BuildOptions planned;
  planned.fuse_operators = false;
  graph::BuildOptions unplanned = planned;
  unplanned.plan_memory = false;
  graph::CompiledModel shared = graph::build(g, "opencl", planned);
  graph::CompiledModel own = graph::build(g, "opencl", unplanned);
  REQUIRE(shared.num_kernels() == 5);
  INFO("planned " << shared.storage_bytes() << " bytes, unplanned " << own.storage_bytes());
  CHECK(shared.storage_bytes() < own.storage_bytes());
  for (uint64_t seed : {1, 2}) {
    NDArray in = NDArray::random({1, 4, 16, 16}, Float(32), seed);
    const std::vector<float> got = shared.run({{"x", in}}).to_vector<float>();
    CHECK(got == own.run({{"x", in}}).to_vector<float>());
    CHECK(got == graph_test::double_pooled_relu_reference(in.to_vector<float>()));
  }
}
