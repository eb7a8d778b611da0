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

// One function's host plan and kernels, printed in `limits.dialect` (the OpenCL runtime
// uses it too).
ComputeFunction build_compute_function(const LoweredFunc &f, const ComputeLimits &limits);

// A call's scalar arguments and shape variables by value (`args` as ModuleNode::invoke
// gets them), to compute launch and temporary sizes from.
using ScalarValues = std::vector<std::pair<Var, Expr>>;
ScalarValues scalar_values(const ComputeFunction &f, const std::vector<ArgValue> &args);
// `e` (a size, a work-group count) at those values; throws tensorir::Error naming `what`
// when it is not a constant there.
int64_t evaluate_size(const Expr &e, const ScalarValues &values, const std::string &what);

// The limits code generation works within on a device with `facts`, lowered by the
// target's -loop-limit=N.
ComputeLimits compute_limits(const DeviceFacts &facts, const Target &target);

Module build_opengl_compute(const std::vector<LoweredFunc> &funcs, const Target &target);

}  // namespace tensorir::glsl
