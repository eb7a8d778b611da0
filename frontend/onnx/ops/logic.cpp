// Comparisons (Equal, Less, LessOrEqual, Greater, GreaterOrEqual), logic on bool tensors
// (Not, And, Or, Xor), Where, IsNaN and IsInf: bool results, broadcasting as NumPy does.
// Comparisons, logic and Where on known inputs fold on the host, so that shape
// computations through them (PyTorch's Equal -> Where on a shape) stay known.
#include <functional>

#include "frontend/onnx/ops/ops_util.h"

namespace tensorir::onnx::detail {

namespace {

// The known inputs `in` broadcast together: their shape, and each one's values (exact for
// int64 as long double).
std::vector<std::vector<long double>> broadcast_known(const Context &c, const std::vector<size_t> &in,
                                                      std::vector<int64_t> *shape) {
  *shape = c.shape(in[0]);
  for (size_t i : in) {
    std::string error;
    *shape = broadcast_shapes(*shape, c.shape(i), &error);
    TIR_USER_CHECK(error.empty()) << error;
  }
  std::vector<std::vector<long double>> out;
  for (size_t i : in) {
    const NDArray b = host_broadcast_to(c.input(i).known, *shape);
    if (b.dtype().is_float()) {
      const std::vector<double> v = to_doubles(b);
      out.emplace_back(v.begin(), v.end());
    } else if (b.dtype() == UInt(64)) {  // from 2^63 up, no int64 holds the value
      const uint64_t *p = static_cast<const uint64_t *>(b.data());
      out.emplace_back(p, p + b.numel());
    } else {
      const std::vector<int64_t> v = to_int64s(b);
      out.emplace_back(v.begin(), v.end());
    }
  }
  return out;
}

// Output 0 as the bool `f` of the known inputs `in`, element by element.
void fold_bool(Context &c, const std::vector<size_t> &in, const std::function<bool(const std::vector<long double> &)> &f) {
  std::vector<int64_t> shape;
  const std::vector<std::vector<long double>> v = broadcast_known(c, in, &shape);
  std::vector<int64_t> out(v[0].size());
  std::vector<long double> args(in.size());
  for (size_t e = 0; e < out.size(); ++e) {
    for (size_t j = 0; j < in.size(); ++j) args[j] = v[j][e];
    out[e] = f(args);
  }
  c.set_output(0, from_int64s(out, shape, Bool()));
}

void same_types(const Context &c, size_t i, size_t j) {
  TIR_USER_CHECK(c.dtype(i) == c.dtype(j)) << "inputs '" << c.input_name(i) << "' (" << c.dtype(i) << ") and '"
                                           << c.input_name(j) << "' (" << c.dtype(j) << ") differ in type";
}

using Predicate = std::function<bool(const std::vector<long double> &)>;

// Known inputs (shape computations) fold on the host.
void compare(const std::string &onnx_op, int since, const std::string &op, Predicate host) {
  auto convert = [op, host](Context &c) {
    same_types(c, 0, 1);
    if (c.all_known()) return fold_bool(c, {0, 1}, host);
    if (c.dtype(0).is_bool() && op != "equal") unsupported("bool inputs");
    c.output(0, op, {c.node(0), c.node(1)});
  };
  register_binary(onnx_op, since, convert);
}

void need_bool(const Context &c, size_t i) {
  if (!c.dtype(i).is_bool()) unsupported("input '" + c.input_name(i) + "' is " + c.dtype(i).str() + ", not bool");
}

void logic(const std::string &onnx_op, const std::string &op, Predicate host) {
  auto convert = [op, host](Context &c) {
    need_bool(c, 0);
    need_bool(c, 1);
    if (c.all_known()) return fold_bool(c, {0, 1}, host);
    c.output(0, op, {c.node(0), c.node(1)});
  };
  register_binary(onnx_op, kMinOpset, convert);
}

void where(Context &c) {
  need_bool(c, 0);
  same_types(c, 1, 2);
  if (c.all_known()) {
    std::vector<int64_t> shape;
    const std::vector<std::vector<long double>> v = broadcast_known(c, {0, 1, 2}, &shape);
    const Type t = c.dtype(1);
    std::vector<int64_t> ints;
    std::vector<double> reals;
    for (size_t e = 0; e < v[0].size(); ++e) {
      const long double x = v[0][e] != 0 ? v[1][e] : v[2][e];
      if (t.is_float())
        reals.push_back(double(x));
      else
        ints.push_back(int64_t(x));
    }
    return c.set_output(0, t.is_float() ? from_doubles(reals, shape, t) : from_int64s(ints, shape, t));
  }
  c.output(0, "where", {c.node(0), c.node(1), c.node(2)});
}

void isinf(Context &c) {
  need_float(c, 0);
  const Attributes &a = c.attrs();
  c.output(0, "isinf", {c.node(0)},
           {{"positive", int64_t(a.i("detect_positive", 1) != 0)}, {"negative", int64_t(a.i("detect_negative", 1) != 0)}});
}

const bool registered = [] {
  compare("Equal", kMinOpset, "equal", [](const auto &v) { return v[0] == v[1]; });
  compare("Less", kMinOpset, "less", [](const auto &v) { return v[0] < v[1]; });
  compare("Greater", kMinOpset, "greater", [](const auto &v) { return v[0] > v[1]; });
  compare("LessOrEqual", 12, "less_equal", [](const auto &v) { return v[0] <= v[1]; });
  compare("GreaterOrEqual", 12, "greater_equal", [](const auto &v) { return v[0] >= v[1]; });
  logic("And", "logical_and", [](const auto &v) { return v[0] != 0 && v[1] != 0; });
  logic("Or", "logical_or", [](const auto &v) { return v[0] != 0 || v[1] != 0; });
  logic("Xor", "logical_xor", [](const auto &v) { return (v[0] != 0) != (v[1] != 0); });
  register_converter({"Not", kMinOpset, kLatest, nullptr, [](Context &c) {
                        need_bool(c, 0);
                        if (c.all_known()) return fold_bool(c, {0}, [](const auto &v) { return v[0] == 0; });
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
