// Targets whose kernels read a bounded number of tensors (TargetCaps::max_kernel_inputs:
// 16 buffers or textures per shader): concatenations of more inputs become trees, fused
// groups that read more are cut; the results against plain loops on every target.
#include <tensorir/graph/executor.h>
#include <tensorir/graph/passes.h>
#include <tensorir/tensorir.h>

#include <catch2/catch.hpp>
#include <set>
#include <string>
#include <vector>

using namespace tensorir;

namespace {

constexpr int kParts = 37, kChain = 20;

// y = concatenate of kParts inputs [1, 2 + i % 3, 5] along axis 1, relu'd.
graph::Graph wide_concat(std::vector<NDArray> *inputs) {
  graph::Builder b;
  std::vector<graph::NodeRef> parts;
  for (int i = 0; i < kParts; ++i) {
    const std::vector<int64_t> shape = {1, 2 + i % 3, 5};
    parts.push_back(b.input("x" + std::to_string(i), shape));
    inputs->push_back(NDArray::random(shape, Float(32), uint64_t(100 + i), -1.0, 1.0));
  }
  return b.finish(b.relu(b.make("concatenate", parts, {{"axis", int64_t{1}}}), "y"));
}

// y = relu(x + c0 + c1 + ... ) with kChain constants: one fused chain of element-wise adds.
graph::Graph constant_chain(std::vector<NDArray> *constants) {
  graph::Builder b;
  graph::NodeRef v = b.input("x", {13});
  for (int i = 0; i < kChain; ++i) {
    constants->push_back(NDArray::random({13}, Float(32), uint64_t(200 + i), -1.0, 1.0));
    v = b.add(v, b.constant("c" + std::to_string(i), constants->back()));
  }
  return b.finish(b.relu(v, "y"));
}

}  // namespace

TEST_CASE("split_wide_concat makes a tree of concatenations within the bound", "[graph][passes]") {
  std::vector<NDArray> inputs;
  const graph::Graph g = wide_concat(&inputs);
  const graph::Graph split = graph::split_wide_concat(g, 8);
  int concats = 0;
  for (const graph::Node &n : split.nodes())
    if (n.op == "concatenate") {
      ++concats;
      CHECK(n.inputs.size() <= 8);
    }
  CHECK(concats == 6);  // 37 -> 5 parts (8, 8, 8, 8, 5) -> 1
  CHECK(split.node(split.outputs()[0]).shape == g.node(g.outputs()[0]).shape);
  CHECK_THROWS_WITH(graph::split_wide_concat(g, 1), Catch::Contains("cannot join more"));
}

TEST_CASE("limit_group_inputs cuts a fused chain that reads too many tensors", "[graph][passes]") {
  std::vector<NDArray> constants;
  const graph::Graph g = constant_chain(&constants);
  const std::vector<graph::FusedGroup> fused = graph::fuse_operators(g);
  REQUIRE(fused.size() == 1);  // x, twenty constants: 21 inputs in one kernel
  const std::vector<graph::FusedGroup> cut = graph::limit_group_inputs(g, fused, 15);
  CHECK(cut.size() == 2);
  size_t nodes = 0;
  for (const graph::FusedGroup &grp : cut) {
    std::set<int> reads;
    for (int id : grp.nodes)
      for (int in : g.node(id).inputs)
        if (std::find(grp.nodes.begin(), grp.nodes.end(), in) == grp.nodes.end()) reads.insert(in);
    CHECK(reads.size() <= 15);
    nodes += grp.nodes.size();
  }
  CHECK(nodes == fused[0].nodes.size());
}

TEST_CASE("wide concatenations and long fused chains run on every target", "[graph][opengl][opencl]") {
  const std::string target = GENERATE(as<std::string>{}, "llvm", "opengl", "opengl -mode=fragment", "opencl");
  INFO("target " << target);
  {
    std::vector<NDArray> inputs;
    const graph::Graph g = wide_concat(&inputs);
    std::map<std::string, NDArray> feed;
    std::vector<float> want;
    for (int i = 0; i < kParts; ++i) feed["x" + std::to_string(i)] = inputs[size_t(i)];
    for (int i = 0; i < kParts; ++i)  // axis 1 of [1, rows, 5]: each input's rows in turn
      for (float v : inputs[size_t(i)].to_vector<float>()) want.push_back(std::max(v, 0.0f));
    const NDArray y = graph::build(g, target).run(feed);
    CHECK(y.to_vector<float>() == want);
  }
  {
    std::vector<NDArray> constants;
    const graph::Graph g = constant_chain(&constants);
    const NDArray x = NDArray::random({13}, Float(32), 7, -5.0, 5.0);
    std::vector<double> sum(13);
    const std::vector<float> xv = x.to_vector<float>();
    for (int j = 0; j < 13; ++j) sum[size_t(j)] = xv[size_t(j)];
    for (const NDArray &c : constants)
      for (int j = 0; j < 13; ++j) sum[size_t(j)] += c.to_vector<float>()[size_t(j)];
    const std::vector<float> y = graph::build(g, target).run({{"x", x}}).to_vector<float>();
    for (int j = 0; j < 13; ++j) CHECK(y[size_t(j)] == Approx(std::max(sum[size_t(j)], 0.0)).margin(1e-5));
  }
}
