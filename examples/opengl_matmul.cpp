// A 512x512 matrix multiply as GLSL compute shaders on the headless OpenGL context:
// first with the default GPU schedule (one invocation per element of C), then tiled
// through shared memory (each work group stages 16x16 tiles of A and B). Both are checked
// against a CPU reference; times are medians of repeated runs.
#include <tensorir/tensorir.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iostream>
#include <string>
#include <vector>

using namespace tensorir;

namespace {

constexpr int M = 512, N = 512, K = 512, Tile = 16;

struct Matmul {
  Tensor A, B, C;
};

Matmul define() {
  Matmul mm;
  mm.A = placeholder({M, K}, Float(32), "A");
  mm.B = placeholder({K, N}, Float(32), "B");
  IterVar k = reduce_axis({0, K}, "k");
  mm.C = compute({M, N}, [&](Var i, Var j) { return sum(mm.A(i, k) * mm.B(k, j), {k}); }, "C");
  return mm;
}

// Work groups over 16x16 tiles of C; per chunk of 16 along k, the group copies a tile of
// A and of B into shared memory (one element per invocation), then each invocation
// accumulates its element of C from them.
Schedule tiled_schedule(const Matmul &mm) {
  Schedule s = create_schedule({mm.C});
  Tensor As = s.cache_read(mm.A, "shared", {mm.C});
  Tensor Bs = s.cache_read(mm.B, "shared", {mm.C});
  auto [bi, bj, ti, tj] = s[mm.C].tile(mm.C.axis(0), mm.C.axis(1), Tile, Tile);
  auto [ko, ki] = s[mm.C].split(mm.C.reduce_axis(0), Tile);
  s[mm.C].reorder({bi, bj, ko, ti, tj, ki});
  s[mm.C].bind(bi, thread_axis("blockIdx.y"));
  s[mm.C].bind(bj, thread_axis("blockIdx.x"));
  s[mm.C].bind(ti, thread_axis("threadIdx.y"));
  s[mm.C].bind(tj, thread_axis("threadIdx.x"));
  s[mm.C].unroll(ki);
  for (const Tensor &T : {As, Bs}) {
    s[T].compute_at(s[mm.C], ko);
    s[T].bind(s[T]->leaf_iter_vars[0], thread_axis("threadIdx.y"));
    s[T].bind(s[T]->leaf_iter_vars[1], thread_axis("threadIdx.x"));
  }
  return s;
}

double ms_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

// Builds, runs, checks against `ref` and prints timings; returns the largest error.
double run(const std::string &label, const Schedule &s, const Matmul &mm, const NDArray &a, const NDArray &b,
           const std::vector<double> &ref) {
  auto t0 = std::chrono::steady_clock::now();
  Module m = build(s, {mm.A, mm.B, mm.C}, "opengl", "matmul");
  double compile_ms = ms_since(t0);
  NDArray c = NDArray::empty({M, N}, Float(32), Device::opengl());
  m("matmul")(a, b, c);
  std::vector<float> cv = c.to(Device::cpu()).to_vector<float>();
  double err = 0;
  for (size_t i = 0; i < cv.size(); ++i) err = std::max(err, std::abs(cv[i] - ref[i]));

  // Launches return before the GPU is done: each timed run ends with reading C back.
  std::vector<double> times;
  for (int r = 0; r < 7; ++r) {
    auto t = std::chrono::steady_clock::now();
    m("matmul")(a, b, c);
    c.to(Device::cpu());
    times.push_back(ms_since(t));
  }
  std::nth_element(times.begin(), times.begin() + times.size() / 2, times.end());
  double median = times[times.size() / 2];
  std::cout << label << ": compile " << compile_ms << " ms, run " << median << " ms (median of 7), "
            << 2.0 * M * N * K / (median * 1e6) << " GFLOP/s, max abs error " << err << "\n";
  return err;
}

}  // namespace

int main() {
  try {
    Matmul naive = define(), tiled = define();
    NDArray a_host = NDArray::random({M, K}, Float(32), 1), b_host = NDArray::random({K, N}, Float(32), 2);
    std::vector<float> av = a_host.to_vector<float>(), bv = b_host.to_vector<float>();
    std::vector<double> ref(size_t(M) * N, 0.0);
    for (int i = 0; i < M; ++i)
      for (int q = 0; q < K; ++q) {
        double x = av[size_t(i) * K + q];
        for (int j = 0; j < N; ++j) ref[size_t(i) * N + j] += x * bv[size_t(q) * N + j];
      }
    NDArray a = a_host.to(Device::opengl()), b = b_host.to(Device::opengl());

    Schedule naive_s = create_schedule({naive.C});  // build() adds the default GPU schedule
    double e1 = run("naive (default GPU schedule)", naive_s, naive, a, b, ref);
    Schedule tiled_s = tiled_schedule(tiled);
    double e2 = run("shared-memory tiles of 16x16", tiled_s, tiled, a, b, ref);

    bool ok = e1 < 1e-3 && e2 < 1e-3;
    std::cout << (ok ? "results match the CPU reference" : "MISMATCH against the CPU reference") << "\n";
    return ok ? 0 : 1;
  } catch (const Error &e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
}
