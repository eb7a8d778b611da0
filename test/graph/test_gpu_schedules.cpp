// The GPU compute schedules (strategies["gpu"]: conv2d, dense, batch_matmul, pools) on
// "opengl" against the same graphs on "llvm", on shapes that no tile divides: odd sizes,
// strides 2, padding, dilation, groups, depthwise, 1x1, fused bias / relu / residual add.
#include <tensorir/graph/executor.h>
#include <tensorir/ops/nn.h>
#include <tensorir/ops/schedule.h>
#include <tensorir/tensorir.h>

#include <catch2/catch.hpp>
#include <regex>
#include <string>
#include <vector>

#include "graph/gpu_schedule_cases.h"

using namespace tensorir;
using Catch::Matchers::Contains;

#if TENSORIR_WITH_OPENGL

using namespace tensorir::graph_test;

TEST_CASE("conv2d's GPU schedule on opengl matches llvm on odd shapes", "[graph][gpu_schedules][opengl]") {
  const ConvCase c = GENERATE(from_range(odd_conv_cases()));
  INFO("data " << c.data[0] << "x" << c.data[1] << "x" << c.data[2] << "x" << c.data[3] << ", K " << c.K << ", "
               << c.R << "x" << c.S << ", groups " << c.a.groups);
  check_against_llvm(conv_graph(c), "opengl");
}

TEST_CASE("dense and batch_matmul GPU schedules on opengl match llvm", "[graph][gpu_schedules][opengl]") {
  SECTION("dense with odd M, N, K and a fused bias and relu") {
    for (auto [M, K, N] : std::vector<std::array<int64_t, 3>>{{3, 37, 29}, {1, 512, 1000}, {5, 16, 64}, {8, 7, 1}}) {
      INFO("M " << M << ", K " << K << ", N " << N);
      graph::Builder b;
      auto y = b.dense(b.input("x", {M, K}), random_constant(b, "w", {N, K}));
      check_against_llvm(b.finish(b.relu(b.bias_add(y, random_constant(b, "bias", {N})), "y")), "opengl");
    }
  }
  SECTION("batch_matmul, batched and broadcast") {
    for (auto [as, bs] : std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>>{
             {{2, 3, 7, 9}, {2, 3, 9, 11}}, {{4, 5, 13}, {13, 6}}, {{1, 16, 8}, {1, 8, 12}}}) {
      graph::Builder b;
      check_against_llvm(b.finish(b.make("batch_matmul", {b.input("a", as), b.input("b", bs)}, {}, "y")), "opengl");
    }
  }
}

TEST_CASE("pooling GPU schedules on opengl match llvm", "[graph][gpu_schedules][opengl]") {
  graph::Builder b;
  auto x = b.input("x", {2, 5, 13, 11});
  auto mx = b.max_pool2d(x, {3, 3}, {2, 2}, {1, 1}, "max");
  auto avg = b.make("avg_pool2d", {x}, {{"pool_size", std::vector<int64_t>{3, 2}}, {"strides", std::vector<int64_t>{2, 1}},
                                        {"padding", std::vector<int64_t>{1, 1}}}, "avg");
  auto global = b.global_avg_pool2d(x, "global");
  check_against_llvm(b.finish({mx, avg, global}), "opengl");
}

TEST_CASE("GPU schedules stay within the target's work-group limit", "[graph][gpu_schedules][opengl]") {
  const TargetCaps caps = Target("opengl -max-work-group-size=32 -max-shared-memory=1024").caps();
  CHECK(caps.gpu_schedules);
  CHECK(caps.max_work_group_size == 32);
  CHECK(caps.max_shared_memory_bytes == 1024);
  const TargetCaps device = Target("opengl").caps();
  CHECK(device.gpu_schedules);
  CHECK(device.max_work_group_size >= 32);  // a context's limit (llvmpipe: 1024), else 256
  CHECK(device.max_shared_memory_bytes >= 16384);
  CHECK_FALSE(Target("opengl -mode=fragment").caps().gpu_schedules);

  // Each shader's work-group is at most 32 invocations, and the results still match.
  Tensor data = placeholder({1, 8, 30, 30}, Float(32), "data"), weight = placeholder({16, 8, 3, 3}, Float(32), "w");
  Tensor conv = ops::conv2d(data, weight, {{1, 1}, {1, 1}, {1, 1}, 1}, "conv");
  const Target small("opengl -max-work-group-size=32");
  Module m = build(ops::schedule_conv2d_gpu(conv, conv, small), {data, weight, conv}, small, "conv");
  const std::string src = m.source("glsl");
  const std::regex local(R"(local_size_x = (\d+), local_size_y = (\d+), local_size_z = (\d+))");
  int shaders = 0;
  for (auto it = std::sregex_iterator(src.begin(), src.end(), local); it != std::sregex_iterator(); ++it, ++shaders)
    CHECK(std::stoi((*it)[1]) * std::stoi((*it)[2]) * std::stoi((*it)[3]) <= 32);
  CHECK(shaders > 0);
  ConvCase c{{1, 8, 30, 30}, 16, 3, 3, {{1, 1}, {1, 1}, {1, 1}, 1}, true};
  check_against_llvm(conv_graph(c), "opengl -max-work-group-size=32");
}

#endif

TEST_CASE("GPU schedules refuse tensors of other operators", "[graph][gpu_schedules]") {
  Tensor a = placeholder({4, 8}, Float(32), "a"), w = placeholder({6, 8}, Float(32), "w");
  Tensor d = ops::dense(a, w, "d");
  CHECK_THROWS_WITH(ops::schedule_conv2d_gpu(d, d, Target("opengl -max-work-group-size=64")),
                    Contains("tensor d is not the NCHW output of conv2d"));
  CHECK_THROWS_WITH(ops::schedule_matmul_gpu(a, a, Target("opengl -max-work-group-size=64")),
                    Contains("tensor a is not the output of dense or batch_matmul"));
  CHECK_THROWS_WITH(Target("opengl -max-work-group-size=0"), Contains("max-work-group-size"));
}
