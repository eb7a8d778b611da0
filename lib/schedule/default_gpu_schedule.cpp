// The default GPU schedule: a stage at root that binds no loop gets its data-parallel
// loops fused, split by the work-group size, and bound to blockIdx.x / threadIdx.x.
#include "schedule/schedule_internal.h"

namespace tensorir {

void apply_default_gpu_schedule(const Schedule &s, int threads_per_group) {
  for (const Stage &st : s.stages()) {
    if (!st.op().as<ComputeOpNode>() || st->attach_type != AttachType::Root || !st->bound_threads.empty()) continue;
    Stage stage = st;
    std::vector<IterVar> data;
    for (const IterVar &iv : st->leaf_iter_vars) {
      if (iv.iter_type() == IterVarType::Reduce) break;  // the data-parallel loops outside the reduction
      data.push_back(iv);
    }
    if (data.empty()) continue;
    IterVar fused = data[0];
    for (size_t i = 1; i < data.size(); ++i) fused = stage.fuse(fused, data[i]);
    auto [outer, inner] = stage.split(fused, threads_per_group);
    stage.bind(outer, thread_axis("blockIdx.x"));
    stage.bind(inner, thread_axis("threadIdx.x"));
  }
}

}  // namespace tensorir
