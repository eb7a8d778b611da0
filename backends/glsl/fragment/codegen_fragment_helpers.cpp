// The GLSL names and types of IR names and types on the fragment path, and the helper
// functions its shaders call (glsl_helpers.h, in GLSL ES 3.00).
#include <utility>
#include <vector>

#include "backends/glsl/fragment/codegen_fragment_emit.h"
#include "backends/glsl/common/glsl_helpers.h"

namespace tensorir::glsl {

std::string glsl_stem(const std::string &name) {
  std::string s;
  for (char c : name) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    char out = ok ? c : '_';
    if (out == '_' && (s.empty() || s.back() == '_')) continue;  // "__" is reserved in GLSL
    s += out;
  }
  while (!s.empty() && s.back() == '_') s.pop_back();
  if (s.size() > 24) s.resize(24);
  while (!s.empty() && s.back() == '_') s.pop_back();
  // Reserved prefixes (gl_, webgl_) and names that start with a digit get a letter first.
  if (s.empty() || (s[0] >= '0' && s[0] <= '9') || s.rfind("gl", 0) == 0 || s.rfind("webgl", 0) == 0)
    s = "v" + s;
  return s;
}

std::string fragment_type(Type t, const std::string &where) {
  TIR_ASSERT(t.lanes() == 1) << where << ": vector type " << t << " in a tensor expression";
  if (t.is_bool()) return "bool";
  if (t.code() == Type::Float && t.bits() == 32) return "float";
  if (t.code() == Type::Int && (t.bits() == 32 || t.bits() == 64)) return "int";
  if (t.code() == Type::Float && t.bits() == 64)
    TIR_THROW() << where << ": float64 is not supported by WebGL/fragment targets; use float32";
  TIR_THROW() << where << ": type " << t
              << " is not supported by WebGL/fragment targets, which compute in float32, int32 and bool; "
                 "cast to one of those";
}

std::string fragment_helpers(const std::set<std::string> &used) { return glsl_helper_sources(used, Dialect::ES300); }

}  // namespace tensorir::glsl
