// The executor's planned storage: kernel results share slots of a memory plan, and the
// results stay those of the reference models.
#include <tensorir/graph/executor.h>
#include <tensorir/graph/models.h>

#include <algorithm>
#include <string>
#include <utility>
#include <catch2/catch.hpp>

#include "graph/graph_test_util.h"
#include <cmath>

#include "reference/resnet18_reference.h"

using namespace tensorir;

namespace {

size_t node_bytes(const graph::Node &n) {
  size_t count = 1;
  for (int64_t d : n.shape) count *= static_cast<size_t>(d);
  return count * static_cast<size_t>(n.dtype.bytes());
}

// x -> relu -> 2x2 max pool (p) -> relu -> relu (r) -> add(r, p). Run one kernel per node,
// the pool result stays live across two kernels while the first relu's larger slot is
// free again for the smaller tensors after it.
graph::Graph pool_chain() {
  graph::Builder b;
  auto x = b.input("x", {1, 4, 16, 16});
  auto a = b.relu(x, "a");
  auto p = b.max_pool2d(a, {2, 2}, {2, 2}, {0, 0}, "p");
  auto q = b.relu(p, "q");
  auto r = b.relu(q, "r");
  return b.finish(b.add(r, p, "out"));
}

// pool_chain built for `target` one kernel per node, with the memory plan and without:
// five kernels each.
std::pair<graph::CompiledModel, graph::CompiledModel> planned_and_unplanned(const std::string &target) {
  graph::BuildOptions planned;
  planned.fuse_operators = false;
  graph::BuildOptions unplanned = planned;
  unplanned.plan_memory = false;
  graph::CompiledModel a = graph::build(pool_chain(), target, planned);
  graph::CompiledModel b = graph::build(pool_chain(), target, unplanned);
  REQUIRE(a.num_kernels() == 5);
  REQUIRE(b.num_kernels() == 5);
  return {a, b};
}

// Both give the same answer as each other and as the plain reference, on two inputs.
void check_same_results(graph::CompiledModel &planned, graph::CompiledModel &unplanned) {
  for (uint64_t seed : {1, 2}) {
    NDArray x = NDArray::random({1, 4, 16, 16}, Float(32), seed);
    const std::vector<float> got = planned.run({{"x", x}}).to_vector<float>();
    CHECK(got == unplanned.run({{"x", x}}).to_vector<float>());
    CHECK(got == graph_test::double_pooled_relu_reference(x.to_vector<float>()));
  }
}

}  // namespace

TEST_CASE("executor storage: a reused slot gives the results of one buffer per tensor", "[graph][executor]") {
  auto [a, b] = planned_and_unplanned("llvm");

  // One buffer each: a 4 KiB, p q r 1 KiB, the output 1 KiB. Planned: a's slot is free
  // after p and takes q; r, relu(q), is computed in place of q, which dies there.
  CHECK(b.storage_bytes() == 4096 + 4 * 1024);
  CHECK(b.planned_peak_bytes() == 0);
  CHECK(a.planned_peak_bytes() == 4096 + 1024);
  CHECK(a.storage_bytes() == a.planned_peak_bytes() + 1024);
  CHECK(a.storage_bytes() < b.storage_bytes());

  check_same_results(a, b);
}

TEST_CASE("executor storage on opencl: shared slots as sub-buffers", "[graph][executor][opencl]") {
  // q takes a's slot once a is dead, at offset 0 of that buffer: a sub-buffer.
  auto [shared, own] = planned_and_unplanned("opencl");
  INFO("planned " << shared.storage_bytes() << " bytes, unplanned " << own.storage_bytes());
  CHECK(shared.storage_bytes() < own.storage_bytes());
  check_same_results(shared, own);
}

TEST_CASE("executor storage: resnet18 on llvm in planned storage matches the reference", "[graph][executor][resnet18]") {
  const uint64_t seed = 11;
  graph::CompiledModel m = graph::build(graph::resnet18(seed), "llvm");
  NDArray input = NDArray::random({1, 3, 224, 224}, Float(32), 5);

  // One buffer per kernel result, from the kernels profile reports.
  size_t naive = 0;
  for (const graph::KernelProfile &k : m.profile({{"data", input}})) naive += node_bytes(m.graph().node(k.node));
  INFO("storage " << m.storage_bytes() << " bytes, planned peak " << m.planned_peak_bytes() << ", naive " << naive);
  CHECK(m.planned_peak_bytes() > 0);
  CHECK(m.storage_bytes() == m.planned_peak_bytes() + 1000 * sizeof(float));  // the output has its own
  CHECK(m.storage_bytes() < naive / 2);

  const std::vector<float> out = m.run({{"data", input}}).to_vector<float>();
  const std::vector<float> ref = reference::resnet18_forward(reference::resnet18_weights(seed), input.to_vector<float>());
  REQUIRE(out.size() == ref.size());
  const double err = graph_test::max_rel_error(out, ref);
  INFO("max |a - b| / max |b| = " << err);
  CHECK(err < 1e-4);
}

TEST_CASE("executor storage: NDArray views alias their base and outlive it", "[graph][executor]") {
  NDArray view;
  {
    NDArray base = NDArray::empty({64}, UInt(8));
    view = base.view({2, 3}, Float(32));
    std::vector<float> v = {1, 2, 3, 4, 5, 6};
    view.copy_from_bytes(v.data(), v.size() * sizeof(float));
    CHECK(base.view({6}, Float(32)).to_vector<float>() == v);
    CHECK(view.view({4}, Float(32)).to_vector<float>() == std::vector<float>{1, 2, 3, 4});
    REQUIRE_THROWS_WITH(base.view({17}, Float(32)), Catch::Contains("needs 68 bytes but the array has only 64"));
  }
  // The base handle is gone; the view still holds its storage.
  CHECK(view.shape() == std::vector<int64_t>{2, 3});
  CHECK(view.to_vector<float>() == std::vector<float>{1, 2, 3, 4, 5, 6});
}

TEST_CASE("executor: node names that differ only in punctuation build and run", "[graph][executor]") {
  // "x.1" and "x_1" (PyTorch-style exports) are one identifier once punctuation is gone.
  graph::Builder b;
  const graph::NodeRef x = b.input("x.1", {4}), y = b.input("x_1", {4}), z = b.input("1", {4});
  const graph::NodeRef d = b.make("subtract", {x, y}, {}, "n1");
  const graph::Graph g = b.finish(b.relu(b.make("add", {d, z}, {}, "x_1_"), "x.1_"));
  const NDArray xv = NDArray::random({4}, Float(32), 61), yv = NDArray::random({4}, Float(32), 62),
                zv = NDArray::random({4}, Float(32), 63);
  const NDArray out = graph::build(g, "llvm").run({{"x.1", xv}, {"x_1", yv}, {"1", zv}});
  const std::vector<float> xs = xv.to_vector<float>(), ys = yv.to_vector<float>(), zs = zv.to_vector<float>();
  std::vector<float> want;
  for (size_t i = 0; i < 4; ++i) want.push_back(std::max(xs[i] - ys[i] + zs[i], 0.0f));
  CHECK(out.to_vector<float>() == want);
}

TEST_CASE("executor: a constant changed after build changes no built model", "[graph][executor]") {
  // Whether or not a build pass repacks the weight (dense packs 8 rows, not 7), the model
  // keeps the values it was built with.
  for (int64_t rows : {int64_t(8), int64_t(7)}) {
    INFO(rows << " rows");
    NDArray w = NDArray::random({rows, 5}, Float(32), 64);
    graph::Builder b;
    const graph::Graph g = b.finish(b.dense(b.input("x", {2, 5}), b.constant("w", w)));
    const graph::CompiledModel m = graph::build(g, "llvm");
    const NDArray x = NDArray::random({2, 5}, Float(32), 65);
    const std::vector<float> before = NDArray(m.run({{"x", x}})).to_vector<float>();
    w.data_as<float>()[0] += 100.0f;
    CHECK(NDArray(m.run({{"x", x}})).to_vector<float>() == before);
  }
}
