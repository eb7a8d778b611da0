// GPU compute schedule for dense and batch_matmul: each invocation accumulates a register
// tile of rows x consecutive columns; a work-group covers a tile of columns (and rows when
// they are few), so the rows of the data it reads are the same for all its invocations.
// On a CPU driver (PoCL) a work-item per group keeps a tile of vectors instead, as a CPU
// micro-kernel does: the driver would otherwise vectorise across work-items, which it
// cannot do around the reduction loop.
#include "op_util.h"
#include "schedule_gpu_util.h"
#include "tensorir/ops/schedule.h"

namespace tensorir::ops {

Schedule schedule_matmul_gpu(const Tensor &mm, const Tensor &out, const Target &target, autotune::Config *cfg) {
  const auto *c = mm.op().as<ComputeOpNode>();
  TIR_USER_CHECK(c && (c->tag == "dense" || c->tag == "batch_matmul") && c->reduce_axis.size() == 1)
      << "schedule_matmul_gpu: tensor " << mm.name() << " is not the output of dense or batch_matmul";
  const std::vector<int64_t> shape = detail::const_shape(mm, "schedule_matmul_gpu");
  const size_t nd = shape.size();
  const int64_t M = shape[nd - 2], N = shape[nd - 1];
  // Columns in groups of at most 64 invocations, so that a layer of 1000 outputs still
  // spreads over several work-groups; the rows fill the group up to the limit.
  const int limit = gpu::group_limit(target);
  autotune::Config fallback;
  autotune::Config &knobs = cfg ? *cfg : fallback;
  std::vector<gpu::AxisTile> tiles(nd);
  // Knobs: "gpu_rows" (rows of the register tile, where there are several) and
  // "gpu_cols" (its columns: vectors on a CPU driver); on GPUs "gpu_threads", the
  // invocations along the columns of a work-group. Each is the largest divisor up to the
  // value chosen.
  const auto rows = [&](int64_t fallback_rows) {
    return M > 1 ? gpu::divisor_at_most(M, knobs.define_knob("gpu_rows", {1, 2, 4, 8}, fallback_rows)) : 1;
  };
  if (const int lanes = gpu::vector_lanes(target); lanes > 0) {
    // A CPU driver: one work-item per group, up to 8 rows x 2 vectors of columns in
    // registers, as a CPU micro-kernel keeps them.
    int64_t vec = lanes;
    while (vec > 1 && N % vec != 0) vec /= 2;
    const int64_t vectors = knobs.define_knob("gpu_cols", {1, 2, 4}, N % (2 * vec) == 0 ? 2 : 1);
    tiles[nd - 2] = {1, rows(gpu::divisor_at_most(M, 8))};
    tiles[nd - 1] = {1, gpu::divisor_at_most(N / vec, vectors) * vec, vec};
  } else {
    const int64_t vn = gpu::divisor_at_most(N, knobs.define_knob("gpu_cols", {1, 2, 4, 8}, gpu::first_divisor(N, {4, 2})));
    const int64_t vm = rows(gpu::first_divisor(M, {4, 2}));
    const int64_t threads = knobs.define_knob("gpu_threads", {16, 64, 256}, 64);
    const int64_t tn = gpu::divisor_at_most(N / vn, std::min<int64_t>(threads, limit));
    const int64_t tm = gpu::divisor_at_most(M / vm, limit / tn);
    tiles[nd - 2] = {tm, vm};
    tiles[nd - 1] = {tn, vn};
  }

  Schedule s = create_schedule({out});
  gpu::inline_others(s, {mm, out});
  Tensor acc = gpu::tile_into_registers(s, mm, out, tiles);
  // The reduction in steps of 4 unrolled, when 4 divides it.
  const auto *ac = acc.op().as<ComputeOpNode>();
  if (*as_const_int(ac->reduce_axis[0]->dom.extent) % 4 == 0) {
    auto [ko, ki] = s[acc].split(ac->reduce_axis[0], 4);
    s[acc].unroll(ki);
  }
  return s;
}

}  // namespace tensorir::ops
