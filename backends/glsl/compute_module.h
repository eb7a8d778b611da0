// The "opengl" target in compute mode: LoweredFuncs in, a Module of GLSL compute
// programs out (arguments are NDArrays on Device::opengl()).
#pragma once
#include <vector>

#include "tensorir/lower.h"
#include "tensorir/runtime/module.h"
#include "tensorir/target.h"

namespace tensorir::glsl {

Module build_opengl_compute(const std::vector<LoweredFunc> &funcs, const Target &target);

}  // namespace tensorir::glsl
