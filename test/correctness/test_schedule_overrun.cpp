// Reductions under splits of split parts that the factor does not divide, and loops whose
// body ignores them: every term is counted once, against plain loops on random data.
#include <tuple>

#include "correctness/test_schedule_helpers.h"

using namespace tensorir;
using namespace tensorir::testing;
using namespace tensorir::testing::sched;

namespace {

// S = the row sums of A, scheduled by `s`, against the unscheduled result and plain loops.
void check_sums(const RowSum &p, const Schedule &s, const std::string &name) {
  NDArray a = random_array<float>({p.n, p.K}, 31);
  Both r = run_both(s, {p.A}, {p.S}, {a}, name);
  check_both<float>(r, p.reference(a), sum_tolerance(p.K));
}

}  // namespace

TEST_CASE("a reduction axis split twice, the second split not dividing the first's part", "[schedule][split]") {
  for (auto [K, f1, f2] : {std::tuple{6, 3, 2}, {10, 5, 3}, {7, 4, 3}, {12, 4, 3}}) {
    INFO("K " << K << ", split by " << f1 << " then the inner part by " << f2);
    RowSum p(5, K);
    Schedule s = create_schedule({p.S});
    auto [ko, ki] = s[p.S].split(p.k, f1);
    s[p.S].split(ki, f2);
    check_sums(p, s, "split_split_k");
  }
}

TEST_CASE("a data-parallel axis split twice with the reduction loop outside it", "[schedule][split]") {
  // Each element is reset and summed at its own iterations only: an iteration past the
  // inner part's extent would reach the next block's elements, before or after theirs.
  for (auto [n, f1, f2] : {std::tuple{5, 1, 3}, {9, 4, 3}, {10, 3, 2}}) {
    INFO("n " << n << ", split by " << f1 << " then the inner part by " << f2);
    RowSum p(n, 4);
    Schedule s = create_schedule({p.S});
    auto [io, ii] = s[p.S].split(p.S.axis(0), f1);
    auto [iio, iii] = s[p.S].split(ii, f2);
    s[p.S].reorder({p.k, io, iio, iii});
    check_sums(p, s, "split_split_i_k_outer");
    Schedule inner = create_schedule({p.S});
    auto [jo, ji] = inner[p.S].split(p.S.axis(0), f1);
    auto [jio, jii] = inner[p.S].split(ji, f2);
    inner[p.S].reorder({jii, jio, jo, p.k});  // the overrunning loop outermost
    check_sums(p, inner, "split_split_i_reordered");
  }
}

TEST_CASE("rfactor of the innermost part of a reduction axis split twice", "[schedule][rfactor][split]") {
  RowSum p(4, 10);
  Schedule s = create_schedule({p.S});
  auto [ko, ki] = s[p.S].split(p.k, 5);
  auto [kio, kii] = s[p.S].split(ki, 3);
  s.rfactor(p.S, kii);
  check_sums(p, s, "rfactor_split_split");
}

TEST_CASE("a vectorized reduction loop whose body does not read it runs once per iteration", "[schedule][vectorize]") {
  // C(i) = sum over k of A(i): K times A(i).
  const int n = 6, K = 4;
  Tensor A = placeholder({n}, Float(32), "A");
  IterVar k = reduce_axis({0, K}, "k");
  Tensor C = compute({n}, [&](Var i) { return sum(A(i), {k}); }, "C");
  Schedule s = create_schedule({C});
  s[C].vectorize(k);
  NDArray a = random_array<float>({n}, 32);
  Both r = run_both(s, {A}, {C}, {a}, "vectorize_unread_k");
  std::vector<double> want;
  for (float x : a.to_vector<float>()) want.push_back(double(K) * x);
  check_both<float>(r, want, sum_tolerance(K));
}
