// CPU schedule for softmax and log_softmax along the last axis. The exponentials are
// read by both the sum and the result, so they are one parallel pass over rows (each
// row's maximum computed there, when nothing else reads it) and the result another,
// each row's sum computed inside it; both passes as vectors along the row.
#include "op_util.h"
#include "tensorir/ops/schedule.h"

namespace tensorir::ops {

namespace {

// The leading axes of `st` (all but the last) fused into one parallel loop, returned;
// the last split by a vector of 8 and vectorized (a partial last vector, as for 197
// columns, is a peeled iteration of the serial loop of vectors).
IterVar parallel_rows(Stage st, const std::vector<IterVar> &axes) {
  IterVar rows = axes[0];
  for (size_t i = 1; i + 1 < axes.size(); ++i) rows = st.fuse(rows, axes[i]);
  st.parallel(rows);
  const int64_t *extent = as_const_int(axes.back()->dom.extent);
  if (extent && *extent >= 8) st.vectorize(st.split(axes.back(), Expr(8)).second);
  return rows;
}

Stage tagged(const Schedule &s, const std::string &tag) {
  for (const Stage &st : s.stages()) {
    const auto *c = st.op().as<ComputeOpNode>();
    if (c && c->tag == tag) return st;
  }
  return Stage();
}

// The reduction of `st` (a row's maximum or sum) as 16 partial results, each reducing
// every 16th element of the row with the 16 of them one vector, then combined: a chain of
// 128 or 197 dependent scalar maxima or additions took most of softmax's time. Rows
// shorter than 64 keep the plain loop.
void vector_partials(Schedule &s, Stage st) {
  const auto *c = st.op().as<ComputeOpNode>();
  if (c->reduce_axis.size() != 1) return;
  const int64_t *n = as_const_int(c->reduce_axis[0]->dom.extent);
  if (!n || *n < 64) return;
  const IterVar ki = st.split(c->reduce_axis[0], Expr(16)).second;
  const Tensor part = s.rfactor(st.op().output(0), ki);
  Stage ps = s[part];
  const auto *pc = part.op().as<ComputeOpNode>();
  std::vector<IterVar> order(pc->axis.begin() + 1, pc->axis.end());
  order.push_back(pc->reduce_axis[0]);
  order.push_back(pc->axis[0]);
  ps.reorder(order);
  ps.vectorize(pc->axis[0]);
  Stage final_stage = s[st.op().output(0)];
  ps.compute_at(final_stage, final_stage.op().as<ComputeOpNode>()->axis.back());
}

}  // namespace

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
  const IterVar rows = parallel_rows(st, c->axis);
  sum.compute_at(st, rows);
  const IterVar exp_rows = parallel_rows(exp, exp.op().as<ComputeOpNode>()->axis);
  // log_softmax's result reads the maximum too: it stays a pass of its own.
  if (c->tag == "softmax") max.compute_at(exp, exp_rows);
  return s;
}

}  // namespace tensorir::ops
