// The server (server.h): direct connections on the listener's threads, the proxy link
// on a thread of its own, and a stop that ends them all.
#include "rpc/server/server.h"

#include <condition_variable>
#include <mutex>
#include <set>
#include <thread>

#include "rpc/connection.h"
#include "rpc/server/executor.h"
#include "rpc/server/proxy_link.h"
#include "rpc/server/session_loop.h"
#include "tensorir/error.h"

namespace tensorir::rpc::server {

namespace {

const ServerOptions &checked(const ServerOptions &o) {
  TIR_USER_CHECK(!o.host.empty()) << "the server's address to listen on is empty; give one such as 127.0.0.1";
  TIR_USER_CHECK(is_loopback(o.host) || !o.token.empty())
      << "a server listening on " << o.host << " can be reached from other machines, which could run code on this "
      << "one: give it a secret with --token T (clients present it), or listen on 127.0.0.1";
  TIR_USER_CHECK(!o.key.empty()) << "the server's key is empty; give it one with --key";
  return o;
}

}  // namespace

struct Server::State {
  explicit State(const ServerOptions &o)
      : options(checked(o)),
        devices(probe_devices(&device_log)),
        info(server_info(devices)),
        listener(options.host, options.port, options.max_frame_bytes) {}

  // The first frame of a direct connection: `connect` for this server's key.
  void hello(Connection &conn) const {
    const std::optional<Frame> first = next_frame(conn, options.log, "client " + conn.peer());
    if (!first) return;
    const nlohmann::json &h = first->header;
    TIR_USER_CHECK(h["type"] == "connect") << "the first frame to a server must be \"connect\", not \""
                                           << h["type"].get<std::string>() << "\" (docs/rpc.md)";
    check_hello(h, options.token);
    const auto key = h.find("key");
    TIR_USER_CHECK(key != h.end() && key->is_string() && *key == options.key)
        << "this server serves the key '" << options.key << "', not " << (key == h.end() ? "none" : key->dump())
        << "; connect with the key '" << options.key << "'";
    conn.send({{"type", "connected"}, {"info", info}});
  }

  void serve_direct(std::unique_ptr<Connection> conn) {
    {
      std::lock_guard<std::mutex> lock(mu);
      if (stopping) return;
      conns.insert(conn.get());
    }
    const std::string peer = "client " + conn->peer();
    try {
      hello(*conn);
      if (!conn->closed()) {
        Executor executor(devices, info, options.log);
        serve_session(*conn, executor, options.log, peer);
      }
    } catch (const std::exception &e) {
      try {
        conn->send(error_header(nullptr, e.what()));
      } catch (...) {
      }
      if (options.log) options.log(peer + ": " + e.what());
    }
    conn->close();
    std::lock_guard<std::mutex> lock(mu);
    conns.erase(conn.get());
    done.notify_all();
  }

  const ServerOptions options;
  std::string device_log;
  const std::vector<ServerDevice> devices;
  const nlohmann::json info;
  Listener listener;
  std::unique_ptr<ProxyLink> proxy;
  std::mutex mu;
  std::condition_variable done;
  std::set<Connection *> conns;
  bool stopping = false;
};

Server::Server(ServerOptions options) : state_(std::make_shared<State>(options)) {
  if (!options.proxy.empty())
    state_->proxy = std::make_unique<ProxyLink>(options.proxy, options.key, options.token, options.max_frame_bytes,
                                                state_->devices, state_->info, options.log);
}

Server::~Server() { stop(); }

int Server::port() const { return state_->listener.port(); }
const nlohmann::json &Server::info() const { return state_->info; }
const std::string &Server::device_log() const { return state_->device_log; }

void Server::serve() {
  std::thread proxy;
  if (state_->proxy) proxy = std::thread([s = state_] { s->proxy->run(); });
  const std::shared_ptr<State> s = state_;
  s->listener.serve(
      [](const std::string &) {
        return HttpResponse{426, "text/plain; charset=utf-8",
                            "a tensorir rpc server: connect with a WebSocket (docs/rpc.md)\n", {}};
      },
      [s](std::unique_ptr<Connection> conn) { s->serve_direct(std::move(conn)); });
  stop();
  if (proxy.joinable()) proxy.join();
  std::unique_lock<std::mutex> lock(s->mu);
  s->done.wait(lock, [&] { return s->conns.empty(); });
}

void Server::stop() noexcept {
  State &s = *state_;
  {
    std::lock_guard<std::mutex> lock(s.mu);
    s.stopping = true;
    for (Connection *c : s.conns) c->close();
  }
  s.listener.stop();
  if (s.proxy) s.proxy->stop();
}

}  // namespace tensorir::rpc::server
