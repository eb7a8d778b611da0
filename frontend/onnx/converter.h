// The converters: one per ONNX operator and range of opset versions, each mapping one
// ONNX node onto graph nodes through graph::Builder, or onto a constant known at import.
// Families register from static initializers in ops/*.cpp:
//
//   const bool registered = [] {
//     register_converter({"Relu", 7, kLatest, nullptr, [](Context &c) {
//       c.output(0, "relu", {c.node(0)});
//     }});
//     return true;
//   }();
#pragma once
#include <onnx/onnx_pb.h>

#include <climits>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "tensorir/graph/graph.h"
#include "tensorir/runtime/ndarray.h"

namespace tensorir::onnx::detail {

// The opsets of ai.onnx the importer takes.
constexpr int kMinOpset = 1;
constexpr int kMaxOpset = 22;
constexpr int kLatest = INT_MAX;

// Thrown by a converter for a node it cannot convert (the reason says why); the
// importer collects every such node and reports them together.
struct Unsupported {
  std::string reason;
  std::string input;  // a graph input whose value, known, would let the node convert
  // A value the model computes (or a graph input that is data) whose value, known, would
  // let the node convert: a Session computes such a node on the host between stages.
  std::string value = {};
};
[[noreturn]] void unsupported(const std::string &reason);

// A node's attributes, typed; a missing one gives the default.
class Attributes {
 public:
  explicit Attributes(const ::onnx::NodeProto &node);
  bool has(const std::string &name) const { return attrs_.count(name) > 0; }
  int64_t i(const std::string &name, int64_t def) const;
  float f(const std::string &name, float def) const;
  std::string s(const std::string &name, const std::string &def) const;
  std::vector<int64_t> ints(const std::string &name, const std::vector<int64_t> &def = {}) const;
  std::vector<float> floats(const std::string &name) const;
  const ::onnx::TensorProto *tensor(const std::string &name) const;
  const ::onnx::AttributeProto *get(const std::string &name) const;

 private:
  std::map<std::string, const ::onnx::AttributeProto *> attrs_;
};

// A value of the ONNX graph during import: computed by a graph node, or known at import
// (an initializer, a Constant, a folded shape computation), or both once a known value
// has been placed in the graph as a constant node. A sequence or an optional is known at
// import as a list of tensor values (an optional: none or one); the tensors in it may be
// computed at run time.
enum class ValueKind { kTensor, kSequence, kOptional };
struct Value {
  Value() = default;
  Value(int node, NDArray known, std::vector<int64_t> shape, Type dtype)
      : node(node), known(std::move(known)), shape(std::move(shape)), dtype(dtype) {}
  int node = -1;  // graph node id; -1: not in the graph (yet)
  NDArray known;  // defined: the value, known now
  std::vector<int64_t> shape;
  Type dtype;  // a sequence's or optional's: its elements'
  ValueKind kind = ValueKind::kTensor;
  std::vector<Value> items;  // a sequence's or optional's elements
};
// "a tensor", "a sequence" or "an optional".
const char *kind_name(ValueKind k);

class Importer;

// What a converter sees of its node: inputs (known values or graph nodes), attributes,
// and where its outputs go.
class Context {
 public:
  Context(Importer &imp, const ::onnx::NodeProto &node, int opset);

  const ::onnx::NodeProto &proto() const { return node_; }
  const Attributes &attrs() const { return attrs_; }
  int opset() const { return opset_; }
  // The node's name in messages: its name, or its first output's.
  const std::string &label() const { return label_; }
  // Where tensors stored as external data are read from.
  const std::string &data_dir() const;

  // Inputs: optional ones may be missing (absent or named "").
  size_t num_inputs() const { return size_t(node_.input_size()); }
  bool has_input(size_t i) const;
  const std::string &input_name(size_t i) const;
  const Value &input(size_t i) const;
  // Input i of any kind; input() takes tensors only.
  const Value &any_input(size_t i) const;
  // The elements of input i, a sequence (or an optional with `kind`); an Error for another kind.
  const std::vector<Value> &items(size_t i, ValueKind kind = ValueKind::kSequence) const;
  const std::vector<int64_t> &shape(size_t i) const { return input(i).shape; }
  Type dtype(size_t i) const { return input(i).dtype; }
  int rank(size_t i) const { return int(shape(i).size()); }
  bool known(size_t i) const { return input(i).known.defined(); }
  // Whether the model declares input i float16 (Importer::declared_half).
  bool declared_half(size_t i) const;
  bool all_known() const;
  // The known value of input i, else Unsupported("<what> '<name>' is computed at run time ...").
  // One that graph nodes compute from constants alone is computed now (compute_known).
  const NDArray &value(size_t i, const std::string &what) const;
  // Makes `v` known when graph nodes compute it from constants alone (Importer::fold);
  // false when they do not; Unsupported, naming `what`, when computing it fails.
  bool compute_known(Value &v, const std::string &what) const;
  // A known integer input as a list (a scalar gives one value).
  std::vector<int64_t> ints(size_t i, const std::string &what) const;
  // Input i as a graph node (a known value is added as a constant node once).
  graph::NodeRef node(size_t i);
  // What the converter sees of input i from here on: an older opset's form of it rewritten
  // into the current one's (a legacy broadcast's operand reshaped, say).
  void replace_input(size_t i, graph::NodeRef r);
  void replace_input(size_t i, const NDArray &known);

  // Outputs: a converter sets each output that is named (wanted).
  size_t num_outputs() const { return size_t(node_.output_size()); }
  bool wants_output(size_t i) const;
  void set_output(size_t i, graph::NodeRef r);
  void set_output(size_t i, const NDArray &known);
  // Output i is input j, as it is (Identity).
  void forward(size_t i, size_t j);
  // Output i is `v` (an element taken out of a sequence, a sequence built at import).
  void set_output(size_t i, const Value &v);
  // `v` (a tensor) as a graph node: a known one as a new constant named after `suffix`.
  graph::NodeRef node(const Value &v, const std::string &suffix);
  // The outputs of the graph attribute `attr` (a branch, a body) converted here with its
  // inputs bound to `inputs` (Importer::run_subgraph).
  std::vector<Value> subgraph(const std::string &attr, const std::vector<Value> &inputs);

  // Adds a graph node computing `op`, named after output 0 ("<output>/<op>").
  graph::NodeRef make(const std::string &op, const std::vector<graph::NodeRef> &inputs,
                      std::map<std::string, graph::AttrValue> attrs = {});
  // Adds the graph node computing output i, named after it, and sets the output.
  graph::NodeRef output(size_t i, const std::string &op, const std::vector<graph::NodeRef> &inputs,
                        std::map<std::string, graph::AttrValue> attrs = {});
  // A constant node named after output 0 and `suffix`.
  graph::NodeRef constant(const NDArray &value, const std::string &suffix);
  const graph::Node &graph_node(graph::NodeRef r) const;

 private:
  // The graph node; one that computes elements from an empty input (a dimension of 0) is
  // refused, naming it (compiled kernels take no empty arrays).
  graph::NodeRef make_node(const std::string &op, const std::vector<graph::NodeRef> &inputs,
                           std::map<std::string, graph::AttrValue> attrs, const std::string &name);
  // The first of `inputs` without elements (a dimension of 0), or none.
  const graph::Node *first_empty(const std::vector<graph::NodeRef> &inputs) const;
  Importer &imp_;
  const ::onnx::NodeProto &node_;
  Attributes attrs_;
  int opset_;
  std::string label_;
  std::map<size_t, Value> replaced_;
};

struct Converter {
  std::string op;         // ONNX op type
  int since = kMinOpset;  // the opset versions this converter covers
  int until = kLatest;
  // Why the attributes alone rule the node out ("" when they do not); optional. inspect()
  // runs it without converting.
  std::function<std::string(const Attributes &)> check;
  std::function<void(Context &)> convert;
};

// Adds a converter; two for one op type must not overlap in versions.
void register_converter(Converter c);
// The converter of `op` at `opset`, or nullptr.
const Converter *find_converter(const std::string &op, int opset);
// Every op type some converter covers, sorted, with its version ranges ("Softmax 7-12").
std::vector<std::string> converter_ops();

}  // namespace tensorir::onnx::detail
