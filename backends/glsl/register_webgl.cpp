// Makes "webgl" a build target: the fragment-shader plans of "opengl -mode=fragment"
// with every tensor packed, for browsers (graph::export_web writes them into a package).
// Planned from the schedule's tensor stages, so built from a schedule only.
#include "glsl/fragment/fragment_module.h"
#include "tensorir/build.h"

namespace {

const bool registered = [] {
  tensorir::register_backend("webgl", tensorir::glsl::reject_lowered_fragment);
  tensorir::register_schedule_builder("webgl", tensorir::glsl::build_webgl);
  return true;
}();

}  // namespace
