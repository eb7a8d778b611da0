// Schedules say *how* to compute: one Stage per operation, holding its loop axes and
// where it is computed. Lowering reads a Schedule; it never changes the expressions.
#pragma once
#include <cstdint>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "tensorir/te/tensor.h"
#include "tensorir/te/tensor_intrin.h"

namespace tensorir {

class Stage;
class Schedule;

// How a stage's leaf axes derive from its root axes.
struct IterVarRelationNode : Object {
  enum Kind { Split, Fuse };
  Kind kind;
  IterVar parent, outer, inner;  // Split: parent -> outer, inner
  IterVar fused;                 // Fuse: outer, inner -> fused
  Expr factor, nparts;           // Split: one of them is defined

  bool is_split() const { return kind == Split; }
  bool is_fuse() const { return kind == Fuse; }
};
using IterVarRelation = Ref<const IterVarRelationNode>;

enum class AttachType { Root, Inline, Scope };

// Stage::prefetch: at the top of each iteration of `axis`, the cache lines of `tensor`
// that the iteration `offset` steps later reads are requested from memory.
struct PrefetchSpec {
  Tensor tensor;
  IterVar axis;
  int offset = 1;
};

struct StageNode : Object {
  Operation op;
  std::vector<IterVar> all_iter_vars;   // root axes, then every axis relations made
  std::vector<IterVar> leaf_iter_vars;  // the loop order, outermost first
  std::vector<IterVarRelation> relations;
  std::unordered_map<const IterVarNode *, ForKind> loop_kind;  // vectorize/unroll/parallel
  AttachType attach_type = AttachType::Root;
  Ref<StageNode> attach_stage;  // for Scope
  IterVar attach_ivar;          // for Scope
  std::string scope = "global";
  bool is_output = false;
  // Loops bound to GPU thread indices (bind); the value is a thread_axis IterVar.
  std::unordered_map<const IterVarNode *, IterVar> bound_threads;
  IterVar tensorize_axis;  // the loops from here inward are replaced by tensorize_intrin
  TensorIntrin tensorize_intrin;
  std::vector<PrefetchSpec> prefetches;
  // The schedule the stage belongs to (ScheduleNode::id): compute_at accepts a parent of
  // the same schedule only.
  uint64_t schedule_id = 0;
};

class Stage {
 public:
  Stage() = default;
  explicit Stage(Ref<StageNode> n) : n_(std::move(n)) {}
  StageNode *operator->() const { return n_.get(); }
  StageNode *get() const { return n_.get(); }
  bool defined() const { return n_.defined(); }
  // The operation this stage computes; an Error for an undefined stage.
  const Operation &op() const;

  // Loop transformations. Each axis must be one of this stage's current loops.
  // split: outer runs ceil(extent / factor) times, inner `factor` times; a guard skips
  // the iterations past the end when factor does not divide the extent.
  std::pair<IterVar, IterVar> split(const IterVar &axis, Expr factor);
  std::pair<IterVar, IterVar> split_by_nparts(const IterVar &axis, Expr nparts);
  // Splits x and y and orders the loops (x.outer, y.outer, x.inner, y.inner).
  std::tuple<IterVar, IterVar, IterVar, IterVar> tile(const IterVar &x, const IterVar &y, Expr x_factor,
                                                      Expr y_factor);
  // Fuses two adjacent loops (outer, then inner) into one.
  IterVar fuse(const IterVar &outer, const IterVar &inner);
  // Puts the given loops in this order, in the positions they occupy now.
  Stage &reorder(const std::vector<IterVar> &order);

  // Where the stage is computed: inside a loop of a consumer (or of a stage its consumer
  // is computed inside, around the consumer's place), inlined into its readers, or at the
  // root of the function (the default).
  Stage &compute_at(const Stage &parent, const IterVar &axis);
  Stage &compute_inline();
  Stage &compute_root();

  Stage &vectorize(const IterVar &axis);  // the extent must be a constant
  Stage &unroll(const IterVar &axis);     // the extent must be a constant
  Stage &parallel(const IterVar &axis);   // runs on the runtime's thread pool
  // Runs the loop as a GPU thread index: thread_axis("blockIdx.x") for work groups,
  // thread_axis("threadIdx.x") for invocations within one (x, y, z).
  Stage &bind(const IterVar &axis, const IterVar &thread);
  // Replaces the loops from `axis` inward by `intrin`; lowering checks that they compute
  // exactly what the intrinsic declares and reports any mismatch.
  Stage &tensorize(const IterVar &axis, const TensorIntrin &intrin);
  // Software prefetch: at the top of each iteration of `axis`, asks the CPU to bring in
  // the part of `tensor` that iteration axis + `offset` (>= 1) will read, so that a
  // stream from memory (a convolution's weights, say) arrives before it is needed. The
  // part is found from the reads' indices: those affine in the loops inside `axis`;
  // others are not prefetched. Past the loop's end the addresses run on as the index
  // does (the next rows of a contiguous stream). A hint only: results never change,
  // and targets without prefetch instructions ignore it. Call it once the loops are
  // final: a later split, fuse, cache_write or rfactor of `axis` is an Error at lowering,
  // as are `axis` inside a vector loop and a `tensor` that is inlined or that the loop
  // does not read. At a parallel loop the iteration ahead may be another thread's.
  Stage &prefetch(const Tensor &tensor, const IterVar &axis, int offset);

 private:
  size_t leaf_index(const IterVar &axis, const char *primitive) const;
  std::pair<IterVar, IterVar> add_split(const IterVar &axis, size_t pos, Expr factor, Expr nparts);
  Stage &set_kind(const IterVar &axis, ForKind kind, const char *primitive);
  Ref<StageNode> n_;
};

struct ScheduleNode : Object {
  uint64_t id = 0;  // unique in the process; a copy gets a new one
  std::vector<Tensor> outputs;
  std::vector<Stage> stages;  // producers before consumers
  // Every operation a stage has had (cache_read/cache_write/rfactor replace a stage's
  // operation with a rewritten one; the tensors users hold keep naming the stage).
  std::unordered_map<const OperationNode *, Stage> stage_map;
  // old operation -> the one that replaced it; reads of the old one read the new one.
  std::unordered_map<const OperationNode *, Operation> replaced;
};

class Schedule {
 public:
  Schedule() = default;
  explicit Schedule(Ref<ScheduleNode> n) : n_(std::move(n)) {}
  // The stage of the operation that produces `t`; a clear error if it is not in this schedule.
  Stage operator[](const Tensor &t) const;
  Stage operator[](const Operation &op) const;
  // Its stages and outputs; an Error for an undefined (default-constructed) schedule.
  const std::vector<Stage> &stages() const;

  // A copy of `t` in `scope` ("global", "local", "shared") computed at root, which
  // `readers` read instead of `t` (e.g. a packed copy of a matmul input).
  Tensor cache_read(const Tensor &t, const std::string &scope, const std::vector<Tensor> &readers);
  // Computes `t` into a new tensor in `scope` first (a reduction stays there) and makes
  // `t` a copy of it; schedule the returned stage, e.g. compute_at inside t's tile.
  Tensor cache_write(const Tensor &t, const std::string &scope);
  // Splits the reduction of `t` over `axis` (one of its reduction loops) into a partial
  // tensor with `axis` as its first, data-parallel dimension, which `t` then reduces.
  // Returns the partial tensor; its axis(0) can run in parallel.
  Tensor rfactor(const Tensor &t, const IterVar &axis);
  // The operation that now computes `op` (itself unless a primitive replaced it).
  Operation current(const Operation &op) const;
  const std::vector<Tensor> &outputs() const;
  ScheduleNode *get() const { return n_.get(); }
  // A schedule with stages of its own: scheduling the copy leaves this one as it is. The
  // copy shares the operations, so copy[t] takes the same tensors as (*this)[t].
  Schedule copy() const;

 private:
  Ref<ScheduleNode> n_;
};

// A GPU thread index to bind loops to: "blockIdx.x|y|z" or "threadIdx.x|y|z".
IterVar thread_axis(const std::string &tag);

// One stage for every operation the outputs depend on, each computed at root.
Schedule create_schedule(const std::vector<Tensor> &outputs);

}  // namespace tensorir
