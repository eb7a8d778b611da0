// The default operator schedule: every injective intermediate inlined into its readers.
#include "op_util.h"
#include "tensorir/ops/schedule.h"

namespace tensorir::ops {

Schedule schedule_generic(const std::vector<Tensor> &outs) {
  Schedule s = create_schedule(outs);
  for (const Stage &st : s.stages()) {
    const auto *c = st.op().as<ComputeOpNode>();
    if (c && c->tag == detail::kInjective && c->reduce_axis.empty() && !st->is_output) Stage(st).compute_inline();
  }
  return s;
}

}  // namespace tensorir::ops
