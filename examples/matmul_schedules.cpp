// One matrix multiply, scheduled step by step: the same expression C = A * B, each step
// changing only *how* it runs. Every step is checked against plain loops and timed.
//   matmul_schedules [N]     (N a multiple of 32, default 512)
#include <tensorir/runtime/parallel.h>
#include <tensorir/tensorir.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

using namespace tensorir;

namespace {

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

// The expression, built afresh for every step (a schedule changes its stages).
struct Matmul {
  Tensor A, B, C;
  IterVar k;
  explicit Matmul(int n) {
    A = placeholder({n, n}, Float(32), "A");
    B = placeholder({n, n}, Float(32), "B");
    k = reduce_axis({0, n}, "k");
    C = compute({n, n}, [&](Var i, Var j) { return sum(A(i, k) * B(k, j), {k}); }, "C");
  }
};

// The same product reading B from panels BP[j / bn][k][j % bn] (array packing): the bn
// columns a block of C needs are contiguous for every k.
struct PackedMatmul {
  static constexpr int bn = 32;
  Tensor A, B, BP, C;
  IterVar k;
  explicit PackedMatmul(int n) {
    A = placeholder({n, n}, Float(32), "A");
    B = placeholder({n, n}, Float(32), "B");
    BP = compute({n / bn, n, bn}, [&](Var x, Var y, Var z) { return B(y, x * bn + z); }, "BP");
    k = reduce_axis({0, n}, "k");
    C = compute({n, n}, [&](Var i, Var j) { return sum(A(i, k) * BP(j / bn, k, j % bn), {k}); }, "C");
  }
};

struct Step {
  std::string name;
  Module module;
  std::function<void(const NDArray &, const NDArray &, const NDArray &)> run;
};

// 1. Default: every stage at root, loops in axis order, k innermost (B read down a column).
Step step_default(int n) {
  Matmul m(n);
  Schedule s = create_schedule({m.C});
  Module mod = build(s, {m.A, m.B, m.C}, "llvm", "mm");
  Function f = mod("mm");
  return {"1 default", mod, [f](auto &a, auto &b, auto &c) { f(a, b, c); }};
}

// 2. Blocking: 32x32 tiles of C, k split by 4, so a tile's working set stays in cache.
Step step_blocking(int n) {
  Matmul m(n);
  Schedule s = create_schedule({m.C});
  auto [io, jo, ii, ji] = s[m.C].tile(m.C.axis(0), m.C.axis(1), 32, 32);
  auto [ko, ki] = s[m.C].split(m.C.reduce_axis(0), 4);
  s[m.C].reorder({io, jo, ko, ki, ii, ji});
  Module mod = build(s, {m.A, m.B, m.C}, "llvm", "mm");
  Function f = mod("mm");
  return {"2 blocking (tile 32x32, split k)", mod, [f](auto &a, auto &b, auto &c) { f(a, b, c); }};
}

// 3. Vectorize: the innermost j loop becomes 32-lane vector operations.
Step step_vectorize(int n) {
  Matmul m(n);
  Schedule s = create_schedule({m.C});
  auto [io, jo, ii, ji] = s[m.C].tile(m.C.axis(0), m.C.axis(1), 32, 32);
  auto [ko, ki] = s[m.C].split(m.C.reduce_axis(0), 4);
  s[m.C].reorder({io, jo, ko, ki, ii, ji});
  s[m.C].vectorize(ji);
  Module mod = build(s, {m.A, m.B, m.C}, "llvm", "mm");
  Function f = mod("mm");
  return {"3 + vectorize j.inner", mod, [f](auto &a, auto &b, auto &c) { f(a, b, c); }};
}

// 4. Loop permutation: i.inner outside k.inner, so one row of the C tile is finished for
//    four k at a time while it sits in registers.
Step step_permute(int n) {
  Matmul m(n);
  Schedule s = create_schedule({m.C});
  auto [io, jo, ii, ji] = s[m.C].tile(m.C.axis(0), m.C.axis(1), 32, 32);
  auto [ko, ki] = s[m.C].split(m.C.reduce_axis(0), 4);
  s[m.C].reorder({io, jo, ko, ii, ki, ji});
  s[m.C].vectorize(ji);
  Module mod = build(s, {m.A, m.B, m.C}, "llvm", "mm");
  Function f = mod("mm");
  return {"4 + permute (i.inner outside k.inner)", mod, [f](auto &a, auto &b, auto &c) { f(a, b, c); }};
}

// 5. Array packing: B copied into 32-column panels at root; every k step of a tile now
//    reads one contiguous 128-byte row of a panel.
Step step_packing(int n) {
  PackedMatmul m(n);
  Schedule s = create_schedule({m.C});
  auto [io, jo, ii, ji] = s[m.C].tile(m.C.axis(0), m.C.axis(1), 32, 32);
  auto [ko, ki] = s[m.C].split(m.C.reduce_axis(0), 4);
  s[m.C].reorder({io, jo, ko, ii, ki, ji});
  s[m.C].vectorize(ji);
  s[m.BP].vectorize(m.BP.axis(2));
  Module mod = build(s, {m.A, m.B, m.C}, "llvm", "mm");
  Function f = mod("mm");
  return {"5 + array packing (B -> BP panels)", mod, [f](auto &a, auto &b, auto &c) { f(a, b, c); }};
}

// 6. Write cache: each 32x32 tile accumulates in a local block (cache_write, computed at
//    the tile loop) and is copied to C once; k is split so four k steps are unrolled.
// 7. Parallel: the same, with the fused tile loop and the packing spread over the threads.
Step step_cache_write(int n, bool parallel) {
  PackedMatmul m(n);
  Tensor &C = m.C;
  Schedule s = create_schedule({C});
  Tensor CC = s.cache_write(C, "local");
  auto [io, jo, ii, ji] = s[C].tile(C.axis(0), C.axis(1), 32, PackedMatmul::bn);
  s[CC].compute_at(s[C], jo);
  auto [ko, ki] = s[CC].split(CC.reduce_axis(0), 4);
  s[CC].reorder({ko, CC.axis(0), ki, CC.axis(1)});
  s[CC].vectorize(CC.axis(1));
  s[CC].unroll(ki);
  s[C].vectorize(ji);
  s[m.BP].vectorize(m.BP.axis(2));
  if (parallel) {
    s[C].parallel(s[C].fuse(io, jo));
    s[m.BP].parallel(m.BP.axis(0));
  }
  Module mod = build(s, {m.A, m.B, C}, "llvm", "mm");
  Function f = mod("mm");
  return {parallel ? "7 + parallel (fused tile loop, all threads)" : "6 + cache_write (local accumulator)", mod,
          [f](auto &a, auto &b, auto &c) { f(a, b, c); }};
}

// 8. Register blocking: an 8x32 block of C (16 zmm registers) is finished for all k
//    before moving on, B is packed one panel at a time right where the panel is used,
//    and the panels run in parallel. This is the schedule bench/bench_gemm.cpp measures.
Step step_register_block(int n) {
  PackedMatmul m(n);
  Schedule s = create_schedule({m.C});
  auto [io, jo, ii, ji] = s[m.C].tile(m.C.axis(0), m.C.axis(1), 8, PackedMatmul::bn);
  auto [ko, ki] = s[m.C].split(m.C.reduce_axis(0), 8);
  s[m.C].reorder({jo, io, ko, ki, ii, ji});
  s[m.C].vectorize(ji);
  s[m.C].unroll(ii);
  s[m.C].unroll(ki);
  s[m.C].parallel(jo);
  s[m.BP].compute_at(s[m.C], jo);
  s[m.BP].vectorize(m.BP.axis(2));
  Module mod = build(s, {m.A, m.B, m.C}, "llvm", "mm");
  Function f = mod("mm");
  return {"8 register block 8x32, panel-wise packing", mod, [f](auto &a, auto &b, auto &c) { f(a, b, c); }};
}

}  // namespace

int main(int argc, char **argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 512;
  if (n <= 0 || n % 32 != 0) {
    std::fprintf(stderr, "N must be a positive multiple of 32 (got %s)\n", argv[1]);
    return 2;
  }
  NDArray a = NDArray::random({n, n}, Float(32), 1), b = NDArray::random({n, n}, Float(32), 2);
  NDArray c = NDArray::empty({n, n}, Float(32));

  // The reference: plain loops, accumulated in double.
  std::vector<double> ref(size_t(n) * n, 0.0);
  {
    const float *pa = a.data_as<float>(), *pb = b.data_as<float>();
    for (int i = 0; i < n; ++i)
      for (int q = 0; q < n; ++q) {
        double aiq = pa[i * n + q];
        for (int j = 0; j < n; ++j) ref[size_t(i) * n + j] += aiq * pb[q * n + j];
      }
  }
  double ref_scale = 0;
  for (double v : ref) ref_scale = std::max(ref_scale, std::abs(v));

  std::printf("C = A * B, %d x %d, float32; %d threads for the parallel steps\n\n", n, n, num_threads());
  std::printf("%-46s %10s %9s %12s %12s\n", "step", "median ms", "GFLOP/s", "max rel err", "compile ms");
  using Builder = std::function<Step()>;
  std::vector<Builder> steps = {
      [&] { return step_default(n); },         [&] { return step_blocking(n); },
      [&] { return step_vectorize(n); },       [&] { return step_permute(n); },
      [&] { return step_packing(n); },         [&] { return step_cache_write(n, false); },
      [&] { return step_cache_write(n, true); }, [&] { return step_register_block(n); },
  };
  int failures = 0;
  for (size_t i = 0; i < steps.size(); ++i) {
    auto t0 = Clock::now();
    Step st = steps[i]();
    double compile_ms = ms_since(t0);
    std::fill_n(c.data_as<float>(), size_t(n) * n, 0.0f);

    // Time: one untimed run, then repeat for ~0.3 s (at least 3 runs, at most 25).
    st.run(a, b, c);
    std::vector<double> t;
    double spent = 0;
    while (t.size() < 3 || (spent < 300 && t.size() < 25)) {
      auto r0 = Clock::now();
      st.run(a, b, c);
      t.push_back(ms_since(r0));
      spent += t.back();
    }
    std::sort(t.begin(), t.end());
    double ms = t[t.size() / 2];

    double diff = 0;
    const float *pc = c.data_as<float>();
    for (size_t e = 0; e < ref.size(); ++e) diff = std::max(diff, std::abs(pc[e] - ref[e]));
    double err = diff / ref_scale;
    bool ok = err < 1e-5;
    failures += !ok;
    std::printf("%-46s %10.3f %9.1f %12.1e %12.1f%s\n", st.name.c_str(), ms, 2.0 * n * n * double(n) / (ms * 1e6),
                err, compile_ms, ok ? "" : "   MISMATCH");
    std::fflush(stdout);
  }
  if (failures) std::printf("\n%d step(s) computed a wrong result\n", failures);
  return failures ? 1 : 0;
}
