// RPC: run and time code compiled here on a browser page or another process or machine
// (docs/rpc.md has the protocol; libtensorir_rpc, target tensorir::rpc).
//
//   rpc::Session remote = rpc::connect("127.0.0.1:9190", "browser");  // proxy or server, key
//   Device dev = remote.device("webgl");                              // "wasm", "llvm", ...
//   Module rm = remote.load(build(s, {A, B, C}, "webgl", "add"));
//   NDArray a = NDArray::random({n}, Float(32), 1).to(dev);            // lives on the remote
//   NDArray c = NDArray::empty({n}, Float(32), dev);
//   rm("add")(a, b, c);
//   std::vector<float> out = c.to(Device::cpu()).to_vector<float>();
//   double ms = rm.time_evaluator("add", {.number = 10, .repeat = 3})(a, b, c).median_ms;
//   rpc::RemoteModel model = remote.load(graph::build(g, "wasm"));     // run(), profile()
//
// Arrays on a remote device are handles: NDArray::to, copy_from_bytes and copy_to_bytes
// move their bytes over the connection (in parts well inside the frame limit), and the
// remote frees them when the last NDArray goes. A session serves one request at a time;
// threads may share it. Closing the session (or its last handle going) frees everything it made there.
// Every failure, here or on the remote, is a tensorir::Error that names the remote's key.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "tensorir/runtime/module.h"
#include "tensorir/runtime/ndarray.h"

namespace tensorir::graph {
class CompiledModel;
}

namespace tensorir::rpc {

// The protocol version this library speaks (docs/rpc.md); version 2 added the remote's
// "closed" answer to "close".
inline constexpr int kProtocolVersion = 2;

struct ConnectOptions {
  // How long the proxy may wait for a free remote of the key.
  int timeout_ms = 60000;
  // Presented to a proxy or server bound to another address than 127.0.0.1.
  std::string token;
  // Frames larger than this are refused (docs/rpc.md).
  uint64_t max_frame_bytes = uint64_t(1) << 30;
  // How long a request may wait for its reply (a module's call or timing included); a
  // later reply throws an Error naming the key and the request, and closes the session.
  // 0: no limit.
  int request_timeout_ms = 5 * 60 * 1000;
};

// One device of the remote, as it describes itself.
struct RemoteDeviceInfo {
  std::string name;                          // "webgl", "wasm", "llvm", "opengl", "opencl"
  std::map<std::string, std::string> attrs;  // renderer, limits, threads, cpu, ...
};

// A kernel's mean time in a remote model's profile.
struct RemoteKernelProfile {
  std::string node, op;
  double ms = 0;
};

struct ModelIO {
  std::string name;
  std::vector<int64_t> shape;
  Type dtype;
};

struct ModelLoadOptions {
  // A "wasm" model runs on the page's worker threads where the page can (it is
  // cross-origin isolated); false keeps it on one thread, as modules run there.
  bool threads = true;
};

class SessionImpl;

// A whole model, compiled here and loaded on the remote.
class RemoteModel {
 public:
  RemoteModel() = default;
  // Inputs by name, host arrays; every output, host arrays, by name.
  std::map<std::string, NDArray> run(const std::map<std::string, NDArray> &inputs) const;
  // Each kernel's mean time over `repeats` runs, measured on the remote.
  std::vector<RemoteKernelProfile> profile(const std::map<std::string, NDArray> &inputs, int repeats = 1) const;
  // Whole-model latency measured on the remote.
  TimeResult time(const std::map<std::string, NDArray> &inputs, TimeOptions options = {}) const;
  const std::vector<ModelIO> &inputs() const;
  const std::vector<ModelIO> &outputs() const;
  bool defined() const { return impl_ != nullptr; }

 private:
  friend class Session;
  struct Impl;
  std::shared_ptr<Impl> impl_;
};

class Session {
 public:
  Session() = default;
  // The remote's device `name` (one of devices()); arrays made on it live there.
  Device device(const std::string &name) const;
  const std::vector<RemoteDeviceInfo> &devices() const;
  // Uploads a compiled module; its functions run on the remote (Module::operator(),
  // Module::time_evaluator), on arrays of the remote's device named after the module's
  // backend (device("webgl") for a "webgl" module). "webgl" and "wasm" modules go to a
  // page; "llvm" modules (as a shared object) and "opengl" compute and "opencl" modules
  // (as gpu-json, Module::save: every launch size constant) to a server. Other backends,
  // and a remote without that device, throw. A "wasm" module runs its parallel loops on as
  // many threads as the page's models (its device's "threads"), so that it times there as
  // inside a model. The module is freed there when the last handle goes.
  Module load(const Module &module) const;
  // Uploads a compiled model: "webgl" and "wasm" builds to a page (as a web package),
  // "llvm" builds to a server (as a saved model).
  RemoteModel load(const graph::CompiledModel &model, const ModelLoadOptions &options = {}) const;
  // The key this session was paired by, and what the remote says of itself now (JSON,
  // the `info` request: a server adds what the session holds there, "live").
  const std::string &key() const;
  std::string info_json() const;
  // Frees everything made on the remote and closes the connection; arrays and modules of
  // the session then throw on use. Also done when the last handle goes: the Session
  // copies, and the modules and models it loaded (arrays do not keep it open).
  void close();
  bool defined() const { return impl_ != nullptr; }

 private:
  friend Session connect(const std::string &, const std::string &, const ConnectOptions &);
  std::shared_ptr<SessionImpl> impl_;
};

// Whether Session::load can send a model built for a target of `target_kind` to a remote:
// a kind with a saved model (a server runs it) or a web package (a page runs it).
bool remote_loads_models(const std::string &target_kind);

// Connects to a proxy ("HOST:PORT") and waits for a free remote registered under `key`,
// or to a `tensorir rpc server` directly.
Session connect(const std::string &address, const std::string &key, const ConnectOptions &options = {});

}  // namespace tensorir::rpc
