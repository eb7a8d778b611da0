// The SGEMM template (ops::matmul_llvm): each value of each knob, on square and odd
// shapes (1, 7, 33, 100, 513 rows, columns and reduction; K = 1024 so that every block
// of K applies), computes what plain loops do on random data; its bad operands are
// errors naming them.
#include <tensorir/autotune/config.h>
#include <tensorir/ops/gemm.h>

#include "autotune/autotune_test_util.h"

using namespace tensorir;
using namespace tensorir::autotune_test;

namespace {

// C = A x B through the template with `cfg`, against a double-precision loop.
void check_gemm(int64_t m, int64_t k, int64_t n, autotune::Config cfg) {
  Tensor A = placeholder({m, k}, Float(32), "A"), B = placeholder({k, n}, Float(32), "B");
  ops::MatmulKernel g = ops::matmul_llvm(A, B, &cfg);
  INFO("gemm " << m << "x" << k << " x " << k << "x" << n << " with " << cfg.json());
  Module mod = build(g.schedule, {A, B, g.out}, "llvm", "gemm");
  NDArray a = NDArray::random({m, k}, Float(32), uint64_t(m * 131 + k)), b = NDArray::random({k, n}, Float(32), uint64_t(n * 7 + k));
  NDArray c = NDArray::empty({m, n}, Float(32));
  mod("gemm")(a, b, c);
  const float *pa = a.data_as<float>(), *pb = b.data_as<float>();
  std::vector<float> want(size_t(m * n));
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double acc = 0;
      for (int64_t q = 0; q < k; ++q) acc += double(pa[i * k + q]) * pb[q * n + j];
      want[size_t(i * n + j)] = float(acc);
    }
  CHECK(max_rel_error(c.to_vector<float>(), want) < 1e-5);
}

// Every knob and its choices, as the template declares them.
autotune::Config knob_space(int64_t m, int64_t k, int64_t n) {
  autotune::Config space = autotune::Config::define();
  ops::matmul_llvm(placeholder({m, k}, Float(32), "A"), placeholder({k, n}, Float(32), "B"), &space);
  return space;
}

}  // namespace

TEST_CASE("gemm template: default configuration on odd and square shapes", "[autotune][gemm]") {
  for (int64_t s : {1, 7, 33, 100, 513})
    for (auto [m, k, n] : {std::tuple{s, s, s}, {s, 33, 100}, {7, s, 33}, {100, 7, s}}) check_gemm(m, k, n, {});
}

TEST_CASE("gemm template: every value of every knob", "[autotune][gemm]") {
  const autotune::Config space = knob_space(64, 64, 64);
  REQUIRE(space.names() == std::vector<std::string>{"tile_x", "tile_y", "unroll_k", "parallel_rows", "tile_k", "pack_b"});
  for (size_t knob = 0; knob < space.names().size(); ++knob)
    for (int64_t v : space.choices()[knob]) {
      const std::map<std::string, int64_t> values = {{space.names()[knob], v}};
      for (auto [m, k, n] : {std::tuple<int64_t, int64_t, int64_t>{33, 100, 7}, {100, 33, 513}, {7, 1, 100}, {64, 64, 64}, {13, 1024, 70}})
        check_gemm(m, k, n, autotune::Config::from_values(values));
    }
}

TEST_CASE("gemm template: a panel of B too large for a thread's stack", "[autotune][gemm]") {
  check_gemm(3, 20000, 64, {});
}

TEST_CASE("gemm template: configurations mixing knobs", "[autotune][gemm]") {
  const autotune::Config space = knob_space(100, 100, 100);
  int64_t size = 1;
  for (const auto &c : space.choices()) size *= int64_t(c.size());
  for (int64_t index = 5; index < size; index += 37) check_gemm(100, 33, 100, autotune::Config::from_index(index));
}

TEST_CASE("gemm template: operands that do not multiply are errors naming them", "[autotune][gemm][error]") {
  CHECK_THROWS_WITH(ops::matmul_llvm(placeholder({4, 5}, Float(32), "A"), placeholder({6, 7}, Float(32), "B")),
                    Catch::Contains("A A has 5 columns but B B has 6 rows"));
  CHECK_THROWS_WITH(ops::matmul_llvm(placeholder({4}, Float(32), "A"), placeholder({4, 7}, Float(32), "B")),
                    Catch::Contains("must be matrices"));
}
