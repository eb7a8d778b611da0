// A server registering with a proxy (--proxy): against a stand-in proxy made of the
// library's Listener (register with the key, token and info, serve the sessions the
// proxy opens and closes, register again when the proxy drops the connection), and
// behind `tensorir rpc proxy` with clients that connect to it.
#include <catch2/catch.hpp>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

#include "rpc/connection.h"
#include "tensorir/rpc.h"
#include "rpc_server_process.h"
#include "rpc_server_test_util.h"

using namespace tensorir;
using namespace tensorir::rpc_test;
using tensorir::test::RpcProcess;

namespace {

// Accepts WebSocket connections on a free port and hands them to the test in order.
class StandInProxy {
 public:
  StandInProxy() : listener_("127.0.0.1", 0) {
    thread_ = std::thread([this] {
      listener_.serve([](const std::string &) { return rpc::HttpResponse{404, "text/plain", "", {}}; },
                      [this](std::unique_ptr<rpc::Connection> c) {
                        std::lock_guard<std::mutex> lock(mu_);
                        conns_.push_back(std::move(c));
                        ready_.notify_all();
                      });
    });
  }
  ~StandInProxy() {
    listener_.stop();
    thread_.join();
  }
  std::string address() const { return "127.0.0.1:" + std::to_string(listener_.port()); }
  // The next connection, waiting up to a minute.
  std::unique_ptr<rpc::Connection> next() {
    std::unique_lock<std::mutex> lock(mu_);
    REQUIRE(ready_.wait_for(lock, std::chrono::minutes(1), [&] { return !conns_.empty(); }));
    auto c = std::move(conns_.front());
    conns_.pop_front();
    return c;
  }

 private:
  rpc::Listener listener_;
  std::thread thread_;
  std::mutex mu_;
  std::condition_variable ready_;
  std::deque<std::unique_ptr<rpc::Connection>> conns_;
};

nlohmann::json ask(rpc::Connection &c, const rpc::Frame &f) {
  c.send(f.header, f.payload);
  return c.receive().header;
}

}  // namespace

TEST_CASE("rpc server: registers with a proxy and serves its sessions", "[rpc][server][process][proxy]") {
  StandInProxy proxy;
  ServerProcess server({"--port", "0", "--key", "native", "--token", "t0k", "--proxy", proxy.address()});
  for (int round = 0; round < 2; ++round) {
    INFO("registration " << round);
    std::unique_ptr<rpc::Connection> c = proxy.next();
    const rpc::Frame reg = c->receive();
    INFO(reg.header.dump());
    CHECK(reg.header["type"] == "register");
    CHECK(reg.header["v"] == rpc::kProtocolVersion);
    CHECK(reg.header["key"] == "native");
    CHECK(reg.header["token"] == "t0k");
    CHECK(reg.header["info"]["remote"] == "server");
    c->send({{"type", "registered"}});
    c->send({{"type", "open"}});
    CHECK(ask(*c, request(1, "alloc", {{"handle", 1}, {"device", "llvm"}, {"nbytes", 8}}))["type"] == "reply");
    CHECK(ask(*c, request(2, "info"))["info"]["live"]["arrays"] == 1);
    c->send({{"type", "close"}});
    CHECK(c->receive().header["type"] == "closed");
    CHECK(ask(*c, request(3, "info"))["info"]["live"]["arrays"] == 0);
    // The proxy goes away: the server registers again.
    c->close();
  }
  CHECK(server.stop() == 0);
}

TEST_CASE("rpc server: a proxy that refuses the registration is tried again", "[rpc][server][process][proxy]") {
  StandInProxy proxy;
  ServerProcess server({"--port", "0", "--proxy", proxy.address()});
  std::unique_ptr<rpc::Connection> first = proxy.next();
  CHECK(first->receive().header["type"] == "register");
  first->send(rpc::error_header(nullptr, "the key 'server' is taken"));
  std::unique_ptr<rpc::Connection> second = proxy.next();
  CHECK(second->receive().header["type"] == "register");
  // Direct clients are served meanwhile.
  auto direct = rpc::Connection::dial(server.address());
  direct->send({{"type", "connect"}, {"v", rpc::kProtocolVersion}, {"key", "server"}});
  CHECK(direct->receive().header["type"] == "connected");
  CHECK(server.stop() == 0);
}

TEST_CASE("rpc server: serves clients through tensorir rpc proxy", "[rpc][server][process][proxy]") {
  RpcProcess proxy({"proxy", "--port", "0"});
  ServerProcess server({"--port", "0", "--key", "native", "--proxy", proxy.address()});
  for (int round = 0; round < 2; ++round) {
    INFO("client " << round);
    auto c = rpc::Connection::dial(proxy.address());
    c->send({{"type", "connect"}, {"v", rpc::kProtocolVersion}, {"key", "native"}, {"timeout_ms", 30000}});
    const rpc::Frame connected = c->receive();
    INFO(connected.header.dump());
    REQUIRE(connected.header["type"] == "connected");
    CHECK(connected.header["info"]["remote"] == "server");
    // The previous client's array went with its session.
    CHECK(ask(*c, request(1, "info"))["info"]["live"]["arrays"] == 0);
    CHECK(ask(*c, request(2, "alloc", {{"handle", 1}, {"device", "llvm"}, {"nbytes", 8}}))["type"] == "reply");
    CHECK(ask(*c, request(3, "info"))["info"]["live"]["arrays"] == 1);
    c->close();
  }
  CHECK(server.stop() == 0);
}
