// Element-wise operators: relu, clip, add, multiply. Each computes on channel-blocked
// data as it comes, so convolutions pass blocked activations through them.
#include "def_util.h"

namespace tensorir::ops::defs {

namespace {

OpDef elementwise(const std::string &name, std::vector<std::string> inputs, graph::LayoutRule layout) {
  OpDef def;
  def.name = name;
  def.inputs = std::move(inputs);
  def.pattern = graph::OpPattern::kElementWise;
  def.layout = layout;
  def.check = check_same_dtypes;
  on_cpu(def, blocked_cpu_strategy());
  return def;
}

const bool registered = [] {
  OpDef relu = elementwise("relu", {"x"}, graph::LayoutRule::kElementWise);
  relu.doc = "max(x, 0)";
  relu.compute = unary([](const Tensor &x, const std::string &name) { return ops::relu(x, name); });
  graph::register_op(std::move(relu));

  OpDef clip = elementwise("clip", {"x"}, graph::LayoutRule::kElementWise);
  clip.doc = "min(max(x, lo), hi)";
  clip.attrs = {{"lo", AttrType::Real}, {"hi", AttrType::Real}};
  clip.compute = [](const Node &n, const std::vector<Tensor> &in, const std::string &name) {
    return ops::clip(in[0], n.attr_double("lo"), n.attr_double("hi"), name);
  };
  graph::register_op(std::move(clip));

  // Broadcasting binary maps; a fused value may come in on either side.
  OpDef add = elementwise("add", {"a", "b"}, graph::LayoutRule::kBinary);
  add.doc = "a + b, broadcasting as NumPy does";
  add.commutative = true;
  add.compute = [](const Node &, const std::vector<Tensor> &in, const std::string &name) {
    return ops::add(in[0], in[1], name);
  };
  graph::register_op(std::move(add));

  OpDef multiply = elementwise("multiply", {"a", "b"}, graph::LayoutRule::kBinary);
  multiply.doc = "a * b, broadcasting as NumPy does";
  multiply.commutative = true;
  multiply.compute = [](const Node &, const std::vector<Tensor> &in, const std::string &name) {
    return ops::multiply(in[0], in[1], name);
  };
  graph::register_op(std::move(multiply));
  return true;
}();

}  // namespace

}  // namespace tensorir::ops::defs
