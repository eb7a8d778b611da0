// The float32 subset of ONNX's backend node cases (every graph input and output float32,
// passing on "llvm") as web packages, for the runners under Node ("wasm") and in Chromium
// ("webgl") in test/web/onnx_cases_test.mjs. For each target, <dir>/<target>/ gets one
// package per case (without the runtime, which the runners serve from web/runtime), with
// each data set's inputs and ONNX's outputs as raw float32 files, and cases.json listing
// every case: "exported" with its data sets, or "unsupported" with the reason the build or
// the export refused it (a package holds one output, for one). Hidden from the plain runs:
// ctest runs it before the runners (TENSORIR_ONNX_WEB_DIR names <dir>; by default
// onnx_web_cases in the build tree).
#include <tensorir/graph/export_web.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "onnx/backend_cases.h"

using namespace tensorir;
using namespace tensorir::onnx_cases;
namespace tonnx = tensorir::onnx;  // ::onnx is ONNX's protobuf namespace

namespace {

void write_floats(const fs::path &p, const NDArray &a) {
  TIR_USER_CHECK(a.dtype() == Float(32)) << p.string() << ": " << a.dtype().str() << ", not float32";
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(static_cast<const char *>(a.data()), std::streamsize(a.nbytes()));
  TIR_USER_CHECK(out.good()) << "writing " << p.string() << " failed";
}

std::string json_list(const std::vector<std::string> &items, bool quote) {
  std::string out = "[";
  for (size_t i = 0; i < items.size(); ++i)
    out += (i ? ", " : "") + (quote ? "\"" + json_escape(items[i]) + "\"" : items[i]);
  return out + "]";
}

// The data sets of the case, written next to its package: {"inputs": {name: file},
// "outputs": [{"file", "shape"}]} each, for the graph inputs the built model kept.
std::string write_sets(const graph::CompiledModel &m, const tonnx::ModelInfo &info,
                       const std::vector<fs::path> &sets, const fs::path &dir) {
  std::vector<std::string> kept;
  for (int id : m.graph().input_ids()) kept.push_back(m.graph().node(id).name);
  std::vector<std::string> out;
  for (size_t k = 0; k < sets.size(); ++k) {
    const std::vector<fs::path> inputs = numbered(sets[k], "input_"), outputs = numbered(sets[k], "output_");
    std::string feed;
    for (size_t i = 0; i < inputs.size() && i < info.inputs.size(); ++i) {
      if (std::find(kept.begin(), kept.end(), info.inputs[i].name) == kept.end()) continue;
      const std::string file = "set" + std::to_string(k) + "_input" + std::to_string(i) + ".bin";
      write_floats(dir / file, tonnx::read_tensor(inputs[i].string()));
      feed += (feed.empty() ? "" : ", ") + ("\"" + json_escape(info.inputs[i].name) + "\": \"" + file + "\"");
    }
    std::vector<std::string> want;
    for (size_t j = 0; j < outputs.size(); ++j) {
      const NDArray a = tonnx::read_tensor(outputs[j].string());
      const std::string file = "set" + std::to_string(k) + "_output" + std::to_string(j) + ".bin";
      write_floats(dir / file, a);
      std::vector<std::string> shape;
      for (int64_t d : a.shape()) shape.push_back(std::to_string(d));
      want.push_back("{\"file\": \"" + file + "\", \"shape\": " + json_list(shape, false) + "}");
    }
    out.push_back("{\"inputs\": {" + feed + "}, \"outputs\": " + json_list(want, false) + "}");
  }
  return json_list(out, false);
}

// One case for `target`: its entry in cases.json.
std::string export_case(const Case &c, const tonnx::ModelInfo &info, const std::vector<fs::path> &sets,
                        const std::string &target, const fs::path &root) {
  const std::string name = c.dir.filename().string();
  std::vector<std::string> ops;
  for (const auto &[op, count] : info.operators) ops.push_back(op);
  std::string entry = "{\"category\": \"" + c.category + "\", \"name\": \"" + name + "\", \"ops\": " +
                      json_list(ops, true) + ", ";
  const fs::path dir = root / name;
  try {
    const graph::CompiledModel m = graph::build(tonnx::import((c.dir / "model.onnx").string()), target);
    graph::export_web(m, dir.string(), {.name = name, .copy_runtime = false});
    return entry + "\"status\": \"exported\", \"sets\": " + write_sets(m, info, sets, dir) + "}";
  } catch (const std::exception &e) {
    fs::remove_all(dir);
    return entry + "\"status\": \"unsupported\", \"reason\": \"" + json_escape(e.what()) + "\"}";
  }
}

}  // namespace

TEST_CASE("ONNX backend float32 node cases as web packages", "[.][onnx_web_export]") {
  const char *env = std::getenv("TENSORIR_ONNX_WEB_DIR");
  const fs::path root = env ? fs::path(env) : fs::path(TENSORIR_ONNX_SUMMARY_DIR) / "onnx_web_cases";
  const auto t0 = std::chrono::steady_clock::now();
  const std::vector<std::string> targets = {"wasm", "webgl"};
  std::map<std::string, std::vector<std::string>> entries;
  for (const std::string &t : targets) fs::remove_all(root / t);
  for (const Case &c : list_cases()) {
    tonnx::ModelInfo info;
    std::vector<fs::path> sets;
    if (!in_float32_subset(c, &info, &sets)) continue;
    for (const std::string &t : targets) entries[t].push_back(export_case(c, info, sets, t, root / t));
  }
  for (const std::string &t : targets) {
    fs::create_directories(root / t);
    std::ofstream os(root / t / "cases.json");
    os << "{\"target\": \"" << t << "\", \"rtol\": " << kRtol << ", \"atol\": " << kAtol << ", \"cases\": [\n  ";
    for (size_t i = 0; i < entries[t].size(); ++i) os << (i ? ",\n  " : "") << entries[t][i];
    os << "\n]}\n";
    REQUIRE(os.good());
    std::printf("%zu float32 node cases for \"%s\": %s\n", entries[t].size(), t.c_str(),
                (root / t / "cases.json").string().c_str());
  }
  std::printf("exported in %.1f s\n", std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  CHECK(!entries["wasm"].empty());
}
