// Comparisons (Equal, Less, LessOrEqual, Greater, GreaterOrEqual), logic on bool tensors
// (Not, And, Or, Xor), Where, IsNaN and IsInf: bool results, broadcasting as NumPy does.
#include "frontend/onnx/ops/ops_util.h"

namespace tensorir::onnx::detail {

namespace {

void same_types(const Context &c, size_t i, size_t j) {
  TIR_USER_CHECK(c.dtype(i) == c.dtype(j)) << "inputs '" << c.input_name(i) << "' (" << c.dtype(i) << ") and '"
                                           << c.input_name(j) << "' (" << c.dtype(j) << ") differ in type";
}

void compare(const std::string &onnx_op, int since, const std::string &op) {
  auto convert = [op](Context &c) {
    same_types(c, 0, 1);
    if (c.dtype(0).is_bool() && op != "equal") unsupported("bool inputs");
    c.output(0, op, {c.node(0), c.node(1)});
  };
  register_converter({onnx_op, since, kLatest, nullptr, convert});
}

void need_bool(const Context &c, size_t i) {
  if (!c.dtype(i).is_bool()) unsupported("input '" + c.input_name(i) + "' is " + c.dtype(i).str() + ", not bool");
}

void logic(const std::string &onnx_op, const std::string &op) {
  auto convert = [op](Context &c) {
    need_bool(c, 0);
    need_bool(c, 1);
    c.output(0, op, {c.node(0), c.node(1)});
  };
  register_converter({onnx_op, kMinOpset, kLatest, nullptr, convert});
}

void where(Context &c) {
  need_bool(c, 0);
  same_types(c, 1, 2);
  c.output(0, "where", {c.node(0), c.node(1), c.node(2)});
}

void isinf(Context &c) {
  need_float(c, 0);
  const Attributes &a = c.attrs();
  c.output(0, "isinf", {c.node(0)},
           {{"positive", int64_t(a.i("detect_positive", 1) != 0)}, {"negative", int64_t(a.i("detect_negative", 1) != 0)}});
}

const bool registered = [] {
  compare("Equal", kMinOpset, "equal");
  compare("Less", kMinOpset, "less");
  compare("Greater", kMinOpset, "greater");
  compare("LessOrEqual", 12, "less_equal");
  compare("GreaterOrEqual", 12, "greater_equal");
  logic("And", "logical_and");
  logic("Or", "logical_or");
  logic("Xor", "logical_xor");
  register_converter({"Not", kMinOpset, kLatest, nullptr, [](Context &c) {
                        need_bool(c, 0);
                        c.output(0, "logical_not", {c.node(0)});
                      }});
  register_converter({"Where", 9, kLatest, nullptr, where});
  register_converter({"IsNaN", 9, kLatest, nullptr, [](Context &c) {
                        need_float(c, 0);
                        c.output(0, "isnan", {c.node(0)});
                      }});
  register_converter({"IsInf", 10, kLatest, nullptr, isinf});
  return true;
}();

}  // namespace

}  // namespace tensorir::onnx::detail
