// A reference interpreter for integer expressions (floor division and modulo) and a
// generator of random index expressions, shared by the simplifier and interval tests.
#pragma once
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <random>
#include <unordered_map>
#include <vector>

#include "tensorir/arith/interval.h"
#include "tensorir/ir/expr.h"
#include "tensorir/ir/op.h"
#include "tensorir/ir/printer.h"

namespace arith_ref {

using namespace tensorir;
using Env = std::unordered_map<const VarNode *, int64_t>;

inline int64_t fdiv(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }
inline int64_t fmod(int64_t a, int64_t b) { return a - fdiv(a, b) * b; }

// Evaluates e exactly in int64. Sets *bad when a value leaves the int32 range or a
// division by zero happens: such samples say nothing about int32 index math.
inline int64_t eval(const Expr &e, Env &env, bool *bad) {
  auto chk = [&](int64_t v) {
    if (v < INT32_MIN || v > INT32_MAX) *bad = true;
    return v;
  };
  if (auto *n = e.as<IntImmNode>()) return n->value;
  if (auto *n = e.as<VarNode>()) {
    auto it = env.find(n);
    if (it == env.end()) FAIL("unbound variable " << n->name);
    return it->second;
  }
  if (auto *n = e.as<AddNode>()) return chk(eval(n->a, env, bad) + eval(n->b, env, bad));
  if (auto *n = e.as<SubNode>()) return chk(eval(n->a, env, bad) - eval(n->b, env, bad));
  if (auto *n = e.as<MulNode>()) return chk(eval(n->a, env, bad) * eval(n->b, env, bad));
  if (auto *n = e.as<DivNode>()) {
    int64_t a = eval(n->a, env, bad), b = eval(n->b, env, bad);
    if (b == 0) return *bad = true, 0;
    return fdiv(a, b);
  }
  if (auto *n = e.as<ModNode>()) {
    int64_t a = eval(n->a, env, bad), b = eval(n->b, env, bad);
    if (b == 0) return *bad = true, 0;
    return fmod(a, b);
  }
  if (auto *n = e.as<MinNode>()) return std::min(eval(n->a, env, bad), eval(n->b, env, bad));
  if (auto *n = e.as<MaxNode>()) return std::max(eval(n->a, env, bad), eval(n->b, env, bad));
  if (auto *n = e.as<EQNode>()) return eval(n->a, env, bad) == eval(n->b, env, bad);
  if (auto *n = e.as<NENode>()) return eval(n->a, env, bad) != eval(n->b, env, bad);
  if (auto *n = e.as<LTNode>()) return eval(n->a, env, bad) < eval(n->b, env, bad);
  if (auto *n = e.as<LENode>()) return eval(n->a, env, bad) <= eval(n->b, env, bad);
  if (auto *n = e.as<GTNode>()) return eval(n->a, env, bad) > eval(n->b, env, bad);
  if (auto *n = e.as<GENode>()) return eval(n->a, env, bad) >= eval(n->b, env, bad);
  if (auto *n = e.as<AndNode>()) {
    int64_t a = eval(n->a, env, bad), b = eval(n->b, env, bad);
    return a && b;
  }
  if (auto *n = e.as<OrNode>()) {
    int64_t a = eval(n->a, env, bad), b = eval(n->b, env, bad);
    return a || b;
  }
  if (auto *n = e.as<NotNode>()) return !eval(n->a, env, bad);
  if (auto *n = e.as<SelectNode>()) {
    int64_t c = eval(n->condition, env, bad);
    int64_t t = eval(n->true_value, env, bad), f = eval(n->false_value, env, bad);
    return c ? t : f;
  }
  if (auto *n = e.as<LetNode>()) {
    env[n->var.get()] = eval(n->value, env, bad);
    int64_t r = eval(n->body, env, bad);
    env.erase(n->var.get());
    return r;
  }
  if (auto *n = e.as<CastNode>()) return eval(n->value, env, bad);
  FAIL("unexpected node in the reference interpreter: " << e);
  return 0;
}

// A variable with the range its values are drawn from; `declared` says whether the
// range is handed to the code under test.
struct RangedVar {
  Var var;
  int64_t lo, hi;
  bool declared;
};

// Random int32 expressions over a few variables: +, -, * (by a constant or a
// variable), / and % by positive constants (and by a positive variable), min, max,
// select on comparisons, and let.
class ExprGen {
 public:
  ExprGen(uint32_t seed, std::vector<RangedVar> vars) : rng_(seed), vars_(std::move(vars)) {}

  int pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }
  int64_t in(int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng_); }

  Expr leaf() {
    if (pick(3) == 0) return Expr(static_cast<int>(in(-9, 9)));
    return vars_[pick(static_cast<int>(vars_.size()))].var;
  }

  Expr gen(int depth) {
    if (depth <= 0 || pick(5) == 0) return leaf();
    Expr a = gen(depth - 1);
    switch (pick(12)) {
      case 0: case 1: return AddNode::make(a, gen(depth - 1));
      case 2: case 3: return SubNode::make(a, gen(depth - 1));
      case 4: return MulNode::make(a, Expr(static_cast<int>(in(-4, 8))));
      case 5: return MulNode::make(a, leaf());
      case 6: return DivNode::make(a, divisor());
      case 7: return ModNode::make(a, divisor());
      case 8: return MinNode::make(a, gen(depth - 1));
      case 9: return MaxNode::make(a, gen(depth - 1));
      case 10: return SelectNode::make(gen_bool(depth - 1), a, gen(depth - 1));
      default: {
        Var v("t");
        return LetNode::make(v, a, AddNode::make(MulNode::make(v, Expr(static_cast<int>(in(1, 3)))), gen(depth - 1)));
      }
    }
  }

  Expr gen_bool(int depth) {
    Expr a = gen(depth), b = gen(depth);
    switch (pick(9)) {
      case 0: return EQNode::make(a, b);
      case 1: return NENode::make(a, b);
      case 2: return LTNode::make(a, b);
      case 3: return LENode::make(a, b);
      case 4: return GTNode::make(a, b);
      case 5: return GENode::make(a, b);
      case 6: return AndNode::make(LTNode::make(a, b), gen_bool(depth - 1 < 0 ? 0 : depth - 1));
      case 7: return OrNode::make(GENode::make(a, b), gen_bool(depth - 1 < 0 ? 0 : depth - 1));
      default: return NotNode::make(LTNode::make(a, b));
    }
  }

  // A positive constant, or now and then a variable whose declared range is positive.
  Expr divisor() {
    if (pick(6) == 0)
      for (const RangedVar &v : vars_)
        if (v.declared && v.lo > 0) return v.var;
    return Expr(static_cast<int>(in(1, 9)));
  }

  // Variables come into scope (loop and let variables) and leave it.
  void push(RangedVar v) { vars_.push_back(std::move(v)); }
  void pop() { vars_.pop_back(); }

  Env sample() {
    Env env;
    for (const RangedVar &v : vars_) env[v.var.get()] = in(v.lo, v.hi);
    return env;
  }

  VarRanges ranges() const {
    VarRanges r;
    for (const RangedVar &v : vars_)
      if (v.declared) r[v.var.get()] = {Expr(static_cast<int>(v.lo)), Expr(static_cast<int>(v.hi))};
    return r;
  }

 private:
  std::mt19937 rng_;
  std::vector<RangedVar> vars_;
};

}  // namespace arith_ref
