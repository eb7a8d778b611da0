// The "opengl" target in compute mode: LoweredFuncs in, a Module of GLSL compute
// programs out (arguments are NDArrays on Device::opengl()). Code generation happens
// here; the OpenGL runtime runs the ComputeProgram (glsl_runner.h).
#pragma once
#include <string>
#include <vector>

#include "codegen/signature.h"
#include "backends/glsl/common/glsl_runner.h"
#include "backends/glsl/compute/codegen_compute.h"
#include "tensorir/lower.h"
#include "tensorir/runtime/module.h"
#include "tensorir/target.h"

namespace tensorir::glsl {

// One kernel of a function: its shader and where its bindings come from at call time.
struct ComputeKernel {
  ComputeShader shader;
  std::vector<int> buffer_sources;      // per binding: argument index, or -1 - temp index
  std::vector<size_t> uniform_sources;  // per uniform: index into the packed values
};

// One function: a host plan (temporary buffers, then kernels in order).
struct ComputeFunction {
  std::vector<Var> values;  // the variable behind each packed value (arguments, then symbols)
  std::vector<TempBuffer> temps;
  std::vector<ComputeKernel> kernels;
};

struct ComputeProgram {
  std::vector<FuncSignature> sigs;
  std::vector<ComputeFunction> funcs;  // per signature
  ComputeLimits limits;
};

// The limits code generation works within on a device with `facts`, lowered by the
// target's -loop-limit=N.
ComputeLimits compute_limits(const DeviceFacts &facts, const Target &target);

Module build_opengl_compute(const std::vector<LoweredFunc> &funcs, const Target &target);

}  // namespace tensorir::glsl
