// onnx::Session for models that need values they compute at run time (stages.h): the
// split, the stages' own sessions, and one run through them.
#include <iterator>

#include "frontend/onnx/proto.h"
#include "frontend/onnx/session_impl.h"

namespace tensorir::onnx {

namespace {

// `m` less the entries whose names are not in `keep`.
template <typename Map>
void keep_only(Map &m, const std::set<std::string> &keep) {
  for (auto it = m.begin(); it != m.end();) it = keep.count(it->first) ? std::next(it) : m.erase(it);
}

}  // namespace

size_t Session::Impl::Staged::count(size_t (Session::*what)() const) const {
  size_t n = 0;
  for (const std::optional<Session> *stage : {&before, &after})
    if (*stage) n += ((**stage).*what)();
  for (const auto &[index, c] : control) n += c->total(what);
  return n;
}

bool Session::Impl::stage(const UnsupportedError &e) {
  for (const UnsupportedNode &u : e.nodes())
    if (u.value.empty() && (u.input.empty() || !find(u.input))) return false;
  auto s = std::make_shared<Staged>();
  if (!detail::split_stages(model, e.nodes(), &s->stages)) return false;
  for (int i : s->stages.boundary) {
    const ::onnx::NodeProto &n = model.graph().node(i);
    s->boundary += (s->boundary.empty() ? "node '" : ", node '") + detail::node_label(n) + "' (" + n.op_type() + ")";
  }
  if (s->stages.has_before) s->before = sub_session(s->stages.before, "before " + s->boundary);
  for (int i : s->stages.boundary) {
    const ::onnx::NodeProto &n = model.graph().node(i);
    if (detail::ControlStage::handles(n))
      s->control[i] = std::make_unique<detail::ControlStage>(
          model, n, [this](::onnx::ModelProto m, const std::string &part, const std::vector<std::string> &own) {
            return sub_session(std::move(m), part, own);
          });
  }
  staged = std::move(s);
  shape_inputs.clear();  // the stages' sessions learn their own
  imported.reset();
  cache.clear();
  return true;
}

Session Session::Impl::sub_session(::onnx::ModelProto m, const std::string &part,
                                   const std::vector<std::string> &own) const {
  std::set<std::string> names;
  for (const auto &in : m.graph().input()) names.insert(in.name());
  for (const std::string &name : own) names.erase(name);
  SessionOptions o = options;
  keep_only(o.import.input_values, names);
  keep_only(o.import.input_shapes, names);
  o.import.external_data_dir = o.import.external_data_dir.empty() ? dir : o.import.external_data_dir;
  auto impl = std::make_shared<Impl>(std::move(m), dir, what + ", the part " + part, target, o);
  impl->probe();
  return Session(impl);
}

graph::Outputs Session::Impl::run_stages(const std::map<std::string, NDArray> &given) {
  check_given(given);
  for (const SessionInput &in : inputs)  // the stages read them wherever they are
    TIR_USER_CHECK(given.count(in.name)) << "onnx: " << what << ": input '" << in.name << "' is not given";
  Staged &s = *staged;
  const ::onnx::GraphProto &g = model.graph();
  std::map<std::string, NDArray> values = given;
  for (const auto &[name, value] : options.import.input_values) values[name] = value;
  auto initializer = [&](const std::string &name) -> const ::onnx::TensorProto * {
    for (const auto &t : g.initializer())
      if (t.name() == name) return &t;
    return nullptr;
  };
  const std::string &data_dir = options.import.external_data_dir.empty() ? dir : options.import.external_data_dir;
  auto feed_of = [&](const Session &stage) {
    std::map<std::string, NDArray> feed;
    for (const SessionInput &in : stage.inputs()) feed[in.name] = values.at(in.name);
    return feed;
  };
  if (s.before) {
    const graph::Outputs out = s.before->run(feed_of(*s.before));
    for (size_t i = 0; i < out.size(); ++i) values[out.names()[i]] = out.at(i);
  }
  for (int i : s.stages.boundary) {
    const ::onnx::NodeProto &n = g.node(i);
    std::map<std::string, NDArray> reads;
    for (const std::string &name : detail::names_read(n)) {
      if (auto it = values.find(name); it != values.end()) reads[name] = it->second;
      else if (const ::onnx::TensorProto *t = initializer(name)) {
        auto c = s.constants.find(name);
        if (c == s.constants.end()) c = s.constants.emplace(name, detail::tensor_value(*t, data_dir)).first;
        reads[name] = c->second;
      }
    }
    std::string on_host;  // why a control node is converted on the host, for the error
    if (auto c = s.control.find(i); c != s.control.end()) {
      if (std::optional<std::map<std::string, NDArray>> out = c->second->run(reads)) {
        for (auto &[name, value] : *out) values[name] = value;
        continue;
      }
      if (!c->second->why_on_host().empty()) on_host = " (converted on the host: " + c->second->why_on_host() + ")";
    }
    try {
      for (auto &[name, value] : detail::compute_on_host(model, n, reads, data_dir, what, &compiles)) values[name] = value;
    } catch (const UnsupportedError &e) {
      throw Error("onnx: " + what + ": node '" + detail::node_label(n) + "' (" + n.op_type() +
                  "), computed between stages from this run's values: " +
                  (e.nodes().empty() ? std::string(e.what()) : e.nodes()[0].reason) + on_host);
    }
  }
  std::map<std::string, NDArray> after;
  std::string empty;  // the values the stage after reads that have no elements this run
  int empties = 0;
  for (const std::string &name : s.stages.cut)
    if (values.at(name).numel() == 0) empty += (empties++ ? ", '" : "'") + name + "'";
  if (s.stages.has_after && empties) {
    // A compiled stage takes no empty arrays: the nodes after are computed on the host,
    // as at import from known values (a detector that finds nothing, a mask of zeros).
    std::map<std::string, NDArray> feed;
    for (const std::string &name : s.stages.cut) feed[name] = values.at(name);
    const std::string head = "onnx: " + what + ": the nodes after " + s.boundary;
    try {
      after = detail::compute_on_host(s.stages.after, feed, data_dir, what, &compiles);
    } catch (const UnsupportedError &e) {
      std::string nodes;
      for (const UnsupportedNode &u : e.nodes()) nodes += (nodes.empty() ? "" : "; ") + detail::describe(u);
      throw Error(head + " read " + empty + ", empty this run (a dimension of 0), and cannot be computed from " +
                  (empties > 1 ? "them: " : "it: ") + (nodes.empty() ? std::string(e.what()) : nodes));
    } catch (const Error &e) {
      // Without the prefix the host computation's own errors start with.
      std::string why = e.what();
      for (const std::string &prefix : {"onnx: " + what + ": ", std::string("onnx: ")})
        if (why.rfind(prefix, 0) == 0) why.erase(0, prefix.size());
      throw Error(head + ", computed on the host as " + empty + (empties > 1 ? " are" : " is") +
                  " empty this run (a dimension of 0), failed: " + why);
    }
  } else if (s.stages.has_after) {
    if (!s.after) {  // the types of its inputs are those of this run's values
      ::onnx::ModelProto m = s.stages.after;
      detail::type_inputs(m, values);
      s.after = sub_session(std::move(m), "after " + s.boundary);
    }
    const graph::Outputs out = s.after->run(feed_of(*s.after));
    for (size_t i = 0; i < out.size(); ++i) after[out.names()[i]] = out.at(i);
  }
  std::vector<std::string> names;
  std::vector<NDArray> arrays;
  for (const auto &o : g.output()) {
    names.push_back(o.name());
    if (auto it = after.find(o.name()); it != after.end()) {
      arrays.push_back(it->second);
    } else if (auto v = values.find(o.name()); v != values.end()) {
      // An initializer or a fixed input passed through (a loop of no iterations, say) is
      // the session's own array: the caller gets a copy to write to.
      bool kept = false;
      for (const auto &[name, c] : s.constants) kept = kept || c.data() == v->second.data();
      for (const auto &[name, c] : options.import.input_values) kept = kept || c.data() == v->second.data();
      arrays.push_back(kept ? v->second.to(Device::cpu()) : v->second);
    } else {
      const ::onnx::TensorProto *t = initializer(o.name());
      TIR_USER_CHECK(t) << "onnx: " << what << ": graph output '" << o.name() << "' is computed by no node";
      arrays.push_back(detail::tensor_value(*t, data_dir));
    }
  }
  return graph::Outputs(std::move(names), std::move(arrays));
}

}  // namespace tensorir::onnx
