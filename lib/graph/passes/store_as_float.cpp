// For targets that keep tensors in textures: every bool or int64 tensor a kernel would pass
// to another (a padding mask, token ids, a mask expanded to the attention's shape) or give
// as an output (a classifier's class) is stored as float32 and cast back to its dtype where
// it is read, so that no texture holds a type textures cannot hold. The casts back are
// computed inside the reading kernels (graph::build inlines a cast to bool or int64 of a
// float32 value on these targets); an output's, when a run reads it back.
#include <cmath>
#include <set>

#include "tensorir/error.h"
#include "tensorir/graph/passes.h"
#include "../op_table.h"
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

// A reduction ends its kernel, so no cast to float32 can follow it there: one whose result
// is int64 computes in float32 where that gives the same integers (argmax's index type; a
// sum, product, extreme or running sum of the stored values of its int64 inputs). `n` with
// such changes and its dtype inferred, or `n` itself for other operators.
Node reduced_in_float(const Node &n, const std::vector<int> &inputs, const std::vector<int> &stored, const Graph &out) {
  static const std::set<std::string> same_in_float = {"reduce_sum", "reduce_prod",       "reduce_max", "reduce_min",
                                                      "reduce_l1",  "reduce_sum_square", "cumsum"};
  Node f = n;
  const bool arg = n.op == "argmax" || n.op == "argmin";
  if (!arg && !same_in_float.count(n.op)) return f;
  if (arg) f.attrs["index_dtype"] = std::string("float32");
  for (size_t i = 0; i < inputs.size(); ++i)
    if (stored[size_t(inputs[i])] >= 0) f.inputs[i] = stored[size_t(inputs[i])];
  std::vector<const Node *> in;
  for (int id : f.inputs) in.push_back(&out.node(id));
  detail::infer_shape(f, in);
  return f;
}

}  // namespace

Graph store_as_float(const Graph &g) {
  g.validate();
  Graph out;
  // remap: what readers of a node read (its dtype as declared); stored_output: what a
  // graph output becomes (float32 where the declared dtype is not storable).
  std::vector<int> remap(g.nodes().size(), -1), stored_output(g.nodes().size(), -1);
  std::vector<bool> read(g.nodes().size());
  std::set<std::string> names = detail::node_names(g);
  for (const Node &n : g.nodes())
    for (int in : n.inputs) read[size_t(in)] = true;
  for (int id : g.topological_order()) {
    Node n = g.node(id);
    for (int &in : n.inputs) in = remap[size_t(in)];
    if (!unstorable(n.dtype)) {
      remap[size_t(id)] = stored_output[size_t(id)] = out.add_node(std::move(n));
      continue;
    }
    const Type declared = n.dtype;
    const std::string name = n.name, op = n.op;
    const std::vector<int64_t> shape = n.shape;
    const bool output = g.is_output(id);
    // The stored value: the input or constant itself as float32; a computed node's result,
    // computed in float32 (a reduction that can) or cast to float32 in its kernel, under
    // the node's name for an output, else "<name>.stored".
    Node s;
    if (op == "input" || op == "constant") {
      s = std::move(n);
      if (op == "constant") s.value = to_float(s.value, "constant '" + name + "'");
      s.dtype = Float(32);
    } else {
      s = reduced_in_float(n, g.node(id).inputs, stored_output, out);
      if (s.dtype != Float(32)) {
        n.name = detail::fresh_name(names, name + ".computed");
        s = cast_node("", out.add_node(std::move(n)), shape, Float(32));
      }
      s.name = output ? name : detail::fresh_name(names, name + ".stored");
    }
    // A run converts an input from the dtype the graph declares, and an output back to it.
    if (op == "input" || output) s.attrs[kDeclaredDtype] = declared.str();
    const int stored = stored_output[size_t(id)] = out.add_node(std::move(s));
    // The cast back: under the node's own name, or, where the stored node keeps it (an
    // input, a constant, an output), "<name>.declared". An output no node reads needs none.
    const bool kept = op == "input" || op == "constant" || output;
    if (output && !read[size_t(id)]) continue;
    remap[size_t(id)] =
        out.add_node(cast_node(kept ? detail::fresh_name(names, name + ".declared") : name, stored, shape, declared));
  }
  // The outputs are the stored values, which a run converts back (declared_output_value).
  detail::set_remapped_outputs(out, g, stored_output);
  return out;
}

NDArray stored_input_value(const Node &n, const NDArray &value) {
  if (!n.attrs.count(kDeclaredDtype) || value.dtype() == n.dtype) return value;
  return to_float(value, "input '" + n.name + "'");
}

Type declared_dtype(const Node &n) {
  const auto declared = n.attrs.find(kDeclaredDtype);
  return declared == n.attrs.end() ? n.dtype : Type::parse(std::get<std::string>(declared->second));
}

NDArray declared_output_value(const Node &n, const NDArray &value) {
  if (!n.attrs.count(kDeclaredDtype)) return value;
  const Type dtype = declared_dtype(n);
  const NDArray host = value.device() == Device::cpu() ? value : value.to(Device::cpu());
  const std::vector<float> f = host.to_vector<float>();
  if (dtype.is_bool()) {
    NDArray out = NDArray::empty(host.shape(), Bool());
    uint8_t *b = static_cast<uint8_t *>(out.data());
    for (size_t i = 0; i < f.size(); ++i) b[i] = f[i] != 0.0f;
    return out;
  }
  TIR_ASSERT(dtype == Int(64)) << "output '" << n.name << "' declares " << dtype;
  std::vector<int64_t> v(f.size());
  for (size_t i = 0; i < f.size(); ++i) {
    // float32 of 2^63 is the first value beyond int64.
    TIR_USER_CHECK(std::abs(f[i]) < 9.2233720368547758e18f)
        << "output '" << n.name << "' is " << f[i] << " at element " << i << ", which no int64 holds: this target "
        << "computes int64 tensors in float32 (exact up to " << kExactInFloat << "); build for another target";
    v[i] = std::llround(f[i]);
  }
  return NDArray::from_vector(v, host.shape());
}

}  // namespace tensorir::graph
