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
// Graph inputs, constants and the graph's outputs are kept out of the plan (slot -1): the
// caller owns them, and sharing them would let a kernel overwrite a parameter or a
// result.
//
// graph::build turns the slot assignment over its kernels into a StoragePlan (below): the
// one description of where every value of a compiled model lives, which the executor
// allocates and the saved model (model.json) and the wasm web package write out.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "tensorir/graph/graph.h"

namespace tensorir::graph {

// The bytes of a node's value: dtype bytes x lanes x elements. Every planner and writer
// of storage sizes values with this one function.
size_t node_bytes(const Node &n);

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
// step of its tensor's last read. storage_of is indexed by tensor. `in_place` (empty, or
// one entry per tensor) names for tensor i a tensor j, or -1: where j is last read at
// the step that writes i and has the same size, i takes j's slot (computed in place).
MemoryPlan plan_memory(const std::vector<size_t> &bytes, const std::vector<int> &first,
                       const std::vector<int> &last, size_t alignment = 64,
                       const std::vector<int> &in_place = {});

// Checks `plan` against `g` run in `execution_order` (empty: topological): intermediates
// have a slot, inputs/constants/the output have none, no two tensors live at the same
// time share a slot, and no slot is smaller than a tensor it holds. Throws an Error
// naming the nodes and slot involved.
void verify_memory_plan(const Graph &g, const std::vector<int> &execution_order, const MemoryPlan &plan);

// Where every value of a compiled graph lives: shared buffers, and per node id a Place.
// Kernel results other than the graph's outputs are placed in the buffers (slots of
// plan_memory over the kernels' order, so a buffer is shared by results whose lifetimes
// do not overlap); outputs keep storage of their own, so that no later kernel overwrites
// a result the caller reads. Offsets and buffer sizes are multiples of kAlignment.
struct StoragePlan {
  static constexpr size_t kAlignment = 64;  // the kernels assume 64-byte aligned arrays
  enum class Storage {
    None,      // not stored: computed inside a fused kernel, or never computed
    Input,     // bound by the caller on every run
    Constant,  // the node's own value
    Own,       // a kernel result with storage of its own (outputs; every result unshared)
    Shared,    // a kernel result at `offset` bytes into `buffers[buffer]`
  };
  struct Place {
    Storage storage = Storage::None;
    int buffer = -1;
    size_t offset = 0;
    int in_place_of = -1;  // the node whose storage this result took (StorageStep::in_place)
  };
  std::vector<size_t> buffers;  // bytes of each shared buffer
  std::vector<Place> of_node;   // per node id
  size_t peak_bytes = 0;        // sum of buffers
  size_t own_bytes = 0;         // node_bytes of the results with storage of their own

  const Place &at(int id) const;  // an Error for a node id outside the plan
  // "storage plan: 3 buffers, 1.50 MB shared, 0.01 MB own" and one line per buffer.
  std::string str() const;
};

// One kernel of a compiled graph, in execution order: the node it writes and the nodes
// it reads.
struct StorageStep {
  int result = -1;
  std::vector<int> reads;
  // An index into `reads` whose storage the result may take (the kernel reads it only at
  // each element's own index, before writing that element), or -1. The plan takes it
  // where that value is a shared result that this step reads last, of the result's size.
  int in_place = -1;
};

// The storage plan of `g` run as `steps`. `share` false gives every result its own
// storage (BuildOptions::plan_memory). Throws an Error naming the node when a step writes
// an input, a constant or a node another step writes, or reads a node that no earlier
// step writes and that is neither an input nor a constant.
StoragePlan plan_storage(const Graph &g, const std::vector<StorageStep> &steps, bool share = true);

}  // namespace tensorir::graph
