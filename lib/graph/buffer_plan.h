// The storage of a compiled model's kernel results as a list of buffers, for the files
// that write a model out (save_model.cpp, export_wasm.cpp).
#pragma once
#include <map>
#include <utility>
#include <vector>

#include "tensorir/runtime/ndarray.h"

namespace tensorir::graph {

// Arrays whose bytes overlap are views into one memory-plan slot, so each group of
// overlapping arrays becomes one buffer (its start rounded down to 64 bytes, keeping
// each view's alignment).
struct BufferPlan {
  std::vector<size_t> bytes;
  std::map<int, std::pair<int, size_t>> place;  // node id -> (buffer, offset)
};

BufferPlan plan_buffers(const std::vector<std::pair<int, NDArray>> &arrays);

}  // namespace tensorir::graph
