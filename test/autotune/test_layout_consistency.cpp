// Tuning logs never change a model's layouts: whatever the configurations, graph::build
// inserts no layout_transform beyond the untuned build's (the channel blocks are not
// knobs, so a convolution's blocks always meet its producer's).
#include <tensorir/graph/executor.h>
#include <tensorir/graph/models.h>
#include <tensorir/warning.h>

#include <random>

#include "autotune/autotune_test_util.h"
#include "autotune/log_test_util.h"

using namespace tensorir;
using namespace tensorir::autotune_test;

namespace {

size_t layout_transforms(const graph::Graph &g) {
  size_t n = 0;
  for (const graph::Node &node : g.nodes()) n += node.op == "layout_transform";
  return n;
}

// The nodes of `g` that are no constant, in order.
std::vector<const graph::Node *> computed(const graph::Graph &g) {
  std::vector<const graph::Node *> nodes;
  for (const graph::Node &n : g.nodes())
    if (n.op != "constant") nodes.push_back(&n);
  return nodes;
}

// The built graphs of `g` untuned and with a log of one random configuration per task.
void check_same_layouts(const graph::Graph &g, const std::string &name, uint64_t seed) {
  TempLog log(name);
  std::mt19937_64 rng(seed);
  for (const autotune::Task &t : autotune::extract_tasks(g, "llvm"))
    autotune::append_record(log.path, record_of(t, int64_t(rng() % uint64_t(t.space_size())), {1.0}));
  graph::BuildOptions o;
  o.tuning_log = log.path;
  std::vector<std::string> warnings;
  const graph::CompiledModel tuned = build_warning(g, o, warnings);
  CHECK(warnings.empty());
  const graph::CompiledModel plain = graph::build(g, "llvm");
  INFO(name);
  CHECK(layout_transforms(tuned.graph()) == layout_transforms(plain.graph()));
  // Node for node the same layouts, not only as many transforms; a 3x3 convolution may
  // be Winograd's in one and direct in the other (the "winograd" knob), its weight then
  // another constant.
  const std::vector<const graph::Node *> a = computed(tuned.graph()), b = computed(plain.graph());
  REQUIRE(a.size() == b.size());
  const auto algorithm = [](const std::string &op) { return op == "conv2d_winograd" ? std::string("conv2d") : op; };
  for (size_t i = 0; i < b.size(); ++i) {
    INFO(b[i]->name);
    CHECK(algorithm(a[i]->op) == algorithm(b[i]->op));
    CHECK(a[i]->shape == b[i]->shape);
  }
}

}  // namespace

TEST_CASE("a log of random configurations adds no layout_transform to ResNet-18 or MobileNetV2",
          "[autotune][log][build]") {
  check_same_layouts(graph::resnet18(7), "layouts_resnet18", 31);
  check_same_layouts(graph::mobilenet_v2(7), "layouts_mobilenet_v2", 37);
}
