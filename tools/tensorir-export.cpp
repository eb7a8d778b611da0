// tensorir-export: compiles a network of the model zoo for WebGL2 or WebAssembly and
// writes it as a web package (graph/export_web.h) that a static file server can serve.
//
//   tensorir-export resnet18 -o out/resnet18
//   tensorir-export resnet18 --target wasm -o out/resnet18-wasm
//   tensorir-export resnet18 --target webgl --target wasm -o out/resnet18-both
//   tensorir-export mobilenet_v2 --seed 3 --max-texture-size 8192 -o out/mnv2
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "tensorir/error.h"
#include "tensorir/graph/artifact.h"
#include "tensorir/graph/executor.h"
#include "tensorir/graph/export_web.h"
#include "tensorir/graph/models.h"
#include "tensorir/target_kind.h"

namespace {

namespace graph = tensorir::graph;
using tensorir::Target;

const char *kUsage =
    "usage: tensorir-export MODEL [--seed N] [--target webgl|wasm] [--max-texture-size N] [--no-alter-layout] -o DIR\n"
    "  MODEL                 resnet18, resnet50 or mobilenet_v2 (seeded weights)\n"
    "  --seed N              weight seed (default 0)\n"
    "  --target T            webgl (the default: fragment shaders on the GPU) or wasm\n"
    "                        (WebAssembly with 128-bit SIMD on the CPU); given twice, both\n"
    "                        builds in one package, the browser's runtime choosing one\n"
    "  --max-texture-size N  webgl: largest texture width or height (default 4096)\n"
    "  --no-alter-layout     keep convolutions in NCHW (slower; the graph in model.json then\n"
    "                        has the network's own layouts and weight shapes)\n"
    "  -o DIR                the package directory (created if needed)\n";

struct UsageError {
  std::string message;
};

int64_t parse_int(const std::string &flag, const std::string &v, int64_t lo) {
  size_t used = 0;
  int64_t n = 0;
  try {
    n = std::stoll(v, &used);
  } catch (...) {
    used = 0;
  }
  if (used == 0 || used != v.size() || n < lo)
    throw UsageError{flag + " needs an integer of at least " + std::to_string(lo) + ", got '" + v + "'"};
  return n;
}

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

std::string mib(size_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f MiB", double(bytes) / (1024.0 * 1024.0));
  return buf;
}

int run(int argc, char **argv) {
  std::string model, out;
  std::vector<std::string> targets;
  uint64_t seed = 0;
  int64_t max_texture = 0;
  graph::BuildOptions options;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw UsageError{a + " needs a value"};
      return argv[++i];
    };
    if (a == "-h" || a == "--help") {
      std::fputs(kUsage, stdout);
      return 0;
    } else if (a == "-o" || a == "--output") {
      out = value();
    } else if (a == "--seed") {
      seed = uint64_t(parse_int(a, value(), 0));
    } else if (a == "--target") {
      targets.push_back(value());
    } else if (a == "--max-texture-size") {
      max_texture = parse_int(a, value(), 1);
    } else if (a == "--no-alter-layout") {
      options.alter_layout = false;
    } else if (!a.empty() && a[0] == '-') {
      throw UsageError{"unknown option '" + a + "'"};
    } else if (model.empty()) {
      model = a;
    } else {
      throw UsageError{"one model at a time; got '" + model + "' and '" + a + "'"};
    }
  }
  if (model.empty()) throw UsageError{"no model given"};
  if (out.empty()) throw UsageError{"no output directory given (-o DIR)"};
  graph::Graph g;
  if (model == "resnet18") g = graph::resnet18(seed);
  else if (model == "resnet50") g = graph::resnet50(seed);
  else if (model == "mobilenet_v2") g = graph::mobilenet_v2(seed);
  else throw UsageError{"unknown model '" + model + "'; choose resnet18, resnet50 or mobilenet_v2"};
  if (targets.empty()) targets.push_back("webgl");
  std::vector<graph::CompiledModel> built;
  std::string names;
  auto t0 = std::chrono::steady_clock::now();
  // Every target is checked before the first, slow, build.
  std::vector<Target> parsed;
  bool texture_limit_used = false;
  for (const std::string &target : targets) {
    Target t(target);
    if (!graph::has_web_exporter(t.kind)) {
      std::string kinds;
      for (const std::string &k : graph::web_exporter_kinds()) kinds += (kinds.empty() ? "" : " or ") + k;
      throw UsageError{"--target " + target + ": web packages are compiled for " + kinds};
    }
    // The kinds that keep tensors in textures take the limit on their size.
    if (max_texture > 0 && t.caps().textures && t.kind_info().find_option("max-texture-size")) {
      t.options["max-texture-size"] = std::to_string(max_texture);
      t.check();
      texture_limit_used = true;
    }
    parsed.push_back(t);
  }
  if (max_texture > 0 && !texture_limit_used)
    throw UsageError{"--max-texture-size is an option of targets that keep tensors in textures (--target webgl)"};
  for (const Target &t : parsed) {
    built.push_back(graph::build(g, t, options));
    names += (names.empty() ? "" : " and ") + t.str();
  }
  const double build_ms = ms_since(t0);
  t0 = std::chrono::steady_clock::now();
  graph::WebExportInfo info;
  if (built.size() == 1) {
    info = graph::export_web(built[0], out, {.name = model});
  } else {
    std::vector<const graph::CompiledModel *> models;
    for (const graph::CompiledModel &m : built) models.push_back(&m);
    info = graph::export_web_index(models, out, {.name = model});
  }
  const double export_ms = ms_since(t0);
  const graph::CompiledModel &m = built[0];
  const Target t = m.target();

  std::printf("%s (seed %llu) for %s -> %s\n", model.c_str(), static_cast<unsigned long long>(seed),
              names.c_str(), out.c_str());
  std::printf("  compiled %zu kernels in %.0f ms; exported in %.0f ms\n", m.num_kernels(), build_ms, export_ms);
  if (built.size() > 1)
    std::printf("  one package per target, and model.json indexing them for the runtime to choose\n");
  else if (t.caps().textures)
    std::printf("  %zu passes, %zu programs, %zu textures (%s; %s with one texture per value)\n", info.passes,
                info.programs, info.textures, mib(info.peak_bytes).c_str(), mib(info.naive_bytes).c_str());
  else
    std::printf("  model.wasm with %zu kernels; %s of memory for inputs and results\n", info.passes,
                mib(info.peak_bytes).c_str());
  std::printf("  model.json %s, params.bin %s, %zu files, %s in all\n", mib(info.model_json_bytes).c_str(),
              mib(info.params_bytes).c_str(), info.files.size(), mib(info.total_bytes).c_str());
  if (info.runtime_files == 0)
    std::printf("  note: this tensorir was built without the web runtime (web/runtime/*.js); the package "
                "has no index.html or tensorir/*.js\n");
  return 0;
}

}  // namespace

int main(int argc, char **argv) {
  try {
    return run(argc, argv);
  } catch (const UsageError &e) {
    std::fprintf(stderr, "tensorir-export: %s\n%s", e.message.c_str(), kUsage);
    return 2;
  } catch (const std::exception &e) {
    std::fprintf(stderr, "tensorir-export: %s\n", e.what());
    return 1;
  }
}
