// Storage planning for a Graph's intermediate tensors.
//
// Running a graph one node at a time, a node's output is live from the step that
// produces it to the last step that reads it. Tensors whose lifetimes do not overlap can
// share one storage slot, so the intermediates need far less memory than one buffer each:
//
//   graph::MemoryPlan plan = graph::plan_memory(g, g.topological_order());
//   graph::verify_memory_plan(g, g.topological_order(), plan);
//   std::cout << plan.str();
//
// Graph inputs, constants and the graph's output are kept out of the plan (slot -1): the
// caller owns them, and sharing them would let a kernel overwrite a parameter or the
// result.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "tensorir/graph/graph.h"

namespace tensorir::graph {

struct MemoryPlan {
  // Per node id: the storage slot holding its output, or -1 for inputs, constants and the
  // graph's output, which get storage of their own.
  std::vector<int> storage_of;
  // Per slot: its size in bytes (a multiple of the alignment).
  std::vector<size_t> slot_bytes;
  // Sum of slot_bytes: the memory the plan needs for all intermediates.
  size_t peak_bytes = 0;
  // Sum of every intermediate's size, rounded up to the alignment (one buffer each).
  size_t naive_bytes = 0;

  // "memory plan: 3 slots, 1.50 MB (naive 4.00 MB, 37.5%)" and one line per slot.
  std::string str() const;
};

// Assigns every intermediate of `g` a slot, reusing slots whose tensors are dead: each
// new tensor takes the smallest free slot that fits it, else the largest free slot grown
// to fit, else a new slot. `execution_order` lists node ids in the order they run (inputs
// and constants may be left out); empty means g.topological_order(). Throws an Error
// naming the node when the order repeats a node, misses an operator node, or runs a node
// before one of its inputs. Sizes are rounded up to `alignment` bytes (a power of two).
MemoryPlan plan_memory(const Graph &g, const std::vector<int> &execution_order = {}, size_t alignment = 64);

// The same slot assignment for tensors described directly, e.g. the results of fused
// kernels: tensor i has `bytes[i]` bytes, is written at step `first[i]` and last read at
// step `last[i]` (>= first[i]); first[i] < 0 keeps it out of the plan (slot -1).
// Tensors written at one step take slots in index order; a slot is free again after the
// step of its tensor's last read. storage_of is indexed by tensor.
MemoryPlan plan_memory(const std::vector<size_t> &bytes, const std::vector<int> &first,
                       const std::vector<int> &last, size_t alignment = 64);

// Checks `plan` against `g` run in `execution_order` (empty: topological): intermediates
// have a slot, inputs/constants/the output have none, no two tensors live at the same
// time share a slot, and no slot is smaller than a tensor it holds. Throws an Error
// naming the nodes and slot involved.
void verify_memory_plan(const Graph &g, const std::vector<int> &execution_order, const MemoryPlan &plan);

}  // namespace tensorir::graph
