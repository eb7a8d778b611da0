// The importer: an ONNX ModelProto to a graph::Graph, node by node through the
// converters (converter.h), with constant folding of what is known at import.
#pragma once
#include <onnx/onnx_pb.h>

#include <set>
#include <string>
#include <vector>

#include "frontend/onnx/converter.h"
#include "tensorir/frontend/onnx.h"

namespace tensorir::onnx::detail {

// The model's ai.onnx opset outside kMinOpset to kMaxOpset (or none imported) as an
// UnsupportedNode for the whole model; an empty reason when it is in range.
UnsupportedNode opset_problem(const ::onnx::ModelProto &m);
// The model's ai.onnx opset (1 for old models that import none).
int model_opset(const ::onnx::ModelProto &m);

// What the node types and attributes alone rule out: nodes of another domain, op types
// without a converter at `opset`, attributes a converter's check refuses; and graph
// inputs of element types the graph cannot hold.
std::vector<UnsupportedNode> static_check(const ::onnx::GraphProto &g, int opset);
// What `m` holds (inspect, Session::info): its inputs, outputs, operators, parameters and
// what static_check refuses.
ModelInfo describe(const ::onnx::ModelProto &m);

// The element types graph inputs and values may have.
bool supported_dtype(Type t);
// "node 'conv1' (Conv)" or "node 'y' (Conv)" for an unnamed node (its first output).
std::string node_label(const ::onnx::NodeProto &n);

// One refused node as the errors list it: "node 'n' (Op): reason", or the reason alone
// for a graph input or initializer.
std::string describe(const UnsupportedNode &u);
// The error thrown for `nodes`: one line per node.
[[noreturn]] void throw_unsupported(const std::string &model, std::vector<UnsupportedNode> nodes, int skipped);

class Importer {
 public:
  Importer(const ::onnx::ModelProto &m, const ImportOptions &options, std::string model_dir, std::string what);
  graph::Graph run() {
    convert();
    return finish();
  }
  // run() in two steps: every node converted (the values bound, value() reads them), then
  // the graph of `outputs` (by default the model's), which must not be empty.
  void convert();
  graph::Graph finish(const std::vector<std::string> &outputs = {});

  // For Context.
  Value &value(const std::string &name);
  bool has_value(const std::string &name) const { return values_.count(name) > 0; }
  bool is_graph_input(const std::string &name) const { return graph_inputs_.count(name) > 0; }
  // Whether the model declares `name` float16 (graph values of which are computed in
  // float32): an input, initializer, output or value_info of that type, or the output of
  // a Cast to it or of a float16 Constant.
  bool declared_half(const std::string &name) const { return half_names_.count(name) > 0; }
  void bind(const std::string &name, Value v);
  // Makes `v` known when graph nodes compute it from constants alone, by compiling and
  // running them (fold.cpp); false, leaving it as it is, when a graph input is among them.
  // An Error when computing it fails or would take too much.
  bool fold(Value &v);
  // How many times fold compiled and ran graph nodes.
  int folds() const { return folds_; }
  // A graph node for `name`'s value, a constant node for a known one (made once).
  graph::NodeRef node_of(const std::string &name);
  // A name for a new graph node: `base` itself when it is an ONNX value's name that no
  // graph node has yet and `own` is set, else base/... made unique.
  std::string node_name(const std::string &base, bool own);
  graph::Builder &builder() { return builder_; }
  // Converts subgraph `g` (an If branch, a Loop body) in the current scope, its inputs
  // bound to `inputs`; the values of its outputs. Its own names are unbound afterwards,
  // so that a body can be converted again for the next iteration.
  std::vector<Value> run_subgraph(const ::onnx::GraphProto &g, const std::vector<Value> &inputs);
  const std::string &data_dir() const { return dir_; }

 private:
  void add_initializers();
  void add_inputs();
  void check_option_names() const;
  // An input fixed by ImportOptions::input_values: a known value, not a graph input.
  void bind_fixed_input(const ::onnx::ValueInfoProto &in, Type dtype, const NDArray &value);
  void convert_nodes();
  std::vector<graph::NodeRef> outputs(const std::vector<std::string> &names);

  const ::onnx::ModelProto &model_;
  const ImportOptions &options_;
  std::string dir_, what_;
  int opset_ = 0;
  graph::Builder builder_;
  std::map<std::string, Value> values_;
  std::set<std::string> onnx_names_, graph_names_, poisoned_, graph_inputs_, half_names_;
  std::vector<UnsupportedNode> unsupported_;
  std::map<int, NDArray> folded_;  // graph node -> its value, computed by fold
  int folds_ = 0;
  int skipped_ = 0;
};

}  // namespace tensorir::onnx::detail
