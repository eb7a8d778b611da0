// A dataflow graph of operators (the network level above tensor expressions).
//
// A Graph holds Nodes in an order where every node comes after its inputs; each node has
// an operator name ("conv2d", "relu", ...), attributes, input node ids, and the output
// shape and dtype inferred when it was added. Builder adds nodes one operator at a time
// and checks shapes as it goes, so a mistake is reported at the node that makes it:
//
//   graph::Builder b;
//   auto x = b.input("x", {1, 3, 32, 32});
//   auto w = b.constant("conv.weight", NDArray::random({8, 3, 3, 3}, Float(32), 1));
//   auto y = b.relu(b.conv2d(x, w, {.padding = {1, 1}}, "conv"));
//   graph::Graph g = b.finish(y);
//
// Operators are those of the operator registry (graph/op_registry.h): the built-in ones
// compute with tensorir::ops (ops/nn.h, ops/transform.h), and a program may register
// its own. A graph has one or more outputs (b.finish({y1, y2})); graph::build
// (executor.h) compiles a Graph into one kernel per fused group of nodes (passes.h).
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include "tensorir/ops/nn.h"
#include "tensorir/runtime/ndarray.h"

namespace tensorir::graph {

// An attribute value: an integer, a real, a string or a list of integers.
using AttrValue = std::variant<int64_t, double, std::string, std::vector<int64_t>>;

struct Node {
  int id = -1;
  std::string name;  // unique in the graph
  std::string op;    // "input", "constant", or a registered operator (graph/op_registry.h)
  std::map<std::string, AttrValue> attrs;
  std::vector<int> inputs;  // node ids
  std::vector<int64_t> shape;
  Type dtype = Float(32);
  NDArray value;  // constants only

  // Typed attribute access; a missing attribute or one of another type throws an Error
  // naming the node.
  int64_t attr_int(const std::string &key) const;
  double attr_double(const std::string &key) const;
  const std::vector<int64_t> &attr_ints(const std::string &key) const;
  const std::string &attr_string(const std::string &key) const;
};

// The operators a Graph may contain besides "input" and "constant": those registered
// (graph/op_registry.h), sorted by name.
std::vector<std::string> op_names();

class Graph {
 public:
  // Appends a node as given (its id is set to its position) without checking it, only
  // adding the defaults of attributes its operator's schema has and it lacks; validate()
  // checks the whole graph. Builder is the checked way to make graphs.
  int add_node(Node n);
  // The graph's results, in order; a model returns them under their nodes' names.
  void set_output(int id);
  void set_outputs(const std::vector<int> &ids);

  const std::vector<Node> &nodes() const { return nodes_; }
  const Node &node(int id) const;
  // The node called `name`; throws an Error when there is none.
  const Node &node(const std::string &name) const;
  const std::vector<int> &outputs() const { return outputs_; }
  bool is_output(int id) const;
  // The only output; a graph with several throws an Error that says to use outputs().
  int output() const;
  std::vector<int> input_ids() const;

  // Node ids so that every node follows its inputs. Throws an Error naming a node on a
  // cycle, an input id that does not exist, or a node that reads itself.
  std::vector<int> topological_order() const;
  // topological_order(), plus: known operators, unique names, at least one output (each
  // once), and shapes and dtypes that agree with inference.
  void validate() const;

  // One line per node: "%3 = conv2d(%1, %2) name=conv1 shape=[1, 64, 112, 112]".
  std::string str() const;

 private:
  std::vector<Node> nodes_;
  std::map<std::string, int> by_name_;
  std::vector<int> outputs_;
};

// A handle to a node being built.
struct NodeRef {
  int id = -1;
};

class Builder {
 public:
  // A graph input, bound by name when the model runs.
  NodeRef input(const std::string &name, const std::vector<int64_t> &shape, Type dtype = Float(32));
  // A parameter: its value is part of the graph.
  NodeRef constant(const std::string &name, const NDArray &value);

  // An empty name picks "<op>_<id>".
  NodeRef conv2d(NodeRef x, NodeRef weight, const ops::Conv2dAttrs &attrs = {}, const std::string &name = "");
  NodeRef batch_norm(NodeRef x, NodeRef gamma, NodeRef beta, NodeRef mean, NodeRef var, double eps = 1e-5,
                     const std::string &name = "");
  NodeRef relu(NodeRef x, const std::string &name = "");
  NodeRef add(NodeRef a, NodeRef b, const std::string &name = "");
  NodeRef max_pool2d(NodeRef x, std::array<int, 2> pool, std::array<int, 2> strides,
                     std::array<int, 2> padding = {0, 0}, const std::string &name = "");
  NodeRef global_avg_pool2d(NodeRef x, const std::string &name = "");
  NodeRef flatten(NodeRef x, const std::string &name = "");
  NodeRef dense(NodeRef x, NodeRef weight, const std::string &name = "");
  NodeRef bias_add(NodeRef x, NodeRef bias, int axis = 1, const std::string &name = "");
  NodeRef softmax(NodeRef x, int axis = -1, const std::string &name = "");

  // Any registered operator with its attributes (checked against its schema, defaults
  // added), inferring the output shape.
  NodeRef make(const std::string &op, const std::vector<NodeRef> &inputs,
               std::map<std::string, AttrValue> attrs = {}, const std::string &name = "");

  const Node &node(NodeRef r) const { return g_.node(r.id); }
  // The finished graph with `output` as its result, or with several results
  // (b.finish({y1, y2})), returned by name when the model runs.
  Graph finish(NodeRef output);
  Graph finish(const std::vector<NodeRef> &outputs);

 private:
  NodeRef add_checked(Node n);
  Graph g_;
};

}  // namespace tensorir::graph
