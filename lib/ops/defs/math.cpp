// Unary maps, element by element: neg, abs, exp, log, sqrt, reciprocal, sigmoid, tanh,
// floor, ceil, erf, gelu, the trigonometric and hyperbolic functions and their inverses, and
// cast. Each computes on channel-blocked data as it comes, as relu does.
#include <functional>

#include "../op_util.h"
#include "def_util.h"

namespace tensorir::ops::defs {

namespace {

// Inputs that need a float (the intrinsics would compute in float32 and change the dtype).
void check_float(const Node &, const std::vector<const Node *> &in) {
  TIR_USER_CHECK(in[0]->dtype.is_float())
      << "input '" << in[0]->name << "' is " << in[0]->dtype << "; this operator takes float tensors";
}

void check_numeric(const Node &, const std::vector<const Node *> &in) {
  TIR_USER_CHECK(!in[0]->dtype.is_bool()) << "input '" << in[0]->name << "' is bool; this operator takes numbers";
}

// erf of float32 x as a rational function of x (odd over even polynomials, x clamped
// to [-4, 4]; within 4e-7 of erf): it vectorizes, where the C library's erff is called
// lane by lane. Other float types call erf.
Expr erf_rational(Expr x) {
  if (x.type() != Float(32)) return tensorir::erf(x);
  const Type t = x.type();
  auto horner = [&](const std::vector<double> &c, const Expr &x2) {
    Expr p = make_const(t, c.back());
    for (size_t i = c.size() - 1; i-- > 0;) p = p * x2 + make_const(t, c[i]);
    return p;
  };
  Expr xc = max(min(x, make_const(t, 4.0)), make_const(t, -4.0));
  Expr x2 = xc * xc;
  Expr num = horner({-1.60960333262415e-02, -2.95459980854025e-03, -7.34990630326855e-04, -5.69250639462346e-05,
                     -2.10102402082508e-06, 2.77068142495902e-08, -2.72614225801306e-10},
                    x2);
  Expr den = horner({-1.42647390514189e-02, -7.37332916720468e-03, -1.68282697438203e-03, -2.13374055278905e-04,
                     -1.45660718464996e-05},
                    x2);
  return xc * num / den;
}

}  // namespace

void register_unary(const std::string &name, const std::string &doc, bool float_only, std::function<Expr(Expr)> f) {
  OpDef def;
  def.name = name;
  def.doc = doc;
  def.inputs = {"x"};
  def.pattern = graph::OpPattern::kElementWise;
  def.layout = graph::LayoutRule::kElementWise;
  def.check = float_only ? check_float : check_numeric;
  def.compute = [f](const Node &, const std::vector<Tensor> &in, const std::string &out) {
    const Tensor &x = in[0];
    return compute(
        x.shape(), [&](const std::vector<Var> &v) { return f(x(std::vector<Expr>(v.begin(), v.end()))); }, out,
        detail::kInjective);
  };
  on_cpu(def, blocked_cpu_strategy());
  graph::register_op(std::move(def));
}

namespace {

// cast: the element type named by "dtype" ("float32", "int64", ...); to bool is x != 0.
void register_cast() {
  OpDef def;
  def.name = "cast";
  def.doc = "x converted to `dtype` (a float to an integer rounds toward zero; to bool: x != 0)";
  def.inputs = {"x"};
  def.attrs = {{"dtype", AttrType::String}};
  def.pattern = graph::OpPattern::kElementWise;
  def.layout = graph::LayoutRule::kElementWise;
  def.check = [](const Node &n, const std::vector<const Node *> &) {
    const Type to = Type::parse(n.attr_string("dtype"));
    TIR_USER_CHECK(NDArray::can_hold(to)) << "node '" << n.name << "': cast to " << to
                                          << ", which no array holds; cast to " << NDArray::holdable_types();
  };
  def.compute = [](const Node &n, const std::vector<Tensor> &in, const std::string &out) {
    const Type to = Type::parse(n.attr_string("dtype"));
    const Tensor &x = in[0];
    return compute(
        x.shape(),
        [&](const std::vector<Var> &v) {
          Expr e = x(std::vector<Expr>(v.begin(), v.end()));
          if (to.is_bool() && !e.type().is_bool()) return e != make_const(e.type(), 0);
          return cast(to, e);
        },
        out, detail::kInjective);
  };
  on_cpu(def, blocked_cpu_strategy());
  graph::register_op(std::move(def));
}

const bool registered = [] {
  register_cast();
  register_unary("neg", "-x", false, [](Expr x) { return -x; });
  register_unary("abs", "|x|", false, [](Expr x) { return tensorir::abs(x); });
  register_unary("exp", "e to the x", true, [](Expr x) { return tensorir::exp(x); });
  register_unary("log", "the natural logarithm of x", true, [](Expr x) { return tensorir::log(x); });
  register_unary("sqrt", "the square root of x", true, [](Expr x) { return tensorir::sqrt(x); });
  register_unary("reciprocal", "1 / x", true, [](Expr x) { return make_const(x.type(), 1) / x; });
  register_unary("sigmoid", "1 / (1 + exp(-x))", true, [](Expr x) { return tensorir::sigmoid(x); });
  register_unary("silu", "x * sigmoid(x) (swish)", true, [](Expr x) { return x * tensorir::sigmoid(x); });
  register_unary("tanh", "the hyperbolic tangent of x", true, [](Expr x) { return tensorir::tanh(x); });
  register_unary("floor", "the largest integer not above x", true, [](Expr x) { return tensorir::floor(x); });
  register_unary("ceil", "the smallest integer not below x", true, [](Expr x) { return tensorir::ceil(x); });
  register_unary("erf", "the error function of x", true, [](Expr x) { return tensorir::erf(x); });
  register_unary("gelu", "x * (1 + erf(x / sqrt(2))) / 2 (erf within 4e-7 in float32)", true, [](Expr x) {
    const Type t = x.type();
    return x * make_const(t, 0.5) * (make_const(t, 1.0) + erf_rational(x * make_const(t, 0.70710678118654752440)));
  });
  register_unary("sin", "the sine of x (radians)", true, [](Expr x) { return tensorir::sin(x); });
  register_unary("cos", "the cosine of x (radians)", true, [](Expr x) { return tensorir::cos(x); });
  register_unary("tan", "the tangent of x (radians)", true, [](Expr x) { return tensorir::tan(x); });
  register_unary("asin", "the arcsine of x, in [-pi/2, pi/2]", true, [](Expr x) { return tensorir::asin(x); });
  register_unary("acos", "the arccosine of x, in [0, pi]", true, [](Expr x) { return tensorir::acos(x); });
  register_unary("atan", "the arctangent of x, in (-pi/2, pi/2)", true, [](Expr x) { return tensorir::atan(x); });
  register_unary("sinh", "the hyperbolic sine of x", true, [](Expr x) { return tensorir::sinh(x); });
  register_unary("cosh", "the hyperbolic cosine of x", true, [](Expr x) { return tensorir::cosh(x); });
  register_unary("asinh", "the inverse hyperbolic sine of x", true, [](Expr x) { return tensorir::asinh(x); });
  register_unary("acosh", "the inverse hyperbolic cosine of x (x >= 1)", true,
                 [](Expr x) { return tensorir::acosh(x); });
  register_unary("atanh", "the inverse hyperbolic tangent of x (|x| < 1)", true,
                 [](Expr x) { return tensorir::atanh(x); });
  return true;
}();

}  // namespace

}  // namespace tensorir::ops::defs
