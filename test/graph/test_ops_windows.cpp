// conv3d, conv3d_transpose, pool_nd and max_pool_indices against plain loops
// (reference/windows.h) on every target that runs here, and their checks.
#include <catch2/catch.hpp>

#include "graph/compiled_model.h"
#include "graph/graph_test_util.h"
#include "reference/windows.h"
#include "tensorir/graph/executor.h"
#include "tensorir/graph/op_registry.h"

using namespace tensorir;
using Catch::Matchers::Contains;
using graph_test::check_near;
using reference::PoolParams;
using reference::WindowParams;

namespace {

std::vector<float> floats(const std::vector<double> &v) { return std::vector<float>(v.begin(), v.end()); }

// The graph y = op(x, w) (w optional) with the window's attributes.
graph::Graph window_graph(const std::string &op, const std::vector<int64_t> &xs, const std::vector<int64_t> &ws,
                          std::map<std::string, graph::AttrValue> attrs, Type dtype = Float(32)) {
  graph::Builder b;
  std::vector<graph::NodeRef> in = {b.input("x", xs, dtype)};
  if (!ws.empty()) in.push_back(b.input("w", ws));
  return b.finish(b.make(op, in, std::move(attrs), "y"));
}

// The graph's result on the CPU (tuned and generic schedules), OpenGL compute and WebGL's
// shaders, each against `want`.
void check_targets(const graph::Graph &g, const std::map<std::string, NDArray> &feed, const std::vector<float> &want,
                   const std::vector<int64_t> &shape, bool gl = true) {
  std::vector<std::pair<std::string, bool>> runs = {{"llvm", true}, {"llvm", false}};
  if (gl) runs.insert(runs.end(), {{"opengl", true}, {"webgl", true}, {"opencl", true}});
  for (const auto &[target, tuned] : runs) {
    INFO("target " << target << (tuned ? "" : ", generic schedules"));
    graph::BuildOptions opts;
    opts.tuned_schedules = tuned;
    const NDArray out = graph::build(g, target, opts).run(feed);
    REQUIRE(out.shape() == shape);
    check_near(out.to_vector<float>(), want, 1e-4);
  }
}

std::map<std::string, graph::AttrValue> window_attrs(const WindowParams &p) {
  return {{"strides", p.strides}, {"dilation", p.dilation}, {"pads", p.pads}};
}

}  // namespace

TEST_CASE("conv3d matches plain loops on every target", "[graph][ops][opengl][opencl]") {
  struct Case {
    std::vector<int64_t> xs, ws;
    WindowParams p;
  };
  const std::vector<Case> cases = {
      // groups, strides, dilation and uneven pads
      {{2, 4, 5, 6, 7}, {6, 2, 3, 2, 3}, {{2, 1, 2}, {1, 2, 1}, {1, 0, 2, 0, 1, 1}, 2}},
      // output rows of 16 columns: the CPU schedule's vector tile
      {{1, 3, 4, 5, 16}, {8, 3, 3, 3, 3}, {{1, 1, 1}, {1, 1, 1}, {1, 1, 1, 1, 1, 1}, 1}},
  };
  for (size_t k = 0; k < cases.size(); ++k) {
    INFO("case " << k);
    const Case &c = cases[k];
    const NDArray x = NDArray::random(c.xs, Float(32), 1), w = NDArray::random(c.ws, Float(32), 2);
    std::vector<int64_t> shape;
    const std::vector<double> want =
        reference::conv_nd(x.to_vector<float>(), c.xs, w.to_vector<float>(), c.ws, c.p, &shape);
    auto attrs = window_attrs(c.p);
    attrs["groups"] = c.p.groups;
    check_targets(window_graph("conv3d", c.xs, c.ws, attrs), {{"x", x}, {"w", w}}, floats(want), shape);
  }
}

TEST_CASE("conv3d runs on the CPU in parallel on vectors of output columns", "[graph][ops]") {
  const graph::Graph g = window_graph("conv3d", {1, 3, 4, 5, 16}, {8, 3, 3, 3, 3},
                                      {{"pads", std::vector<int64_t>{1, 1, 1, 1, 1, 1}}});
  const std::string ll = graph::build(g, "llvm").impl().kernels.at(0).module.source("ll");
  CHECK_THAT(ll, Contains("tensorir_parallel_for"));
  CHECK_THAT(ll, Contains("<16 x float>"));
}

TEST_CASE("conv3d_transpose matches a plain scatter loop on every target", "[graph][ops][opengl][opencl]") {
  const std::vector<int64_t> xs = {1, 4, 3, 4, 3}, ws = {4, 2, 2, 3, 2};
  WindowParams p{{2, 1, 2}, {1, 2, 1}, {1, 0, 0, 0, 1, 1}, 2, {1, 0, 1}};
  const NDArray x = NDArray::random(xs, Float(32), 3), w = NDArray::random(ws, Float(32), 4);
  std::vector<int64_t> shape;
  const std::vector<double> want =
      reference::conv_transpose_nd(x.to_vector<float>(), xs, w.to_vector<float>(), ws, p, &shape);
  auto attrs = window_attrs(p);
  attrs["groups"] = p.groups;
  attrs["output_padding"] = p.output_padding;
  check_targets(window_graph("conv3d_transpose", xs, ws, attrs), {{"x", x}, {"w", w}}, floats(want), shape);
}

TEST_CASE("pool_nd and max_pool_indices match plain loops", "[graph][ops][opengl][opencl]") {
  struct Case {
    std::vector<int64_t> xs;
    PoolParams p;
  };
  const std::vector<Case> cases = {
      {{2, 3, 11}, {PoolParams::kMax, {3}, {{2}, {2}, {2, 1}}}},
      {{1, 2, 5, 6}, {PoolParams::kMax, {2, 3}, {{1, 2}, {2, 1}, {1, 0, 1, 2}}}},
      {{1, 2, 4, 5, 6}, {PoolParams::kMax, {2, 2, 3}, {{2, 1, 2}, {1, 1, 1}, {0, 1, 1, 1, 0, 1}}}},
  };
  for (size_t k = 0; k < cases.size(); ++k) {
    INFO("case " << k);
    const Case &c = cases[k];
    const NDArray x = NDArray::random(c.xs, Float(32), 5);
    auto attrs = window_attrs(c.p.window);
    attrs["kernel"] = c.p.kernel;
    const reference::PoolResult want = reference::pool_nd(x.to_vector<float>(), c.xs, c.p);
    check_targets(window_graph("pool_nd", c.xs, {}, attrs), {{"x", x}}, floats(want.values), want.shape);

    PoolParams sum = c.p;
    sum.kind = PoolParams::kSum;
    auto sum_attrs = attrs;
    sum_attrs["reduction"] = std::string("sum");
    check_targets(window_graph("pool_nd", c.xs, {}, sum_attrs), {{"x", x}},
                  floats(reference::pool_nd(x.to_vector<float>(), c.xs, sum).values), want.shape);

    for (int64_t order : {0, 1}) {
      INFO("storage_order " << order);
      PoolParams pi = c.p;
      pi.storage_order = order;
      auto index_attrs = attrs;
      index_attrs["storage_order"] = order;
      const graph::Graph g = window_graph("max_pool_indices", c.xs, {}, index_attrs);
      for (const char *target : {"llvm", "opengl", "opencl"}) {
        INFO("target " << target);
        const NDArray got = graph::build(g, target).run({{"x", x}});
        REQUIRE(got.dtype() == Int(64));
        CHECK(got.to_vector<int64_t>() == reference::pool_nd(x.to_vector<float>(), c.xs, pi).indices);
      }
      // WebGL's textures hold float32 or int32: int64 indices are refused, not truncated.
      CHECK_THROWS_WITH(graph::build(g, "webgl"), Contains("int64"));
    }
  }
}

TEST_CASE("pool_nd takes the maximum of int8 data and its first index on ties", "[graph][ops]") {
  const std::vector<int64_t> xs = {1, 2, 7, 6};
  const NDArray x = NDArray::random(xs, Int(8), 6, -128, -125);  // many ties, and the type's minimum
  const PoolParams p{PoolParams::kMax, {3, 2}, {{2, 2}, {1, 1}, {1, 1, 1, 0}}};
  std::vector<float> xf;
  for (int8_t v : x.to_vector<int8_t>()) xf.push_back(v);
  const reference::PoolResult want = reference::pool_nd(xf, xs, p);
  auto attrs = window_attrs(p.window);
  attrs["kernel"] = p.kernel;
  const NDArray got = graph::build(window_graph("pool_nd", xs, {}, attrs, Int(8)), "llvm").run({{"x", x}});
  REQUIRE(got.dtype() == Int(8));
  std::vector<double> g;
  for (int8_t v : got.to_vector<int8_t>()) g.push_back(v);
  CHECK(g == want.values);
  const NDArray idx = graph::build(window_graph("max_pool_indices", xs, {}, attrs, Int(8)), "llvm").run({{"x", x}});
  CHECK(idx.to_vector<int64_t>() == want.indices);
}

TEST_CASE("conv3d and pool_nd check their shapes and windows", "[graph][ops]") {
  graph::Builder b;
  auto x = b.input("x", {1, 4, 3, 3, 3});
  auto w = b.input("w", {2, 3, 2, 2, 2});
  CHECK_THROWS_WITH(b.make("conv3d", {x, w}), Contains("does not fit 4 input channels"));
  auto w4 = b.input("w4", {2, 4, 5, 2, 2});
  CHECK_THROWS_WITH(b.make("conv3d", {x, w4}), Contains("larger than the padded input"));
  auto x2 = b.input("x2", {1, 4, 3, 3});
  CHECK_THROWS_WITH(b.make("conv3d", {x2, w4}), Contains("must have rank 5"));
  const std::vector<int64_t> one = {1, 1, 1};
  auto unit = [&](size_t pads) {
    return std::map<std::string, graph::AttrValue>{
        {"kernel", one}, {"strides", one}, {"dilation", one}, {"pads", std::vector<int64_t>(pads, 0)}};
  };
  CHECK_THROWS_WITH(b.make("pool_nd", {x2}, unit(6)), Contains("does not fit a 3-D window"));
  CHECK_THROWS_WITH(b.make("pool_nd", {x}, unit(4)), Contains("pads must have 3, 3 and 6 values"));
  auto bad = unit(6);
  bad["reduction"] = std::string("mean");
  CHECK_THROWS_WITH(b.make("pool_nd", {x}, bad), Contains("neither max nor sum"));
  CHECK_THROWS_WITH(b.make("pool_nd", {x},
                           {{"kernel", std::vector<int64_t>{4, 1, 1}},
                            {"strides", one},
                            {"dilation", one},
                            {"pads", std::vector<int64_t>(6, 0)}}),
                    Contains("larger than the padded input"));
}
