// The "opencl" backend: lowered functions in, one OpenCL program of their kernels out.
// Each function is a host plan (temporary buffers, then kernels in order) as for
// "opengl" compute (glsl/compute/compute_module.h); the kernels are printed in OpenCL C.
#include <algorithm>
#include <memory>
#include <mutex>
#include <set>
#include <sstream>

#include "backends/glsl/common/glsl_helpers.h"
#include "backends/glsl/compute/compute_json.h"
#include "backends/glsl/compute/compute_module.h"
#include "backends/opencl/cl_module.h"
#include "backends/opencl/cl_runtime.h"
#include "backends/opencl/cl_target.h"
#include "codegen/signature.h"
#include "tensorir/error.h"

namespace tensorir::opencl {

namespace {

using glsl::ComputeFunction;
using glsl::ComputeKernel;

std::string numbered(const std::string &source) {
  std::istringstream in(source);
  std::ostringstream out;
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) out << (n < 10 ? "   " : n < 100 ? "  " : n < 1000 ? " " : "") << n
                                                   << "  " << line << "\n";
  return out.str();
}

// The program: helpers once, then every kernel of every function.
std::string program_source(const std::vector<ComputeFunction> &funcs) {
  std::set<std::string> helpers;
  bool float64 = false;
  std::string kernels;
  for (const ComputeFunction &f : funcs)
    for (const ComputeKernel &k : f.kernels) {
      helpers.insert(k.shader.helpers.begin(), k.shader.helpers.end());
      float64 = float64 || k.shader.float64;
      kernels += "\n" + k.shader.source;
    }
  std::string src = float64 ? "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n" : "";
  return src + glsl::glsl_helper_sources(helpers, glsl::Dialect::OpenCL) + kernels;
}

std::string build_log(cl_program p, cl_device_id d) {
  size_t n = 0;
  clGetProgramBuildInfo(p, d, CL_PROGRAM_BUILD_LOG, 0, nullptr, &n);
  std::string log(n, '\0');
  if (n) clGetProgramBuildInfo(p, d, CL_PROGRAM_BUILD_LOG, n, log.data(), nullptr);
  log.resize(std::char_traits<char>::length(log.c_str()));
  return log;
}

class OpenCLModuleNode final : public ModuleNode {
 public:
  OpenCLModuleNode(std::vector<FuncSignature> sigs, std::vector<ComputeFunction> funcs, int device)
      : sigs_(std::move(sigs)), funcs_(std::move(funcs)), device_(device), source_(program_source(funcs_)) {
    const Context &c = context(device_);
    const char *text = source_.c_str();
    cl_int err = CL_SUCCESS;
    program_ = clCreateProgramWithSource(c.context, 1, &text, nullptr, &err);
    check(err, "clCreateProgramWithSource");
    err = clBuildProgram(program_, 1, &c.info->id, "", nullptr, nullptr);
    if (err != CL_SUCCESS) {
      std::string log = build_log(program_, c.info->id);
      release();
      TIR_THROW() << "the OpenCL program of " << sigs_.front().name << " does not build on '" << c.info->name
                  << "' (" << error_name(err) << "):\n"
                  << log << "\nsource:\n"
                  << numbered(source_);
    }
    temps_.resize(funcs_.size());
    for (const ComputeFunction &f : funcs_) {
      kernels_.emplace_back();
      for (const ComputeKernel &k : f.kernels) {
        cl_kernel kernel = clCreateKernel(program_, k.shader.name.c_str(), &err);
        if (err != CL_SUCCESS) release();
        check(err, "clCreateKernel(" + k.shader.name + ")");
        kernels_.back().push_back(kernel);
      }
    }
  }
  ~OpenCLModuleNode() override { release(); }

  const std::vector<FuncSignature> &signatures() const override { return sigs_; }

  void invoke(size_t index, const std::vector<ArgValue> &args, const std::vector<NDArray> &buffers) const override {
    TIR_ASSERT(index < funcs_.size()) << "function index " << index << " out of range";
    const FuncSignature &sig = sigs_[index];
    const ComputeFunction &f = funcs_[index];
    const glsl::ScalarValues values = glsl::scalar_values(f, args);
    const Context &c = context(device_);
    std::lock_guard<std::mutex> lock(mutex_);  // kernel arguments are state of the cl_kernel
    // Temporaries (a convolution's padded data) are kept for the next call of the same
    // sizes: allocating and clearing them each time costs as much as a small kernel.
    std::vector<NDArray> &temps = temps_[index];
    temps.resize(f.temps.size());
    for (size_t i = 0; i < f.temps.size(); ++i) {
      const TempBuffer &t = f.temps[i];
      const int64_t n = std::max<int64_t>(
          glsl::evaluate_size(t.elements, values, "the size of buffer '" + t.handle.name() + "'"), 0);
      if (!temps[i].defined() || temps[i].numel() != n) temps[i] = NDArray::empty({n}, t.dtype, Device::opencl(device_));
    }
    for (size_t k = 0; k < f.kernels.size(); ++k)
      launch(c, sig, f.kernels[k], kernels_[index][k], args, buffers, temps, values);
    // Finished before the next call may reuse the temporaries; this also makes the call's
    // time the kernels' time.
    check(clFinish(c.queue), "running " + sig.name);
  }

  std::string source(const std::string &format) const override {
    TIR_USER_CHECK(format == "cl") << "the opencl backend has no source format '" << format
                                   << "'; available formats: cl";
    return source_;
  }

  std::string backend() const override { return "opencl"; }

  void save(const std::string &path, const std::string &format) const override {
    glsl::save_gpu_json(path, format, backend(), sigs_, funcs_);
  }

 private:
  void launch(const Context &c, const FuncSignature &sig, const ComputeKernel &k, cl_kernel kernel,
              const std::vector<ArgValue> &args, const std::vector<NDArray> &buffers,
              const std::vector<NDArray> &temps, const glsl::ScalarValues &values) const {
    size_t global[3], local[3];
    for (int d = 0; d < 3; ++d) {
      int64_t groups =
          glsl::evaluate_size(k.shader.group_count[d], values, "the work-group count of kernel '" + k.shader.name + "'");
      if (groups <= 0) return;  // nothing to run (an empty tensor)
      local[d] = static_cast<size_t>(k.shader.local_size[d]);
      global[d] = static_cast<size_t>(groups) * local[d];
    }
    cl_uint arg = 0;
    const std::string what = "setting the arguments of kernel '" + k.shader.name + "'";
    for (int src : k.buffer_sources) {
      const NDArray &a = src >= 0 ? buffers[static_cast<size_t>(src)] : temps[static_cast<size_t>(-1 - src)];
      std::string name = src >= 0 ? sig.name + ": argument " + sig.args[static_cast<size_t>(src)].name
                                  : sig.name + ": a temporary buffer";
      cl_mem mem = buffer(a, device_, name).mem;
      check(clSetKernelArg(kernel, arg++, sizeof mem, &mem), what);
    }
    for (size_t u = 0; u < k.uniform_sources.size(); ++u)
      set_scalar(kernel, arg++, k.shader.uniforms[u].type(), args[k.uniform_sources[u]], what);
    check(clEnqueueNDRangeKernel(c.queue, kernel, 3, nullptr, global, local, 0, nullptr, nullptr),
          "launching kernel '" + k.shader.name + "' (" + std::to_string(global[0] / local[0]) + " x " +
              std::to_string(global[1] / local[1]) + " x " + std::to_string(global[2] / local[2]) + " work-groups)");
  }

  // Scalars as the kernel declares them: narrow integers in int registers.
  static void set_scalar(cl_kernel kernel, cl_uint i, Type t, const ArgValue &v, const std::string &what) {
    if (t.is_float() && t.bits() == 64) {
      cl_double x = v.f64;
      check(clSetKernelArg(kernel, i, sizeof x, &x), what);
    } else if (t.is_float()) {
      cl_float x = static_cast<cl_float>(v.f64);
      check(clSetKernelArg(kernel, i, sizeof x, &x), what);
    } else if (t.bits() == 64) {
      cl_long x = v.i64;
      check(clSetKernelArg(kernel, i, sizeof x, &x), what);
    } else if (t.is_bool()) {
      cl_uchar x = v.i64 != 0;
      check(clSetKernelArg(kernel, i, sizeof x, &x), what);
    } else {
      cl_int x = static_cast<cl_int>(v.i64);
      check(clSetKernelArg(kernel, i, sizeof x, &x), what);
    }
  }

  void release() noexcept {
    for (auto &f : kernels_)
      for (cl_kernel k : f) clReleaseKernel(k);
    kernels_.clear();
    if (program_) clReleaseProgram(program_);
    program_ = nullptr;
  }

  std::vector<FuncSignature> sigs_;
  std::vector<ComputeFunction> funcs_;
  int device_;
  std::string source_;
  cl_program program_ = nullptr;
  std::vector<std::vector<cl_kernel>> kernels_;  // per function, per kernel
  mutable std::vector<std::vector<NDArray>> temps_;  // per function, the last call's temporaries
  mutable std::mutex mutex_;
};

}  // namespace

Module build_opencl(const std::vector<LoweredFunc> &funcs, const Target &target) {
  TIR_USER_CHECK(target.kind == "opencl") << "the opencl backend was asked to build for target '" << target.kind << "'";
  // The device's limits shape the kernels, so building needs the runtime and a device.
  const int device = device_index(target);
  const glsl::ComputeLimits limits = compute_limits(target);
  std::vector<FuncSignature> sigs;
  std::vector<ComputeFunction> programs;
  for (const LoweredFunc &f : funcs) {
    TIR_USER_CHECK(f.defined()) << "build() got an undefined LoweredFunc";
    FuncSignature sig = make_signature(f, Device::OpenCL);
    sigs.push_back(sig);
    programs.push_back(glsl::build_compute_function(f, limits));
  }
  TIR_USER_CHECK(!sigs.empty()) << "build() for target '" << target.str() << "' got no functions";
  return Module(Ref<const ModuleNode>(new OpenCLModuleNode(std::move(sigs), std::move(programs), device)));
}

Module load_opencl(const std::string &path, Device device) {
  TIR_USER_CHECK(device.kind == Device::OpenCL) << "Module::load(\"" << path << "\"): an \"opencl\" module runs on an "
                                                << "OpenCL device (Device::opencl(i)), not " << device;
  glsl::GpuJsonModule m = glsl::read_gpu_json(path, "opencl", Device::OpenCL);
  glsl::check_gpu_json_limits(path, m, compute_limits(Target("opencl -device=" + std::to_string(device.id))));
  return Module(Ref<const ModuleNode>(new OpenCLModuleNode(std::move(m.sigs), std::move(m.funcs), device.id)));
}

}  // namespace tensorir::opencl
