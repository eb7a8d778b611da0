// The "opengl -mode=fragment" and "webgl" targets: a schedule in, a Module of GLSL ES
// 3.00 fragment-shader programs out. Plans are made here (no GL); the OpenGL runtime
// runs a FragmentProgram (glsl_runner.h).
#pragma once
#include <string>
#include <vector>

#include "codegen/signature.h"
#include "backends/glsl/fragment/codegen_fragment.h"
#include "tensorir/lower.h"
#include "tensorir/runtime/module.h"
#include "tensorir/target.h"

namespace tensorir::glsl {

struct FragmentFunction {
  FragmentPlan plan;
  FuncSignature sig;
  std::vector<bool> used;  // per plan tensor: some pass reads or writes it
};

struct FragmentProgram {
  std::vector<FragmentFunction> funcs;
  // webgl: tensors are host arrays (Device::CPU), every tensor packed.
  bool web = false;
};

// Both plan from the schedule's tensor stages (codegen_fragment.h), so they are schedule
// builders (register_schedule_builder); lowered functions cannot be built for them.
Module build_opengl_fragment(const Schedule &s, const std::vector<BuildArg> &args, const Target &target,
                             const std::string &name);

// WebGL2: every tensor float32, packed four elements per RGBA32F texel, layouts bounded
// by -max-texture-size=N (default 4096); a convolution's pass renders into up to
// -draw-buffers=N textures at once (1, 2, 4 or 8; default 4, what WebGL2 guarantees; 8
// is faster where the GPU has them). Builds without an OpenGL context; its plans are
// read through Module::source("webgl-json"). Calls run natively when OpenGL is there.
Module build_webgl(const Schedule &s, const std::vector<BuildArg> &args, const Target &target,
                   const std::string &name);
// The LoweredFunc backend of both: a clear Error saying to build from a schedule.
Module reject_lowered_fragment(const std::vector<LoweredFunc> &funcs, const Target &target);

// The vertex shader every fragment program links with: one triangle covering the
// viewport, no attributes. Also written into exported web packages.
const char *fullscreen_vertex_shader();

}  // namespace tensorir::glsl
