// rfactor: a reduction over k becomes a partial reduction with k as a data-parallel
// dimension, followed by a (short) reduction of the partial results.
#include <algorithm>

#include "schedule/schedule_internal.h"
#include "tensorir/arith/simplify.h"
#include "tensorir/ir/visitor.h"

namespace tensorir {

Tensor Schedule::rfactor(const Tensor &t, const IterVar &axis) {
  const std::string what = "rfactor of '" + (t.defined() ? t.name() : std::string("?")) + "'";
  Stage st = (*this)[t];
  auto *c = st.op().as<ComputeOpNode>();
  TIR_USER_CHECK(c && !c->reduce_axis.empty()) << what << ": it is not a reduction";
  TIR_USER_CHECK(c->body.size() == 1) << what << ": reductions with several values are not supported";
  TIR_USER_CHECK(st->attach_type == AttachType::Root) << what << ": call rfactor before compute_at";
  const auto &leaves = st->leaf_iter_vars;
  TIR_USER_CHECK(axis.defined() && std::any_of(leaves.begin(), leaves.end(), [&](const IterVar &v) { return v.same_as(axis); }))
      << what << ": '" << (axis.defined() ? axis.name() : "?") << "' is not one of its current loops";
  TIR_USER_CHECK(axis.iter_type() == IterVarType::Reduce) << what << ": '" << axis.name() << "' is not a reduction axis";
  check_nothing_attached(n_->stages, st, what);

  // Ranges of the reduction loops, known from the axes' domains.
  IterRanges ranges;
  for (const IterVar &iv : c->axis) ranges[iv.get()] = iv.dom();
  for (const IterVar &iv : c->reduce_axis) ranges[iv.get()] = Range::from_min_extent(simplify(iv.dom().min), simplify(iv.dom().extent));
  derive_ranges(st, ranges);
  auto values = iter_values(st, ranges);
  Expr factor_extent = ranges.at(axis.get()).extent;

  // The partial tensor: [factor axis] + t's shape, reducing over the other reduction leaves.
  Var fvar(axis.name());
  std::vector<Var> out_vars{fvar};
  std::vector<std::pair<Var, Expr>> leaf_subst{{axis.var(), fvar + ranges.at(axis.get()).min}};
  std::vector<IterVar> rest;
  for (const IterVar &leaf : leaves) {
    if (leaf.iter_type() != IterVarType::Reduce || leaf.same_as(axis)) continue;
    const Range &r = ranges.at(leaf.get());
    rest.push_back(IterVar::make(r, Var(leaf.name()), IterVarType::Reduce));
    leaf_subst.emplace_back(leaf.var(), rest.back().var());
  }
  std::vector<std::pair<Var, Expr>> root_subst;
  Expr in_range;
  const auto skip_past = [&](const IterVar &r) {  // a non-dividing split: skip the tail
    Expr inside = substitute(values.at(r.get()), leaf_subst) < ranges.at(r.get()).min + ranges.at(r.get()).extent;
    in_range = in_range.defined() ? (in_range && inside) : inside;
  };
  for (const IterVar &r : c->reduce_axis) {
    Expr v = substitute(values.at(r.get()), leaf_subst);
    root_subst.emplace_back(r.var(), v);
    if (!is_const_int(simplify(v - r.var()), 0)) skip_past(r);
  }
  for (const IterVar &r : overrun_axes(st, ranges, c->reduce_axis)) skip_past(r);
  for (const IterVar &iv : c->axis) {
    out_vars.emplace_back(iv.name());
    root_subst.emplace_back(iv.var(), out_vars.back());
  }
  const ReduceNode *red = c->body[0].as<ReduceNode>();
  Expr source = substitute(red->source[0], root_subst);
  Expr cond = substitute(red->condition, root_subst);
  if (in_range.defined()) cond = simplify(cond && in_range);
  Expr partial_body;
  if (rest.empty()) {  // nothing left to reduce: the partial tensor is the source itself
    partial_body = select(cond, source, red->combiner->identity[0]);
  } else {
    partial_body = ReduceNode::make(red->combiner, {source}, rest, cond, 0);
  }
  std::vector<Expr> shape{factor_extent};
  shape.insert(shape.end(), c->shape.begin(), c->shape.end());
  Operation partial_op = make_compute_op(shape, c->name + ".rf", c->tag, out_vars, {simplify(partial_body)});
  Tensor partial = partial_op.output(0);

  // t now reduces the partial results over a new axis.
  IterVar k = IterVar::make(Range::from_min_extent(0, factor_extent), Var(axis.name() + ".v"), IterVarType::Reduce);
  std::vector<Expr> idx{k.var()};
  for (const IterVar &iv : c->axis) idx.push_back(iv.var());
  Expr final_body = ReduceNode::make(red->combiner, {partial(idx)}, {k}, make_const(Bool(), 1), 0);
  auto *n = new ComputeOpNode();
  n->name = c->name;
  n->tag = c->tag;
  n->axis = c->axis;
  n->reduce_axis = {k};
  n->shape = c->shape;
  n->body = {final_body};
  Operation fresh(n);
  n_->replaced[st.op().get()] = fresh;
  st->op = fresh;
  st->relations.clear();
  st->loop_kind.clear();
  st->all_iter_vars = n->axis;
  st->all_iter_vars.push_back(k);
  st->leaf_iter_vars = st->all_iter_vars;
  n_->stage_map[fresh.get()] = st;

  Stage ps = make_stage(partial_op, n_->id);
  const auto &stages = n_->stages;
  size_t pos = static_cast<size_t>(std::find_if(stages.begin(), stages.end(), [&](const Stage &x) { return x.get() == st.get(); }) - stages.begin());
  n_->stages.insert(n_->stages.begin() + static_cast<long>(pos), ps);
  n_->stage_map[partial_op.get()] = ps;
  return partial;
}

}  // namespace tensorir
