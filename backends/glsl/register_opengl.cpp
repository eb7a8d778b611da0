// Makes "opengl" a build target: "-mode=compute" (the default) builds compute shaders,
// "-mode=fragment" fragment shaders (WebGL-compatible).
#include "glsl/compute_module.h"
#include "glsl/fragment_module.h"
#include "tensorir/build.h"
#include "tensorir/error.h"

namespace {

tensorir::Module build_opengl(const std::vector<tensorir::LoweredFunc> &funcs, const tensorir::Target &target) {
  std::string mode = target.option("mode", "compute");
  if (mode == "compute") return tensorir::glsl::build_opengl_compute(funcs, target);
  if (mode == "fragment") return tensorir::glsl::build_opengl_fragment(funcs, target);
  TIR_THROW() << "target '" << target.str() << "': unknown mode '" << mode
              << "'; the opengl target has -mode=compute (the default) and -mode=fragment";
}

const bool registered = [] {
  tensorir::register_backend("opengl", build_opengl);
  return true;
}();

}  // namespace
