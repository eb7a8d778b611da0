// Exporting a compiled model as a web package: the model runs in a browser with WebGL2
// through the project's JavaScript runtime, with no server-side code.
//
//   graph::CompiledModel m = graph::build(graph::resnet18(0), "webgl");
//   graph::WebExportInfo info = graph::export_web(m, "out/resnet18", {.name = "resnet18"});
//
// The package (web format version 1) holds
// index.html (a demo page), tensorir/*.js (the runtime, embedded in the library when it
// was built), model.json (the textures of the storage plan, the fragment shaders and, per
// kernel, its passes, plus the graph for inspection) and params.bin (every constant,
// float32 little-endian). Every tensor lives in an RGBA32F texture, four elements per
// texel; values whose lifetimes do not overlap share a texture of the same size.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "tensorir/graph/executor.h"

namespace tensorir::graph {

struct WebExportOptions {
  std::string name;          // model.json "name"; empty: the directory's name
  bool copy_runtime = true;  // write index.html and tensorir/*.js next to model.json
};

struct WebExportInfo {
  std::vector<std::string> files;  // written, relative to the package directory
  size_t total_bytes = 0;          // of those files
  size_t model_json_bytes = 0;
  size_t params_bytes = 0;
  size_t textures = 0;             // in the storage plan
  size_t peak_bytes = 0;           // the storage plan's textures, in bytes
  size_t naive_bytes = 0;          // one texture per value, in bytes
  size_t programs = 0;
  size_t passes = 0;
  size_t runtime_files = 0;        // of the embedded runtime (0: the library was built without it)
};

// Writes the package of `model` into `dir` (created if needed; files of the same names
// are replaced) with the web exporter its target's backend registered (graph/artifact.h:
// "webgl" and "wasm"). Throws tensorir::Error when the model was built for a kind without
// one, when a shape is not constant or a tensor is not float32, or when `dir` cannot be
// written.
WebExportInfo export_web(const CompiledModel &model, const std::string &dir, const WebExportOptions &options = {});

// One model built for several targets in one package: `models` ("webgl" and/or "wasm"
// builds of the same graph, or of any kind with a web exporter) are exported into
// subdirectories named after their targets' kinds, and `dir`/model.json becomes an index of them (format "tensorir-index") from
// which the runtime's load() takes the one that suits the browser: WebGL2 on a GPU,
// WebAssembly where there is none or it is a software rasterizer (llvmpipe, SwiftShader),
// or the one load({backend}) names. index.html and tensorir/*.js are written once, at the
// top. Throws when `models` is empty, holds two of one kind, or one export throws.
WebExportInfo export_web_index(const std::vector<const CompiledModel *> &models, const std::string &dir,
                               const WebExportOptions &options = {});

}  // namespace tensorir::graph
