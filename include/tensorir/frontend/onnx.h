// ONNX models in: a model file (or its bytes) becomes a graph::Graph whose initializers
// are constants, ready for graph::build on any target.
//
//   tensorir::onnx::ImportOptions opt;
//   opt.input_shapes["input"] = {1, 3, 224, 224};         // binds symbolic dimensions
//   tensorir::graph::Graph g = tensorir::onnx::import("resnet18.onnx", opt);
//   tensorir::graph::CompiledModel m = tensorir::graph::build(g, "llvm");
//
// A library of its own (tensorir::onnx, libtensorir_onnx): the compiler and the runtime
// do not link protobuf. No protobuf or ONNX header is included here.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "tensorir/error.h"
#include "tensorir/graph/executor.h"
#include "tensorir/graph/graph.h"
#include "tensorir/runtime/ndarray.h"
#include "tensorir/target.h"

namespace tensorir::onnx {

struct ImportOptions {
  // Shapes of graph inputs by name: each binds the input's symbolic dimensions (and must
  // agree with its fixed ones). A symbolic dimension left unbound is an Error naming the
  // input and the dimension.
  std::map<std::string, std::vector<int64_t>> input_shapes;
  // Graph inputs whose value is fixed at import: each becomes a constant, and the graph
  // no longer takes it. For inputs that decide shapes (Reshape's shape, Slice's starts,
  // TopK's k, ...), which tensorir needs known when it compiles. The array must have the
  // input's element type and fit its shape.
  std::map<std::string, NDArray> input_values;
  // Where tensors stored as external data are looked up; by default the model file's
  // directory (import from bytes: the current directory).
  std::string external_data_dir;
};

// A node the importer cannot convert, and why. An entry with an empty `node` stands for
// the whole model (its opset); one with `op` "input" for a graph input (its type).
struct UnsupportedNode {
  std::string node, op, reason;
  // A graph input whose value the node needs at import (a shape, axes, a bound); fixing
  // it with ImportOptions::input_values lets the node convert. Empty for other reasons.
  std::string input;
  // The node is that input itself, whose dimensions are symbolic: ImportOptions::
  // input_shapes binds them (as does fixing its value).
  bool symbolic_shape = false;
  // A value the node needs known at import that the model computes at run time, or a
  // graph input that is data (NonMaxSuppression's boxes, say): a Session runs such a
  // model in stages, computing the node between them (see Session below).
  std::string value = {};
};

// What import throws for a well-formed model that uses what the importer does not
// support: an opset or domain, an element type, operators or attributes. Every such node
// is listed, in the message and in nodes().
class UnsupportedError : public Error {
 public:
  UnsupportedError(const std::string &message, std::vector<UnsupportedNode> nodes)
      : Error(message), nodes_(std::move(nodes)) {}
  const std::vector<UnsupportedNode> &nodes() const { return nodes_; }

 private:
  std::vector<UnsupportedNode> nodes_;
};

// What import throws when ImportOptions::input_shapes or input_values names a value that
// is not an input of the model (an initializer is none): a mistake in the options, which
// a command line reports as a usage error.
class UnknownInputError : public Error {
 public:
  UnknownInputError(const std::string &message, std::string option, std::string name, std::vector<std::string> inputs)
      : Error(message), option_(std::move(option)), name_(std::move(name)), inputs_(std::move(inputs)) {}
  // "input_shapes" or "input_values".
  const std::string &option() const { return option_; }
  // The name the option gives.
  const std::string &name() const { return name_; }
  // The model's inputs, in its order.
  const std::vector<std::string> &inputs() const { return inputs_; }
  // "its inputs: 'a', 'b'", or "it has none": how a message lists `inputs`.
  static std::string inputs_text(const std::vector<std::string> &inputs);

 private:
  std::string option_, name_;
  std::vector<std::string> inputs_;
};

// Reads an ONNX model (.onnx, protobuf) and converts it. Throws tensorir::Error for a
// missing, truncated or corrupt file, a missing external-data file, or an input shape
// that does not fit; UnknownInputError for options that name no input of the model;
// UnsupportedError for an opset outside ai.onnx 1 to 22, another domain, an unsupported
// element type, or operators that cannot be converted (every such node named at once).
// Graph nodes are named after the ONNX values they compute, and the graph's outputs
// after the model's outputs.
graph::Graph import(const std::string &path, const ImportOptions &options = {});
graph::Graph import_bytes(const std::string &bytes, const ImportOptions &options = {});

// What a model holds, without converting it: for `tensorir info`.
struct ValueInfo {
  std::string name;
  std::string dtype;               // "float32", "int64", ...
  std::vector<std::string> shape;  // each dimension: a number or a symbol name ("?" if none)
};
struct ModelInfo {
  std::string producer;             // producer name and version
  int64_t ir_version = 0;
  std::map<std::string, int64_t> opsets;  // domain ("" for ai.onnx) -> version
  std::vector<ValueInfo> inputs, outputs;  // graph inputs that are not initializers
  std::map<std::string, int> operators;   // op type -> number of nodes
  int64_t parameters = 0;                 // elements over all initializers
  // Nodes without a converter for their opset, or whose attributes it does not take, and
  // why. Conversion can find more (a shape input that is not a constant, say).
  std::vector<UnsupportedNode> unsupported;
};
ModelInfo inspect(const std::string &path);

// A model run with its shape inputs given at run time: graph inputs whose values decide
// shapes (Reshape's shape, Slice's starts, TopK's k, ...), which tensorir needs known when
// it compiles. Each run imports the model with those inputs fixed to the values given
// (ImportOptions::input_values) and compiles it, unless a model compiled for the same
// values is cached; the other inputs are fed to the compiled model. Inputs with symbolic
// dimensions that input_shapes leaves unbound are bound by the shape of the array given.
//
//   tensorir::onnx::Session s = tensorir::onnx::Session::open("model.onnx", "llvm");
//   s.shape_inputs();                               // {"shape"}
//   graph::Outputs out = s.run({{"x", x}, {"shape", shape}});
//
// Nodes that need values the model computes at run time (UnsupportedNode::value: the
// boxes of a NonMaxSuppression, the input of a NonZero, a Reshape's computed shape) make
// the session run the model in stages: the nodes that do not depend on them compiled as
// one model, those nodes computed on the host from its results, and the nodes after them
// compiled for the shapes those results have (once per shape, cached like the rest).
// run() runs such a model; prepare() refuses it (there is no one compiled model).
//
// A model with nodes refused for other reasons throws the importer's UnsupportedError
// when the session is made (or at the run that reaches them). Not thread-safe: run from
// one thread.
struct SessionOptions {
  ImportOptions import;      // input_values fixed here are fixed for every run
  graph::BuildOptions build;
  size_t cache_size = 8;     // compiled models kept, the least recently used dropped first
};

struct SessionInput {
  std::string name;
  Type dtype;
  std::vector<int64_t> shape;  // -1 for a dimension bound by the array given at run time
};

class Session {
 public:
  static Session open(const std::string &path, const Target &target, const SessionOptions &options = {});
  static Session from_bytes(const std::string &bytes, const Target &target, const SessionOptions &options = {});

  // Every graph input run takes (those not fixed by options.import.input_values), in the
  // model's order.
  const std::vector<SessionInput> &inputs() const;
  // The inputs whose values are fixed at import on each run, in the model's order. Found
  // when the session is made; a run can find more (fixing one lets the importer reach
  // nodes that need another).
  std::vector<std::string> shape_inputs() const;
  // What the model holds, as inspect() says, from the copy the session keeps (the file
  // is not read again).
  ModelInfo info() const;

  // The model compiled for `inputs`' shape values (now, unless cached) and what to feed
  // it: the other inputs, less those the compiled graph no longer reads. A missing shape
  // input or an unknown name is an Error naming it, as is a model that runs in stages.
  struct Prepared {
    graph::CompiledModel model;
    std::map<std::string, NDArray> feed;
  };
  Prepared prepare(const std::map<std::string, NDArray> &inputs);
  // Runs the model: every output, by name, in the model's order.
  graph::Outputs run(const std::map<std::string, NDArray> &inputs);

  // Models compiled so far (over every stage, those compiled to compute nodes between
  // stages on the host included), and how many are cached now.
  size_t compiles() const;
  size_t cached() const;
  // Whether the model runs in stages (see above); known once a run (or the session's
  // making) has reached the nodes that need values the model computes. The nodes between
  // the stages as "node 'nms' (NonMaxSuppression), ...", or "" when it does not.
  bool staged() const;
  std::string stage_boundary() const;

  struct Impl;

 private:
  explicit Session(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}
  std::shared_ptr<Impl> impl_;
};

// An ONNX TensorProto file (.pb, as in ONNX's backend test data) as an NDArray.
NDArray read_tensor(const std::string &path);
// The element type the file declares, named as inspect() names a model's ("float16",
// "int64", ...): read_tensor widens float16 to float32, so its array cannot tell.
std::string tensor_file_type(const std::string &path);

}  // namespace tensorir::onnx
