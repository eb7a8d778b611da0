// Casts between element types, broadcasting, and computes of high rank.
#include <cmath>
#include <cstdint>
#include <vector>

#include "correctness/reference.h"

using namespace tensorir;
using namespace tensorir::testing;

TEST_CASE("casts between integer and float types follow C conversions", "[correctness][elementwise][cast]") {
  const int n = 101;
  Tensor X = placeholder({n}, Float(32), "X");
  Tensor I = placeholder({n}, Int(32), "I");
  Tensor D = placeholder({n}, Float(64), "D");
  Tensor f2i = compute(
      {n}, [&](Var i) { return cast(Int(32), X(i)); }, "f2i");
  Tensor f2d = compute(
      {n}, [&](Var i) { return cast(Float(64), X(i)); }, "f2d");
  Tensor d2f = compute(
      {n}, [&](Var i) { return cast(Float(32), D(i)); }, "d2f");
  Tensor i2f = compute(
      {n}, [&](Var i) { return cast(Float(32), I(i)) * 0.5f; }, "i2f");
  Tensor i2l = compute(
      {n}, [&](Var i) { return cast(Int(64), I(i)) * int64_t(3000000000LL); }, "i2l");
  Tensor i2b = compute(
      {n}, [&](Var i) { return cast(Int(8), I(i)); }, "i2b");
  Tensor mix = compute(
      {n}, [&](Var i) { return X(i) + cast(Float(32), I(i)) + cast(Float(32), i); }, "mix");
  std::vector<Tensor> outs{f2i, f2d, d2f, i2f, i2l, i2b, mix};
  Kernel k = build_kernel(outs, {X, I, D, f2i, f2d, d2f, i2f, i2l, i2b, mix}, "casts");
  INFO("lowered:\n" << k.lowered);

  NDArray x = random_array<float>({n}, 61, -100.0, 100.0);
  NDArray iv = random_array<int32_t>({n}, 62, -100.0, 100.0);
  NDArray d = random_array<double>({n}, 63, -1e3, 1e3);
  NDArray o_f2i = NDArray::empty({n}, Int(32)), o_f2d = NDArray::empty({n}, Float(64)),
          o_d2f = NDArray::empty({n}, Float(32)), o_i2f = NDArray::empty({n}, Float(32)),
          o_i2l = NDArray::empty({n}, Int(64)), o_i2b = NDArray::empty({n}, Int(8)),
          o_mix = NDArray::empty({n}, Float(32));
  k(x, iv, d, o_f2i, o_f2d, o_d2f, o_i2f, o_i2l, o_i2b, o_mix);

  std::vector<float> xv = x.to_vector<float>();
  std::vector<int32_t> ivv = iv.to_vector<int32_t>();
  std::vector<double> dv = d.to_vector<double>();
  std::vector<int32_t> r_f2i(n);
  std::vector<double> r_f2d(n);
  std::vector<float> r_d2f(n), r_i2f(n), r_mix(n);
  std::vector<int64_t> r_i2l(n);
  std::vector<int8_t> r_i2b(n);
  for (int i = 0; i < n; ++i) {
    r_f2i[i] = static_cast<int32_t>(xv[i]);  // truncation towards zero
    r_f2d[i] = static_cast<double>(xv[i]);
    r_d2f[i] = static_cast<float>(dv[i]);
    r_i2f[i] = static_cast<float>(ivv[i]) * 0.5f;
    r_i2l[i] = static_cast<int64_t>(ivv[i]) * 3000000000LL;
    r_i2b[i] = static_cast<int8_t>(ivv[i]);
    r_mix[i] = xv[i] + static_cast<float>(ivv[i]) + static_cast<float>(i);
  }
  {
    INFO("float32 -> int32 truncates");
    check_close<int32_t>(o_f2i, r_f2i);
  }
  {
    INFO("float32 -> float64 is exact");
    check_close<double>(o_f2d, r_f2d, {0, 0});
  }
  {
    INFO("float64 -> float32 rounds");
    check_close<float>(o_d2f, r_d2f, {0, 0});
  }
  {
    INFO("int32 -> float32");
    check_close<float>(o_i2f, r_i2f, {0, 0});
  }
  {
    INFO("int32 -> int64 keeps 64-bit products");
    check_close<int64_t>(o_i2l, r_i2l);
  }
  {
    INFO("int32 -> int8");
    check_close<int8_t>(o_i2b, r_i2b);
  }
  {
    INFO("mixed expression with explicit casts");
    check_close<float>(o_mix, r_mix);
  }
}

TEMPLATE_TEST_CASE("broadcasting a row vector over a matrix", "[correctness][broadcast]", float, double,
                   int32_t) {
  using T = TestType;
  const Type t = dtype_of<T>();
  const int M = 33, N = 17;
  Tensor A = placeholder({M, N}, t, "A");
  Tensor b = placeholder({N}, t, "b");
  Tensor C = compute(
      {M, N}, [&](Var i, Var j) { return A(i, j) + b(j); }, "C");
  Kernel k = build_kernel({C}, {A, b, C}, "bias_add");
  INFO("lowered:\n" << k.lowered);
  NDArray a = random_array<T>({M, N}, 71, -50.0, 50.0), bb = random_array<T>({N}, 72, -50.0, 50.0);
  NDArray c = NDArray::empty({M, N}, t);
  k(a, bb, c);
  std::vector<T> av = a.to_vector<T>(), bv = bb.to_vector<T>(), ref(M * N);
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) ref[i * N + j] = av[i * N + j] + bv[j];
  check_close<T>(c, ref);
}

TEMPLATE_TEST_CASE("NCHW bias add broadcasts over batch and height and width", "[correctness][broadcast]",
                   float, double, int32_t) {
  using T = TestType;
  const Type t = dtype_of<T>();
  const int N = 2, C = 3, H = 7, W = 5;
  Tensor X = placeholder({N, C, H, W}, t, "X");
  Tensor bias = placeholder({C}, t, "bias");
  Tensor Y = compute(
      {N, C, H, W}, [&](Var n, Var c, Var h, Var w) { return X(n, c, h, w) + bias(c); }, "Y");
  Kernel k = build_kernel({Y}, {X, bias, Y}, "nchw_bias");
  INFO("lowered:\n" << k.lowered);
  NDArray x = random_array<T>({N, C, H, W}, 81, -50.0, 50.0), bb = random_array<T>({C}, 82, -50.0, 50.0);
  NDArray y = NDArray::empty({N, C, H, W}, t);
  k(x, bb, y);
  std::vector<T> xv = x.to_vector<T>(), bv = bb.to_vector<T>(), ref(xv.size());
  for (int n = 0; n < N; ++n)
    for (int c = 0; c < C; ++c)
      for (int h = 0; h < H; ++h)
        for (int w = 0; w < W; ++w) {
          int idx = ((n * C + c) * H + h) * W + w;
          ref[idx] = xv[idx] + bv[c];
        }
  check_close<T>(y, ref);
}

TEST_CASE("a six-dimensional compute and the vector-of-Vars lambda form agree",
          "[correctness][elementwise]") {
  std::vector<Expr> shape{2, 3, 1, 4, 5, 3};
  std::vector<int64_t> shp{2, 3, 1, 4, 5, 3};
  Tensor A = placeholder(shape, Float(32), "A");
  Tensor B6 = compute(
      shape, [&](Var a, Var b, Var c, Var d, Var e, Var f) { return A(a, b, c, d, e, f) * 2.0f; }, "B6");
  Tensor BV = compute(
      shape,
      [&](const std::vector<Var> &v) {
        std::vector<Expr> idx(v.begin(), v.end());
        return A(idx) * 2.0f;
      },
      "BV");
  Kernel k = build_kernel({B6, BV}, {A, B6, BV}, "rank6");
  INFO("lowered:\n" << k.lowered);
  NDArray a = random_array<float>(shp, 91);
  NDArray b6 = NDArray::empty(shp, Float(32)), bv = NDArray::empty(shp, Float(32));
  k(a, b6, bv);
  std::vector<float> av = a.to_vector<float>(), ref(av.size());
  for (size_t i = 0; i < av.size(); ++i) ref[i] = av[i] * 2.0f;
  check_close<float>(b6, ref);
  check_close<float>(bv, ref);
}
