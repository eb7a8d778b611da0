// rfactor: a reduction over a long axis split into partial results (a data-parallel,
// parallel stage) and a short final reduction; against the unscheduled result and a
// double-precision reference.
#include <algorithm>
#include <limits>
#include <tuple>

#include "correctness/test_schedule_helpers.h"

using namespace tensorir;
using namespace tensorir::testing;
using namespace tensorir::testing::sched;

namespace {

// Sums of K values in [-1, 1) in float32, in any order.
Tolerance long_sum_tolerance(int K) { return {4e-7 * K, 1e-5}; }

}  // namespace

TEST_CASE("rfactor of the outer part of a split runs its partial sums in parallel", "[schedule][rfactor][parallel]") {
  for (auto [n, K] : std::vector<std::pair<int, int>>{{1, 100000}, {7, 10007}, {3, 1000}, {2, 7}}) {
    for (int parts : {4, 16}) {
      DYNAMIC_SECTION(n << "x" << K << " in " << parts << " parts") {
        RowSum p(n, K);
        Schedule s = create_schedule({p.S});
        auto [ko, ki] = s[p.S].split_by_nparts(p.k, parts);
        Tensor SF = s.rfactor(p.S, ko);
        // The partial-sum tensor: the factored axis first, then S's own shape.
        REQUIRE(SF.ndim() == 2);
        const int64_t *d0 = as_const_int(SF.shape()[0]);
        REQUIRE(d0 != nullptr);
        CHECK(*d0 == parts);  // nparts rows even when K is shorter (the extra rows sum nothing)
        CHECK(SF.op().as<ComputeOpNode>() != nullptr);
        s[SF].parallel(SF.axis(0));
        NDArray a = random_array<float>({n, K}, 301);
        Both r = run_both(s, {p.A}, {p.S}, {a}, "rfactor_outer");
        check_both<float>(r, p.reference(a), long_sum_tolerance(K));
        INFO("lowered:\n" << r.scheduled.lowered);
        CHECK(r.scheduled.lowered.find("parallel") != std::string::npos);
      }
    }
  }
}

TEST_CASE("rfactor of the inner part of a split (vector-style partial sums)", "[schedule][rfactor]") {
  for (auto [n, K] : std::vector<std::pair<int, int>>{{1, 65536}, {5, 1023}, {4, 7}}) {
    DYNAMIC_SECTION(n << "x" << K) {
      RowSum p(n, K);
      Schedule s = create_schedule({p.S});
      auto [ko, ki] = s[p.S].split(p.k, 16);
      Tensor SF = s.rfactor(p.S, ki);
      const int64_t *d0 = as_const_int(SF.shape()[0]);
      REQUIRE(d0 != nullptr);
      CHECK(*d0 == 16);
      // The partial stage reduces over ko with its 16 partial sums innermost.
      s[SF].reorder({SF.axis(1), SF.op().as<ComputeOpNode>()->reduce_axis[0], SF.axis(0)});
      s[SF].vectorize(SF.axis(0));
      NDArray a = random_array<float>({n, K}, 302);
      Both r = run_both(s, {p.A}, {p.S}, {a}, "rfactor_inner");
      check_both<float>(r, p.reference(a), long_sum_tolerance(K));
    }
  }
}

TEST_CASE("rfactor of an unsplit reduction axis", "[schedule][rfactor]") {
  for (auto [n, K] : std::vector<std::pair<int, int>>{{3, 100}, {1, 7}}) {
    DYNAMIC_SECTION(n << "x" << K) {
      RowSum p(n, K);
      Schedule s = create_schedule({p.S});
      Tensor SF = s.rfactor(p.S, p.k);  // every product its own partial result
      const int64_t *d0 = as_const_int(SF.shape()[0]);
      REQUIRE(d0 != nullptr);
      CHECK(*d0 == K);
      NDArray a = random_array<float>({n, K}, 303);
      Both r = run_both(s, {p.A}, {p.S}, {a}, "rfactor_whole");
      check_both<float>(r, p.reference(a), long_sum_tolerance(K));
    }
  }
}

TEST_CASE("rfactor + parallel on a dot product of one long vector", "[schedule][rfactor][parallel]") {
  for (int K : {1 << 20, 1000003, 1000}) {
    DYNAMIC_SECTION("K " << K) {
      Tensor X = placeholder({K}, Float(32), "X"), Y = placeholder({K}, Float(32), "Y");
      IterVar k = reduce_axis({0, K}, "k");
      Tensor D = compute(
          {1}, [&](Var) { return sum(X(k) * Y(k), {k}); }, "D");
      Schedule s = create_schedule({D});
      auto [ko, ki] = s[D].split_by_nparts(k, 8);
      Tensor DF = s.rfactor(D, ko);
      s[DF].parallel(DF.axis(0));
      NDArray x = random_array<float>({K}, 304), y = random_array<float>({K}, 305);
      Both r = run_both(s, {X, Y}, {D}, {x, y}, "dot_rf");
      auto xv = x.to_vector<float>(), yv = y.to_vector<float>();
      double acc = 0;
      for (int i = 0; i < K; ++i) acc += double(xv[size_t(i)]) * yv[size_t(i)];
      check_both<float>(r, std::vector<double>{acc}, {1e-4 * std::sqrt(double(K)), 1e-4});
    }
  }
}

TEST_CASE("rfactor of a max reduction is exact", "[schedule][rfactor]") {
  for (auto [n, K] : std::vector<std::pair<int, int>>{{3, 10007}, {1, 7}}) {
    DYNAMIC_SECTION(n << "x" << K) {
      Tensor A = placeholder({n, K}, Float(32), "A");
      IterVar k = reduce_axis({0, K}, "k");
      Tensor M = compute(
          {n}, [&](Var i) { return max(A(i, k), {k}); }, "M");
      Schedule s = create_schedule({M});
      auto [ko, ki] = s[M].split(k, 64);
      Tensor MF = s.rfactor(M, ko);
      s[MF].parallel(MF.axis(0));
      NDArray a = random_array<float>({n, K}, 306, -100.0, 100.0);
      Both r = run_both(s, {A}, {M}, {a}, "max_rf");
      auto av = a.to_vector<float>();
      std::vector<float> ref(static_cast<size_t>(n), std::numeric_limits<float>::lowest());
      for (int i = 0; i < n; ++i)
        for (int x = 0; x < K; ++x) ref[size_t(i)] = std::max(ref[size_t(i)], av[size_t(i) * K + x]);
      check_both<float>(r, ref, {0, 0});
    }
  }
}

TEST_CASE("rfactor of a matmul reduction with the partial products in parallel", "[schedule][rfactor][matmul]") {
  for (auto [M, K, N] : std::vector<std::tuple<int, int, int>>{{16, 1024, 16}, {7, 257, 9}}) {
    DYNAMIC_SECTION(M << "x" << K << "x" << N) {
      Matmul p(M, K, N);
      Schedule s = create_schedule({p.C});
      auto [ko, ki] = s[p.C].split_by_nparts(p.k, 4);
      Tensor CF = s.rfactor(p.C, ko);
      CHECK(CF.ndim() == 3);
      s[CF].parallel(CF.axis(0));
      NDArray a = random_array<float>({M, K}, 307), b = random_array<float>({K, N}, 308);
      Both r = run_both(s, {p.A, p.B}, {p.C}, {a, b}, "mm_rf");
      check_both<float>(r, matmul_reference(a, b), sum_tolerance(K));
    }
  }
}

TEST_CASE("rfactor with the partial sums computed per output row", "[schedule][rfactor][compute_at]") {
  for (auto [n, K] : std::vector<std::pair<int, int>>{{7, 10007}, {64, 100}}) {
    DYNAMIC_SECTION(n << "x" << K) {
      RowSum p(n, K);
      Schedule s = create_schedule({p.S});
      auto [ko, ki] = s[p.S].split(p.k, 8);
      Tensor SF = s.rfactor(p.S, ki);
      s[SF].compute_at(s[p.S], p.S.axis(0));
      s[p.S].parallel(p.S.axis(0));
      NDArray a = random_array<float>({n, K}, 309);
      Both r = run_both(s, {p.A}, {p.S}, {a}, "rfactor_at");
      check_both<float>(r, p.reference(a), long_sum_tolerance(K));
    }
  }
}
