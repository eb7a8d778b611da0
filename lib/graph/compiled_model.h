// What a CompiledModel holds: the graph as compiled, one Kernel per fused group, the
// storage plan of every node and, when the kernels run in this process, its storage. Shared by the executor (executor.cpp) and the files that save
// or export a compiled model.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "runtime/model_turn.h"
#include "tensorir/graph/executor.h"
#include "tensorir/graph/memory_plan.h"
#include "tensorir/runtime/module.h"

namespace tensorir::graph {

struct Kernel {
  int node = -1;           // the group's result
  std::vector<int> nodes;  // the group
  std::vector<int> args;   // node ids whose storage is passed, the output last
  int in_place = -1;       // an index into args the result may overwrite (in_place_candidate), or -1
  Module module;
  std::string fname;
  // Where the model runs here and no argument is a graph input: the call over the model's
  // storage, checked once at build.
  BoundCall bound;
};

struct CompiledModel::Impl {
  Graph graph;
  Target target;
  Device device;
  std::vector<Kernel> kernels;
  // Where every node lives, for every target: what the executor allocates and what the
  // saved model and the wasm package write out.
  StoragePlan plan;
  // Per node: constants (for every target, on its device) and, when runs_here, the
  // kernels' results as `plan` places them. Inputs are bound per run.
  std::vector<NDArray> storage;
  bool runs_here = false;  // this process can call the kernels (run, profile)
  double compile_ms = 0;
  size_t storage_bytes = 0;
  size_t planned_peak_bytes = 0;
  // run and profile write the results into `storage`: calls from several threads (on
  // this model or its copies) take turns.
  mutable runtime::ModelTurns calls;

  // storage with the inputs bound, checked against the graph.
  std::vector<NDArray> bind(const std::map<std::string, NDArray> &inputs) const;
  void call(const Kernel &k, const std::vector<NDArray> &s) const;
};

}  // namespace tensorir::graph
