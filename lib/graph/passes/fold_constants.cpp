// Constant folding: an operator whose inputs are all constants is computed once, by the
// CPU executor on a one-node graph, and replaced by its value.
#include <list>
#include <memory>
#include <mutex>
#include <optional>

#include "tensorir/build.h"
#include "tensorir/graph/executor.h"
#include "tensorir/graph/memory_plan.h"
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
// Each compiled model holds its JIT's code and memory, about 0.7 MB: the cache keeps few.
constexpr size_t kMaxCachedModels = 32;
constexpr size_t kMaxCachedBytes = size_t(1) << 20;

// A compiled fold and the names of its inputs, in the order the node reads them first.
struct CachedFold {
  std::shared_ptr<const CompiledModel> model;
  std::vector<std::string> inputs;
};

struct FoldCache {
  std::mutex mutex;
  std::list<std::pair<std::string, CachedFold>> folds;

  std::optional<CachedFold> find(const std::string &key) {
    const std::lock_guard<std::mutex> lock(mutex);
    for (auto it = folds.begin(); it != folds.end(); ++it) {
      if (it->first != key) continue;
      folds.splice(folds.begin(), folds, it);
      return folds.front().second;
    }
    return std::nullopt;
  }
  void add(const std::string &key, CachedFold fold) {
    const std::lock_guard<std::mutex> lock(mutex);
    folds.emplace_front(key, std::move(fold));
    if (folds.size() > kMaxCachedModels) folds.pop_back();
  }
};

FoldCache &fold_cache() {
  static FoldCache *cache = new FoldCache;  // never destroyed: folds may run during exit
  return *cache;
}

// Evaluates operator node `n` of `g` (all inputs constants) on the CPU. The one-node graph
// takes the constants as inputs, under their names, so that its kernel does not depend on
// their values; a cached one takes them in the same order under the names it was compiled
// with.
NDArray evaluate(const Graph &g, const Node &n) {
  Graph one;
  Node op = n;
  op.inputs.clear();
  std::map<int, int> remap;  // add(c, c) reads one constant node
  std::vector<NDArray> values;
  std::vector<std::string> names;
  for (int in : n.inputs) {
    auto it = remap.find(in);
    if (it == remap.end()) {
      const Node &c = g.node(in);
      Node arg;
      arg.name = c.name;
      arg.op = "input";
      arg.shape = c.shape;
      arg.dtype = c.dtype;
      // A copy: kernels take their arguments aligned, which a caller's view need not be.
      values.push_back(c.value.to(Device::cpu()));
      names.push_back(c.name);
      it = remap.emplace(in, one.add_node(std::move(arg))).first;
    }
    op.inputs.push_back(it->second);
  }
  const int out = one.add_node(std::move(op));
  one.set_output(out);
  auto feed = [&](const std::vector<std::string> &as) {
    std::map<std::string, NDArray> m;
    for (size_t i = 0; i < values.size(); ++i) m[as[i]] = values[i];
    return m;
  };
  BuildOptions plain;
  plain.tuned_schedules = false;
  plain.fold_constants = false;  // the graph is already one operator: no recursion
  plain.fold_batch_norm = false;
  plain.eliminate_dead_nodes = false;
  plain.fuse_operators = false;
  const size_t bytes = node_bytes(one.node(out));
  const std::string key = kernel_key(one, {out}, out, Target("llvm"), false) + "\nexterns " +
                          std::to_string(extern_function_registrations());
  if (bytes <= kMaxCachedBytes) {
    if (const std::optional<CachedFold> cached = fold_cache().find(key)) {
      try {
        return cached->model->run(feed(cached->inputs));
      } catch (const Error &) {
        // Compiled again below under this fold's names, so that its error names them.
      }
    }
  }
  auto m = std::make_shared<const CompiledModel>(build(one, "llvm", plain));
  NDArray result = m->run(feed(names));
  if (bytes <= kMaxCachedBytes) fold_cache().add(key, CachedFold{std::move(m), std::move(names)});
  return result;
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
