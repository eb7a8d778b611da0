// How a compiled model leaves the process: the backends register, per target kind, a
// model writer (CompiledModel::save: a model the runtime library runs without the
// compiler) and a web exporter (graph::export_web: a package a browser runs). The graph
// layer looks them up here and so never includes a backend.
//
//   const bool registered = [] {
//     graph::register_model_writer("llvm", save_cpu_model, "tensorir-saved-model",
//                                  {"model.json", "model.so", "params.bin"});
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

// Registering a kind twice is an internal error. Safe from static initializers. `format`:
// the "format" member of the model.json the function writes. `entries`: the names it puts
// at the top of its directory, files and subdirectories, and those of its earlier formats
// (the web runtime's, which every package shares, aside), so that a model written over an
// earlier one can clear what that one left.
void register_model_writer(const std::string &target_kind, ModelWriterFn fn, const std::string &format,
                           std::vector<std::string> entries);
void register_web_exporter(const std::string &target_kind, WebExporterFn fn, const std::string &format,
                           std::vector<std::string> entries);

// The kinds with a writer / an exporter, sorted.
std::vector<std::string> model_writer_kinds();
std::vector<std::string> web_exporter_kinds();
bool has_web_exporter(const std::string &target_kind);

// Every name a saved model or a web package may have at the top of its directory: the
// writers' and exporters' entries, the web runtime's files (index.html, tensorir/) and
// the subdirectories of a package for several targets (the exporters' kinds). Sorted.
std::vector<std::string> model_directory_entries();

// The names the model in directory `dir` put at its top, by the format its model.json
// names (a plan "model.txt" alone: a saved model of formats 1 to 3): a saved model's,
// a web package's with the web runtime's files, or an index's with its targets'
// subdirectories. None when `dir` holds no model of tensorir's: a model.json of another
// program's, or none. Sorted.
std::vector<std::string> earlier_model_entries(const std::string &dir);

}  // namespace tensorir::graph
