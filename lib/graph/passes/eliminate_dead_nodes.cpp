// Dead node elimination: keeps what the outputs depend on, plus the graph inputs.
#include "tensorir/graph/passes.h"
#include "rewrite_util.h"

namespace tensorir::graph {

Graph eliminate_dead_nodes(const Graph &g) {
  g.validate();
  const std::vector<Node> &nodes = g.nodes();
  std::vector<bool> live(nodes.size(), false);
  // Nodes come after their inputs, so one backward sweep reaches everything live.
  for (int id : g.outputs()) live[size_t(id)] = true;
  for (int id : g.input_ids()) live[size_t(id)] = true;
  const std::vector<int> order = g.topological_order();
  for (auto it = order.rbegin(); it != order.rend(); ++it)
    if (live[size_t(*it)])
      for (int in : nodes[size_t(*it)].inputs) live[size_t(in)] = true;

  Graph out;
  std::vector<int> remap(nodes.size(), -1);
  for (int id : order) {
    if (!live[size_t(id)]) continue;
    Node n = nodes[size_t(id)];
    for (int &in : n.inputs) in = remap[size_t(in)];
    remap[size_t(id)] = out.add_node(std::move(n));
  }
  detail::set_remapped_outputs(out, g, remap);
  return out;
}

}  // namespace tensorir::graph
