// Pieces shared by the GLSL code generators (compute and fragment) and the OpenCL C one,
// which prints the same compute kernels: identifiers, types, literals and a printer for
// scalar expressions.
//
// Use: make a NameTable for the shader, an ExprPrinter over it (override load() to say
// how buffers are read), print() each expression, then put helper_functions() above the
// code that uses them. Nothing here touches GL.
#pragma once
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "tensorir/ir/expr.h"

namespace tensorir::glsl {

enum class Dialect {
  GLSL430,  // desktop compute shaders: double, int64 (with GL_ARB_gpu_shader_int64), fma
  ES300,    // GLSL ES 3.00 (WebGL2): 32-bit types only
  OpenCL,   // OpenCL C 1.2 kernels: C syntax (casts, literals), the C math library built in
};

// Valid, unique GLSL identifiers for IR variables (IR names may repeat and contain '.').
class NameTable {
 public:
  // A new identifier from `hint`, never returned before (reserved words and gl_ avoided).
  std::string fresh(const std::string &hint);
  // The identifier of `v`, made from its name on first use.
  const std::string &get(const VarNode *v);
  bool has(const VarNode *v) const { return names_.count(v) != 0; }
  void bind(const VarNode *v, const std::string &name) { names_[v] = name; }

 private:
  std::unordered_map<const VarNode *, std::string> names_;
  std::unordered_set<std::string> used_;
};

// "float", "int", "uint", "bool", "double", "int64_t", "uint64_t" ("long", "ulong" in
// OpenCL C). Narrow integers live in int/uint registers. Throws tensorir::Error naming
// `what` for types the dialect lacks.
std::string glsl_type(Type t, Dialect d, const std::string &what);
// True for int8/int16/uint8/uint16, which are kept in 32-bit registers and wrapped.
bool is_narrow_int(Type t);
// True when OpenCL C has a vector type of `t` ("float4", "int8", ...): 2, 3, 4, 8 or 16
// lanes of float, double, int, uint, long or ulong.
bool opencl_vector_type(Type t);

std::string int_literal(Type t, int64_t v);
std::string float_literal(Type t, double v, Dialect d = Dialect::GLSL430);
// `value` converted to the register type named `reg`: "float(x)" in GLSL, "((float)x)" in C.
std::string convert_text(Dialect d, const std::string &reg, const std::string &value);
// The element type of a global buffer of `t` in OpenCL C (bool as uchar, narrow ints as
// themselves: OpenCL addresses bytes).
std::string opencl_storage_type(Type t, const std::string &what);

// Prints scalar expressions. Vector expressions (Ramp, Broadcast, vector types) go to
// vector(), which rejects them unless a code generator prints them (OpenCL C).
class ExprPrinter {
 public:
  ExprPrinter(Dialect d, NameTable &names) : dialect_(d), names_(names) {}
  virtual ~ExprPrinter() = default;

  std::string print(const Expr &e);
  std::string type(Type t, const std::string &what) {
    note_type(t);
    return glsl_type(t, dialect_, what);
  }
  // Definitions of the helper functions the printed code calls (floor division, erf, ...).
  std::string helper_functions() const;
  bool uses_int64() const { return uses_int64_; }
  bool uses_float64() const { return uses_float64_; }

  // Where Let bindings go: with a prelude, each becomes "T name = value;" appended to it
  // (the caller emits the prelude before the statement); without one, the value is
  // printed in place of the variable.
  void set_prelude(std::vector<std::string> *prelude) { prelude_ = prelude; }
  // Prints `v` as `text` (e.g. a thread index); set before printing.
  void set_override(const VarNode *v, const std::string &text) { overrides_[v] = text; }

 protected:
  // How a buffer element is read; the default throws (no buffers).
  virtual std::string load(const LoadNode *op);
  // An expression of a vector type in the OpenCL dialect; the default throws.
  virtual std::string vector(const Expr &e);
  virtual std::string var(const VarNode *op);
  virtual std::string call(const CallNode *op);
  // Names of the pure intrinsics call() handles, for error messages.
  static std::string supported_intrinsics();
  // call() in OpenCL C, whose built-ins follow C's math library (opencl_calls.cpp).
  std::string call_opencl(const CallNode *op, const std::vector<std::string> &args);
  // `v` in the register type of `t` (see convert_text).
  std::string convert(Type t, const std::string &v) { return convert_text(dialect_, type(t, "a conversion"), v); }

  std::string use_helper(const std::string &name);  // records it, returns the name
  std::string wrap_narrow(Type t, const std::string &value);
  std::string cast(Type to, const Expr &value);
  void note_type(Type t);

  // Integer variables known to be >= 0 (thread indices, loops from a non-negative start).
  // OpenCL C divides them by positive constants with / and %, which agree with floor
  // division there and compile to a multiply instead of a call with branches.
  std::unordered_set<const VarNode *> nonneg_;
  bool known_nonneg(const Expr &e) const;

  Dialect dialect_;
  NameTable &names_;
  std::vector<std::string> *prelude_ = nullptr;
  std::unordered_map<const VarNode *, std::string> overrides_;
  std::set<std::string> helpers_;
  bool uses_int64_ = false;
  bool uses_float64_ = false;

 private:
  std::string binary(const char *op, const Expr &a, const Expr &b, Type t);
  std::string div_mod(bool is_div, const Expr &a, const Expr &b, Type t);
  std::string let(const LetNode *op);
};

// k where v == 2^k, or -1 when v is not a power of two (shifts for divisions).
int log2_exact(int64_t v);

// Text of `body`, each line indented by `spaces`.
std::string indent(const std::string &body, int spaces);

}  // namespace tensorir::glsl
