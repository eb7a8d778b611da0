// Where a producer is computed: compute_at (inside a loop of its consumer), compute_inline
// and compute_root, alone and with a padded convolution, against the unscheduled result
// and plain loops.
#include <tuple>

#include "correctness/test_schedule_helpers.h"

using namespace tensorir;
using namespace tensorir::testing;
using namespace tensorir::testing::sched;

namespace {

// P(i) = A(i) * 3 - 1 over n + 2 elements; C(i) = P(i) + P(i + 1) + P(i + 2) over n.
struct Stencil {
  int n;
  Tensor A, P, C;
  explicit Stencil(int size) : n(size) {
    A = placeholder({n + 2}, Float(32), "A");
    P = compute(
        {n + 2}, [&](Var i) { return A(i) * 3.0f - 1.0f; }, "P");
    C = compute(
        {n}, [&](Var i) { return P(i) + P(i + 1) + P(i + 2); }, "C");
  }
  std::vector<float> reference(const NDArray &a) const {
    auto av = a.to_vector<float>();
    std::vector<float> p(av.size()), r(static_cast<size_t>(n));
    for (size_t i = 0; i < p.size(); ++i) p[i] = av[i] * 3.0f - 1.0f;
    for (int i = 0; i < n; ++i) r[size_t(i)] = p[size_t(i)] + p[size_t(i) + 1] + p[size_t(i) + 2];
    return r;
  }
};

// A 2-D blur in two stages: H(i, j) = A(i, j) + A(i, j + 1) + A(i, j + 2), V(i, j) = H(i, j) + H(i + 1, j) + H(i + 2, j).
struct Blur {
  int n, m;
  Tensor A, H, V;
  Blur(int rows, int cols) : n(rows), m(cols) {
    A = placeholder({n + 2, m + 2}, Float(32), "A");
    H = compute(
        {n + 2, m}, [&](Var i, Var j) { return A(i, j) + A(i, j + 1) + A(i, j + 2); }, "H");
    V = compute(
        {n, m}, [&](Var i, Var j) { return H(i, j) + H(i + 1, j) + H(i + 2, j); }, "V");
  }
  std::vector<float> reference(const NDArray &a) const {
    auto av = a.to_vector<float>();
    const size_t w = size_t(m) + 2;
    std::vector<float> h(size_t(n + 2) * m), r(size_t(n) * m);
    for (int i = 0; i < n + 2; ++i)
      for (int j = 0; j < m; ++j) h[size_t(i) * m + j] = av[i * w + j] + av[i * w + j + 1] + av[i * w + j + 2];
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < m; ++j)
        r[size_t(i) * m + j] = h[size_t(i) * m + j] + h[size_t(i + 1) * m + j] + h[size_t(i + 2) * m + j];
    return r;
  }
};

// Position of the first line that starts (after spaces) with `prefix`, or npos.
size_t line_starting(const std::string &text, const std::string &prefix) {
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    size_t first = text.find_first_not_of(' ', pos);
    if (first < end && text.compare(first, prefix.size(), prefix) == 0) return first;
    pos = end + 1;
  }
  return std::string::npos;
}

// Indentation of the line holding position `pos`.
size_t indent_at(const std::string &text, size_t pos) {
  size_t start = text.rfind('\n', pos);
  start = start == std::string::npos ? 0 : start + 1;
  return text.find_first_not_of(' ', start) - start;
}

}  // namespace

TEST_CASE("compute_at a producer inside its consumer's loops", "[schedule][compute_at]") {
  for (int n : {1000, 1023, 7}) {
    DYNAMIC_SECTION("n " << n << ", at the outer loop of a split") {
      Stencil p(n);
      Schedule s = create_schedule({p.C});
      auto [o, i] = s[p.C].split(p.C.axis(0), 32);
      s[p.P].compute_at(s[p.C], o);
      NDArray a = random_array<float>({n + 2}, 101);
      Both r = run_both(s, {p.A}, {p.C}, {a}, "at_outer");
      check_both<float>(r, p.reference(a));
    }
    DYNAMIC_SECTION("n " << n << ", at the innermost loop") {
      Stencil p(n);
      Schedule s = create_schedule({p.C});
      s[p.P].compute_at(s[p.C], p.C.axis(0));
      NDArray a = random_array<float>({n + 2}, 102);
      Both r = run_both(s, {p.A}, {p.C}, {a}, "at_inner");
      check_both<float>(r, p.reference(a));
    }
  }
}

TEST_CASE("a split producer computed at a consumer that reads a region varying with its loop",
          "[schedule][compute_at]") {
  // B's region at C's i starts at i % 6: its split outer loop has a symbolic extent and a
  // guard that holds in no leading stretch of iterations (loop_partition must leave it).
  Tensor X = placeholder({8}, Float(32), "X");
  Tensor B = compute({8}, [&](Var i) { return X(i) * 2.0f; }, "B");
  Tensor C = compute({7}, [&](Var i) { return B(i % 6) + B(5); }, "C");
  Schedule s = create_schedule({C});
  s[B].compute_at(s[C], C.axis(0));
  s[B].split(B.axis(0), 3);
  NDArray x = random_array<float>({8}, 105);
  Both r = run_both(s, {X}, {C}, {x}, "varying_region");
  const std::vector<float> xv = x.to_vector<float>();
  std::vector<float> ref(7);
  for (int i = 0; i < 7; ++i) ref[size_t(i)] = xv[size_t(i % 6)] * 2.0f + xv[5] * 2.0f;
  check_both<float>(r, ref);
}

TEST_CASE("compute_at places the producer's loop inside the consumer's loop", "[schedule][compute_at][lower]") {
  Stencil p(64);
  Schedule s = create_schedule({p.C});
  auto [o, i] = s[p.C].split(p.C.axis(0), 16);
  s[p.P].compute_at(s[p.C], o);
  const std::string text = lowered_text(s, {p.A, p.C}, "at_text");
  INFO("lowered:\n" << text);
  const size_t outer = line_starting(text, "for (" + o.name());
  const size_t store_p = line_starting(text, "P[");
  const size_t store_c = line_starting(text, "C[");
  REQUIRE(outer != std::string::npos);
  REQUIRE(store_p != std::string::npos);
  REQUIRE(store_c != std::string::npos);
  // P is written after the outer loop of C opens and more deeply indented than it.
  CHECK(outer < store_p);
  CHECK(store_p < store_c);
  CHECK(indent_at(text, store_p) > indent_at(text, outer));
  // Each iteration computes only the 16 + 2 elements of P it reads, not all 66.
  CHECK(std::regex_search(text, std::regex(R"(\b18\b)")));
}

TEST_CASE("compute_at of a 2-D producer at each loop level of a tiled consumer", "[schedule][compute_at]") {
  for (auto [n, m] : std::vector<std::pair<int, int>>{{1000, 1023}, {7, 9}, {33, 16}}) {
    for (int level = 0; level < 4; ++level) {
      DYNAMIC_SECTION(n << "x" << m << " at level " << level) {
        Blur p(n, m);
        Schedule s = create_schedule({p.V});
        auto [xo, yo, xi, yi] = s[p.V].tile(p.V.axis(0), p.V.axis(1), 8, 32);
        const IterVar levels[] = {xo, yo, xi, yi};
        s[p.H].compute_at(s[p.V], levels[level]);
        NDArray a = random_array<float>({n + 2, m + 2}, 103);
        Both r = run_both(s, {p.A}, {p.V}, {a}, "blur_at");
        check_both<float>(r, p.reference(a));
      }
    }
  }
}

TEST_CASE("compute_at of a reduction producer inside its consumer", "[schedule][compute_at][reduce]") {
  // R(i) = sum_k A(i, k); C(i) = R(i) * R(i) - R(i).
  for (auto [n, K] : std::vector<std::pair<int, int>>{{1000, 7}, {7, 1023}, {64, 64}}) {
    DYNAMIC_SECTION(n << "x" << K) {
      Tensor A = placeholder({n, K}, Float(32), "A");
      IterVar k = reduce_axis({0, K}, "k");
      Tensor R = compute(
          {n}, [&](Var i) { return sum(A(i, k), {k}); }, "R");
      Tensor C = compute(
          {n}, [&](Var i) { return R(i) * R(i) - R(i); }, "C");
      Schedule s = create_schedule({C});
      auto [o, i] = s[C].split(C.axis(0), 8);
      s[R].compute_at(s[C], o);
      NDArray a = random_array<float>({n, K}, 104);
      Both r = run_both(s, {A}, {C}, {a}, "red_at");
      auto av = a.to_vector<float>();
      std::vector<float> ref(static_cast<size_t>(n));
      for (int x = 0; x < n; ++x) {
        double acc = 0;
        for (int y = 0; y < K; ++y) acc += av[size_t(x) * K + y];
        ref[size_t(x)] = float(acc * acc - acc);
      }
      check_both<float>(r, ref, {1e-5 * K, 1e-4});
    }
  }
}

TEST_CASE("compute_inline", "[schedule][compute_inline]") {
  for (int n : {1000, 1023, 7}) {
    DYNAMIC_SECTION("n " << n) {
      Stencil p(n);
      Schedule s = create_schedule({p.C});
      s[p.P].compute_inline();
      NDArray a = random_array<float>({n + 2}, 111);
      Both r = run_both(s, {p.A}, {p.C}, {a}, "inline");
      check_both<float>(r, p.reference(a));
      INFO("lowered:\n" << r.scheduled.lowered);
      // No buffer for P: it is recomputed where it is read.
      CHECK(r.scheduled.lowered.find("P[") == std::string::npos);
      CHECK(r.scheduled.lowered.find("allocate") == std::string::npos);
      CHECK(r.plain.lowered.find("P[") != std::string::npos);
    }
  }
}

TEST_CASE("compute_inline of a chain of element-wise stages", "[schedule][compute_inline]") {
  const int n = 1000, m = 1023;
  Tensor A = placeholder({n, m}, Float(32), "A");
  Tensor B1 = compute(
      {n, m}, [&](Var i, Var j) { return A(i, j) * 2.0f; }, "B1");
  Tensor B2 = compute(
      {n, m}, [&](Var i, Var j) { return B1(i, j) + A(i, j); }, "B2");
  Tensor C = compute(
      {n, m}, [&](Var i, Var j) { return max(B2(i, j), 0.5f); }, "C");
  Schedule s = create_schedule({C});
  s[B1].compute_inline();
  s[B2].compute_inline();
  NDArray a = random_array<float>({n, m}, 112);
  Both r = run_both(s, {A}, {C}, {a}, "inline_chain");
  std::vector<float> ref = a.to_vector<float>();
  for (float &v : ref) v = std::max(v * 2.0f + v, 0.5f);
  check_both<float>(r, ref);
  INFO("lowered:\n" << r.scheduled.lowered);
  CHECK(r.scheduled.lowered.find("B1[") == std::string::npos);
  CHECK(r.scheduled.lowered.find("B2[") == std::string::npos);
}

TEST_CASE("compute_root undoes compute_at and compute_inline", "[schedule][compute_root]") {
  for (int n : {1000, 7}) {
    DYNAMIC_SECTION("n " << n) {
      Stencil p(n);
      Schedule s = create_schedule({p.C});
      auto [o, i] = s[p.C].split(p.C.axis(0), 8);
      s[p.P].compute_at(s[p.C], o);
      s[p.P].compute_root();
      NDArray a = random_array<float>({n + 2}, 121);
      Both r = run_both(s, {p.A}, {p.C}, {a}, "root");
      check_both<float>(r, p.reference(a));
      INFO("lowered:\n" << r.scheduled.lowered);
      // P is allocated and computed before C's loops start.
      const std::string &text = r.scheduled.lowered;
      const size_t alloc_p = line_starting(text, "allocate P");
      const size_t store_p = line_starting(text, "P[");
      const size_t store_c = line_starting(text, "C[");
      REQUIRE(alloc_p != std::string::npos);
      REQUIRE(store_p != std::string::npos);
      REQUIRE(store_c != std::string::npos);
      CHECK(alloc_p < line_starting(text, "for ("));
      CHECK(store_p < store_c);

      Schedule s2 = create_schedule({p.C});
      s2[p.P].compute_inline();
      s2[p.P].compute_root();
      Both r2 = run_both(s2, {p.A}, {p.C}, {a}, "root2");
      check_both<float>(r2, p.reference(a));
      CHECK(r2.scheduled.lowered.find("P[") != std::string::npos);
    }
  }
}

TEST_CASE("a padding stage computed at a loop of the convolution that reads it", "[schedule][compute_at][conv]") {
  // Pad(c, y, x) = I(c, y - 1, x - 1) inside, 0 on the one-element border; O = 3x3 conv of Pad.
  struct Shape {
    int C, H, W, F;
  };
  for (const Shape &sh : std::vector<Shape>{{3, 13, 13, 4}, {2, 7, 9, 3}, {4, 32, 17, 8}}) {
    for (int level = 0; level < 3; ++level) {
      DYNAMIC_SECTION(sh.C << "x" << sh.H << "x" << sh.W << " -> " << sh.F << ", pad at level " << level) {
        const int C = sh.C, H = sh.H, W = sh.W, F = sh.F;
        Tensor I = placeholder({C, H, W}, Float(32), "I");
        Tensor Wt = placeholder({F, C, 3, 3}, Float(32), "Wt");
        Tensor Pad = compute(
            {C, H + 2, W + 2},
            [&](Var c, Var y, Var x) {
              Expr inside = y >= 1 && y < H + 1 && x >= 1 && x < W + 1;
              // Clamped indices: if_then_else may evaluate both sides.
              Expr yy = min(max(y - 1, 0), H - 1), xx = min(max(x - 1, 0), W - 1);
              return if_then_else(inside, I(c, yy, xx), 0.0f);
            },
            "Pad");
        IterVar rc = reduce_axis({0, C}, "rc"), ry = reduce_axis({0, 3}, "ry"), rx = reduce_axis({0, 3}, "rx");
        Tensor O = compute(
            {F, H, W},
            [&](Var f, Var y, Var x) { return sum(Pad(rc, y + ry, x + rx) * Wt(f, rc, ry, rx), {rc, ry, rx}); },
            "O");
        Schedule s = create_schedule({O});
        auto [yo, yi] = s[O].split(O.axis(1), 4);
        const IterVar levels[] = {O.axis(0), yo, yi};
        s[Pad].compute_at(s[O], levels[level]);
        NDArray in = random_array<float>({C, H, W}, 131), w = random_array<float>({F, C, 3, 3}, 132);
        Both r = run_both(s, {I, Wt}, {O}, {in, w}, "pad_conv_at");
        auto iv = in.to_vector<float>(), wv = w.to_vector<float>();
        std::vector<float> ref(size_t(F) * H * W);
        for (int f = 0; f < F; ++f)
          for (int y = 0; y < H; ++y)
            for (int x = 0; x < W; ++x) {
              float acc = 0;
              for (int c = 0; c < C; ++c)
                for (int dy = 0; dy < 3; ++dy)
                  for (int dx = 0; dx < 3; ++dx) {
                    int iy = y + dy - 1, ix = x + dx - 1;
                    if (iy < 0 || iy >= H || ix < 0 || ix >= W) continue;
                    acc += iv[(size_t(c) * H + iy) * W + ix] * wv[((size_t(f) * C + c) * 3 + dy) * 3 + dx];
                  }
              ref[(size_t(f) * H + y) * W + x] = acc;
            }
        check_both<float>(r, ref, sum_tolerance(9 * C));
        INFO("lowered:\n" << r.scheduled.lowered);
        // Pad's buffer is allocated inside O's loops, not before them as at root.
        const std::string &text = r.scheduled.lowered;
        const size_t alloc_pad = line_starting(text, "allocate Pad");
        const size_t first_for = line_starting(text, "for (");
        REQUIRE(alloc_pad != std::string::npos);
        REQUIRE(first_for != std::string::npos);
        CHECK(first_for < alloc_pad);
        CHECK(line_starting(r.plain.lowered, "allocate Pad") < line_starting(r.plain.lowered, "for ("));
      }
    }
  }
}

TEST_CASE("compute_at inside a parallel loop gives each iteration its own producer buffer",
          "[schedule][compute_at][parallel][vectorize]") {
  for (int n : {1000, 1023, 7}) {
    DYNAMIC_SECTION("n " << n) {
      Stencil p(n);
      Schedule s = create_schedule({p.C});
      auto [o, i] = s[p.C].split(p.C.axis(0), 32);
      s[p.C].parallel(o);
      s[p.P].compute_at(s[p.C], o);
      auto [po, pi] = s[p.P].split(p.P.axis(0), 8);
      s[p.P].vectorize(pi);
      NDArray a = random_array<float>({n + 2}, 141);
      Both r = run_both(s, {p.A}, {p.C}, {a}, "at_parallel");
      check_both<float>(r, p.reference(a));
      // Same arithmetic per element as the serial version: bit for bit.
      check_close<float>(r.got[0], r.want_plain[0].to_vector<float>(), Tolerance{0, 0});
    }
  }
}

TEST_CASE("a chain of attachments: a copy computed at a producer computed at the consumer",
          "[schedule][compute_at][cache_read]") {
  for (int n : {1000, 7, 64}) {
    DYNAMIC_SECTION("n " << n) {
      Stencil p(n);
      Schedule s = create_schedule({p.C});
      auto [o, i] = s[p.C].split(p.C.axis(0), 32);
      Tensor AL = s.cache_read(p.A, "local", {p.P});
      s[p.P].compute_at(s[p.C], o);
      auto [po, pi] = s[p.P].split(p.P.axis(0), 4);
      s[AL].compute_at(s[p.P], po);
      NDArray a = random_array<float>({n + 2}, 142);
      Both r = run_both(s, {p.A}, {p.C}, {a}, "at_chain");
      check_both<float>(r, p.reference(a));
    }
  }
}

TEST_CASE("a copy computed at the consumer of the stage it was inlined into", "[schedule][compute_at][compute_inline][cache_read]") {
  for (int n : {1000, 7}) {
    DYNAMIC_SECTION("n " << n) {
      Stencil p(n);
      Schedule s = create_schedule({p.C});
      auto [o, i] = s[p.C].split(p.C.axis(0), 32);
      Tensor AL = s.cache_read(p.A, "local", {p.P});
      s[p.P].compute_inline();
      s[AL].compute_at(s[p.C], o);
      NDArray a = random_array<float>({n + 2}, 143);
      Both r = run_both(s, {p.A}, {p.C}, {a}, "at_inlined_reader");
      check_both<float>(r, p.reference(a));
      INFO("lowered:\n" << r.scheduled.lowered);
      CHECK(r.scheduled.lowered.find("P[") == std::string::npos);
    }
  }
}

TEST_CASE("a copy computed at an outer loop of its reader's consumer", "[schedule][compute_at][cache_read]") {
  // AL feeds P, and P is computed inside C's inner loop: AL computed at C's outer loop
  // holds what all of that loop's iterations of P read (32 + 2 elements), made once.
  for (int n : {1000, 7, 64}) {
    DYNAMIC_SECTION("n " << n) {
      Stencil p(n);
      Schedule s = create_schedule({p.C});
      auto [o, i] = s[p.C].split(p.C.axis(0), 32);
      Tensor AL = s.cache_read(p.A, "local", {p.P});
      s[p.P].compute_at(s[p.C], i);
      s[AL].compute_at(s[p.C], o);
      NDArray a = random_array<float>({n + 2}, 144);
      Both r = run_both(s, {p.A}, {p.C}, {a}, "at_outer_loop");
      check_both<float>(r, p.reference(a));
      INFO("lowered:\n" << r.scheduled.lowered);
      // AL's realize sits in C's outer loop, before the inner one.
      const size_t al = r.scheduled.lowered.find("allocate " + AL.op()->name + "[");
      const size_t inner = r.scheduled.lowered.find("for (" + i.name() + ",");
      REQUIRE(al != std::string::npos);
      REQUIRE(inner != std::string::npos);
      CHECK(al < inner);
    }
  }
}

TEST_CASE("lowering refuses what it cannot compute as scheduled", "[schedule][compute_at][compute_inline]") {
  SECTION("an inlined tensor passed as an argument") {
    Tensor A = placeholder({4}, Float(32), "A");
    Tensor B = compute({4}, [&](Var i) { return A(i) * 2.0f; }, "B");
    Tensor C = compute({4}, [&](Var i) { return B(i) + 1.0f; }, "C");
    Schedule s = create_schedule({C});
    s[B].compute_inline();
    CHECK_THROWS_WITH(lower(s, {A, B, C}, "f"), Catch::Contains("tensor 'B' is an argument") &&
                                                     Catch::Contains("compute_inline()"));
    CHECK_NOTHROW(lower(s, {A, C}, "f"));
  }
  SECTION("one reduce axis in two computes, one computed inside the other") {
    Tensor A = placeholder({4, 4}, Float(32), "A");
    IterVar k = reduce_axis({0, 4}, "k");
    Tensor C1 = compute({4}, [&](Var i) { return sum(A(i, k), {k}); }, "C1");
    Tensor C2 = compute({4}, [&](Var i) { return sum(C1(k) * A(i, k), {k}); }, "C2");
    Schedule s = create_schedule({C2});
    s[C1].compute_at(s[C2], C2.reduce_axis(0));
    CHECK_THROWS_WITH(lower(s, {A, C2}, "f"), Catch::Contains("axis 'k' is nested in another loop over the same axis") &&
                                                  Catch::Contains("give each compute its own reduce_axis"));
  }
}
