// `tensorir rpc server` as a process, spoken to with raw frames over WebSocket: the
// handshake, a module run over the connection, and each way a connection ends (version,
// token, key, malformed and oversized frames), after which the server still serves.
#include <tensorir/rpc.h>
#include <tensorir/tensorir.h>

#include <catch2/catch.hpp>
#include <cstring>

#include "rpc/connection.h"
#include "rpc_server_process.h"
#include "rpc_server_test_util.h"

using namespace tensorir;
using namespace tensorir::rpc_test;
using Catch::Contains;

namespace {

nlohmann::json hello(const std::string &key = "server", int v = rpc::kProtocolVersion, const std::string &token = "") {
  return {{"type", "connect"}, {"v", v}, {"key", key}, {"token", token}, {"timeout_ms", 1000}};
}

// A connection past its handshake.
std::unique_ptr<rpc::Connection> session(const ServerProcess &server, uint64_t max_frame = rpc::kDefaultMaxFrameBytes) {
  std::unique_ptr<rpc::Connection> c = rpc::Connection::dial(server.address(), max_frame);
  c->send(hello());
  const rpc::Frame f = c->receive();
  INFO(f.header.dump());
  REQUIRE(f.header["type"] == "connected");
  CHECK(f.header["info"]["remote"] == "server");
  CHECK(f.header["info"]["devices"][0]["name"] == "llvm");
  return c;
}

nlohmann::json ask(rpc::Connection &c, const rpc::Frame &f, std::string *payload = nullptr) {
  c.send(f.header, f.payload);
  rpc::Frame a = c.receive();
  if (payload) *payload = a.payload;
  return a.header;
}

// The error a connection ends with, after which the server closes it.
std::string last_error(rpc::Connection &c) {
  const rpc::Frame f = c.receive();
  INFO(f.header.dump());
  CHECK(f.header["type"] == "error");
  CHECK_THROWS(c.receive());
  return f.header.value("message", "");
}

// The server still answers a new connection.
void still_serves(const ServerProcess &server) {
  auto c = session(server);
  CHECK(ask(*c, request(1, "info"))["type"] == "reply");
}

}  // namespace

TEST_CASE("rpc server process: a module runs over the connection", "[rpc][server][process]") {
  ServerProcess server({"--port", "0"});
  auto c = session(server);
  Var n("n");
  Tensor A = placeholder({n}, Float(32), "A");
  Tensor B = compute({n}, [&](Var i) { return A(i) * A(i); }, "B");
  const Module m = build(create_schedule({B}), {A, B}, "llvm", "square");
  REQUIRE(ask(*c, load_module_request(1, 1, m))["type"] == "reply");
  const NDArray a = NDArray::random({64}, Float(32), 5);
  std::string bytes(256, '\0');
  a.copy_to_bytes(bytes.data(), bytes.size());
  CHECK(ask(*c, request(2, "alloc", {{"handle", 1}, {"device", "llvm"}, {"nbytes", 256}}))["type"] == "reply");
  CHECK(ask(*c, request(3, "alloc", {{"handle", 2}, {"device", "llvm"}, {"nbytes", 256}}))["type"] == "reply");
  CHECK(ask(*c, request(4, "write", {{"handle", 1}, {"offset", 0}}, bytes))["type"] == "reply");
  const nlohmann::json args = {buffer_arg(1, {64}, "float32"), buffer_arg(2, {64}, "float32")};
  CHECK(ask(*c, request(5, "call", {{"module", 1}, {"function", "square"}, {"args", args}}))["type"] == "reply");
  std::string got;
  CHECK(ask(*c, request(6, "read", {{"handle", 2}, {"offset", 0}, {"nbytes", 256}}), &got)["type"] == "reply");
  REQUIRE(got.size() == 256);
  std::vector<float> out(64);
  std::memcpy(out.data(), got.data(), 256);
  const std::vector<float> in = a.to_vector<float>();
  for (size_t i = 0; i < 64; ++i) CHECK(out[i] == Approx(in[i] * in[i]));

  // Unknown ops and functions are answered, and the session goes on.
  const nlohmann::json unknown_op = ask(*c, request(7, "fly"));
  CHECK(unknown_op["type"] == "error");
  CHECK(unknown_op["id"] == 7);
  CHECK_THAT(unknown_op["message"].get<std::string>(), Contains("unknown op 'fly'"));
  const nlohmann::json unknown_fn = ask(*c, request(8, "call", {{"module", 1}, {"function", "cube"}, {"args", args}}));
  CHECK(unknown_fn["type"] == "error");
  CHECK_THAT(unknown_fn["message"].get<std::string>(), Contains("module 1 has no function 'cube'; it has: square"));
  CHECK(ask(*c, request(9, "info"))["type"] == "reply");
  still_serves(server);

  // close frees everything the session made; the connection serves a new session.
  CHECK(ask(*c, request(10, "info"))["info"]["live"] == nlohmann::json({{"arrays", 2}, {"modules", 1}, {"models", 0}}));
  c->send({{"type", "close"}});
  CHECK(c->receive().header["type"] == "closed");
  CHECK(ask(*c, request(11, "info"))["info"]["live"] == nlohmann::json({{"arrays", 0}, {"modules", 0}, {"models", 0}}));
  CHECK(server.stop() == 0);
}

TEST_CASE("rpc server process: a bad handshake or frame ends only its connection", "[rpc][server][process][error]") {
  ServerProcess server({"--port", "0", "--max-frame-mb", "1"});
  SECTION("version mismatch") {
    auto c = rpc::Connection::dial(server.address());
    c->send(hello("server", 1));
    CHECK_THAT(last_error(*c), Contains("protocol version 1 is not spoken here") && Contains("version 2"));
  }
  SECTION("wrong key") {
    auto c = rpc::Connection::dial(server.address());
    c->send(hello("browser"));
    CHECK_THAT(last_error(*c), Contains("this server serves the key 'server', not \"browser\""));
  }
  SECTION("a first frame that is not connect") {
    auto c = rpc::Connection::dial(server.address());
    c->send(request(1, "info").header);
    CHECK_THAT(last_error(*c), Contains("the first frame to a server must be \"connect\""));
  }
  SECTION("malformed frame") {
    auto c = session(server);
    c->send_message("TRPX not a frame");
    CHECK_THAT(last_error(*c), Contains("does not start with \"TRPC\""));
  }
  SECTION("a header that is not JSON") {
    auto c = session(server);
    c->send_message(std::string("TRPC\x05\x00\x00\x00{oops", 13));
    CHECK_THAT(last_error(*c), Contains("not a JSON object"));
  }
  SECTION("a header nested too deep to copy or print") {
    auto c = rpc::Connection::dial(server.address());
    c->send_message(rpc_test::raw_frame("{\"type\":\"connect\",\"v\":2,\"key\":" + rpc_test::nested_arrays(100000) + "}"));
    CHECK_THAT(last_error(*c), Contains("nested more than 64 levels deep"));
  }
  SECTION("oversized frame") {
    auto c = session(server);
    const rpc::Frame big = request(1, "write", {{"handle", 1}, {"offset", 0}}, std::string(4 << 20, 'x'));
    c->send(big.header, big.payload);
    CHECK_THAT(last_error(*c), Contains("larger than 1048576 bytes"));
  }
  still_serves(server);
  CHECK(server.stop(SIGINT) == 0);
}

TEST_CASE("rpc server process: a token is required off loopback and checked", "[rpc][server][process][error]") {
  std::string err;
  CHECK(test::run_rpc_command({"server", "--host", "0.0.0.0", "--port", "0"}, err) == 1);
  CHECK_THAT(err, Contains("can be reached from other machines") && Contains("--token"));
  ServerProcess server({"--port", "0", "--token", "s3cret"});
  auto bad = rpc::Connection::dial(server.address());
  bad->send(hello("server", rpc::kProtocolVersion, "guess"));
  CHECK_THAT(last_error(*bad), Contains("wrong or missing token"));
  auto good = rpc::Connection::dial(server.address());
  good->send(hello("server", rpc::kProtocolVersion, "s3cret"));
  CHECK(good->receive().header["type"] == "connected");
}
