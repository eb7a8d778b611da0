// Graph-to-graph rewrites run by graph::build before compiling, and the operator fusion
// that decides which nodes share a kernel.
//
//   graph::Graph g2 = graph::eliminate_dead_nodes(graph::fold_batch_norm(g));
//   for (const graph::FusedGroup &grp : graph::fuse_operators(g2)) ...
//
// Every rewrite returns a new, valid Graph; input nodes and the output keep their names.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "tensorir/graph/graph.h"
#include "tensorir/graph/op_registry.h"

namespace tensorir::graph {

// Operator nodes whose inputs are all constants are evaluated once (compiled and run on
// the CPU) and become constants holding the result, under the same name.
Graph fold_constants(const Graph &g);

// batch_norm(conv2d(x, W), gamma, beta, mean, var) where the conv2d's only reader is the
// batch_norm and W and the four vectors are constants becomes
// bias_add(conv2d(x, W'), b) with W'[k] = W[k] * gamma[k] / sqrt(var[k] + eps) and
// b = beta - mean * gamma / sqrt(var + eps). The bias_add takes the batch_norm's name;
// the new constants are "<conv>.weight_folded" and "<bn>.bias_folded". The old
// parameters are left in place for eliminate_dead_nodes.
Graph fold_batch_norm(const Graph &g);

// For targets that keep tensors in textures ("webgl", "opengl -mode=fragment"), which hold
// float32 (and int32) texels: every bool or int64 tensor is stored as float32 and read
// through a cast back to its dtype. An input becomes a float32 input (attribute
// kDeclaredDtype keeps the dtype the graph declared; a run converts the user's array), a
// constant a float32 constant (an Error when an integer is beyond 2^24), and a computed
// node "<name>.computed" is followed by a cast to float32, "<name>.stored", which fuses
// into its kernel. The casts back, "<input>.declared" or under the node's name, are
// computed inside each kernel that reads them (graph::build does so on these targets).
// An output keeps its name on the stored float32 value, with kDeclaredDtype, and a run
// converts it back when reading it (declared_output_value; the web runtime likewise); its
// readers in the graph read "<name>.declared". Integers computed in float32 are exact up
// to 2^24.
inline constexpr const char *kDeclaredDtype = "declared_dtype";
Graph store_as_float(const Graph &g);
// The value a run binds to input node `n` of such a graph: `value` (of the declared dtype)
// converted to float32; an Error naming the input when an integer is too large for float32
// to hold exactly (|v| > 2^24).
NDArray stored_input_value(const Node &n, const NDArray &value);
// The value a run returns for output node `n` of such a graph: `value` (float32) as the
// dtype the graph declared (integers rounded, bool where nonzero; an Error naming the
// output for a value no int64 holds); `value` itself for a node without kDeclaredDtype.
NDArray declared_output_value(const Node &n, const NDArray &value);
// The dtype a run takes or gives for node `n`: its kDeclaredDtype, else n.dtype.
Type declared_dtype(const Node &n);

// Drops every node the output does not depend on. Input nodes are always kept, so a
// compiled model takes the same inputs as the graph it came from.
Graph eliminate_dead_nodes(const Graph &g);

// For the tuned CPU convolutions (graph::build on "llvm"): every ungrouped conv2d whose
// weight is a constant reads it packed, conv2d(x, layout_transform(W, "OIHW",
// "OIHW<ci>i<co>o")) with attributes data_layout, kernel_layout and out_layout, in the
// blocks ops::conv2d_nchwc packs it into (run fold_constants afterwards to pack once,
// at build time, instead of in every call). With `blocked_activations`, results stay
// channel-blocked, NCHW<co>c ([N][C/co][H][W][co]), from one convolution to the next:
// relu, clip, bias_add (as an add of the bias viewed in blocks), add and multiply of
// full-channel tensors, and the pools compute on the blocks. layout_transform nodes
// appear only where a blocked tensor meets another reader (flatten, dense, grouped
// convolutions, ...) or the graph's output, which stays NCHW under its name; where the
// blocked tensor is a convolution's element-wise tail, that convolution writes NCHW
// instead, inside its fused kernel. Without `blocked_activations`, each convolution
// reads and writes NCHW as before and only its weights are packed. A graph that already
// holds layout_transform nodes or packed convolutions is returned as it is.
Graph alter_conv_layout(const Graph &g, bool blocked_activations = true);

// The same rewrite with every block `channel_block` channels wide (0: the blocks above),
// for the fragment targets ("webgl", "opengl -mode=fragment"), which build() runs it with
// 4: activations NCHW4c, one RGBA texel holding 4 channels at one position, and weights
// OIHW4i4o, one texel the 4 output channels' weights of one input channel. Convolutions
// whose output channels do not split into such blocks are left as they are; input
// channels that do not (an image's 3) are read from NCHW data, weights OIHW1i<b>o.
// With blocked activations such input channels are padded with zeros to whole blocks
// (one fetch of a texel per tap beats picking one channel of it), unless
// `pad_input_channels` is false (a CPU driver, where padding 3 channels to 16 multiplies
// the first convolution's work): then they stay NCHW, read in blocks of 1.
Graph alter_conv_layout(const Graph &g, bool blocked_activations, int channel_block, bool pad_input_channels = true);

// The CPU rewrite (the first form) for vectors of `vector_lanes` float32 lanes
// (TargetCaps::cpu_vector_lanes; graph::build runs it on "llvm" and "wasm"): a
// convolution whose block of output channels is half a vector (1000 channels in blocks of
// 8 on AVX-512) gets a weight in whole vectors, OIHW<ci>i16o, its output channels padded
// with zeros, and attribute out_channels; its result keeps the blocks of 8, so no other
// node changes (ops::conv2d_compute_block says when; convolutions Winograd may take keep
// their blocks).
Graph alter_conv_layout_cpu(const Graph &g, bool blocked_activations, int vector_lanes);

// For the CPU's register-blocked dense (graph::build on "llvm"): every dense whose weight
// is a float32 constant [M, K], M a multiple of 8, becomes a dense_packed reading the
// weight packed in panels of b = 32, 16 or 8 output columns, [M / b, K, b], a new
// constant "<weight>.packed<b>". The old weight is left for eliminate_dead_nodes.
Graph alter_dense_layout(const Graph &g);
// The panel alter_dense_layout packs a dense of `columns` output columns in: the widest
// of 32, 16 and 8 that divides them, or 0.
int dense_panel_width(int64_t columns);
// The same with the panel of each dense chosen by `panel` (0: left as it is), for node
// `dense` of `g`; it must divide the dense's output columns.
using DensePanelFn = std::function<int(const Graph &g, const Node &dense)>;
Graph alter_dense_layout(const Graph &g, const DensePanelFn &panel);

// Winograd F(m x m, 3 x 3) for the CPU schedules and "webgl" (graph::build,
// BuildOptions::winograd): every conv2d that winograd_eligible accepts and for which
// `tile_for(g, node)` returns m = 2, 4 or 6 becomes conv2d_winograd(x,
// winograd_weight_transform(W)) with attributes tile, padding and out_layout (the
// transform a new node "<weight>.winograd<m>" with attributes tile and `panel`; run
// fold_constants afterwards to compute it once). 0 leaves the node a direct convolution.
// With `panel` > 0 (4 on "webgl": the transformed weight in texels of 4 output channels)
// only convolutions whose input and output channels it divides are eligible. Run after
// alter_conv_layout: the data (NCHW or NCHW<c>c) and the result layout are kept, the
// packed weight is read as it is.
Graph winograd_conv2d(const Graph &g, const std::function<int(const Graph &g, const Node &conv)> &tile_for,
                      int panel = 0);
// A conv2d Winograd computes: 3x3, strides and dilation 1, groups 1, a float32 constant
// weight (OIHW or packed by alter_conv_layout), and with `panel` > 0 input and output
// channels that it divides.
bool winograd_eligible(const Graph &g, const Node &conv, int panel = 0);
// The tile measured faster than the direct convolution for `conv`'s shape on the CPU,
// or 0 (direct): BuildOptions::winograd's default.
int default_winograd_tile(const Graph &g, const Node &conv);
// What winograd_conv2d makes of `conv` with tile m: the weight transform (attributes only:
// its name, input and shape are the caller's) and the conv2d_winograd, `conv` with the
// operator and attributes replaced (its inputs kept: the second must become the
// transform's result, and its shape inferred again).
struct WinogradNodes {
  Node transform, conv;
};
WinogradNodes winograd_nodes(const Node &conv, int m, int panel = 0);

// Operator nodes computed by one kernel: a chain where every node but the last has the
// next as its only reader.
struct FusedGroup {
  std::vector<int> nodes;  // node ids in graph order; the last one is the group's result
  int anchor = -1;         // the out-fusable node (conv2d, dense) leading the group, or -1
  int output() const { return nodes.back(); }
};

// Every operator node in exactly one group, groups in topological order. The rules, by
// the operators' patterns (graph/op_registry.h):
//  - an out-fusable node (conv2d, dense) starts a group and absorbs following
//    element-wise and broadcast nodes (bias_add, batch_norm, relu, add of a residual,
//    multiply) of the same shape, as long as each node absorbed so far has exactly one
//    reader;
//  - other element-wise, broadcast and injective nodes (flatten) chain with their single
//    reader when it is element-wise, broadcast, injective or a reduction;
//  - a reduction (max/avg pool, global pool, softmax) ends its group; an opaque node is
//    a group of its own;
//  - a graph output ends its group.
std::vector<FusedGroup> fuse_operators(const Graph &g);

// Every concatenate node of more than `max_inputs` inputs as a tree of concatenates of
// at most that many, along the same axis (for targets whose kernels read a bounded
// number of tensors: TargetCaps::max_kernel_inputs).
Graph split_wide_concat(const Graph &g, int max_inputs);

// Each group of `groups` that reads more than `max_inputs` tensors from outside itself,
// cut into consecutive groups that read at most that many (a chain of twenty adds of
// constants, say). A single node that reads more stays whole.
std::vector<FusedGroup> limit_group_inputs(const Graph &g, const std::vector<FusedGroup> &groups, int max_inputs);

// One line per group, "conv1+bn1+relu", for messages and tests.
std::string groups_str(const Graph &g, const std::vector<FusedGroup> &groups);

}  // namespace tensorir::graph
