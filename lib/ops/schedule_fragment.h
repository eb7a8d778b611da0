// The schedule of a kernel on "webgl", with knobs for the fragment planner.
#pragma once
#include "tensorir/autotune/config.h"
#include "tensorir/target.h"
#include "tensorir/te/schedule.h"

namespace tensorir::ops {

// schedule_generic({out}) (a fragment computes whole texels: loop transformations do not
// apply), and knobs named after the webgl target's options, which graph::build and the
// tuner give the kernel as its target's options (autotune::kernel_target), so that the
// fragment planner plans this kernel with them:
//   "draw-buffers"  texels of a row one fragment computes, each into its render target
//                   (1, 2, 4 or 8, by default the target's -draw-buffers: a tuned
//                   kernel may use 8 where the target's default is 4);
//                   declared where a reduction has a read those texels share (weights)
//                   and a result in whole texels along its last axis (channel blocks);
//   "unroll"        the unroll budget of reduction loops (default 256);
//   "reduce-chunk"  reductions longer than this per element split into partial passes,
//                   many short reductions in parallel (default 16384).
// A knob is declared only where its choices can give different plans (from the longest
// reduction among the kernel's stages). The fallbacks are the planner's defaults.
Schedule schedule_fragment(const Tensor &out, const Target &target, autotune::Config *cfg);

// The knobs above for a kernel whose longest reduction has `longest` iterations per
// element and, with `shared_read`, a read its row's texels share.
void define_fragment_knobs(autotune::Config &cfg, const Target &target, int64_t longest, bool shared_read);

// The one reduction inside a stage's body (a top-level one, or one under an element-wise
// epilogue fused into it); null when there is none or more than one. The fragment
// planner asks the same of each pass it emits.
const ReduceNode *single_reduction(const Expr &body);

}  // namespace tensorir::ops
