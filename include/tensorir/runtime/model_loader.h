// Running a saved model without the compiler. graph::CompiledModel::save writes a
// directory (model.so: the kernels, model.json: the plan, params.bin: the constants);
// load_model reads it back with libtensorir_runtime alone (no LLVM):
//
//   tensorir::runtime::LoadedModel m = tensorir::runtime::load_model("resnet18_saved");
//   tensorir::NDArray logits = m.run({{"data", image}});
//   std::map<std::string, NDArray> all = two_heads.run_all({{"x", x}});  // by output name
//
// model.json (format "tensorir-saved-model", version 6) records the size and FNV-1a 32
// checksum of model.so and params.bin, so files of different saves are refused; a model
// saved by an older tensorir is refused with "save the model again". Kernels come only
// from model.so's kernel table, the plan is checked against it and against itself before
// any kernel runs (runtime/plan_check.h), and the table holds the plan's fingerprint, so
// an edited plan is refused. load_model throws only tensorir::Error.
//
// The kernels are machine code for the CPU the model was saved on (the host by default):
// load it on the same kind of machine.
#pragma once
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "tensorir/runtime/module.h"
#include "tensorir/runtime/ndarray.h"

namespace tensorir::runtime {

struct ModelInput {
  std::string name;
  std::vector<int64_t> shape;
  Type dtype;
};
using ModelOutput = ModelInput;

// One kernel's mean time over LoadedModel::profile's repeats (as graph::KernelProfile).
struct KernelProfile {
  std::string node;  // the graph node the kernel computes
  std::string op;    // its conv2d or dense, else the operator of `node`
  double ms = 0;
  std::vector<std::string> fused;  // every node the kernel computes
};

class LoadedModel {
 public:
  // Runs the model on `inputs` (one NDArray per input, by name) and returns a host copy
  // of its output; a model with several outputs throws an Error that points to run_all.
  // Missing, unknown or mis-shaped inputs throw an Error naming the input. The model's
  // intermediate storage is allocated once and shared by every call: calls from several
  // threads are safe and take turns.
  NDArray run(const std::map<std::string, NDArray> &inputs) const;
  // Runs the model and returns a host copy of every output, by the output's name.
  std::map<std::string, NDArray> run_all(const std::map<std::string, NDArray> &inputs) const;
  // Runs the model `repeats` times and reports each kernel's mean time, in order.
  std::vector<KernelProfile> profile(const std::map<std::string, NDArray> &inputs, int repeats = 1) const;

  const std::vector<ModelInput> &inputs() const;
  // Every output, in the graph's order.
  const std::vector<ModelOutput> &outputs() const;
  // The only output's shape and dtype (an Error for a model with several).
  const std::vector<int64_t> &output_shape() const;
  Type output_dtype() const;
  size_t num_kernels() const;
  // The target string the kernels were compiled for (e.g. "llvm").
  const std::string &target() const;
  // The kernels as a Module: function names are model.json's, calls are checked.
  Module module() const;

  struct Impl;
  explicit LoadedModel(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}

 private:
  std::shared_ptr<Impl> impl_;
};

// Loads the model saved in directory `dir` (or from the path of its model.json). Throws
// an Error naming the file for a missing or malformed file, a params.bin that is
// truncated, corrupt or of another format version, or a library that cannot be loaded.
LoadedModel load_model(const std::string &dir);

}  // namespace tensorir::runtime
