// The devices a server offers (docs/rpc.md, `info`): "llvm" (host memory) always,
// "opencl" and "opengl" only where this build has them and they work here.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tensorir/runtime/device.h"

namespace tensorir::rpc::server {

struct ServerDevice {
  std::string name;     // as clients name it: "llvm", "opencl", "opengl"
  Device device;        // where its arrays live in this process
  nlohmann::json info;  // {"name":..., and what describes it}
};

// "llvm" alone: what every server has.
ServerDevice host_device();
// host_device(), then OpenCL's first device and the OpenGL context where one can be made
// (each tried once; a failure leaves that device out and is written to `log`).
std::vector<ServerDevice> probe_devices(std::string *log = nullptr);
// The server's `info` (docs/rpc.md): {"remote":"server","devices":[...]}.
nlohmann::json server_info(const std::vector<ServerDevice> &devices);

}  // namespace tensorir::rpc::server
