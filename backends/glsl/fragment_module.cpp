// The module of target "opengl -mode=fragment": each function runs its plan's passes by
// rendering into textures. Arguments are OpenGL buffers; inputs are copied into
// textures and outputs read back on the GPU side (pixel unpack/pack buffers), and
// intermediates stay in textures between passes.
#include "glsl/fragment_module.h"

#include <map>
#include <memory>

#include "codegen/signature.h"
#include "glsl/codegen_fragment.h"
#include "glsl/texture_layout.h"
#include "opengl/gl_api.h"
#include "opengl/gl_runtime.h"

namespace tensorir {

namespace {

using glsl::FragmentPlan;
using glsl::FragmentTensor;
using glsl::FragmentUniform;
using glsl::TextureLayout;

// GL objects holding the tensors of one call shape.
struct TextureSet {
  std::vector<TextureLayout> layouts;  // per plan tensor
  std::vector<GLuint> textures;        // per plan tensor; 0 when no pass touches it
  std::vector<GLuint> framebuffers;    // per plan tensor a pass renders into, else 0

  void release() noexcept {
    if (!opengl::GLContext::alive()) return;
    try {
      opengl::GLScope scope;
      for (GLuint f : framebuffers)
        if (f) glDeleteFramebuffers(1, &f);
      for (GLuint t : textures)
        if (t) glDeleteTextures(1, &t);
    } catch (...) {
    }
  }
};

struct FragmentFunction {
  FragmentPlan plan;
  FuncSignature sig;
  std::vector<GLuint> programs;                    // per pass
  std::vector<std::vector<GLint>> uniform_locs;    // per pass, per plan uniform (-1: unused)
  std::vector<std::vector<GLint>> sampler_locs;    // per pass, per input
  std::vector<bool> used;                          // per tensor: some pass reads or writes it
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
void upload(const opengl::GLBuffer &buf, const FragmentTensor &t, const TextureLayout &l, GLuint tex) {
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
              const opengl::GLBuffer &buf, GLuint scratch) {
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

class FragmentModuleNode final : public ModuleNode {
 public:
  FragmentModuleNode(const std::vector<LoweredFunc> &funcs, const Target &target) {
    opengl::GLScope scope;
    int max_size = opengl::GLContext::get().max_texture_size();
    llvmpipe_ = opengl::GLContext::get().renderer().find("llvmpipe") != std::string::npos;
    std::string opt = target.option("max-texture-size");
    if (!opt.empty()) {
      int requested = 0;
      try {
        requested = std::stoi(opt);
      } catch (...) {
      }
      TIR_USER_CHECK(requested > 0) << "target '" << target.str() << "': -max-texture-size=" << opt
                                    << " is not a positive number";
      max_size = std::min(max_size, requested);
    }
    std::string pack = target.option("pack", "1");
    TIR_USER_CHECK(pack == "0" || pack == "1")
        << "target '" << target.str() << "': -pack=" << pack << " must be 0 or 1";
    try {
      for (const LoweredFunc &f : funcs) add_function(f, max_size, pack == "1");
      glCreateVertexArrays(1, &vao_);
      glCreateBuffers(1, &scratch_);
      glNamedBufferData(scratch_, 16, nullptr, GL_STREAM_READ);
      opengl::check_gl_error("creating the fragment module's vertex array");
    } catch (...) {
      release();
      throw;
    }
    for (const auto &f : funcs_) sigs_.push_back(f->sig);
  }

  ~FragmentModuleNode() override { release(); }

  const std::vector<FuncSignature> &signatures() const override { return sigs_; }

  void invoke(size_t index, const std::vector<ArgValue> &args, const std::vector<NDArray> &buffers) const override {
    // The context lock also guards this module's texture cache.
    opengl::GLScope scope;
    FragmentFunction &f = *funcs_.at(index);
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
    TextureSet &ts = texture_set(f, shapes);
    while (glGetError() != GL_NO_ERROR) {
    }
    reset_pixel_store();
    for (size_t t = 0; t < plan.tensors.size(); ++t) {
      const FragmentTensor &ft = plan.tensors[t];
      if (!ft.is_input || !f.used[t] || counts[t] == 0) continue;
      upload(opengl::gl_buffer(buffers[ft.arg_index], plan.name + ": argument " + ft.name), ft, ts.layouts[t],
             ts.textures[t]);
    }
    set_render_state();
    for (size_t p = 0; p < plan.passes.size(); ++p) run_pass(f, p, ts, values, args, counts);
    for (size_t t = 0; t < plan.tensors.size(); ++t) {
      const FragmentTensor &ft = plan.tensors[t];
      if (!ft.is_output || counts[t] == 0) continue;
      readback(ts.framebuffers[t], ft, ts.layouts[t], counts[t],
               opengl::gl_buffer(buffers[ft.arg_index], plan.name + ": argument " + ft.name), scratch_);
    }
    glBindVertexArray(0);
    glUseProgram(0);
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, 0);
    opengl::check_gl_error("running " + plan.name + " on OpenGL (fragment shaders)");
  }

  std::string source(const std::string &format) const override {
    TIR_USER_CHECK(format == "glsl") << "the opengl fragment module has source format \"glsl\", not \"" << format
                                     << "\"";
    std::string out;
    for (const auto &f : funcs_) out += glsl::plan_source(f->plan);
    return out;
  }

  std::string backend() const override { return "opengl -mode=fragment"; }

 private:
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

  void add_function(const LoweredFunc &lf, int max_size, bool pack) {
    auto f = std::make_unique<FragmentFunction>();
    f->sig = make_signature(lf, Device::OpenGL);
    f->plan = glsl::plan_fragment(lf, max_size, pack);
    if (llvmpipe_)
      for (const glsl::FragmentPass &pass : f->plan.passes)
        if (pass.loop_iterations.defined() && as_const_int(pass.loop_iterations))
          check_loop_limit(f->plan, pass, {});
    f->used.assign(f->plan.tensors.size(), false);
    FragmentFunction *fp = f.get();
    funcs_.push_back(std::move(f));  // owned before any program exists, so release() finds them
    for (size_t p = 0; p < fp->plan.passes.size(); ++p) {
      const glsl::FragmentPass &pass = fp->plan.passes[p];
      std::string name = lf->name + " (pass " + std::to_string(p) + ": " + fp->plan.tensors[pass.output].name + ")";
      TIR_USER_CHECK(pass.inputs.size() <= 16)
          << name << " reads " << pass.inputs.size()
          << " tensors; WebGL/fragment targets allow 16 textures per shader: split the stage";
      GLuint prog = opengl::compile_fragment_program(pass.source, name);
      fp->programs.push_back(prog);
      std::vector<GLint> locs;
      for (const FragmentUniform &u : fp->plan.uniforms) locs.push_back(glGetUniformLocation(prog, u.name.c_str()));
      fp->uniform_locs.push_back(locs);
      std::vector<GLint> samplers;
      for (const std::string &s : pass.sampler_names) samplers.push_back(glGetUniformLocation(prog, s.c_str()));
      fp->sampler_locs.push_back(samplers);
      fp->used[pass.output] = true;
      for (int in : pass.inputs) fp->used[in] = true;
    }
  }

  void release() noexcept {
    for (auto &f : funcs_) {
      for (auto &[key, ts] : f->sets) ts.release();
      f->sets.clear();
      for (GLuint p : f->programs) opengl::delete_program(p);
      f->programs.clear();
    }
    if ((vao_ || scratch_) && opengl::GLContext::alive()) {
      try {
        opengl::GLScope scope;
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
  TextureSet &texture_set(FragmentFunction &f, const std::vector<std::vector<int64_t>> &shapes) const {
    auto it = f.sets.find(shapes);
    if (it != f.sets.end()) return it->second;
    if (f.sets.size() >= 8) {  // symbolic shapes called at many sizes: drop one set
      f.sets.begin()->second.release();
      f.sets.erase(f.sets.begin());
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
      opengl::check_gl_error(plan.name + ": creating textures");
    } catch (...) {
      ts.release();
      throw;
    }
    return f.sets.emplace(shapes, std::move(ts)).first->second;
  }

  void set_render_state() const {
    for (GLenum cap : {GL_BLEND, GL_DEPTH_TEST, GL_STENCIL_TEST, GL_SCISSOR_TEST, GL_CULL_FACE, GL_RASTERIZER_DISCARD})
      glDisable(cap);
    glColorMask(GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE);
    glBindVertexArray(vao_);
  }

  void run_pass(const FragmentFunction &f, size_t p, const TextureSet &ts, const glsl::VarValues &values,
                const std::vector<ArgValue> &args, const std::vector<int64_t> &counts) const {
    const glsl::FragmentPass &pass = f.plan.passes[p];
    if (counts[pass.output] == 0) return;
    const TextureLayout &l = ts.layouts[pass.output];
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, ts.framebuffers[pass.output]);
    glViewport(0, 0, l.width, l.height);
    glUseProgram(f.programs[p]);
    for (size_t i = 0; i < pass.inputs.size(); ++i) {
      glBindTextureUnit(static_cast<GLuint>(i), ts.textures[pass.inputs[i]]);
      glUniform1i(f.sampler_locs[p][i], static_cast<GLint>(i));
    }
    for (size_t u = 0; u < f.plan.uniforms.size(); ++u) {
      GLint loc = f.uniform_locs[p][u];
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

  std::vector<std::unique_ptr<FragmentFunction>> funcs_;
  std::vector<FuncSignature> sigs_;
  static constexpr int64_t kLlvmpipeLoopLimit = 65535;
  bool llvmpipe_ = false;
  GLuint vao_ = 0;
  GLuint scratch_ = 0;  // the partial last texel of a packed output, on its way back
};

}  // namespace

Module glsl::build_opengl_fragment(const std::vector<LoweredFunc> &funcs, const Target &target) {
  return Module(Ref<const ModuleNode>(new FragmentModuleNode(funcs, target)));
}

}  // namespace tensorir
