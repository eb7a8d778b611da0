// The DeviceAPI of Device::Remote (runtime/device_api.h): alloc, free, read and write of
// docs/rpc.md on the session the Device names (session_table.h).
#include "rpc/client/remote_device.h"

#include "rpc/client/session_impl.h"
#include "rpc/client/session_table.h"
#include "runtime/device_api.h"

namespace tensorir::rpc {

namespace {

void write(Device dev, void *dst, const void *src, size_t nbytes) {
  std::shared_ptr<SessionImpl> s = session_of(dev);
  s->request("write", {{"handle", handle_of(dst)}, {"offset", 0}},
             std::string_view(static_cast<const char *>(src), nbytes));
}

void read(Device dev, const void *src, void *dst, size_t nbytes) {
  std::shared_ptr<SessionImpl> s = session_of(dev);
  const Frame reply = s->request("read", {{"handle", handle_of(src)}, {"offset", 0}, {"nbytes", nbytes}});
  TIR_USER_CHECK(reply.payload.size() == nbytes)
      << "remote '" << s->key() << "': a read of " << nbytes << " bytes from " << describe_device(dev) << " returned "
      << reply.payload.size();
  std::copy(reply.payload.begin(), reply.payload.end(), static_cast<char *>(dst));
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
