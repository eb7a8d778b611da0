// Results computed in place of an input that dies at their kernel (TargetCaps::
// in_place_results): which inputs qualify, what the storage plan makes of them, and that
// models built, saved and loaded so compute what a plain reference does.
#include <tensorir/graph/executor.h>
#include <tensorir/runtime/model_loader.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "graph/compiled_model.h"
#include "graph/graph_test_util.h"
#include "graph/in_place.h"

using namespace tensorir;

namespace {

constexpr int64_t kC = 16, kH = 6, kW = 5;

graph::NodeRef conv1x1(graph::Builder &b, graph::NodeRef x, uint64_t seed) {
  return b.conv2d(x, b.constant("w" + std::to_string(seed), NDArray::random({kC, kC, 1, 1}, Float(32), seed)));
}

// a = relu(conv(x)), c = relu(conv(relu(conv(a))) + a), out = relu(conv(c)): c's kernel
// reads `a` once, in its residual add, where `a` dies; with `keep_a`, out adds `a` again.
graph::Graph residual_block(bool keep_a) {
  graph::Builder b;
  auto x = b.input("x", {1, kC, kH, kW});
  auto a = b.relu(conv1x1(b, x, 1), "a");
  auto c = b.relu(b.add(conv1x1(b, b.relu(conv1x1(b, a, 2)), 3), a), "c");
  auto out = b.relu(conv1x1(b, c, 4));
  return b.finish(keep_a ? b.add(out, a, "out") : out);
}

// The same, written out: 1x1 convolutions are a matrix per pixel.
std::vector<float> residual_block_reference(const std::vector<float> &x, bool keep_a) {
  const int64_t P = kH * kW;
  auto conv = [&](const std::vector<float> &in, uint64_t seed) {
    const std::vector<float> w = NDArray::random({kC, kC, 1, 1}, Float(32), seed).to_vector<float>();
    std::vector<float> out(size_t(kC * P), 0.0f);
    for (int64_t k = 0; k < kC; ++k)
      for (int64_t c = 0; c < kC; ++c)
        for (int64_t p = 0; p < P; ++p) out[size_t(k * P + p)] += w[size_t(k * kC + c)] * in[size_t(c * P + p)];
    return out;
  };
  auto relu = [](std::vector<float> v) {
    for (float &f : v) f = std::max(f, 0.0f);
    return v;
  };
  auto add = [](std::vector<float> u, const std::vector<float> &v) {
    for (size_t i = 0; i < u.size(); ++i) u[i] += v[i];
    return u;
  };
  const std::vector<float> a = relu(conv(x, 1));
  const std::vector<float> c = relu(add(conv(relu(conv(a, 2)), 3), a));
  const std::vector<float> out = relu(conv(c, 4));
  return keep_a ? add(out, a) : out;
}

int node_named(const graph::Graph &g, const std::string &name) {
  for (const graph::Node &n : g.nodes())
    if (n.name == name) return n.id;
  FAIL("no node '" << name << "'");
  return -1;
}

}  // namespace

TEST_CASE("in place: an input read once at the result's index through element-wise nodes qualifies",
          "[graph][in_place]") {
  graph::Builder b;
  auto x = b.input("x", {1, 4, 6, 6});
  auto y = b.input("y", {1, 4, 6, 6});
  auto r = b.relu(x, "r");
  auto s = b.add(r, y, "s");
  auto twice = b.add(x, x, "twice");
  auto t = b.make("transpose", {s}, {{"axes", std::vector<int64_t>{0, 1, 3, 2}}}, "t");
  const graph::Graph g = b.finish({s, twice, t});
  // s = add(relu(x), y): x read once, by relu, then s; y by s itself.
  CHECK(graph::in_place_candidate(g, {r.id, s.id}, {x.id, y.id, s.id}) == 0);
  CHECK(graph::in_place_candidate(g, {s.id}, {r.id, y.id, s.id}) == 0);
  // add(x, x) reads x twice; a transposed result reads s elsewhere than it writes.
  CHECK(graph::in_place_candidate(g, {twice.id}, {x.id, twice.id}) == -1);
  CHECK(graph::in_place_candidate(g, {s.id, t.id}, {r.id, y.id, t.id}) == -1);
}

TEST_CASE("in place: a convolution's residual dies in its result, which takes its storage", "[graph][in_place]") {
  for (bool keep_a : {false, true}) {
    INFO((keep_a ? "`a` read again after c" : "`a` dies at c"));
    const graph::Graph g = residual_block(keep_a);
    graph::CompiledModel m = graph::build(g, "llvm");
    const graph::Graph &built = m.graph();
    const int a = node_named(built, "a"), c = node_named(built, "c");
    const graph::StoragePlan &plan = m.impl().plan;
    INFO(plan.str());
    const graph::StoragePlan::Place &pa = plan.at(a), &pc = plan.at(c);
    if (keep_a) {
      CHECK(pc.in_place_of == -1);
      CHECK((pa.buffer != pc.buffer || pa.offset != pc.offset));
    } else {
      CHECK(pc.in_place_of == a);
      CHECK(pc.storage == graph::StoragePlan::Storage::Shared);
      CHECK(pa.buffer == pc.buffer);
      CHECK(pa.offset == pc.offset);
    }
    graph::BuildOptions unplanned;
    unplanned.plan_memory = false;
    graph::CompiledModel own = graph::build(g, "llvm", unplanned);
    CHECK(own.impl().plan.at(c).in_place_of == -1);
    for (uint64_t seed : {5, 6}) {
      NDArray x = NDArray::random({1, kC, kH, kW}, Float(32), seed);
      const std::vector<float> want = residual_block_reference(x.to_vector<float>(), keep_a);
      CHECK(graph_test::max_rel_error(m.run({{"x", x}}).to_vector<float>(), want) < 1e-5);
      CHECK(graph_test::max_rel_error(own.run({{"x", x}}).to_vector<float>(), want) < 1e-5);
    }
  }
}

TEST_CASE("in place: a saved model records the kernel that computes in place and runs it", "[graph][in_place][save]") {
  graph_test::TempDir dir("in_place");
  graph::build(residual_block(false), "llvm").save(dir.str());
  std::ifstream f(dir.str("model.json"));
  std::stringstream text;
  text << f.rdbuf();
  CHECK(text.str().find("\"in_place\"") != std::string::npos);
  runtime::LoadedModel loaded = runtime::load_model(dir.str());
  NDArray x = NDArray::random({1, kC, kH, kW}, Float(32), 7);
  const std::vector<float> want = residual_block_reference(x.to_vector<float>(), false);
  CHECK(graph_test::max_rel_error(loaded.run({{"x", x}}).to_vector<float>(), want) < 1e-5);
}

TEST_CASE("in place: not on targets whose kernels cannot read and write one buffer", "[graph][in_place]") {
  // "wasm" kernels are compiled here but run elsewhere: the plan is what its package writes.
  graph::CompiledModel m = graph::build(residual_block(false), "wasm");
  CHECK(m.impl().plan.at(node_named(m.graph(), "c")).in_place_of == -1);
}
