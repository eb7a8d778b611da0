// The public entry points of include/tensorir/frontend/onnx.h.
#include "tensorir/frontend/onnx.h"

#include <filesystem>

#include "frontend/onnx/importer.h"
#include "frontend/onnx/proto.h"

namespace tensorir::onnx {

namespace {

graph::Graph import_model(const ::onnx::ModelProto &m, const ImportOptions &options, const std::string &model_dir,
                          const std::string &what) {
  const std::string dir = options.external_data_dir.empty() ? model_dir : options.external_data_dir;
  return detail::Importer(m, options, dir, what).run();
}

ValueInfo value_info(const ::onnx::ValueInfoProto &v) {
  ValueInfo info;
  info.name = v.name();
  if (!v.type().has_tensor_type()) {
    info.dtype = v.type().has_sequence_type() ? "sequence" : v.type().has_map_type() ? "map" : "other";
    return info;
  }
  const auto &tt = v.type().tensor_type();
  info.dtype = detail::element_type_name(tt.elem_type());
  for (const auto &d : tt.shape().dim())
    info.shape.push_back(d.has_dim_value()                             ? std::to_string(d.dim_value())
                         : d.has_dim_param() && !d.dim_param().empty() ? d.dim_param()
                                                                       : "?");
  return info;
}

}  // namespace

graph::Graph import(const std::string &path, const ImportOptions &options) {
  const ::onnx::ModelProto m = detail::load_model(path);
  const std::string dir = std::filesystem::path(path).parent_path().string();
  return import_model(m, options, dir.empty() ? "." : dir, "'" + path + "'");
}

graph::Graph import_bytes(const std::string &bytes, const ImportOptions &options) {
  const ::onnx::ModelProto m = detail::parse_model(bytes, "the buffer given to import_bytes");
  return import_model(m, options, ".", "the model given as bytes");
}

ModelInfo detail::describe(const ::onnx::ModelProto &m) {
  const ::onnx::GraphProto &g = m.graph();
  ModelInfo info;
  info.producer = m.producer_name() + (m.producer_version().empty() ? "" : " " + m.producer_version());
  info.ir_version = m.ir_version();
  for (const auto &o : m.opset_import()) info.opsets[o.domain() == "ai.onnx" ? "" : o.domain()] = o.version();
  std::map<std::string, bool> initializer;
  for (const auto &t : g.initializer()) {
    initializer[t.name()] = true;
    info.parameters += detail::element_count(t);
  }
  for (const auto &in : g.input())
    if (!initializer.count(in.name())) info.inputs.push_back(value_info(in));
  for (const auto &out : g.output()) info.outputs.push_back(value_info(out));
  for (const auto &n : g.node()) ++info.operators[n.op_type()];
  const UnsupportedNode opset = detail::opset_problem(m);
  if (!opset.reason.empty()) {
    info.unsupported.push_back(opset);
    return info;
  }
  info.unsupported = detail::static_check(g, detail::model_opset(m));
  return info;
}

std::string UnknownInputError::inputs_text(const std::vector<std::string> &inputs) {
  std::string known;
  for (const std::string &n : inputs) known += (known.empty() ? "'" : ", '") + n + "'";
  return known.empty() ? "it has none" : "its inputs: " + known;
}

ModelInfo inspect(const std::string &path) { return detail::describe(detail::load_model(path)); }

namespace {

::onnx::TensorProto parse_tensor_file(const std::string &path) {
  ::onnx::TensorProto t;
  const std::string bytes = detail::read_file(path, "tensor file");
  TIR_USER_CHECK(t.ParseFromString(bytes)) << "onnx: '" << path << "' is not a TensorProto (truncated or corrupt)";
  TIR_USER_CHECK(t.has_data_type() && t.data_type() != 0)
      << "onnx: '" << path << "' is not a TensorProto (no element type)";
  return t;
}

}  // namespace

NDArray read_tensor(const std::string &path) {
  const ::onnx::TensorProto t = parse_tensor_file(path);
  const std::string dir = std::filesystem::path(path).parent_path().string();
  return detail::tensor_value(t, dir.empty() ? "." : dir);
}

std::string tensor_file_type(const std::string &path) {
  return detail::element_type_name(parse_tensor_file(path).data_type());
}

}  // namespace tensorir::onnx
