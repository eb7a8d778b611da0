// What an "opencl" target string selects: the device and the limits kernels are built
// within (the device's, or those the target gives).
#pragma once
#include <cstdint>

#include "backends/glsl/compute/codegen_compute.h"
#include "tensorir/target.h"

namespace tensorir::opencl {

// Device::opencl(i) of the target: -device=N counted over all platforms, or within
// platform P with -platform=P; without -device, TENSORIR_OPENCL_DEVICE, else 0.
// Throws tensorir::Error for a platform or device that does not exist.
int device_index(const Target &t);

// -max-work-group-size=N and -max-local-memory=N, or 0 when absent.
struct GivenLimits {
  int64_t work_group_size = 0, local_memory = 0;
};
GivenLimits given_limits(const Target &t);

// float32 lanes per work-item vector for the GPU schedules (TargetCaps::
// work_item_vector_lanes): -vector-lanes=N, else the device's preferred width on a CPU
// device and 0 on others.
int vector_lanes(const Target &t);

// The limits of code generation for the target's device (given limits win).
glsl::ComputeLimits compute_limits(const Target &t);

}  // namespace tensorir::opencl
