// load_model, free_model, run_model, profile_model and time_model: saved models
// (CompiledModel::save's folder), received as files and loaded by the runtime alone.
#include "rpc/server/executor.h"
#include "rpc/server/request.h"
#include "rpc/temp_dir.h"
#include "runtime/time_calls.h"
#include "tensorir/error.h"

namespace tensorir::rpc::server {

namespace {

nlohmann::json io_json(const std::vector<runtime::ModelInput> &values) {
  nlohmann::json list = nlohmann::json::array();
  for (const runtime::ModelInput &v : values)
    list.push_back({{"name", v.name}, {"shape", v.shape}, {"dtype", v.dtype.str()}});
  return list;
}

// The parts {"name","bytes"} of `list` as views of `payload`, in order; an Error when
// their sizes do not add up to the payload's.
std::vector<std::pair<std::string, std::string_view>> parts(const nlohmann::json &list, const std::string &payload,
                                                            const std::string &what) {
  std::vector<std::pair<std::string, std::string_view>> out;
  uint64_t at = 0;
  for (const nlohmann::json &p : list) {
    TIR_USER_CHECK(p.is_object() && p.contains("name") && p["name"].is_string() && p.contains("bytes") &&
                   p["bytes"].is_number_integer() && p["bytes"].get<int64_t>() >= 0)
        << what << ": an entry is not {\"name\",\"bytes\"}";
    const uint64_t n = p["bytes"].get<uint64_t>();
    TIR_USER_CHECK(n <= payload.size() - at)
        << what << ": '" << p["name"].get<std::string>() << "' runs past the end of the payload (" << payload.size()
        << " bytes)";
    out.emplace_back(p["name"].get<std::string>(), std::string_view(payload).substr(at, n));
    at += n;
  }
  TIR_USER_CHECK(at == payload.size()) << what << ": the entries add up to " << at << " bytes, but the payload has "
                                       << payload.size();
  return out;
}

}  // namespace

Executor::Reply Executor::load_model(const Request &r) {
  const int64_t handle = r.integer("model");
  const std::string format = r.string("format");
  check_new_handle(models_, handle, "model");
  TIR_USER_CHECK(format == "saved-model")
      << "load_model of " << handle_str("model", handle) << ": the format '" << format
      << "' is not loaded by a server; it loads 'saved-model', the folder CompiledModel::save writes for \"llvm\" "
      << "(\"web\" packages go to a page)";
  const TempDir dir;
  for (const auto &[name, bytes] : parts(r.array("files"), r.payload(), "load_model's files"))
    dir.write(name, bytes.data(), bytes.size());
  try {
    const runtime::LoadedModel &m = models_.emplace(handle, runtime::load_model(dir.path())).first->second;
    return {{{"inputs", io_json(m.inputs())}, {"outputs", io_json(m.outputs())}}, {}};
  } catch (const Error &e) {
    TIR_THROW() << "load_model of " << handle_str("model", handle) << ": " << e.what();
  }
}

Executor::Reply Executor::free_model(const Request &r) {
  const int64_t handle = r.integer("model");
  TIR_USER_CHECK(models_.erase(handle)) << "free_model: there is no " << handle_str("model", handle)
                                        << " in this session";
  return {};
}

std::map<std::string, NDArray> Executor::model_inputs(const Request &r, const runtime::LoadedModel &m) const {
  std::map<std::string, NDArray> inputs;
  for (const auto &[name, bytes] : parts(r.array("inputs"), r.payload(), r.op() + "'s inputs")) {
    const runtime::ModelInput *spec = nullptr;
    std::string names;
    for (const runtime::ModelInput &i : m.inputs()) {
      if (i.name == name) spec = &i;
      names += (names.empty() ? "" : ", ") + i.name;
    }
    TIR_USER_CHECK(spec) << r.op() << ": the model has no input '" << name << "'; its inputs: " << names;
    NDArray a = NDArray::empty(spec->shape, spec->dtype);
    TIR_USER_CHECK(bytes.size() == a.nbytes())
        << r.op() << ": input '" << name << "' has " << bytes.size() << " bytes, but " << spec->dtype << " "
        << shape_str(spec->shape) << " takes " << a.nbytes();
    a.copy_from_bytes(bytes.data(), bytes.size());
    inputs.emplace(name, a);
  }
  return inputs;
}

Executor::Reply Executor::run_model(const Request &r) {
  const runtime::LoadedModel &m = find_handle(models_, r.integer("model"), "model", "load_model");
  const std::map<std::string, NDArray> results = m.run_all(model_inputs(r, m));
  Reply reply;
  nlohmann::json outputs = nlohmann::json::array();
  for (const runtime::ModelOutput &o : m.outputs()) {
    const NDArray &a = results.at(o.name);
    const size_t at = reply.payload.size();
    reply.payload.resize(at + a.nbytes());
    a.copy_to_bytes(reply.payload.data() + at, a.nbytes());
    outputs.push_back({{"name", o.name}, {"shape", a.shape()}, {"dtype", a.dtype().str()}, {"bytes", a.nbytes()}});
  }
  reply.fields["outputs"] = outputs;
  return reply;
}

Executor::Reply Executor::profile_model(const Request &r) {
  const runtime::LoadedModel &m = find_handle(models_, r.integer("model"), "model", "load_model");
  const int repeats = r.positive("repeats");
  nlohmann::json kernels = nlohmann::json::array();
  for (const runtime::KernelProfile &k : m.profile(model_inputs(r, m), repeats))
    kernels.push_back({{"node", k.node}, {"op", k.op}, {"ms", k.ms}});
  return {{{"kernels", kernels}}, {}};
}

Executor::Reply Executor::time_model(const Request &r) {
  const runtime::LoadedModel &m = find_handle(models_, r.integer("model"), "model", "load_model");
  const TimeOptions options = time_options(r);
  const std::map<std::string, NDArray> inputs = model_inputs(r, m);
  return {{{"times_ms", runtime::time_calls([&] { m.run_all(inputs); }, options)}}, {}};
}

}  // namespace tensorir::rpc::server
