// The "opengl -mode=fragment" target: LoweredFuncs in, a Module of GLSL ES 3.00
// fragment-shader programs out. Defined in fragment_module.cpp.
#pragma once
#include <vector>

#include "tensorir/lower.h"
#include "tensorir/runtime/module.h"
#include "tensorir/target.h"

namespace tensorir::glsl {

Module build_opengl_fragment(const std::vector<LoweredFunc> &funcs, const Target &target);

}  // namespace tensorir::glsl
