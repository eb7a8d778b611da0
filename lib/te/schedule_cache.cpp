// cache_read and cache_write: new stages that copy a tensor into another scope.
#include <algorithm>

#include "schedule/schedule_internal.h"
#include "tensorir/ir/visitor.h"

namespace tensorir {

namespace {
class LoadReplacer : public IRMutator {
 public:
  explicit LoadReplacer(const std::unordered_map<const OperationNode *, Operation> &map) : map_(map) {}
  using IRMutator::mutate;
  bool replaced = false;

 protected:
  Expr visit(const TensorLoadNode *op, const Expr &self) override {
    Expr e = IRMutator::visit(op, self);
    const auto *load = e.as<TensorLoadNode>();
    auto it = map_.find(static_cast<const OperationNode *>(load->producer.get()));
    if (it == map_.end()) return e;
    replaced = true;
    return TensorLoadNode::make(load->type, Ref<const Object>(it->second.get()), load->value_index,
                                it->second->name, load->args);
  }

 private:
  const std::unordered_map<const OperationNode *, Operation> &map_;
};

size_t stage_position(const Schedule &s, const Stage &st) {
  const auto &stages = s.stages();
  auto it = std::find_if(stages.begin(), stages.end(), [&](const Stage &x) { return x.get() == st.get(); });
  TIR_ASSERT(it != stages.end()) << "stage not in schedule";
  return static_cast<size_t>(it - stages.begin());
}

void insert_stage(ScheduleNode *n, size_t pos, const Stage &st) {
  n->stages.insert(n->stages.begin() + static_cast<long>(pos), st);
  n->stage_map[st.op().get()] = st;
}

void check_scope(const std::string &scope, const std::string &what) {
  TIR_USER_CHECK(scope == "global" || scope == "local" || scope == "shared")
      << what << ": unknown storage scope '" << scope << "'; use \"global\", \"local\" or \"shared\"";
}
}  // namespace

Operation with_body(const ComputeOpNode *c, std::vector<Expr> body, bool keep_reduce_axis) {
  auto *n = new ComputeOpNode();
  n->name = c->name;
  n->tag = c->tag;
  n->axis = c->axis;
  if (keep_reduce_axis) n->reduce_axis = c->reduce_axis;
  n->shape = c->shape;
  n->body = std::move(body);
  return Operation(n);
}

Expr replace_loads(const Expr &e, const std::unordered_map<const OperationNode *, Operation> &map) {
  return LoadReplacer(map).mutate(e);
}

Tensor Schedule::cache_read(const Tensor &t, const std::string &scope, const std::vector<Tensor> &readers) {
  const std::string what = "cache_read of '" + (t.defined() ? t.name() : std::string("?")) + "'";
  check_scope(scope, what);
  Stage src = (*this)[t];
  TIR_USER_CHECK(!readers.empty()) << what << ": give the tensors that should read the copy";
  Tensor cache = compute(t.shape(), [&](const std::vector<Var> &idx) {
    return t(std::vector<Expr>(idx.begin(), idx.end()));
  }, t.name() + "." + scope);
  Operation cur_src = current(t.op());
  std::unordered_map<const OperationNode *, Operation> map{{t.op().get(), cache.op()}, {cur_src.get(), cache.op()}};
  for (const Tensor &r : readers) {
    Stage rs = (*this)[r];
    Operation old = rs.op();
    auto *c = old.as<ComputeOpNode>();
    TIR_USER_CHECK(c) << what << ": reader '" << r.name() << "' is a placeholder";
    LoadReplacer rep(map);
    std::vector<Expr> body;
    for (const Expr &e : c->body) body.push_back(rep.mutate(e));
    TIR_USER_CHECK(rep.replaced) << what << ": '" << r.name() << "' does not read '" << t.name() << "'";
    Operation fresh = with_body(c, body, true);
    n_->replaced[old.get()] = fresh;
    rs->op = fresh;
    n_->stage_map[fresh.get()] = rs;
  }
  Stage cs = make_stage(cache.op(), n_->id);
  cs->scope = scope;
  insert_stage(n_.get(), stage_position(*this, src) + 1, cs);
  return cache;
}

Tensor Schedule::cache_write(const Tensor &t, const std::string &scope) {
  const std::string what = "cache_write of '" + (t.defined() ? t.name() : std::string("?")) + "'";
  check_scope(scope, what);
  Stage st = (*this)[t];
  auto *c = st.op().as<ComputeOpNode>();
  TIR_USER_CHECK(c) << what << ": it is a placeholder; only computed tensors can be cached";
  TIR_USER_CHECK(st->relations.empty() && st->attach_type == AttachType::Root)
      << what << ": call cache_write before splitting, fusing or attaching '" << t.name() << "'";
  check_nothing_attached(n_->stages, st, what);
  // The cache computes the original body over fresh axes of its own.
  std::vector<std::pair<Var, Expr>> subst;
  std::vector<Var> axis_vars;
  for (const IterVar &iv : c->axis) {
    axis_vars.emplace_back(iv.name() + ".c");
    subst.emplace_back(iv.var(), axis_vars.back());
  }
  std::vector<IterVar> new_reduce;
  for (const IterVar &iv : c->reduce_axis) {
    new_reduce.push_back(IterVar::make(iv.dom(), Var(iv.name()), IterVarType::Reduce));
    subst.emplace_back(iv.var(), new_reduce.back().var());
  }
  std::vector<Expr> body;
  for (const Expr &e : c->body) {
    if (const ReduceNode *r = e.as<ReduceNode>()) {
      std::vector<Expr> src;
      for (const Expr &x : r->source) src.push_back(substitute(x, subst));
      body.push_back(ReduceNode::make(r->combiner, src, new_reduce, substitute(r->condition, subst), r->value_index));
    } else {
      body.push_back(substitute(e, subst));
    }
  }
  Operation cache_op = make_compute_op(c->shape, c->name + "." + scope, c->tag, axis_vars, body);
  std::vector<Expr> copy;
  std::vector<Expr> idx;
  for (const IterVar &iv : c->axis) idx.push_back(iv.var());
  for (int v = 0; v < cache_op->num_outputs(); ++v) copy.push_back(cache_op.output(v)(idx));
  Operation fresh = with_body(c, copy, false);
  n_->replaced[st.op().get()] = fresh;
  st->op = fresh;
  st->all_iter_vars = fresh.as<ComputeOpNode>()->axis;
  st->leaf_iter_vars = st->all_iter_vars;
  st->loop_kind.clear();
  n_->stage_map[fresh.get()] = st;
  Stage cs = make_stage(cache_op, n_->id);
  cs->scope = scope;
  insert_stage(n_.get(), stage_position(*this, st), cs);
  return cache_op.output(t.value_index());
}

}  // namespace tensorir
