// The proxy as users run it (`tensorir rpc proxy`, a child process), spoken to with raw
// frames: a stand-in remote registers, a client pairs with it by key, and frames travel
// both ways unchanged; every broken peer gets an error and the proxy keeps serving.
#include <catch2/catch.hpp>

#include <thread>

#include "rpc/connection.h"
#include "tensorir/rpc.h"
#include "rpc/rpc_process.h"
#include "rpc/rpc_server_test_util.h"
#include "tensorir/error.h"

using namespace tensorir;
using namespace tensorir::rpc;
using nlohmann::json;
using tensorir::test::RpcProcess;

namespace {

json hello(const std::string &type, const std::string &key, int version = kProtocolVersion) {
  return {{"type", type}, {"v", version}, {"key", key}, {"timeout_ms", 500}};
}

// A remote of `key` registered with the proxy at `address`.
std::unique_ptr<Connection> register_remote(const std::string &address, const std::string &key) {
  auto remote = Connection::dial(address);
  json h = hello("register", key);
  h["info"] = {{"remote", "test"}, {"devices", json::array({{{"name", "llvm"}}})}};
  remote->send(h);
  REQUIRE(remote->receive().header["type"] == "registered");
  return remote;
}

// A client of `key` paired with `remote` (registered under it): the client is told so,
// with the remote's info, and the remote gets "open".
std::unique_ptr<Connection> paired_client(Connection &remote, const std::string &address, const std::string &key) {
  auto client = Connection::dial(address);
  client->send(hello("connect", key));
  Frame connected = client->receive();
  REQUIRE(connected.header["type"] == "connected");
  CHECK(connected.header["info"]["remote"] == "test");
  REQUIRE(remote.receive().header["type"] == "open");
  return client;
}

// A client pairs with `remote` (registered under `key`), and a request and its reply
// travel between them unchanged; the client leaves.
void check_session(Connection &remote, const std::string &address, const std::string &key) {
  auto client = paired_client(remote, address, key);
  client->send({{"type", "request"}, {"id", 1}, {"op", "info"}}, "payload bytes");
  Frame request = remote.receive();
  CHECK(request.header["op"] == "info");
  CHECK(request.payload == "payload bytes");
  remote.send({{"type", "reply"}, {"id", 1}}, std::string(100000, 'x'));
  Frame reply = client->receive();
  CHECK(reply.header["id"] == 1);
  CHECK(reply.payload.size() == 100000);
  client->close();
  CHECK(remote.receive().header["type"] == "close");
  remote.send({{"type", "closed"}});
}

// The proxy still pairs a new client with a new remote and relays a request and its reply.
// (A key of its own: a remote that has just closed may still be listed for a moment.)
void check_still_serving(const std::string &address, const std::string &key) {
  auto remote = register_remote(address, key);
  check_session(*remote, address, key);
}

std::string error_of(Connection &c) {
  Frame f = c.receive();
  REQUIRE(f.header["type"] == "error");
  return f.header["message"];
}

// An error frame's message, or why the connection closed.
std::string failure_of(Connection &c) {
  try {
    return error_of(c);
  } catch (const Error &e) {
    return e.what();
  }
}

}  // namespace

TEST_CASE("rpc proxy: pairs a client with a remote of its key and relays frames both ways", "[rpc]") {
  RpcProcess proxy({"proxy", "--port", "0", "--quiet"});
  auto remote = register_remote(proxy.address(), "browser");
  check_session(*remote, proxy.address(), "browser");
  // The remote is free again for the next client.
  check_session(*remote, proxy.address(), "browser");
}

TEST_CASE("rpc proxy: a late reply of an ended session reaches nobody, the remote waits to be free", "[rpc]") {
  RpcProcess proxy({"proxy", "--port", "0", "--quiet"});
  auto remote = register_remote(proxy.address(), "slow");
  auto first = paired_client(*remote, proxy.address(), "slow");
  first->send({{"type", "request"}, {"id", 1}, {"op", "load_module"}});
  REQUIRE(remote->receive().header["op"] == "load_module");
  first->close();  // the client gave up waiting
  REQUIRE(remote->receive().header["type"] == "close");

  // Until the remote answers "closed", it is busy: the next client waits.
  auto second = Connection::dial(proxy.address());
  json h = hello("connect", "slow");
  h["timeout_ms"] = 30000;
  second->send(h);
  std::string body;
  REQUIRE(test::http_get(proxy.port(), "/status", body) == 200);
  CHECK(json::parse(body)["remotes"][0]["busy"] == true);
  remote->send({{"type", "reply"}, {"id", 1}}, "late");  // the first session's answer, late
  remote->send({{"type", "closed"}});
  Frame connected = second->receive();
  CHECK(connected.header["type"] == "connected");
  CHECK(remote->receive().header["type"] == "open");
  second->send({{"type", "request"}, {"id", 1}, {"op", "info"}});
  CHECK(remote->receive().header["op"] == "info");
  remote->send({{"type", "reply"}, {"id", 1}}, "fresh");
  // The second client gets its own reply, never the late one.
  Frame reply = second->receive();
  CHECK(reply.header["type"] == "reply");
  CHECK(reply.payload == "fresh");
}

TEST_CASE("rpc proxy: a client's own close is an error, the session ends with its connection", "[rpc]") {
  RpcProcess proxy({"proxy", "--port", "0", "--quiet"});
  auto remote = register_remote(proxy.address(), "k");
  auto client = paired_client(*remote, proxy.address(), "k");
  client->send({{"type", "close"}});
  CHECK_THAT(failure_of(*client), Catch::Contains("closing its connection"));
  // The remote hears the proxy's close only, and serves the next client once it answers.
  CHECK(remote->receive().header["type"] == "close");
  remote->send({{"type", "closed"}});
  check_session(*remote, proxy.address(), "k");
}

TEST_CASE("rpc proxy: serves the page and the web runtime over HTTP, and its status", "[rpc]") {
  RpcProcess proxy({"proxy", "--port", "0", "--quiet"});
  std::string body;
  CHECK(test::http_get(proxy.port(), "/rpc.html?key=browser", body) == 200);
  CHECK(body.find("<html") != std::string::npos);
  CHECK(test::http_get(proxy.port(), "/tensorir/tensorir.js", body) == 200);
  CHECK(body.find("export") != std::string::npos);
  CHECK(test::http_get(proxy.port(), "/etc/passwd", body) == 404);
  CHECK(test::http_get(proxy.port(), "/tensorir/../../etc/passwd", body) == 404);
  auto remote = register_remote(proxy.address(), "k1");
  CHECK(test::http_get(proxy.port(), "/status", body) == 200);
  const json status = json::parse(body);
  REQUIRE(status["remotes"].size() == 1);
  CHECK(status["remotes"][0]["key"] == "k1");
  CHECK(status["remotes"][0]["busy"] == false);
}

TEST_CASE("rpc proxy: a key with no free remote is an error after the client's timeout", "[rpc]") {
  RpcProcess proxy({"proxy", "--port", "0", "--quiet"});
  auto client = Connection::dial(proxy.address());
  client->send(hello("connect", "nobody"));
  const std::string why = error_of(*client);
  CHECK_THAT(why, Catch::Contains("no remote of key 'nobody'") && Catch::Contains("rpc.html?key=nobody"));
  // A busy remote is not handed to a second client.
  auto remote = register_remote(proxy.address(), "one");
  auto first = Connection::dial(proxy.address());
  first->send(hello("connect", "one"));
  CHECK(first->receive().header["type"] == "connected");
  auto second = Connection::dial(proxy.address());
  second->send(hello("connect", "one"));
  CHECK_THAT(error_of(*second), Catch::Contains("stayed busy"));
  check_still_serving(proxy.address(), "other");
}

TEST_CASE("rpc proxy: a remote that goes away mid-session is an error for its client", "[rpc]") {
  RpcProcess proxy({"proxy", "--port", "0", "--quiet"});
  auto remote = register_remote(proxy.address(), "tab");
  auto client = paired_client(*remote, proxy.address(), "tab");
  client->send({{"type", "request"}, {"id", 1}, {"op", "call"}});
  remote->receive();
  remote->close();  // the tab closes before it answers
  Frame f = client->receive();
  CHECK(f.header["type"] == "error");
  CHECK(f.header["id"].is_null());
  CHECK_THAT(f.header["message"].get<std::string>(), Catch::Contains("'tab'") && Catch::Contains("went away"));
  CHECK_THROWS_AS(client->receive(), Error);
  check_still_serving(proxy.address(), "tab");
}

TEST_CASE("rpc proxy: malformed, oversized and other-version frames end only their connection", "[rpc]") {
  RpcProcess proxy({"proxy", "--port", "0", "--quiet", "--max-frame-mb", "1"});
  SECTION("another protocol version") {
    auto c = Connection::dial(proxy.address());
    c->send(hello("connect", "k", 1));
    CHECK_THAT(error_of(*c), Catch::Contains("protocol version 1") && Catch::Contains("version 2"));
  }
  SECTION("not a frame") {
    auto c = Connection::dial(proxy.address());
    c->send_message("hello there");
    CHECK_THAT(error_of(*c), Catch::Contains("TRPC"));
  }
  SECTION("a header that is not JSON") {
    auto c = Connection::dial(proxy.address());
    std::string bad = encode_frame({{"type", "connect"}});
    bad[9] = '!';
    c->send_message(bad);
    CHECK_THAT(error_of(*c), Catch::Contains("JSON object"));
  }
  SECTION("a header nested too deep to copy or print") {
    auto c = Connection::dial(proxy.address());
    c->send_message(rpc_test::raw_frame("{\"type\":\"register\",\"v\":2,\"key\":\"k\",\"info\":" +
                                        rpc_test::nested_arrays(100000) + "}"));
    CHECK_THAT(error_of(*c), Catch::Contains("nested more than 64 levels deep"));
  }
  SECTION("a wait that is not a number of milliseconds") {
    for (const json &bad : {json("x"), json(nullptr), json(-5), json(1e300), json(int64_t{4294967396})}) {
      INFO(bad.dump());
      auto c = Connection::dial(proxy.address());
      json h = hello("connect", "k");
      h["timeout_ms"] = bad;
      c->send(h);
      CHECK_THAT(error_of(*c), Catch::Contains("\"timeout_ms\" is " + bad.dump()));
    }
  }
  SECTION("an unknown first frame") {
    auto c = Connection::dial(proxy.address());
    c->send({{"type", "request"}, {"v", kProtocolVersion}, {"key", "k"}});
    CHECK_THAT(error_of(*c), Catch::Contains("\"register\""));
  }
  SECTION("a frame over the limit, in a session") {
    auto remote = register_remote(proxy.address(), "big");
    auto c = paired_client(*remote, proxy.address(), "big");
    c->send({{"type", "request"}, {"id", 1}, {"op", "write"}}, std::string(2 << 20, 'x'));
    CHECK_THAT(failure_of(*c), Catch::Contains("larger than"));
    // The remote learns that the session ended.
    CHECK(remote->receive().header["type"] == "close");
  }
  check_still_serving(proxy.address(), "after");
  CHECK(proxy.alive());
}

TEST_CASE("rpc proxy: an address to listen on that is empty or unknown says so", "[rpc]") {
  std::string err;
  CHECK(test::run_rpc_command({"proxy", "--host", "", "--port", "0"}, err) != 0);
  CHECK_THAT(err, Catch::Contains("address to bind is empty"));
  CHECK(test::run_rpc_command({"proxy", "--host", "999.1.1.1", "--port", "0", "--token", "t"}, err) != 0);
  CHECK_THAT(err, Catch::Contains("the address '999.1.1.1' cannot be resolved"));
  CHECK_THAT(err, !Catch::Contains("--port"));  // no port is at fault
  // An IPv6 address in brackets, as URLs and split_address take it.
  CHECK(rpc::join_address("::1", 9190) == "[::1]:9190");
  CHECK(rpc::join_address("127.0.0.1", 9190) == "127.0.0.1:9190");
  std::string host, port;
  rpc::split_address(rpc::join_address("::1", 9190), host, port);
  CHECK(host == "::1");
  CHECK(port == "9190");
}

TEST_CASE("rpc proxy: a token is required off the loopback address, and checked when given", "[rpc]") {
  std::string err;
  CHECK(test::run_rpc_command({"proxy", "--host", "0.0.0.0", "--port", "0"}, err) != 0);
  CHECK_THAT(err, Catch::Contains("--token"));

  RpcProcess proxy({"proxy", "--port", "0", "--quiet", "--token", "s3cret"});
  auto c = Connection::dial(proxy.address());
  c->send(hello("connect", "k"));
  CHECK_THAT(error_of(*c), Catch::Contains("token"));
  auto remote = Connection::dial(proxy.address());
  json h = hello("register", "k");
  h["token"] = "s3cret";
  remote->send(h);
  CHECK(remote->receive().header["type"] == "registered");
  auto client = Connection::dial(proxy.address());
  json ch = hello("connect", "k");
  ch["token"] = "s3cret";
  client->send(ch);
  CHECK(client->receive().header["type"] == "connected");
}

TEST_CASE("rpc proxy: browsers reach its WebSocket only from the pages it serves", "[rpc]") {
  RpcProcess proxy({"proxy", "--port", "0", "--quiet"});
  const std::string port = std::to_string(proxy.port());
  auto upgrade = [&](const std::string &host, const std::string &origin) {
    std::string body;
    return test::http_get(proxy.port(), "/", body,
                          "Host: " + host + "\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n"
                          "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                          "Origin: " + origin + "\r\n");
  };
  CHECK(upgrade("127.0.0.1:" + port, "http://127.0.0.1:" + port) == 101);
  CHECK(upgrade("localhost:" + port, "http://localhost:" + port) == 101);
  CHECK(upgrade("127.0.0.1:" + port, "http://evil.example") == 403);        // another site
  CHECK(upgrade("evil.example:" + port, "http://evil.example:" + port) == 403);  // a re-bound name
}
