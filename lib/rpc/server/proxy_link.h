// A server's registration with a proxy (docs/rpc.md, "Handshake"): dial, `register`,
// then serve the sessions the proxy opens on that connection; when the proxy goes away
// or refuses, try again after a delay that doubles up to 10 s.
#pragma once
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "rpc/connection.h"
#include "rpc/server/devices.h"
#include "rpc/server/executor.h"

namespace tensorir::rpc::server {

class ProxyLink {
 public:
  ProxyLink(std::string proxy, std::string key, std::string token, uint64_t max_frame_bytes,
            std::vector<ServerDevice> devices, nlohmann::json info, Log log);
  // Registers and serves until stop().
  void run();
  // From any thread: ends the connection to the proxy and run().
  void stop() noexcept;

 private:
  // One registration and the sessions served on it.
  void serve_once();

  const std::string proxy_, key_, token_;
  const uint64_t max_frame_bytes_;
  const std::vector<ServerDevice> devices_;
  const nlohmann::json info_;
  const Log log_;
  std::mutex mu_;
  std::condition_variable wake_;
  bool stopping_ = false;
  Connection *conn_ = nullptr;  // the live connection, for stop()
};

}  // namespace tensorir::rpc::server
