// Builds the loop nest of a schedule: every stage's leaf loops, its body as Provide
// statements, reductions split into an init and an update nest, producers nested at
// their attach points and wrapped in Realize for the region bound inference gave them.
#include <algorithm>
#include <unordered_set>

#include "schedule/schedule_internal.h"
#include "tensorir/arith/simplify.h"
#include "tensorir/ir/op.h"
#include "tensorir/ir/printer.h"
#include "tensorir/ir/visitor.h"

namespace tensorir {

namespace {
class NestBuilder {
 public:
  NestBuilder(const Schedule &s, const EffectiveBodies &bodies, const ScheduleBounds &bounds)
      : s_(s), bodies_(bodies), bounds_(bounds) {
    for (const Stage &st : s.stages())
      if (st->attach_type == AttachType::Scope) {
        auto &levels = attached_[st->attach_stage.get()];
        size_t level = static_cast<size_t>(attach_level(st));
        if (levels.size() <= level) levels.resize(level + 1);
        levels[level].push_back(st);
      }
  }

  Stmt build() {
    Stmt body;
    const auto &stages = s_.stages();
    for (auto it = stages.rbegin(); it != stages.rend(); ++it)
      if (is_computed(*it) && (*it)->attach_type == AttachType::Root)
        body = realize(*it, BlockNode::make({make_stage(*it), body}));
    return body;
  }

 private:
  static bool is_computed(const Stage &st) {
    return st.op().as<ComputeOpNode>() && st->attach_type != AttachType::Inline;
  }

  Stmt realize(const Stage &st, Stmt body) const {
    if (st->is_output) return body;
    const OperationNode *op = st.op().get();
    for (int v = op->num_outputs() - 1; v >= 0; --v)
      body = RealizeNode::make(Ref<const Object>(op), v, buffer_name(st.op(), v), op->output_dtype(v),
                               bounds_.realize.at(op), st->scope, body);
    return body;
  }

  // Wraps `inner` in leaf loops [from, to) of `st`, placing the stages attached at each.
  Stmt wrap_loops(const Stage &st, size_t from, size_t to, Stmt inner,
                  const std::function<bool(const IterVar &)> &keep = nullptr) {
    const auto &leaves = st->leaf_iter_vars;
    auto att = attached_.find(st.get());
    for (size_t l = to; l-- > from;) {
      if (keep && !keep(leaves[l])) continue;
      if (!keep && att != attached_.end() && l < att->second.size()) {
        const auto &children = att->second[l];
        for (auto c = children.rbegin(); c != children.rend(); ++c)
          inner = realize(*c, BlockNode::make({make_stage(*c), inner}));
      }
      const Range &r = bounds_.ranges.at(leaves[l].get());
      if (auto bound = st->bound_threads.find(leaves[l].get()); bound != st->bound_threads.end()) {
        // A thread index runs the loop: the variable becomes the index (plus the loop's start).
        const IterVar &thread = bound->second;
        inner = substitute(inner, {{leaves[l].var(), r.min + thread.var()}});
        inner = AttrStmtNode::make(Ref<const Object>(thread.get()), "thread_extent", r.extent, inner);
        continue;
      }
      auto it = st->loop_kind.find(leaves[l].get());
      ForKind fk = it == st->loop_kind.end() ? ForKind::Serial : it->second;
      if (!keep) inner = with_prefetches(st, l, inner);
      inner = ForNode::make(leaves[l].var(), r.min, r.extent, fk, inner);
    }
    return inner;
  }

  // The stage's prefetches at leaf loop `l` as "prefetch" attributes around the loop's
  // body; inject_prefetch turns them into prefetch calls once buffers are flat.
  Stmt with_prefetches(const Stage &st, size_t l, Stmt body) const {
    const auto &leaves = st->leaf_iter_vars;
    for (const PrefetchSpec &p : st->prefetches) {
      if (!p.axis.same_as(leaves[l])) continue;
      // A vector loop at or around the axis would widen the prefetch's address.
      for (size_t outer = 0; outer <= l; ++outer) {
        auto kind = st->loop_kind.find(leaves[outer].get());
        TIR_USER_CHECK(kind == st->loop_kind.end() || kind->second != ForKind::Vectorized)
            << "prefetch on stage '" << st.op()->name << "' at loop '" << leaves[l].name() << "': loop '"
            << leaves[outer].name() << (outer == l ? "' is" : "' around it is")
            << " vectorized; prefetch at a loop outside the vector loop";
      }
      const Operation op = s_.current(p.tensor.op());
      const Stage &producer = s_[op];
      TIR_USER_CHECK(producer->attach_type != AttachType::Inline)
          << "prefetch on stage '" << st.op()->name << "': tensor '" << p.tensor.name()
          << "' is inlined and has no memory to prefetch; prefetch what it reads, or compute it";
      const int vi = p.tensor.value_index();
      Expr tensor =
          TensorLoadNode::make(op->output_dtype(vi), Ref<const Object>(op.get()), vi, buffer_name(op, vi), {});
      Expr spec = CallNode::make(Int(32), "tensorir.prefetch", {tensor, make_const(Int(32), p.offset)});
      body = AttrStmtNode::make(Ref<const Object>(leaves[l].get()), "prefetch", spec, body);
    }
    return body;
  }

  // Every prefetch names one of the stage's loops as they are now.
  static void check_prefetch_axes(const Stage &st) {
    const auto &leaves = st->leaf_iter_vars;
    for (const PrefetchSpec &p : st->prefetches)
      TIR_USER_CHECK(std::any_of(leaves.begin(), leaves.end(), [&](const IterVar &v) { return v.same_as(p.axis); }))
          << "prefetch on stage '" << st.op()->name << "': loop '" << p.axis.name()
          << "' is no longer one of its loops (split or fused after prefetch, or the stage rebuilt by "
             "cache_write or rfactor); call prefetch once the loops are final";
  }

  Stmt make_stage(const Stage &st) {
    check_prefetch_axes(st);
    if (st->tensorize_intrin.defined()) return make_tensorized(st);
    auto *compute = st.op().as<ComputeOpNode>();
    auto values = iter_values(st, bounds_.ranges);
    std::vector<std::pair<Var, Expr>> subst;
    std::vector<Expr> args;
    for (const IterVar &iv : compute->axis) {
      subst.emplace_back(iv.var(), values.at(iv.get()));
      args.push_back(values.at(iv.get()));
    }
    for (const IterVar &iv : compute->reduce_axis) subst.emplace_back(iv.var(), values.at(iv.get()));
    VarRanges leaf_ranges;
    for (const IterVar &iv : st->leaf_iter_vars) {
      const Range &r = bounds_.ranges.at(iv.get());
      leaf_ranges[iv.var().get()] = {r.min, simplify(r.min + r.extent - 1)};
    }
    Expr axis_guard = guards(st, compute->axis, values, leaf_ranges);
    if (!st->is_output) axis_guard = inside_shape(compute, values, leaf_ranges, axis_guard);
    const std::vector<Expr> &body = bodies_.at(compute);
    const OperationNode *op = compute;
    auto provide = [&](int v, Expr value) {
      return ProvideNode::make(Ref<const Object>(op), v, buffer_name(st.op(), v), value, args);
    };
    const size_t n = st->leaf_iter_vars.size();
    if (compute->reduce_axis.empty()) {
      std::vector<Stmt> stores;
      for (size_t v = 0; v < body.size(); ++v)
        stores.push_back(provide(static_cast<int>(v), substitute(body[v], subst)));
      return wrap_loops(st, 0, n, guard(axis_guard, BlockNode::make(stores)));
    }
    // Reduction: init over the data-parallel loops below the first reduction loop, then update.
    const auto *red = body[0].as<ReduceNode>();
    size_t p = 0;
    while (p < n && !depends_on_reduce(st, st->leaf_iter_vars[p])) ++p;
    std::vector<Stmt> init;
    for (size_t v = 0; v < body.size(); ++v) init.push_back(provide(static_cast<int>(v), red->combiner->identity[v]));
    Stmt init_nest = wrap_loops(st, p, n, guard(axis_guard, BlockNode::make(init)),
                                [&](const IterVar &iv) { return !depends_on_reduce(st, iv); });
    std::vector<Expr> old_values, sources;
    for (size_t v = 0; v < body.size(); ++v) {
      old_values.push_back(TensorLoadNode::make(op->output_dtype(static_cast<int>(v)), Ref<const Object>(op),
                                                static_cast<int>(v), buffer_name(st.op(), static_cast<int>(v)), args));
      sources.push_back(substitute(red->source[v], subst));
    }
    std::vector<Expr> combined = red->combiner->combine(old_values, sources);
    Stmt update;
    if (combined.size() == 1) {
      update = provide(0, combined[0]);
    } else {  // every new value is computed from the old ones before any is stored
      std::vector<Var> tmp;
      std::vector<Stmt> stores;
      for (size_t v = 0; v < combined.size(); ++v) {
        tmp.emplace_back(buffer_name(st.op(), static_cast<int>(v)) + "_new", combined[v].type());
        stores.push_back(provide(static_cast<int>(v), tmp.back()));
      }
      update = BlockNode::make(stores);
      for (size_t v = combined.size(); v-- > 0;) update = LetStmtNode::make(tmp[v], combined[v], update);
    }
    std::vector<IterVar> all = compute->axis;
    all.insert(all.end(), compute->reduce_axis.begin(), compute->reduce_axis.end());
    Expr cond = guards(st, all, values, leaf_ranges);
    if (!st->is_output) cond = inside_shape(compute, values, leaf_ranges, cond);
    Expr user_cond = simplify(substitute(red->condition, subst));
    if (!is_const_int(user_cond, 1)) cond = cond.defined() ? (cond && user_cond) : user_cond;
    Stmt update_nest = wrap_loops(st, p, n, guard(cond, update));
    return wrap_loops(st, 0, p, BlockNode::make({init_nest, update_nest}));
  }

  Stmt make_tensorized(const Stage &st) {
    auto *compute = st.op().as<ComputeOpNode>();
    TensorizePlan plan = plan_tensorize(st, bodies_.at(compute), bounds_.ranges);
    size_t p = 0;
    while (p < st->leaf_iter_vars.size() && !depends_on_reduce(st, st->leaf_iter_vars[p])) ++p;
    if (compute->reduce_axis.empty() || p >= plan.pos) return wrap_loops(st, 0, plan.pos, plan.body);
    TIR_USER_CHECK(plan.reset.defined() && plan.update.defined())
        << "tensorize of stage '" << compute->name << "': reduction loop '" << st->leaf_iter_vars[p].name()
        << "' is outside the tensorized axis, so the intrinsic needs reset and update bodies";
    Stmt init = wrap_loops(st, p, plan.pos, plan.reset, [&](const IterVar &iv) { return !depends_on_reduce(st, iv); });
    Stmt update = wrap_loops(st, p, plan.pos, plan.update);
    return wrap_loops(st, 0, p, BlockNode::make({init, update}));
  }

  // Conditions that keep the iterations of non-dividing splits inside the root ranges.
  Expr guards(const Stage &st, std::vector<IterVar> roots, const std::unordered_map<const IterVarNode *, Expr> &values,
              const VarRanges &leaf_ranges) const {
    // Past an axis split again (overrun_axes) a loop computes an element of another
    // iteration: the same value again for an element-wise stage, but a reduction would
    // reset or add to it twice.
    if (!st.op().as<ComputeOpNode>()->reduce_axis.empty())
      for (const IterVar &iv : overrun_axes(st, bounds_.ranges, roots)) roots.push_back(iv);
    Expr cond;
    for (const IterVar &r : roots) {
      const Range &range = bounds_.ranges.at(r.get());
      Expr value = values.at(r.get());
      if (value.same_as(r.var())) continue;
      Expr c = value < range.min + range.extent;
      if (can_prove(c, leaf_ranges)) continue;
      cond = cond.defined() ? (cond && c) : c;
    }
    return cond;
  }

  // A producer's region may reach past its tensor (a tile at the edge): skip those elements.
  static Expr inside_shape(const ComputeOpNode *compute, const std::unordered_map<const IterVarNode *, Expr> &values,
                           const VarRanges &leaf_ranges, Expr cond) {
    for (size_t d = 0; d < compute->axis.size(); ++d) {
      Expr v = values.at(compute->axis[d].get());
      for (Expr c : {Expr(v >= 0), Expr(v < compute->shape[d])}) {
        if (can_prove(c, leaf_ranges)) continue;
        cond = cond.defined() ? (cond && c) : c;
      }
    }
    return cond;
  }

  static Stmt guard(const Expr &cond, Stmt body) {
    return cond.defined() ? IfThenElseNode::make(cond, body) : body;
  }

  static bool depends_on_reduce(const Stage &st, const IterVar &iv) {
    return iv.iter_type() == IterVarType::Reduce;
  }

  static std::string buffer_name(const Operation &op, int v) {
    return op->num_outputs() == 1 ? op->name : op->name + ".v" + std::to_string(v);
  }

  const Schedule &s_;
  const EffectiveBodies &bodies_;
  const ScheduleBounds &bounds_;
  std::unordered_map<const StageNode *, std::vector<std::vector<Stage>>> attached_;
};

// Two stages that share an IterVar (one reduce_axis given to two computes) loop over one
// variable; with one computed inside the other, the inner loop would overwrite the outer
// loop's counter and compute garbage.
void check_loops_nest_distinct_axes(const Stmt &body) {
  struct Checker : IRVisitor {
    std::unordered_set<const VarNode *> open;
    using IRVisitor::visit;
    void visit(const ForNode *op) override {
      TIR_USER_CHECK(open.insert(op->loop_var.get()).second)
          << "a loop over axis '" << op->loop_var.name() << "' is nested in another loop over the same axis: two "
          << "stages share the IterVar '" << op->loop_var.name() << "' (a reduce_axis given to two computes?) and "
          << "one is computed inside the other; give each compute its own reduce_axis";
      IRVisitor::visit(op);
      open.erase(op->loop_var.get());
    }
  } checker;
  checker.visit(body);
}

// A split by a factor (or into a number of parts) known only at run time: a call with one
// of 0 or less would run no iteration and leave the result unwritten (unless the axis is
// empty then). The calls of targets whose kernels can fail check it first; the GPU
// targets drop the check (drop_asserts).
Stmt check_split_factors(const Schedule &s, const ScheduleBounds &bounds, Stmt body) {
  for (const Stage &st : s.stages()) {
    if (st->attach_type == AttachType::Inline) continue;  // runs no loops of its own
    for (const IterVarRelation &rel : st->relations) {
      if (!rel->is_split()) continue;
      const Expr &f = rel->factor.defined() ? rel->factor : rel->nparts;
      if (as_const_int(f)) continue;
      const char *what = rel->factor.defined() ? "factor" : "number of parts";
      Expr ok = f > make_zero(f.type());
      // A root stage's extents name only shapes; an attached one's may name the loops
      // around it, which do not exist where the check runs.
      auto it = bounds.ranges.find(rel->parent.get());
      if (st->attach_type == AttachType::Root && it != bounds.ranges.end())
        ok = ok || it->second.extent <= make_zero(it->second.extent.type());
      body = AssertStmtNode::make(ok,
                                  "stage '" + st->op->name + "': axis '" + rel->parent.name() + "' is split by the " +
                                      what + " " + to_string(f) + ", which must be at least 1 in every call",
                                  body);
    }
  }
  return body;
}
}  // namespace

Stmt schedule_ops(const Schedule &s, const EffectiveBodies &bodies, const ScheduleBounds &bounds) {
  Stmt body = NestBuilder(s, bodies, bounds).build();
  if (!body.defined()) return EvaluateNode::make(0);
  check_loops_nest_distinct_axes(body);
  return check_split_factors(s, bounds, body);
}

}  // namespace tensorir
