// rpc::connect: the `connect` handshake (docs/rpc.md), and the Session's own methods.
#include <algorithm>
#include <atomic>
#include <climits>

#include "rpc/client/session_impl.h"
#include "rpc/client/session_table.h"
#include "rpc/client/watchdog.h"
#include "tensorir/error.h"

namespace tensorir::rpc {

using nlohmann::json;

namespace {

// A device's attributes as strings: strings as they are, other values as JSON.
RemoteDeviceInfo parse_device(const json &d, const std::string &who) {
  TIR_USER_CHECK(d.is_object() && d.contains("name") && d["name"].is_string())
      << who << " described a device without a \"name\" in its info (" << d.dump() << ")";
  RemoteDeviceInfo info;
  info.name = d["name"].get<std::string>();
  for (const auto &[k, v] : d.items())
    if (k != "name") info.attrs[k] = v.is_string() ? v.get<std::string>() : v.dump();
  return info;
}

std::vector<RemoteDeviceInfo> parse_devices(const json &info, const std::string &who) {
  TIR_USER_CHECK(info.is_object() && info.contains("devices") && info["devices"].is_array())
      << who << " answered `connected` without an \"info\" object listing its \"devices\"";
  std::vector<RemoteDeviceInfo> devices;
  for (const json &d : info["devices"]) devices.push_back(parse_device(d, who));
  TIR_USER_CHECK(devices.size() <= size_t(kMaxRemoteDevices))
      << who << " lists " << devices.size() << " devices; a session takes at most " << kMaxRemoteDevices;
  return devices;
}

// What to do when no remote answered for the key, unless the proxy already said it.
std::string connect_hint(const std::string &message, const std::string &address, const std::string &key) {
  if (message.find("rpc.html") != std::string::npos || message.find("version") != std::string::npos ||
      message.find("token") != std::string::npos)
    return "";
  return " (a proxy pairs key '" + key + "' with a page opened at http://" + address + "/rpc.html?key=" + key +
         " or with `tensorir rpc server --key " + key + " --proxy " + address + "`; a server answers the keys it was "
         "started with, --key)";
}

}  // namespace

Session connect(const std::string &address, const std::string &key, const ConnectOptions &options) {
  const std::string who = "rpc::connect(\"" + address + "\", key '" + key + "')";
  TIR_USER_CHECK(!key.empty()) << who << ": the key is empty; name the remote's key, e.g. \"browser\"";
  TIR_USER_CHECK(options.timeout_ms >= 0) << who << ": timeout_ms is negative (" << options.timeout_ms << ")";
  TIR_USER_CHECK(options.request_timeout_ms >= 0)
      << who << ": request_timeout_ms is negative (" << options.request_timeout_ms << "); 0 means no limit";
  // A peer that never answers the WebSocket upgrade: a request's time. One that never
  // answers `connect`: the proxy's wait for a remote, then a request's.
  std::unique_ptr<Connection> conn = Connection::dial(address, options.max_frame_bytes, options.request_timeout_ms);
  Frame f;
  const int handshake_ms = options.request_timeout_ms == 0
                               ? 0
                               : int(std::min<int64_t>(INT_MAX, int64_t(options.timeout_ms) + options.request_timeout_ms));
  std::atomic<bool> late{false};
  Watchdog dog;
  try {
    const ArmedWatchdog deadline(dog, handshake_ms, [&] {
      late = true;
      conn->close();
    });
    conn->send({{"type", "connect"},
                {"v", kProtocolVersion},
                {"key", key},
                {"token", options.token},
                {"timeout_ms", options.timeout_ms}});
    f = conn->receive();
  } catch (const Error &e) {
    if (late) TIR_THROW() << who << ": no answer to `connect` came within " << handshake_ms
                          << " ms (ConnectOptions::timeout_ms + request_timeout_ms); is it a tensorir rpc proxy or server?";
    TIR_THROW() << who << ": the handshake failed: " << e.what();
  }
  const std::string type = f.header["type"].get<std::string>();
  if (type == "error") {
    const std::string message = f.header.value("message", std::string("(no message)"));
    TIR_THROW() << who << " was refused: " << message << connect_hint(message, address, key);
  }
  TIR_USER_CHECK(type == "connected") << who << ": the peer answered `connect` with '" << type
                                      << "', not `connected`; is it a tensorir rpc proxy or server of protocol version "
                                      << kProtocolVersion << "?";
  const json info = f.header.contains("info") ? f.header["info"] : json();
  std::vector<RemoteDeviceInfo> devices = parse_devices(info, who);
  Session s;
  s.impl_ = SessionImpl::open(std::move(conn), address, key, info, std::move(devices), options.max_frame_bytes,
                              options.request_timeout_ms);
  return s;
}

Device Session::device(const std::string &name) const { return SessionImpl::of(impl_).device(name); }
const std::vector<RemoteDeviceInfo> &Session::devices() const { return SessionImpl::of(impl_).devices(); }
const std::string &Session::key() const { return SessionImpl::of(impl_).key(); }

std::string Session::info_json() const {
  SessionImpl &s = SessionImpl::of(impl_);
  const Frame reply = s.request("info", json::object());
  return reply.header.contains("info") ? reply.header["info"].dump() : s.info().dump();
}

void Session::close() {
  if (impl_) impl_->close("closed by Session::close");
}

}  // namespace tensorir::rpc
