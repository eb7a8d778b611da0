// The texel grid of a fragment tensor: how its elements fall into texels (one element,
// or four of a packed tensor) and the texels into the rows of its 2-D texture. The
// shader emitter addresses reads through it; the phases of a pass (fragment_phases.cpp)
// step through a row with it.
#pragma once
#include <cstdint>
#include <vector>

#include "backends/glsl/fragment/codegen_fragment.h"

namespace tensorir::glsl {

// The product of `shape`, simplified, as int32.
Expr numel_expr(const std::vector<Expr> &shape);
// For a packed tensor, the first of the trailing dimensions merged into one dimension
// of texels (packed_texel_shape), or -1 when the texels are flat. Unpacked: the rank.
int merged_dim(const FragmentTensor &t);
// The shape of a tensor's texel grid (packed_texel_shape for packed tensors).
std::vector<Expr> grid_shape(const FragmentTensor &t);
// The first dimension of the trailing dimensions of the texel grid whose size is the
// layout width (so a texel row is one trailing sub-tensor), or -1 when there is none.
int row_split(const FragmentTensor &t);
// The texel rows of `t` are whole trailing sub-tensors of its grid, each texel one
// element or four consecutive ones of the last axis (the layout a fragment's coordinate
// decomposes into axis values without division by the width).
bool rows_are_subtensors(const FragmentTensor &t);
// The innermost grid dimension of a row that is longer than 1, or -1.
int row_axis(const FragmentTensor &t);

// The texels of the phase tensors of `t` (FragmentTensor::phases): the texel grid with
// the row's innermost axis (row_axis) in `steps` steps of `phases`, flattened row-major.
struct PhaseGrid {
  size_t along = 0;    // the grid dimension stepped through
  int64_t extent = 0;  // its extent
  int64_t steps = 0;   // ceil(extent / phases)
  int64_t texels = 0;  // in each phase tensor
};
PhaseGrid phase_grid(const FragmentTensor &t, int phases);

}  // namespace tensorir::glsl
