// The OpenGL runtime registers itself as the runner of GLSL modules
// (glsl/common/glsl_runner.h): device facts from the process-wide context, and the
// executables of gl_compute_runner.cpp and gl_fragment_runner.cpp.
#include "backends/opengl/gl_runners.h"
#include "backends/opengl/gl_runtime.h"

namespace tensorir::opengl {

namespace {

class GLRunner final : public glsl::Runner {
 public:
  glsl::DeviceFacts device() const override {
    GLScope scope;
    GLContext &ctx = GLContext::get();
    glsl::DeviceFacts f;
    f.renderer = ctx.renderer();
    f.max_texture_size = ctx.max_texture_size();
    f.max_work_group_invocations = ctx.max_work_group_invocations();
    for (int d = 0; d < 3; ++d) f.max_work_group_size[d] = ctx.max_work_group_size(d);
    f.max_shared_memory_bytes = ctx.max_shared_memory_bytes();
    f.max_compute_storage_buffers = ctx.max_compute_storage_buffers();
    f.int64 = ctx.has_extension("GL_ARB_gpu_shader_int64");
    return f;
  }

  std::unique_ptr<glsl::Executable> compute(std::shared_ptr<const glsl::ComputeProgram> program) const override {
    return compute_executable(std::move(program));
  }

  std::unique_ptr<glsl::Executable> fragment(std::shared_ptr<const glsl::FragmentProgram> program) const override {
    return fragment_executable(std::move(program));
  }
};

const bool registered = [] {
  static const GLRunner runner;
  glsl::register_runner(&runner);
  return true;
}();

}  // namespace

}  // namespace tensorir::opengl
