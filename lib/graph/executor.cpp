// graph::build and CompiledModel: one compiled kernel per operator node, run in
// topological order over storage allocated at build time.
#include "tensorir/graph/executor.h"

#include <chrono>
#include <sstream>

#include "op_table.h"
#include "tensorir/build.h"
#include "tensorir/ops/schedule.h"

namespace tensorir::graph {

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

// Node names like "layer1.0.conv1" are not identifiers; kernels and buffers need them.
std::string identifier(const std::string &name) {
  std::string out;
  for (char c : name) out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  if (out.empty() || std::isdigit(static_cast<unsigned char>(out[0]))) out = "n" + out;
  return out;
}

struct Kernel {
  int node = -1;
  std::vector<int> args;  // node ids whose storage is passed, the output last
  Module module;
  std::string fname;
};

}  // namespace

struct CompiledModel::Impl {
  Graph graph;
  Device device;
  std::vector<NDArray> storage;  // per node; inputs are bound per run
  std::vector<Kernel> kernels;
  double compile_ms = 0;

  // storage with the inputs bound, checked against the graph.
  std::vector<NDArray> bind(const std::map<std::string, NDArray> &inputs) const {
    std::vector<NDArray> s = storage;
    std::vector<int> ids = graph.input_ids();
    for (const auto &[name, value] : inputs) {
      bool known = false;
      for (int id : ids) known |= graph.node(id).name == name;
      if (!known) {
        std::ostringstream names;
        for (int id : ids) names << " '" << graph.node(id).name << "'";
        TIR_THROW() << "run: the graph has no input called '" << name << "'; its inputs are" << names.str();
      }
    }
    for (int id : ids) {
      const Node &n = graph.node(id);
      auto it = inputs.find(n.name);
      TIR_USER_CHECK(it != inputs.end()) << "run: input '" << n.name << "' " << shape_str(n.shape) << " " << n.dtype
                                         << " was not given";
      const NDArray &v = it->second;
      TIR_USER_CHECK(v.defined() && v.shape() == n.shape && v.dtype() == n.dtype)
          << "run: input '" << n.name << "' must be " << shape_str(n.shape) << " " << n.dtype << " but is "
          << (v.defined() ? shape_str(v.shape()) + " " + v.dtype().str() : std::string("undefined"));
      s[size_t(id)] = v.device() == device ? v : v.to(device);
    }
    return s;
  }

  void call(const Kernel &k, const std::vector<NDArray> &s) const {
    std::vector<Arg> args;
    for (int id : k.args) args.emplace_back(s[size_t(id)]);
    k.module(k.fname).call(args);
  }
};

NDArray CompiledModel::run(const std::map<std::string, NDArray> &inputs) const {
  const std::vector<NDArray> s = impl_->bind(inputs);
  for (const Kernel &k : impl_->kernels) impl_->call(k, s);
  return s[size_t(impl_->graph.output())].to(Device::cpu());
}

std::vector<KernelProfile> CompiledModel::profile(const std::map<std::string, NDArray> &inputs, int repeats) const {
  TIR_USER_CHECK(repeats >= 1) << "profile: repeats must be at least 1, got " << repeats;
  const std::vector<NDArray> s = impl_->bind(inputs);
  std::vector<KernelProfile> out;
  for (const Kernel &k : impl_->kernels)
    out.push_back({impl_->graph.node(k.node).name, impl_->graph.node(k.node).op, 0});
  for (int r = 0; r < repeats; ++r)
    for (size_t i = 0; i < impl_->kernels.size(); ++i) {
      const auto t0 = Clock::now();
      impl_->call(impl_->kernels[i], s);
      out[i].ms += ms_since(t0);
    }
  for (KernelProfile &p : out) p.ms /= repeats;
  return out;
}

const Graph &CompiledModel::graph() const { return impl_->graph; }
size_t CompiledModel::num_kernels() const { return impl_->kernels.size(); }
double CompiledModel::compile_ms() const { return impl_->compile_ms; }

CompiledModel build(const Graph &g, const Target &target, const BuildOptions &options) {
  const auto t0 = Clock::now();
  g.validate();
  auto impl = std::make_shared<CompiledModel::Impl>();
  impl->graph = g;
  impl->device = target.kind == "opengl" ? Device::opengl() : Device::cpu();
  const bool tuned = options.tuned_schedules && target.kind == "llvm";
  impl->storage.resize(g.nodes().size());
  for (int id : g.topological_order()) {
    const Node &n = g.node(id);
    if (n.op == "input") continue;
    if (n.op == "constant") {
      impl->storage[size_t(id)] = impl->device == Device::cpu() ? n.value : n.value.to(impl->device);
      continue;
    }
    Kernel k;
    k.node = id;
    k.fname = "k";  // appended piecewise: GCC 12 warns falsely on one long concatenation
    k.fname += std::to_string(id);
    k.fname += "_";
    k.fname += identifier(n.name);
    // One placeholder per distinct input node (add(x, x) reads one buffer).
    std::vector<Tensor> ins;
    std::map<int, Tensor> ph;
    for (int in : n.inputs) {
      auto it = ph.find(in);
      if (it == ph.end()) {
        const Node &src = g.node(in);
        it = ph.emplace(in, placeholder(std::vector<Expr>(src.shape.begin(), src.shape.end()), src.dtype,
                                        identifier(src.name)))
                 .first;
        k.args.push_back(in);
      }
      ins.push_back(it->second);
    }
    const Tensor out = detail::make_tensor(n, ins, identifier(n.name), tuned && n.op == "conv2d");
    Schedule s;
    if (tuned && n.op == "conv2d")
      s = ops::schedule_conv2d_llvm(out);
    else if (tuned && n.op == "dense")
      s = ops::schedule_dense_llvm(out);
    else
      s = ops::schedule_generic({out});
    std::vector<BuildArg> args;
    for (int in : k.args) args.emplace_back(ph.at(in));
    args.emplace_back(out);
    k.args.push_back(id);
    try {
      k.module = tensorir::build(s, args, target, k.fname);
    } catch (const Error &e) {
      throw Error(detail::node_prefix(n) + "compiling the kernel failed: " + e.what());
    }
    impl->storage[size_t(id)] = NDArray::empty(n.shape, n.dtype, impl->device);
    impl->kernels.push_back(std::move(k));
  }
  impl->compile_ms = ms_since(t0);
  return CompiledModel(std::move(impl));
}

}  // namespace tensorir::graph
