// Compiling a Graph into kernels and running it.
//
//   graph::CompiledModel m = graph::build(g, "llvm");
//   NDArray logits = m.run({{"data", image}});
//   for (const auto &k : m.profile({{"data", image}}, 10)) std::cout << k.node << " " << k.ms << "\n";
//
// build first rewrites the graph (graph/passes.h: constant folding, batch_norm folding
// into convolutions, dead node elimination) and groups its operators (fuse_operators);
// each group becomes one kernel, the nodes inside it inlined stages of the group's
// result. Each kernel's compute and schedule are the strategy that its leading
// operator (graph/op_registry.h) registers for the target's kind (the tuned CPU
// schedules of conv2d and dense on "llvm" and "wasm"), else ops::schedule_generic; a
// tuned blocked conv2d computes its element-wise tail in the output stage of its own
// schedule. build then plans the storage of the groups' results for every target
// (graph::StoragePlan, graph/memory_plan.h): results whose lifetimes (from the kernel
// writing one to the last kernel reading it) do not overlap share a buffer, and the
// graph's outputs have storage of their own. The saved model (model.json) and the wasm
// web package write that plan out. When this process can call the kernels ("llvm",
// "opengl", and "webgl" on an OpenGL context), the storage is allocated once, on the
// target's device, when the model is built; "wasm" models allocate none and cannot run
// here. Constants are copied to the device (the CPU too) once and passed to kernels as
// arguments: changing a graph's constant after build changes no built model.
#pragma once
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "tensorir/graph/graph.h"
#include "tensorir/target.h"

namespace tensorir::autotune {
class ApplyHistoryBest;
}

namespace tensorir::graph {

struct BuildOptions {
  // The tuned CPU schedules of conv2d and dense, on "llvm" and "wasm". false:
  // schedule_generic for every node (slower kernels, faster builds).
  bool tuned_schedules = true;
  // The graph passes of graph/passes.h, run in this order before compiling.
  bool fold_constants = true;
  bool fold_batch_norm = true;
  bool eliminate_dead_nodes = true;
  // With tuned schedules on "llvm" or "wasm" and fold_constants, after batch_norm folding:
  // alter_conv_layout (graph/passes.h), so that convolutions read weights packed once, at
  // build time, and (with fuse_operators) pass channel-blocked activations to each
  // other; layout_transform nodes convert where blocked tensors meet other operators,
  // and the output stays NCHW. false: every conv2d kernel packs its weights and input
  // and unpacks its result on every call. On "webgl" (with fold_constants) the same
  // pass in blocks of 4 channels: activations NCHW4c, so that the 4 elements of a
  // texel are 4 channels at one position and the 4 outputs a fragment computes share
  // every read of the data; weights OIHW4i4o. The graph in model.json (export_web) is
  // then the blocked one. false: NCHW throughout, as "opengl -mode=fragment" always is.
  bool alter_layout = true;
  // Winograd F(m x m, 3 x 3) for 3x3 stride-1 convolutions with constant weights, with
  // tuned_schedules on "llvm" and "wasm", and on "webgl" (convolutions whose channels
  // fill texels of 4), and fold_constants (graph::winograd_conv2d, after
  // alter_conv_layout): the weight transformed once at build time, the kernel reading and
  // writing the layouts of its neighbours. kWinogradAuto: per layer, the tuning log's
  // choice (the "winograd" knob of its workload's best record), else the tile
  // graph::default_winograd_tile measured faster on "llvm" (direct everywhere on targets
  // with small vector registers, "wasm", where it is unmeasured, and on "webgl"); 0:
  // never; 2, 4 or 6: that tile for every eligible convolution. Larger tiles do fewer multiplications
  // but round more: on ResNet-18's layers max |error| / max |output| is about 2e-6 for
  // m = 2, 1e-5 for m = 4 and 2e-5 for m = 6 (the direct convolution: about 1e-6).
  static constexpr int kWinogradAuto = -1;
  int winograd = kWinogradAuto;
  // When set, chooses the tile per convolution instead of both (0: direct; 2, 4, 6);
  // called only for nodes graph::winograd_eligible accepts.
  std::function<int(const Graph &g, const Node &conv)> winograd_tile_for;
  // false: one kernel per operator node.
  bool fuse_operators = true;
  // Group results whose lifetimes do not overlap share storage (graph/memory_plan.h),
  // allocated once per buffer; false: one buffer per group result. The graph's outputs
  // always have their own. OpenGL devices keep one buffer per result either way (views
  // of a buffer exist on the CPU only); the plan, and saved models, still share.
  bool plan_memory = true;
  // A tuning log (autotune/record.h): each tunable kernel is scheduled, and its
  // convolution or dense packed, by the best configuration the log holds for its
  // workload on this target; workloads not in it keep the fallback schedules. Results
  // do not change. Records measured on a CPU with other vector features are ignored
  // with a warning (tensorir/warning.h).
  std::string tuning_log;
  // The same from records read already (autotune::ApplyHistoryBest); not with tuning_log.
  std::shared_ptr<const autotune::ApplyHistoryBest> tuning;
};

struct KernelProfile {
  std::string node;  // the graph node the kernel computes (the last of its group)
  std::string op;    // the group's conv2d or dense, else the operator of `node`
  double ms = 0;     // mean wall time of one call
  std::vector<std::string> fused;  // every node the kernel computes, in graph order
};

// What CompiledModel::run returns: a host copy of every output of the graph, by the
// output node's name, in the graph's order.
//
//   graph::Outputs out = model.run({{"x", a}});
//   NDArray y1 = out["y1"], y2 = out["y2"];
//   NDArray y = model_with_one_output.run({{"x", a}});   // the only output
class Outputs {
 public:
  Outputs() = default;
  Outputs(std::vector<std::string> names, std::vector<NDArray> values);

  size_t size() const { return values_.size(); }
  const std::vector<std::string> &names() const { return names_; }
  // The output called `name`; an unknown name throws an Error listing the names.
  NDArray operator[](const std::string &name) const;
  NDArray at(size_t i) const;

  // The only output. A model with several throws an Error listing their names.
  NDArray single() const;
  operator NDArray() const { return single(); }
  template <typename T>
  std::vector<T> to_vector() const {
    return single().to_vector<T>();
  }
  std::vector<int64_t> shape() const { return single().shape(); }
  Type dtype() const { return single().dtype(); }

 private:
  std::vector<std::string> names_;
  std::vector<NDArray> values_;
};

class CompiledModel {
 public:
  // Runs the graph on `inputs` (one NDArray per input node, by name, any device) and
  // returns a host copy of each output, by name. Missing, unknown or mis-shaped inputs
  // throw an Error naming the input. Calls from several threads are safe and take turns
  // (the model's intermediate storage is allocated once; each call uses all the cores); a
  // call from inside a call of the same model (an extern function a kernel calls) throws.
  Outputs run(const std::map<std::string, NDArray> &inputs) const;
  // Runs the graph `repeats` times and reports each kernel's mean time, in graph order.
  std::vector<KernelProfile> profile(const std::map<std::string, NDArray> &inputs, int repeats = 1) const;

  // The graph after the passes of BuildOptions, as compiled, and the target it was built for.
  const Graph &graph() const;
  const Target &target() const;
  size_t num_kernels() const;
  // Wall time graph::build spent lowering and compiling.
  double compile_ms() const;
  // Bytes of device storage held for the kernels' results: the planned buffers (or one
  // per result) plus the graph's outputs; 0 for a model that cannot run here ("wasm").
  // Inputs and constants are not counted.
  size_t storage_bytes() const;
  // The storage plan's shared bytes, over the group results other than the outputs (its
  // buffers' total); 0 when the model was built without planning. On OpenGL, where
  // results keep a buffer each, the peak a CPU build would allocate.
  size_t planned_peak_bytes() const;

  // Saves a model built for "llvm" into directory `dir` (created if needed) for
  // runtime::load_model (runtime/model_loader.h), which runs it with libtensorir_runtime
  // alone: model.so (every kernel, linked by the system's C compiler), model.json (the
  // kernels in order, their arguments, the storage plan and the outputs by name; see
  // lib/runtime/model_files.cpp) and params.bin (the constants). Other targets, and kernels that call functions registered with
  // register_extern_function, throw an Error.
  void save(const std::string &dir) const;

  struct Impl;
  explicit CompiledModel(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}
  // The parts (lib/graph/compiled_model.h), for code that exports a model.
  const Impl &impl() const { return *impl_; }

 private:
  std::shared_ptr<Impl> impl_;
};

// Validates `g`, runs the passes BuildOptions selects, then lowers and compiles one
// kernel per fused group (per operator node without fusion) for `target`.
CompiledModel build(const Graph &g, const Target &target, const BuildOptions &options = {});

// Whether this process can call the kernels of a model built for `target` (run, profile):
// targets that run in process, and "webgl", whose fragment programs also run on an
// OpenGL context here (as "opengl -mode=fragment" does). "wasm" kernels cannot.
bool runs_here(const Target &target);

}  // namespace tensorir::graph
