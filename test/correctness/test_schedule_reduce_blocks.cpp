// Reductions whose loops are split into blocks around data-parallel loops (a K-blocked
// matmul: blocks of k outside a tile of C, the tile accumulating one block at a time):
// every order, split and loop kind here, lengths given at run time (0 included) and a
// 64-bit range, checked against plain loops on random data.
#include <functional>
#include <limits>

#include "correctness/test_schedule_helpers.h"

using namespace tensorir;
using namespace tensorir::testing;
using namespace tensorir::testing::sched;

namespace {

std::vector<float> argmax_reference(const NDArray &x, int rows, int len, std::vector<int32_t> &index) {
  std::vector<float> xv = x.to_vector<float>(), best(rows);
  index.assign(rows, 0);
  for (int i = 0; i < rows; ++i) {
    for (int j = 1; j < len; ++j)
      if (xv[i * len + j] > xv[i * len + index[i]]) index[i] = j;
    best[i] = xv[i * len + index[i]];
  }
  return best;
}

}  // namespace

TEST_CASE("a K-blocked matmul (blocks of k around a tile of C) matches plain loops", "[schedule][reduce][matmul]") {
  // Dividing and non-dividing blocks and tiles.
  for (auto [M, K, N, kc] : std::vector<std::tuple<int, int, int, int>>{{24, 64, 32, 16}, {13, 37, 11, 8}, {6, 5, 7, 4}}) {
    DYNAMIC_SECTION(M << "x" << K << "x" << N << " blocks of " << kc) {
      NDArray a = random_array<float>({M, K}, 301), b = random_array<float>({K, N}, 302);
      const std::vector<float> ref = matmul_reference(a, b);
      // Schedules C's stage of a fresh matmul with `order`, builds and runs it.
      auto check = [&](const std::function<void(Stage &, const Matmul &)> &order, const std::string &name) {
        Matmul p(M, K, N);
        Schedule s = create_schedule({p.C});
        Stage st = s[p.C];
        order(st, p);
        Both r = run_both(s, {p.A, p.B}, {p.C}, {a, b}, name);
        check_both<float>(r, ref, sum_tolerance(K));
      };
      SECTION("blocks outermost: kb, i.outer, j.outer, k.inner, i.inner, j.inner (j vectorized)") {
        check(
            [&](Stage &st, const Matmul &p) {
              auto [io, jo, ii, ji] = st.tile(p.C.axis(0), p.C.axis(1), 3, 8);
              auto [kb, ki] = st.split(p.k, kc);
              st.reorder({kb, io, jo, ki, ii, ji});
              st.vectorize(ji);
              st.unroll(ii);
            },
            "mm_kb_outer");
      }
      SECTION("blocks between data-parallel loops, the tiles' loop parallel, two levels of blocks") {
        check(
            [&](Stage &st, const Matmul &p) {
              auto [io, jo, ii, ji] = st.tile(p.C.axis(0), p.C.axis(1), 2, 4);
              auto [kb, kin] = st.split(p.k, kc);
              auto [ko, ki] = st.split(kin, 2);
              st.reorder({jo, kb, io, ko, ii, ki, ji});
              st.parallel(jo);
            },
            "mm_kb_between");
      }
      SECTION("an unrolled block loop around the tile") {
        check(
            [&](Stage &st, const Matmul &p) {
              auto [kb, ki] = st.split(p.k, (K + 1) / 2);
              st.reorder({kb, p.C.axis(0), ki, p.C.axis(1)});
              st.unroll(kb);
            },
            "mm_kb_unrolled");
      }
    }
  }
}

TEST_CASE("argmax and a conditional sum, each in blocks around their data-parallel loop", "[schedule][reduce][argmax]") {
  const int R = 9, K = 45;
  auto argmax = argmax_reducer();
  Tensor X = placeholder({R, K}, Float(32), "X");
  IterVar k = reduce_axis({0, K}, "k"), k2 = reduce_axis({0, K}, "k2");
  std::vector<Tensor> am = compute({R}, [&](Var i) { return argmax({k, X(i, k)}, {k}); }, "argmax");
  // Sums the positive elements only.
  Tensor pos = compute({R}, [&](Var i) { return sum(X(i, k2), {k2}, X(i, k2) > 0.0f); }, "pos");
  Schedule s = create_schedule({am[0], pos});
  for (const Tensor &t : {am[0], pos}) {
    Stage st = s[t];
    auto [kb, ki] = st.split(st.op().as<ComputeOpNode>()->reduce_axis[0], 8);
    auto [io, ii] = st.split(t.axis(0), 4);
    st.reorder({kb, io, ki, ii});
  }
  Kernel kern = build_kernel(s, {X, am[0], am[1], pos}, "blocked_reducers");
  INFO("lowered:\n" << kern.lowered);
  NDArray x = random_array<float>({R, K}, 321, -1e3, 1e3);
  NDArray idx = NDArray::empty({R}, Int(32)), val = NDArray::empty({R}, Float(32)), ps = NDArray::empty({R}, Float(32));
  kern(x, idx, val, ps);
  std::vector<int32_t> ridx;
  const std::vector<float> rval = argmax_reference(x, R, K, ridx);
  check_close<int32_t>(idx, ridx);
  check_close<float>(val, rval, {0, 0});
  std::vector<float> xv = x.to_vector<float>(), rpos(R, 0.0f);
  for (int i = 0; i < R; ++i)
    for (int j = 0; j < K; ++j) rpos[i] += xv[i * K + j] > 0 ? xv[i * K + j] : 0.0f;
  check_close<float>(ps, rpos, sum_tolerance(K));
}

TEST_CASE("blocks of a reduction of a length given at run time, 0 included, give the identity where it is empty",
          "[schedule][reduce]") {
  Var m("m");
  Tensor A = placeholder({Expr(5), Expr(m)}, Float(32), "A");
  IterVar k = reduce_axis(Range(Expr(0), m), "k");
  Tensor S = compute({5}, [&](Var i) { return sum(A(i, k), {k}); }, "S");
  Schedule s = create_schedule({S});
  auto [kb, ki] = s[S].split(k, 4);
  s[S].reorder({kb, S.axis(0), ki});
  Kernel kern = build_kernel(s, {A, S}, "blocked_symbolic");
  INFO("lowered:\n" << kern.lowered);
  for (int len : {0, 1, 7, 8}) {
    DYNAMIC_SECTION("length " << len) {
      NDArray a = random_array<float>({5, len}, 331);
      NDArray out = NDArray::empty({5}, Float(32));
      std::vector<float> nan(5, std::numeric_limits<float>::quiet_NaN());
      out.copy_from_bytes(nan.data(), nan.size() * sizeof(float));
      kern(a, out);
      std::vector<float> av = a.to_vector<float>(), ref(5, 0.0f);
      for (int i = 0; i < 5; ++i)
        for (int j = 0; j < len; ++j) ref[i] += av[i * len + j];
      check_close<float>(out, ref, sum_tolerance(len + 1));
    }
  }
}

TEST_CASE("blocks of a reduction over a 64-bit range that starts above zero", "[schedule][reduce]") {
  Tensor A = placeholder({4, 20}, Float(32), "A");
  IterVar k = reduce_axis(Range(make_const(Int(64), 3), make_const(Int(64), 19)), "k");
  Tensor S = compute({4}, [&](Var i) { return sum(A(i, k), {k}); }, "S");
  Schedule s = create_schedule({S});
  auto [kb, ki] = s[S].split(k, 5);
  s[S].reorder({kb, S.axis(0), ki});
  Kernel kern = build_kernel(s, {A, S}, "blocked_int64_start");
  INFO("lowered:\n" << kern.lowered);
  NDArray a = random_array<float>({4, 20}, 341);
  NDArray out = NDArray::empty({4}, Float(32));
  kern(a, out);
  std::vector<float> av = a.to_vector<float>(), ref(4, 0.0f);
  for (int i = 0; i < 4; ++i)
    for (int j = 3; j < 19; ++j) ref[i] += av[i * 20 + j];
  check_close<float>(out, ref, sum_tolerance(16));
}
