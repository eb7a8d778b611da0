// How a compiled model leaves the process: the backends register, per target kind, a
// model writer (CompiledModel::save: a model the runtime library runs without the
// compiler) and a web exporter (graph::export_web: a package a browser runs). The graph
// layer looks them up here and so never includes a backend.
//
//   const bool registered = [] {
//     graph::register_model_writer("llvm", save_cpu_model);
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

// Registering a kind twice is an internal error. Safe from static initializers.
void register_model_writer(const std::string &target_kind, ModelWriterFn fn);
void register_web_exporter(const std::string &target_kind, WebExporterFn fn);

// The kinds with a writer / an exporter, sorted.
std::vector<std::string> model_writer_kinds();
std::vector<std::string> web_exporter_kinds();
bool has_web_exporter(const std::string &target_kind);

}  // namespace tensorir::graph
