// Winograd for 3x3 stride-1 convolutions on the CPU and "webgl": conv2d(x, W) ->
// conv2d_winograd(x, winograd_weight_transform(W)), the transform folded once by
// fold_constants, the data and result layouts (NCHW or alter_conv_layout's blocks) kept.
#include <set>

#include "../op_table.h"
#include "tensorir/graph/passes.h"
#include "rewrite_util.h"
#include "tensorir/ops/winograd.h"

namespace tensorir::graph {

namespace {

bool ints_are(const Node &n, const std::string &key, int64_t v) {
  for (int64_t x : n.attr_ints(key))
    if (x != v) return false;
  return true;
}

}  // namespace

bool winograd_eligible(const Graph &g, const Node &n, int panel) {
  if (n.op != "conv2d" || n.attr_int("groups") != 1 || !ints_are(n, "strides", 1) || !ints_are(n, "dilation", 1))
    return false;
  const Node &w = g.node(n.inputs[1]);
  const std::vector<int64_t> &s = w.shape;
  const bool kernel3 = (s.size() == 4 || s.size() == 6) && s[2] == 3 && s[3] == 3;
  if (w.op != "constant" || !kernel3 || w.dtype != Float(32)) return false;
  if (panel <= 0) return true;
  // The channels the weight holds (a packed one's last block may be padding, which the
  // transform keeps).
  const int64_t K = s.size() == 6 ? s[0] * s[5] : s[0], C = s.size() == 6 ? s[1] * s[4] : s[1];
  return K % panel == 0 && C % panel == 0;
}

// Measured on ResNet-18's 3x3 layers (bench_conv's Winograd rows, batch 1): the
// transformed weight is alpha^2 / 9 times the direct one's and each of its elements
// serves one multiply-add per tile, so few tiles make the product a stream of weights.
// F(4, 3) wins where there are many tiles (56x56, 28x28: 1.7-3x the direct convolution),
// F(2, 3) at 14x14 (its weight 16/9 of the direct one's, 49 tiles), and at 7x7 the
// direct convolution does (512 channels: 17-38 MB of transformed weight for 4 to 16 tiles).
int default_winograd_tile(const Graph &g, const Node &n) {
  if (!winograd_eligible(g, n)) return 0;
  const std::vector<int64_t> &out = n.shape;
  const int64_t pixels = out[2] * out[3];
  const std::vector<int64_t> &w = g.node(n.inputs[1]).shape;
  const int64_t C = w.size() == 6 ? w[1] * w[4] : w[1];
  if (C < 16 || pixels < 14 * 14) return 0;
  return pixels < 28 * 28 ? 2 : 4;
}

WinogradNodes winograd_nodes(const Node &conv, int m, int panel) {
  WinogradNodes w;
  w.transform.op = "winograd_weight_transform";
  w.transform.attrs["tile"] = int64_t{m};
  w.transform.attrs["panel"] = int64_t{panel};
  const auto layout = conv.attrs.find("out_layout");
  w.conv = conv;
  w.conv.op = "conv2d_winograd";
  w.conv.attrs.clear();
  w.conv.attrs["tile"] = int64_t{m};
  w.conv.attrs["padding"] = conv.attr_ints("padding");
  w.conv.attrs["out_layout"] = layout == conv.attrs.end() ? AttrValue(std::string("NCHW")) : layout->second;
  return w;
}

Graph winograd_conv2d(const Graph &g, const std::function<int(const Graph &, const Node &)> &tile_for, int panel) {
  g.validate();
  std::set<std::string> names = detail::node_names(g);
  Graph out;
  std::vector<int> remap(g.nodes().size(), -1);
  for (int id : g.topological_order()) {
    const Node &old = g.node(id);
    Node n = old;
    for (int &in : n.inputs) in = remap[size_t(in)];
    const int m = winograd_eligible(g, old, panel) ? tile_for(g, old) : 0;
    if (m) {
      TIR_USER_CHECK(ops::winograd_tile_supported(m))
          << "winograd_conv2d: the tile chosen for '" << old.name << "' is " << m << "; use 0 (direct), 2, 4 or 6";
      auto [t, conv] = winograd_nodes(n, m, panel);
      t.name = detail::fresh_name(names, g.node(old.inputs[1]).name + ".winograd" + std::to_string(m));
      t.inputs = {n.inputs[1]};
      detail::infer_shape(t, {&out.node(n.inputs[1])});
      n = std::move(conv);
      n.inputs[1] = out.add_node(std::move(t));
      detail::infer_shape(n, {&out.node(n.inputs[0]), &out.node(n.inputs[1])});
    }
    remap[size_t(id)] = out.add_node(std::move(n));
  }
  detail::set_remapped_outputs(out, g, remap);
  return out;
}

}  // namespace tensorir::graph
