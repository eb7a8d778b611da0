// alloc, free, write and read: a session's arrays are untyped bytes on a device; calls
// give them a shape and dtype (executor_modules.cpp).
#include <cstring>

#include "rpc/server/executor.h"
#include "rpc/server/request.h"
#include "tensorir/error.h"

namespace tensorir::rpc::server {

namespace {

// Off the CPU a part of an array is copied through a host copy of the whole array.
std::string host_bytes(const NDArray &a) {
  std::string bytes(a.nbytes(), '\0');
  a.copy_to_bytes(bytes.data(), bytes.size());
  return bytes;
}

}  // namespace

Executor::Reply Executor::alloc(const Request &r) {
  const int64_t handle = r.integer("handle");
  const std::string name = r.string("device");
  const uint64_t nbytes = r.count("nbytes");
  check_new_handle(arrays_, handle, "array");
  const ServerDevice *device = nullptr;
  std::string names;
  for (const ServerDevice &d : devices_) {
    if (d.name == name) device = &d;
    names += (names.empty() ? "" : ", ") + d.name;
  }
  TIR_USER_CHECK(device) << "alloc of " << handle_str("array", handle) << ": this server has no device '" << name
                         << "'; it has: " << names;
  try {
    arrays_.emplace(handle, Array{NDArray::empty({int64_t(nbytes)}, UInt(8), device->device), device});
  } catch (const std::bad_alloc &) {
    TIR_THROW() << "alloc of " << handle_str("array", handle) << ": " << nbytes
                << " bytes do not fit in the memory of '" << name << "'";
  }
  return {};
}

Executor::Reply Executor::free(const Request &r) {
  std::string unknown;
  for (const nlohmann::json &h : r.array("handles")) {
    TIR_USER_CHECK(h.is_number_integer()) << "free: the handle " << h.dump() << " is not an integer";
    if (!arrays_.erase(h.get<int64_t>())) unknown += (unknown.empty() ? "" : ", ") + h.dump();
  }
  TIR_USER_CHECK(unknown.empty()) << "free: no array of the handles " << unknown << " is in this session";
  return {};
}

Executor::Reply Executor::write(const Request &r) {
  const int64_t handle = r.integer("handle");
  const uint64_t offset = r.count("offset");
  Array &a = find_handle(arrays_, handle, "array", "alloc");
  const std::string &bytes = r.payload();
  const uint64_t size = a.storage.nbytes();
  TIR_USER_CHECK(offset <= size && bytes.size() <= size - offset)
      << "write of " << bytes.size() << " bytes at offset " << offset << " runs past the end of "
      << handle_str("array", handle) << " (" << size << " bytes); write within it or alloc a larger one";
  if (a.storage.device().is_cpu()) {
    std::memcpy(static_cast<char *>(a.storage.data()) + offset, bytes.data(), bytes.size());
  } else if (offset == 0 && bytes.size() == size) {
    a.storage.copy_from_bytes(bytes.data(), bytes.size());
  } else {
    std::string whole = host_bytes(a.storage);
    whole.replace(offset, bytes.size(), bytes);
    a.storage.copy_from_bytes(whole.data(), whole.size());
  }
  return {};
}

Executor::Reply Executor::read(const Request &r) {
  const int64_t handle = r.integer("handle");
  const uint64_t offset = r.count("offset"), nbytes = r.count("nbytes");
  const Array &a = find_handle(arrays_, handle, "array", "alloc");
  const uint64_t size = a.storage.nbytes();
  TIR_USER_CHECK(offset <= size && nbytes <= size - offset)
      << "read of " << nbytes << " bytes at offset " << offset << " runs past the end of "
      << handle_str("array", handle) << " (" << size << " bytes)";
  Reply reply;
  if (a.storage.device().is_cpu())
    reply.payload.assign(static_cast<const char *>(a.storage.data()) + offset, nbytes);
  else
    reply.payload = host_bytes(a.storage).substr(offset, nbytes);
  return reply;
}

}  // namespace tensorir::rpc::server
