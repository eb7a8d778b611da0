// The DeviceAPI of Device::Remote (runtime/device_api.h): alloc, free, read and write of
// docs/rpc.md on the session the Device names (session_table.h).
#include "rpc/client/remote_device.h"

#include <algorithm>

#include "rpc/client/session_impl.h"
#include "rpc/client/session_table.h"
#include "runtime/device_api.h"

namespace tensorir::rpc {

namespace {

// Large arrays travel in parts, each well inside a frame (SessionImpl::chunk_bytes).
void write(Device dev, void *dst, const void *src, size_t nbytes) {
  std::shared_ptr<SessionImpl> s = session_of(dev);
  const char *bytes = static_cast<const char *>(src);
  for (size_t at = 0; at < nbytes; at += s->chunk_bytes()) {
    const size_t n = std::min(s->chunk_bytes(), nbytes - at);
    s->request("write", {{"handle", handle_of(dst)}, {"offset", at}}, std::string_view(bytes + at, n));
  }
}

void read(Device dev, const void *src, void *dst, size_t nbytes) {
  std::shared_ptr<SessionImpl> s = session_of(dev);
  for (size_t at = 0; at < nbytes; at += s->chunk_bytes()) {
    const size_t n = std::min(s->chunk_bytes(), nbytes - at);
    const Frame reply = s->request("read", {{"handle", handle_of(src)}, {"offset", at}, {"nbytes", n}});
    TIR_USER_CHECK(reply.payload.size() == n)
        << "remote '" << s->key() << "': a read of " << n << " bytes from " << describe_device(dev) << " returned "
        << reply.payload.size();
    std::copy(reply.payload.begin(), reply.payload.end(), static_cast<char *>(dst) + at);
  }
}

class RemoteDeviceAPI final : public DeviceAPI {
 public:
  void *alloc(Device dev, size_t nbytes) override {
    std::shared_ptr<SessionImpl> s = session_of(dev);
    const int64_t handle = s->new_handle();
    s->request("alloc", {{"handle", handle}, {"device", s->device_name(dev)}, {"nbytes", nbytes}});
    return handle_ptr(handle);
  }

  void free(Device dev, void *data) noexcept override {
    if (std::shared_ptr<SessionImpl> s = find_session(dev)) s->post("free", {{"handles", {handle_of(data)}}});
  }

  void copy(const void *src, Device src_dev, void *dst, Device dst_dev, size_t nbytes) override {
    if (nbytes == 0) return;
    if (src_dev.is_cpu()) return write(dst_dev, dst, src, nbytes);
    if (dst_dev.is_cpu()) return read(src_dev, src, dst, nbytes);
    // Between two remote devices (of one session or two): through this process.
    std::string host(nbytes, '\0');
    read(src_dev, src, host.data(), nbytes);
    write(dst_dev, dst, host.data(), nbytes);
  }
};

const bool registered = [] {
  static RemoteDeviceAPI api;
  register_device_api(Device::Remote, &api);
  return true;
}();

}  // namespace

}  // namespace tensorir::rpc
