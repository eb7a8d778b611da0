// How a compiled model leaves the process: the backends register, per target kind, a
// model writer (CompiledModel::save: a model the runtime library runs without the
// compiler) and a web exporter (graph::export_web: a package a browser runs). The graph
// layer looks them up here and so never includes a backend.
//
//   const bool registered = [] {
//     graph::register_model_writer("llvm", save_cpu_model, {"model.json", "model.so", "params.bin"});
//     return true;
//   }();
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "tensorir/graph/executor.h"
#include "tensorir/graph/export_web.h"

namespace tensorir::graph {

// Writes `model` into the directory `dir` (created if needed).
using ModelWriterFn = std::function<void(const CompiledModel &model, const std::string &dir)>;
// Writes the web package of `model` into `dir` (created if needed).
using WebExporterFn =
    std::function<WebExportInfo(const CompiledModel &model, const std::string &dir, const WebExportOptions &options)>;

// Registering a kind twice is an internal error. Safe from static initializers. `entries`:
// the names the function puts at the top of its directory, files and subdirectories, and
// those of its earlier formats (the web runtime's, which every package shares, aside), so
// that a model written over an earlier one can clear what that one left.
void register_model_writer(const std::string &target_kind, ModelWriterFn fn, std::vector<std::string> entries);
void register_web_exporter(const std::string &target_kind, WebExporterFn fn, std::vector<std::string> entries);

// The kinds with a writer / an exporter, sorted.
std::vector<std::string> model_writer_kinds();
std::vector<std::string> web_exporter_kinds();
bool has_web_exporter(const std::string &target_kind);

// Every name a saved model or a web package may have at the top of its directory: the
// writers' and exporters' entries, the web runtime's files (index.html, tensorir/) and
// the subdirectories of a package for several targets (the exporters' kinds). Sorted.
std::vector<std::string> model_directory_entries();

}  // namespace tensorir::graph
