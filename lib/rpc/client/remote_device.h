// Arrays on a remote device: the DeviceAPI of Device::Remote stores a handle the client
// chose in an NDArray's data pointer.
#pragma once
#include <cstdint>

namespace tensorir::rpc {

inline void *handle_ptr(int64_t handle) { return reinterpret_cast<void *>(static_cast<uintptr_t>(handle)); }
inline int64_t handle_of(const void *data) { return static_cast<int64_t>(reinterpret_cast<uintptr_t>(data)); }

}  // namespace tensorir::rpc
