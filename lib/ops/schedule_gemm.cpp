// CPU SGEMM template: C = A x B (row-major, B [K, N]) with B packed into panels of
// `tile_x` columns inside the call, a register block of `tile_y` rows x the panel's
// vectors accumulating across the reduction, and panels (or panels x row blocks) in
// parallel.
#include <algorithm>
#include <tuple>

#include "op_util.h"
#include "tensorir/autotune/config.h"
#include "tensorir/ir/op.h"
#include "tensorir/ops/gemm.h"

namespace tensorir::ops {

namespace {

// The register block by default: 6 rows of as many vectors as keep three quarters of the
// vector registers accumulating (6 x 64 columns with AVX-512's 32 registers, 6 x 16 with
// AVX2's 16, 6 x 8 on 128-bit SIMD), the rest holding a row of B and A's broadcast.
constexpr int64_t kDefaultRows = 6;
int64_t accumulators(int lanes) { return detail::cpu_vector_registers(lanes) * 3 / 4; }

// Panel widths of 16-64 columns; the fallback is the widest of the default panel and its
// halves down to one vector that divides N (no padded last panel), else the default with
// the last padded. With AVX2 or 128-bit SIMD it can be narrower than 16: 8 or 4.
int64_t panel_width(autotune::Config &cfg, int64_t n, int lanes) {
  const int64_t preferred = accumulators(lanes) / kDefaultRows * lanes;
  int64_t fallback = preferred;
  for (int64_t w = preferred; w >= lanes; w /= 2)
    if (n % w == 0) {
      fallback = w;
      break;
    }
  return cfg.define_knob("tile_x", {16, 32, 48, 64}, fallback);
}

// Rows of the register block for a panel `bn` wide: as many as the accumulators allow
// (at most 14) while the block fits in the registers (detail::block_fits_registers):
// 6 x 64 with AVX2's 16 registers needs 48 accumulators and spills.
int64_t default_rows(int64_t bn, int lanes) {
  const int64_t vecs = (bn + lanes - 1) / lanes;
  int64_t rows = std::clamp<int64_t>(accumulators(lanes) / vecs, 1, 14);
  while (rows > 1 && !detail::block_fits_registers(rows, vecs, lanes)) --rows;
  return rows;
}

// The choices of "tile_y": the same for every panel width, as a knob's choices must be
// (Config decodes an index digit by digit); default_rows is always among them.
std::vector<int64_t> row_choices(int lanes) {
  if (lanes >= 16) return {4, 6, 8, 10, 12, 14};
  return {1, 2, 4, 6, 8, 10, 12, 14};  // wide panels leave room for 1 or 2 rows
}

}  // namespace

MatmulKernel matmul_llvm(const Tensor &a, const Tensor &b, autotune::Config *config) {
  return matmul_llvm(a, b, config, Target("llvm"));
}

MatmulKernel matmul_llvm(const Tensor &a, const Tensor &b, autotune::Config *config, const Target &target) {
  TIR_USER_CHECK(a.ndim() == 2 && b.ndim() == 2)
      << "matmul_llvm: A " << a.name() << " and B " << b.name() << " must be matrices [M, K] and [K, N]";
  const std::vector<int64_t> as = detail::const_shape(a, "matmul_llvm"), bs = detail::const_shape(b, "matmul_llvm");
  TIR_USER_CHECK(as[1] == bs[0]) << "matmul_llvm: A " << a.name() << " has " << as[1] << " columns but B " << b.name()
                                 << " has " << bs[0] << " rows; they must be equal";
  detail::check_same_dtype(a, b, "matmul_llvm");
  autotune::Config fallback;
  autotune::Config &cfg = config ? *config : fallback;
  const int64_t m = as[0], kk = as[1], n = bs[1];
  // 6 x 64 by default with AVX-512: 24 of the 32 zmm registers accumulate, each k loads
  // four vectors of B and broadcasts six elements of A for 24 FMAs. Narrower panels take
  // more rows.
  const int lanes = detail::cpu_vector_lanes(target);
  const int64_t bn = panel_width(cfg, n, lanes);
  const std::vector<int64_t> rows = row_choices(lanes);
  const int64_t rows_fallback = default_rows(bn, lanes);
  TIR_ASSERT(std::count(rows.begin(), rows.end(), rows_fallback) == 1)
      << "matmul_llvm: the default of " << rows_fallback << " rows is not among tile_y's choices";
  const int64_t bm = std::min<int64_t>(m, cfg.define_knob("tile_y", rows, rows_fallback));
  const int64_t ku = cfg.define_knob("unroll_k", {1, 2, 4, 8}, 8);
  // 0: panels in parallel, each packed by the thread that uses it; 1: panels x blocks of
  // rows in parallel (more tasks for small N), B packed beforehand in parallel.
  const bool fused = cfg.define_knob("parallel_rows", {0, 1}, 0);
  // K blocking: the whole product is done one block of `tile_k` steps at a time (C
  // accumulating in memory between blocks), so that the rows of A a block reads stay in
  // cache while every panel passes by. 0, or a block that does not divide K: none.
  int64_t kc = cfg.define_knob("tile_k", {0, 128, 256, 512}, 0);
  if (kc >= kk || kk % std::max<int64_t>(kc, 1) != 0) kc = 0;

  // 0: each panel reads B's rows where they are, saving the pass that packs them (256x256
  // and 384x384 1.05-1.1x faster on one core; from 512 up, rows a multiple of 2 KB apart
  // meet in the same cache sets and packing wins). Only where the panels divide N.
  const bool pack = cfg.define_knob("pack_b", {0, 1}, 1) || n % bn != 0;
  // Packing reads a panel's width of each of B's K rows, every row in another page, from
  // memory: without help the loads wait one row at a time. Asking for the rows this many
  // iterations ahead keeps them coming: 256 rows of A by 2048 x 2048 ran 1.03-1.09x
  // faster on a Zen 5 core, where few rows share each packed panel; square sizes from
  // 512 the same within noise. 0 for records made before the knob; no knob where the
  // target has no prefetch instructions.
  const int64_t prefetch_rows =
      target.caps().prefetch ? cfg.define_optional_knob("prefetch_b", {0, 8, 16, 32}, 16, 0) : 0;
  const int64_t panels = (n + bn - 1) / bn;
  const Expr w = Expr(int(bn));
  Tensor packed = compute(
      detail::to_exprs({panels, kk, bn}),
      [&](Var x, Var y, Var z) {
        Expr j = x * w + z;
        if (n % bn == 0) return b(y, j);
        return if_then_else(j < Expr(int(n)), b(y, min(j, Expr(int(n - 1)))), make_zero(b.dtype()));
      },
      b.name() + "_packed");
  IterVar k = reduce_axis({0, static_cast<int>(kk)}, "k");
  Tensor c = compute(
      detail::to_exprs({m, n}),
      [&](Var i, Var j) { return sum(a(i, k) * (pack ? packed(j / w, k, j % w) : b(k, j)), {k}); }, "C",
      "matmul_packed");

  Schedule s = create_schedule({c});
  Stage st = s[c];
  auto [io, jo, ii, ji] = st.tile(c.axis(0), c.axis(1), Expr(int(bm)), w);
  IterVar kb, k_in = c.reduce_axis(0);
  if (kc) std::tie(kb, k_in) = st.split(k_in, Expr(int(kc)));
  auto [ko, ki] = st.split(k_in, Expr(int(ku)));
  // The block of C stays in registers across k: rows unrolled, columns vectors.
  if (kc) st.reorder({kb, jo, io, ko, ki, ii, ji});
  else st.reorder({jo, io, ko, ki, ii, ji});
  st.vectorize(ji);
  st.unroll(ii);
  st.unroll(ki);
  if (pack) s[packed].vectorize(packed.axis(2));
  if (pack && prefetch_rows) s[packed].prefetch(b, packed.axis(1), int(prefetch_rows));
  // A panel computed inside the parallel loop lives on the thread's stack: past 1 MB
  // (K * tile_x floats) it is packed beforehand into a buffer of its own instead.
  const bool big_panel = kk * bn * 4 > (int64_t(1) << 20);
  if (!pack || fused || kc || big_panel) {
    st.parallel(fused ? st.fuse(jo, io) : jo);
    if (pack) s[packed].parallel(packed.axis(0));
  } else {
    // Each thread packs its panel right before using it: hot in L2 while A streams by.
    st.parallel(jo);
    s[packed].compute_at(st, jo);
  }
  return {s, c};
}

}  // namespace tensorir::ops
