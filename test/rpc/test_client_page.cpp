// The RPC client end to end through `tensorir rpc proxy` to the RPC page in headless
// Chromium: "wasm" and "webgl" modules and web packages built here, run and timed in the
// page, each compared with the same computation built for "llvm" and run in this process.
#include <tensorir/graph/executor.h>
#include <tensorir/rpc.h>
#include <tensorir/tensorir.h>

#include <catch2/catch.hpp>

#include "rpc/page_session.h"
#include "rpc/rpc_test_util.h"

using namespace tensorir;
using namespace tensorir::rpc_test;
using Catch::Matchers::Contains;

namespace {

// A row sum with a bias, as function "rowsum" built for `target`.
Module rowsum(const std::string &target, int R, int K) {
  Tensor A = placeholder({R, K}, Float(32), "A");
  Tensor b = placeholder({R}, Float(32), "b");
  IterVar k = reduce_axis({0, K}, "k");
  Tensor S = compute({R}, [&](Var i) { return sum(A(i, k), {k}); }, "S");
  Tensor O = compute({R}, [&](Var i) { return S(i) + b(i); }, "O");
  return build(create_schedule({O}), {A, b, O}, target, "rowsum");
}

}  // namespace

TEST_CASE("rpc page: wasm and webgl modules run and are timed in the browser", "[rpc][page]") {
  PageSession p;
  const int R = 33, K = 70;
  const NDArray a = NDArray::random({R, K}, Float(32), 41), b = NDArray::random({R}, Float(32), 42);
  NDArray want = NDArray::empty({R}, Float(32));
  rowsum("llvm", R, K)("rowsum")(a, b, want);
  for (const std::string target : {"wasm", "webgl"}) {
    INFO("target " << target);
    const Device dev = p.session.device(target);
    Module m = p.session.load(rowsum(target, R, K));
    NDArray out = NDArray::empty({R}, Float(32), dev);
    m("rowsum")(a.to(dev), b.to(dev), out);
    check_close(out.to(Device::cpu()).to_vector<float>(), want.to_vector<float>(), 1e-5);
    // A repeat of at least 1 ms: two calls of so small a kernel can fall inside one tick of
    // the page's clock, and time 0.
    const TimeResult t =
        m.time_evaluator("rowsum", {.number = 2, .repeat = 3, .min_repeat_ms = 1})(a.to(dev), b.to(dev), out);
    REQUIRE(t.times_ms.size() == 3);
    CHECK(t.median_ms > 0);
    // Cold: the page overwrites 4 MiB of its memory before each call, and times each
    // alone (a call of this kernel may fall within one tick of the page's clock).
    const TimeResult cold = m.time_evaluator("rowsum", {.number = 4, .repeat = 3, .evict_bytes = 4 << 20})(
        a.to(dev), b.to(dev), out);
    REQUIRE(cold.times_ms.size() == 3);
    CHECK(cold.min_ms >= 0);
  }
  // A module of one device takes no arrays of the other.
  Module on_wasm = p.session.load(build_add(4, "wasm"));
  NDArray gl = NDArray::empty({4}, Float(32), p.session.device("webgl"));
  NDArray gl_out = NDArray::empty({4}, Float(32), p.session.device("webgl"));
  CHECK_THROWS_WITH(on_wasm("add")(gl, gl, gl_out), Contains("device 'webgl' of remote 'browser'") &&
                                                    Contains("runs on device 'wasm' of remote 'browser'"));
}

TEST_CASE("rpc page: a small network as a web package, on wasm and webgl", "[rpc][page]") {
  PageSession p;
  const std::map<std::string, NDArray> inputs = {{"image", NDArray::random({1, 3, 12, 12}, Float(32), 43)}};
  const std::vector<float> want = graph::build(small_convnet(12, 4, 6), "llvm").run(inputs).to_vector<float>();
  for (const std::string target : {"wasm", "webgl"}) {
    INFO("target " << target);
    rpc::RemoteModel m = p.session.load(graph::build(small_convnet(12, 4, 6), target));
    REQUIRE(m.outputs().size() == 1);
    const std::map<std::string, NDArray> out = m.run(inputs);
    REQUIRE(out.count("prob") == 1);
    check_close(out.at("prob").to_vector<float>(), want, target == "webgl" ? 1e-4 : 1e-5);
    CHECK(m.time(inputs, {.number = 1, .repeat = 2}).times_ms.size() == 2);
    CHECK_FALSE(m.profile(inputs).empty());
  }
}
