// Folding inference batch_norm into the convolution before it: the per-channel scale
// moves into the conv weights, the shift becomes a bias_add.
#include <cmath>

#include "tensorir/graph/passes.h"
#include "rewrite_util.h"

namespace tensorir::graph {

namespace {

bool is_f32_constant(const Node &n) { return n.op == "constant" && n.dtype == Float(32) && n.value.defined(); }

// The conv2d node a batch_norm can fold into, or -1.
int foldable_conv(const Graph &g, const Node &bn, const std::vector<int> &readers) {
  if (bn.op != "batch_norm") return -1;
  const Node &conv = g.node(bn.inputs[0]);
  if (conv.op != "conv2d" || readers[size_t(conv.id)] != 1 || conv.dtype != Float(32)) return -1;
  if (!is_f32_constant(g.node(conv.inputs[1]))) return -1;
  for (int i = 1; i < 5; ++i)
    if (!is_f32_constant(g.node(bn.inputs[size_t(i)]))) return -1;
  return conv.id;
}

std::string unique_name(const Graph &g, const std::string &base) {
  std::string name = base;
  for (int i = 1;; ++i) {
    bool taken = false;
    for (const Node &n : g.nodes()) taken |= n.name == name;
    if (!taken) return name;
    name = base + "_" + std::to_string(i);
  }
}

}  // namespace

Graph fold_batch_norm(const Graph &g) {
  g.validate();
  std::vector<int> readers(g.nodes().size(), 0);
  for (const Node &n : g.nodes())
    for (int in : n.inputs) ++readers[size_t(in)];
  for (int id : g.outputs()) ++readers[size_t(id)];

  // conv id -> its batch_norm id, for the pairs that fold.
  std::map<int, int> bn_of;
  for (const Node &n : g.nodes()) {
    const int conv = foldable_conv(g, n, readers);
    if (conv >= 0) bn_of[conv] = n.id;
  }

  Graph out;
  std::vector<int> remap(g.nodes().size(), -1);
  std::map<int, std::vector<float>> bias_of;  // bn id -> folded bias
  for (int id : g.topological_order()) {
    Node n = g.node(id);
    for (int &in : n.inputs) in = remap[size_t(in)];
    auto folded = bn_of.find(id);
    if (folded != bn_of.end()) {
      const Node &bn = g.node(folded->second);
      const double eps = bn.attr_double("eps");
      const std::vector<float> gamma = g.node(bn.inputs[1]).value.to_vector<float>();
      const std::vector<float> beta = g.node(bn.inputs[2]).value.to_vector<float>();
      const std::vector<float> mean = g.node(bn.inputs[3]).value.to_vector<float>();
      const std::vector<float> var = g.node(bn.inputs[4]).value.to_vector<float>();
      const Node &w = g.node(g.node(id).inputs[1]);
      std::vector<float> wv = w.value.to_vector<float>();
      const size_t k_count = size_t(w.shape[0]), per_k = wv.size() / k_count;
      std::vector<float> bias(k_count);
      for (size_t k = 0; k < k_count; ++k) {
        const double scale = double(gamma[k]) / std::sqrt(double(var[k]) + eps);
        for (size_t i = 0; i < per_k; ++i) wv[k * per_k + i] = float(double(wv[k * per_k + i]) * scale);
        bias[k] = float(double(beta[k]) - double(mean[k]) * scale);
      }
      Node c;
      c.name = unique_name(g, n.name + ".weight_folded");
      c.op = "constant";
      c.shape = w.shape;
      c.value = NDArray::from_vector(wv, w.shape);
      n.inputs[1] = out.add_node(std::move(c));
      bias_of[folded->second] = std::move(bias);
    }
    auto bias = bias_of.find(id);
    if (bias != bias_of.end()) {
      Node c;
      c.name = unique_name(g, n.name + ".bias_folded");
      c.op = "constant";
      c.shape = {int64_t(bias->second.size())};
      c.value = NDArray::from_vector(bias->second, c.shape);
      const int b = out.add_node(std::move(c));
      Node add;
      add.name = n.name;
      add.op = "bias_add";
      add.attrs["axis"] = int64_t(1);
      add.inputs = {n.inputs[0], b};
      add.shape = n.shape;
      add.dtype = n.dtype;
      n = std::move(add);
    }
    remap[size_t(id)] = out.add_node(std::move(n));
  }
  detail::set_remapped_outputs(out, g, remap);
  out.validate();
  return out;
}

}  // namespace tensorir::graph
