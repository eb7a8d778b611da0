// Runs compute programs (glsl/compute/compute_module.h): a call binds the arrays as
// storage buffers, sets the uniforms and dispatches the work groups of each kernel.
#include <algorithm>

#include "backends/glsl/compute/codegen_compute_loops.h"
#include "backends/glsl/compute/compute_module.h"
#include "backends/opengl/gl_api.h"
#include "backends/opengl/gl_runners.h"
#include "backends/opengl/gl_runtime.h"
#include "tensorir/arith/simplify.h"
#include "tensorir/error.h"
#include "tensorir/ir/op.h"
#include "tensorir/ir/printer.h"
#include "tensorir/ir/visitor.h"

namespace tensorir::opengl {

namespace {

using glsl::ComputeFunction;
using glsl::ComputeKernel;
using glsl::ComputeLimits;

using glsl::evaluate_size;

struct KernelProgram {
  unsigned program = 0;
  std::vector<int> uniform_locations;
  int group_offset_location = -1;
};

class ComputeExecutable final : public glsl::Executable {
 public:
  explicit ComputeExecutable(std::shared_ptr<const glsl::ComputeProgram> program) : program_(std::move(program)) {
    GLScope scope;
    try {
      for (const ComputeFunction &f : program_->funcs) {
        programs_.emplace_back();
        for (const ComputeKernel &k : f.kernels) {
          KernelProgram kp;
          kp.program = compile_compute_program(k.shader.source, k.shader.name);
          programs_.back().push_back(kp);
          KernelProgram &p = programs_.back().back();
          for (const std::string &name : k.shader.uniform_names)
            p.uniform_locations.push_back(glGetUniformLocation(p.program, name.c_str()));
          if (!k.shader.group_offset_uniform.empty())
            p.group_offset_location = glGetUniformLocation(p.program, k.shader.group_offset_uniform.c_str());
        }
      }
    } catch (...) {
      release();
      throw;
    }
  }

  ~ComputeExecutable() override { release(); }

  void invoke(size_t index, const std::vector<ArgValue> &args, const std::vector<NDArray> &buffers) const override {
    const FuncSignature &sig = program_->sigs.at(index);
    const ComputeFunction &f = program_->funcs.at(index);
    // Scalars and shape variables by value, for the launch sizes and temporary sizes.
    const glsl::ScalarValues values = glsl::scalar_values(f, args);
    check_loop_limit(sig, f, values);
    GLScope scope;
    while (glGetError() != GL_NO_ERROR) {  // report only what this call causes
    }
    std::vector<NDArray> temps;
    for (const TempBuffer &t : f.temps) {
      int64_t n = evaluate_size(t.elements, values, "the size of buffer '" + t.handle.name() + "'");
      temps.push_back(NDArray::empty({std::max<int64_t>(n, 0)}, t.dtype, Device::opengl()));
    }
    for (size_t k = 0; k < f.kernels.size(); ++k)
      launch(sig, f.kernels[k], programs_[index][k], args, buffers, temps, values);
    glUseProgram(0);
    // Later downloads, copies and launches see the results.
    glMemoryBarrier(GL_ALL_BARRIER_BITS);
    check_gl_error("running " + sig.name);
  }

  void finish() const override {
    GLScope scope;
    glFinish();
  }

 private:
  void release() noexcept {
    for (auto &f : programs_)
      for (KernelProgram &k : f) delete_program(k.program);
    programs_.clear();
  }

  // Loops whose passes depend on the call's sizes are checked before anything runs.
  void check_loop_limit(const FuncSignature &sig, const ComputeFunction &f,
                        const std::vector<std::pair<Var, Expr>> &values) const {
    const ComputeLimits &limits = program_->limits;
    if (limits.loop_limit <= 0) return;
    for (const ComputeKernel &k : f.kernels) {
      if (!k.shader.loop_passes.defined() || as_const_int(k.shader.loop_passes)) continue;  // constants: at build
      int64_t n = evaluate_size(k.shader.loop_passes, values, "the loop passes of kernel '" + k.shader.name + "'");
      TIR_USER_CHECK(glsl::compute_detail::within_loop_limit(n, limits.loop_limit))
          << sig.name << " at these argument sizes: " << glsl::loop_limit_message(k.shader.name, n, limits);
    }
  }

  static void launch(const FuncSignature &sig, const ComputeKernel &k, const KernelProgram &kp,
                     const std::vector<ArgValue> &args, const std::vector<NDArray> &buffers,
                     const std::vector<NDArray> &temps, const std::vector<std::pair<Var, Expr>> &values) {
    int64_t groups[3];
    for (int d = 0; d < 3; ++d) {
      groups[d] = evaluate_size(k.shader.group_count[d], values, "the work-group count of kernel '" + k.shader.name + "'");
      if (groups[d] <= 0) return;  // nothing to run (an empty tensor)
    }
    glUseProgram(kp.program);
    for (size_t b = 0; b < k.buffer_sources.size(); ++b) {
      int src = k.buffer_sources[b];
      const NDArray &a = src >= 0 ? buffers[static_cast<size_t>(src)] : temps[static_cast<size_t>(-1 - src)];
      std::string what = src >= 0 ? sig.name + ": argument " + sig.args[static_cast<size_t>(src)].name
                                  : sig.name + ": a temporary buffer";
      glBindBufferBase(GL_SHADER_STORAGE_BUFFER, static_cast<GLuint>(b), gl_buffer(a, what).id);
    }
    for (size_t u = 0; u < k.uniform_sources.size(); ++u) {
      GLint loc = kp.uniform_locations[u];
      if (loc < 0) continue;  // optimised away by the driver
      Type t = k.shader.uniforms[u].type();
      const ArgValue &v = args[k.uniform_sources[u]];
      if (t.is_float() && t.bits() == 64)
        glUniform1d(loc, v.f64);
      else if (t.is_float())
        glUniform1f(loc, static_cast<float>(v.f64));
      else if (t.bits() == 64 && t.is_int())
        glUniform1i64ARB(loc, v.i64);
      else if (t.bits() == 64)
        glUniform1ui64ARB(loc, static_cast<GLuint64>(v.i64));
      else if (t.is_uint() && !t.is_bool())
        glUniform1ui(loc, static_cast<GLuint>(v.i64));
      else
        glUniform1i(loc, static_cast<GLint>(v.i64));
    }
    // More groups than one launch may have run as several launches with an offset.
    int64_t max_count[3];
    for (int d = 0; d < 3; ++d) max_count[d] = GLContext::get().max_work_group_count(d);
    for (int64_t z = 0; z < groups[2]; z += max_count[2])
      for (int64_t y = 0; y < groups[1]; y += max_count[1])
        for (int64_t x = 0; x < groups[0]; x += max_count[0]) {
          if (kp.group_offset_location >= 0)
            glUniform3i(kp.group_offset_location, static_cast<GLint>(x), static_cast<GLint>(y), static_cast<GLint>(z));
          glDispatchCompute(static_cast<GLuint>(std::min(max_count[0], groups[0] - x)),
                            static_cast<GLuint>(std::min(max_count[1], groups[1] - y)),
                            static_cast<GLuint>(std::min(max_count[2], groups[2] - z)));
        }
    // The next kernel reads what this one wrote.
    glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
    check_gl_error("launching kernel '" + k.shader.name + "'");
  }

  std::shared_ptr<const glsl::ComputeProgram> program_;
  std::vector<std::vector<KernelProgram>> programs_;  // per function, per kernel
};

}  // namespace

std::unique_ptr<glsl::Executable> compute_executable(std::shared_ptr<const glsl::ComputeProgram> program) {
  return std::make_unique<ComputeExecutable>(std::move(program));
}

}  // namespace tensorir::opengl
