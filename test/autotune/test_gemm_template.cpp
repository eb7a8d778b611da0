// The SGEMM template (ops::matmul_llvm): each value of each knob, on square and odd
// shapes (1, 7, 33, 100, 513 rows, columns and reduction; K = 1024 so that every block
// of K applies), computes what plain loops do on random data; its bad operands are
// errors naming them.
#include <sstream>

#include <tensorir/autotune/config.h>
#include <tensorir/ir/visitor.h>
#include <tensorir/lower.h>
#include <tensorir/ops/gemm.h>

#include "autotune/autotune_test_util.h"

using namespace tensorir;
using namespace tensorir::autotune_test;

namespace {

// C = A x B through the template with `cfg` for `target`, against a double-precision loop.
void check_gemm(int64_t m, int64_t k, int64_t n, autotune::Config cfg, const std::string &target = "llvm") {
  Tensor A = placeholder({m, k}, Float(32), "A"), B = placeholder({k, n}, Float(32), "B");
  ops::MatmulKernel g = ops::matmul_llvm(A, B, &cfg, Target(target));
  INFO("gemm " << m << "x" << k << " x " << k << "x" << n << " for " << target << " with " << cfg.json());
  Module mod = build(g.schedule, {A, B, g.out}, target, "gemm");
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
  REQUIRE(space.names() ==
          std::vector<std::string>{"tile_x", "tile_y", "unroll_k", "parallel_rows", "tile_k", "pack_b", "prefetch_b"});
  for (size_t knob = 0; knob < space.names().size(); ++knob)
    for (int64_t v : space.choices()[knob]) {
      const std::map<std::string, int64_t> values = {{space.names()[knob], v}};
      for (auto [m, k, n] : {std::tuple<int64_t, int64_t, int64_t>{33, 100, 7}, {100, 33, 513}, {7, 1, 100}, {64, 64, 64}, {13, 1024, 70}})
        check_gemm(m, k, n, autotune::Config::from_values(values));
    }
}

namespace {

// Guards on a row block (conditions on a remainder: the row blocks fused with the
// panels) inside a reduction loop, other than in the else branch of a test made once
// per block: the loops whose every iteration checks whether its rows exist.
class RowGuardsInKLoops : public IRVisitor {
 public:
  int count = 0;
  using IRVisitor::visit;

 protected:
  void visit(const ForNode *op) override {
    const bool k = op->loop_var.name().rfind("k", 0) == 0;
    k_depth_ += k;
    IRVisitor::visit(op);
    k_depth_ -= k;
  }
  void visit(const IfThenElseNode *op) override {
    if (!op->else_case.defined()) {
      if (k_depth_ > 0 && !in_else_ && has_mod(op->condition)) ++count;
      IRVisitor::visit(op);
      return;
    }
    visit(op->condition);
    visit(op->then_case);
    // The else branch of a per-block test runs only for the last block of a panel.
    const bool saved = in_else_;
    in_else_ = true;
    visit(op->else_case);
    in_else_ = saved;
  }

 private:
  static bool has_mod(const Expr &e) {
    struct Finder : IRVisitor {
      bool found = false;
      using IRVisitor::visit;
      void visit(const ModNode *) override { found = true; }
    } f;
    f.visit(e);
    return f.found;
  }
  int k_depth_ = 0;
  bool in_else_ = false;
};

}  // namespace

TEST_CASE("gemm template: rows and panels in parallel with a short last block of rows", "[autotune][gemm]") {
  // The blocks of rows and the panels are one parallel loop; the last block of every
  // panel is short. It alone runs the guarded K loop: every other block runs a K loop
  // without guards. Every register block, on shapes with and without a narrow last
  // panel, with K in one block and in two.
  for (int64_t tile_y : {4, 6, 8, 10, 12, 14})
    for (int64_t tile_x : {16, 32, 48, 64})
      for (auto [k, tile_k] : {std::pair<int64_t, int64_t>{40, 0}, {256, 128}}) {
        const std::map<std::string, int64_t> values = {
            {"tile_x", tile_x}, {"tile_y", tile_y}, {"parallel_rows", 1}, {"tile_k", tile_k}};
        const int64_t m = 5 * tile_y + 3;
        for (int64_t n : {3 * tile_x, 3 * tile_x + 5}) check_gemm(m, k, n, autotune::Config::from_values(values));

        autotune::Config cfg = autotune::Config::from_values(values);
        Tensor A = placeholder({m, k}, Float(32), "A"), B = placeholder({k, 3 * tile_x}, Float(32), "B");
        ops::MatmulKernel g = ops::matmul_llvm(A, B, &cfg);
        RowGuardsInKLoops guards;
        guards.visit(lower(g.schedule, {A, B, g.out}, "gemm")->body);
        INFO("tile_x " << tile_x << ", tile_y " << tile_y << ", tile_k " << tile_k);
        CHECK(guards.count == 0);
      }
}

TEST_CASE("gemm template: a panel of B too large for a thread's stack", "[autotune][gemm]") {
  check_gemm(3, 20000, 64, {});
}

TEST_CASE("gemm template: configurations mixing knobs", "[autotune][gemm]") {
  const autotune::Config space = knob_space(100, 100, 100);
  int64_t size = 1;
  for (const auto &c : space.choices()) size *= int64_t(c.size());
  for (int64_t index = 5; index < size; index += 149) check_gemm(100, 33, 100, autotune::Config::from_index(index));
}

TEST_CASE("gemm template: the default register block fits the target's vector registers", "[autotune][gemm]") {
  // Six rows of as many vectors as leave a quarter of the registers for B's row and the
  // broadcast: 6 x 64 spills with AVX2's 16 registers (73 GFLOP/s at 1024 on a Zen 5
  // core built for haswell, against 112 for 6 x 16).
  auto defaults = [](int64_t n, const std::string &target, autotune::Config cfg = {}) {
    ops::matmul_llvm(placeholder({96, 64}, Float(32), "A"), placeholder({64, n}, Float(32), "B"), &cfg,
                     Target(target));
    std::map<std::string, int64_t> v;
    for (size_t i = 0; i < cfg.names().size(); ++i) v[cfg.names()[i]] = cfg.values()[i];
    return std::pair{v.at("tile_x"), v.at("tile_y")};
  };
  CHECK(defaults(256, "llvm -mcpu=skylake-avx512") == std::pair<int64_t, int64_t>{64, 6});
  CHECK(defaults(96, "llvm -mcpu=skylake-avx512") == std::pair<int64_t, int64_t>{32, 12});
  CHECK(defaults(80, "llvm -mcpu=skylake-avx512") == std::pair<int64_t, int64_t>{16, 14});
  CHECK(defaults(256, "llvm -mcpu=haswell") == std::pair<int64_t, int64_t>{16, 6});
  CHECK(defaults(256, "wasm") == std::pair<int64_t, int64_t>{8, 6});
  // A panel width chosen alone gets the rows that fit it: 48 columns are three zmm
  // vectors, 8 rows of them 24 accumulators.
  CHECK(defaults(96, "llvm -mcpu=skylake-avx512", autotune::Config::from_values({{"tile_x", 48}})).second == 8);
  // The AVX2 default computes the product, a short last block of rows and a padded
  // last panel included.
  check_gemm(100, 70, 90, {}, "llvm -mcpu=haswell");
}

TEST_CASE("gemm template: each knob has the same choices whatever the panel width", "[autotune][gemm]") {
  // A configuration index is decoded knob by knob: were tile_y's choices to depend on
  // tile_x, an index would name other values than the space it came from.
  for (const std::string target : {"llvm -mcpu=skylake-avx512", "llvm -mcpu=haswell", "wasm"})
    for (int64_t n : {64, 72, 100}) {
      autotune::Config space = autotune::Config::define();
      ops::matmul_llvm(placeholder({50, 30}, Float(32), "A"), placeholder({30, n}, Float(32), "B"), &space,
                       Target(target));
      for (int64_t width : space.choices()[0]) {
        autotune::Config cfg = autotune::Config::from_values({{"tile_x", width}});
        ops::matmul_llvm(placeholder({50, 30}, Float(32), "A"), placeholder({30, n}, Float(32), "B"), &cfg,
                         Target(target));
        INFO(target << ", N " << n << ", tile_x " << width);
        CHECK(cfg.names() == space.names());
        CHECK(cfg.choices() == space.choices());
      }
      // Without prefetch instructions there is no prefetch knob.
      const bool has_prefetch =
          std::count(space.names().begin(), space.names().end(), std::string("prefetch_b")) == 1;
      CHECK(has_prefetch == (target != "wasm"));
    }
}

TEST_CASE("gemm template: packing asks for B's rows ahead unless prefetch_b is 0", "[autotune][gemm]") {
  auto lowered = [](autotune::Config cfg) {
    Tensor A = placeholder({64, 256}, Float(32), "A"), B = placeholder({256, 128}, Float(32), "B");
    ops::MatmulKernel g = ops::matmul_llvm(A, B, &cfg);
    std::ostringstream os;
    os << lower(g.schedule, {A, B, g.out}, "gemm");
    return os.str();
  };
  CHECK(lowered({}).find("tensorir.prefetch") != std::string::npos);
  CHECK(lowered(autotune::Config::from_values({{"prefetch_b", 0}})).find("tensorir.prefetch") == std::string::npos);
  // A record made before the knob builds the kernel it measured: no prefetch.
  CHECK(lowered(autotune::Config::from_values({{"tile_x", 64}})).find("tensorir.prefetch") == std::string::npos);
}

TEST_CASE("gemm template: operands that do not multiply are errors naming them", "[autotune][gemm][error]") {
  CHECK_THROWS_WITH(ops::matmul_llvm(placeholder({4, 5}, Float(32), "A"), placeholder({6, 7}, Float(32), "B")),
                    Catch::Contains("A A has 5 columns but B B has 6 rows"));
  CHECK_THROWS_WITH(ops::matmul_llvm(placeholder({4}, Float(32), "A"), placeholder({4, 7}, Float(32), "B")),
                    Catch::Contains("must be matrices"));
}
