// A tuning task built by hand for the tests: C = A x B (n x n, float32), whose knobs are
// the tile sizes of i, j and k, the loop order inside a tile and whether j is vectorized.
#pragma once
#include <string>

#include "tensorir/autotune/task.h"
#include "tensorir/te/tensor.h"

namespace tensorir::test {

inline const std::vector<int64_t> kTileI = {1, 2, 4, 8, 16, 32}, kTileJ = {4, 8, 16, 32}, kTileK = {1, 4, 16};

// The knob values of configuration `index` (knob 0 varies fastest).
struct MatmulConfig {
  int64_t ti, tj, tk;
  bool k_inside;  // within a tile: io jo ii ko ki ji (true) or io jo ko ki ii ji (false)
  bool vectorize;
  static MatmulConfig of(int64_t index) {
    MatmulConfig c;
    c.ti = kTileI[index % 6];
    index /= 6;
    c.tj = kTileJ[index % 4];
    index /= 4;
    c.tk = kTileK[index % 3];
    index /= 3;
    c.k_inside = index % 2;
    c.vectorize = index / 2 % 2;
    return c;
  }
};

// The schedule of configuration `c` for C = compute(...) over A and B.
inline autotune::Instance matmul_instance(int64_t n, const MatmulConfig &c, const std::string &name = "matmul") {
  Tensor A = placeholder({n, n}, Float(32), "A");
  Tensor B = placeholder({n, n}, Float(32), "B");
  IterVar k = reduce_axis({0, n}, "k");
  Tensor C = compute({n, n}, [&](Var i, Var j) { return sum(A(i, k) * B(k, j), {k}); }, "C");
  Schedule s = create_schedule({C});
  auto [io, ii] = s[C].split(C.axis(0), c.ti);
  auto [jo, ji] = s[C].split(C.axis(1), c.tj);
  auto [ko, ki] = s[C].split(C.reduce_axis(0), c.tk);
  if (c.k_inside) s[C].reorder({io, jo, ii, ko, ki, ji});
  else s[C].reorder({io, jo, ko, ki, ii, ji});
  if (c.vectorize) s[C].vectorize(ji);
  return {s, {A, B, C}, name};
}

inline autotune::Task matmul_task(int64_t n, const Target &target = "llvm") {
  autotune::Task t;
  t.name = "matmul " + std::to_string(n);
  t.workload = "{\"op\":\"test_matmul\",\"n\":" + std::to_string(n) + "}";
  t.target = target;
  t.flops = 2.0 * double(n) * double(n) * double(n);
  t.knob_sizes = {6, 4, 3, 2, 2};
  t.knob_names = {"tile_i", "tile_j", "tile_k", "k_inside", "vectorize"};
  t.instantiate = [n](int64_t index) { return matmul_instance(n, MatmulConfig::of(index)); };
  t.config_json = [](int64_t index) {
    const MatmulConfig c = MatmulConfig::of(index);
    return "{\"tile_i\":" + std::to_string(c.ti) + ",\"tile_j\":" + std::to_string(c.tj) +
           ",\"tile_k\":" + std::to_string(c.tk) + ",\"k_inside\":" + (c.k_inside ? "1" : "0") +
           ",\"vectorize\":" + (c.vectorize ? "1" : "0") + "}";
  };
  return t;
}

}  // namespace tensorir::test
