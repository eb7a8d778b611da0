// Device selection and limits of "opencl" targets.
#include "backends/opencl/cl_target.h"

#include <algorithm>
#include <cstdlib>

#include "backends/opencl/cl_runtime.h"
#include "tensorir/error.h"

namespace tensorir::opencl {

int device_index(const Target &t) {
  std::string dev = t.option("device");
  int64_t n = 0;
  if (!dev.empty()) {
    n = std::stoll(dev);  // the schema checked it is a whole number
  } else if (const char *env = std::getenv("TENSORIR_OPENCL_DEVICE"); env && *env) {
    char *end = nullptr;
    n = std::strtoll(env, &end, 10);
    TIR_USER_CHECK(*end == '\0' && n >= 0)
        << "TENSORIR_OPENCL_DEVICE='" << env << "' is not a device index; set it to 0, 1, ... (see `clinfo -l`)";
  }
  if (t.option("platform").empty()) {
    context(static_cast<int>(n));  // checks the index
    return static_cast<int>(n);
  }
  const int64_t platform = std::stoll(t.option("platform"));
  const std::vector<DeviceInfo> &all = devices();
  int64_t seen = 0;
  for (size_t i = 0; i < all.size(); ++i)
    if (all[i].platform_index == platform && seen++ == n) return static_cast<int>(i);
  TIR_THROW() << "OpenCL platform " << platform << " has " << seen << " device(s), so -device=" << n
              << " does not exist there; `clinfo -l` lists the platforms and their devices";
}

GivenLimits given_limits(const Target &t) {
  GivenLimits g;
  if (!t.option("max-work-group-size").empty()) g.work_group_size = t.positive_option("max-work-group-size", 0);
  if (!t.option("max-local-memory").empty()) g.local_memory = t.positive_option("max-local-memory", 0);
  return g;
}

int vector_lanes(const Target &t) {
  if (!t.option("vector-lanes").empty()) return std::stoi(t.option("vector-lanes"));  // one of the schema's
  const DeviceInfo &d = *context(device_index(t)).info;
  if (!d.cpu) return 0;
  // A power of two that OpenCL C has a vector type of.
  int lanes = 2;
  while (lanes * 2 <= std::min(d.float_vector_width, 16)) lanes *= 2;
  return d.float_vector_width >= 2 ? lanes : 0;
}

glsl::ComputeLimits compute_limits(const Target &t) {
  const DeviceInfo &d = *context(device_index(t)).info;
  const GivenLimits given = given_limits(t);
  glsl::ComputeLimits l;
  l.dialect = glsl::Dialect::OpenCL;
  l.device_name = d.name;
  // A limit given in the target may lower the device's, never raise it.
  l.max_invocations = static_cast<int>(given.work_group_size ? std::min<size_t>(size_t(given.work_group_size), d.max_work_group_size)
                                                             : d.max_work_group_size);
  for (int i = 0; i < 3; ++i)
    l.max_group_size[i] = static_cast<int>(std::min<size_t>(d.max_work_item_sizes[i], size_t(l.max_invocations)));
  l.max_shared_bytes = static_cast<int>(given.local_memory ? std::min<int64_t>(given.local_memory, int64_t(d.local_mem_bytes))
                                                           : int64_t(d.local_mem_bytes));
  l.max_storage_buffers = 1 << 20;  // kernel arguments: bounded by the device's parameter size only
  l.int64 = true;                   // long is core OpenCL C
  l.float64 = d.fp64;
  return l;
}

}  // namespace tensorir::opencl
