// The RPC client against a remote written in the test (fake_remote.h): what it sends for
// each call of the API, and how it meets errors, a remote that goes away and a closed
// session.
#include <tensorir/graph/executor.h>
#include <tensorir/graph/graph.h>
#include <tensorir/rpc.h>
#include <tensorir/tensorir.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <thread>

#include "rpc/fake_remote.h"
#include "rpc/rpc_test_util.h"

using namespace tensorir;
using namespace tensorir::rpc_test;
using Catch::Matchers::Contains;

namespace {

std::vector<float> plus(const std::vector<float> &a, const std::vector<float> &b) {
  std::vector<float> c(a.size());
  for (size_t i = 0; i < a.size(); ++i) c[i] = a[i] + b[i];
  return c;
}

// Answers everything as the store does, except op `op`, which gets `answer`.
FakeRemote::Handler answering(const std::string &op, std::function<bool(Connection &, const Frame &)> answer) {
  return [op, answer](Connection &c, const Frame &f, Store &store) {
    if (f.header.value("op", "") == op) return answer(c, f);
    return FakeRemote::serve_store(c, f, store);
  };
}

}  // namespace

TEST_CASE("rpc::connect sends the key, token and timeout and lists the remote's devices", "[rpc]") {
  FakeRemote remote;
  rpc::Session s = rpc::connect(remote.address(), "native", {.timeout_ms = 1234, .token = "secret"});
  const json hello = remote.frames().at(0);
  CHECK(hello["type"] == "connect");
  CHECK(hello["v"] == rpc::kProtocolVersion);
  CHECK(hello["key"] == "native");
  CHECK(hello["token"] == "secret");
  CHECK(hello["timeout_ms"] == 1234);
  CHECK(s.key() == "native");
  REQUIRE(s.devices().size() == 2);
  CHECK(s.devices()[0].name == "llvm");
  CHECK(s.devices()[0].attrs.at("cpu") == "test");
  CHECK(s.devices()[1].attrs.at("threads") == "1");
  CHECK(json::parse(s.info_json())["remote"] == "fake");  // asked now, not the handshake's
  CHECK(s.device("llvm").is(Device::Remote));
  CHECK(s.device("llvm") != s.device("wasm"));
  CHECK_THROWS_WITH(s.device("webgl"), Contains("no device 'webgl'") && Contains("llvm, wasm"));
}

TEST_CASE("arrays go to the remote and back, and are freed there when they go", "[rpc]") {
  FakeRemote remote;
  rpc::Session s = rpc::connect(remote.address(), "native");
  const NDArray host = NDArray::random({3, 5}, Float(32), 7);
  int64_t handle = 0;
  {
    NDArray there = host.to(s.device("llvm"));
    CHECK(there.device() == s.device("llvm"));
    CHECK(there.to(Device::cpu()).to_vector<float>() == host.to_vector<float>());
    // Another remote device of the session, through this process.
    NDArray moved = there.to(s.device("wasm"));
    CHECK(moved.to(Device::cpu()).to_vector<float>() == host.to_vector<float>());
    const json alloc = remote.requests("alloc").at(0);
    handle = alloc["handle"].get<int64_t>();
    CHECK(alloc["device"] == "llvm");
    CHECK(alloc["nbytes"] == 60);
    const json write = remote.requests("write").at(0);
    CHECK(write["handle"] == handle);
    CHECK(write["payload_bytes"] == 60);
  }
  NDArray::empty({1}, Float(32), s.device("llvm")).to(Device::cpu());  // a round trip after the frees
  std::vector<int64_t> freed;
  for (const json &f : remote.requests("free")) freed.push_back(f["handles"].at(0).get<int64_t>());
  CHECK(std::find(freed.begin(), freed.end(), handle) != freed.end());
  CHECK(freed.size() >= 2);  // `there` and `moved`; frees are never answered
}

TEST_CASE("large arrays travel in parts that fit the frame limit", "[rpc]") {
  FakeRemote remote;
  rpc::Session s = rpc::connect(remote.address(), "native", {.timeout_ms = 1000, .token = "", .max_frame_bytes = 200 << 10});
  const NDArray host = NDArray::random({300000}, Float(32), 5);  // 1.2 MB
  NDArray there = host.to(s.device("llvm"));
  CHECK(there.to(Device::cpu()).to_vector<float>() == host.to_vector<float>());
  const std::vector<json> writes = remote.requests("write"), reads = remote.requests("read");
  CHECK(writes.size() > 5);
  REQUIRE(writes.size() == reads.size());
  size_t offset = 0;
  for (size_t i = 0; i < writes.size(); ++i) {
    CHECK(writes[i]["offset"] == offset);
    CHECK(reads[i]["offset"] == offset);
    CHECK(reads[i]["nbytes"] == writes[i]["payload_bytes"]);
    CHECK(writes[i]["payload_bytes"].get<size_t>() < (200 << 10));
    offset += writes[i]["payload_bytes"].get<size_t>();
  }
  CHECK(offset == host.nbytes());
}

TEST_CASE("threads share a session: one request at a time, each answer to its own", "[rpc]") {
  FakeRemote remote;
  rpc::Session s = rpc::connect(remote.address(), "native");
  Module m = s.load(build_add(256));
  const Device dev = s.device("llvm");
  std::vector<std::thread> threads;
  std::atomic<int> wrong{0};
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 20; ++i) {
        const NDArray a = NDArray::random({256}, Float(32), uint64_t(100 * t + i)), b = NDArray::random({256}, Float(32), 7);
        NDArray c = NDArray::empty({256}, Float(32), dev);
        m("add")(a.to(dev), b.to(dev), c);
        if (c.to(Device::cpu()).to_vector<float>() != plus(a.to_vector<float>(), b.to_vector<float>())) ++wrong;
      }
    });
  for (std::thread &t : threads) t.join();
  CHECK(wrong == 0);
  CHECK(remote.requests("call").size() == 80);
}

TEST_CASE("request ids count up from 1, one request at a time", "[rpc]") {
  FakeRemote remote;
  rpc::Session s = rpc::connect(remote.address(), "native");
  NDArray a = NDArray::random({4}, Float(32), 1).to(s.device("llvm"));
  a.to(Device::cpu());
  int64_t expected = 1;
  for (const json &f : remote.frames()) {
    if (f["type"] != "request") continue;
    CHECK(f["id"] == expected);
    ++expected;
  }
  CHECK(expected == 4);  // alloc, write, read
}

TEST_CASE("a module loaded on the remote runs there and is timed there", "[rpc]") {
  FakeRemote remote;
  rpc::Session s = rpc::connect(remote.address(), "native");
  const Device dev = s.device("llvm");
  Module local = build_add(1000);
  Module m = s.load(local);
  const json load = remote.requests("load_module").at(0);
  CHECK(load["format"] == "so");
  CHECK(load["payload_bytes"].get<size_t>() > 1000);
  CHECK(load["functions"][0]["name"] == "add");
  CHECK(load["functions"][0]["args"].size() == 3);
  CHECK(load["functions"][0]["args"][0]["dtype"] == "float32");
  CHECK(load["functions"][0]["args"][0]["shape"][0]["offset"] == 1000);
  CHECK(m.function_names() == local.function_names());
  CHECK(m("add").signature().device == Device::Remote);
  CHECK(m.source("ll") == local.source("ll"));

  const NDArray a = NDArray::random({1000}, Float(32), 1), b = NDArray::random({1000}, Float(32), 2);
  NDArray ra = a.to(dev), rb = b.to(dev), rc = NDArray::empty({1000}, Float(32), dev);
  m("add")(ra, rb, rc);
  CHECK(rc.to(Device::cpu()).to_vector<float>() == plus(a.to_vector<float>(), b.to_vector<float>()));
  const json call = remote.requests("call").at(0);
  CHECK(call["module"] == load["module"]);
  CHECK(call["function"] == "add");
  CHECK(call["args"][2]["shape"] == json::array({1000}));
  CHECK(call["args"][2]["dtype"] == "float32");

  const TimeResult t = m.time_evaluator("add", {.number = 5, .repeat = 3})(ra, rb, rc);
  CHECK(t.times_ms == std::vector<double>{1, 2, 3});
  CHECK(t.median_ms == 2);
  const json time = remote.requests("time").at(0);
  CHECK(time["number"] == 5);
  CHECK(time["repeat"] == 3);

  const json module = load["module"];
  m = Module();
  NDArray::empty({1}, Float(32), dev).to(Device::cpu());  // the free_module has arrived
  REQUIRE(remote.requests("free_module").size() == 1);
  CHECK(remote.requests("free_module")[0]["module"] == module);
}

TEST_CASE("a call checks that its arrays are on the module's device of its session", "[rpc][error]") {
  FakeRemote remote, other;
  rpc::Session s = rpc::connect(remote.address(), "native");
  rpc::Session t = rpc::connect(other.address(), "other");
  Module m = s.load(build_add(8));
  NDArray a = NDArray::empty({8}, Float(32), s.device("llvm")), c = NDArray::empty({8}, Float(32), s.device("llvm"));
  NDArray on_wasm = NDArray::empty({8}, Float(32), s.device("wasm"));
  NDArray elsewhere = NDArray::empty({8}, Float(32), t.device("llvm"));
  NDArray host = NDArray::empty({8}, Float(32));
  CHECK_THROWS_WITH(m("add")(a, on_wasm, c), Contains("argument B is on device 'wasm' of remote 'native'") &&
                                                 Contains("runs on device 'llvm' of remote 'native'"));
  CHECK_THROWS_WITH(m("add")(a, a, elsewhere), Contains("device 'llvm' of remote 'other'"));
  CHECK_THROWS_WITH(m("add")(host, a, a), Contains("argument A is on cpu(0)"));
  CHECK_THROWS_WITH(m("nope"), Contains("add"));
  CHECK(remote.requests("call").empty());
}

TEST_CASE("an error answer throws with the remote's key and the session goes on", "[rpc][error]") {
  FakeRemote remote(FakeRemote::default_info(), answering("call", [](Connection &c, const Frame &f) {
                      c.send({{"type", "error"}, {"id", f.header["id"]}, {"message", "wasm trap: out of bounds"}});
                      return true;
                    }));
  rpc::Session s = rpc::connect(remote.address(), "native");
  Module m = s.load(build_add(4));
  NDArray a = NDArray::random({4}, Float(32), 3).to(s.device("llvm")), c = NDArray::empty({4}, Float(32), s.device("llvm"));
  CHECK_THROWS_WITH(m("add")(a, a, c), Contains("remote 'native': wasm trap: out of bounds"));
  CHECK(a.to(Device::cpu()).to_vector<float>() == NDArray::random({4}, Float(32), 3).to_vector<float>());
}

TEST_CASE("a remote that goes away closes the session, and everything of it throws", "[rpc][error]") {
  SECTION("the proxy says so: an error of id null") {
    FakeRemote remote(FakeRemote::default_info(), answering("call", [](Connection &c, const Frame &) {
                        c.send({{"type", "error"}, {"id", nullptr}, {"message", "the remote 'native' closed"}});
                        return false;
                      }));
    rpc::Session s = rpc::connect(remote.address(), "native");
    Module m = s.load(build_add(4));
    NDArray a = NDArray::empty({4}, Float(32), s.device("llvm")), c = NDArray::empty({4}, Float(32), s.device("llvm"));
    CHECK_THROWS_WITH(m("add")(a, a, c), Contains("remote 'native': the remote 'native' closed"));
    CHECK_THROWS_WITH(a.to(Device::cpu()), Contains("the RPC session with remote 'native'") && Contains("is closed"));
    CHECK_THROWS_WITH(m("add")(a, a, c), Contains("is closed"));
    CHECK_THROWS_WITH(s.device("llvm"), Contains("is closed"));
    CHECK_THROWS_WITH(s.load(build_add(4)), Contains("is closed"));
  }
  SECTION("the connection closes mid-request") {
    FakeRemote remote(FakeRemote::default_info(), answering("read", [](Connection &, const Frame &) { return false; }));
    rpc::Session s = rpc::connect(remote.address(), "native");
    NDArray a = NDArray::empty({4}, Float(32), s.device("llvm"));
    CHECK_THROWS_WITH(a.to(Device::cpu()), Contains("remote 'native'") && Contains("during 'read'"));
    CHECK_THROWS_WITH(NDArray::empty({4}, Float(32), s.device("llvm")), Contains("is closed"));
  }
  SECTION("a reply out of order breaks the protocol") {
    FakeRemote remote(FakeRemote::default_info(), answering("read", [](Connection &c, const Frame &f) {
                        c.send({{"type", "reply"}, {"id", f.header["id"].get<int64_t>() + 7}});
                        return true;
                      }));
    rpc::Session s = rpc::connect(remote.address(), "native");
    NDArray a = NDArray::empty({4}, Float(32), s.device("llvm"));
    CHECK_THROWS_WITH(a.to(Device::cpu()), Contains("breaks the protocol"));
    CHECK_THROWS_WITH(a.to(Device::cpu()), Contains("is closed"));
  }
}

TEST_CASE("Session::close and the last handle going close the connection", "[rpc]") {
  FakeRemote remote;
  SECTION("close") {
    rpc::Session s = rpc::connect(remote.address(), "native");
    Module m = s.load(build_add(4));
    NDArray a = NDArray::empty({4}, Float(32), s.device("llvm")), c = NDArray::empty({4}, Float(32), s.device("llvm"));
    rpc::Session copy = s;
    copy.close();
    CHECK(remote.wait_closed());
    CHECK_THROWS_WITH(a.to(Device::cpu()), Contains("is closed (closed by Session::close)"));
    CHECK_THROWS_WITH(m("add")(a, a, c), Contains("is closed"));
    CHECK_THROWS_WITH(s.info_json(), Contains("is closed"));
    const size_t frames = remote.frames().size();
    a = NDArray();  // frees nothing on a closed session
    m = Module();
    CHECK(remote.frames().size() == frames);
  }
  SECTION("the last handle") {
    NDArray a, c;
    Module m;
    {
      rpc::Session s = rpc::connect(remote.address(), "native");
      m = s.load(build_add(4));
      a = NDArray::empty({4}, Float(32), s.device("llvm"));
      c = NDArray::empty({4}, Float(32), s.device("llvm"));
    }
    m("add")(a, a, c);  // a module holds the session open
    m = Module();
    CHECK(remote.wait_closed());
    CHECK_THROWS_WITH(a.to(Device::cpu()), Contains("the RPC session with remote 'native'") &&
                                               Contains("is closed (its last handle went)"));
  }
}

TEST_CASE("rpc::connect says what went wrong, naming the address and key", "[rpc][error]") {
  SECTION("no remote of the key") {
    FakeRemote remote;
    remote.refuse("no remote of key 'browser' became free in 100 ms");
    CHECK_THROWS_WITH(rpc::connect(remote.address(), "browser", {.timeout_ms = 100, .token = ""}),
                      Contains(remote.address()) && Contains("key 'browser'") &&
                          Contains("no remote of key 'browser' became free") &&
                          Contains("http://" + remote.address() + "/rpc.html?key=browser"));
  }
  SECTION("nothing listening") {
    int port = 0;
    {
      rpc::Listener l("127.0.0.1", 0);
      port = l.port();
    }
    CHECK_THROWS_WITH(rpc::connect("127.0.0.1:" + std::to_string(port), "native"),
                      Contains("cannot connect to 127.0.0.1:" + std::to_string(port)));
  }
  SECTION("bad arguments") {
    CHECK_THROWS_WITH(rpc::connect("localhost", "native"), Contains("has no port"));
    CHECK_THROWS_WITH(rpc::connect("127.0.0.1:1", ""), Contains("key is empty"));
    CHECK_THROWS_WITH(rpc::Session().device("llvm"), Contains("not connected"));
  }
  SECTION("a peer that is no remote") {
    FakeRemote remote(json{{"devices", "none"}});
    CHECK_THROWS_WITH(rpc::connect(remote.address(), "native"), Contains("\"devices\""));
  }
}

namespace {
// A module of a backend RPC does not carry.
struct LocalOnlyModule final : ModuleNode {
  std::vector<FuncSignature> sigs;
  const std::vector<FuncSignature> &signatures() const override { return sigs; }
  void invoke(size_t, const std::vector<ArgValue> &, const std::vector<NDArray> &) const override {}
  std::string source(const std::string &) const override { return ""; }
  std::string backend() const override { return "opengl -mode=fragment"; }
};
}  // namespace

TEST_CASE("Session::load refuses modules it cannot send and devices the remote lacks", "[rpc][error]") {
  FakeRemote remote(json{{"devices", {{{"name", "wasm"}}}}});
  rpc::Session s = rpc::connect(remote.address(), "page");
  CHECK_THROWS_WITH(s.load(Module(Ref<const ModuleNode>(new LocalOnlyModule))),
                    Contains("'opengl -mode=fragment' backend cannot be sent") && Contains("\"webgl\""));
  CHECK_THROWS_WITH(s.load(build_add(4)), Contains("remote 'page'") && Contains("no device 'llvm'") &&
                                              Contains("its devices are: wasm"));
  CHECK_THROWS_WITH(s.load(Module()), Contains("undefined"));
}

TEST_CASE("a model goes up as the files of a saved model, and a malformed answer is an error", "[rpc][error]") {
  const json io = {{{"name", "x"}, {"shape", {1, 4}}, {"dtype", "float32"}}};
  FakeRemote remote(FakeRemote::default_info(), [io](Connection &c, const Frame &f, Store &store) {
    const std::string op = f.header.value("op", "");
    if (op == "load_model") FakeRemote::reply(c, f.header, {{"inputs", io}, {"outputs", io}});
    else if (op == "run_model")  // 8 bytes for an output of 16
      FakeRemote::reply(c, f.header, {{"outputs", {{{"name", "x"}, {"shape", {1, 4}}, {"dtype", "float32"}, {"bytes", 8}}}}},
                        std::string(8, '\0'));
    else if (op == "time_model")  // one time for two repeats, then an absurd one
      FakeRemote::reply(c, f.header, {{"times_ms", f.header.value("repeat", 0) == 2 ? json{1.5} : json{1.5, 1e308, 2.0}}});
    else return FakeRemote::serve_store(c, f, store);
    return true;
  });
  rpc::Session s = rpc::connect(remote.address(), "native");
  graph::Builder b;
  graph::CompiledModel model = graph::build(b.finish(b.relu(b.input("x", {1, 4}), "y")), "llvm");
  rpc::RemoteModel m = s.load(model);
  const json load = remote.requests("load_model").at(0);
  CHECK(load["format"] == "saved-model");
  size_t total = 0;
  std::vector<std::string> names;
  for (const json &f : load["files"]) {
    names.push_back(f["name"]);
    total += f["bytes"].get<size_t>();
  }
  CHECK(std::find(names.begin(), names.end(), "model.json") != names.end());
  CHECK(std::find(names.begin(), names.end(), "model.so") != names.end());
  CHECK(load["payload_bytes"] == total);
  REQUIRE(m.inputs().size() == 1);
  CHECK(m.inputs()[0].shape == std::vector<int64_t>{1, 4});

  const std::map<std::string, NDArray> inputs = {{"x", NDArray::random({1, 4}, Float(32), 1)}};
  CHECK_THROWS_WITH(m.run(inputs), Contains("answered run_model with 8 bytes for the output 'x'"));
  const json run = remote.requests("run_model").at(0);
  CHECK(run["inputs"] == json::array({{{"name", "x"}, {"bytes", 16}}}));
  CHECK(run["payload_bytes"] == 16);
  CHECK_THROWS_WITH(m.time(inputs, {.number = 1, .repeat = 2}), Contains("1 \"times_ms\" for 2 repeats"));
  CHECK_THROWS_WITH(m.time(inputs, {.number = 1, .repeat = 3}), Contains("answered with a time of 1e+308 ms"));
  CHECK_THROWS_WITH(rpc::RemoteModel().run(inputs), Contains("undefined RemoteModel"));
}
