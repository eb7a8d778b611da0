// An ONNX model to a graph: opset and types checked first, initializers as known
// values, graph inputs with their shapes bound, then each node by its converter.
#include "frontend/onnx/importer.h"

#include <algorithm>
#include <new>
#include <set>
#include <sstream>

#include "frontend/onnx/host.h"
#include "frontend/onnx/proto.h"
#include "frontend/onnx/stages.h"
#include "tensorir/graph/passes.h"

namespace tensorir::onnx::detail {

namespace {

// The options a message names, as the library and the command line spell them.
constexpr const char *kGivenShapes = "input_shapes (tensorir --input-shape)";
constexpr const char *kGivenValues = "ImportOptions::input_values (tensorir --input-value or --input)";

bool is_ai_onnx(const std::string &domain) { return domain.empty() || domain == "ai.onnx"; }

// Why an input of this ONNX type cannot be a graph input, or "".
std::string input_type_problem(const ::onnx::TypeProto &t) {
  if (!t.has_tensor_type()) return "is not a tensor (sequences, maps and optionals are not supported)";
  Type dtype;
  const int32_t et = t.tensor_type().elem_type();
  if (!element_type(et, &dtype) || !supported_dtype(dtype))
    return "is " + element_type_name(et) + ", which graph inputs cannot be";
  return "";
}

// What to say when memory runs out converting a node: the size of the last tensor it
// asked for, when the host arithmetic checked one.
std::string out_of_memory() {
  std::string s = "out of memory computing it at import (std::bad_alloc)";
  if (const int64_t bytes = last_host_request())
    s += "; the last tensor it asked for held " + std::to_string(bytes) + " bytes";
  return s;
}

}  // namespace

bool supported_dtype(Type t) {
  return t == Float(32) || t == Float(64) || t.is_int() || t.is_uint();
}

std::string node_label(const ::onnx::NodeProto &n) {
  if (!n.name().empty()) return n.name();
  return n.output_size() ? n.output(0) : n.op_type();
}

UnsupportedNode opset_problem(const ::onnx::ModelProto &m) {
  int64_t version = -1;
  int imports = 0;
  for (const auto &o : m.opset_import())
    if (is_ai_onnx(o.domain())) {
      version = o.version();
      ++imports;
    }
  if (imports > 1) return {"", "", "the model imports the ai.onnx opset " + std::to_string(imports) + " times", ""};
  if (version < 0 && m.ir_version() < 3) version = 1;  // IR version 1 and 2 had no opset imports
  if (version >= kMinOpset && version <= kMaxOpset) return {};
  const std::string range = " (ai.onnx " + std::to_string(kMinOpset) + " to " + std::to_string(kMaxOpset) + ")";
  if (version < 0) return {"", "", "the model imports no ai.onnx opset" + range, ""};
  return {"", "", "ai.onnx opset " + std::to_string(version) + " is not supported" + range, ""};
}

int model_opset(const ::onnx::ModelProto &m) {
  for (const auto &o : m.opset_import())
    if (is_ai_onnx(o.domain())) return int(o.version());
  return 1;
}

std::vector<UnsupportedNode> static_check(const ::onnx::GraphProto &g, int opset) {
  std::vector<UnsupportedNode> out;
  std::set<std::string> initializers;
  for (const auto &t : g.initializer()) initializers.insert(t.name());
  for (const auto &in : g.input()) {
    if (initializers.count(in.name())) continue;
    const std::string p = input_type_problem(in.type());
    if (!p.empty()) out.push_back({in.name(), "input", "graph input '" + in.name() + "' " + p, ""});
  }
  for (const auto &t : g.initializer()) {
    Type dtype;
    if (!element_type(t.data_type(), &dtype) || !supported_dtype(dtype))
      out.push_back({t.name(), "initializer", "initializer '" + t.name() + "' is " + element_type_name(t.data_type()), ""});
  }
  for (const auto &n : g.node()) {
    UnsupportedNode u{node_label(n), n.op_type(), "", ""};
    if (!is_ai_onnx(n.domain())) {
      u.reason = "domain '" + n.domain() + "' is not supported (ai.onnx only)";
    } else if (const Converter *c = find_converter(n.op_type(), opset)) {
      if (c->check) {
        try {
          u.reason = c->check(Attributes(n));
        } catch (const Error &e) {
          u.reason = e.what();
        }
      }
    } else {
      u.reason = find_converter(n.op_type(), kMaxOpset) || find_converter(n.op_type(), kMinOpset)
                     ? "no converter for opset " + std::to_string(opset)
                     : "no converter for this operator";
    }
    if (!u.reason.empty()) out.push_back(std::move(u));
  }
  return out;
}

std::string describe(const UnsupportedNode &u) {
  if (u.op == "input" || u.op == "initializer" || u.node.empty()) return u.reason;
  return "node '" + u.node + "' (" + u.op + "): " + u.reason;
}

void throw_unsupported(const std::string &model, std::vector<UnsupportedNode> nodes, int skipped) {
  std::ostringstream os;
  os << "onnx: " << model << ": " << nodes.size() << (nodes.size() == 1 ? " node" : " nodes") << " cannot be imported:";
  for (const UnsupportedNode &u : nodes) os << "\n  " << describe(u);
  if (skipped) os << "\n  (" << skipped << " nodes reading their results were not checked)";
  throw UnsupportedError(os.str(), std::move(nodes));
}

namespace {

// The names `g` declares float16, for Importer::declared_half.
std::set<std::string> half_names(const ::onnx::GraphProto &g) {
  std::set<std::string> out;
  for (const auto *infos : {&g.input(), &g.output(), &g.value_info()})
    for (const ::onnx::ValueInfoProto &v : *infos)
      if (is_float16(v.type().tensor_type().elem_type())) out.insert(v.name());
  for (const ::onnx::TensorProto &t : g.initializer())
    if (is_float16(t.data_type())) out.insert(t.name());
  for (const ::onnx::NodeProto &n : g.node()) {
    bool half = false;
    for (const ::onnx::AttributeProto &a : n.attribute()) {
      if (n.op_type() == "Cast" && a.name() == "to")
        half = a.has_s() ? a.s() == "FLOAT16" : is_float16(int32_t(a.i()));
      if (n.op_type() == "Constant" && a.name() == "value") half = is_float16(a.t().data_type());
    }
    if (half && n.output_size() > 0) out.insert(n.output(0));
  }
  return out;
}

}  // namespace

Importer::Importer(const ::onnx::ModelProto &m, const ImportOptions &options, std::string model_dir, std::string what)
    : model_(m),
      options_(options),
      dir_(std::move(model_dir)),
      what_(std::move(what)),
      half_names_(half_names(m.graph())) {}

Value &Importer::value(const std::string &name) {
  auto it = values_.find(name);
  TIR_USER_CHECK(it != values_.end()) << "onnx: value '" << name << "' is read before any node computes it "
                                      << "(the nodes are not in topological order, or it is missing)";
  return it->second;
}

void Importer::bind(const std::string &name, Value v) {
  TIR_USER_CHECK(!values_.count(name)) << "onnx: value '" << name << "' is computed twice";
  values_.emplace(name, std::move(v));
}

std::string Importer::node_name(const std::string &base, bool own) {
  if (own && !graph_names_.count(base)) {
    graph_names_.insert(base);
    return base;
  }
  std::string name = base;
  for (int i = 1; graph_names_.count(name) || onnx_names_.count(name); ++i) name = base + "_" + std::to_string(i);
  graph_names_.insert(name);
  return name;
}

graph::NodeRef Importer::node_of(const std::string &name) {
  Value &v = value(name);
  if (v.kind != ValueKind::kTensor)
    unsupported("value '" + name + "' is " + kind_name(v.kind) + "; graph outputs and operands must be tensors");
  if (v.node < 0) {
    TIR_ASSERT(v.known.defined()) << name;
    v.node = builder_.constant(node_name(name, true), v.known).id;
  }
  return graph::NodeRef{v.node};
}

void Importer::add_initializers() {
  for (const ::onnx::TensorProto &t : model_.graph().initializer()) {
    NDArray a = tensor_value(t, dir_);
    bind(t.name(), Value{-1, a, a.shape(), a.dtype()});
  }
}

void Importer::add_inputs() {
  for (const ::onnx::ValueInfoProto &in : model_.graph().input()) {
    if (values_.count(in.name())) continue;  // an initializer: a constant with a default
    const std::string what = "onnx: input '" + in.name() + "'";
    const auto &tt = in.type().tensor_type();
    Type dtype;
    element_type(tt.elem_type(), &dtype);  // static_check refused the others
    if (auto fixed = options_.input_values.find(in.name()); fixed != options_.input_values.end()) {
      bind_fixed_input(in, dtype, fixed->second);
      continue;
    }
    auto bound = options_.input_shapes.find(in.name());
    std::vector<int64_t> shape;
    if (!tt.has_shape()) {
      TIR_USER_CHECK(bound != options_.input_shapes.end())
          << what << " has no shape in the model; give it in ImportOptions::input_shapes";
      shape = bound->second;
    } else {
      const auto &dims = tt.shape().dim();
      if (bound != options_.input_shapes.end()) {
        shape = bound->second;
        TIR_USER_CHECK(shape.size() == size_t(dims.size()))
            << what << " has " << dims.size() << " dimensions but " << kGivenShapes << " gives " << shape_str(shape);
      }
      for (int i = 0; i < dims.size(); ++i) {
        const auto &d = dims[i];
        const std::string sym = d.has_dim_param() && !d.dim_param().empty() ? "'" + d.dim_param() + "'" : "unnamed";
        if (bound == options_.input_shapes.end()) {
          if (!d.has_dim_value()) {  // the input's value, fixed at import, also binds it
            unsupported_.push_back({in.name(), "input",
                                    "input '" + in.name() + "': dimension " + std::to_string(i) + " (" + sym +
                                        ") is symbolic; bind it with ImportOptions::input_shapes[\"" + in.name() + "\"]",
                                    in.name(), true});
            break;
          }
          shape.push_back(d.dim_value());
        } else {
          TIR_USER_CHECK(!d.has_dim_value() || d.dim_value() == shape[size_t(i)])
              << what << ": dimension " << i << " is " << d.dim_value() << " in the model but " << kGivenShapes
              << " gives " << shape[size_t(i)] << " (" << shape_str(shape) << ")";
        }
      }
    }
    // An empty input holds no values, only its shape (an empty list of axes, an empty
    // sequence element): fixed at import, it is a constant the importer folds.
    if (std::find(shape.begin(), shape.end(), 0) != shape.end())
      unsupported_.push_back({in.name(), "input",
                              "graph input '" + in.name() + "' is empty " + shape_str(shape) +
                                  "; fix its value with ImportOptions::input_values",
                              in.name()});
    if (!unsupported_.empty()) continue;
    for (int64_t d : shape) TIR_USER_CHECK(d > 0) << what << ": shape " << shape_str(shape) << " must be positive";
    graph::NodeRef r = builder_.input(node_name(in.name(), true), shape, dtype);
    graph_inputs_.insert(in.name());
    bind(in.name(), Value{r.id, NDArray(), shape, dtype});
  }
}

// A misspelt name is the mistake to report, not what follows from the input it meant
// being left unbound, nor whatever else the model holds that cannot be imported.
void Importer::check_option_names() const {
  std::set<std::string> initializers;
  for (const ::onnx::TensorProto &t : model_.graph().initializer()) initializers.insert(t.name());
  std::vector<std::string> inputs;
  for (const ::onnx::ValueInfoProto &in : model_.graph().input())
    if (!initializers.count(in.name())) inputs.push_back(in.name());
  auto check = [&](const std::string &name, const char *option, const char *flag) {
    if (std::find(inputs.begin(), inputs.end(), name) != inputs.end()) return;
    throw UnknownInputError("onnx: ImportOptions::" + std::string(option) + " (tensorir " + flag + ") names '" +
                                name + "', which is not an input of the model (" +
                                UnknownInputError::inputs_text(inputs) + ")",
                            option, name, inputs);
  };
  for (const auto &[name, shape] : options_.input_shapes) check(name, "input_shapes", "--input-shape");
  for (const auto &[name, value] : options_.input_values) check(name, "input_values", "--input-value");
}

void Importer::bind_fixed_input(const ::onnx::ValueInfoProto &in, Type dtype, const NDArray &value) {
  const std::string what = "onnx: input '" + in.name() + "'";
  TIR_USER_CHECK(value.defined()) << what << ": " << kGivenValues << " gives an empty array";
  TIR_USER_CHECK(!options_.input_shapes.count(in.name()))
      << what << " is given both a shape (input_shapes, tensorir --input-shape) and a value (input_values, tensorir "
         "--input-value); give only the value";
  TIR_USER_CHECK(value.dtype() == dtype)
      << what << " is " << dtype << " but the value given in " << kGivenValues << " is " << value.dtype();
  const auto &tt = in.type().tensor_type();
  if (tt.has_shape()) {
    const auto &dims = tt.shape().dim();
    bool fits = value.shape().size() == size_t(dims.size());
    for (int i = 0; fits && i < dims.size(); ++i)
      fits = !dims[i].has_dim_value() || dims[i].dim_value() == value.shape()[size_t(i)];
    TIR_USER_CHECK(fits) << what << ": the value given in " << kGivenValues << " has shape "
                         << shape_str(value.shape()) << ", which does not fit the input's shape in the model";
  }
  NDArray copy = value.to(Device::cpu());  // the caller keeps its array
  bind(in.name(), Value{-1, copy, copy.shape(), copy.dtype()});
}

void Importer::convert_nodes() {
  for (const ::onnx::NodeProto &n : model_.graph().node()) {
    bool skip = false;  // what a subgraph reads from outside counts too
    for (const std::string &in : names_read(n)) skip = skip || poisoned_.count(in);
    if (skip) {
      for (const std::string &out : n.output()) poisoned_.insert(out);
      ++skipped_;
      continue;
    }
    const Converter *conv = find_converter(n.op_type(), opset_);
    TIR_ASSERT(conv) << n.op_type();  // static_check found one
    Context ctx(*this, n, opset_);
    reset_host_request();
    try {
      for (int i = 0; i < n.input_size(); ++i)
        if (!n.input(i).empty()) value(n.input(i));  // read before computed: an Error
      conv->convert(ctx);
      for (int i = 0; i < n.output_size(); ++i)
        TIR_ASSERT(n.output(i).empty() || values_.count(n.output(i)))
            << "the converter of " << n.op_type() << " left output '" << n.output(i) << "' unset";
    } catch (const Unsupported &u) {
      unsupported_.push_back({ctx.label(), n.op_type(), u.reason, u.input, false, u.value});
      for (const std::string &out : n.output()) poisoned_.insert(out);
    } catch (const std::bad_alloc &) {
      throw Error("onnx: node '" + ctx.label() + "' (" + n.op_type() + "): " + out_of_memory());
    } catch (const std::exception &e) {  // tensorir::Error, or protobuf's on a malformed node
      throw Error("onnx: node '" + ctx.label() + "' (" + n.op_type() + "): " + e.what());
    }
  }
}

std::vector<Value> Importer::run_subgraph(const ::onnx::GraphProto &g, const std::vector<Value> &inputs) {
  for (const UnsupportedNode &u : static_check(g, opset_))
    if (u.op != "input")
      unsupported("subgraph '" + g.name() + "': " + (u.node.empty() ? "" : "node '" + u.node + "' (" + u.op + "): ") +
                  u.reason);
  TIR_USER_CHECK(size_t(g.input_size()) == inputs.size())
      << "subgraph '" << g.name() << "' has " << g.input_size() << " inputs; " << inputs.size() << " are given";
  // The subgraph's own names, unbound when it is done (or refused).
  struct Scope {
    std::map<std::string, Value> &values;
    std::vector<std::string> names;
    ~Scope() {
      for (const std::string &name : names) values.erase(name);
    }
  } scope{values_, {}};
  std::vector<std::string> &own = scope.names;
  for (const auto &t : g.initializer()) {
    NDArray a = tensor_value(t, dir_);
    bind(t.name(), Value{-1, a, a.shape(), a.dtype()});
    own.push_back(t.name());
  }
  for (int i = 0; i < g.input_size(); ++i) {
    bind(g.input(i).name(), inputs[size_t(i)]);
    own.push_back(g.input(i).name());
  }
  const std::string where = "in subgraph '" + g.name() + "', node '";
  for (const ::onnx::NodeProto &n : g.node()) {
    Context ctx(*this, n, opset_);
    reset_host_request();
    try {
      for (const std::string &in : n.input())
        if (!in.empty()) value(in);
      find_converter(n.op_type(), opset_)->convert(ctx);  // static_check found one
    } catch (const Unsupported &u) {
      // The value a node of the body needs makes the node holding the body (If, Loop) a
      // boundary between stages: computed on the host once it is known.
      throw Unsupported{where + ctx.label() + "' (" + n.op_type() + "): " + u.reason, u.input, u.value};
    } catch (const std::bad_alloc &) {
      throw Error(where + ctx.label() + "' (" + n.op_type() + "): " + out_of_memory());
    } catch (const Error &e) {
      throw Error(where + ctx.label() + "' (" + n.op_type() + "): " + e.what());
    }
    for (const std::string &o : n.output())
      if (!o.empty()) own.push_back(o);
  }
  std::vector<Value> out;
  for (const auto &o : g.output()) out.push_back(value(o.name()));
  return out;
}

std::vector<graph::NodeRef> Importer::outputs(const std::vector<std::string> &names) {
  std::vector<graph::NodeRef> out;
  std::set<int> used;
  for (const std::string &name : names) {
    TIR_USER_CHECK(values_.count(name)) << "onnx: graph output '" << name << "' is computed by no node";
    graph::NodeRef r;
    try {
      r = node_of(name);
    } catch (const Unsupported &u) {
      throw UnsupportedError("onnx: " + what_ + ": output '" + name + "': " + u.reason, {{name, "output", u.reason, ""}});
    }
    // The graph's outputs carry the model's output names: an output that is another
    // value (Identity, or a graph input) gets a copy of its own under its name.
    if (builder_.node(r).name != name || used.count(r.id)) {
      const graph::Node &src = builder_.node(r);
      r = element_count(src.shape) == 0  // an empty value is a constant: another one
              ? builder_.constant(node_name(name, true), NDArray::empty(src.shape, src.dtype))
              : builder_.make("reshape", {r}, {{"shape", src.shape}}, node_name(name, true));
    }
    used.insert(r.id);
    out.push_back(r);
  }
  TIR_USER_CHECK(!out.empty()) << "onnx: " << what_ << " has no graph outputs";
  return out;
}

void Importer::convert() {
  check_option_names();  // a mistake in the options, before anything of the model is read
  const UnsupportedNode opset = opset_problem(model_);
  if (!opset.reason.empty()) throw UnsupportedError("onnx: " + what_ + ": " + opset.reason, {opset});
  opset_ = model_opset(model_);
  std::vector<UnsupportedNode> problems = static_check(model_.graph(), opset_);
  if (!problems.empty()) throw_unsupported(what_, std::move(problems), 0);
  const ::onnx::GraphProto &g = model_.graph();
  for (const auto &t : g.initializer()) onnx_names_.insert(t.name());
  for (const auto &in : g.input()) onnx_names_.insert(in.name());
  for (const auto &n : g.node())
    for (const std::string &o : n.output()) onnx_names_.insert(o);
  add_initializers();
  add_inputs();
  if (unsupported_.empty()) convert_nodes();
  if (!unsupported_.empty()) throw_unsupported(what_, std::move(unsupported_), skipped_);
}

graph::Graph Importer::finish(const std::vector<std::string> &outputs) {
  std::vector<std::string> names = outputs;
  if (names.empty())
    for (const ::onnx::ValueInfoProto &o : model_.graph().output()) names.push_back(o.name());
  // Without the graph nodes whose results became known (an empty result, say), which
  // the build would otherwise fold before it drops them.
  return graph::eliminate_dead_nodes(builder_.finish(this->outputs(names)));
}

}  // namespace tensorir::onnx::detail
