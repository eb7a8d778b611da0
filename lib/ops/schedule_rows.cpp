#include "schedule_rows.h"

#include "tensorir/ir/op.h"

namespace tensorir::ops::detail {

IterVar parallel_rows(Stage st, const std::vector<IterVar> &axes, int lanes) {
  IterVar rows = axes[0];
  for (size_t i = 1; i + 1 < axes.size(); ++i) rows = st.fuse(rows, axes[i]);
  st.parallel(rows);
  const int64_t *extent = as_const_int(axes.back()->dom.extent);
  if (extent && *extent >= lanes) st.vectorize(st.split(axes.back(), Expr(lanes)).second);
  return rows;
}

Stage tagged(const Schedule &s, const std::string &tag) {
  for (const Stage &st : s.stages()) {
    const auto *c = st.op().as<ComputeOpNode>();
    if (c && c->tag == tag) return st;
  }
  return Stage();
}

void vector_partials(Schedule &s, Stage st) {
  const auto *c = st.op().as<ComputeOpNode>();
  if (!c || c->reduce_axis.size() != 1) return;
  const int64_t *n = as_const_int(c->reduce_axis[0]->dom.extent);
  if (!n || *n < 64) return;
  const IterVar ki = st.split(c->reduce_axis[0], Expr(16)).second;
  const Tensor part = s.rfactor(st.op().output(0), ki);
  Stage ps = s[part];
  const auto *pc = part.op().as<ComputeOpNode>();
  // The partial vector innermost, the rest of the row outside it.
  std::vector<IterVar> order(pc->axis.begin() + 1, pc->axis.end());
  order.push_back(pc->reduce_axis[0]);
  order.push_back(pc->axis[0]);
  ps.reorder(order);
  ps.vectorize(pc->axis[0]);
  Stage whole = s[st.op().output(0)];
  ps.compute_at(whole, whole.op().as<ComputeOpNode>()->axis.back());
}

}  // namespace tensorir::ops::detail
