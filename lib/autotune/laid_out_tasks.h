// Task extraction from a graph the layout passes have run on, for graph::build, which has
// that graph already when it checks a log against the model's templates.
#pragma once
#include <vector>

#include "tensorir/autotune/task.h"
#include "tensorir/graph/executor.h"

namespace tensorir::autotune {

// extract_tasks of the graph graph::layout_passes made with `options` (graph/build_passes.h):
// the tuning passes run on it with `options` and no records, Winograd off.
std::vector<Task> laid_out_tasks(const graph::Graph &laid_out, const Target &target, graph::BuildOptions options);

}  // namespace tensorir::autotune
