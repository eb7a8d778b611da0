// graph::export_web_index: several builds of one model in one package, with an index the
// JS runtime chooses from (web/runtime/tensorir.js).
#include <filesystem>
#include <set>

#include "compiled_model.h"
#include "tensorir/graph/artifact.h"
#include "tensorir/graph/export_web.h"
#include "web_package.h"

namespace tensorir::graph {

WebExportInfo export_web_index(const std::vector<const CompiledModel *> &models, const std::string &dir,
                               const WebExportOptions &options) {
  namespace fs = std::filesystem;
  using json::Value;
  TIR_USER_CHECK(!models.empty()) << "export_web_index: no models to export";
  const fs::path root = web_package::make_directory(dir);
  const std::string name = web_package::package_name(root, options);
  WebExportInfo info;
  Value packages = Value::array();
  std::set<std::string> kinds;
  for (const CompiledModel *m : models) {
    TIR_USER_CHECK(m != nullptr) << "export_web_index: a null model";
    const std::string kind = m->impl().target.kind;
    if (!has_web_exporter(kind)) {
      std::string list;
      for (const std::string &k : web_exporter_kinds()) list += (list.empty() ? "\"" : ", \"") + k + "\"";
      TIR_THROW() << "export_web_index: a model was built for '" << m->impl().target.str()
                  << "'; the index holds builds for the kinds with a web exporter: " << list;
    }
    TIR_USER_CHECK(kinds.insert(kind).second) << "export_web_index: two models built for \"" << kind << "\"";
    WebExportOptions sub = options;
    sub.name = name;
    sub.copy_runtime = false;
    const WebExportInfo part = export_web(*m, (root / kind).string(), sub);
    for (const std::string &f : part.files) info.files.push_back(kind + "/" + f);
    info.total_bytes += part.total_bytes;
    info.params_bytes += part.params_bytes;
    info.passes += part.passes;
    Value p = Value::object();
    p.set("backend", kind);
    p.set("model", kind + "/model.json");
    packages.push(std::move(p));
  }
  Value doc = Value::object();
  doc.set("format", web_assets::kIndexFormat);
  doc.set("version", 1);
  doc.set("name", name);
  doc.set("packages", std::move(packages));
  const std::string text = doc.dump(1) + "\n";
  web_package::write_file(root / "model.json", text, info, "model.json");
  info.model_json_bytes = text.size();
  web_package::write_runtime(root, options, info);
  return info;
}

}  // namespace tensorir::graph
