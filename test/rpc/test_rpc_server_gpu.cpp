// "opengl" compute and "opencl" modules on `tensorir rpc server` (a child process): sent
// as gpu-json files (Module::save), loaded by the server's backends and run on its
// devices (Mesa's llvmpipe, PoCL here), each compared with the same schedule built for
// "llvm" and run in this process on the same random inputs; timed there; and a module
// with symbolic shapes refused with the reason. Without the device the test fails.
#include <tensorir/ops/nn.h>
#include <tensorir/ops/schedule.h>
#include <tensorir/ops/transform.h>
#include <tensorir/rpc.h>
#include <tensorir/tensorir.h>

#include <catch2/catch.hpp>
#include <cmath>

#include "rpc/rpc_server_test_util.h"
#include "rpc/rpc_test_util.h"
#include "rpc_server_process.h"

using namespace tensorir;
using namespace tensorir::rpc_test;
using Catch::Matchers::Contains;

namespace {

#define GPU_TARGET GENERATE(as<std::string>{}, "opengl", "opencl")

// A server and a session with it, whose device `target` must exist.
struct GpuRemote {
  ServerProcess server{{"--port", "0", "--quiet"}};
  rpc::Session session = rpc::connect(server.address(), "server");
  Device dev;
  explicit GpuRemote(const std::string &target) {
    try {
      dev = session.device(target);
    } catch (const Error &e) {
      FAIL("the server has no '" << target << "' device (" << e.what() << "): it needs Mesa's EGL (llvmpipe) for "
                                 << "opengl and an OpenCL platform (PoCL) for opencl; `tensorir rpc server` says on "
                                 << "stderr why it left a device out");
    }
  }
};

// conv2d (3x3, padding 1), bias, relu, 2x2 max pool, dense, bias, softmax: a small
// classifier as one function of several kernels, its intermediates temporary buffers.
std::vector<Tensor> convnet_tensors(int64_t size, int64_t channels, int64_t classes) {
  Tensor image = placeholder({1, 3, size, size}, Float(32), "image");
  Tensor w = placeholder({channels, 3, 3, 3}, Float(32), "w"), cb = placeholder({channels}, Float(32), "cb");
  const int64_t flat = channels * (size / 2) * (size / 2);
  Tensor fw = placeholder({classes, flat}, Float(32), "fw"), fb = placeholder({classes}, Float(32), "fb");
  ops::Conv2dAttrs attrs;
  attrs.padding = {1, 1};
  Tensor r = ops::relu(ops::bias_add(ops::conv2d(image, w, attrs), cb));
  Tensor p = ops::max_pool2d(r, {2, 2}, {2, 2});
  Tensor prob = ops::softmax(ops::bias_add(ops::dense(ops::flatten(p), fw), fb));
  return {image, w, cb, fw, fb, prob};
}

}  // namespace

TEST_CASE("rpc server gpu: element-wise, reduction and matmul kernels match llvm", "[rpc][server][gpu]") {
  const std::string target = GPU_TARGET;
  INFO("target " << target);
  GpuRemote r(target);
  const int M = 24, N = 33, K = 300;
  Tensor A = placeholder({M, K}, Float(32), "A"), B = placeholder({K, N}, Float(32), "B");
  Tensor E = compute({M, K}, [&](Var i, Var j) { return max(A(i, j) * 2.0f + 1.0f, 0.0f); }, "E");
  check_remote_vs_llvm(r.session, target, create_schedule({E}), {A, E}, "affine_relu", 1e-6);
  IterVar k = reduce_axis({0, K}, "k");
  Tensor S = compute({M}, [&](Var i) { return sum(A(i, k), {k}); }, "S");
  check_remote_vs_llvm(r.session, target, create_schedule({S}), {A, S}, "rowsum", 1e-5);
  IterVar k2 = reduce_axis({0, K}, "k2");
  Tensor C = compute({M, N}, [&](Var i, Var j) { return sum(A(i, k2) * B(k2, j), {k2}); }, "C");
  check_remote_vs_llvm(r.session, target, create_schedule({C}), {A, B, C}, "matmul", 1e-5);
}

TEST_CASE("rpc server gpu: a small convolutional network in one module matches llvm", "[rpc][server][gpu]") {
  const std::string target = GPU_TARGET;
  INFO("target " << target);
  GpuRemote r(target);
  const std::vector<Tensor> t = convnet_tensors(12, 4, 6);
  check_remote_vs_llvm(r.session, target, ops::schedule_generic({t.back()}), t, "convnet", 1e-5);
}

TEST_CASE("rpc server gpu: time_evaluator times a module on the server's device", "[rpc][server][gpu]") {
  const std::string target = GPU_TARGET;
  INFO("target " << target);
  GpuRemote r(target);
  const int N = 128;
  Tensor A = placeholder({N, N}, Float(32), "A"), B = placeholder({N, N}, Float(32), "B");
  IterVar k = reduce_axis({0, N}, "k");
  Tensor C = compute({N, N}, [&](Var i, Var j) { return sum(A(i, k) * B(k, j), {k}); }, "C");
  Module m = r.session.load(build(create_schedule({C}), {A, B, C}, target, "matmul"));
  const NDArray a = NDArray::random({N, N}, Float(32), 1).to(r.dev), b = NDArray::random({N, N}, Float(32), 2).to(r.dev);
  NDArray c = NDArray::empty({N, N}, Float(32), r.dev);
  const TimeResult t = m.time_evaluator("matmul", {.number = 3, .repeat = 4})(a, b, c);
  REQUIRE(t.times_ms.size() == 4);
  for (double ms : t.times_ms) {
    CHECK(std::isfinite(ms));
    CHECK(ms > 0);
  }
  CHECK(t.min_ms <= t.median_ms);
  // Timing ran the kernel: the result is the product.
  NDArray want = NDArray::empty({N, N}, Float(32));
  build(create_schedule({C}), {A, B, C}, "llvm", "matmul")("matmul")(a.to(Device::cpu()), b.to(Device::cpu()), want);
  check_close(c.to(Device::cpu()).to_vector<float>(), want.to_vector<float>(), 1e-5);
}

TEST_CASE("rpc server gpu: modules whose launch sizes are not constant are refused", "[rpc][server][gpu][error]") {
  const std::string target = GPU_TARGET;
  INFO("target " << target);
  GpuRemote r(target);
  Var n("n");
  Tensor A = placeholder({n}, Float(32), "A");
  Tensor C = compute({n}, [&](Var i) { return A(i) * 2.0f; }, "C");
  const Module m = build(create_schedule({C}), {A, C}, target, "twice");
  CHECK_THROWS_WITH(r.session.load(m), Contains("gpu-json") && Contains("function 'twice'") &&
                                           Contains("the shape symbols 'n'") && Contains("constant shapes"));
  // The session goes on.
  Module add = r.session.load(build_add(8, target));
  const NDArray a = NDArray::random({8}, Float(32), 3), b = NDArray::random({8}, Float(32), 4);
  NDArray c = NDArray::empty({8}, Float(32), r.dev);
  add("add")(a.to(r.dev), b.to(r.dev), c);
  const std::vector<float> av = a.to_vector<float>(), bv = b.to_vector<float>(), cv = c.to(Device::cpu()).to_vector<float>();
  for (size_t i = 0; i < 8; ++i) CHECK(cv[i] == av[i] + bv[i]);
}
