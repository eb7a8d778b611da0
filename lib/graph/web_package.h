// What the web exporters share: writing the package's files, the embedded runtime, the
// checksum of params.bin and the JSON of shapes and of the graph.
#pragma once
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "compiled_model.h"
#include "runtime/json.h"
#include "runtime/model_files.h"
#include "graph/web_assets.h"
#include "tensorir/graph/export_web.h"
#include "tensorir/graph/graph.h"


namespace tensorir::graph::web_package {

// FNV-1a 32 and model.json's entry for a file of the package, {file, bytes, fnv1a32}: what
// the JS runtime checks a download against (validateFile in web/runtime/validate.js), and
// what a saved model's model.json records (runtime/model_files.h).
using runtime::file_json;
using runtime::fnv1a32;
using runtime::hex32;
json::Value shape_json(const std::vector<int64_t> &shape);
// Every node: name, op, inputs, shape, dtype and attributes, for inspection.
json::Value graph_json(const Graph &g);
void check_float32(const Node &n, const char *role);
// An input or output of a package: float32, int32, int64 or bool (run() takes and gives
// the typed array of each; web/runtime/dtypes.js).
void check_io_dtype(const Node &n, const char *role);
// A package whose outputs are constants needs a kernel to run: an error naming the first
// constant output of a model without kernels (a model passing its inputs through is fine).
void check_something_runs(const CompiledModel::Impl &m);
// A kernel's name, its result's node, its operator (the anchor's, if any) and the nodes
// fused into it; the exporter adds how to run it.
json::Value kernel_json(const Graph &g, const Kernel &k);

// Creates `dir` (and its parents); an error when it cannot or when it is a file.
std::filesystem::path make_directory(const std::string &dir);
// The package's name: the option, else the directory's.
std::string package_name(const std::filesystem::path &root, const WebExportOptions &options);
// Writes one file of the package and records it in `info`.
void write_file(const std::filesystem::path &path, std::string_view bytes, WebExportInfo &info,
                const std::string &rel);
// index.html and tensorir/*.js (every embedded file but the RPC page), when the options
// ask for them.
void write_runtime(const std::filesystem::path &root, const WebExportOptions &options, WebExportInfo &info);

}  // namespace tensorir::graph::web_package
