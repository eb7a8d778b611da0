// Real networks exported from PyTorch (scripts/export_models.py: torchvision models, a
// BERT-sized encoder, a GPT-style decoder, seeded random weights) imported, built and
// run, each output compared with PyTorch's and with ONNX Runtime's
// (bench/peers/onnxruntime_run.cjs) on the same inputs: max |got - want| / max |want|
// within 1e-4 on "llvm", 1e-3 on the GPU targets.
//
// Hidden from the default run: `make check-models` exports the models and runs it with
// TENSORIR_MODELS_DIR set (TENSORIR_MODELS_TARGETS: targets besides "llvm", comma
// separated; TENSORIR_MODELS_CASES: only the cases whose name contains it).
#include <tensorir/frontend/onnx.h>
#include <tensorir/graph/executor.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "onnx/onnx_test_util.h"

using namespace tensorir;
namespace fs = std::filesystem;
namespace tonnx = tensorir::onnx;

namespace {

struct ModelCase {
  std::string name, output;
  std::vector<std::pair<std::string, std::string>> inputs;  // name, .npy file
};

std::vector<ModelCase> read_manifest(const fs::path &dir) {
  std::ifstream f(dir / "manifest.tsv");
  if (!f) FAIL("no " << (dir / "manifest.tsv") << ": run scripts/export_models.py --out " << dir);
  std::vector<ModelCase> cases;
  for (std::string line; std::getline(f, line);) {
    std::istringstream fields(line);
    ModelCase c;
    std::getline(fields, c.name, '\t');
    std::getline(fields, c.output, '\t');
    for (std::string in; std::getline(fields, in, '\t');) {
      const size_t eq = in.find('=');
      REQUIRE(eq != std::string::npos);
      c.inputs.emplace_back(in.substr(0, eq), in.substr(eq + 1));
    }
    if (!c.name.empty()) cases.push_back(c);
  }
  return cases;
}

// max |got - want| / max |want|
double relative_error(const NDArray &got, const NDArray &want) {
  REQUIRE(got.shape() == want.shape());
  const std::vector<float> g = got.to_vector<float>(), w = want.to_vector<float>();
  double diff = 0, scale = 0;
  for (size_t i = 0; i < g.size(); ++i) {
    const double d = std::fabs(double(g[i]) - double(w[i]));
    diff = std::isnan(d) ? INFINITY : std::max(diff, d);
    scale = std::max(scale, std::fabs(double(w[i])));
  }
  // An all-zero reference (a classifier left at zero) would compare nothing.
  REQUIRE(scale > 0);
  return diff / scale;
}

std::vector<std::string> split(const std::string &s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string t; std::getline(in, t, ',');)
    if (!t.empty()) out.push_back(t);
  return out;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

TEST_CASE("real networks from PyTorch match PyTorch and ONNX Runtime", "[.models]") {
  const char *dir_env = std::getenv("TENSORIR_MODELS_DIR");
  if (!dir_env) FAIL("set TENSORIR_MODELS_DIR to a directory written by scripts/export_models.py (make check-models)");
  const fs::path dir = dir_env;
  std::vector<std::string> targets = {"llvm"};
  if (const char *t = std::getenv("TENSORIR_MODELS_TARGETS"))
    for (const std::string &s : split(t)) targets.push_back(s);
  const char *only = std::getenv("TENSORIR_MODELS_CASES");
  std::printf("\n%-30s %-10s %9s %9s %9s %12s %12s\n", "case", "target", "import s", "build s", "run ms",
              "err torch", "err ort");
  for (const ModelCase &c : read_manifest(dir)) {
    if (only && c.name.find(only) == std::string::npos) continue;
    CAPTURE(c.name);
    std::map<std::string, NDArray> feed;
    for (const auto &[name, file] : c.inputs) feed[name] = NDArray::load_npy((dir / file).string());
    const NDArray torch_out = NDArray::load_npy((dir / (c.name + ".torch.npy")).string());
    if (!fs::exists(dir / (c.name + ".ort.npy")))
      FAIL("no " << c.name << ".ort.npy: run bench/peers/onnxruntime_run.cjs " << dir);
    const NDArray ort_out = NDArray::load_npy((dir / (c.name + ".ort.npy")).string());
    auto t0 = std::chrono::steady_clock::now();
    const graph::Graph g = tonnx::import((dir / (c.name + ".onnx")).string());
    const double import_s = seconds_since(t0);
    for (const std::string &target : targets) {
      CAPTURE(target);
      t0 = std::chrono::steady_clock::now();
      const graph::CompiledModel m = graph::build(g, target);
      const double build_s = seconds_since(t0);
      m.run(feed);  // warm-up
      t0 = std::chrono::steady_clock::now();
      const graph::Outputs out = m.run(feed);
      const double run_ms = 1e3 * seconds_since(t0);
      const NDArray got = out[c.output];
      const double e_torch = relative_error(got, torch_out), e_ort = relative_error(got, ort_out);
      std::printf("%-30s %-10s %9.2f %9.2f %9.1f %12.2e %12.2e\n", c.name.c_str(), target.c_str(), import_s, build_s,
                  run_ms, e_torch, e_ort);
      std::fflush(stdout);
      const double tolerance = target == "llvm" ? 1e-4 : 1e-3;
      CHECK(e_torch <= tolerance);
      CHECK(e_ort <= tolerance);
    }
  }
}
