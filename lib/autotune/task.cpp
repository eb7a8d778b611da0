// Tasks: one per distinct tunable workload of a graph, as graph::build compiles it.
#include "tensorir/autotune/task.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <sstream>

#include "autotune/laid_out_tasks.h"
#include "autotune/workload.h"
#include "graph/build_passes.h"
#include "graph/op_table.h"
#include "tensorir/autotune/config.h"
#include "tensorir/graph/op_registry.h"
#include "tensorir/graph/passes.h"
#include "tensorir/ops/winograd.h"

namespace tensorir::autotune {

namespace {

// A node as it runs in the model: its operator and attributes, and its inputs' shapes
// and dtypes (input ids are positions in `inputs`).
struct NodeForm {
  graph::Node node;
  std::vector<graph::Node> inputs;
  // A conv2d build may compute by Winograd: the "winograd" knob's fallback, else -1.
  int winograd = -1;
};

NodeForm form_of(const graph::Graph &g, const graph::Node &n) {
  NodeForm f{n, {}};
  for (size_t i = 0; i < n.inputs.size(); ++i) {
    graph::Node in;
    const graph::Node &src = g.node(n.inputs[i]);
    in.name = src.name;
    in.op = "input";
    in.shape = src.shape;
    in.dtype = src.dtype;
    f.inputs.push_back(std::move(in));
    f.node.inputs[i] = int(i);
  }
  return f;
}

std::string blocked(const std::string &layout, int64_t block) { return layout + std::to_string(block) + "c"; }

// `f` as the CPU layout passes would have packed it: a packed conv2d in the blocks (ci,
// co), a dense_packed in the panel knob of `cfg`.
NodeForm relayout(NodeForm f, Config &cfg) {
  graph::Node &n = f.node;
  std::vector<int64_t> &data = f.inputs[0].shape;
  if (n.op == "conv2d" && n.attr_string("kernel_layout") != "OIHW" && n.attr_int("groups") == 1) {
    std::vector<int64_t> &w = f.inputs[1].shape;
    // A weight padded to whole vectors (out_channels) stays so, in vectors of its block.
    const int64_t wide = n.attr_int("out_channels"), C = w[1] * w[4], K = wide ? wide : w[0] * w[5];
    const auto [ci, co] = conv2d_blocks(C, K, wide ? int(w[5]) : 0);
    if (data.size() == 5) data = {data[0], C / ci, data[2], data[3], ci};
    w = {(K + co - 1) / co, C / ci, w[2], w[3], ci, co};
    n.attrs["data_layout"] = data.size() == 5 ? blocked("NCHW", ci) : std::string("NCHW");
    n.attrs["kernel_layout"] = "OIHW" + std::to_string(ci) + "i" + std::to_string(co) + "o";
    if (n.attr_string("out_layout") != "NCHW") n.attrs["out_layout"] = blocked("NCHW", conv2d_blocks(C, K).second);
  } else if (n.op == "dense_packed") {
    std::vector<int64_t> &w = f.inputs[1].shape;
    const int64_t M = w[0] * w[2];
    const int b = dense_panel(cfg, M);
    w = {M / b, w[1], b};
  } else {
    return f;
  }
  std::vector<const graph::Node *> in;  // the result's shape in the new blocks
  for (const graph::Node &i : f.inputs) in.push_back(&i);
  graph::detail::infer_shape(n, in);
  return f;
}

// The conv2d_winograd of tile m that graph::winograd_conv2d makes of the packed conv2d
// `f`, reading a placeholder of the transformed weight (computed when the model is
// built, so no part of the kernel).
NodeForm winograd_form(const NodeForm &f, int m, const Target &target) {
  auto [transform, conv] = graph::winograd_nodes(f.node, m, winograd_weight_panel(target));
  NodeForm w{std::move(conv), f.inputs, -1};
  graph::detail::infer_shape(transform, {&f.inputs[1]});
  w.inputs[1].shape = transform.shape;
  graph::detail::infer_shape(w.node, {&w.inputs[0], &w.inputs[1]});
  return w;
}

// The node scheduled with `cfg` by its CPU strategy, reading placeholders.
Instance scheduled(const NodeForm &f, const Target &target, Config &cfg) {
  const graph::OpStrategy strategy = graph::detail::node_op(f.node).strategy(target);
  std::vector<Tensor> ins;
  Instance inst;
  for (size_t i = 0; i < f.inputs.size(); ++i) {
    const graph::Node &in = f.inputs[i];
    ins.push_back(placeholder(std::vector<Expr>(in.shape.begin(), in.shape.end()), in.dtype, "in" + std::to_string(i)));
    inst.args.emplace_back(ins.back());
  }
  const Tensor out = graph::detail::make_tensor(f.node, ins, "out", strategy.compute);
  inst.schedule = strategy.schedule(graph::ScheduleContext{target, f.node, out, out, &cfg});
  inst.target = kernel_target(target, cfg);
  inst.args.emplace_back(out);
  inst.name = "tuned_" + f.node.op;
  return inst;
}

// The node as the CPU layout passes pack it, scheduled with `cfg`. A convolution that may
// be Winograd's asks the algorithm first, then the direct template's knobs and the
// Winograd schedule's, whichever it builds, so that every configuration has the same knobs.
// On "webgl" both algorithms ask the same knobs (the fragment planner's, from the direct
// convolution's reduction: ops::schedule_conv2d_winograd_fragment).
Instance instance(const NodeForm &form, const Target &target, Config &cfg) {
  const TargetCaps caps = target.caps();
  const NodeForm f = caps.cpu_schedules ? relayout(form, cfg) : form;
  if (f.winograd < 0) return scheduled(f, target, cfg);
  const int m = winograd_tile(cfg, f.winograd);
  if (caps.textures) return scheduled(m ? winograd_form(f, m, target) : f, target, cfg);
  Instance direct = scheduled(f, target, cfg);
  if (m) return scheduled(winograd_form(f, m, target), target, cfg);
  if (caps.gpu_schedules) ops::winograd_gpu_knobs(cfg, target);
  else ops::winograd_schedule_knobs(cfg, target);
  return direct;
}

std::string shape_text(const std::vector<int64_t> &s) {
  std::string t;
  for (int64_t d : s) t += (t.empty() ? "" : "x") + std::to_string(d);
  return t;
}

// "conv2d 1x64x56x56 k64 3x3 s1", "dense 1x512 m1000", "batch_matmul 12x197x64 12x64x197";
// and the multiply-adds times 2 of convolutions and products (other operators: one per
// result element).
std::pair<std::string, double> describe(const graph::Graph &g, const graph::Node &n) {
  const std::vector<int64_t> &d = g.node(n.inputs[0]).shape;
  std::ostringstream name;
  double flops = 1;
  for (int64_t x : n.shape) flops *= double(x);
  if (n.op == "conv2d") {
    const std::vector<int64_t> &w = g.node(n.inputs[1]).shape;
    const int64_t C = d.size() == 5 ? d[1] * d[4] : d[1];
    const int64_t K = n.shape[1] * (n.shape.size() == 5 ? n.shape[4] : 1), R = w[2], S = w[3];
    const int64_t groups = n.attr_int("groups");
    name << "conv2d " << shape_text({d[0], C, d[2], d[3]}) << " k" << K << " " << R << "x" << S << " s"
         << n.attr_ints("strides")[0] << (groups > 1 ? " g" + std::to_string(groups) : "");
    flops *= 2.0 * double(C / groups * R * S);
  } else if (n.op == "dense" || n.op == "dense_packed") {
    const std::vector<int64_t> &w = g.node(n.inputs[1]).shape;
    const int64_t M = w.size() == 3 ? w[0] * w[2] : w[0];
    name << "dense " << shape_text(d) << " m" << M;
    flops *= 2.0 * double(d[1]);
  } else if (n.op == "batch_matmul") {
    name << "batch_matmul " << shape_text(d) << " " << shape_text(g.node(n.inputs[1]).shape);
    flops *= 2.0 * double(d.back());
  } else {
    name << n.op << " " << shape_text(d);
  }
  return {name.str(), flops};
}

int64_t product(const std::vector<int64_t> &v) {
  int64_t p = 1;
  for (int64_t x : v) p *= x;
  return p;
}

// The index of the configuration choosing `values` (each one of its knob's `choices`).
int64_t encode(const std::vector<std::vector<int64_t>> &choices, const std::vector<int64_t> &values) {
  int64_t index = 0, stride = 1;
  for (size_t i = 0; i < choices.size(); ++i) {
    const auto at = std::find(choices[i].begin(), choices[i].end(), values[i]);
    index += int64_t(at - choices[i].begin()) * stride;
    stride *= int64_t(choices[i].size());
  }
  return index;
}

// The value of each knob in configuration `index`.
std::vector<int64_t> decode(const std::vector<std::vector<int64_t>> &choices, int64_t index) {
  std::vector<int64_t> values;
  for (const std::vector<int64_t> &c : choices) {
    values.push_back(c[size_t(index % int64_t(c.size()))]);
    index /= int64_t(c.size());
  }
  return values;
}

}  // namespace

int64_t Task::space_size() const { return product(knob_sizes); }

std::vector<Task> extract_tasks(const graph::Graph &input, const Target &target) {
  input.validate();
  const graph::BuildOptions options;
  return laid_out_tasks(graph::layout_passes(input, target, options), target, options);
}

std::vector<Task> laid_out_tasks(const graph::Graph &laid_out, const Target &target, graph::BuildOptions options) {
  // Convolutions stay conv2d: Winograd is their "winograd" knob.
  options.winograd = 0;
  options.winograd_tile_for = nullptr;
  const graph::Graph g = graph::tuning_passes(laid_out, target, options, nullptr);
  std::vector<Task> tasks;
  std::map<std::string, size_t> seen;  // workload -> its task, or SIZE_MAX when it has no knobs
  for (int id : g.topological_order()) {
    const graph::Node &n = g.node(id);
    if (n.op == "input" || n.op == "constant" || !graph::find_op(n.op)) continue;
    if (!graph::detail::node_op(n).strategy(target).schedule) continue;
    std::string key = workload_key(g, n);
    if (const auto it = seen.find(key); it != seen.end()) {
      if (it->second < tasks.size()) ++tasks[it->second].occurrences;
      continue;
    }
    seen.emplace(key, SIZE_MAX);
    NodeForm f = form_of(g, n);
    f.winograd = winograd_default(g, n, target);
    auto form = std::make_shared<const NodeForm>(std::move(f));
    Config space = Config::define();
    instance(*form, target, space);
    if (space.names().empty()) continue;  // nothing to tune
    Task t;
    std::tie(t.name, t.flops) = describe(g, n);
    t.first_node = n.name;
    t.workload = std::move(key);
    t.target = target;
    t.knob_names = space.names();
    for (size_t k = 0; k < t.knob_names.size(); ++k) t.knob_partition.push_back(space.partition(k));
    for (const std::vector<int64_t> &c : space.choices()) t.knob_sizes.push_back(int64_t(c.size()));
    const int64_t size = t.space_size();
    t.default_index = encode(space.choices(), space.values());
    const std::string name = t.name;
    t.instantiate = [form, target, size, name, names = t.knob_names](int64_t index) {
      TIR_USER_CHECK(index >= 0 && index < size)
          << "task '" << name << "': configuration " << index << " is outside its space [0, " << size << ")";
      Config cfg = Config::from_index(index);
      Instance inst = instance(*form, target, cfg);
      TIR_ASSERT(cfg.names() == names) << "task '" << name << "': the template asked other knobs than it declared";
      return inst;
    };
    t.instantiate_json = [form, target](const std::string &json) {
      Config cfg = Config::from_values(config_values(json));
      return instance(*form, target, cfg);
    };
    t.config_json = [choices = space.choices(), names = t.knob_names, size, name](int64_t index) {
      TIR_USER_CHECK(index >= 0 && index < size)
          << "task '" << name << "': configuration " << index << " is outside its space [0, " << size << ")";
      return autotune::config_json(names, decode(choices, index));
    };
    t.misfit = [space](const std::string &json) {
      try {
        return autotune::misfit(space, config_values(json));
      } catch (const Error &e) {
        return std::string(e.what());
      }
    };
    seen[t.workload] = tasks.size();
    tasks.push_back(std::move(t));
  }
  return tasks;
}

}  // namespace tensorir::autotune
