// The trigonometric and hyperbolic maps, grid_sample and the shifts: the shifts against
// plain loops, the others on OpenGL (compute and fragment shaders) as on "llvm", and the
// new operators' checks (resize2d's cubic mode is checked against plain loops through
// ONNX's Resize).
#include <catch2/catch.hpp>
#include <cstdint>
#include <string>

#include "graph_test_util.h"
#include "tensorir/graph/executor.h"
#include "tensorir/graph/op_registry.h"

using namespace tensorir;
using graph_test::check_near;
using Catch::Matchers::Contains;

TEST_CASE("shift_left and shift_right match plain loops, shifts past the width included", "[graph][ops]") {
  graph::Builder b;
  auto x = b.input("x", {2, 6}, Int(32));
  auto n = b.input("n", {6}, Int(32));
  const graph::Graph g = b.finish({b.make("shift_left", {x, n}, {}, "l"), b.make("shift_right", {x, n}, {}, "r")});
  const std::vector<int32_t> xv = {1, -1, 12345, -12345, 7, INT32_MIN, 3, 5, -8, 1 << 30, -3, 9};
  const std::vector<int32_t> nv = {0, 1, 4, 31, 32, -1};
  const graph::Outputs out = graph::build(g, "llvm").run(
      {{"x", NDArray::from_vector<int32_t>(xv, {2, 6})}, {"n", NDArray::from_vector<int32_t>(nv, {6})}});
  const std::vector<int32_t> l = out.at(0).to_vector<int32_t>(), r = out.at(1).to_vector<int32_t>();
  for (size_t i = 0; i < xv.size(); ++i) {
    const int32_t v = xv[i], s = nv[i % 6];
    const bool in = s >= 0 && s < 32;
    INFO(v << " shifted by " << s);
    CHECK(l[i] == (in ? int32_t(uint32_t(v) << s) : 0));
    CHECK(r[i] == (in ? v >> s : (v < 0 ? -1 : 0)));
  }
}

TEST_CASE("trigonometric maps and grid_sample run on OpenGL as on llvm", "[graph][ops][opengl][opencl]") {
  // x [1, 2, 5, 6] -> a sum of every trigonometric and hyperbolic map (each in its
  // domain), sampled by grid_sample in every mode and padding.
  graph::Builder b;
  auto x = b.input("x", {1, 2, 5, 6});
  auto g = b.input("g", {1, 3, 4, 2});
  auto t = b.make("add", {b.make("sin", {x}), b.make("cos", {b.make("atan", {x})})});
  t = b.make("add", {t, b.make("asinh", {b.make("sinh", {x})})});
  t = b.make("add", {t, b.make("acos", {b.make("tanh", {x})})});
  auto half = b.constant("half", NDArray::from_vector<float>({0.5f}, {1}));
  t = b.make("add", {t, b.make("atanh", {b.make("multiply", {b.make("asin", {b.make("tanh", {x})}), half})})});
  // acosh away from 1, where its slope is not steep.
  auto one = b.constant("one", NDArray::from_vector<float>({1.0f}, {1}));
  t = b.make("add", {t, b.make("acosh", {b.make("add", {b.make("cosh", {x}), one})})});
  t = b.make("add", {t, b.make("tan", {b.make("tanh", {x})})});
  std::vector<graph::NodeRef> outs;
  for (const char *mode : {"nearest", "bilinear", "bicubic"})
    for (const char *padding : {"zeros", "border", "reflection"})
      outs.push_back(
          b.make("grid_sample", {t, g}, {{"mode", std::string(mode)}, {"padding_mode", std::string(padding)}}));
  graph::NodeRef all = outs[0];
  for (size_t i = 1; i < outs.size(); ++i) all = b.make("concatenate", {all, outs[i]}, {{"axis", int64_t{1}}});
  const graph::Graph graph = b.finish(all);
  const NDArray xa = NDArray::random({1, 2, 5, 6}, Float(32), 21, -1.5, 1.5);
  const NDArray ga = NDArray::random({1, 3, 4, 2}, Float(32), 22, -1.4, 1.4);
  const std::vector<float> want = graph::build(graph, "llvm").run({{"x", xa}, {"g", ga}}).to_vector<float>();
  for (const char *target : {"opengl", "opengl -mode=fragment", "opencl"}) {
    INFO(target);
    // Fused, the trigonometric chain is inlined into every tap of every sample: one kernel
    // that PoCL's optimiser (a CPU device) takes minutes over. One kernel per node on
    // "opencl" checks the same maps.
    graph::BuildOptions o;
    o.fuse_operators = std::string(target) != "opencl";
    check_near(graph::build(graph, target, o).run({{"x", xa}, {"g", ga}}).to_vector<float>(), want, 1e-4);
  }
}

TEST_CASE("shifts run on OpenGL compute shaders as on llvm", "[graph][ops][opengl]") {
  graph::Builder b;
  auto x = b.input("x", {3, 8}, UInt(32));
  auto n = b.input("n", {8}, UInt(32));
  const graph::Graph g =
      b.finish(b.make("add", {b.make("shift_left", {x, n}), b.make("shift_right", {x, n})}, {}, "y"));
  const NDArray xa = NDArray::random({3, 8}, UInt(32), 23, 0, 1e9);
  const NDArray na = NDArray::from_vector<uint32_t>({0, 1, 5, 17, 31, 32, 40, 3}, {8});
  const std::vector<uint32_t> want = graph::build(g, "llvm").run({{"x", xa}, {"n", na}}).to_vector<uint32_t>();
  CHECK(graph::build(g, "opengl").run({{"x", xa}, {"n", na}}).to_vector<uint32_t>() == want);
}

TEST_CASE("grid_sample, resize2d and the shifts check their inputs", "[graph][ops][error]") {
  graph::Builder b;
  auto x = b.input("x", {1, 2, 4, 4});
  auto g = b.input("g", {1, 3, 3, 3});
  auto i = b.input("i", {4}, Int(32));
  auto f = b.input("f", {4});
  REQUIRE_THROWS_WITH(b.make("grid_sample", {x, g}, {}, "gs"),
                      Contains("node 'gs' (grid_sample): ") && Contains("[N, Ho, Wo, 2]"));
  auto g2 = b.input("g2", {1, 3, 3, 2});
  REQUIRE_THROWS_WITH(b.make("grid_sample", {x, g2}, {{"mode", std::string("area")}}, "gs2"), Contains("mode 'area'"));
  REQUIRE_THROWS_WITH(b.make("grid_sample", {x, g2}, {{"padding_mode", std::string("wrap")}}, "gs3"),
                      Contains("padding_mode 'wrap'"));
  REQUIRE_THROWS_WITH(b.make("resize2d", {x}, {{"size", std::vector<int64_t>{2, 2}}, {"scale_h", 0.5}, {"scale_w", 0.5},
                                                {"mode", std::string("lanczos")}}, "rs"),
                      Contains("mode 'lanczos'"));
  REQUIRE_THROWS_WITH(b.make("shift_left", {f, f}, {}, "sh"),
                      Contains("node 'sh' (shift_left): ") && Contains("integer"));
  REQUIRE_THROWS_WITH(b.make("sin", {i}, {}, "s"), Contains("node 's' (sin): ") && Contains("float"));
}
