// ResNet-18 (torchvision's layout, seeded weights) compiled for every target this machine
// has, run on one random image: compile time, latency and error per target, then where
// the time goes on "llvm". "webgl" runs the shaders of the browser package on the native
// OpenGL context (`tensorir compile resnet18 --target webgl` writes the package itself).
//
// Errors are measured against the plain Eigen model in test/reference when the build has
// it (tests enabled); otherwise the OpenGL outputs are compared with the "llvm" output.
#include <tensorir/graph/executor.h>
#include <tensorir/graph/models.h>
#include <tensorir/runtime/parallel.h>
#include <tensorir/tensorir.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#if TENSORIR_HAVE_REFERENCE
#include "reference/resnet18_reference.h"
constexpr bool kHaveReference = true;
#else
constexpr bool kHaveReference = false;
#endif

using namespace tensorir;

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// max |x - ref| / max |ref|, stable where single logits are near zero.
double max_rel_error(const std::vector<float> &x, const std::vector<float> &ref) {
  double diff = 0, scale = 0;
  for (size_t i = 0; i < ref.size() && i < x.size(); ++i) {
    diff = std::max(diff, std::fabs(double(x[i]) - double(ref[i])));
    scale = std::max(scale, std::fabs(double(ref[i])));
  }
  return scale > 0 ? diff / scale : diff;
}

struct Row {
  std::string target;
  std::string status;  // empty when it ran
  double compile_s = 0, latency_ms = 0;
  int runs = 0;
  std::vector<float> out;
};

// Runs beyond the warm-up: 100 on "llvm"; on OpenGL (Mesa's llvmpipe renders on the CPU
// and one run can take seconds) as many as fit in about 20 s, between 3 and 20.
int runs_for(const std::string &target, double first_run_ms) {
  if (target == "llvm") return 100;
  return std::clamp(static_cast<int>(20000.0 / std::max(first_run_ms, 1.0)), 3, 20);
}

Row run_target(const graph::Graph &g, const std::string &target, const NDArray &input,
               std::optional<graph::CompiledModel> &keep) {
  Row r{target, "", 0, 0, 0, {}};
  try {
    graph::CompiledModel m = graph::build(g, target);
    r.compile_s = m.compile_ms() / 1e3;
    std::printf("  %-22s built %zu kernels in %.1f s, running...\n", target.c_str(), m.num_kernels(), r.compile_s);
    std::fflush(stdout);
    const std::map<std::string, NDArray> inputs{{"data", input}};
    auto t0 = Clock::now();
    r.out = m.run(inputs).to_vector<float>();  // warm-up, and the output to check
    r.runs = runs_for(target, ms_since(t0));
    std::vector<double> t;
    for (int i = 0; i < r.runs; ++i) {
      auto t1 = Clock::now();
      m.run(inputs);
      t.push_back(ms_since(t1));
    }
    r.latency_ms = median(t);
    if (target == "llvm") keep = m;
  } catch (const std::exception &e) {
    std::string why = e.what();
    if (auto nl = why.find('\n'); nl != std::string::npos) why = why.substr(0, nl);
    r.status = "unavailable: " + why;
  }
  return r;
}

}  // namespace

int main() {
  const uint64_t seed = 1;
  std::printf("ResNet-18, batch 1, 3x224x224, weights seed %llu, %d CPU threads\n",
              static_cast<unsigned long long>(seed), num_threads());
  const graph::Graph g = graph::resnet18(seed);
  NDArray input = NDArray::random({1, 3, 224, 224}, Float(32), 42);

  std::vector<std::string> targets{"llvm"};
  if (has_backend("opengl")) {
    targets.push_back("opengl");
    targets.push_back("opengl -mode=fragment");
    // The browser's shaders (what graph::export_web writes), run here on the native context.
    if (has_backend("webgl")) targets.push_back("webgl");
  }

  std::vector<Row> rows;
  std::optional<graph::CompiledModel> llvm_model;
  for (const std::string &t : targets) rows.push_back(run_target(g, t, input, llvm_model));
  if (!has_backend("opengl"))
    rows.push_back({"opengl", "unavailable: this build has no OpenGL backend", 0, 0, 0, {}});

  // What each output is judged against.
  std::vector<float> ref;
  std::string ref_name;
#if TENSORIR_HAVE_REFERENCE
  ref = reference::resnet18_forward(reference::resnet18_weights(seed), input.to_vector<float>());
  ref_name = "the independent Eigen reference (test/reference)";
#else
  if (!rows.empty() && rows[0].status.empty()) ref = rows[0].out;
  ref_name = "tensorir's own llvm output (built without tests, so no independent reference)";
#endif

  std::printf("\n%-22s  %11s  %11s  %5s  %s\n", "target", "compile (s)", "latency (ms)", "runs",
              "max rel error");
  std::printf("%s\n", std::string(72, '-').c_str());
  for (const Row &r : rows) {
    if (!r.status.empty()) {
      std::printf("%-22s  %s\n", r.target.c_str(), r.status.c_str());
      continue;
    }
    std::string err = "n/a";
    if (!kHaveReference && r.target == "llvm") {
      err = "(the baseline)";
    } else if (!ref.empty()) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.2e", max_rel_error(r.out, ref));
      err = buf;
    }
    std::printf("%-22s  %11.2f  %12.2f  %5d  %s\n", r.target.c_str(), r.compile_s, r.latency_ms, r.runs,
                err.c_str());
  }
  std::printf("latency: median of 'runs' runs after one warm-up; error: max |out - ref| / max |ref|\n"
              "against %s.\n",
              ref_name.c_str());

  int status = 0;
  if (llvm_model) {
    const double compile_s = llvm_model->compile_ms() / 1e3;
    std::printf("\nllvm compile time: %.2f s (goal: under 20 s) %s\n", compile_s,
                compile_s < 20 ? "ok" : "OVER THE GOAL");
    std::vector<graph::KernelProfile> prof = llvm_model->profile({{"data", input}}, 10);
    double total = 0;
    for (const auto &k : prof) total += k.ms;
    std::sort(prof.begin(), prof.end(), [](const auto &a, const auto &b) { return a.ms > b.ms; });
    std::printf("\nTop 5 of %zu kernels on llvm (mean of 10 runs; all kernels: %.2f ms):\n", prof.size(), total);
    std::printf("%-24s  %-18s  %9s  %6s\n", "node", "op", "ms", "share");
    for (size_t i = 0; i < prof.size() && i < 5; ++i)
      std::printf("%-24s  %-18s  %9.3f  %5.1f%%\n", prof[i].node.c_str(), prof[i].op.c_str(), prof[i].ms,
                  total > 0 ? 100 * prof[i].ms / total : 0.0);
#if TENSORIR_HAVE_REFERENCE
    if (!ref.empty() && max_rel_error(rows[0].out, ref) >= 1e-4) {
      std::printf("\nllvm output disagrees with the reference\n");
      status = 1;
    }
#endif
  } else {
    std::printf("\nllvm build failed: %s\n", rows.empty() ? "" : rows[0].status.c_str());
    status = 1;
  }
  return status;
}
