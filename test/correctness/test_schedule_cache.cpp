// cache_read and cache_write, element-wise and on reductions, alone and in the blocked
// matmul (cache_write + compute_at + vectorize), against the unscheduled result and
// plain loops or Eigen.
#include <tuple>

#include "correctness/test_schedule_helpers.h"

using namespace tensorir;
using namespace tensorir::testing;
using namespace tensorir::testing::sched;

namespace {

// C(i, j) = A(i, j) * A(i, j) + B(i, j).
struct Square {
  int n, m;
  Tensor A, B, C;
  Square(int rows, int cols) : n(rows), m(cols) {
    A = placeholder({n, m}, Float(32), "A");
    B = placeholder({n, m}, Float(32), "B");
    C = compute(
        {n, m}, [&](Var i, Var j) { return A(i, j) * A(i, j) + B(i, j); }, "C");
  }
  std::vector<float> reference(const NDArray &a, const NDArray &b) const {
    auto av = a.to_vector<float>(), bv = b.to_vector<float>();
    std::vector<float> r(av.size());
    for (size_t i = 0; i < r.size(); ++i) r[i] = av[i] * av[i] + bv[i];
    return r;
  }
};

const std::vector<std::pair<int, int>> kElementwiseShapes{{1000, 1023}, {7, 9}, {1, 1}};
const std::vector<std::tuple<int, int, int>> kMatmulShapes{{64, 64, 64}, {7, 13, 5}, {257, 65, 129}, {33, 1, 17}};

}  // namespace

TEST_CASE("cache_read of an element-wise input in each scope", "[schedule][cache_read]") {
  for (auto [n, m] : kElementwiseShapes) {
    for (const char *scope : {"global", "local", "shared"}) {
      DYNAMIC_SECTION(n << "x" << m << " " << scope) {
        Square p(n, m);
        Schedule s = create_schedule({p.C});
        Tensor AA = s.cache_read(p.A, scope, {p.C});
        CHECK(AA.name() != p.A.name());
        CHECK(AA.ndim() == 2);
        NDArray a = random_array<float>({n, m}, 201), b = random_array<float>({n, m}, 202);
        Both r = run_both(s, {p.A, p.B}, {p.C}, {a, b}, "cache_read");
        check_both<float>(r, p.reference(a, b));
        INFO("lowered:\n" << r.scheduled.lowered);
        // The copy exists in the lowered code and C reads it.
        CHECK(r.scheduled.lowered.find(AA.name() + "[") != std::string::npos);
      }
    }
  }
}

TEST_CASE("cache_read of both matmul inputs, scheduled like any stage", "[schedule][cache_read][matmul]") {
  for (auto [M, K, N] : kMatmulShapes) {
    DYNAMIC_SECTION(M << "x" << K << "x" << N) {
      Matmul p(M, K, N);
      Schedule s = create_schedule({p.C});
      Tensor AA = s.cache_read(p.A, "global", {p.C});
      Tensor BB = s.cache_read(p.B, "global", {p.C});
      auto [bo, bi] = s[BB].split(BB.axis(1), 8);
      s[BB].vectorize(bi);
      s[AA].parallel(AA.axis(0));
      NDArray a = random_array<float>({M, K}, 203), b = random_array<float>({K, N}, 204);
      Both r = run_both(s, {p.A, p.B}, {p.C}, {a, b}, "mm_cache_read");
      check_both<float>(r, matmul_reference(a, b), sum_tolerance(K));
    }
  }
}

TEST_CASE("cache_read of an intermediate stage read by two consumers", "[schedule][cache_read]") {
  const int n = 1000;
  Tensor A = placeholder({n}, Float(32), "A");
  Tensor B = compute(
      {n}, [&](Var i) { return A(i) + 1.0f; }, "B");
  Tensor C = compute(
      {n}, [&](Var i) { return B(i) * 2.0f; }, "C");
  Tensor D = compute(
      {n}, [&](Var i) { return B(i) - C(i); }, "D");
  Schedule s = create_schedule({D});
  Tensor BL = s.cache_read(B, "local", {C, D});
  auto [bo, bi] = s[BL].split(BL.axis(0), 8);
  s[BL].vectorize(bi);
  NDArray a = random_array<float>({n}, 205);
  Both r = run_both(s, {A}, {D}, {a}, "cache_read_mid");
  std::vector<float> ref = a.to_vector<float>();
  for (float &v : ref) v = (v + 1.0f) - (v + 1.0f) * 2.0f;
  check_both<float>(r, ref);
}

TEST_CASE("cache_write of an element-wise stage", "[schedule][cache_write]") {
  for (auto [n, m] : kElementwiseShapes) {
    for (const char *scope : {"global", "local"}) {
      DYNAMIC_SECTION(n << "x" << m << " " << scope) {
        Square p(n, m);
        Schedule s = create_schedule({p.C});
        Tensor CL = s.cache_write(p.C, scope);
        CHECK(CL.name() != p.C.name());
        NDArray a = random_array<float>({n, m}, 211), b = random_array<float>({n, m}, 212);
        Both r = run_both(s, {p.A, p.B}, {p.C}, {a, b}, "cache_write");
        check_both<float>(r, p.reference(a, b));
        INFO("lowered:\n" << r.scheduled.lowered);
        CHECK(r.scheduled.lowered.find(CL.name() + "[") != std::string::npos);
      }
    }
  }
}

TEST_CASE("cache_write of an element-wise stage computed per output tile", "[schedule][cache_write][compute_at]") {
  for (auto [n, m] : kElementwiseShapes) {
    DYNAMIC_SECTION(n << "x" << m) {
      Square p(n, m);
      Schedule s = create_schedule({p.C});
      Tensor CL = s.cache_write(p.C, "local");
      auto [xo, yo, xi, yi] = s[p.C].tile(p.C.axis(0), p.C.axis(1), 16, 16);
      s[CL].compute_at(s[p.C], yo);
      NDArray a = random_array<float>({n, m}, 213), b = random_array<float>({n, m}, 214);
      Both r = run_both(s, {p.A, p.B}, {p.C}, {a, b}, "cache_write_at");
      check_both<float>(r, p.reference(a, b));
    }
  }
}

TEST_CASE("cache_write of a reduction", "[schedule][cache_write][matmul]") {
  for (auto [M, K, N] : kMatmulShapes) {
    DYNAMIC_SECTION(M << "x" << K << "x" << N) {
      Matmul p(M, K, N);
      Schedule s = create_schedule({p.C});
      Tensor CL = s.cache_write(p.C, "local");
      REQUIRE(CL.op().as<ComputeOpNode>() != nullptr);
      CHECK(CL.op().as<ComputeOpNode>()->reduce_axis.size() == 1);  // the reduction moved to the cache
      NDArray a = random_array<float>({M, K}, 215), b = random_array<float>({K, N}, 216);
      Both r = run_both(s, {p.A, p.B}, {p.C}, {a, b}, "mm_cache_write");
      check_both<float>(r, matmul_reference(a, b), sum_tolerance(K));
    }
  }
}

TEST_CASE("blocked matmul: cache_write + compute_at + vectorize + unroll + parallel",
          "[schedule][cache_write][compute_at][vectorize][matmul]") {
  for (auto [M, K, N] : std::vector<std::tuple<int, int, int>>{{64, 64, 64}, {256, 256, 256}, {257, 129, 255},
                                                               {7, 13, 5}, {96, 7, 40}}) {
    DYNAMIC_SECTION(M << "x" << K << "x" << N) {
      Matmul p(M, K, N);
      Schedule s = create_schedule({p.C});
      Tensor CC = s.cache_write(p.C, "local");
      auto [io, jo, ii, ji] = s[p.C].tile(p.C.axis(0), p.C.axis(1), 32, 32);
      s[CC].compute_at(s[p.C], jo);
      auto [ko, ki] = s[CC].split(CC.reduce_axis(0), 4);
      s[CC].reorder({ko, CC.axis(0), ki, CC.axis(1)});
      s[CC].vectorize(CC.axis(1));
      s[CC].unroll(ki);
      IterVar f = s[p.C].fuse(io, jo);
      s[p.C].parallel(f);
      NDArray a = random_array<float>({M, K}, 217), b = random_array<float>({K, N}, 218);
      Both r = run_both(s, {p.A, p.B}, {p.C}, {a, b}, "gemm");
      check_both<float>(r, matmul_reference(a, b), sum_tolerance(K));
      if (N >= 32) {
        const std::string ll = r.scheduled.module.source("ll");
        CHECK(has_wide_float_vector(ll));
        CHECK(ll.find("fma") != std::string::npos);
      }
    }
  }
}

TEST_CASE("blocked matmul with a packed copy of A read by the attached cache stage",
          "[schedule][cache_write][cache_read][compute_at][matmul]") {
  // The full example: cache_read of A for CC, which is computed inside C's fused tile loop.
  for (auto [M, K, N] : std::vector<std::tuple<int, int, int>>{{64, 64, 64}, {257, 33, 65}}) {
    DYNAMIC_SECTION(M << "x" << K << "x" << N) {
      Matmul p(M, K, N);
      Schedule s = create_schedule({p.C});
      Tensor CC = s.cache_write(p.C, "local");
      auto [io, jo, ii, ji] = s[p.C].tile(p.C.axis(0), p.C.axis(1), 32, 32);
      s[CC].compute_at(s[p.C], jo);
      auto [ko, ki] = s[CC].split(CC.reduce_axis(0), 4);
      s[CC].reorder({ko, CC.axis(0), ki, CC.axis(1)});
      s[CC].vectorize(CC.axis(1));
      s[CC].unroll(ki);
      IterVar f = s[p.C].fuse(io, jo);
      s[p.C].parallel(f);
      s.cache_read(p.A, "global", {CC});
      NDArray a = random_array<float>({M, K}, 219), b = random_array<float>({K, N}, 220);
      Both r = run_both(s, {p.A, p.B}, {p.C}, {a, b}, "gemm_packed");
      check_both<float>(r, matmul_reference(a, b), sum_tolerance(K));
    }
  }
}

TEST_CASE("a root cache_read whose reader is computed inside another stage's loop",
          "[schedule][cache_read][compute_at]") {
  // Smallest form of the packed-matmul schedule: the copy of A stays at root and must
  // cover every iteration of C's loop that B is computed in.
  for (int n : {64, 1000, 7}) {
    DYNAMIC_SECTION("n " << n) {
      Tensor A = placeholder({n}, Float(32), "A");
      Tensor B = compute(
          {n}, [&](Var i) { return A(i) * 2.0f; }, "B");
      Tensor C = compute(
          {n}, [&](Var i) { return B(i) + 1.0f; }, "C");
      Schedule s = create_schedule({C});
      auto [o, i] = s[C].split(C.axis(0), 16);
      s[B].compute_at(s[C], o);
      s.cache_read(A, "global", {B});
      NDArray a = random_array<float>({n}, 221);
      Both r = run_both(s, {A}, {C}, {a}, "root_copy_attached_reader");
      std::vector<float> ref = a.to_vector<float>();
      for (float &v : ref) v = v * 2.0f + 1.0f;
      check_both<float>(r, ref);
    }
  }
}
