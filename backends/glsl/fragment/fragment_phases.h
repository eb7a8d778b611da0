// The phases of a fragment pass: several neighbouring texels of a row computed by one
// fragment into as many render targets (FragmentTensor::phases), so that the reads they
// share are fetched once, then interleaved back into the tensor's own layout.
#pragma once
#include <cstdint>
#include <vector>

#include "backends/glsl/fragment/codegen_fragment_emit.h"

namespace tensorir::glsl {

// How many texels of a row of `out` one fragment of this body's pass should compute (a
// power of two up to max_phases and the row's length): more than 1 when the pass is a
// reduction whose loops all texels of a row share and some of its reads do not move
// along the row (they are then fetched once for all). The texels are neighbours along
// the row's innermost axis of more than one element, so that reads at offsets from them
// coincide too; past its end (when the phases do not divide it) a fragment computes
// texels that are never read.
int choose_phases(const FragmentPlan &plan, const ComputeOpNode *op, const Expr &body, int out, int max_phases);

// The texels of each of `phases` phase tensors of `t` (FragmentTensor::phase_texels).
int64_t phase_texel_count(const FragmentTensor &t, int phases);

// The pass that interleaves the phase tensors of `out` into it.
FragmentPass emit_interleave_pass(const FragmentPlan &plan, const std::vector<int> &phases, int out);

}  // namespace tensorir::glsl
