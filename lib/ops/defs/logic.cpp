// Comparisons and logic with bool results: equal, less, less_equal, greater,
// greater_equal, logical_and, logical_or, logical_xor, logical_not, isnan, isinf; and
// where, a select among three broadcast inputs.
#include <cmath>

#include "../op_util.h"
#include "def_util.h"

namespace tensorir::ops::defs {

namespace {

using BinaryFn = Tensor (*)(const Tensor &, const Tensor &, const std::string &);

OpDef elementwise(const std::string &name, std::vector<std::string> inputs, const std::string &doc) {
  OpDef def;
  def.name = name;
  def.doc = doc;
  def.inputs = std::move(inputs);
  def.pattern = graph::OpPattern::kElementWise;
  on_cpu(def, blocked_cpu_strategy());
  return def;
}

void check_bool(const Node &, const std::vector<const Node *> &in) {
  for (const Node *i : in)
    TIR_USER_CHECK(i->dtype.is_bool()) << "input '" << i->name << "' is " << i->dtype
                                       << "; this operator takes bool tensors";
}

void register_binary(const std::string &name, const std::string &doc, bool commutative, bool logic, BinaryFn fn) {
  OpDef def = elementwise(name, {"a", "b"}, doc + ", broadcasting as NumPy does; a bool result");
  def.commutative = commutative;
  def.check = [logic](const Node &n, const std::vector<const Node *> &in) {
    check_same_dtypes(n, in);
    if (logic) check_bool(n, in);
  };
  def.compute = [fn](const Node &, const std::vector<Tensor> &in, const std::string &out) {
    return fn(in[0], in[1], out);
  };
  graph::register_op(std::move(def));
}

void register_unary(const std::string &name, const std::string &doc, const graph::ComputeFn &fn,
                    const std::function<void(const Node &, const std::vector<const Node *> &)> &check) {
  OpDef def = elementwise(name, {"x"}, doc);
  def.check = check;
  def.compute = fn;
  graph::register_op(std::move(def));
}

// A bool map of x.
Tensor map_bool(const Tensor &x, const std::string &name, const std::function<Expr(Expr)> &f) {
  return compute(
      x.shape(), [&](const std::vector<Var> &v) { return f(x(std::vector<Expr>(v.begin(), v.end()))); }, name,
      detail::kInjective);
}

void check_float(const Node &, const std::vector<const Node *> &in) {
  TIR_USER_CHECK(in[0]->dtype.is_float())
      << "input '" << in[0]->name << "' is " << in[0]->dtype << "; this operator takes float tensors";
}

const bool registered = [] {
  register_binary("equal", "a == b", true, false, ops::equal);
  register_binary("less", "a < b", false, false, ops::less);
  register_binary("less_equal", "a <= b", false, false, ops::less_equal);
  register_binary("greater", "a > b", false, false, ops::greater);
  register_binary("greater_equal", "a >= b", false, false, ops::greater_equal);
  register_binary("logical_and", "a and b", true, true, ops::logical_and);
  register_binary("logical_or", "a or b", true, true, ops::logical_or);
  register_binary("logical_xor", "a xor b", true, true, ops::logical_xor);

  register_unary(
      "logical_not", "not x, of a bool tensor",
      [](const Node &, const std::vector<Tensor> &in, const std::string &out) {
        return map_bool(in[0], out, [](Expr x) { return !x; });
      },
      check_bool);
  register_unary(
      "isnan", "whether x is NaN (a bool tensor)",
      [](const Node &, const std::vector<Tensor> &in, const std::string &out) {
        return map_bool(in[0], out, [](Expr x) { return x != x; });
      },
      check_float);
  OpDef isinf = elementwise("isinf", {"x"}, "whether x is +inf (positive = 1) or -inf (negative = 1), a bool tensor");
  isinf.attrs = {{"positive", AttrType::Int, int64_t{1}}, {"negative", AttrType::Int, int64_t{1}}};
  isinf.check = check_float;
  isinf.compute = [](const Node &n, const std::vector<Tensor> &in, const std::string &out) {
    const bool pos = n.attr_int("positive") != 0, neg = n.attr_int("negative") != 0;
    return map_bool(in[0], out, [&](Expr x) {
      const Expr inf = make_const(x.type(), HUGE_VAL);
      Expr p = x == inf, m = x == -inf;
      if (pos && neg) return p || m;
      if (pos) return p;
      if (neg) return m;
      return make_const(Bool(), 0);
    });
  };
  graph::register_op(std::move(isinf));

  OpDef where = elementwise("where", {"cond", "a", "b"}, "cond ? a : b, the three broadcast as NumPy does");
  where.check = [](const Node &, const std::vector<const Node *> &in) {
    TIR_USER_CHECK(in[0]->dtype.is_bool())
        << "condition '" << in[0]->name << "' is " << in[0]->dtype << "; it must be bool";
    TIR_USER_CHECK(in[1]->dtype == in[2]->dtype) << "input '" << in[1]->name << "' is " << in[1]->dtype
                                                 << " but input '" << in[2]->name << "' is " << in[2]->dtype;
  };
  where.compute = [](const Node &, const std::vector<Tensor> &in, const std::string &out) {
    return ops::where(in[0], in[1], in[2], out);
  };
  graph::register_op(std::move(where));
  return true;
}();

}  // namespace

}  // namespace tensorir::ops::defs
