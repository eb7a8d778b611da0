// Makes "webgl" a target kind and a build target: the fragment-shader plans of "opengl
// -mode=fragment" with every tensor packed, for browsers (graph::export_web writes them
// into a package). Planned from the schedule's tensor stages, so built from a schedule only.
#include <climits>

#include "backends/glsl/fragment/fragment_module.h"
#include "tensorir/build.h"
#include "tensorir/target_kind.h"

namespace {

using tensorir::TargetOption;

tensorir::TargetKindInfo webgl_kind() {
  tensorir::TargetKindInfo k;
  k.name = "webgl";
  k.help = "WebGL2 fragment shaders over RGBA32F textures, run by a browser";
  k.options = {
      TargetOption::integer("max-texture-size", 1, INT_MAX, "largest texture width or height; default 4096"),
      TargetOption::one_of("draw-buffers", {"1", "2", "4", "8"},
                           "render targets one pass may write; default 4"),
      TargetOption::integer("reduce-chunk", 64, 65535,
                            "reductions longer than this per element split into partial passes; default 16384"),
      TargetOption::integer("unroll", 1, 4096, "reduction loop iterations times lanes unrolled; default 256"),
  };
  k.caps = [](const tensorir::Target &) {
    tensorir::TargetCaps c;
    c.device = tensorir::Device::CPU;  // the plans are made here; the browser runs them
    c.textures = true;
    c.texture_channel_block = 4;  // RGBA: four channels to a texel
    c.max_kernel_inputs = 16;     // WebGL 2 gives a fragment shader 16 textures at least
    return c;
  };
  return k;
}

const bool registered = [] {
  tensorir::register_target_kind(webgl_kind());
  tensorir::register_backend("webgl", tensorir::glsl::reject_lowered_fragment);
  tensorir::register_schedule_builder("webgl", tensorir::glsl::build_webgl);
  return true;
}();

}  // namespace
