// Makes "opencl" a target kind and a build target: OpenCL C kernels from the lowered
// loop nest (as "opengl" compute prints GLSL), run on any OpenCL device of this machine.
#include <climits>

#include "backends/opencl/cl_module.h"
#include "backends/opencl/cl_runtime.h"
#include "backends/opencl/cl_target.h"
#include "runtime/module_loaders.h"
#include "tensorir/build.h"
#include "tensorir/error.h"
#include "tensorir/target_kind.h"

namespace {

using tensorir::TargetOption;

tensorir::TargetKindInfo opencl_kind() {
  tensorir::TargetKindInfo k;
  k.name = "opencl";
  k.help = "OpenCL C kernels, run in this process on an OpenCL device (GPU or CPU)";
  k.options = {
      TargetOption::integer("device", 0, INT_MAX,
                            "device index over all platforms (within -platform when given); default "
                            "TENSORIR_OPENCL_DEVICE, else 0"),
      TargetOption::integer("platform", 0, INT_MAX, "count -device within this platform"),
      TargetOption::integer("max-work-group-size", 1, INT_MAX, "work-items per work-group, instead of the device's"),
      TargetOption::integer("max-local-memory", 1, INT_MAX, "bytes of __local memory per work-group, instead of the device's"),
      TargetOption::flag("no-default-schedule", "no default GPU schedule for stages that bind no loops"),
      TargetOption::one_of("vector-lanes", {"0", "2", "4", "8", "16"},
                           "float32 lanes of the vectors each work-item of the GPU schedules computes; default: "
                           "the device's preferred width on a CPU device (PoCL), 0 (many work-items instead) on a GPU"),
  };
  k.caps = [](const tensorir::Target &t) {
    tensorir::TargetCaps c;
    c.device = tensorir::Device::OpenCL;
    c.runs_in_process = true;
    c.default_gpu_schedule = t.option("no-default-schedule").empty();
    c.gpu_schedules = true;
    const tensorir::opencl::GivenLimits given = tensorir::opencl::given_limits(t);
    c.max_work_group_size = static_cast<int>(given.work_group_size);
    c.max_shared_memory_bytes = given.local_memory;
    if (!given.work_group_size || !given.local_memory) {
      // The device's, when there is one; without a device the limits stay unknown (0)
      // and building says why.
      try {
        const tensorir::glsl::ComputeLimits l = tensorir::opencl::compute_limits(t);
        c.max_work_group_size = l.max_invocations;
        c.max_shared_memory_bytes = l.max_shared_bytes;
      } catch (const tensorir::Error &) {
      }
    }
    try {
      c.work_item_vector_lanes = tensorir::opencl::vector_lanes(t);
    } catch (const tensorir::Error &) {  // no device: building says why
    }
    return c;
  };
  return k;
}

const bool registered = [] {
  tensorir::register_target_kind(opencl_kind());
  tensorir::register_backend("opencl", tensorir::opencl::build_opencl);
  tensorir::runtime::register_module_loader("gpu-json", tensorir::Device::OpenCL, tensorir::opencl::load_opencl);
  return true;
}();

}  // namespace
