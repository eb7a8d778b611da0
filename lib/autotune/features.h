// A fixed-length feature vector of a lowered kernel, for the cost model: AutoTVM's
// per-loop features, simplified. All counts are log2(1 + x); all entries are floats.
// config_features lowers without unrolling (LowerOptions::unroll), so a register tile's
// unrolled loops count as loops, with their extents and strides.
//
// Layout (kFeatureLength = 65). The "main store" is the store executed most often; its
// enclosing loops (innermost first) and the buffers accessed most often describe the
// kernel's hot loop nest.
//   [0, 16)  global:
//            0 loops, 1 deepest nesting, 2 product of the parallel loops' extents around
//            the main store, 3 parallel loops, 4 widest vector (lanes) of a load or store,
//            5 extent of the main store's innermost loop, 6 stores in that loop's body,
//            7-12 operations executed (each counted by its trip count and lanes): float
//            add/sub, float mul, float div/mod, float min/max/compare/select, integer
//            arithmetic, calls; 13 trip count of the main store, 14 bytes of temporary
//            allocations, 15 distinct buffers
//   [16, 41) the main store's 5 innermost loops, innermost first, 5 entries each:
//            extent, parallel (0/1), the stride of the first 3 buffer slots' accesses along
//            that loop (elements; 0 when the access does not move: reuse)
//   [41, 65) 4 buffer slots (the buffers accessed most often, most first), 6 entries each:
//            accesses, bytes touched within the 3 innermost loops of its most frequent
//            access, reuse there (accesses per distinct element), stride along the
//            innermost loop, vector lanes (not a log), written (0/1)
// Missing loops and buffers are zeros.
#pragma once
#include <vector>

#include "tensorir/autotune/task.h"
#include "tensorir/lower.h"

namespace tensorir::autotune {

inline constexpr int kGlobalFeatures = 16;
inline constexpr int kLoopSlots = 5, kLoopFeatures = 5, kStrideBuffers = 3;
inline constexpr int kBufferSlots = 4, kBufferFeatures = 6;
inline constexpr int kFeatureLength = kGlobalFeatures + kLoopSlots * kLoopFeatures + kBufferSlots * kBufferFeatures;

std::vector<float> extract_features(const LoweredFunc &func);

// The cost model's input for configurations `indices` of `task`, lowered on up to
// `threads` threads: extract_features of each, zeros where it does not lower (its
// measurement records why), followed by the choice (an index) of each knob that is an
// option of the task's target kind, such as webgl's "draw-buffers": the backend plans
// the kernel from those, so the loop nest is the same for all their values.
std::vector<std::vector<float>> config_features(const Task &task, const std::vector<int64_t> &indices, int threads);

}  // namespace tensorir::autotune
