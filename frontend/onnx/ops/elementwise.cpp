// Element-wise operators: unary maps, broadcasting binary maps (folded on the host when
// both sides are known), the variadic Max/Min/Sum/Mean, Clip, BitShift and Identity/Dropout.
#include <algorithm>
#include <cctype>
#include <cfloat>

#include "frontend/onnx/ops/ops_util.h"

namespace tensorir::onnx::detail {

namespace {

// One ONNX unary operator onto one graph operator.
void unary(const std::string &onnx_op, const std::string &op, bool float_only, int since = kMinOpset) {
  auto convert = [op, float_only](Context &c) {
    if (float_only) need_float(c, 0);
    if (c.dtype(0).is_bool() || (op == "neg" && c.dtype(0).is_uint()))
      unsupported("input '" + c.input_name(0) + "' is " + c.dtype(0).str());
    if ((op == "neg" || op == "abs") && c.known(0) && c.dtype(0).is_int()) {  // shape arithmetic
      std::vector<int64_t> v = to_int64s(c.input(0).known);
      for (int64_t &x : v) x = op == "neg" ? -x : std::abs(x);
      return c.set_output(0, from_int64s(v, c.shape(0), c.dtype(0)));
    }
    c.output(0, op, {c.node(0)});
  };
  register_converter({onnx_op, since, kLatest, nullptr, convert});
}

// x * Sigmoid(x), as PyTorch exports SiLU (EfficientNet's activation), as one silu node:
// the multiply would otherwise read x and the sigmoid as two tensors, in a kernel apart
// from the convolution that computes x.
bool silu(Context &c) {
  if (!c.dtype(0).is_float() || c.known(0) || c.known(1) || c.shape(0) != c.shape(1)) return false;
  for (size_t s : {size_t{0}, size_t{1}}) {
    const graph::Node &sig = c.graph_node(c.node(s));
    const graph::NodeRef x = c.node(1 - s);
    if (sig.op == "sigmoid" && sig.inputs.size() == 1 && sig.inputs[0] == x.id) {
      c.output(0, "silu", {x});
      return true;
    }
  }
  return false;
}

// Add, Sub, Mul, Div: on the host when both sides are known. Before opset 7 they
// broadcast the old way.
void binary(const std::string &onnx_op, const std::string &op, BinaryOp host) {
  auto convert = [op, host](Context &c) {
    TIR_USER_CHECK(c.dtype(0) == c.dtype(1)) << "inputs '" << c.input_name(0) << "' (" << c.dtype(0) << ") and '"
                                             << c.input_name(1) << "' (" << c.dtype(1) << ") differ in type";
    if (c.all_known()) return c.set_output(0, host_binary(host, c.input(0).known, c.input(1).known));
    if (c.dtype(0).is_bool()) unsupported("bool inputs");
    // The graph's divide floors on integers; ONNX's truncates: (a - fmod(a, b)) / b, whose
    // division is exact (a divisor of 0 gives 0, as the graph's divide and mod do).
    if (op == "divide" && c.dtype(0).is_int()) {
      graph::NodeRef rest = c.make("mod", {c.node(0), c.node(1)}, {{"fmod", int64_t{1}}});
      return void(c.output(0, "divide", {c.make("subtract", {c.node(0), rest}), c.node(1)}));
    }
    if (op == "multiply" && (silu(c) || fuse_gelu(c))) return;
    if (op == "add" && fuse_layer_norm(c)) return;
    c.output(0, op, {c.node(0), c.node(1)});
  };
  register_binary(onnx_op, kMinOpset, convert);
}

// Pow: the exponent may have its own type (opset 12 on), cast to the base's (at import
// when it is known).
// An integer base computes in float64.
void pow_converter(Context &c) {
  if (c.dtype(0).is_int() || c.dtype(0).is_uint()) {  // in float64, the result cast back
    if (c.dtype(1).is_bool()) unsupported("a bool exponent");
    const std::map<std::string, graph::AttrValue> to_f64 = {{"dtype", Float(64).str()}};
    graph::NodeRef base = c.make("cast", {c.node(0)}, to_f64);
    graph::NodeRef e = c.dtype(1) == Float(64) ? c.node(1) : c.make("cast", {c.node(1)}, to_f64);
    return void(c.output(0, "cast", {c.make("pow", {base, e})}, {{"dtype", c.dtype(0).str()}}));
  }
  need_float(c, 0);
  graph::NodeRef exponent;
  if (c.dtype(1) == c.dtype(0))
    exponent = c.node(1);
  else if (c.known(1))
    exponent = c.constant(host_cast(c.input(1).known, c.dtype(0)), "exponent");
  else if (c.dtype(1).is_bool())
    unsupported("exponent '" + c.input_name(1) + "' is bool");
  else
    exponent = c.make("cast", {c.node(1)}, {{"dtype", c.dtype(0).str()}});
  c.output(0, "pow", {c.node(0), exponent});
}

// Max, Min, Sum, Mean: one or more inputs, broadcasting (from opset 8; before, all of one
// shape), folded left to right; Mean divides the sum by their number.
void variadic(const std::string &onnx_op, const std::string &op, BinaryOp host, bool mean) {
  auto convert = [=](Context &c, bool same_shapes) {
    const size_t n = c.num_inputs();
    for (size_t i = 1; i < n; ++i) {
      TIR_USER_CHECK(c.dtype(i) == c.dtype(0)) << "inputs differ in type";
      TIR_USER_CHECK(!same_shapes || c.shape(i) == c.shape(0))
          << "inputs " << shape_str(c.shape(0)) << " and " << shape_str(c.shape(i))
          << " differ in shape (broadcasting takes opset 8)";
    }
    if (c.dtype(0).is_bool()) unsupported("bool inputs");
    if (mean) need_float(c, 0);
    if (n == 1 && !mean) return c.forward(0, 0);
    if (c.all_known() && !mean) {
      NDArray acc = c.input(0).known;
      for (size_t i = 1; i < n; ++i) acc = host_binary(host, acc, c.input(i).known);
      return c.set_output(0, acc);
    }
    graph::NodeRef acc = c.node(0);
    for (size_t i = 1; i < n; ++i) {
      if (i + 1 == n && !mean) return void(c.output(0, op, {acc, c.node(i)}));
      acc = c.make(op, {acc, c.node(i)});
    }
    c.output(0, "divide", {acc, c.constant(scalar(double(n), c.dtype(0)), "count")});
  };
  register_converter({onnx_op, kMinOpset, 7, nullptr, [convert](Context &c) { convert(c, true); }});
  register_converter({onnx_op, 8, kLatest, nullptr, [convert](Context &c) { convert(c, false); }});
}

double type_max(Type t) { return t == Float(32) ? double(FLT_MAX) : DBL_MAX; }

// min(max(x, lo), hi). An absent bound is the type's lowest or largest value, as ONNX
// says; one beyond them (an infinity) clips nothing on its side, so infinities pass.
void clip(Context &c, double lo, double hi) {
  need_float(c, 0);
  const double m = type_max(c.dtype(0));
  if (lo > hi) {  // ONNX: Min(max, Max(x, min)), every value max (a NaN stays NaN)
    graph::NodeRef raised = c.make("maximum", {c.node(0), c.constant(scalar(lo, c.dtype(0)), "min")});
    return void(c.output(0, "minimum", {raised, c.constant(scalar(hi, c.dtype(0)), "max")}));
  }
  const bool below = lo >= -m, above = hi <= m;
  if (!below && !above) return c.forward(0, 0);
  if (!below || !above) {
    const double v = below ? lo : hi;
    return void(c.output(0, below ? "maximum" : "minimum",
                         {c.node(0), c.constant(scalar(v, c.dtype(0)), below ? "min" : "max")}));
  }
  c.output(0, "clip", {c.node(0)}, {{"lo", lo}, {"hi", hi}});
}

// Up to opset 10 the bounds are attributes.
void clip_attrs(Context &c) {
  const Attributes &a = c.attrs();
  const double m = type_max(c.dtype(0));
  clip(c, a.has("min") ? a.f("min", 0) : -m, a.has("max") ? a.f("max", 0) : m);
}

// From opset 11 they are optional inputs, known at import.
double bound(Context &c, size_t i, double def) {
  if (!c.has_input(i)) return def;
  const NDArray &v = c.value(i, i == 1 ? "min" : "max");
  if (v.numel() != 1) unsupported("bound '" + c.input_name(i) + "' is not a scalar");
  return to_doubles(v)[0];
}

// Bounds computed at run time, or an integer input: min(max(x, lo), hi) of graph nodes.
void clip_inputs(Context &c) {
  const bool computed = (c.num_inputs() > 1 && c.has_input(1) && !c.known(1)) ||
                        (c.num_inputs() > 2 && c.has_input(2) && !c.known(2));
  if (!computed && c.dtype(0).is_float()) {
    const double m = type_max(c.dtype(0));
    return clip(c, bound(c, 1, -m), bound(c, 2, m));
  }
  if (c.dtype(0).is_bool()) unsupported("bool input");
  std::vector<std::pair<size_t, std::string>> ops;
  for (size_t i : {size_t{1}, size_t{2}}) {
    if (c.num_inputs() <= i || !c.has_input(i)) continue;
    TIR_USER_CHECK(c.dtype(i) == c.dtype(0)) << "bound '" << c.input_name(i) << "' is " << c.dtype(i)
                                             << " but the input is " << c.dtype(0);
    if (element_count(c.shape(i)) != 1) unsupported("bound '" + c.input_name(i) + "' is not a scalar");
    ops.push_back({i, i == 1 ? "maximum" : "minimum"});
  }
  if (ops.empty()) return c.forward(0, 0);
  graph::NodeRef x = c.node(0);
  for (size_t k = 0; k < ops.size(); ++k) {
    const std::vector<graph::NodeRef> in = {x, c.node(ops[k].first)};
    x = k + 1 == ops.size() ? c.output(0, ops[k].second, in) : c.make(ops[k].second, in);
  }
}

// BitShift: X shifted by Y bits, LEFT or RIGHT (unsigned types; shifting out every bit gives 0).
void bit_shift(Context &c) {
  const std::string dir = c.attrs().s("direction", "");
  TIR_USER_CHECK(dir == "LEFT" || dir == "RIGHT") << "direction is '" << dir << "'; it must be LEFT or RIGHT";
  TIR_USER_CHECK(c.dtype(0) == c.dtype(1)) << "inputs '" << c.input_name(0) << "' (" << c.dtype(0) << ") and '"
                                           << c.input_name(1) << "' (" << c.dtype(1) << ") differ in type";
  if (!c.dtype(0).is_uint() || c.dtype(0).is_bool())
    unsupported("input '" + c.input_name(0) + "' is " + c.dtype(0).str() + "; BitShift takes unsigned integers");
  c.output(0, dir == "LEFT" ? "shift_left" : "shift_right", {c.node(0), c.node(1)});
}

// Dropout at inference is the identity, and its mask all true (ones of the input's type
// before opset 10). Before opset 7 only test mode (is_test) is inference, and leaves the
// mask unset.
void dropout(Context &c) {
  // In training mode with a ratio above 0 it drops at random; with ratio 0 it keeps all.
  const bool training = c.num_inputs() > 2 && c.has_input(2) && to_int64s(c.value(2, "training_mode")).at(0) != 0;
  if (training && c.num_inputs() > 1 && c.has_input(1) && to_doubles(c.value(1, "ratio")).at(0) != 0)
    unsupported("training_mode is true: elements are dropped at random");
  if (training && (c.num_inputs() < 2 || !c.has_input(1))) unsupported("training_mode is true: ratio 0.5");
  if (c.num_outputs() > 1 && c.wants_output(1)) {
    if (c.opset() < 7) unsupported("the mask output, which test mode does not set");
    if (element_count(c.shape(0)) == 0) unsupported("an empty input");
    const Type mask = c.opset() < 10 ? c.dtype(0) : Bool();
    check_host_size(c.shape(0), mask, "the mask");
    c.set_output(1, from_doubles(std::vector<double>(size_t(element_count(c.shape(0))), 1.0), c.shape(0), mask));
  }
  c.forward(0, 0);
}

const bool registered = [] {
  unary("Relu", "relu", false);
  unary("Neg", "neg", false);
  unary("Abs", "abs", false);
  for (const char *op : {"Exp", "Log", "Sqrt", "Reciprocal", "Sigmoid", "Tanh", "Floor", "Ceil", "Erf", "Sin", "Cos",
                         "Tan", "Asin", "Acos", "Atan", "Sinh", "Cosh", "Asinh", "Acosh", "Atanh"}) {
    std::string name = op;
    for (char &ch : name) ch = char(std::tolower(static_cast<unsigned char>(ch)));
    unary(op, name, true, name == "erf" ? 9 : kMinOpset);
  }
  binary("Add", "add", BinaryOp::kAdd);
  binary("Sub", "subtract", BinaryOp::kSub);
  binary("Mul", "multiply", BinaryOp::kMul);
  binary("Div", "divide", BinaryOp::kDiv);
  register_binary("Pow", kMinOpset, pow_converter);
  variadic("Max", "maximum", BinaryOp::kMax, false);
  variadic("Min", "minimum", BinaryOp::kMin, false);
  variadic("Sum", "add", BinaryOp::kAdd, false);
  variadic("Mean", "add", BinaryOp::kAdd, true);
  register_converter({"Clip", kMinOpset, 10, nullptr, clip_attrs});
  register_converter({"Clip", 11, kLatest, nullptr, clip_inputs});
  register_converter({"Identity", kMinOpset, kLatest, nullptr, [](Context &c) { c.forward(0, 0); }});
  register_converter({"Dropout", kMinOpset, 6, check_is_test, dropout});
  register_converter({"Dropout", 7, kLatest, nullptr, dropout});
  register_converter({"BitShift", 11, kLatest, nullptr, bit_shift});
  return true;
}();

}  // namespace

}  // namespace tensorir::onnx::detail
