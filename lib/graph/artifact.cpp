// The registries of model writers and web exporters, and the entry points that use them:
// CompiledModel::save and graph::export_web.
#include "tensorir/graph/artifact.h"

#include <map>
#include <mutex>

#include "compiled_model.h"
#include "tensorir/error.h"

namespace tensorir::graph {

namespace {

template <typename Fn>
struct Registry {
  std::mutex mu;
  std::map<std::string, Fn> fns;

  void add(const std::string &kind, Fn fn, const char *what) {
    TIR_ASSERT(fn != nullptr) << what << " for '" << kind << "': empty function";
    std::lock_guard<std::mutex> lock(mu);
    TIR_ASSERT(fns.emplace(kind, std::move(fn)).second) << what << " for '" << kind << "' registered twice";
  }
  Fn find(const std::string &kind) {
    std::lock_guard<std::mutex> lock(mu);
    auto it = fns.find(kind);
    return it == fns.end() ? Fn() : it->second;
  }
  std::vector<std::string> kinds() {
    std::lock_guard<std::mutex> lock(mu);
    std::vector<std::string> out;
    for (const auto &entry : fns) out.push_back(entry.first);
    return out;
  }
};

// Function-local and never destroyed: backends register from static initializers.
Registry<ModelWriterFn> &writers() {
  static auto *r = new Registry<ModelWriterFn>;
  return *r;
}
Registry<WebExporterFn> &exporters() {
  static auto *r = new Registry<WebExporterFn>;
  return *r;
}

// "\"llvm\"", "\"wasm\" or \"webgl\"", "none".
std::string quoted(const std::vector<std::string> &kinds, const char *conjunction) {
  if (kinds.empty()) return "none (the library was built without such a backend)";
  std::string s;
  for (size_t i = 0; i < kinds.size(); ++i)
    s += (i == 0 ? "" : i + 1 == kinds.size() ? std::string(" ") + conjunction + " " : ", ") + "\"" + kinds[i] + "\"";
  return s;
}

}  // namespace

void register_model_writer(const std::string &target_kind, ModelWriterFn fn) {
  writers().add(target_kind, std::move(fn), "register_model_writer");
}

void register_web_exporter(const std::string &target_kind, WebExporterFn fn) {
  exporters().add(target_kind, std::move(fn), "register_web_exporter");
}

std::vector<std::string> model_writer_kinds() { return writers().kinds(); }
std::vector<std::string> web_exporter_kinds() { return exporters().kinds(); }
bool has_web_exporter(const std::string &target_kind) { return exporters().find(target_kind) != nullptr; }

void CompiledModel::save(const std::string &dir) const {
  const Target &target = impl_->target;
  ModelWriterFn fn = writers().find(target.kind);
  TIR_USER_CHECK(fn != nullptr) << "save: the model was built for '" << target.str() << "'; only models built for "
                                << quoted(model_writer_kinds(), "or") << " can be saved (graph::build(g, \"llvm\"))";
  fn(*this, dir);
}

WebExportInfo export_web(const CompiledModel &model, const std::string &dir, const WebExportOptions &options) {
  const Target &target = model.impl().target;
  WebExporterFn fn = exporters().find(target.kind);
  TIR_USER_CHECK(fn != nullptr) << "export_web: the model was built for target '" << target.str()
                                << "'; web packages need one built for " << quoted(web_exporter_kinds(), "or")
                                << ": graph::build(graph, \"webgl\")";
  return fn(model, dir, options);
}

}  // namespace tensorir::graph
