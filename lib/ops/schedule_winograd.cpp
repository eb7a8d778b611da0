// CPU schedule of conv2d_winograd: the input transform, the batched product and the
// output transform (with the element-wise tail) as three parallel loop nests of one
// kernel; every transform loop unrolled, so that its coefficients are constants.
#include "op_util.h"
#include "tensorir/ops/winograd.h"

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

// The stages of the kernel, from its result back.
struct Stages {
  Tensor W1, V, M, Z, O;
};

Stages stages_of(const Tensor &conv) {
  const ComputeOpNode *c = compute_of(conv);
  TIR_USER_CHECK(c && c->tag == "conv2d_winograd")
      << "schedule_conv2d_winograd_llvm: tensor " << conv.name() << " is not the output of conv2d_winograd";
  Stages s;
  s.O = c->input_tensors()[0];
  s.Z = compute_of(s.O)->input_tensors()[0];
  s.M = compute_of(s.Z)->input_tensors()[0];
  s.V = compute_of(s.M)->input_tensors()[0];
  s.W1 = compute_of(s.V)->input_tensors()[0];
  return s;
}

// W1 (the rows of B^T d) lives in a local tile of alpha x alpha channel vectors, computed
// per (tile, channel vector) inside V's parallel loop.
void schedule_input(Schedule &s, const Stages &st, int vec) {
  Stage v = s[st.V];
  auto [co, ci] = v.split(st.V.axis(3), vec);
  v.reorder({st.V.axis(2), co, st.V.axis(0), st.V.axis(1), ci});
  IterVar blocks = v.fuse(st.V.axis(2), co);
  v.parallel(blocks);
  v.unroll(st.V.axis(0));
  v.unroll(st.V.axis(1));
  v.vectorize(ci);
  Stage w1 = s[st.W1];
  w1.compute_at(v, blocks);
  w1->scope = "local";
  w1.unroll(st.W1.axis(0));
  w1.unroll(st.W1.axis(1));
  w1.vectorize(st.W1.axis(3));
}

// M[i][j] = V[i][j] U[i][j] for each of the alpha^2 positions: register blocks of `rows`
// tiles (a broadcast each) x `cols` output channels (contiguous vectors of U's row),
// accumulated over all input channels; positions and row blocks in parallel.
void schedule_gemm(Schedule &s, const Stages &st, int rows, int cols) {
  const Tensor &M = st.M;
  Stage mm = s[M];
  Tensor acc = s.cache_write(M, "local");
  auto [to, ko, ti, ki] = mm.tile(M.axis(2), M.axis(3), Expr(rows), Expr(cols));
  mm.reorder({M.axis(0), M.axis(1), to, ko, ti, ki});
  IterVar blocks = mm.fuse(mm.fuse(M.axis(0), M.axis(1)), to);
  mm.parallel(blocks);
  mm.vectorize(ki);
  Stage a = s[acc];
  a.compute_at(mm, ko);
  a.reorder({acc.axis(0), acc.axis(1), compute_of(acc)->reduce_axis[0], acc.axis(2), acc.axis(3)});
  a.unroll(acc.axis(2));
  a.vectorize(acc.axis(3));
}

// The result (and its tail) per tile of m x m outputs and vector of channels, rows of
// tiles in parallel; O and Z for that tile are computed right there.
void schedule_output(Schedule &s, const Stages &st, const Tensor &out, int vec) {
  const int m = int(dim(st.O, 0));
  Stage o = s[out];
  auto [yo, yi] = o.split(out.axis(2), m);
  auto [xo, xi] = o.split(out.axis(3), m);
  IterVar lanes, rows;
  if (out.ndim() == 5) {
    o.reorder({out.axis(0), out.axis(1), yo, xo, yi, xi, out.axis(4)});
    rows = o.fuse(o.fuse(out.axis(0), out.axis(1)), yo);
    lanes = out.axis(4);
  } else {
    auto [kb, kv] = o.split(out.axis(1), vec);
    o.reorder({out.axis(0), kb, yo, xo, yi, xi, kv});
    rows = o.fuse(o.fuse(out.axis(0), kb), yo);
    lanes = kv;
  }
  o.parallel(rows);
  o.unroll(yi);
  o.unroll(xi);
  o.vectorize(lanes);
  // O at the tile's loop, Z at O's loop over its one tile (outermost), so once per tile.
  Stage so = s[st.O];
  so.compute_at(o, xo);
  so.reorder({st.O.axis(2), st.O.axis(0), st.O.axis(1), st.O.axis(3)});
  Stage sz = s[st.Z];
  sz.compute_at(so, st.O.axis(2));
  for (const Tensor &t : {st.Z, st.O}) {
    Stage x = s[t];
    x->scope = "local";
    x.unroll(t.axis(0));
    x.unroll(t.axis(1));
    x.vectorize(t.axis(3));
  }
}

}  // namespace

Schedule schedule_conv2d_winograd_llvm(const Tensor &conv, const Tensor &out, const Target &,
                                       const WinogradSchedule &knobs) {
  const Stages st = stages_of(conv);
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
  const int64_t C = dim(st.V, 3), K = dim(st.M, 3), T = dim(st.M, 2);
  schedule_input(s, st, knobs.input_vector ? knobs.input_vector : vector_for(C, {16, 8, 4}));
  const Tensor U = compute_of(st.M)->input_tensors()[1];
  schedule_gemm(s, st, knobs.gemm_rows ? knobs.gemm_rows : gemm_rows_for(T), int(dim(U, 4)));
  const int out_vec = out.ndim() == 5 ? int(dim(out, 4)) : vector_for(K, {16, 8, 4});
  schedule_output(s, st, out, knobs.output_vector ? knobs.output_vector : out_vec);
  return s;
}

}  // namespace tensorir::ops
