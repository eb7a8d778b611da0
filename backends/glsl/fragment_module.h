// The "opengl -mode=fragment" and "webgl" targets: LoweredFuncs in, a Module of GLSL ES
// 3.00 fragment-shader programs out. Defined in fragment_module.cpp.
#pragma once
#include <vector>

#include "tensorir/lower.h"
#include "tensorir/runtime/module.h"
#include "tensorir/target.h"

namespace tensorir::glsl {

Module build_opengl_fragment(const std::vector<LoweredFunc> &funcs, const Target &target);

// WebGL2: every tensor float32, packed four elements per RGBA32F texel, layouts bounded
// by -max-texture-size=N (default 4096); a convolution's pass renders into up to
// -draw-buffers=N textures at once (1, 2, 4 or 8; default 4, what WebGL2 guarantees; 8
// is faster where the GPU has them). Builds without an OpenGL context; its plans are
// read through Module::source("webgl-json"). Calls run natively when OpenGL is there.
Module build_webgl(const std::vector<LoweredFunc> &funcs, const Target &target);

}  // namespace tensorir::glsl

namespace tensorir::opengl {
// The vertex shader every fragment program links with (defined in opengl/gl_program.cpp):
// one triangle covering the viewport, no attributes.
const char *fullscreen_vertex_shader();
}  // namespace tensorir::opengl
