// The model the mutation tests and the fuzz seeds save: small enough to load a thousand
// times under AddressSanitizer, with constants, shared storage and several kernels.
#pragma once
#include <tensorir/graph/executor.h>
#include <tensorir/graph/graph.h>

namespace tensorir::mutation {

// x [1, 4, 8, 8] -> conv 3x3 (8 channels) + bias -> relu -> max pool 2x2 -> flatten
// -> dense (10) + bias -> softmax, with seeded weights.
inline graph::Graph small_cnn() {
  graph::Builder b;
  auto x = b.input("x", {1, 4, 8, 8});
  ops::Conv2dAttrs conv;
  conv.padding = {1, 1};
  auto c = b.conv2d(x, b.constant("conv.w", NDArray::random({8, 4, 3, 3}, Float(32), 11)), conv, "conv");
  auto cb = b.bias_add(c, b.constant("conv.b", NDArray::random({8}, Float(32), 12)), 1, "conv_bias");
  auto r = b.relu(cb, "relu");
  auto p = b.max_pool2d(r, {2, 2}, {2, 2}, {0, 0}, "pool");
  auto f = b.flatten(p, "flat");
  auto d = b.dense(f, b.constant("fc.w", NDArray::random({10, 128}, Float(32), 13)), "fc");
  auto db = b.bias_add(d, b.constant("fc.b", NDArray::random({10}, Float(32), 14)), 1, "fc_bias");
  return b.finish(b.softmax(db, -1, "prob"));
}

// Unfused, so that values share buffers and the plan has a kernel per node.
inline graph::CompiledModel build_small_cnn() {
  graph::BuildOptions options;
  options.fuse_operators = false;
  return graph::build(small_cnn(), "llvm", options);
}

inline NDArray small_cnn_input() { return NDArray::random({1, 4, 8, 8}, Float(32), 7); }

}  // namespace tensorir::mutation
