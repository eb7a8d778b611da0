// If and Loop run between a Session's stages from sessions of their branches and body
// (control_stage.h).
#include "frontend/onnx/control_stage.h"

#include <algorithm>
#include <set>

#include "frontend/onnx/host.h"
#include "frontend/onnx/importer.h"
#include "frontend/onnx/stages.h"

namespace tensorir::onnx::detail {

struct ControlStage::Part {
  std::string attr;                   // "then_branch", "else_branch", "body"
  ::onnx::ModelProto model;           // its inputs typed at the first run
  std::vector<std::string> declared;  // the subgraph's own inputs (the body's iteration, condition, values)
  std::vector<std::string> outputs;   // the subgraph's, in order
  std::set<std::string> passed;       // outputs that are inputs or outer values, passed through as they are
  std::optional<Session> session;     // once run; none when every output is passed through
};

namespace {

const ::onnx::GraphProto &subgraph(const ::onnx::NodeProto &n, const std::string &attr, const std::string &label) {
  for (const auto &a : n.attribute())
    if (a.name() == attr && a.has_g()) return a.g();
  TIR_THROW() << "onnx: " << label << " has no graph attribute '" << attr << "'";
}

const NDArray &value_of(const std::map<std::string, NDArray> &values, const std::string &name,
                        const std::string &label) {
  auto it = values.find(name);
  TIR_USER_CHECK(it != values.end() && it->second.defined())
      << "onnx: " << label << " reads '" << name << "', which has no value in this run";
  return it->second;
}

bool truth(const NDArray &a, const std::string &what) {
  const NDArray host = a.to(Device::cpu());
  TIR_USER_CHECK(host.numel() == 1) << what << " must have one element, not " << shape_str(host.shape());
  return to_int64s(host)[0] != 0;
}

// The per-iteration values stacked along a new first axis (a Loop's scan output).
NDArray stack(const std::vector<NDArray> &values, const std::string &what) {
  std::vector<NDArray> parts;
  for (const NDArray &v : values) {
    const NDArray host = v.to(Device::cpu());
    TIR_USER_CHECK(host.shape() == values[0].shape() && host.dtype() == values[0].dtype())
        << what << " is " << host.dtype() << shape_str(host.shape()) << " in iteration " << parts.size()
        << " but " << values[0].dtype() << shape_str(values[0].shape()) << " in iteration 0; its values must agree";
    std::vector<int64_t> shape = host.shape();
    shape.insert(shape.begin(), 1);
    parts.push_back(host_reshape(host, shape));
  }
  return host_concat(parts, 0);
}

}  // namespace

bool ControlStage::handles(const ::onnx::NodeProto &n) {
  return (n.domain().empty() || n.domain() == "ai.onnx") && (n.op_type() == "If" || n.op_type() == "Loop");
}

ControlStage::ControlStage(const ::onnx::ModelProto &m, const ::onnx::NodeProto &n, MakeSession make)
    : node_(n), label_("node '" + node_label(n) + "' (" + n.op_type() + ")"), make_(std::move(make)) {
  TIR_ASSERT(handles(n)) << label_ << " is not an If or a Loop";
  std::map<std::string, const ::onnx::TensorProto *> initializers;
  for (const auto &t : m.graph().initializer()) initializers[t.name()] = &t;
  const std::vector<std::string> attrs =
      n.op_type() == "If" ? std::vector<std::string>{"then_branch", "else_branch"} : std::vector<std::string>{"body"};
  for (const std::string &attr : attrs) {
    const ::onnx::GraphProto &g = subgraph(n, attr, label_);
    auto p = std::make_unique<Part>();
    p->attr = attr;
    p->model = empty_like(m);
    ::onnx::GraphProto *pg = p->model.mutable_graph();
    pg->set_name(g.name());
    *pg->mutable_node() = g.node();
    *pg->mutable_initializer() = g.initializer();
    *pg->mutable_value_info() = g.value_info();
    for (const auto &in : g.input()) {
      p->declared.push_back(in.name());
      pg->add_input()->set_name(in.name());
    }
    std::set<std::string> from_outside(p->declared.begin(), p->declared.end());
    // Values of the model around it: its initializers join the part's; the rest are inputs.
    for (const std::string &name : outer_reads(g)) {
      if (auto t = initializers.find(name); t != initializers.end()) {
        *pg->add_initializer() = *t->second;
      } else {
        pg->add_input()->set_name(name);
        from_outside.insert(name);
      }
    }
    std::set<std::string> outputs;
    for (const auto &o : g.output()) {
      p->outputs.push_back(o.name());
      if (from_outside.count(o.name())) p->passed.insert(o.name());
      else if (outputs.insert(o.name()).second) pg->add_output()->set_name(o.name());
    }
    parts_.push_back(std::move(p));
  }
}

ControlStage::~ControlStage() = default;

std::optional<std::vector<NDArray>> ControlStage::run_part(Part &part, const std::map<std::string, NDArray> &values) {
  const std::string what = "the " + part.attr + " of " + label_;
  graph::Outputs computed;
  if (part.model.graph().output_size() > 0) {
    try {
      for (const auto &in : part.model.graph().input())
        if (value_of(values, in.name(), label_).numel() == 0) {
          this_run_only_ = true;  // a compiled part takes no empty array
          why_ = "the " + part.attr + " reads '" + in.name() + "', empty this run";
          return std::nullopt;
        }
      if (!part.session) {
        ::onnx::ModelProto typed = part.model;  // the types of this run's values, every dimension symbolic
        type_inputs(typed, values);
        part.session = make_(std::move(typed), what, part.declared);
      }
      std::map<std::string, NDArray> feed;
      for (const SessionInput &in : part.session->inputs()) feed[in.name] = value_of(values, in.name, label_);
      computed = part.session->run(feed);
    } catch (const UnsupportedError &e) {
      why_ = "the " + part.attr + " does not compile as a model of its own: " + e.what();
      return std::nullopt;  // what converting the node on the host says instead
    }
  }
  std::vector<NDArray> out;
  for (const std::string &name : part.outputs)
    out.push_back(part.passed.count(name) ? value_of(values, name, label_) : computed[name]);
  return out;
}

std::optional<std::map<std::string, NDArray>> ControlStage::run(const std::map<std::string, NDArray> &reads) {
  if (!on_host_) {
    this_run_only_ = false;
    why_.clear();
    std::optional<std::map<std::string, NDArray>> out = node_.op_type() == "If" ? run_if(reads) : run_loop(reads);
    if (out) return out;
    on_host_ = !this_run_only_;
  }
  return std::nullopt;
}

std::optional<std::map<std::string, NDArray>> ControlStage::run_if(const std::map<std::string, NDArray> &reads) {
  TIR_USER_CHECK(node_.input_size() >= 1 && !node_.input(0).empty()) << "onnx: " << label_ << " has no condition";
  const bool cond = truth(value_of(reads, node_.input(0), label_), "onnx: " + label_ + ": the condition");
  Part &part = *parts_[cond ? 0 : 1];
  const std::optional<std::vector<NDArray>> out = run_part(part, reads);
  if (!out) return std::nullopt;
  TIR_USER_CHECK(out->size() == size_t(node_.output_size()))
      << "onnx: " << label_ << ": the " << part.attr << " has " << out->size() << " outputs but the node "
      << node_.output_size();
  std::map<std::string, NDArray> named;
  for (size_t i = 0; i < out->size(); ++i)
    if (!node_.output(int(i)).empty()) named[node_.output(int(i))] = (*out)[i];
  return named;
}

// Loop(M, cond, v...): the body maps (iteration, cond, v...) to (cond, v..., scans...);
// the node gives the last v... and each scan output stacked over the iterations.
std::optional<std::map<std::string, NDArray>> ControlStage::run_loop(const std::map<std::string, NDArray> &reads) {
  Part &body = *parts_[0];
  const auto given = [&](int i) { return node_.input_size() > i && !node_.input(i).empty(); };
  const size_t carried = node_.input_size() >= 2 ? size_t(node_.input_size() - 2) : 0;
  TIR_USER_CHECK(node_.input_size() >= 2 && size_t(node_.output_size()) >= carried)
      << "onnx: " << label_ << " needs a trip count and a condition input (either may be \"\") and an output per "
      << "loop-carried value";
  TIR_USER_CHECK(body.declared.size() == 2 + carried)
      << "onnx: " << label_ << ": the body has " << body.declared.size() << " inputs; the node's "
      << carried << " loop-carried values need " << 2 + carried;
  const size_t scans = size_t(node_.output_size()) - carried;
  TIR_USER_CHECK(body.outputs.size() == 1 + carried + scans)
      << "onnx: " << label_ << ": the body has " << body.outputs.size() << " outputs; the node needs "
      << 1 + carried + scans;
  int64_t trips = -1;  // none: until the condition is false
  if (given(0)) {
    const std::vector<int64_t> m = to_int64s(value_of(reads, node_.input(0), label_).to(Device::cpu()));
    TIR_USER_CHECK(m.size() == 1) << "onnx: " << label_ << ": the trip count must have one element, not " << m.size();
    trips = std::max<int64_t>(m[0], 0);  // a negative count: no iterations
  }
  bool cond = given(1) ? truth(value_of(reads, node_.input(1), label_), "onnx: " + label_ + ": the condition") : true;
  TIR_USER_CHECK(given(0) || given(1)) << "onnx: " << label_ << " has neither a trip count nor a condition: it "
                                       << "does not end";
  // The iteration number and the condition as the body declares them: [] or [1].
  const auto shape_of = [&](int i) {
    const auto &t = subgraph(node_, "body", label_).input(i).type().tensor_type();
    return t.has_shape() && t.shape().dim_size() == 1 ? std::vector<int64_t>{1} : std::vector<int64_t>{};
  };
  const std::vector<int64_t> iteration_shape = shape_of(0), cond_shape = shape_of(1);
  std::map<std::string, NDArray> values = reads;
  std::vector<NDArray> v;
  for (size_t i = 0; i < carried; ++i) v.push_back(value_of(reads, node_.input(int(2 + i)), label_));
  std::vector<std::vector<NDArray>> scanned(scans);
  const int64_t compiled = int64_t(total(&Session::compiles)), kept = int64_t(total(&Session::cached));
  for (int64_t it = 0; cond && (trips < 0 || it < trips); ++it) {
    values[body.declared[0]] = from_int64s({it}, iteration_shape);
    values[body.declared[1]] = from_int64s({1}, cond_shape, Bool());
    for (size_t i = 0; i < carried; ++i) values[body.declared[2 + i]] = v[i];
    const std::optional<std::vector<NDArray>> out = run_part(body, values);
    if (!out) return std::nullopt;
    // A body compiled for values or shapes that change with the iteration (the iteration
    // number as a Slice's end, say) compiles more models in a run than its sessions keep
    // (their caches drop some, or the host compiles for it), and so again on every run:
    // unrolled on the host instead, one compile a run.
    if (int64_t(total(&Session::compiles)) - compiled > int64_t(total(&Session::cached)) - kept) {
      why_ = "the body compiles more models in a run than its sessions keep (what it is compiled for changes with "
             "the iteration)";
      return std::nullopt;
    }
    for (size_t i = 0; i < carried; ++i) {
      const NDArray &next = (*out)[1 + i];
      if (next.shape() != v[i].shape() || next.dtype() != v[i].dtype()) {
        why_ = "the loop-carried value '" + body.declared[2 + i] + "' goes from " + v[i].dtype().str() +
               shape_str(v[i].shape()) + " to " + next.dtype().str() + shape_str(next.shape()) + " in an iteration";
        return std::nullopt;
      }
      v[i] = next;
    }
    for (size_t k = 0; k < scans; ++k) scanned[k].push_back((*out)[1 + carried + k]);
    cond = truth((*out)[0], "onnx: " + label_ + ": the condition the body computes");
  }
  bool scans_used = false;
  for (size_t k = 0; k < scans; ++k) scans_used = scans_used || !node_.output(int(carried + k)).empty();
  if (scans_used && scanned[0].empty()) {  // no iterations: the scans' shapes are unknown
    this_run_only_ = true;
    why_ = "no iterations: the scan outputs' shapes are known only from one";
    return std::nullopt;
  }
  std::map<std::string, NDArray> named;
  for (size_t i = 0; i < carried; ++i)
    if (!node_.output(int(i)).empty()) named[node_.output(int(i))] = v[i];
  for (size_t k = 0; k < scans; ++k) {
    const std::string &name = node_.output(int(carried + k));
    if (!name.empty() && !scanned[k].empty())
      named[name] = stack(scanned[k], "onnx: " + label_ + ": scan output '" + name + "'");
  }
  return named;
}

size_t ControlStage::total(size_t (Session::*count)() const) const {
  size_t n = 0;
  for (const auto &p : parts_)
    if (p->session) n += ((*p->session).*count)();
  return n;
}

}  // namespace tensorir::onnx::detail
