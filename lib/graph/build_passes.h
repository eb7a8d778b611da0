// The graph passes graph::build runs before compiling, shared with autotune::extract_tasks
// so that tasks are the workloads build compiles.
#pragma once
#include "tensorir/autotune/record.h"
#include "tensorir/graph/executor.h"
#include "tensorir/graph/graph.h"

namespace tensorir::graph {

// The passes `options` selects for `target`, in build's order. The CPU layout passes
// pack each convolution and dense in the blocks of its workload's configuration in
// `tuning` (null, or a workload it lacks: the fallback blocks).
Graph build_passes(const Graph &g, const Target &target, const BuildOptions &options,
                   const autotune::ApplyHistoryBest *tuning);

}  // namespace tensorir::graph
