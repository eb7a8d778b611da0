// The server's other devices: "opencl" and "opengl" are offered where this build has
// them and they work (a missing one fails here, saying why), their arrays are written
// and read in parts, and a module for the CPU refuses their arrays.
#include <tensorir/tensorir.h>

#include <catch2/catch.hpp>

#include "rpc/server/executor.h"
#include "rpc_server_test_util.h"

using namespace tensorir;
using namespace tensorir::rpc_test;
using Catch::Contains;

namespace {

// The devices this build should offer next to "llvm".
std::vector<std::string> built_devices() {
  std::vector<std::string> names;
#if TENSORIR_WITH_OPENCL
  names.push_back("opencl");
#endif
#if TENSORIR_WITH_OPENGL
  names.push_back("opengl");
#endif
  return names;
}

}  // namespace

TEST_CASE("rpc server: opencl and opengl arrays are written and read in parts", "[rpc][server][opencl][opengl]") {
  std::string log;
  const std::vector<rpc::server::ServerDevice> devices = rpc::server::probe_devices(&log);
  rpc::server::Executor ex(devices, rpc::server::server_info(devices));
  Tensor A = placeholder({4}, Float(32), "A");
  Tensor B = compute({4}, [&](Var i) { return A(i) + 1.0f; }, "B");
  REQUIRE(answer(ex, load_module_request(1, 1, build(create_schedule({B}), {A, B}, "llvm", "inc")))["type"] == "reply");
  int64_t handle = 0;
  for (const std::string &name : built_devices()) {
    INFO("device " << name << "; devices left out: " << log);
    bool offered = false;
    for (const rpc::server::ServerDevice &d : devices) offered = offered || d.name == name;
    REQUIRE(offered);
    const int64_t h = ++handle;
    REQUIRE(answer(ex, request(2, "alloc", {{"handle", h}, {"device", name}, {"nbytes", 16}}))["type"] == "reply");
    REQUIRE(answer(ex, request(3, "write", {{"handle", h}, {"offset", 0}}, "0123456789abcdef"))["type"] == "reply");
    REQUIRE(answer(ex, request(4, "write", {{"handle", h}, {"offset", 5}}, "XYZ"))["type"] == "reply");
    std::string got;
    REQUIRE(answer(ex, request(5, "read", {{"handle", h}, {"offset", 3}, {"nbytes", 8}}), &got)["type"] == "reply");
    CHECK(got == "34XYZ89a");
    const nlohmann::json args = {buffer_arg(h, {4}, "float32"), buffer_arg(h, {4}, "float32")};
    const nlohmann::json refused = answer(ex, request(6, "call", {{"module", 1}, {"function", "inc"}, {"args", args}}));
    REQUIRE(refused["type"] == "error");
    CHECK_THAT(refused["message"].get<std::string>(),
               Contains("array " + std::to_string(h) + " lives on '" + name + "'") &&
                   Contains("alloc the array on 'llvm'"));
  }
}
