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

Schedule schedule_matmul_gpu(const Tensor &mm, const Tensor &out, const Target &target) {
  const auto *c = mm.op().as<ComputeOpNode>();
  TIR_USER_CHECK(c && (c->tag == "dense" || c->tag == "batch_matmul") && c->reduce_axis.size() == 1)
      << "schedule_matmul_gpu: tensor " << mm.name() << " is not the output of dense or batch_matmul";
  const std::vector<int64_t> shape = detail::const_shape(mm, "schedule_matmul_gpu");
  const size_t nd = shape.size();
  const int64_t M = shape[nd - 2], N = shape[nd - 1];
  // Columns in groups of at most 64 invocations, so that a layer of 1000 outputs still
  // spreads over several work-groups; the rows fill the group up to the limit.
  const int limit = gpu::group_limit(target);
  std::vector<gpu::AxisTile> tiles(nd);
  if (const int lanes = gpu::vector_lanes(target); lanes > 0) {
    // A CPU driver: one work-item per group, up to 8 rows x 2 vectors of columns in
    // registers, as a CPU micro-kernel keeps them.
    int64_t vec = lanes;
    while (vec > 1 && N % vec != 0) vec /= 2;
    tiles[nd - 2] = {1, gpu::divisor_at_most(M, 8)};
    tiles[nd - 1] = {1, N % (2 * vec) == 0 ? 2 * vec : vec, vec};
  } else {
    const int64_t vn = gpu::first_divisor(N, {4, 2}), vm = gpu::first_divisor(M, {4, 2});
    const int64_t tn = gpu::divisor_at_most(N / vn, std::min(64, limit));
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
