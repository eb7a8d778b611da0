// ResNet-50 and MobileNetV2 through graph::build on "opencl" against "llvm" with the same
// weights: slow on a CPU device, so hidden (run with "[opencl_models]"); ResNet-18 runs
// with the other targets in test_resnet18.cpp.
#include <tensorir/graph/executor.h>
#include <tensorir/graph/models.h>

#include <catch2/catch.hpp>
#include <string>

#include "graph/graph_test_util.h"

using namespace tensorir;

TEST_CASE("resnet50 and mobilenet_v2 on opencl match llvm", "[.][opencl_models][opencl]") {
  const std::string name = GENERATE(as<std::string>{}, "resnet50", "mobilenet_v2");
  INFO(name);
  const graph::Graph g = name == "resnet50" ? graph::resnet50(5) : graph::mobilenet_v2(5);
  NDArray input = NDArray::random({1, 3, 224, 224}, Float(32), 17);
  const std::vector<float> want = graph::build(g, "llvm").run({{"data", input}}).to_vector<float>();
  const std::vector<float> got = graph::build(g, "opencl").run({{"data", input}}).to_vector<float>();
  REQUIRE(got.size() == want.size());
  const double err = graph_test::max_rel_error(got, want);
  INFO("max |a - b| / max |b| = " << err);
  CHECK(err < 1e-4);
}
