// load_model and LoadedModel: a saved model's plan, constants and kernel library, run
// in order over storage allocated once at load time.
#include "tensorir/runtime/model_loader.h"

#include <chrono>
#include <cstring>
#include <filesystem>

#include "runtime/cpu_features.h"
#include "runtime/input_check.h"
#include "runtime/library_module.h"
#include "runtime/model_files.h"
#include "runtime/model_turn.h"
#include "runtime/plan_check.h"

namespace tensorir::runtime {

namespace fs = std::filesystem;

struct LoadedModel::Impl {
  SavedModel plan;
  Ref<const LibraryModuleNode> library;
  std::vector<ModelInput> inputs;
  std::vector<int> input_values;  // index into plan.values, per input
  std::vector<ModelOutput> outputs;
  std::vector<NDArray> params, buffers;
  std::vector<void *> fixed;  // per value: its storage, nullptr for inputs
  std::vector<size_t> functions;  // per kernel: its index in the library's kernel table
  // The kernels write into `buffers`: calls from several threads take turns.
  mutable runtime::ModelTurns calls;

  // Per-value data pointers with the inputs bound; `keep` holds copies made for them.
  std::vector<void *> bind(const std::map<std::string, NDArray> &given, std::vector<NDArray> &keep) const;
  void call(size_t kernel, const std::vector<void *> &ptrs) const;
  // Runs every kernel on `given`; returns the per-value pointers (`keep` as in bind).
  std::vector<void *> run(const std::map<std::string, NDArray> &given, std::vector<NDArray> &keep) const;
  // A host copy of output `i` from a run's pointers.
  NDArray output(size_t i, const std::vector<void *> &ptrs) const;
  // The only output's index; an Error naming run_all for a model with several.
  size_t single_output(const char *what) const;
};

std::vector<void *> LoadedModel::Impl::bind(const std::map<std::string, NDArray> &given,
                                            std::vector<NDArray> &keep) const {
  const std::vector<NDArray> values = checked_inputs(inputs, given, "model");
  std::vector<void *> ptrs = fixed;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const NDArray &v = values[i];
    keep.push_back(v.device() == Device::cpu() ? v : v.to(Device::cpu()));
    ptrs[size_t(input_values[i])] = keep.back().data();
  }
  return ptrs;
}

void LoadedModel::Impl::call(size_t kernel, const std::vector<void *> &ptrs) const {
  const SavedKernel &k = plan.kernels[kernel];
  std::vector<ArgValue> args(k.args.size());
  for (size_t a = 0; a < args.size(); ++a) args[a].ptr = ptrs[size_t(k.args[a])];
  library->call_packed(functions[kernel], args.data());
}

std::vector<void *> LoadedModel::Impl::run(const std::map<std::string, NDArray> &given,
                                           std::vector<NDArray> &keep) const {
  const std::vector<void *> ptrs = bind(given, keep);
  for (size_t k = 0; k < plan.kernels.size(); ++k) call(k, ptrs);
  return ptrs;
}

NDArray LoadedModel::Impl::output(size_t i, const std::vector<void *> &ptrs) const {
  const int value = plan.outputs[i];
  NDArray result = NDArray::empty(outputs[i].shape, outputs[i].dtype);
  result.copy_from_bytes(ptrs[size_t(value)], result.nbytes());
  return result;
}

size_t LoadedModel::Impl::single_output(const char *what) const {
  if (outputs.size() != 1) {
    std::string names;
    for (const ModelOutput &o : outputs) names += (names.empty() ? "'" : ", '") + o.name + "'";
    TIR_THROW() << "model: " << what << " needs a model with one output, but this one has " << outputs.size()
                << " (" << names << "); run_all returns every output by name, outputs() describes them";
  }
  return 0;
}

NDArray LoadedModel::run(const std::map<std::string, NDArray> &inputs) const {
  const size_t out = impl_->single_output("run");
  const runtime::ModelTurns::Turn turn(impl_->calls, "model run");
  std::vector<NDArray> keep;
  return impl_->output(out, impl_->run(inputs, keep));
}

std::map<std::string, NDArray> LoadedModel::run_all(const std::map<std::string, NDArray> &inputs) const {
  const runtime::ModelTurns::Turn turn(impl_->calls, "model run_all");
  std::vector<NDArray> keep;
  const std::vector<void *> ptrs = impl_->run(inputs, keep);
  std::map<std::string, NDArray> out;
  for (size_t i = 0; i < impl_->outputs.size(); ++i) out[impl_->outputs[i].name] = impl_->output(i, ptrs);
  return out;
}

std::vector<KernelProfile> LoadedModel::profile(const std::map<std::string, NDArray> &inputs, int repeats) const {
  using Clock = std::chrono::steady_clock;
  TIR_USER_CHECK(repeats >= 1) << "profile: repeats must be at least 1, got " << repeats;
  const runtime::ModelTurns::Turn turn(impl_->calls, "model profile");
  std::vector<NDArray> keep;
  const std::vector<void *> ptrs = impl_->bind(inputs, keep);
  std::vector<KernelProfile> out;
  for (const SavedKernel &k : impl_->plan.kernels) out.push_back(KernelProfile{k.node, k.op, 0, k.fused});
  for (int r = 0; r < repeats; ++r)
    for (size_t k = 0; k < out.size(); ++k) {
      const auto t0 = Clock::now();
      impl_->call(k, ptrs);
      out[k].ms += std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    }
  for (KernelProfile &p : out) p.ms /= repeats;
  return out;
}

const std::vector<ModelInput> &LoadedModel::inputs() const { return impl_->inputs; }
const std::vector<ModelOutput> &LoadedModel::outputs() const { return impl_->outputs; }
const std::vector<int64_t> &LoadedModel::output_shape() const {
  return impl_->outputs[impl_->single_output("output_shape")].shape;
}
Type LoadedModel::output_dtype() const { return impl_->outputs[impl_->single_output("output_dtype")].dtype; }
size_t LoadedModel::num_kernels() const { return impl_->plan.kernels.size(); }
const std::string &LoadedModel::target() const { return impl_->plan.target; }
Module LoadedModel::module() const {
  return impl_->library.defined() ? Module(Ref<const ModuleNode>(impl_->library.get())) : Module();
}

LoadedModel load_model(const std::string &dir) { return load_model(dir, host_has_cpu_feature); }

LoadedModel load_model(const std::string &dir, const std::function<int(const std::string &)> &has_cpu_feature) {
  std::error_code ec;
  fs::path plan_path;
  if (fs::is_directory(dir, ec)) {
    plan_path = fs::path(dir) / kModelPlan;
    // A directory an older tensorir saved: read_model_plan says so.
    if (!fs::exists(plan_path, ec) && fs::is_regular_file(fs::path(dir) / kOldModelPlan, ec))
      plan_path = fs::path(dir) / kOldModelPlan;
  } else if (fs::is_regular_file(dir, ec)) {
    plan_path = dir;
  }
  TIR_USER_CHECK(!plan_path.empty() && fs::is_regular_file(plan_path, ec))
      << "no saved model at '" << dir << "': expected a directory holding " << kModelPlan << ", " << kModelLibrary
      << " and " << kModelParams << " (written by CompiledModel::save)";
  const fs::path base = plan_path.parent_path();

  auto impl = std::make_shared<LoadedModel::Impl>();
  impl->plan = read_model_plan(plan_path.string());
  const SavedModel &plan = impl->plan;
  SavedFile params_file;
  impl->params = read_params((base / kModelParams).string(), &params_file, &plan.params);
  TIR_USER_CHECK(params_file == plan.params)
      << kModelParams << " does not belong to this " << kModelPlan << " (saved separately?): "
      << (base / kModelParams).string() << " is not the parameter file saved with " << plan_path.string()
      << "; save the model again, or copy all three files of one save together";

  // A graph whose outputs are inputs or constants has no kernels, and no library.
  if (!plan.kernels.empty()) {
    const std::vector<std::string> missing = missing_cpu_features(plan.cpu_features, has_cpu_feature);
    if (!missing.empty()) {
      std::string list;
      for (const std::string &f : missing) list += (list.empty() ? "" : ", ") + f;
      TIR_THROW() << (base / kModelLibrary).string() << " was compiled for the CPU '" << plan.cpu
                  << "' and may use " << list << ", which this CPU lacks; save the model on this machine, "
                  << "or build it for an older CPU before saving (graph::build(g, \"llvm -mcpu=x86-64-v2\"))";
    }
    const std::string lib = (base / kModelLibrary).string();
    auto verify = [&](const std::vector<unsigned char> &bytes) {
      TIR_USER_CHECK((SavedFile{bytes.size(), fnv1a32(bytes.data(), bytes.size())} == plan.library))
          << kModelLibrary << " does not belong to this " << kModelPlan << " (saved separately?): " << lib
          << " is not the kernel library saved with " << plan_path.string()
          << "; save the model again, or copy all three files of one save together";
    };
    impl->library = Ref<const LibraryModuleNode>(new LibraryModuleNode(lib, verify));
    impl->functions = check_plan(plan, impl->library->signatures(), plan_path.string(), lib);
    // check_plan rules out reads and writes outside storage; the fingerprint also refuses a
    // well-formed edit (an argument pointed at another value of the same shape).
    TIR_USER_CHECK(impl->library->plan_fingerprint() == plan_fingerprint(plan))
        << plan_path.string() << " is not the plan saved with " << lib
        << " (edited after saving, or from another save); save the model again, or copy all three files "
        << "of one save together";
  } else {
    check_plan(plan, {}, plan_path.string(), "");
  }
  // Storage is allocated only now, for a plan that model.so's kernels were compiled for.
  impl->fixed.assign(plan.values.size(), nullptr);
  for (size_t b = 0; b < plan.buffers.size(); ++b) {
    try {
      impl->buffers.push_back(NDArray::empty({int64_t(plan.buffers[b])}, UInt(8)));
    } catch (const std::exception &e) {
      TIR_THROW() << plan_path.string() << ": cannot allocate buffer " << b << " of " << plan.buffers[b]
                  << " bytes: " << e.what();
    }
  }
  for (size_t i = 0; i < plan.values.size(); ++i) {
    const SavedValue &v = plan.values[i];
    if (v.is_input()) {
      impl->inputs.push_back(ModelInput{v.name, v.shape, v.dtype});
      impl->input_values.push_back(int(i));
    } else if (v.is_constant()) {
      TIR_USER_CHECK(v.param < int(impl->params.size()))
          << plan_path.string() << ": constant '" << v.name << "' is parameter " << v.param << " but "
          << kModelParams << " holds " << impl->params.size() << " (files from different saves?)";
      const NDArray &p = impl->params[size_t(v.param)];
      TIR_USER_CHECK(p.shape() == v.shape && p.dtype() == v.dtype)
          << "constant '" << v.name << "' must be " << shape_str(v.shape) << " " << v.dtype << " but "
          << kModelParams << " holds " << shape_str(p.shape()) << " " << p.dtype() << " (files from different saves?)";
      impl->fixed[i] = p.data();
    } else {
      TIR_USER_CHECK(v.buffer >= 0 && size_t(v.buffer) < impl->buffers.size())
          << plan_path.string() << ": value '" << v.name << "' names buffer " << v.buffer << " but there are "
          << impl->buffers.size();
      impl->fixed[i] = static_cast<char *>(impl->buffers[size_t(v.buffer)].data()) + v.offset;
    }
  }
  for (int o : plan.outputs) {
    const SavedValue &v = plan.values[size_t(o)];
    impl->outputs.push_back(ModelOutput{v.name, v.shape, v.dtype});
  }
  return LoadedModel(std::move(impl));
}

}  // namespace tensorir::runtime
