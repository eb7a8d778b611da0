// Stage::prefetch after flattening: each "prefetch" attribute around a loop's body becomes
// calls tensorir.prefetch(&buffer[i]), one per cache line, at the top of the body, for the
// lines that the iteration `offset` steps later reads. strip_prefetch.cpp undoes it for
// targets without prefetch instructions.
//
// The part of the buffer an iteration reads comes from each load's flat index, linear in
// the loops inside the body: terms whose stride is at most the span built so far (the
// smallest first) extend one contiguous span; the others (a channel block's stride, say)
// are enumerated, each value a span of its own. A load whose index is not affine in the
// inner loops, or whose spans would be too many, is not prefetched.
#include <algorithm>
#include <cstdlib>
#include <map>
#include <numeric>
#include <unordered_set>

#include "arith/linear.h"
#include "tensorir/arith/simplify.h"
#include "tensorir/error.h"
#include "tensorir/ir/op.h"
#include "tensorir/ir/visitor.h"
#include "transforms/passes.h"

namespace tensorir {

namespace {

constexpr int64_t kLineBytes = 64;
constexpr int64_t kMaxSpansPerLoad = 16;
// Lines requested per iteration at most: more is a burst that the few outstanding misses
// a core can track would drop, at a loop too far out to be worth a prefetch.
constexpr int64_t kMaxLines = 256;

struct Span {
  Expr base;       // first element
  int64_t length;  // elements
  bool aligned;    // base is a multiple of a line
};

struct InnerLoop {
  int64_t min, extent;
};

// The loops, let-bound variables and loads of `buffer` inside a loop body.
class BodyScan : public IRVisitor {
 public:
  explicit BodyScan(const VarNode *buffer) : buffer_(buffer) {}
  void scan(const Stmt &s) { visit(s); }
  std::map<const VarNode *, InnerLoop> loops;
  std::unordered_set<const VarNode *> unknown;  // inner variables of no constant range
  std::vector<Expr> indices;
  std::vector<std::pair<Var, Expr>> shift;
  VarRanges ranges;
  std::vector<Var> fresh_vars;  // kept alive: loops and ranges key their nodes

  // An index in terms of the fresh loop variables, simplified.
  Expr normalized(const Expr &index) const { return simplify(substitute(index, shift), ranges); }
  // Whether `e` depends on a loop inside the body: one of unknown range, an original
  // loop variable, or a fresh one.
  bool mentions_inner(const Expr &e) const {
    std::vector<Var> vars = fresh_vars;
    for (const auto &[v, at] : shift) vars.push_back(v);
    for (const VarNode *u : unknown) vars.emplace_back(u);
    return uses_var(e, vars);
  }

 protected:
  using IRVisitor::visit;
  // A loop of constant extent from a start the loops around give (a block's first
  // column, say) is a fresh variable from 0: shift replaces the loop's variable by
  // start + fresh, and ranges bounds the fresh one, so that the simplifier can see
  // through divisions of the index by the block.
  void visit(const ForNode *op) override {
    const int64_t *ext = as_const_int(op->extent);
    if (ext && !mentions_inner(op->min)) {
      Var fresh(op->loop_var.name() + ".from0", op->loop_var.type());
      shift.emplace_back(op->loop_var, op->min + fresh);
      ranges[fresh.get()] = {make_const(fresh.type(), 0.0), make_const(fresh.type(), double(*ext - 1))};
      loops[fresh.get()] = {0, *ext};
      fresh_vars.push_back(fresh);
    } else {
      unknown.insert(op->loop_var.get());
    }
    IRVisitor::visit(op);
  }
  void visit(const LetStmtNode *op) override {
    unknown.insert(op->var.get());
    IRVisitor::visit(op);
  }
  void visit(const LetNode *op) override {
    unknown.insert(op->var.get());
    IRVisitor::visit(op);
  }
  void visit(const LoadNode *op) override {
    if (op->buffer.get() == buffer_ && op->type.is_scalar()) indices.push_back(op->index);
    IRVisitor::visit(op);
  }
  // An inner loop's prefetches are not reads.
  void visit(const CallNode *op) override {
    if (op->name != "tensorir.prefetch") IRVisitor::visit(op);
  }

 private:
  const VarNode *buffer_;
};

// The spans one load reads over the inner loops, or none when they cannot be told.
std::vector<Span> spans_of(const Expr &index, const BodyScan &scan, int64_t line_elems) {
  const arith::LinearSum lin = arith::to_linear(scan.normalized(index));
  if (lin.wrapped) return {};
  arith::LinearSum outer(lin.type);
  outer.add_const(lin.constant);
  struct Term {
    int64_t coeff;
    InnerLoop loop;
  };
  std::vector<Term> inner;
  for (const arith::Monomial &m : lin.terms) {
    const auto *v = m.factors.size() == 1 ? m.factors[0].as<VarNode>() : nullptr;
    if (v && scan.loops.count(v)) {
      inner.push_back({m.coeff, scan.loops.at(v)});
      continue;
    }
    for (const Expr &f : m.factors)
      if (scan.mentions_inner(f)) return {};
    outer.add_term(m.factors, m.coeff);
  }
  std::sort(inner.begin(), inner.end(),
            [](const Term &a, const Term &b) { return std::llabs(a.coeff) < std::llabs(b.coeff); });
  int64_t shift = 0, length = 1;
  std::vector<int64_t> starts = {0};
  for (const Term &t : inner) {
    shift += t.coeff * t.loop.min;
    if (t.loop.extent <= 1) continue;
    if (std::llabs(t.coeff) <= length + line_elems) {
      if (t.coeff < 0) shift += t.coeff * (t.loop.extent - 1);
      length += std::llabs(t.coeff) * (t.loop.extent - 1);
      continue;
    }
    if (static_cast<int64_t>(starts.size()) * t.loop.extent > kMaxSpansPerLoad) return {};
    std::vector<int64_t> next;
    for (int64_t s : starts)
      for (int64_t k = 0; k < t.loop.extent; ++k) next.push_back(s + t.coeff * k);
    starts = std::move(next);
  }
  // Starts on a line boundary when every stride and offset is whole lines (buffers are
  // allocated line-aligned).
  const int64_t g = std::gcd(outer.coeff_gcd(), outer.constant + shift);
  const bool aligned = g % line_elems == 0;
  const Expr base = arith::to_expr(outer);
  std::vector<Span> spans;
  for (int64_t s : starts)
    spans.push_back({simplify(base + make_const(base.type(), double(shift + s))), length,
                     aligned && s % line_elems == 0});
  return spans;
}

// Joins spans whose starts differ by a constant and that overlap or touch.
std::vector<Span> merge(std::vector<Span> spans, int64_t line_elems) {
  std::vector<Span> out;
  for (const Span &s : spans) {
    bool joined = false;
    for (Span &o : out) {
      const Expr distance = simplify(s.base - o.base);  // kept alive: d points into it
      const int64_t *d = as_const_int(distance);
      if (!d) continue;
      const int64_t lo = std::min<int64_t>(0, *d), hi = std::max(o.length, *d + s.length);
      if (*d > o.length + line_elems || -*d > s.length + line_elems) continue;
      o.base = simplify(o.base + make_const(o.base.type(), double(lo)));
      o.length = hi - lo;
      o.aligned = lo == 0 ? o.aligned : s.aligned;
      joined = true;
      break;
    }
    if (!joined) out.push_back(s);
  }
  return out;
}

class PrefetchInjector : public IRMutator {
 public:
  using IRMutator::mutate;

 protected:
  Stmt visit(const ForNode *op, const Stmt &self) override {
    loops_.push_back(op);
    Stmt body = mutate(op->body);
    loops_.pop_back();
    return body.same_as(op->body) ? self : ForNode::make(op->loop_var, op->min, op->extent, op->for_kind, body);
  }

  Stmt visit(const AttrStmtNode *op, const Stmt &self) override {
    if (op->key != "prefetch") return IRMutator::visit(op, self);
    Stmt body = mutate(op->body);
    const auto *axis = dynamic_cast<const IterVarNode *>(op->node.get());
    const auto *spec = op->value.as<CallNode>();
    const auto *buffer = spec && spec->args.size() == 2 ? spec->args[0].as<LoadNode>() : nullptr;
    const int64_t *offset_value = spec && spec->args.size() == 2 ? as_const_int(spec->args[1]) : nullptr;
    TIR_ASSERT(axis && buffer && offset_value) << "a prefetch attribute names its loop, buffer and offset";
    const int64_t offset = *offset_value;
    // The loop may be gone (one iteration, simplified away): then there is nothing ahead.
    if (loops_.empty() || loops_.back()->loop_var.get() != axis->var.get()) return body;
    const Type elem = buffer->type.element_of();
    const int64_t line_elems = std::max<int64_t>(1, kLineBytes / std::max(1, elem.bytes()));

    BodyScan scan(buffer->buffer.get());
    scan.scan(body);
    TIR_USER_CHECK(!scan.indices.empty())
        << "prefetch of tensor '" << buffer->buffer.name() << "' at loop '" << axis->var.name()
        << "': the loop reads no element of it (reads through a cache_read copy read the copy); "
           "prefetch a tensor the loop reads";
    std::vector<Span> spans;
    for (const Expr &index : scan.indices)
      for (const Span &s : spans_of(index, scan, line_elems)) spans.push_back(s);
    spans = merge(std::move(spans), line_elems);

    const Var &v = loops_.back()->loop_var;
    const Expr ahead = v + make_const(v.type(), double(offset));
    std::vector<Stmt> calls;
    int64_t lines_left = kMaxLines;
    for (const Span &s : spans) {
      if (!uses_var(s.base, {v})) continue;  // the same lines every iteration: in cache already
      // A span that does not start on a line boundary may touch one line more.
      const int64_t lines = std::min(lines_left, (s.length - 1) / line_elems + (s.aligned ? 1 : 2));
      if (lines <= 0) break;
      lines_left -= lines;
      const Expr start = simplify(substitute(s.base, {{v, ahead}}));
      auto prefetch = [&](const Expr &at) {
        return EvaluateNode::make(
            CallNode::make(Int(32), "tensorir.prefetch", {LoadNode::make(elem, buffer->buffer, at)}));
      };
      if (lines == 1) {
        calls.push_back(prefetch(start));
        continue;
      }
      Var i("prefetch.i", start.type());
      const Expr line = start + i * make_const(start.type(), double(line_elems));
      calls.push_back(ForNode::make(i, make_const(i.type(), 0.0), make_const(i.type(), double(lines)),
                                    ForKind::Serial, prefetch(line)));
    }
    if (calls.empty()) return body;
    calls.push_back(body);
    return BlockNode::make(calls);
  }

 private:
  std::vector<const ForNode *> loops_;
};

}  // namespace

Stmt inject_prefetch(const Stmt &s) { return PrefetchInjector().mutate(s); }

}  // namespace tensorir
