// The registries of model writers and web exporters, and the entry points that use them:
// CompiledModel::save and graph::export_web.
#include "tensorir/graph/artifact.h"

#include <filesystem>
#include <map>
#include <mutex>
#include <set>

#include "compiled_model.h"
#include "graph/web_assets.h"
#include "runtime/json.h"
#include "runtime/model_files.h"
#include "tensorir/error.h"

namespace tensorir::graph {

namespace {

template <typename Fn>
struct Registry {
  std::mutex mu;
  std::map<std::string, Fn> fns;
  std::map<std::string, std::vector<std::string>> entries;  // by kind
  std::map<std::string, std::string> formats;                // by kind

  void add(const std::string &kind, Fn fn, const std::string &format, std::vector<std::string> names,
           const char *what) {
    TIR_ASSERT(fn != nullptr) << what << " for '" << kind << "': empty function";
    std::lock_guard<std::mutex> lock(mu);
    TIR_ASSERT(fns.emplace(kind, std::move(fn)).second) << what << " for '" << kind << "' registered twice";
    entries[kind] = std::move(names);
    formats[kind] = format;
  }
  // Every kind's entries, or (with `format`) those of the kinds that write it.
  void add_entries(std::set<std::string> &out, const std::string *format = nullptr) {
    std::lock_guard<std::mutex> lock(mu);
    for (const auto &[kind, names] : entries)
      if (!format || formats[kind] == *format) out.insert(names.begin(), names.end());
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

void register_model_writer(const std::string &target_kind, ModelWriterFn fn, const std::string &format,
                           std::vector<std::string> entries) {
  writers().add(target_kind, std::move(fn), format, std::move(entries), "register_model_writer");
}

void register_web_exporter(const std::string &target_kind, WebExporterFn fn, const std::string &format,
                           std::vector<std::string> entries) {
  exporters().add(target_kind, std::move(fn), format, std::move(entries), "register_web_exporter");
}

std::vector<std::string> model_writer_kinds() { return writers().kinds(); }
std::vector<std::string> web_exporter_kinds() { return exporters().kinds(); }
bool has_web_exporter(const std::string &target_kind) { return exporters().find(target_kind) != nullptr; }

namespace {

// The top-level names of the web runtime's files in a package (index.html, tensorir).
void add_web_runtime_entries(std::set<std::string> &names) {
  for (size_t i = 0; i < web_assets::count(); ++i)
    if (web_assets::path(i) != std::string_view(web_assets::kRpcPage))
      names.insert(std::filesystem::path(web_assets::path(i)).begin()->string());
}

// The "format" member of dir/model.json; empty when there is none or it is not JSON.
std::string plan_format(const std::filesystem::path &dir) {
  try {
    const std::vector<unsigned char> bytes =
        runtime::read_file_bytes((dir / runtime::kModelPlan).string(), "model plan");
    const json::Value doc = json::parse(std::string(bytes.begin(), bytes.end()));
    const json::Value *format = doc.kind() == json::Value::Object ? doc.find("format") : nullptr;
    return format && format->kind() == json::Value::String ? format->as_string() : "";
  } catch (const Error &) {
    return "";
  }
}

}  // namespace

std::vector<std::string> model_directory_entries() {
  std::set<std::string> names;
  writers().add_entries(names);
  exporters().add_entries(names);
  add_web_runtime_entries(names);
  for (const std::string &kind : web_exporter_kinds()) names.insert(kind);
  return {names.begin(), names.end()};
}

std::vector<std::string> earlier_model_entries(const std::string &dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  std::string format = plan_format(dir);
  if (format.empty() && !fs::exists(fs::path(dir) / runtime::kModelPlan, ec) &&
      fs::is_regular_file(fs::path(dir) / runtime::kOldModelPlan, ec))
    format = runtime::kModelFormat;
  std::set<std::string> names;
  if (format == web_assets::kIndexFormat) {
    exporters().add_entries(names);
    for (const std::string &kind : web_exporter_kinds()) names.insert(kind);
  } else {
    writers().add_entries(names, &format);
    exporters().add_entries(names, &format);
  }
  const bool web = !names.empty() && format != runtime::kModelFormat;
  if (web) add_web_runtime_entries(names);
  return {names.begin(), names.end()};
}

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
