// Requests and replies of one RPC session (session_impl.h).
#include "rpc/client/session_impl.h"

#include <algorithm>

#include "rpc/client/session_table.h"
#include "tensorir/error.h"

namespace tensorir::rpc {

using nlohmann::json;

SessionImpl::SessionImpl(std::unique_ptr<Connection> conn, std::string address, std::string key, json info,
                         std::vector<RemoteDeviceInfo> devices, uint64_t max_frame_bytes, int request_timeout_ms)
    : conn_(std::move(conn)),
      address_(std::move(address)),
      key_(std::move(key)),
      info_(std::move(info)),
      devices_(std::move(devices)),
      max_frame_bytes_(max_frame_bytes),
      request_timeout_ms_(request_timeout_ms) {}

std::shared_ptr<SessionImpl> SessionImpl::open(std::unique_ptr<Connection> conn, std::string address,
                                               std::string key, json info, std::vector<RemoteDeviceInfo> devices,
                                               uint64_t max_frame_bytes, int request_timeout_ms) {
  std::shared_ptr<SessionImpl> s(new SessionImpl(std::move(conn), std::move(address), std::move(key), std::move(info),
                                                 std::move(devices), max_frame_bytes, request_timeout_ms));
  std::vector<std::string> names;
  for (const RemoteDeviceInfo &d : s->devices_) names.push_back(d.name);
  s->serial_ = register_session(s, s->label(), names);
  return s;
}

SessionImpl &SessionImpl::of(const std::shared_ptr<SessionImpl> &impl) {
  TIR_USER_CHECK(impl != nullptr) << "use of an rpc::Session that is not connected; make one with rpc::connect";
  return *impl;
}

SessionImpl::~SessionImpl() { close("its last handle went"); }

size_t SessionImpl::chunk_bytes() const {
  const uint64_t header_room = 64 << 10;
  const uint64_t most = uint64_t(64) << 20;
  return size_t(std::max<uint64_t>(1, std::min(most, max_frame_bytes_ > 2 * header_room ? max_frame_bytes_ - header_room
                                                                                       : max_frame_bytes_ / 2)));
}

std::string SessionImpl::label() const { return "remote '" + key_ + "' at " + address_; }

Device SessionImpl::device(const std::string &name) const {
  check_open();
  std::string names;
  for (size_t i = 0; i < devices_.size(); ++i) {
    if (devices_[i].name == name) return remote_device(serial_, int(i));
    names += (i ? ", " : "") + devices_[i].name;
  }
  TIR_THROW() << label() << " has no device '" << name << "'; its devices are: " << (names.empty() ? "none" : names);
}

const std::string &SessionImpl::device_name(Device dev) const {
  const int index = device_index(dev);
  TIR_ASSERT(index < int(devices_.size())) << dev << " of " << label();
  return devices_[size_t(index)].name;
}

void SessionImpl::check_open() const {
  if (!closed_) return;
  std::lock_guard<std::mutex> lock(reason_mu_);
  TIR_THROW() << "the RPC session with " << label() << " is closed (" << close_reason_
              << "); its arrays and modules are gone: connect again with rpc::connect";
}

void SessionImpl::close(const std::string &reason) noexcept {
  {
    std::lock_guard<std::mutex> lock(reason_mu_);
    if (closed_) return;
    close_reason_ = reason;
    closed_ = true;
  }
  conn_->close();  // a request blocked in receive() in another thread returns with an Error
}

void SessionImpl::fail(const std::string &reason) {
  close(reason);
  TIR_THROW() << "remote '" << key_ << "': " << reason << "; the RPC session with " << label() << " is closed";
}

int64_t SessionImpl::send(const std::string &op, json fields, std::string_view payload) {
  fields["type"] = "request";
  fields["op"] = op;
  std::lock_guard<std::mutex> lock(send_mu_);
  const int64_t id = next_id_++;
  fields["id"] = id;
  conn_->send(fields, payload);
  return id;
}

Frame SessionImpl::request(const std::string &op, json fields, std::string_view payload) {
  std::lock_guard<std::mutex> lock(request_mu_);
  check_open();
  Frame reply;
  int64_t id = 0;
  std::atomic<bool> late{false};
  std::string late_reason;
  try {
    id = send(op, std::move(fields), payload);
    late_reason = "no reply to '" + op + "' (request " + std::to_string(id) + ") came within " +
                  std::to_string(request_timeout_ms_) + " ms (ConnectOptions::request_timeout_ms)";
    const ArmedWatchdog deadline(watchdog_, request_timeout_ms_, [&] {
      late = true;
      close(late_reason);
    });
    reply = conn_->receive();
  } catch (const Error &e) {
    if (late) TIR_THROW() << "remote '" << key_ << "': " << late_reason << "; the RPC session with " << label() << " is closed";
    check_open();  // closed here, by Session::close in another thread
    fail("the connection broke during '" + op + "' (" + e.what() + ")");
  }
  const json &h = reply.header;
  const std::string type = h["type"].get<std::string>();
  const json rid = h.contains("id") ? h["id"] : json();
  const std::string message = h.contains("message") && h["message"].is_string() ? h["message"].get<std::string>()
                                                                                 : std::string("(no message)");
  // An error of no request: the proxy says the remote went away and closes.
  if (type == "error" && rid.is_null()) fail(message);
  if (rid != json(id) || (type != "reply" && type != "error"))
    fail("answered '" + op + "' (request " + std::to_string(id) + ") with a '" + type + "' frame of id " + rid.dump() +
         ", which breaks the protocol (docs/rpc.md)");
  if (type == "error") TIR_THROW() << "remote '" << key_ << "': " << message;
  return reply;
}

void SessionImpl::post(const std::string &op, json fields) noexcept {
  if (closed_) return;
  try {
    send(op, std::move(fields), {});
  } catch (...) {
    // The next request finds the connection broken and says so.
  }
}

}  // namespace tensorir::rpc
