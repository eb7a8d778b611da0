// CPU schedule for softmax and log_softmax along the last axis. The exponentials are
// read by both the sum and the result, so they are one parallel pass over rows (each
// row's maximum computed there, when nothing else reads it) and the result another,
// each row's sum computed inside it; both passes as vectors along the row.
#include "op_util.h"
#include "schedule_rows.h"
#include "tensorir/ops/schedule.h"

namespace tensorir::ops {

using detail::parallel_rows;
using detail::tagged;
using detail::vector_partials;

Schedule schedule_softmax_llvm(const Tensor &out) {
  const int nd = out.ndim();
  const auto *c = out.op().as<ComputeOpNode>();
  if (nd < 2 || !c || (c->tag != "softmax" && c->tag != "log_softmax")) return schedule_blocked_llvm(out);
  Schedule s = schedule_generic({out});
  Stage max = tagged(s, "softmax_max"), exp = tagged(s, "softmax_exp"), sum = tagged(s, "softmax_sum");
  const auto *mc = max.defined() ? max.op().as<ComputeOpNode>() : nullptr;
  // Along another axis the reductions drop a middle dimension: the generic schedule.
  if (!mc || !exp.defined() || !sum.defined() || int(mc->axis.size()) != nd - 1) return schedule_blocked_llvm(out);
  vector_partials(s, max);  // rfactor comes before compute_at
  vector_partials(s, sum);
  Stage st = s[out];
  const IterVar rows = parallel_rows(st, c->axis, 8);
  sum.compute_at(st, rows);
  const IterVar exp_rows = parallel_rows(exp, exp.op().as<ComputeOpNode>()->axis, 8);
  // log_softmax's result reads the maximum too: it stays a pass of its own.
  if (c->tag == "softmax") max.compute_at(exp, exp_rows);
  return s;
}

}  // namespace tensorir::ops
