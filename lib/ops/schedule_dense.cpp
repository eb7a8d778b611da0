// CPU schedule for dense: each row of the result in parallel blocks of output columns,
// the reduction outside a vector of columns.
#include <algorithm>
#include <tuple>

#include "op_util.h"
#include "tensorir/autotune/config.h"
#include "tensorir/ops/schedule.h"

namespace tensorir::ops {

namespace {

const ComputeOpNode *dense_op(const Tensor &t) {
  const auto *c = t.op().as<ComputeOpNode>();
  TIR_USER_CHECK(c && c->tag == "dense") << "schedule_dense_llvm: tensor " << t.name() << " is not the output of dense";
  return c;
}

// The block of output columns ("tile_x"): one of 4, 8, 16, 32 that divides the columns
// of `out`, by default the widest of 16, 8, 4, or 0 (none divides: rows in parallel).
int column_vector(const Tensor &out, autotune::Config *config) {
  autotune::Config fallback;
  autotune::Config &cfg = config ? *config : fallback;
  const int64_t m = *as_const_int(out.shape()[1]);
  std::vector<int64_t> blocks;
  for (int v : {4, 8, 16, 32})
    if (m % v == 0) blocks.push_back(v);
  int widest = 0;
  for (int v : {16, 8, 4})
    if (!widest && m % v == 0) widest = v;
  return static_cast<int>(cfg.define_knob("tile_x", blocks, widest));
}

// The most rows of 8, 4, 2, 1 whose register block of `vecs` vectors a row fits in the
// vector registers (detail::block_fits_registers): batch_matmul's 8 x 32 on AVX2 spilled
// and ran at 60 GFLOP/s where 2 x 32 ran at 88 (12 heads of 197 x 64 x 197, one core).
int64_t rows_in_registers(int64_t vecs, int lanes) {
  int64_t rows = 8;
  while (rows > 1 && !detail::block_fits_registers(rows, vecs, lanes)) rows /= 2;
  return rows;
}

// Inlines every element-wise stage of `s` other than `dense` and `out`: what reads the
// inputs before the dense and the tail between it and `out` are computed where used.
void inline_between(Schedule &s, const Tensor &dense, const Tensor &out) {
  for (const Stage &st : s.stages()) {
    const auto *sc = st.op().as<ComputeOpNode>();
    const Operation &op = st.op();
    if (sc && !op.same_as(out.op()) && !op.same_as(dense.op()) && sc->reduce_axis.empty()) Stage(st).compute_inline();
  }
}

// Knob "panels": how many of the packed weight's `npanels` panels one parallel block
// reads side by side, among the divisors of npanels up to 8. The fallback is the least
// that gives 4 independent accumulators with `chains` (rows x vectors) per panel; 1 for a
// record made before the knob, the kernel it measured.
int64_t block_panels(autotune::Config &cfg, int64_t npanels, int64_t chains) {
  std::vector<int64_t> choices;
  int64_t fallback = 0;
  for (int64_t d = 1; d <= std::min<int64_t>(npanels, 8); ++d)
    if (npanels % d == 0) {
      choices.push_back(d);
      if (!fallback && d * chains >= 4) fallback = d;
    }
  if (!fallback) fallback = choices.back();
  return cfg.define_optional_knob("panels", choices, fallback, 1);
}

}  // namespace

Schedule schedule_dense_llvm(const Tensor &out, autotune::Config *config) {
  dense_op(out);
  Schedule s = create_schedule({out});
  Stage st = s[out];
  const int vec = column_vector(out, config);
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

Schedule schedule_dense_llvm(const Tensor &dense, const Tensor &out, autotune::Config *config) {
  const ComputeOpNode *c = dense_op(dense);
  Schedule s = create_schedule({out});
  inline_between(s, dense, out);
  Stage st = s[out];
  Stage d = s[dense];
  const int vec = column_vector(out, config);
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

Schedule schedule_dense_packed_llvm(const Tensor &dense, const Tensor &out, autotune::Config *config) {
  return schedule_dense_packed_llvm(dense, out, Target("llvm"), config);
}

Schedule schedule_dense_packed_llvm(const Tensor &dense, const Tensor &out, const Target &target,
                                    autotune::Config *config) {
  autotune::Config fallback;
  autotune::Config &cfg = config ? *config : fallback;
  const auto *c = dense.op().as<ComputeOpNode>();
  TIR_USER_CHECK(c && c->tag == "dense_packed")
      << "schedule_dense_packed_llvm: tensor " << dense.name() << " is not the output of dense_packed";
  const std::vector<Tensor> in = c->input_tensors();
  const int64_t block = *as_const_int(in[1].shape()[2]);
  const int64_t rows = *as_const_int(out.shape()[0]);
  Schedule s = create_schedule({out});
  inline_between(s, dense, out);
  // A register block: `bm` rows (each a broadcast of one data element per k) times the
  // panel's `block` columns (block / lanes vectors). 8 x 32 keeps 16 of AVX-512's 32
  // vector registers of accumulators; with AVX2 it would spill, and 2 rows fit. The last
  // block of rows may be partial (197 tokens): its rows past the end are guarded, which
  // costs less than blocks of one row.
  const int lanes = detail::cpu_vector_lanes(target);
  const int64_t vecs = std::max<int64_t>(1, block / lanes);
  const int64_t bm = std::min<int64_t>(rows, cfg.define_knob("tile_y", {1, 2, 4, 8}, rows_in_registers(vecs, lanes)));
  const bool unroll_k = cfg.define_knob("unroll_k", {0, 1}, 0);
  // Panels a block reads side by side, each its own accumulators: one block of a row
  // and a panel of 8 (1000 classes) is a single chain of dependent FMAs, 4 cycles a step,
  // slower than the weight arrives. By default enough panels for 4 chains.
  const int64_t npanels = *as_const_int(in[1].shape()[0]);
  const int64_t bp = block_panels(cfg, npanels, bm * vecs);
  // The weight streams from memory once per call (a classifier's 4-8 MB at batch 1).
  const int64_t prefetch_lines = target.caps().prefetch ? detail::weight_prefetch_lines(cfg, "prefetch") : 0;
  Tensor acc = dense;
  if (dense == out) acc = s.cache_write(out, "local");
  Stage st = s[out];
  auto [io, jo, ii, ji] = st.tile(out.axis(0), out.axis(1), Expr(int(bm)), Expr(int(block * bp)));
  st.reorder({jo, io, ii, ji});
  // Panels outer: consecutive blocks of rows read the same panel of the weight.
  IterVar blocks = st.fuse(jo, io);
  st.parallel(blocks);
  if (bp > 1) {
    auto [jp, jv] = st.split(ji, Expr(int(block)));
    st.vectorize(jv);
  } else {
    st.vectorize(ji);
  }
  Stage a = s[acc];
  a.compute_at(st, blocks);
  if (!(dense == out)) a->scope = "local";
  const auto *ac = acc.op().as<ComputeOpNode>();
  IterVar acc_cols = acc.axis(1), acc_panel;
  if (bp > 1) std::tie(acc_panel, acc_cols) = a.split(acc.axis(1), Expr(int(block)));
  std::vector<IterVar> tile = {acc.axis(0)};
  if (bp > 1) tile.push_back(acc_panel);
  tile.push_back(acc_cols);
  IterVar k_step = ac->reduce_axis[0];
  std::vector<IterVar> order = {k_step};
  if (unroll_k) {
    auto [ko, ki] = a.split(ac->reduce_axis[0], 4);
    order = {ko, ki};
    a.unroll(ki);
    k_step = ko;
  }
  order.insert(order.end(), tile.begin(), tile.end());
  a.reorder(order);
  if (prefetch_lines) {
    const int64_t step_bytes = block * in[1].dtype().bytes() * (unroll_k ? 4 : 1);
    a.prefetch(in[1], k_step, detail::prefetch_offset(prefetch_lines, step_bytes));
  }
  a.unroll(acc.axis(0));
  if (bp > 1) a.unroll(acc_panel);
  a.vectorize(acc_cols);
  return s;
}

Schedule schedule_batch_matmul_llvm(const Tensor &out, autotune::Config *config, const Target &target) {
  autotune::Config fallback;
  autotune::Config &cfg = config ? *config : fallback;
  const auto *c = out.op().as<ComputeOpNode>();
  if (!c || c->tag != "batch_matmul") return schedule_reduce_llvm(out);
  const int nd = out.ndim();
  const int64_t m = *as_const_int(out.shape()[size_t(nd - 2)]), n = *as_const_int(out.shape().back());
  if (n < 8) return schedule_reduce_llvm(out);
  // As dense_packed: register blocks of up to 8 rows x 32 columns, each row a broadcast
  // of a per k and the columns contiguous vectors of b's row k, accumulated in a local
  // tile across the whole reduction; the blocks of every batch in parallel. Partial
  // blocks at the edges (197 tokens) are guarded.
  // By default the widest block of at most 4 vectors, and as many rows as fit in registers
  // (8 x 32 with AVX-512, 2 x 32 with AVX2, 2 x 16 on wasm).
  const int lanes = detail::cpu_vector_lanes(target);
  const int64_t cols = std::min<int64_t>(n >= 32 ? 32 : n >= 16 ? 16 : 8, 4 * lanes);
  const int64_t rows = std::min<int64_t>(m, rows_in_registers(std::max<int64_t>(1, cols / lanes), lanes));
  const int bm = int(std::min<int64_t>(m, cfg.define_knob("tile_y", {1, 2, 4, 8}, rows)));
  const int bn = int(cfg.define_knob("tile_x", {8, 16, 32}, cols));
  Schedule s = schedule_generic({out});
  Stage st = s[out];
  Tensor acc = s.cache_write(out, "local");
  auto [io, jo, ii, ji] = st.tile(out.axis(nd - 2), out.axis(nd - 1), Expr(bm), Expr(bn));
  // Row blocks of every batch in parallel, the column blocks a serial loop inside: a
  // partial last column block (197 tokens) is then a peeled iteration of that loop, and
  // the others stay vectors, where one fused loop would guard (and scalarize) them all.
  IterVar blocks = io;
  for (int i = nd - 3; i >= 0; --i) blocks = st.fuse(out.axis(i), blocks);
  st.parallel(blocks);
  st.vectorize(ji);
  Stage a = s[acc];
  a.compute_at(st, jo);
  const auto *ac = acc.op().as<ComputeOpNode>();
  std::vector<IterVar> order;
  for (int i = 0; i < nd - 2; ++i) order.push_back(acc.axis(i));
  order.push_back(ac->reduce_axis[0]);
  order.push_back(acc.axis(nd - 2));
  order.push_back(acc.axis(nd - 1));
  a.reorder(order);
  a.unroll(acc.axis(nd - 2));
  a.vectorize(acc.axis(nd - 1));
  return s;
}

}  // namespace tensorir::ops
