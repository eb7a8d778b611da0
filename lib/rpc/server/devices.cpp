// Finding the devices that work in this process (devices.h).
#include "rpc/server/devices.h"

#include <fstream>

#include "runtime/device_api.h"
#include "tensorir/error.h"
#include "tensorir/runtime/ndarray.h"
#include "tensorir/runtime/opengl.h"
#include "tensorir/runtime/parallel.h"

namespace tensorir::rpc::server {

namespace {

// The CPU's model name from /proc/cpuinfo, else "unknown".
std::string cpu_name() {
  std::ifstream f("/proc/cpuinfo");
  for (std::string line; std::getline(f, line);) {
    if (line.rfind("model name", 0) != 0) continue;
    const size_t colon = line.find(':');
    if (colon != std::string::npos) return line.substr(line.find_first_not_of(" \t", colon + 1));
  }
  return "unknown";
}

// Whether an array can be made and filled on `dev`: the device exists and works.
void try_array(Device dev) {
  NDArray a = NDArray::empty({4}, UInt(8), dev);
  const unsigned char bytes[4] = {1, 2, 3, 4};
  a.copy_from_bytes(bytes, sizeof bytes);
}

}  // namespace

ServerDevice host_device() {
  return {"llvm", Device::cpu(), {{"name", "llvm"}, {"cpu", cpu_name()}, {"threads", num_threads()}}};
}

std::vector<ServerDevice> probe_devices(std::string *log) {
  std::vector<ServerDevice> devices = {host_device()};
  if (find_device_api(Device::OpenCL)) {
    try {
      try_array(Device::opencl(0));
      devices.push_back({"opencl", Device::opencl(0), {{"name", "opencl"}}});
    } catch (const std::exception &e) {
      if (log) *log += std::string("no opencl device: ") + e.what() + "\n";
    }
  }
  try {
    const std::string renderer = opengl_renderer();
    try_array(Device::opengl());
    devices.push_back({"opengl", Device::opengl(), {{"name", "opengl"}, {"renderer", renderer}}});
  } catch (const std::exception &e) {
    if (log) *log += std::string("no opengl device: ") + e.what() + "\n";
  }
  return devices;
}

nlohmann::json server_info(const std::vector<ServerDevice> &devices) {
  nlohmann::json list = nlohmann::json::array();
  for (const ServerDevice &d : devices) list.push_back(d.info);
  return {{"remote", "server"}, {"devices", list}};
}

}  // namespace tensorir::rpc::server
