// Stage::prefetch and inject_prefetch: the lines a loop's later iteration reads are
// requested at the top of the loop's body, the results never change, and misuse is an
// Error naming the stage and the loop.
#include <tensorir/tensorir.h>

#include <catch2/catch.hpp>

#include <random>
#include <regex>
#include <set>

#include "tensorir/ir/op.h"
#include "tensorir/ir/printer.h"
#include "tensorir/ir/visitor.h"
#include "pass_check.h"
#include "transforms/passes.h"

using namespace tensorir;
using Catch::Contains;

namespace {

// The flat indices of every tensorir.prefetch call in `s`, as printed, in order.
std::vector<std::string> prefetched(const Stmt &s) {
  struct Finder : IRVisitor {
    std::vector<std::string> at;
    using IRVisitor::visit;
    void visit(const CallNode *op) override {
      if (op->name == "tensorir.prefetch") at.push_back(to_string(op->args[0].as<LoadNode>()->index));
      IRVisitor::visit(op);
    }
  } f;
  f.visit(s);
  return f.at;
}

// C[i, j] = sum_k A[i, k] * B[k, j] with B [K, 64] read in rows of 64 floats (4 lines).
struct RowProduct {
  static constexpr int kM = 8, kK = 96, kN = 64;
  Tensor A = placeholder({kM, kK}, Float(32), "A");
  Tensor B = placeholder({kK, kN}, Float(32), "B");
  IterVar k = reduce_axis({0, kK}, "k");
  Tensor C = compute({kM, kN}, [&](Var i, Var j) { return sum(A(i, k) * B(k, j), {k}); }, "C");
  Schedule s = create_schedule({C});
  RowProduct() {
    Stage st = s[C];
    st.reorder({C.axis(0), k, C.axis(1)});
    st.vectorize(C.axis(1));
  }
};

std::vector<float> random_floats(size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float &x : v) x = d(rng);
  return v;
}

NDArray array_of(const std::vector<float> &v, std::vector<int64_t> shape) {
  NDArray a = NDArray::empty(shape, Float(32));
  std::copy(v.begin(), v.end(), static_cast<float *>(a.data()));
  return a;
}

}  // namespace

TEST_CASE("prefetch: each step of k asks for the lines of B's row `offset` steps ahead", "[pass][prefetch]") {
  RowProduct p;
  p.s[p.C].prefetch(p.B, p.k, 2);
  LoweredFunc f = lower(p.s, {p.A, p.B, p.C}, "row_product");
  // Row k + 2 of B: 64 floats from (k + 2) * 64, four lines of 16 floats.
  const std::vector<std::string> at = prefetched(f->body);
  REQUIRE(at.size() == 1);
  CHECK_THAT(at[0], Contains("k*64") && Contains("prefetch.i*16") && Contains("128"));
  const std::string ir = to_string(f->body);
  CHECK_THAT(ir, Contains("for (prefetch.i, 0, 4)"));
  // A's reads are not prefetched: only the tensor asked for.
  CHECK(ir.find("tensorir.prefetch(A") == std::string::npos);
}

TEST_CASE("prefetch: results equal those without it, and the CPU code has prefetch instructions",
          "[pass][prefetch]") {
  RowProduct plain, fetched;
  fetched.s[fetched.C].prefetch(fetched.B, fetched.k, 4);
  Module m0 = build(plain.s, {plain.A, plain.B, plain.C}, "llvm", "plain");
  Module m1 = build(fetched.s, {fetched.A, fetched.B, fetched.C}, "llvm", "fetched");
  const std::vector<float> a = random_floats(RowProduct::kM * RowProduct::kK, 1);
  const std::vector<float> b = random_floats(RowProduct::kK * RowProduct::kN, 2);
  NDArray A = array_of(a, {RowProduct::kM, RowProduct::kK}), B = array_of(b, {RowProduct::kK, RowProduct::kN});
  NDArray C0 = NDArray::empty({RowProduct::kM, RowProduct::kN}, Float(32));
  NDArray C1 = NDArray::empty({RowProduct::kM, RowProduct::kN}, Float(32));
  m0("plain")(A, B, C0);
  m1("fetched")(A, B, C1);
  const float *c0 = static_cast<const float *>(C0.data()), *c1 = static_cast<const float *>(C1.data());
  // And both against plain loops.
  for (int i = 0; i < RowProduct::kM; ++i)
    for (int j = 0; j < RowProduct::kN; ++j) {
      double ref = 0;
      for (int k = 0; k < RowProduct::kK; ++k)
        ref += double(a[size_t(i * RowProduct::kK + k)]) * b[size_t(k * RowProduct::kN + j)];
      CHECK(c1[i * RowProduct::kN + j] == c0[i * RowProduct::kN + j]);
      CHECK(c1[i * RowProduct::kN + j] == Approx(ref).margin(1e-4));
    }
  CHECK_THAT(m1.source("ll"), Contains("@llvm.prefetch"));
  CHECK(m0.source("ll").find("@llvm.prefetch") == std::string::npos);
#if defined(__x86_64__)
  if (m1.source("asm").find("prefetcht0") == std::string::npos) FAIL("no prefetcht0 in:\n" << m1.source("asm"));
#endif
}

TEST_CASE("prefetch: a strided block is a span of its own, blocks far apart are not merged", "[pass][prefetch]") {
  // W [2, K, 16]: each k reads W[0, k, :] and W[1, k, :], 16 floats each, K * 16 apart.
  constexpr int kK = 128;
  Tensor X = placeholder({kK}, Float(32), "X");
  Tensor W = placeholder({2, kK, 16}, Float(32), "W");
  IterVar k = reduce_axis({0, kK}, "k");
  Tensor Y = compute({2, 16}, [&](Var o, Var c) { return sum(X(k) * W(o, k, c), {k}); }, "Y");
  Schedule s = create_schedule({Y});
  s[Y].reorder({k, Y.axis(0), Y.axis(1)});
  s[Y].unroll(Y.axis(0));
  s[Y].vectorize(Y.axis(1));
  s[Y].prefetch(W, k, 8);
  const std::vector<std::string> at = prefetched(lower(s, {X, W, Y}, "two_blocks")->body);
  // One line per block per step, 8 steps (8 lines) ahead: k*16 + 128 and k*16 + 2176.
  REQUIRE(at.size() == 2);
  std::set<std::string> want = {"((k*16) + 128)", "((k*16) + 2176)"};
  CHECK(want.count(at[0]));
  CHECK(want.count(at[1]));
  CHECK(at[0] != at[1]);
}

TEST_CASE("prefetch: a loop-invariant read and a loop simplified away give no prefetch", "[pass][prefetch]") {
  Tensor A = placeholder({64}, Float(32), "A");
  Tensor B = placeholder({64}, Float(32), "B");
  // B[j] + A[0]: A's line is the same every iteration.
  Tensor C = compute({64}, [&](Var j) { return B(j) + A(0); }, "C");
  Schedule s = create_schedule({C});
  auto [jo, ji] = s[C].split(C.axis(0), 16);
  s[C].prefetch(A, jo, 1);
  CHECK(prefetched(lower(s, {A, B, C}, "invariant")->body).empty());
  // jo has one iteration when the split covers the whole extent.
  Schedule s1 = create_schedule({C});
  auto [one, all] = s1[C].split(C.axis(0), 64);
  s1[C].prefetch(B, one, 1);
  CHECK(prefetched(lower(s1, {A, B, C}, "single")->body).empty());
}

TEST_CASE("prefetch: bad offsets, axes and placements are errors naming the stage", "[pass][prefetch][error]") {
  RowProduct p;
  Stage st = p.s[p.C];
  CHECK_THROWS_WITH(st.prefetch(p.B, p.k, 0), Contains("'C'") && Contains("at least 1"));
  IterVar other = reduce_axis({0, 4}, "other");
  CHECK_THROWS_WITH(st.prefetch(p.B, other, 1), Contains("prefetch on stage 'C'") && Contains("other"));
  // At the vector loop itself.
  st.prefetch(p.B, p.C.axis(1), 1);
  CHECK_THROWS_WITH(lower(p.s, {p.A, p.B, p.C}, "vector_loop"), Contains("vectorized") && Contains("'C'"));
}

TEST_CASE("prefetch: a tensor computed inside the loop cannot be prefetched there", "[pass][prefetch][error]") {
  Tensor A = placeholder({16, 16}, Float(32), "A");
  Tensor T = compute({16, 16}, [&](Var i, Var j) { return A(i, j) * 2.0f; }, "T");
  Tensor C = compute({16, 16}, [&](Var i, Var j) { return T(i, j) + 1.0f; }, "C");
  Schedule s = create_schedule({C});
  s[T].compute_at(s[C], C.axis(0));
  s[C].prefetch(T, C.axis(0), 1);
  CHECK_THROWS_WITH(lower(s, {A, C}, "inner_tensor"),
                    Contains("prefetch of tensor 'T' at loop 'i'") && Contains("computed inside that loop"));
}

TEST_CASE("prefetch: targets without prefetch instructions get the kernel without them", "[pass][prefetch]") {
  CHECK(Target("llvm").caps().prefetch);
  CHECK_FALSE(Target("wasm").caps().prefetch);
  RowProduct p;
  p.s[p.C].prefetch(p.B, p.k, 2);
  // WebAssembly has no prefetch instruction: build() strips the calls and their loops.
  Module wasm = build(p.s, {p.A, p.B, p.C}, "wasm", "row_product");
  CHECK(wasm.source("ll").find("@llvm.prefetch") == std::string::npos);
  LoweredFunc f = lower(p.s, {p.A, p.B, p.C}, "row_product");
  REQUIRE(!prefetched(f->body).empty());
  const Stmt stripped = strip_prefetch(f->body);
  CHECK(prefetched(stripped).empty());
  CHECK(to_string(stripped).find("prefetch.i") == std::string::npos);
  // What is left is the kernel lowered without the prefetch.
  RowProduct plain;
  CHECK(to_string(stripped) == to_string(lower(plain.s, {plain.A, plain.B, plain.C}, "row_product")->body));
}

TEST_CASE("inject_prefetch: the lines `offset` iterations ahead, at the top of the body", "[pass][prefetch]") {
  // for k in [0, 8): prefetch(B, 2) { for j in [0, 16): C[j] = B[k*16 + j] }
  Var B("B", Handle()), C("C", Handle()), k("k"), j("j");
  IterVar kv = IterVar::make(Range(0, 8), k, IterVarType::DataPar);
  auto spec = [&](int offset) {
    return CallNode::make(Int(32), "tensorir.prefetch", {LoadNode::make(Float(32), B, 0), offset});
  };
  auto loop_k = [&](Stmt body) { return ForNode::make(k, 0, 8, ForKind::Serial, body); };
  // Loop k with a prefetch of B `offset` steps ahead around `body`.
  auto marked = [&](int offset, Stmt body) {
    return loop_k(AttrStmtNode::make(Ref<const Object>(kv.get()), "prefetch", spec(offset), body));
  };
  auto prefetch_at = [&](Expr index) {
    return EvaluateNode::make(CallNode::make(Int(32), "tensorir.prefetch", {LoadNode::make(Float(32), B, index)}));
  };
  auto rows_of = [&](int width, Expr stride) {
    const Stmt store = StoreNode::make(C, LoadNode::make(Float(32), B, k * stride + j), j);
    return ForNode::make(j, 0, width, ForKind::Serial, store);
  };
  // One aligned line a step: one call, two rows on.
  const Stmt copy = rows_of(16, 16);
  TIR_CHECK_IR(inject_prefetch(marked(2, copy)), loop_k(BlockNode::make({prefetch_at(k * 16 + 32), copy})));
  // Rows of 8 floats from k*8: they may straddle two lines.
  const std::string text = to_string(inject_prefetch(marked(1, rows_of(8, 8))));
  CHECK_THAT(text, Contains("for (prefetch.i, 0, 2)") && Contains("(k*8)") && Contains("+ 8)"));
  // Two loads 8 floats apart merge into one span of 24 floats: two lines.
  const Stmt two = ForNode::make(
      j, 0, 16, ForKind::Serial,
      StoreNode::make(C, LoadNode::make(Float(32), B, k * 16 + j) + LoadNode::make(Float(32), B, k * 16 + j + 8), j));
  const Stmt merged = inject_prefetch(marked(1, two));
  CHECK_THAT(to_string(merged), Contains("for (prefetch.i, 0, 2)"));
  CHECK(prefetched(merged).size() == 1);
  // A loop that reads nothing of the tensor is an error naming both.
  const Stmt other = ForNode::make(j, 0, 16, ForKind::Serial, StoreNode::make(C, 1.0f, j));
  CHECK_THROWS_WITH(inject_prefetch(marked(1, other)),
                    Contains("'B'") && Contains("'k'") && Contains("reads no element"));
}

TEST_CASE("prefetch: loops changed after it, vector loops around it and inlined tensors are errors",
          "[pass][prefetch][error]") {
  {
    RowProduct p;
    p.s[p.C].prefetch(p.B, p.k, 2);
    p.s[p.C].split(p.k, 8);
    CHECK_THROWS_WITH(lower(p.s, {p.A, p.B, p.C}, "split_after"),
                      Contains("'C'") && Contains("'k'") && Contains("no longer one of its loops"));
  }
  {
    // C[j] over i: the vector loop j outside the prefetch's loop i.
    Tensor A = placeholder({16, 16}, Float(32), "A");
    IterVar r = reduce_axis({0, 16}, "r");
    Tensor C = compute({16}, [&](Var j) { return sum(A(r, j), {r}); }, "C");
    Schedule s = create_schedule({C});
    s[C].vectorize(C.axis(0));
    s[C].prefetch(A, r, 1);
    CHECK_THROWS_WITH(lower(s, {A, C}, "vector_around"), Contains("around it is vectorized"));
  }
  {
    Tensor A = placeholder({16, 16}, Float(32), "A");
    Tensor T = compute({16, 16}, [&](Var i, Var j) { return A(i, j) * 2.0f; }, "T");
    Tensor C = compute({16, 16}, [&](Var i, Var j) { return T(i, j) + 1.0f; }, "C");
    Schedule s = create_schedule({C});
    s[T].compute_inline();
    s[C].prefetch(T, C.axis(0), 1);
    CHECK_THROWS_WITH(lower(s, {A, C}, "inlined"), Contains("'T'") && Contains("inlined"));
  }
}

TEST_CASE("prefetch: a copied schedule keeps its prefetches", "[pass][prefetch]") {
  RowProduct p;
  p.s[p.C].prefetch(p.B, p.k, 3);
  p.s[p.C].prefetch(p.B, p.k, 2);  // asked again: the last offset holds
  Schedule copy = p.s.copy();
  const std::vector<std::string> a = prefetched(lower(p.s, {p.A, p.B, p.C}, "original")->body);
  const std::vector<std::string> b = prefetched(lower(copy, {p.A, p.B, p.C}, "copy")->body);
  REQUIRE(a.size() == 1);
  CHECK(a == b);
  CHECK_THAT(a[0], Contains("128"));
}
