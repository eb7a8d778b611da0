// Helpers shared by the RPC client tests: the kernels and network they send to remotes,
// and how results are compared (with those of the same schedule built for "llvm").
#pragma once
#include <tensorir/graph/graph.h>
#include <tensorir/rpc.h>
#include <tensorir/tensorir.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <vector>

namespace tensorir::rpc_test {

// c = a + b over n float32 elements, as function "add".
inline Module build_add(int64_t n, const std::string &target = "llvm") {
  Tensor A = placeholder({n}, Float(32), "A");
  Tensor B = placeholder({n}, Float(32), "B");
  Tensor C = compute({n}, [&](Var i) { return A(i) + B(i); }, "C");
  Schedule s = create_schedule({C});
  return build(s, {A, B, C}, target, "add");
}

// conv2d (3x3, padding 1), bias, relu, 2x2 max pool, dense, bias and softmax: a small
// classifier of `size` x `size` images of 3 channels, output "prob".
inline graph::Graph small_convnet(int64_t size, int64_t channels, int64_t classes) {
  graph::Builder b;
  auto x = b.input("image", {1, 3, size, size});
  ops::Conv2dAttrs attrs;
  attrs.padding = {1, 1};
  auto c = b.conv2d(x, b.constant("w", NDArray::random({channels, 3, 3, 3}, Float(32), 11)), attrs, "conv");
  auto r = b.relu(b.bias_add(c, b.constant("cb", NDArray::random({channels}, Float(32), 12)), 1, "conv_bias"), "relu");
  auto p = b.max_pool2d(r, {2, 2}, {2, 2}, {0, 0}, "pool");
  const int64_t flat = channels * (size / 2) * (size / 2);
  auto d = b.dense(b.flatten(p, "flat"), b.constant("fw", NDArray::random({classes, flat}, Float(32), 13)), "fc");
  auto o = b.bias_add(d, b.constant("fb", NDArray::random({classes}, Float(32), 14)), 1, "fc_bias");
  return b.finish(b.softmax(o, -1, "prob"));
}

// Every element of `got` within tol * (1 + max |want|) of `want`'s.
inline void check_close(const std::vector<float> &got, const std::vector<float> &want, double tol = 1e-5) {
  REQUIRE(got.size() == want.size());
  double scale = 0;
  for (float v : want) scale = std::max(scale, double(std::fabs(v)));
  for (size_t i = 0; i < got.size(); ++i) {
    INFO("element " << i << ": got " << got[i] << ", want " << want[i]);
    REQUIRE(std::fabs(double(got[i]) - double(want[i])) <= tol * (1 + scale));
  }
}

// The extents of a tensor of constant shape.
inline std::vector<int64_t> const_shape(const Tensor &t) {
  std::vector<int64_t> shape;
  for (const Expr &e : t.shape()) shape.push_back(e.as<IntImmNode>()->value);
  return shape;
}

// Runs `name` of the schedule built for `target` on the remote and for "llvm" here, on the
// same random inputs (every argument but the last), and compares the last argument.
inline void check_remote_vs_llvm(rpc::Session &remote, const std::string &target, const Schedule &s,
                                 const std::vector<Tensor> &args, const std::string &name, double tol) {
  const std::vector<BuildArg> build_args(args.begin(), args.end());
  Module local = build(s, build_args, "llvm", name);
  Module rm = remote.load(build(s, build_args, target, name));
  const Device dev = remote.device(target);
  std::vector<Arg> here, there;
  for (size_t i = 0; i < args.size(); ++i) {
    const bool input = i + 1 < args.size();
    NDArray a = input ? NDArray::random(const_shape(args[i]), Float(32), 10 + i)
                      : NDArray::empty(const_shape(args[i]), Float(32));
    here.push_back(a);
    there.push_back(a.to(dev));
  }
  local(name).call(here);
  rm(name).call(there);
  check_close(std::get<NDArray>(there.back()).to(Device::cpu()).to_vector<float>(),
              std::get<NDArray>(here.back()).to_vector<float>(), tol);
}

}  // namespace tensorir::rpc_test
