// GPU compute schedule for the channel-blocked convolution on a CPU driver (PoCL): the
// layout the CPU's own schedules use, NCHW<c>c activations and OIHW<c>i<c>o weights, so
// that a block of output channels is one vector of the work-item, read from contiguous
// weights and stored contiguously; the data's channel is a scalar broadcast to it.
#include <algorithm>

#include "op_util.h"
#include "schedule_gpu_util.h"
#include "tensorir/ops/schedule.h"

namespace tensorir::ops {

namespace {
constexpr int64_t kMaxAccumulators = 16;  // vectors
}  // namespace

Schedule schedule_conv2d_packed_gpu(const Tensor &conv, const Tensor &out, const Target &target,
                                   autotune::Config *cfg) {
  const auto *c = conv.op().as<ComputeOpNode>();
  TIR_USER_CHECK(c && c->tag == "conv2d_packed_direct" && conv.ndim() == 5 && c->reduce_axis.size() == 4)
      << "schedule_conv2d_packed_gpu: tensor " << conv.name()
      << " is not the channel-blocked output of conv2d_packed_direct";
  TIR_USER_CHECK(gpu::vector_lanes(target) > 0)
      << "schedule_conv2d_packed_gpu: target '" << target.str() << "' computes no vectors per work-item";
  const std::vector<int64_t> shape = detail::const_shape(conv, "schedule_conv2d_packed_gpu");
  const int64_t blocks = shape[1], OH = shape[2], OW = shape[3], block = shape[4];
  // By default up to 16 vector accumulators: two blocks of output channels (each
  // broadcast of the data serves two vectors of weights) when they split so, up to 8
  // columns, and rows while they fit. Knobs "gpu_blocks", "gpu_cols" and "gpu_rows" choose
  // each (the largest divisor up to the value chosen).
  autotune::Config fallback;
  autotune::Config &knobs = cfg ? *cfg : fallback;
  const int64_t vk = gpu::divisor_at_most(blocks, knobs.define_knob("gpu_blocks", {1, 2}, blocks % 2 == 0 ? 2 : 1));
  // At most 16 accumulators in all, whatever the knobs: more spill, and their unrolled
  // code can take the driver's compiler minutes.
  const int64_t cols = knobs.define_knob("gpu_cols", {2, 4, 8, 16}, 8);
  const int64_t vx = gpu::divisor_at_most(OW, std::min(cols, kMaxAccumulators / vk));
  const int64_t rows = knobs.define_knob("gpu_rows", {1, 2, 4, 8}, gpu::divisor_at_most(OH, kMaxAccumulators / (vk * vx)));
  const int64_t vy = gpu::divisor_at_most(OH, std::min(rows, std::max<int64_t>(1, kMaxAccumulators / (vk * vx))));

  Schedule s = create_schedule({out});
  // The padded data at root, a kernel of its own: reads in the reduction need no bounds.
  const Tensor data = c->input_tensors()[0];
  const bool padded = data.op().as<ComputeOpNode>() != nullptr;
  gpu::inline_others(s, padded ? std::vector<Tensor>{conv, out, data} : std::vector<Tensor>{conv, out});
  if (padded) gpu::bind_flat(s, data, gpu::group_limit(target));
  Tensor acc = gpu::tile_into_registers(s, conv, out, {{1, 1}, {1, vk}, {1, vy}, {1, vx}, {1, block, block}});
  // Reduction: blocks of input channels, rows and columns of the window, then each
  // channel of the block unrolled (and the columns of small windows).
  const auto *ac = acc.op().as<ComputeOpNode>();
  s[acc].unroll(ac->reduce_axis[3]);
  if (*as_const_int(ac->reduce_axis[2]->dom.extent) <= 3) s[acc].unroll(ac->reduce_axis[2]);
  return s;
}

}  // namespace tensorir::ops
