// The graph passes graph::build runs before compiling, shared with autotune::extract_tasks
// so that tasks are the workloads build compiles.
#pragma once
#include "tensorir/autotune/record.h"
#include "tensorir/graph/executor.h"
#include "tensorir/graph/graph.h"

namespace tensorir::graph {

// The passes `options` selects for `target`, in build's order, in two parts: those that
// read no tuning records (constant and batch-norm folding, the convolution layouts),
// which hold most of the time, and those that do (Winograd and the dense layout by each
// workload's configuration in `tuning`, null or a workload it lacks: the fallback; dead
// nodes, storage types). build checks a log against the tasks of the first part's graph
// and runs the second on it, so that the first runs once.
Graph layout_passes(const Graph &g, const Target &target, const BuildOptions &options);
Graph tuning_passes(Graph laid_out, const Target &target, const BuildOptions &options,
                    const autotune::ApplyHistoryBest *tuning);

}  // namespace tensorir::graph
