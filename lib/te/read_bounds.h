// Definition-time check that a compute reads its inputs inside their shapes.
#pragma once
#include <string>
#include <vector>

#include "tensorir/ir/expr.h"

namespace tensorir {

// Throws an Error naming the compute, the tensor, the axis and the index when a read in
// `body`, with the compute's axes and reductions over their domains, falls outside the
// tensor it reads. Only what is certain is refused: reads under a condition (select,
// if_then_else, a reduction's where-clause, the right side of && and ||) may be guarded,
// and indices whose range interval analysis cannot give exactly (a variable used twice,
// %, a float cast, a read inside an index, a symbolic extent) are left alone.
void check_reads_in_bounds(const std::string &compute_name, const std::vector<IterVar> &axis,
                           const std::vector<Expr> &body);

}  // namespace tensorir
