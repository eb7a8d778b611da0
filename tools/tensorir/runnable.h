// A model `run` and `test` can execute: compiled here for a target, or loaded from a saved
// model's directory (runtime::load_model), behind one interface.
#pragma once
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cli.h"
#include "tensorir/frontend/onnx.h"
#include "tensorir/runtime/ndarray.h"

namespace tensorir::cli {

struct RunnableInput {
  std::string name;
  std::vector<int64_t> shape;
  Type dtype;
  // Why the input cannot be seeded random (it decides shapes, or its shape is symbolic);
  // empty when it can.
  std::string needs_file;
};

struct KernelTime {
  std::string node, op;
  double ms = 0;
};

struct Runnable {
  std::string description;  // what was loaded or compiled, for the first line of output
  std::vector<RunnableInput> inputs;
  std::function<std::map<std::string, NDArray>(const std::map<std::string, NDArray> &)> run;
  std::function<std::vector<KernelTime>(const std::map<std::string, NDArray> &, int)> profile;
  std::vector<std::string> output_names;  // in the graph's order
  std::optional<onnx::ModelInfo> onnx;    // an ONNX model's declared inputs and outputs
};

// MODEL as a saved model's directory; an ONNX file through an onnx::Session, which takes
// the inputs that decide shapes at run time; else a built-in network built for `target`.
// A `tuning_log` applies to the models compiled here (a saved model is compiled already:
// a UsageError).
Runnable make_runnable(const std::string &model, const std::string &target, const ModelOptions &options,
                       const std::string &tuning_log = "");

// Every input of `r`: from `files` (NAME=FILE; a name the model lacks is a UsageError),
// the rest seeded random (reported on stdout); a UsageError for one that needs a file.
std::map<std::string, NDArray> gather_inputs(const Runnable &r, const std::vector<std::string> &files,
                                             uint64_t seed);

}  // namespace tensorir::cli
