// The RPC client end to end against `tensorir rpc server` (a child process): kernels and
// a small network built here for "llvm", run and timed on the server, each compared with
// the same build run in this process on the same random inputs; and the errors a user
// meets (an unknown function, arrays of another device or session, a closed session).
#include <tensorir/graph/executor.h>
#include <tensorir/rpc.h>
#include <tensorir/tensorir.h>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "rpc/rpc_test_util.h"
#include "rpc_server_process.h"

using namespace tensorir;
using namespace tensorir::rpc_test;
using Catch::Matchers::Contains;

namespace {

// A server and a session with it.
struct Remote {
  ServerProcess server{{"--port", "0"}};
  rpc::Session session = rpc::connect(server.address(), "server");
  Device dev = session.device("llvm");
};

void check_close(const NDArray &got, const NDArray &want) {
  REQUIRE(got.shape() == want.shape());
  rpc_test::check_close(got.to_vector<float>(), want.to_vector<float>());
}

// Runs function `name` of `local` here on `args` (host arrays and scalars) and of its
// copy on the server on copies of them; compares every array argument afterwards.
void run_both(Remote &r, const Module &local, const std::string &name, const std::vector<Arg> &args) {
  Module remote = r.session.load(local);
  std::vector<Arg> here = args, there = args;
  for (size_t i = 0; i < args.size(); ++i)
    if (const NDArray *a = std::get_if<NDArray>(&args[i])) {
      here[i] = a->to(Device::cpu());
      there[i] = a->to(r.dev);
    }
  local(name).call(here);
  remote(name).call(there);
  for (size_t i = 0; i < args.size(); ++i)
    if (std::holds_alternative<NDArray>(args[i])) {
      INFO("argument " << i);
      check_close(std::get<NDArray>(there[i]).to(Device::cpu()), std::get<NDArray>(here[i]));
    }
  // Timed on the server: a figure per repeat, positive and far below a second.
  const TimeResult t = remote.time_evaluator(name, {.number = 3, .repeat = 4}).call(there);
  REQUIRE(t.times_ms.size() == 4);
  for (double ms : t.times_ms) {
    CHECK(ms > 0);
    CHECK(ms < 1000);
  }
  CHECK(t.min_ms <= t.median_ms);
  // Cold, the server overwriting 4 MiB before each call; here too, and a bad size is refused.
  const TimeOptions cold{.number = 2, .repeat = 3, .evict_bytes = 4 << 20};
  for (const Module &m : {remote, local}) {
    const TimeResult c = m.time_evaluator(name, cold).call(m.node() == local.node() ? here : there);
    REQUIRE(c.times_ms.size() == 3);
    CHECK(c.median_ms > 0);
  }
  CHECK_THROWS_WITH(local.time_evaluator(name, {.evict_bytes = -1}).call(here), Contains("evict_bytes"));
}

}  // namespace

TEST_CASE("rpc server: an element-wise kernel of symbolic size with a scalar argument", "[rpc][server]") {
  Remote r;
  Var n("n");
  Var alpha("alpha", Float(32));
  Tensor A = placeholder({n}, Float(32), "A");
  Tensor B = placeholder({n}, Float(32), "B");
  Tensor C = compute({n}, [&](Var i) { return A(i) * alpha + B(i); }, "C");
  Schedule s = create_schedule({C});
  Module local = build(s, {A, B, alpha, C}, "llvm", "axpy");
  for (int64_t size : {1, 1000, 4097}) {
    INFO("n = " << size);
    const NDArray a = NDArray::random({size}, Float(32), 1), b = NDArray::random({size}, Float(32), 2);
    run_both(r, local, "axpy", {a, b, 0.75, NDArray::empty({size}, Float(32))});
  }
  // And against plain loops.
  Module remote = r.session.load(local);
  const NDArray a = NDArray::random({50}, Float(32), 3), b = NDArray::random({50}, Float(32), 4);
  NDArray c = NDArray::empty({50}, Float(32), r.dev);
  remote("axpy")(a.to(r.dev), b.to(r.dev), -2.0, c);
  const std::vector<float> av = a.to_vector<float>(), bv = b.to_vector<float>(), cv = c.to(Device::cpu()).to_vector<float>();
  for (size_t i = 0; i < 50; ++i) CHECK(cv[i] == Approx(av[i] * -2.0f + bv[i]));
}

TEST_CASE("rpc server: a row-sum reduction", "[rpc][server]") {
  Remote r;
  const int R = 64, K = 300;
  Tensor A = placeholder({R, K}, Float(32), "A");
  IterVar k = reduce_axis({0, K}, "k");
  Tensor S = compute({R}, [&](Var i) { return sum(A(i, k), {k}); }, "S");
  Schedule s = create_schedule({S});
  s[S].parallel(S.axis(0));
  Module local = build(s, {A, S}, "llvm", "rowsum");
  run_both(r, local, "rowsum", {NDArray::random({R, K}, Float(32), 5), NDArray::empty({R}, Float(32))});
}

TEST_CASE("rpc server: a tiled, vectorised, parallel matmul", "[rpc][server]") {
  Remote r;
  const int N = 128;
  Tensor A = placeholder({N, N}, Float(32), "A");
  Tensor B = placeholder({N, N}, Float(32), "B");
  IterVar k = reduce_axis({0, N}, "k");
  Tensor C = compute({N, N}, [&](Var i, Var j) { return sum(A(i, k) * B(k, j), {k}); }, "C");
  Schedule s = create_schedule({C});
  auto [io, jo, ii, ji] = s[C].tile(C.axis(0), C.axis(1), 32, 32);
  s[C].vectorize(ji);
  s[C].parallel(io);
  Module local = build(s, {A, B, C}, "llvm", "matmul");
  run_both(r, local, "matmul",
           {NDArray::random({N, N}, Float(32), 6), NDArray::random({N, N}, Float(32), 7), NDArray::empty({N, N}, Float(32))});
}

TEST_CASE("rpc server: a small convolutional network as a saved model", "[rpc][server]") {
  Remote r;
  graph::CompiledModel model = graph::build(small_convnet(16, 8, 10), "llvm");
  rpc::RemoteModel remote = r.session.load(model);
  REQUIRE(remote.inputs().size() == 1);
  CHECK(remote.inputs()[0].name == "image");
  CHECK(remote.inputs()[0].shape == std::vector<int64_t>{1, 3, 16, 16});
  CHECK(remote.inputs()[0].dtype == Float(32));
  REQUIRE(remote.outputs().size() == 1);
  CHECK(remote.outputs()[0].shape == std::vector<int64_t>{1, 10});
  for (uint64_t seed : {21, 22}) {
    const std::map<std::string, NDArray> inputs = {{"image", NDArray::random({1, 3, 16, 16}, Float(32), seed)}};
    const std::map<std::string, NDArray> out = remote.run(inputs);
    REQUIRE(out.count("prob") == 1);
    check_close(out.at("prob"), model.run(inputs)["prob"]);
  }
  const std::map<std::string, NDArray> inputs = {{"image", NDArray::random({1, 3, 16, 16}, Float(32), 23)}};
  const std::vector<rpc::RemoteKernelProfile> kernels = remote.profile(inputs, 2);
  REQUIRE(kernels.size() == model.num_kernels());
  for (const rpc::RemoteKernelProfile &k : kernels) CHECK(k.ms >= 0);
  const TimeResult t = remote.time(inputs, {.number = 2, .repeat = 3});
  REQUIRE(t.times_ms.size() == 3);
  CHECK(t.median_ms > 0);
  CHECK(t.median_ms < 1000);
  CHECK_THROWS_WITH(remote.run({}), Contains("input 'image' is missing"));
  CHECK_THROWS_WITH(remote.run({{"image", NDArray::random({1, 3, 8, 8}, Float(32), 1)}}),
                    Contains("'image' must be float32 of shape [1, 3, 16, 16]"));
  CHECK_THROWS_WITH(remote.run({{"x", NDArray::random({1}, Float(32), 1)}}), Contains("no input 'x'"));
}

TEST_CASE("rpc server: arrays move between sessions and the host", "[rpc][server]") {
  Remote r;
  rpc::Session other = rpc::connect(r.server.address(), "server");
  const NDArray a = NDArray::random({3, 7}, Int(32), 8, -1000, 1000);
  NDArray there = a.to(r.dev).to(other.device("llvm"));
  CHECK(there.device() == other.device("llvm"));
  CHECK(there.to(Device::cpu()).to_vector<int32_t>() == a.to_vector<int32_t>());
  // An array larger than a frame goes in parts.
  rpc::Session small = rpc::connect(r.server.address(), "server", {.timeout_ms = 1000, .token = "", .max_frame_bytes = 1 << 20});
  const NDArray big = NDArray::random({1000, 1000}, Float(32), 9);
  CHECK(big.to(small.device("llvm")).to(Device::cpu()).to_vector<float>() == big.to_vector<float>());
}

TEST_CASE("rpc server: the errors of unknown functions, foreign arrays and closed sessions", "[rpc][server][error]") {
  Remote r;
  rpc::Session other = rpc::connect(r.server.address(), "server");
  Module m = r.session.load(build_add(16));
  NDArray a = NDArray::random({16}, Float(32), 9).to(r.dev), c = NDArray::empty({16}, Float(32), r.dev);
  NDArray foreign = NDArray::empty({16}, Float(32), other.device("llvm"));
  CHECK_THROWS_WITH(m("sub"), Contains("sub") && Contains("add"));
  CHECK_THROWS_WITH(m("add")(a, a, foreign), Contains("argument C is on device 'llvm' of remote 'server'") &&
                                                 Contains("RPC session"));
  CHECK_THROWS_WITH(m("add")(a, NDArray::empty({16}, Float(32)), c), Contains("argument B is on cpu(0)"));
  CHECK_THROWS_WITH(r.session.device("webgl"), Contains("no device 'webgl'") && Contains("llvm"));
  CHECK_THROWS_WITH(r.session.load(build_add(16, "wasm")), Contains("no device 'wasm'"));
  m("add")(a, a, c);  // the session goes on after every error
  r.session.close();
  CHECK_THROWS_WITH(m("add")(a, a, c), Contains("the RPC session with remote 'server'") && Contains("is closed"));
  CHECK_THROWS_WITH(a.to(Device::cpu()), Contains("is closed"));
  CHECK_THROWS_WITH(NDArray::empty({1}, Float(32), r.dev), Contains("is closed"));
  CHECK_THROWS_WITH(r.session.load(build_add(16)), Contains("is closed"));
  // The other session on the same server is untouched, and frees on the server what goes here.
  const auto live = [&] { return nlohmann::json::parse(other.info_json())["live"]; };
  CHECK(live()["arrays"] == 1);
  Module on_other = other.load(build_add(16));
  CHECK(live()["modules"] == 1);
  on_other = Module();
  NDArray more = foreign.to(other.device("llvm"));
  CHECK(live() == nlohmann::json{{"arrays", 2}, {"modules", 0}, {"models", 0}});
  more = NDArray();
  CHECK(live()["arrays"] == 1);
  CHECK(foreign.to(Device::cpu()).to_vector<float>() == std::vector<float>(16, 0.0f));
}
