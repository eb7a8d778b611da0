// Building candidates on worker threads, their arguments, and the correctness check.
#include "autotune/measure.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <sstream>
#include <thread>

#include "tensorir/autotune/tuner.h"
#include "tensorir/build.h"
#include "tensorir/error.h"

namespace tensorir::autotune {

namespace {

BuiltCandidate build_one(const Task &task, int64_t index, double timeout_s) {
  BuiltCandidate c;
  c.index = index;
  const auto t0 = std::chrono::steady_clock::now();
  try {
    Instance inst = task.instantiate(index);
    c.module = build(inst.schedule, inst.args, build_target(task, inst), inst.name);
    c.function = inst.name;
  } catch (const std::exception &e) {
    c.error = std::string("build error: ") + e.what();
  }
  c.build_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (c.error.empty() && timeout_s > 0 && c.build_s > timeout_s) {
    std::ostringstream os;
    os << "build timeout: " << c.build_s << " s, over the " << timeout_s << " s limit";
    c.error = os.str();
    c.module = Module();
  }
  return c;
}

}  // namespace

std::vector<BuiltCandidate> build_candidates(const Task &task, const std::vector<int64_t> &indices,
                                             int threads, double timeout_s) {
  std::vector<BuiltCandidate> out(indices.size());
  if (threads <= 0) threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  if (task.target.caps().device != Device::CPU) threads = 1;
  for_each_index(indices.size(), threads, [&](size_t i) { out[i] = build_one(task, indices[i], timeout_s); });
  return out;
}

const FuncSignature &signature_of(const Module &module, const std::string &function) {
  const std::vector<FuncSignature> &sigs = module.node()->signatures();
  auto it = std::find_if(sigs.begin(), sigs.end(), [&](const FuncSignature &s) { return s.name == function; });
  TIR_USER_CHECK(it != sigs.end()) << "tuning: the built module has no function '" << function
                                   << "'; Instance::name must name the kernel";
  return *it;
}

std::vector<NDArray> make_arguments(const FuncSignature &sig, uint64_t seed) {
  std::vector<NDArray> args;
  for (const ArgSpec &a : sig.args) {
    TIR_USER_CHECK(a.is_buffer()) << "tuning kernel '" << sig.name << "': argument '" << a.name
                                  << "' is a scalar; a task's kernel must take only tensors of fixed shapes";
    std::vector<int64_t> shape;
    for (const DimSpec &d : a.shape) {
      TIR_USER_CHECK(d.symbol < 0) << "tuning kernel '" << sig.name << "': argument '" << a.name
                                   << "' has a symbolic shape; a task's shapes must be fixed";
      shape.push_back(d.offset);
    }
    args.push_back(NDArray::random(shape, a.dtype, seed + args.size()));
  }
  return args;
}

std::vector<NDArray> reference_outputs(const Module &module, const std::string &function,
                                       const std::vector<NDArray> &args) {
  const Device dev{signature_of(module, function).device, 0};
  std::vector<Arg> call_args;
  std::vector<NDArray> on_device;
  for (const NDArray &a : args) on_device.push_back(a.to(dev));
  for (const NDArray &a : on_device) call_args.emplace_back(a);
  module(function).call(call_args);
  std::vector<NDArray> out;
  for (const NDArray &a : on_device) out.push_back(a.to(Device::cpu()));
  return out;
}

std::vector<NDArray> Runner::outputs(const Module &module, const std::string &function,
                                     const std::vector<NDArray> &args) {
  return reference_outputs(module, function, args);
}

namespace {

template <typename T>
std::string compare_floats(const NDArray &got, const NDArray &want, size_t which) {
  const T *g = static_cast<const T *>(got.data());
  const T *w = static_cast<const T *>(want.data());
  for (int64_t i = 0; i < want.numel(); ++i) {
    const double a = g[i], b = w[i];
    if (std::isnan(b) ? !std::isnan(a) : !(std::fabs(a - b) <= 1e-3 * (1 + std::fabs(b)))) {
      std::ostringstream os;
      os << "wrong result: argument " << which << " element " << i << " is " << a << ", the reference "
         << "configuration gives " << b;
      return os.str();
    }
  }
  return "";
}

}  // namespace

std::string check_outputs(const std::vector<NDArray> &got, const std::vector<NDArray> &expected) {
  if (got.size() != expected.size()) return "wrong result: a different number of arguments";
  for (size_t k = 0; k < got.size(); ++k) {
    const NDArray &g = got[k], &w = expected[k];
    if (g.shape() != w.shape() || g.dtype() != w.dtype())
      return "wrong result: argument " + std::to_string(k) + " has another shape or type";
    std::string err;
    if (w.dtype() == Float(32)) err = compare_floats<float>(g, w, k);
    else if (w.dtype() == Float(64)) err = compare_floats<double>(g, w, k);
    else if (std::memcmp(g.data(), w.data(), w.nbytes()) != 0)
      err = "wrong result: argument " + std::to_string(k) + " differs from the reference configuration's";
    if (!err.empty()) return err;
  }
  return "";
}

}  // namespace tensorir::autotune
