// Splitting a model around the nodes that need run-time values at import (stages.h).
#include "frontend/onnx/stages.h"

#include <algorithm>

#include "frontend/onnx/importer.h"
#include "frontend/onnx/proto.h"

namespace tensorir::onnx::detail {

namespace {

using ::onnx::GraphProto;
using ::onnx::ModelProto;
using ::onnx::NodeProto;
using ::onnx::ValueInfoProto;

// One stage's model: `nodes` of `m`, the graph inputs and initializers they read, `outputs`
// (the model's own declarations where it has them), and the value_info of what they compute.
ModelProto stage_model(const ModelProto &m, const std::vector<int> &nodes, const std::vector<std::string> &outputs,
                       const std::vector<std::string> &extra_inputs) {
  const GraphProto &g = m.graph();
  ModelProto out = empty_like(m);
  GraphProto *s = out.mutable_graph();
  std::set<std::string> reads, made;
  for (int i : nodes) {
    *s->add_node() = g.node(i);
    for (const std::string &r : names_read(g.node(i))) reads.insert(r);
    for (const std::string &o : g.node(i).output()) made.insert(o);
  }
  std::set<std::string> initializers;
  for (const auto &t : g.initializer()) {
    initializers.insert(t.name());
    if (reads.count(t.name())) *s->add_initializer() = t;
  }
  for (const ValueInfoProto &in : g.input())
    if (reads.count(in.name()) && !initializers.count(in.name())) *s->add_input() = in;
  for (const std::string &name : extra_inputs) s->add_input()->set_name(name);
  auto declared = [&](const std::string &name) -> const ValueInfoProto * {
    for (const ValueInfoProto &o : g.output())
      if (o.name() == name) return &o;
    return nullptr;
  };
  for (const std::string &name : outputs) {
    const ValueInfoProto *d = declared(name);
    if (d) *s->add_output() = *d;
    else s->add_output()->set_name(name);
  }
  for (const ValueInfoProto &v : g.value_info())
    if (made.count(v.name())) *s->add_value_info() = v;
  return out;
}

void add_once(std::vector<std::string> &v, const std::string &name) {
  if (std::find(v.begin(), v.end(), name) == v.end()) v.push_back(name);
}

}  // namespace

std::set<std::string> outer_reads(const GraphProto &g) {
  std::set<std::string> own, out;
  for (const auto &in : g.input()) own.insert(in.name());
  for (const auto &t : g.initializer()) own.insert(t.name());
  for (const NodeProto &n : g.node())
    for (const std::string &o : n.output()) own.insert(o);
  for (const NodeProto &n : g.node())
    for (const std::string &name : names_read(n))
      if (!own.count(name)) out.insert(name);
  for (const auto &o : g.output())  // an output may name an outer value as it is
    if (!own.count(o.name())) out.insert(o.name());
  return out;
}

ModelProto empty_like(const ModelProto &m) {
  // Field by field: a copy of `m` would copy every initializer, only to drop them.
  ModelProto out;
  if (m.has_ir_version()) out.set_ir_version(m.ir_version());
  *out.mutable_opset_import() = m.opset_import();
  if (m.has_producer_name()) out.set_producer_name(m.producer_name());
  if (m.has_producer_version()) out.set_producer_version(m.producer_version());
  if (m.has_domain()) out.set_domain(m.domain());
  if (m.has_model_version()) out.set_model_version(m.model_version());
  if (m.has_doc_string()) out.set_doc_string(m.doc_string());
  *out.mutable_metadata_props() = m.metadata_props();
  *out.mutable_functions() = m.functions();
  out.mutable_graph()->set_name(m.graph().name());
  return out;
}

std::set<std::string> names_read(const NodeProto &n) {
  std::set<std::string> out;
  for (const std::string &in : n.input())
    if (!in.empty()) out.insert(in);
  for (const auto &a : n.attribute()) {
    if (a.has_g()) out.merge(outer_reads(a.g()));
    for (const GraphProto &g : a.graphs()) out.merge(outer_reads(g));
  }
  return out;
}

bool split_stages(const ModelProto &m, const std::vector<UnsupportedNode> &refused, Stages *out) {
  const GraphProto &g = m.graph();
  std::set<int> boundary;
  for (const UnsupportedNode &u : refused) {
    if (u.value.empty()) continue;
    int found = -1;
    for (int i = 0; i < g.node_size() && found < 0; ++i)
      if (node_label(g.node(i)) == u.node && g.node(i).op_type() == u.op) found = i;
    if (found < 0) return false;  // in a subgraph
    boundary.insert(found);
  }
  if (boundary.empty()) return false;
  // The nodes after: those reading what a boundary node or a node after computes (the
  // graph is in topological order).
  std::set<std::string> later;
  std::vector<int> before, after;
  for (int i = 0; i < g.node_size(); ++i) {
    const NodeProto &n = g.node(i);
    bool reads_later = false;
    for (const std::string &r : names_read(n)) reads_later = reads_later || later.count(r);
    if (boundary.count(i) || reads_later) {
      for (const std::string &o : n.output())
        if (!o.empty()) later.insert(o);
      if (!boundary.count(i)) after.push_back(i);
    } else {
      before.push_back(i);
    }
  }
  std::set<std::string> made_before, made_after, model_outputs;
  for (int i : before)
    for (const std::string &o : g.node(i).output()) made_before.insert(o);
  for (int i : after)
    for (const std::string &o : g.node(i).output()) made_after.insert(o);
  for (const auto &o : g.output()) model_outputs.insert(o.name());
  std::set<std::string> initializers;
  for (const auto &t : g.initializer()) initializers.insert(t.name());

  // What the first stage gives: the model's outputs it computes, and what the boundary
  // and the nodes after read of it.
  std::vector<std::string> before_outputs;
  for (const auto &o : g.output())
    if (made_before.count(o.name())) add_once(before_outputs, o.name());
  std::vector<std::string> cut;  // what the nodes after read from outside them
  for (int i : boundary)
    for (const std::string &r : names_read(g.node(i)))
      if (made_before.count(r)) add_once(before_outputs, r);
  for (int i : after)
    for (const std::string &r : names_read(g.node(i)))
      if (!made_after.count(r) && !initializers.count(r)) {
        add_once(cut, r);
        if (made_before.count(r)) add_once(before_outputs, r);
      }
  std::vector<std::string> after_outputs;
  for (const auto &o : g.output())
    if (made_after.count(o.name())) add_once(after_outputs, o.name());

  Stages s;
  s.boundary.assign(boundary.begin(), boundary.end());
  s.has_before = !before_outputs.empty();
  if (s.has_before) s.before = stage_model(m, before, before_outputs, {});
  s.has_after = !after_outputs.empty();
  if (s.has_after) {
    s.after = stage_model(m, after, after_outputs, {});
    // Its inputs are what it reads from outside, declared at the first run.
    s.after.mutable_graph()->clear_input();
    for (const std::string &name : cut) s.after.mutable_graph()->add_input()->set_name(name);
    s.cut = cut;
  }
  *out = std::move(s);
  return true;
}

std::map<std::string, NDArray> compute_on_host(const ModelProto &m, const NodeProto &n,
                                               const std::map<std::string, NDArray> &inputs, const std::string &dir,
                                               const std::string &what, size_t *compiles) {
  ModelProto one = empty_like(m);
  GraphProto *g = one.mutable_graph();
  *g->add_node() = n;
  for (const std::string &o : n.output())
    if (!o.empty()) g->add_output()->set_name(o);
  std::map<std::string, NDArray> reads;
  for (const std::string &name : names_read(n)) {
    auto it = inputs.find(name);
    TIR_ASSERT(it != inputs.end()) << "no value for '" << name << "', read by " << node_label(n);
    reads.insert(*it);
  }
  return compute_on_host(one, reads, dir, what, compiles);
}

std::map<std::string, NDArray> compute_on_host(const ModelProto &m, const std::map<std::string, NDArray> &inputs,
                                               const std::string &dir, const std::string &what, size_t *compiles) {
  // Only the nodes the outputs need, and the initializers they read (each is parsed at
  // import): a node whose result nobody reads could refuse an empty value that the
  // outputs do not depend on.
  std::set<std::string> needed;
  std::vector<std::string> outputs;
  for (const ValueInfoProto &o : m.graph().output()) {
    needed.insert(o.name());
    outputs.push_back(o.name());
  }
  std::vector<int> keep;
  for (int i = m.graph().node_size() - 1; i >= 0; --i) {
    const NodeProto &n = m.graph().node(i);
    if (std::none_of(n.output().begin(), n.output().end(), [&](const std::string &o) { return needed.count(o); }))
      continue;
    keep.insert(keep.begin(), i);
    for (const std::string &r : names_read(n)) needed.insert(r);
  }
  for (const ValueInfoProto &in : m.graph().input())
    TIR_ASSERT(inputs.count(in.name())) << "no value for graph input '" << in.name() << "'";
  ModelProto known = stage_model(m, keep, outputs, {});
  GraphProto *g = known.mutable_graph();
  g->clear_input();  // they are the initializers `inputs` gives
  for (const auto &[name, value] : inputs) *g->add_initializer() = tensor_proto(name, value.to(Device::cpu()));
  const ImportOptions options;
  Importer imp(known, options, dir, what);
  // Counted as they happen: a conversion that fails has compiled as much.
  struct Count {
    const Importer &imp;
    size_t *compiles;
    ~Count() {
      if (compiles) *compiles += size_t(imp.folds());
    }
  } count{imp, compiles};
  imp.convert();
  // Every value the converters computed is known; what they left to graph nodes of
  // constants is compiled for the CPU and run once. Known values may be empty, which a
  // graph's values may not be.
  std::map<std::string, NDArray> out;
  std::vector<std::string> computed;
  for (const ValueInfoProto &o : m.graph().output()) {
    const Value &v = imp.value(o.name());
    if (v.kind != ValueKind::kTensor) {
      std::string by;
      for (const NodeProto &n : m.graph().node())
        if (std::count(n.output().begin(), n.output().end(), o.name()))
          by = " (of node '" + node_label(n) + "', " + n.op_type() + ")";
      throw Error("onnx: " + what + ": '" + o.name() + "'" + by + " is " + kind_name(v.kind) +
                  "; between stages only tensors are supported");
    }
    if (v.known.defined()) out[o.name()] = v.known;
    else computed.push_back(o.name());
  }
  if (computed.empty()) return out;
  if (compiles) ++*compiles;
  const graph::Outputs run = graph::build(imp.finish(computed), Target("llvm")).run({});
  for (size_t i = 0; i < run.size(); ++i) out[run.names()[i]] = run.at(i);
  return out;
}

void type_inputs(ModelProto &after, const std::map<std::string, NDArray> &values) {
  for (ValueInfoProto &in : *after.mutable_graph()->mutable_input()) {
    const NDArray &a = values.at(in.name());
    auto *t = in.mutable_type()->mutable_tensor_type();
    t->set_elem_type(onnx_type_of(a.dtype()));
    auto *shape = t->mutable_shape();
    shape->clear_dim();
    for (size_t d = 0; d < a.shape().size(); ++d) shape->add_dim()->set_dim_param(in.name() + "_dim" + std::to_string(d));
  }
}

}  // namespace tensorir::onnx::detail
