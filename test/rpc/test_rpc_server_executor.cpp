// The server's executor driven with frames directly (no socket): arrays, an "llvm" module
// sent as the shared library Module::save writes and run against the same module run
// here and a plain loop, a saved model against CompiledModel::run, and each error.
#include <tensorir/graph/executor.h>
#include <tensorir/tensorir.h>

#include <catch2/catch.hpp>
#include <cstring>
#include <filesystem>

#include "rpc/server/executor.h"
#include "rpc_server_test_util.h"
#include "runtime/cpu_features.h"

using namespace tensorir;
using namespace tensorir::rpc_test;
using Catch::Contains;
namespace fs = std::filesystem;

namespace {

// B = A * alpha + 1 over a symbolic n x 4, alpha a float scalar.
Module scale_module() {
  Var n("n"), alpha("alpha", Float(32));
  Tensor A = placeholder({n, 4}, Float(32), "A");
  Tensor B = compute({n, 4}, [&](Var i, Var j) { return A(i, j) * alpha + 1.0f; }, "B");
  return build(create_schedule({B}), {A, alpha, B}, "llvm", "scale");
}

int64_t live(rpc::server::Executor &ex, const char *what) {
  return ok(ex, request(99, "info"))["info"]["live"][what].get<int64_t>();
}

}  // namespace

TEST_CASE("rpc server: arrays are written, read and freed by handle", "[rpc][server]") {
  rpc::server::Executor ex = make_executor();
  const nlohmann::json info = ok(ex, request(1, "info"))["info"];
  CHECK(info["remote"] == "server");
  CHECK(info["devices"][0]["name"] == "llvm");
  ok(ex, request(2, "alloc", {{"handle", 7}, {"device", "llvm"}, {"nbytes", 16}}));
  ok(ex, request(3, "write", {{"handle", 7}, {"offset", 4}}, "abcdefgh"));
  std::string got;
  ok(ex, request(4, "read", {{"handle", 7}, {"offset", 0}, {"nbytes", 16}}), &got);
  CHECK(got == std::string(4, '\0') + "abcdefgh" + std::string(4, '\0'));
  ok(ex, request(5, "read", {{"handle", 7}, {"offset", 6}, {"nbytes", 3}}), &got);
  CHECK(got == "cde");
  CHECK(live(ex, "arrays") == 1);
  CHECK_FALSE(ex.handle(request(6, "free", {{"handles", {7}}})).has_value());
  CHECK(live(ex, "arrays") == 0);
}

TEST_CASE("rpc server: array errors name the handle and the fix", "[rpc][server][error]") {
  rpc::server::Executor ex = make_executor();
  ok(ex, request(1, "alloc", {{"handle", 1}, {"device", "llvm"}, {"nbytes", 8}}));
  CHECK_THAT(error_of(ex, request(2, "alloc", {{"handle", 1}, {"device", "llvm"}, {"nbytes", 8}})),
             Contains("array 1 is already in use") && Contains("choose a new handle"));
  CHECK_THAT(error_of(ex, request(3, "alloc", {{"handle", 2}, {"device", "webgl"}, {"nbytes", 8}})),
             Contains("no device 'webgl'") && Contains("it has: llvm"));
  CHECK_THAT(error_of(ex, request(4, "alloc", {{"handle", 2}, {"device", "llvm"}, {"nbytes", -1}})),
             Contains("\"nbytes\" is malformed"));
  CHECK_THAT(error_of(ex, request(5, "alloc", {{"handle", 2}, {"device", "llvm"}})), Contains("\"nbytes\" is missing"));
  CHECK_THAT(error_of(ex, request(6, "write", {{"handle", 1}, {"offset", 4}}, "123456789")),
             Contains("write of 9 bytes at offset 4 runs past the end of array 1 (8 bytes)"));
  CHECK_THAT(error_of(ex, request(7, "read", {{"handle", 1}, {"offset", 9}, {"nbytes", 0}})),
             Contains("runs past the end of array 1"));
  CHECK_THAT(error_of(ex, request(8, "read", {{"handle", 5}, {"offset", 0}, {"nbytes", 1}})),
             Contains("no array 5 in this session") && Contains("alloc it first"));
  CHECK_THAT(error_of(ex, request(9, "frobnicate")), Contains("unknown op 'frobnicate'") && Contains("alloc"));
  // free has no answer, also when it fails; the session goes on.
  CHECK_FALSE(ex.handle(request(10, "free", {{"handles", {5}}})).has_value());
  CHECK(live(ex, "arrays") == 1);
}

TEST_CASE("rpc server: an llvm module sent as a shared library runs as it does here", "[rpc][server]") {
  const Module m = scale_module();
  rpc::server::Executor ex = make_executor();
  const nlohmann::json loaded = ok(ex, load_module_request(1, 3, m));
  CHECK(loaded["functions"] == nlohmann::json({"scale"}));
  for (int64_t n : {5, 17}) {
    INFO("n = " << n);
    const NDArray a = NDArray::random({n, 4}, Float(32), uint64_t(n));
    NDArray want = NDArray::empty({n, 4}, Float(32));
    m("scale")(a, 2.5f, want);
    // The arrays are larger than the call's views: a call may use a prefix.
    ok(ex, request(2, "alloc", {{"handle", 10 + n}, {"device", "llvm"}, {"nbytes", n * 16 + 8}}));
    ok(ex, request(3, "alloc", {{"handle", 20 + n}, {"device", "llvm"}, {"nbytes", n * 16}}));
    ok(ex, request(4, "write", {{"handle", 10 + n}, {"offset", 0}}, bytes_of(a)));
    const nlohmann::json args = {buffer_arg(10 + n, {n, 4}, "float32"), {{"float", 2.5}},
                                 buffer_arg(20 + n, {n, 4}, "float32")};
    ok(ex, request(5, "call", {{"module", 3}, {"function", "scale"}, {"args", args}}));
    std::string got;
    ok(ex, request(6, "read", {{"handle", 20 + n}, {"offset", 0}, {"nbytes", n * 16}}), &got);
    CHECK(got == bytes_of(want));
    // And against a plain loop.
    std::vector<float> out(size_t(n * 4));
    std::memcpy(out.data(), got.data(), got.size());
    const std::vector<float> in = a.to_vector<float>();
    for (size_t i = 0; i < out.size(); ++i) CHECK(out[i] == Approx(in[i] * 2.5f + 1.0f));

    const nlohmann::json t = ok(ex, request(7, "time", {{"module", 3}, {"function", "scale"}, {"args", args},
                                                        {"number", 3}, {"repeat", 4}, {"min_repeat_ms", 0}}));
    REQUIRE(t["times_ms"].size() == 4);
    for (const auto &ms : t["times_ms"]) CHECK(ms.get<double>() > 0);
  }
  CHECK(live(ex, "modules") == 1);
  CHECK_FALSE(ex.handle(request(8, "free_module", {{"module", 3}})).has_value());
  CHECK(live(ex, "modules") == 0);
}

TEST_CASE("rpc server: call errors name the module, function and argument", "[rpc][server][error]") {
  rpc::server::Executor ex = make_executor();
  ok(ex, load_module_request(1, 3, scale_module()));
  ok(ex, request(2, "alloc", {{"handle", 1}, {"device", "llvm"}, {"nbytes", 64}}));
  ok(ex, request(3, "alloc", {{"handle", 2}, {"device", "llvm"}, {"nbytes", 32}}));
  const auto call = [&](const nlohmann::json &args, const std::string &function = "scale", int64_t module = 3) {
    return error_of(ex, request(4, "call", {{"module", module}, {"function", function}, {"args", args}}));
  };
  const nlohmann::json a = buffer_arg(1, {4, 4}, "float32"), alpha = {{"float", 2.0}};
  CHECK_THAT(call({a, alpha, a}, "scal"), Contains("module 3 has no function 'scal'; it has: scale"));
  CHECK_THAT(call({a, alpha, a}, "scale", 4), Contains("there is no module 4") && Contains("load_module it first"));
  CHECK_THAT(call({a, alpha, buffer_arg(2, {4, 4}, "float32")}),
             Contains("argument 'B' of 'scale': array 2 holds 32 bytes, too few for float32 [4, 4]"));
  CHECK_THAT(call({a, alpha, buffer_arg(9, {4, 4}, "float32")}), Contains("no array 9"));
  CHECK_THAT(call({a, alpha, buffer_arg(1, {2, 4}, "float32")}), Contains("scale") && Contains("B"));
  CHECK_THAT(call({a, alpha, buffer_arg(1, {4, 4}, "int32")}), Contains("dtype int32"));
  CHECK_THAT(call({a, alpha, buffer_arg(1, {4, 4}, "float99")}), Contains("argument 'B' of 'scale'"));
  CHECK_THAT(call({a, alpha}), Contains("expects 3 arguments"));
  CHECK_THAT(call({a, {{"text", "x"}}, a}), Contains("argument 'alpha' of 'scale' is neither a buffer"));
  CHECK_THAT(error_of(ex, request(5, "time", {{"module", 3}, {"function", "scale"}, {"args", {a, alpha, a}},
                                              {"number", 0}, {"repeat", 1}})),
             Contains("\"number\" is malformed"));
}

TEST_CASE("rpc server: a library that does not match its signatures is refused", "[rpc][server][error]") {
  rpc::server::Executor ex = make_executor();
  const Module m = scale_module();
  const auto refused = [&](const std::function<void(nlohmann::json &)> &edit) {
    rpc::Frame f = load_module_request(1, 3, m);
    edit(f.header["functions"][0]);
    return error_of(ex, f);
  };
  CHECK_THAT(refused([](nlohmann::json &s) { s["args"][0]["dtype"] = "float64"; }),
             Contains("argument 0 ('A') of 'scale' is float32 [?, 4] in the library, float64 [?, 4] in its signature"));
  CHECK_THAT(refused([](nlohmann::json &s) { s["args"][0]["shape"][1]["offset"] = 8; }),
             Contains("float32 [?, 4] in the library, float32 [?, 8]"));
  CHECK_THAT(refused([](nlohmann::json &s) { s["args"][1]["kind"] = "buffer"; }), Contains("argument 1 ('alpha')"));
  CHECK_THAT(refused([](nlohmann::json &s) { s["name"] = "other"; }), Contains("it has no function 'other'"));
  rpc::Frame twice = load_module_request(1, 3, m);
  twice.header["functions"].push_back(twice.header["functions"][0]);
  CHECK_THAT(error_of(ex, twice), Contains("its table has 1 functions, the signatures 2"));
  CHECK_THAT(refused([](nlohmann::json &s) { s["symbols"].push_back("m"); }),
             Contains("1 shape symbols in the library"));
  CHECK_THAT(refused([](nlohmann::json &s) { s["args"][0]["shape"][0]["symbol"] = 3; }),
             Contains("names shape symbol 3"));
  rpc::Frame not_so = load_module_request(2, 3, m);
  not_so.payload = "not a library";
  CHECK_THAT(error_of(ex, not_so), Contains("cannot load the kernel library"));
  rpc::Frame wasm = load_module_request(3, 3, m);
  wasm.header["format"] = "wasm";
  CHECK_THAT(error_of(ex, wasm), Contains("the format 'wasm' is not loaded by a server"));
  rpc::Frame webgl = load_module_request(4, 3, m);
  webgl.header["target"] = "webgl";
  CHECK_THAT(error_of(ex, webgl), Contains("a module built for 'webgl' does not run on this server"));
  CHECK(live(ex, "modules") == 0);
  ok(ex, load_module_request(5, 3, m));
  CHECK_THAT(error_of(ex, load_module_request(6, 3, m)), Contains("module 3 is already in use"));
}

TEST_CASE("rpc server: close frees everything the session made", "[rpc][server]") {
  rpc::server::Executor ex = make_executor();
  ok(ex, load_module_request(1, 3, scale_module()));
  ok(ex, request(2, "alloc", {{"handle", 1}, {"device", "llvm"}, {"nbytes", 64}}));
  ok(ex, request(3, "alloc", {{"handle", 2}, {"device", "llvm"}, {"nbytes", 64}}));
  CHECK(ok(ex, request(4, "info"))["info"]["live"] == nlohmann::json({{"arrays", 2}, {"modules", 1}, {"models", 0}}));
  ex.reset();
  CHECK(ok(ex, request(5, "info"))["info"]["live"] == nlohmann::json({{"arrays", 0}, {"modules", 0}, {"models", 0}}));
  // Handles can be used again.
  ok(ex, request(6, "alloc", {{"handle", 1}, {"device", "llvm"}, {"nbytes", 64}}));
}

TEST_CASE("rpc server: a library for CPU features this machine lacks is refused before it runs",
          "[rpc][server][error][cpu]") {
  // An AMD-only feature no current CPU has (neither Intel nor Zen has fma4 or xop).
  std::string feature;
  for (const char *f : {"fma4", "xop"})
    if (feature.empty() && runtime::host_has_cpu_feature(f) == 0) feature = f;
  REQUIRE(!feature.empty());
  Tensor A = placeholder({16}, Float(32), "A");
  Tensor C = compute({16}, [&](Var i) { return A(i) * 2.0f; }, "C");
  const Module m = build(create_schedule({C}), {A, C}, "llvm -mattr=+" + feature, "twice");
  rpc::server::Executor ex = make_executor();
  CHECK_THAT(error_of(ex, load_module_request(1, 1, m)),
             Contains("load_module") && Contains("may use " + feature) && Contains("which this CPU lacks"));
  CHECK(live(ex, "modules") == 0);
}
