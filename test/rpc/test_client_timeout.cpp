// ConnectOptions::request_timeout_ms against a remote written in the test (fake_remote.h)
// that never answers one op: the request throws naming the key and the request, and the
// session is closed; and against peers that never answer the handshake.
#include <tensorir/rpc.h>
#include <tensorir/tensorir.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <thread>

#include "rpc/fake_remote.h"
#include "rpc/rpc_test_util.h"

using namespace tensorir;
using namespace tensorir::rpc_test;
using Catch::Matchers::Contains;

namespace {

// Serves everything as the store does, but never answers a `call`.
bool silent_on_call(Connection &c, const Frame &f, Store &store) {
  if (f.header.value("op", "") == "call") return true;
  return FakeRemote::serve_store(c, f, store);
}

}  // namespace

TEST_CASE("a request with no reply in time throws and closes the session", "[rpc][error]") {
  FakeRemote remote(FakeRemote::default_info(), silent_on_call);
  rpc::Session s = rpc::connect(remote.address(), "native", {.timeout_ms = 1000, .token = "", .request_timeout_ms = 300});
  Module m = s.load(build_add(4));
  NDArray a = NDArray::random({4}, Float(32), 3).to(s.device("llvm")), c = NDArray::empty({4}, Float(32), s.device("llvm"));
  // Requests that are answered are not affected.
  CHECK(a.to(Device::cpu()).to_vector<float>() == NDArray::random({4}, Float(32), 3).to_vector<float>());
  CHECK_THROWS_WITH(m("add")(a, a, c), Contains("remote 'native'") && Contains("no reply to 'call' (request ") &&
                                           Contains("within 300 ms") && Contains("request_timeout_ms") &&
                                           Contains("is closed"));
  CHECK_THROWS_WITH(a.to(Device::cpu()), Contains("is closed") && Contains("no reply to 'call'"));
  CHECK_THROWS_WITH(s.load(build_add(4)), Contains("is closed"));
  CHECK(remote.wait_closed());
}

TEST_CASE("request_timeout_ms 0 waits as long as the reply takes, a negative one is refused", "[rpc][error]") {
  FakeRemote remote;
  rpc::Session s = rpc::connect(remote.address(), "native", {.timeout_ms = 1000, .token = "", .request_timeout_ms = 0});
  CHECK(NDArray::random({4}, Float(32), 3).to(s.device("llvm")).to(Device::cpu()).to_vector<float>() ==
        NDArray::random({4}, Float(32), 3).to_vector<float>());
  CHECK_THROWS_WITH(rpc::connect(remote.address(), "native", {.timeout_ms = 1000, .token = "", .request_timeout_ms = -1}),
                    Contains("request_timeout_ms is negative"));
}

TEST_CASE("a peer that never answers connect is an error after the timeouts", "[rpc][error]") {
  // A listener that reads every frame and answers none.
  rpc::Listener silent("127.0.0.1", 0);
  std::thread serving([&] {
    silent.serve([](const std::string &) { return rpc::HttpResponse{}; },
                 [](std::unique_ptr<Connection> c) {
                   try {
                     while (true) c->receive();
                   } catch (const Error &) {
                   }
                 });
  });
  const std::string address = "127.0.0.1:" + std::to_string(silent.port());
  CHECK_THROWS_WITH(rpc::connect(address, "native", {.timeout_ms = 100, .token = "", .request_timeout_ms = 200}),
                    Contains("no answer to `connect` came within 300 ms"));
  silent.stop();
  serving.join();
}

TEST_CASE("a peer that accepts but never answers the WebSocket upgrade is an error after request_timeout_ms",
          "[rpc][error]") {
  // A bare TCP listener: the connection is accepted by the kernel and nothing is read.
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  REQUIRE(fd >= 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  REQUIRE(::bind(fd, reinterpret_cast<sockaddr *>(&addr), sizeof addr) == 0);
  REQUIRE(::listen(fd, 4) == 0);
  socklen_t len = sizeof addr;
  REQUIRE(::getsockname(fd, reinterpret_cast<sockaddr *>(&addr), &len) == 0);
  const std::string address = "127.0.0.1:" + std::to_string(ntohs(addr.sin_port));
  const auto start = std::chrono::steady_clock::now();
  CHECK_THROWS_WITH(rpc::connect(address, "native", {.timeout_ms = 100, .token = "", .request_timeout_ms = 300}),
                    Contains("did not complete the WebSocket handshake within 300 ms"));
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(20));
  ::close(fd);
}

TEST_CASE("ports outside 0..65535 are errors naming them, not another port", "[rpc][error]") {
  CHECK_THROWS_WITH(rpc::Listener("127.0.0.1", 70000), Contains("127.0.0.1:70000") && Contains("0 (any free port) to 65535"));
  CHECK_THROWS_WITH(rpc::Listener("127.0.0.1", -1), Contains("to 65535"));
  for (const char *address : {"127.0.0.1:99999", "127.0.0.1:0", "127.0.0.1:x1", "127.0.0.1:-5"})
    CHECK_THROWS_WITH(rpc::connect(address, "native"), Contains(address) && Contains("not a number from 1 to 65535"));
}
