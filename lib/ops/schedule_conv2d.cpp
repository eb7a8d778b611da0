// CPU schedules for conv2d_nchwc (register-blocked, vectorized over output channels) and
// for plain conv2d and conv3d (vectorized over output columns).
#include <algorithm>
#include <tuple>

#include "op_util.h"
#include "tensorir/autotune/config.h"
#include "tensorir/ops/schedule.h"

namespace tensorir::ops {

namespace {

const ComputeOpNode *compute_of(const Tensor &t) { return t.op().as<ComputeOpNode>(); }

int64_t extent_of(const IterVar &iv) { return *as_const_int(iv->dom.extent); }

// The first of `candidates` that divides n, or 0.
int first_divisor(int64_t n, std::initializer_list<int> candidates) {
  for (int c : candidates)
    if (n % c == 0) return c;
  return 0;
}

// The output columns of one register tile, at most `most`: a divisor of the row from 4 up,
// else the whole row when it fits, else the tile from 4 to 8 that leaves the shortest
// tail (it gets a loop of its own). Tiles of 1 to 3 columns would feed each weight
// vector load 1 to 3 FMAs only (SqueezeNet's rows of 13 and 27).
int column_tile(int64_t width, int most) {
  if (const int d = first_divisor(width, {7, 8, 6, 5, 4})) return d;
  if (width <= most) return static_cast<int>(width);
  int best = 8;
  for (int t = 8; t >= 4; --t)
    if ((width + t - 1) / t * t - width < (width + best - 1) / best * best - width) best = t;
  return best;
}

// The columns of a wide register tile (columns outside channel blocks, so that only the
// weight vectors and one broadcast are live besides the accumulators): the widest
// divisor of the row from 4 up to `most` columns, else column_tile's. On AVX-512 two
// channel blocks x 14 columns (28 accumulators) run 1.1-1.2x faster than x 7 on
// ResNet's 1x1 and 3x3 layers.
int wide_column_tile(int64_t width, int most) {
  for (int t = std::min<int>(most, 16); t >= 4; --t)
    if (width % t == 0) return t;
  return column_tile(width, most);
}

// The largest divisor of n that is at most `most` (1 at least).
int64_t divisor_at_most(int64_t n, int64_t most) {
  for (int64_t d = std::max<int64_t>(1, std::min(n, most)); d > 1; --d)
    if (n % d == 0) return d;
  return 1;
}

// The column tiles "tile_ow" offers for rows of `width`: the divisors up to 16, the
// shortest-tail tile and 2 (the fallbacks of column_tile and of "wasm"), and 6 (with 4
// channel blocks, 24 accumulators and 10 loads per 24 FMAs, the densest AVX-512 tile),
// from the width alone so that every configuration has the same choices.
std::vector<int64_t> column_tiles(int64_t width) {
  std::vector<int64_t> tiles;
  for (int64_t d = 1; d <= std::min<int64_t>(width, 16); ++d)
    if (width % d == 0) tiles.push_back(d);
  for (int64_t t : {int64_t(column_tile(width, 0)), std::min<int64_t>(width, 2), std::min<int64_t>(width, 6)})
    if (std::find(tiles.begin(), tiles.end(), t) == tiles.end()) tiles.push_back(t);
  return tiles;
}

int64_t bytes_of(const Tensor &t) {
  int64_t n = t.dtype().bytes();
  for (int64_t d : detail::const_shape(t, "schedule_conv2d_llvm")) n *= d;
  return n;
}

// Whether to run each output row's channel groups in turn ("parallel" 2), so that the
// input rows it reads come from memory (or another core's cache) once rather than once
// per group (not depthwise: there each group reads channels of its own), where the
// weights, now read once per row, stay in the core's L2 (at most 640 KB; ResNet-50's
// layer3 and layer4 weights run 1.2-1.8x slower so). It pays where the input outgrows
// the L2 (ResNet-50's 1x1 convolutions that reduce 256 or 512 channels at 56x56 and
// 28x28: 1.1-1.5x faster at 2 threads), and wherever there are 14 rows or more: threads
// then take bands of rows, as the layer before wrote them, so activations stay in the
// cache of the core that made them (MobileNetV2 4-5% faster at 1 and 2 threads, ResNet-50
// and ResNet-18 4-5% at 2 threads). At 7 rows two threads would split them 4:3.
bool rows_outer_pays(const Tensor &input, const Tensor &weight, int64_t rows) {
  if (bytes_of(weight) > (int64_t(640) << 10)) return false;
  return bytes_of(input) > (int64_t(1) << 20) || rows >= 14;
}

// The bands of rows of "parallel" 3.
constexpr int64_t kRowBands = 2;

// The fallback of "parallel": 2 where rows_outer_pays. A depthwise group slides down its
// rows with the input rows it shares with the next row in L1, so its rows stay inside the
// groups; at 28 rows and more in bands of rows (3), each thread's band the rows of the
// input the layer before wrote on that core (MobileNetV2's depthwise layers at 112x112 to
// 28x28 1.15-1.45x faster at 2 threads, the same at 1; at 14 rows 1.2x slower).
int64_t default_parallel(bool depthwise, const Tensor &input, const Tensor &weight, int64_t rows) {
  if (depthwise) return rows >= 28 ? 3 : 0;
  return rows_outer_pays(input, weight, rows) ? 2 : 0;
}

// OB[n][ob][y][x][o] accumulates a tile of (2 channel blocks, 1 when depthwise) x (up to
// 8 columns) vectors in registers (on "wasm" 1 x 2: engines map its 128-bit vectors to 16
// registers, and a larger tile spills every accumulator on every step), one output row at
// a time, inside O's parallel loop over (n, channel group, row), or over (n, row) with the
// groups in turn (rows_outer_pays); the copy back to NCHW follows while the row is in
// cache. A depthwise convolution pads the input rows each output row reads there.
// `out` is conv2d_nchwc's output or the end of an element-wise tail after it: the tail is
// inlined and `out` takes the copy's place, loop for loop, so the tail costs no pass.
// Those are the fallbacks of the knobs (schedule.h lists them).
Schedule schedule_nchwc(const Tensor &conv, const Tensor &out, const Target &target, autotune::Config &cfg) {
  const Tensor OB = compute_of(conv)->input_tensors()[0];
  const std::vector<Tensor> packed = compute_of(OB)->input_tensors();
  const Tensor IP = packed[0], WP = packed[1];
  const int co = static_cast<int>(*as_const_int(OB.shape()[4]));
  const bool small_registers = target.caps().small_vector_registers;
  const int64_t groups = extent_of(OB.axis(1)), width = extent_of(OB.axis(3));
  const ComputeOpNode *obc = compute_of(OB);
  // Depthwise: the taps are the only reduction.
  const bool depthwise = obc->reduce_axis.size() == 2;
  // A knob's block count is a bound: the tile takes the largest divisor of the groups
  // below it, so that no tile is partial whatever the channel block. A depthwise block
  // reads inputs of its own, which a second block would not share, only double the rows
  // in cache (1.0-1.3x slower on MobileNetV2's layers).
  const int oc_blocks = static_cast<int>(divisor_at_most(
      groups, cfg.define_knob("tile_oc", {1, 2, 4}, !small_registers && !depthwise && groups % 2 == 0 ? 2 : 1)));
  // The tile's order: 0 each channel block's columns in turn (the broadcast inputs of all
  // columns live across the blocks), 1 each column's channel blocks in turn (one
  // broadcast live: room for 28 accumulators in AVX-512's 32 registers).
  const bool columns_outer = cfg.define_knob("tile_order", {0, 1}, !small_registers && !depthwise ? 1 : 0);
  // On wasm 2 columns even where they do not divide the row (7 in ResNet's last stage):
  // the tail gets a loop of its own, and 4 accumulators alone wait on each other's adds.
  const int x_tile = static_cast<int>(cfg.define_knob(
      "tile_ow", column_tiles(width),
      small_registers ? (width >= 2 ? 2 : 1)
      : columns_outer ? wide_column_tile(width, 28 / oc_blocks)
                      : column_tile(width, 16 / oc_blocks)));
  std::vector<IterVar> reduce(obc->reduce_axis.begin(), obc->reduce_axis.end());
  // Input-channel blocking ("tile_ic" blocks of input channels at a time, 0: none), with
  // "parallel" 1 around each channel group's whole output: the group's weights are read
  // from memory once, those of a block staying in cache for every row, instead of once
  // per row (1x1 layers of 1024 channels at 14x14: up to 1.15x faster).
  int64_t ic_chunk = 0;
  if (!depthwise) {
    const int64_t ic_blocks = extent_of(obc->reduce_axis[0]);
    std::vector<int64_t> chunks = {0};
    for (int64_t c : {4, 8, 16})
      if (c < ic_blocks && ic_blocks % c == 0) chunks.push_back(c);
    if (chunks.size() > 1) ic_chunk = cfg.define_knob("tile_ic", chunks, 0);
  }
  // Taps (ry, rx) outside the input-channel blocks, or inside them as declared.
  const bool taps_outside = reduce.size() >= 3 && cfg.define_knob("reduce_order", {0, 1}, 0);
  if (taps_outside) std::rotate(reduce.begin(), reduce.begin() + 1, reduce.end() - 1);
  const bool unroll_inner = cfg.define_knob("unroll_inner", {0, 1}, 0);
  const int64_t parallel_mode =
      cfg.define_partition_knob("parallel", {0, 1, 2, 3}, default_parallel(depthwise, IP, WP, extent_of(OB.axis(2))));
  // Pointwise (1x1, stride 1) on rows of at most 7 columns: a channel group's output
  // positions, rows after rows, are one run in the blocked layout, and so are the inputs
  // they read; a register tile of "tile_flat" positions (0: a row's columns) runs across
  // rows, each parallel iteration a group's whole output. Rows of 7 columns give 2 channel
  // blocks 14 accumulators of AVX-512's 32 registers and read the group's weights once per
  // row; tiles of 14 fill 28 and read them once per 2 rows (ResNet-50's 2048 -> 512 layer
  // at 7x7 1.15-1.3x faster). The fallback is the largest choice up to 28 accumulators.
  // Only on short rows: elsewhere the tile's whole groups in parallel would change which
  // thread computes which rows, which the tuner leaves to the defaults (parallel 2 and 3
  // put bands of rows on each thread there). A record made before the knob gets 0, the
  // kernel it measured.
  const bool pointwise = !depthwise && width <= 7 && extent_of(obc->reduce_axis[1]) == 1 &&
                         extent_of(obc->reduce_axis[2]) == 1 && *as_const_int(IP.shape()[2]) == extent_of(OB.axis(2)) &&
                         *as_const_int(IP.shape()[3]) == width;
  const int64_t flat_fallback = small_registers ? 0 : 28 / oc_blocks >= 28 ? 28 : 28 / oc_blocks >= 14 ? 14 : 7;
  const int64_t flat = pointwise ? cfg.define_optional_knob("tile_flat", {0, 7, 14, 28}, flat_fallback, 0) : 0;
  const bool rows_parallel = parallel_mode == 0 && !flat;
  const bool rows_outer = parallel_mode == 2 && !flat;
  const bool row_bands = parallel_mode == 3 && !flat;
  // A depthwise convolution's padded input made row by row where the output row needs
  // it, in cache, rather than in a pass of its own over the whole input: each input row is
  // padded R / stride times, but the pass cost more than the convolution (MobileNetV2's
  // depthwise layers: 1.4-3.4x faster on one core).
  const bool pad_per_row = compute_of(IP) && depthwise && cfg.define_knob("pad_per_row", {0, 1}, 1);
  // "pad_rows": the output rows whose input rows are padded together (at most: a divisor
  // of a thread's rows). Alone, each output row pads the R input rows it reads, R / stride
  // times the input in all; a band of b rows pads (b - 1) * stride + R rows. At stride 1,
  // 4 rows copy half as much and their rows, 44 KB at 112 columns, stay in L1
  // (MobileNetV2's depthwise layers at 56x56 to 14x14 1.05-1.15x faster on one core); at
  // stride 2 the copy saved is smaller than what the longer band costs (its 112x112 layer
  // 1.05-1.1x slower). A record made before the knob gets 1, the kernel it measured.
  const bool strided = *as_const_int(IP.shape()[2]) >= 2 * extent_of(OB.axis(2));
  const int64_t pad_rows =
      compute_of(IP) && depthwise ? cfg.define_optional_knob("pad_rows", {1, 2, 4, 8}, strided ? 1 : 4, 1) : 1;
  const int64_t pad_band = pad_per_row && parallel_mode != 2 ? pad_rows : 1;
  // "tile_tail" 1: the copy back (and the element-wise tail) runs per register tile, right
  // after its reduction, not per row: the tile's accumulators go from registers to the
  // output instead of through a row buffer and a second pass. Layers with few input
  // channels gain most (MobileNetV2's 16 -> 96 at 112x112 1.6x faster, the stem 1.2x;
  // the model 4% on one core, 7% on two). Where the tile is the whole row or a thread
  // keeps a group's rows (tile_ic with parallel 1, tile_flat) it changes nothing. Not for
  // depthwise layers, whose rows pad their input with the row. A record made before the
  // knob gets 0, the kernel it measured.
  const bool tail_per_tile = !depthwise && cfg.define_optional_knob("tile_tail", {0, 1}, small_registers ? 0 : 1, 0);

  Schedule s = create_schedule({out});
  for (const Stage &st : s.stages()) {
    const ComputeOpNode *c = st.op().as<ComputeOpNode>();
    const Operation &op = st.op();
    const bool kept = op.same_as(out.op()) || op.same_as(OB.op()) || op.same_as(IP.op()) || op.same_as(WP.op());
    if (c && !kept && c->reduce_axis.empty() && !conv.op().same_as(out.op())) Stage(st).compute_inline();
  }
  Stage ob = s[OB];
  auto [obo, obi] = ob.split(OB.axis(1), oc_blocks);
  IterVar xo, xi;
  if (flat) std::tie(xo, xi) = ob.split(ob.fuse(OB.axis(2), OB.axis(3)), static_cast<int>(flat));
  else std::tie(xo, xi) = ob.split(OB.axis(3), x_tile);
  std::vector<IterVar> order = {OB.axis(0), obo};
  if (!flat) order.push_back(OB.axis(2));
  const bool whole_group = (ic_chunk && parallel_mode == 1) || flat;
  IterVar ic_blocks_loop = obc->reduce_axis[0];  // the reduction's loop over input-channel blocks
  if (ic_chunk) {
    auto [icb_o, icb_i] = ob.split(obc->reduce_axis[0], ic_chunk);
    ic_blocks_loop = icb_i;
    order.insert(whole_group ? order.begin() + 2 : order.end(), icb_o);  // after obo: outside the rows
    std::replace_if(
        reduce.begin(), reduce.end(), [&](const IterVar &r) { return r.same_as(obc->reduce_axis[0]); }, icb_i);
  }
  order.push_back(xo);
  order.insert(order.end(), reduce.begin(), reduce.end());
  if (columns_outer)
    order.insert(order.end(), {xi, obi, OB.axis(4)});
  else
    order.insert(order.end(), {obi, xi, OB.axis(4)});
  ob.reorder(order);
  ob.vectorize(OB.axis(4));
  ob.unroll(xi);
  ob.unroll(obi);
  // Only where the unrolled tile stays within what unrolling allows.
  if (unroll_inner && extent_of(reduce.back()) * oc_blocks * (flat ? flat : x_tile) <= 512) ob.unroll(reduce.back());
  // The weights stream from memory once per inference: each step of the innermost
  // reduction asks for the weight lines "prefetch" lines ahead of those it reads (1.1-1.2x
  // faster on ResNet-50's layer4 with cold weights; a depthwise weight is too small).
  // With the taps (more than one) outside, the next weights read are the next input-channel
  // block's at the same tap, not the next tap's: each block asks for the block that far ahead.
  if (target.caps().prefetch && !depthwise) {
    const int64_t lines = detail::weight_prefetch_lines(cfg, "prefetch");
    const bool by_block = taps_outside && extent_of(reduce[0]) * extent_of(reduce[1]) > 1;
    const IterVar &at = by_block ? reduce[reduce.size() - 2] : reduce.back();
    const int64_t step_bytes = (by_block ? extent_of(reduce.back()) : 1) * co * WP.dtype().bytes();
    if (lines) ob.prefetch(WP, at, detail::prefetch_offset(lines, step_bytes));
    // Threads that split the output channels (parallel 0 or 1, or flat tiles) each read
    // every input channel of their rows, half of them written by the other core in the
    // layer before (in bands of rows). Those reads jump a channel block's plane at a time,
    // too short a run for the hardware prefetchers, and wait on the other core's cache:
    // each input-channel block asks for the input of the block "prefetch_input" blocks
    // ahead (ResNet-50's 1x1 layers from 1024 to 256 channels at 14x14 1.4x faster at 2
    // threads in the model; the whole model 5% at 2 threads, 1% at 1; MobileNetV2 2% at
    // 2). Where threads take bands of rows they read what their own core wrote, and the
    // requests only cost (ResNet-50's layer1 1.3x slower). It depends on the layer before,
    // so the tuner leaves it at the fallback as it does "parallel". A record made before
    // the knob gets 0, the kernel it measured.
    const bool splits_channels = flat || parallel_mode <= 1;
    const int64_t input_ahead =
        cfg.define_optional_partition_knob("prefetch_input", {0, 2, 4}, splits_channels ? 4 : 0, 0);
    if (input_ahead) ob.prefetch(IP, ic_blocks_loop, static_cast<int>(input_ahead));
  }

  Stage o = s[out];
  // Blocked result [N][K/b][OH][OW][b]: the copy runs on vectors of b channels, b = co
  // or half of it (conv2d_compute_block's wide vectors; the last pair may be a half).
  const bool blocked_out = out.ndim() == 5;
  const int per_vector = blocked_out ? co / static_cast<int>(*as_const_int(out.shape()[4])) : 1;
  auto [cgo, cgi] = o.split(out.axis(1), blocked_out ? oc_blocks * per_vector : co * oc_blocks);
  // "parallel" 3: the rows in bands, each band's groups in turn, each group's rows in turn.
  IterVar band, row = out.axis(2);
  const int64_t thread_rows = row_bands ? (extent_of(out.axis(2)) + kRowBands - 1) / kRowBands : extent_of(out.axis(2));
  if (row_bands) std::tie(band, row) = o.split(out.axis(2), thread_rows);
  // The rows padded together (pad_band): `padded` runs over the bands, `row` inside each.
  IterVar padded = row;
  const int64_t band_rows = divisor_at_most(thread_rows, pad_band);
  if (band_rows > 1) std::tie(padded, row) = o.split(row, band_rows);
  std::vector<IterVar> rows_loops = {padded};
  if (band_rows > 1) rows_loops.push_back(row);
  std::vector<IterVar> o_order = {out.axis(0)};
  if (rows_outer) o_order.insert(o_order.end(), {out.axis(2), cgo});
  else if (row_bands) o_order.insert(o_order.end(), {band, cgo});
  else o_order.push_back(cgo);
  if (!rows_outer) o_order.insert(o_order.end(), rows_loops.begin(), rows_loops.end());
  const bool tile_tail = tail_per_tile && !whole_group && width % x_tile == 0 && x_tile < width;
  IterVar tail_at, tail_cols = out.axis(3);
  if (tile_tail) {
    std::tie(tail_at, tail_cols) = o.split(out.axis(3), x_tile);
    o_order.push_back(tail_at);
  }
  o_order.insert(o_order.end(), {cgi, tail_cols});
  if (blocked_out) o_order.push_back(out.axis(4));
  o.reorder(o_order);
  if (blocked_out) o.vectorize(out.axis(4));
  // The loop whose iterations each pad the input rows they read (pad_per_row), and the
  // one whose iterations each compute their part of OB (a register tile with tile_tail).
  IterVar pad_at, ob_at;
  if (rows_outer) {
    // Each row's groups in turn: the input rows a row reads stay in cache for all of them.
    o.parallel(o.fuse(out.axis(0), out.axis(2)));
    ob_at = cgo;
  } else if (row_bands) {
    // Two threads take a band each.
    o.parallel(o.fuse(o.fuse(out.axis(0), band), cgo));
    ob_at = row;
    pad_at = padded;
  } else {
    const IterVar groups_loop = o.fuse(out.axis(0), cgo);
    const IterVar rows = rows_parallel ? o.fuse(groups_loop, padded) : padded;
    o.parallel(rows_parallel ? rows : groups_loop);
    ob_at = whole_group ? groups_loop : band_rows > 1 ? row : rows;
    pad_at = rows;
  }
  ob.compute_at(o, tile_tail ? tail_at : ob_at);

  // Packed beforehand (conv2d_nchwc_packed), the weights and an unpadded blocked input
  // are arguments, not stages.
  if (compute_of(IP)) {
    Stage ip = s[IP];
    ip.vectorize(IP.axis(4));
    if (pad_per_row && band_rows > 1)
      ip.compute_at(o, pad_at);
    else if (pad_per_row)
      ip.compute_at(ob, OB.axis(2));
    else
      ip.parallel(ip.fuse(ip.fuse(IP.axis(0), IP.axis(1)), IP.axis(2)));
  }
  if (compute_of(WP)) s[WP].parallel(WP.axis(0));
  return s;
}

// Plain NCHW (or NCDHW): the padding computed once; a local tile of (up to 8 channels) x
// (a vector of output columns) accumulates with the reduction outside it, one tile per
// iteration of a parallel loop over (batch, channel group, rows). Rows of at most 16
// columns that no vector width divides (14 and 7 in MobileNet's depthwise stages) are
// one vector. `out` is `conv` or the end of an element-wise tail after it: the tail is
// inlined and `out` computes from `conv`'s tile, which takes the local copy's place.
Schedule schedule_direct(const Tensor &conv, const Tensor &out, autotune::Config &cfg) {
  Schedule s = create_schedule({out});
  const ComputeOpNode *c = compute_of(conv);
  const bool fused = !conv.op().same_as(out.op());
  const std::vector<Tensor> inputs = c->input_tensors();
  for (const Tensor &in : inputs) {
    const ComputeOpNode *p = compute_of(in);
    if (p && p->tag == detail::kInjective) s[in].parallel(s[in].fuse(in.axis(0), in.axis(1)));
  }
  if (fused)
    for (const Stage &st : s.stages()) {
      const ComputeOpNode *t = st.op().as<ComputeOpNode>();
      const bool input =
          std::any_of(inputs.begin(), inputs.end(), [&](const Tensor &in) { return in.op().same_as(st.op()); });
      if (t && t->reduce_axis.empty() && !input && !st.op().same_as(out.op())) Stage(st).compute_inline();
    }
  const int last = out.ndim() - 1;
  const int64_t width = extent_of(out.axis(last));
  int vec = first_divisor(width, {16, 8, 4});
  if (!vec && width > 1 && width <= 16) vec = static_cast<int>(width);
  std::vector<int64_t> vectors;
  for (int64_t v : {4, 8, 16})
    if (vec && width % v == 0) vectors.push_back(v);
  vec = static_cast<int>(cfg.define_knob("vector", vectors, vec));
  const int64_t channels = extent_of(out.axis(1));
  const int kb = static_cast<int>(
      divisor_at_most(channels, cfg.define_knob("tile_k", {1, 2, 4, 8}, first_divisor(channels, {8, 4, 2, 1}))));
  Stage o = s[out];
  // The axes between the channels and the columns (the output's rows, and depths).
  auto fuse_rows = [&](IterVar outer, const Tensor &t) {
    for (int i = 2; i < last; ++i) outer = o.fuse(outer, t.axis(i));
    return outer;
  };
  if (!vec) {
    const IterVar rows = fuse_rows(o.fuse(out.axis(0), out.axis(1)), out);
    o.parallel(rows);
    if (fused) s[conv].compute_at(o, rows);
    return s;
  }
  Tensor acc = fused ? conv : s.cache_write(out, "local");
  auto [ko, ki] = o.split(out.axis(1), kb);
  auto [xo, xi] = o.split(out.axis(last), vec);
  std::vector<IterVar> order = {out.axis(0), ko};
  for (int i = 2; i < last; ++i) order.push_back(out.axis(i));
  order.insert(order.end(), {xo, ki, xi});
  o.reorder(order);
  IterVar rows = fuse_rows(o.fuse(out.axis(0), ko), out);
  o.parallel(rows);
  o.vectorize(xi);
  Stage a = s[acc];
  a.compute_at(o, xo);
  const ComputeOpNode *ac = compute_of(acc);
  std::vector<IterVar> acc_order = {acc.axis(0)};
  for (int i = 2; i < last; ++i) acc_order.push_back(acc.axis(i));
  for (const IterVar &r : ac->reduce_axis) acc_order.push_back(r);
  acc_order.insert(acc_order.end(), {acc.axis(1), acc.axis(last)});
  a.reorder(acc_order);
  a.unroll(acc.axis(1));
  a.vectorize(acc.axis(last));
  return s;
}

// The schedule of `conv` and its tail `out` with `config`'s knobs, or the fallbacks.
Schedule schedule_conv(const Tensor &conv, const Tensor &out, const Target &target, autotune::Config *config) {
  autotune::Config fallback;
  autotune::Config &cfg = config ? *config : fallback;
  return compute_of(conv)->tag == "conv2d_nchwc" ? schedule_nchwc(conv, out, target, cfg)
                                                 : schedule_direct(conv, out, cfg);
}

}  // namespace

Schedule schedule_conv2d_llvm(const Tensor &out, const Target &target, autotune::Config *config) {
  const ComputeOpNode *c = compute_of(out);
  TIR_USER_CHECK(c && (c->tag == "conv2d" || c->tag == "conv2d_nchwc" || c->tag == "conv3d"))
      << "schedule_conv2d_llvm: tensor " << out.name() << " is not the output of conv2d, conv2d_nchwc or conv3d";
  return schedule_conv(out, out, target, config);
}

Schedule schedule_conv2d_llvm(const Tensor &conv, const Tensor &out, const Target &target,
                              autotune::Config *config) {
  const ComputeOpNode *c = compute_of(conv);
  TIR_USER_CHECK(c && (c->tag == "conv2d_nchwc" || c->tag == "conv2d"))
      << "schedule_conv2d_llvm: tensor " << conv.name() << " is not the output of conv2d_nchwc or conv2d";
  TIR_USER_CHECK(conv.ndim() == out.ndim())
      << "schedule_conv2d_llvm: the tail's result " << out.name() << " has " << out.ndim()
      << " dimensions but the convolution " << conv.name() << " has " << conv.ndim()
      << " (a fused tail keeps the convolution's shape)";
  return schedule_conv(conv, out, target, config);
}

}  // namespace tensorir::ops
