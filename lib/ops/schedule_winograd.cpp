// CPU schedule of conv2d_winograd: the input transform, the batched product and the
// output transform (with the element-wise tail) as three parallel loop nests of one
// kernel; every transform loop unrolled, so that its coefficients are constants.
#include "op_util.h"
#include "tensorir/autotune/config.h"
#include "tensorir/ops/winograd.h"
#include "winograd_stages.h"

namespace tensorir::ops {

namespace {

const ComputeOpNode *compute_of(const Tensor &t) { return t.op().as<ComputeOpNode>(); }
int64_t dim(const Tensor &t, int i) { return *as_const_int(t.shape()[size_t(i)]); }

// The widest of `candidates` dividing n, else n when it is below the first, else 1.
int vector_for(int64_t n, std::initializer_list<int> candidates) {
  for (int c : candidates)
    if (n % c == 0) return c;
  return n < *candidates.begin() ? int(n) : 1;
}

// Rows of a register block: a divisor of the tiles from 8 down to 4 (no guarded tail),
// else 8 (or all of them, when fewer).
int gemm_rows_for(int64_t tiles) {
  for (int r : {8, 7, 6, 5, 4})
    if (tiles % r == 0) return r;
  return int(std::min<int64_t>(tiles, 8));
}

using Stages = detail::WinogradStages;

// Per tile and channel vector of V, W1 (the rows of B^T d) in a local tile of channel
// vectors. V's loops: tiles, channel vectors, the positions unrolled, the vector.
IterVar schedule_input(Schedule &s, const Stages &st, int vec) {
  Stage v = s[st.V];
  auto [co, ci] = v.split(st.V.axis(3), vec);
  v.reorder({st.V.axis(2), co, st.V.axis(0), st.V.axis(1), ci});
  v.unroll(st.V.axis(0));
  v.unroll(st.V.axis(1));
  v.vectorize(ci);
  Stage w1 = s[st.W1];
  w1.compute_at(v, co);
  w1->scope = "local";
  w1.unroll(st.W1.axis(0));
  w1.unroll(st.W1.axis(1));
  w1.vectorize(st.W1.axis(3));
  return co;
}

// M[i][j] = V[i][j] U[i][j]: register blocks of `block_rows` tiles (a broadcast each) x
// `cols` output channels (contiguous vectors of U's panel), accumulated over all input
// channels. With `local`, M is the accumulator itself (a row's buffer in cache), else a
// local tile copied out. Returns the loop over tile blocks.
// With `prefetch_lines`, each input channel asks for the weight's lines that far ahead:
// the transformed weight streams from memory once per inference.
IterVar schedule_gemm(Schedule &s, const Stages &st, int block_rows, int cols, bool local, int prefetch_lines) {
  const Tensor &M = st.M;
  const Tensor U = compute_of(M)->input_tensors()[1];
  const int ahead = detail::prefetch_offset(prefetch_lines, int64_t(cols) * U.dtype().bytes());
  Tensor acc = local ? M : s.cache_write(M, "local");
  Stage mm = s[M];
  auto [to, ko, ti, ki] = mm.tile(M.axis(2), M.axis(3), Expr(block_rows), Expr(cols));
  mm.vectorize(ki);
  if (local) {
    mm.reorder({M.axis(0), M.axis(1), to, ko, compute_of(M)->reduce_axis[0], ti, ki});
    mm.unroll(ti);
    if (prefetch_lines) mm.prefetch(U, compute_of(M)->reduce_axis[0], ahead);
    return to;
  }
  mm.reorder({M.axis(0), M.axis(1), to, ko, ti, ki});
  Stage a = s[acc];
  a.compute_at(mm, ko);
  a.reorder({acc.axis(0), acc.axis(1), compute_of(acc)->reduce_axis[0], acc.axis(2), acc.axis(3)});
  a.unroll(acc.axis(2));
  a.vectorize(acc.axis(3));
  if (prefetch_lines) a.prefetch(U, compute_of(acc)->reduce_axis[0], ahead);
  return to;
}

// The result (and its tail) per tile of m x m outputs and vector of channels. The loops:
// rows of tiles (`rows_outer`: outside the channel blocks), channel blocks, tiles, then
// the tile's outputs unrolled and the vector. The output transform is computed per tile
// in local vectors, or with `rows_outer` inlined (the column sums a tile's rows share
// are common subexpressions). Returns the parallel loop.
IterVar schedule_output(Schedule &s, const Stages &st, const Tensor &out, int vec, bool rows_outer) {
  const int m = int(dim(st.O, 0));
  Stage o = s[out];
  auto [yo, yi] = o.split(out.axis(2), m);
  auto [xo, xi] = o.split(out.axis(3), m);
  IterVar kb = out.axis(1), lanes = out.ndim() == 5 ? out.axis(4) : IterVar();
  if (out.ndim() == 4) std::tie(kb, lanes) = o.split(out.axis(1), vec);
  if (rows_outer) o.reorder({out.axis(0), yo, kb, xo, yi, xi, lanes});
  else o.reorder({out.axis(0), kb, yo, xo, yi, xi, lanes});
  const IterVar rows = rows_outer ? o.fuse(out.axis(0), yo) : o.fuse(o.fuse(out.axis(0), kb), yo);
  o.parallel(rows);
  o.unroll(yi);
  o.unroll(xi);
  o.vectorize(lanes);
  if (rows_outer) {
    // The row's product is computed at `rows` for `out` itself, which must then read it.
    s[st.O].compute_inline();
    s[st.Z].compute_inline();
    return rows;
  }
  // O at the tile's loop, Z at O's loop over its one tile (outermost), so once per tile.
  Stage so = s[st.O];
  so.compute_at(o, xo);
  so.reorder({st.O.axis(2), st.O.axis(0), st.O.axis(1), st.O.axis(3)});
  s[st.Z].compute_at(so, st.O.axis(2));
  for (const Tensor &t : {st.Z, st.O}) {
    Stage x = s[t];
    x->scope = "local";
    x.unroll(t.axis(0));
    x.unroll(t.axis(1));
    x.vectorize(t.axis(3));
  }
  return rows;
}

}  // namespace

WinogradSchedule winograd_schedule_knobs(autotune::Config &cfg, const Target &target) {
  WinogradSchedule k;
  k.gemm_rows = int(cfg.define_knob("winograd_rows", {0, 4, 6, 8}, 0));
  k.per_row = int(cfg.define_knob("winograd_per_row", {0, 1, -1}, 0));
  if (target.caps().prefetch) k.prefetch_lines = int(detail::weight_prefetch_lines(cfg, "winograd_prefetch"));
  return k;
}

Schedule schedule_conv2d_winograd_llvm(const Tensor &conv, const Tensor &out, const Target &,
                                       const WinogradSchedule &knobs) {
  const Stages st = detail::winograd_stages(conv, "schedule_conv2d_winograd_llvm");
  TIR_USER_CHECK(st.V.ndim() == 4) << "schedule_conv2d_winograd_llvm: " << conv.name()
                                   << " computes its stages in channel blocks (channel_block > 0), the fragment "
                                      "shaders' form; build it with channel_block = 0 for the CPU";
  TIR_USER_CHECK(conv.ndim() == out.ndim())
      << "schedule_conv2d_winograd_llvm: the tail's result " << out.name() << " has " << out.ndim()
      << " dimensions but the convolution " << conv.name() << " has " << conv.ndim();
  Schedule s = create_schedule({out});
  // The result layout's copy and the tail are computed where the output transform ends.
  for (const Stage &stage : s.stages()) {
    const ComputeOpNode *c = stage.op().as<ComputeOpNode>();
    const Operation &op = stage.op();
    const bool kept = op.same_as(out.op()) || op.same_as(st.O.op()) || op.same_as(st.Z.op()) ||
                      op.same_as(st.M.op()) || op.same_as(st.V.op()) || op.same_as(st.W1.op());
    if (c && !kept && c->reduce_axis.empty()) Stage(stage).compute_inline();
  }
  const Tensor U = compute_of(st.M)->input_tensors()[1];
  const int64_t C = dim(st.V, 3), K = dim(st.M, 3), m = dim(st.O, 0), tiles = dim(st.M, 2);
  const int64_t tiles_per_row = (dim(out, 3) + m - 1) / m;
  // Per row of tiles when the transformed weight is smaller than the transformed input
  // (many tiles, few channels: 64@56), so that V and M stay in cache; else three nests,
  // the product reading each position's weight once per block of tiles while it is in cache.
  const bool per_row = knobs.per_row == 0 ? dim(U, 0) * dim(U, 1) * C * K < dim(st.V, 0) * dim(st.V, 1) * tiles * C
                                          : knobs.per_row > 0;
  const int out_vec = out.ndim() == 5 ? int(dim(out, 4)) : vector_for(K, {16, 8, 4});
  const IterVar rows = schedule_output(s, st, out, knobs.output_vector ? knobs.output_vector : out_vec, per_row);
  const int block_rows = knobs.gemm_rows ? knobs.gemm_rows : gemm_rows_for(per_row ? tiles_per_row : tiles);
  const IterVar blocks = schedule_gemm(s, st, block_rows, int(dim(U, 4)), per_row, knobs.prefetch_lines);
  const IterVar input_blocks = schedule_input(s, st, knobs.input_vector ? knobs.input_vector : vector_for(C, {16, 8, 4}));
  if (per_row) {
    // The row's product at the row, V of one position row i at the product's loop over i.
    s[st.M].compute_at(s[out], rows);
    s[st.V].compute_at(s[st.M], st.M.axis(0));
    return s;
  }
  Stage mm = s[st.M], v = s[st.V];
  mm.parallel(mm.fuse(mm.fuse(st.M.axis(0), st.M.axis(1)), blocks));
  v.parallel(v.fuse(st.V.axis(2), input_blocks));
  return s;
}

}  // namespace tensorir::ops
