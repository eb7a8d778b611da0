// Identifiers, types, literals and scalar expressions in GLSL.
#include "backends/glsl/common/glsl_common.h"
#include "backends/glsl/common/glsl_helpers.h"

#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <sstream>

#include "tensorir/error.h"
#include "tensorir/ir/printer.h"

namespace tensorir::glsl {

// ---------------------------------------------------------------- identifiers

namespace {

bool is_reserved(const std::string &s) {
  static const std::unordered_set<std::string> words = {
      "attribute", "const", "uniform", "varying", "buffer", "shared", "coherent", "volatile", "restrict",
      "readonly", "writeonly", "layout", "centroid", "flat", "smooth", "noperspective", "patch", "sample",
      "break", "continue", "do", "for", "while", "switch", "case", "default", "if", "else", "subroutine",
      "in", "out", "inout", "float", "double", "int", "void", "bool", "true", "false", "invariant", "precise",
      "discard", "return", "mat2", "mat3", "mat4", "vec2", "vec3", "vec4", "ivec2", "ivec3", "ivec4", "uvec2",
      "uvec3", "uvec4", "bvec2", "bvec3", "bvec4", "dvec2", "dvec3", "dvec4", "uint", "lowp", "mediump", "highp",
      "precision", "struct", "common", "partition", "active", "asm", "class", "union", "enum", "typedef",
      "template", "this", "resource", "goto", "inline", "noinline", "public", "static", "extern", "external",
      "interface", "long", "short", "half", "fixed", "unsigned", "superp", "input", "output", "filter",
      "sizeof", "cast", "namespace", "using", "main", "int64_t", "uint64_t", "sampler2D", "image2D",
      "texture", "sampler", "data",
      // builtin functions a variable must not shadow
      "abs", "min", "max", "mod", "exp", "log", "exp2", "log2", "sqrt", "pow", "floor", "ceil", "trunc",
      "round", "sign", "clamp", "mix", "step", "fma", "tanh", "sin", "cos", "tan", "barrier", "length", "dot",
      "inversesqrt", "roundEven", "fract", "isnan", "isinf", "bitfieldExtract", "atomicAnd", "atomicOr",
      "uintBitsToFloat", "floatBitsToUint", "packDouble2x32", "memoryBarrierShared", "texelFetch", "textureSize",
      "ivec2", "ivec3", "uvec2", "uvec3",
      // OpenCL C's words and the built-ins its kernels call
      "kernel", "global", "local", "constant", "private", "char", "uchar", "ushort", "ulong", "size_t", "signed",
      "auto", "register", "rint", "fabs", "fmod", "erf", "rsqrt", "select", "get_group_id", "get_local_id",
      "NAN", "INFINITY"};
  return words.count(s) != 0;
}

}  // namespace

std::string NameTable::fresh(const std::string &hint) {
  std::string base;
  for (char c : hint) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    char out = ok ? c : '_';
    if (out == '_' && !base.empty() && base.back() == '_') continue;  // "__" is reserved in GLSL
    base += out;
  }
  while (!base.empty() && base.back() == '_') base.pop_back();
  if (base.empty()) base = "v";
  if ((base[0] >= '0' && base[0] <= '9') || base[0] == '_' || base.rfind("gl_", 0) == 0 ||
      base.rfind("tir_", 0) == 0 || is_reserved(base))
    base = "v_" + base;
  std::string name = base;
  for (int k = 1; used_.count(name); ++k) name = base + "_" + std::to_string(k);
  used_.insert(name);
  return name;
}

const std::string &NameTable::get(const VarNode *v) {
  auto it = names_.find(v);
  if (it != names_.end()) return it->second;
  return names_[v] = fresh(v->name);
}

// ---------------------------------------------------------------- types and literals

bool is_narrow_int(Type t) { return t.is_int_or_uint() && !t.is_bool() && t.bits() < 32; }

bool opencl_vector_type(Type t) {
  const int n = t.lanes();
  const bool lanes = n == 2 || n == 3 || n == 4 || n == 8 || n == 16;
  return lanes && !t.is_bool() && (t.is_float() || t.is_int_or_uint()) && (t.bits() == 32 || t.bits() == 64);
}

std::string glsl_type(Type t, Dialect d, const std::string &what) {
  if (d == Dialect::OpenCL && opencl_vector_type(t))
    return glsl_type(t.element_of(), d, what) + std::to_string(t.lanes());
  TIR_USER_CHECK(t.is_scalar()) << what << " has the vector type " << t
                                << "; vectorize is not supported by the opengl target for this loop: "
                                   "remove s[T].vectorize(...) when building for opengl";
  if (t.is_bool()) return "bool";
  if (t.code() == Type::Float && t.bits() == 32) return "float";
  if (t.is_int_or_uint() && t.bits() <= 32) return t.is_int() ? "int" : "uint";
  if (d != Dialect::ES300) {
    if (t.code() == Type::Float && t.bits() == 64) return "double";
    if (t.is_int_or_uint() && t.bits() == 64) {
      if (d == Dialect::OpenCL) return t.is_int() ? "long" : "ulong";
      return t.is_int() ? "int64_t" : "uint64_t";
    }
  }
  const char *target = d == Dialect::ES300    ? "GLSL ES 3.00 (the fragment and WebGL targets)"
                       : d == Dialect::OpenCL ? "the opencl target"
                                              : "the opengl target";
  TIR_THROW() << what << " has type " << t << ", which " << target
              << " does not support; use float32, int32, uint32 or bool"
              << (d != Dialect::ES300 ? " (float64 and int64 work too)" : "");
}

std::string opencl_storage_type(Type t, const std::string &what) {
  if (t.is_bool()) return "uchar";
  if (is_narrow_int(t)) return std::string(t.is_uint() ? "u" : "") + (t.bits() == 8 ? "char" : "short");
  return glsl_type(t, Dialect::OpenCL, what);
}

std::string convert_text(Dialect d, const std::string &reg, const std::string &value) {
  return d == Dialect::OpenCL ? "((" + reg + ")" + value + ")" : reg + "(" + value + ")";
}

std::string int_literal(Type t, int64_t v) {
  if (t.is_bool()) return v ? "true" : "false";
  if (t.bits() == 64) {
    if (t.is_uint()) return std::to_string(static_cast<uint64_t>(v)) + "ul";
    if (v == INT64_MIN) return "(-9223372036854775807l - 1l)";
    return v < 0 ? "(" + std::to_string(v) + "l)" : std::to_string(v) + "l";
  }
  if (t.is_uint()) return std::to_string(static_cast<uint64_t>(v) & 0xffffffffu) + "u";
  if (v == INT32_MIN) return "(-2147483647 - 1)";
  return v < 0 ? "(" + std::to_string(v) + ")" : std::to_string(v);
}

std::string float_literal(Type t, double v, Dialect d) {
  bool dbl = t.bits() == 64;
  if (d == Dialect::OpenCL && (std::isnan(v) || std::isinf(v))) {
    std::string f = dbl ? "((double)" : "((float)";
    return std::isnan(v) ? f + "NAN)" : v > 0 ? f + "INFINITY)" : "(-" + f + "INFINITY))";
  }
  if (std::isnan(v)) return dbl ? "packDouble2x32(uvec2(0u, 0x7ff80000u))" : "uintBitsToFloat(0x7fc00000u)";
  if (std::isinf(v)) {
    if (dbl) return v > 0 ? "packDouble2x32(uvec2(0u, 0x7ff00000u))" : "packDouble2x32(uvec2(0u, 0xfff00000u))";
    return v > 0 ? "uintBitsToFloat(0x7f800000u)" : "uintBitsToFloat(0xff800000u)";
  }
  char buf[64];
  if (dbl)
    std::snprintf(buf, sizeof buf, "%.17g", v);
  else
    std::snprintf(buf, sizeof buf, "%.9g", static_cast<double>(static_cast<float>(v)));
  std::string s = buf;
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  if (d == Dialect::OpenCL) {
    if (!dbl) s += "f";  // an unsuffixed literal is a double in C
  } else if (dbl) {
    s += "lf";
  }
  return s[0] == '-' ? "(" + s + ")" : s;
}

std::string indent(const std::string &body, int spaces) {
  std::string pad(static_cast<size_t>(spaces), ' '), out;
  size_t start = 0;
  while (start < body.size()) {
    size_t end = body.find('\n', start);
    if (end == std::string::npos) end = body.size();
    if (end > start) out += pad + body.substr(start, end - start);
    out += "\n";
    start = end + 1;
  }
  return out;
}

// ---------------------------------------------------------------- helper functions

std::string ExprPrinter::use_helper(const std::string &name) {
  TIR_ASSERT(has_glsl_helper(name, dialect_)) << "unknown GLSL helper " << name;
  helpers_.merge(glsl_helper_closure(name));
  return name;
}

std::string ExprPrinter::helper_functions() const { return glsl_helper_sources(helpers_, dialect_); }

// ---------------------------------------------------------------- expressions

void ExprPrinter::note_type(Type t) {
  if (t.is_int_or_uint() && t.bits() == 64) uses_int64_ = true;
  if (t.is_float() && t.bits() == 64) uses_float64_ = true;
}

std::string ExprPrinter::wrap_narrow(Type t, const std::string &v) {
  if (!is_narrow_int(t)) return v;
  if (t.is_uint()) return "(" + v + " & " + std::to_string((1u << t.bits()) - 1) + "u)";
  int shift = 32 - t.bits();
  return "((" + v + " << " + std::to_string(shift) + ") >> " + std::to_string(shift) + ")";
}

std::string ExprPrinter::binary(const char *op, const Expr &a, const Expr &b, Type t) {
  return wrap_narrow(t, "(" + print(a) + " " + op + " " + print(b) + ")");
}

int log2_exact(int64_t v) {
  if (v <= 0 || (v & (v - 1)) != 0) return -1;
  int k = 0;
  while ((int64_t(1) << k) != v) ++k;
  return k;
}

std::string ExprPrinter::div_mod(bool is_div, const Expr &a, const Expr &b, Type t) {
  if (t.is_float()) {
    if (is_div) return "(" + print(a) + " / " + print(b) + ")";
    if (dialect_ == Dialect::OpenCL)  // C's fmod truncates; the IR's % floors
      return use_helper(t.bits() == 64 ? "tir_fmod_d" : "tir_fmod") + "(" + print(a) + ", " + print(b) + ")";
    return "mod(" + print(a) + ", " + print(b) + ")";
  }
  // x / 0 and x % 0 give 0, as on the CPU: here for a literal 0, in the helpers at run time.
  if (const int64_t *c = as_const_int(b); c && *c == 0) return print(make_zero(t));
  if (t.is_uint() || t.is_bool()) {
    const std::string x = print(a), y = print(b), op = "(" + x + (is_div ? " / " : " % ") + y + ")";
    if (as_const_int(b) || t.is_vector()) return wrap_narrow(t, op);  // a vector ?: would divide every lane
    const std::string zero = print(make_zero(t));  // and 0 at run time
    return wrap_narrow(t, "(" + y + " == " + zero + " ? " + zero + " : " + op + ")");
  }
  // Signed: floor semantics. A power-of-two divisor is a shift or a mask.
  if (const int64_t *c = as_const_int(b); c && log2_exact(*c) >= 0) {
    int k = log2_exact(*c);
    if (is_div) return "(" + print(a) + " >> " + std::to_string(k) + ")";
    return "(" + print(a) + " & " + int_literal(t.bits() == 64 ? t : Int(32), *c - 1) + ")";
  }
  if (const int64_t *c = as_const_int(b); dialect_ == Dialect::OpenCL && c && *c > 0 && known_nonneg(a))
    return wrap_narrow(t, "(" + print(a) + (is_div ? " / " : " % ") + print(b) + ")");
  std::string fn = t.bits() == 64 ? (is_div ? "tir_floordiv_l" : "tir_floormod_l") : (is_div ? "tir_floordiv" : "tir_floormod");
  return wrap_narrow(t, use_helper(fn) + "(" + print(a) + ", " + print(b) + ")");
}

bool ExprPrinter::known_nonneg(const Expr &e) const {
  if (!e.type().is_int_or_uint()) return false;
  auto positive_const = [](const Expr &x) {
    const int64_t *c = as_const_int(x);
    return c && *c > 0;
  };
  switch (e->kind) {
    case IRKind::IntImm: return e.as<IntImmNode>()->value >= 0;
    case IRKind::Variable: return nonneg_.count(e.as<VarNode>()) != 0;
    case IRKind::Add: return known_nonneg(e.as<AddNode>()->a) && known_nonneg(e.as<AddNode>()->b);
    case IRKind::Mul: return known_nonneg(e.as<MulNode>()->a) && known_nonneg(e.as<MulNode>()->b);
    case IRKind::Div: return known_nonneg(e.as<DivNode>()->a) && positive_const(e.as<DivNode>()->b);
    case IRKind::Mod: return positive_const(e.as<ModNode>()->b);  // floored: the divisor's sign
    case IRKind::Max: return known_nonneg(e.as<MaxNode>()->a) || known_nonneg(e.as<MaxNode>()->b);
    case IRKind::Min: return known_nonneg(e.as<MinNode>()->a) && known_nonneg(e.as<MinNode>()->b);
    default: return false;
  }
}

std::string ExprPrinter::cast(Type to, const Expr &value) {
  Type from = value.type();
  std::string v = print(value);
  if (from == to) return v;
  if (to.is_bool()) {
    if (from.is_float()) return "(" + v + " != " + float_literal(from, 0, dialect_) + ")";
    return "(" + v + " != " + int_literal(from.is_bool() ? Int(32) : from, 0) + ")";
  }
  std::string reg = type(to, "a cast");
  if (is_narrow_int(to)) return wrap_narrow(to, convert_text(dialect_, reg, v));
  // Same register type (e.g. int8 -> int32): the value is already there.
  if (!from.is_bool() && type(from, "a cast") == reg) return v;
  return convert_text(dialect_, reg, v);
}

std::string ExprPrinter::var(const VarNode *op) {
  auto it = overrides_.find(op);
  if (it != overrides_.end()) return it->second;
  return names_.get(op);
}

std::string ExprPrinter::load(const LoadNode *op) {
  TIR_THROW() << "buffer '" << op->buffer.name() << "' cannot be read here";
}

std::string ExprPrinter::vector(const Expr &e) {
  TIR_THROW() << "vectorize is not supported by the " << (dialect_ == Dialect::OpenCL ? "opencl" : "opengl")
              << " target here (vector expression " << e << "); remove s[T].vectorize(...) when building for it"
              << (dialect_ == Dialect::OpenCL ? ", or vectorize a loop of 2, 3, 4, 8 or 16 iterations" : "");
}

std::string ExprPrinter::let(const LetNode *op) {
  std::string value = print(op->value);
  std::string text;
  if (prelude_) {
    text = names_.fresh(op->var.name());
    prelude_->push_back(type(op->var.type(), "let variable '" + op->var.name() + "'") + " " + text + " = " + value + ";");
  } else {
    text = "(" + value + ")";
  }
  auto old = overrides_.find(op->var.get());
  bool had = old != overrides_.end();
  std::string saved = had ? old->second : "";
  overrides_[op->var.get()] = text;
  std::string body = print(op->body);
  if (had)
    overrides_[op->var.get()] = saved;
  else
    overrides_.erase(op->var.get());
  return body;
}

std::string ExprPrinter::supported_intrinsics() {
  return "exp, exp2, log, log2, log10, sqrt, rsqrt, fabs, abs, floor, ceil, trunc, round, nearbyint, sin, cos, "
         "tan, asin, acos, atan, sinh, cosh, asinh, acosh, atanh, pow, fmod, fma, sigmoid, tanh, erf, shift_left, "
         "shift_right";
}

std::string ExprPrinter::call(const CallNode *op) {
  const std::string &name = op->name;
  std::vector<std::string> args;
  for (const Expr &a : op->args) args.push_back(print(a));
  auto joined = [&] {
    std::string s;
    for (size_t i = 0; i < args.size(); ++i) s += (i ? ", " : "") + args[i];
    return s;
  };
  if (dialect_ == Dialect::OpenCL && op->call_type != CallNode::Extern) return call_opencl(op, args);
  if (op->call_type == CallNode::Extern) {
    // Emitted as written: a GLSL built-in (sinh, atan, ...) works; anything else is
    // reported by the shader compiler with the line.
    type(op->type, "extern call '" + name + "'");
    return name + "(" + joined() + ")";
  }
  Type t = op->type;
  auto want_args = [&](size_t n) {
    TIR_USER_CHECK(op->args.size() == n)
        << "intrinsic '" << name << "' takes " << n << " argument(s), got " << op->args.size();
  };
  bool dbl = t.is_float() && t.bits() == 64;
  auto need_float = [&](bool double_ok) {
    TIR_USER_CHECK(t.is_float()) << "intrinsic '" << name << "' needs a float argument, got " << t << "; cast it first";
    TIR_USER_CHECK(!dbl || double_ok)
        << "intrinsic '" << name << "' on float64 is not supported by the opengl target: GLSL has no "
        << "double-precision " << name << "; cast the argument to float32";
  };
  static const std::map<std::string, std::string> same_name = {
      {"exp", "exp"}, {"exp2", "exp2"}, {"log", "log"},
      {"log2", "log2"}, {"sin", "sin"},   {"cos", "cos"}, {"tan", "tan"}};
  static const std::map<std::string, std::string> double_ok = {
      {"sqrt", "sqrt"}, {"rsqrt", "inversesqrt"}, {"fabs", "abs"}, {"floor", "floor"},
      {"ceil", "ceil"}, {"trunc", "trunc"}, {"nearbyint", "roundEven"}};
  if (auto it = same_name.find(name); it != same_name.end()) {
    want_args(1);
    need_float(false);
    return it->second + "(" + args[0] + ")";
  }
  if (auto it = double_ok.find(name); it != double_ok.end()) {
    want_args(1);
    need_float(true);
    return it->second + "(" + args[0] + ")";
  }
  if (name == "log10") {
    want_args(1);
    need_float(false);
    return "(log2(" + args[0] + ") * 0.301029996)";
  }
  if (name == "abs") {
    want_args(1);
    if (t.is_uint() || t.is_bool()) return args[0];
    return wrap_narrow(t, "abs(" + args[0] + ")");
  }
  if (name == "shift_left" || name == "shift_right") {
    want_args(2);
    TIR_USER_CHECK(t.is_int_or_uint()) << "intrinsic '" << name << "' needs integers, got " << t;
    // GLSL shifts by an int or uint: a 64-bit count is narrowed (it is below 64 to mean anything).
    const std::string count = dialect_ != Dialect::OpenCL && t.bits() == 64 ? "int(" + args[1] + ")" : args[1];
    return wrap_narrow(t, "(" + args[0] + (name == "shift_left" ? " << " : " >> ") + count + ")");
  }
  if (name == "round") {
    want_args(1);
    need_float(true);
    return use_helper(dbl ? "tir_round_d" : "tir_round") + "(" + args[0] + ")";
  }
  if (name == "pow") {
    want_args(2);
    need_float(false);
    return use_helper("tir_pow") + "(" + args[0] + ", " + args[1] + ")";
  }
  if (name == "fmod") {
    want_args(2);
    need_float(false);
    return use_helper("tir_truncmod") + "(" + args[0] + ", " + args[1] + ")";
  }
  if (name == "fma") {
    want_args(3);
    need_float(true);
    if (dialect_ == Dialect::ES300) return "(" + args[0] + " * " + args[1] + " + " + args[2] + ")";
    return "fma(" + joined() + ")";
  }
  static const std::set<std::string> helpers = {"sigmoid", "tanh",  "erf",   "asin",  "acos",
                                                "atan",    "sinh",  "cosh",  "asinh", "acosh", "atanh"};
  if (helpers.count(name)) {
    want_args(1);
    need_float(false);
    return use_helper("tir_" + name) + "(" + args[0] + ")";
  }
  TIR_THROW() << "intrinsic '" << name << "' is not supported by the GLSL backends (supported: "
              << supported_intrinsics() << ")";
}

std::string ExprPrinter::print(const Expr &e) {
  TIR_ASSERT(e.defined()) << "printing an undefined expression";
  Type t = e.type();
  note_type(t);
  if (t.is_vector() && dialect_ == Dialect::OpenCL) return vector(e);
  switch (e->kind) {
    case IRKind::IntImm: type(t, "the constant " + to_string(e)); return int_literal(t, e.as<IntImmNode>()->value);
    case IRKind::FloatImm:
      type(t, "the constant " + to_string(e));
      return float_literal(t, e.as<FloatImmNode>()->value, dialect_);
    case IRKind::StringImm: TIR_THROW() << "a string constant cannot appear in a shader: " << e;
    case IRKind::Variable: {
      const auto *v = e.as<VarNode>();
      TIR_USER_CHECK(!t.is_handle()) << "buffer '" << v->name << "' is used as a value in a shader";
      type(t, "variable '" + v->name + "'");
      return var(v);
    }
    case IRKind::Cast: return cast(t, e.as<CastNode>()->value);
    case IRKind::Add: return binary("+", e.as<AddNode>()->a, e.as<AddNode>()->b, t);
    case IRKind::Sub: return binary("-", e.as<SubNode>()->a, e.as<SubNode>()->b, t);
    case IRKind::Mul: return binary("*", e.as<MulNode>()->a, e.as<MulNode>()->b, t);
    case IRKind::Div: return div_mod(true, e.as<DivNode>()->a, e.as<DivNode>()->b, t);
    case IRKind::Mod: return div_mod(false, e.as<ModNode>()->a, e.as<ModNode>()->b, t);
    case IRKind::Min:
    case IRKind::Max: {
      const Expr &a = e->kind == IRKind::Min ? e.as<MinNode>()->a : e.as<MaxNode>()->a;
      const Expr &b = e->kind == IRKind::Min ? e.as<MinNode>()->b : e.as<MaxNode>()->b;
      const char *fn = e->kind == IRKind::Min ? "min" : "max";
      if (t.is_bool())  // min is "and", max is "or" on bools
        return "(" + print(a) + (e->kind == IRKind::Min ? " && " : " || ") + print(b) + ")";
      if (dialect_ == Dialect::OpenCL && is_narrow_int(t)) {  // min(char, int) is ambiguous in OpenCL C
        const std::string ty = opencl_storage_type(t, "min and max");
        return std::string(fn) + "(" + convert_text(dialect_, ty, print(a)) + ", " + convert_text(dialect_, ty, print(b)) +
               ")";
      }
      return std::string(fn) + "(" + print(a) + ", " + print(b) + ")";
    }
    case IRKind::EQ: return binary("==", e.as<EQNode>()->a, e.as<EQNode>()->b, t);
    case IRKind::NE: return binary("!=", e.as<NENode>()->a, e.as<NENode>()->b, t);
    case IRKind::LT: return binary("<", e.as<LTNode>()->a, e.as<LTNode>()->b, t);
    case IRKind::LE: return binary("<=", e.as<LENode>()->a, e.as<LENode>()->b, t);
    case IRKind::GT: return binary(">", e.as<GTNode>()->a, e.as<GTNode>()->b, t);
    case IRKind::GE: return binary(">=", e.as<GENode>()->a, e.as<GENode>()->b, t);
    case IRKind::And: return binary("&&", e.as<AndNode>()->a, e.as<AndNode>()->b, t);
    case IRKind::Or: return binary("||", e.as<OrNode>()->a, e.as<OrNode>()->b, t);
    case IRKind::Not: return "(!" + print(e.as<NotNode>()->a) + ")";
    case IRKind::Select: {
      const auto *s = e.as<SelectNode>();
      return "(" + print(s->condition) + " ? " + print(s->true_value) + " : " + print(s->false_value) + ")";
    }
    case IRKind::Load: type(t, "a load of '" + e.as<LoadNode>()->buffer.name() + "'"); return load(e.as<LoadNode>());
    case IRKind::Ramp:
    case IRKind::Broadcast:
      TIR_THROW() << "vectorize is not supported by the opengl target here (vector expression " << e
                  << "); remove s[T].vectorize(...) when building for opengl";
    case IRKind::Let: return let(e.as<LetNode>());
    case IRKind::Call: type(t, "call of '" + e.as<CallNode>()->name + "'"); return call(e.as<CallNode>());
    default: TIR_ASSERT(false) << "expression " << e << " reached GLSL code generation"; return "";
  }
}

}  // namespace tensorir::glsl
