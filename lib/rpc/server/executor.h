// What a server does for one session (docs/rpc.md, "Requests"), apart from any socket:
// requests come in as frames and answers go out as frames, so tests drive it directly.
// Handles are the client's integers, mapped here to arrays, modules and models; all of
// them go when the session closes (reset()) or the executor does (a dropped connection).
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "rpc/protocol.h"
#include "rpc/server/devices.h"
#include "tensorir/error.h"
#include "tensorir/runtime/model_loader.h"
#include "tensorir/runtime/module.h"
#include "tensorir/runtime/ndarray.h"

namespace tensorir::rpc::server {

class Request;

// Where a server writes what its operator should know, a line at a time (no newline);
// empty: nowhere. Called from any thread.
using Log = std::function<void(const std::string &line)>;

class Executor {
 public:
  // `devices`: what the server offers (probe_devices()); `info` what `info` answers;
  // `log` takes the failures of requests that have no answer.
  Executor(std::vector<ServerDevice> devices, nlohmann::json info, Log log = {});
  // Arrays point at their device in `devices`.
  Executor(const Executor &) = delete;
  Executor &operator=(const Executor &) = delete;

  // The answer to a frame of type "request": a "reply", or an "error" that names the
  // handle, function or op and the fix. Nothing for ops without a reply (free,
  // free_module, free_model), whose failures go to the log. Never throws.
  std::optional<Frame> handle(const Frame &request);
  // Frees everything the session made (the "close" frame).
  void reset();
  // How many arrays, modules and models the session holds: {"arrays":n,...}.
  nlohmann::json live() const;

 private:
  struct Array {
    NDArray storage;  // nbytes bytes of uint8
    const ServerDevice *device;
  };
  struct Reply {
    nlohmann::json fields = nlohmann::json::object();
    std::string payload;
  };

  Reply dispatch(const Request &r);
  Reply info(const Request &r);
  // executor_arrays.cpp
  Reply alloc(const Request &r);
  Reply free(const Request &r);
  Reply write(const Request &r);
  Reply read(const Request &r);
  // executor_modules.cpp
  Reply load_module(const Request &r);
  Reply free_module(const Request &r);
  Reply call(const Request &r);
  Reply time(const Request &r);
  Function function(const Request &r, std::vector<Arg> &args);
  // The server's device called `name`, or an Error naming `what` and the devices there are.
  const ServerDevice &device_named(const std::string &name, const std::string &what) const;
  // executor_models.cpp
  Reply load_model(const Request &r);
  Reply free_model(const Request &r);
  Reply run_model(const Request &r);
  Reply profile_model(const Request &r);
  Reply time_model(const Request &r);
  std::map<std::string, NDArray> model_inputs(const Request &r, const runtime::LoadedModel &m) const;

  std::vector<ServerDevice> devices_;
  nlohmann::json info_;
  Log log_;
  std::map<int64_t, Array> arrays_;
  struct LoadedModule {
    Module module;
    const ServerDevice *device;  // where its arrays must live
  };
  std::map<int64_t, LoadedModule> modules_;
  std::map<int64_t, runtime::LoadedModel> models_;
};

// How messages name a handle: "array 7", "module 2".
std::string handle_str(const char *kind, int64_t handle);

// The object of `handle` in `objects`, else an Error saying to make it with the op `make`.
template <typename Map>
auto &find_handle(Map &objects, int64_t handle, const char *kind, const char *make) {
  const auto it = objects.find(handle);
  TIR_USER_CHECK(it != objects.end()) << "there is no " << handle_str(kind, handle)
                                      << " in this session (never made, or freed); " << make << " it first";
  return it->second;
}

// An Error unless `handle` is free in `objects`.
template <typename Map>
void check_new_handle(const Map &objects, int64_t handle, const char *kind) {
  TIR_USER_CHECK(!objects.count(handle)) << handle_str(kind, handle)
                                         << " is already in use in this session; choose a new handle";
}

}  // namespace tensorir::rpc::server
