// Which input of a fused kernel its result may overwrite (StorageStep::in_place).
#pragma once
#include <vector>

#include "tensorir/graph/graph.h"

namespace tensorir::graph {

// The index into `args` (the inputs of the kernel of `nodes`, its result last) of an
// input that the kernel reads only at each element's own index, before it writes that
// element of the result: of the result's shape and dtype, read once, by one node of the
// group, from which element-wise and broadcast nodes of the result's shape lead to the
// result. Element i of the result is then computed from element i of the input alone,
// so the result may take the input's storage where the input dies. -1 when none does.
int in_place_candidate(const Graph &g, const std::vector<int> &nodes, const std::vector<int> &args);

}  // namespace tensorir::graph
