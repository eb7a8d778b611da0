// GPU compute schedule for conv2d (NCHW, OIHW; any groups, strides, padding, 1x1 alike):
// direct convolution, each invocation accumulating a register tile of up to 8 output
// channels x up to 7 output rows x 2 output columns. For each input channel of the
// reduction the invocation first copies the input window its tile reads and the tile's
// weights into registers ("local" stages), so every element it loads serves many
// multiply-adds: loads are what cost most on a CPU driver (Mesa's llvmpipe loads storage
// buffers lane by lane), and on a GPU they are what keeps the ALUs waiting. On a CPU
// driver (PoCL) a work-item per group computes vectors along the output columns instead;
// convolutions whose channels split into the vector width take the blocked layout and
// schedule_conv2d_packed_gpu there.
#include <algorithm>

#include "op_util.h"
#include "schedule_gpu_util.h"
#include "tensorir/ops/schedule.h"

namespace tensorir::ops {

namespace {

// Lowering refuses to unroll more than this many copies of one loop body.
constexpr int64_t kMaxUnrolled = 1024;

int64_t extent_of(const IterVar &iv) { return *as_const_int(iv->dom.extent); }

}  // namespace

Schedule schedule_conv2d_gpu(const Tensor &conv, const Tensor &out, const Target &target, autotune::Config *cfg) {
  const auto *c = conv.op().as<ComputeOpNode>();
  TIR_USER_CHECK(c && c->tag == "conv2d" && conv.ndim() == 4 && c->reduce_axis.size() == 3)
      << "schedule_conv2d_gpu: tensor " << conv.name() << " is not the NCHW output of conv2d";
  const std::vector<int64_t> shape = detail::const_shape(conv, "schedule_conv2d_gpu");
  const int64_t K = shape[1], OH = shape[2], OW = shape[3];
  const int64_t R = extent_of(c->reduce_axis[1]), S = extent_of(c->reduce_axis[2]);
  const int limit = gpu::group_limit(target);

  // The window's loops unrolled when small (3x3, 1x1), else its columns (7x7).
  const bool unroll_rows = R * S <= 9, unroll_cols = S <= 7;
  const int64_t window = unroll_rows ? R * S : unroll_cols ? S : 1;
  // A grouped convolution's tile stays within one group, so the input channels it reads
  // at each step of the reduction are one.
  const std::vector<int64_t> in = detail::const_shape(c->input_tensors()[0], "schedule_conv2d_gpu");
  const int64_t groups = in[1] / extent_of(c->reduce_axis[0]);
  autotune::Config fallback;
  autotune::Config &knobs = cfg ? *cfg : fallback;
  // Knobs "gpu_channels" and "gpu_rows": the register tile's output channels and rows
  // (each the largest divisor up to the value chosen).
  const int64_t vk = gpu::divisor_at_most(
      K / groups, knobs.define_knob("gpu_channels", {1, 2, 4, 8}, gpu::first_divisor(K / groups, {8, 4, 2})));
  // On a CPU driver (vector lanes given), a work-item per group computes vectors along
  // the output columns: 8 channels x 2 vectors (of rows or columns) of accumulators.
  const int64_t lanes = gpu::vector_dividing(OW, gpu::vector_lanes(target));
  const int64_t vx = lanes > 1 ? (OH % 2 == 0 ? lanes : gpu::first_divisor(OW, {2 * lanes, lanes})) : OW % 2 == 0 ? 2 : 1;
  const int64_t most_rows = lanes > 1 ? (vx == lanes ? 2 : 1) : std::min<int64_t>(7, kMaxUnrolled / (vk * vx * window));
  // Other choices within the same bounds: the unrolled copies, or 16 vector accumulators.
  const int64_t cap = lanes > 1 ? 16 / (vk * (vx / lanes)) : kMaxUnrolled / (vk * vx * window);
  const int64_t rows_knob = knobs.define_knob("gpu_rows", {1, 2, 4, 7}, most_rows);
  const int64_t vy = gpu::divisor_at_most(OH, std::min(rows_knob, std::max<int64_t>(cap, most_rows)));
  const int64_t tx = lanes > 1 ? 1 : gpu::divisor_at_most(OW / vx, limit);
  const int64_t ty = lanes > 1 ? 1 : gpu::divisor_at_most(OH / vy, limit / tx);

  Schedule s = create_schedule({out});
  gpu::inline_others(s, {conv, out});
  Tensor acc = gpu::tile_into_registers(s, conv, out, {{1, 1}, {1, vk}, {ty, vy}, {tx, vx, std::max<int64_t>(lanes, 1)}});
  Stage a = s[acc];
  const auto *ac = acc.op().as<ComputeOpNode>();
  if (unroll_rows) a.unroll(ac->reduce_axis[1]);
  if (unroll_cols) a.unroll(ac->reduce_axis[2]);

  // Per input channel, the input window and the weights of the tile in registers, their
  // loops unrolled unless a bound on the window's size says the copies would be too many.
  const std::vector<Tensor> inputs = ac->input_tensors();
  const int64_t rows = std::min(in[2], vy * (in[2] / OH + 1) + R), cols = std::min(in[3], vx * (in[3] / OW + 1) + S);
  const int64_t copies[] = {rows * cols, vk * R * S};
  for (int i = 0; i < 2; ++i) {
    Tensor cached = s.cache_read(inputs[size_t(i)], "local", {acc});
    Stage cs = s[cached];
    cs.compute_at(a, ac->reduce_axis[0]);
    if (copies[i] > kMaxUnrolled) continue;
    for (int d = 0; d < cached.ndim(); ++d) cs.unroll(cached.axis(d));
  }
  return s;
}

}  // namespace tensorir::ops
