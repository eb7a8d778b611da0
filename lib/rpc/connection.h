// One WebSocket connection carrying RPC frames (docs/rpc.md), and the listener that
// accepts them next to plain HTTP GETs on one port. Boost.Beast stays in connection.cpp.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "rpc/protocol.h"

namespace tensorir::rpc {

inline constexpr uint64_t kDefaultMaxFrameBytes = uint64_t(1) << 30;

// "HOST:PORT" split; throws an Error naming the address when it has no port or the port
// is not a number from 1 to 65535.
void split_address(const std::string &address, std::string &host, std::string &port);

// "HOST:PORT", an IPv6 HOST in brackets ("[::1]:9190"), as split_address and URLs take it.
std::string join_address(const std::string &host, int port);

// Whether `host` is 127.0.0.1 (or another 127.x address), ::1 or localhost.
bool is_loopback(const std::string &host);

class Connection {
 public:
  // Opens a WebSocket connection to ws://HOST:PORT/; throws an Error naming the address,
  // also when connecting and the upgrade take more than timeout_ms (0: no limit).
  static std::unique_ptr<Connection> dial(const std::string &address, uint64_t max_frame_bytes = kDefaultMaxFrameBytes,
                                          int timeout_ms = 0);
  ~Connection();

  // Safe to call from several threads (writes are serialised); one thread reads.
  void send(const nlohmann::json &header, std::string_view payload = {});
  // The next frame. Throws Error when the peer closed the connection (closed() is then
  // true), when a message is text, larger than the limit, or not a frame.
  Frame receive();
  // The same, as a message's bytes, for relaying (checked as a frame's header only).
  void send_message(std::string_view bytes);
  std::string receive_message();
  // Serves the connection from this thread until it closes, and returns why it closed:
  // each message goes to `on_message` (which may throw to end the connection), and from
  // now on send() and close() from any thread are carried out here, in order (close()
  // after what was sent before it). For relaying both ways at once, which Beast does not
  // allow from two threads on one stream. receive() must not be called any more.
  // `on_started` runs first, on this thread, once sends are queued: whatever it sends goes
  // out before anything another thread sends after it.
  std::string pump(const std::function<void(std::string)> &on_message, const std::function<void()> &on_started = {});
  // Closes the connection (a WebSocket close, then the socket); never throws. A receive()
  // blocked in another thread returns with an Error.
  void close() noexcept;
  bool closed() const;
  // The peer's address, for logs and messages.
  const std::string &peer() const;

  struct Impl;
  explicit Connection(std::unique_ptr<Impl> impl);

 private:
  std::unique_ptr<Impl> impl_;
};

struct HttpResponse {
  int status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;  // more fields
};

// Accepts connections on HOST:PORT until stop(); each one is served on a thread of its
// own: a WebSocket upgrade goes to `on_socket`, any other GET to `on_http` (with the
// request target, e.g. "/rpc.html?key=browser"). Exceptions of the handlers end only
// their connection.
//
// Browsers let any web site open WebSockets to any address, this machine's included, so
// an upgrade that carries an Origin (only browsers send one) is refused unless it comes
// from a page this listener served (Origin http://<Host>), and, on a loopback address,
// unless that Host names the loopback (a site whose name was re-bound to 127.0.0.1 has
// its own name there).
class Listener {
 public:
  using HttpHandler = std::function<HttpResponse(const std::string &target)>;
  using SocketHandler = std::function<void(std::unique_ptr<Connection>)>;

  // Binds (port 0: any free port); throws an Error naming the address when it cannot or
  // the port is outside 0..65535.
  Listener(const std::string &host, int port, uint64_t max_frame_bytes = kDefaultMaxFrameBytes);
  ~Listener();
  int port() const;
  // Blocks, serving, until stop() is called from another thread or a signal handler's thread.
  void serve(const HttpHandler &on_http, const SocketHandler &on_socket);
  void stop() noexcept;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tensorir::rpc
