// CPU schedule for dense: each row of the result in parallel blocks of output columns,
// the reduction outside a vector of columns.
#include <algorithm>

#include "op_util.h"
#include "tensorir/ops/schedule.h"

namespace tensorir::ops {

namespace {

const ComputeOpNode *dense_op(const Tensor &t) {
  const auto *c = t.op().as<ComputeOpNode>();
  TIR_USER_CHECK(c && c->tag == "dense") << "schedule_dense_llvm: tensor " << t.name() << " is not the output of dense";
  return c;
}

// The vector of output columns a block computes: the widest of 16, 8, 4 that divides
// the columns of `out`, or 0.
int column_vector(const Tensor &out) {
  const int64_t m = *as_const_int(out.shape()[1]);
  for (int v : {16, 8, 4})
    if (m % v == 0) return v;
  return 0;
}

}  // namespace

Schedule schedule_dense_llvm(const Tensor &out) {
  dense_op(out);
  Schedule s = create_schedule({out});
  Stage st = s[out];
  const int vec = column_vector(out);
  if (!vec) {
    st.parallel(out.axis(0));
    return s;
  }
  // The accumulators of one block stay in a local tile; columns of the weight are read
  // as gathers of `vec` rows.
  Tensor acc = s.cache_write(out, "local");
  auto [jo, ji] = st.split(out.axis(1), vec);
  IterVar blocks = st.fuse(out.axis(0), jo);
  st.parallel(blocks);
  st.vectorize(ji);
  Stage a = s[acc];
  a.compute_at(st, blocks);
  const auto *ac = acc.op().as<ComputeOpNode>();
  a.reorder({acc.axis(0), ac->reduce_axis[0], acc.axis(1)});
  a.vectorize(acc.axis(1));
  return s;
}

Schedule schedule_dense_llvm(const Tensor &dense, const Tensor &out) {
  const ComputeOpNode *c = dense_op(dense);
  Schedule s = create_schedule({out});
  for (const Stage &st : s.stages()) {
    const auto *sc = st.op().as<ComputeOpNode>();
    const Operation &op = st.op();
    if (sc && !op.same_as(out.op()) && !op.same_as(dense.op()) && sc->reduce_axis.empty()) Stage(st).compute_inline();
  }
  Stage st = s[out];
  Stage d = s[dense];
  const int vec = column_vector(out);
  if (!vec) {
    st.parallel(out.axis(0));
    d.compute_at(st, out.axis(0));
    return s;
  }
  // The dense stage itself is the local tile, computed inside the tail's parallel block loop.
  auto [jo, ji] = st.split(out.axis(1), vec);
  IterVar blocks = st.fuse(out.axis(0), jo);
  st.parallel(blocks);
  st.vectorize(ji);
  d.compute_at(st, blocks);
  d->scope = "local";
  d.reorder({dense.axis(0), c->reduce_axis[0], dense.axis(1)});
  d.vectorize(dense.axis(1));
  return s;
}

Schedule schedule_dense_packed_llvm(const Tensor &dense, const Tensor &out) {
  const auto *c = dense.op().as<ComputeOpNode>();
  TIR_USER_CHECK(c && c->tag == "dense_packed")
      << "schedule_dense_packed_llvm: tensor " << dense.name() << " is not the output of dense_packed";
  const std::vector<Tensor> in = c->input_tensors();
  const int64_t block = *as_const_int(in[1].shape()[2]);
  const int64_t rows = *as_const_int(out.shape()[0]);
  Schedule s = create_schedule({out});
  for (const Stage &st : s.stages()) {
    const auto *sc = st.op().as<ComputeOpNode>();
    const Operation &op = st.op();
    if (sc && !op.same_as(out.op()) && !op.same_as(dense.op()) && sc->reduce_axis.empty()) Stage(st).compute_inline();
  }
  // A register block: `bm` rows (each a broadcast of one data element per k) times the
  // panel's `block` columns (block / 16 vectors). 8 x 32 keeps 16 of 32 vector registers
  // of accumulators. Rows split into blocks that divide them, so that the local tile
  // never reads data past the last row.
  int64_t bm = 1;
  for (int64_t b = std::min<int64_t>(rows, 8); b > 1; --b)
    if (rows % b == 0) {
      bm = b;
      break;
    }
  Tensor acc = dense;
  if (dense == out) acc = s.cache_write(out, "local");
  Stage st = s[out];
  auto [io, jo, ii, ji] = st.tile(out.axis(0), out.axis(1), Expr(bm), Expr(block));
  st.reorder({jo, io, ii, ji});
  // Panels outer: consecutive blocks of rows read the same panel of the weight.
  IterVar blocks = st.fuse(jo, io);
  st.parallel(blocks);
  st.vectorize(ji);
  Stage a = s[acc];
  a.compute_at(st, blocks);
  if (!(dense == out)) a->scope = "local";
  const auto *ac = acc.op().as<ComputeOpNode>();
  a.reorder({ac->reduce_axis[0], acc.axis(0), acc.axis(1)});
  a.unroll(acc.axis(0));
  a.vectorize(acc.axis(1));
  return s;
}

Schedule schedule_batch_matmul_llvm(const Tensor &out) {
  const auto *c = out.op().as<ComputeOpNode>();
  if (!c || c->tag != "batch_matmul") return schedule_reduce_llvm(out);
  const int64_t n = *as_const_int(out.shape().back());
  int vec = 0;
  for (int v : {16, 8, 4})
    if (n % v == 0) {
      vec = v;
      break;
    }
  if (!vec) return schedule_reduce_llvm(out);
  Schedule s = schedule_generic({out});
  // As dense: blocks of `vec` output columns of every row of every batch in parallel,
  // accumulated as vectors in a local tile, the reduction outside the vector.
  Stage st = s[out];
  Tensor acc = s.cache_write(out, "local");
  const int nd = out.ndim();
  auto [jo, ji] = st.split(out.axis(nd - 1), vec);
  IterVar blocks = out.axis(0);
  for (int i = 1; i < nd - 1; ++i) blocks = st.fuse(blocks, out.axis(i));
  blocks = st.fuse(blocks, jo);
  st.parallel(blocks);
  st.vectorize(ji);
  Stage a = s[acc];
  a.compute_at(st, blocks);
  const auto *ac = acc.op().as<ComputeOpNode>();
  std::vector<IterVar> order;
  for (int i = 0; i < nd - 1; ++i) order.push_back(acc.axis(i));
  order.push_back(ac->reduce_axis[0]);
  order.push_back(acc.axis(nd - 1));
  a.reorder(order);
  a.vectorize(acc.axis(nd - 1));
  return s;
}

}  // namespace tensorir::ops
