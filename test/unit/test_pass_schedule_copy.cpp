// Schedule::copy: a copy lowers to the same loop nest, scheduling it leaves the original
// as it was, and build() applies its default GPU schedule to a copy of the caller's.
#include <catch2/catch.hpp>

#include "pass_check.h"
#include "schedule/schedule_internal.h"
#include "tensorir/build.h"
#include "tensorir/ir/op.h"
#include "tensorir/ir/visitor.h"
#include "tensorir/lower.h"

using namespace tensorir;

namespace {
// lower() makes fresh buffer variables for each call: compare g's body with f's after
// renaming g's arguments to f's.
void check_same_ir(const LoweredFunc &f, const LoweredFunc &g) {
  REQUIRE(f->args.size() == g->args.size());
  std::vector<std::pair<Var, Expr>> rename;
  for (size_t a = 0; a < f->args.size(); ++a) rename.emplace_back(g->args[a].var, f->args[a].var);
  TIR_CHECK_IR(substitute(g->body, rename), f->body);
}

struct Pipeline {
  Tensor A = placeholder({16, 16}, Float(32), "A");
  Tensor T = compute({16, 16}, [&](Var i, Var j) { return A(i, j) * 2.0f; }, "T");
  Tensor B = compute({16, 16}, [&](Var i, Var j) { return T(i, j) + T(j, i); }, "B");
  Schedule s = create_schedule({B});
  LoweredFunc lower_s(const std::string &name) const { return lower(s, {A, B}, name); }
};
}  // namespace

TEST_CASE("Schedule::copy lowers to the same loop nest as the original", "[pass][schedule]") {
  Pipeline p;
  Tensor BL = p.s.cache_write(p.B, "local");
  auto [xo, yo, xi, yi] = p.s[p.B].tile(p.B.axis(0), p.B.axis(1), 4, 8);
  p.s[BL].compute_at(p.s[p.B], yo);
  p.s[p.T].compute_at(p.s[BL], BL.axis(0));
  p.s[p.B].vectorize(yi);
  Schedule c = p.s.copy();
  check_same_ir(p.lower_s("f"), lower(c, {p.A, p.B}, "f"));
  // The caller's tensors (B's operation was replaced by cache_write) index the copy's own
  // stages, attachments included.
  CHECK(c[p.B].get() != p.s[p.B].get());
  CHECK(c[p.B].op().same_as(p.s[p.B].op()));
  CHECK(c[BL]->attach_stage.get() == c[p.B].get());
  CHECK(c[p.T]->attach_stage.get() == c[BL].get());
  CHECK(c.current(p.B.op()).same_as(p.s.current(p.B.op())));
  CHECK(!c.current(p.B.op()).same_as(p.B.op()));
  CHECK(c.stages().size() == p.s.stages().size());
}

TEST_CASE("Schedule::copy: scheduling the copy leaves the original as it was", "[pass][schedule]") {
  Pipeline p;
  auto [o, in] = p.s[p.B].split(p.B.axis(1), 4);
  const LoweredFunc before = p.lower_s("f");
  Schedule c = p.s.copy();
  c[p.B].reorder({in, o});
  c[p.T].compute_at(c[p.B], in);
  c[p.B].unroll(o);
  c.cache_read(p.A, "local", {p.T});
  apply_default_gpu_schedule(c);
  CHECK(c.stages().size() == p.s.stages().size() + 1);
  CHECK(p.s[p.T]->attach_type == AttachType::Root);
  CHECK(p.s[p.B]->leaf_iter_vars.size() == 3);
  check_same_ir(before, p.lower_s("f"));
  // And the other way round: the copy keeps what it had when the original changes.
  Schedule d = p.s.copy();
  const LoweredFunc copied = lower(d, {p.A, p.B}, "f");
  p.s[p.T].compute_inline();
  check_same_ir(copied, lower(d, {p.A, p.B}, "f"));
}

TEST_CASE("Schedule::copy of an undefined schedule is an error", "[pass][schedule]") {
  CHECK_THROWS_WITH(Schedule().copy(), Catch::Contains("schedule is undefined"));
}

#if TENSORIR_WITH_OPENGL
TEST_CASE("build() for an OpenGL compute target leaves the caller's schedule unscheduled", "[pass][opengl]") {
  Pipeline p;
  const LoweredFunc before = p.lower_s("f");
  Module m = build(p.s, {p.A, p.B}, "opengl", "f");
  // The default schedule bound the kernel's loops in build's copy, not in p.s.
  for (const Stage &st : p.s.stages()) {
    CHECK(st->bound_threads.empty());
    CHECK(st->relations.empty());
  }
  check_same_ir(before, p.lower_s("f"));
}
#endif
