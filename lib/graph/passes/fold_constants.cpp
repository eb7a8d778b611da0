// Constant folding: an operator whose inputs are all constants is computed once, by the
// CPU executor on a one-node graph, and replaced by its value.
#include "tensorir/graph/executor.h"
#include "tensorir/graph/passes.h"
#include "rewrite_util.h"

namespace tensorir::graph {

namespace {

// Evaluates operator node `n` of `g` (all inputs constants) on the CPU.
NDArray evaluate(const Graph &g, const Node &n) {
  Graph one;
  Node op = n;
  op.inputs.clear();
  std::map<int, int> remap;  // add(c, c) reads one constant node
  for (int in : n.inputs) {
    auto it = remap.find(in);
    if (it == remap.end()) it = remap.emplace(in, one.add_node(g.node(in))).first;
    op.inputs.push_back(it->second);
  }
  one.set_output(one.add_node(std::move(op)));
  BuildOptions plain;
  plain.tuned_schedules = false;
  plain.fold_constants = false;  // the graph is already one operator: no recursion
  plain.fold_batch_norm = false;
  plain.eliminate_dead_nodes = false;
  plain.fuse_operators = false;
  return build(one, "llvm", plain).run({});
}

}  // namespace

Graph fold_constants(const Graph &g) {
  g.validate();
  Graph out;
  std::vector<int> order = g.topological_order();
  std::vector<int> remap(g.nodes().size(), -1);
  for (int id : order) {
    Node n = g.node(id);
    for (int &in : n.inputs) in = remap[size_t(in)];
    bool all_const = n.op != "input" && n.op != "constant" && !n.inputs.empty();
    for (int in : n.inputs) all_const = all_const && out.node(in).op == "constant";
    if (all_const) {
      Node c;
      c.name = n.name;
      c.op = "constant";
      c.shape = n.shape;
      c.dtype = n.dtype;
      c.value = evaluate(out, n);
      n = std::move(c);
    }
    remap[size_t(id)] = out.add_node(std::move(n));
  }
  detail::set_remapped_outputs(out, g, remap);
  return out;
}

}  // namespace tensorir::graph
