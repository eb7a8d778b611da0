// A matrix multiply followed by ReLU: define it, lower it, JIT it, run it, check it.
#include <tensorir/tensorir.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iostream>
#include <vector>

using namespace tensorir;

int main() {
  const int M = 128, N = 96, K = 64;
  // What to compute.
  Tensor A = placeholder({M, K}, Float(32), "A");
  Tensor B = placeholder({K, N}, Float(32), "B");
  IterVar k = reduce_axis({0, K}, "k");
  Tensor C = compute({M, N}, [&](Var i, Var j) { return sum(A(i, k) * B(k, j), {k}); }, "C");
  Tensor D = compute({M, N}, [&](Var i, Var j) { return max(C(i, j), 0.0f); }, "D");

  // How: the default schedule (every stage at root, loops in axis order).
  Schedule s = create_schedule({D});
  std::cout << lower(s, {A, B, D}, "mm_relu") << "\n";
  auto t0 = std::chrono::steady_clock::now();
  Module m = build(s, {A, B, D}, "llvm", "mm_relu");
  double compile_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();

  NDArray a = NDArray::random({M, K}, Float(32), 1), b = NDArray::random({K, N}, Float(32), 2);
  NDArray d = NDArray::empty({M, N}, Float(32));
  m("mm_relu")(a, b, d);

  // An independent reference.
  std::vector<float> av = a.to_vector<float>(), bv = b.to_vector<float>(), dv = d.to_vector<float>();
  double err = 0;
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      float acc = 0;
      for (int q = 0; q < K; ++q) acc += av[i * K + q] * bv[q * N + j];
      err = std::max(err, (double)std::abs(std::max(acc, 0.0f) - dv[i * N + j]));
    }
  std::cout << "max_abs_err " << err << "\n";

  // Timing: median of repeated runs.
  std::vector<double> ms;
  for (int r = 0; r < 51; ++r) {
    auto t = std::chrono::steady_clock::now();
    m("mm_relu")(a, b, d);
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count());
  }
  std::nth_element(ms.begin(), ms.begin() + ms.size() / 2, ms.end());
  double median = ms[ms.size() / 2];
  std::cout << "compile_ms " << compile_ms << "\n";
  std::cout << "median_ms " << median << "  GFLOP/s " << 2.0 * M * N * K / (median * 1e6) << "\n";
  return err < 1e-4 ? 0 : 1;
}
