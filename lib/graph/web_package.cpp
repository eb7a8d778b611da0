// Files and JSON shared by the web exporters (export_web.cpp, export_wasm.cpp).
#include "web_package.h"

#include <fstream>

#include "tensorir/error.h"
#include "tensorir/graph/passes.h"

namespace tensorir::graph::web_package {

namespace fs = std::filesystem;
using json::Value;

Value shape_json(const std::vector<int64_t> &shape) { return Value::array_of(shape); }

namespace {

Value attr_json(const AttrValue &a) {
  if (const auto *i = std::get_if<int64_t>(&a)) return Value(*i);
  if (const auto *d = std::get_if<double>(&a)) return Value(*d);
  if (const auto *s = std::get_if<std::string>(&a)) return Value(*s);
  return Value::array_of(std::get<std::vector<int64_t>>(a));
}

}  // namespace

Value graph_json(const Graph &g) {
  Value nodes = Value::array();
  for (const Node &n : g.nodes()) {
    Value jn = Value::object();
    jn.set("name", n.name);
    jn.set("op", n.op);
    Value ins = Value::array();
    for (int in : n.inputs) ins.push(g.node(in).name);
    jn.set("inputs", std::move(ins));
    jn.set("shape", shape_json(n.shape));
    jn.set("dtype", n.dtype.str());
    Value attrs = Value::object();
    for (const auto &[key, a] : n.attrs) attrs.set(key, attr_json(a));
    jn.set("attrs", std::move(attrs));
    nodes.push(std::move(jn));
  }
  Value graph = Value::object();
  graph.set("nodes", std::move(nodes));
  return graph;
}

Value kernel_json(const Graph &g, const Kernel &k) {
  Value jk = Value::object();
  jk.set("name", k.fname);
  jk.set("node", g.node(k.node).name);
  std::string op = g.node(k.node).op;
  Value fused = Value::array();
  for (int id : k.nodes) {
    fused.push(g.node(id).name);
    if (op_pattern(g.node(id).op) == OpPattern::kOutFusable) op = g.node(id).op;
  }
  jk.set("op", op);
  jk.set("fused", std::move(fused));
  return jk;
}

void check_float32(const Node &n, const char *role) {
  TIR_USER_CHECK(n.dtype == Float(32)) << "export_web: " << role << " '" << n.name << "' is " << n.dtype
                                       << "; web packages hold float32 tensors only";
}

void check_io_dtype(const Node &n, const char *role) {
  TIR_USER_CHECK(n.dtype == Float(32) || n.dtype == Int(32) || n.dtype == Int(64) || n.dtype == Bool())
      << "export_web: " << role << " '" << n.name << "' is " << n.dtype
      << "; web packages take and give float32, int32, int64 or bool tensors: cast it to one of those";
}

void check_something_runs(const CompiledModel::Impl &m) {
  for (int id : m.graph.outputs())
    TIR_USER_CHECK(!m.kernels.empty() || m.graph.node(id).op != "constant")
        << "export_web: the output '" << m.graph.node(id).name << "' is a constant and the model has no kernels; "
        << "there is nothing to run";
}

fs::path make_directory(const std::string &dir) {
  TIR_USER_CHECK(!dir.empty()) << "export_web: the package directory is an empty path";
  fs::path p(dir);
  std::error_code ec;
  TIR_USER_CHECK(!fs::exists(p, ec) || fs::is_directory(p, ec))
      << "export_web: '" << dir << "' exists and is not a directory; give a directory for the package";
  fs::create_directories(p, ec);
  TIR_USER_CHECK(!ec) << "export_web: cannot create the package directory '" << dir << "': " << ec.message();
  TIR_USER_CHECK(fs::is_directory(p, ec)) << "export_web: '" << dir << "' is not a directory";
  return p;
}

std::string package_name(const fs::path &root, const WebExportOptions &options) {
  std::string name = options.name;
  if (name.empty()) name = fs::absolute(root).lexically_normal().filename().string();
  if (name.empty()) name = fs::absolute(root).lexically_normal().parent_path().filename().string();
  if (name.empty()) name = "model";
  return name;
}

void write_file(const fs::path &path, std::string_view bytes, WebExportInfo &info, const std::string &rel) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  TIR_USER_CHECK(out.good()) << "export_web: cannot write " << path.string()
                             << "; check that the directory is writable";
  out.write(bytes.data(), std::streamsize(bytes.size()));
  out.close();
  TIR_USER_CHECK(out.good()) << "export_web: writing " << path.string() << " failed (disk full?)";
  info.files.push_back(rel);
  info.total_bytes += bytes.size();
}

void write_runtime(const fs::path &root, const WebExportOptions &options, WebExportInfo &info) {
  if (!options.copy_runtime) return;
  size_t copied = 0;
  for (size_t i = 0; i < web_assets::count(); ++i) {
    const fs::path rel(web_assets::path(i));
    if (rel == web_assets::kRpcPage) continue;
    std::error_code ec;
    if (rel.has_parent_path()) fs::create_directories(root / rel.parent_path(), ec);
    TIR_USER_CHECK(!ec) << "export_web: cannot create " << (root / rel.parent_path()).string() << ": "
                        << ec.message();
    write_file(root / rel, web_assets::data(i), info, rel.generic_string());
    ++copied;
  }
  info.runtime_files = copied;
}

}  // namespace tensorir::graph::web_package
