// Bound inference: walking from the outputs back to the inputs, each producer gets the
// region its consumers read, evaluated over the consumers' loops below the producer's
// attach point; that region becomes the producer's realize bounds and root loop ranges.
#include "schedule/schedule_internal.h"
#include "tensorir/arith/simplify.h"
#include "tensorir/ir/printer.h"
#include "tensorir/ir/visitor.h"

namespace tensorir {

namespace {
class LoadCollector : public IRVisitor {
 public:
  explicit LoadCollector(const OperationNode *target) : target_(target) {}
  std::vector<const TensorLoadNode *> loads;
  using IRVisitor::visit;

 protected:
  void visit(const TensorLoadNode *op) override {
    IRVisitor::visit(op);
    if (op->producer.get() == target_) loads.push_back(op);
  }
  void visit(const ReduceNode *op) override {
    for (const Expr &e : op->source) visit(e);
    visit(op->condition);
  }

 private:
  const OperationNode *target_;
};

Interval leaf_interval(const IterVar &iv, const IterRanges &ranges) {
  const Range &r = ranges.at(iv.get());
  return {r.min, simplify(r.min + r.extent - 1)};
}

// Ranges of the consumer's root variables seen from inside its leaf loop `fixed_level`
// (loops at or outside it are fixed; -1: none is).
// A loop bound to a GPU thread index is fixed for one invocation, but memory shared by
// many invocations must hold what all of them read: "shared" storage spans the threads
// of a work group, "global" storage every thread.
bool shared_across(const Stage &consumer, const IterVar &leaf, const std::string &scope) {
  auto it = consumer->bound_threads.find(leaf.get());
  if (it == consumer->bound_threads.end()) return false;
  const std::string &tag = it->second->thread_tag;
  return scope == "global" || (scope == "shared" && tag.rfind("threadIdx", 0) == 0);
}

// A loop of a stage that encloses a consumer: the consumer is attached inside it,
// directly or through other stages.
struct EnclosingLoop {
  const StageNode *stage = nullptr;
  int level = -1;
};

VarRanges consumer_root_ranges(const Stage &consumer, int fixed_level, const IterRanges &ranges,
                               const std::string &scope, EnclosingLoop enclosing = {}) {
  VarRanges leaf;
  const auto &leaves = consumer->leaf_iter_vars;
  for (size_t l = 0; l < leaves.size(); ++l)
    if (static_cast<int>(l) > fixed_level || shared_across(consumer, leaves[l], scope))
      leaf[leaves[l].var().get()] = leaf_interval(leaves[l], ranges);
  // Seen from the root, the loops that enclose an attached consumer run over their whole
  // ranges too; seen from an enclosing loop, those inside it do.
  if (fixed_level < 0)
    for (const StageNode *a = consumer.get(); a->attach_type == AttachType::Scope; a = a->attach_stage.get()) {
      const Stage parent(a->attach_stage);
      const auto &outer = parent->leaf_iter_vars;
      const bool last = parent.get() == enclosing.stage;
      // At the enclosing stage, its loops at or outside the producer's are fixed, but for
      // those bound to thread indices that share the producer's memory.
      for (size_t l = 0; l < outer.size(); ++l)
        if (!last || static_cast<int>(l) > enclosing.level || shared_across(parent, outer[l], scope))
          leaf[outer[l].var().get()] = leaf_interval(outer[l], ranges);
      if (last) break;
    }
  auto values = iter_values(consumer, ranges);
  VarRanges root;
  auto *compute = consumer.op().as<ComputeOpNode>();
  std::vector<IterVar> roots = compute->axis;
  roots.insert(roots.end(), compute->reduce_axis.begin(), compute->reduce_axis.end());
  for (const IterVar &r : roots) {
    const Expr &value = values.at(r.get());
    if (value.same_as(r.var())) {  // an unsplit loop: its own range, or itself when fixed
      // (A fixed variable stays out of the map: eval_interval treats it as a point.)
      // Its bounds may use enclosing loops that range too: take their extremes.
      if (auto it = leaf.find(r.var().get()); it != leaf.end())
        root[r.var().get()] = {eval_interval(it->second.min, leaf).min, eval_interval(it->second.max, leaf).max};
      continue;
    }
    // Not clamped to the root range: the region keeps a constant size, and the producer
    // guards the elements that fall outside its tensor (see schedule_ops).
    Interval v = eval_interval(value, leaf);
    root[r.var().get()] = v;
  }
  return root;
}

// The region of `producer` read by `consumer`, with the consumer's loops at or outside
// `fixed_level` held fixed.
std::vector<Interval> read_region(const Operation &producer, const Stage &consumer, int fixed_level,
                                  const std::string &scope, const EffectiveBodies &bodies,
                                  const IterRanges &ranges, EnclosingLoop enclosing = {}) {
  LoadCollector c(producer.get());
  for (const Expr &e : bodies.at(consumer.op().get())) c.visit(e);
  std::vector<Interval> region;
  if (c.loads.empty()) return region;
  VarRanges vr = consumer_root_ranges(consumer, fixed_level, ranges, scope, enclosing);
  region.resize(producer->output_shape(0).size());
  bool first = true;
  for (const TensorLoadNode *load : c.loads) {
    for (size_t d = 0; d < load->args.size(); ++d) {
      Interval i = eval_interval(load->args[d], vr);
      region[d] = first ? i : interval_union(region[d], i);
    }
    first = false;
  }
  return region;
}
// Whether `consumer` is computed inside loop `level` of `stage`, directly or through the
// stages it is attached to.
bool attached_inside(const Stage &consumer, const StageNode *stage, int level) {
  for (Stage a = consumer; a->attach_type == AttachType::Scope; a = Stage(a->attach_stage))
    if (a->attach_stage.get() == stage) return attach_level(a) >= level;
  return false;
}
}  // namespace

ScheduleBounds infer_bounds(const Schedule &s, const EffectiveBodies &bodies) {
  ScheduleBounds out;
  const auto &stages = s.stages();
  for (auto it = stages.rbegin(); it != stages.rend(); ++it) {
    const Stage &st = *it;
    auto *compute = st.op().as<ComputeOpNode>();
    if (!compute || st->attach_type == AttachType::Inline) continue;
    const std::vector<Expr> &shape = compute->shape;
    std::vector<Range> region;
    if (st->is_output) {
      for (const Expr &e : shape) region.push_back(Range::from_min_extent(0, e));
    } else {
      std::vector<Interval> need(shape.size());
      bool read = false;
      TIR_USER_CHECK(st->attach_type != AttachType::Scope || st->attach_stage->attach_type != AttachType::Inline)
          << "stage '" << st.op()->name << "' is computed at a loop of '" << st->attach_stage->op->name
          << "', but '" << st->attach_stage->op->name
          << "' is inlined into its readers and has no loops of its own; compute it at a loop of a stage that "
             "reads '"
          << st->attach_stage->op->name << "', or at root";
      for (const Stage &consumer : stages) {
        if (!consumer.op().as<ComputeOpNode>() || consumer->attach_type == AttachType::Inline) continue;
        int level = -1;
        EnclosingLoop enclosing;
        if (st->attach_type == AttachType::Scope) {
          if (consumer.get() == st->attach_stage.get()) {
            level = attach_level(st);
          } else {
            LoadCollector probe(st.op().get());
            for (const Expr &e : bodies.at(consumer.op().get())) probe.visit(e);
            if (probe.loads.empty()) continue;
            // A reader computed inside the loop the producer is computed at (the loop of
            // a consumer's consumer) reads it over the loops inside that one.
            TIR_USER_CHECK(attached_inside(consumer, st->attach_stage.get(), attach_level(st)))
                << "stage '" << st.op()->name << "' is computed at a loop of '" << st->attach_stage->op->name
                << "' but is also read by '" << consumer.op()->name
                << "', which is not computed inside that loop; compute it at root (or cache it separately for "
                   "each reader)";
            enclosing = {st->attach_stage.get(), attach_level(st)};
          }
        }
        std::vector<Interval> r = read_region(st.op(), consumer, level, st->scope, bodies, out.ranges, enclosing);
        if (r.empty()) continue;
        for (size_t d = 0; d < r.size(); ++d) need[d] = read ? interval_union(need[d], r[d]) : r[d];
        read = true;
      }
      for (size_t d = 0; d < shape.size(); ++d) {
        if (read && need[d].is_bounded()) {
          region.push_back(Range::from_min_extent(need[d].min, simplify(need[d].max - need[d].min + 1)));
        } else {
          region.push_back(Range::from_min_extent(0, shape[d]));  // data-dependent reads: all of it
        }
      }
    }
    out.realize[compute] = region;
    for (size_t d = 0; d < compute->axis.size(); ++d) out.ranges[compute->axis[d].get()] = region[d];
    for (const IterVar &r : compute->reduce_axis)
      out.ranges[r.get()] = Range::from_min_extent(simplify(r.dom().min), simplify(r.dom().extent));
    derive_ranges(st, out.ranges);
  }
  return out;
}

}  // namespace tensorir
