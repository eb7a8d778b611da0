// Pure intrinsics in OpenCL C. Its built-ins follow C's math library (round halves away
// from zero, pow as C99 Annex F), so most calls print as they are named, in float and
// double alike; GLSL's helpers for what GLSL lacks are not needed here.
#include <map>
#include <set>

#include "backends/glsl/common/glsl_common.h"
#include "tensorir/error.h"
#include "tensorir/ir/expr.h"

namespace tensorir::glsl {

std::string ExprPrinter::call_opencl(const CallNode *op, const std::vector<std::string> &args) {
  const std::string &name = op->name;
  const Type t = op->type;
  auto want_args = [&](size_t n) {
    TIR_USER_CHECK(op->args.size() == n)
        << "intrinsic '" << name << "' takes " << n << " argument(s), got " << op->args.size();
  };
  auto need_float = [&] {
    TIR_USER_CHECK(t.is_float()) << "intrinsic '" << name << "' needs a float argument, got " << t << "; cast it first";
  };
  auto joined = [&] {
    std::string s;
    for (size_t i = 0; i < args.size(); ++i) s += (i ? ", " : "") + args[i];
    return s;
  };
  static const std::map<std::string, std::string> builtins = {
      {"exp", "exp"},     {"exp2", "exp2"},   {"log", "log"},     {"log2", "log2"},   {"log10", "log10"},
      {"sqrt", "sqrt"},   {"rsqrt", "rsqrt"}, {"fabs", "fabs"},   {"floor", "floor"}, {"ceil", "ceil"},
      {"trunc", "trunc"}, {"round", "round"}, {"nearbyint", "rint"}, {"sin", "sin"},  {"cos", "cos"},
      {"tan", "tan"},     {"asin", "asin"},   {"acos", "acos"},   {"atan", "atan"},   {"sinh", "sinh"},
      {"cosh", "cosh"},   {"tanh", "tanh"},   {"asinh", "asinh"}, {"acosh", "acosh"}, {"atanh", "atanh"},
      {"erf", "erf"}};
  if (auto it = builtins.find(name); it != builtins.end()) {
    want_args(1);
    need_float();
    return it->second + "(" + args[0] + ")";
  }
  if (name == "pow" || name == "fmod" || name == "fma") {
    want_args(name == "fma" ? 3 : 2);
    need_float();
    return name + "(" + joined() + ")";
  }
  if (name == "sigmoid") {
    want_args(1);
    need_float();
    return use_helper(t.bits() == 64 ? "tir_sigmoid_d" : "tir_sigmoid") + "(" + args[0] + ")";
  }
  if (name == "abs") {
    want_args(1);
    if (t.is_uint() || t.is_bool()) return args[0];
    if (t.is_float()) return "fabs(" + args[0] + ")";
    // abs() of a signed integer is unsigned in OpenCL C.
    return wrap_narrow(t, convert(t, "abs(" + args[0] + ")"));
  }
  if (name == "shift_left" || name == "shift_right") {
    want_args(2);
    TIR_USER_CHECK(t.is_int_or_uint()) << "intrinsic '" << name << "' needs integers, got " << t;
    return wrap_narrow(t, "(" + args[0] + (name == "shift_left" ? " << " : " >> ") + args[1] + ")");
  }
  TIR_THROW() << "intrinsic '" << name << "' is not supported by the opencl target (supported: "
              << supported_intrinsics() << ")";
}

}  // namespace tensorir::glsl
