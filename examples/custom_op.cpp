// An operator of your own in a graph: register it once (name, inputs, attributes,
// fusion pattern, compute, and optionally a schedule per target kind), then use it like
// the built-in ones on every target. Here hard_swish with a tunable slope,
//   y = x * clamp(alpha * x + 0.5, 0, 1),
// follows a convolution, fuses into its kernel, and the graph returns two outputs.
//
//   ./custom_op [target]     (default "llvm"; also "opengl", "webgl", ...)
#include <cmath>
#include <cstdio>

#include <tensorir/tensorir.h>

#include "tensorir/graph/executor.h"
#include "tensorir/graph/op_registry.h"
#include "tensorir/ops/schedule.h"

using namespace tensorir;

namespace {

void register_hard_swish() {
  graph::OpDef def;
  def.name = "example.hard_swish";
  def.doc = "x * clamp(alpha * x + 0.5, 0, 1)";
  def.inputs = {"x"};
  def.attrs = {{"alpha", graph::AttrType::Real, 1.0 / 6.0, "the slope of the gate"}};
  // Element-wise: it joins the kernel of the convolution before it.
  def.pattern = graph::OpPattern::kElementWise;
  def.compute = [](const graph::Node &n, const std::vector<Tensor> &in, const std::string &name) {
    const Tensor x = in[0];
    const float alpha = float(n.attr_double("alpha"));
    return compute(x.shape(), [&](const std::vector<Var> &i) {
      Expr v = x(std::vector<Expr>(i.begin(), i.end()));
      return v * min(max(v * alpha + 0.5f, 0.0f), 1.0f);
    }, name);
  };
  // When it leads a kernel of its own on a CPU kind ("llvm", "wasm"): the outermost axis
  // in parallel. Other targets get the generic schedule.
  graph::OpStrategy cpu;
  cpu.schedule = [](const graph::ScheduleContext &ctx) {
    Schedule s = ops::schedule_generic({ctx.out});
    s[ctx.out].parallel(ctx.out.axis(0));
    return s;
  };
  def.strategies["cpu"] = cpu;
  graph::register_op(def);
}

}  // namespace

int main(int argc, char **argv) {
  try {
    const Target target(argc > 1 ? argv[1] : "llvm");
    register_hard_swish();

    graph::Builder b;
    auto x = b.input("x", {1, 3, 32, 32});
    auto w = b.constant("conv.weight", NDArray::random({16, 3, 3, 3}, Float(32), 1));
    auto conv = b.conv2d(x, w, {.padding = {1, 1}}, "conv");
    auto act = b.make("example.hard_swish", {conv}, {{"alpha", 0.2}}, "act");
    auto pooled = b.global_avg_pool2d(act, "pooled");
    const graph::Graph g = b.finish({act, pooled});

    const graph::CompiledModel model = graph::build(g, target);
    const NDArray input = NDArray::random({1, 3, 32, 32}, Float(32), 2);
    const graph::Outputs out = model.run({{"x", input}});

    // The same through plain loops, from the convolution's result.
    graph::Builder rb;
    auto rx = rb.input("x", {1, 3, 32, 32});
    auto rconv = rb.conv2d(rx, rb.constant("conv.weight", NDArray::random({16, 3, 3, 3}, Float(32), 1)),
                           {.padding = {1, 1}}, "conv");
    const std::vector<float> c = graph::build(rb.finish(rconv), "llvm").run({{"x", input}}).to_vector<float>();
    double worst = 0;
    const std::vector<float> got = out["act"].to_vector<float>();
    for (size_t i = 0; i < c.size(); ++i) {
      const float want = c[i] * std::fmin(std::fmax(c[i] * 0.2f + 0.5f, 0.0f), 1.0f);
      worst = std::fmax(worst, std::fabs(double(got[i]) - want));
    }
    std::printf("target %s: %zu kernels; outputs:", target.str().c_str(), model.num_kernels());
    for (const std::string &name : out.names()) std::printf(" %s %s", name.c_str(), shape_str(out[name].shape()).c_str());
    std::printf("\nmax |act - loops| = %.2e\n", worst);
    for (const graph::KernelProfile &k : model.profile({{"x", input}}, 3)) {
      std::printf("  kernel %-8s %6.3f ms  computes", k.node.c_str(), k.ms);
      for (const std::string &n : k.fused) std::printf(" %s", n.c_str());
      std::printf("\n");
    }
    return worst < 1e-4 ? 0 : 1;
  } catch (const Error &e) {
    std::fprintf(stderr, "custom_op: %s\n", e.what());
    return 1;
  }
}
