// What decides the kernel of a fused group, as a string: two groups with equal keys
// compile to the same code, so graph::build compiles one and both call it.
#pragma once
#include <string>
#include <vector>

#include "tensorir/graph/graph.h"
#include "tensorir/target.h"

namespace tensorir::graph {

// The group `nodes` of `g` (in order, its result last), led by `lead`, for `target` with
// or without the tuned strategies: every node's operator, attributes, shape and element
// type, where each of its inputs comes from (an earlier node of the group, or the n-th
// argument, with the argument's shape and type), which node leads. Node names and ids are
// left out; constants are arguments, so their values are too.
std::string kernel_key(const Graph &g, const std::vector<int> &nodes, int lead, const Target &target, bool tuned);

}  // namespace tensorir::graph
