// GLSL 4.30 compute shaders from device kernels (transforms/split_host_device.h): one
// shader per kernel, tensors in shader storage buffers, scalars and shape variables as
// uniforms, blockIdx/threadIdx as work groups and local invocations. The same printer
// writes OpenCL C kernels (Dialect::OpenCL): tensors as __global pointers, scalars as
// kernel arguments, "shared" arrays as __local ones.
#pragma once
#include <cstdint>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "backends/glsl/common/glsl_common.h"
#include "transforms/split_host_device.h"

namespace tensorir::glsl {

// What the driver allows; the module fills it from the GL context.
struct ComputeLimits {
  Dialect dialect = Dialect::GLSL430;    // GLSL430 or OpenCL
  int max_invocations = 1024;            // per work group
  int max_group_size[3] = {1024, 1024, 64};
  int max_shared_bytes = 32768;
  int max_storage_buffers = 16;
  bool int64 = false;                    // GL_ARB_gpu_shader_int64
  bool float64 = true;                   // OpenCL: cl_khr_fp64
  std::string device_name;               // for messages
  // Loop passes one invocation may run in all; 0: no limit. Mesa's llvmpipe ends an
  // invocation's loops after 65535 passes and carries on with wrong values, so long
  // loops are printed with several copies of their body per pass, and a kernel still
  // over the limit is an error.
  int64_t loop_limit = 0;
  std::string loop_limit_why;  // says where the limit comes from, with its number, for messages
};

struct ComputeShader {
  std::string name;
  std::string source;
  int local_size[3] = {1, 1, 1};
  // Work groups to launch per axis (blockIdx.x/y/z extents), in terms of the function's
  // scalar arguments and shape variables; 1 for an unused axis.
  Expr group_count[3];
  std::vector<Var> buffers;                // binding i holds buffers[i] (OpenCL: argument i)
  std::vector<Var> uniforms;               // scalars and shape variables, set before a launch
                                           // (OpenCL: the arguments after the buffers)
  // OpenCL: `source` is the kernel function alone; these helpers (glsl_helpers.h) are
  // defined once per program, above every kernel that calls them.
  std::set<std::string> helpers;
  bool float64 = false;                    // OpenCL: uses double (cl_khr_fp64)
  std::vector<std::string> uniform_names;  // their names in the shader
  // An ivec3 uniform added to gl_WorkGroupID, so that more groups than the driver's
  // per-launch maximum run as several launches; empty when blockIdx is unused.
  std::string group_offset_uniform;
  // Loop passes per invocation, at most (Int(64), in terms of `uniforms`); undefined when
  // unbounded. Checked against ComputeLimits::loop_limit before a launch.
  Expr loop_passes;
};

// The message for a kernel that runs `passes` loop passes per invocation, over `limits`.
std::string loop_limit_message(const std::string &kernel, int64_t passes, const ComputeLimits &limits);

// `buffer_types` gives the element type of every global buffer handle (arguments and
// temporaries). Throws tensorir::Error for what the target cannot express.
ComputeShader codegen_compute(const DeviceKernel &kernel,
                              const std::unordered_map<const VarNode *, Type> &buffer_types,
                              const ComputeLimits &limits);

}  // namespace tensorir::glsl
