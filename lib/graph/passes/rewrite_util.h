// What the graph passes that rebuild a graph node by node share.
#pragma once
#include <set>
#include <string>
#include <vector>

#include "tensorir/graph/graph.h"

namespace tensorir::graph::detail {

// The names of `g`'s nodes: what fresh_name must avoid in a pass rebuilding `g`.
inline std::set<std::string> node_names(const Graph &g) {
  std::set<std::string> names;
  for (const Node &n : g.nodes()) names.insert(n.name);
  return names;
}

// `base`, or `base_1`, `base_2`, ... the first not in `names`; it is added to them.
inline std::string fresh_name(std::set<std::string> &names, const std::string &base) {
  std::string name = base;
  for (int i = 1; names.count(name); ++i) name = base + "_" + std::to_string(i);
  names.insert(name);
  return name;
}

// The outputs of `g`, through `remap` (old node id -> new), become those of `out`.
inline void set_remapped_outputs(Graph &out, const Graph &g, const std::vector<int> &remap) {
  std::vector<int> outputs;
  for (int id : g.outputs()) outputs.push_back(remap[size_t(id)]);
  out.set_outputs(outputs);
}

}  // namespace tensorir::graph::detail
