// Matrix products against Eigen: plain, fused with ReLU, batched and with a transposed
// operand, in float32, float64 and int32.
#include <Eigen/Dense>
#include <cstdint>
#include <regex>
#include <sstream>
#include <vector>

#include "correctness/reference.h"

using namespace tensorir;
using namespace tensorir::testing;

namespace {

template <typename T>
using RowMajor = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

template <typename T>
Eigen::Map<const RowMajor<T>> as_matrix(const NDArray &a, int64_t offset, int rows, int cols) {
  return Eigen::Map<const RowMajor<T>>(a.data_as<T>() + offset, rows, cols);
}

template <typename T>
std::vector<T> flatten(const RowMajor<T> &m) {
  return std::vector<T>(m.data(), m.data() + m.size());
}

template <typename T>
Tolerance dot_tolerance(int k) {
  if constexpr (std::is_same_v<T, float>)
    return {2e-6 * k, 1e-5};
  else if constexpr (std::is_same_v<T, double>)
    return {1e-14 * k, 1e-12};
  else
    return {0, 0};
}

template <typename T>
NDArray matmul_input(const std::vector<int64_t> &shape, uint64_t seed) {
  // Small integers keep int32 products exact; floats in [-1, 1).
  return std::is_integral_v<T> ? random_array<T>(shape, seed, -10.0, 10.0) : random_array<T>(shape, seed);
}

}  // namespace

TEST_CASE("the documented matmul + ReLU program runs and matches Eigen", "[correctness][matmul]") {
  const int M = 64, K = 33, N = 17;
  Tensor A = placeholder({M, K}, Float(32), "A");
  Tensor B = placeholder({K, N}, Float(32), "B");
  IterVar k = reduce_axis({0, K}, "k");
  Tensor C = compute(
      {M, N}, [&](Var i, Var j) { return sum(A(i, k) * B(k, j), {k}); }, "C");
  Tensor D = compute(
      {M, N}, [&](Var i, Var j) { return max(C(i, j), 0.0f); }, "D");
  Schedule s = create_schedule({D});
  std::ostringstream text;
  text << lower(s, {A, B, D}, "mm_relu") << "\n";
  INFO("lowered:\n" << text.str());
  Module m = build(s, {A, B, D}, "llvm", "mm_relu");
  NDArray a = NDArray::random({M, K}, Float(32), 1), b = NDArray::random({K, N}, Float(32), 2);
  NDArray d = NDArray::empty({M, N}, Float(32));
  m("mm_relu")(a, b, d);
  std::vector<float> dv = d.to_vector<float>();

  RowMajor<float> ref = (as_matrix<float>(a, 0, M, K) * as_matrix<float>(b, 0, K, N)).cwiseMax(0.0f);
  check_close<float>(dv, flatten(ref), dot_tolerance<float>(K));

  {  // the lowered text shows the loops and every tensor
    const std::string str = text.str();
    CHECK(str.find("for") != std::string::npos);
    CHECK(str.find("mm_relu") != std::string::npos);
    for (const char *name : {"A", "B", "C", "D"}) {
      INFO("tensor " << name);
      CHECK(std::regex_search(str, std::regex(std::string("\\b") + name + "\\b")));
    }
  }
}

TEST_CASE("lowered element-wise index arithmetic has no redundant terms", "[correctness][lower]") {
  Tensor A = placeholder({7, 9}, Float(32), "A");
  Tensor C = compute(
      {7, 9}, [&](Var i, Var j) { return A(i, j) + 3.0f; }, "C");
  Schedule s = create_schedule({C});
  std::ostringstream text;
  text << lower(s, {A, C}, "add3");
  const std::string str = text.str();
  INFO("lowered:\n" << str);
  CHECK(str.find("for") != std::string::npos);
  CHECK_FALSE(std::regex_search(str, std::regex(R"(\*\s*1(?![0-9.]))")));   // x*1
  CHECK_FALSE(std::regex_search(str, std::regex(R"(\+\s*0(?![0-9.x]))")));  // x + 0
  CHECK_FALSE(std::regex_search(str, std::regex(R"(\-\s*0(?![0-9.x]))")));  // x - 0
}

TEMPLATE_TEST_CASE("matmul of many shapes matches Eigen", "[correctness][matmul]", float, double, int32_t) {
  using T = TestType;
  const Type t = dtype_of<T>();
  struct Shape {
    int M, K, N;
  };
  std::vector<Shape> shapes{{1, 1, 1}, {7, 13, 5}, {64, 64, 64}, {1023, 7, 9}, {9, 1023, 7}};
  if (std::is_same_v<T, float>) shapes.push_back({33, 65, 1023});
  for (const Shape &sh : shapes) {
    DYNAMIC_SECTION(sh.M << "x" << sh.K << "x" << sh.N) {
      const int M = sh.M, K = sh.K, N = sh.N;
      Tensor A = placeholder({M, K}, t, "A");
      Tensor B = placeholder({K, N}, t, "B");
      IterVar k = reduce_axis({0, K}, "k");
      Tensor C = compute(
          {M, N}, [&](Var i, Var j) { return sum(A(i, k) * B(k, j), {k}); }, "C");
      Kernel kern = build_kernel({C}, {A, B, C}, "matmul");
      INFO("lowered:\n" << kern.lowered);
      NDArray a = matmul_input<T>({M, K}, 201), b = matmul_input<T>({K, N}, 202);
      NDArray c = NDArray::empty({M, N}, t);
      kern(a, b, c);
      RowMajor<T> ref = as_matrix<T>(a, 0, M, K) * as_matrix<T>(b, 0, K, N);
      check_close<T>(c, flatten(ref), dot_tolerance<T>(K));
    }
  }
}

TEMPLATE_TEST_CASE("batched matmul matches Eigen batch by batch", "[correctness][matmul][batch]", float,
                   double, int32_t) {
  using T = TestType;
  const Type t = dtype_of<T>();
  const int Bn = 3, M = 17, K = 33, N = 7;
  Tensor A = placeholder({Bn, M, K}, t, "A");
  Tensor B = placeholder({Bn, K, N}, t, "B");
  Tensor Bt = placeholder({Bn, N, K}, t, "Bt");
  IterVar k = reduce_axis({0, K}, "k"), k2 = reduce_axis({0, K}, "k2");
  Tensor C = compute(
      {Bn, M, N}, [&](Var b, Var i, Var j) { return sum(A(b, i, k) * B(b, k, j), {k}); }, "C");
  // A times the transpose of Bt.
  Tensor Ct = compute(
      {Bn, M, N}, [&](Var b, Var i, Var j) { return sum(A(b, i, k2) * Bt(b, j, k2), {k2}); }, "Ct");
  Kernel kern = build_kernel({C, Ct}, {A, B, Bt, C, Ct}, "bmm");
  INFO("lowered:\n" << kern.lowered);
  NDArray a = matmul_input<T>({Bn, M, K}, 211), b = matmul_input<T>({Bn, K, N}, 212),
          bt = matmul_input<T>({Bn, N, K}, 213);
  NDArray c = NDArray::empty({Bn, M, N}, t), ct = NDArray::empty({Bn, M, N}, t);
  kern(a, b, bt, c, ct);
  std::vector<T> ref, reft;
  for (int bi = 0; bi < Bn; ++bi) {
    RowMajor<T> r = as_matrix<T>(a, int64_t(bi) * M * K, M, K) * as_matrix<T>(b, int64_t(bi) * K * N, K, N);
    RowMajor<T> rt =
        as_matrix<T>(a, int64_t(bi) * M * K, M, K) * as_matrix<T>(bt, int64_t(bi) * N * K, N, K).transpose();
    std::vector<T> f = flatten(r), ft = flatten(rt);
    ref.insert(ref.end(), f.begin(), f.end());
    reft.insert(reft.end(), ft.begin(), ft.end());
  }
  check_close<T>(c, ref, dot_tolerance<T>(K));
  check_close<T>(ct, reft, dot_tolerance<T>(K));
}

TEST_CASE("dense layer: matmul with transposed weights then bias then ReLU in three stages",
          "[correctness][matmul][pipeline]") {
  const int M = 9, K = 130, N = 31;
  Tensor X = placeholder({M, K}, Float(32), "X");
  Tensor W = placeholder({N, K}, Float(32), "W");
  Tensor bias = placeholder({N}, Float(32), "bias");
  IterVar k = reduce_axis({0, K}, "k");
  Tensor Y = compute(
      {M, N}, [&](Var i, Var j) { return sum(X(i, k) * W(j, k), {k}); }, "Y");
  Tensor Z = compute(
      {M, N}, [&](Var i, Var j) { return Y(i, j) + bias(j); }, "Z");
  Tensor R = compute(
      {M, N}, [&](Var i, Var j) { return max(Z(i, j), 0.0f); }, "R");
  Kernel kern = build_kernel({R}, {X, W, bias, R}, "dense_relu");
  INFO("lowered:\n" << kern.lowered);
  NDArray x = random_array<float>({M, K}, 221), w = random_array<float>({N, K}, 222),
          bb = random_array<float>({N}, 223);
  NDArray r = NDArray::empty({M, N}, Float(32));
  kern(x, w, bb, r);
  Eigen::Map<const Eigen::VectorXf> bvec(bb.data_as<float>(), N);
  RowMajor<float> ref = as_matrix<float>(x, 0, M, K) * as_matrix<float>(w, 0, N, K).transpose();
  ref.rowwise() += bvec.transpose();
  ref = ref.cwiseMax(0.0f);
  check_close<float>(r, flatten(ref), dot_tolerance<float>(K));
}
