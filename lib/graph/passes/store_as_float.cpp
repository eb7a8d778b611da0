// For targets that keep tensors in textures: every bool or int64 tensor a kernel would pass
// to another (a padding mask, token ids, a mask expanded to the attention's shape) is
// stored as float32 and cast back to its dtype where it is read, so that no texture holds a
// type textures cannot hold. The casts back are computed inside the reading kernels
// (graph::build inlines a cast to bool or int64 of a float32 value on these targets).
#include <cmath>

#include "tensorir/error.h"
#include "tensorir/graph/passes.h"
#include "rewrite_util.h"

namespace tensorir::graph {

namespace {

// The largest integer magnitude float32 holds exactly.
constexpr int64_t kExactInFloat = int64_t(1) << 24;

bool unstorable(Type t) { return t.is_bool() || t == Int(64); }

Node cast_node(const std::string &name, int input, const std::vector<int64_t> &shape, Type to) {
  Node c;
  c.name = name;
  c.op = "cast";
  c.attrs["dtype"] = to.str();
  c.shape = shape;
  c.dtype = to;
  c.inputs = {input};
  return c;
}

// An int64 or bool array as float32; an Error naming `what` for an integer float32 rounds.
NDArray to_float(const NDArray &value, const std::string &what) {
  const NDArray host = value.device() == Device::cpu() ? value : value.to(Device::cpu());
  std::vector<float> f;
  if (host.dtype().is_bool()) {
    for (uint8_t b : host.to_vector<uint8_t>()) f.push_back(b ? 1.0f : 0.0f);
  } else {
    const std::vector<int64_t> v = host.to_vector<int64_t>();
    for (size_t i = 0; i < v.size(); ++i) {
      TIR_USER_CHECK(v[i] >= -kExactInFloat && v[i] <= kExactInFloat)
          << what << " holds " << v[i] << " at element " << i << "; this target stores " << host.dtype()
          << " tensors as float32, which holds integers up to " << kExactInFloat << " exactly: give values within +-"
          << kExactInFloat << " or build for another target";
      f.push_back(float(v[i]));
    }
  }
  return NDArray::from_vector(f, host.shape());
}

}  // namespace

Graph store_as_float(const Graph &g) {
  g.validate();
  Graph out;
  std::vector<int> remap(g.nodes().size(), -1);
  for (int id : g.topological_order()) {
    Node n = g.node(id);
    for (int &in : n.inputs) in = remap[size_t(in)];
    if (!unstorable(n.dtype) || g.is_output(id)) {
      remap[size_t(id)] = out.add_node(std::move(n));
      continue;
    }
    const Type declared = n.dtype;
    const std::string name = n.name, op = n.op;
    const std::vector<int64_t> shape = n.shape;
    int stored;
    if (op == "input") {
      n.attrs[kDeclaredDtype] = declared.str();
      n.dtype = Float(32);
      stored = out.add_node(std::move(n));
    } else if (op == "constant") {
      n.value = to_float(n.value, "constant '" + name + "'");
      n.dtype = Float(32);
      stored = out.add_node(std::move(n));
    } else {
      n.name = name + ".computed";
      stored = out.add_node(cast_node(name + ".stored", out.add_node(std::move(n)), shape, Float(32)));
    }
    // The cast back: under the node's own name, or, for an input or a constant (which keep
    // theirs), "<name>.declared".
    const bool kept = op == "input" || op == "constant";
    remap[size_t(id)] = out.add_node(cast_node(kept ? name + ".declared" : name, stored, shape, declared));
  }
  detail::set_remapped_outputs(out, g, remap);
  return out;
}

NDArray stored_input_value(const Node &n, const NDArray &value) {
  if (!n.attrs.count(kDeclaredDtype) || value.dtype() == n.dtype) return value;
  return to_float(value, "input '" + n.name + "'");
}

}  // namespace tensorir::graph
