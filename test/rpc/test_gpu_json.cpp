// The gpu-json form of "opengl" compute and "opencl" modules in this process:
// Module::save writes it, Module::load reads it back on the device, and the loaded
// module computes what the built one does; files of another backend, format version or
// format are refused with the reason. Without the device the test fails.
#include <tensorir/tensorir.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <iterator>

#include "rpc/rpc_server_test_util.h"
#include "rpc/rpc_test_util.h"

using namespace tensorir;
using namespace tensorir::rpc_test;
using Catch::Matchers::Contains;

namespace {

Device device_of(const std::string &target) { return target == "opengl" ? Device::opengl() : Device::opencl(0); }

void replace_in_file(const std::string &path, const std::string &from, const std::string &to) {
  std::string text = file_bytes(path);
  const size_t at = text.find(from);
  REQUIRE(at != std::string::npos);
  text.replace(at, from.size(), to);
  std::ofstream(path, std::ios::binary) << text;
}

}  // namespace

TEST_CASE("gpu-json: a module saved and loaded again computes what it did", "[rpc][gpu]") {
  const std::string target = GENERATE(as<std::string>{}, "opengl", "opencl");
  INFO("target " << target);
  const int M = 20, K = 70;
  Tensor A = placeholder({M, K}, Float(32), "A"), b = placeholder({M}, Float(32), "b");
  Var alpha("alpha", Float(32));
  IterVar k = reduce_axis({0, K}, "k");
  Tensor S = compute({M}, [&](Var i) { return sum(A(i, k), {k}); }, "S");
  Tensor O = compute({M}, [&](Var i) { return S(i) * alpha + b(i); }, "O");
  // Two functions, a scalar argument and an intermediate the module allocates.
  Schedule s = create_schedule({O});
  const Module built = build(s, {A, b, alpha, O}, target, "scaled_rowsum");
  ScratchDir dir("gpu_json_" + target);
  built.save(dir.str("m.json"), "gpu-json");
  const Module loaded = Module::load(dir.str("m.json"), "gpu-json", device_of(target));
  CHECK(loaded.function_names() == built.function_names());
  CHECK(loaded.node()->backend() == target);
  const Device dev = device_of(target);
  const NDArray a = NDArray::random({M, K}, Float(32), 1), bias = NDArray::random({M}, Float(32), 2);
  NDArray want = NDArray::empty({M}, Float(32), dev), got = NDArray::empty({M}, Float(32), dev);
  built("scaled_rowsum")(a.to(dev), bias.to(dev), 0.5, want);
  loaded("scaled_rowsum")(a.to(dev), bias.to(dev), 0.5, got);
  CHECK(got.to(Device::cpu()).to_vector<float>() == want.to(Device::cpu()).to_vector<float>());
  // And against plain loops.
  const std::vector<float> av = a.to_vector<float>(), bv = bias.to_vector<float>(),
                           gv = got.to(Device::cpu()).to_vector<float>();
  for (int i = 0; i < M; ++i) {
    float row = 0;
    for (int j = 0; j < K; ++j) row += av[size_t(i * K + j)];
    CHECK(gv[size_t(i)] == Approx(row * 0.5f + bv[size_t(i)]).epsilon(1e-5));
  }

  SECTION("another device kind, backend, version or format is refused") {
    const std::string other = target == "opengl" ? "opencl" : "opengl";
    CHECK_THROWS_WITH(Module::load(dir.str("m.json"), "gpu-json", device_of(other)),
                      Contains("\"" + target + "\" module") && Contains("load it on the device of"));
    CHECK_THROWS_WITH(Module::load(dir.str("m.json"), "gpu-json", Device::cpu()),
                      Contains("no backend of this build reads that format for that device"));
    CHECK_THROWS_WITH(built.save(dir.str("m.so"), "so"), Contains("saves its modules as \"gpu-json\""));
    replace_in_file(dir.str("m.json"), "\"version\": 1", "\"version\": 9");
    CHECK_THROWS_WITH(Module::load(dir.str("m.json"), "gpu-json", dev),
                      Contains(dir.str("m.json")) && Contains("version 9") && Contains("save the module again"));
    std::ofstream(dir.str("m.json")) << "{\"format\": \"webgl-json\"}";
    CHECK_THROWS_WITH(Module::load(dir.str("m.json"), "gpu-json", dev), Contains("not a gpu-json module"));
    CHECK_THROWS_WITH(Module::load(dir.str("none.json"), "gpu-json", dev), Contains("none.json"));
  }
}

TEST_CASE("gpu-json: sizes that depend on a shape symbol are refused with the reason", "[rpc][gpu][error]") {
  const std::string target = GENERATE(as<std::string>{}, "opengl", "opencl");
  INFO("target " << target);
  Var n("n");
  Tensor A = placeholder({n, 4}, Float(32), "A");
  Tensor C = compute({n, 4}, [&](Var i, Var j) { return A(i, j) + 1.0f; }, "C");
  const Module m = build(create_schedule({C}), {A, C}, target, "inc");
  ScratchDir dir("gpu_json_symbolic_" + target);
  CHECK_THROWS_WITH(m.save(dir.str("m.json"), "gpu-json"),
                    Contains("function 'inc'") && Contains("work-group count") && Contains("the shape symbols 'n'"));
}
