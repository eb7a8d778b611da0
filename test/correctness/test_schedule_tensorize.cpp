// tensorize: loop nests replaced by hand-written C micro-kernels (an 8-wide vector add,
// an 8x8 matmul block over the whole reduction, and one that accumulates 8 steps of it
// with reset and update bodies), against the unscheduled result and Eigen or plain loops.
#include <atomic>
#include <tuple>

#include "correctness/test_schedule_helpers.h"

using namespace tensorir;
using namespace tensorir::testing;
using namespace tensorir::testing::sched;

namespace {

// Calls of each micro-kernel, to see that the tensorized code really runs them.
std::atomic<int64_t> add8_calls{0}, gemm_calls{0}, zero_calls{0}, update_calls{0};

extern "C" int32_t tir_test_add8(float *c, const float *a, const float *b) {
  ++add8_calls;
  for (int i = 0; i < 8; ++i) c[i] = a[i] + b[i];
  return 0;
}

// c[8x8] = a[8xK] * b[Kx8], each with its own row stride.
extern "C" int32_t tir_test_gemm8x8(float *c, const float *a, const float *b, int32_t ldc, int32_t lda, int32_t ldb,
                                    int32_t K) {
  ++gemm_calls;
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 8; ++j) {
      float acc = 0;
      for (int k = 0; k < K; ++k) acc += a[i * lda + k] * b[k * ldb + j];
      c[i * ldc + j] = acc;
    }
  return 0;
}

extern "C" int32_t tir_test_zero8x8(float *c, int32_t ldc) {
  ++zero_calls;
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 8; ++j) c[i * ldc + j] = 0.0f;
  return 0;
}

// c[8x8] += a[8x8] * b[8x8].
extern "C" int32_t tir_test_gemm8x8_update(float *c, const float *a, const float *b, int32_t ldc, int32_t lda,
                                           int32_t ldb) {
  ++update_calls;
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 8; ++j) {
      float acc = c[i * ldc + j];
      for (int k = 0; k < 8; ++k) acc += a[i * lda + k] * b[k * ldb + j];
      c[i * ldc + j] = acc;
    }
  return 0;
}

void register_kernels() {
  register_extern_function("tir_test_add8", reinterpret_cast<void *>(&tir_test_add8));
  register_extern_function("tir_test_gemm8x8", reinterpret_cast<void *>(&tir_test_gemm8x8));
  register_extern_function("tir_test_zero8x8", reinterpret_cast<void *>(&tir_test_zero8x8));
  register_extern_function("tir_test_gemm8x8_update", reinterpret_cast<void *>(&tir_test_gemm8x8_update));
}

TensorIntrin add8_intrin() {
  Tensor a = placeholder({8}, Float(32), "a"), b = placeholder({8}, Float(32), "b");
  Tensor c = compute(
      {8}, [&](Var i) { return a(i) + b(i); }, "c");
  return decl_tensor_intrin(
      c,
      [](const std::vector<TensorRegion> &ins, const TensorRegion &out) {
        return call_extern_stmt("tir_test_add8", {out.address, ins[0].address, ins[1].address});
      },
      "add8");
}

// An 8x8 block of a matmul that does the whole reduction over K.
TensorIntrin gemm8x8_intrin(int K) {
  Tensor a = placeholder({8, K}, Float(32), "a"), b = placeholder({K, 8}, Float(32), "b");
  IterVar kk = reduce_axis({0, K}, "kk");
  Tensor c = compute(
      {8, 8}, [&](Var i, Var j) { return sum(a(i, kk) * b(kk, j), {kk}); }, "c");
  return decl_tensor_intrin(
      c,
      [K](const std::vector<TensorRegion> &ins, const TensorRegion &out) {
        return call_extern_stmt("tir_test_gemm8x8", {out.address, ins[0].address, ins[1].address, out.strides[0],
                                                     ins[0].strides[0], ins[1].strides[0], Expr(K)});
      },
      "gemm8x8");
}

// An 8x8x8 step of a matmul: the body computes one block, reset and update split a longer
// reduction around it.
TensorIntrin gemm8x8x8_intrin() {
  Tensor a = placeholder({8, 8}, Float(32), "a"), b = placeholder({8, 8}, Float(32), "b");
  IterVar kk = reduce_axis({0, 8}, "kk");
  Tensor c = compute(
      {8, 8}, [&](Var i, Var j) { return sum(a(i, kk) * b(kk, j), {kk}); }, "c");
  auto args = [](const std::vector<TensorRegion> &ins, const TensorRegion &out) {
    return std::vector<Expr>{out.address, ins[0].address, ins[1].address, out.strides[0], ins[0].strides[0],
                             ins[1].strides[0]};
  };
  return decl_tensor_intrin(
      c,
      [args](const std::vector<TensorRegion> &ins, const TensorRegion &out) {
        std::vector<Expr> a = args(ins, out);
        a.push_back(Expr(8));
        return call_extern_stmt("tir_test_gemm8x8", a);
      },
      "gemm8x8x8",
      [](const std::vector<TensorRegion> &, const TensorRegion &out) {
        return call_extern_stmt("tir_test_zero8x8", {out.address, out.strides[0]});
      },
      [args](const std::vector<TensorRegion> &ins, const TensorRegion &out) {
        return call_extern_stmt("tir_test_gemm8x8_update", args(ins, out));
      });
}

}  // namespace

TEST_CASE("tensorize an element-wise loop with an 8-wide extern add", "[schedule][tensorize]") {
  register_kernels();
  for (int n : {1000, 1024, 8}) {
    DYNAMIC_SECTION("n " << n) {
      Tensor A = placeholder({n}, Float(32), "A"), B = placeholder({n}, Float(32), "B");
      Tensor C = compute(
          {n}, [&](Var i) { return A(i) + B(i); }, "C");
      Schedule s = create_schedule({C});
      auto [o, i] = s[C].split(C.axis(0), 8);
      s[C].tensorize(i, add8_intrin());
      NDArray a = random_array<float>({n}, 401), b = random_array<float>({n}, 402);
      add8_calls = 0;
      Both r = run_both(s, {A, B}, {C}, {a, b}, "add_tensorized");
      CHECK(add8_calls == n / 8);
      auto av = a.to_vector<float>(), bv = b.to_vector<float>();
      std::vector<float> ref(av.size());
      for (size_t x = 0; x < ref.size(); ++x) ref[x] = av[x] + bv[x];
      check_both<float>(r, ref);
      INFO("lowered:\n" << r.scheduled.lowered);
      CHECK(r.scheduled.lowered.find("tir_test_add8") != std::string::npos);
      CHECK(r.scheduled.lowered.find("for (" + i.name()) == std::string::npos);
    }
  }
}

TEST_CASE("tensorize a matmul with an 8x8 block kernel that does the whole reduction",
          "[schedule][tensorize][matmul]") {
  register_kernels();
  for (auto [M, K, N] : std::vector<std::tuple<int, int, int>>{{64, 64, 64}, {16, 33, 40}, {8, 7, 8}, {256, 129, 24}}) {
    DYNAMIC_SECTION(M << "x" << K << "x" << N) {
      Matmul p(M, K, N);
      Schedule s = create_schedule({p.C});
      auto [io, jo, ii, ji] = s[p.C].tile(p.C.axis(0), p.C.axis(1), 8, 8);
      s[p.C].tensorize(ii, gemm8x8_intrin(K));
      NDArray a = random_array<float>({M, K}, 403), b = random_array<float>({K, N}, 404);
      gemm_calls = 0;
      Both r = run_both(s, {p.A, p.B}, {p.C}, {a, b}, "mm_tensorized");
      CHECK(gemm_calls == int64_t(M / 8) * (N / 8));
      check_both<float>(r, matmul_reference(a, b), sum_tolerance(K));
      INFO("lowered:\n" << r.scheduled.lowered);
      CHECK(r.scheduled.lowered.find("tir_test_gemm8x8") != std::string::npos);
      CHECK(r.scheduled.lowered.find("for (" + ji.name()) == std::string::npos);
    }
  }
}

TEST_CASE("tensorize a matmul block by block in parallel", "[schedule][tensorize][parallel][matmul]") {
  register_kernels();
  const int M = 128, K = 65, N = 64;
  Matmul p(M, K, N);
  Schedule s = create_schedule({p.C});
  auto [io, jo, ii, ji] = s[p.C].tile(p.C.axis(0), p.C.axis(1), 8, 8);
  s[p.C].tensorize(ii, gemm8x8_intrin(K));
  s[p.C].parallel(io);
  NDArray a = random_array<float>({M, K}, 405), b = random_array<float>({K, N}, 406);
  gemm_calls = 0;
  Both r = run_both(s, {p.A, p.B}, {p.C}, {a, b}, "mm_tensorized_par");
  CHECK(gemm_calls == int64_t(M / 8) * (N / 8));
  check_both<float>(r, matmul_reference(a, b), sum_tolerance(K));
}

TEST_CASE("tensorize inside a longer reduction uses the reset and update bodies", "[schedule][tensorize][matmul]") {
  register_kernels();
  for (auto [M, K, N] : std::vector<std::tuple<int, int, int>>{{64, 64, 64}, {16, 24, 40}, {8, 8, 8}}) {
    DYNAMIC_SECTION(M << "x" << K << "x" << N) {
      Matmul p(M, K, N);
      Schedule s = create_schedule({p.C});
      auto [io, jo, ii, ji] = s[p.C].tile(p.C.axis(0), p.C.axis(1), 8, 8);
      auto [ko, ki] = s[p.C].split(p.k, 8);
      s[p.C].reorder({io, jo, ko, ii, ji, ki});
      s[p.C].tensorize(ii, gemm8x8x8_intrin());
      NDArray a = random_array<float>({M, K}, 407), b = random_array<float>({K, N}, 408);
      zero_calls = 0;
      update_calls = 0;
      gemm_calls = 0;
      Both r = run_both(s, {p.A, p.B}, {p.C}, {a, b}, "mm_tensorized_update");
      const int64_t blocks = int64_t(M / 8) * (N / 8);
      CHECK(zero_calls == blocks);
      CHECK(update_calls == blocks * (K / 8));
      CHECK(gemm_calls == 0);
      check_both<float>(r, matmul_reference(a, b), sum_tolerance(K));
      INFO("lowered:\n" << r.scheduled.lowered);
      CHECK(r.scheduled.lowered.find("tir_test_zero8x8") != std::string::npos);
      CHECK(r.scheduled.lowered.find("tir_test_gemm8x8_update") != std::string::npos);
    }
  }
  SECTION("with the whole reduction inside, the same intrinsic uses its body") {
    Matmul p(16, 8, 24);
    Schedule s = create_schedule({p.C});
    auto [io, jo, ii, ji] = s[p.C].tile(p.C.axis(0), p.C.axis(1), 8, 8);
    s[p.C].tensorize(ii, gemm8x8x8_intrin());
    NDArray a = random_array<float>({16, 8}, 409), b = random_array<float>({8, 24}, 410);
    zero_calls = 0;
    update_calls = 0;
    gemm_calls = 0;
    Both r = run_both(s, {p.A, p.B}, {p.C}, {a, b}, "mm_tensorized_body");
    CHECK(gemm_calls == 2 * 3);
    CHECK(zero_calls == 0);
    CHECK(update_calls == 0);
    check_both<float>(r, matmul_reference(a, b), sum_tolerance(8));
  }
}
