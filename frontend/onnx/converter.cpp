// The converter registry, node attributes, and what a converter sees of its node.
#include "frontend/onnx/converter.h"

#include <algorithm>
#include <mutex>

#include "frontend/onnx/host.h"
#include "frontend/onnx/importer.h"
#include "frontend/onnx/proto.h"

namespace tensorir::onnx::detail {

namespace {

struct Registry {
  std::mutex mu;
  std::map<std::string, std::vector<Converter>> by_op;
};

Registry &registry() {
  static Registry *r = new Registry;  // converters register from static initializers
  return *r;
}

std::string range_str(const Converter &c) {
  return std::to_string(c.since) + "-" + (c.until == kLatest ? std::string() : std::to_string(c.until));
}

}  // namespace

void unsupported(const std::string &reason) { throw Unsupported{reason, ""}; }

const char *kind_name(ValueKind k) {
  return k == ValueKind::kSequence ? "a sequence" : k == ValueKind::kOptional ? "an optional" : "a tensor";
}

void register_converter(Converter c) {
  TIR_ASSERT(!c.op.empty() && c.convert && c.since <= c.until) << "register_converter: " << c.op;
  Registry &r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  for (const Converter &o : r.by_op[c.op])
    TIR_ASSERT(c.until < o.since || o.until < c.since)
        << "register_converter: " << c.op << " " << range_str(c) << " overlaps " << range_str(o);
  r.by_op[c.op].push_back(std::move(c));
}

const Converter *find_converter(const std::string &op, int opset) {
  Registry &r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  auto it = r.by_op.find(op);
  if (it == r.by_op.end()) return nullptr;
  for (const Converter &c : it->second)
    if (c.since <= opset && opset <= c.until) return &c;  // vector elements stay put once registered
  return nullptr;
}

std::vector<std::string> converter_ops() {
  Registry &r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  std::vector<std::string> out;
  for (auto &[op, list] : r.by_op) {
    std::vector<const Converter *> sorted;
    for (const Converter &c : list) sorted.push_back(&c);
    std::sort(sorted.begin(), sorted.end(), [](auto *a, auto *b) { return a->since < b->since; });
    std::string s = op;
    for (size_t i = 0; i < sorted.size(); ++i) s += (i ? ", " : " ") + range_str(*sorted[i]);
    out.push_back(s);
  }
  return out;
}

// ---- Attributes ----

Attributes::Attributes(const ::onnx::NodeProto &node) {
  for (const ::onnx::AttributeProto &a : node.attribute()) attrs_[a.name()] = &a;
}

const ::onnx::AttributeProto *Attributes::get(const std::string &name) const {
  auto it = attrs_.find(name);
  return it == attrs_.end() ? nullptr : it->second;
}

namespace {
void expect(const ::onnx::AttributeProto &a, ::onnx::AttributeProto::AttributeType t, const char *kind) {
  // Old exporters leave `type` unset; then the field present tells.
  TIR_USER_CHECK(a.type() == t || a.type() == ::onnx::AttributeProto::UNDEFINED)
      << "attribute '" << a.name() << "' must be " << kind;
}
}  // namespace

int64_t Attributes::i(const std::string &name, int64_t def) const {
  const auto *a = get(name);
  if (!a) return def;
  expect(*a, ::onnx::AttributeProto::INT, "an integer");
  return a->i();
}

float Attributes::f(const std::string &name, float def) const {
  const auto *a = get(name);
  if (!a) return def;
  expect(*a, ::onnx::AttributeProto::FLOAT, "a float");
  return a->f();
}

std::string Attributes::s(const std::string &name, const std::string &def) const {
  const auto *a = get(name);
  if (!a) return def;
  expect(*a, ::onnx::AttributeProto::STRING, "a string");
  return a->s();
}

std::vector<int64_t> Attributes::ints(const std::string &name, const std::vector<int64_t> &def) const {
  const auto *a = get(name);
  if (!a) return def;
  expect(*a, ::onnx::AttributeProto::INTS, "a list of integers");
  return std::vector<int64_t>(a->ints().begin(), a->ints().end());
}

std::vector<float> Attributes::floats(const std::string &name) const {
  const auto *a = get(name);
  if (!a) return {};
  expect(*a, ::onnx::AttributeProto::FLOATS, "a list of floats");
  return std::vector<float>(a->floats().begin(), a->floats().end());
}

const ::onnx::TensorProto *Attributes::tensor(const std::string &name) const {
  const auto *a = get(name);
  if (!a) return nullptr;
  expect(*a, ::onnx::AttributeProto::TENSOR, "a tensor");
  return &a->t();
}

// ---- Context ----

Context::Context(Importer &imp, const ::onnx::NodeProto &node, int opset)
    : imp_(imp), node_(node), attrs_(node), opset_(opset), label_(node_label(node)) {}

const std::string &Context::data_dir() const { return imp_.data_dir(); }

bool Context::has_input(size_t i) const { return i < num_inputs() && !node_.input(int(i)).empty(); }

const std::string &Context::input_name(size_t i) const {
  TIR_USER_CHECK(i < num_inputs()) << "input " << i << " is missing (the node has " << num_inputs()
                                   << (num_inputs() == 1 ? " input)" : " inputs)");
  return node_.input(int(i));
}

bool Context::declared_half(size_t i) const { return has_input(i) && imp_.declared_half(input_name(i)); }

const Value &Context::any_input(size_t i) const {
  if (auto it = replaced_.find(i); it != replaced_.end()) return it->second;
  TIR_USER_CHECK(has_input(i)) << "input " << i << " is missing (the node has " << num_inputs()
                                << "); the operator needs it";
  return imp_.value(input_name(i));
}

const Value &Context::input(size_t i) const {
  const Value &v = any_input(i);
  TIR_USER_CHECK(v.kind == ValueKind::kTensor)
      << "input '" << input_name(i) << "' is " << kind_name(v.kind) << " where a tensor is expected";
  return v;
}

const std::vector<Value> &Context::items(size_t i, ValueKind kind) const {
  const Value &v = any_input(i);
  TIR_USER_CHECK(v.kind == kind) << "input '" << input_name(i) << "' is " << kind_name(v.kind) << " where "
                                 << kind_name(kind) << " is expected";
  return v.items;
}

bool Context::all_known() const {
  for (size_t i = 0; i < num_inputs(); ++i)
    if (has_input(i) && !known(i)) return false;
  return true;
}

const NDArray &Context::value(size_t i, const std::string &what) const {
  const std::string named = what + " '" + input_name(i) + "'";
  if (!known(i) && imp_.is_graph_input(input_name(i)))
    throw Unsupported{named + " is a graph input; it must be known at import: fix its value with "
                              "ImportOptions::input_values (tensorir --input-value)",
                      input_name(i)};
  if (!known(i) && !replaced_.count(i)) compute_known(imp_.value(input_name(i)), named);
  if (!known(i))
    throw Unsupported{named + " is computed at run time; it must be known at import (a constant), or the node "
                              "computed between stages of the model (onnx::Session, `tensorir run`)",
                      "", input_name(i)};
  return input(i).known;
}

bool Context::compute_known(Value &v, const std::string &what) const {
  try {
    return imp_.fold(v);
  } catch (const Error &e) {
    unsupported(what + " is computed from constants, but computing it at import failed: " + e.what());
  }
}

std::vector<int64_t> Context::ints(size_t i, const std::string &what) const {
  const NDArray &v = value(i, what);
  if (!v.dtype().is_int() && !v.dtype().is_uint())
    unsupported(what + " '" + input_name(i) + "' is not an integer tensor");
  return to_int64s(v);
}

graph::NodeRef Context::node(size_t i) {
  auto it = replaced_.find(i);
  if (it == replaced_.end()) return imp_.node_of(input_name(i));
  Value &v = it->second;
  if (v.node < 0) {
    v.node = constant(v.known, "input" + std::to_string(i)).id;
  }
  return graph::NodeRef{v.node};
}

void Context::replace_input(size_t i, graph::NodeRef r) {
  const graph::Node &n = imp_.builder().node(r);
  replaced_[i] = Value{r.id, NDArray(), n.shape, n.dtype};
}

void Context::replace_input(size_t i, const NDArray &known) {
  replaced_[i] = Value{-1, known, known.shape(), known.dtype()};
}

bool Context::wants_output(size_t i) const { return i < num_outputs() && !node_.output(int(i)).empty(); }

void Context::set_output(size_t i, graph::NodeRef r) {
  if (!wants_output(i)) return;
  const graph::Node &n = imp_.builder().node(r);
  if (element_count(n.shape) == 0)  // known: a graph holds no empty value but as a constant
    return set_output(i, NDArray::empty(n.shape, n.dtype));
  imp_.bind(node_.output(int(i)), Value{r.id, NDArray(), n.shape, n.dtype});
}

void Context::set_output(size_t i, const NDArray &known) {
  if (!wants_output(i)) return;
  imp_.bind(node_.output(int(i)), Value{-1, known, known.shape(), known.dtype()});
}

void Context::forward(size_t i, size_t j) {
  if (wants_output(i)) imp_.bind(node_.output(int(i)), any_input(j));
}

void Context::set_output(size_t i, const Value &v) {
  if (wants_output(i)) imp_.bind(node_.output(int(i)), v);
}

graph::NodeRef Context::node(const Value &v, const std::string &suffix) {
  TIR_USER_CHECK(v.kind == ValueKind::kTensor) << kind_name(v.kind) << " where a tensor is expected";
  if (v.node >= 0) return graph::NodeRef{v.node};
  return constant(v.known, suffix);
}

graph::NodeRef Context::make(const std::string &op, const std::vector<graph::NodeRef> &inputs,
                             std::map<std::string, graph::AttrValue> attrs) {
  const std::string base = node_.output_size() ? node_.output(0) : label_;
  return make_node(op, inputs, std::move(attrs), imp_.node_name(base + "/" + op, false));
}

const graph::Node *Context::first_empty(const std::vector<graph::NodeRef> &inputs) const {
  for (graph::NodeRef in : inputs)
    if (element_count(imp_.builder().node(in).shape) == 0) return &imp_.builder().node(in);
  return nullptr;
}

graph::NodeRef Context::make_node(const std::string &op, const std::vector<graph::NodeRef> &inputs,
                                  std::map<std::string, graph::AttrValue> attrs, const std::string &name) {
  const graph::Node *empty = first_empty(inputs);
  if (!empty) return imp_.builder().make(op, inputs, std::move(attrs), name);
  // A reshape of no elements (a converter's own view, which the graph's reshape refuses
  // for its extents of 0): the target shape, a -1 in it 0, known.
  if (auto s = attrs.find("shape"); op == "reshape" && s != attrs.end()) {
    std::vector<int64_t> shape = std::get<std::vector<int64_t>>(s->second);
    if (std::count(shape.begin(), shape.end(), -1) <= 1) {
      std::replace(shape.begin(), shape.end(), int64_t{-1}, int64_t{0});
      if (element_count(shape) == 0 && std::count_if(shape.begin(), shape.end(), [](int64_t d) { return d < 0; }) == 0)
        return imp_.builder().constant(name, NDArray::empty(shape, imp_.builder().node(inputs.at(0)).dtype));
    }
  }
  const std::string refused = op + " of " + empty->name + " " + shape_str(empty->shape) +
                              ", which is empty: only results that are empty too are computed from empty values";
  graph::NodeRef r;
  try {
    r = imp_.builder().make(op, inputs, std::move(attrs), name);
  } catch (const Error &e) {  // the operator's own checks refuse the empty extent, most likely
    unsupported(refused + " (the operator's check: " + e.what() + ")");
  }
  if (element_count(imp_.builder().node(r).shape) != 0) unsupported(refused);
  return r;
}

graph::NodeRef Context::output(size_t i, const std::string &op, const std::vector<graph::NodeRef> &inputs,
                               std::map<std::string, graph::AttrValue> attrs) {
  TIR_USER_CHECK(i < num_outputs()) << "the node has " << num_outputs() << " outputs; " << node_.op_type()
                                    << " has at least " << i + 1;
  if (!wants_output(i)) return make(op, inputs, std::move(attrs));
  // A node reading an empty input gives a known empty value, if anything: it must not
  // take the output's name, which the value's constant needs.
  const std::string &name = node_.output(int(i));
  graph::NodeRef r = first_empty(inputs) ? make(op, inputs, std::move(attrs))
                                 : make_node(op, inputs, std::move(attrs), imp_.node_name(name, true));
  set_output(i, r);
  return r;
}

graph::NodeRef Context::constant(const NDArray &value, const std::string &suffix) {
  const std::string base = node_.output_size() ? node_.output(0) : label_;
  return imp_.builder().constant(imp_.node_name(base + "/" + suffix, false), value);
}

std::vector<Value> Context::subgraph(const std::string &attr, const std::vector<Value> &inputs) {
  const ::onnx::AttributeProto *a = attrs_.get(attr);
  TIR_USER_CHECK(a && a->has_g()) << "the node has no graph attribute '" << attr << "'";
  return imp_.run_subgraph(a->g(), inputs);
}

const graph::Node &Context::graph_node(graph::NodeRef r) const { return imp_.builder().node(r); }

}  // namespace tensorir::onnx::detail
