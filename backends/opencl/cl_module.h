// The "opencl" backend's build function (register_opencl.cpp registers it).
#pragma once
#include <string>
#include <vector>

#include "tensorir/lower.h"
#include "tensorir/runtime/module.h"
#include "tensorir/target.h"

namespace tensorir::opencl {

// Lowered functions to a Module of one OpenCL program, built for the target's device;
// arguments are NDArrays on that Device::opencl(i). Throws tensorir::Error with the
// build log and the numbered source when the program does not build.
Module build_opencl(const std::vector<LoweredFunc> &funcs, const Target &target);

// A module Module::save(path, "gpu-json") wrote for "opencl", built for `device`
// (Device::opencl(i)); registered as the reader of that format (register_opencl.cpp).
Module load_opencl(const std::string &path, Device device);

}  // namespace tensorir::opencl
