// The llvm backend on hand-written lowered functions: every node kind it compiles, checked
// against plain C++ on random data, and the errors it must raise.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <regex>

#include "tensorir/build.h"
#include "tensorir/error.h"
#include "tensorir/ir/op.h"
#include "tensorir/runtime/ndarray.h"
#include "tensorir/runtime/workspace.h"

using namespace tensorir;

namespace {

LoweredFunc make_func(const std::string &name, std::vector<LoweredArg> args, std::vector<Var> symbols,
                      Stmt body) {
  auto *n = new LoweredFuncNode();
  n->name = name;
  n->args = std::move(args);
  n->symbols = std::move(symbols);
  n->body = std::move(body);
  return LoweredFunc(n);
}

LoweredArg buffer(const Var &handle, Type dtype, std::vector<Expr> shape) {
  LoweredArg a;
  a.name = handle.name();
  a.var = handle;
  a.is_buffer = true;
  a.dtype = dtype;
  a.shape = std::move(shape);
  return a;
}

LoweredArg scalar(const Var &v) {
  LoweredArg a;
  a.name = v.name();
  a.var = v;
  a.is_buffer = false;
  a.dtype = v.type();
  return a;
}

Var handle(const std::string &name) { return Var(name, Handle()); }

Expr ld(const Var &buf, Expr index, Type t = Float(32)) { return LoadNode::make(t, buf, index); }
Stmt st(const Var &buf, Expr value, Expr index) { return StoreNode::make(buf, value, index); }
Stmt loop(const Var &i, Expr min, Expr extent, Stmt body, ForKind kind = ForKind::Serial) {
  return ForNode::make(i, min, extent, kind, body);
}
Expr ramp(Expr base, int lanes, int stride = 1) { return RampNode::make(base, IntImmNode::make(Int(32), stride), lanes); }
Expr bcast(Expr v, int lanes) { return BroadcastNode::make(v, lanes); }
Expr f32(double v) { return FloatImmNode::make(Float(32), v); }
Expr i32(int64_t v) { return IntImmNode::make(Int(32), v); }

Module build_one(const LoweredFunc &f, const std::string &target = "llvm") { return build({f}, Target(target)); }

std::vector<float> floats(const NDArray &a) { return a.to_vector<float>(); }

// Element-wise: out[i] = fn(in[i]) over a length-n float32 vector.
void check_unary(const std::string &name, const std::function<Expr(Expr)> &make,
                 const std::function<double(double)> &ref, double lo, double hi, int lanes) {
  Var A = handle("A"), B = handle("B"), n("n"), i("i");
  Stmt body;
  if (lanes == 1) {
    body = loop(i, 0, n, st(B, make(ld(A, i)), i));
  } else {
    Expr idx = ramp(MulNode::make(i, i32(lanes)), lanes);
    body = loop(i, 0, DivNode::make(n, i32(lanes)), st(B, make(ld(A, idx, Float(32, lanes))), idx));
  }
  Module m = build_one(make_func("k_" + name, {buffer(A, Float(32), {n}), buffer(B, Float(32), {n})}, {n}, body));
  NDArray a = NDArray::random({256}, Float(32), 7, lo, hi);
  NDArray b = NDArray::empty({256}, Float(32));
  m("k_" + name)(a, b);
  std::vector<float> x = floats(a), y = floats(b);
  for (size_t k = 0; k < x.size(); ++k) {
    INFO(name << " lanes " << lanes << " at x = " << x[k]);
    double r = ref(double(x[k]));
    CHECK(std::abs(double(y[k]) - r) <= 2e-6 * std::max(1.0, std::abs(r)));
  }
}

int64_t ref_floordiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
int64_t ref_floormod(int64_t a, int64_t b) { return a - ref_floordiv(a, b) * b; }

}  // namespace

TEST_CASE("llvm: element-wise add with a symbolic length", "[llvm]") {
  Var A = handle("A"), B = handle("B"), C = handle("C"), n("n"), i("i");
  Stmt body = loop(i, 0, n, st(C, AddNode::make(ld(A, i), ld(B, i)), i));
  Module m = build_one(make_func("vadd", {buffer(A, Float(32), {n}), buffer(B, Float(32), {n}),
                                          buffer(C, Float(32), {n})},
                                 {n}, body));
  for (int64_t len : {1, 7, 1000, 4099}) {
    NDArray a = NDArray::random({len}, Float(32), 1), b = NDArray::random({len}, Float(32), 2);
    NDArray c = NDArray::empty({len}, Float(32));
    m("vadd")(a, b, c);
    std::vector<float> x = floats(a), y = floats(b), z = floats(c);
    for (int64_t k = 0; k < len; ++k) REQUIRE(z[k] == x[k] + y[k]);
  }
  CHECK(m.source("ll").find("vadd") != std::string::npos);
}

TEST_CASE("llvm: Ramp loads and stores become vector instructions", "[llvm]") {
  Var A = handle("A"), B = handle("B"), C = handle("C"), io("io");
  Expr idx = ramp(MulNode::make(io, i32(8)), 8);
  Expr v = AddNode::make(MulNode::make(ld(A, idx, Float(32, 8)), bcast(f32(2.0), 8)), ld(B, idx, Float(32, 8)));
  Stmt body = loop(io, 0, 128, st(C, v, idx));
  Module m = build_one(make_func("vec8", {buffer(A, Float(32), {1024}), buffer(B, Float(32), {1024}),
                                          buffer(C, Float(32), {1024})},
                                 {}, body));
  NDArray a = NDArray::random({1024}, Float(32), 3), b = NDArray::random({1024}, Float(32), 4);
  NDArray c = NDArray::empty({1024}, Float(32));
  m("vec8")(a, b, c);
  std::vector<float> x = floats(a), y = floats(b), z = floats(c);
  for (int k = 0; k < 1024; ++k) REQUIRE(z[k] == Approx(x[k] * 2.0f + y[k]).margin(1e-6));

  std::string ll = m.source("ll");
  CHECK(std::regex_search(ll, std::regex("<(8|16|32|64) x float>")));
  std::string as = m.source("asm");
  CHECK(!as.empty());
  CHECK(as.find("vec8") != std::string::npos);
  CHECK_THROWS_WITH(m.source("glsl"), Catch::Contains("ll, asm"));
}

TEST_CASE("llvm: gathers, scatters, selects, lets and loop kinds", "[llvm]") {
  Var A = handle("A"), B = handle("B"), C = handle("C"), io("io"), i("i"), t("t", Float(32, 8));
  // B[8io .. 8io+8) = A[16io, 16io+2, ...] (a stride-2 gather), then reversed through a scatter.
  Expr src = ramp(MulNode::make(io, i32(16)), 8, 2);
  Expr dst = ramp(MulNode::make(io, i32(8)), 8);
  Expr rev = ramp(AddNode::make(MulNode::make(io, i32(8)), i32(7)), 8, -1);
  Stmt gather = loop(io, 0, 16, st(B, ld(A, src, Float(32, 8)), dst), ForKind::Unrolled);
  Stmt scatter = loop(io, 0, 16,
                      st(C, LetNode::make(t, ld(B, dst, Float(32, 8)),
                                          SelectNode::make(GTNode::make(t, bcast(f32(0), 8)), t,
                                                           MulNode::make(t, bcast(f32(0.5), 8)))),
                         rev));
  // A trailing Vectorized loop: C[i] = max(C[i], -0.25) for i in [0, 128).
  Stmt clamp = loop(i, 0, 128, st(C, MaxNode::make(ld(C, i), f32(-0.25)), i), ForKind::Vectorized);
  Module m = build_one(make_func("shuffle", {buffer(A, Float(32), {256}), buffer(B, Float(32), {128}),
                                             buffer(C, Float(32), {128})},
                                 {}, BlockNode::make({gather, scatter, clamp})));
  NDArray a = NDArray::random({256}, Float(32), 5);
  NDArray b = NDArray::empty({128}, Float(32)), c = NDArray::empty({128}, Float(32));
  m("shuffle")(a, b, c);
  std::vector<float> x = floats(a), y = floats(b), z = floats(c);
  for (int k = 0; k < 128; ++k) {
    REQUIRE(y[k] == x[2 * k]);
    int blk = k / 8, lane = k % 8;
    float v = y[blk * 8 + 7 - lane];
    float expect = std::max(v > 0 ? v : v * 0.5f, -0.25f);
    REQUIRE(z[k] == expect);
  }
}

TEST_CASE("llvm: a load of 3 lanes far apart (channel planes) is scalar loads, not a gather", "[llvm]") {
  Var A = handle("A"), B = handle("B"), io("io");
  // B[3io .. 3io+3) = A[io], A[io + 100], A[io + 200]: NCHW with 3 planes into NHWC.
  Stmt body = loop(io, 0, 100, st(B, ld(A, ramp(io, 3, 100), Float(32, 3)), ramp(MulNode::make(io, i32(3)), 3)));
  Module m = build_one(make_func("planes", {buffer(A, Float(32), {300}), buffer(B, Float(32), {300})}, {}, body));
  NDArray a = NDArray::random({300}, Float(32), 14), b = NDArray::empty({300}, Float(32));
  m("planes")(a, b);
  std::vector<float> x = floats(a), y = floats(b);
  for (int k = 0; k < 100; ++k)
    for (int c = 0; c < 3; ++c) REQUIRE(y[size_t(3 * k + c)] == x[size_t(k + 100 * c)]);
  CHECK(m.source("ll").find("masked.gather") == std::string::npos);
}

TEST_CASE("llvm: bool temporaries, let statements and branches", "[llvm]") {
  Var A = handle("A"), B = handle("B"), M = handle("M"), i("i"), io("io"), x("x", Float(32));
  // M[i] = A[i] > 0 (bool in memory, scalar and 8 lanes at a time), then
  // B[i] = M[i] ? x : -x with x = 2 * A[i], or 10 when |x| > 1.5.
  Expr vidx = ramp(MulNode::make(io, i32(8)), 8);
  Stmt mask_lo = loop(io, 0, 4, st(M, GTNode::make(ld(A, vidx, Float(32, 8)), bcast(f32(0), 8)), vidx));
  Stmt mask_hi = loop(i, 32, 32, st(M, GTNode::make(ld(A, i), f32(0)), i));
  Expr x_val = MulNode::make(ld(A, i), f32(2));
  Stmt branch = IfThenElseNode::make(
      GTNode::make(tensorir::abs(x), f32(1.5)), st(B, f32(10), i),
      st(B, SelectNode::make(ld(M, i, Bool()), x, SubNode::make(f32(0), x)), i));
  Stmt use = loop(i, 0, 64, LetStmtNode::make(x, x_val, branch));
  Stmt body = AllocateNode::make(M, Bool(), {i32(64)}, "local", BlockNode::make({mask_lo, mask_hi, use}));
  Module m = build_one(make_func("masks", {buffer(A, Float(32), {64}), buffer(B, Float(32), {64})}, {}, body));
  NDArray a = NDArray::random({64}, Float(32), 13), b = NDArray::empty({64}, Float(32));
  m("masks")(a, b);
  std::vector<float> xa = floats(a), yb = floats(b);
  for (int k = 0; k < 64; ++k) {
    float xv = xa[k] * 2;
    float expect = std::fabs(xv) > 1.5f ? 10.0f : (xa[k] > 0 ? xv : -xv);
    REQUIRE(yb[k] == expect);
  }
}

TEST_CASE("llvm: parallel loops capture buffers, scalars and outer variables", "[llvm]") {
  Var A = handle("A"), C = handle("C"), n("n"), m_("m"), s("s", Float(32)), i("i"), j("j");
  Expr idx = AddNode::make(MulNode::make(i, m_), j);
  Expr v = AddNode::make(MulNode::make(ld(A, idx), s), CastNode::make(Float(32), i));
  Stmt body = loop(i, 0, n, loop(j, 0, m_, st(C, v, idx)), ForKind::Parallel);
  Module m = build_one(make_func("par", {buffer(A, Float(32), {n, m_}), buffer(C, Float(32), {n, m_}), scalar(s)},
                                 {n, m_}, body));
  NDArray a = NDArray::random({67, 33}, Float(32), 6);
  NDArray c = NDArray::empty({67, 33}, Float(32));
  m("par")(a, c, 1.5f);
  std::vector<float> x = floats(a), z = floats(c);
  for (int r = 0; r < 67; ++r)
    for (int q = 0; q < 33; ++q) REQUIRE(z[r * 33 + q] == Approx(x[r * 33 + q] * 1.5f + float(r)));

  // A failure inside the parallel body reaches the caller with its message.
  Stmt failing = loop(i, 0, n,
                      AssertStmtNode::make(LTNode::make(i, i32(50)), "row index reached 50",
                                           loop(j, 0, m_, st(C, v, idx))),
                      ForKind::Parallel);
  Module mf = build_one(make_func("par_fail", {buffer(A, Float(32), {n, m_}), buffer(C, Float(32), {n, m_}),
                                               scalar(s)},
                                  {n, m_}, failing));
  CHECK_THROWS_WITH(mf("par_fail")(a, c, 1.0f), Catch::Contains("row index reached 50"));
  NDArray a2 = NDArray::random({40, 3}, Float(32), 8), c2 = NDArray::empty({40, 3}, Float(32));
  CHECK_NOTHROW(mf("par_fail")(a2, c2, 1.0f));
}

TEST_CASE("llvm: float intrinsics match the C library", "[llvm]") {
  for (int lanes : {1, 8}) {
    check_unary("exp", [](Expr x) { return tensorir::exp(x); }, [](double x) { return std::exp(x); }, -5, 5, lanes);
    check_unary("log", [](Expr x) { return tensorir::log(x); }, [](double x) { return std::log(x); }, 0.01, 10, lanes);
    check_unary("sqrt", [](Expr x) { return tensorir::sqrt(x); }, [](double x) { return std::sqrt(x); }, 0, 10, lanes);
    check_unary("rsqrt", [](Expr x) { return tensorir::rsqrt(x); }, [](double x) { return 1 / std::sqrt(x); }, 0.1, 10, lanes);
    check_unary("tanh", [](Expr x) { return tensorir::tanh(x); }, [](double x) { return std::tanh(x); }, -4, 4, lanes);
    check_unary("erf", [](Expr x) { return tensorir::erf(x); }, [](double x) { return std::erf(x); }, -3, 3, lanes);
    check_unary("sigmoid", [](Expr x) { return tensorir::sigmoid(x); }, [](double x) { return 1 / (1 + std::exp(-x)); }, -8, 8, lanes);
    check_unary("pow", [](Expr x) { return tensorir::pow(x, make_const(x.type(), 1.7)); },
                [](double x) { return std::pow(x, 1.7); }, 0, 4, lanes);
    check_unary("floor", [](Expr x) { return tensorir::floor(x); }, [](double x) { return std::floor(x); }, -9, 9, lanes);
    check_unary("ceil", [](Expr x) { return tensorir::ceil(x); }, [](double x) { return std::ceil(x); }, -9, 9, lanes);
    check_unary("abs", [](Expr x) { return tensorir::abs(x); }, [](double x) { return std::fabs(x); }, -9, 9, lanes);
    check_unary("fmod", [](Expr x) { return ModNode::make(x, make_const(x.type(), 0.75)); },
                [](double x) { return x - 0.75 * std::floor(x / 0.75); }, -9, 9, lanes);
  }
}

TEST_CASE("llvm: integer division and modulo round towards minus infinity", "[llvm]") {
  std::mt19937 rng(11);
  std::uniform_int_distribution<int> val(-1000, 1000), div(1, 37);
  const int len = 512;
  std::vector<int32_t> av(len), bv(len);
  for (int k = 0; k < len; ++k) {
    av[k] = val(rng);
    bv[k] = (k % 2 ? -1 : 1) * div(rng);
  }
  NDArray a = NDArray::from_vector(av, {len}), b = NDArray::from_vector(bv, {len});

  Var A = handle("A"), B = handle("B"), Q = handle("Q"), R = handle("R"), i("i");
  auto run = [&](const std::string &name, Expr divisor, const std::function<int64_t(int)> &bref) {
    Expr x = ld(A, i, Int(32));
    Stmt body = loop(i, 0, len, BlockNode::make({st(Q, DivNode::make(x, divisor), i), st(R, ModNode::make(x, divisor), i)}));
    Module m = build_one(make_func(name, {buffer(A, Int(32), {len}), buffer(B, Int(32), {len}),
                                          buffer(Q, Int(32), {len}), buffer(R, Int(32), {len})},
                                   {}, body));
    NDArray q = NDArray::empty({len}, Int(32)), r = NDArray::empty({len}, Int(32));
    m(name)(a, b, q, r);
    std::vector<int32_t> qv = q.to_vector<int32_t>(), rv = r.to_vector<int32_t>();
    for (int k = 0; k < len; ++k) {
      INFO(name << ": " << av[k] << " by " << bref(k));
      REQUIRE(qv[k] == ref_floordiv(av[k], bref(k)));
      REQUIRE(rv[k] == ref_floormod(av[k], bref(k)));
    }
  };
  run("div_var", ld(B, i, Int(32)), [&](int k) { return bv[k]; });
  for (int c : {1, 2, 3, 4, 7, 16, -3, -4})
    run("div_const" + std::to_string(c < 0 ? 100 - c : c), i32(c), [c](int) { return c; });
}

TEST_CASE("llvm: temporary buffers on the stack and on the heap", "[llvm]") {
  Var A = handle("A"), B = handle("B"), T = handle("T"), n("n"), i("i");
  // Constant size: T[16] = A * 2; B[i] = T[15 - i] + 1.
  Stmt fill = loop(i, 0, 16, st(T, MulNode::make(ld(A, i), f32(2)), i));
  Stmt use = loop(i, 0, 16, st(B, AddNode::make(ld(T, SubNode::make(i32(15), i)), f32(1)), i));
  Stmt body = AllocateNode::make(T, Float(32), {i32(16)}, "global", BlockNode::make({fill, use}));
  Module m = build_one(make_func("tmp_small", {buffer(A, Float(32), {16}), buffer(B, Float(32), {16})}, {}, body));
  NDArray a = NDArray::random({16}, Float(32), 9), b = NDArray::empty({16}, Float(32));
  m("tmp_small")(a, b);
  std::vector<float> x = floats(a), y = floats(b);
  for (int k = 0; k < 16; ++k) REQUIRE(y[k] == x[15 - k] * 2 + 1);

  // Symbolic size (heap), used inside a parallel loop too.
  Expr last = SubNode::make(n, i32(1));
  Stmt fill2 = loop(i, 0, n, st(T, AddNode::make(ld(A, i), f32(1)), i), ForKind::Parallel);
  Stmt use2 = loop(i, 0, n, st(B, ld(T, SubNode::make(last, i)), i), ForKind::Parallel);
  Stmt body2 = AllocateNode::make(T, Float(32), {n}, "global", BlockNode::make({fill2, use2}));
  Module m2 = build_one(make_func("tmp_big", {buffer(A, Float(32), {n}), buffer(B, Float(32), {n})}, {n}, body2));
  const int len = 300000;
  NDArray a2 = NDArray::random({len}, Float(32), 10), b2 = NDArray::empty({len}, Float(32));
  m2("tmp_big")(a2, b2);
  std::vector<float> x2 = floats(a2), y2 = floats(b2);
  for (int k = 0; k < len; ++k) REQUIRE(y2[k] == x2[len - 1 - k] + 1);
}

TEST_CASE("llvm: heap temporaries come from the workspace cache and are reused across calls", "[llvm]") {
  Var A = handle("A"), B = handle("B"), T = handle("T"), n("n"), i("i");
  Expr last = SubNode::make(n, i32(1));
  Stmt fill = loop(i, 0, n, st(T, MulNode::make(ld(A, i), f32(3)), i));
  Stmt use = loop(i, 0, n, st(B, ld(T, SubNode::make(last, i)), i));
  Stmt body = AllocateNode::make(T, Float(32), {n}, "global", BlockNode::make({fill, use}));
  Module m = build_one(make_func("tmp_reused", {buffer(A, Float(32), {n}), buffer(B, Float(32), {n})}, {n}, body));
  const std::string ll = m.source("ll");
  CHECK(ll.find("tensorir_workspace_alloc") != std::string::npos);
  CHECK(ll.find("tensorir_workspace_free") != std::string::npos);
  CHECK(ll.find("aligned_alloc") == std::string::npos);
  // The block is fresh memory and freeing it keeps no copy (what alias analysis needs).
  CHECK(std::regex_search(ll, std::regex(R"(declare noalias align 64 ptr @tensorir_workspace_alloc)")));
  CHECK(std::regex_search(ll, std::regex(R"(declare void @tensorir_workspace_free\(ptr nocapture\))")));
  release_workspace_cache();
  const int len = 500000;  // 2 MB: past the stack's limit
  for (int call = 0; call < 3; ++call) {
    NDArray a = NDArray::random({len}, Float(32), 20 + call), b = NDArray::empty({len}, Float(32));
    m("tmp_reused")(a, b);
    std::vector<float> x = floats(a), y = floats(b);
    for (int k = 0; k < len; ++k) REQUIRE(y[k] == x[len - 1 - k] * 3);
    // The buffer went back to the cache, and the next call takes it again.
    CHECK(workspace_cache_bytes() >= uint64_t(len) * 4);
    CHECK(workspace_cache_bytes() < uint64_t(len) * 8);
  }
  release_workspace_cache();
}

TEST_CASE("llvm: a heap temporary whose size overflows fails the call instead of getting a small block", "[llvm]") {
  // T has n x n x 4 bytes: 2^64 for n = 2^31 - 1 wraps a 64-bit size around.
  Var A = handle("A"), B = handle("B"), T = handle("T"), n("n"), i("i");
  Stmt body = AllocateNode::make(
      T, Float(32), {n, n}, "global",
      BlockNode::make({st(T, ld(A, i32(0)), i32(0)), st(B, AddNode::make(ld(T, i32(0)), f32(1)), i32(0))}));
  Module m = build_one(make_func("tmp_huge", {buffer(A, Float(32), {1}), buffer(B, Float(32), {1}), scalar(n)}, {}, body));
  NDArray a = NDArray::random({1}, Float(32), 30), b = NDArray::empty({1}, Float(32));
  for (int big : {2147483647, 1 << 30}) {
    INFO("n = " << big);
    REQUIRE_THROWS_WITH(m("tmp_huge")(a, b, big), Catch::Contains("out of memory allocating temporary buffer 'T'"));
  }
  m("tmp_huge")(a, b, 3);
  CHECK(floats(b)[0] == floats(a)[0] + 1);
}

TEST_CASE("llvm: scalar arguments of several types and extern calls", "[llvm]") {
  Var A = handle("A"), B = handle("B"), n("n"), i("i"), k("k", Int(64)), d("d", Float(64));
  // B[i] = float(double(A[i]) * d + double(k)) + hypotf(A[i], 1)
  Expr x = ld(A, i);
  Expr v = CastNode::make(Float(32), AddNode::make(MulNode::make(CastNode::make(Float(64), x), d),
                                                   CastNode::make(Float(64), k)));
  v = AddNode::make(v, call_extern(Float(32), "hypotf", {x, f32(1)}));
  Stmt body = loop(i, 0, n, st(B, v, i));
  Module m = build_one(make_func("mixed", {buffer(A, Float(32), {n}), buffer(B, Float(32), {n}), scalar(k), scalar(d)},
                                 {n}, body));
  NDArray a = NDArray::random({100}, Float(32), 12), b = NDArray::empty({100}, Float(32));
  m("mixed")(a, b, int64_t(-3), 0.25);
  std::vector<float> xa = floats(a), yb = floats(b);
  for (int q = 0; q < 100; ++q)
    REQUIRE(yb[q] == Approx(float(double(xa[q]) * 0.25 - 3.0) + std::hypot(xa[q], 1.0f)));
}

TEST_CASE("llvm: a failed assertion raises its message", "[llvm]") {
  Var A = handle("A"), n("n"), i("i");
  Stmt body = AssertStmtNode::make(GTNode::make(n, i32(4)), "A must have more than 4 elements",
                                   loop(i, 0, n, st(A, f32(3), i)));
  Module m = build_one(make_func("checked", {buffer(A, Float(32), {n})}, {n}, body));
  NDArray small = NDArray::empty({3}, Float(32)), big = NDArray::empty({8}, Float(32));
  CHECK_THROWS_AS(m("checked")(small), Error);
  CHECK_THROWS_WITH(m("checked")(small), Catch::Contains("A must have more than 4 elements"));
  m("checked")(big);
  for (float v : floats(big)) CHECK(v == 3.0f);
  CHECK(floats(small)[0] == 0.0f);
}

TEST_CASE("llvm: an undefined variable is a clear error", "[llvm]") {
  Var A = handle("A"), n("n"), i("i"), ghost("ghost");
  Stmt body = loop(i, 0, n, st(A, CastNode::make(Float(32), AddNode::make(i, ghost)), i));
  LoweredFunc f = make_func("bad", {buffer(A, Float(32), {n})}, {n}, body);
  CHECK_THROWS_AS(build_one(f), Error);
  CHECK_THROWS_WITH(build_one(f), Catch::Contains("undefined variable 'ghost'"));
}

TEST_CASE("llvm: target options", "[llvm]") {
  Var A = handle("A"), i("i");
  LoweredFunc f = make_func("fill", {buffer(A, Float(32), {64})}, {}, loop(i, 0, 64, st(A, f32(1.5), i)));
  Module m = build_one(f, "llvm -mcpu=x86-64-v2");
  NDArray a = NDArray::empty({64}, Float(32));
  m("fill")(a);
  for (float v : floats(a)) CHECK(v == 1.5f);
  // Features can be switched off: no 512-bit registers without AVX-512.
  Module narrow = build_one(f, "llvm -mcpu=native -mattr=-avx512f");
  narrow("fill")(a);
  CHECK(narrow.source("asm").find("zmm") == std::string::npos);
  CHECK_THROWS_WITH(build_one(f, "llvm -mcpu=not-a-cpu"), Catch::Contains("unknown CPU 'not-a-cpu'"));
  CHECK_THROWS_WITH(build_one(f, "llvm -mattr=avx2"), Catch::Contains("must start with + or -"));
  CHECK_THROWS_WITH(build_one(f, "llvm -mattr=+avx2,+banana"), Catch::Contains("unknown CPU feature 'banana'"));
  // Feature sets 64-bit x86 code cannot be compiled for are refused before LLVM, which
  // would end the process ("SSE register return with SSE disabled") or call functions
  // that no process provides.
  for (const char *bad : {"-sse", "+avx512f,-sse2", "-x87", "+soft-float"}) {
    INFO(bad);
    CHECK_THROWS_WITH(build_one(f, std::string("llvm -mattr=") + bad), Catch::Contains("64-bit x86 code needs"));
  }
  CHECK_THROWS_WITH(build_one(f, "llvm -mfoo=1"), Catch::Contains("unknown option '-mfoo'"));
}
