// onnx::Session (include/tensorir/frontend/onnx.h): import and compile per run with the
// shape inputs fixed, keeping the compiled models of the latest distinct values. Models
// that need values they compute at run time run in stages (session_stages.cpp).
#include <algorithm>
#include <filesystem>

#include "frontend/onnx/proto.h"
#include "frontend/onnx/session_impl.h"

namespace tensorir::onnx {

namespace {

void append(std::string &key, const std::string &part) { key += std::to_string(part.size()) + ":" + part; }

}  // namespace

void Session::Impl::list_inputs() {
  std::set<std::string> initializers;
  for (const auto &t : model.graph().initializer()) initializers.insert(t.name());
  for (const ::onnx::ValueInfoProto &in : model.graph().input()) {
    if (initializers.count(in.name()) || options.import.input_values.count(in.name())) continue;
    SessionInput s{in.name(), Type(), {}};
    const auto &tt = in.type().tensor_type();
    detail::element_type(tt.elem_type(), &s.dtype);  // the importer refuses the others
    auto bound = options.import.input_shapes.find(in.name());
    if (bound != options.import.input_shapes.end()) {
      s.shape = bound->second;
    } else {
      for (const auto &d : tt.shape().dim()) s.shape.push_back(d.has_dim_value() ? d.dim_value() : -1);
      if (!tt.has_shape() || std::count(s.shape.begin(), s.shape.end(), -1) > 0) symbolic.insert(in.name());
    }
    inputs.push_back(s);
  }
}

// Adds the inputs that `e`'s nodes need known to shape_inputs; false when a node is
// refused for another reason, or (once the symbolic dimensions are bound) nothing new
// was learnt. Before they are bound (`shapes_bound` false), the refusals of symbolic
// inputs are left to their binding.
bool Session::Impl::learn(const UnsupportedError &e, bool shapes_bound) {
  bool added = false;
  for (const UnsupportedNode &u : e.nodes()) {
    if (u.input.empty() || !find(u.input)) return false;
    if (u.op == "input" && symbolic.count(u.input) && !shapes_bound) continue;
    added = shape_inputs.insert(u.input).second || added;
  }
  return added || !shapes_bound;
}

void Session::Impl::check_given(const std::map<std::string, NDArray> &given) const {
  std::string names;
  for (const SessionInput &in : inputs) names += (names.empty() ? "'" : ", '") + in.name + "'";
  for (const auto &[name, value] : given) {
    TIR_USER_CHECK(!options.import.input_values.count(name))
        << "onnx: " << what << ": input '" << name
        << "' is fixed by ImportOptions::input_values; the session does not take it";
    TIR_USER_CHECK(find(name)) << "onnx: " << what << " has no input '" << name << "' (its inputs: " << names << ")";
    TIR_USER_CHECK(value.defined()) << "onnx: " << what << ": input '" << name << "' is given an empty array";
  }
  for (const std::string &name : shape_inputs)
    TIR_USER_CHECK(given.count(name)) << "onnx: " << what << ": input '" << name
                                      << "' decides shapes (the model is compiled for its value); give it to run";
  for (const std::string &name : symbolic)
    TIR_USER_CHECK(given.count(name)) << "onnx: " << what << ": input '" << name
                                      << "' has symbolic dimensions, which the array given binds; give it to run";
}

// What the compiled model depends on: the shape inputs' values and the symbolic inputs'
// shapes.
std::string Session::Impl::key(const std::map<std::string, NDArray> &given) const {
  std::string k;
  for (const SessionInput &in : inputs) {
    if (shape_inputs.count(in.name)) {
      const NDArray host = given.at(in.name).to(Device::cpu());
      append(k, in.name + "=" + host.dtype().str() + shape_str(host.shape()));
      append(k, std::string(static_cast<const char *>(host.data()), host.nbytes()));
    } else if (symbolic.count(in.name)) {
      append(k, in.name + ":" + shape_str(given.at(in.name).shape()));
    }
  }
  return k;
}

graph::CompiledModel Session::Impl::compile(const std::map<std::string, NDArray> &given) {
  for (int round = 0;; ++round) {
    check_given(given);
    const std::string k = key(given);
    for (auto it = cache.begin(); it != cache.end(); ++it)
      if (it->first == k) {
        cache.splice(cache.begin(), cache, it);
        return it->second;
      }
    ImportOptions o = options.import;
    for (const std::string &name : shape_inputs) o.input_values[name] = given.at(name);
    for (const std::string &name : symbolic) {
      if (shape_inputs.count(name)) continue;
      // An empty array is all its shape says: fixed for this compile, keyed by that shape.
      const NDArray &a = given.at(name);
      if (a.numel() == 0) o.input_values[name] = a;
      else o.input_shapes[name] = a.shape();
    }
    try {
      const graph::Graph g = k.empty() && imported ? *imported : import(o);
      imported.reset();  // compiled now; an eviction imports again
      cache.emplace_front(k, graph::build(g, target, options.build));
      ++compiles;
      if (cache.size() > std::max<size_t>(options.cache_size, 1)) cache.pop_back();
      return cache.front().second;
    } catch (const UnsupportedError &e) {
      // Fixing one input can let the importer reach nodes that need another, or nodes
      // that need values the model computes.
      if (stage(e)) throw Restaged{};
      if (!learn(e, true) || round > int(inputs.size())) throw;
    }
  }
}

// Imports once without the run's values: a model that needs none is kept to compile at
// the first run; one refused only for inputs' values or shapes learns which.
void Session::Impl::probe() {
  list_inputs();
  try {
    imported = import(options.import);
  } catch (const UnsupportedError &e) {
    if (!stage(e) && !learn(e, false)) throw;
  }
}

std::optional<Session::Prepared> Session::Impl::prepared(const std::map<std::string, NDArray> &given) {
  if (staged) return std::nullopt;
  try {
    Prepared p{compile(given), {}};
    std::set<std::string> reads;  // dead inputs may be gone
    for (int id : p.model.graph().input_ids()) reads.insert(p.model.graph().node(id).name);
    for (const auto &[name, value] : given)
      if (reads.count(name) && !shape_inputs.count(name)) p.feed[name] = value;
    return p;
  } catch (const Restaged &) {
    return std::nullopt;
  }
}

Session Session::open(const std::string &path, const Target &target, const SessionOptions &options) {
  const std::string dir = std::filesystem::path(path).parent_path().string();
  auto impl = std::make_shared<Impl>(detail::load_model(path), dir.empty() ? "." : dir, "'" + path + "'", target,
                                     options);
  impl->probe();
  return Session(impl);
}

Session Session::from_bytes(const std::string &bytes, const Target &target, const SessionOptions &options) {
  auto impl = std::make_shared<Impl>(detail::parse_model(bytes, "the buffer given to Session::from_bytes"), ".",
                                     "the model given as bytes", target, options);
  impl->probe();
  return Session(impl);
}

const std::vector<SessionInput> &Session::inputs() const { return impl_->inputs; }

ModelInfo Session::info() const { return detail::describe(impl_->model); }

std::vector<std::string> Session::shape_inputs() const {
  std::set<std::string> in_stages;
  if (impl_->staged)
    for (const std::optional<Session> *stage : {&impl_->staged->before, &impl_->staged->after})
      if (*stage)
        for (const std::string &name : (*stage)->shape_inputs()) in_stages.insert(name);
  std::vector<std::string> out;
  for (const SessionInput &in : impl_->inputs)
    if (impl_->shape_inputs.count(in.name) || in_stages.count(in.name)) out.push_back(in.name);
  return out;
}

bool Session::staged() const { return impl_->staged != nullptr; }
std::string Session::stage_boundary() const { return impl_->staged ? impl_->staged->boundary : ""; }

Session::Prepared Session::prepare(const std::map<std::string, NDArray> &inputs) {
  std::optional<Prepared> p = impl_->prepared(inputs);
  TIR_USER_CHECK(p) << "onnx: " << impl_->what << " runs in stages around " << impl_->staged->boundary
                    << ", which need values it computes: Session::run runs it, and there is no one compiled "
                       "model to prepare";
  return *p;
}

graph::Outputs Session::run(const std::map<std::string, NDArray> &inputs) {
  if (std::optional<Prepared> p = impl_->prepared(inputs)) return p->model.run(p->feed);
  return impl_->run_stages(inputs);
}

size_t Session::compiles() const {
  return impl_->compiles + (impl_->staged ? impl_->staged->count(&Session::compiles) : 0);
}

size_t Session::cached() const {
  return impl_->cache.size() + (impl_->staged ? impl_->staged->count(&Session::cached) : 0);
}

}  // namespace tensorir::onnx
