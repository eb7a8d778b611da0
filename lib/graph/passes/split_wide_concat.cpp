// For targets whose kernels read a bounded number of tensors (TargetCaps::
// max_kernel_inputs: a shader's 16 buffers or textures): a concatenation of more inputs
// becomes a tree of concatenations along the same axis, each within the bound. DenseNet
// joins dozens of feature maps this way.
#include <set>

#include "tensorir/graph/passes.h"
#include "rewrite_util.h"

namespace tensorir::graph {

Graph split_wide_concat(const Graph &g, int max_inputs) {
  TIR_USER_CHECK(max_inputs >= 2) << "split_wide_concat: a concatenation of " << max_inputs
                                  << " inputs at most cannot join more";
  g.validate();
  std::set<std::string> names = detail::node_names(g);
  Graph out;
  std::vector<int> remap(g.nodes().size(), -1);
  for (int id : g.topological_order()) {
    Node n = g.node(id);
    for (int &in : n.inputs) in = remap[size_t(in)];
    if (n.op != "concatenate" || int(n.inputs.size()) <= max_inputs) {
      remap[size_t(id)] = out.add_node(std::move(n));
      continue;
    }
    // Join runs of max_inputs into partial results until one node can take them all.
    const int64_t axis = n.attr_int("axis");
    const int rank = int(n.shape.size());
    const size_t at = size_t(axis < 0 ? axis + rank : axis);
    std::vector<int> parts = n.inputs;
    while (int(parts.size()) > max_inputs) {
      std::vector<int> joined;
      for (size_t i = 0; i < parts.size(); i += size_t(max_inputs)) {
        const size_t end = std::min(parts.size(), i + size_t(max_inputs));
        if (end - i == 1) {
          joined.push_back(parts[i]);
          continue;
        }
        Node part = n;
        part.name = detail::fresh_name(names, n.name + ".part");
        part.inputs.assign(parts.begin() + long(i), parts.begin() + long(end));
        part.shape[at] = 0;
        for (int in : part.inputs) part.shape[at] += out.node(in).shape[at];
        joined.push_back(out.add_node(std::move(part)));
      }
      parts = std::move(joined);
    }
    n.inputs = parts;
    remap[size_t(id)] = out.add_node(std::move(n));
  }
  detail::set_remapped_outputs(out, g, remap);
  return out;
}

}  // namespace tensorir::graph
