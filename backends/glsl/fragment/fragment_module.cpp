// The modules of targets "opengl -mode=fragment" and "webgl": each function is a plan
// of render passes (codegen_fragment.h). "opengl -mode=fragment" takes OpenGL buffers and
// compiles its programs when built; "webgl" is built without an OpenGL context (its
// plans are exported for browsers), stores every tensor packed
// (FragmentOptions::pack_all) and, where the OpenGL runtime is there, runs natively on
// host arrays, compiling its programs on the first call. Running is the runtime's part
// (opengl/gl_fragment_runner.cpp).
#include "backends/glsl/fragment/fragment_module.h"

#include <algorithm>
#include <climits>
#include <memory>
#include <mutex>

#include "backends/glsl/common/glsl_runner.h"
#include "backends/glsl/fragment/texture_layout.h"
#include "runtime/json.h"
#include "tensorir/error.h"
#include "tensorir/ir/printer.h"

namespace tensorir {

namespace {

using glsl::FragmentFunction;
using glsl::FragmentPlan;
using glsl::FragmentProgram;
using glsl::FragmentTensor;
using glsl::FragmentUniform;
using glsl::TextureLayout;

constexpr int kWebMaxTextureSize = 4096;
// Render targets a pass may use (-draw-buffers=N): a convolution's pass computes that
// many texels per fragment. WebGL2 guarantees 4 (MAX_DRAW_BUFFERS); most GPUs have 8.
constexpr int kWebDrawBuffers = 4;

// The plan of one function, with what every fragment target checks.
FragmentFunction plan_function(const glsl::StageFunction &sf, const glsl::FragmentOptions &o, bool web) {
  const LoweredFunc &lf = sf.func;
  FragmentFunction f;
  f.sig = make_signature(lf, web ? Device::CPU : Device::OpenGL);
  // Every input is uploaded to a texture of its own before the first pass and every
  // result read back after the last, so a call may pass one array as both.
  for (ArgSpec &a : f.sig.args) a.may_alias = a.is_buffer();
  f.plan = glsl::plan_fragment(sf, o);
  if (web) {
    for (const FragmentTensor &t : f.plan.tensors)
      TIR_USER_CHECK(t.dtype == Float(32))
          << lf->name << ": tensor " << t.name << " is " << t.dtype
          << "; the webgl target stores every tensor as float32 (RGBA32F textures): cast it to float32";
  }
  f.used.assign(f.plan.tensors.size(), false);
  for (size_t p = 0; p < f.plan.passes.size(); ++p) {
    const glsl::FragmentPass &pass = f.plan.passes[p];
    TIR_USER_CHECK(pass.inputs.size() <= 16)
        << lf->name << " (pass " << p << ": " << f.plan.tensors[pass.output].name << ") reads "
        << pass.inputs.size() << " tensors; WebGL/fragment targets allow 16 textures per shader: split the stage";
    for (int t : pass.outputs) f.used[t] = true;
    for (int in : pass.inputs) f.used[in] = true;
  }
  return f;
}

class FragmentModuleNode final : public ModuleNode {
 public:
  // opengl -mode=fragment: compiled now. webgl: `exec` is null until the first call.
  FragmentModuleNode(std::shared_ptr<const FragmentProgram> program, std::unique_ptr<glsl::Executable> exec)
      : program_(std::move(program)), exec_(std::move(exec)) {
    for (const FragmentFunction &f : program_->funcs) sigs_.push_back(f.sig);
  }

  const std::vector<FuncSignature> &signatures() const override { return sigs_; }

  void invoke(size_t index, const std::vector<ArgValue> &args, const std::vector<NDArray> &buffers) const override {
    const glsl::Executable *exec;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!exec_) {
        const glsl::Runner &r = glsl::runner("webgl function '" + program_->funcs.at(index).plan.name +
                                             "' (webgl modules run in a browser: export a model with "
                                             "graph::export_web; running one here needs OpenGL)");
        exec_ = r.fragment(program_);
      }
      exec = exec_.get();
    }
    exec->invoke(index, args, buffers);
  }

  std::string source(const std::string &format) const override {
    const bool web = program_->web;
    if (format == "glsl") {
      std::string out;
      for (const FragmentFunction &f : program_->funcs) out += glsl::plan_source(f.plan);
      return out;
    }
    TIR_USER_CHECK(web && format == "webgl-json")
        << "the " << backend() << " module has source format" << (web ? "s \"glsl\" and \"webgl-json\"" : " \"glsl\"")
        << ", not \"" << format << "\"";
    json::Value out = json::Value::object();
    out.set("format", "tensorir-webgl-module");
    out.set("vertex_shader", glsl::fullscreen_vertex_shader());
    json::Value fs = json::Value::array();
    for (const FragmentFunction &f : program_->funcs) fs.push(web_json(f.plan));
    out.set("functions", std::move(fs));
    return out.dump(1);
  }

  std::string backend() const override { return program_->web ? "webgl" : "opengl -mode=fragment"; }

 private:
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

  std::shared_ptr<const FragmentProgram> program_;
  std::vector<FuncSignature> sigs_;
  mutable std::mutex mu_;  // guards exec_, made on a webgl module's first call
  mutable std::unique_ptr<glsl::Executable> exec_;
};

}  // namespace

namespace glsl {

const char *fullscreen_vertex_shader() {
  return R"(#version 300 es
void main() {
  vec2 p = vec2(float((gl_VertexID & 1) << 2) - 1.0, float((gl_VertexID & 2) << 1) - 1.0);
  gl_Position = vec4(p, 0.0, 1.0);
}
)";
}

Module build_opengl_fragment(const Schedule &s, const std::vector<BuildArg> &args, const Target &target,
                             const std::string &name) {
  // The device's texture size bounds the layouts, so building needs the runtime.
  const Runner &r = runner("building for target '" + target.str() + "'");
  const DeviceFacts facts = r.device();
  FragmentOptions o;
  o.max_texture_size = std::min(
      facts.max_texture_size,
      static_cast<int>(target.positive_option("max-texture-size", facts.max_texture_size, INT_MAX)));
  o.pack = target.option("pack", "1") == "1";  // 0 or 1: build() checked the target's options
  auto program = std::make_shared<FragmentProgram>();
  program->funcs.push_back(plan_function(stage_function(s, args, name), o, false));
  std::unique_ptr<Executable> exec = r.fragment(program);
  return Module(Ref<const ModuleNode>(new FragmentModuleNode(std::move(program), std::move(exec))));
}

Module build_webgl(const Schedule &s, const std::vector<BuildArg> &args, const Target &target,
                   const std::string &name) {
  // No OpenGL here: the plans must be made on machines without a GPU (export). build()
  // checked the options against the kind's schema (-draw-buffers is 1, 2, 4 or 8,
  // -reduce-chunk and -unroll within their bounds).
  FragmentOptions o;
  o.max_texture_size = static_cast<int>(target.positive_option("max-texture-size", kWebMaxTextureSize, INT_MAX));
  o.pack_all = true;
  o.max_phases = static_cast<int>(target.positive_option("draw-buffers", kWebDrawBuffers, 8));
  // A kernel's knobs of these names set them per kernel (ops/schedule_fragment.h).
  o.reduce_chunk = target.positive_option("reduce-chunk", glsl::kReduceChunk);
  o.max_unrolled = target.positive_option("unroll", glsl::kMaxUnrolled);
  auto program = std::make_shared<FragmentProgram>();
  program->web = true;
  program->funcs.push_back(plan_function(stage_function(s, args, name), o, true));
  return Module(Ref<const ModuleNode>(new FragmentModuleNode(std::move(program), nullptr)));
}

Module reject_lowered_fragment(const std::vector<LoweredFunc> &, const Target &target) {
  TIR_THROW() << "target '" << target.str()
              << "': the fragment target plans shaders from tensor stages: build it from a schedule, "
                 "build(s, args, target, name)";
}

}  // namespace glsl

}  // namespace tensorir
