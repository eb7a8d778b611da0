// A remote written in the test, on the library's own Listener and Connection: it answers
// the `connect` handshake with `info`, records every frame it receives, and answers each
// request with a handler the test gives, so that a test sees exactly what the client sent
// and can answer anything, including errors and broken replies.
#pragma once
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "rpc/connection.h"

namespace tensorir::rpc_test {

using nlohmann::json;
using rpc::Connection;
using rpc::Frame;

// Arrays and modules in memory, as a remote keeps them: the default handler's state.
struct Store {
  std::map<int64_t, std::string> arrays;   // handle -> bytes
  std::map<int64_t, std::string> devices;  // handle -> device name
  std::map<int64_t, json> modules;         // handle -> the load_module header
};

class FakeRemote {
 public:
  // Answers one request; returns false to end the connection without answering.
  using Handler = std::function<bool(Connection &, const Frame &, Store &)>;

  // `info` as a remote describes itself; the default handler (serve_store) keeps arrays
  // and runs "add" (c = a + b, float32) itself.
  explicit FakeRemote(json info = default_info(), Handler handler = serve_store);
  ~FakeRemote();

  std::string address() const { return "127.0.0.1:" + std::to_string(port_); }
  // Answers `connect` with this error instead of `connected`.
  void refuse(const std::string &message);
  // Every frame received, `connect` included: headers, and payload sizes in "payload_bytes".
  std::vector<json> frames() const;
  // Headers of the requests of op `op`, in order.
  std::vector<json> requests(const std::string &op) const;
  // Waits (up to 20 s) until `n` connections have ended; false on timeout.
  bool wait_closed(int n = 1) const;

  static json default_info();
  static bool serve_store(Connection &c, const Frame &f, Store &store);
  static void reply(Connection &c, const json &request, json fields = json::object(), const std::string &payload = {});

 private:
  struct State;
  std::shared_ptr<State> state_;
  std::unique_ptr<rpc::Listener> listener_;
  std::thread thread_;
  int port_ = 0;
};

}  // namespace tensorir::rpc_test
