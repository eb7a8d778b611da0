// The CPU's packed dense: alter_dense_layout's rewrite, and models built with it (alone
// and with an element-wise tail fused) against plain loops, for row counts the register
// block divides and does not (1, 7, 197 rows), and panels of 32, 16 and 8 columns.
#include <tensorir/graph/executor.h>
#include <tensorir/graph/passes.h>

#include <catch2/catch.hpp>
#include <cmath>

#include "graph/graph_test_util.h"

using namespace tensorir;
using namespace tensorir::graph;

namespace {

struct DenseCase {
  int64_t n, k, m;
};

// relu(x W^T + bias) in double, or x W^T without the tail.
std::vector<float> reference(const DenseCase &c, const std::vector<float> &x, const std::vector<float> &w,
                             const std::vector<float> &bias, bool tail) {
  std::vector<float> out(size_t(c.n * c.m));
  for (int64_t i = 0; i < c.n; ++i)
    for (int64_t j = 0; j < c.m; ++j) {
      double acc = 0;
      for (int64_t q = 0; q < c.k; ++q) acc += double(x[size_t(i * c.k + q)]) * double(w[size_t(j * c.k + q)]);
      if (tail) acc = std::max(acc + bias[size_t(j)], 0.0);
      out[size_t(i * c.m + j)] = float(acc);
    }
  return out;
}

Graph dense_graph(const DenseCase &c, const NDArray &w, const NDArray &bias, bool tail) {
  Builder b;
  NodeRef x = b.input("x", {c.n, c.k});
  NodeRef y = b.dense(x, b.constant("fc.weight", w), "fc");
  if (tail) y = b.relu(b.bias_add(y, b.constant("fc.bias", bias), 1, "fc_bias"), "fc_relu");
  return b.finish(y);
}

}  // namespace

TEST_CASE("alter_dense_layout packs constant weights in panels of columns", "[graph][dense]") {
  const NDArray w = NDArray::random({48, 20}, Float(32), 1);
  Builder b;
  NodeRef x = b.input("x", {3, 20});
  NodeRef computed = b.input("w2", {48, 20});
  NodeRef y = b.dense(x, b.constant("fc.weight", w), "fc");
  NodeRef z = b.dense(x, computed, "fc2");  // not a constant: left as it is
  const Graph g = alter_dense_layout(b.finish({y, z}));
  const Node &fc = g.node("fc");
  CHECK(fc.op == "dense_packed");
  const Node &packed = g.node(fc.inputs[1]);
  CHECK(packed.name == "fc.weight.packed16");
  REQUIRE(packed.shape == std::vector<int64_t>{3, 20, 16});
  const std::vector<float> wv = w.to_vector<float>(), pv = packed.value.to_vector<float>();
  for (int64_t j = 0; j < 48; ++j)
    for (int64_t q = 0; q < 20; ++q) CHECK(pv[size_t(((j / 16) * 20 + q) * 16 + j % 16)] == wv[size_t(j * 20 + q)]);
  CHECK(g.node("fc2").op == "dense");
}

TEST_CASE("dense with packed weights matches plain loops, alone and with a fused tail", "[graph][dense]") {
  for (const DenseCase c : {DenseCase{1, 512, 1000}, DenseCase{7, 33, 48}, DenseCase{128, 768, 96},
                            DenseCase{197, 64, 40}, DenseCase{16, 24, 20}}) {
    for (bool tail : {false, true}) {
      CAPTURE(c.n, c.k, c.m, tail);
      const NDArray x = NDArray::random({c.n, c.k}, Float(32), 3);
      const NDArray w = NDArray::random({c.m, c.k}, Float(32), 4);
      const NDArray bias = NDArray::random({c.m}, Float(32), 5);
      const Graph g = dense_graph(c, w, bias, tail);
      const CompiledModel m = build(g, "llvm");
      // Packed exactly when a panel of 8, 16 or 32 divides the columns (20 does not).
      bool packed = false;
      for (const Node &n : m.graph().nodes()) packed = packed || n.op == "dense_packed";
      CHECK(packed == (c.m % 8 == 0));
      const std::vector<float> want =
          reference(c, x.to_vector<float>(), w.to_vector<float>(), bias.to_vector<float>(), tail);
      CHECK(graph_test::max_rel_error(m.run({{"x", x}}).to_vector<float>(), want) < 1e-5);
    }
  }
}
