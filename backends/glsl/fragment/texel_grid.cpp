// Texel grids of fragment tensors (texel_grid.h).
#include "backends/glsl/fragment/texel_grid.h"

#include <algorithm>

#include "tensorir/arith/simplify.h"
#include "tensorir/ir/op.h"

namespace tensorir::glsl {

Expr numel_expr(const std::vector<Expr> &shape) {
  Expr n = IntImmNode::make(Int(32), 1);
  for (const Expr &d : shape) n = n * tensorir::cast(Int(32), d);
  return simplify(n);
}

int merged_dim(const FragmentTensor &t) {
  if (!t.packed) return static_cast<int>(t.shape.size());
  int64_t p = 1;
  for (size_t d = t.shape.size(); d-- > 0;) {
    const int64_t *v = as_const_int(t.shape[d]);
    if (!v) return -1;
    p *= *v;
    if (p % 4 == 0) return static_cast<int>(d);
  }
  return -1;
}

std::vector<Expr> grid_shape(const FragmentTensor &t) {
  if (!t.packed) return t.shape;
  int m = merged_dim(t);
  if (m < 0) return {simplify((numel_expr(t.shape) + 3) / 4)};
  std::vector<Expr> g(t.shape.begin(), t.shape.begin() + m);
  g.push_back(simplify(numel_expr(std::vector<Expr>(t.shape.begin() + m, t.shape.end())) / 4));
  return g;
}

int row_split(const FragmentTensor &t) {
  if (t.const_width <= 0) return -1;
  std::vector<Expr> shape = grid_shape(t);
  int64_t p = 1;
  for (size_t d = shape.size(); d-- > 0;) {
    const int64_t *v = as_const_int(shape[d]);
    if (!v) return -1;
    p *= *v;
    if (p == t.const_width) return static_cast<int>(d);
    if (p > t.const_width) return -1;
  }
  return shape.empty() && t.const_width == 1 ? 0 : -1;
}

bool rows_are_subtensors(const FragmentTensor &t) {
  int split = row_split(t);
  return split >= 0 && (!t.packed || merged_dim(t) == static_cast<int>(t.shape.size()) - 1);
}

int row_axis(const FragmentTensor &t) {
  int split = row_split(t);
  std::vector<Expr> shape = grid_shape(t);
  for (int d = static_cast<int>(shape.size()); d-- > std::max(split, 0);) {
    const int64_t *v = as_const_int(shape[static_cast<size_t>(d)]);
    if (!v) return -1;
    if (*v != 1) return d;
  }
  return -1;
}

PhaseGrid phase_grid(const FragmentTensor &t, int phases) {
  const int along = row_axis(t);
  TIR_ASSERT(along >= 0 && rows_are_subtensors(t)) << "phases of " << t.name;
  std::vector<Expr> shape = grid_shape(t);
  PhaseGrid g;
  g.along = static_cast<size_t>(along);
  g.extent = *as_const_int(shape[g.along]);
  g.steps = (g.extent + phases - 1) / phases;
  g.texels = g.steps;
  for (size_t d = 0; d < shape.size(); ++d)
    if (d != g.along) g.texels *= *as_const_int(shape[d]);
  return g;
}

}  // namespace tensorir::glsl
