// graph::build and CompiledModel: the graph passes, then one compiled kernel per fused
// group, run in topological order over storage allocated at build time.
#include "tensorir/graph/executor.h"

#include <algorithm>
#include <chrono>
#include <tuple>

#include "compiled_model.h"
#include "runtime/input_check.h"
#include "op_table.h"
#include "tensorir/build.h"
#include "tensorir/graph/memory_plan.h"
#include "tensorir/graph/passes.h"
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

}  // namespace

// storage with the inputs bound, checked against the graph.
std::vector<NDArray> CompiledModel::Impl::bind(const std::map<std::string, NDArray> &inputs) const {
  std::vector<NDArray> s = storage;
  const std::vector<int> ids = graph.input_ids();
  std::vector<runtime::ModelInput> expected;
  for (int id : ids) expected.push_back({graph.node(id).name, graph.node(id).shape, graph.node(id).dtype});
  const std::vector<NDArray> values = runtime::checked_inputs(expected, inputs, "graph");
  for (size_t i = 0; i < ids.size(); ++i)
    s[size_t(ids[i])] = values[i].device() == device ? values[i] : values[i].to(device);
  return s;
}

void CompiledModel::Impl::call(const Kernel &k, const std::vector<NDArray> &s) const {
  std::vector<Arg> args;
  for (int id : k.args) args.emplace_back(s[size_t(id)]);
  k.module(k.fname).call(args);
}

NDArray CompiledModel::run(const std::map<std::string, NDArray> &inputs) const {
  const std::vector<NDArray> s = impl_->bind(inputs);
  for (const Kernel &k : impl_->kernels) impl_->call(k, s);
  return s[size_t(impl_->graph.output())].to(Device::cpu());
}

std::vector<KernelProfile> CompiledModel::profile(const std::map<std::string, NDArray> &inputs, int repeats) const {
  TIR_USER_CHECK(repeats >= 1) << "profile: repeats must be at least 1, got " << repeats;
  const std::vector<NDArray> s = impl_->bind(inputs);
  std::vector<KernelProfile> out;
  const Graph &g = impl_->graph;
  for (const Kernel &k : impl_->kernels) {
    KernelProfile p{g.node(k.node).name, g.node(k.node).op, 0, {}};
    for (int id : k.nodes) {
      p.fused.push_back(g.node(id).name);
      if (op_pattern(g.node(id).op) == OpPattern::kAnchor) p.op = g.node(id).op;
    }
    out.push_back(std::move(p));
  }
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
const Target &CompiledModel::target() const { return impl_->target; }
size_t CompiledModel::num_kernels() const { return impl_->kernels.size(); }
double CompiledModel::compile_ms() const { return impl_->compile_ms; }
size_t CompiledModel::storage_bytes() const { return impl_->storage_bytes; }
size_t CompiledModel::planned_peak_bytes() const { return impl_->planned_peak_bytes; }

namespace {

int first_divisor(int64_t n, std::initializer_list<int> candidates) {
  for (int c : candidates)
    if (n % c == 0) return c;
  return 0;
}

// schedule_dense_llvm (ops/schedule_dense.cpp) with an element-wise tail: where it
// caches the result in a local tile per block of columns, the dense stage itself is
// that tile, computed inside the tail's parallel block loop.
Schedule schedule_dense_with_tail(const Tensor &dense, const Tensor &out) {
  Schedule s = create_schedule({out});
  for (const Stage &st : s.stages()) {
    const auto *c = st.op().as<ComputeOpNode>();
    const Operation &op = st.op();
    if (c && !op.same_as(out.op()) && !op.same_as(dense.op()) && c->reduce_axis.empty()) Stage(st).compute_inline();
  }
  Stage st = s[out];
  Stage d = s[dense];
  const int vec = first_divisor(*as_const_int(out.shape()[1]), {16, 8, 4});
  if (!vec) {
    st.parallel(out.axis(0));
    d.compute_at(st, out.axis(0));
    return s;
  }
  auto [jo, ji] = st.split(out.axis(1), vec);
  IterVar blocks = st.fuse(out.axis(0), jo);
  st.parallel(blocks);
  st.vectorize(ji);
  d.compute_at(st, blocks);
  d->scope = "local";
  d.reorder({dense.axis(0), dense.op().as<ComputeOpNode>()->reduce_axis[0], dense.axis(1)});
  d.vectorize(dense.axis(1));
  return s;
}

// Targets whose every tensor lies in RGBA textures, four elements per texel ("webgl").
// "opengl -mode=fragment" packs only some results, and there ResNet-18's convolutions
// run slower in blocks of 4 channels than in NCHW, so it keeps NCHW.
bool packed_textures(const Target &t) { return t.caps().texture_channel_block > 0; }

bool blocked_conv(const Node &n) { return n.op == "conv2d" && n.attr_int("groups") == 1; }

// Compiles the chain `nodes` of `g` (the last one its result) into one kernel.
Kernel compile_group(const Graph &g, const std::vector<int> &nodes, int anchor, const Target &target, bool tuned) {
  Kernel k;
  k.node = nodes.back();
  k.nodes = nodes;
  const Node &res = g.node(k.node);
  k.fname = "k";  // appended piecewise: GCC 12 warns falsely on one long concatenation
  k.fname += std::to_string(k.node);
  k.fname += "_";
  k.fname += identifier(res.name);
  // One placeholder per distinct node read from outside the group (add(x, x) reads one
  // buffer); the nodes inside become stages of one expression.
  std::map<int, Tensor> tensors;
  std::vector<BuildArg> args;
  for (int id : nodes) {
    const Node &n = g.node(id);
    std::vector<Tensor> ins;
    for (int in : n.inputs) {
      auto it = tensors.find(in);
      if (it == tensors.end()) {
        const Node &src = g.node(in);
        it = tensors
                 .emplace(in, placeholder(std::vector<Expr>(src.shape.begin(), src.shape.end()), src.dtype,
                                          identifier(src.name)))
                 .first;
        k.args.push_back(in);
        args.emplace_back(it->second);
      }
      ins.push_back(it->second);
    }
    const bool blocked = tuned && id == anchor && blocked_conv(n);
    tensors[id] = detail::make_tensor(n, ins, identifier(n.name), blocked);
  }
  const Tensor out = tensors.at(k.node);
  Schedule s;
  const std::string anchor_op = anchor >= 0 ? g.node(anchor).op : "";
  if (tuned && anchor_op == "conv2d")
    s = nodes.size() == 1 ? ops::schedule_conv2d_llvm(out, target)
                          : ops::schedule_conv2d_llvm(tensors.at(anchor), out, target);
  else if (tuned && anchor_op == "dense")
    s = nodes.size() == 1 ? ops::schedule_dense_llvm(out) : schedule_dense_with_tail(tensors.at(anchor), out);
  else if (tuned)
    s = ops::schedule_blocked_llvm(out);
  else
    s = ops::schedule_generic({out});
  args.emplace_back(out);
  k.args.push_back(k.node);
  try {
    k.module = tensorir::build(s, args, target, k.fname);
  } catch (const Error &e) {
    throw Error(detail::node_prefix(res) + "compiling the kernel failed: " + e.what());
  }
  return k;
}

// The groups to compile: fuse_operators' or one per operator node. The tuned schedule
// of grouped conv2d cannot take a tail; it leaves it to a kernel of its own.
std::vector<FusedGroup> kernel_groups(const Graph &g, bool fuse, bool tuned) {
  std::vector<FusedGroup> groups;
  if (!fuse) {
    for (int id : g.topological_order()) {
      const std::string &op = g.node(id).op;
      if (op == "input" || op == "constant") continue;
      FusedGroup grp;
      grp.nodes = {id};
      if (op_pattern(op) == OpPattern::kAnchor) grp.anchor = id;
      groups.push_back(grp);
    }
    return groups;
  }
  for (const FusedGroup &grp : fuse_operators(g)) {
    const bool splits =
        tuned && grp.anchor >= 0 && grp.nodes.size() > 1 && g.node(grp.anchor).op == "conv2d" &&
        !blocked_conv(g.node(grp.anchor));
    if (!splits) {
      groups.push_back(grp);
      continue;
    }
    groups.push_back(FusedGroup{{grp.anchor}, grp.anchor});
    groups.push_back(FusedGroup{std::vector<int>(grp.nodes.begin() + 1, grp.nodes.end()), -1});
  }
  return groups;
}

size_t result_bytes(const Node &n) {
  size_t count = 1;
  for (int64_t d : n.shape) count *= static_cast<size_t>(d);
  return count * static_cast<size_t>(n.dtype.bytes());
}

// Storage for every kernel's result. With `plan`, results other than the graph's output
// are views into slots of a memory plan over the kernels' order: a result lives from its
// kernel to the last kernel reading it. Returns the bytes allocated and the plan's peak.
std::pair<size_t, size_t> allocate_results(const Graph &g, const std::vector<Kernel> &kernels, Device device,
                                           bool plan, std::vector<NDArray> &storage) {
  const size_t n = kernels.size();
  std::vector<int> kernel_of(g.nodes().size(), -1);
  for (size_t k = 0; k < n; ++k) kernel_of[size_t(kernels[k].node)] = int(k);
  std::vector<size_t> bytes(n);
  std::vector<int> first(n), last(n);
  for (size_t k = 0; k < n; ++k) {
    bytes[k] = result_bytes(g.node(kernels[k].node));
    first[k] = kernels[k].node == g.output() ? -1 : int(k);
    last[k] = int(k);
  }
  for (size_t k = 0; k < n; ++k)
    for (size_t a = 0; a + 1 < kernels[k].args.size(); ++a) {  // the last argument is the result
      const int producer = kernel_of[size_t(kernels[k].args[a])];
      if (producer >= 0) last[size_t(producer)] = std::max(last[size_t(producer)], int(k));
    }
  size_t allocated = 0, peak = 0;
  if (plan && device == Device::cpu()) {
    const MemoryPlan mp = plan_memory(bytes, first, last);
    std::vector<NDArray> slots;
    for (size_t b : mp.slot_bytes) slots.push_back(NDArray::empty({int64_t(b)}, UInt(8), device));
    for (size_t k = 0; k < n; ++k) {
      const Node &res = g.node(kernels[k].node);
      const int slot = mp.storage_of[k];
      storage[size_t(res.id)] =
          slot < 0 ? NDArray::empty(res.shape, res.dtype, device) : slots[size_t(slot)].view(res.shape, res.dtype);
      if (slot < 0) allocated += bytes[k];
    }
    allocated += mp.peak_bytes;
    peak = mp.peak_bytes;
    return {allocated, peak};
  }
  for (size_t k = 0; k < n; ++k) {
    const Node &res = g.node(kernels[k].node);
    storage[size_t(res.id)] = NDArray::empty(res.shape, res.dtype, device);
    allocated += bytes[k];
  }
  if (plan) peak = plan_memory(bytes, first, last).peak_bytes;
  return {allocated, peak};
}

}  // namespace

CompiledModel build(const Graph &input_graph, const Target &target, const BuildOptions &options) {
  const auto t0 = Clock::now();
  input_graph.validate();
  Graph g = input_graph;
  if (options.fold_constants) g = fold_constants(g);
  if (options.fold_batch_norm) g = fold_batch_norm(g);
  const bool tuned = options.tuned_schedules && target.caps().cpu_schedules;
  if (options.alter_layout && options.fold_constants && (tuned || packed_textures(target))) {
    // Blocked activations pay off inside fused kernels; one kernel per node keeps NCHW.
    // Fragment shaders store 4 elements per texel: blocks of 4 channels make them the 4
    // channels at one position, which share the reads of a convolution's data.
    g = tuned ? alter_conv_layout(g, options.fuse_operators) : alter_conv_layout(g, options.fuse_operators, 4);
    g = fold_constants(g);  // packs the weights (and blocks the biases) once, here
  }
  if (options.eliminate_dead_nodes) g = eliminate_dead_nodes(g);
  auto impl = std::make_shared<CompiledModel::Impl>();
  impl->target = target;
  impl->device = Device{target.caps().device, 0};
  impl->storage.resize(g.nodes().size());
  for (const Node &n : g.nodes())
    if (n.op == "constant") impl->storage[size_t(n.id)] = impl->device == Device::cpu() ? n.value : n.value.to(impl->device);
  for (const FusedGroup &grp : kernel_groups(g, options.fuse_operators, tuned))
    impl->kernels.push_back(compile_group(g, grp.nodes, grp.anchor, target, tuned));
  std::tie(impl->storage_bytes, impl->planned_peak_bytes) =
      allocate_results(g, impl->kernels, impl->device, options.plan_memory, impl->storage);
  impl->graph = std::move(g);
  impl->compile_ms = ms_since(t0);
  return CompiledModel(std::move(impl));
}

}  // namespace tensorir::graph
