// The RPC proxy (`tensorir rpc proxy`, docs/rpc.md): serves the RPC page and the web
// runtime over HTTP, takes WebSocket connections from remotes (pages, servers) and
// clients on the same port, pairs each client with a free remote of its key and relays
// frames between the two until either goes.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace tensorir::rpc {

struct ProxyOptions {
  std::string host = "127.0.0.1";
  int port = 9190;  // 0: any free port
  // Required when `host` is not a loopback address; peers must present it.
  std::string token;
  uint64_t max_frame_bytes = uint64_t(1) << 30;
  // One line per event (a remote registered, a client paired, an error); none when empty.
  std::function<void(const std::string &)> log;
};

class Proxy {
 public:
  // Binds; throws an Error for an address in use, or a non-loopback host without a token.
  explicit Proxy(ProxyOptions options);
  ~Proxy();
  int port() const;
  // Serves until stop().
  void serve();
  void stop() noexcept;

  struct State;

 private:
  std::shared_ptr<State> state_;
};

}  // namespace tensorir::rpc
