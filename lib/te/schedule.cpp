// create_schedule: one stage per operation, producers before consumers; Schedule::copy.
#include "tensorir/te/schedule.h"

#include "schedule/schedule_internal.h"

#include <atomic>
#include <functional>
#include <unordered_set>

namespace tensorir {

namespace {
uint64_t next_schedule_id() {
  static std::atomic<uint64_t> next{1};
  return next++;
}
}  // namespace

Stage make_stage(const Operation &op, uint64_t schedule_id) {
  Ref<StageNode> n(new StageNode());
  n->op = op;
  n->schedule_id = schedule_id;
  if (auto *c = op.as<ComputeOpNode>()) {
    for (const IterVar &iv : c->axis) n->all_iter_vars.push_back(iv);
    for (const IterVar &iv : c->reduce_axis) n->all_iter_vars.push_back(iv);
    n->leaf_iter_vars = n->all_iter_vars;
  }
  return Stage(n);
}

// Post-order walk from the outputs: every producer precedes its consumers.
std::vector<Operation> post_dfs_order(const std::vector<Tensor> &outputs) {
  std::vector<Operation> order;
  std::unordered_set<const OperationNode *> visited, on_stack;
  std::function<void(const Operation &)> visit = [&](const Operation &op) {
    if (visited.count(op.get())) return;
    TIR_USER_CHECK(!on_stack.count(op.get())) << "operation '" << op->name << "' depends on itself";
    on_stack.insert(op.get());
    for (const Tensor &t : op->input_tensors()) visit(t.op());
    on_stack.erase(op.get());
    visited.insert(op.get());
    order.push_back(op);
  };
  for (const Tensor &t : outputs) visit(t.op());
  return order;
}

Schedule create_schedule(const std::vector<Tensor> &outputs) {
  TIR_USER_CHECK(!outputs.empty()) << "create_schedule: give at least one output tensor";
  Ref<ScheduleNode> n(new ScheduleNode());
  n->id = next_schedule_id();
  for (const Tensor &t : outputs) {
    TIR_USER_CHECK(t.defined()) << "create_schedule: an output tensor is undefined";
    TIR_USER_CHECK(t.op().as<ComputeOpNode>())
        << "create_schedule: output '" << t.name() << "' is a placeholder; outputs must be computed tensors";
    n->outputs.push_back(t);
  }
  for (const Operation &op : post_dfs_order(outputs)) {
    Stage s = make_stage(op, n->id);
    for (const Tensor &t : outputs)
      if (t.op().same_as(op)) s->is_output = true;
    n->stages.push_back(s);
    n->stage_map[op.get()] = s;
  }
  return Schedule(n);
}

const std::vector<Stage> &Schedule::stages() const {
  TIR_USER_CHECK(n_.defined()) << "schedule is undefined; create it with create_schedule({outputs})";
  return n_->stages;
}

const std::vector<Tensor> &Schedule::outputs() const {
  TIR_USER_CHECK(n_.defined()) << "schedule is undefined; create it with create_schedule({outputs})";
  return n_->outputs;
}

const Operation &Stage::op() const {
  TIR_USER_CHECK(n_.defined()) << "stage is undefined; take it from a schedule: s[tensor]";
  return n_->op;
}

Stage Schedule::operator[](const Operation &op) const {
  TIR_USER_CHECK(n_.defined()) << "schedule is undefined; create it with create_schedule({outputs})";
  auto it = n_->stage_map.find(op.get());
  TIR_USER_CHECK(it != n_->stage_map.end())
      << "tensor '" << (op.defined() ? op->name : std::string("?"))
      << "' is not part of this schedule; create_schedule only includes what its outputs depend on";
  return it->second;
}

Operation Schedule::current(const Operation &op) const {
  Operation cur = op;
  for (auto it = n_->replaced.find(cur.get()); it != n_->replaced.end(); it = n_->replaced.find(cur.get()))
    cur = it->second;
  return cur;
}

namespace {
// Objects are not copyable (their reference count is not), so the fields are copied one by one.
Stage copy_stage(const StageNode *s) {
  Ref<StageNode> n(new StageNode());
  n->op = s->op;
  n->all_iter_vars = s->all_iter_vars;
  n->leaf_iter_vars = s->leaf_iter_vars;
  n->relations = s->relations;
  n->loop_kind = s->loop_kind;
  n->attach_type = s->attach_type;
  n->attach_stage = s->attach_stage;  // remapped to the copy's stage by the caller
  n->attach_ivar = s->attach_ivar;
  n->scope = s->scope;
  n->is_output = s->is_output;
  n->bound_threads = s->bound_threads;
  n->tensorize_axis = s->tensorize_axis;
  n->tensorize_intrin = s->tensorize_intrin;
  n->prefetches = s->prefetches;
  return Stage(n);
}
}  // namespace

// Loop axes, relations and operations are immutable and shared; the stages, which the
// primitives change, are copied.
Schedule Schedule::copy() const {
  TIR_USER_CHECK(n_.defined()) << "copy: schedule is undefined; create it with create_schedule({outputs})";
  Ref<ScheduleNode> n(new ScheduleNode());
  n->id = next_schedule_id();
  n->outputs = n_->outputs;
  n->replaced = n_->replaced;
  std::unordered_map<const StageNode *, Stage> fresh;
  for (const Stage &st : n_->stages) {
    n->stages.push_back(copy_stage(st.get()));
    n->stages.back()->schedule_id = n->id;
    fresh[st.get()] = n->stages.back();
  }
  for (const Stage &st : n->stages)
    if (st->attach_stage.defined()) st->attach_stage = Ref<StageNode>(fresh.at(st->attach_stage.get()).get());
  for (const auto &[op, st] : n_->stage_map) n->stage_map[op] = fresh.at(st.get());
  return Schedule(n);
}

Stage Schedule::operator[](const Tensor &t) const {
  TIR_USER_CHECK(t.defined()) << "schedule[]: undefined tensor";
  return (*this)[t.op()];
}

}  // namespace tensorir
