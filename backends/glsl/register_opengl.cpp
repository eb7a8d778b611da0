// Makes "opengl" a build target: "-mode=compute" (the default) builds compute shaders
// from the lowered loop nest, "-mode=fragment" fragment shaders (WebGL-compatible) from
// the schedule's tensor stages.
#include "glsl/compute/compute_module.h"
#include "glsl/fragment/fragment_module.h"
#include "tensorir/build.h"
#include "tensorir/error.h"

namespace {

std::string mode_of(const tensorir::Target &target) {
  std::string mode = target.option("mode", "compute");
  TIR_USER_CHECK(mode == "compute" || mode == "fragment")
      << "target '" << target.str() << "': unknown mode '" << mode
      << "'; the opengl target has -mode=compute (the default) and -mode=fragment";
  return mode;
}

tensorir::Module build_opengl(const std::vector<tensorir::LoweredFunc> &funcs, const tensorir::Target &target) {
  if (mode_of(target) == "fragment") return tensorir::glsl::reject_lowered_fragment(funcs, target);
  return tensorir::glsl::build_opengl_compute(funcs, target);
}

tensorir::Module build_opengl_schedule(const tensorir::Schedule &s, const std::vector<tensorir::BuildArg> &args,
                                       const tensorir::Target &target, const std::string &name) {
  if (mode_of(target) == "fragment") return tensorir::glsl::build_opengl_fragment(s, args, target, name);
  return tensorir::build_lowered(s, args, target, name);
}

const bool registered = [] {
  tensorir::register_backend("opengl", build_opengl);
  tensorir::register_schedule_builder("opengl", build_opengl_schedule);
  return true;
}();

}  // namespace
