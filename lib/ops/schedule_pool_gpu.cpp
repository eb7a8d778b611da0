// GPU compute schedule for pooling (and the other window reductions over a few spatial
// dimensions): one invocation per output element, small windows unrolled.
#include "op_util.h"
#include "schedule_gpu_util.h"
#include "tensorir/ops/schedule.h"

namespace tensorir::ops {

namespace {

// Unrolls the reduction loops of `st` that are short (a pooling window's rows, columns).
void unroll_window(Stage st) {
  const auto *c = st.op().as<ComputeOpNode>();
  for (const IterVar &r : c->reduce_axis) {
    const int64_t *n = as_const_int(r->dom.extent);
    if (n && *n <= 7) st.unroll(r);
  }
}

}  // namespace

Schedule schedule_pool_gpu(const Tensor &out, const Target &target) {
  TIR_USER_CHECK(out.op().as<ComputeOpNode>()) << "schedule_pool_gpu: tensor " << out.name() << " is not computed";
  Schedule s = create_schedule({out});
  gpu::inline_others(s, {out});
  std::vector<Stage> inner;  // reductions the result reads (an average's sums)
  for (const Stage &st : s.stages())
    if (st->attach_type != AttachType::Inline && !st.op().same_as(out.op()) && st.op().as<ComputeOpNode>())
      inner.push_back(st);
  // Chains of reductions (max_pool_indices: the maximum, then its first position) read
  // one another: they keep the default schedule, a kernel per stage.
  if (inner.size() > 1) return schedule_generic({out});

  Stage o = s[out];
  int64_t elements = 1;
  for (int64_t d : detail::const_shape(out, "schedule_pool_gpu")) elements *= d;
  // An inner stage would read past the input in the iterations a guard skips, so with
  // one the work-group size divides the elements.
  const int limit = gpu::group_limit(target);
  const int64_t threads = inner.empty() ? std::min<int64_t>(limit, elements) : gpu::divisor_at_most(elements, limit);
  const IterVar t = gpu::bind_flat(s, out, threads);
  if (!out.op().as<ComputeOpNode>()->reduce_axis.empty()) unroll_window(o);
  for (Stage &st : inner) {
    st.compute_at(o, t);
    unroll_window(st);
  }
  return s;
}

}  // namespace tensorir::ops
