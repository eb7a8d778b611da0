// Values that graph nodes compute from constants alone, computed at import when a
// converter needs them known (a shape, pads, axes): shape arithmetic that the host
// folding does not cover (Mod, Floor, TopK, ...) then still gives a model of fixed
// shapes. The nodes are compiled for the CPU as a graph of their own and run once.
#include <map>
#include <set>
#include <vector>

#include "frontend/onnx/importer.h"
#include "tensorir/graph/executor.h"

namespace tensorir::onnx::detail {

bool Importer::fold(Value &v) {
  if (v.kind != ValueKind::kTensor || v.known.defined() || v.node < 0) return false;
  // The nodes `v` depends on, all of them, in the order they were made (inputs first).
  std::set<int> needed = {v.node};
  std::vector<int> stack = {v.node};
  while (!stack.empty()) {
    const graph::Node &n = builder_.node(graph::NodeRef{stack.back()});
    stack.pop_back();
    if (n.op == "input") return false;  // computed from what the model is given
    for (int in : n.inputs)
      if (needed.insert(in).second) stack.push_back(in);
  }
  graph::Graph g;
  std::map<int, int> remap;
  for (int id : needed) {
    graph::Node n = builder_.node(graph::NodeRef{id});
    for (int &in : n.inputs) in = remap.at(in);
    remap[id] = g.add_node(std::move(n));
  }
  g.set_output(remap.at(v.node));
  graph::BuildOptions plain;  // one small graph, compiled once: no tuned schedules or layouts
  plain.tuned_schedules = false;
  plain.alter_layout = false;
  plain.winograd = 0;
  v.known = graph::build(g, "llvm", plain).run({}).at(0);
  return true;
}

}  // namespace tensorir::onnx::detail
