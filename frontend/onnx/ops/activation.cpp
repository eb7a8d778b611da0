// Activations the graph has no operator of its own for, composed from those it has.
// The negative part goes through min(x, 0) so that each formula is exact on both sides:
// relu(x) + a * min(x, 0) is x for x >= 0 and a * x below.
#include <cmath>

#include "frontend/onnx/ops/ops_util.h"

namespace tensorir::onnx::detail {

namespace {

graph::NodeRef scalar_node(Context &c, double v, const std::string &suffix) {
  return c.constant(scalar(v, c.dtype(0)), suffix);
}

// min(x, 0)
graph::NodeRef negative_part(Context &c, graph::NodeRef x) { return c.make("minimum", {x, scalar_node(c, 0, "zero")}); }

// relu(x) + slope * min(x, 0); the last node is output 0.
void relu_plus(Context &c, graph::NodeRef slope) {
  graph::NodeRef x = c.node(0);
  graph::NodeRef neg = c.make("multiply", {negative_part(c, x), slope});
  c.output(0, "add", {c.make("relu", {x}), neg});
}

// scale * (relu(x) + alpha * (exp(min(x, 0)) - 1)): Elu with scale 1, Selu.
void elu(Context &c, double alpha, double scale) {
  need_float(c, 0);
  graph::NodeRef x = c.node(0);
  graph::NodeRef e = c.make("subtract", {c.make("exp", {negative_part(c, x)}), scalar_node(c, 1, "one")});
  graph::NodeRef neg = c.make("multiply", {e, scalar_node(c, alpha, "alpha")});
  if (scale == 1.0) return void(c.output(0, "add", {c.make("relu", {x}), neg}));
  graph::NodeRef sum = c.make("add", {c.make("relu", {x}), neg});
  c.output(0, "multiply", {sum, scalar_node(c, scale, "gamma")});
}

// clip(alpha * x + beta, 0, 1); HardSwish multiplies x by it.
graph::NodeRef hard_sigmoid(Context &c, double alpha, double beta, bool is_output) {
  need_float(c, 0);
  graph::NodeRef y = c.make("multiply", {c.node(0), scalar_node(c, alpha, "alpha")});
  y = c.make("add", {y, scalar_node(c, beta, "beta")});
  std::map<std::string, graph::AttrValue> attrs = {{"lo", 0.0}, {"hi", 1.0}};
  return is_output ? c.output(0, "clip", {y}, attrs) : c.make("clip", {y}, attrs);
}

void leaky_relu(Context &c) {
  need_float(c, 0);
  relu_plus(c, scalar_node(c, c.attrs().f("alpha", 0.01f), "alpha"));
}

// PRelu's slope broadcasts to the input (a tensor per channel, say). Before opset 7 a
// vector slope [C] is one per channel (dimension 1).
void prelu(Context &c, bool legacy) {
  need_float(c, 0);
  TIR_USER_CHECK(c.dtype(1) == c.dtype(0)) << "slope and input differ in type";
  const bool per_channel = legacy && c.rank(0) > 2 && c.rank(1) == 1 && c.shape(1)[0] == c.shape(0)[1];
  relu_plus(c, per_channel ? channel_vector(c, 1, c.rank(0)) : c.node(1));
}

// The default alpha and gamma were rounded to 5 digits before opset 6.
void selu(Context &c, bool old) {
  elu(c, c.attrs().f("alpha", old ? 1.6732f : 1.67326319217681884765625f),
      c.attrs().f("gamma", old ? 1.0507f : 1.05070102214813232421875f));
}

void hard_swish(Context &c) {
  need_float(c, 0);
  c.output(0, "multiply", {c.node(0), hard_sigmoid(c, 1.0 / 6.0, 0.5, false)});
}

void softplus(Context &c) {
  need_float(c, 0);
  c.output(0, "add", softplus_terms(c, c.node(0), scalar_node(c, 1, "one")));
}

// x / (1 + |x|)
void softsign(Context &c) {
  need_float(c, 0);
  graph::NodeRef d = c.make("add", {c.make("abs", {c.node(0)}), scalar_node(c, 1, "one")});
  c.output(0, "divide", {c.node(0), d});
}

// relu(x) + alpha * (exp(min(x, 0) / alpha) - 1)
void celu(Context &c) {
  need_float(c, 0);
  const double alpha = c.attrs().f("alpha", 1.0f);
  TIR_USER_CHECK(alpha != 0) << "alpha 0";
  graph::NodeRef x = c.node(0);
  graph::NodeRef e = c.make("exp", {c.make("divide", {negative_part(c, x), scalar_node(c, alpha, "alpha")})});
  e = c.make("subtract", {e, scalar_node(c, 1, "one")});
  graph::NodeRef neg = c.make("multiply", {e, scalar_node(c, alpha, "alpha_scale")});
  c.output(0, "add", {c.make("relu", {x}), neg});
}

// x + bias below -lambd, x - bias above lambd, else 0.
void shrink(Context &c) {
  need_float(c, 0);
  const double lambd = c.attrs().f("lambd", 0.5f), bias = c.attrs().f("bias", 0.0f);
  graph::NodeRef x = c.node(0);
  graph::NodeRef zero = scalar_node(c, 0, "zero"), b = scalar_node(c, bias, "bias");
  graph::NodeRef above = c.make("where", {c.make("greater", {x, scalar_node(c, lambd, "lambd")}),
                                          c.make("subtract", {x, b}), zero});
  graph::NodeRef below = c.make("less", {x, scalar_node(c, -lambd, "neg_lambd")});
  c.output(0, "where", {below, c.make("add", {x, b}), above});
}

// x * tanh(softplus(x))
void mish(Context &c) {
  need_float(c, 0);
  graph::NodeRef sp = c.make("add", softplus_terms(c, c.node(0), scalar_node(c, 1, "one")));
  c.output(0, "multiply", {c.node(0), c.make("tanh", {sp})});
}

// x (1 + erf(x / sqrt 2)) / 2, or with approximate "tanh"
// x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))) / 2.
void gelu(Context &c) {
  need_float(c, 0);
  const std::string approx = c.attrs().s("approximate", "none");
  if (approx == "none") return void(c.output(0, "gelu", {c.node(0)}));
  graph::NodeRef x = c.node(0);
  graph::NodeRef cube = c.make("multiply", {c.make("multiply", {x, x}), x});
  graph::NodeRef inner = c.make("add", {x, c.make("multiply", {cube, scalar_node(c, 0.044715, "cubic")})});
  inner = c.make("multiply", {inner, scalar_node(c, std::sqrt(2.0 / M_PI), "sqrt_2_over_pi")});
  graph::NodeRef t = c.make("add", {c.make("tanh", {inner}), scalar_node(c, 1, "one")});
  c.output(0, "multiply", {c.make("multiply", {x, t}), scalar_node(c, 0.5, "half")});
}

std::string check_gelu(const Attributes &a) {
  const std::string approx = a.s("approximate", "none");
  return approx == "none" || approx == "tanh" ? "" : "approximate '" + approx + "' is not none or tanh";
}

const bool registered = [] {
  register_converter({"Mish", 18, kLatest, nullptr, mish});
  register_converter({"Gelu", 20, kLatest, check_gelu, gelu});
  register_converter({"LeakyRelu", kMinOpset, kLatest, nullptr, leaky_relu});
  register_converter({"PRelu", kMinOpset, 6, nullptr, [](Context &c) { prelu(c, true); }});
  register_converter({"PRelu", 7, kLatest, nullptr, [](Context &c) { prelu(c, false); }});
  register_converter({"Elu", kMinOpset, kLatest, nullptr, [](Context &c) { elu(c, c.attrs().f("alpha", 1.0f), 1.0); }});
  register_converter({"Selu", kMinOpset, 5, nullptr, [](Context &c) { selu(c, true); }});
  register_converter({"Selu", 6, kLatest, nullptr, [](Context &c) { selu(c, false); }});
  register_converter({"HardSigmoid", kMinOpset, kLatest, nullptr, [](Context &c) {
                        hard_sigmoid(c, c.attrs().f("alpha", 0.2f), c.attrs().f("beta", 0.5f), true);
                      }});
  register_converter({"HardSwish", 14, kLatest, nullptr, hard_swish});
  register_converter({"Softplus", kMinOpset, kLatest, nullptr, softplus});
  register_converter({"Celu", 12, kLatest, nullptr, celu});
  register_converter({"Shrink", 9, kLatest, nullptr, shrink});
  register_converter({"Softsign", kMinOpset, kLatest, nullptr, softsign});
  return true;
}();

}  // namespace

std::vector<graph::NodeRef> softplus_terms(Context &c, graph::NodeRef x, graph::NodeRef one) {
  graph::NodeRef e = c.make("exp", {c.make("neg", {c.make("abs", {x})})});
  return {c.make("relu", {x}), c.make("log", {c.make("add", {e, one})})};
}

}  // namespace tensorir::onnx::detail
