// The default operator schedule: every injective intermediate inlined into its readers.
#include "op_util.h"
#include "tensorir/autotune/config.h"
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

Schedule schedule_injective_cpu(const Tensor &out, const Target &target) {
  Schedule s = schedule_generic({out});
  const auto *c = out.op().as<ComputeOpNode>();
  if (!target.caps().runs_in_process || !c || c->tag != detail::kInjective || !c->reduce_axis.empty() ||
      c->axis.empty())
    return s;
  // Below this a loop costs about what waking the pool for it does.
  constexpr int64_t kMinElements = 1 << 14, kChunk = 1024;
  int64_t total = 1, outer = 1;
  for (size_t i = 0; i < c->axis.size(); ++i) {
    const int64_t *extent = as_const_int(c->axis[i]->dom.extent);
    if (!extent) return s;  // symbolic shapes keep the plain loops
    total *= *extent;
    if (i + 1 < c->axis.size()) outer *= *extent;
  }
  if (total < kMinElements) return s;
  Stage st = s[out];
  IterVar loop = c->axis[0];
  // Rows to share when there are a few per thread, else the whole in chunks.
  const bool by_rows = outer >= 8;
  const size_t fused = by_rows ? c->axis.size() - 1 : c->axis.size();
  for (size_t i = 1; i < fused; ++i) loop = st.fuse(loop, c->axis[i]);
  if (!by_rows) loop = st.split(loop, Expr(int(kChunk))).first;
  st.parallel(loop);
  return s;
}

Schedule schedule_blocked_llvm(const Tensor &out, autotune::Config *config) {
  Schedule s = schedule_generic({out});
  const auto *c = out.op().as<ComputeOpNode>();
  if (!c || out.ndim() != 5) return s;
  autotune::Config fallback;
  autotune::Config &cfg = config ? *config : fallback;
  const bool rows_parallel = cfg.define_partition_knob("parallel", {0, 1}, 0) == 0;
  // A pooling window unrolled, where it has at most 64 taps.
  int64_t taps = 1;
  for (const IterVar &r : c->reduce_axis) taps *= *as_const_int(r->dom.extent);
  const bool unroll = !c->reduce_axis.empty() && cfg.define_knob("unroll_window", {0, 1}, 0) && taps <= 64;
  const auto block = as_const_int(out.shape()[4]);
  Stage st = s[out];
  std::vector<IterVar> order = {out.axis(0), out.axis(1), out.axis(2), out.axis(3)};
  for (const IterVar &r : c->reduce_axis) order.push_back(r);
  order.push_back(out.axis(4));
  st.reorder(order);
  // Rows in parallel, or whole channel blocks.
  const IterVar blocks = st.fuse(out.axis(0), out.axis(1));
  st.parallel(rows_parallel ? st.fuse(blocks, out.axis(2)) : blocks);
  if (unroll)
    for (const IterVar &r : c->reduce_axis) st.unroll(r);
  if (block && *block % 4 == 0 && *block <= 64) st.vectorize(out.axis(4));
  return s;
}

Schedule schedule_reduce_llvm(const Tensor &out) {
  Schedule s = schedule_generic({out});
  for (const Stage &st : s.stages()) {
    const auto *c = st.op().as<ComputeOpNode>();
    if (!c || c->axis.empty() || st->attach_type == AttachType::Inline) continue;
    // Every axis but the last fused (batch, heads, rows of a batch_matmul), else the one.
    const size_t outer = c->axis.size() > 1 ? c->axis.size() - 1 : 1;
    int64_t iterations = 1;
    for (size_t i = 0; i < outer; ++i) {
      const int64_t *extent = as_const_int(c->axis[i]->dom.extent);
      iterations *= extent ? *extent : 2;
    }
    if (iterations <= 1) continue;
    Stage stage(st);
    IterVar loop = c->axis[0];
    for (size_t i = 1; i < outer; ++i) loop = stage.fuse(loop, c->axis[i]);
    stage.parallel(loop);
  }
  return s;
}

}  // namespace tensorir::ops
