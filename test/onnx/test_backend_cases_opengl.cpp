// ONNX's backend test cases on "opengl" (GLSL compute shaders, in process on a headless
// EGL context): the float32 subset of node cases (every graph input and output float32;
// in fragment mode, also int64 and bool ones) that passes on "llvm" is built for "opengl"
// and run on its test data sets, compared
// with ONNX's outputs as on "llvm". A case the target refuses (an operator without a GL
// schedule, say) is "unsupported" with the reason; one that runs and gives other numbers
// fails the test. The table is printed and onnx_backend_cases_opengl.json is written into
// the build tree.
#include <tensorir/runtime/opengl.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <optional>

#include "onnx/backend_cases.h"
#include <catch2/catch.hpp>

using namespace tensorir;
using namespace tensorir::onnx_cases;
namespace tonnx = tensorir::onnx;  // ::onnx is ONNX's protobuf namespace

namespace {

// At least this many cases must pass on each target.
constexpr int kMinPassed = 200;

CaseResult run_on(const Case &c, const tonnx::ModelInfo &info, const std::vector<fs::path> &sets,
                  const std::string &target) {
  CaseResult r{c.category, c.dir.filename().string(), "passed", "", {}, {}, 0};
  for (const auto &[op, count] : info.operators) r.ops.push_back(op);
  const auto t0 = std::chrono::steady_clock::now();
  std::optional<graph::CompiledModel> m;
  try {
    m.emplace(graph::build(tonnx::import((c.dir / "model.onnx").string()), target));
  } catch (const std::exception &e) {
    r.status = "unsupported";  // the target refuses the graph
    r.reason = e.what();
  }
  try {
    for (size_t i = 0; m && i < sets.size() && r.reason.empty(); ++i) r.reason = run_data_set(*m, info, sets[i]);
    if (m && !r.reason.empty()) r.status = "failed";
  } catch (const std::exception &e) {
    r.status = "failed";
    r.reason = e.what();
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

void run_target(const std::string &target, const std::string &summary, bool int64_and_bool = false) {
  try {
    std::printf("OpenGL renderer: %s\n", opengl_renderer().c_str());
  } catch (const std::exception &e) {
    FAIL("no OpenGL context for \"" << target << "\": " << e.what());
  }
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<CaseResult> results;
  for (const Case &c : list_cases()) {
    tonnx::ModelInfo info;
    std::vector<fs::path> sets;
    if (in_float32_subset(c, &info, &sets, int64_and_bool)) results.push_back(run_on(c, info, sets, target));
  }
  const std::string failed = report(results, "ONNX backend float32 node cases on \"" + target + "\"", summary,
                                    true, target);
  int passed = 0;
  for (const CaseResult &r : results) passed += r.status == "passed";
  std::printf("%d of %zu cases passed on \"%s\" in %.1f s\n", passed, results.size(), target.c_str(),
              std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  INFO("cases that give other numbers than ONNX's on \"" << target << "\":" << failed);
  CHECK(failed.empty());
  INFO(passed << " cases passed on \"" << target << "\", fewer than " << kMinPassed);
  CHECK((passed >= kMinPassed || std::getenv("TENSORIR_ONNX_CASES")));  // a chosen few need not reach it
}

}  // namespace

TEST_CASE("ONNX backend float32 node cases on opengl", "[onnx][backend_gl][opengl]") {
  run_target("opengl", "onnx_backend_cases_opengl.json");
}

TEST_CASE("ONNX backend float32 node cases on opengl in fragment mode", "[onnx][backend_gl][opengl]") {
  // Textures hold float32: int64 and bool inputs and outputs are stored so (store_as_float).
  run_target("opengl -mode=fragment", "onnx_backend_cases_opengl_fragment.json", true);
}
