// What lowering knows about a schedule between bound inference and the loop nest.
#pragma once
#include <unordered_map>
#include <vector>

#include "tensorir/te/schedule.h"

namespace tensorir {

using IterRanges = std::unordered_map<const IterVarNode *, Range>;
using RealizeBounds = std::unordered_map<const OperationNode *, std::vector<Range>>;
// The body of each compute after inlining the stages marked compute_inline.
using EffectiveBodies = std::unordered_map<const OperationNode *, std::vector<Expr>>;

struct ScheduleBounds {
  IterRanges ranges;      // every iter var of every stage
  RealizeBounds realize;  // the region of each computed (non-inlined) tensor
};

// Operations in producer-before-consumer order.
std::vector<Operation> post_dfs_order(const std::vector<Tensor> &outputs);

// A fresh stage of the schedule numbered `schedule_id`, the operation's axes its loops.
Stage make_stage(const Operation &op, uint64_t schedule_id);
// A compute like `c` (same axes, name and shape) with another body.
Operation with_body(const ComputeOpNode *c, std::vector<Expr> body, bool keep_reduce_axis);
// Reads of any operation in `map` read the mapped one instead.
Expr replace_loads(const Expr &e, const std::unordered_map<const OperationNode *, Operation> &map);

// Substitutes the bodies of inlined stages into their readers.
EffectiveBodies inline_stages(const Schedule &s);

// Ranges of all derived iter vars from the ranges of the root ones (split/fuse relations).
void derive_ranges(const Stage &stage, IterRanges &ranges);
// The value of every iter var of the stage in terms of its leaf loop variables.
std::unordered_map<const IterVarNode *, Expr> iter_values(const Stage &stage, const IterRanges &ranges);
// The axes descending from `roots` that a split divides again without covering them
// exactly (the parts' extents multiply to more than the axis's): the loops then run past
// the axis's extent, which the root's own range need not show (a split by 3 of a split
// part of extent 3 by 2), so each needs a guard of its own.
std::vector<IterVar> overrun_axes(const Stage &stage, const IterRanges &ranges, const std::vector<IterVar> &roots);
// An Error when one of `stages` is computed at a loop of `st`: `what` ("cache_write of
// 'C'") is about to give st's computation to a new stage, which then reads that stage.
void check_nothing_attached(const std::vector<Stage> &stages, const Stage &st, const std::string &what);
// The leaf index (0-based position in leaf_iter_vars) of the attach axis; -1 for root.
int attach_level(const Stage &stage);

// Bound inference: the region each producer must compute, and every loop's range.
ScheduleBounds infer_bounds(const Schedule &s, const EffectiveBodies &bodies);

// What replaces a tensorized stage's inner loops (see Stage::tensorize).
struct TensorizePlan {
  size_t pos = 0;  // leaf index of the tensorize axis
  Stmt body, reset, update;
};
TensorizePlan plan_tensorize(const Stage &stage, const std::vector<Expr> &body, const IterRanges &ranges);

// Binds the loops of every root stage that binds none (see lib/build.cpp for when).
void apply_default_gpu_schedule(const Schedule &s, int threads_per_group = 64);

// Builds the loop nest of the whole schedule, with Realize/Provide/TensorLoad nodes.
Stmt schedule_ops(const Schedule &s, const EffectiveBodies &bodies, const ScheduleBounds &bounds);

}  // namespace tensorir
