// IR core: types, operator type rules, folding, printing, structural equality, mutators.
#include <catch2/catch.hpp>

#include <algorithm>
#include <limits>
#include <random>
#include <string>

#include "tensorir/error.h"
#include "tensorir/ir/expr.h"
#include "tensorir/ir/op.h"
#include "tensorir/ir/printer.h"
#include "tensorir/ir/structural.h"
#include "tensorir/ir/visitor.h"

using namespace tensorir;

namespace {
// Evaluates a tree of integer constants and arithmetic on one variable, as a reference
// for folding and substitution.
int64_t eval(const Expr &e, const VarNode *x, int64_t xv) {
  if (auto *n = e.as<IntImmNode>()) return n->value;
  if (auto *n = e.as<VarNode>()) {
    REQUIRE(n == x);
    return xv;
  }
  auto fdiv = [](int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); };
  if (auto *n = e.as<AddNode>()) return eval(n->a, x, xv) + eval(n->b, x, xv);
  if (auto *n = e.as<SubNode>()) return eval(n->a, x, xv) - eval(n->b, x, xv);
  if (auto *n = e.as<MulNode>()) return eval(n->a, x, xv) * eval(n->b, x, xv);
  if (auto *n = e.as<DivNode>()) return fdiv(eval(n->a, x, xv), eval(n->b, x, xv));
  if (auto *n = e.as<ModNode>()) {
    int64_t a = eval(n->a, x, xv), b = eval(n->b, x, xv);
    return a - fdiv(a, b) * b;
  }
  if (auto *n = e.as<MinNode>()) return std::min(eval(n->a, x, xv), eval(n->b, x, xv));
  if (auto *n = e.as<MaxNode>()) return std::max(eval(n->a, x, xv), eval(n->b, x, xv));
  FAIL("unexpected node " << e);
  return 0;
}

Stmt matmul_nest(Var C, Var A, Var B) {
  Var i("i"), j("j"), k("k");
  Expr idx = i * 96 + j;
  Stmt init = StoreNode::make(C, 0.0f, idx);
  Stmt update = StoreNode::make(
      C, LoadNode::make(Float(32), C, idx) + LoadNode::make(Float(32), A, i * 64 + k) *
                                                 LoadNode::make(Float(32), B, k * 96 + j),
      idx);
  Stmt kloop = ForNode::make(k, 0, 64, ForKind::Serial, update);
  Stmt jloop = ForNode::make(j, 0, 96, ForKind::Serial, BlockNode::make({init, kloop}));
  return ForNode::make(i, 0, 128, ForKind::Serial, jloop);
}
}  // namespace

TEST_CASE("type names round-trip through parse", "[ir]") {
  for (Type t : {Int(8), Int(32), Int(64, 4), UInt(16), Float(16), Float(32), Float(64, 8),
                 BFloat(16), Bool(), Bool(16), Handle()}) {
    INFO(t.str());
    CHECK(Type::parse(t.str()) == t);
  }
  CHECK(Float(32).str() == "float32");
  CHECK(Int(32, 8).str() == "int32x8");
  CHECK(Bool().str() == "bool");
  CHECK_THROWS_AS(Type::parse("floaty"), Error);
  CHECK_THROWS_AS(Type::parse("int32x"), Error);
}

namespace {
// The range of the C type T as Type::min_int and max_int give it, and the values at its
// edges.
template <typename T>
void check_int_range(Type t) {
  INFO(t.str());
  CHECK(t.min_int() == int64_t(std::numeric_limits<T>::min()));
  const uint64_t top = uint64_t(std::numeric_limits<T>::max());
  if (top > uint64_t(std::numeric_limits<int64_t>::max())) {
    CHECK_FALSE(t.max_int().has_value());
  } else {
    REQUIRE(t.max_int().has_value());
    CHECK(*t.max_int() == int64_t(top));
    CHECK(t.holds_int(int64_t(top)));
    if (top < uint64_t(std::numeric_limits<int64_t>::max())) CHECK_FALSE(t.holds_int(int64_t(top) + 1));
  }
  CHECK(t.holds_int(t.min_int()));
  if (t.min_int() > std::numeric_limits<int64_t>::min()) CHECK_FALSE(t.holds_int(t.min_int() - 1));
  CHECK(t.with_lanes(8).min_int() == t.min_int());  // per element
}
}  // namespace

TEST_CASE("integer types know their ranges", "[ir]") {
  check_int_range<int8_t>(Int(8));
  check_int_range<int16_t>(Int(16));
  check_int_range<int32_t>(Int(32));
  check_int_range<int64_t>(Int(64));
  check_int_range<uint8_t>(UInt(8));
  check_int_range<uint16_t>(UInt(16));
  check_int_range<uint32_t>(UInt(32));
  check_int_range<uint64_t>(UInt(64));
  check_int_range<bool>(Bool());
  CHECK(UInt(64).holds_int(std::numeric_limits<int64_t>::max()));
  CHECK_FALSE(UInt(64).holds_int(-1));
}

TEST_CASE("literals adopt the other operand's type", "[ir]") {
  Var x("x", Float(32)), i("i"), n("n", Int(64));
  CHECK((x + 1).type() == Float(32));
  CHECK((1 + x).type() == Float(32));
  CHECK((x * 2.5).type() == Float(32));
  CHECK((i + 1).type() == Int(32));
  CHECK((n + 1).type() == Int(64));
  CHECK((n + i).type() == Int(64));  // int32 widens to int64
  CHECK((i + n).type() == Int(64));
  Var h("h", Float(16)), d("d", Float(64));
  CHECK((h + x).type() == Float(32));
  CHECK((d * x).type() == Float(64));
  Var v("v", Float(32, 8));
  CHECK((v + x).type() == Float(32, 8));  // scalar broadcasts
  CHECK((v * 2).type() == Float(32, 8));
  CHECK((i < 3).type() == Bool());
}

TEST_CASE("mixing int and float expressions asks for a cast", "[ir]") {
  Var x("x", Float(32)), i("i");
  try {
    (void)(i + x);
    FAIL("int + float did not throw");
  } catch (const Error &e) {
    std::string msg = e.what();
    CHECK(msg.find("cast") != std::string::npos);
    CHECK(msg.find("int32") != std::string::npos);
    CHECK(msg.find("float32") != std::string::npos);
  }
  try {
    (void)(i + 1.5f);
    FAIL("int + float constant did not throw");
  } catch (const Error &e) {
    CHECK(std::string(e.what()).find("cast") != std::string::npos);
  }
  CHECK_THROWS_AS(i / 0, Error);
  CHECK_THROWS_AS(i % 0, Error);
  CHECK_THROWS_AS(i && (i < 2), Error);
  CHECK_THROWS_AS(select(i, 1, 2), Error);
  Var buf("buf", Handle());
  CHECK_THROWS_AS(buf + 1, Error);
  CHECK_NOTHROW(cast(Float(32), i) + x);
  CHECK((cast(Float(32), i) + x).type() == Float(32));
}

TEST_CASE("operators fold constants with floor division semantics", "[ir]") {
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> dist(-50, 50);
  for (int t = 0; t < 200; ++t) {
    int a = dist(rng), b = dist(rng);
    if (b == 0) b = 3;
    INFO(a << " op " << b);
    CHECK(is_const_int(Expr(a) + Expr(b), a + b));
    CHECK(is_const_int(Expr(a) - Expr(b), a - b));
    CHECK(is_const_int(Expr(a) * Expr(b), a * b));
    int q = a / b - ((a % b != 0) && ((a < 0) != (b < 0)));
    CHECK(is_const_int(Expr(a) / Expr(b), q));
    CHECK(is_const_int(Expr(a) % Expr(b), a - q * b));
    CHECK(is_const_int(min(Expr(a), Expr(b)), std::min(a, b)));
    CHECK(is_const_int(max(Expr(a), Expr(b)), std::max(a, b)));
    CHECK(is_const_int(Expr(a) < Expr(b), a < b));
    CHECK(is_const_int(Expr(a) >= Expr(b), a >= b));
  }
  Var i("i");
  CHECK((i + 0).same_as(i));
  CHECK((i * 1).same_as(i));
  CHECK(is_const_int(i * 0, 0));
  CHECK((i / 1).same_as(i));
  Expr sum = Expr(1.5f) + Expr(2.0f);  // keeps the node alive
  auto *f = sum.as<FloatImmNode>();
  REQUIRE(f);
  CHECK(f->value == 3.5);
  // int8 constants wrap like the hardware does.
  CHECK(is_const_int(IntImmNode::make(Int(8), 200), -56));
  CHECK(is_const_int(IntImmNode::make(UInt(8), 300), 44));
  CHECK(is_const_int(make_const(Bool(), 5), 1));
  CHECK(make_const(Float(32, 4), 1).as<BroadcastNode>());
  CHECK(is_const_int(max_value(Int(8)), 127));
  CHECK(is_const_int(min_value(Int(16)), -32768));
  Expr fmax = max_value(Float(32));
  auto *fm = fmax.as<FloatImmNode>();
  REQUIRE(fm);
  CHECK(fm->value == Approx(3.4028234663852886e38));
  CHECK(min_value(Float(32)).as<FloatImmNode>()->value == -fm->value);
}

TEST_CASE("intrinsics produce typed calls", "[ir]") {
  Var x("x", Float(32)), i("i");
  Expr ex = exp(x);
  auto *c = ex.as<CallNode>();
  REQUIRE(c);
  CHECK(c->name == "exp");
  CHECK(c->type == Float(32));
  CHECK(c->call_type == CallNode::PureIntrinsic);
  CHECK(sqrt(i).type() == Float(32));  // ints become float32
  CHECK(abs(i).type() == Int(32));
  CHECK(abs(i).as<CallNode>()->name == "abs");
  CHECK(abs(x).as<CallNode>()->name == "fabs");
  Expr one = exp(Expr(0.0f));
  auto *e = one.as<FloatImmNode>();
  REQUIRE(e);
  CHECK(e->value == 1.0);
  for (std::string n : {"exp", "log", "sqrt", "tanh", "sigmoid", "pow", "abs"}) {
    CHECK(std::find(intrinsic_names().begin(), intrinsic_names().end(), n) != intrinsic_names().end());
  }
}

TEST_CASE("the printer shows a readable loop nest", "[ir]") {
  Var C("C", Handle()), A("A", Handle()), B("B", Handle());
  std::string s = to_string(matmul_nest(C, A, B));
  INFO(s);
  CHECK(s.find("for (i, 0, 128) {\n  for (j, 0, 96) {\n    C[((i*96) + j)] = 0f\n") != std::string::npos);
  CHECK(s.find("      C[((i*96) + j)] = (C[((i*96) + j)] + (A[((i*64) + k)]*B[((k*96) + j)]))\n") !=
        std::string::npos);
  Var v("v", Float(32));
  CHECK(to_string(cast(Float(32), Var("n")) + 1.5f) == "(float32(n) + 1.5f)");
  CHECK(to_string(BroadcastNode::make(v, 8)) == "x8(v)");
  CHECK(to_string(RampNode::make(Var("n"), 1, 4)) == "ramp(n, 1, 4)");
  CHECK(to_string(Expr(int64_t(5))) == "5L");
  Stmt par = ForNode::make(Var("p"), 0, 4, ForKind::Parallel, EvaluateNode::make(0));
  CHECK(to_string(par).rfind("parallel for (p, 0, 4) {", 0) == 0);
  Stmt alloc = AllocateNode::make(C, Float(32), {128, 96}, "global", EvaluateNode::make(0));
  CHECK(to_string(alloc).find("allocate C[float32 * 128 * 96] in global") != std::string::npos);
}

TEST_CASE("structural equality and hashing", "[ir]") {
  Var C("C", Handle()), A("A", Handle()), B("B", Handle());
  Stmt s1 = matmul_nest(C, A, B), s2 = matmul_nest(C, A, B);
  CHECK(!s1.same_as(s2));
  CHECK(structural_equal(s1, s2));  // loop variables differ but are bound
  CHECK(structural_hash(s1) == structural_hash(s2));
  Var D("D", Handle());
  CHECK(!structural_equal(s1, matmul_nest(D, A, B)));  // free buffers by identity

  Var x("x"), y("y");
  CHECK(structural_equal(x + 1, x + 1));
  CHECK(structural_hash(x + 1) == structural_hash(x + 1));
  CHECK(!structural_equal(x + 1, x + 2));
  CHECK(!structural_equal(x + 1, y + 1));
  CHECK(!structural_equal(Expr(1), Expr(int64_t(1))));
  Var i("i"), j("j");
  Stmt f1 = ForNode::make(i, 0, 10, ForKind::Serial, StoreNode::make(C, cast(Float(32), i), i));
  Stmt f2 = ForNode::make(j, 0, 10, ForKind::Serial, StoreNode::make(C, cast(Float(32), j), j));
  Stmt f3 = ForNode::make(j, 0, 10, ForKind::Serial, StoreNode::make(C, cast(Float(32), j), i));
  CHECK(structural_equal(f1, f2));
  CHECK(structural_hash(f1) == structural_hash(f2));
  CHECK(!structural_equal(f1, f3));
  Var a("a"), b("b");
  CHECK(structural_equal(LetNode::make(a, x, a * 2), LetNode::make(b, x, b * 2)));
  CHECK(!structural_equal(LetNode::make(a, x, a * 2), LetNode::make(b, x, a * 2)));
}

TEST_CASE("IRMutator keeps unchanged nodes and substitute replaces variables", "[ir]") {
  Var C("C", Handle()), A("A", Handle()), B("B", Handle());
  Stmt s = matmul_nest(C, A, B);
  struct Identity : IRMutator {};
  Identity id;
  CHECK(id.mutate(s).same_as(s));
  Var x("x"), y("y");
  Expr e = max(x * 3 - y, x / 2) % 7;
  CHECK(id.mutate(e).same_as(e));
  CHECK(substitute(e, {{Var("z"), Expr(1)}}).same_as(e));

  std::mt19937 rng(11);
  std::uniform_int_distribution<int> dist(-1000, 1000);
  for (int t = 0; t < 50; ++t) {
    int xv = dist(rng), yv = dist(rng);
    Expr r = substitute(e, {{y, Expr(yv)}});
    CHECK(!uses_var(r, {y}));
    CHECK(uses_var(r, {x}));
    int64_t want = eval(substitute(e, {{y, Expr(yv)}, {x, Expr(xv)}}), nullptr, 0);
    CHECK(eval(r, x.get(), xv) == want);
    int64_t a = int64_t(xv) * 3 - yv, b = xv >= 0 ? xv / 2 : -((-xv + 1) / 2);
    int64_t m = std::max(a, b);
    CHECK(want == ((m % 7) + 7) % 7);
  }
  Stmt s2 = substitute(s, {{A, B}});
  CHECK(!s2.same_as(s));
  CHECK(to_string(s2).find("A[") == std::string::npos);
}
