// in_place_candidate: the input of a fused kernel that its result may overwrite.
#include "in_place.h"

#include "tensorir/graph/op_registry.h"

namespace tensorir::graph {

namespace {

// Reads its operands of its own shape at the element it computes.
bool same_index(const Node &n, const Node &result) {
  const OpPattern p = op_pattern(n.op);
  return (p == OpPattern::kElementWise || p == OpPattern::kBroadcast) && n.shape == result.shape;
}

// The one node of `nodes` that reads `id`, or -1 (none, or more than one, or twice).
int only_reader(const Graph &g, const std::vector<int> &nodes, int id) {
  int reader = -1, reads = 0;
  for (int n : nodes)
    for (int in : g.node(n).inputs)
      if (in == id) {
        reader = n;
        ++reads;
      }
  return reads == 1 ? reader : -1;
}

}  // namespace

int in_place_candidate(const Graph &g, const std::vector<int> &nodes, const std::vector<int> &args) {
  if (nodes.empty() || args.size() < 2) return -1;
  const Node &result = g.node(nodes.back());
  for (size_t a = 0; a + 1 < args.size(); ++a) {
    const Node &input = g.node(args[a]);
    if (input.shape != result.shape || input.dtype != result.dtype) continue;
    // From its one reader down to the result, each node reads the one before at the
    // element it computes (an absorbed node has one reader in its group).
    int at = only_reader(g, nodes, input.id);
    while (at >= 0 && same_index(g.node(at), result) && at != result.id) at = only_reader(g, nodes, at);
    if (at == result.id && same_index(result, result)) return int(a);
  }
  return -1;
}

}  // namespace tensorir::graph
