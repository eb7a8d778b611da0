// Workloads: the key of an operator node as its user wrote it, what the CPU layout passes
// ask (the channel blocks of a convolution, the panel knob of a dense), and the
// configuration a tuning log gives a node.
#pragma once
#include <functional>
#include <map>
#include <string>
#include <utility>

#include "tensorir/autotune/config.h"
#include "tensorir/autotune/record.h"
#include "tensorir/graph/graph.h"

namespace tensorir::autotune {

// Canonical JSON of node `n` of `g`: its operator, its inputs' shapes and dtypes and its
// attributes, the same before and after the CPU layout passes: a packed conv2d is keyed
// as the NCHW / OIHW conv2d it was (its layout attributes left out), a conv2d_winograd as
// that conv2d too (its weight [K][C][3][3], strides and dilation 1, groups 1), a
// dense_packed as its dense.
std::string workload_key(const graph::Graph &g, const graph::Node &n);

// The blocks (ci, co) a conv2d of `in_channels` and `out_channels` is packed in:
// ops::conv2d_channel_block's, not knobs. A convolution's ci must be its producer's co,
// or graph::build converts between them with layout_transform kernels; tasks are timed
// alone, so a tuner choosing blocks per workload cannot see that cost (random blocks gave
// ResNet-18 thirteen transforms and a slower model of faster kernels). Blocks follow the
// channel counts, which neighbouring layers share. co is the weight's block for vectors of
// `vector_lanes` (ops::conv2d_compute_block), the result's blocks stay conv2d_channel_block's.
std::pair<int, int> conv2d_blocks(int64_t in_channels, int64_t out_channels, int vector_lanes = 0);
// The panel of output columns a dense is packed in: knob "panel", by default the widest
// of 32, 16, 8 dividing `columns` (0, no knob: none does, the dense stays as it is).
int dense_panel(Config &cfg, int64_t columns);
// Whether `target` has a Winograd schedule: CPU schedules, GPU compute schedules, or
// textures of channel blocks ("webgl"); graph::build uses it with tuned schedules.
bool has_winograd(const Target &target);
// The algorithm graph::build uses by default for conv2d `conv` of `g` (after the layout
// passes) on `target`: graph::default_winograd_tile's tile, 0 (direct) on targets with
// small vector registers and on the GPU targets (where Winograd is the tuner's choice);
// -1 where Winograd is no choice (not graph::winograd_eligible with the target's panel,
// or no has_winograd).
int winograd_default(const graph::Graph &g, const graph::Node &conv, const Target &target);
// The panel of the transformed weight on `target`: 4 (a texel's channels) on "webgl", 0
// (ops::winograd_panel's) on the CPU and the GPU compute targets.
int winograd_weight_panel(const Target &target);
// Knob "winograd" of such a conv2d: 0 (direct) or the tile m = 2, 4, 6, by default
// `fallback` (winograd_default's), which a record without the knob gets too.
int winograd_tile(Config &cfg, int fallback);

// The knob values of a configuration's JSON object (a record's config_json); anything
// else throws an Error saying what is wrong.
std::map<std::string, int64_t> config_values(const std::string &config_json);

// The first of `values` that is not among the choices of its knob in `defined` (a Config
// in define mode its template has run on), as "knob 'x' = 3 is not one of its choices";
// "" when they all fit. Names the template does not ask are left out.
std::string misfit(const Config &defined, const std::map<std::string, int64_t> &values);

// The configuration `tuning` holds for node `n` of `g` on `target`, else the fallback
// (also when `tuning` is null). `define_template` runs the node's template on a Config in
// define mode; a configuration that does not fit it (a log of other templates) gives a
// warning and the fallback.
Config config_for(const ApplyHistoryBest *tuning, const graph::Graph &g, const graph::Node &n, const Target &target,
                  const std::function<void(Config &)> &define_template);

// The target a kernel scheduled with `cfg` builds for: `target` with each knob named after
// one of its kind's options ("draw-buffers" of "webgl", ops::schedule_fragment) set to
// the knob's value, so that a backend planning from the target's options (the fragment
// planner) plans this kernel as its knobs say. A Config of fallbacks (no configuration
// given) leaves the target as it is.
Target kernel_target(const Target &target, const Config &cfg);

}  // namespace tensorir::autotune
