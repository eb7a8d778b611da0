// graph::build's passes (build_passes.h).
#include "build_passes.h"

#include "autotune/workload.h"
#include "tensorir/graph/passes.h"

namespace tensorir::graph {

namespace {

// The channel block of the GPU layouts, 0 for NCHW: the channels of a texel on targets
// whose every tensor lies in RGBA textures ("webgl"; "opengl -mode=fragment" packs only
// some results, and there ResNet-18's convolutions run slower in blocks of 4 channels
// than in NCHW, so it keeps NCHW), or on a CPU driver the lanes of a work-item's vectors
// (a convolution then reads a block of output channels' weights as one vector).
int gpu_channel_block(const Target &t, bool strategies) {
  const TargetCaps c = t.caps();
  return c.texture_channel_block > 0 ? c.texture_channel_block : strategies ? c.work_item_vector_lanes : 0;
}

// The tile of each eligible convolution: BuildOptions::winograd_tile_for, else the
// forced tile, else its workload's "winograd" knob in `tuning`, by default the measured
// default where it was measured.
std::function<int(const Graph &, const Node &)> winograd_policy(const BuildOptions &o, const Target &target,
                                                                const autotune::ApplyHistoryBest *tuning) {
  if (o.winograd_tile_for) return o.winograd_tile_for;
  TIR_USER_CHECK(o.winograd == BuildOptions::kWinogradAuto || o.winograd == 0 || o.winograd == 2 ||
                 o.winograd == 4 || o.winograd == 6)
      << "BuildOptions::winograd = " << o.winograd << "; use kWinogradAuto (-1), 0 (off), 2, 4 or 6";
  if (o.winograd != BuildOptions::kWinogradAuto) return [m = o.winograd](const Graph &, const Node &) { return m; };
  return [tuning, target](const Graph &g, const Node &conv) {
    const int fallback = autotune::winograd_default(g, conv, target);
    const auto tile = [&](autotune::Config &c) { return autotune::winograd_tile(c, fallback); };
    autotune::Config cfg = autotune::config_for(tuning, g, conv, target, tile);
    return tile(cfg);
  };
}
}  // namespace

Graph layout_passes(const Graph &input_graph, const Target &target, const BuildOptions &options) {
  Graph g = input_graph;
  if (options.fold_constants) g = fold_constants(g);
  if (options.fold_batch_norm) g = fold_batch_norm(g);
  const bool tuned = options.tuned_schedules && target.caps().cpu_schedules;
  const int block = gpu_channel_block(target, options.tuned_schedules);
  if (options.alter_layout && options.fold_constants && (tuned || block > 0)) {
    // Blocked activations pay off inside fused kernels; one kernel per node keeps NCHW.
    // Fragment shaders store 4 elements per texel: blocks of 4 channels make them the 4
    // channels at one position, which share the reads of a convolution's data.
    // The CPU blocks are ops::conv2d_channel_block's, not tuned (autotune/workload.h).
    g = tuned ? alter_conv_layout_cpu(g, options.fuse_operators, target.caps().cpu_vector_lanes)
              : alter_conv_layout(g, options.fuse_operators, block, target.caps().textures);
    g = fold_constants(g);  // packs the weights (and blocks the biases) once, here
  }
  return g;
}

Graph tuning_passes(Graph g, const Target &target, const BuildOptions &options,
                    const autotune::ApplyHistoryBest *tuning) {
  const bool tuned = options.tuned_schedules && target.caps().cpu_schedules;
  // On "webgl" the transformed weight's texels hold 4 output channels (its panel), the
  // kernel's stages blocks of 4 channels (conv2d_winograd's fragment strategy); the GPU
  // compute targets read it in the CPU's panels.
  const int panel = autotune::winograd_weight_panel(target);
  const bool winograd = options.tuned_schedules && autotune::has_winograd(target);
  if (winograd && options.fold_constants && (options.winograd != 0 || options.winograd_tile_for)) {
    g = winograd_conv2d(g, winograd_policy(options, target, tuning), panel);
    g = fold_constants(g);  // transforms the weights once, here
  }
  if (options.alter_layout && tuned)
    g = alter_dense_layout(g, [&](const Graph &graph, const Node &dense) {
      const auto panel = [&](autotune::Config &c) { return autotune::dense_panel(c, dense.shape[1]); };
      autotune::Config cfg = autotune::config_for(tuning, graph, dense, target, panel);
      return panel(cfg);
    });
  if (options.eliminate_dead_nodes) g = eliminate_dead_nodes(g);
  if (const int most = target.caps().max_kernel_inputs; most > 0) g = split_wide_concat(g, most);
  if (target.caps().textures) g = store_as_float(g);
  return g;
}

}  // namespace tensorir::graph
