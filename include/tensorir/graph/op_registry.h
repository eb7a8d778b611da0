// The operator registry: every graph operator declared in one place.
//
// An OpDef holds what the graph layer needs to know of an operator: its inputs, a typed
// attribute schema with defaults, checks that name the node at fault, the tensor
// expression it computes, how it fuses with its neighbours, how it treats
// channel-blocked data (alter_conv_layout), and a strategy (compute and schedule) per
// target kind with a generic fallback. The Builder, the graph passes, the executor and
// the exporters read this registry and nothing else, so adding an operator is one
// registration: the built-in ones are in lib/ops/defs/, and a program registers its own
// the same way (examples/custom_op.cpp):
//
//   graph::OpDef def;
//   def.name = "swish";
//   def.inputs = {"x"};
//   def.attrs = {{"beta", graph::AttrType::Real, 1.0}};
//   def.pattern = graph::OpPattern::kElementWise;
//   def.compute = [](const graph::Node &n, const std::vector<Tensor> &in, const std::string &name) {
//     const double beta = n.attr_double("beta");
//     return compute(in[0].shape(), [&](const std::vector<Var> &i) {
//       Expr x = in[0](i);
//       return x * sigmoid(x * float(beta));
//     }, name);
//   };
//   graph::register_op(def);   // registers a copy: set def.strategies before
//   ... b.make("swish", {x}, {{"beta", 2.0}}) ...
#pragma once
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tensorir/autotune/config.h"
#include "tensorir/graph/graph.h"
#include "tensorir/target.h"
#include "tensorir/te/schedule.h"

namespace tensorir::graph {

// How an operator combines with its neighbours when fusing (graph::fuse_operators).
enum class OpPattern {
  kElementWise,  // one output element from the same element of each input (relu, add)
  kBroadcast,    // element-wise with a smaller operand broadcast (bias_add, batch_norm)
  kInjective,    // each output element reads one fixed input element (flatten, layout_transform)
  kReduction,    // reads many input elements per output element (pools, softmax): ends a group
  kOutFusable,   // a heavy operator whose element-wise tail fuses into it (conv2d, dense)
  kOpaque,       // never fused (input, constant, and operators that say so)
};
// The name written in messages: "element-wise", "out-fusable", ...
const char *op_pattern_name(OpPattern p);

// How an operator treats channel-blocked activations (NCHW<c>c, graph::alter_conv_layout).
enum class LayoutRule {
  kPlain,          // reads NCHW: a blocked input is transformed back first (the default)
  kConvolution,    // conv2d: the pass packs its weight and may block its result
  kElementWise,    // a unary map of 4-D data: computes on the blocks, result blocked alike
  kSpatial,        // pooling over H and W: computes on the blocks, result blocked alike
  kChannelBias,    // bias_add along the channels: an add of the bias viewed in blocks
  kBinary,         // add, multiply of full-channel 4-D tensors: both sides blocked alike
};

enum class AttrType { Int, Real, String, Ints };

// One attribute of an operator. Without a default the attribute is required.
struct AttrSpec {
  std::string name;
  AttrType type = AttrType::Int;
  std::optional<AttrValue> default_value;
  int ints_size = -1;  // Ints: the number of values, -1 for any
  std::string doc;

  AttrSpec(std::string n, AttrType t, std::optional<AttrValue> def = std::nullopt, std::string d = "")
      : name(std::move(n)), type(t), default_value(std::move(def)), doc(std::move(d)) {}
};

// The node's result computed from `inputs` (tensors of the input nodes' shapes and
// dtypes), named `name`.
using ComputeFn = std::function<Tensor(const Node &n, const std::vector<Tensor> &inputs, const std::string &name)>;

// What a schedule function gets: the target, the node leading the kernel (an
// out-fusable anchor, else the group's last node), that node's tensor, and the tensor
// of the whole fused group: equal to `op` when nothing follows the node in the group
// (nodes before it may be inlined into it), else an element-wise tail follows `op` and
// ends in `out`. `config` chooses the values of the schedule's knobs (autotune/config.h);
// null: every knob its fallback. The references are valid during the call only.
struct ScheduleContext {
  const Target &target;
  const Node &node;
  Tensor op;
  Tensor out;
  autotune::Config *config = nullptr;
  bool fused() const { return !(op == out); }
};
using ScheduleFn = std::function<Schedule(const ScheduleContext &ctx)>;

// A compute and schedule for one target kind, both used with BuildOptions::tuned_schedules
// (without it every node computes by OpDef::compute under ops::schedule_generic). An
// empty compute uses the OpDef's; an empty schedule is ops::schedule_generic over the
// group. Each node of a group computes by its own strategy; the lead's schedules it.
struct OpStrategy {
  ComputeFn compute;
  ScheduleFn schedule;
  // Whether this schedule computes an element-wise tail fused after the node (for
  // kOutFusable operators); false: the tail gets a kernel of its own. Empty: true.
  std::function<bool(const Node &n)> takes_tail;
};

struct OpDef {
  std::string name;
  std::vector<std::string> inputs;  // role names, one per input ("data", "weight")
  // true: the last role takes one or more inputs (concatenate's "x"), so a node has
  // inputs.size() inputs or more; false: exactly inputs.size().
  bool variadic = false;
  std::vector<AttrSpec> attrs;
  OpPattern pattern = OpPattern::kOpaque;
  bool commutative = false;  // a fused value may flow through either input (add, multiply)
  LayoutRule layout = LayoutRule::kPlain;
  // Checks of the inputs that read better in graph terms than the compute's own errors;
  // optional. Inputs have their shapes and dtypes set.
  std::function<void(const Node &n, const std::vector<const Node *> &inputs)> check;
  ComputeFn compute;
  // By target kind ("llvm", "wasm", "opengl", ...), used with BuildOptions::tuned_schedules;
  // "cpu" stands for every kind whose capabilities say the CPU schedules apply
  // (TargetCaps::cpu_schedules: "llvm", "wasm") and that has no entry of its own; "gpu"
  // likewise for the GPU compute kinds (TargetCaps::gpu_schedules).
  std::map<std::string, OpStrategy> strategies;
  std::string doc;

  // The strategy for `target` with the compute filled in: the one registered for its
  // kind (or "cpu"), or {compute, ops::schedule_generic}.
  OpStrategy strategy(const Target &target) const;
};

// Adds `def` to the registry (it must have a name, a compute and no name clash with
// another operator or with "input"/"constant"); throws an Error saying what is wrong.
// Call it before building graphs that use the operator, e.g. from a static initializer.
void register_op(OpDef def);
// The operator `name`; an unknown name throws an Error listing the registered ones.
const OpDef &op_def(const std::string &name);
// nullptr when there is none.
const OpDef *find_op(const std::string &name);
// The registered operators, sorted by name.
std::vector<std::string> registered_ops();

// The pattern of `op`: kOpaque for "input", "constant" and unknown names.
OpPattern op_pattern(const std::string &op);

}  // namespace tensorir::graph
