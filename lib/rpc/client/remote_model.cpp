// Models on a remote: Session::load(CompiledModel) uploads a saved model or a web package
// (load_model of docs/rpc.md); RemoteModel runs, profiles and times it there.
#include <algorithm>
#include <filesystem>

#include "rpc/client/package_files.h"
#include "rpc/client/session_impl.h"
#include "rpc/client/wire.h"
#include "rpc/temp_dir.h"
#include "runtime/time_calls.h"
#include "tensorir/error.h"
#include "tensorir/graph/artifact.h"

namespace tensorir::rpc {

using nlohmann::json;

struct RemoteModel::Impl {
  std::shared_ptr<SessionImpl> session;
  int64_t handle = 0;
  std::vector<ModelIO> inputs, outputs;
  ~Impl() { session->post("free_model", {{"model", handle}}); }

  std::string who() const { return "remote '" + session->key() + "'"; }

  // The `inputs` fields and payload of run_model, profile_model and time_model, checked
  // against the model's inputs.
  json bind(const std::map<std::string, NDArray> &given, std::string &payload) const {
    for (const auto &[name, a] : given) {
      const bool known = std::any_of(inputs.begin(), inputs.end(), [&](const ModelIO &io) { return io.name == name; });
      TIR_USER_CHECK(known) << "RemoteModel: the model has no input '" << name << "'; its inputs are "
                            << names(inputs);
    }
    json list = json::array();
    for (const ModelIO &io : inputs) {
      auto it = given.find(io.name);
      TIR_USER_CHECK(it != given.end()) << "RemoteModel: the input '" << io.name << "' is missing; its inputs are "
                                        << names(inputs);
      const NDArray &a = it->second;
      TIR_USER_CHECK(a.defined() && a.shape() == io.shape && a.dtype() == io.dtype)
          << "RemoteModel: the input '" << io.name << "' must be " << io.dtype << " of shape " << shape_str(io.shape)
          << ", got " << (a.defined() ? a.dtype().str() + " of shape " + shape_str(a.shape()) : "an undefined NDArray");
      const size_t at = payload.size();
      payload.resize(at + a.nbytes());
      a.copy_to_bytes(payload.data() + at, a.nbytes());
      list.push_back({{"name", io.name}, {"bytes", a.nbytes()}});
    }
    return list;
  }

  Frame request(const std::string &op, json fields, const std::map<std::string, NDArray> &given) const {
    session->check_open();
    std::string payload;
    fields["model"] = handle;
    fields["inputs"] = bind(given, payload);
    return session->request(op, std::move(fields), payload);
  }

  static std::string names(const std::vector<ModelIO> &ios) {
    std::string s;
    for (const ModelIO &io : ios) s += (s.empty() ? "'" : ", '") + io.name + "'";
    return s;
  }
};

namespace {

// A template, as RemoteModel::Impl is private to RemoteModel.
template <typename Ptr>
const auto &impl_of(const Ptr &impl) {
  TIR_USER_CHECK(impl != nullptr) << "use of an undefined RemoteModel; load one with rpc::Session::load";
  return *impl;
}

}  // namespace

std::map<std::string, NDArray> RemoteModel::run(const std::map<std::string, NDArray> &inputs) const {
  const Impl &m = impl_of(impl_);
  const Frame reply = m.request("run_model", json::object(), inputs);
  const std::vector<ModelIO> outs = parse_model_ios(reply.header, "outputs", m.who());
  const json &list = reply.header["outputs"];
  std::map<std::string, NDArray> result;
  size_t at = 0;
  for (size_t i = 0; i < outs.size(); ++i) {
    NDArray a = NDArray::empty(outs[i].shape, outs[i].dtype);
    const size_t n = list[i].value("bytes", size_t(0));
    TIR_USER_CHECK(n == a.nbytes() && at + n <= reply.payload.size())
        << m.who() << " answered run_model with " << n << " bytes for the output '" << outs[i].name << "' ("
        << outs[i].dtype << " of shape " << shape_str(outs[i].shape) << ", " << a.nbytes() << " bytes) in a payload of "
        << reply.payload.size();
    a.copy_from_bytes(reply.payload.data() + at, n);
    at += n;
    result[outs[i].name] = a;
  }
  return result;
}

std::vector<RemoteKernelProfile> RemoteModel::profile(const std::map<std::string, NDArray> &inputs, int repeats) const {
  const Impl &m = impl_of(impl_);
  TIR_USER_CHECK(repeats >= 1) << "RemoteModel::profile: repeats must be at least 1, got " << repeats;
  const Frame reply = m.request("profile_model", {{"repeats", repeats}}, inputs);
  const json &kernels = reply.header.contains("kernels") ? reply.header["kernels"] : json();
  TIR_USER_CHECK(kernels.is_array()) << m.who() << " answered profile_model without \"kernels\"";
  std::vector<RemoteKernelProfile> out;
  for (const json &k : kernels) {
    TIR_USER_CHECK(k.is_object() && k.value("node", json()).is_string() && k.value("ms", json()).is_number())
        << m.who() << " answered profile_model with a malformed kernel " << k.dump();
    out.push_back({k["node"].get<std::string>(), k.value("op", std::string()), k["ms"].get<double>()});
  }
  return out;
}

TimeResult RemoteModel::time(const std::map<std::string, NDArray> &inputs, TimeOptions options) const {
  const Impl &m = impl_of(impl_);
  runtime::check_time_options(options, "RemoteModel::time");
  nlohmann::json fields = nlohmann::json::object();
  add_time_fields(fields, options);
  const Frame reply = m.request("time_model", std::move(fields), inputs);
  return TimeResult::of(parse_times(reply.header, size_t(options.repeat), m.who()));
}

const std::vector<ModelIO> &RemoteModel::inputs() const { return impl_of(impl_).inputs; }
const std::vector<ModelIO> &RemoteModel::outputs() const { return impl_of(impl_).outputs; }

namespace {

// A kind with a model writer goes as a saved model, one with a web exporter as a web package.
bool sends_saved_model(const std::string &target_kind) {
  const std::vector<std::string> writers = graph::model_writer_kinds();
  return std::find(writers.begin(), writers.end(), target_kind) != writers.end();
}

}  // namespace

bool remote_loads_models(const std::string &target_kind) {
  return sends_saved_model(target_kind) || graph::has_web_exporter(target_kind);
}

RemoteModel Session::load(const graph::CompiledModel &model, const ModelLoadOptions &load_options) const {
  SessionImpl &s = SessionImpl::of(impl_);
  s.check_open();
  const Target &target = model.target();
  const bool saved = sends_saved_model(target.kind);
  TIR_USER_CHECK(remote_loads_models(target.kind))
      << "Session::load: a model built for '" << target.str() << "' cannot be sent to a remote; build it for a kind "
      << "with a saved model or a web package (\"llvm\", \"wasm\", \"webgl\")";
  s.device(target.kind);  // throws listing the remote's devices when it has no such one
  TempDir dir;
  if (saved) {
    model.save(dir.path());
  } else {
    graph::WebExportOptions options;
    options.copy_runtime = false;
    graph::export_web(model, dir.path(), options);
    // Without the module over shared memory the page runs the model on one thread.
    if (!load_options.threads) std::filesystem::remove(std::filesystem::path(dir.path()) / "model.threads.wasm");
  }
  std::string payload;
  json files = read_files(dir.path(), payload);
  const int64_t handle = s.new_handle();
  const Frame reply = s.request(
      "load_model",
      {{"model", handle}, {"format", saved ? "saved-model" : "web"}, {"files", files}},
      payload);
  auto impl = std::make_shared<RemoteModel::Impl>();
  impl->session = impl_;
  impl->handle = handle;
  impl->inputs = parse_model_ios(reply.header, "inputs", "remote '" + s.key() + "'");
  impl->outputs = parse_model_ios(reply.header, "outputs", "remote '" + s.key() + "'");
  RemoteModel m;
  m.impl_ = std::move(impl);
  return m;
}

}  // namespace tensorir::rpc
