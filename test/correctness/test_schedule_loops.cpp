// Loop primitives one at a time (split, split_by_nparts, tile, fuse, reorder, vectorize,
// unroll, parallel) and combined, each against the unscheduled result and plain loops or
// Eigen, at shapes that the factors divide and shapes they do not.
#include <tuple>

#include "correctness/test_schedule_helpers.h"

using namespace tensorir;
using namespace tensorir::testing;
using namespace tensorir::testing::sched;

namespace {

// C(i) = A(i) * B(i) + 1 over n elements.
struct Axpy1 {
  Tensor A, B, C;
  explicit Axpy1(int n) {
    A = placeholder({n}, Float(32), "A");
    B = placeholder({n}, Float(32), "B");
    C = compute(
        {n}, [&](Var i) { return A(i) * B(i) + 1.0f; }, "C");
  }
  std::vector<float> reference(const NDArray &a, const NDArray &b) const {
    auto av = a.to_vector<float>(), bv = b.to_vector<float>();
    std::vector<float> r(av.size());
    for (size_t i = 0; i < r.size(); ++i) r[i] = av[i] * bv[i] + 1.0f;
    return r;
  }
};

// C(i, j) = A(i, j) - 2 * B(j, i): one operand read transposed.
struct Mix2 {
  int n, m;
  Tensor A, B, C;
  Mix2(int rows, int cols) : n(rows), m(cols) {
    A = placeholder({n, m}, Float(32), "A");
    B = placeholder({m, n}, Float(32), "B");
    C = compute(
        {n, m}, [&](Var i, Var j) { return A(i, j) - 2.0f * B(j, i); }, "C");
  }
  std::vector<float> reference(const NDArray &a, const NDArray &b) const {
    auto av = a.to_vector<float>(), bv = b.to_vector<float>();
    std::vector<float> r(size_t(n) * m);
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < m; ++j) r[size_t(i) * m + j] = av[size_t(i) * m + j] - 2.0f * bv[size_t(j) * n + i];
    return r;
  }
};

void check_axpy(int n, const std::function<void(Schedule &, const Axpy1 &)> &apply, const std::string &name) {
  Axpy1 p(n);
  Schedule s = create_schedule({p.C});
  apply(s, p);
  NDArray a = random_array<float>({n}, 11), b = random_array<float>({n}, 12);
  Both r = run_both(s, {p.A, p.B}, {p.C}, {a, b}, name);
  check_both<float>(r, p.reference(a, b));
}

void check_mix(int n, int m, const std::function<void(Schedule &, const Mix2 &)> &apply, const std::string &name) {
  Mix2 p(n, m);
  Schedule s = create_schedule({p.C});
  apply(s, p);
  NDArray a = random_array<float>({n, m}, 21), b = random_array<float>({m, n}, 22);
  Both r = run_both(s, {p.A, p.B}, {p.C}, {a, b}, name);
  check_both<float>(r, p.reference(a, b));
}

}  // namespace

TEST_CASE("split by dividing and non-dividing factors", "[schedule][split]") {
  for (int n : {1000, 1023, 7, 1, 64}) {
    for (int factor : {1, 8, 32, 1024}) {
      DYNAMIC_SECTION("n " << n << " factor " << factor) {
        check_axpy(
            n, [&](Schedule &s, const Axpy1 &p) { s[p.C].split(p.C.axis(0), factor); }, "split");
      }
    }
  }
}

TEST_CASE("split by 64-bit factors and numbers of parts, larger than the axis or not", "[schedule][split]") {
  // Knob values are int64_t: the factor meets the 32-bit extent when the loops are bounded.
  for (int n : {16, 1000}) {
    for (int64_t factor : {int64_t(4), int64_t(32), int64_t(2048)}) {
      DYNAMIC_SECTION("n " << n << " factor " << factor) {
        check_axpy(
            n, [&](Schedule &s, const Axpy1 &p) { s[p.C].split(p.C.axis(0), Expr(factor)); }, "split64");
        check_axpy(
            n, [&](Schedule &s, const Axpy1 &p) { s[p.C].split_by_nparts(p.C.axis(0), Expr(factor)); }, "nparts64");
      }
    }
  }
}

TEST_CASE("split twice (nested splits of the outer and of the inner part)", "[schedule][split]") {
  for (int n : {1000, 1023, 7}) {
    DYNAMIC_SECTION("n " << n) {
      check_axpy(
          n,
          [](Schedule &s, const Axpy1 &p) {
            auto [o, i] = s[p.C].split(p.C.axis(0), 24);
            s[p.C].split(o, 5);
            s[p.C].split(i, 7);
          },
          "split_twice");
    }
  }
}

TEST_CASE("a non-dividing split guards only its tail", "[schedule][split][lower]") {
  Axpy1 p(1000);
  Schedule s = create_schedule({p.C});
  s[p.C].split(p.C.axis(0), 32);
  const std::string text = lowered_text(s, {p.A, p.B, p.C}, "split_tail");
  INFO("lowered:\n" << text);
  const std::regex guard(R"(\bif\s*\()");
  // Two stores of C: the main part and the tail (guarded, or a loop trimmed to 8 iterations).
  const size_t first_store = text.find("C[");
  REQUIRE(first_store != std::string::npos);
  CHECK(text.find("C[", first_store + 1) != std::string::npos);
  // The main part's store is not inside a guard: no `if` comes before it.
  std::smatch first_if;
  if (std::regex_search(text, first_if, guard)) CHECK(first_store < size_t(first_if.position(0)));
  // The main loop runs the 31 full blocks of 32 without a guard.
  CHECK(std::regex_search(text, std::regex(R"(for\s*\(\s*i\.outer\s*,\s*0\s*,\s*31\s*\))")));
  CHECK(count_of(text, "if") <= 1);

  // A dividing split needs no guard at all.
  Axpy1 q(1024);
  Schedule s2 = create_schedule({q.C});
  s2[q.C].split(q.C.axis(0), 32);
  const std::string text2 = lowered_text(s2, {q.A, q.B, q.C}, "split_exact");
  INFO("lowered (1024 / 32):\n" << text2);
  CHECK_FALSE(std::regex_search(text2, guard));
}

TEST_CASE("split a 2-D element-wise compute on both axes", "[schedule][split]") {
  for (auto [n, m] : std::vector<std::pair<int, int>>{{1000, 1023}, {7, 9}, {64, 32}}) {
    DYNAMIC_SECTION(n << "x" << m) {
      check_mix(
          n, m,
          [](Schedule &s, const Mix2 &p) {
            s[p.C].split(p.C.axis(0), 16);
            s[p.C].split(p.C.axis(1), 10);
          },
          "split2d");
    }
  }
}

TEST_CASE("split_by_nparts", "[schedule][split_by_nparts]") {
  for (int n : {1000, 1023, 7}) {
    for (int parts : {1, 3, 4, 16}) {
      DYNAMIC_SECTION("n " << n << " nparts " << parts) {
        check_axpy(
            n, [&](Schedule &s, const Axpy1 &p) { s[p.C].split_by_nparts(p.C.axis(0), parts); }, "nparts");
      }
    }
  }
}

TEST_CASE("split_by_nparts runs the outer loop nparts times", "[schedule][split_by_nparts][lower]") {
  Axpy1 p(1024);
  Schedule s = create_schedule({p.C});
  auto [o, i] = s[p.C].split_by_nparts(p.C.axis(0), 4);
  const std::string text = lowered_text(s, {p.A, p.B, p.C}, "nparts4");
  INFO("lowered:\n" << text);
  CHECK(std::regex_search(text, std::regex(R"(for \(i\.outer, 0, 4\))")));
  CHECK(std::regex_search(text, std::regex(R"(for \(i\.inner, 0, 256\))")));
}

TEST_CASE("tile a 2-D element-wise compute", "[schedule][tile]") {
  for (auto [n, m] : std::vector<std::pair<int, int>>{{1000, 1023}, {7, 9}, {64, 64}, {1, 1000}}) {
    for (auto [fx, fy] : std::vector<std::pair<int, int>>{{32, 8}, {16, 16}, {3, 100}}) {
      DYNAMIC_SECTION(n << "x" << m << " tiles " << fx << "x" << fy) {
        check_mix(
            n, m, [&](Schedule &s, const Mix2 &p) { s[p.C].tile(p.C.axis(0), p.C.axis(1), fx, fy); }, "tile");
      }
    }
  }
}

TEST_CASE("tile orders the loops x.outer, y.outer, x.inner, y.inner", "[schedule][tile][lower]") {
  Mix2 p(64, 64);
  Schedule s = create_schedule({p.C});
  auto [xo, yo, xi, yi] = s[p.C].tile(p.C.axis(0), p.C.axis(1), 8, 16);
  const auto &leaves = s[p.C]->leaf_iter_vars;
  REQUIRE(leaves.size() == 4);
  CHECK(leaves[0].same_as(xo));
  CHECK(leaves[1].same_as(yo));
  CHECK(leaves[2].same_as(xi));
  CHECK(leaves[3].same_as(yi));
  const std::string text = lowered_text(s, {p.A, p.B, p.C}, "tile_order");
  INFO("lowered:\n" << text);
  size_t a = text.find("for (" + xo.name()), b = text.find("for (" + yo.name()), c = text.find("for (" + xi.name()),
         d = text.find("for (" + yi.name());
  REQUIRE(a != std::string::npos);
  REQUIRE(b != std::string::npos);
  REQUIRE(c != std::string::npos);
  REQUIRE(d != std::string::npos);
  CHECK(a < b);
  CHECK(b < c);
  CHECK(c < d);
}

TEST_CASE("fuse two axes", "[schedule][fuse]") {
  for (auto [n, m] : std::vector<std::pair<int, int>>{{1000, 1023}, {7, 9}, {1, 5}}) {
    DYNAMIC_SECTION(n << "x" << m) {
      check_mix(
          n, m, [](Schedule &s, const Mix2 &p) { s[p.C].fuse(p.C.axis(0), p.C.axis(1)); }, "fuse");
      check_mix(
          n, m,
          [](Schedule &s, const Mix2 &p) {  // fuse, then split the fused loop by a non-dividing factor
            IterVar f = s[p.C].fuse(p.C.axis(0), p.C.axis(1));
            s[p.C].split(f, 33);
          },
          "fuse_split");
      check_mix(
          n, m,
          [](Schedule &s, const Mix2 &p) {  // fuse the outer loops of a tiling
            auto [xo, yo, xi, yi] = s[p.C].tile(p.C.axis(0), p.C.axis(1), 4, 8);
            s[p.C].fuse(xo, yo);
            s[p.C].fuse(xi, yi);
          },
          "fuse_tiles");
    }
  }
}

TEST_CASE("fuse all three axes of a 3-D compute", "[schedule][fuse]") {
  const int D0 = 5, D1 = 7, D2 = 11;
  Tensor A = placeholder({D0, D1, D2}, Float(32), "A");
  Tensor C = compute(
      {D0, D1, D2}, [&](Var i, Var j, Var l) { return A(i, j, l) * cast(Float(32), i - j + l); }, "C");
  Schedule s = create_schedule({C});
  IterVar f = s[C].fuse(C.axis(0), C.axis(1));
  f = s[C].fuse(f, C.axis(2));
  CHECK(s[C]->leaf_iter_vars.size() == 1);
  NDArray a = random_array<float>({D0, D1, D2}, 31);
  Both r = run_both(s, {A}, {C}, {a}, "fuse3");
  auto av = a.to_vector<float>();
  std::vector<float> ref(av.size());
  for (int i = 0; i < D0; ++i)
    for (int j = 0; j < D1; ++j)
      for (int l = 0; l < D2; ++l) {
        size_t x = (size_t(i) * D1 + j) * D2 + l;
        ref[x] = av[x] * float(i - j + l);
      }
  check_both<float>(r, ref);
}

TEST_CASE("reorder the axes of element-wise computes", "[schedule][reorder]") {
  for (auto [n, m] : std::vector<std::pair<int, int>>{{1000, 1023}, {7, 9}}) {
    DYNAMIC_SECTION(n << "x" << m) {
      check_mix(
          n, m, [](Schedule &s, const Mix2 &p) { s[p.C].reorder({p.C.axis(1), p.C.axis(0)}); }, "reorder");
      check_mix(
          n, m,
          [](Schedule &s, const Mix2 &p) {  // split both, then put the inner j outermost
            auto [io, ii] = s[p.C].split(p.C.axis(0), 8);
            auto [jo, ji] = s[p.C].split(p.C.axis(1), 5);
            s[p.C].reorder({ji, io, jo, ii});
          },
          "reorder_split");
    }
  }
}

TEST_CASE("reorder moves only the given loops, into the slots they occupied", "[schedule][reorder]") {
  Tensor A = placeholder({3, 4, 5, 6}, Float(32), "A");
  Tensor C = compute(
      {3, 4, 5, 6}, [&](Var a, Var b, Var c, Var d) { return A(a, b, c, d) + 1.0f; }, "C");
  Schedule s = create_schedule({C});
  s[C].reorder({C.axis(3), C.axis(1)});
  const auto &leaves = s[C]->leaf_iter_vars;
  REQUIRE(leaves.size() == 4);
  CHECK(leaves[0].same_as(C.axis(0)));
  CHECK(leaves[1].same_as(C.axis(3)));
  CHECK(leaves[2].same_as(C.axis(2)));
  CHECK(leaves[3].same_as(C.axis(1)));
  NDArray a = random_array<float>({3, 4, 5, 6}, 41);
  Both r = run_both(s, {A}, {C}, {a}, "reorder4");
  std::vector<float> ref = a.to_vector<float>();
  for (float &v : ref) v += 1.0f;
  check_both<float>(r, ref);
}

TEST_CASE("reorder the reduction loop of a matmul outside a data-parallel loop", "[schedule][reorder][matmul]") {
  for (auto [M, K, N] : std::vector<std::tuple<int, int, int>>{{7, 13, 5}, {64, 64, 64}, {257, 31, 129}}) {
    DYNAMIC_SECTION(M << "x" << K << "x" << N) {
      Matmul p(M, K, N);
      Schedule s = create_schedule({p.C});
      s[p.C].reorder({p.C.axis(0), p.k, p.C.axis(1)});  // i, k, j: row-major streaming of B
      NDArray a = random_array<float>({M, K}, 51), b = random_array<float>({K, N}, 52);
      Both r = run_both(s, {p.A, p.B}, {p.C}, {a, b}, "mm_ikj");
      check_both<float>(r, matmul_reference(a, b), sum_tolerance(K));
    }
  }
}

TEST_CASE("vectorize the inner part of a split", "[schedule][vectorize]") {
  for (int n : {1024, 1000, 1023, 7}) {
    for (int lanes : {8, 16}) {
      DYNAMIC_SECTION("n " << n << " lanes " << lanes) {
        Axpy1 p(n);
        Schedule s = create_schedule({p.C});
        auto [o, i] = s[p.C].split(p.C.axis(0), lanes);
        s[p.C].vectorize(i);
        NDArray a = random_array<float>({n}, 61), b = random_array<float>({n}, 62);
        Both r = run_both(s, {p.A, p.B}, {p.C}, {a, b}, "vec");
        check_both<float>(r, p.reference(a, b));
        if (n >= lanes) {  // at least one full vector: the IR has a vector type that wide
          const std::string ll = r.scheduled.module.source("ll");
          CHECK(has_wide_float_vector(ll));
        }
      }
    }
  }
}

TEST_CASE("vectorize a constant-extent axis directly", "[schedule][vectorize]") {
  for (auto [n, m] : std::vector<std::pair<int, int>>{{1000, 16}, {7, 8}, {3, 64}}) {
    DYNAMIC_SECTION(n << "x" << m) {
      Mix2 p(n, m);
      Schedule s = create_schedule({p.C});
      s[p.C].vectorize(p.C.axis(1));
      NDArray a = random_array<float>({n, m}, 63), b = random_array<float>({m, n}, 64);
      Both r = run_both(s, {p.A, p.B}, {p.C}, {a, b}, "vec_axis");
      check_both<float>(r, p.reference(a, b));
      CHECK(has_wide_float_vector(r.scheduled.module.source("ll")));
    }
  }
}

TEST_CASE("vectorized matmul inner loop uses vector fma", "[schedule][vectorize][matmul]") {
  for (auto [M, K, N] : std::vector<std::tuple<int, int, int>>{{64, 64, 64}, {33, 17, 48}}) {
    DYNAMIC_SECTION(M << "x" << K << "x" << N) {
      Matmul p(M, K, N);
      Schedule s = create_schedule({p.C});
      auto [jo, ji] = s[p.C].split(p.C.axis(1), 16);
      s[p.C].reorder({p.C.axis(0), jo, p.k, ji});
      s[p.C].vectorize(ji);
      NDArray a = random_array<float>({M, K}, 65), b = random_array<float>({K, N}, 66);
      Both r = run_both(s, {p.A, p.B}, {p.C}, {a, b}, "mm_vec");
      check_both<float>(r, matmul_reference(a, b), sum_tolerance(K));
      const std::string ll = r.scheduled.module.source("ll");
      CHECK(has_wide_float_vector(ll));
      CHECK(ll.find("fma") != std::string::npos);
    }
  }
}

TEST_CASE("a non-dividing split with a vectorized inner loop handles the tail", "[schedule][vectorize][split]") {
  for (auto [n, m] : std::vector<std::pair<int, int>>{{1000, 1023}, {7, 9}, {5, 17}}) {
    DYNAMIC_SECTION(n << "x" << m) {
      Mix2 p(n, m);
      Schedule s = create_schedule({p.C});
      auto [jo, ji] = s[p.C].split(p.C.axis(1), 16);
      s[p.C].vectorize(ji);
      NDArray a = random_array<float>({n, m}, 67), b = random_array<float>({m, n}, 68);
      Both r = run_both(s, {p.A, p.B}, {p.C}, {a, b}, "vec_tail");
      check_both<float>(r, p.reference(a, b));
      if (m >= 16) CHECK(has_wide_float_vector(r.scheduled.module.source("ll")));
    }
  }
}

TEST_CASE("unroll", "[schedule][unroll]") {
  for (int n : {1000, 1023, 7}) {
    DYNAMIC_SECTION("n " << n) {
      check_axpy(
          n,
          [](Schedule &s, const Axpy1 &p) {
            auto [o, i] = s[p.C].split(p.C.axis(0), 4);
            s[p.C].unroll(i);
          },
          "unroll");
    }
  }
  SECTION("an unrolled loop is gone from the lowered text") {
    Axpy1 p(64);
    Schedule s = create_schedule({p.C});
    auto [o, i] = s[p.C].split(p.C.axis(0), 4);
    s[p.C].unroll(i);
    const std::string text = lowered_text(s, {p.A, p.B, p.C}, "unrolled");
    INFO("lowered:\n" << text);
    CHECK(text.find("for (" + o.name()) != std::string::npos);
    CHECK(text.find("for (" + i.name()) == std::string::npos);
    CHECK(count_of(text, "C[") == 4);
  }
  SECTION("unroll a matmul's reduction loop") {
    Matmul p(17, 12, 9);
    Schedule s = create_schedule({p.C});
    auto [ko, ki] = s[p.C].split(p.k, 4);
    s[p.C].unroll(ki);
    NDArray a = random_array<float>({17, 12}, 71), b = random_array<float>({12, 9}, 72);
    Both r = run_both(s, {p.A, p.B}, {p.C}, {a, b}, "mm_unroll");
    check_both<float>(r, matmul_reference(a, b), sum_tolerance(12));
  }
}

TEST_CASE("parallel gives results identical to serial", "[schedule][parallel]") {
  for (auto [n, m] : std::vector<std::pair<int, int>>{{1000, 1023}, {7, 9}, {1, 3}}) {
    DYNAMIC_SECTION(n << "x" << m) {
      check_mix(
          n, m, [](Schedule &s, const Mix2 &p) { s[p.C].parallel(p.C.axis(0)); }, "par");
    }
  }
  SECTION("a parallel matmul equals the serial one bit for bit") {
    for (auto [M, K, N] : std::vector<std::tuple<int, int, int>>{{7, 13, 5}, {257, 64, 33}}) {
      DYNAMIC_SECTION(M << "x" << K << "x" << N) {
        Matmul p(M, K, N);
        Schedule s = create_schedule({p.C});
        auto [io, ii] = s[p.C].split(p.C.axis(0), 8);
        s[p.C].parallel(io);
        NDArray a = random_array<float>({M, K}, 73), b = random_array<float>({K, N}, 74);
        Both r = run_both(s, {p.A, p.B}, {p.C}, {a, b}, "mm_par");
        check_both<float>(r, matmul_reference(a, b), sum_tolerance(K));
        // Same loop body, same summation order: no tolerance.
        check_close<float>(r.got[0], r.want_plain[0].to_vector<float>(), Tolerance{0, 0});
      }
    }
  }
}

TEST_CASE("tile + vectorize + parallel matmul matches Eigen", "[schedule][tile][vectorize][parallel][matmul]") {
  for (auto [M, K, N] : std::vector<std::tuple<int, int, int>>{{64, 64, 64}, {257, 129, 255}, {7, 13, 5}}) {
    DYNAMIC_SECTION(M << "x" << K << "x" << N) {
      Matmul p(M, K, N);
      Schedule s = create_schedule({p.C});
      auto [io, jo, ii, ji] = s[p.C].tile(p.C.axis(0), p.C.axis(1), 16, 16);
      s[p.C].reorder({io, jo, ii, p.k, ji});
      s[p.C].vectorize(ji);
      s[p.C].parallel(io);
      NDArray a = random_array<float>({M, K}, 75), b = random_array<float>({K, N}, 76);
      Both r = run_both(s, {p.A, p.B}, {p.C}, {a, b}, "mm_tvp");
      check_both<float>(r, matmul_reference(a, b), sum_tolerance(K));
      if (N >= 16) {
        const std::string ll = r.scheduled.module.source("ll");
        CHECK(has_wide_float_vector(ll));
        CHECK(ll.find("fma") != std::string::npos);
      }
    }
  }
}

TEST_CASE("tile + vectorize + parallel on a large element-wise compute", "[schedule][tile][vectorize][parallel]") {
  for (auto [n, m] : std::vector<std::pair<int, int>>{{1000, 1023}, {1023, 1000}}) {
    DYNAMIC_SECTION(n << "x" << m) {
      check_mix(
          n, m,
          [](Schedule &s, const Mix2 &p) {
            auto [xo, yo, xi, yi] = s[p.C].tile(p.C.axis(0), p.C.axis(1), 32, 16);
            s[p.C].vectorize(yi);
            IterVar f = s[p.C].fuse(xo, yo);
            s[p.C].parallel(f);
          },
          "ew_tvp");
    }
  }
}

TEST_CASE("split + vectorize + parallel + compute_at on a symbolic length, run at several lengths",
          "[schedule][split][vectorize][parallel][compute_at][symbolic]") {
  Var n("n");
  Tensor A = placeholder({n}, Float(32), "A");
  Tensor P = compute(
      {n}, [&](Var i) { return A(i) * 3.0f - 1.0f; }, "P");
  Tensor C = compute(
      {n}, [&](Var i) { return P(i) * P(i) + A(i); }, "C");
  Schedule s = create_schedule({C});
  auto [o, i] = s[C].split(C.axis(0), 16);
  s[C].vectorize(i);
  s[C].parallel(o);
  s[P].compute_at(s[C], o);
  auto [po, pi] = s[P].split(P.axis(0), 8);
  s[P].vectorize(pi);
  Kernel k = build_kernel(s, {A, C}, "sym_sched");
  Kernel plain = build_kernel({C}, {A, C}, "sym_plain");
  INFO("lowered:\n" << k.lowered);
  for (int64_t len : {1000, 1023, 7, 1, 16}) {
    DYNAMIC_SECTION("n = " << len) {
      NDArray a = random_array<float>({len}, 81);
      NDArray c = NDArray::empty({len}, Float(32)), c0 = NDArray::empty({len}, Float(32));
      k(a, c);
      plain(a, c0);
      std::vector<float> ref = a.to_vector<float>();
      for (float &v : ref) v = (v * 3.0f - 1.0f) * (v * 3.0f - 1.0f) + v;
      check_close<float>(c, ref);
      check_close<float>(c, c0.to_vector<float>());
    }
  }
}

TEST_CASE("vectorizing a loop whose extent is not a power of two uses 16-lane chunks and a remainder vector",
          "[schedule][vectorize]") {
  for (int m : {56, 20, 100}) {
    DYNAMIC_SECTION("extent " << m) {
      Tensor A = placeholder({7, m}, Float(32), "A");
      Tensor B = compute({7, m}, [&](Var i, Var j) { return A(i, j) * 2.0f + 1.0f; }, "B");
      Schedule s = create_schedule({B});
      s[B].vectorize(B.axis(1));
      Module mod = build(s, {A, B}, "llvm", "wide");
      NDArray a = random_array<float>({7, m}, 71), b = NDArray::empty({7, m}, Float(32));
      mod("wide")(a, b);
      std::vector<float> av = a.to_vector<float>(), bv = b.to_vector<float>();
      for (size_t q = 0; q < av.size(); ++q) REQUIRE(bv[q] == av[q] * 2.0f + 1.0f);
      const std::string ll = mod.source("ll");
      CHECK(ll.find("<16 x float>") != std::string::npos);
      CHECK(ll.find("<" + std::to_string(m) + " x float>") == std::string::npos);
    }
  }
}
