#include <tensorir/tensorir.h>
#include <algorithm>
#include <cmath>
#include <iostream>
#include <vector>
using namespace tensorir;
int main() {
  const int M = 128, N = 96, K = 64;
  Tensor A = placeholder({M, K}, Float(32), "A");
  Tensor B = placeholder({K, N}, Float(32), "B");
  IterVar k = reduce_axis({0, K}, "k");
  Tensor C = compute({M, N}, [&](Var i, Var j) { return sum(A(i, k) * B(k, j), {k}); }, "C");
  Tensor D = compute({M, N}, [&](Var i, Var j) { return max(C(i, j), 0.0f); }, "D");
  Schedule s = create_schedule({D});
  std::cout << lower(s, {A, B, D}, "mm_relu") << "\n";
  Module m = build(s, {A, B, D}, "llvm", "mm_relu");
  NDArray a = NDArray::random({M, K}, Float(32), 1), b = NDArray::random({K, N}, Float(32), 2);
  NDArray d = NDArray::empty({M, N}, Float(32));
  m("mm_relu")(a, b, d);
  std::vector<float> av = a.to_vector<float>(), bv = b.to_vector<float>(), dv = d.to_vector<float>();
  double err = 0;
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      float acc = 0;
      for (int q = 0; q < K; ++q) acc += av[i * K + q] * bv[q * N + j];
      err = std::max(err, (double)std::abs(std::max(acc, 0.0f) - dv[i * N + j]));
    }
  std::cout << "max_abs_err " << err << "\n";
  return err < 1e-4 ? 0 : 1;
}
