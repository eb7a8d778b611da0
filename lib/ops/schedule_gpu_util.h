// Shared by the GPU compute schedules (schedule_*_gpu.cpp): work-group sizes within the
// target's limits, and the register tile every output-blocked schedule uses.
#pragma once
#include <cstdint>
#include <vector>

#include "tensorir/error.h"
#include "tensorir/target.h"
#include "tensorir/te/schedule.h"

namespace tensorir::ops::gpu {

// The most invocations a schedule puts in one work-group: the target's limit, capped at
// 256 (enough SIMD lanes on a CPU driver, several groups per core on a GPU).
int group_limit(const Target &target);
// The largest divisor of n that is at most cap (1 at least): tiles that divide their
// extent need no guards, so accumulator stages never read past the inputs.
int64_t divisor_at_most(int64_t n, int64_t cap);
// The first of `candidates` that divides n (1 when none does).
int64_t first_divisor(int64_t n, std::initializer_list<int64_t> candidates);
// Inlines every stage of `s` without a reduction other than those of `keep` (pads before
// the anchor, the element-wise tail between the anchor and the group's result).
void inline_others(Schedule &s, const std::vector<Tensor> &keep);

// Binds `axis` of `st` to work-groups of `threads` invocations (blockIdx.x, and
// threadIdx.x when threads > 1); returns the innermost bound axis, one iteration per
// invocation.
IterVar bind_groups(Stage st, const IterVar &axis, int64_t threads);
// Fuses every axis of `t`'s stage and binds it by bind_groups; returns the innermost
// bound axis.
IterVar bind_flat(Schedule &s, const Tensor &t, int64_t threads);

// How one output axis is tiled: `block` iterations over work-groups, `threads`
// invocations, `reg` consecutive elements in each invocation's registers, of which the
// innermost `vector` (a divisor of reg; the last axis only) are one vector.
struct AxisTile {
  int64_t threads = 1, reg = 1, vector = 1;
};
// The float32 lanes of the vectors a work-item computes (TargetCaps::
// work_item_vector_lanes), or 0 when the schedules use many work-items instead.
int vector_lanes(const Target &target);
// The lanes of vectors along an extent `n`: the largest power of two up to `lanes` that
// divides it, when at least 4; else 0 (scalars).
int64_t vector_dividing(int64_t n, int64_t lanes);
// Computes the anchor `op` into a local register tile inside the loops of `out` (its
// result or the end of an element-wise tail after it, which is inlined there). `tiles`
// has one entry per axis of `out`: an axis with threads > 1 binds to threadIdx, the last
// such to x; blocks bind to blockIdx, the leading axes without threads fused into z.
// Returns the accumulator tensor, whose reduction loops the caller orders.
Tensor tile_into_registers(Schedule &s, const Tensor &op, const Tensor &out, const std::vector<AxisTile> &tiles);

}  // namespace tensorir::ops::gpu
