// Modules on a remote: Session::load(Module) uploads one (load_module of docs/rpc.md) and
// returns a Module whose calls and timings run there.
#include <algorithm>
#include <cstdlib>
#include <functional>
#include <map>

#include "rpc/client/package_files.h"
#include "rpc/client/remote_device.h"
#include "rpc/client/session_impl.h"
#include "rpc/client/session_table.h"
#include "rpc/client/wire.h"
#include "rpc/signature_json.h"
#include "rpc/temp_dir.h"
#include "tensorir/error.h"

namespace tensorir::rpc {

using nlohmann::json;

namespace {

// How a module of each backend travels: the format docs/rpc.md names and its bytes.
struct Upload {
  std::string format;
  std::function<std::string(const Module &)> bytes;
};

std::string saved_as(const Module &m, const std::string &format) {
  TempDir dir;
  const std::string path = dir.path() + "/module." + format;
  m.save(path, format);
  return read_file(path);
}

const std::map<std::string, Upload> &uploads() {
  static const std::map<std::string, Upload> table = {
      {"llvm", {"so", [](const Module &m) { return saved_as(m, "so"); }}},
      {"wasm", {"wasm", [](const Module &m) { return saved_as(m, "wasm"); }}},
      {"webgl", {"webgl-json", [](const Module &m) { return m.source("webgl-json"); }}},
      {"opengl", {"gpu-json", [](const Module &m) { return saved_as(m, "gpu-json"); }}},
      {"opencl", {"gpu-json", [](const Module &m) { return saved_as(m, "gpu-json"); }}},
  };
  return table;
}

class RemoteModuleNode final : public ModuleNode {
 public:
  RemoteModuleNode(std::shared_ptr<SessionImpl> session, Module local, int64_t handle, Device device)
      : session_(std::move(session)), local_(std::move(local)), handle_(handle), device_(device) {
    sigs_ = local_.node()->signatures();
    for (FuncSignature &s : sigs_) s.device = Device::Remote;
  }
  ~RemoteModuleNode() override { session_->post("free_module", {{"module", handle_}}); }

  const std::vector<FuncSignature> &signatures() const override { return sigs_; }

  void invoke(size_t index, const std::vector<ArgValue> &args, const std::vector<NDArray> &buffers) const override {
    session_->request("call", call_fields(index, args, buffers));
  }

  std::vector<double> time(size_t index, const std::vector<ArgValue> &args, const std::vector<NDArray> &buffers,
                           const TimeOptions &options) const override {
    json fields = call_fields(index, args, buffers);
    add_time_fields(fields, options);
    const Frame reply = session_->request("time", std::move(fields));
    return parse_times(reply.header, size_t(options.repeat), "remote '" + session_->key() + "'");
  }

  std::string source(const std::string &format) const override { return local_.source(format); }
  std::string backend() const override { return local_.node()->backend(); }
  void save(const std::string &path, const std::string &format) const override { local_.save(path, format); }
  const Module &local() const { return local_; }

 private:
  // The `call` fields of function `index`: every buffer must live on this session's
  // device of the module's kind (Function::call checked dtypes and shapes).
  json call_fields(size_t index, const std::vector<ArgValue> &args, const std::vector<NDArray> &buffers) const {
    session_->check_open();
    const FuncSignature &sig = sigs_[index];
    json list = json::array();
    for (size_t i = 0; i < sig.args.size(); ++i) {
      if (!sig.args[i].is_buffer()) {
        list.push_back(scalar_arg_json(sig.args[i], args[i]));
        continue;
      }
      const Device dev = buffers[i].device();
      TIR_USER_CHECK(dev == device_)
          << sig.name << ": argument " << sig.args[i].name << " is on " << describe_device(dev)
          << " but the function runs on " << describe_device(device_) << "; make it there with NDArray::empty(shape, "
          << "dtype, session.device(\"" << session_->device_name(device_) << "\")) or copy it with .to(that device)";
      list.push_back(buffer_arg_json(handle_of(buffers[i].data()), buffers[i]));
    }
    return {{"module", handle_}, {"function", sig.name}, {"args", list}};
  }

  std::shared_ptr<SessionImpl> session_;
  Module local_;
  int64_t handle_;
  Device device_;
  std::vector<FuncSignature> sigs_;
};

// A page runs a "wasm" module's parallel loops on as many threads as its models get (the
// device's "threads"), so that a kernel times there as it runs inside a model: it goes
// up linked over shared memory when that is more than one.
const Upload &upload_for(const std::string &backend, const SessionImpl &s) {
  static const Upload threaded{"wasm-threads", [](const Module &m) { return saved_as(m, "wasm-threads"); }};
  if (backend == "wasm")
    for (const RemoteDeviceInfo &d : s.devices()) {
      const auto threads = d.attrs.find("threads");
      if (d.name == "wasm" && threads != d.attrs.end() && std::atoi(threads->second.c_str()) > 1) return threaded;
    }
  return uploads().at(backend);
}

std::string upload_backends() {
  std::string s;
  for (const auto &[name, u] : uploads()) s += (s.empty() ? "\"" : ", \"") + name + "\"";
  return s;
}

}  // namespace

Module Session::load(const Module &module) const {
  SessionImpl &s = SessionImpl::of(impl_);
  s.check_open();
  TIR_USER_CHECK(module.defined()) << "Session::load: the Module is undefined; build one first";
  // A module of another session goes up as the module it was built as.
  const auto *remote = dynamic_cast<const RemoteModuleNode *>(module.node());
  const Module local = remote ? remote->local() : module;
  const std::string backend = local.node()->backend();
  auto it = uploads().find(backend);
  TIR_USER_CHECK(it != uploads().end()) << "Session::load: a module of the '" << backend
                                        << "' backend cannot be sent to a remote; RPC loads modules built for "
                                        << upload_backends();
  const Device device = s.device(backend);
  const Upload &upload = upload_for(backend, s);
  const std::string bytes = upload.bytes(local);
  json sigs = json::array();
  for (const FuncSignature &sig : local.node()->signatures()) sigs.push_back(signature_to_json(sig));
  const int64_t handle = s.new_handle();
  const Frame reply = s.request(
      "load_module", {{"module", handle}, {"format", upload.format}, {"target", backend}, {"functions", sigs}},
      bytes);
  auto node = Ref<RemoteModuleNode>(new RemoteModuleNode(impl_, local, handle, device));
  // The remote's names must cover the module's, or a call would fail only there.
  const json names = reply.header.value("functions", json::array());
  for (const FuncSignature &sig : local.node()->signatures())
    TIR_USER_CHECK(std::find(names.begin(), names.end(), json(sig.name)) != names.end())
        << "remote '" << s.key() << "' loaded the " << backend << " module without its function '" << sig.name
        << "' (it has " << names.dump() << ")";
  return Module(Ref<const ModuleNode>(node));
}

}  // namespace tensorir::rpc
