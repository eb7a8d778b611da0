// One RPC session seen from the client (docs/rpc.md): the connection to a paired remote,
// numbered requests answered one at a time, the handles the client hands out, and the
// remote's devices. Shared by the session's handles (rpc::Session, remote modules and
// models); arrays on its devices find it through the table of live sessions.
#pragma once
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "rpc/client/watchdog.h"
#include "rpc/connection.h"
#include "tensorir/rpc.h"

namespace tensorir::rpc {

class SessionImpl {
 public:
  // Registers the session in the table of live sessions (session_table.h).
  static std::shared_ptr<SessionImpl> open(std::unique_ptr<Connection> conn, std::string address, std::string key,
                                           nlohmann::json info, std::vector<RemoteDeviceInfo> devices,
                                           uint64_t max_frame_bytes, int request_timeout_ms);
  ~SessionImpl();
  // *impl, or an Error for a Session that was never connected.
  static SessionImpl &of(const std::shared_ptr<SessionImpl> &impl);

  const std::string &key() const { return key_; }
  const std::string &address() const { return address_; }
  const nlohmann::json &info() const { return info_; }
  const std::vector<RemoteDeviceInfo> &devices() const { return devices_; }
  // "remote 'KEY' at ADDRESS": how messages name this session.
  std::string label() const;

  // The Device of the remote's device `name`; throws listing the remote's devices.
  Device device(const std::string &name) const;
  // The remote's name of `dev`, a device of this session.
  const std::string &device_name(Device dev) const;

  // Sends request `op` and waits for its reply. An `error` reply throws an Error prefixed
  // "remote 'KEY': "; a remote that went away, a closed connection or a reply out of
  // order closes the session and throws; so does a request with no reply within the
  // session's request timeout (ConnectOptions::request_timeout_ms).
  Frame request(const std::string &op, nlohmann::json fields, std::string_view payload = {});
  // An op the remote never answers (free, free_module, free_model): for destructors, so it
  // never throws and does nothing once the session is closed.
  void post(const std::string &op, nlohmann::json fields) noexcept;
  // The most bytes of an array one write or read moves: whole frames stay far below the
  // frame limits (ConnectOptions::max_frame_bytes here, the remote's own there).
  size_t chunk_bytes() const;
  // A handle for an array, module or model, unique within the session.
  int64_t new_handle() { return next_handle_++; }

  // Throws "the RPC session with remote 'KEY' ... is closed" once it is.
  void check_open() const;
  bool closed() const { return closed_; }
  // Closes the connection; the remote frees everything the session made. Never throws.
  void close(const std::string &reason) noexcept;

 private:
  SessionImpl(std::unique_ptr<Connection> conn, std::string address, std::string key, nlohmann::json info,
              std::vector<RemoteDeviceInfo> devices, uint64_t max_frame_bytes, int request_timeout_ms);
  int64_t send(const std::string &op, nlohmann::json fields, std::string_view payload);
  [[noreturn]] void fail(const std::string &reason);

  std::unique_ptr<Connection> conn_;
  std::string address_, key_;
  nlohmann::json info_;
  std::vector<RemoteDeviceInfo> devices_;
  uint64_t max_frame_bytes_;
  int request_timeout_ms_;
  Watchdog watchdog_;  // closes the session when a reply is late
  int serial_ = 0;  // in the table of live sessions; part of every Device id
  std::mutex request_mu_;  // one request at a time
  std::mutex send_mu_;     // ids go out in the order they are counted
  int64_t next_id_ = 1;
  std::atomic<int64_t> next_handle_{1};
  std::atomic<bool> closed_{false};
  mutable std::mutex reason_mu_;
  std::string close_reason_;
};

}  // namespace tensorir::rpc
