// Feature extraction (layout in features.h): one walk over the lowered loop nest that
// records every load and store with the loops around it and counts operations.
#include "autotune/features.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>

#include "autotune/measure.h"
#include "tensorir/ir/visitor.h"
#include "tensorir/target_kind.h"

namespace tensorir::autotune {

namespace {

struct Loop {
  const VarNode *var;
  int64_t extent;
  bool parallel;
};

struct Access {
  Expr index;
  std::vector<Loop> loops;  // outermost first
  double trips;
  int lanes;
  int bytes;
};

struct BufferUse {
  double accesses = 0;
  bool written = false;
  Access hottest;  // the access executed most often
};

float lg(double x) { return static_cast<float>(std::log2(1.0 + std::max(0.0, x))); }

class Walker : public IRVisitor {
 public:
  using IRVisitor::visit;
  std::vector<Loop> loops;
  double trips = 1;
  int loop_count = 0, max_depth = 0, parallel_loops = 0, max_lanes = 1;
  double ops[6] = {0, 0, 0, 0, 0, 0};  // fadd, fmul, fdiv, fcmp, int, call
  double alloc_bytes = 0;
  std::map<const VarNode *, BufferUse> buffers;
  std::vector<const VarNode *> order;  // buffers in first-seen order, for stable ties
  Access main_store{Expr(), {}, 0, 1, 4};
  std::unordered_map<const VarNode *, int> stores_in_loop;  // by innermost loop
  std::unordered_map<const VarNode *, Expr> lets;

  // d(index)/d(var), for indices affine in the loop variables; a non-affine use counts 1.
  double coeff(const Expr &e, const VarNode *var) const {
    if (!e.defined()) return 0;
    if (const auto *v = e.as<VarNode>()) {
      if (v == var) return 1;
      auto it = lets.find(v);
      return it == lets.end() ? 0 : coeff(it->second, var);
    }
    if (const auto *n = e.as<AddNode>()) return coeff(n->a, var) + coeff(n->b, var);
    if (const auto *n = e.as<SubNode>()) return coeff(n->a, var) - coeff(n->b, var);
    if (const auto *n = e.as<MulNode>()) {
      if (const int64_t *c = as_const_int(n->b)) return coeff(n->a, var) * double(*c);
      if (const int64_t *c = as_const_int(n->a)) return coeff(n->b, var) * double(*c);
      return coeff(n->a, var) != 0 || coeff(n->b, var) != 0 ? 1 : 0;
    }
    if (const auto *n = e.as<DivNode>()) {
      const int64_t *c = as_const_int(n->b);
      return c && *c != 0 ? coeff(n->a, var) / double(*c) : coeff(n->a, var);
    }
    if (const auto *n = e.as<ModNode>()) return coeff(n->a, var);
    if (const auto *n = e.as<RampNode>()) return coeff(n->base, var);
    if (const auto *n = e.as<BroadcastNode>()) return coeff(n->value, var);
    if (const auto *n = e.as<CastNode>()) return coeff(n->value, var);
    return 0;
  }

 protected:
  void visit(const ForNode *op) override {
    const int64_t *ext = as_const_int(op->extent);
    const int64_t extent = ext ? std::max<int64_t>(*ext, 1) : 1;
    ++loop_count;
    if (op->for_kind == ForKind::Parallel) ++parallel_loops;
    loops.push_back({op->loop_var.get(), extent, op->for_kind == ForKind::Parallel});
    max_depth = std::max<int>(max_depth, static_cast<int>(loops.size()));
    const double saved = trips;
    trips *= double(extent);
    visit(op->body);
    trips = saved;
    loops.pop_back();
  }
  void visit(const LetStmtNode *op) override {
    visit(op->value);
    lets[op->var.get()] = op->value;
    visit(op->body);
  }
  void visit(const AllocateNode *op) override {
    double n = op->type.bytes() * op->type.lanes();
    for (const Expr &e : op->extents) {
      const int64_t *c = as_const_int(e);
      n *= c ? double(*c) : 1.0;
    }
    alloc_bytes += n;
    IRVisitor::visit(op);
  }
  void visit(const StoreNode *op) override {
    const Type t = op->value.type();
    record(op->buffer, op->index, t, true);
    if (!loops.empty()) ++stores_in_loop[loops.back().var];
    if (trips > main_store.trips) main_store = {op->index, loops, trips, t.lanes(), t.bytes()};
    IRVisitor::visit(op);
  }
  void visit(const LoadNode *op) override {
    record(op->buffer, op->index, op->type, false);
    IRVisitor::visit(op);
  }

#define TIR_COUNT(Node, float_slot)                                                   \
  void visit(const Node *op) override {                                               \
    ops[op->type.is_float() || op->a.type().is_float() ? float_slot : 4] += weight(op->type); \
    IRVisitor::visit(op);                                                             \
  }
  TIR_COUNT(AddNode, 0) TIR_COUNT(SubNode, 0) TIR_COUNT(MulNode, 1) TIR_COUNT(DivNode, 2)
  TIR_COUNT(ModNode, 2) TIR_COUNT(MinNode, 3) TIR_COUNT(MaxNode, 3) TIR_COUNT(LTNode, 3)
  TIR_COUNT(LENode, 3) TIR_COUNT(GTNode, 3) TIR_COUNT(GENode, 3) TIR_COUNT(EQNode, 3)
  TIR_COUNT(NENode, 3)
#undef TIR_COUNT
  void visit(const SelectNode *op) override {
    ops[3] += weight(op->type);
    IRVisitor::visit(op);
  }
  void visit(const CallNode *op) override {
    // A prefetch's address is no access: it would stand for the buffer's real reads.
    if (op->name == "tensorir.prefetch") return;
    ops[5] += weight(op->type);
    IRVisitor::visit(op);
  }

 private:
  double weight(Type t) const { return trips * t.lanes(); }

  void record(const Var &buffer, const Expr &index, Type t, bool write) {
    max_lanes = std::max(max_lanes, t.lanes());
    auto [it, fresh] = buffers.try_emplace(buffer.get());
    if (fresh) order.push_back(buffer.get());
    BufferUse &u = it->second;
    u.accesses += weight(t);
    u.written |= write;
    if (fresh || trips > u.hottest.trips) u.hottest = {index, loops, trips, t.lanes(), t.bytes()};
  }
};

}  // namespace

std::vector<float> extract_features(const LoweredFunc &func) {
  Walker w;
  w.visit(func->body);
  std::vector<float> f(kFeatureLength, 0.f);

  // Buffer slots: most accessed first, ties in order of appearance.
  std::vector<const VarNode *> bufs = w.order;
  std::stable_sort(bufs.begin(), bufs.end(), [&](const VarNode *a, const VarNode *b) {
    return w.buffers[a].accesses > w.buffers[b].accesses;
  });
  bufs.resize(std::min<size_t>(bufs.size(), kBufferSlots));

  // Stores in the main store's innermost loop body.
  const int stores_inner = w.main_store.loops.empty() ? 0 : w.stores_in_loop[w.main_store.loops.back().var];

  double parallel_extent = 1;
  for (const Loop &l : w.main_store.loops)
    if (l.parallel) parallel_extent *= double(l.extent);

  f[0] = lg(w.loop_count);
  f[1] = float(w.max_depth);
  f[2] = lg(parallel_extent);
  f[3] = float(w.parallel_loops);
  f[4] = float(w.max_lanes);
  f[5] = w.main_store.loops.empty() ? 0.f : lg(double(w.main_store.loops.back().extent));
  f[6] = lg(stores_inner);
  for (int k = 0; k < 6; ++k) f[7 + k] = lg(w.ops[k]);
  f[13] = lg(w.main_store.trips);
  f[14] = lg(w.alloc_bytes);
  f[15] = lg(double(w.buffers.size()));

  const std::vector<Loop> &loops = w.main_store.loops;
  for (int s = 0; s < kLoopSlots && s < static_cast<int>(loops.size()); ++s) {
    const Loop &l = loops[loops.size() - 1 - s];
    float *slot = &f[kGlobalFeatures + s * kLoopFeatures];
    slot[0] = lg(double(l.extent));
    slot[1] = l.parallel ? 1.f : 0.f;
    for (int b = 0; b < kStrideBuffers && b < static_cast<int>(bufs.size()); ++b)
      slot[2 + b] = lg(std::fabs(w.coeff(w.buffers[bufs[b]].hottest.index, l.var)));
  }

  for (size_t b = 0; b < bufs.size(); ++b) {
    const BufferUse &u = w.buffers[bufs[b]];
    const Access &a = u.hottest;
    double footprint = double(a.bytes) * a.lanes, reuse = 1, stride = 0;
    for (size_t k = 0; k < 3 && k < a.loops.size(); ++k) {
      const Loop &l = a.loops[a.loops.size() - 1 - k];
      const double c = w.coeff(a.index, l.var);
      if (k == 0) stride = std::fabs(c);
      if (c != 0) footprint *= double(l.extent);
      else reuse *= double(l.extent);
    }
    float *slot = &f[kGlobalFeatures + kLoopSlots * kLoopFeatures + b * kBufferFeatures];
    slot[0] = lg(u.accesses);
    slot[1] = lg(footprint);
    slot[2] = lg(reuse);
    slot[3] = lg(stride);
    slot[4] = float(a.lanes);
    slot[5] = u.written ? 1.f : 0.f;
  }
  return f;
}

// The knobs that are options of the task's target kind (webgl's fragment planner reads
// them), whose values the lowered loop nest does not show.
static std::vector<size_t> option_knobs(const Task &task) {
  std::vector<size_t> out;
  const TargetKindInfo &kind = task.target.kind_info();
  for (size_t k = 0; k < task.knob_names.size(); ++k)
    if (kind.find_option(task.knob_names[k])) out.push_back(k);
  return out;
}

std::vector<std::vector<float>> config_features(const Task &task, const std::vector<int64_t> &indices, int threads) {
  const std::vector<size_t> options = option_knobs(task);
  std::vector<std::vector<float>> out(indices.size());
  LowerOptions loops_as_scheduled;
  loops_as_scheduled.unroll = false;  // the loops as scheduled; unrolling them doubled the time
  for_each_index(indices.size(), threads, [&](size_t i) {
    try {
      Instance inst = task.instantiate(indices[i]);
      out[i] = extract_features(lower(inst.schedule, inst.args, inst.name, loops_as_scheduled));
    } catch (const std::exception &) {
      out[i].assign(kFeatureLength, 0.f);
    }
    for (size_t k : options) {
      int64_t digit = indices[i];
      for (size_t j = 0; j < k; ++j) digit /= task.knob_sizes[j];
      out[i].push_back(float(digit % task.knob_sizes[k]));
    }
  });
  return out;
}

}  // namespace tensorir::autotune
