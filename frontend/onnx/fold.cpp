// Values that graph nodes compute from constants alone, computed at import when a
// converter needs them known (a shape, pads, axes, a loop's condition): shape arithmetic
// that the host folding does not cover (Mod, Ceil, TopK, ...) then still gives a model of
// fixed shapes. The nodes are compiled for the CPU as a graph of their own and run once;
// what a fold computed stays known, so later folds start from it.
#include <map>
#include <set>
#include <string>
#include <vector>

#include "frontend/onnx/host.h"
#include "frontend/onnx/importer.h"
#include "tensorir/graph/executor.h"

namespace tensorir::onnx::detail {

namespace {

// Bounds on the work done at import: a Loop unrolled over many iterations would otherwise
// compile once per iteration, and a large computation would run at every import.
constexpr int kMaxFolds = 64;
constexpr int64_t kMaxFoldElements = int64_t(1) << 24;

}  // namespace

bool Importer::fold(Value &v) {
  if (v.kind != ValueKind::kTensor || v.known.defined() || v.node < 0) return false;
  if (auto it = folded_.find(v.node); it != folded_.end()) {
    v.known = it->second;
    return true;
  }
  // The nodes `v` depends on back to constants and values folded before.
  std::set<int> needed = {v.node};
  std::vector<int> stack = {v.node};
  int64_t elements = 0;
  while (!stack.empty()) {
    const int id = stack.back();
    stack.pop_back();
    const graph::Node &n = builder_.node(graph::NodeRef{id});
    if (n.op == "input") return false;  // computed from what the model is given
    elements += element_count(n.shape);
    if (folded_.count(id)) continue;
    for (int in : n.inputs)
      if (needed.insert(in).second) stack.push_back(in);
  }
  TIR_USER_CHECK(folds_ < kMaxFolds) << "more than " << kMaxFolds << " values computed at import from constants";
  TIR_USER_CHECK(elements <= kMaxFoldElements)
      << "computing it at import would hold " << elements << " elements (at most " << kMaxFoldElements << ")";
  ++folds_;
  // In the order they were made (inputs first); a value folded before is a constant.
  graph::Graph g;
  std::map<int, int> remap;
  for (int id : needed) {
    graph::Node n = builder_.node(graph::NodeRef{id});
    if (auto it = folded_.find(id); it != folded_.end() && id != v.node) {
      n.op = "constant";
      n.inputs.clear();
      n.attrs.clear();
      n.value = it->second;
    }
    for (int &in : n.inputs) in = remap.at(in);
    remap[id] = g.add_node(std::move(n));
  }
  g.set_output(remap.at(v.node));
  graph::BuildOptions plain;  // one small graph, compiled once: no tuned schedules or layouts
  plain.tuned_schedules = false;
  plain.alter_layout = false;
  plain.winograd = 0;
  v.known = graph::build(g, "llvm", plain).run({}).at(0);
  folded_[v.node] = v.known;
  return true;
}

}  // namespace tensorir::onnx::detail
