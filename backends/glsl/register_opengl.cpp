// Makes "opengl" a target kind and a build target: "-mode=compute" (the default) builds
// compute shaders from the lowered loop nest, "-mode=fragment" fragment shaders
// (WebGL-compatible) from the schedule's tensor stages.
#include <climits>

#include "backends/glsl/common/glsl_runner.h"
#include "backends/glsl/compute/compute_module.h"
#include "backends/glsl/fragment/fragment_module.h"
#include "tensorir/build.h"
#include "tensorir/error.h"
#include "tensorir/target_kind.h"

namespace {

using tensorir::TargetOption;

// build() has checked the option against the schema below.
std::string mode_of(const tensorir::Target &target) { return target.option("mode", "compute"); }

tensorir::Module build_opengl(const std::vector<tensorir::LoweredFunc> &funcs, const tensorir::Target &target) {
  if (mode_of(target) == "fragment") return tensorir::glsl::reject_lowered_fragment(funcs, target);
  return tensorir::glsl::build_opengl_compute(funcs, target);
}

tensorir::Module build_opengl_schedule(const tensorir::Schedule &s, const std::vector<tensorir::BuildArg> &args,
                                       const tensorir::Target &target, const std::string &name) {
  if (mode_of(target) == "fragment") return tensorir::glsl::build_opengl_fragment(s, args, target, name);
  return tensorir::build_lowered(s, args, target, name);
}

// The work-group limits the GPU schedules size tiles by: the options, else the device's
// (when a context can be made), else limits every GL 4.3 device meets.
void set_compute_limits(const tensorir::Target &t, tensorir::TargetCaps &c) {
  const std::optional<tensorir::glsl::DeviceFacts> facts = tensorir::glsl::available_device();
  const int invocations = facts && facts->max_work_group_invocations > 0 ? facts->max_work_group_invocations : 256;
  const int shared = facts && facts->max_shared_memory_bytes > 0 ? facts->max_shared_memory_bytes : 32768;
  c.max_work_group_size = static_cast<int>(t.positive_option("max-work-group-size", invocations, INT_MAX));
  c.max_shared_memory_bytes = t.positive_option("max-shared-memory", shared, INT_MAX);
}

tensorir::TargetKindInfo opengl_kind() {
  tensorir::TargetKindInfo k;
  k.name = "opengl";
  k.help = "OpenGL 4.3 shaders, run in this process on the GPU";
  k.options = {
      TargetOption::one_of("mode", {"compute", "fragment"},
                           "compute shaders, the default, or fragment shaders over textures"),
      TargetOption::flag("no-default-schedule", "compute: no default GPU schedule for stages that bind no loops"),
      TargetOption::integer("loop-limit", 1, INT64_MAX, "compute: most loop passes one shader invocation may make"),
      TargetOption::integer("max-work-group-size", 1, INT_MAX,
                            "compute: most invocations the GPU schedules put in one work-group"),
      TargetOption::integer("max-shared-memory", 1, INT_MAX,
                            "compute: most shared-memory bytes the GPU schedules give one work-group"),
      TargetOption::integer("max-texture-size", 1, INT_MAX, "fragment: largest texture width or height"),
      TargetOption::one_of("pack", {"0", "1"}, "fragment: 1, the default, packs four elements per texel"),
  };
  k.caps = [](const tensorir::Target &t) {
    tensorir::TargetCaps c;
    c.device = tensorir::Device::OpenGL;
    c.runs_in_process = true;
    const bool compute = t.option("mode", "compute") == "compute";
    c.textures = !compute;
    c.default_gpu_schedule = compute && t.option("no-default-schedule").empty();
    c.gpu_schedules = compute;
    // 16 storage buffers (the output among them) or 16 textures: what drivers give a
    // shader at the least, llvmpipe included.
    c.max_kernel_inputs = compute ? 15 : 16;
    if (compute) set_compute_limits(t, c);
    return c;
  };
  return k;
}

const bool registered = [] {
  tensorir::register_target_kind(opengl_kind());
  tensorir::register_backend("opengl", build_opengl);
  tensorir::register_schedule_builder("opengl", build_opengl_schedule);
  return true;
}();

}  // namespace
