// Platforms, devices, contexts and queues, made once per process.
#include "backends/opencl/cl_runtime.h"

#include <memory>
#include <mutex>

#include "tensorir/error.h"

namespace tensorir::opencl {

namespace {

// A string query of clGetPlatformInfo or clGetDeviceInfo; "" when the query fails.
template <typename Id, typename Info>
std::string info_string(cl_int(CL_API_CALL *get)(Id, Info, size_t, void *, size_t *), Id id, Info what) {
  size_t n = 0;
  if (get(id, what, 0, nullptr, &n) != CL_SUCCESS || n == 0) return "";
  std::string s(n, '\0');
  get(id, what, n, s.data(), nullptr);
  s.resize(std::char_traits<char>::length(s.c_str()));
  return s;
}

std::string platform_string(cl_platform_id p, cl_platform_info what) { return info_string(clGetPlatformInfo, p, what); }
std::string device_string(cl_device_id d, cl_device_info what) { return info_string(clGetDeviceInfo, d, what); }

template <typename T>
T device_value(cl_device_id d, cl_device_info what) {
  T v{};
  check(clGetDeviceInfo(d, what, sizeof v, &v, nullptr), "clGetDeviceInfo");
  return v;
}

const char *kInstallHint =
    "install an OpenCL driver (an ICD), e.g. the Debian package pocl-opencl-icd for the CPU or the GPU "
    "vendor's driver, and check that `clinfo -l` lists a device";

DeviceInfo describe(cl_platform_id p, int platform_index, cl_device_id d) {
  DeviceInfo info;
  info.platform = p;
  info.id = d;
  info.platform_index = platform_index;
  info.platform_name = platform_string(p, CL_PLATFORM_NAME);
  info.name = device_string(d, CL_DEVICE_NAME);
  info.max_work_group_size = device_value<size_t>(d, CL_DEVICE_MAX_WORK_GROUP_SIZE);
  check(clGetDeviceInfo(d, CL_DEVICE_MAX_WORK_ITEM_SIZES, sizeof info.max_work_item_sizes,
                        info.max_work_item_sizes, nullptr),
        "clGetDeviceInfo(CL_DEVICE_MAX_WORK_ITEM_SIZES)");
  info.local_mem_bytes = device_value<cl_ulong>(d, CL_DEVICE_LOCAL_MEM_SIZE);
  // Devices of OpenCL 1.0/1.1 without fp64 may refuse the query: no fp64 then.
  cl_device_fp_config fp64 = 0;
  info.fp64 = clGetDeviceInfo(d, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof fp64, &fp64, nullptr) == CL_SUCCESS && fp64 != 0;
  info.base_addr_align_bits = device_value<cl_uint>(d, CL_DEVICE_MEM_BASE_ADDR_ALIGN);
  info.cpu = (device_value<cl_device_type>(d, CL_DEVICE_TYPE) & CL_DEVICE_TYPE_CPU) != 0;
  info.float_vector_width = static_cast<int>(device_value<cl_uint>(d, CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT));
  return info;
}

std::vector<DeviceInfo> find_devices() {
  cl_uint count = 0;
  cl_int err = clGetPlatformIDs(0, nullptr, &count);
  TIR_USER_CHECK(err == CL_SUCCESS || err == -1001 /* CL_PLATFORM_NOT_FOUND_KHR */)
      << "OpenCL: clGetPlatformIDs failed with " << error_name(err) << "; " << kInstallHint;
  TIR_USER_CHECK(err == CL_SUCCESS && count > 0) << "no OpenCL platform found; " << kInstallHint;
  std::vector<cl_platform_id> platforms(count);
  check(clGetPlatformIDs(count, platforms.data(), nullptr), "clGetPlatformIDs");
  std::vector<DeviceInfo> out;
  for (cl_uint p = 0; p < count; ++p) {
    cl_uint n = 0;
    if (clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, 0, nullptr, &n) != CL_SUCCESS || n == 0) continue;
    std::vector<cl_device_id> ids(n);
    check(clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, n, ids.data(), nullptr), "clGetDeviceIDs");
    for (cl_device_id d : ids) out.push_back(describe(platforms[p], static_cast<int>(p), d));
  }
  TIR_USER_CHECK(!out.empty()) << "the OpenCL platforms found have no device; " << kInstallHint;
  return out;
}

}  // namespace

const std::vector<DeviceInfo> &devices() {
  // A failure is remembered: the ICD loader reads its configuration once per process.
  static const auto found = []() -> std::pair<std::vector<DeviceInfo>, std::string> {
    try {
      return {find_devices(), ""};
    } catch (const Error &e) {
      return {{}, e.what()};
    }
  }();
  TIR_USER_CHECK(found.second.empty()) << found.second;
  return found.first;
}

const Context &context(int index) {
  const std::vector<DeviceInfo> &all = devices();
  if (index < 0 || static_cast<size_t>(index) >= all.size()) {
    std::string list;
    for (size_t i = 0; i < all.size(); ++i)
      list += (i ? ", " : "") + std::to_string(i) + ": " + all[i].name + " (" + all[i].platform_name + ")";
    TIR_THROW() << "there is no OpenCL device " << index << "; this machine has " << all.size() << " ("
                << list << "): choose one with -device=N or TENSORIR_OPENCL_DEVICE";
  }
  static std::mutex mutex;
  static std::vector<std::unique_ptr<Context>> made(all.size());
  std::lock_guard<std::mutex> lock(mutex);
  std::unique_ptr<Context> &c = made[static_cast<size_t>(index)];
  if (!c) {
    auto fresh = std::make_unique<Context>();
    fresh->info = &all[static_cast<size_t>(index)];
    cl_int err = CL_SUCCESS;
    cl_device_id id = fresh->info->id;
    fresh->context = clCreateContext(nullptr, 1, &id, nullptr, nullptr, &err);
    check(err, "clCreateContext on " + fresh->info->name);
    // clCreateCommandQueueWithProperties is OpenCL 2.0; 1.2 platforms have only the older call.
    const std::string version = device_string(id, CL_DEVICE_VERSION);  // "OpenCL <major>.<minor> ..."
    if (version.compare(0, 9, "OpenCL 1.") == 0)
      fresh->queue = clCreateCommandQueue(fresh->context, id, 0, &err);
    else
      fresh->queue = clCreateCommandQueueWithProperties(fresh->context, id, nullptr, &err);
    if (err != CL_SUCCESS) clReleaseContext(fresh->context);
    check(err, "creating a command queue on " + fresh->info->name);
    // Never released: arrays in static storage may outlive any destructor here.
    c = std::move(fresh);
  }
  return *c;
}

std::string error_name(cl_int code) {
  switch (code) {
#define TIR_CL_ERROR(name) \
  case name: return #name;
    TIR_CL_ERROR(CL_DEVICE_NOT_FOUND)
    TIR_CL_ERROR(CL_DEVICE_NOT_AVAILABLE)
    TIR_CL_ERROR(CL_COMPILER_NOT_AVAILABLE)
    TIR_CL_ERROR(CL_MEM_OBJECT_ALLOCATION_FAILURE)
    TIR_CL_ERROR(CL_OUT_OF_RESOURCES)
    TIR_CL_ERROR(CL_OUT_OF_HOST_MEMORY)
    TIR_CL_ERROR(CL_BUILD_PROGRAM_FAILURE)
    TIR_CL_ERROR(CL_MISALIGNED_SUB_BUFFER_OFFSET)
    TIR_CL_ERROR(CL_INVALID_VALUE)
    TIR_CL_ERROR(CL_INVALID_PLATFORM)
    TIR_CL_ERROR(CL_INVALID_DEVICE)
    TIR_CL_ERROR(CL_INVALID_CONTEXT)
    TIR_CL_ERROR(CL_INVALID_COMMAND_QUEUE)
    TIR_CL_ERROR(CL_INVALID_MEM_OBJECT)
    TIR_CL_ERROR(CL_INVALID_PROGRAM)
    TIR_CL_ERROR(CL_INVALID_PROGRAM_EXECUTABLE)
    TIR_CL_ERROR(CL_INVALID_KERNEL_NAME)
    TIR_CL_ERROR(CL_INVALID_KERNEL)
    TIR_CL_ERROR(CL_INVALID_ARG_INDEX)
    TIR_CL_ERROR(CL_INVALID_ARG_VALUE)
    TIR_CL_ERROR(CL_INVALID_ARG_SIZE)
    TIR_CL_ERROR(CL_INVALID_KERNEL_ARGS)
    TIR_CL_ERROR(CL_INVALID_WORK_DIMENSION)
    TIR_CL_ERROR(CL_INVALID_WORK_GROUP_SIZE)
    TIR_CL_ERROR(CL_INVALID_WORK_ITEM_SIZE)
    TIR_CL_ERROR(CL_INVALID_GLOBAL_WORK_SIZE)
    TIR_CL_ERROR(CL_INVALID_BUFFER_SIZE)
#undef TIR_CL_ERROR
    case -1001: return "CL_PLATFORM_NOT_FOUND_KHR";
    default: return "OpenCL error " + std::to_string(code);
  }
}

void check(cl_int code, const std::string &what) {
  TIR_USER_CHECK(code == CL_SUCCESS) << "OpenCL: " << what << " failed: " << error_name(code) << " (" << code << ")";
}

}  // namespace tensorir::opencl
