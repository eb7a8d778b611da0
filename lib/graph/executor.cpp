// graph::build and CompiledModel: the graph passes, then one compiled kernel per fused
// group, run in topological order over storage allocated at build time.
#include "tensorir/graph/executor.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <set>

#include "autotune/laid_out_tasks.h"
#include "autotune/workload.h"
#include "build_passes.h"
#include "compiled_model.h"
#include "in_place.h"
#include "kernel_key.h"
#include "runtime/device_api.h"
#include "runtime/input_check.h"
#include "op_table.h"
#include "tensorir/autotune/task.h"
#include "tensorir/build.h"
#include "tensorir/graph/memory_plan.h"
#include "tensorir/graph/op_registry.h"
#include "tensorir/graph/passes.h"
#include "tensorir/ops/schedule.h"
#include "tensorir/warning.h"

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

// `g` with a copy of each constant's array, which the model keeps (on the CPU its kernels
// read it): the caller's arrays stay the caller's, and changing one after build changes
// nothing, whether a build pass gave that constant a new array (a packed layout) or not.
Graph own_constants(const Graph &g) {
  Graph out;
  for (Node n : g.nodes()) {
    if (n.op == "constant") n.value = n.value.to(Device::cpu());
    out.add_node(std::move(n));
  }
  out.set_outputs(g.outputs());
  return out;
}

}  // namespace

// storage with the inputs bound, checked against the graph.
std::vector<NDArray> CompiledModel::Impl::bind(const std::map<std::string, NDArray> &inputs) const {
  TIR_USER_CHECK(runs_here) << "graph: the model was built for '" << target.str()
                            << "', whose kernels run outside this process (no storage is allocated here): "
                               "export it with graph::export_web, or build for \"llvm\" to run it here";
  std::vector<NDArray> s = storage;
  const std::vector<int> ids = graph.input_ids();
  std::vector<runtime::ModelInput> expected;
  for (int id : ids) {
    const Node &n = graph.node(id);
    // An input stored as float32 (store_as_float) takes the dtype the graph declared.
    expected.push_back({n.name, n.shape, declared_dtype(n)});
  }
  const std::vector<NDArray> values = runtime::checked_inputs(expected, inputs, "graph");
  for (size_t i = 0; i < ids.size(); ++i) {
    const NDArray v = stored_input_value(graph.node(ids[i]), values[i]);
    s[size_t(ids[i])] = v.device() == device ? v : v.to(device);
  }
  return s;
}

void CompiledModel::Impl::call(const Kernel &k, const std::vector<NDArray> &s) const {
  if (k.bound.defined()) return k.bound();
  std::vector<Arg> args;
  for (int id : k.args) args.emplace_back(s[size_t(id)]);
  k.module(k.fname).call(args);
}

Outputs::Outputs(std::vector<std::string> names, std::vector<NDArray> values)
    : names_(std::move(names)), values_(std::move(values)) {
  TIR_ASSERT(names_.size() == values_.size()) << "outputs: names and values differ in number";
}

namespace {
std::string quoted_names(const std::vector<std::string> &names) {
  std::string s;
  for (const std::string &n : names) s += (s.empty() ? "'" : ", '") + n + "'";
  return s;
}
}  // namespace

NDArray Outputs::operator[](const std::string &name) const {
  for (size_t i = 0; i < names_.size(); ++i)
    if (names_[i] == name) return values_[i];
  TIR_THROW() << "model outputs: no output called '" << name << "'; the outputs are " << quoted_names(names_);
  return values_[0];  // not reached: TIR_THROW throws
}

NDArray Outputs::at(size_t i) const {
  TIR_USER_CHECK(i < values_.size()) << "model outputs: index " << i << " but there are " << values_.size()
                                     << " outputs";
  return values_[i];
}

NDArray Outputs::single() const {
  TIR_USER_CHECK(values_.size() == 1) << "model outputs: the model has " << values_.size() << " outputs ("
                                      << quoted_names(names_) << "); take one by name, out[\"name\"]";
  return values_[0];
}

Outputs CompiledModel::run(const std::map<std::string, NDArray> &inputs) const {
  const runtime::ModelTurns::Turn turn(impl_->calls, "model run");
  const std::vector<NDArray> s = impl_->bind(inputs);
  for (const Kernel &k : impl_->kernels) impl_->call(k, s);
  std::vector<std::string> names;
  std::vector<NDArray> values;
  for (int id : impl_->graph.outputs()) {
    names.push_back(impl_->graph.node(id).name);
    values.push_back(declared_output_value(impl_->graph.node(id), s[size_t(id)].to(Device::cpu())));
  }
  return Outputs(std::move(names), std::move(values));
}

std::vector<KernelProfile> CompiledModel::profile(const std::map<std::string, NDArray> &inputs, int repeats) const {
  TIR_USER_CHECK(repeats >= 1) << "profile: repeats must be at least 1, got " << repeats;
  const runtime::ModelTurns::Turn turn(impl_->calls, "model profile");
  const std::vector<NDArray> s = impl_->bind(inputs);
  std::vector<KernelProfile> out;
  const Graph &g = impl_->graph;
  for (const Kernel &k : impl_->kernels) {
    KernelProfile p{g.node(k.node).name, g.node(k.node).op, 0, {}};
    for (int id : k.nodes) {
      p.fused.push_back(g.node(id).name);
      if (op_pattern(g.node(id).op) == OpPattern::kOutFusable) p.op = g.node(id).op;
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

// The strategy compiling the group led by `lead`: the one its operator registers for
// the target's kind (BuildOptions::tuned_schedules), else its compute with the generic
// schedule.
OpStrategy group_strategy(const Node &lead, const Target &target, bool tuned) {
  const OpDef &def = detail::node_op(lead);
  if (tuned) return def.strategy(target);
  OpStrategy s;
  s.compute = def.compute;
  s.schedule = [](const ScheduleContext &ctx) { return ops::schedule_generic({ctx.out}); };
  s.takes_tail = [](const Node &) { return true; };
  return s;
}

// The arguments of the kernel of group `nodes`: the nodes it reads from outside, each
// once, in the order its nodes read them, then its result.
std::vector<int> group_args(const Graph &g, const std::vector<int> &nodes) {
  std::vector<int> args;
  for (int id : nodes)
    for (int in : g.node(id).inputs)
      if (std::find(nodes.begin(), nodes.end(), in) == nodes.end() && std::find(args.begin(), args.end(), in) == args.end())
        args.push_back(in);
  args.push_back(nodes.back());
  return args;
}

// On the texture targets, a cast to bool or int64 of a float32 value (store_as_float's
// casts back) is computed inside each kernel that reads it: no texture holds its result.
bool computed_where_read(const Graph &g, bool textures, int id) {
  const Node &n = g.node(id);
  return textures && n.op == "cast" && (n.dtype.is_bool() || n.dtype == Int(64)) && !g.is_output(id) &&
         g.node(n.inputs.at(0)).dtype == Float(32);
}

// Compiles the chain `nodes` of `g` (the last one its result) into one kernel.
Kernel compile_group(const Graph &g, const std::vector<int> &nodes, int anchor, const Target &target, bool tuned,
                     const autotune::ApplyHistoryBest *tuning) {
  // The anchor leads the group; without one, the group's result does.
  const int lead = anchor >= 0 ? anchor : nodes.back();
  const OpStrategy strategy = group_strategy(g.node(lead), target, tuned);
  Kernel k;
  k.node = nodes.back();
  k.nodes = nodes;
  const Node &res = g.node(k.node);
  k.fname.push_back('k');  // appended piecewise: GCC 12 warns falsely on one long concatenation
  k.fname += std::to_string(k.node);
  k.fname += "_";
  k.fname += identifier(res.name);
  // One placeholder per distinct node read from outside the group (add(x, x) reads one
  // buffer); the nodes inside become stages of one expression.
  k.args = group_args(g, nodes);
  if (target.caps().in_place_results) k.in_place = in_place_candidate(g, nodes, k.args);
  std::map<int, Tensor> tensors;
  std::vector<BuildArg> args;
  // Distinct names map to one identifier ("x.1" and "x_1"): the later gets its node id.
  std::set<std::string> used;
  const auto unique_identifier = [&used](const Node &n) {
    std::string s = identifier(n.name);
    if (!used.insert(s).second) {
      s += "_n" + std::to_string(n.id);
      while (!used.insert(s).second) s += "_";
    }
    return s;
  };
  for (size_t i = 0; i + 1 < k.args.size(); ++i) {
    const Node &src = g.node(k.args[i]);
    const Tensor t =
        placeholder(std::vector<Expr>(src.shape.begin(), src.shape.end()), src.dtype, unique_identifier(src));
    tensors.emplace(src.id, t);
    args.emplace_back(t, int(i) == k.in_place);
  }
  for (int id : nodes) {
    const Node &n = g.node(id);
    std::vector<Tensor> ins;
    for (int in : n.inputs) ins.push_back(tensors.at(in));
    // Each node computes by its own strategy; only the lead's decides the schedule.
    const ComputeFn compute = id == lead ? strategy.compute : group_strategy(n, target, tuned).compute;
    tensors[id] = detail::make_tensor(n, ins, unique_identifier(n), compute);
  }
  const Tensor out = tensors.at(k.node);
  Schedule s;
  Target kernel_target;  // `target` with the options the configuration's knobs set
  try {
    const auto schedule = [&](autotune::Config &c) {
      return strategy.schedule(ScheduleContext{target, g.node(lead), tensors.at(lead), out, &c});
    };
    autotune::Config config = autotune::config_for(tuning, g, g.node(lead), target, schedule);
    s = schedule(config);
    kernel_target = autotune::kernel_target(target, config);
  } catch (const Error &e) {
    throw Error(detail::node_prefix(g.node(lead)) + "scheduling the kernel failed: " + e.what());
  }
  const bool textures = target.caps().textures;
  for (int id : nodes)
    if (id != k.node && id != lead && computed_where_read(g, textures, id)) s[tensors.at(id)].compute_inline();
  args.emplace_back(out, k.in_place >= 0);
  try {
    k.module = tensorir::build(s, args, kernel_target, k.fname);
  } catch (const Error &e) {
    throw Error(detail::node_prefix(res) + "compiling the kernel failed: " + e.what());
  }
  return k;
}

// On the texture targets: a group never ends in a cast computed where it is read (it ends
// before it, or goes), and every group reading one computes it first, from its float32
// input.
std::vector<FusedGroup> inline_casts_back(const Graph &g, const Target &target, const std::vector<FusedGroup> &groups) {
  const bool textures = target.caps().textures;
  if (!textures) return groups;
  std::vector<FusedGroup> out;
  for (FusedGroup grp : groups) {
    if (computed_where_read(g, textures, grp.nodes.back()) && grp.anchor != grp.nodes.back()) grp.nodes.pop_back();
    if (grp.nodes.empty()) continue;
    std::vector<int> casts;
    for (int id : grp.nodes)
      for (int in : g.node(id).inputs)
        if (computed_where_read(g, textures, in) && std::find(grp.nodes.begin(), grp.nodes.end(), in) == grp.nodes.end() &&
            std::find(casts.begin(), casts.end(), in) == casts.end())
          casts.push_back(in);
    grp.nodes.insert(grp.nodes.begin(), casts.begin(), casts.end());
    out.push_back(std::move(grp));
  }
  return out;
}

// The groups to compile: fuse_operators' or one per operator node. An anchor whose
// strategy takes no tail (the tuned grouped conv2d) leaves it to a kernel of its own.
std::vector<FusedGroup> kernel_groups(const Graph &g, const Target &target, bool fuse, bool tuned) {
  std::vector<FusedGroup> groups;
  if (!fuse) {
    for (int id : g.topological_order()) {
      const std::string &op = g.node(id).op;
      if (op == "input" || op == "constant") continue;
      FusedGroup grp;
      grp.nodes = {id};
      if (op_pattern(op) == OpPattern::kOutFusable) grp.anchor = id;
      groups.push_back(grp);
    }
    return inline_casts_back(g, target, groups);
  }
  for (const FusedGroup &grp : fuse_operators(g)) {
    const bool splits = grp.anchor >= 0 && grp.nodes.size() > 1 &&
                        !group_strategy(g.node(grp.anchor), target, tuned).takes_tail(g.node(grp.anchor));
    if (!splits) {
      groups.push_back(grp);
      continue;
    }
    groups.push_back(FusedGroup{{grp.anchor}, grp.anchor});
    groups.push_back(FusedGroup{std::vector<int>(grp.nodes.begin() + 1, grp.nodes.end()), -1});
  }
  if (const int most = target.caps().max_kernel_inputs; most > 0) groups = limit_group_inputs(g, groups, most);
  return inline_casts_back(g, target, groups);
}

// The storage plan over the kernels, in their order: a result lives from its kernel to
// the last kernel reading it.
StoragePlan kernel_storage_plan(const Graph &g, const std::vector<Kernel> &kernels, bool share) {
  std::vector<StorageStep> steps;
  for (const Kernel &k : kernels)  // the result is last of the args
    steps.push_back(StorageStep{k.node, std::vector<int>(k.args.begin(), k.args.end() - 1), k.in_place});
  return plan_storage(g, steps, share);
}

// Storage for every kernel's result, as `plan` places it: shared results are views into
// its buffers. A device whose storage has no view at a result's offset (OpenGL; OpenCL
// at an offset its sub-buffers cannot start at) gives that result an array of its own.
// Returns the bytes allocated.
size_t allocate_results(const Graph &g, const std::vector<Kernel> &kernels, const StoragePlan &plan, Device device,
                        std::vector<NDArray> &storage) {
  std::vector<NDArray> buffers(plan.buffers.size());  // made on first use
  std::vector<bool> viewed(plan.buffers.size(), false);
  std::vector<bool> viewless(plan.buffers.size(), false);  // no view even at offset 0: freed at once
  size_t allocated = 0;
  for (const Kernel &k : kernels) {
    const Node &res = g.node(k.node);
    const StoragePlan::Place &p = plan.at(res.id);
    if (p.storage == StoragePlan::Storage::Shared) {
      const size_t b = size_t(p.buffer);
      if (!buffers[b].defined() && !viewless[b]) {
        buffers[b] = NDArray::empty({int64_t(plan.buffers[b])}, UInt(8), device);
        if (!has_view(device, buffers[b].data(), 0)) {
          buffers[b] = NDArray();
          viewless[b] = true;
        }
      }
      if (!viewless[b] && has_view(device, buffers[b].data(), p.offset)) {
        storage[size_t(res.id)] = buffers[b].view(res.shape, res.dtype, p.offset);
        if (!viewed[b]) allocated += plan.buffers[b];
        viewed[b] = true;
        continue;
      }
    }
    storage[size_t(res.id)] = NDArray::empty(res.shape, res.dtype, device);
    allocated += node_bytes(res);
  }
  return allocated;  // buffers no result views are freed here
}

// Checks and packs once the calls that read no graph input: their arguments are the
// storage, the same arrays on every run, so a run need not check them again (about 1% of
// MobileNetV2's time went to those checks, allocations and name lookups).
void bind_storage(const Graph &g, const std::vector<NDArray> &storage, std::vector<Kernel> &kernels) {
  for (Kernel &k : kernels) {
    std::vector<Arg> args;
    for (int id : k.args) {
      if (g.node(id).op == "input") break;
      args.emplace_back(storage[size_t(id)]);
    }
    if (args.size() == k.args.size()) k.bound = k.module(k.fname).bind(args);
  }
}

// The records of `tuning` whose configurations fit the templates of the workloads of
// `laid_out` (the graph after layout_passes with `options`; autotune::Task::misfit), so that the layout and algorithm passes, which ask
// a few of a workload's knobs, and its kernel, which asks them all, apply the same record.
// A log with no record for `target` applies nothing: a warning says so.
std::shared_ptr<const autotune::ApplyHistoryBest> fitting_records(const Graph &laid_out, const Target &target,
                                                                  const BuildOptions &options,
                                                                  const autotune::ApplyHistoryBest &tuning,
                                                                  const std::string &source) {
  const std::set<std::string> targets = tuning.targets();
  if (!targets.count(target.str())) {
    std::string names;
    for (const std::string &t : targets) names += (names.empty() ? "'" : ", '") + t + "'";
    warn(source + " has no record for target '" + target.str() + "' (its records are for " + names +
         "); nothing of it is applied: tune for the target as it is written here");
    return nullptr;
  }
  std::vector<autotune::Task> tasks;
  try {
    tasks = autotune::laid_out_tasks(laid_out, target, options);
  } catch (const Error &e) {  // the build itself says what is wrong, or succeeds without the check
    warn(source + ": its records could not be checked against this model's templates (" + e.what() +
         "); they are applied as they are");
    return std::make_shared<autotune::ApplyHistoryBest>(tuning);
  }
  std::map<std::string, const autotune::Task *> by_workload;
  for (const autotune::Task &t : tasks) by_workload[t.workload] = &t;
  return std::make_shared<autotune::ApplyHistoryBest>(tuning.without([&](const autotune::Record &r) {
    const auto it = by_workload.find(r.workload);
    if (r.target != target.str() || it == by_workload.end()) return std::string();
    const autotune::Task &t = *it->second;
    const std::string why = t.misfit(r.config_json);
    return why.empty() ? why : "the template of node '" + t.first_node + "' (" + t.name + "): " + why;
  }));
}

}  // namespace

bool runs_here(const Target &target) {
  const TargetCaps caps = target.caps();
  return caps.runs_in_process || caps.textures;  // build() allocates the storage of these
}

CompiledModel build(const Graph &input_graph, const Target &target, const BuildOptions &options) {
  const auto t0 = Clock::now();
  input_graph.validate();
  TIR_USER_CHECK(options.tuning_log.empty() || !options.tuning)
      << "graph::build: BuildOptions has both a tuning_log and tuning records; set one";
  std::shared_ptr<const autotune::ApplyHistoryBest> tuning =
      options.tuning_log.empty() ? options.tuning
                                 : std::make_shared<autotune::ApplyHistoryBest>(
                                       autotune::ApplyHistoryBest::load(options.tuning_log));
  Graph g = layout_passes(input_graph, target, options);
  if (tuning && tuning->size() > 0 && options.tuned_schedules)
    tuning = fitting_records(
        g, target, options, *tuning,
        options.tuning_log.empty() ? std::string("the tuning records") : "tuning log '" + options.tuning_log + "'");
  g = tuning_passes(std::move(g), target, options, tuning.get());
  const bool strategies = options.tuned_schedules;
  auto impl = std::make_shared<CompiledModel::Impl>();
  impl->target = target;
  impl->device = Device{target.caps().device, 0};
  if (impl->device == Device::cpu()) g = own_constants(g);
  impl->storage.resize(g.nodes().size());
  for (const Node &n : g.nodes())
    if (n.op == "constant") impl->storage[size_t(n.id)] = impl->device == Device::cpu() ? n.value : n.value.to(impl->device);
  // Identical groups (BERT's layers) compile once and share the module.
  std::map<std::string, Kernel> compiled;
  for (const FusedGroup &grp : kernel_groups(g, target, options.fuse_operators, strategies)) {
    const int lead = grp.anchor >= 0 ? grp.anchor : grp.nodes.back();
    const std::string key = kernel_key(g, grp.nodes, lead, target, strategies);
    auto it = compiled.find(key);
    if (it == compiled.end()) {
      it = compiled.emplace(key, compile_group(g, grp.nodes, grp.anchor, target, strategies, tuning.get())).first;
      impl->kernels.push_back(it->second);
    } else {
      impl->kernels.push_back(Kernel{grp.nodes.back(), grp.nodes, group_args(g, grp.nodes), it->second.in_place,
                                     it->second.module, it->second.fname, BoundCall{}});
    }
  }
  impl->plan = kernel_storage_plan(g, impl->kernels, options.plan_memory);
  impl->planned_peak_bytes = impl->plan.peak_bytes;
  impl->runs_here = runs_here(target);
  if (impl->runs_here) {
    impl->storage_bytes = allocate_results(g, impl->kernels, impl->plan, impl->device, impl->storage);
    bind_storage(g, impl->storage, impl->kernels);
  }
  impl->graph = std::move(g);
  impl->compile_ms = ms_since(t0);
  return CompiledModel(std::move(impl));
}

}  // namespace tensorir::graph
