// The modules of targets "opengl -mode=fragment" and "webgl": each function runs its
// plan's passes by rendering into textures. "opengl -mode=fragment" takes OpenGL buffers:
// inputs are copied into textures and outputs read back on the GPU side (pixel
// unpack/pack buffers), and intermediates stay in textures between passes. "webgl" is
// built without an OpenGL context (its plans are exported for browsers); it stores every
// tensor packed (FragmentOptions::pack_all) and, where a context exists, runs natively on
// host arrays, compiling its programs on the first call.
#include "glsl/fragment_module.h"

#include <climits>
#include <cstring>
#include <map>
#include <memory>

#include "codegen/signature.h"
#include "glsl/codegen_fragment.h"
#include "glsl/texture_layout.h"
#include "json.h"
#include "opengl/gl_api.h"
#include "opengl/gl_runtime.h"
#include "tensorir/ir/printer.h"

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
  std::vector<GLuint> pass_framebuffers;  // per pass with several render targets, else 0

  void release() noexcept {
    if (!opengl::GLContext::alive()) return;
    try {
      opengl::GLScope scope;
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

class FragmentModuleNode final : public ModuleNode {
 public:
  FragmentModuleNode(const std::vector<LoweredFunc> &funcs, const Target &target, bool web) : web_(web) {
    if (web_) {
      // No OpenGL here: the plans must be made on machines without a GPU (export).
      TIR_USER_CHECK(target.option("pack").empty())
          << "target '" << target.str() << "': webgl always packs four elements per texel; drop -pack";
      glsl::FragmentOptions o;
      o.max_texture_size = static_cast<int>(target.positive_option("max-texture-size", kWebMaxTextureSize, INT_MAX));
      o.pack_all = true;
      o.max_phases = static_cast<int>(target.positive_option("draw-buffers", kWebDrawBuffers, 8));
      TIR_USER_CHECK((o.max_phases & (o.max_phases - 1)) == 0)
          << "target '" << target.str() << "': -draw-buffers=" << o.max_phases << " must be 1, 2, 4 or 8";
      for (const LoweredFunc &f : funcs) add_function(f, o);
      for (const auto &f : funcs_) sigs_.push_back(f->sig);
      return;
    }
    opengl::GLScope scope;
    llvmpipe_ = opengl::GLContext::get().renderer().find("llvmpipe") != std::string::npos;
    glsl::FragmentOptions o;
    o.max_texture_size =
        std::min(opengl::GLContext::get().max_texture_size(),
                 static_cast<int>(target.positive_option("max-texture-size",
                                                           opengl::GLContext::get().max_texture_size(), INT_MAX)));
    std::string pack = target.option("pack", "1");
    TIR_USER_CHECK(pack == "0" || pack == "1")
        << "target '" << target.str() << "': -pack=" << pack << " must be 0 or 1";
    o.pack = pack == "1";
    try {
      for (const LoweredFunc &f : funcs) add_function(f, o);
      create_gl_objects();
    } catch (...) {
      release();
      throw;
    }
    for (const auto &f : funcs_) sigs_.push_back(f->sig);
  }

  ~FragmentModuleNode() override { release(); }

  const std::vector<FuncSignature> &signatures() const override { return sigs_; }

  void invoke(size_t index, const std::vector<ArgValue> &args, const std::vector<NDArray> &buffers) const override {
    // The context lock also guards this module's texture cache (and a webgl module's
    // programs, made on the first call).
    std::unique_ptr<opengl::GLScope> scope = enter_context(index);
    FragmentFunction &f = *funcs_.at(index);
    if (web_) ensure_programs(f);
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
      if (web_)
        upload_host(buffers[ft.arg_index], ts.layouts[t], ts.textures[t]);
      else
        upload(opengl::gl_buffer(buffers[ft.arg_index], plan.name + ": argument " + ft.name), ft, ts.layouts[t],
               ts.textures[t]);
    }
    set_render_state();
    for (size_t p = 0; p < plan.passes.size(); ++p) run_pass(f, p, ts, values, args, counts);
    for (size_t t = 0; t < plan.tensors.size(); ++t) {
      const FragmentTensor &ft = plan.tensors[t];
      if (!ft.is_output || counts[t] == 0) continue;
      if (web_) {
        readback_host(ts.framebuffers[t], ts.layouts[t], buffers[ft.arg_index]);
        continue;
      }
      readback(ts.framebuffers[t], ft, ts.layouts[t], counts[t],
               opengl::gl_buffer(buffers[ft.arg_index], plan.name + ": argument " + ft.name), scratch_);
    }
    glBindVertexArray(0);
    glUseProgram(0);
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, 0);
    opengl::check_gl_error("running " + plan.name + " on OpenGL (fragment shaders)");
  }

  std::string source(const std::string &format) const override {
    if (format == "glsl") {
      std::string out;
      for (const auto &f : funcs_) out += glsl::plan_source(f->plan);
      return out;
    }
    TIR_USER_CHECK(web_ && format == "webgl-json")
        << "the " << backend() << " module has source format" << (web_ ? "s \"glsl\" and \"webgl-json\"" : " \"glsl\"")
        << ", not \"" << format << "\"";
    json::Value out = json::Value::object();
    out.set("format", "tensorir-webgl-module");
    out.set("vertex_shader", opengl::fullscreen_vertex_shader());
    json::Value fs = json::Value::array();
    for (const auto &f : funcs_) fs.push(web_json(f->plan));
    out.set("functions", std::move(fs));
    return out.dump(1);
  }

  std::string backend() const override { return web_ ? "webgl" : "opengl -mode=fragment"; }

 private:
  static constexpr int kWebMaxTextureSize = 4096;
  // Render targets a pass may use (-draw-buffers=N): a convolution's pass computes that
  // many texels per fragment. WebGL2 guarantees 4 (MAX_DRAW_BUFFERS); most GPUs have 8.
  static constexpr int kWebDrawBuffers = 4;

  // One function's plan for the web: tensors with their layouts, passes with their
  // shaders, samplers and uniforms. Shapes that are not constant (and uniforms whose
  // values only a call gives) make it "symbolic": such a function cannot be exported.
  static json::Value web_json(const FragmentPlan &plan) {
    json::Value fn = json::Value::object();
    fn.set("name", plan.name);
    fn.set("max_texture_size", plan.max_texture_size);
    bool symbolic = false;
    json::Value tensors = json::Value::array();
    for (const FragmentTensor &t : plan.tensors) {
      json::Value jt = json::Value::object();
      jt.set("name", t.name);
      jt.set("arg", t.arg_index);
      jt.set("input", t.is_input);
      jt.set("output", t.is_output);
      jt.set("packed", t.packed);
      jt.set("format", t.packed ? "RGBA32F" : "R32F");
      jt.set("dtype", t.dtype.str());
      std::vector<int64_t> dims;
      json::Value shape = json::Value::array();
      for (const Expr &d : t.shape) {
        if (const int64_t *v = as_const_int(d)) {
          dims.push_back(*v);
          shape.push(*v);
        } else {
          shape.push(to_string(d));
        }
      }
      jt.set("shape", std::move(shape));
      if (dims.size() == t.shape.size()) {
        TextureLayout l = glsl::tensor_layout(t, dims, plan.max_texture_size, plan.name + ": tensor " + t.name);
        jt.set("width", std::max(l.width, 1));
        jt.set("height", std::max(l.height, 1));
      } else {
        symbolic = true;
      }
      tensors.push(std::move(jt));
    }
    json::Value passes = json::Value::array();
    for (const glsl::FragmentPass &p : plan.passes) {
      json::Value jp = json::Value::object();
      jp.set("output", p.output);
      if (p.outputs.size() > 1) {
        json::Value outs = json::Value::array();
        for (int t : p.outputs) outs.push(t);
        jp.set("outputs", std::move(outs));
      }
      json::Value inputs = json::Value::array();
      for (size_t i = 0; i < p.inputs.size(); ++i) {
        json::Value in = json::Value::object();
        in.set("sampler", p.sampler_names[i]);
        in.set("tensor", p.inputs[i]);
        inputs.push(std::move(in));
      }
      jp.set("inputs", std::move(inputs));
      json::Value uniforms = json::Value::array();
      for (const std::string &name : p.uniforms) {
        json::Value ju = json::Value::object();
        ju.set("name", name);
        for (const FragmentUniform &u : plan.uniforms) {
          if (u.name != name) continue;
          bool is_float = u.kind == FragmentUniform::Variable && u.var.type().is_float();
          ju.set("type", is_float ? "float" : "int");
          // Width uniforms exist only for shapes that are not constant; variables
          // (shape symbols, scalar arguments) are known only per call.
          symbolic = true;
        }
        uniforms.push(std::move(ju));
      }
      jp.set("uniforms", std::move(uniforms));
      jp.set("source", p.source);
      passes.push(std::move(jp));
    }
    fn.set("symbolic", symbolic);
    fn.set("tensors", std::move(tensors));
    fn.set("passes", std::move(passes));
    return fn;
  }

  // The context lock for a call; a webgl module without OpenGL here says where it runs.
  std::unique_ptr<opengl::GLScope> enter_context(size_t index) const {
    if (!web_) return std::make_unique<opengl::GLScope>();
    try {
      return std::make_unique<opengl::GLScope>();
    } catch (const Error &e) {
      TIR_THROW() << "webgl function '" << funcs_.at(index)->plan.name
                  << "': webgl modules run in a browser (export a model with graph::export_web); running one "
                     "here needs an OpenGL context, and none could be made: "
                  << e.what();
    }
  }

  // A webgl module's programs and GL objects, made on its first call (context held).
  void ensure_programs(FragmentFunction &f) const {
    if (!gl_ready_) {
      llvmpipe_ = opengl::GLContext::get().renderer().find("llvmpipe") != std::string::npos;
      create_gl_objects();
      gl_ready_ = true;
    }
    if (f.programs.size() == f.plan.passes.size()) return;
    if (llvmpipe_)
      for (const glsl::FragmentPass &pass : f.plan.passes)
        if (pass.loop_iterations.defined() && as_const_int(pass.loop_iterations)) check_loop_limit(f.plan, pass, {});
    compile_programs(f);
  }

  void create_gl_objects() const {
    glCreateVertexArrays(1, &vao_);
    glCreateBuffers(1, &scratch_);
    glNamedBufferData(scratch_, 16, nullptr, GL_STREAM_READ);
    opengl::check_gl_error("creating the fragment module's vertex array");
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

  void add_function(const LoweredFunc &lf, const glsl::FragmentOptions &o) {
    auto f = std::make_unique<FragmentFunction>();
    f->sig = make_signature(lf, web_ ? Device::CPU : Device::OpenGL);
    f->plan = glsl::plan_fragment(lf, o);
    if (web_) {
      for (const FragmentTensor &t : f->plan.tensors)
        TIR_USER_CHECK(t.dtype == Float(32))
            << lf->name << ": tensor " << t.name << " is " << t.dtype
            << "; the webgl target stores every tensor as float32 (RGBA32F textures): cast it to float32";
    }
    if (llvmpipe_)
      for (const glsl::FragmentPass &pass : f->plan.passes)
        if (pass.loop_iterations.defined() && as_const_int(pass.loop_iterations))
          check_loop_limit(f->plan, pass, {});
    f->used.assign(f->plan.tensors.size(), false);
    for (size_t p = 0; p < f->plan.passes.size(); ++p) {
      const glsl::FragmentPass &pass = f->plan.passes[p];
      TIR_USER_CHECK(pass.inputs.size() <= 16)
          << lf->name << " (pass " << p << ": " << f->plan.tensors[pass.output].name << ") reads "
          << pass.inputs.size() << " tensors; WebGL/fragment targets allow 16 textures per shader: split the stage";
      for (int t : pass.outputs) f->used[t] = true;
      for (int in : pass.inputs) f->used[in] = true;
    }
    FragmentFunction *fp = f.get();
    funcs_.push_back(std::move(f));  // owned before any program exists, so release() finds them
    if (!web_) compile_programs(*fp);
  }

  static void compile_programs(FragmentFunction &f) {
    for (size_t p = f.programs.size(); p < f.plan.passes.size(); ++p) {
      const glsl::FragmentPass &pass = f.plan.passes[p];
      std::string name = f.plan.name + " (pass " + std::to_string(p) + ": " + f.plan.tensors[pass.output].name + ")";
      GLuint prog = opengl::compile_fragment_program(pass.source, name);
      f.programs.push_back(prog);
      std::vector<GLint> locs;
      for (const FragmentUniform &u : f.plan.uniforms) locs.push_back(glGetUniformLocation(prog, u.name.c_str()));
      f.uniform_locs.push_back(locs);
      std::vector<GLint> samplers;
      for (const std::string &s : pass.sampler_names) samplers.push_back(glGetUniformLocation(prog, s.c_str()));
      f.sampler_locs.push_back(samplers);
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
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER,
                      ts.pass_framebuffers[p] ? ts.pass_framebuffers[p] : ts.framebuffers[pass.output]);
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
  bool web_ = false;
  // Set when GL objects are made: in the constructor, or for webgl on the first call
  // (under the context lock).
  mutable bool gl_ready_ = false;
  mutable bool llvmpipe_ = false;
  mutable GLuint vao_ = 0;
  mutable GLuint scratch_ = 0;  // the partial last texel of a packed output, on its way back
};

}  // namespace

Module glsl::build_opengl_fragment(const std::vector<LoweredFunc> &funcs, const Target &target) {
  return Module(Ref<const ModuleNode>(new FragmentModuleNode(funcs, target, false)));
}

Module glsl::build_webgl(const std::vector<LoweredFunc> &funcs, const Target &target) {
  return Module(Ref<const ModuleNode>(new FragmentModuleNode(funcs, target, true)));
}

}  // namespace tensorir
