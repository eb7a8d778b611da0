// make_runnable and gather_inputs (runnable.h).
#include "runnable.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "cli_checks.h"
#include "tensorir/graph/executor.h"
#include "tensorir/graph/passes.h"
#include "tensorir/runtime/model_loader.h"

namespace tensorir::cli {

namespace {

std::map<std::string, NDArray> by_name(const graph::Outputs &out) {
  std::map<std::string, NDArray> m;
  for (size_t i = 0; i < out.size(); ++i) m[out.names()[i]] = out.at(i);
  return m;
}

// The kernel times of a compiled or a saved model's profile.
template <typename Profile>
std::vector<KernelTime> kernel_times(const std::vector<Profile> &profile) {
  std::vector<KernelTime> out;
  for (const auto &k : profile) out.push_back({k.node, k.op, k.ms});
  return out;
}

// An ONNX model: compiled at the first run, and again for each new value of its shape
// inputs (onnx::Session).
Runnable session_runnable(const std::string &model, const Target &t, const ModelOptions &options,
                          const std::string &tuning_log) {
  require_regular_file(model, "ONNX model");
  onnx::SessionOptions so;
  so.import = import_options(options);
  so.build.tuning_log = tuning_log;
  std::shared_ptr<onnx::Session> s;
  try {
    s = std::make_shared<onnx::Session>(onnx::Session::open(model, t, so));
  } catch (const onnx::UnknownInputError &e) {
    throw unknown_input(e, model);
  }
  Runnable r;
  r.description = model + " compiled for " + t.str();
  const std::vector<std::string> shape_inputs = s->shape_inputs();
  if (!shape_inputs.empty()) {
    std::string names;
    for (const std::string &n : shape_inputs) names += (names.empty() ? "" : ", ") + n;
    r.description += ", once per value of its shape inputs (" + names + ")";
  }
  for (const onnx::SessionInput &in : s->inputs()) {
    const bool shape = std::find(shape_inputs.begin(), shape_inputs.end(), in.name) != shape_inputs.end();
    const bool symbolic = std::find(in.shape.begin(), in.shape.end(), -1) != in.shape.end();
    r.inputs.push_back({in.name, in.shape, in.dtype,
                        shape      ? "decides shapes (the model is compiled for its value)"
                        : symbolic ? "has symbolic dimensions (bind them with --input-shape, or give the array)"
                                   : ""});
  }
  r.onnx = s->info();
  for (const onnx::ValueInfo &out : r.onnx->outputs) r.output_names.push_back(out.name);
  r.run = [s](const std::map<std::string, NDArray> &in) { return by_name(s->run(in)); };
  r.profile = [s, model](const std::map<std::string, NDArray> &in, int repeats) {
    if (s->staged())  // learnt by the run before, at the latest
      throw UsageError{"--profile: " + model + " runs in stages around " + s->stage_boundary() +
                       ", which need values the model computes; its kernels are not one model to profile: run it "
                       "without --profile (--repeat times the whole run)"};
    const onnx::Session::Prepared p = s->prepare(in);
    return kernel_times(p.model.profile(p.feed, repeats));
  };
  return r;
}

}  // namespace

Runnable make_runnable(const std::string &model, const std::string &target, const ModelOptions &options,
                       const std::string &tuning_log) {
  namespace fs = std::filesystem;
  Runnable r;
  if (fs::is_directory(model)) {
    if (fs::exists(fs::path(model) / "index.html"))
      throw UsageError{"'" + model + "' is a web package, not a saved model: it runs in a browser (serve the "
                                     "directory and open index.html)"};
    if (!fs::exists(fs::path(model) / "model.json"))
      throw UsageError{"'" + model + "' is a directory but not a saved model (no model.json)"};
    if (!tuning_log.empty())
      throw UsageError{"'" + model + "' is a saved model, compiled already: pass --tuning-log to `tensorir compile`"};
    refuse_import_options(model, options, "a saved model");
    refuse_weight_seed(model, options, "a saved model");
    auto m = std::make_shared<runtime::LoadedModel>(runtime::load_model(model));
    // A saved model runs the code it holds: -t may name its kind, or its exact target.
    if (!target.empty()) {
      const Target want(target), saved(m->target());
      if (want.kind != saved.kind || (!want.options.empty() && want.options != saved.options))
        throw UsageError{"'" + model + "' was saved for '" + m->target() + "', not for '" + target +
                         "': it runs the code it was compiled to; pass -t " + saved.kind +
                         " or no -t, or compile the model again for '" + target + "'"};
    }
    r.description = "saved model " + model + " (" + m->target() + ")";
    for (const auto &in : m->inputs()) r.inputs.push_back({in.name, in.shape, in.dtype, ""});
    for (const auto &out : m->outputs()) r.output_names.push_back(out.name);
    r.run = [m](const std::map<std::string, NDArray> &in) { return m->run_all(in); };
    r.profile = [m](const std::map<std::string, NDArray> &in, int repeats) {
      return kernel_times(m->profile(in, repeats));
    };
    return r;
  }
  const Target t(target.empty() ? "llvm" : target);
  // Refused before compiling: the compiled model could not be called here.
  if (!graph::runs_here(t))
    throw UsageError{"--target " + target + ": its kernels run in a browser, not in this process; `tensorir compile " +
                     model + " --target " + target + " -o DIR` writes a web package to serve and open"};
  if (is_onnx_file(model)) {
    refuse_weight_seed(model, options, "an ONNX model");
    return session_runnable(model, t, options, tuning_log);
  }
  graph::BuildOptions build;
  build.tuning_log = tuning_log;
  auto m = std::make_shared<graph::CompiledModel>(graph::build(load_graph(model, options), t, build));
  r.description = model + " compiled for " + t.str();
  for (int id : m->graph().input_ids()) {
    const graph::Node &n = m->graph().node(id);
    r.inputs.push_back({n.name, n.shape, graph::declared_dtype(n), ""});
  }
  for (int id : m->graph().outputs()) r.output_names.push_back(m->graph().node(id).name);
  r.run = [m](const std::map<std::string, NDArray> &in) { return by_name(m->run(in)); };
  r.profile = [m](const std::map<std::string, NDArray> &in, int repeats) { return kernel_times(m->profile(in, repeats)); };
  return r;
}

std::map<std::string, NDArray> gather_inputs(const Runnable &r, const std::vector<std::string> &files,
                                             uint64_t seed) {
  std::map<std::string, NDArray> given;
  for (const std::string &f : files) {
    const size_t eq = f.find('=');
    if (eq == std::string::npos || eq == 0) throw UsageError{"--input '" + f + "': expected NAME=FILE"};
    const std::string name = f.substr(0, eq);
    const RunnableInput *known = nullptr;
    std::string names;
    for (const RunnableInput &in : r.inputs) {
      if (in.name == name) known = &in;
      names += (names.empty() ? "" : ", ") + in.name;
    }
    if (!known)
      throw UsageError{"--input '" + f + "': the model has no input '" + name + "' (" +
                       (names.empty() ? "it takes none at run time" : "it has " + names) + ")"};
    if (given.count(name)) throw UsageError{"--input gives input '" + name + "' twice"};
    const std::string file = f.substr(eq + 1);
    NDArray value = read_array(file);
    // A float16 file for a float32 input (an ONNX model's float16 input) is widened; a
    // saved model's float16 input takes it as it is (a float16 .pb, which read_array
    // widens, narrowed back exactly).
    if (known->dtype == Float(32)) value = widen_half(value);
    if (known->dtype == Float(16) && value.dtype() == Float(32) && std::filesystem::path(file).extension() == ".pb" &&
        onnx::tensor_file_type(file) == "float16")
      value = narrow_to_half(value);
    given[name] = value;
  }
  // Each input its own seed (seed, seed + 1, ... in the model's order), so that inputs of
  // one shape differ.
  for (const RunnableInput &in : r.inputs)
    if (!given.count(in.name) && !in.needs_file.empty())
      throw UsageError{"input '" + in.name + "' " + in.needs_file + ": give it with --input " + in.name + "=FILE"};
  for (size_t i = 0; i < r.inputs.size(); ++i) {
    const RunnableInput &in = r.inputs[i];
    if (given.count(in.name)) continue;
    given[in.name] = NDArray::random(in.shape, in.dtype, seed + i);
    std::printf("input '%s': %s %s, seeded random (seed %llu)\n", in.name.c_str(), shape_str(in.shape).c_str(),
                in.dtype.str().c_str(), static_cast<unsigned long long>(seed + i));
  }
  return given;
}

}  // namespace tensorir::cli
