// Operators registered by the program itself (not by the library) inside graphs on every
// target that runs in this process, graphs with several outputs, and the registry's
// checks of attributes and registrations.
#include <catch2/catch.hpp>

#include <cmath>

#include "graph/compiled_model.h"
#include "graph_test_util.h"
#include "tensorir/build.h"
#include "tensorir/graph/executor.h"
#include "tensorir/graph/op_registry.h"
#include "tensorir/ops/schedule.h"

using namespace tensorir;
using Catch::Matchers::Contains;

namespace {

// swish_beta(x) = x * sigmoid(beta * x), element-wise, with a CPU schedule of its own:
// the innermost axis as vectors of 8 where it divides, the outermost in parallel.
Schedule swish_cpu_schedule(const graph::ScheduleContext &ctx) {
  Schedule s = ops::schedule_generic({ctx.out});
  Stage st = s[ctx.out];
  const size_t rank = ctx.out.shape().size();
  const int64_t inner = *as_const_int(ctx.out.shape()[rank - 1]);
  if (inner % 8 == 0) {
    auto [o, i] = st.split(ctx.out.axis(int(rank) - 1), 8);
    st.vectorize(i);
  }
  st.parallel(ctx.out.axis(0));
  return s;
}

// sum over the channels of an NCHW tensor, [N, C, H, W] -> [N, 1, H, W]: a reduction
// with the generic schedule everywhere.
const bool registered = [] {
  graph::OpDef swish;
  swish.name = "test.swish_beta";
  swish.doc = "x * sigmoid(beta * x)";
  swish.inputs = {"x"};
  swish.attrs = {{"beta", graph::AttrType::Real, 1.0}};
  swish.pattern = graph::OpPattern::kElementWise;
  swish.layout = graph::LayoutRule::kElementWise;
  swish.compute = [](const graph::Node &n, const std::vector<Tensor> &in, const std::string &name) {
    const Tensor x = in[0];
    const float beta = float(n.attr_double("beta"));
    return compute(x.shape(), [&](const std::vector<Var> &i) {
      std::vector<Expr> idx(i.begin(), i.end());
      Expr v = x(idx);
      return v * sigmoid(v * beta);
    }, name);
  };
  graph::OpStrategy cpu;
  cpu.schedule = swish_cpu_schedule;
  swish.strategies["llvm"] = cpu;
  graph::register_op(swish);

  graph::OpDef sum_channels;
  sum_channels.name = "test.sum_channels";
  sum_channels.inputs = {"x"};
  sum_channels.pattern = graph::OpPattern::kReduction;
  sum_channels.check = [](const graph::Node &, const std::vector<const graph::Node *> &in) {
    TIR_USER_CHECK(in[0]->shape.size() == 4) << "input '" << in[0]->name << "' must be NCHW";
  };
  sum_channels.compute = [](const graph::Node &, const std::vector<Tensor> &in, const std::string &name) {
    const Tensor x = in[0];
    IterVar c = reduce_axis({0, x.shape()[1]}, "c");
    return compute({x.shape()[0], Expr(1), x.shape()[2], x.shape()[3]},
                   [&](Var n, Var, Var h, Var w) { return sum(x(n, c, h, w), {c}); }, name);
  };
  graph::register_op(sum_channels);
  return true;
}();

float swish_ref(float x, float beta) { return x / (1.0f + std::exp(-beta * x)); }

// 3x3 convolution, padding 1, stride 1, NCHW / OIHW, batch 1.
std::vector<float> conv3x3_ref(const std::vector<float> &x, const std::vector<float> &w, int c, int k, int h,
                               int wd) {
  std::vector<float> out(size_t(k * h * wd), 0.0f);
  for (int o = 0; o < k; ++o)
    for (int i = 0; i < h; ++i)
      for (int j = 0; j < wd; ++j) {
        double acc = 0;
        for (int ci = 0; ci < c; ++ci)
          for (int r = 0; r < 3; ++r)
            for (int s = 0; s < 3; ++s) {
              const int y = i + r - 1, z = j + s - 1;
              if (y < 0 || y >= h || z < 0 || z >= wd) continue;
              acc += double(x[size_t((ci * h + y) * wd + z)]) * w[size_t(((o * c + ci) * 3 + r) * 3 + s)];
            }
        out[size_t((o * h + i) * wd + j)] = float(acc);
      }
  return out;
}

struct Net {
  graph::Graph g;
  NDArray x, w;
};

// conv -> swish (fused into the conv's kernel where the target fuses) -> two outputs:
// the activation itself and its sum over channels.
Net custom_net() {
  graph::Builder b;
  Net net;
  net.x = NDArray::random({1, 8, 10, 16}, Float(32), 7);
  net.w = NDArray::random({16, 8, 3, 3}, Float(32), 8);
  auto x = b.input("x", {1, 8, 10, 16});
  auto w = b.constant("w", net.w);
  auto conv = b.conv2d(x, w, {.padding = {1, 1}}, "conv");
  auto act = b.make("test.swish_beta", {conv}, {{"beta", 1.5}}, "act");
  auto total = b.make("test.sum_channels", {act}, {}, "total");
  net.g = b.finish({act, total});
  return net;
}

void check_custom_net(const Target &target) {
  INFO("target " << target.str());
  const Net net = custom_net();
  const graph::CompiledModel m = graph::build(net.g, target);
  const graph::Outputs out = m.run({{"x", net.x}});
  REQUIRE(out.size() == 2);
  CHECK(out.names() == std::vector<std::string>{"act", "total"});

  std::vector<float> act = conv3x3_ref(net.x.to_vector<float>(), net.w.to_vector<float>(), 8, 16, 10, 16);
  for (float &v : act) v = swish_ref(v, 1.5f);
  std::vector<float> total(10 * 16, 0.0f);
  for (int k = 0; k < 16; ++k)
    for (int p = 0; p < 10 * 16; ++p) total[size_t(p)] += act[size_t(k * 160 + p)];

  CHECK(out["act"].shape() == std::vector<int64_t>{1, 16, 10, 16});
  CHECK(out["total"].shape() == std::vector<int64_t>{1, 1, 10, 16});
  CHECK(graph_test::max_rel_error(out["act"].to_vector<float>(), act) < 1e-4);
  CHECK(graph_test::max_rel_error(out["total"].to_vector<float>(), total) < 1e-4);
  CHECK(graph_test::max_rel_error(out.at(1).to_vector<float>(), total) < 1e-4);
}

}  // namespace

TEST_CASE("a program's own operators run inside a graph on llvm", "[graph][custom_op]") {
  check_custom_net("llvm");
  // Without tuned schedules the generic schedule computes the same.
  const Net net = custom_net();
  graph::BuildOptions plain;
  plain.tuned_schedules = false;
  const graph::Outputs out = graph::build(net.g, "llvm", plain).run({{"x", net.x}});
  const graph::Outputs tuned = graph::build(net.g, "llvm").run({{"x", net.x}});
  CHECK(graph_test::max_rel_error(out["act"].to_vector<float>(), tuned["act"].to_vector<float>()) < 1e-5);

  // Leading its own kernel, the operator runs under its registered CPU schedule.
  graph::Builder b;
  auto x = b.input("x", {3, 5, 32});
  const graph::Graph g = b.finish(b.make("test.swish_beta", {x}, {{"beta", -0.5}}, "y"));
  const NDArray xa = NDArray::random({3, 5, 32}, Float(32), 3);
  std::vector<float> want = xa.to_vector<float>();
  for (float &v : want) v = swish_ref(v, -0.5f);
  const graph::CompiledModel m = graph::build(g, "llvm");
  CHECK(graph_test::max_rel_error(m.run({{"x", xa}}).to_vector<float>(), want) < 1e-5);
  // Its schedule runs the outer axis on the thread pool; the generic one does not.
  CHECK_THAT(m.impl().kernels.at(0).module.source("ll"), Contains("tensorir_parallel_for"));
  const graph::CompiledModel generic = graph::build(g, "llvm", plain);
  CHECK_THAT(generic.impl().kernels.at(0).module.source("ll"), !Contains("tensorir_parallel_for"));
  CHECK(graph_test::max_rel_error(generic.run({{"x", xa}}).to_vector<float>(), want) < 1e-5);
}

TEST_CASE("a program's own operators run inside a graph on OpenGL", "[graph][custom_op][opengl][opencl]") {
  check_custom_net("opengl");
  check_custom_net("opencl");
  check_custom_net("opengl -mode=fragment");
  check_custom_net("webgl");  // the browser's shaders, run natively
}

TEST_CASE("a program's own operator fuses into a convolution's kernel", "[graph][custom_op]") {
  const Net net = custom_net();
  const graph::CompiledModel m = graph::build(net.g, "llvm");
  bool fused = false;
  for (const graph::KernelProfile &p : m.profile({{"x", net.x}}))
    fused = fused || (p.op == "conv2d" && std::find(p.fused.begin(), p.fused.end(), "act") != p.fused.end());
  CHECK(fused);
}

TEST_CASE("graphs with several outputs return each by name", "[graph][outputs][opencl]") {
  graph::Builder b;
  auto x = b.input("x", {2, 3, 4, 5});
  auto y = b.input("y", {2, 3, 4, 5});
  auto s = b.add(x, y, "s");
  auto r = b.relu(s, "r");          // an output that is also read by another node
  auto p = b.max_pool2d(r, {2, 2}, {1, 1}, {0, 0}, "p");
  const graph::Graph g = b.finish({p, r, x});
  const NDArray xa = NDArray::random({2, 3, 4, 5}, Float(32), 1), ya = NDArray::random({2, 3, 4, 5}, Float(32), 2);
  const std::vector<float> xv = xa.to_vector<float>(), yv = ya.to_vector<float>();
  std::vector<float> rv(xv.size());
  for (size_t i = 0; i < xv.size(); ++i) rv[i] = std::max(xv[i] + yv[i], 0.0f);
  std::vector<float> pv;
  for (int nc = 0; nc < 6; ++nc)
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 4; ++j) {
        float m = -INFINITY;
        for (int di = 0; di < 2; ++di)
          for (int dj = 0; dj < 2; ++dj) m = std::max(m, rv[size_t((nc * 4 + i + di) * 5 + j + dj)]);
        pv.push_back(m);
      }
  for (const char *target : {"llvm", "opengl", "opencl"}) {
    INFO(target);
    for (bool fuse : {true, false}) {
      graph::BuildOptions o;
      o.fuse_operators = fuse;
      const graph::Outputs out = graph::build(g, target, o).run({{"x", xa}, {"y", ya}});
      REQUIRE(out.names() == std::vector<std::string>{"p", "r", "x"});
      CHECK(out["p"].to_vector<float>() == pv);
      CHECK(out["r"].to_vector<float>() == rv);
      CHECK(out["x"].to_vector<float>() == xv);
    }
  }
  const graph::Outputs out = graph::build(g, "llvm").run({{"x", xa}, {"y", ya}});
  CHECK_THROWS_WITH(out["q"], Contains("no output called 'q'") && Contains("'p', 'r', 'x'"));
  CHECK_THROWS_WITH(out.to_vector<float>(), Contains("has 3 outputs") && Contains("out[\"name\"]"));
  CHECK_THROWS_WITH(g.output(), Contains("3 outputs"));
  CHECK_THROWS_WITH(b.finish({p, p}), Contains("'p' is given twice"));
}

TEST_CASE("the operator registry checks attributes against each schema", "[graph][custom_op][error]") {
  graph::Builder b;
  auto x = b.input("x", {1, 4, 6, 6});
  // Defaults fill what is not given.
  const graph::Node &d = b.node(b.make("test.swish_beta", {x}, {}, "d"));
  CHECK(d.attr_double("beta") == 1.0);
  CHECK_THROWS_WITH(b.make("test.swish_beta", {x}, {{"gamma", 1.0}}),
                    Contains("unknown attribute 'gamma'") && Contains("takes: beta"));
  CHECK_THROWS_WITH(b.make("test.swish_beta", {x}, {{"beta", std::string("big")}}),
                    Contains("attribute 'beta' must be a number"));
  CHECK_THROWS_WITH(b.make("test.swish_beta", {x}, {{"beta", NAN}}), Contains("finite"));
  CHECK_THROWS_WITH(b.make("max_pool2d", {x}, {{"strides", std::vector<int64_t>{1, 1}}}),
                    Contains("missing attribute 'pool_size'"));
  CHECK_THROWS_WITH(b.make("max_pool2d", {x}, {{"pool_size", std::vector<int64_t>{2}}, {"strides", std::vector<int64_t>{1, 1}}}),
                    Contains("'pool_size' must hold 2 values, got 1"));
  CHECK_THROWS_WITH(b.make("conv2d", {x, x}, {{"groups", int64_t{0}}}), Contains("groups must be at least 1"));
  // Integers beyond int range are refused rather than cut (4294967298 would run as 2).
  CHECK_THROWS_WITH(b.make("max_pool2d", {x}, {{"pool_size", std::vector<int64_t>{4294967298, 2}},
                                               {"strides", std::vector<int64_t>{1, 1}}}),
                    Contains("'pool_size' holds 4294967298") && Contains("2147483647"));
  CHECK_THROWS_WITH(b.make("softmax", {x}, {{"axis", int64_t{4294967297}}}),
                    Contains("'axis' is 4294967297") && Contains("2147483647"));
  CHECK_THROWS_WITH(b.input("huge", {65536, 65536}), Contains("huge") && Contains("2147483647 elements"));
  CHECK_THROWS_WITH(b.make("no_such_op", {x}), Contains("unknown operator 'no_such_op'") && Contains("test.swish_beta"));
  CHECK_THROWS_WITH(b.make("test.sum_channels", {x, x}), Contains("takes 1 inputs but was given 2"));
  auto flat = b.flatten(x);
  CHECK_THROWS_WITH(b.make("test.sum_channels", {flat}), Contains("(test.sum_channels): input") && Contains("NCHW"));
}

TEST_CASE("register_op refuses incomplete or clashing operators", "[graph][custom_op][error]") {
  graph::OpDef def;
  CHECK_THROWS_WITH(graph::register_op(def), Contains("no name"));
  def.name = "test.no_compute";
  CHECK_THROWS_WITH(graph::register_op(def), Contains("no compute function"));
  def.name = "relu";
  def.compute = [](const graph::Node &, const std::vector<Tensor> &in, const std::string &) { return in[0]; };
  CHECK_THROWS_WITH(graph::register_op(def), Contains("'relu' is already registered"));
  def.name = "input";
  CHECK_THROWS_WITH(graph::register_op(def), Contains("reserved"));
  def.name = "test.bad_default";
  def.attrs = {{"k", graph::AttrType::Int, 1.5}};
  CHECK_THROWS_WITH(graph::register_op(def), Contains("default of attribute 'k' is not an integer"));
  def.attrs = {{"k", graph::AttrType::Ints, std::vector<int64_t>{1}}};
  def.attrs[0].ints_size = 2;
  CHECK_THROWS_WITH(graph::register_op(def), Contains("holds 1 values but the attribute takes 2"));
  CHECK(graph::find_op("test.bad_default") == nullptr);
  CHECK(graph::op_def("conv2d").pattern == graph::OpPattern::kOutFusable);
  const std::vector<std::string> ops = graph::registered_ops();
  CHECK(std::find(ops.begin(), ops.end(), "test.swish_beta") != ops.end());
}

TEST_CASE("nodes added without the Builder get their operators' default attributes", "[graph][custom_op]") {
  graph::Graph g;
  graph::Node x;
  x.name = "x";
  x.op = "input";
  x.shape = {1, 2, 6, 6};
  g.add_node(x);
  graph::Node w;
  w.name = "w";
  w.op = "constant";
  w.value = NDArray::random({3, 2, 3, 3}, Float(32), 5);
  w.shape = {3, 2, 3, 3};
  g.add_node(w);
  graph::Node conv;  // only the attributes a conv2d needed before its schema had defaults
  conv.name = "conv";
  conv.op = "conv2d";
  conv.inputs = {0, 1};
  conv.attrs = {{"strides", std::vector<int64_t>{1, 1}}, {"padding", std::vector<int64_t>{1, 1}},
                {"dilation", std::vector<int64_t>{1, 1}}, {"groups", int64_t{1}}};
  conv.shape = {1, 3, 6, 6};
  g.set_output(g.add_node(conv));
  CHECK(g.node("conv").attr_string("kernel_layout") == "OIHW");
  const NDArray xa = NDArray::random({1, 2, 6, 6}, Float(32), 6);
  const std::vector<float> want = conv3x3_ref(xa.to_vector<float>(), w.value.to_vector<float>(), 2, 3, 6, 6);
  CHECK(graph_test::max_rel_error(graph::build(g, "llvm").run({{"x", xa}}).to_vector<float>(), want) < 1e-5);
}

TEST_CASE("any exception of an operator's compute becomes an Error naming the node", "[graph][custom_op][error]") {
  graph::OpDef def;
  def.name = "test.throws";
  def.inputs = {"x"};
  def.compute = [](const graph::Node &, const std::vector<Tensor> &, const std::string &) -> Tensor {
    throw std::out_of_range("map::at");
  };
  graph::register_op(def);
  graph::Builder b;
  auto x = b.input("x", {4});
  CHECK_THROWS_MATCHES(b.make("test.throws", {x}, {}, "t"), Error,
                       Catch::Matchers::Message("node 't' (test.throws): map::at"));
}

namespace {

// A kernel's extern function that runs a model: the same one (re-entrant) or another.
const graph::CompiledModel *g_inner = nullptr;
std::string g_inner_error;
extern "C" float tir_test_run_inner(float x) {
  try {
    g_inner->run({{"x", NDArray::from_vector<float>({x}, {1})}});
  } catch (const Error &e) {
    g_inner_error = e.what();
  }
  return x + 1.0f;
}

graph::Graph calling_graph() {
  static const bool op = [] {
    register_extern_function("tir_test_run_inner", reinterpret_cast<void *>(&tir_test_run_inner));
    graph::OpDef d;
    d.name = "test.run_inner";
    d.inputs = {"x"};
    d.pattern = graph::OpPattern::kOpaque;
    d.compute = [](const graph::Node &, const std::vector<Tensor> &in, const std::string &name) {
      const Tensor x = in[0];
      return compute(x.shape(), [&](Var i) { return call_extern(Float(32), "tir_test_run_inner", {x(i)}); }, name);
    };
    graph::register_op(d);
    return true;
  }();
  (void)op;
  graph::Builder b;
  auto x = b.input("x", {1});
  return b.finish(b.make("test.run_inner", {x}, {}, "y"));
}

}  // namespace

TEST_CASE("a model run again from inside its own run is an Error, not a deadlock", "[graph][custom_op][error]") {
  const graph::CompiledModel outer = graph::build(calling_graph(), "llvm");
  const graph::CompiledModel relu = [] {
    graph::Builder b;
    auto x = b.input("x", {1});
    return graph::build(b.finish(b.relu(x)), "llvm");
  }();
  // Another model runs inside: fine.
  g_inner = &relu;
  g_inner_error.clear();
  CHECK(outer.run({{"x", NDArray::from_vector<float>({2}, {1})}}).single().to_vector<float>() ==
        std::vector<float>{3});
  CHECK(g_inner_error.empty());
  // The same model: the inner run is refused, the outer one finishes.
  g_inner = &outer;
  CHECK(outer.run({{"x", NDArray::from_vector<float>({2}, {1})}}).single().to_vector<float>() ==
        std::vector<float>{3});
  CHECK_THAT(g_inner_error, Contains("model run: the model is already running on this thread") &&
                                Contains("build or load the model a second time"));
  g_inner = nullptr;
}
