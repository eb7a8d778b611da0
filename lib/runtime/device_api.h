// How NDArray storage is allocated, freed and copied on each kind of device. The CPU's is
// built in; a device runtime (OpenGL, ...) registers its own when it is linked in.
// Internal to the library: the public API only sees NDArray and Device.
#pragma once
#include <cstddef>

#include "tensorir/runtime/device.h"

namespace tensorir {

class DeviceAPI {
 public:
  virtual ~DeviceAPI() = default;
  // Zero-filled storage of `nbytes` bytes (0 is allowed and still gives a non-null handle).
  // The handle is opaque off the CPU (a buffer object, not a host pointer).
  virtual void *alloc(Device dev, size_t nbytes) = 0;
  // Called from destructors: must not throw.
  virtual void free(Device dev, void *data) noexcept = 0;
  // Copies `nbytes` bytes. One side is on this API's device kind; the other is on the
  // same kind or on the CPU (host memory).
  virtual void copy(const void *src, Device src_dev, void *dst, Device dst_dev,
                    size_t nbytes) = 0;
  // Views (NDArray::view) off the CPU: whether storage `data` can be viewed from
  // `offset` on, a handle for `nbytes` bytes there sharing its memory, and freeing such a
  // handle (never the storage). By default a device has none.
  virtual bool has_view(Device dev, const void *data, size_t offset) const { return false; }
  virtual void *view(Device dev, void *data, size_t offset, size_t nbytes) { return nullptr; }
  virtual void free_view(Device dev, void *view) noexcept {}
  // Whether storage handles `a` and `b` (of `an` and `bn` bytes, both on `dev`) share
  // memory: a view and what it views do. By default only the same handle.
  virtual bool overlap(Device dev, const void *a, size_t an, const void *b, size_t bn) const { return a == b; }
  // Whether `dev` computes on this machine's CPU cores, its storage in host memory
  // behind the CPU's caches (an OpenCL CPU driver), so that overwriting host memory
  // evicts a kernel's buffers. By default a device has memory of its own.
  virtual bool shares_host_caches(Device dev) const { return false; }
};

// `api` must live until the process ends; a later registration replaces an earlier one.
void register_device_api(Device::Kind kind, DeviceAPI *api);
// The API for `dev`'s kind, or nullptr when none is registered in this build.
DeviceAPI *find_device_api(Device::Kind kind);
// As find_device_api, but throws tensorir::Error naming the device when there is none.
DeviceAPI &device_api(Device dev);
// Whether NDArray::view can place an array at `offset` into storage `data` on `dev`:
// always on the CPU, elsewhere as the device's API says.
bool has_view(Device dev, const void *data, size_t offset);
// Copies between any two devices, staging through host memory when neither is the CPU
// and the two kinds differ.
void copy_between_devices(const void *src, Device src_dev, void *dst, Device dst_dev,
                          size_t nbytes);

}  // namespace tensorir
