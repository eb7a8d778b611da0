// Winograd convolution F(m x m, 3 x 3) for 3x3, stride-1 convolutions (groups 1):
//   Y = A^T [ (G g G^T) . (B^T d B) ] A
// per tile of m x m outputs, which reads an alpha x alpha (alpha = m + 2) tile of the
// input. The multiplications per output drop from 9 C K to alpha^2 / m^2 C K (4 for m = 2,
// 2.25 for m = 4, 1.78 for m = 6) at the price of the two transforms and of rounding
// error that grows with m.
//
//   Tensor U = winograd_weight_transform(weight, 4);     // once, on a constant weight
//   Tensor Y = conv2d_winograd(data, U, {1, 1}, 4);      // [N][K][OH][OW]
//   Schedule s = schedule_conv2d_winograd_llvm(Y, Y);
#pragma once
#include <array>
#include <string>
#include <vector>

#include "tensorir/target.h"
#include "tensorir/te/schedule.h"

namespace tensorir::autotune {
class Config;
}

namespace tensorir::ops {

// The transform matrices of F(m, 3) by the Cook-Toom construction, from the
// interpolation points 0, 1, -1, 2, -2, 1/2, -1/2 (the first alpha - 1 of them) and
// infinity: AT [m][alpha], G [alpha][3], BT [alpha][alpha], row-major. m is 2, 4 or 6.
struct WinogradMatrices {
  int m = 0, alpha = 0;
  std::vector<double> AT, G, BT;
};
WinogradMatrices winograd_matrices(int m);

// The tile sizes conv2d_winograd takes.
bool winograd_tile_supported(int m);

// The columns of a panel of the transformed weight: the widest of 32, 16, 8 dividing K,
// else K.
int winograd_panel(int64_t K);

// The transformed weight U [alpha][alpha][K/b][C][b] (b = `panel`, by default
// winograd_panel(K)), U[i][j][k/b][c][k%b] = (G g_kc G^T)[i][j], in panels of b output
// channels so that the product reads each panel's rows contiguously (on "webgl" b = 4: a
// texel holds 4 output channels of one input channel), from weight OIHW [K][C][3][3] or
// packed OIHW<ci>i<co>o [K/co][C/ci][3][3][ci][co] (alter_conv_layout's). Meant for
// constant weights, computed once (constant folding).
Tensor winograd_weight_transform(const Tensor &weight, int m, const std::string &name = "winograd_weight",
                                 int panel = 0);

// The stride-1 3x3 convolution of `data` (NCHW [N][C][H][W], or channel-blocked
// NCHW<ci>c [N][C/ci][H][W][ci]) with the transformed weight U [alpha][alpha][K/b][C][b],
// zero `padding` (rows, columns) on both sides. Stages: the input transform per tile
// (tagged "winograd_input"), a batched product over the alpha^2 positions
// ("winograd_gemm", [alpha][alpha][tiles][K]), the output transform per tile
// ("winograd_output", [m][m][tiles][K]) and the result ("conv2d_winograd"): NCHW
// [N][K][OH][OW], or with `out_block` > 0 NCHW<out_block>c [N][K/out_block][OH][OW][out_block].
// With `channel_block` b > 0 the stages hold blocks of b channels with the tiles inside,
// [alpha][alpha][C/b][tiles][b] and [alpha][alpha][K/b][tiles][b] (b dividing C and K):
// what a fragment shader reads and writes as texels of b channels, neighbouring texels of
// the product then sharing their reads of U (b must be U's panel).
Tensor conv2d_winograd(const Tensor &data, const Tensor &U, std::array<int, 2> padding, int m, int out_block = 0,
                       const std::string &name = "conv2d_winograd", int channel_block = 0);

// The knobs of the CPU schedule; 0 picks the measured default.
struct WinogradSchedule {
  int gemm_rows = 0;       // tiles per register block of the product (broadcasts)
  int input_vector = 0;    // input channels per vector of the input transform
  int output_vector = 0;   // output channels per vector of the output transform (NCHW results)
  // 1: the input transform and the product computed per row of tiles inside the output's
  // parallel loop (their buffers stay in cache); -1: three parallel nests; 0: per row when
  // the transformed weight is smaller than the transformed input.
  int per_row = 0;
  // Cache lines of the transformed weight ahead that each input channel of the product
  // asks for (0: none).
  int prefetch_lines = 0;
};

// The knobs above asked of a tuning configuration: "winograd_rows" (gemm_rows, 0, 4, 6 or
// 8) and "winograd_per_row" (per_row, 0, 1 or -1), each falling back to 0, the measured
// default, and where `target` has prefetch instructions the optional
// "winograd_prefetch" (prefetch_lines: 0, 16, 32 or 64, falling back to 32; 0 for a record
// made before it). Their
// choices depend on nothing but the target, so a template choosing the tile by another
// knob asks the same ones whatever the tile.
WinogradSchedule winograd_schedule_knobs(autotune::Config &cfg, const Target &target = Target("llvm"));

// CPU schedule ("llvm", "wasm") for conv2d_winograd's result `conv`, followed by an
// element-wise tail ending in `out` (bias, residual add, relu; `out` == `conv` without
// one), computed with the output transform per tile and channel vector. The input
// transform runs per tile and channel vector (the tile's window and the row transform in
// registers), the product in register blocks of gemm_rows tiles x one panel of U's
// channels. Either all three per row of tiles inside one parallel loop (per_row), or as
// three parallel loop nests (positions and tile blocks in parallel for the product).
Schedule schedule_conv2d_winograd_llvm(const Tensor &conv, const Tensor &out, const Target &target = Target("llvm"),
                                       const WinogradSchedule &knobs = {});

// The knobs of the GPU compute schedule.
struct WinogradGpuSchedule {
  int tiles = 8;     // tiles per invocation of the product (at most; a divisor of the tiles)
  int channels = 8;  // output channels per invocation of the product (on a CPU driver: vectors)
  int threads = 64;  // invocations per work-group of the product (GPUs; a CPU driver runs one)
};
// The knobs above asked of a tuning configuration: "winograd_gpu_tiles" (2, 4, 8, 16;
// fallback 8), "winograd_gpu_channels" (2, 4, 8, 16 channels, fallback 8; on a CPU driver
// 1 or 2 vectors, fallback 2) and on GPUs "winograd_gpu_threads" (16, 64, 256; fallback
// 64). Their choices depend on nothing but the target.
WinogradGpuSchedule winograd_gpu_knobs(autotune::Config &cfg, const Target &target);
// GPU compute schedule ("opengl", "opencl": TargetCaps::gpu_schedules) for
// conv2d_winograd's result `conv` (channel_block 0) followed by an element-wise tail
// ending in `out`: the input transform and the output transform an invocation per tile
// and channel (vector), their first halves in registers; the product in register tiles
// of `tiles` tiles x `channels` output channels; the result's gather with the tail.
Schedule schedule_conv2d_winograd_gpu(const Tensor &conv, const Tensor &out, const Target &target,
                                      const WinogradGpuSchedule &knobs = {});
// "webgl" schedule for conv2d_winograd's result `conv` computed with channel_block 4 and
// followed by an element-wise tail ending in `out` (`out` == `conv` without one): a
// fragment pass per stage (input transform, product, output transform), the result's
// gather computed where the tail reads it. Its knobs (`cfg`, may be null) are those the
// direct convolution of the same workload has on "webgl" (draw buffers, unroll budget,
// reduction chunk: ops::schedule_fragment), so that a template choosing the algorithm by
// a knob asks the same ones whatever it chooses.
Schedule schedule_conv2d_winograd_fragment(const Tensor &conv, const Tensor &out, const Target &target,
                                           autotune::Config *cfg);

}  // namespace tensorir::ops
