// make_runnable and gather_inputs (runnable.h).
#include "runnable.h"

#include <cstdio>
#include <filesystem>

#include "tensorir/graph/executor.h"
#include "tensorir/runtime/model_loader.h"

namespace tensorir::cli {

Runnable make_runnable(const std::string &model, const std::string &target, const ModelOptions &options) {
  namespace fs = std::filesystem;
  Runnable r;
  if (fs::is_directory(model)) {
    if (fs::exists(fs::path(model) / "index.html"))
      throw UsageError{"'" + model + "' is a web package, not a saved model: it runs in a browser (serve the "
                                     "directory and open index.html)"};
    if (!fs::exists(fs::path(model) / "model.json"))
      throw UsageError{"'" + model + "' is a directory but not a saved model (no model.json)"};
    auto m = std::make_shared<runtime::LoadedModel>(runtime::load_model(model));
    if (!target.empty() && Target(target).kind != Target(m->target()).kind)
      throw UsageError{"'" + model + "' was saved for '" + m->target() + "', not for '" + target + "'"};
    r.description = "saved model " + model + " (" + m->target() + ")";
    for (const auto &in : m->inputs()) r.inputs.push_back({in.name, in.shape, in.dtype});
    for (const auto &out : m->outputs()) r.output_names.push_back(out.name);
    r.run = [m](const std::map<std::string, NDArray> &in) { return m->run_all(in); };
    r.profile = [m](const std::map<std::string, NDArray> &in, int repeats) {
      std::vector<KernelTime> out;
      for (const auto &k : m->profile(in, repeats)) out.push_back({k.node, k.op, k.ms});
      return out;
    };
    return r;
  }
  const Target t(target.empty() ? "llvm" : target);
  auto m = std::make_shared<graph::CompiledModel>(graph::build(load_graph(model, options), t));
  r.description = model + " compiled for " + t.str();
  for (int id : m->graph().input_ids()) {
    const graph::Node &n = m->graph().node(id);
    r.inputs.push_back({n.name, n.shape, n.dtype});
  }
  for (int id : m->graph().outputs()) r.output_names.push_back(m->graph().node(id).name);
  r.run = [m](const std::map<std::string, NDArray> &in) {
    const graph::Outputs out = m->run(in);
    std::map<std::string, NDArray> by_name;
    for (size_t i = 0; i < out.size(); ++i) by_name[out.names()[i]] = out.at(i);
    return by_name;
  };
  r.profile = [m](const std::map<std::string, NDArray> &in, int repeats) {
    std::vector<KernelTime> out;
    for (const auto &k : m->profile(in, repeats)) out.push_back({k.node, k.op, k.ms});
    return out;
  };
  return r;
}

std::map<std::string, NDArray> gather_inputs(const Runnable &r, const std::vector<std::string> &files,
                                             uint64_t seed) {
  std::map<std::string, NDArray> given;
  for (const std::string &f : files) {
    const size_t eq = f.find('=');
    if (eq == std::string::npos || eq == 0) throw UsageError{"--input '" + f + "': expected NAME=FILE"};
    const std::string name = f.substr(0, eq);
    bool known = false;
    std::string names;
    for (const RunnableInput &in : r.inputs) {
      known = known || in.name == name;
      names += (names.empty() ? "" : ", ") + in.name;
    }
    if (!known) throw UsageError{"--input '" + f + "': the model has no input '" + name + "' (it has " + names + ")"};
    given[name] = read_array(f.substr(eq + 1));
  }
  // Each input its own seed (seed, seed + 1, ... in the model's order), so that inputs of
  // one shape differ.
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
