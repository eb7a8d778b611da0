// Internal to the fragment backend: the GLSL ES 3.00 text of one pass, and the split of
// long reductions.
#pragma once
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "backends/glsl/fragment/codegen_fragment.h"
#include "ops/schedule_fragment.h"
#include "tensorir/te/tensor.h"

namespace tensorir::glsl {

// (producing operation, value index) -> index into FragmentPlan::tensors.
using TensorIndex = std::map<std::pair<const Object *, int>, int>;

// Generates the pass that computes tensor `out` (value `value_index` of `op`) from its
// effective body (inlined stages substituted, replaced operations resolved).
// With `phases` (the phase tensors of `out`, FragmentTensor::phases of them), each fragment
// computes that many neighbouring texels of a row of `out`, one into each phase tensor.
// Reduction loops unroll up to `max_unrolled` source evaluations (FragmentOptions).
FragmentPass emit_fragment_pass(const FragmentPlan &plan, const TensorIndex &tensors,
                                const ComputeOpNode *op, int value_index, const Expr &body, int out,
                                const std::vector<int> &phases = {}, int64_t max_unrolled = kMaxUnrolled);

// Reductions that may run longer than `chunk` iterations per element
// (FragmentOptions::reduce_chunk) are split in two passes (Mesa's llvmpipe stops a
// shader invocation after 65535 loop iterations in all, and many short reductions also
// run in parallel better than a few long ones): `partial` has one more, trailing
// dimension of `chunks` elements, each the reduction over `chunk` consecutive
// iterations (flattened over the reduction axes, in order); `final_bodies` reduce those
// partial results.
struct ReductionSplit {
  Operation partial;
  std::vector<Expr> final_bodies;
  Expr chunks;
};
// The reduction's iteration count, bounded over the output's axes (its extents may
// depend on them); undefined when unbounded.
Expr reduction_bound(const ComputeOpNode *op, const ReduceNode *r);
ReductionSplit split_reduction(const ComputeOpNode *op, const std::vector<Expr> &bodies, const Expr &bound,
                               int64_t chunk = kReduceChunk);

// The helper functions named in `used` ("tir_floordiv", "tir_erf", ...), in a fixed order.
std::string fragment_helpers(const std::set<std::string> &used);

// A GLSL identifier stem from a user-given name: letters, digits and single underscores,
// never a reserved prefix, at most 24 characters.
std::string glsl_stem(const std::string &name);

// Inside select(c, t, f), t runs only where c holds: a clamp min(max(a, lo), hi) of an
// index that c already bounds to [lo, hi] is `a` there (a padded convolution reads
// through such clamps). Without them the index stays affine, so its texel and channel
// can be worked out statically.
Expr remove_guarded_clamps(const Expr &e);
// The one reduction inside a body (ops/schedule_fragment.h: the webgl knobs ask it too).
using ops::single_reduction;
// `e` with the node `from` (by identity) replaced by `to`.
Expr replace_node(const Expr &e, const Object *from, const Expr &to);

// The GLSL type of a scalar IR type, or an Error naming `where`.
std::string fragment_type(Type t, const std::string &where);

}  // namespace tensorir::glsl
