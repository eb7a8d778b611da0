// The proxy's pairing and relaying (proxy.h). Each connection has a thread (Listener):
// a remote's thread relays what the remote sends to its paired client, a client's
// thread relays what the client sends to its remote. Pairing state is under one mutex.
#include "rpc/proxy/proxy.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <limits>
#include <list>
#include <mutex>

#include "rpc/connection.h"
#include "rpc/proxy/page_files.h"
#include "support/json_parse.h"
#include "tensorir/error.h"

namespace tensorir::rpc {

namespace {

using nlohmann::json;

struct RemoteEntry {
  std::string key;
  std::shared_ptr<Connection> conn;
  json info;
  std::shared_ptr<Connection> client;  // the paired client, if any (under State::mu)
  // Sent "close" and not yet answered "closed" (under State::mu): the remote may still be
  // working on the last session's request, whose late reply must reach nobody, and a
  // new client would wait behind it. It is not paired until it answers.
  bool closing = false;
};

}  // namespace

struct Proxy::State {
  ProxyOptions options;
  Listener listener;
  std::mutex mu;
  std::condition_variable changed;
  std::list<std::shared_ptr<RemoteEntry>> remotes;

  explicit State(ProxyOptions o)
      : options(std::move(o)), listener(options.host, options.port, options.max_frame_bytes) {}

  void log(const std::string &line) {
    if (options.log) options.log(line);
  }

  std::string address() const { return join_address(options.host, listener.port()); }

  HttpResponse http(const std::string &target) {
    if (target == "/status" || target.rfind("/status?", 0) == 0) return {200, "application/json", status(), {}};
    return page_file(target);
  }

  // The remotes and whether each is busy: for people and tests waiting for a page.
  std::string status() {
    std::lock_guard<std::mutex> lock(mu);
    json list = json::array();
    for (const auto &r : remotes)
      list.push_back({{"key", r->key},
                      {"peer", r->conn->peer()},
                      {"busy", r->client != nullptr || r->closing},
                      {"info", r->info}});
    return json{{"remotes", list}}.dump();
  }

  void on_socket(std::unique_ptr<Connection> socket) {
    std::shared_ptr<Connection> conn(std::move(socket));
    json hello;
    try {
      hello = decode_header(conn->receive_message());
      check_hello(hello, options.token);
      const std::string type = hello["type"];
      const auto key = hello.find("key");
      TIR_USER_CHECK(key != hello.end() && key->is_string() && !key->get<std::string>().empty())
          << "RPC: a \"" << type << "\" frame needs a non-empty string \"key\"";
      TIR_USER_CHECK(type == "register" || type == "connect")
          << "RPC: the first frame to a proxy is \"register\" (a page or server) or \"connect\" (a client), not \""
          << type << "\"";
      const auto timeout = hello.find("timeout_ms");
      TIR_USER_CHECK(timeout == hello.end() ||
                     (timeout->is_number_integer() && timeout->get<int64_t>() >= 0 &&
                      timeout->get<int64_t>() <= std::numeric_limits<int>::max()))
          << "RPC: \"timeout_ms\" is " << support::quote_json(*timeout)
          << "; give a whole number of milliseconds from 0 to " << std::numeric_limits<int>::max();
    } catch (const std::exception &e) {
      refuse(*conn, e.what());
      return;
    }
    if (hello["type"] == "register")
      serve_remote(conn, hello);
    else
      serve_client(conn, hello);
  }

  void refuse(Connection &conn, const std::string &why) {
    log("refused " + conn.peer() + ": " + why);
    try {
      conn.send(error_header(nullptr, why));
    } catch (...) {
    }
    conn.close();
  }

  void serve_remote(const std::shared_ptr<Connection> &conn, const json &hello) {
    auto entry = std::make_shared<RemoteEntry>();
    entry->key = hello["key"];
    entry->conn = conn;
    entry->info = hello.value("info", json::object());
    const std::string why = conn->pump(
        [&](std::string message) {
          const json header = decode_header(message);
          if (header.value("type", "") == "closed") {
            {
              std::lock_guard<std::mutex> lock(mu);
              entry->closing = false;
            }
            changed.notify_all();
            return;
          }
          std::shared_ptr<Connection> client;
          {
            std::lock_guard<std::mutex> lock(mu);
            client = entry->client;
          }
          if (!client) return;  // nothing to answer: the session it was for has ended
          try {
            client->send_message(message);
          } catch (...) {
            // The client went; its own thread ends the session.
          }
        },
        [&] {
          {
            // Both under the lock: a client pairs (and sends "open") only after
            // "registered" is queued, and /status lists the remote once it is answered.
            std::lock_guard<std::mutex> lock(mu);
            conn->send({{"type", "registered"}});
            remotes.push_back(entry);
          }
          changed.notify_all();
          log("remote registered: key '" + entry->key + "' from " + conn->peer());
        });
    std::shared_ptr<Connection> client;
    {
      std::lock_guard<std::mutex> lock(mu);
      remotes.remove(entry);
      client = std::move(entry->client);
    }
    changed.notify_all();
    log("remote of key '" + entry->key + "' from " + conn->peer() + " left: " + why);
    if (client) {
      refuse(*client, "RPC: the remote '" + entry->key + "' (" + conn->peer() +
                          ") went away during the session: " + why);
    }
  }

  // A free remote of `key`, waiting up to `timeout`; null when none became free.
  std::shared_ptr<RemoteEntry> pair(const std::string &key, const std::shared_ptr<Connection> &client,
                                    std::chrono::milliseconds timeout) {
    std::unique_lock<std::mutex> lock(mu);
    std::shared_ptr<RemoteEntry> found;
    changed.wait_for(lock, timeout, [&] {
      for (const auto &r : remotes)
        if (r->key == key && !r->client && !r->closing) {
          found = r;
          return true;
        }
      return false;
    });
    if (found) found->client = client;
    return found;
  }

  std::string no_remote_message(const std::string &key, int timeout_ms) {
    size_t busy = 0;
    {
      std::lock_guard<std::mutex> lock(mu);
      for (const auto &r : remotes) busy += r->key == key;
    }
    if (busy > 0)
      return "RPC: every remote of key '" + key + "' (" + std::to_string(busy) + ") stayed busy for " +
             std::to_string(timeout_ms) + " ms; try again later or open another";
    return "RPC: no remote of key '" + key + "' registered with the proxy at " + address() + " within " +
           std::to_string(timeout_ms) + " ms; open http://" + address() + "/rpc.html?key=" + key +
           " in a browser, or start `tensorir rpc server --proxy " + address() + " --key " + key + "`";
  }

  void serve_client(const std::shared_ptr<Connection> &conn, const json &hello) {
    const std::string key = hello["key"];
    const int timeout_ms = hello.value("timeout_ms", 60000);
    std::shared_ptr<RemoteEntry> remote;
    const std::string why = conn->pump(
        [&](std::string message) {
          if (!remote) return;
          std::string type;
          try {
            type = decode_header(message)["type"].get<std::string>();
          } catch (const std::exception &e) {
            refuse(*conn, e.what());
            return;
          }
          // Sessions begin and end with the client's connection: the proxy's own "open" and
          // "close" are the only ones a remote gets, so its "closed" answers the proxy.
          if (type == "open" || type == "close") {
            refuse(*conn, "RPC: through a proxy a client ends its session by closing its connection; the proxy "
                          "does not relay \"" + type + "\" (docs/rpc.md)");
            return;
          }
          remote->conn->send_message(message);
        },
        [&] {
          // Paired only now that sends to this client are queued in order: "connected"
          // goes out before anything the remote answers.
          remote = pair(key, conn, std::chrono::milliseconds(std::max(timeout_ms, 0)));
          if (!remote) {
            refuse(*conn, no_remote_message(key, timeout_ms));
            return;
          }
          log("client " + conn->peer() + " paired with the remote of key '" + key + "' from " +
              remote->conn->peer());
          conn->send({{"type", "connected"}, {"info", remote->info}});
          try {
            remote->conn->send({{"type", "open"}});
          } catch (...) {
          }
        });
    if (!remote) return;
    bool still_paired = false;
    {
      std::lock_guard<std::mutex> lock(mu);
      if (remote->client == conn) {
        remote->client = nullptr;
        remote->closing = true;
        still_paired = true;
      }
    }
    if (still_paired) {
      try {
        remote->conn->send({{"type", "close"}});
      } catch (...) {
      }
    }
    changed.notify_all();
    log("client " + conn->peer() + " left the remote of key '" + key + "': " + why);
  }
};

Proxy::Proxy(ProxyOptions options) {
  TIR_USER_CHECK(!options.host.empty()) << "the RPC proxy's address to bind is empty; give one such as 127.0.0.1";
  TIR_USER_CHECK(is_loopback(options.host) || !options.token.empty())
      << "the RPC proxy binds to " << options.host
      << ", which other machines can reach: give a --token that clients and pages must present (or bind to "
         "127.0.0.1)";
  state_ = std::make_shared<State>(std::move(options));
}

Proxy::~Proxy() { stop(); }

int Proxy::port() const { return state_->listener.port(); }

void Proxy::serve() {
  std::shared_ptr<State> s = state_;
  // Connection threads hold the state, so it outlives a Proxy destroyed while they run.
  s->listener.serve([s](const std::string &target) { return s->http(target); },
                    [s](std::unique_ptr<Connection> c) { s->on_socket(std::move(c)); });
}

void Proxy::stop() noexcept {
  if (state_) state_->listener.stop();
}

}  // namespace tensorir::rpc
