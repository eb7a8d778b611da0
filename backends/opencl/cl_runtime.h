// The OpenCL runtime: the devices of every platform the ICD loader lists, one context
// and in-order queue per device (made on first use), and buffers for NDArrays on
// Device::opencl(i). Nothing here is seen above the backends.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#define CL_TARGET_OPENCL_VERSION 300
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS  // clCreateCommandQueue, for OpenCL 1.2 platforms
#include <CL/cl.h>

#include "tensorir/runtime/ndarray.h"

namespace tensorir::opencl {

struct DeviceInfo {
  cl_platform_id platform = nullptr;
  cl_device_id id = nullptr;
  int platform_index = 0;
  std::string name, platform_name;
  size_t max_work_group_size = 0;
  size_t max_work_item_sizes[3] = {0, 0, 0};
  uint64_t local_mem_bytes = 0;
  bool fp64 = false;                  // cl_khr_fp64
  uint32_t base_addr_align_bits = 0;  // CL_DEVICE_MEM_BASE_ADDR_ALIGN: sub-buffer origins
  bool cpu = false;                   // CL_DEVICE_TYPE_CPU (PoCL): work-items run as loops on cores
  int float_vector_width = 1;         // CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT
};

// Every device of every platform, in the loader's order; throws tensorir::Error when no
// platform or no device is found, saying to install an ICD.
const std::vector<DeviceInfo> &devices();
// The device of Device::opencl(index), with its context and queue made on first use;
// throws tensorir::Error naming the devices there are for a bad index.
struct Context {
  const DeviceInfo *info = nullptr;
  cl_context context = nullptr;
  cl_command_queue queue = nullptr;
};
const Context &context(int index);

// The name of an OpenCL error code ("CL_OUT_OF_RESOURCES").
std::string error_name(cl_int code);
// Throws tensorir::Error "<what> failed: <name> (<code>)" unless `code` is CL_SUCCESS.
void check(cl_int code, const std::string &what);

// An NDArray's storage on an OpenCL device: a buffer, or a sub-buffer of `root` from
// `offset` on (a view, NDArray::view).
struct Buffer {
  cl_mem mem = nullptr;
  size_t bytes = 0;
  cl_mem root = nullptr;
  size_t offset = 0;
};
// `a`'s buffer; throws tensorir::Error naming `what` unless it is on Device::opencl(device).
const Buffer &buffer(const NDArray &a, int device, const std::string &what);

}  // namespace tensorir::opencl
