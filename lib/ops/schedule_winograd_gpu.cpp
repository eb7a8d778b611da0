// GPU compute schedule of conv2d_winograd ("opengl", "opencl"): four kernels. The input
// transform and the output transform run an invocation per tile and channel (a vector of
// channels on a CPU driver), each with its tile's first half-transform in registers and
// every transform loop unrolled, so that the coefficients are constants. The product is
// a batched matrix product over the alpha^2 positions, each invocation accumulating a
// register tile of tiles x output channels as the direct convolution's schedule does. The
// result's gather from the output tiles runs with the element-wise tail, an invocation
// per element.
#include <algorithm>
#include <numeric>

#include "op_util.h"
#include "schedule_gpu_util.h"
#include "tensorir/autotune/config.h"
#include "tensorir/ops/winograd.h"
#include "winograd_stages.h"

namespace tensorir::ops {

namespace {

int64_t dim(const Tensor &t, int i) { return *as_const_int(t.shape()[size_t(i)]); }

// The lanes of a work-item's vectors along `channels` (gpu::vector_dividing), else 1.
int64_t channel_vector(int64_t channels, const Target &target) {
  return std::max<int64_t>(1, gpu::vector_dividing(channels, gpu::vector_lanes(target)));
}

// A transform `t` [rows][cols][tiles][channels] computed per tile and channel vector, its
// first half `half` (the same layout) in registers at that invocation.
void schedule_transform(Schedule &s, const Tensor &t, const Tensor &half, int64_t vec, int64_t threads) {
  Stage st = s[t];
  auto [co, ci] = st.split(t.axis(3), static_cast<int>(vec));
  st.reorder({t.axis(2), co, t.axis(0), t.axis(1), ci});
  const IterVar item = gpu::bind_groups(st, st.fuse(t.axis(2), co), threads);
  st.unroll(t.axis(0));
  st.unroll(t.axis(1));
  if (vec > 1) st.vectorize(ci);
  Stage h = s[half];
  h.compute_at(st, item);
  h->scope = "local";
  h.unroll(half.axis(0));
  h.unroll(half.axis(1));
  if (vec > 1) h.vectorize(half.axis(3));
}

}  // namespace

WinogradGpuSchedule winograd_gpu_knobs(autotune::Config &cfg, const Target &target) {
  WinogradGpuSchedule k;
  const bool lanes = gpu::vector_lanes(target) > 0;
  // Fallbacks measured on 64 channels at 56x56, F(4, 3): llvmpipe 1.9x faster with 8 x 8
  // than with 4 x 4, PoCL 1.3x with 8 tiles x 2 vectors than with 4 x 2.
  k.tiles = int(cfg.define_knob("winograd_gpu_tiles", {2, 4, 8, 16}, 8));
  k.channels = int(cfg.define_knob(
      "winograd_gpu_channels", lanes ? std::vector<int64_t>{1, 2} : std::vector<int64_t>{2, 4, 8, 16}, lanes ? 2 : 8));
  if (!lanes) k.threads = int(cfg.define_knob("winograd_gpu_threads", {16, 64, 256}, 64));
  return k;
}

Schedule schedule_conv2d_winograd_gpu(const Tensor &conv, const Tensor &out, const Target &target,
                                      const WinogradGpuSchedule &knobs) {
  const detail::WinogradStages st = detail::winograd_stages(conv, "schedule_conv2d_winograd_gpu");
  TIR_USER_CHECK(st.V.ndim() == 4) << "schedule_conv2d_winograd_gpu: " << conv.name()
                                   << " computes its stages in channel blocks (channel_block > 0), the fragment "
                                      "shaders' form; build it with channel_block = 0 for a compute target";
  TIR_USER_CHECK(knobs.tiles >= 1 && knobs.channels >= 1 && knobs.threads >= 1)
      << "schedule_conv2d_winograd_gpu: tiles, channels and threads must be at least 1 (" << knobs.tiles << ", "
      << knobs.channels << ", " << knobs.threads << ")";
  const int64_t C = dim(st.V, 3), K = dim(st.M, 3), T = dim(st.M, 2);
  const bool lanes = gpu::vector_lanes(target) > 0;
  const int64_t limit = gpu::group_limit(target);
  // A work-item per group on a CPU driver, whose vectors are the work-item's own.
  const int64_t group = lanes ? 1 : limit;

  Schedule s = create_schedule({out});
  gpu::inline_others(s, {out, st.W1, st.V, st.M, st.Z, st.O});
  // The input transform reads vectors of channels only where they are contiguous, in a
  // channel-blocked input: gathers along NCHW's channels are slow and slow to compile.
  const Tensor data = st.W1.op().as<ComputeOpNode>()->input_tensors()[0];
  const int64_t in_vec = data.ndim() == 5 ? channel_vector(std::gcd(C, dim(data, 4)), target) : 1;
  schedule_transform(s, st.V, st.W1, in_vec, group);
  schedule_transform(s, st.O, st.Z, channel_vector(K, target), group);
  if (lanes) {
    // A work-item per row of the result, its channel block's lanes one vector: a
    // work-item per element would cost a CPU driver a work-group each.
    Stage o = s[out];
    IterVar row = out.axis(0);
    for (int d = 1; d < 3; ++d) row = o.fuse(row, out.axis(d));
    o.bind(row, thread_axis("blockIdx.x"));
    if (out.ndim() == 5 && channel_vector(dim(out, 4), target) == dim(out, 4)) o.vectorize(out.axis(4));
  } else {
    gpu::bind_flat(s, out, group);
  }

  // The product [alpha][alpha][tiles][K]: a register tile of tiles x channels per
  // invocation (vectors of channels on a CPU driver), a work-group of invocations along
  // the channels, then the tiles.
  const int64_t rt = gpu::divisor_at_most(T, knobs.tiles);
  gpu::AxisTile tiles{1, rt}, channels;
  if (lanes) {
    const int64_t vec = channel_vector(K, target);
    channels = {1, K % (knobs.channels * vec) == 0 ? knobs.channels * vec : vec, vec};
  } else {
    const int64_t rk = gpu::divisor_at_most(K, knobs.channels);
    const int64_t threads = std::min<int64_t>(knobs.threads, limit);
    const int64_t tk = gpu::divisor_at_most(K / rk, threads);
    tiles.threads = gpu::divisor_at_most(T / rt, threads / tk);
    channels = {tk, rk};
  }
  const Tensor acc = gpu::tile_into_registers(s, st.M, st.M, {{1, 1}, {1, 1}, tiles, channels});
  if (lanes) return s;
  // Per input channel, the tile's transformed inputs in registers first: a CPU driver's
  // GL loads lane by lane, so each load should serve several multiply-adds. (The
  // weights' rows may cross a panel, which makes their copy's extent symbolic.)
  const auto *ac = acc.op().as<ComputeOpNode>();
  const Tensor cached = s.cache_read(st.V, "local", {acc});
  Stage cs = s[cached];
  cs.compute_at(s[acc], ac->reduce_axis[0]);
  for (int d = 0; d < cached.ndim(); ++d) cs.unroll(cached.axis(d));
  return s;
}

}  // namespace tensorir::ops
