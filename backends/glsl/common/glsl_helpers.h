// The helper functions GLSL shaders call for what GLSL lacks or leaves undefined (floor
// division and modulo on ints, C's pow, round, tanh, erf, ...): one table for both code
// generators, with the source for each dialect (GLSL 4.30 compute shaders, GLSL ES 3.00
// fragment shaders for OpenGL and WebGL2). Each computes what the LLVM backend computes for the same IR:
// the C library's results for the math functions, floored division and modulo for tir_floordiv,
// tir_floormod and tir_fmod (the IR's meaning of / and %).
#pragma once
#include <set>
#include <string>

#include "backends/glsl/common/glsl_common.h"

namespace tensorir::glsl {

// Whether `name` is a helper of the table in dialect `d`.
bool has_glsl_helper(const std::string &name, Dialect d);
// The helpers `name` calls (itself first), for recording what a shader uses.
std::set<std::string> glsl_helper_closure(const std::string &name);
// The definitions of the helpers in `used` and of those they call, in dependency order
// (a helper after those it calls), in dialect `d`.
std::string glsl_helper_sources(const std::set<std::string> &used, Dialect d);

}  // namespace tensorir::glsl
