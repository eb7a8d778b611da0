// For GPU targets: a lowered function becomes a host plan (temporary buffers, then
// kernels launched in order) and device kernels, each the body under its thread indices.
#pragma once
#include <string>
#include <vector>

#include "tensorir/lower.h"

namespace tensorir {

struct ThreadExtent {
  std::string tag;  // "blockIdx.x", "threadIdx.y", ...
  Var var;          // the index variable the kernel body uses (one per tag)
  Expr extent;      // threadIdx extents are constants; blockIdx extents may use symbols
};

struct DeviceKernel {
  std::string name;                   // function name + "_kernel" + index
  Stmt body;                          // below the thread extents; uses the thread vars
  std::vector<ThreadExtent> threads;  // one per tag used, in first-use order
  std::vector<Var> buffers;           // buffer handles the body reads or writes, first-use order
  std::vector<Var> scalars;           // scalar arguments and shape symbols the body uses
};

struct TempBuffer {
  Var handle;
  Type dtype;
  Expr elements;  // may use shape symbols
};

struct HostPlan {
  std::vector<TempBuffer> temps;  // global intermediates the host allocates per call
  std::vector<DeviceKernel> kernels;
};

// Throws tensorir::Error naming the stage's loop when code runs outside any bound
// thread index (a GPU kernel needs at least one bound axis), except code that only
// writes buffers of one element (a 0-d result), which runs as a kernel of one invocation.
HostPlan split_host_device(const LoweredFunc &f);

}  // namespace tensorir
