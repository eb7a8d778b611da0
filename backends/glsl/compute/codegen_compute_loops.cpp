// Loop passes per invocation, and the loops to unroll in part to keep under a limit.
#include "backends/glsl/compute/codegen_compute_loops.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <unordered_set>

#include "tensorir/arith/interval.h"
#include "tensorir/arith/simplify.h"
#include "tensorir/ir/op.h"
#include "tensorir/ir/visitor.h"

namespace tensorir::glsl::compute_detail {

namespace {

// A loop of the printed shader and the loops inside it.
struct Loop {
  const ForNode *node = nullptr;  // null for a thread-strided loop (never unrolled)
  Expr extent;                    // body passes per run of the loop, at most; undefined: unbounded
  std::vector<Loop> inner;
};

Expr i64(const Expr &e) { return e.type() == Int(64) ? e : cast(Int(64), e); }
Expr i64(int64_t v) { return IntImmNode::make(Int(64), v); }

// The loop tree of a kernel body, with extents bounded over the enclosing loops' ranges.
class LoopCollector {
 public:
  LoopCollector(const DeviceKernel &k, const LaunchShape &shape) : shape_(shape) {
    for (const ThreadExtent &t : k.threads) bound_thread(t.var, t.extent);
  }

  void walk(const Stmt &s, std::vector<Loop> &out) {
    if (!s.defined()) return;
    switch (s->kind) {
      case IRKind::Block:
        for (const Stmt &c : s.as<BlockNode>()->stmts) walk(c, out);
        return;
      case IRKind::LetStmt: {
        const auto *l = s.as<LetStmtNode>();
        if (l->var.type().is_int_or_uint() && l->var.type().is_scalar()) ranges_[l->var.get()] = interval(l->value);
        return walk(l->body, out);
      }
      case IRKind::AttrStmt: return attr(s.as<AttrStmtNode>(), out);
      case IRKind::AssertStmt: return walk(s.as<AssertStmtNode>()->body, out);
      case IRKind::Allocate: return walk(s.as<AllocateNode>()->body, out);
      case IRKind::IfThenElse: {  // both branches counted: a bound
        const auto *i = s.as<IfThenElseNode>();
        walk(i->then_case, out);
        return walk(i->else_case, out);
      }
      case IRKind::For: return for_loop(s.as<ForNode>(), out);
      default: return;  // stores and calls hold no loops
    }
  }

 private:
  Interval interval(const Expr &e) { return eval_interval(e, ranges_); }

  // An index over [0, extent): its range, in terms of the kernel's scalars.
  void bound_thread(const Var &v, const Expr &extent) {
    Interval e = interval(extent);
    ranges_[v.get()] = Interval{make_zero(v.type()), e.has_upper() ? simplify(e.max - 1) : Expr()};
  }

  void attr(const AttrStmtNode *a, std::vector<Loop> &out) {
    if (a->key != "thread_extent") return walk(a->body, out);
    const auto *iv = static_cast<const IterVarNode *>(a->node.get());
    bound_thread(iv->var, a->value);
    if (thread_loop_kind(a, shape_) != ThreadLoop::Strided) return walk(a->body, out);
    int slot = thread_slot(iv->thread_tag);
    Expr step = slot >= 3 ? i64(shape_.local[slot - 3]) : i64(shape_.groups[slot]);
    Interval e = interval(a->value);
    Loop loop;
    if (e.has_upper()) loop.extent = simplify(max(floordiv(i64(e.max) + step - 1, step), i64(0)));
    walk(a->body, loop.inner);
    out.push_back(std::move(loop));
  }

  void for_loop(const ForNode *f, std::vector<Loop> &out) {
    Interval mn = interval(f->min), ext = interval(f->extent);
    Loop loop;
    loop.node = f;
    if (ext.has_upper()) loop.extent = simplify(max(i64(ext.max), i64(0)));
    Expr hi = mn.has_upper() && ext.has_upper() ? simplify(mn.max + ext.max - 1) : Expr();
    ranges_[f->loop_var.get()] = Interval{mn.min, hi};
    walk(f->body, loop.inner);
    out.push_back(std::move(loop));
  }

  const LaunchShape &shape_;
  VarRanges ranges_;  // every variable bound so far (names are unique per node)
};

constexpr int64_t kHuge = std::numeric_limits<int64_t>::max() / 4;
int64_t sat_add(int64_t a, int64_t b) { return std::min(kHuge, a + b); }
int64_t sat_mul(int64_t a, int64_t b) { return a != 0 && b > kHuge / a ? kHuge : std::min(kHuge, a * b); }

class Counter {
 public:
  explicit Counter(const std::unordered_map<const ForNode *, int64_t> &copies) : copies_(copies) {}

  int64_t copies(const Loop &l) const {
    auto it = l.node ? copies_.find(l.node) : copies_.end();
    return it == copies_.end() ? 1 : it->second;
  }

  // Passes of a list of loops, run one after the other.
  Expr passes(const std::vector<Loop> &loops) const {
    Expr total = i64(0);
    for (const Loop &l : loops) {
      Expr p = passes(l);
      if (!p.defined()) return Expr();
      total = total + p;
    }
    return simplify(total);
  }
  // A run of one loop: its passes, each the body's, and the test that leaves it.
  Expr passes(const Loop &l) const {
    Expr body = passes(l.inner);
    if (!l.extent.defined() || !body.defined()) return Expr();
    const int64_t *e = as_const_int(l.extent), *b = as_const_int(body);
    if (e && b) return i64(const_passes(*e, copies(l), *b));
    return simplify(l.extent * (body + 1) + 1);  // copies only of constant loops
  }

  // The same for constant extents, saturating.
  static int64_t const_passes(int64_t extent, int64_t copies, int64_t body) {
    if (copies == 1) return sat_add(sat_mul(extent, sat_add(body, 1)), 1);
    int64_t rounds = extent / copies, rest = extent % copies;
    if (rounds <= 1) return sat_mul(extent, body);  // unrolled whole
    return sat_add(sat_add(sat_mul(rounds, sat_add(sat_mul(copies, body), 1)), 1), sat_mul(rest, body));
  }
  int64_t const_passes(const std::vector<Loop> &loops) const {
    int64_t total = 0;
    for (const Loop &l : loops)
      total = sat_add(total, const_passes(*as_const_int(l.extent), copies(l), const_passes(l.inner)));
    return total;
  }

 private:
  const std::unordered_map<const ForNode *, int64_t> &copies_;
};

bool all_constant(const std::vector<Loop> &loops) {
  for (const Loop &l : loops)
    if (!l.extent.defined() || !as_const_int(l.extent) || !all_constant(l.inner)) return false;
  return true;
}

// Copies of the most copied statement inside `l` (itself included).
int64_t copies_within(const Loop &l, const Counter &c) {
  int64_t most = 1;
  for (const Loop &i : l.inner) most = std::max(most, copies_within(i, c));
  return c.copies(l) * most;
}

// Doubles the copies of the loop that lowers the passes most, within kMaxLoopCopies.
bool unroll_one(const std::vector<Loop> &root, std::unordered_map<const ForNode *, int64_t> &copies) {
  Counter counter(copies);
  int64_t now = counter.const_passes(root), best = now;
  const ForNode *best_node = nullptr;
  int64_t best_copies = 1;
  std::function<void(const std::vector<Loop> &, int64_t)> visit = [&](const std::vector<Loop> &loops, int64_t above) {
    for (const Loop &l : loops) {
      int64_t u = counter.copies(l), e = *as_const_int(l.extent);
      if (l.node && u < e) {
        int64_t next = std::min(2 * u, e);
        if (above * copies_within(l, counter) / u * next <= kMaxLoopCopies) {
          auto trial = copies;
          trial[l.node] = next;
          int64_t p = Counter(trial).const_passes(root);
          if (p < best) best = p, best_node = l.node, best_copies = next;
        }
      }
      visit(l.inner, above * u);
    }
  };
  visit(root, 1);
  if (!best_node) return false;
  copies[best_node] = best_copies;
  return true;
}

// Whether `e` uses no variable outside `allowed`.
bool uses_only(const Expr &e, const std::unordered_set<const VarNode *> &allowed) {
  struct Finder : IRVisitor {
    const std::unordered_set<const VarNode *> &ok;
    bool bad = false;
    explicit Finder(const std::unordered_set<const VarNode *> &o) : ok(o) {}
    using IRVisitor::visit;
    void visit(const VarNode *op) override { bad = bad || !ok.count(op); }
  } f(allowed);
  f.visit(e);
  return !f.bad;
}

}  // namespace

LoopPlan plan_loops(const DeviceKernel &k, const LaunchShape &shape, int64_t limit) {
  std::vector<Loop> root;
  LoopCollector(k, shape).walk(k.body, root);
  LoopPlan plan;
  if (limit > 0 && all_constant(root))
    while (!within_loop_limit(Counter(plan.copies).const_passes(root), limit) && unroll_one(root, plan.copies)) {
    }
  plan.passes = Counter(plan.copies).passes(root);
  // A bound the module can evaluate from a call's scalars; otherwise none is known.
  std::unordered_set<const VarNode *> scalars;
  for (const Var &v : kernel_inputs(k).scalars) scalars.insert(v.get());
  if (plan.passes.defined() && !uses_only(plan.passes, scalars)) plan.passes = Expr();
  return plan;
}

}  // namespace tensorir::glsl::compute_detail
