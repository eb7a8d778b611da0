// Broadcasting binary maps besides add and multiply: subtract, divide, maximum, minimum,
// pow, shift_left, shift_right. Like add, each computes on channel-blocked data when both sides are blocked alike.
#include "def_util.h"

namespace tensorir::ops::defs {

namespace {

using BinaryFn = Tensor (*)(const Tensor &, const Tensor &, const std::string &);

void check_float(const Node &n, const std::vector<const Node *> &in) {
  check_same_dtypes(n, in);
  TIR_USER_CHECK(in[0]->dtype.is_float())
      << "input '" << in[0]->name << "' is " << in[0]->dtype << "; this operator takes float tensors";
}

void check_int(const Node &n, const std::vector<const Node *> &in) {
  check_same_dtypes(n, in);
  TIR_USER_CHECK(in[0]->dtype.is_int_or_uint())
      << "input '" << in[0]->name << "' is " << in[0]->dtype << "; this operator takes integer tensors";
}

void register_binary(const std::string &name, const std::string &doc, bool commutative, bool float_only, BinaryFn fn,
                     decltype(OpDef::check) check = nullptr) {
  OpDef def;
  def.name = name;
  def.doc = doc;
  def.inputs = {"a", "b"};
  def.pattern = graph::OpPattern::kElementWise;
  def.layout = graph::LayoutRule::kBinary;
  def.commutative = commutative;
  def.check = check ? check : float_only ? check_float : check_same_dtypes;
  def.compute = [fn](const Node &, const std::vector<Tensor> &in, const std::string &out) {
    return fn(in[0], in[1], out);
  };
  on_cpu(def, blocked_cpu_strategy());
  graph::register_op(std::move(def));
}

const bool registered = [] {
  register_binary("subtract", "a - b, broadcasting as NumPy does", false, false, ops::subtract);
  register_binary("divide", "a / b, broadcasting as NumPy does (floor division on integers)", false, false,
                  ops::divide);
  register_binary("maximum", "the larger of a and b, broadcasting as NumPy does", true, false, ops::maximum);
  register_binary("minimum", "the smaller of a and b, broadcasting as NumPy does", true, false, ops::minimum);
  register_binary("shift_left", "a << b on integers, broadcasting (0 for b outside [0, bits))", false, false,
                  ops::shift_left, check_int);
  register_binary("shift_right", "a >> b on integers, broadcasting (arithmetic on signed types)", false, false,
                  ops::shift_right, check_int);
  register_binary("pow", "a to the power b, broadcasting as NumPy does (float tensors)", false, true, ops::power);
  return true;
}();

}  // namespace

}  // namespace tensorir::ops::defs
