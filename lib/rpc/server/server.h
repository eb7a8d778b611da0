// `tensorir rpc server` (docs/rpc.md): serves clients that connect directly, one session
// per connection and several at once, and with a proxy address also registers there
// under its key, serving one client at a time through it and registering again with
// back-off when the proxy goes away.
#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include "rpc/connection.h"
#include "rpc/server/executor.h"

namespace tensorir::rpc::server {

struct ServerOptions {
  std::string host = "127.0.0.1";
  int port = 9091;  // 0: any free port (Server::port() says which)
  std::string key = "server";
  std::string proxy;  // HOST:PORT of a `tensorir rpc proxy`, or none
  // Required when `host` is not a loopback address; then every connect and register
  // must present it.
  std::string token;
  uint64_t max_frame_bytes = kDefaultMaxFrameBytes;
  // Connections that end badly, registrations, failures of requests without an answer.
  Log log;
};

class Server {
 public:
  // Checks the options (a token for a host other than 127.0.0.1, localhost or ::1),
  // finds the devices (probe_devices) and binds; throws an Error saying what is wrong.
  explicit Server(ServerOptions options);
  ~Server();
  int port() const;
  // What `connected` carries (docs/rpc.md, `info`).
  const nlohmann::json &info() const;
  // Lines for the log: devices left out, and why.
  const std::string &device_log() const;
  // Serves until stop(); returns once every connection has ended.
  void serve();
  // From any thread: stops accepting and ends every connection.
  void stop() noexcept;

  struct State;

 private:
  std::shared_ptr<State> state_;
};

}  // namespace tensorir::rpc::server
