// Vectors in the OpenCL C dialect of the compute printer: which index expressions are
// vloadN/vstoreN, and which private arrays can be arrays of whole vectors.
#pragma once
#include "tensorir/ir/expr.h"

namespace tensorir::glsl::compute_detail {

// The base of an index of consecutive elements (a Ramp of stride 1), else undefined.
Expr unit_ramp_base(const Expr &index);

// N when every vector load and store of `buffer` in `body` covers N consecutive elements
// from an offset that is a multiple of N, and there is at least one; else 0. Such a
// private array is printed as an array of N-lane vectors, which the OpenCL compiler keeps
// in registers (a flat array read with vloadN it keeps in memory).
int whole_vector_lanes(const Stmt &body, const VarNode *buffer);

}  // namespace tensorir::glsl::compute_detail
