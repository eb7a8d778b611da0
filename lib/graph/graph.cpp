// Graph storage, validation and the checked Builder.
#include "tensorir/graph/graph.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <sstream>

#include "op_table.h"
#include "tensorir/graph/op_registry.h"

namespace tensorir::graph {

namespace {

template <typename T>
const T &get_attr(const Node &n, const std::string &key, const char *kind) {
  auto it = n.attrs.find(key);
  TIR_USER_CHECK(it != n.attrs.end()) << detail::node_prefix(n) << "missing attribute '" << key << "'";
  const T *v = std::get_if<T>(&it->second);
  TIR_USER_CHECK(v) << detail::node_prefix(n) << "attribute '" << key << "' must be " << kind;
  return *v;
}

std::vector<int64_t> ints(std::array<int, 2> a) { return {a[0], a[1]}; }

}  // namespace

int64_t Node::attr_int(const std::string &key) const { return get_attr<int64_t>(*this, key, "an integer"); }

double Node::attr_double(const std::string &key) const {
  auto it = attrs.find(key);
  if (it != attrs.end())
    if (const int64_t *i = std::get_if<int64_t>(&it->second)) return static_cast<double>(*i);
  return get_attr<double>(*this, key, "a number");
}

const std::vector<int64_t> &Node::attr_ints(const std::string &key) const {
  return get_attr<std::vector<int64_t>>(*this, key, "a list of integers");
}

const std::string &Node::attr_string(const std::string &key) const {
  return get_attr<std::string>(*this, key, "a string");
}

std::vector<std::string> op_names() { return registered_ops(); }

// ---- Graph ----

int Graph::add_node(Node n) {
  n.id = static_cast<int>(nodes_.size());
  detail::add_default_attrs(n);
  by_name_.emplace(n.name, n.id);  // the first of duplicate names wins; validate() reports them
  nodes_.push_back(std::move(n));
  return nodes_.back().id;
}

void Graph::set_output(int id) { set_outputs({id}); }

void Graph::set_outputs(const std::vector<int> &ids) {
  TIR_USER_CHECK(!ids.empty()) << "graph outputs: give at least one node";
  for (size_t i = 0; i < ids.size(); ++i) {
    TIR_USER_CHECK(ids[i] >= 0 && ids[i] < static_cast<int>(nodes_.size()))
        << "graph output: node id " << ids[i] << " does not exist (the graph has " << nodes_.size() << " nodes)";
    for (size_t j = 0; j < i; ++j)
      TIR_USER_CHECK(ids[j] != ids[i]) << "graph outputs: node '" << nodes_[size_t(ids[i])].name
                                       << "' is given twice; each output is a distinct node";
  }
  outputs_ = ids;
}

bool Graph::is_output(int id) const { return std::find(outputs_.begin(), outputs_.end(), id) != outputs_.end(); }

int Graph::output() const {
  TIR_USER_CHECK(!outputs_.empty()) << "graph: no output set (Builder::finish or Graph::set_output)";
  if (outputs_.size() > 1) {
    std::string names;
    for (int id : outputs_) names += (names.empty() ? "'" : ", '") + nodes_[size_t(id)].name + "'";
    TIR_THROW() << "graph: this graph has " << outputs_.size() << " outputs (" << names
                << "); this use needs a single-output graph: address them by name with outputs()";
  }
  return outputs_[0];
}

const Node &Graph::node(int id) const {
  TIR_USER_CHECK(id >= 0 && id < static_cast<int>(nodes_.size()))
      << "graph: node id " << id << " does not exist (the graph has " << nodes_.size() << " nodes)";
  return nodes_[static_cast<size_t>(id)];
}

const Node &Graph::node(const std::string &name) const {
  auto it = by_name_.find(name);
  TIR_USER_CHECK(it != by_name_.end()) << "graph: no node called '" << name << "'";
  return nodes_[static_cast<size_t>(it->second)];
}

std::vector<int> Graph::input_ids() const {
  std::vector<int> ids;
  for (const Node &n : nodes_)
    if (n.op == "input") ids.push_back(n.id);
  return ids;
}

std::vector<int> Graph::topological_order() const {
  enum Mark { White, Grey, Black };
  std::vector<Mark> mark(nodes_.size(), White);
  std::vector<int> order;
  // Depth-first with an explicit stack, so deep graphs do not exhaust the call stack.
  for (size_t root = 0; root < nodes_.size(); ++root) {
    if (mark[root] != White) continue;
    std::vector<std::pair<int, size_t>> stack{{static_cast<int>(root), 0}};
    mark[root] = Grey;
    while (!stack.empty()) {
      auto &[id, next] = stack.back();
      const Node &n = nodes_[static_cast<size_t>(id)];
      if (next < n.inputs.size()) {
        const int in = n.inputs[next++];
        TIR_USER_CHECK(in >= 0 && in < static_cast<int>(nodes_.size()))
            << detail::node_prefix(n) << "input " << next - 1 << " is node id " << in << ", which does not exist";
        TIR_USER_CHECK(mark[static_cast<size_t>(in)] != Grey)
            << detail::node_prefix(n) << (in == id ? "reads its own output" : "is on a cycle through node '" +
                                                                                    nodes_[size_t(in)].name + "'");
        if (mark[static_cast<size_t>(in)] == White) {
          mark[static_cast<size_t>(in)] = Grey;
          stack.push_back({in, 0});
        }
      } else {
        mark[static_cast<size_t>(id)] = Black;
        order.push_back(id);
        stack.pop_back();
      }
    }
  }
  return order;
}

void Graph::validate() const {
  TIR_USER_CHECK(!outputs_.empty()) << "graph: no output set (Builder::finish or Graph::set_output)";
  std::map<std::string, int> seen;
  for (const Node &n : nodes_) {
    auto [it, fresh] = seen.emplace(n.name, n.id);
    TIR_USER_CHECK(fresh) << detail::node_prefix(n) << "the name is already used by node " << it->second;
  }
  for (int id : topological_order()) {
    const Node &n = nodes_[static_cast<size_t>(id)];
    if (n.op == "input") {
      TIR_USER_CHECK(n.inputs.empty()) << detail::node_prefix(n) << "an input node takes no inputs";
      continue;
    }
    if (n.op == "constant") {
      TIR_USER_CHECK(n.value.defined() && n.value.shape() == n.shape && n.value.dtype() == n.dtype)
          << detail::node_prefix(n) << "the value must be defined and match the node's shape " << shape_str(n.shape);
      continue;
    }
    Node copy = n;
    std::vector<const Node *> in;
    for (int i : n.inputs) in.push_back(&nodes_[static_cast<size_t>(i)]);
    detail::infer_shape(copy, in);
    TIR_USER_CHECK(copy.shape == n.shape && copy.dtype == n.dtype)
        << detail::node_prefix(n) << "recorded shape " << shape_str(n.shape) << " " << n.dtype
        << " but the inputs give " << shape_str(copy.shape) << " " << copy.dtype;
  }
}

std::string Graph::str() const {
  std::ostringstream os;
  for (const Node &n : nodes_) {
    os << "%" << n.id << " = " << n.op << "(";
    for (size_t i = 0; i < n.inputs.size(); ++i) os << (i ? ", %" : "%") << n.inputs[i];
    os << ") name=" << n.name << " shape=" << shape_str(n.shape) << " " << n.dtype << "\n";
  }
  for (int id : outputs_) os << "output %" << id << "\n";
  return os.str();
}

// ---- Builder ----

NodeRef Builder::add_checked(Node n) {
  if (n.name.empty()) n.name = n.op + "_" + std::to_string(g_.nodes().size());
  for (const Node &other : g_.nodes())
    TIR_USER_CHECK(other.name != n.name)
        << detail::node_prefix(n) << "the name is already used by a " << other.op << " node; names must be unique";
  if (n.op != "input" && n.op != "constant") {
    std::vector<const Node *> in;
    for (int i : n.inputs) {
      TIR_USER_CHECK(i >= 0 && i < static_cast<int>(g_.nodes().size()))
          << detail::node_prefix(n) << "an input is not a node of this builder";
      in.push_back(&g_.node(i));
    }
    detail::infer_shape(n, in);
  }
  return {g_.add_node(std::move(n))};
}

NodeRef Builder::input(const std::string &name, const std::vector<int64_t> &shape, Type dtype) {
  Node n;
  n.name = name;
  n.op = "input";
  int64_t elements = 1;
  for (int64_t d : shape) {
    TIR_USER_CHECK(d > 0) << detail::node_prefix(n) << "shape " << shape_str(shape) << " must be positive";
    TIR_USER_CHECK(d <= INT32_MAX / elements)
        << detail::node_prefix(n) << "shape " << shape_str(shape)
        << " holds more than 2147483647 elements; compiled kernels index with 32-bit integers";
    elements *= d;
  }
  TIR_USER_CHECK(NDArray::can_hold(dtype))
      << detail::node_prefix(n) << "no array holds elements of type " << dtype
      << "; inputs are " << NDArray::holdable_types();
  n.shape = shape;
  n.dtype = dtype;
  return add_checked(std::move(n));
}

NodeRef Builder::constant(const std::string &name, const NDArray &value) {
  Node n;
  n.name = name;
  n.op = "constant";
  TIR_USER_CHECK(value.defined()) << detail::node_prefix(n) << "the value is an undefined NDArray";
  n.value = value.device() == Device::cpu() ? value : value.to(Device::cpu());
  n.shape = value.shape();
  n.dtype = value.dtype();
  return add_checked(std::move(n));
}

NodeRef Builder::make(const std::string &op, const std::vector<NodeRef> &inputs, std::map<std::string, AttrValue> attrs,
                      const std::string &name) {
  Node n;
  n.op = op;
  n.name = name;
  n.attrs = std::move(attrs);
  for (NodeRef r : inputs) n.inputs.push_back(r.id);
  if (op == "input" || op == "constant")
    TIR_THROW() << detail::node_prefix(n) << "use Builder::input or Builder::constant";
  return add_checked(std::move(n));
}

NodeRef Builder::conv2d(NodeRef x, NodeRef weight, const ops::Conv2dAttrs &a, const std::string &name) {
  return make("conv2d", {x, weight},
              {{"strides", ints(a.strides)},
               {"padding", ints(a.padding)},
               {"dilation", ints(a.dilation)},
               {"groups", int64_t(a.groups)}},
              name);
}

NodeRef Builder::batch_norm(NodeRef x, NodeRef gamma, NodeRef beta, NodeRef mean, NodeRef var, double eps,
                            const std::string &name) {
  return make("batch_norm", {x, gamma, beta, mean, var}, {{"eps", eps}}, name);
}

NodeRef Builder::relu(NodeRef x, const std::string &name) { return make("relu", {x}, {}, name); }
NodeRef Builder::add(NodeRef a, NodeRef b, const std::string &name) { return make("add", {a, b}, {}, name); }

NodeRef Builder::max_pool2d(NodeRef x, std::array<int, 2> pool, std::array<int, 2> strides,
                            std::array<int, 2> padding, const std::string &name) {
  return make("max_pool2d", {x}, {{"pool_size", ints(pool)}, {"strides", ints(strides)}, {"padding", ints(padding)}},
              name);
}

NodeRef Builder::global_avg_pool2d(NodeRef x, const std::string &name) {
  return make("global_avg_pool2d", {x}, {}, name);
}
NodeRef Builder::flatten(NodeRef x, const std::string &name) { return make("flatten", {x}, {}, name); }
NodeRef Builder::dense(NodeRef x, NodeRef weight, const std::string &name) {
  return make("dense", {x, weight}, {}, name);
}
NodeRef Builder::bias_add(NodeRef x, NodeRef bias, int axis, const std::string &name) {
  return make("bias_add", {x, bias}, {{"axis", int64_t(axis)}}, name);
}
NodeRef Builder::softmax(NodeRef x, int axis, const std::string &name) {
  return make("softmax", {x}, {{"axis", int64_t(axis)}}, name);
}

Graph Builder::finish(NodeRef output) { return finish(std::vector<NodeRef>{output}); }

Graph Builder::finish(const std::vector<NodeRef> &outputs) {
  std::vector<int> ids;
  for (NodeRef r : outputs) ids.push_back(r.id);
  g_.set_outputs(ids);
  Graph out = g_;
  return out;
}

}  // namespace tensorir::graph
