// Constant folding: an operator whose inputs are all constants is computed once, by the
// CPU executor on a one-node graph, and replaced by its value.
#include <list>
#include <memory>
#include <mutex>

#include "tensorir/build.h"
#include "tensorir/graph/executor.h"
#include "tensorir/graph/passes.h"
#include "../kernel_key.h"
#include "rewrite_util.h"

namespace tensorir::graph {

namespace {

// The one-node models of small folds, by kernel key, the most recently used first. An
// ONNX import folds the same shape arithmetic again and again, and a session computing
// part of a model on the host folds its nodes at every run: compiled once per process,
// each later fold of the same operator, attributes and input shapes only runs. Results
// above kMaxCachedBytes (a weight transform) are compiled for their fold alone, so that
// the cache holds no large storage.
constexpr size_t kMaxCachedModels = 256;
constexpr size_t kMaxCachedBytes = size_t(1) << 20;

struct FoldCache {
  std::mutex mutex;
  std::list<std::pair<std::string, std::shared_ptr<const CompiledModel>>> models;

  std::shared_ptr<const CompiledModel> find(const std::string &key) {
    const std::lock_guard<std::mutex> lock(mutex);
    for (auto it = models.begin(); it != models.end(); ++it) {
      if (it->first != key) continue;
      models.splice(models.begin(), models, it);
      return models.front().second;
    }
    return nullptr;
  }
  void add(const std::string &key, std::shared_ptr<const CompiledModel> m) {
    const std::lock_guard<std::mutex> lock(mutex);
    models.emplace_front(key, std::move(m));
    if (models.size() > kMaxCachedModels) models.pop_back();
  }
};

FoldCache &fold_cache() {
  static FoldCache *cache = new FoldCache;  // never destroyed: folds may run during exit
  return *cache;
}

// Evaluates operator node `n` of `g` (all inputs constants) on the CPU. The one-node graph
// takes the constants as inputs, so that its kernel does not depend on their values.
NDArray evaluate(const Graph &g, const Node &n) {
  Graph one;
  Node op = n;
  op.inputs.clear();
  std::map<int, int> remap;  // add(c, c) reads one constant node
  std::map<std::string, NDArray> values;
  for (int in : n.inputs) {
    auto it = remap.find(in);
    if (it == remap.end()) {
      const Node &c = g.node(in);
      Node arg;
      arg.name = "in" + std::to_string(remap.size());
      arg.op = "input";
      arg.shape = c.shape;
      arg.dtype = c.dtype;
      values[arg.name] = c.value;
      it = remap.emplace(in, one.add_node(std::move(arg))).first;
    }
    op.inputs.push_back(it->second);
  }
  op.name = "out";
  const int out = one.add_node(std::move(op));
  one.set_output(out);
  BuildOptions plain;
  plain.tuned_schedules = false;
  plain.fold_constants = false;  // the graph is already one operator: no recursion
  plain.fold_batch_norm = false;
  plain.eliminate_dead_nodes = false;
  plain.fuse_operators = false;
  size_t bytes = size_t((one.node(out).dtype.bits() + 7) / 8);
  for (int64_t d : one.node(out).shape) bytes *= size_t(std::max<int64_t>(d, 0));
  if (bytes > kMaxCachedBytes) return build(one, "llvm", plain).run(values);
  const std::string key = kernel_key(one, {out}, out, Target("llvm"), false) + "\nexterns " +
                          std::to_string(extern_function_registrations());
  std::shared_ptr<const CompiledModel> m = fold_cache().find(key);
  if (!m) {
    m = std::make_shared<const CompiledModel>(build(one, "llvm", plain));
    fold_cache().add(key, m);
  }
  return m->run(values);
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
