// Loop passes per shader invocation. Mesa's llvmpipe ends every loop of an invocation
// once the invocation has run 65535 loop passes in all (each pass through any loop
// counts, the last test that leaves a loop too) and carries on with wrong values,
// without an error. This counts the passes of a kernel and, under a limit, plans which
// loops to print with several copies of their body per pass so that fewer passes run.
#pragma once
#include <cstdint>
#include <unordered_map>

#include "backends/glsl/compute/codegen_compute_scan.h"

namespace tensorir::glsl::compute_detail {

struct LoopPlan {
  // Loops printed with this many copies of their body per pass (constant extents only;
  // absent: 1). When the extent is at most twice the copies, the loop is unrolled whole.
  std::unordered_map<const ForNode *, int64_t> copies;
  // Loop passes per invocation with those copies, at most: an Int(64) expression in the
  // kernel's scalars (constant when every extent is); undefined when unbounded.
  Expr passes;
};

// Whether `passes` stay within `limit` (<= 0: none). The last pass of all may be the one
// the limit stops: when it is the test that leaves the last loop, nothing is lost.
inline bool within_loop_limit(int64_t passes, int64_t limit) { return limit <= 0 || passes <= limit + 1; }

// At most this many copies of one statement, counted over all enclosing unrolled loops.
constexpr int64_t kMaxLoopCopies = 64;

// `limit` <= 0: no limit (nothing is unrolled). Otherwise, when the passes are a constant
// above `limit`, unrolls loops until they are not, or until no loop can be unrolled
// within kMaxLoopCopies (then `passes` stays above `limit`: the caller reports it).
LoopPlan plan_loops(const DeviceKernel &k, const LaunchShape &shape, int64_t limit);

}  // namespace tensorir::glsl::compute_detail
