// What the compute code generator learns about a kernel before printing it: the launch
// shape, the variables it needs from outside, and vector expressions lane by lane.
#pragma once
#include <vector>

#include "backends/glsl/compute/codegen_compute.h"

namespace tensorir::glsl::compute_detail {

// 0..2 for blockIdx.x/y/z, 3..5 for threadIdx.x/y/z, -1 for anything else.
int thread_slot(const std::string &tag);
// The thread_extent attributes inside the kernel body (below the leading ones).
std::vector<const AttrStmtNode *> inner_thread_attrs(const Stmt &body);

struct LaunchShape {
  Expr groups[3];         // work groups per axis
  int local[3] = {1, 1, 1};
  bool uses_blocks = false;
};
// Work-group sizes must be constants; throws tensorir::Error otherwise or past `limits`.
LaunchShape launch_shape(const DeviceKernel &k, const ComputeLimits &limits);

// How a thread_extent inside the body is printed: as the index itself (its extent is
// the launch's), as a guard (fewer iterations than indices: the rest skip it), or as a
// loop in which each index takes every n-th iteration.
enum class ThreadLoop { Alias, Guard, Strided };
ThreadLoop thread_loop_kind(const AttrStmtNode *a, const LaunchShape &shape);

// Variables used but not defined inside the kernel (thread indices count as defined):
// buffer handles and scalars, in first-use order. Thread extents count as uses.
struct KernelInputs {
  std::vector<Var> buffers, scalars;
};
KernelInputs kernel_inputs(const DeviceKernel &k);

// Lane `lane` of an expression of vector type (scalars are returned as they are).
// Throws tensorir::Error for vectors it cannot split (vector variables).
Expr lane_of(const Expr &e, int lane);

}  // namespace tensorir::glsl::compute_detail
