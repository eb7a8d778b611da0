// Schedules for the operators of ops/nn.h and ops/transform.h.
//
// On texture targets ("opengl -mode=fragment", "webgl") schedule_generic is all that is
// needed; GPU compute targets (TargetCaps::gpu_schedules) have the *_gpu schedules below,
// and build() gives any stage that binds no loop to a thread the default GPU schedule.
#pragma once
#include <vector>

#include "tensorir/target.h"
#include "tensorir/te/schedule.h"

namespace tensorir::autotune {
class Config;
}

namespace tensorir::ops {

// create_schedule(outs), then every stage tagged "injective" (pads, broadcasts, layout
// changes, element-wise maps) that is not an output is inlined into its readers.
Schedule schedule_generic(const std::vector<Tensor> &outs);

// CPU schedule of an injective result (reshape, transpose, concatenate, an element-wise
// map that no anchor took as its tail): schedule_generic, then, from 16384 elements on and
// where `target` runs on this process's thread pool (TargetCaps::runs_in_process), its
// axes before the last fused into one parallel loop (all of them, in chunks of 1024
// elements, when those are too few to share). Other results get schedule_generic alone.
Schedule schedule_injective_cpu(const Tensor &out, const Target &target);

// CPU schedule for the output of conv2d_nchwc (or conv2d_nchwc_packed): a register tile
// of output-channel vectors times output columns, computed row by row inside a parallel
// loop over (batch, channel group, row), or over (batch, row) with each row's groups in
// turn where the input is large and the weights small; a depthwise convolution pads
// the input rows of each output row there; a blocked result is written in vectors of its
// channel block. For the output of conv2d (or of the graph's conv3d, the same form over
// NCDHW) it materialises the padding, vectorizes over output columns and runs the
// channels in parallel. The register tile
// fits `target`: on "wasm" (128-bit vectors, 16 registers in browser engines) one
// channel block times 2 columns, elsewhere up to 2 blocks (1 when depthwise) times 14
// columns, each column's blocks in turn (one broadcast input live beside the
// accumulators); a depthwise tile is at most 8 columns.
//
// Its knobs (autotune/config.h; `config` null: every knob its fallback, the schedule
// described here): "tile_oc" output-channel blocks per register tile, "tile_ow" its
// columns, "tile_order" 1 runs each column's blocks in turn (0: each block's columns),
// "tile_ic" (where there are 8 or more input-channel blocks) takes that many blocks at a
// time, outside the rows with "parallel" 1 so that a channel group's weights come from
// memory once (0: all at once), "reduce_order" 1 puts the kernel's taps outside the input-channel blocks,
// "unroll_inner" unrolls the innermost reduction (the input channels of a block) where
// the unrolled tile stays under 512 copies, "parallel" 1 runs whole channel
// groups per parallel iteration instead of single rows, 2 runs rows in parallel, each
// row's channel groups in turn (the default, but for depthwise convolutions, where the
// weights are at most 640 KB and the input is over 1 MB or the result has 14 rows or
// more, so the input is read once and threads keep to bands of rows), and 3 runs two
// bands of rows in parallel, each band's groups in turn, each group's rows in turn (the
// default of depthwise convolutions with 28 rows or more), and for a padded depthwise
// convolution "pad_per_row" 1 pads the input rows each output row reads inside that
// row's loop (0: one pass over the whole input first) and "pad_rows" pads those of that
// many output rows at once (fallback 4 at stride 1, 1 at stride 2; 1 for a record made
// before the knob; with "parallel" 2 or "pad_per_row" 0 it has no effect), a pointwise
// one (1x1, stride 1) on rows of at most 7 columns has "tile_flat", a register tile of
// that many output positions running across rows, each parallel iteration a channel
// group's whole output whatever "parallel" says (0: tiles within a row; fallback the
// largest of 7, 14 and 28 that gives the tile's channel blocks at most 28 accumulators,
// 0 on "wasm" and for a record made before the knob), and where `target` has prefetch
// instructions (not depthwise) "prefetch", how many cache lines of the weight ahead each
// step of the innermost reduction asks for (0: none; fallback 32; a record made before
// the knob gets 0, the kernel it measured) and the partition knob "prefetch_input", how
// many input-channel blocks ahead each block asks for the input (0, 2 or 4; fallback 4
// where threads split the output channels, "parallel" 0 or 1 or "tile_flat", else 0; 0
// for a record made before the knob), and (not depthwise) "tile_tail" 1 copies each
// register tile back (through the tail) right after its reduction instead of each row
// after all its tiles (fallback 1, 0 on "wasm" and for a record made before the knob;
// no effect where the tile is the whole row, with "tile_flat", or with "tile_ic" and
// "parallel" 1); the direct form has "tile_k" (channels per tile) and "vector" (its
// columns' vector).
Schedule schedule_conv2d_llvm(const Tensor &out, const Target &target = Target("llvm"),
                              autotune::Config *config = nullptr);
// The same for conv2d_nchwc's (or conv2d's) output `conv` followed by an element-wise
// tail ending in `out` (bias, batch norm, residual add, relu): the tail is inlined into
// the stage that copies the blocked result back to NCHW (or out of the register tile),
// so it costs no extra pass over memory.
Schedule schedule_conv2d_llvm(const Tensor &conv, const Tensor &out, const Target &target = Target("llvm"),
                              autotune::Config *config = nullptr);

// CPU schedule for an operator whose result is channel-blocked (NCHW<c>c, 5-D), such as
// pooling after blocked convolutions: schedule_generic, then the axes before the last
// fused into one parallel loop and the channel block computed as a vector, with any
// reduction (a pooling window) moved outside that vector. Other results get
// schedule_generic alone. Knobs (the pools pass `config`): "parallel" 1 runs whole
// channel blocks per parallel iteration instead of rows, "unroll_window" unrolls a
// window of at most 64 taps.
Schedule schedule_blocked_llvm(const Tensor &out, autotune::Config *config = nullptr);

// CPU schedule for layer_norm over the last axis: the rows' sums, their squared
// deviations and the result each a parallel pass over rows, the reductions as 16 partial
// vectors, the result in vectors of 16. Over several axes, or with a tail:
// schedule_reduce_llvm.
Schedule schedule_layer_norm_llvm(const Tensor &out);

// CPU schedule for softmax and log_softmax along the last axis: rows in parallel, each
// row's maximum, exponentials and sum computed inside that loop, the exponentials and
// results as vectors. Other axes get schedule_blocked_llvm.
Schedule schedule_softmax_llvm(const Tensor &out);

// CPU schedule for reductions (ops::reduce, arg_reduce, layer_norm, batch_matmul):
// schedule_generic, then in every stage left that is not inlined the axes before the last
// fused into one loop (the one axis of a 1-D result) run in parallel when it has more
// than one iteration.
Schedule schedule_reduce_llvm(const Tensor &out);
// CPU schedule for the output of batch_matmul, as schedule_dense_llvm's: blocks of output
// columns of every row and batch in parallel, accumulated as vectors in a local tile
// (schedule_reduce_llvm when no vector of 16, 8 or 4 divides the columns). Knobs: "tile_y"
// rows and "tile_x" columns of a register block; their defaults fit the block in the
// vector registers of `target` (8 x 32 with AVX-512, 2 x 32 with AVX2, 2 x 16 on wasm).
Schedule schedule_batch_matmul_llvm(const Tensor &out, autotune::Config *config = nullptr,
                                    const Target &target = Target("llvm"));

// CPU schedule for the output of dense: rows of the result in parallel, blocks of output
// columns accumulated as vectors in a local tile.
Schedule schedule_dense_llvm(const Tensor &out, autotune::Config *config = nullptr);
// The same for dense's output `dense` followed by an element-wise tail ending in `out`:
// the dense stage is the local tile of a block of columns, computed inside the tail's
// parallel block loop, and the tail reads it from there. Knob (autotune/config.h):
// "tile_x", the block of columns.
Schedule schedule_dense_llvm(const Tensor &dense, const Tensor &out, autotune::Config *config = nullptr);
// CPU schedule for dense_packed (`dense`), alone (out == dense) or followed by an
// element-wise tail ending in `out`: register blocks of `rows` x block output elements
// accumulate across the whole reduction (the block's columns one or more vectors, each
// row a broadcast of data), panels of columns in parallel.
// Knobs: "tile_y" rows per register block, "unroll_k" the reduction unrolled by 4,
// "panels" how many of the weight's panels a block reads side by side, each with
// accumulators of its own (a divisor of the panel count up to 8; fallback the least
// giving 4 independent chains of FMAs, so 5 for 1000 classes in panels of 8 at batch 1;
// 1 for a record made before the knob), and
// where `target` has prefetch instructions "prefetch", how many cache lines of the
// weight ahead each step of the reduction asks for (0: none; fallback 32; a record made
// before the knob gets 0, the kernel it measured).
Schedule schedule_dense_packed_llvm(const Tensor &dense, const Tensor &out, const Target &target,
                                    autotune::Config *config = nullptr);
// The same for "llvm".
Schedule schedule_dense_packed_llvm(const Tensor &dense, const Tensor &out, autotune::Config *config = nullptr);

// GPU compute schedules (TargetCaps::gpu_schedules), sized by the target's
// max_work_group_size. Each takes the operator's result `op` and the end of the
// element-wise tail fused after it, `out` (equal to `op` without a tail), and computes the
// tail where the result leaves its registers. The sizes of their register tiles are knobs
// of `config` (null: each its fallback, the sizes described here), named in the files.
//
// conv2d (NCHW, OIHW, any groups, strides, padding and dilation): each invocation
// accumulates up to 8 output channels x 7 rows x 2 columns, copying per input channel the
// window and weights it reads into registers first; a work-group covers a tile of output
// pixels of the same channels. On a CPU driver (TargetCaps::work_item_vector_lanes) a
// work-item per group computes vectors along output columns instead, when at least 4
// lanes divide them.
Schedule schedule_conv2d_gpu(const Tensor &op, const Tensor &out, const Target &target,
                             autotune::Config *config = nullptr);
// conv2d of channel-blocked data to a blocked result (conv2d_packed_direct with
// blocked_out) on a CPU driver (TargetCaps::work_item_vector_lanes, the channel block):
// a work-item per group accumulates up to 16 vectors (output pixels x one or two blocks
// of output channels), from vector loads of weights and a broadcast of each data element.
Schedule schedule_conv2d_packed_gpu(const Tensor &op, const Tensor &out, const Target &target,
                                    autotune::Config *config = nullptr);
// dense and batch_matmul: each invocation accumulates up to 4 rows x 4 columns; a
// work-group covers up to 64 column tiles and as many rows as fit. On a CPU driver a
// work-item per group accumulates up to 8 rows x 2 vectors of columns.
Schedule schedule_matmul_gpu(const Tensor &op, const Tensor &out, const Target &target,
                             autotune::Config *config = nullptr);
// Pooling and other window reductions (no tail): one invocation per output element,
// windows of up to 7 unrolled.
Schedule schedule_pool_gpu(const Tensor &out, const Target &target);

}  // namespace tensorir::ops
