// The compute module: each function is a host plan (temporary buffers, then kernels in
// order) over GLSL compute shaders; the OpenGL runtime binds the arrays as storage
// buffers, sets the uniforms and dispatches the work groups (opengl/gl_compute_runner.cpp).
#include "backends/glsl/compute/compute_module.h"

#include <algorithm>
#include <memory>
#include <unordered_map>

#include "backends/glsl/common/glsl_runner.h"
#include "backends/glsl/compute/codegen_compute_loops.h"
#include "backends/glsl/compute/compute_json.h"
#include "runtime/module_loaders.h"
#include "runtime/time_calls.h"
#include "tensorir/arith/simplify.h"
#include "tensorir/error.h"
#include "tensorir/ir/op.h"
#include "tensorir/ir/printer.h"
#include "tensorir/ir/visitor.h"
#include "transforms/split_host_device.h"

namespace tensorir::glsl {

namespace {

class ComputeModuleNode : public ModuleNode {
 public:
  ComputeModuleNode(std::shared_ptr<const ComputeProgram> program, std::unique_ptr<Executable> exec)
      : program_(std::move(program)), exec_(std::move(exec)) {}

  const std::vector<FuncSignature> &signatures() const override { return program_->sigs; }

  void invoke(size_t index, const std::vector<ArgValue> &args, const std::vector<NDArray> &buffers) const override {
    TIR_ASSERT(index < program_->funcs.size()) << "function index " << index << " out of range";
    exec_->invoke(index, args, buffers);
  }

  // The clock stops once the GPU has run the calls, not when they are queued.
  std::vector<double> time(size_t index, const std::vector<ArgValue> &args, const std::vector<NDArray> &buffers,
                           const TimeOptions &options) const override {
    return runtime::time_calls(
        [&] {
          invoke(index, args, buffers);
          exec_->finish();
        },
        options);
  }

  std::string source(const std::string &format) const override {
    TIR_USER_CHECK(format == "glsl") << "the opengl backend has no source format '" << format
                                     << "'; available formats: glsl";
    std::string out;
    for (const ComputeFunction &f : program_->funcs)
      for (const ComputeKernel &k : f.kernels) out += (out.empty() ? "" : "\n") + k.shader.source;
    return out;
  }

  std::string backend() const override { return "opengl"; }

  void save(const std::string &path, const std::string &format) const override {
    save_gpu_json(path, format, backend(), program_->sigs, program_->funcs);
  }

 private:
  std::shared_ptr<const ComputeProgram> program_;
  std::unique_ptr<Executable> exec_;
};

// Where each buffer and uniform of a kernel comes from at call time.
void link_sources(const LoweredFunc &f, const ComputeFunction &fp, ComputeKernel &k) {
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

// The program's shaders compiled by the runtime, as a Module.
Module compiled(std::shared_ptr<const ComputeProgram> program, const Runner &r) {
  std::unique_ptr<Executable> exec = r.compute(program);
  return Module(Ref<const ModuleNode>(new ComputeModuleNode(std::move(program), std::move(exec))));
}

}  // namespace

ComputeFunction build_compute_function(const LoweredFunc &f, const ComputeLimits &limits) {
  ComputeFunction fp;
  for (const LoweredArg &a : f->args) fp.values.push_back(a.var);
  for (const Var &s : f->symbols) fp.values.push_back(s);
  HostPlan plan = split_host_device(f);
  fp.temps = plan.temps;
  std::unordered_map<const VarNode *, Type> types;
  for (const LoweredArg &a : f->args)
    if (a.is_buffer) types[a.var.get()] = a.dtype;
  for (const TempBuffer &t : plan.temps) types[t.handle.get()] = t.dtype;
  for (const DeviceKernel &dk : plan.kernels) {
    ComputeKernel k;
    k.shader = codegen_compute(dk, types, limits);
    link_sources(f, fp, k);
    fp.kernels.push_back(std::move(k));
  }
  return fp;
}

ScalarValues scalar_values(const ComputeFunction &f, const std::vector<ArgValue> &args) {
  TIR_ASSERT(args.size() == f.values.size()) << "expected " << f.values.size() << " packed values, got " << args.size();
  ScalarValues values;
  for (size_t i = 0; i < f.values.size(); ++i) {
    const Var &v = f.values[i];
    if (v.type().is_handle()) continue;
    values.emplace_back(v, v.type().is_float() ? make_const(v.type(), args[i].f64) : IntImmNode::make(v.type(), args[i].i64));
  }
  return values;
}

int64_t evaluate_size(const Expr &e, const ScalarValues &values, const std::string &what) {
  Expr v = simplify(substitute(e, values));
  const int64_t *c = as_const_int(v);
  TIR_USER_CHECK(c != nullptr) << "cannot compute " << what << " (" << e << ") from the call's arguments: got " << v;
  return *c;
}

ComputeLimits compute_limits(const DeviceFacts &facts, const Target &target) {
  ComputeLimits l;
  if (facts.llvmpipe()) {
    l.loop_limit = 65535;
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
  l.max_invocations = facts.max_work_group_invocations;
  for (int d = 0; d < 3; ++d) l.max_group_size[d] = facts.max_work_group_size[d];
  l.max_shared_bytes = facts.max_shared_memory_bytes;
  l.max_storage_buffers = facts.max_compute_storage_buffers;
  l.int64 = facts.int64;
  return l;
}

Module build_opengl_compute(const std::vector<LoweredFunc> &funcs, const Target &target) {
  TIR_USER_CHECK(target.kind == "opengl") << "the opengl backend was asked to build for target '" << target.kind << "'";
  // The device's limits shape the shaders, so building needs the runtime (and a context).
  const Runner &r = runner("building for target '" + target.str() + "'");
  auto program = std::make_shared<ComputeProgram>();
  program->limits = compute_limits(r.device(), target);
  for (const LoweredFunc &f : funcs) {
    TIR_USER_CHECK(f.defined()) << "build() got an undefined LoweredFunc";
    program->sigs.push_back(make_signature(f, Device::OpenGL));
    program->funcs.push_back(build_compute_function(f, program->limits));
  }
  return compiled(std::move(program), r);
}

namespace {

// A gpu-json file of an "opengl" module (compute_json.h), compiled on this context.
Module load_opengl_compute(const std::string &path, Device device) {
  TIR_USER_CHECK(device == Device::opengl()) << "Module::load(\"" << path << "\"): an \"opengl\" module runs on "
                                             << Device::opengl() << ", not " << device;
  const Runner &r = runner("loading " + path);
  GpuJsonModule m = read_gpu_json(path, "opengl", Device::OpenGL);
  auto program = std::make_shared<ComputeProgram>();
  program->limits = compute_limits(r.device(), Target("opengl"));
  check_gpu_json_limits(path, m, program->limits);
  program->sigs = std::move(m.sigs);
  program->funcs = std::move(m.funcs);
  return compiled(std::move(program), r);
}

const bool registered = [] {
  runtime::register_module_loader(kGpuJsonFormat, Device::OpenGL, load_opengl_compute);
  return true;
}();

}  // namespace

}  // namespace tensorir::glsl
