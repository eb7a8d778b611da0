// Split and fuse relations: ranges flow from root axes to leaves, values from leaves to roots.
#include <unordered_set>

#include "schedule/schedule_internal.h"
#include "tensorir/arith/simplify.h"

namespace tensorir {

namespace {
Expr ceil_div(const Expr &a, const Expr &b) { return simplify((a + b - 1) / b); }
}  // namespace

void derive_ranges(const Stage &stage, IterRanges &ranges) {
  for (const IterVarRelation &rel : stage->relations) {
    const IterVarRelationNode &r = *rel;
    if (r.is_split()) {
      auto it = ranges.find(r.parent.get());
      TIR_ASSERT(it != ranges.end()) << "split parent '" << r.parent.name() << "' has no range";
      Expr extent = it->second.extent;
      Expr factor = r.factor.defined() ? r.factor : ceil_div(extent, r.nparts);
      Expr nouter = r.factor.defined() ? ceil_div(extent, r.factor) : r.nparts;
      ranges[r.outer.get()] = Range::from_min_extent(0, nouter);
      ranges[r.inner.get()] = Range::from_min_extent(0, simplify(factor));
    } else {
      Expr e1 = ranges.at(r.outer.get()).extent, e2 = ranges.at(r.inner.get()).extent;
      ranges[r.fused.get()] = Range::from_min_extent(0, simplify(e1 * e2));
    }
  }
}

std::unordered_map<const IterVarNode *, Expr> iter_values(const Stage &stage, const IterRanges &ranges) {
  std::unordered_map<const IterVarNode *, Expr> value;
  for (const IterVar &iv : stage->leaf_iter_vars) value[iv.get()] = iv.var();
  auto min_of = [&](const IterVar &iv) { return ranges.at(iv.get()).min; };
  for (auto it = stage->relations.rbegin(); it != stage->relations.rend(); ++it) {
    const IterVarRelationNode &r = **it;
    if (r.is_split()) {
      Expr factor = ranges.at(r.inner.get()).extent;
      Expr outer = value.at(r.outer.get()) - min_of(r.outer);
      Expr inner = value.at(r.inner.get()) - min_of(r.inner);
      value[r.parent.get()] = simplify(min_of(r.parent) + outer * factor + inner);
    } else {
      Expr fused = value.at(r.fused.get()) - min_of(r.fused);
      Expr inner_extent = ranges.at(r.inner.get()).extent;
      value[r.outer.get()] = simplify(min_of(r.outer) + fused / inner_extent);
      value[r.inner.get()] = simplify(min_of(r.inner) + fused % inner_extent);
    }
  }
  return value;
}

std::vector<IterVar> overrun_axes(const Stage &stage, const IterRanges &ranges, const std::vector<IterVar> &roots) {
  std::unordered_set<const IterVarNode *> root_set, descends;
  for (const IterVar &r : roots) root_set.insert(r.get());
  descends = root_set;
  std::vector<IterVar> out;
  for (const IterVarRelation &rel : stage->relations) {
    const IterVarRelationNode &r = *rel;
    if (r.is_fuse()) {
      if (descends.count(r.outer.get()) && descends.count(r.inner.get())) descends.insert(r.fused.get());
      continue;
    }
    if (!descends.count(r.parent.get())) continue;
    descends.insert(r.outer.get());
    descends.insert(r.inner.get());
    if (root_set.count(r.parent.get())) continue;
    const Expr over = simplify(ranges.at(r.outer.get()).extent * ranges.at(r.inner.get()).extent -
                               ranges.at(r.parent.get()).extent);
    if (!is_const_int(over, 0)) out.push_back(r.parent);
  }
  return out;
}

void check_nothing_attached(const std::vector<Stage> &stages, const Stage &st, const std::string &what) {
  for (const Stage &other : stages)
    TIR_USER_CHECK(other->attach_type != AttachType::Scope || other->attach_stage.get() != st.get())
        << what << ": stage '" << other->op->name << "' is computed at its loop '" << other->attach_ivar.name()
        << "', but the stage this makes computes '" << st->op->name << "' and reads it; call "
        << what.substr(0, what.find(' ')) << " first, then compute_at the stages it reads";
}

int attach_level(const Stage &stage) {
  if (stage->attach_type != AttachType::Scope) return -1;
  const StageNode &parent = *stage->attach_stage;
  // An attach axis later split or fused moves to the loop that still runs once per
  // iteration of it: the inner part of a split, the fused loop of a fuse.
  IterVar iv = stage->attach_ivar;
  for (bool moved = true; moved;) {
    moved = false;
    for (const IterVarRelation &rel : parent.relations) {
      if (rel->is_split() && rel->parent.same_as(iv)) {
        iv = rel->inner;
        moved = true;
      } else if (rel->is_fuse() && (rel->outer.same_as(iv) || rel->inner.same_as(iv))) {
        iv = rel->fused;
        moved = true;
      }
    }
  }
  const auto &leaves = parent.leaf_iter_vars;
  for (size_t i = 0; i < leaves.size(); ++i)
    if (leaves[i].same_as(iv)) return static_cast<int>(i);
  TIR_ASSERT(false) << "attach axis '" << stage->attach_ivar.name() << "' of stage '" << stage->op->name
                    << "' is not a loop of '" << parent.op->name << "'";
  return -1;
}

}  // namespace tensorir
