// Runs one test body on several targets: build a schedule for a target string, move the
// host arguments to that target's device, call, and bring every array back to the host.
//
//   const std::string target = GENERATE(as<std::string>{}, "llvm", "opengl", "opencl");
//   Program p = make();                               // a fresh schedule per target
//   auto out = run_on_target(target, p.schedule, p.args, "f", {a, b, NDArray::empty(...)});
//   check_close<float>(out[2], ref, tolerance_for<float>(target));
//
// Schedules are built fresh for each target: building for "opengl" or "opencl" applies the
// default GPU schedule to stages that bind no loop, which changes the schedule.
#pragma once
#include <string>
#include <vector>

#include "correctness/reference.h"

namespace tensorir::testing {

// Where arrays live for `target`.
inline Device device_for(const std::string &target) {
  return Device{Target(target).caps().device, 0};
}

// The arguments after the call, with every NDArray copied back to the host (scalars as
// they were passed).
inline std::vector<NDArray> call_on_target(const Module &m, const std::string &target, const std::string &name,
                                           const std::vector<Arg> &host_args) {
  Device dev = device_for(target);
  std::vector<Arg> args;
  for (const Arg &a : host_args) {
    const NDArray *nd = std::get_if<NDArray>(&a);
    args.push_back(nd ? Arg(nd->to(dev)) : a);
  }
  m(name).call(args);
  std::vector<NDArray> out;
  for (const Arg &a : args) {
    const NDArray *nd = std::get_if<NDArray>(&a);
    out.push_back(nd ? nd->to(Device::cpu()) : NDArray());
  }
  return out;
}

inline std::vector<NDArray> run_on_target(const std::string &target, const Schedule &s,
                                          const std::vector<BuildArg> &args, const std::string &name,
                                          const std::vector<Arg> &host_args) {
  Module m = build(s, args, target, name);
  return call_on_target(m, target, name, host_args);
}

// Float results on a GPU may differ from the CPU's by a few ulp more (other math
// library, fused operations).
template <typename T>
Tolerance tolerance_for(const std::string &target) {
  Tolerance t = default_tolerance<T>();
  if (!device_for(target).is_cpu() && std::is_floating_point_v<T>) {
    t.atol *= 4;
    t.rtol *= 4;
  }
  return t;
}

}  // namespace tensorir::testing
