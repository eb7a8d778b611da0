// ComputeModuleNode: each function is a host plan (temporary buffers, then kernels in
// order) over compiled GLSL compute programs; a call binds the arrays as storage buffers,
// sets the uniforms and dispatches the work groups.
#include "glsl/compute_module.h"

#include <algorithm>
#include <unordered_map>

#include "codegen/signature.h"
#include "glsl/codegen_compute.h"
#include "glsl/codegen_compute_loops.h"
#include "opengl/gl_api.h"
#include "opengl/gl_runtime.h"
#include "tensorir/arith/simplify.h"
#include "tensorir/error.h"
#include "tensorir/ir/op.h"
#include "tensorir/ir/printer.h"
#include "tensorir/ir/visitor.h"
#include "transforms/split_host_device.h"

namespace tensorir::glsl {

namespace {

struct KernelProgram {
  ComputeShader shader;
  unsigned program = 0;
  std::vector<int> buffer_sources;  // per binding: argument index, or -1 - temp index
  std::vector<int> uniform_locations;
  std::vector<size_t> uniform_sources;  // index into the packed values (arguments, then symbols)
  int group_offset_location = -1;
};

struct FuncProgram {
  std::vector<Var> values;  // the variable behind each packed value (buffers: their handles)
  std::vector<TempBuffer> temps;
  std::vector<KernelProgram> kernels;
};

// Mesa's llvmpipe ends a shader invocation's loops after this many passes in all.
constexpr int64_t kLlvmpipeLoopPasses = 65535;

ComputeLimits device_limits(opengl::GLContext &ctx, const Target &target) {
  ComputeLimits l;
  if (ctx.renderer().find("llvmpipe") != std::string::npos) {
    l.loop_limit = kLlvmpipeLoopPasses;
    l.loop_limit_why = "Mesa llvmpipe ends a shader invocation's loops after " + std::to_string(l.loop_limit) +
                       " passes";
  }
  // -loop-limit=N: a lower limit, e.g. to check long loops on a driver without one.
  if (std::string opt = target.option("loop-limit"); !opt.empty()) {
    const int64_t n = target.positive_option("loop-limit", 0);
    if (l.loop_limit == 0 || n < l.loop_limit) {
      l.loop_limit = n;
      l.loop_limit_why = "the target's -loop-limit=" + opt + " allows no more";
    }
  }
  l.max_invocations = ctx.max_work_group_invocations();
  for (int d = 0; d < 3; ++d) l.max_group_size[d] = ctx.max_work_group_size(d);
  l.max_shared_bytes = ctx.max_shared_memory_bytes();
  l.max_storage_buffers = ctx.max_compute_storage_buffers();
  l.int64 = ctx.has_extension("GL_ARB_gpu_shader_int64");
  return l;
}

int64_t evaluate(const Expr &e, const std::vector<std::pair<Var, Expr>> &values, const std::string &what) {
  Expr v = simplify(substitute(e, values));
  const int64_t *c = as_const_int(v);
  TIR_USER_CHECK(c != nullptr) << "cannot compute " << what << " (" << e << ") from the call's arguments: got " << v;
  return *c;
}

class ComputeModuleNode : public ModuleNode {
 public:
  ComputeModuleNode(std::vector<FuncSignature> sigs, std::vector<FuncProgram> funcs, ComputeLimits limits)
      : sigs_(std::move(sigs)), funcs_(std::move(funcs)), limits_(std::move(limits)) {}

  ~ComputeModuleNode() override {
    for (FuncProgram &f : funcs_)
      for (KernelProgram &k : f.kernels) opengl::delete_program(k.program);
  }

  const std::vector<FuncSignature> &signatures() const override { return sigs_; }

  void invoke(size_t index, const std::vector<ArgValue> &args, const std::vector<NDArray> &buffers) const override {
    TIR_ASSERT(index < funcs_.size()) << "function index " << index << " out of range";
    const FuncSignature &sig = sigs_[index];
    const FuncProgram &f = funcs_[index];
    TIR_ASSERT(args.size() == f.values.size()) << sig.name << " expects " << f.values.size() << " packed values, got "
                                               << args.size();
    // Scalars and shape variables by value, for the launch sizes and temporary sizes.
    std::vector<std::pair<Var, Expr>> values;
    for (size_t i = 0; i < f.values.size(); ++i) {
      const Var &v = f.values[i];
      if (v.type().is_handle()) continue;
      values.emplace_back(v, v.type().is_float() ? make_const(v.type(), args[i].f64)
                                                 : IntImmNode::make(v.type(), args[i].i64));
    }
    check_loop_limit(sig, f, values);
    opengl::GLScope scope;
    while (glGetError() != GL_NO_ERROR) {  // report only what this call causes
    }
    std::vector<NDArray> temps;
    for (const TempBuffer &t : f.temps) {
      int64_t n = evaluate(t.elements, values, "the size of buffer '" + t.handle.name() + "'");
      temps.push_back(NDArray::empty({std::max<int64_t>(n, 0)}, t.dtype, Device::opengl()));
    }
    for (const KernelProgram &k : f.kernels) launch(sig, k, args, buffers, temps, values);
    glUseProgram(0);
    // Later downloads, copies and launches see the results.
    glMemoryBarrier(GL_ALL_BARRIER_BITS);
    opengl::check_gl_error("running " + sig.name);
  }

  std::string source(const std::string &format) const override {
    TIR_USER_CHECK(format == "glsl") << "the opengl backend has no source format '" << format
                                     << "'; available formats: glsl";
    std::string out;
    for (const FuncProgram &f : funcs_)
      for (const KernelProgram &k : f.kernels) out += (out.empty() ? "" : "\n") + k.shader.source;
    return out;
  }

  std::string backend() const override { return "opengl"; }

 private:
  // Loops whose passes depend on the call's sizes are checked before anything runs.
  void check_loop_limit(const FuncSignature &sig, const FuncProgram &f,
                        const std::vector<std::pair<Var, Expr>> &values) const {
    if (limits_.loop_limit <= 0) return;
    for (const KernelProgram &k : f.kernels) {
      if (!k.shader.loop_passes.defined() || as_const_int(k.shader.loop_passes)) continue;  // constants: at build
      int64_t n = evaluate(k.shader.loop_passes, values, "the loop passes of kernel '" + k.shader.name + "'");
      TIR_USER_CHECK(compute_detail::within_loop_limit(n, limits_.loop_limit))
          << sig.name << " at these argument sizes: " << loop_limit_message(k.shader.name, n, limits_);
    }
  }

  static void launch(const FuncSignature &sig, const KernelProgram &k, const std::vector<ArgValue> &args,
                     const std::vector<NDArray> &buffers, const std::vector<NDArray> &temps,
                     const std::vector<std::pair<Var, Expr>> &values) {
    int64_t groups[3];
    for (int d = 0; d < 3; ++d) {
      groups[d] = evaluate(k.shader.group_count[d], values, "the work-group count of kernel '" + k.shader.name + "'");
      if (groups[d] <= 0) return;  // nothing to run (an empty tensor)
    }
    glUseProgram(k.program);
    for (size_t b = 0; b < k.buffer_sources.size(); ++b) {
      int src = k.buffer_sources[b];
      const NDArray &a = src >= 0 ? buffers[static_cast<size_t>(src)] : temps[static_cast<size_t>(-1 - src)];
      std::string what = src >= 0 ? sig.name + ": argument " + sig.args[static_cast<size_t>(src)].name
                                  : sig.name + ": a temporary buffer";
      glBindBufferBase(GL_SHADER_STORAGE_BUFFER, static_cast<GLuint>(b), opengl::gl_buffer(a, what).id);
    }
    for (size_t u = 0; u < k.uniform_sources.size(); ++u) {
      GLint loc = k.uniform_locations[u];
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
    for (int d = 0; d < 3; ++d) max_count[d] = opengl::GLContext::get().max_work_group_count(d);
    for (int64_t z = 0; z < groups[2]; z += max_count[2])
      for (int64_t y = 0; y < groups[1]; y += max_count[1])
        for (int64_t x = 0; x < groups[0]; x += max_count[0]) {
          if (k.group_offset_location >= 0)
            glUniform3i(k.group_offset_location, static_cast<GLint>(x), static_cast<GLint>(y), static_cast<GLint>(z));
          glDispatchCompute(static_cast<GLuint>(std::min(max_count[0], groups[0] - x)),
                            static_cast<GLuint>(std::min(max_count[1], groups[1] - y)),
                            static_cast<GLuint>(std::min(max_count[2], groups[2] - z)));
        }
    // The next kernel reads what this one wrote.
    glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
    opengl::check_gl_error("launching kernel '" + k.shader.name + "'");
  }

  std::vector<FuncSignature> sigs_;
  std::vector<FuncProgram> funcs_;
  ComputeLimits limits_;
};

// Where each buffer and uniform of a kernel comes from at call time.
void link_sources(const LoweredFunc &f, const FuncProgram &fp, KernelProgram &k) {
  for (const Var &b : k.shader.buffers) {
    int src = 0;
    bool found = false;
    for (size_t i = 0; i < f->args.size() && !found; ++i)
      if (f->args[i].is_buffer && f->args[i].var.same_as(b)) src = static_cast<int>(i), found = true;
    for (size_t t = 0; t < fp.temps.size() && !found; ++t)
      if (fp.temps[t].handle.same_as(b)) src = -1 - static_cast<int>(t), found = true;
    TIR_ASSERT(found) << "kernel '" << k.shader.name << "' uses buffer '" << b.name() << "' of no argument";
    k.buffer_sources.push_back(src);
  }
  for (const Var &u : k.shader.uniforms) {
    auto it = std::find_if(fp.values.begin(), fp.values.end(), [&](const Var &v) { return v.same_as(u); });
    TIR_USER_CHECK(it != fp.values.end())
        << "function '" << f->name << "': kernel '" << k.shader.name << "' uses the variable '" << u.name()
        << "', which is neither an argument nor a shape variable; pass it in the argument list of build()";
    k.uniform_sources.push_back(static_cast<size_t>(it - fp.values.begin()));
  }
}

FuncProgram build_function(const LoweredFunc &f, const ComputeLimits &limits) {
  FuncProgram fp;
  for (const LoweredArg &a : f->args) fp.values.push_back(a.var);
  for (const Var &s : f->symbols) fp.values.push_back(s);
  HostPlan plan = split_host_device(f);
  fp.temps = plan.temps;
  std::unordered_map<const VarNode *, Type> types;
  for (const LoweredArg &a : f->args)
    if (a.is_buffer) types[a.var.get()] = a.dtype;
  for (const TempBuffer &t : plan.temps) types[t.handle.get()] = t.dtype;
  for (const DeviceKernel &dk : plan.kernels) {
    KernelProgram k;
    k.shader = codegen_compute(dk, types, limits);
    link_sources(f, fp, k);
    fp.kernels.push_back(std::move(k));
  }
  // Compiled last, so that a code generation error leaks no program.
  opengl::GLScope scope;
  try {
    for (KernelProgram &k : fp.kernels) {
      k.program = opengl::compile_compute_program(k.shader.source, k.shader.name);
      for (const std::string &name : k.shader.uniform_names)
        k.uniform_locations.push_back(glGetUniformLocation(k.program, name.c_str()));
      if (!k.shader.group_offset_uniform.empty())
        k.group_offset_location = glGetUniformLocation(k.program, k.shader.group_offset_uniform.c_str());
    }
  } catch (...) {
    for (KernelProgram &k : fp.kernels) opengl::delete_program(k.program);
    throw;
  }
  return fp;
}

}  // namespace

Module build_opengl_compute(const std::vector<LoweredFunc> &funcs, const Target &target) {
  TIR_USER_CHECK(target.kind == "opengl") << "the opengl backend was asked to build for target '" << target.kind << "'";
  ComputeLimits limits = device_limits(opengl::GLContext::get(), target);
  std::vector<FuncSignature> sigs;
  std::vector<FuncProgram> programs;
  auto release = [&] {
    for (FuncProgram &f : programs)
      for (KernelProgram &k : f.kernels) opengl::delete_program(k.program);
  };
  try {
    for (const LoweredFunc &f : funcs) {
      TIR_USER_CHECK(f.defined()) << "build() got an undefined LoweredFunc";
      sigs.push_back(make_signature(f, Device::OpenGL));
      programs.push_back(build_function(f, limits));
    }
  } catch (...) {
    release();
    throw;
  }
  return Module(Ref<const ModuleNode>(new ComputeModuleNode(std::move(sigs), std::move(programs), limits)));
}

}  // namespace tensorir::glsl
