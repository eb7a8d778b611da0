// Runs fragment plans (glsl/fragment/fragment_module.h) by rendering into textures.
// "opengl -mode=fragment" takes OpenGL buffers: inputs are copied into textures and
// outputs read back on the GPU side (pixel unpack/pack buffers), and intermediates stay in
// textures between passes. "webgl" takes host arrays (every tensor packed).
#include <climits>
#include <cstring>
#include <map>
#include <memory>

#include "backends/glsl/fragment/fragment_module.h"
#include "backends/glsl/fragment/texture_layout.h"
#include "backends/opengl/gl_api.h"
#include "backends/opengl/gl_runners.h"
#include "backends/opengl/gl_runtime.h"
#include "tensorir/error.h"

namespace tensorir::opengl {

namespace {

using glsl::FragmentFunction;
using glsl::FragmentPlan;
using glsl::FragmentTensor;
using glsl::FragmentUniform;
using glsl::TextureLayout;

// GL objects holding the tensors of one call shape.
struct TextureSet {
  std::vector<TextureLayout> layouts;  // per plan tensor
  std::vector<GLuint> textures;        // per plan tensor; 0 when no pass touches it
  std::vector<GLuint> framebuffers;    // per plan tensor a pass renders into, else 0
  std::vector<GLuint> pass_framebuffers;  // per pass with several render targets, else 0

  void release() noexcept {
    if (!GLContext::alive()) return;
    try {
      GLScope scope;
      for (GLuint f : framebuffers)
        if (f) glDeleteFramebuffers(1, &f);
      for (GLuint f : pass_framebuffers)
        if (f) glDeleteFramebuffers(1, &f);
      for (GLuint t : textures)
        if (t) glDeleteTextures(1, &t);
    } catch (...) {
    }
  }
};

// A function's programs and its textures per call shape.
struct FunctionState {
  std::vector<GLuint> programs;                  // per pass
  std::vector<std::vector<GLint>> uniform_locs;  // per pass, per plan uniform (-1: unused)
  std::vector<std::vector<GLint>> sampler_locs;  // per pass, per input
  std::map<std::vector<std::vector<int64_t>>, TextureSet> sets;  // by the tensors' shapes
};

bool is_float(const FragmentTensor &t) { return t.dtype.is_float(); }
GLenum internal_format(const FragmentTensor &t) {
  if (t.packed) return is_float(t) ? GL_RGBA32F : GL_RGBA32I;
  return is_float(t) ? GL_R32F : GL_R32I;
}
GLenum pixel_format(const FragmentTensor &t) {
  if (t.packed) return is_float(t) ? GL_RGBA : GL_RGBA_INTEGER;
  return is_float(t) ? GL_RED : GL_RED_INTEGER;
}
GLenum pixel_type(const FragmentTensor &t) { return is_float(t) ? GL_FLOAT : GL_INT; }
const char *format_name(const FragmentTensor &t) {
  if (t.packed) return is_float(t) ? "RGBA32F" : "RGBA32I";
  return is_float(t) ? "R32F" : "R32I";
}
void *byte_offset(int64_t bytes) { return reinterpret_cast<void *>(static_cast<uintptr_t>(bytes)); }

// Pixel transfers read and write tightly packed rows of 4-byte texels.
void reset_pixel_store() {
  for (GLenum p : {GL_UNPACK_ROW_LENGTH, GL_UNPACK_SKIP_ROWS, GL_UNPACK_SKIP_PIXELS, GL_UNPACK_IMAGE_HEIGHT,
                   GL_UNPACK_SKIP_IMAGES, GL_PACK_ROW_LENGTH, GL_PACK_SKIP_ROWS, GL_PACK_SKIP_PIXELS})
    glPixelStorei(p, 0);
  glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
  glPixelStorei(GL_PACK_ALIGNMENT, 4);
}

// Buffer -> texture: the full rows in one copy, then the partial last row.
void upload(const GLBuffer &buf, const FragmentTensor &t, const TextureLayout &l, GLuint tex) {
  glBindBuffer(GL_PIXEL_UNPACK_BUFFER, buf.id);
  GLsizei rows = static_cast<GLsizei>(l.full_rows());
  if (rows > 0)
    glTextureSubImage2D(tex, 0, 0, 0, l.width, rows, pixel_format(t), pixel_type(t), nullptr);
  if (l.last_row_elements() > 0)
    glTextureSubImage2D(tex, 0, 0, rows, l.last_row_elements(), 1, pixel_format(t), pixel_type(t),
                        reinterpret_cast<const void *>(static_cast<uintptr_t>(l.full_rows() * l.width * 4)));
  glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
}

// Framebuffer -> buffer, the same way round: whole rows, then the partial last row. A
// packed tensor's last texel may hold fewer than four elements; it goes through
// `scratch` (16 bytes) so that nothing is written past the buffer's end.
void readback(GLuint fbo, const FragmentTensor &t, const TextureLayout &l, int64_t elements,
              const GLBuffer &buf, GLuint scratch) {
  glBindFramebuffer(GL_READ_FRAMEBUFFER, fbo);
  glBindBuffer(GL_PIXEL_PACK_BUFFER, buf.id);
  const int per_texel = t.packed ? 4 : 1;
  const int64_t texel_bytes = 4 * per_texel;
  const int64_t whole = elements / per_texel;  // texels all of whose channels are elements
  const GLsizei rows = static_cast<GLsizei>(whole / l.width);
  const GLsizei rest = static_cast<GLsizei>(whole % l.width);
  if (rows > 0) glReadPixels(0, 0, l.width, rows, pixel_format(t), pixel_type(t), nullptr);
  if (rest > 0)
    glReadPixels(0, rows, rest, 1, pixel_format(t), pixel_type(t), byte_offset(int64_t(rows) * l.width * texel_bytes));
  if (int64_t part = elements - whole * per_texel; part > 0) {
    glBindBuffer(GL_PIXEL_PACK_BUFFER, scratch);
    glReadPixels(rest, rows, 1, 1, pixel_format(t), pixel_type(t), nullptr);
    glCopyNamedBufferSubData(scratch, buf.id, 0, static_cast<GLintptr>(whole * texel_bytes),
                             static_cast<GLsizeiptr>(part * 4));
  }
  glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
  glBindFramebuffer(GL_READ_FRAMEBUFFER, 0);
}

// Host memory -> packed texture (webgl): the elements, then zeros to the texture's end.
void upload_host(const NDArray &a, const TextureLayout &l, GLuint tex) {
  std::vector<float> staging(static_cast<size_t>(l.texels()) * 4, 0.0f);
  std::memcpy(staging.data(), a.data(), static_cast<size_t>(a.numel()) * sizeof(float));
  glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
  glTextureSubImage2D(tex, 0, 0, 0, l.width, l.height, GL_RGBA, GL_FLOAT, staging.data());
}

// Packed texture -> host memory (webgl): the rows holding the elements, then the first
// numel floats of them.
void readback_host(GLuint fbo, const TextureLayout &l, const NDArray &a) {
  const int64_t numel = a.numel();
  const GLsizei rows = static_cast<GLsizei>(((numel + 3) / 4 + l.width - 1) / l.width);
  std::vector<float> staging(static_cast<size_t>(rows) * l.width * 4);
  glBindFramebuffer(GL_READ_FRAMEBUFFER, fbo);
  glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
  glReadPixels(0, 0, l.width, rows, GL_RGBA, GL_FLOAT, staging.data());
  glBindFramebuffer(GL_READ_FRAMEBUFFER, 0);
  std::memcpy(a.data(), staging.data(), static_cast<size_t>(numel) * sizeof(float));
}

class FragmentExecutable final : public glsl::Executable {
 public:
  explicit FragmentExecutable(std::shared_ptr<const glsl::FragmentProgram> program)
      : program_(std::move(program)), web_(program_->web) {
    std::unique_ptr<GLScope> scope = enter_context(0);
    state_.resize(program_->funcs.size());
    try {
      llvmpipe_ = GLContext::get().renderer().find("llvmpipe") != std::string::npos;
      for (size_t i = 0; i < program_->funcs.size(); ++i) {
        const FragmentFunction &f = program_->funcs[i];
        if (llvmpipe_)
          for (const glsl::FragmentPass &pass : f.plan.passes)
            if (pass.loop_iterations.defined() && as_const_int(pass.loop_iterations)) check_loop_limit(f.plan, pass, {});
        compile_programs(f, state_[i]);
      }
      glCreateVertexArrays(1, &vao_);
      glCreateBuffers(1, &scratch_);
      glNamedBufferData(scratch_, 16, nullptr, GL_STREAM_READ);
      check_gl_error("creating the fragment module's vertex array");
    } catch (...) {
      release();
      throw;
    }
  }

  ~FragmentExecutable() override { release(); }

  void invoke(size_t index, const std::vector<ArgValue> &args, const std::vector<NDArray> &buffers) const override {
    // The context lock also guards the texture cache.
    std::unique_ptr<GLScope> scope = enter_context(index);
    const FragmentFunction &f = program_->funcs.at(index);
    FunctionState &st = state_.at(index);
    const FragmentPlan &plan = f.plan;
    glsl::VarValues values = variable_values(f, args);
    std::vector<std::vector<int64_t>> shapes;
    std::vector<int64_t> counts;
    for (const FragmentTensor &t : plan.tensors) {
      shapes.push_back(glsl::eval_shape(t.shape, values, plan.name + ": tensor " + t.name));
      int64_t n = 1;
      for (int64_t d : shapes.back()) n *= d;
      counts.push_back(n);
    }
    if (llvmpipe_)
      for (const glsl::FragmentPass &pass : plan.passes) check_loop_limit(plan, pass, values);
    TextureSet &ts = texture_set(f, st, shapes);
    while (glGetError() != GL_NO_ERROR) {
    }
    reset_pixel_store();
    for (size_t t = 0; t < plan.tensors.size(); ++t) {
      const FragmentTensor &ft = plan.tensors[t];
      if (!ft.is_input || !f.used[t] || counts[t] == 0) continue;
      if (web_)
        upload_host(buffers[ft.arg_index], ts.layouts[t], ts.textures[t]);
      else
        upload(gl_buffer(buffers[ft.arg_index], plan.name + ": argument " + ft.name), ft, ts.layouts[t],
               ts.textures[t]);
    }
    set_render_state();
    for (size_t p = 0; p < plan.passes.size(); ++p) run_pass(f, st, p, ts, values, args, counts);
    for (size_t t = 0; t < plan.tensors.size(); ++t) {
      const FragmentTensor &ft = plan.tensors[t];
      if (!ft.is_output || counts[t] == 0) continue;
      if (web_) {
        readback_host(ts.framebuffers[t], ts.layouts[t], buffers[ft.arg_index]);
        continue;
      }
      readback(ts.framebuffers[t], ft, ts.layouts[t], counts[t],
               gl_buffer(buffers[ft.arg_index], plan.name + ": argument " + ft.name), scratch_);
    }
    glBindVertexArray(0);
    glUseProgram(0);
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, 0);
    check_gl_error("running " + plan.name + " on OpenGL (fragment shaders)");
  }

 private:
  // The context lock for a call; a webgl module without OpenGL here says where it runs.
  std::unique_ptr<GLScope> enter_context(size_t index) const {
    if (!web_) return std::make_unique<GLScope>();
    try {
      return std::make_unique<GLScope>();
    } catch (const Error &e) {
      TIR_THROW() << "webgl function '" << program_->funcs.at(index).plan.name
                  << "': webgl modules run in a browser (export a model with graph::export_web); running one "
                     "here needs an OpenGL context, and none could be made: "
                  << e.what();
    }
  }

  // Mesa's llvmpipe ends a shader invocation's loops after 65535 iterations in all and
  // carries on with wrong values; such a pass is an error instead.
  static void check_loop_limit(const FragmentPlan &plan, const glsl::FragmentPass &pass,
                               const glsl::VarValues &values) {
    if (!pass.loop_iterations.defined()) return;
    const FragmentTensor &t = plan.tensors[pass.output];
    int64_t n = glsl::eval_shape({pass.loop_iterations}, values, plan.name + ": tensor " + t.name)[0];
    TIR_USER_CHECK(n <= kLlvmpipeLoopLimit)
        << plan.name << ": computing " << t.name << " takes " << n
        << " loop iterations per element, but Mesa llvmpipe stops a shader after " << kLlvmpipeLoopLimit
        << " and would return wrong values; reduce over fewer elements per output (e.g. in two stages)";
  }

  static void compile_programs(const FragmentFunction &f, FunctionState &st) {
    for (size_t p = st.programs.size(); p < f.plan.passes.size(); ++p) {
      const glsl::FragmentPass &pass = f.plan.passes[p];
      std::string name = f.plan.name + " (pass " + std::to_string(p) + ": " + f.plan.tensors[pass.output].name + ")";
      GLuint prog = compile_fragment_program(pass.source, name);
      st.programs.push_back(prog);
      std::vector<GLint> locs;
      for (const FragmentUniform &u : f.plan.uniforms) locs.push_back(glGetUniformLocation(prog, u.name.c_str()));
      st.uniform_locs.push_back(locs);
      std::vector<GLint> samplers;
      for (const std::string &s : pass.sampler_names) samplers.push_back(glGetUniformLocation(prog, s.c_str()));
      st.sampler_locs.push_back(samplers);
    }
  }

  void release() noexcept {
    for (FunctionState &st : state_) {
      for (auto &[key, ts] : st.sets) ts.release();
      st.sets.clear();
      for (GLuint p : st.programs) delete_program(p);
      st.programs.clear();
    }
    if ((vao_ || scratch_) && GLContext::alive()) {
      try {
        GLScope scope;
        if (vao_) glDeleteVertexArrays(1, &vao_);
        if (scratch_) glDeleteBuffers(1, &scratch_);
      } catch (...) {
      }
    }
    vao_ = 0;
    scratch_ = 0;
  }

  static glsl::VarValues variable_values(const FragmentFunction &f, const std::vector<ArgValue> &args) {
    glsl::VarValues values;
    size_t nargs = f.sig.args.size();
    for (const FragmentUniform &u : f.plan.uniforms) {
      if (u.kind != FragmentUniform::Variable) continue;
      if (u.symbol >= 0) values[u.var.get()] = args[nargs + u.symbol].i64;
      else if (!u.var.type().is_float()) values[u.var.get()] = args[u.arg_index].i64;
    }
    return values;
  }

  // The textures for these shapes, made on first use (a few call shapes are kept).
  TextureSet &texture_set(const FragmentFunction &f, FunctionState &st,
                          const std::vector<std::vector<int64_t>> &shapes) const {
    auto it = st.sets.find(shapes);
    if (it != st.sets.end()) return it->second;
    if (st.sets.size() >= 8) {  // symbolic shapes called at many sizes: drop one set
      st.sets.begin()->second.release();
      st.sets.erase(st.sets.begin());
    }
    TextureSet ts;
    const FragmentPlan &plan = f.plan;
    try {
      for (size_t t = 0; t < plan.tensors.size(); ++t) {
        const FragmentTensor &ft = plan.tensors[t];
        TextureLayout l = glsl::tensor_layout(ft, shapes[t], plan.max_texture_size, plan.name + ": tensor " + ft.name);
        ts.layouts.push_back(l);
        GLuint tex = 0, fbo = 0;
        if (f.used[t]) {
          glCreateTextures(GL_TEXTURE_2D, 1, &tex);
          glTextureStorage2D(tex, 1, internal_format(ft), std::max(l.width, 1), std::max(l.height, 1));
          glTextureParameteri(tex, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
          glTextureParameteri(tex, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
        }
        ts.textures.push_back(tex);
        if (f.used[t] && !ft.is_input) {
          glCreateFramebuffers(1, &fbo);
          glNamedFramebufferTexture(fbo, GL_COLOR_ATTACHMENT0, tex, 0);
          glNamedFramebufferReadBuffer(fbo, GL_COLOR_ATTACHMENT0);
          GLenum status = glCheckNamedFramebufferStatus(fbo, GL_DRAW_FRAMEBUFFER);
          ts.framebuffers.push_back(fbo);
          TIR_USER_CHECK(status == GL_FRAMEBUFFER_COMPLETE)
              << plan.name << ": OpenGL cannot render into a " << l.width << " x " << l.height << " "
              << format_name(ft) << " texture for " << ft.name << " (framebuffer status 0x"
              << std::hex << status << ")";
        } else {
          ts.framebuffers.push_back(0);
        }
      }
      for (const glsl::FragmentPass &pass : plan.passes) {
        GLuint fbo = 0;
        if (pass.outputs.size() > 1) {
          glCreateFramebuffers(1, &fbo);
          ts.pass_framebuffers.push_back(fbo);
          std::vector<GLenum> attachments;
          for (size_t k = 0; k < pass.outputs.size(); ++k) {
            attachments.push_back(static_cast<GLenum>(GL_COLOR_ATTACHMENT0 + k));
            glNamedFramebufferTexture(fbo, attachments.back(), ts.textures[static_cast<size_t>(pass.outputs[k])], 0);
          }
          glNamedFramebufferDrawBuffers(fbo, static_cast<GLsizei>(attachments.size()), attachments.data());
          GLenum status = glCheckNamedFramebufferStatus(fbo, GL_DRAW_FRAMEBUFFER);
          TIR_USER_CHECK(status == GL_FRAMEBUFFER_COMPLETE)
              << plan.name << ": OpenGL cannot render into " << pass.outputs.size() << " textures at once for "
              << plan.tensors[static_cast<size_t>(pass.output)].name << " (framebuffer status 0x" << std::hex
              << status << ")";
        } else {
          ts.pass_framebuffers.push_back(0);
        }
      }
      check_gl_error(plan.name + ": creating textures");
    } catch (...) {
      ts.release();
      throw;
    }
    return st.sets.emplace(shapes, std::move(ts)).first->second;
  }

  void set_render_state() const {
    for (GLenum cap : {GL_BLEND, GL_DEPTH_TEST, GL_STENCIL_TEST, GL_SCISSOR_TEST, GL_CULL_FACE, GL_RASTERIZER_DISCARD})
      glDisable(cap);
    glColorMask(GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE);
    glBindVertexArray(vao_);
  }

  void run_pass(const FragmentFunction &f, const FunctionState &st, size_t p, const TextureSet &ts, const glsl::VarValues &values,
                const std::vector<ArgValue> &args, const std::vector<int64_t> &counts) const {
    const glsl::FragmentPass &pass = f.plan.passes[p];
    if (counts[pass.output] == 0) return;
    const TextureLayout &l = ts.layouts[pass.output];
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER,
                      ts.pass_framebuffers[p] ? ts.pass_framebuffers[p] : ts.framebuffers[pass.output]);
    glViewport(0, 0, l.width, l.height);
    glUseProgram(st.programs[p]);
    for (size_t i = 0; i < pass.inputs.size(); ++i) {
      glBindTextureUnit(static_cast<GLuint>(i), ts.textures[pass.inputs[i]]);
      glUniform1i(st.sampler_locs[p][i], static_cast<GLint>(i));
    }
    for (size_t u = 0; u < f.plan.uniforms.size(); ++u) {
      GLint loc = st.uniform_locs[p][u];
      if (loc < 0) continue;  // this shader does not use it
      const FragmentUniform &fu = f.plan.uniforms[u];
      if (fu.kind == FragmentUniform::Width) {
        glUniform1i(loc, ts.layouts[fu.tensor].width);
      } else if (fu.var.type().is_float()) {
        glUniform1f(loc, static_cast<float>(args[fu.arg_index].f64));
      } else {
        int64_t v = values.at(fu.var.get());
        TIR_USER_CHECK(v >= INT32_MIN && v <= INT32_MAX)
            << f.plan.name << ": " << fu.var.name() << " = " << v
            << " does not fit the 32-bit ints of WebGL/fragment targets";
        glUniform1i(loc, static_cast<GLint>(v));
      }
    }
    glDrawArrays(GL_TRIANGLES, 0, 3);
  }

  std::shared_ptr<const glsl::FragmentProgram> program_;
  bool web_ = false;
  bool llvmpipe_ = false;
  static constexpr int64_t kLlvmpipeLoopLimit = 65535;
  // Per function; mutable: the texture cache grows on calls (under the context lock).
  mutable std::vector<FunctionState> state_;
  GLuint vao_ = 0;
  GLuint scratch_ = 0;  // the partial last texel of a packed output, on its way back
};

}  // namespace

std::unique_ptr<glsl::Executable> fragment_executable(std::shared_ptr<const glsl::FragmentProgram> program) {
  return std::make_unique<FragmentExecutable>(std::move(program));
}

}  // namespace tensorir::opengl
