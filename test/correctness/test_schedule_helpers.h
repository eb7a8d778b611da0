// Shared by the schedule primitive tests: build a scheduled and an unscheduled version of
// the same computation, run both on the same inputs, and compare each with a reference.
#pragma once
#include <Eigen/Dense>
#include <algorithm>
#include <cstdint>
#include <regex>
#include <string>
#include <vector>

#include "correctness/reference.h"

namespace tensorir::testing::sched {

template <typename T>
using RowMajor = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// The constant shape of a tensor as NDArray dimensions.
inline std::vector<int64_t> const_shape(const Tensor &t) {
  std::vector<int64_t> out;
  for (const Expr &e : t.shape()) {
    const int64_t *v = as_const_int(e);
    REQUIRE(v != nullptr);
    out.push_back(*v);
  }
  return out;
}

// Runs a kernel on `inputs` and freshly allocated outputs; returns the outputs.
inline std::vector<NDArray> run_kernel(const Kernel &k, const std::vector<NDArray> &inputs,
                                       const std::vector<Tensor> &outputs) {
  std::vector<Arg> args(inputs.begin(), inputs.end());
  std::vector<NDArray> outs;
  for (const Tensor &t : outputs) {
    outs.push_back(NDArray::empty(const_shape(t), t.dtype()));
    args.push_back(outs.back());
  }
  k.module(k.name).call(args);
  return outs;
}

// The scheduled and the unscheduled (create_schedule only) results of one computation.
struct Both {
  Kernel scheduled, plain;
  std::vector<NDArray> got, want_plain;
};

// Builds `s` and a default schedule of the same outputs, runs both on the same inputs.
inline Both run_both(const Schedule &s, const std::vector<Tensor> &inputs, const std::vector<Tensor> &outputs,
                     const std::vector<NDArray> &data, const std::string &name) {
  std::vector<BuildArg> args(inputs.begin(), inputs.end());
  args.insert(args.end(), outputs.begin(), outputs.end());
  Both b;
  b.scheduled = build_kernel(s, args, name);
  b.plain = build_kernel(create_schedule(outputs), args, name + "_plain");
  b.got = run_kernel(b.scheduled, data, outputs);
  b.want_plain = run_kernel(b.plain, data, outputs);
  return b;
}

// Checks output `i` of `b` against the unscheduled result and against `ref`.
template <typename T, typename R>
void check_both(const Both &b, const std::vector<R> &ref, Tolerance tol = default_tolerance<T>(), size_t i = 0) {
  INFO("scheduled, lowered:\n" << b.scheduled.lowered);
  {
    INFO("compared with the unscheduled result");
    check_close<T>(b.got[i], b.want_plain[i].to_vector<T>(), tol);
  }
  {
    INFO("compared with the reference");
    check_close<T>(b.got[i], ref, tol);
  }
  {
    INFO("the unscheduled result compared with the reference");
    check_close<T>(b.want_plain[i], ref, tol);
  }
}

// Float sums of `terms` products of values in [-1, 1).
inline Tolerance sum_tolerance(int64_t terms) { return {2e-6 * double(terms), 1e-5}; }

inline Eigen::Map<const RowMajor<float>> as_matrix(const NDArray &a) {
  return Eigen::Map<const RowMajor<float>>(a.data_as<float>(), a.shape()[0], a.shape()[1]);
}

inline std::vector<float> flatten(const RowMajor<float> &m) { return std::vector<float>(m.data(), m.data() + m.size()); }

// Eigen's product of two row-major float NDArrays, flattened row-major.
inline std::vector<float> matmul_reference(const NDArray &a, const NDArray &b) {
  RowMajor<float> c = as_matrix(a) * as_matrix(b);
  return flatten(c);
}

// C(i, j) = sum_k A(i, k) * B(k, j).
struct Matmul {
  Tensor A, B, C;
  IterVar k;
  Matmul(int M, int K, int N) {
    A = placeholder({M, K}, Float(32), "A");
    B = placeholder({K, N}, Float(32), "B");
    k = reduce_axis({0, K}, "k");
    C = compute(
        {M, N}, [&](Var i, Var j) { return sum(A(i, k) * B(k, j), {k}); }, "C");
  }
};

// S(i) = sum_k A(i, k) over rows of length K.
struct RowSum {
  int n, K;
  Tensor A, S;
  IterVar k;
  RowSum(int rows, int len) : n(rows), K(len) {
    A = placeholder({n, K}, Float(32), "A");
    k = reduce_axis({0, K}, "k");
    S = compute(
        {n}, [&](Var i) { return sum(A(i, k), {k}); }, "S");
  }
  std::vector<double> reference(const NDArray &a) const {
    auto av = a.to_vector<float>();
    std::vector<double> r(static_cast<size_t>(n), 0.0);
    for (int i = 0; i < n; ++i)
      for (int x = 0; x < K; ++x) r[size_t(i)] += av[size_t(i) * K + x];
    return r;
  }
};

// Whether LLVM IR text holds a float vector of at least 8 lanes.
inline bool has_wide_float_vector(const std::string &ll) {
  return std::regex_search(ll, std::regex(R"(<(8|16|32|64|128|256) x float>)"));
}

inline size_t count_of(const std::string &text, const std::string &what) {
  size_t n = 0;
  for (size_t p = text.find(what); p != std::string::npos; p = text.find(what, p + 1)) ++n;
  return n;
}

}  // namespace tensorir::testing::sched
