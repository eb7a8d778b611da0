// Operator fusion: which nodes share a kernel. Groups are chains, so the only tensors a
// group writes to memory are its result; every intermediate has one reader, inside.
#include <algorithm>
#include <sstream>

#include "tensorir/graph/passes.h"

namespace tensorir::graph {

std::vector<FusedGroup> fuse_operators(const Graph &g) {
  g.validate();
  const size_t count = g.nodes().size();
  std::vector<std::vector<int>> readers(count);
  for (const Node &n : g.nodes())
    for (int in : n.inputs)
      if (readers[size_t(in)].empty() || readers[size_t(in)].back() != n.id) readers[size_t(in)].push_back(n.id);
  // The graph output is read from outside: it always ends its group.
  auto sole_reader = [&](int id) { return g.is_output(id) || readers[size_t(id)].size() != 1 ? -1 : readers[size_t(id)][0]; };
  auto maps = [](OpPattern p) { return p == OpPattern::kElementWise || p == OpPattern::kBroadcast; };

  std::vector<bool> taken(count, false);
  std::vector<FusedGroup> groups;
  for (int id : g.topological_order()) {
    const Node &start = g.node(id);
    const OpPattern p = op_pattern(start.op);
    if (taken[size_t(id)] || start.op == "input" || start.op == "constant") continue;
    FusedGroup grp;
    grp.nodes.push_back(id);
    if (p == OpPattern::kOutFusable) grp.anchor = id;
    int last = id;
    // A reduction ends the group it is in, so only the others look for a reader.
    while (p != OpPattern::kOpaque && op_pattern(g.node(last).op) != OpPattern::kReduction) {
      const int next = sole_reader(last);
      if (next < 0 || taken[size_t(next)]) break;
      const Node &r = g.node(next);
      // The value must flow through the reader's data input; parameters (bias, gamma)
      // never come from the group. add and multiply may take it on either side.
      const bool commutes = op_def(r.op).commutative;
      const bool flows = r.inputs[0] == last || (commutes && r.inputs.size() > 1 && r.inputs[1] == last);
      const OpPattern rp = op_pattern(r.op);
      bool ok = flows && rp != OpPattern::kOutFusable && rp != OpPattern::kOpaque;
      // An anchor's tail keeps its shape, so it can be computed in the anchor's loops.
      if (p == OpPattern::kOutFusable) ok = ok && maps(rp) && r.shape == start.shape;
      if (!ok) break;
      grp.nodes.push_back(next);
      taken[size_t(next)] = true;
      last = next;
    }
    taken[size_t(id)] = true;
    groups.push_back(std::move(grp));
  }
  // A group runs once all it reads is computed: at its result's place in the order (a
  // residual add may read a node that comes after the group's anchor).
  std::vector<int> position(count, 0);
  const std::vector<int> order = g.topological_order();
  for (size_t i = 0; i < order.size(); ++i) position[size_t(order[i])] = int(i);
  std::stable_sort(groups.begin(), groups.end(), [&](const FusedGroup &a, const FusedGroup &b) {
    return position[size_t(a.output())] < position[size_t(b.output())];
  });
  return groups;
}

std::string groups_str(const Graph &g, const std::vector<FusedGroup> &groups) {
  std::ostringstream os;
  for (const FusedGroup &grp : groups) {
    for (size_t i = 0; i < grp.nodes.size(); ++i) os << (i ? "+" : "") << g.node(grp.nodes[i]).name;
    os << "\n";
  }
  return os.str();
}

std::vector<FusedGroup> limit_group_inputs(const Graph &g, const std::vector<FusedGroup> &groups, int max_inputs) {
  std::vector<FusedGroup> out;
  for (const FusedGroup &grp : groups) {
    FusedGroup piece;
    std::vector<int> reads;  // what the piece reads from outside it
    auto reads_with = [&](int id) {
      std::vector<int> r = reads;
      for (int in : g.node(id).inputs)
        if (std::find(piece.nodes.begin(), piece.nodes.end(), in) == piece.nodes.end() &&
            std::find(r.begin(), r.end(), in) == r.end())
          r.push_back(in);
      return r;
    };
    for (int id : grp.nodes) {
      std::vector<int> r = reads_with(id);
      if (!piece.nodes.empty() && int(r.size()) > max_inputs) {
        out.push_back(std::move(piece));
        piece = FusedGroup{};
        reads.clear();
        r = reads_with(id);
      }
      piece.nodes.push_back(id);
      if (id == grp.anchor) piece.anchor = id;
      reads = std::move(r);
    }
    out.push_back(std::move(piece));
  }
  return out;
}

}  // namespace tensorir::graph
