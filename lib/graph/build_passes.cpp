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

}  // namespace

Graph build_passes(const Graph &input_graph, const Target &target, const BuildOptions &options,
                   const autotune::ApplyHistoryBest *tuning) {
  Graph g = input_graph;
  if (options.fold_constants) g = fold_constants(g);
  if (options.fold_batch_norm) g = fold_batch_norm(g);
  const bool tuned = options.tuned_schedules && target.caps().cpu_schedules;
  const int block = gpu_channel_block(target, options.tuned_schedules);
  if (options.alter_layout && options.fold_constants && (tuned || block > 0)) {
    // Blocked activations pay off inside fused kernels; one kernel per node keeps NCHW.
    // Fragment shaders store 4 elements per texel: blocks of 4 channels make them the 4
    // channels at one position, which share the reads of a convolution's data.
    const ConvBlocksFn blocks = [](const Graph &graph, const Node &conv) {
      const std::vector<int64_t> &w = graph.node(conv.inputs[1]).shape;
      return autotune::conv2d_blocks(w[1], w[0]);
    };
    g = tuned ? alter_conv_layout(g, options.fuse_operators, blocks)
              : alter_conv_layout(g, options.fuse_operators, block, target.caps().textures);
    g = fold_constants(g);  // packs the weights (and blocks the biases) once, here
  }
  if (options.alter_layout && tuned)
    g = alter_dense_layout(g, [&](const Graph &graph, const Node &dense) {
      const auto panel = [&](autotune::Config &c) { return autotune::dense_panel(c, dense.shape[1]); };
      autotune::Config cfg = autotune::config_for(tuning, graph, dense, target, panel);
      return panel(cfg);
    });
  if (options.eliminate_dead_nodes) g = eliminate_dead_nodes(g);
  if (target.caps().textures) g = store_as_float(g);
  return g;
}

}  // namespace tensorir::graph
