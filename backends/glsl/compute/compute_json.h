// The portable form of compute modules ("opengl" compute and "opencl"): Module::save(path,
// "gpu-json") writes one JSON file, and the backend that runs the kernels reads it back
// on a machine with the device (Module::load; the RPC server loads modules it is sent
// so). Every launch size in it is a constant: a function whose work-group counts,
// temporary sizes or loop passes depend on shape symbols or scalar arguments is refused.
//
//   {"format":"gpu-json","version":1,"backend":"opengl"|"opencl",
//    "functions":[{"signature":{...},                       // runtime/signature_json.h
//                  "temps":[{"name","dtype","elements"}],
//                  "kernels":[{"name","source","local_size":[x,y,z],"grid":[x,y,z],
//                              "buffers":[arg index, or -1 - temp index],
//                              "uniforms":[{"name","dtype","source": arg index}],
//                              "group_offset_uniform","helpers":[..],"float64","loop_passes"}]}]}
#pragma once
#include <string>
#include <vector>

#include "backends/glsl/compute/compute_module.h"

namespace tensorir::glsl {

inline constexpr const char *kGpuJsonFormat = "gpu-json";
inline constexpr int kGpuJsonVersion = 1;

// Writes the functions of a `backend` module to `path` in `format`, which must be
// "gpu-json"; throws an Error naming the function, kernel and size that is not constant.
void save_gpu_json(const std::string &path, const std::string &format, const std::string &backend,
                   const std::vector<FuncSignature> &sigs, const std::vector<ComputeFunction> &funcs);

struct GpuJsonModule {
  std::vector<FuncSignature> sigs;  // on `device`'s kind
  std::vector<ComputeFunction> funcs;
};

// Reads a file save_gpu_json wrote for `backend`; throws an Error naming the file for
// another format, version or backend, or a malformed one.
GpuJsonModule read_gpu_json(const std::string &path, const std::string &backend, Device::Kind device);

// Throws an Error naming the file and kernel when a work-group or a loop is larger than
// `limits` allow (the kernels were printed for the device of the machine that built them).
void check_gpu_json_limits(const std::string &path, const GpuJsonModule &m, const ComputeLimits &limits);

}  // namespace tensorir::glsl
