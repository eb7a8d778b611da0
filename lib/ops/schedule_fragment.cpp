// The webgl kernel's knobs (schedule_fragment.h).
#include "schedule_fragment.h"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "tensorir/ir/visitor.h"
#include "tensorir/ops/schedule.h"

namespace tensorir::ops {

namespace {

// What the knobs' choices depend on: the longest constant reduction of a stage that is
// not inlined (iterations per element), and whether some reduction reads a tensor at an
// index that an output axis longer than 1 does not move (what the texels of one fragment
// share) while its result's last axis fills whole texels (`block` elements: the rows the
// planner steps through, fragment_phases.h).
struct Reductions {
  int64_t longest = 0;
  bool shared_read = false;
};

Reductions reductions_of(const Schedule &s, int64_t block) {
  Reductions out;
  for (const Stage &st : s.stages()) {
    const auto *c = st.op().as<ComputeOpNode>();
    if (!c || st->attach_type == AttachType::Inline || c->body.empty()) continue;
    const ReduceNode *r = single_reduction(c->body[0]);
    if (!r) continue;
    int64_t n = 1;
    for (const IterVar &ax : r->axis) {
      const int64_t *e = as_const_int(ax->dom.extent);
      n = e ? n * *e : 0;
      if (!n) break;
    }
    out.longest = std::max(out.longest, n);
    const int64_t *last = c->axis.empty() ? nullptr : as_const_int(c->axis.back()->dom.extent);
    if (!last || block <= 0 || *last % block != 0) continue;
    std::vector<Var> moving;
    for (const IterVar &ax : c->axis)
      if (!is_const_int(ax->dom.extent, 1)) moving.push_back(ax->var);
    struct Shared : IRVisitor {
      const std::vector<Var> *moving;
      bool found = false;
      using IRVisitor::visit;
      void visit(const TensorLoadNode *n) override {
        for (const Var &v : *moving) {
          bool uses = false;
          for (const Expr &a : n->args) uses = uses || uses_var(a, {v});
          found = found || !uses;
        }
        IRVisitor::visit(n);
      }
    };
    Shared sh;
    sh.moving = &moving;
    for (const Expr &src : r->source) sh.visit(src);
    out.shared_read = out.shared_read || sh.found;
  }
  return out;
}

// The planner's defaults (backends/glsl/fragment: kWebDrawBuffers, kMaxUnrolled,
// kReduceChunk), which the fallbacks must be for untuned kernels to keep their plans.
constexpr int64_t kDrawBuffers = 4, kUnroll = 256, kReduceChunk = 16384;
// The webgl target's least -reduce-chunk.
constexpr int64_t kLeastChunk = 64;

}  // namespace

const ReduceNode *single_reduction(const Expr &body) {
  struct Finder : IRVisitor {
    std::vector<const ReduceNode *> found;
    using IRVisitor::visit;
    void visit(const ReduceNode *n) override {
      found.push_back(n);
      IRVisitor::visit(n);
    }
  };
  Finder f;
  f.visit(body);
  return f.found.size() == 1 ? f.found[0] : nullptr;
}

void define_fragment_knobs(autotune::Config &cfg, const Target &target, int64_t longest, bool shared_read) {
  if (longest <= 0) return;
  // 1, 2, 4 and 8 whatever the target says: the target's (4 by default, what WebGL2
  // guarantees) is what an untuned kernel uses, while a tuned one may take 8 where the
  // device measured has them (a candidate the device cannot draw is a failed trial, and
  // a package built with its choice tells a GPU with fewer so when it loads).
  if (shared_read) cfg.define_knob("draw-buffers", {1, 2, 4, 8}, target.positive_option("draw-buffers", kDrawBuffers, 8));
  // A fragment's 4 lanes unroll a whole reduction from a budget of 4 times its length
  // on: the budgets below that differ, the larger ones all unroll it whole.
  std::vector<int64_t> unroll;
  bool whole = false;
  for (int64_t u = 32; u <= 2048; u *= 2) {
    if (u >= 4 * longest && (whole || kUnroll >= 4 * longest)) continue;
    whole = whole || u >= 4 * longest;
    unroll.push_back(u);
  }
  if (unroll.size() > 1 || (unroll.size() == 1 && unroll[0] != kUnroll)) cfg.define_knob("unroll", unroll, kUnroll);
  std::vector<int64_t> chunks;
  for (int64_t parts : {2, 4, 8}) {
    const int64_t c = (longest + parts - 1) / parts;
    if (c >= kLeastChunk && c < kReduceChunk) chunks.push_back(c);
  }
  if (!chunks.empty()) cfg.define_knob("reduce-chunk", chunks, kReduceChunk);
}

Schedule schedule_fragment(const Tensor &out, const Target &target, autotune::Config *cfg) {
  Schedule s = schedule_generic({out});
  if (!cfg) return s;
  const Reductions r = reductions_of(s, target.caps().texture_channel_block);
  define_fragment_knobs(*cfg, target, r.longest, r.shared_read);
  return s;
}

}  // namespace tensorir::ops
