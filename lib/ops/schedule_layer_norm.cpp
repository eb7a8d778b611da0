// CPU schedule for layer_norm: three parallel passes over rows (the sums, the sums of
// squared deviations, which read the means, and the result, which reads both: bound
// inference gives a stage computed inside a loop one reader), the reductions as vectors
// of partial results and the result as vectors.
#include "op_util.h"
#include "schedule_rows.h"
#include "tensorir/ops/schedule.h"

namespace tensorir::ops {

Schedule schedule_layer_norm_llvm(const Tensor &out) {
  Schedule s = schedule_generic({out});
  const Stage ln = detail::tagged(s, "layer_norm");
  std::vector<Stage> stats;
  for (const Stage &st : s.stages()) {
    const auto *c = st.op().as<ComputeOpNode>();
    if (c && c->tag == "reduce") stats.push_back(st);
  }
  const auto *oc = out.op().as<ComputeOpNode>();
  // Normalized over several axes, or statistics the schedule does not know: per stage.
  bool one_axis = stats.size() == 2 && ln.defined() && ln.op().same_as(out.op()) && out.ndim() >= 2;
  for (const Stage &st : stats) one_axis = one_axis && st.op().as<ComputeOpNode>()->reduce_axis.size() == 1;
  if (!one_axis) return schedule_reduce_llvm(out);
  for (const Stage &st : stats) {
    detail::vector_partials(s, st);
    detail::parallel_rows(st, st.op().as<ComputeOpNode>()->axis, 16);
  }
  detail::parallel_rows(s[out], oc->axis, 16);
  return s;
}

}  // namespace tensorir::ops
