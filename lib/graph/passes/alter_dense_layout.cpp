// Packed weights for the CPU's dense: each dense whose weight is a float32 constant
// [M, K] reads it packed in panels of output columns, computed once here, so that a
// register block of columns loads one contiguous vector per step of the reduction
// instead of gathering a column of rows.
#include <set>

#include "tensorir/graph/passes.h"
#include "rewrite_util.h"

namespace tensorir::graph {

namespace {

// packed[j / b][k][j % b] = weight[j][k]
NDArray pack(const NDArray &weight, int b) {
  const int64_t m = weight.shape()[0], k = weight.shape()[1];
  NDArray out = NDArray::empty({m / b, k, b}, Float(32));
  const float *w = weight.data_as<float>();
  float *p = out.data_as<float>();
  for (int64_t j = 0; j < m; ++j)
    for (int64_t q = 0; q < k; ++q) p[((j / b) * k + q) * b + j % b] = w[j * k + q];
  return out;
}

}  // namespace

int dense_panel_width(int64_t columns) {
  for (int b : {32, 16, 8})
    if (columns % b == 0) return b;
  return 0;
}

Graph alter_dense_layout(const Graph &g) {
  return alter_dense_layout(g, [](const Graph &, const Node &n) { return dense_panel_width(n.shape[1]); });
}

Graph alter_dense_layout(const Graph &g, const DensePanelFn &panel) {
  g.validate();
  std::set<std::string> names = detail::node_names(g);
  Graph out;
  std::vector<int> remap(g.nodes().size(), -1);
  for (int id : g.topological_order()) {
    Node n = g.node(id);
    for (int &in : n.inputs) in = remap[size_t(in)];
    const Node *w = n.op == "dense" ? &g.node(g.node(id).inputs[1]) : nullptr;
    const int b = w && w->op == "constant" && w->dtype == Float(32) ? panel(g, g.node(id)) : 0;
    TIR_USER_CHECK(b >= 0 && (!b || w->shape[0] % b == 0))
        << "alter_dense_layout: a panel of " << b << " columns does not divide the " << (w ? w->shape[0] : 0)
        << " output columns of " << g.node(id).name;
    if (b) {
      Node packed;
      packed.op = "constant";
      packed.name = detail::fresh_name(names, w->name + ".packed" + std::to_string(b));
      packed.value = pack(w->value.to(Device::cpu()), b);
      packed.shape = packed.value.shape();
      packed.dtype = Float(32);
      n.op = "dense_packed";
      n.inputs[1] = out.add_node(std::move(packed));
    }
    remap[size_t(id)] = out.add_node(std::move(n));
  }
  detail::set_remapped_outputs(out, g, remap);
  return out;
}

}  // namespace tensorir::graph
