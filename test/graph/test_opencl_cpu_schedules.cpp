// The GPU schedules as a CPU driver (PoCL) gets them on "opencl": convolutions in blocks
// of the vector width (NCHW<c>c, weights packed once), NCHW convolutions with vectors
// along output columns, matmuls with vector tiles. Each graph is compared with "llvm",
// at the device's width and at narrower ones; -vector-lanes=0 is the GPU form. Without an
// OpenCL platform every case fails with the reason.
#include <tensorir/ops/schedule.h>
#include <tensorir/tensorir.h>

#include "graph/gpu_schedule_cases.h"

using namespace tensorir;
using namespace tensorir::graph_test;
using Catch::Matchers::Contains;

namespace {

// Shapes the blocked convolution takes (output channels in whole blocks) and those it
// leaves to the NCHW schedule, with vectors along columns.
std::vector<ConvCase> vector_conv_cases() {
  return {
      {{1, 32, 14, 14}, 32, 3, 3, {{1, 1}, {1, 1}, {1, 1}, 1}, true},   // blocked, 14 columns
      {{1, 16, 28, 28}, 32, 3, 3, {{2, 2}, {1, 1}, {1, 1}, 1}, true},   // blocked, stride 2
      {{1, 3, 30, 30}, 16, 7, 7, {{2, 2}, {3, 3}, {1, 1}, 1}, true},    // 3 input channels, NCHW data
      {{1, 64, 7, 7}, 16, 3, 3, {{1, 1}, {1, 1}, {1, 1}, 1}, false},    // 7 columns
      {{1, 32, 8, 8}, 64, 1, 1, {{2, 2}, {0, 0}, {1, 1}, 1}, false},    // 1x1, stride 2
      {{1, 6, 12, 32}, 10, 3, 3, {{1, 1}, {1, 1}, {1, 1}, 1}, true},    // NCHW, vectors of columns
      {{1, 6, 9, 24}, 12, 3, 3, {{1, 1}, {1, 1}, {1, 1}, 1}, false},    // NCHW, an odd number of rows
  };
}

}  // namespace

TEST_CASE("opencl on a CPU device: convolutions match llvm", "[graph][opencl]") {
  const std::string target = GENERATE(as<std::string>{}, "opencl", "opencl -vector-lanes=8", "opencl -vector-lanes=4");
  std::vector<ConvCase> cases = vector_conv_cases(), odd = odd_conv_cases();
  cases.insert(cases.end(), odd.begin(), odd.end());
  for (const ConvCase &c : cases) {
    INFO("data " << c.data[0] << "x" << c.data[1] << "x" << c.data[2] << "x" << c.data[3] << ", K " << c.K << ", "
                 << c.R << "x" << c.S << ", stride " << c.a.strides[0] << ", groups " << c.a.groups);
    check_against_llvm(conv_graph(c), target);
  }
}

TEST_CASE("opencl on a CPU device: blocked activations flow between convolutions", "[graph][opencl]") {
  // conv -> relu -> conv -> add (the first conv's result) -> relu -> max pool -> global
  // average pool -> dense: blocks from one kernel to the next, NCHW at the dense.
  graph::Builder b;
  auto x = b.input("x", {1, 8, 20, 20});
  auto c1 = b.relu(b.conv2d(x, random_constant(b, "w1", {32, 8, 3, 3}), {{1, 1}, {1, 1}, {1, 1}, 1}, "c1"));
  auto c2 = b.conv2d(c1, random_constant(b, "w2", {32, 32, 3, 3}), {{1, 1}, {1, 1}, {1, 1}, 1}, "c2");
  auto r = b.relu(b.add(c2, c1));
  auto p = b.max_pool2d(r, {3, 3}, {2, 2}, {1, 1}, "pool");
  auto y = b.dense(b.flatten(b.global_avg_pool2d(p, "gap")), random_constant(b, "wd", {10, 32}));
  const graph::Graph g = b.finish(b.relu(y, "y"));
  for (const char *target : {"opencl", "opencl -vector-lanes=8", "opencl -vector-lanes=0"}) check_against_llvm(g, target);
}

TEST_CASE("opencl on a CPU device: the blocked convolution keeps its tile in vectors", "[graph][opencl]") {
  Tensor data = placeholder({1, 2, 10, 10, 8}, Float(32), "data");
  Tensor w = placeholder({4, 2, 3, 3, 8, 8}, Float(32), "w");
  Tensor conv = ops::conv2d_packed_direct(data, w, {{1, 1}, {1, 1}, {1, 1}, 1}, true, "conv");
  const Target t("opencl -vector-lanes=8");
  const std::string src = build(ops::schedule_conv2d_packed_gpu(conv, conv, t), {data, w, conv}, t, "conv").source("cl");
  // Accumulators in an array of float8, weights read as vectors, a work-item per group.
  CHECK_THAT(src, Contains("float8 conv_local[") && Contains("vload8(0, w + ") && Contains("vstore8(") &&
                      Contains("reqd_work_group_size(1, 1, 1)"));
}
