// What the thread pool tells about itself beyond the public API (tests and diagnostics).
#pragma once

#include <cstdint>

namespace tensorir::runtime {

// Since the process started: how often a pool worker began its chunk on the CPU of a
// thread it works beside (its caller or a lower-numbered worker), and how often it then
// moved to another CPU (a worker moves at most once per 10 ms).
struct PoolPlacementCounts {
  int64_t shared = 0;
  int64_t moved = 0;
};
PoolPlacementCounts pool_placement_counts();

}  // namespace tensorir::runtime
