// graph::build compiles structurally identical fused groups once: the kernels share one
// module, and the answers, in process and from a saved model, match plain loops.
#include <tensorir/graph/executor.h>
#include <tensorir/runtime/model_loader.h>

#include <set>

#include "graph/compiled_model.h"
#include "graph_test_util.h"

using namespace tensorir;

namespace {

constexpr int64_t kN = 4, kK = 8, kM = 16;

// left = relu(x . w1^T) and right = relu(u . w2^T), with w1 and w2 different constants
// of one shape: the two dense+relu groups are the same kernel.
graph::Graph two_branches(const NDArray &w1, const NDArray &w2) {
  graph::Builder b;
  auto x = b.input("x", {kN, kK});
  auto u = b.input("u", {kN, kK});
  auto left = b.relu(b.dense(x, b.constant("w1", w1)), "left");
  auto right = b.relu(b.dense(u, b.constant("w2", w2)), "right");
  return b.finish({left, right});
}

std::vector<float> dense_relu(const NDArray &x, const NDArray &w) {
  const std::vector<float> xv = x.to_vector<float>(), wv = w.to_vector<float>();
  std::vector<float> y(kN * kM);
  for (int64_t i = 0; i < kN; ++i)
    for (int64_t j = 0; j < kM; ++j) {
      float a = 0;
      for (int64_t k = 0; k < kK; ++k) a += xv[size_t(i * kK + k)] * wv[size_t(j * kK + k)];
      y[size_t(i * kM + j)] = std::max(a, 0.0f);
    }
  return y;
}

size_t distinct_modules(const graph::CompiledModel &m) {
  std::set<const ModuleNode *> modules;
  for (const graph::Kernel &k : m.impl().kernels) modules.insert(k.module.node());
  return modules.size();
}

}  // namespace

TEST_CASE("graph::build compiles identical groups once and both give the right answer", "[graph][kernel_sharing]") {
  const NDArray w1 = NDArray::random({kM, kK}, Float(32), 1), w2 = NDArray::random({kM, kK}, Float(32), 2);
  const NDArray x = NDArray::random({kN, kK}, Float(32), 3), u = NDArray::random({kN, kK}, Float(32), 4);
  const std::vector<float> left = dense_relu(x, w1), right = dense_relu(u, w2);
  for (const bool tuned : {true, false}) {
    INFO("tuned schedules: " << tuned);
    graph::BuildOptions opt;
    opt.tuned_schedules = tuned;
    const graph::CompiledModel m = graph::build(two_branches(w1, w2), "llvm", opt);
    REQUIRE(m.num_kernels() == 2);
    CHECK(distinct_modules(m) == 1);
    const auto &k = m.impl().kernels;
    CHECK(k[0].module.node() == k[1].module.node());
    CHECK(k[0].fname == k[1].fname);
    CHECK(k[0].args != k[1].args);  // each reads its own weight
    const graph::Outputs out = m.run({{"x", x}, {"u", u}});
    graph_test::check_near(out["left"].to_vector<float>(), left);
    graph_test::check_near(out["right"].to_vector<float>(), right);

    // The saved model links the shared kernel once and calls it twice.
    graph_test::TempDir dir(std::string("kernel_sharing_") + (tuned ? "tuned" : "generic"));
    m.save(dir.str());
    runtime::LoadedModel loaded = runtime::load_model(dir.str());
    const std::map<std::string, NDArray> saved = loaded.run_all({{"x", x}, {"u", u}});
    graph_test::check_near(saved.at("left").to_vector<float>(), left);
    graph_test::check_near(saved.at("right").to_vector<float>(), right);
  }
}

TEST_CASE("graph::build keeps groups that differ in a shape or an attribute apart", "[graph][kernel_sharing]") {
  graph::Builder b;
  auto x = b.input("x", {kN, kK});
  auto wide = b.relu(b.dense(x, b.constant("w1", NDArray::random({kM, kK}, Float(32), 1))));
  auto narrow = b.relu(b.dense(x, b.constant("w2", NDArray::random({kK, kK}, Float(32), 2))));
  auto s1 = b.softmax(wide, -1), s2 = b.softmax(wide, 0);
  const graph::CompiledModel m = graph::build(b.finish({narrow, s1, s2}), "llvm");
  CHECK(distinct_modules(m) == m.num_kernels());
}
