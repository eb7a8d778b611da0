// The graph passes (constant folding, batch_norm folding, dead node elimination, fusion)
// and fused execution, each compared with the graph run without them.
#include <tensorir/graph/executor.h>
#include <tensorir/graph/models.h>
#include <tensorir/graph/passes.h>

#include <algorithm>
#include <catch2/catch.hpp>

#include "graph/graph_test_util.h"
#include <cmath>

using namespace tensorir;

namespace {

NDArray rnd(const std::vector<int64_t> &shape, uint64_t seed, double lo = -1, double hi = 1) {
  return NDArray::random(shape, Float(32), seed, lo, hi);
}

graph::BuildOptions no_passes(bool tuned) {
  graph::BuildOptions o;
  o.tuned_schedules = tuned;
  o.fold_constants = o.fold_batch_norm = o.eliminate_dead_nodes = o.fuse_operators = false;
  return o;
}

ops::Conv2dAttrs same_3x3() {
  ops::Conv2dAttrs a;
  a.padding = {1, 1};
  return a;
}

// conv -> bn -> relu -> add(residual) -> relu -> maxpool -> flatten -> dense -> bias_add
// -> softmax, with 8 channels so the blocked conv schedule applies.
graph::Graph block_net() {
  graph::Builder b;
  auto x = b.input("x", {1, 8, 8, 8});
  auto c = b.conv2d(x, b.constant("conv.weight", rnd({8, 8, 3, 3}, 1, -0.3, 0.3)), same_3x3(), "conv");
  auto n = b.batch_norm(c, b.constant("bn.gamma", rnd({8}, 2, 0.5, 1.5)), b.constant("bn.beta", rnd({8}, 3)),
                        b.constant("bn.mean", rnd({8}, 4, -0.2, 0.2)), b.constant("bn.var", rnd({8}, 5, 0.5, 1.5)),
                        1e-5, "bn");
  auto r = b.relu(b.add(b.relu(n, "relu1"), x, "add"), "relu2");
  auto p = b.max_pool2d(r, {2, 2}, {2, 2}, {0, 0}, "pool");
  auto d = b.dense(b.flatten(p, "flatten"), b.constant("fc.weight", rnd({10, 128}, 6, -0.2, 0.2)), "fc");
  return b.finish(b.softmax(b.bias_add(d, b.constant("fc.bias", rnd({10}, 7)), 1, "fc.bias_add"), -1, "softmax"));
}

}  // namespace

TEST_CASE("fuse_operators groups anchors with their element-wise tails", "[graph][passes]") {
  const graph::Graph g = block_net();
  const std::vector<graph::FusedGroup> groups = graph::fuse_operators(g);
  CHECK(graph::groups_str(g, groups) ==
        "conv+bn+relu1+add+relu2\n"
        "pool\n"
        "flatten\n"
        "fc+fc.bias_add\n"
        "softmax\n");
  REQUIRE(groups.size() == 5);
  CHECK(groups[0].anchor == g.node("conv").id);
  CHECK(groups[1].anchor == -1);
  CHECK(groups[3].anchor == g.node("fc").id);

  // A second reader of relu1 ends the conv's group there.
  graph::Builder b;
  auto x = b.input("x", {1, 8, 4, 4});
  auto r = b.relu(b.conv2d(x, b.constant("w", rnd({8, 8, 1, 1}, 8)), {}, "conv"), "relu1");
  auto y = b.add(b.relu(r, "relu2"), r, "add");
  const graph::Graph g2 = b.finish(y);
  CHECK(graph::groups_str(g2, graph::fuse_operators(g2)) == "conv+relu1\nrelu2+add\n");
}

TEST_CASE("fused kernels compute what one kernel per node computes", "[graph][passes]") {
  const bool tuned = GENERATE(true, false);
  CAPTURE(tuned);
  const graph::Graph g = block_net();
  graph::BuildOptions fused;
  fused.tuned_schedules = tuned;
  const graph::CompiledModel a = graph::build(g, "llvm", fused);
  const graph::CompiledModel b = graph::build(g, "llvm", no_passes(tuned));
  CHECK(b.num_kernels() == 10);
  CHECK(a.num_kernels() < b.num_kernels());
  for (uint64_t seed : {11, 12}) {
    const NDArray in = rnd({1, 8, 8, 8}, seed);
    CHECK(graph_test::max_rel_error(a.run({{"x", in}}).to_vector<float>(), b.run({{"x", in}}).to_vector<float>()) < 1e-5);
  }
  const auto prof = a.profile({{"x", rnd({1, 8, 8, 8}, 13)}}, 1);
  REQUIRE(prof.size() == a.num_kernels());
  CHECK(prof[0].node == "relu2");
  CHECK(prof[0].op == "conv2d");
  CHECK(prof[0].fused == std::vector<std::string>{"conv", "bn", "relu1", "add", "relu2"});
}

TEST_CASE("a grouped conv2d computes its tail in its tuned kernel", "[graph][passes]") {
  graph::Builder b;
  auto x = b.input("x", {1, 8, 6, 6});
  ops::Conv2dAttrs a = same_3x3();
  a.groups = 2;
  auto c = b.conv2d(x, b.constant("w", rnd({8, 4, 3, 3}, 1)), a, "conv");
  const graph::Graph g = b.finish(b.relu(b.bias_add(c, b.constant("b", rnd({8}, 2)), 1, "bias"), "relu"));
  const graph::CompiledModel fused = graph::build(g, "llvm");
  CHECK(fused.num_kernels() == 1);
  const NDArray in = rnd({1, 8, 6, 6}, 3);
  CHECK(graph_test::max_rel_error(fused.run({{"x", in}}).to_vector<float>(),
                     graph::build(g, "llvm", no_passes(true)).run({{"x", in}}).to_vector<float>()) < 1e-5);
}

TEST_CASE("fold_batch_norm moves batch_norm into the convolution", "[graph][passes]") {
  const graph::Graph g = block_net();
  const graph::Graph f = graph::fold_batch_norm(g);
  CHECK(f.node("bn").op == "bias_add");
  CHECK(f.node("conv").inputs[1] == f.node("conv.weight_folded").id);
  for (const graph::Node &n : f.nodes()) CHECK(n.op != "batch_norm");

  graph::BuildOptions only_bn = no_passes(false);
  only_bn.fold_batch_norm = true;
  const graph::CompiledModel before = graph::build(g, "llvm", no_passes(false));
  const graph::CompiledModel after = graph::build(g, "llvm", only_bn);
  for (uint64_t seed : {21, 22}) {
    const NDArray in = rnd({1, 8, 8, 8}, seed);
    const std::vector<float> want = before.run({{"x", in}}).to_vector<float>();
    const std::vector<float> got = after.run({{"x", in}}).to_vector<float>();
    double diff = 0;
    for (size_t i = 0; i < want.size(); ++i) diff = std::max(diff, std::fabs(double(got[i]) - double(want[i])));
    CHECK(diff < 1e-5);
  }

  // A conv2d read by more than the batch_norm is left as it is.
  graph::Builder b;
  auto x = b.input("x", {1, 4, 4, 4});
  auto c = b.conv2d(x, b.constant("w", rnd({4, 4, 1, 1}, 9)), {}, "conv");
  auto one = b.constant("one", NDArray::from_vector(std::vector<float>(4, 1.0f), {4}));
  auto zero = b.constant("zero", NDArray::from_vector(std::vector<float>(4, 0.0f), {4}));
  auto n = b.batch_norm(c, one, zero, zero, one, 1e-5, "bn");
  const graph::Graph shared = graph::fold_batch_norm(b.finish(b.add(n, c, "add")));
  CHECK(shared.node("bn").op == "batch_norm");
}

TEST_CASE("eliminate_dead_nodes keeps what the output needs and the inputs", "[graph][passes]") {
  graph::Builder b;
  auto x = b.input("x", {1, 4});
  auto unused_in = b.input("unused_in", {1, 4});
  auto dead = b.relu(b.add(x, b.constant("dead.c", rnd({1, 4}, 1)), "dead.add"), "dead.relu");
  (void)dead;
  auto y = b.relu(b.add(x, b.constant("c", rnd({1, 4}, 2)), "live.add"), "live.relu");
  const graph::Graph g = b.finish(y);
  const graph::Graph d = graph::eliminate_dead_nodes(g);
  CHECK(d.nodes().size() == g.nodes().size() - 3);
  std::vector<std::string> names;
  for (const graph::Node &n : d.nodes()) names.push_back(n.name);
  CHECK(names == std::vector<std::string>{"x", "unused_in", "c", "live.add", "live.relu"});
  CHECK(d.node(d.output()).name == "live.relu");
  d.validate();
  (void)unused_in;

  const NDArray in = rnd({1, 4}, 3), other = rnd({1, 4}, 4);
  const auto want = graph::build(g, "llvm", no_passes(false)).run({{"x", in}, {"unused_in", other}});
  const auto got = graph::build(d, "llvm", no_passes(false)).run({{"x", in}, {"unused_in", other}});
  CHECK(got.to_vector<float>() == want.to_vector<float>());
}

TEST_CASE("fold_constants evaluates parameter-only nodes once", "[graph][passes]") {
  graph::Builder b;
  auto x = b.input("x", {2, 3});
  const NDArray c1 = rnd({2, 3}, 1), c2 = rnd({2, 3}, 2);
  auto s = b.relu(b.add(b.constant("c1", c1), b.constant("c2", c2), "csum"), "crelu");
  const graph::Graph g = b.finish(b.make("multiply", {x, s}, {}, "out"));
  const graph::Graph f = graph::fold_constants(g);
  REQUIRE(f.node("csum").op == "constant");
  REQUIRE(f.node("crelu").op == "constant");
  CHECK(f.node("out").op == "multiply");
  const std::vector<float> a = c1.to_vector<float>(), bb = c2.to_vector<float>();
  const std::vector<float> v = f.node("crelu").value.to_vector<float>();
  for (size_t i = 0; i < a.size(); ++i) CHECK(v[i] == std::max(a[i] + bb[i], 0.0f));
  // Built with all passes, the model is one kernel: the multiply.
  CHECK(graph::build(g, "llvm").num_kernels() == 1);
}

TEST_CASE("fold_constants compiles an operator once and computes each fold's own values", "[graph][passes]") {
  // The same operators, attributes and shapes with other constants (and an attribute or a
  // shape that differs): each fold gives its own values, not an earlier fold's.
  auto folded = [](const NDArray &c1, const NDArray &c2, int64_t axis) {
    graph::Builder b;
    auto x = b.input("x", {1});
    auto sum = b.make("reduce_sum", {b.add(b.constant("c1", c1), b.constant("c2", c2), "csum")},
                      {{"axes", std::vector<int64_t>{axis}}}, "cred");
    const graph::Graph g = graph::fold_constants(b.finish(b.make("multiply", {x, sum}, {}, "out")));
    REQUIRE(g.node("cred").op == "constant");
    return g.node("cred").value.to_vector<float>();
  };
  auto want = [](const NDArray &c1, const NDArray &c2, int64_t axis, int64_t rows, int64_t cols) {
    const std::vector<float> a = c1.to_vector<float>(), b = c2.to_vector<float>();
    std::vector<float> out(size_t(axis == 0 ? cols : rows), 0.f);
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < cols; ++c) out[size_t(axis == 0 ? c : r)] += a[size_t(r * cols + c)] + b[size_t(r * cols + c)];
    return out;
  };
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    INFO("seed " << seed);
    const NDArray c1 = rnd({2, 3}, seed), c2 = rnd({2, 3}, seed + 10);
    for (int64_t axis : {0, 1}) {
      const std::vector<float> got = folded(c1, c2, axis), expect = want(c1, c2, axis, 2, 3);
      REQUIRE(got.size() == expect.size());
      for (size_t i = 0; i < got.size(); ++i) CHECK(got[i] == Approx(expect[i]).margin(1e-6));
    }
    const NDArray d1 = rnd({3, 2}, seed), d2 = rnd({3, 2}, seed + 20);
    const std::vector<float> got = folded(d1, d2, 1), expect = want(d1, d2, 1, 3, 2);
    REQUIRE(got.size() == expect.size());
    for (size_t i = 0; i < got.size(); ++i) CHECK(got[i] == Approx(expect[i]).margin(1e-6));
  }
}

TEST_CASE("a fold's error names its own nodes, after a fold of the same kind", "[graph][passes][error]") {
  // rows = take(table, ids): the second fold's ids are out of range.
  auto fold = [](const std::string &suffix, int64_t id) {
    graph::Builder b;
    auto x = b.input("x", {2, 4});
    auto rows = b.make("take", {b.constant("table" + suffix, rnd({3, 4}, 1)),
                                b.constant("ids" + suffix, NDArray::from_vector<int64_t>({0, id}, {2}))},
                       {{"axis", int64_t{0}}}, "rows" + suffix);
    return graph::fold_constants(b.finish(b.add(x, rows, "y")));
  };
  CHECK(fold("_a", 2).node("rows_a").op == "constant");
  CHECK_THROWS_WITH(fold("_b", 7), Catch::Matchers::Contains("ids_b") && !Catch::Matchers::Contains("ids_a"));
}

TEST_CASE("resnet18 fused on llvm computes what it computes unfused", "[graph][passes][resnet18]") {
  const graph::Graph g = graph::resnet18(5);
  const graph::CompiledModel fused = graph::build(g, "llvm");
  const graph::CompiledModel plain = graph::build(g, "llvm", no_passes(true));
  // 20 conv groups (BN, ReLU and residual adds inside), maxpool, global pool, flatten, fc.
  CHECK(plain.num_kernels() == 70);
  CHECK(fused.num_kernels() <= 25);
  const NDArray in = rnd({1, 3, 224, 224}, 6);
  CHECK(graph_test::max_rel_error(fused.run({{"data", in}}).to_vector<float>(), plain.run({{"data", in}}).to_vector<float>()) <
        1e-5);
}
