// Loop transformations and attach points of a Stage; each records a relation or a mark
// that bound inference and schedule_ops read later.
#include <algorithm>
#include <unordered_set>

#include "tensorir/arith/simplify.h"
#include "tensorir/ir/op.h"
#include "tensorir/ir/printer.h"
#include "tensorir/te/schedule.h"

namespace tensorir {

namespace {
std::string stage_name(const StageNode *n) { return n->op->name; }

void check_factor(const Expr &f, const StageNode *n, const IterVar &axis, const char *what) {
  TIR_USER_CHECK(f.defined() && f.type().is_int_or_uint() && f.type().is_scalar())
      << "stage '" << stage_name(n) << "': the " << what << " of split(" << axis.name() << ") must be an integer";
  const int64_t *v = as_const_int(f);
  TIR_USER_CHECK(!v || *v > 0) << "stage '" << stage_name(n) << "': the " << what << " of split("
                               << axis.name() << ") must be positive, not " << *v;
  // Loops count in 32 bits: a larger factor (an int64 knob value, say) would wrap.
  TIR_USER_CHECK(!v || *v <= INT32_MAX) << "stage '" << stage_name(n) << "': the " << what << " of split("
                                        << axis.name() << ") is " << *v << ", above 2147483647, the largest loop "
                                        << "extent compiled code counts to";
}

IterVar derived(const IterVar &parent, const std::string &suffix) {
  return IterVar::make(Range(), Var(parent.name() + suffix), parent.iter_type());
}

// Whether `op` reads `target`, directly or through other operations.
bool depends_on(const Operation &op, const OperationNode *target, std::unordered_set<const OperationNode *> &seen) {
  for (const Tensor &t : op->input_tensors()) {
    if (t.op().get() == target) return true;
    if (seen.insert(t.op().get()).second && depends_on(t.op(), target, seen)) return true;
  }
  return false;
}
}  // namespace

size_t Stage::leaf_index(const IterVar &axis, const char *primitive) const {
  TIR_USER_CHECK(n_.defined()) << primitive << ": undefined stage";
  TIR_USER_CHECK(n_->op.as<ComputeOpNode>())
      << primitive << ": '" << stage_name(n_.get()) << "' is a placeholder and has no loops to schedule";
  TIR_USER_CHECK(axis.defined()) << primitive << " on stage '" << stage_name(n_.get()) << "': undefined axis";
  const auto &leaves = n_->leaf_iter_vars;
  auto it = std::find_if(leaves.begin(), leaves.end(), [&](const IterVar &v) { return v.same_as(axis); });
  if (it != leaves.end()) return static_cast<size_t>(it - leaves.begin());
  const auto &all = n_->all_iter_vars;
  bool was_here = std::any_of(all.begin(), all.end(), [&](const IterVar &v) { return v.same_as(axis); });
  TIR_USER_CHECK(!was_here) << primitive << " on stage '" << stage_name(n_.get()) << "': axis '" << axis.name()
                            << "' was already split or fused; use the axes that split/fuse returned";
  TIR_THROW() << primitive << " on stage '" << stage_name(n_.get()) << "': axis '" << axis.name()
              << "' is not an axis of this stage (it belongs to another tensor); use "
              << stage_name(n_.get()) << ".axis(i), .reduce_axis(i) or axes returned by this stage's split/fuse";
}

// Axes are copied first: callers may pass references into leaf_iter_vars, which changes.
std::pair<IterVar, IterVar> Stage::split(const IterVar &axis_ref, Expr factor) {
  const IterVar axis = axis_ref;
  return add_split(axis, leaf_index(axis, "split"), std::move(factor), Expr());
}

std::pair<IterVar, IterVar> Stage::split_by_nparts(const IterVar &axis_ref, Expr nparts) {
  const IterVar axis = axis_ref;
  return add_split(axis, leaf_index(axis, "split_by_nparts"), Expr(), std::move(nparts));
}

// Records parent -> (outer, inner); exactly one of factor and nparts is defined.
std::pair<IterVar, IterVar> Stage::add_split(const IterVar &axis, size_t pos, Expr factor, Expr nparts) {
  check_factor(factor.defined() ? factor : nparts, n_.get(), axis, factor.defined() ? "factor" : "number of parts");
  // In the axis's own integer type: a factor of another width (an int64_t knob value)
  // would meet the extent in mixed-type arithmetic when the loops are bounded.
  const Type index = axis.var().type();
  if (factor.defined() && factor.type() != index) factor = simplify(cast(index, factor));
  if (nparts.defined() && nparts.type() != index) nparts = simplify(cast(index, nparts));
  auto *rel = new IterVarRelationNode();
  rel->kind = IterVarRelationNode::Split;
  rel->parent = axis;
  rel->outer = derived(axis, ".outer");
  rel->inner = derived(axis, ".inner");
  rel->factor = std::move(factor);
  rel->nparts = std::move(nparts);
  n_->relations.emplace_back(rel);
  n_->all_iter_vars.push_back(rel->outer);
  n_->all_iter_vars.push_back(rel->inner);
  n_->leaf_iter_vars[pos] = rel->inner;
  n_->leaf_iter_vars.insert(n_->leaf_iter_vars.begin() + static_cast<long>(pos), rel->outer);
  return {rel->outer, rel->inner};
}

std::tuple<IterVar, IterVar, IterVar, IterVar> Stage::tile(const IterVar &x_ref, const IterVar &y_ref,
                                                           Expr x_factor, Expr y_factor) {
  const IterVar x = x_ref, y = y_ref;
  auto [xo, xi] = split(x, std::move(x_factor));
  auto [yo, yi] = split(y, std::move(y_factor));
  reorder({xo, yo, xi, yi});
  return {xo, yo, xi, yi};
}

IterVar Stage::fuse(const IterVar &outer_ref, const IterVar &inner_ref) {
  const IterVar outer = outer_ref, inner = inner_ref;
  size_t po = leaf_index(outer, "fuse"), pi = leaf_index(inner, "fuse");
  TIR_USER_CHECK(pi == po + 1) << "fuse on stage '" << stage_name(n_.get()) << "': axis '" << outer.name()
                               << "' must be the loop directly outside '" << inner.name()
                               << "'; reorder them first";
  bool ro = outer.iter_type() == IterVarType::Reduce, ri = inner.iter_type() == IterVarType::Reduce;
  TIR_USER_CHECK(ro == ri) << "fuse on stage '" << stage_name(n_.get()) << "': cannot fuse reduction axis '"
                           << (ro ? outer.name() : inner.name()) << "' with data-parallel axis '"
                           << (ro ? inner.name() : outer.name()) << "'";
  auto *rel = new IterVarRelationNode();
  rel->kind = IterVarRelationNode::Fuse;
  rel->outer = outer;
  rel->inner = inner;
  rel->fused = IterVar::make(Range(), Var(outer.name() + "." + inner.name() + ".fused"), outer.iter_type());
  n_->relations.emplace_back(rel);
  n_->all_iter_vars.push_back(rel->fused);
  n_->leaf_iter_vars[po] = rel->fused;
  n_->leaf_iter_vars.erase(n_->leaf_iter_vars.begin() + static_cast<long>(pi));
  return rel->fused;
}

Stage &Stage::reorder(const std::vector<IterVar> &order_ref) {
  const std::vector<IterVar> order = order_ref;
  std::vector<size_t> pos;
  for (size_t a = 0; a < order.size(); ++a) {
    for (size_t b = 0; b < a; ++b)
      TIR_USER_CHECK(!order[a].same_as(order[b])) << "reorder on stage '" << stage_name(n_.get()) << "': axis '"
                                                  << order[a].name() << "' appears twice";
    pos.push_back(leaf_index(order[a], "reorder"));
  }
  std::vector<size_t> slots = pos;
  std::sort(slots.begin(), slots.end());
  auto leaves = n_->leaf_iter_vars;
  for (size_t a = 0; a < order.size(); ++a) leaves[slots[a]] = order[a];
  n_->leaf_iter_vars = leaves;
  return *this;
}

Stage &Stage::compute_at(const Stage &parent, const IterVar &axis) {
  TIR_USER_CHECK(n_.defined() && parent.defined()) << "compute_at: undefined stage";
  const std::string me = stage_name(n_.get()), them = stage_name(parent.get());
  TIR_USER_CHECK(n_->op.as<ComputeOpNode>()) << "compute_at: '" << me << "' is a placeholder; it is not computed";
  TIR_USER_CHECK(!n_->is_output) << "compute_at: '" << me << "' is an output of the schedule; outputs are computed at root";
  TIR_USER_CHECK(parent.get() != n_.get()) << "compute_at: stage '" << me << "' cannot be computed inside itself";
  TIR_USER_CHECK(parent->schedule_id == n_->schedule_id)
      << "compute_at: stages '" << me << "' and '" << them << "' belong to different schedules (another "
      << "create_schedule, or a Schedule::copy); pass the stage of '" << them << "' from the schedule of '" << me
      << "': s[" << me << "].compute_at(s[" << them << "], axis) with the same s";
  parent.leaf_index(axis, "compute_at");
  std::unordered_set<const OperationNode *> seen;
  TIR_USER_CHECK(!depends_on(n_->op, parent.op().get(), seen))
      << "compute_at: '" << me << "' reads '" << them << "', so it cannot be computed inside '" << them
      << "' (that would make a cycle); compute '" << them << "' inside '" << me << "' instead";
  for (const StageNode *p = parent.get(); p; p = p->attach_type == AttachType::Scope ? p->attach_stage.get() : nullptr)
    TIR_USER_CHECK(p != n_.get()) << "compute_at: '" << them << "' is already computed inside '" << me
                                  << "'; computing '" << me << "' inside it would make a cycle";
  n_->attach_type = AttachType::Scope;
  n_->attach_stage = Ref<StageNode>(parent.get());
  n_->attach_ivar = axis;
  return *this;
}

Stage &Stage::compute_inline() {
  TIR_USER_CHECK(n_.defined()) << "compute_inline: undefined stage";
  auto *c = n_->op.as<ComputeOpNode>();
  TIR_USER_CHECK(c) << "compute_inline: '" << stage_name(n_.get()) << "' is a placeholder";
  TIR_USER_CHECK(!n_->is_output) << "compute_inline: '" << stage_name(n_.get())
                                 << "' is an output of the schedule and cannot be inlined";
  TIR_USER_CHECK(c->reduce_axis.empty()) << "compute_inline: '" << stage_name(n_.get())
                                         << "' is a reduction; only element-wise stages can be inlined";
  n_->attach_type = AttachType::Inline;
  return *this;
}

Stage &Stage::compute_root() {
  TIR_USER_CHECK(n_.defined()) << "compute_root: undefined stage";
  n_->attach_type = AttachType::Root;
  n_->attach_stage = nullptr;
  n_->attach_ivar = IterVar();
  return *this;
}

Stage &Stage::set_kind(const IterVar &axis, ForKind kind, const char *primitive) {
  leaf_index(axis, primitive);
  // A loop is one of parallel, vectorized or unrolled: a second, different kind would
  // silently replace the first.
  static const char *const past[] = {"serial", "parallel", "vectorized", "unrolled"};
  const auto old = n_->loop_kind.find(axis.get());
  TIR_USER_CHECK(old == n_->loop_kind.end() || old->second == kind)
      << primitive << " on stage '" << stage_name(n_.get()) << "': loop '" << axis.name() << "' is "
      << past[int(old->second)] << " already, and a loop has one kind; split it and give each part its own";
  n_->loop_kind[axis.get()] = kind;
  return *this;
}

IterVar thread_axis(const std::string &tag) {
  static const char *tags[] = {"blockIdx.x", "blockIdx.y", "blockIdx.z", "threadIdx.x", "threadIdx.y", "threadIdx.z"};
  bool known = std::any_of(std::begin(tags), std::end(tags), [&](const char *t) { return tag == t; });
  TIR_USER_CHECK(known) << "thread_axis: unknown thread index '" << tag
                        << "'; use blockIdx.x/y/z or threadIdx.x/y/z";
  return IterVar::make(Range(), Var(tag), IterVarType::ThreadIndex, tag);
}

Stage &Stage::bind(const IterVar &axis, const IterVar &thread) {
  leaf_index(axis, "bind");
  TIR_USER_CHECK(thread.defined() && thread.iter_type() == IterVarType::ThreadIndex)
      << "bind on stage '" << stage_name(n_.get()) << "': the second argument must come from thread_axis(\"...\")";
  TIR_USER_CHECK(axis.iter_type() != IterVarType::Reduce)
      << "bind on stage '" << stage_name(n_.get()) << "': reduction axis '" << axis.name()
      << "' cannot be bound to a thread index (use rfactor first)";
  for (const auto &[iv, t] : n_->bound_threads)
    TIR_USER_CHECK(iv == axis.get() || t->thread_tag != thread->thread_tag)
        << "bind on stage '" << stage_name(n_.get()) << "': thread index '" << thread->thread_tag
        << "' is already bound to another axis of this stage; bind each thread index once";
  n_->bound_threads[axis.get()] = thread;
  return *this;
}

Stage &Stage::prefetch(const Tensor &tensor, const IterVar &axis, int offset) {
  leaf_index(axis, "prefetch");
  TIR_USER_CHECK(tensor.defined()) << "prefetch on stage '" << stage_name(n_.get()) << "': undefined tensor";
  TIR_USER_CHECK(offset >= 1) << "prefetch on stage '" << stage_name(n_.get()) << "': offset " << offset
                              << " of tensor '" << tensor.name()
                              << "' must be at least 1 (the number of iterations of '" << axis.name()
                              << "' ahead to fetch)";
  for (PrefetchSpec &p : n_->prefetches)
    if (p.axis.same_as(axis) && p.tensor == tensor) {
      p.offset = offset;  // asked again: the last offset holds
      return *this;
    }
  n_->prefetches.push_back({tensor, axis, offset});
  return *this;
}

Stage &Stage::vectorize(const IterVar &axis) {
  // Vector lanes of vector lanes have no code: one loop of a nest is vectorized.
  for (const IterVar &leaf : n_->leaf_iter_vars) {
    const auto kind = n_->loop_kind.find(leaf.get());
    TIR_USER_CHECK(leaf.get() == axis.get() || kind == n_->loop_kind.end() || kind->second != ForKind::Vectorized)
        << "vectorize on stage '" << stage_name(n_.get()) << "': loop '" << leaf.name()
        << "' is vectorized already and a stage vectorizes one loop; fuse the two loops and vectorize the fused one";
  }
  return set_kind(axis, ForKind::Vectorized, "vectorize");
}
Stage &Stage::unroll(const IterVar &axis) { return set_kind(axis, ForKind::Unrolled, "unroll"); }
Stage &Stage::parallel(const IterVar &axis) {
  TIR_USER_CHECK(axis.defined() && axis.iter_type() != IterVarType::Reduce)
      << "parallel on stage '" << stage_name(n_.get()) << "': axis '" << (axis.defined() ? axis.name() : "?")
      << "' is a reduction axis; parallel iterations would race on the same output (use rfactor first)";
  return set_kind(axis, ForKind::Parallel, "parallel");
}

}  // namespace tensorir
